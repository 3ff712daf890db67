"""Answers for many boards at once: the vectorised twins of the one-board answers
(layer 5: workloads).

Each function takes an ``(m, N)`` array of valid boards (tiles row-major, all of one shape and
one goal, as :mod:`.bulk` reads them) and returns numpy arrays with exactly the values the
one-board functions give -- parity (:func:`solver.core.board.solvability`), exact distances and
optimal walks (:mod:`solver.tables.exact`), the pattern-database heuristic with its parts,
Manhattan distance (:func:`solver.workloads.positions.manhattan_many`, named here too) and
linear conflict (:mod:`solver.heuristics`).  The tests compare each with its one-board twin.

Imports: numpy, the solver core, :mod:`solver.tables`, :mod:`.positions`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.board import MOVES, Board, inversions
from ..core.ranking import rank_many
from ..core.symmetry import Reduction
from ..tables import exact
from .positions import manhattan_many


def cells_of(tiles: np.ndarray) -> np.ndarray:
    """``pos[i, t]`` = the cell of tile t on board i (the inverse permutation of each row)."""
    m, n = tiles.shape
    pos = np.empty_like(tiles)
    pos[np.arange(m)[:, None], tiles] = np.arange(n, dtype=tiles.dtype)
    return pos


def reduce_many(tiles: np.ndarray, red: Reduction) -> np.ndarray:
    """:meth:`Reduction.board` over the rows: the symmetry moves cell c to ``cells[c]``, then
    every tile is renamed."""
    inverse = np.argsort(np.asarray(red.symmetry.cells))
    return np.asarray(red.relabel, dtype=tiles.dtype)[tiles[:, inverse]]


# --- parity ----------------------------------------------------------------------------------


@dataclass
class Parity:
    """:func:`solver.core.board.solvability` of many starts towards one goal."""

    solvable: np.ndarray
    start_inversions: np.ndarray
    start_blank_row: np.ndarray  # from the bottom, 1 = bottom row
    goal_inversions: int
    goal_blank_row: int
    width_even: bool


def parity_many(tiles: np.ndarray, goal: Board) -> Parity:
    """The parity rule for every row of ``tiles`` (see :func:`solver.core.board.solvability`)."""
    m, n = tiles.shape
    rows, cols = goal.shape.rows, goal.shape.cols
    t = tiles.astype(np.int16)
    inv = np.zeros(m, dtype=np.int64)
    for i in range(n - 1):
        a = t[:, i : i + 1]
        inv += ((a > t[:, i + 1 :]) & (t[:, i + 1 :] != 0) & (a != 0)).sum(axis=1)
    blank_row = rows - np.argmax(tiles == 0, axis=1) // cols
    gi = inversions(goal)
    gr = rows - goal.blank // cols
    even = cols % 2 == 0
    if even:
        ok = (inv + blank_row) % 2 == (gi + gr) % 2
    else:
        ok = inv % 2 == gi % 2
    return Parity(ok, inv, blank_row, gi, gr, even)


# --- exact tables ----------------------------------------------------------------------------


def exact_distances(tiles: np.ndarray, goal: Board, data_dir=None) -> np.ndarray:
    """The exact distance of every row (int16, -1 where the goal cannot be reached)."""
    return exact.distances(tiles, goal, data_dir)


def table_walks(tiles: np.ndarray, goal: Board, data_dir=None) -> list[str | None]:
    """The optimal move string of every row (None where unreachable): the walk of
    :func:`solver.tables.exact.optimal_moves` -- in the table's own problem, at each step the
    first move in ``UDLR`` order that leads one step closer, mapped back to the user's goal --
    done for all rows at once."""
    shape = goal.shape
    gt = exact.goal_table(goal, data_dir)
    small = np.uint8 if shape.size <= 256 else np.int64  # small copies: the walk copies rows
    ren = gt.reduce_many(tiles).astype(small)
    dist = gt.reduced_distances(ren).astype(np.int64)  # -1: unreachable
    start_d = dist.copy()
    blank = np.argmax(ren == 0, axis=1)
    nbr = np.array(shape.neighbour_table(), dtype=np.int64)  # (n, 4) in UDLR order, -1 off
    top = int(start_d.max(initial=0))
    steps = np.zeros((len(tiles), max(top, 1)), dtype=np.uint8)
    codes = np.frombuffer(MOVES.encode(), dtype=np.uint8)
    for step in range(top):
        act = np.flatnonzero(dist > 0)
        if not act.size:
            break
        open_ = np.ones(act.size, dtype=bool)
        for k in range(4):
            nb = nbr[blank[act], k]
            cand = open_ & (nb >= 0)
            if not cand.any():
                continue
            rows, to = act[cand], nb[cand]
            moved = ren[rows]  # a copy (fancy indexing)
            ix = np.arange(rows.size)
            moved[ix, blank[rows]] = moved[ix, to]
            moved[ix, to] = 0
            hit = gt.reduced_distances(moved) == dist[rows] - 1
            won = rows[hit]
            ren[won] = moved[hit]
            blank[won] = to[hit]
            dist[won] -= 1
            steps[won, step] = codes[k]
            open_[np.flatnonzero(cand)[hit]] = False
        if open_.any():
            raise gt.corrupt("is inconsistent", data_dir)
    back = {v: k for k, v in gt.reduction.symmetry.moves.items()}  # reduced -> user's moves
    to_user = bytes.maketrans(MOVES.encode(), "".join(back[m] for m in MOVES).encode())
    walks = [
        None if d < 0 else steps[i, :d].tobytes().translate(to_user).decode()
        for i, d in enumerate(start_d.tolist())
    ]
    _replay(tiles, walks, goal, nbr)
    return walks


def _replay(tiles: np.ndarray, walks: list, goal: Board, nbr: np.ndarray) -> None:
    """Play every walk on its start and check it ends on the goal (as every solution the tool
    prints is checked); unreachable rows are left out."""
    rows = np.array([i for i, w in enumerate(walks) if w], dtype=np.int64)
    if not rows.size:
        return
    lengths = np.array([len(walks[i]) for i in rows.tolist()], dtype=np.int64)
    steps = np.zeros((rows.size, int(lengths.max())), dtype=np.uint8)
    for j, i in enumerate(rows.tolist()):
        steps[j, : lengths[j]] = np.frombuffer(walks[i].encode(), dtype=np.uint8)
    index = np.full(256, -1, dtype=np.int64)
    index[np.frombuffer(MOVES.encode(), dtype=np.uint8)] = np.arange(4)
    board = tiles[rows].astype(np.int64)
    blank = np.argmax(board == 0, axis=1)
    for step in range(steps.shape[1]):
        live = np.flatnonzero(lengths > step)
        to = nbr[blank[live], index[steps[live, step]]]
        board[live, blank[live]] = board[live, to]
        board[live, to] = 0
        blank[live] = to
    wrong = ~(board == np.asarray(goal.tiles)).all(axis=1)
    if wrong.any():
        i = int(rows[np.flatnonzero(wrong)[0]])
        raise AssertionError(
            f"internal error: the table walk from {tiles[i].tolist()} does not reach {goal}"
        )


# --- heuristics ------------------------------------------------------------------------------


def linear_conflict_many(tiles: np.ndarray, goal: Board) -> np.ndarray:
    """:func:`solver.heuristics.linear_conflict` of every row: Manhattan plus two moves for
    each tile that must leave its line (the line's length minus its longest increasing run of
    goal positions, by the quadratic dynamic programme over the line's cells)."""
    rows, cols = goal.shape.rows, goal.shape.cols
    n = goal.shape.size
    home = np.empty(n, dtype=np.int64)
    home[np.asarray(goal.tiles)] = np.arange(n)
    grow, gcol = home // cols, home % cols
    extra = np.zeros(len(tiles), dtype=np.int64)
    lines = [(r, [r * cols + c for c in range(cols)], True) for r in range(rows)]
    lines += [(c, [r * cols + c for r in range(rows)], False) for c in range(cols)]
    for index, cells, is_row in lines:
        t = tiles[:, cells]
        present = (t != 0) & ((grow if is_row else gcol)[t] == index)
        key = (gcol if is_row else grow)[t]
        best = np.zeros(t.shape, dtype=np.int64)  # longest increasing run ending here
        for j in range(len(cells)):
            b = np.ones(len(t), dtype=np.int64)
            for i in range(j):
                ok = present[:, i] & (key[:, i] < key[:, j])
                b = np.maximum(b, np.where(ok, best[:, i] + 1, 1))
            best[:, j] = np.where(present[:, j], b, 0)
        extra += present.sum(axis=1) - best.max(axis=1)
    return manhattan_many(tiles, goal) + 2 * extra


@dataclass
class PatternValues:
    """The pattern-database heuristic of many boards with its parts (the fields of
    :func:`solver.heuristics.evaluate`)."""

    h: np.ndarray
    plain: np.ndarray
    reflected: np.ndarray | None
    parts: np.ndarray  # (m, patterns)
    pdb: object


def pattern_values(
    tiles: np.ndarray, goal: Board, partition=None, reflect: bool = True, data_dir=None
) -> PatternValues:
    """:func:`solver.heuristics.evaluate`'s ``h``, ``plain``, ``reflected`` and per-pattern
    values for every row, from the database the catalog chooses for ``goal``."""
    from ..tables import pattern_db

    pdb, red = pattern_db.database_for(goal.shape, goal, partition, data_dir)
    looked = reduce_many(tiles, red) if not red.is_identity else tiles
    parts = _parts(pdb, looked)
    plain = parts.sum(axis=1)
    mirrored = None
    if pdb.reflectable:
        mirrored = _parts(pdb, pdb.reflected_many(looked.astype(np.int64))).sum(axis=1)
    h = np.maximum(plain, mirrored) if (reflect and mirrored is not None) else plain
    return PatternValues(h, plain, mirrored, parts, pdb)


def _parts(pdb, boards: np.ndarray) -> np.ndarray:
    pos = cells_of(boards.astype(np.int64))
    n = pdb.shape.size
    out = np.empty((len(boards), len(pdb.tables)), dtype=np.int64)
    for p, t in enumerate(pdb.tables):
        out[:, p] = np.asarray(t.table)[rank_many(pos[:, list(t.tiles)], n)]
    return out


__all__ = [
    "parity_many",
    "Parity",
    "exact_distances",
    "table_walks",
    "manhattan_many",
    "linear_conflict_many",
    "pattern_values",
    "PatternValues",
    "reduce_many",
    "cells_of",
]
