"""A note in JSON records once a command (layer 0: core).

A note (``"notice"``: a slower fallback, what to build, where an estimate comes from) is said
once per command: on stderr once, and in the first JSON record printed that carries it; later
records keep the key, null, so that every record of an outcome has the same keys.  A batch
prints its records in input order but may make them in another (the lines read in bulk first),
and the warm path's client prints pieces that the server answered as commands of their own, so
the rule is kept where the records are printed: :class:`NotedOnce` reads the lines on their
way out.

Imports: the standard library only (the warm path's client uses it without numpy or click).
"""

from __future__ import annotations

import json

_CARRIES = b'"notice":"'  # a compact JSON record whose note is a string


class NotedOnce:
    """Lines of JSON records as printed, each note left in the first record that carries it."""

    def __init__(self):
        self.carried: set = set()

    def lines(self, data: bytes) -> bytes:
        """``data`` (whole lines, one compact JSON record or other text each) with each note
        already carried by an earlier record of this command replaced by null."""
        if _CARRIES not in data:
            return data
        out = []
        for line in data.splitlines(keepends=True):
            if _CARRIES in line and line.startswith(b"{"):
                note = json.loads(line).get("notice")
                if note in self.carried:
                    line = line.replace(b'"notice":' + json.dumps(note).encode(), b'"notice":null')
                self.carried.add(note)
            out.append(line)
        return b"".join(out)


class NotedOnceWriter:
    """A binary stream's writer that passes what it writes through one :class:`NotedOnce`."""

    def __init__(self, out, notes: NotedOnce | None = None):
        self.out, self.notes = out, notes or NotedOnce()

    def write(self, data: bytes) -> int:
        return self.out.write(self.notes.lines(data))

    def flush(self) -> None:
        self.out.flush()


__all__ = ["NotedOnce", "NotedOnceWriter"]
