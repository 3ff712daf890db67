"""Board symmetries and tile relabelling: any goal -> a goal a database was built for, and
the diagonal reflection of the pattern-database lookup (layer 0: core).

A distance only depends on *which tile must reach which cell*, so a problem ``(start, goal)``
becomes ``(σ(start), target)`` by renaming every tile after the tile the target has in its
goal cell -- possible whenever the two goals put the blank on the same cell.  When they do not,
a symmetry of the board (rotation or reflection; the 8 of the square, the 4 of a rectangle)
that carries the goal's blank cell onto the target's is applied first.  Moves found for the
reduced problem are mapped back through the symmetry.

The reflection lookup of additive pattern databases is the same thing with ``target = goal``:
the transpose of a square board plus the relabelling that makes the goal its own mirror image.
A reflected position is exactly as far from the goal as the original, so looking it up in the
same tables gives a second admissible value.  :func:`diagonal_reflection` is that one
reflection, used by the tables, the heuristics and the search plans alike.

Imports: :mod:`solver.core.board` only.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from .board import BLANK, Board, BoardError, Shape


@dataclass(frozen=True)
class Symmetry:
    """A board symmetry: ``cells[c]`` is where cell c goes; ``moves`` maps each move letter."""

    name: str
    cells: tuple[int, ...]
    moves: dict

    def apply(self, board: Board) -> Board:
        """The board seen through this symmetry."""
        tiles = [0] * board.shape.size
        for c, t in enumerate(board.tiles):
            tiles[self.cells[c]] = t
        return Board(board.shape, tuple(tiles))


def _cell_map(shape: Shape, f) -> tuple[int, ...]:
    out = []
    for c in range(shape.size):
        r, q = divmod(c, shape.cols)
        r2, q2 = f(r, q)
        out.append(r2 * shape.cols + q2)
    return tuple(out)


@functools.cache  # a handful of shapes; every solve asks for them (6 times with reflection)
def symmetries(shape: Shape) -> tuple[Symmetry, ...]:
    """The symmetries of ``shape`` that keep its shape (identity first)."""
    R, C = shape.rows - 1, shape.cols - 1
    same = {"U": "U", "D": "D", "L": "L", "R": "R"}
    out = [
        Symmetry("identity", _cell_map(shape, lambda r, c: (r, c)), same),
        Symmetry(
            "rotate-180",
            _cell_map(shape, lambda r, c: (R - r, C - c)),
            {"U": "D", "D": "U", "L": "R", "R": "L"},
        ),
        Symmetry(
            "flip-left-right",
            _cell_map(shape, lambda r, c: (r, C - c)),
            {"U": "U", "D": "D", "L": "R", "R": "L"},
        ),
        Symmetry(
            "flip-up-down",
            _cell_map(shape, lambda r, c: (R - r, c)),
            {"U": "D", "D": "U", "L": "L", "R": "R"},
        ),
    ]
    if shape.rows == shape.cols:
        out += [
            Symmetry(
                TRANSPOSE,
                _cell_map(shape, lambda r, c: (c, r)),
                {"U": "L", "L": "U", "D": "R", "R": "D"},
            ),
            Symmetry(
                "anti-transpose",
                _cell_map(shape, lambda r, c: (C - c, R - r)),
                {"U": "R", "R": "U", "D": "L", "L": "D"},
            ),
            Symmetry(
                "rotate-90",
                _cell_map(shape, lambda r, c: (c, R - r)),
                {"U": "R", "R": "D", "D": "L", "L": "U"},
            ),
            Symmetry(
                "rotate-270",
                _cell_map(shape, lambda r, c: (C - c, r)),
                {"U": "L", "L": "D", "D": "R", "R": "U"},
            ),
        ]
    return tuple(out)


TRANSPOSE = "transpose"  # the reflection across the main diagonal


def relabelling(goal: Board, target: Board) -> list[int]:
    """``m`` with ``m[goal.tiles[c]] == target.tiles[c]`` for every cell (same blank cell)."""
    if goal.blank != target.blank:
        raise BoardError("relabelling needs both goals to have the blank on the same cell")
    m = [0] * goal.shape.size
    for g, t in zip(goal.tiles, target.tiles):
        m[g] = t
    return m


@dataclass(frozen=True)
class Reduction:
    """How a problem towards one goal becomes a problem towards ``target``: a symmetry of the
    board, then the tile renaming ``relabel`` (tile t becomes ``relabel[t]``)."""

    symmetry: Symmetry
    relabel: tuple[int, ...]
    target: Board

    @property
    def is_identity(self) -> bool:
        """True when boards are unchanged (same goal, nothing to map)."""
        return self.symmetry.name == "identity" and all(t == m for t, m in enumerate(self.relabel))

    def board(self, board: Board) -> Board:
        """``board`` as seen in the reduced problem."""
        return self.symmetry.apply(board).relabel(self.relabel)

    def moves_back(self, moves: str) -> str:
        """Translate moves of the reduced problem into moves of the original one."""
        inverse = {v: k for k, v in self.symmetry.moves.items()}
        return "".join(inverse[m] for m in moves)

    def moves_forward(self, moves: str) -> str:
        """Translate moves of the original problem into moves of the reduced one."""
        return "".join(self.symmetry.moves[m] for m in moves)


@functools.lru_cache(maxsize=256)  # the same few goals, over and over in a batch
def reduction(goal: Board, target: Board, symmetry_name: str | None = None) -> Reduction | None:
    """The reduction of problems towards ``goal`` to problems towards ``target`` (the first
    symmetry, identity first, that carries ``goal``'s blank onto ``target``'s blank cell), or
    None when no symmetry of the board does.  ``symmetry_name`` asks for one symmetry only.

    >>> from solver.core.board import goal_board
    >>> red = reduction(goal_board("2x2", "blank-first"), goal_board("2x2"))
    >>> red.symmetry.name, str(red.board(Board.parse("1 0/2 3")))
    ('rotate-180', '1 2/0 3')
    """
    if goal.shape != target.shape:
        raise BoardError(f"the goal is {goal.shape} but the target is {target.shape}")
    for sym in symmetries(goal.shape):
        if symmetry_name is not None and sym.name != symmetry_name:
            continue
        if sym.cells[goal.blank] != target.blank:
            continue
        return Reduction(sym, tuple(relabelling(sym.apply(goal), target)), target)
    return None


def diagonal_reflection(goal: Board) -> Reduction | None:
    """The reflection across the main diagonal with the relabelling that maps ``goal`` onto
    itself, or None when the board is not square or the goal's blank is off the diagonal.

    >>> from solver.core.board import goal_board
    >>> list(diagonal_reflection(goal_board("3x3")).relabel)
    [0, 1, 4, 7, 2, 5, 8, 3, 6]
    """
    return reduction(goal, goal, TRANSPOSE)


__all__ = [
    "Symmetry",
    "Reduction",
    "symmetries",
    "relabelling",
    "reduction",
    "diagonal_reflection",
    "TRANSPOSE",
    "BLANK",
]
