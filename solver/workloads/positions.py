"""Random positions that can reach a goal, made in bulk as numpy arrays (layer 5: workloads).

Two ways, both for any goal (:mod:`solver.workloads.generate` gives them their distances):

* :func:`shuffled` -- a uniformly random arrangement of the tiles; when it has the wrong
  parity for the goal, the tiles on the first two non-blank cells are swapped.  That swap
  changes the inversion count by one and leaves the blank alone, so it pairs every unsolvable
  arrangement with exactly one solvable one: the result is uniform over the ``N!/2`` solvable
  positions.
* :func:`walked` -- a random walk of the blank from the goal that never undoes its previous
  move.

Imports: numpy, :mod:`solver.core`.
"""

from __future__ import annotations

import numpy as np

from ..core.board import BLANK, Board, Shape, manhattan_table, solvability

OPPOSITE_INDEX = np.array([1, 0, 3, 2])  # U<->D, L<->R in the UDLR order of Shape.neighbour_table
# Default walk length: a multiple of the number of cells, long enough for the mean distance
# to reach its plateau (scripts/reproduce_article.py measures the curve): 3x3 walks are there
# by about 90 steps (mean 21.97), 4x4 walks by about 300 (mean 52.59).
WALK_STEPS_PER_CELL = 20


def parity_class(boards: np.ndarray, shape: Shape) -> np.ndarray:
    """The parity invariant of each row of an ``(m, N)`` array: inversions (odd width) or
    inversions + blank row from the bottom (even width), modulo 2.  Two boards reach each
    other exactly when their classes agree (see :func:`solver.core.board.solvability`)."""
    boards = np.asarray(boards)
    n = shape.size
    inv = np.zeros(len(boards), dtype=np.int64)
    for i in range(n - 1):
        a = boards[:, i : i + 1]
        inv += ((a > boards[:, i + 1 :]) & (boards[:, i + 1 :] != BLANK)).sum(axis=1)
    if shape.cols % 2 == 0:
        blank = np.argmax(boards == BLANK, axis=1)
        inv += shape.rows - blank // shape.cols
    return inv % 2


def _goal_class(goal: Board) -> int:
    s = solvability(goal, goal)
    extra = s.goal_blank_row_from_bottom if s.width_even else 0
    return (s.goal_inversions + extra) % 2


def shuffled(goal: Board, count: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` uniformly random positions that can reach ``goal``, as an ``(count, N)``
    array: random permutations, with the first two non-blank cells swapped when the parity is
    wrong (a bijection between the two classes, so the result stays uniform)."""
    n = goal.shape.size
    boards = rng.permuted(np.tile(np.arange(n, dtype=np.int64), (count, 1)), axis=1)
    wrong = parity_class(boards, goal.shape) != _goal_class(goal)
    rows = np.flatnonzero(wrong)
    if rows.size:
        # Cells of the first two tiles that are not the blank: cell 0 and 1 unless one of them
        # holds the blank, in which case cells 0/1 and 2.
        blank = np.argmax(boards[rows] == BLANK, axis=1)
        first = np.where(blank == 0, 1, 0)
        second = np.where(blank <= 1, 2, 1)
        a, b = boards[rows, first].copy(), boards[rows, second].copy()
        boards[rows, first], boards[rows, second] = b, a
    return boards


def _neighbours(shape: Shape) -> np.ndarray:
    return np.array(shape.neighbour_table(), dtype=np.int64)


class Walkers:
    """Many non-backtracking random walks of the blank from the goal, moved in lockstep."""

    def __init__(self, goal: Board, count: int, rng: np.random.Generator):
        self.goal = np.array(goal.tiles, dtype=np.int64)
        self.nbr = _neighbours(goal.shape)
        self.rng = rng
        self.boards = np.tile(self.goal, (count, 1))
        self.blank = np.full(count, goal.blank, dtype=np.int64)
        self.last = np.full(count, -1, dtype=np.int64)
        self.rows = np.arange(count)

    def step(self) -> None:
        """Every walker slides one tile, never straight back into the cell it just left."""
        cand = self.nbr[self.blank]  # (count, 4) target cells, -1 off the board
        allowed = cand >= 0
        moved = self.last >= 0
        allowed[self.rows[moved], OPPOSITE_INDEX[self.last[moved]]] = False
        k = allowed.sum(axis=1)
        pick = self.rng.integers(0, k)  # which of the allowed moves
        move = np.argmax(np.cumsum(allowed, axis=1) > pick[:, None], axis=1)
        target = cand[self.rows, move]
        self.boards[self.rows, self.blank] = self.boards[self.rows, target]
        self.boards[self.rows, target] = BLANK
        self.blank, self.last = target, move

    def restart(self, which: np.ndarray) -> None:
        """Send the walkers ``which`` back to the goal."""
        self.boards[which] = self.goal
        self.blank[which] = int(np.flatnonzero(self.goal == BLANK)[0])
        self.last[which] = -1


def walked(goal: Board, count: int, length: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` positions at the end of ``length``-step random walks from ``goal`` that never
    undo their previous move, as a ``(count, N)`` array."""
    walkers = Walkers(goal, count, rng)
    for _ in range(length):
        walkers.step()
    return walkers.boards


def default_walk_length(shape: Shape) -> int:
    """The walk length used when none is given: ``20 * cells`` (180 on 3x3, 320 on 4x4)."""
    return WALK_STEPS_PER_CELL * shape.size


def manhattan_many(boards: np.ndarray, goal: Board) -> np.ndarray:
    """Manhattan distance of each row of ``boards`` to ``goal`` (a lower bound, and of the
    same parity as the optimal distance: every move changes it by exactly one)."""
    md = np.array(manhattan_table(goal), dtype=np.int64)  # md[t, c]; the blank's row is zeros
    return md[np.asarray(boards), np.arange(goal.shape.size)].sum(axis=1)
