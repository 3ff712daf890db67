"""``npuzzle stats -``: the histogram of the solution lengths in a stream of answers or
boards (layer 7: cli).

Each line is read as what the tools write:

* an answer that states a length -- a number (``distance -``), ``31 moves: ...`` (``solve -``),
  a JSON record with ``length`` (``solve --json``) or ``distance`` (``distance --json``,
  ``generate --json``) -- counts that length;
* an answer without one (``unsolvable``, ``error: ...``, ``not found: ...``, a JSON error
  record or ``"solvable": false``) is counted as unanswered;
* anything else is a question (a board in any format, ``generate``'s ``board<TAB>distance``
  columns, a JSON line with a board): its optimal distance is computed, as ``distance -``
  would (in bulk from the exact tables, else by IDA*).

Imports: :mod:`.stream`, :mod:`.distance`, :mod:`solver.workloads.lines`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from .. import api
from ..workloads import lines
from . import errors

_COUNT = re.compile(rb"\s*([0-9]{1,9})\s*")
_MOVES = re.compile(rb"\s*([0-9]{1,9}) moves?:")
_UNANSWERED = (b"unsolvable", b"error:", b"not found:", b"limit:")


@dataclass
class Lengths:
    """How many answers had each length, and how many lines had none."""

    counts: list = field(default_factory=list)
    unanswered: int = 0  # unsolvable, not found, a search limit
    errors: int = 0  # lines that were not a question or an answer

    def add(self, length: int) -> None:
        if length >= len(self.counts):
            self.counts.extend([0] * (length + 1 - len(self.counts)))
        self.counts[length] += 1

    @property
    def total(self) -> int:
        """Number of answers with a length."""
        return sum(self.counts)

    @property
    def max_distance(self) -> int:
        return len(self.counts) - 1

    @property
    def mean(self) -> float:
        return sum(d * c for d, c in enumerate(self.counts)) / self.total if self.total else 0.0

    def as_dict(self) -> dict:
        """JSON-ready fields (the names of ``stats --json`` for a table)."""
        return {
            "source": "stdin",
            "counts": self.counts,
            "total": self.total,
            "max_distance": self.max_distance,
            "mean": round(self.mean, 6),
            "unanswered": self.unanswered,
            "errors": self.errors,
        }


def classify(raw: bytes) -> int | str | None:
    """A length, ``"unanswered"``, or None when the line is a question (or asks nothing)."""
    s = raw.strip()
    m = _COUNT.fullmatch(s) or _MOVES.match(s)
    if m:
        return int(m.group(1))
    if s.startswith(_UNANSWERED):
        return "unanswered"
    if s.startswith(b"{"):
        try:
            obj = json.loads(s)
        except (ValueError, RecursionError):
            return None
        if isinstance(obj, dict):
            for key in ("length", "distance"):
                v = obj.get(key)
                if isinstance(v, int) and not isinstance(v, bool) and v >= 0:
                    return v
            if "error" in obj or obj.get("solvable") is False or "length" in obj:
                return "unanswered"
    return None


class _Tally:
    """A file-like sink for the answers of the questions: counts them as they are written."""

    def __init__(self, lengths: Lengths):
        self.lengths = lengths
        self.rest = b""

    def write(self, data: bytes) -> None:
        parts = (self.rest + data).split(b"\n")
        self.rest = parts.pop()
        for p in parts:
            if not p:
                continue
            if p.isdigit():
                self.lengths.add(int(p))
            elif p == b"unsolvable":
                self.lengths.unanswered += 1
            else:
                self.lengths.errors += 1

    def flush(self) -> None:
        pass


def read_lengths(source, goal=None, shape=None, data_dir=None) -> tuple[Lengths, int]:
    """The histogram of the lengths in ``source`` and the exit status (2 when a line was
    neither an answer nor a question)."""
    from . import stream
    from .distance import make_batch

    lengths = Lengths()

    def questions():
        for chunk in lines.chunks(source):
            kept = []
            for i, raw in enumerate(chunk.lines()):
                what = None if i in chunk.long else classify(raw)
                if what is None:
                    kept.append(raw)
                    continue
                kept.append(b"")  # answered already: the question reader skips it
                if what == "unanswered":
                    lengths.unanswered += 1
                else:
                    lengths.add(what)
            yield lines.Chunk(b"\n".join(kept) + b"\n", chunk.first, chunk.long)

    batch = make_batch(api.SearchOptions(data_dir=data_dir), goal, shape, as_json=False)
    batch.counted = (errors.EXIT_USAGE,)  # an unsolvable board is counted as unanswered
    status = stream.run(batch, out=_Tally(lengths), chunks=questions())
    if lengths.errors:
        status = errors.EXIT_USAGE
    return lengths, status
