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

The search itself is C (``exact_bfs`` of :mod:`solver.engine`, ``solver/engine/exact_bfs.c``):
it ranks as :func:`solver.core.ranking.rank` does, runs with the GIL released and lets a
Ctrl-C through within milliseconds.

Imports: numpy, the solver core and :mod:`solver.engine`.  Only the searches import this
module.
"""

from __future__ import annotations

import math

import numpy as np

from ..core import config
from ..core.board import Board, Shape
from ..engine import engine

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


def bfs_exact(goal: Board) -> tuple[np.ndarray, np.ndarray]:
    """Distances of every arrangement of ``goal.shape`` to ``goal``.

    Returns ``(table, counts)``: ``table[rank(tiles)]`` is the distance (``UNREACHABLE`` for the
    other parity class) and ``counts[d]`` the number of states at distance d.
    """
    check_exact_shape(goal.shape)
    table = np.empty(table_size(goal.shape), dtype=np.uint8)  # the search fills every byte
    counts = np.empty(256, dtype=np.int64)
    neighbours = np.array(goal.shape.neighbour_table(), dtype=np.int64)
    last = engine().exact_bfs(np.array(goal.tiles, dtype=np.int64), neighbours, table, counts)
    return table, counts[: last + 1]
