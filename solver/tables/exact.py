"""Exact distances and optimal paths from the exact tables of small boards (layer 4).

An exact file (``exact-3x3.h5``) holds one table per cell the goal's blank may occupy:
``blank_<cell>`` is the distance of every arrangement to the *canonical goal* with the blank on
that cell and tiles ``1..N-1`` in row-major order around it.  Any goal is reduced to one of
these by renaming tiles (:func:`solver.symmetry.relabelling`), so every goal is answered by a
lookup.  An optimal path walks down the table: always to a neighbour one move closer.

Imports: numpy and the solver core (board, ranking, store) — never numba, so a lookup costs
little more than starting Python.
"""
from __future__ import annotations

import math
import time

import numpy as np

from . import catalog, store
from ..core.board import Board, BoardError, Shape, goal_board, solvability
from ..core.ranking import rank, rank_many
from ..core.solution import Solution, Unsolvable
from ..core.symmetry import relabelling

UNREACHABLE = 255  # the uint8 sentinel written by pdb_builder.exact_bfs for the other parity


def table_name(blank_cell: int) -> str:
    """The dataset holding distances to the canonical goal with the blank on ``blank_cell``."""
    return f"blank_{blank_cell}"


def canonical_goal(shape: Shape, blank_cell: int) -> Board:
    """Tiles ``1..N-1`` in row-major order with the blank on ``blank_cell``.

    >>> str(canonical_goal(Shape(2, 3), 0)), str(canonical_goal(Shape(2, 3), 5))
    ('0 1 2/3 4 5', '1 2 3/4 5 0')
    """
    tiles = list(range(1, shape.size))
    tiles.insert(blank_cell, 0)
    return Board(shape, tuple(tiles))


def has_table(shape: Shape, data_dir=None) -> bool:
    """True when an exact file for ``shape`` is built (see :mod:`solver.tables.catalog`)."""
    return catalog.exact_entry(shape, data_dir) is not None


def tables(shape: Shape, data_dir=None) -> store.TableFile:
    """The memory-mapped exact tables of ``shape`` (opened once per version of the file).

    Raises :class:`~solver.tables.store.DatabaseMissing` /
    :class:`~solver.tables.store.DatabaseCorrupt`, with the command that (re)builds them.
    """
    entry = catalog.exact_entry(shape, data_dir)
    if entry is None:
        raise catalog.exact_missing(shape, data_dir)
    fix = entry.fix(data_dir)
    tf = store.open_tables(entry.path, {"kind": catalog.EXACT, "shape": str(shape)}, fix)
    for cell in range(shape.size):
        table = tf.tables.get(table_name(cell))
        if table is None or table.dtype != np.uint8 or len(table) != math.factorial(shape.size):
            raise store.DatabaseCorrupt(
                f"{tf.path}: table {table_name(cell)} is missing or has the wrong size", fix)
    return tf


def goal_table(goal: Board, data_dir) -> tuple[np.ndarray, list[int]]:
    """The table for ``goal``'s blank cell and the tile renaming that maps goal onto its
    canonical goal (the goal that table was built for)."""
    table = tables(goal.shape, data_dir).tables[table_name(goal.blank)]
    return table, relabelling(goal, canonical_goal(goal.shape, goal.blank))


def _renamed_start(start: Board, goal: Board, data_dir) -> tuple[np.ndarray, list[int]]:
    """The table to read and the start's tiles renamed for it."""
    if start.shape != goal.shape:
        raise BoardError(f"start is {start.shape} but goal is {goal.shape}")
    table, m = goal_table(goal, data_dir)
    return table, [m[t] for t in start.tiles]


def _rank(tiles: list[int]) -> int:
    return rank(np.array(tiles, dtype=np.int64), len(tiles))


def lookup(start: Board, goal: Board, data_dir=None) -> int | None:
    """The exact distance from ``start`` to ``goal``, or None when unreachable (parity)."""
    table, tiles = _renamed_start(start, goal, data_dir)
    d = int(table[_rank(tiles)])
    return None if d == UNREACHABLE else d


def distance(start, goal, data_dir=None) -> int:
    """Like :func:`lookup` but raising :class:`~solver.solution.Unsolvable` when unreachable."""
    d = lookup(start, goal, data_dir)
    if d is None:
        raise Unsolvable(solvability(start, goal))
    return d


def distances(boards: np.ndarray, goal: Board, data_dir=None) -> np.ndarray:
    """Vectorised lookup: ``boards`` is an ``(m, N)`` int array of tiles (row-major), all of
    ``goal``'s shape; returns int16 distances with -1 for boards that cannot reach the goal.

    The rows are assumed to be valid arrangements (use :func:`validate_many` first if not).
    """
    boards = np.asarray(boards)
    n = goal.shape.size
    if boards.ndim != 2 or boards.shape[1] != n:
        raise BoardError(f"expected an array of shape (m, {n}) for {goal.shape} boards")
    table, m = goal_table(goal, data_dir)
    renamed = np.asarray(m, dtype=np.int64)[boards]
    d = np.asarray(table)[rank_many(renamed, n)].astype(np.int16)
    d[d == UNREACHABLE] = -1
    return d


def validate_many(boards: np.ndarray, n: int) -> np.ndarray:
    """Boolean mask of the rows of ``boards`` that are permutations of ``0..n-1``."""
    boards = np.asarray(boards)
    in_range = ((boards >= 0) & (boards < n)).all(axis=1)
    clipped = np.where(in_range[:, None], boards, 0)
    sorted_rows = np.sort(clipped, axis=1)
    return in_range & (sorted_rows == np.arange(n)).all(axis=1)


def optimal_moves(start: Board, goal: Board, data_dir=None) -> str | None:
    """An optimal move string (None when unreachable), walking to a neighbour one closer at every step."""
    table, tiles = _renamed_start(start, goal, data_dir)
    d = int(table[_rank(tiles)])
    if d == UNREACHABLE:
        return None
    moves = []
    blank = tiles.index(0)
    while d > 0:
        for mv in "UDLR":
            nb = start.shape.neighbour(blank, mv)
            if nb is None:
                continue
            tiles[blank], tiles[nb] = tiles[nb], 0
            if int(table[_rank(tiles)]) == d - 1:
                moves.append(mv)
                blank, d = nb, d - 1
                break
            tiles[nb], tiles[blank] = tiles[blank], 0
        else:  # a consistent table always has such a neighbour
            entry = catalog.exact_entry(start.shape, data_dir)
            raise store.DatabaseCorrupt(
                f"{entry.path.name} is inconsistent at distance {d} (damaged)",
                entry.fix(data_dir))
    return "".join(moves)


def solve(start: Board, goal: Board, opts) -> Solution:
    """Algorithm ``table``: an optimal solution read off the exact table (``api.solve``)."""
    t0 = time.perf_counter()
    data_dir = getattr(opts, "data_dir", None)
    moves = optimal_moves(start, goal, data_dir)
    if moves is None:
        raise Unsolvable(solvability(start, goal))
    return table_solution(start, goal, moves, time.perf_counter() - t0)


def table_solution(start: Board, goal: Board, moves: str, seconds: float) -> Solution:
    """The Solution of a walk down the exact table (shared with the bulk walks)."""
    return Solution(
        start=start,
        goal=goal,
        moves=moves,
        algorithm="table",
        optimal=True,
        database=catalog.exact_file_name(start.shape),
        root_h=len(moves),
        lower_bound=len(moves),
        nodes_generated=4 * len(moves),
        nodes_expanded=len(moves),
        depth_reached=len(moves),
        seconds=seconds,
    )


def count_at_distances(shape: Shape, goal=None, data_dir=None) -> list[int]:
    """Number of states at each distance from ``goal`` (default: blank last)."""
    g = goal_board(shape, goal)
    # Renaming tiles does not change distances, so the table of the goal's blank cell counts.
    return list(tables(shape, data_dir).table_attrs[table_name(g.blank)]["counts"])


__all__ = [
    "canonical_goal",
    "goal_table",
    "has_table",
    "tables",
    "lookup",
    "distance",
    "distances",
    "validate_many",
    "optimal_moves",
    "solve",
    "table_solution",
    "count_at_distances",
]
