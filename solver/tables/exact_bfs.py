"""Exact distances by breadth-first search from a goal over every arrangement of a board
(layer 1: tables).

The search runs *backwards* from the goal: every move is reversible, so the BFS layer of a
state is its optimal distance to the goal.  States are indexed by the rank of the full
permutation (``solver.core.ranking``), which needs ``N!`` entries; the half of them that has the
wrong parity is never reached and keeps the :data:`UNREACHABLE` sentinel.

The one BFS of full tables: ``build-pdb`` writes its tables to disk
(:func:`pdb_builder.build.build_exact`), and :func:`solver.tables.exact.table_for` runs it in
memory where no table is built (boards of up to ``config.FULL_BFS_CELLS`` cells).  Compact
tables (10 to 12 cells, on disk) have their own search, :mod:`pdb_builder.compact_bfs`.

Imports: numpy, numba (through :mod:`solver.core.ranking_jit`), the solver core.  Only the
searches import this module: a lookup in a built table never loads numba.
"""

from __future__ import annotations

import math

import numpy as np

from ..core import config
from ..core.board import Board, Shape
from ..core.numba_start import import_numba
from ..core.ranking_jit import rank, unrank

import_numba()  # without scipy (see solver.core.numba_start)
import numba  # noqa: E402

UNREACHABLE = 255  # uint8 sentinel: the other parity class (and never a real distance)
MAX_CELLS = config.FULL_BFS_CELLS  # 10! = 3,628,800 entries a table; 3x4 (12!) would need 479 M
#                                    (larger boards use the compact layout: compact_bfs.py)


def table_size(shape: Shape) -> int:
    """Entries of an exact table for ``shape``: ``N!`` (every arrangement, both parities)."""
    return math.factorial(shape.size)


def check_exact_shape(shape: Shape) -> None:
    """Refuse shapes whose full tables would not fit comfortably (over :data:`MAX_CELLS`)."""
    if shape.size > MAX_CELLS:
        raise ValueError(
            f"an exact table for {shape} would need {table_size(shape):,} entries per goal; "
            f"exact tables are built for boards of at most {MAX_CELLS} cells — "
            f"use pattern databases (build-pdb --shape {shape} --partition ...)"
        )


@numba.njit(cache=True)
def _bfs_layers(goal_tiles, neighbours, table):
    """Fill ``table`` (uint8, all UNREACHABLE) with distances from ``goal_tiles``; return the
    number of states at each distance."""
    n = goal_tiles.shape[0]
    half = table.shape[0] // 2 + 1
    queue = np.empty(half, dtype=np.int64)
    tiles = np.empty(n, dtype=np.int64)
    counts = np.zeros(256, dtype=np.int64)
    queue[0] = rank(goal_tiles, n)
    table[queue[0]] = 0
    head, tail = 0, 1
    while head < tail:
        r = queue[head]
        head += 1
        d = table[r]
        counts[d] += 1
        unrank(r, n, n, tiles)
        blank = 0
        while tiles[blank] != 0:
            blank += 1
        for k in range(4):
            nb = neighbours[blank, k]
            if nb < 0:
                continue
            tiles[blank] = tiles[nb]
            tiles[nb] = 0
            r2 = rank(tiles, n)
            if table[r2] == UNREACHABLE:
                table[r2] = d + 1
                queue[tail] = r2
                tail += 1
            tiles[nb] = tiles[blank]
            tiles[blank] = 0
    return counts


def bfs_exact(goal: Board) -> tuple[np.ndarray, np.ndarray]:
    """Distances of every arrangement of ``goal.shape`` to ``goal``.

    Returns ``(table, counts)``: ``table[rank(tiles)]`` is the distance (``UNREACHABLE`` for the
    other parity class) and ``counts[d]`` the number of states at distance d.
    """
    check_exact_shape(goal.shape)
    table = np.full(table_size(goal.shape), UNREACHABLE, dtype=np.uint8)
    neighbours = np.array(goal.shape.neighbour_table(), dtype=np.int64)
    counts = _bfs_layers(np.array(goal.tiles, dtype=np.int64), neighbours, table)
    last = int(np.nonzero(counts)[0].max())
    return table, counts[: last + 1]
