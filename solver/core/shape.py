"""Board shapes and the vocabulary every board shares: the blank, the moves, the limits and
the one error a bad board raises (layer 0: core; :mod:`solver.core.board` builds on it).

Imports: the standard library only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

BLANK = 0
BLANK_SYMBOLS = ("0", "x", "X", "_", ".")  # how a board may write the blank
BLANK_WORDS = ", ".join(BLANK_SYMBOLS[:-1]) + " or " + BLANK_SYMBOLS[-1]  # for messages and help
MIN_SIDE = 2
MAX_SIDE = 16
MAX_TILE_DIGITS = 6  # tiles are below MAX_SIDE**2 = 256; longer digit strings are refused early
# The longest board text read (characters): a 16x16 board written as JSON rows is about 1.5 k;
# anything longer is refused before it is split or decoded (DESIGN §1, "one bad line").
MAX_BOARD_CHARS = 1 << 16
DIGITS = re.compile(r"[0-9]+")  # ASCII digits only: str.isdigit() and \d accept other scripts
# Square shapes inferred from a flat list of numbers; 6 is LeetCode 773's 2x3.
INFERRED_SHAPES = {6: (2, 3), 9: (3, 3), 16: (4, 4), 25: (5, 5)}
GOAL_PRESETS = ("blank-last", "blank-first", "snake", "spiral")
MOVES = "UDLR"
OPPOSITE = {"U": "D", "D": "U", "L": "R", "R": "L"}


class BoardError(ValueError):
    """A board, shape, goal or move sequence that cannot be read; the message is one line."""


@dataclass(frozen=True)
class Shape:
    """A board shape: ``rows`` x ``cols`` cells, numbered row-major from 0.

    >>> Shape.parse("3x4")
    Shape(rows=3, cols=4)
    >>> str(Shape(2, 3)), Shape(2, 3).size
    ('2x3', 6)
    """

    rows: int
    cols: int

    def __post_init__(self):
        for side in (self.rows, self.cols):
            if not MIN_SIDE <= side <= MAX_SIDE:
                raise BoardError(
                    f"shape {self.rows}x{self.cols} is not supported: each side must be "
                    f"{MIN_SIDE} to {MAX_SIDE}"
                )

    @classmethod
    def parse(cls, text: str | Shape) -> Shape:
        """Read ``"3x3"`` (also ``3X3``, ``3*3``, ``3,3``)."""
        if isinstance(text, Shape):
            return text
        m = re.fullmatch(r"\s*([0-9]{1,6})\s*[xX*,]\s*([0-9]{1,6})\s*", str(text))
        if not m:
            raise BoardError(f"shape '{clip(text)}' is not of the form ROWSxCOLS, e.g. 3x3")
        return cls(int(m.group(1)), int(m.group(2)))

    def __str__(self) -> str:
        return f"{self.rows}x{self.cols}"

    @property
    def size(self) -> int:
        """Number of cells, ``rows * cols``."""
        return self.rows * self.cols

    def neighbour(self, cell: int, move: str) -> int | None:
        """The cell the blank reaches from ``cell`` by ``move``, or None off the board."""
        r, c = divmod(cell, self.cols)
        if move == "U":
            r -= 1
        elif move == "D":
            r += 1
        elif move == "L":
            c -= 1
        elif move == "R":
            c += 1
        else:
            raise BoardError(f"'{move}' is not a move: use U, D, L or R")
        if 0 <= r < self.rows and 0 <= c < self.cols:
            return r * self.cols + c
        return None

    def neighbour_table(self) -> list[list[int]]:
        """For each cell, the cell reached by U, D, L, R in that order (-1 off the board)."""
        table = []
        for cell in range(self.size):
            row = []
            for m in MOVES:
                n = self.neighbour(cell, m)
                row.append(-1 if n is None else n)
            table.append(row)
        return table


def clip(text: str, limit: int = 40) -> str:
    """``text`` cut to ``limit`` characters for an error message."""
    text = "".join(
        c if c.isprintable() else f"\\x{ord(c):02x}" if ord(c) < 256 else "?"
        for c in str(text)[: limit + 1]
    )
    return text if len(text) <= limit else text[:limit] + "…"
