"""Reduce any goal to a goal a database was built for: relabelling and board symmetries.

A distance only depends on *which tile must reach which cell*, so a problem ``(start, goal)``
becomes ``(σ(start), target)`` by renaming every tile after the tile the target has in its
goal cell — possible whenever the two goals put the blank on the same cell.  When they do not,
a symmetry of the board (rotation or reflection; the 8 of the square, the 4 of a rectangle)
that carries the goal's blank cell onto the target's is applied first.  Moves found for the
reduced problem are mapped back through the symmetry.

Imports: :mod:`solver.board` only.
"""
from __future__ import annotations

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


def symmetries(shape: Shape) -> list[Symmetry]:
    """The symmetries of ``shape`` that keep its shape (identity first)."""
    R, C = shape.rows - 1, shape.cols - 1
    same = {"U": "U", "D": "D", "L": "L", "R": "R"}
    out = [
        Symmetry("identity", _cell_map(shape, lambda r, c: (r, c)), same),
        Symmetry("rotate-180", _cell_map(shape, lambda r, c: (R - r, C - c)),
                 {"U": "D", "D": "U", "L": "R", "R": "L"}),
        Symmetry("flip-left-right", _cell_map(shape, lambda r, c: (r, C - c)),
                 {"U": "U", "D": "D", "L": "R", "R": "L"}),
        Symmetry("flip-up-down", _cell_map(shape, lambda r, c: (R - r, c)),
                 {"U": "D", "D": "U", "L": "L", "R": "R"}),
    ]
    if shape.rows == shape.cols:
        out += [
            Symmetry("transpose", _cell_map(shape, lambda r, c: (c, r)),
                     {"U": "L", "L": "U", "D": "R", "R": "D"}),
            Symmetry("anti-transpose", _cell_map(shape, lambda r, c: (C - c, R - r)),
                     {"U": "R", "R": "U", "D": "L", "L": "D"}),
            Symmetry("rotate-90", _cell_map(shape, lambda r, c: (c, R - r)),
                     {"U": "R", "R": "D", "D": "L", "L": "U"}),
            Symmetry("rotate-270", _cell_map(shape, lambda r, c: (C - c, r)),
                     {"U": "L", "L": "D", "D": "R", "R": "U"}),
        ]
    return out


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
    """How ``(start, goal)`` became ``(start, target)`` of a database: symmetry then relabel."""

    symmetry: Symmetry
    start: Board  # the reduced start, to be solved towards ``target``
    target: Board

    def moves_back(self, moves: str) -> str:
        """Translate moves of the reduced problem into moves of the original one."""
        inverse = {v: k for k, v in self.symmetry.moves.items()}
        return "".join(inverse[m] for m in moves)


def reduce_to(start: Board, goal: Board, target: Board) -> Reduction | None:
    """Express ``start -> goal`` as a problem towards ``target`` (None when no symmetry of the
    board puts ``goal``'s blank on ``target``'s blank cell).

    >>> from solver.board import goal_board
    >>> red = reduce_to(Board.parse("1 0 2 3"), goal_board("2x2", "blank-first"), goal_board("2x2"))
    >>> red.symmetry.name, str(red.start)
    ('rotate-180', '1 2/0 3')
    """
    if start.shape != goal.shape or goal.shape != target.shape:
        raise BoardError(f"start, goal and target must share a shape ({start.shape})")
    for sym in symmetries(start.shape):
        if sym.cells[goal.blank] != target.blank:
            continue
        goal2 = sym.apply(goal)
        m = relabelling(goal2, target)
        return Reduction(sym, sym.apply(start).relabel(m), target)
    return None


__all__ = ["Symmetry", "Reduction", "symmetries", "relabelling", "reduce_to", "BLANK"]
