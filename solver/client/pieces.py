"""A batch cut into pieces that are answered elsewhere, each exactly as the whole batch would
answer its lines (layer 7: client).

``npuzzle distance - --server URL`` reads stdin as :func:`solver.workloads.lines.chunks` does,
cuts the chunks into :class:`Piece` s small enough for one request, and the server answers
each piece with the batch driver (:mod:`solver.cli.stream`) told where the piece starts: the number of
its first line, the lines refused for their length, and the batch's first line with content
(the header, when it names columns), which may lie in an earlier piece.  So a piece's answers
are the lines the whole batch would have printed for it, byte for byte.

Imports: the standard library and :mod:`solver.workloads.lines` (no numpy: the client runs it).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from ..workloads import lines


@dataclass
class Piece:
    """Lines of a batch: ``chunk`` (numbered from ``chunk.first``) and ``head``, the batch's
    first line with content and its number, when one came before or in this piece."""

    chunk: lines.Chunk
    head: tuple[bytes, int] | None = None
    size: int = field(init=False)

    def __post_init__(self):
        self.size = self.chunk.data.count(b"\n")

    def as_json(self) -> dict:
        """Where the piece starts, as JSON values (its lines travel as they are, beside it;
        the head's bytes as Latin-1 text: every byte value survives)."""
        head = None if self.head is None else [self.head[0].decode("latin-1"), self.head[1]]
        return {
            "first": self.chunk.first,
            "long": {str(i): n for i, n in self.chunk.long.items()},
            "head": head,
        }

    @classmethod
    def from_json(cls, obj: dict, data: bytes) -> Piece:
        """The piece whose lines are ``data`` and whose start :meth:`as_json` wrote
        (``ValueError``/``KeyError``/``TypeError`` for anything else)."""
        if data and not data.endswith(b"\n"):
            raise ValueError("the lines of a piece end with a newline")
        chunk = lines.Chunk(
            data, int(obj["first"]), {int(i): int(n) for i, n in dict(obj["long"]).items()}
        )
        head = obj.get("head")
        return cls(chunk, None if head is None else (head[0].encode("latin-1"), int(head[1])))


def first_with_content(chunk: lines.Chunk) -> tuple[bytes, int] | None:
    """The first line of ``chunk`` that is neither blank, a ``#`` comment nor refused for its
    length, or a header comment before it (:func:`solver.workloads.lines.comment_header`),
    with its number: the line that decides whether the batch has a header."""
    for i, raw in enumerate(chunk.lines()):
        s = raw.strip()
        if not s or i in chunk.long:
            continue
        if not s.startswith(b"#"):
            return raw, chunk.first + i
        if b"\t" in s and lines.comment_header(s.decode("utf-8", "replace")):
            return raw, chunk.first + i
    return None


def cut(chunks: Iterable[lines.Chunk], max_bytes, max_lines) -> Iterator[Piece]:
    """The lines of ``chunks`` as pieces of at most ``max_bytes`` bytes (a longer line is a
    piece of its own) and ``max_lines()`` lines, asked again for each piece (the caller sizes
    them by the answers so far), each knowing the batch's head."""
    head = None
    for chunk in chunks:
        if head is None:
            head = first_with_content(chunk)
        data, start = chunk.data, 0
        line = chunk.first
        while start < len(data):
            end = _cut_at(data, start, max_bytes, max_lines())
            part = data[start:end]
            n = part.count(b"\n")
            first_index = line - chunk.first
            long = {
                i - first_index: k
                for i, k in chunk.long.items()
                if first_index <= i < first_index + n
            }
            yield Piece(lines.Chunk(part, line, long), head)
            line += n
            start = end


def _cut_at(data: bytes, start: int, max_bytes: int, max_lines: int) -> int:
    """The end (one past a newline) of at most ``max_lines`` lines from ``start`` within
    ``max_bytes`` -- at least one line, however long."""
    end = start
    for _ in range(max(1, max_lines)):
        nl = data.find(b"\n", end)
        if nl < 0 or (nl + 1 - start > max_bytes and end > start):
            break
        end = nl + 1
    return end


__all__ = ["Piece", "first_with_content", "cut"]
