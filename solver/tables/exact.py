"""Exact distances and optimal paths from the exact tables of boards of up to 12 cells
(layer 1: tables).

Two layouts (:func:`solver.tables.names.exact_layout` decides which a shape gets):

* **full** (up to 9 cells): ``exact-3x3.h5`` holds one uint8 table per cell the goal's blank
  may occupy: ``blank_<cell>`` is the distance of every arrangement (indexed by the rank of the
  full permutation, :data:`UNREACHABLE` for the other parity class) to the *canonical goal*
  with the blank on that cell and tiles ``1..N-1`` in row-major order around it;
* **compact** (10 to 12 cells): ``exact-3x4-blank11.h5`` holds the states of one canonical
  goal in half a byte each (:mod:`solver.tables.compact`); a board symmetry carries every
  corner goal onto the default goal's table, other blank cells have tables of their own.

Any goal is reduced to a table by renaming tiles (and, for compact files, a board symmetry):
:func:`solver.tables.catalog.resolve_exact` decides which, and :class:`GoalTable` applies it.
An optimal path walks down the table: always to a neighbour one move closer.

Where no table is built for a goal, :func:`table_for` (what ``generate`` and ``stats`` read)
makes one in memory on boards of up to ``config.FULL_BFS_CELLS`` cells, by the builder's own
breadth-first search (:mod:`solver.tables.exact_bfs`: under half a second on 2x5), and says so in
the table's :attr:`GoalTable.notice`.

Imports: numpy and the solver core (board, ranking, store) -- the compiled engine only for a
table made in memory, so a lookup in a built table costs little more than starting Python.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import time
from dataclasses import dataclass

import numpy as np

from ..core import config
from ..core.board import Board, BoardError, Shape, preset_goal, solvability
from ..core.ranking import rank, rank_many, unrank_many
from ..core.solution import EXACT_HEURISTIC, Solution, Unsolvable
from ..core.symmetry import Reduction, reduction
from . import catalog, compact, names, store

UNREACHABLE = 255  # the uint8 sentinel of full tables for the other parity class
canonical_goal = names.canonical_goal


def table_name(blank_cell: int) -> str:
    """The dataset of a full file holding distances to the canonical goal with the blank on
    ``blank_cell``."""
    return f"blank_{blank_cell}"


def _expect(entry: names.Entry) -> dict:
    if entry.layout == names.COMPACT:
        return {
            "kind": names.EXACT,
            "shape": str(entry.shape),
            "layout": names.COMPACT,
            "goal": entry.goal.flat(),
            "encoding": compact.ENCODING,
            "index": compact.INDEX,
        }
    return {"kind": names.EXACT, "shape": str(entry.shape)}


def _open(entry: names.Entry, data_dir) -> store.TableFile:
    """Open ``entry`` (proven, mapped, cached by :mod:`store`) and check its datasets."""
    fix = entry.fix(data_dir)
    tf = store.open_tables(entry.path, _expect(entry), fix)
    shape = entry.shape

    def check(name, dtype, size):
        table = tf.tables.get(name)
        if table is None or table.dtype != dtype or (size is not None and len(table) != size):
            raise store.DatabaseCorrupt(
                f"{tf.path}: table {name} is missing or has the wrong size", fix
            )

    if entry.layout == names.COMPACT:
        check(compact.NIBBLES, np.uint8, compact.packed_bytes(shape))
        check(compact.BLOCK_BASE, np.uint8, compact.base_entries(shape))
        check(compact.OVERFLOW_INDEX, np.uint32, None)
        check(compact.OVERFLOW_DISTANCE, np.uint8, len(tf.tables[compact.OVERFLOW_INDEX]))
        check(compact.RARE_INDEX, np.uint32, None)
        _check_counts(tf, compact.NIBBLES, fix)
    else:
        for cell in range(shape.size):
            check(table_name(cell), np.uint8, math.factorial(shape.size))
        key = (str(tf.path.absolute()), tf.stamp)
        if key not in _CHECKED:  # once per version of the file
            for cell in range(shape.size):
                _check_counts(tf, table_name(cell), fix)
                goal = list(canonical_goal(shape, cell).tiles)
                if int(tf.tables[table_name(cell)][_rank(goal)]) != 0:
                    raise store.DatabaseCorrupt(
                        f"{tf.path}: table {table_name(cell)} does not put its goal at distance 0",
                        fix,
                    )
            _CHECKED.add(key)
    return tf


_CHECKED: set = set()  # (path, stamp) of full files whose goals and counts were checked


def _check_counts(tf: store.TableFile, name: str, fix: str) -> None:
    counts = tf.table_attrs.get(name, {}).get("counts")
    if not isinstance(counts, list) or not counts or len(counts) >= UNREACHABLE:
        raise store.DatabaseCorrupt(f"{tf.path}: table {name} has no valid counts", fix)


def _rank(tiles: list[int]) -> int:
    return int(rank(np.array(tiles, dtype=np.int64), len(tiles)))


def tables(shape: Shape, data_dir=None, goal: Board | None = None) -> store.TableFile:
    """The opened exact file serving ``goal`` (default: blank-last) on ``shape``.

    Raises :class:`~solver.tables.store.DatabaseMissing` /
    :class:`~solver.tables.store.DatabaseCorrupt`, with the command that (re)builds it.
    """
    goal = goal if goal is not None else preset_goal(shape)
    entry, _ = catalog.resolve_exact(shape, goal, data_dir)
    return _open(entry, data_dir)


@dataclass
class GoalTable:
    """The exact distances towards one goal: the table to read and how a board of the user's
    goal becomes a board of the table's canonical goal (:attr:`reduction`).  A table made in
    memory (:func:`table_for`) has no file: no ``entry`` and no ``file``, its ``counts`` from
    its search and a ``notice`` saying what was not built."""

    entry: names.Entry | None
    reduction: Reduction
    file: store.TableFile | None
    full: np.ndarray | None = None  # full layout: the blank cell's table
    compact: compact.CompactTable | None = None
    data_dir: object = None  # where it was found (for the fix of a damaged table)
    searched_counts: tuple[int, ...] | None = None  # made in memory: its search's counts
    notice: str | None = None  # made in memory: the note that says so

    @property
    def target(self) -> Board:
        """The canonical goal the table holds distances to."""
        return self.reduction.target

    def _stored_counts(self):
        """The counts as the table keeps them: its search's, or its file's attribute."""
        if self.file is None:
            return self.searched_counts
        name = compact.NIBBLES if self.compact is not None else table_name(self.target.blank)
        return self.file.table_attrs[name]["counts"]

    @property
    def counts(self) -> list[int]:
        """Number of states at each distance (renaming and symmetry keep them)."""
        return [int(c) for c in self._stored_counts()]

    @property
    def max_distance(self) -> int:
        """The largest distance the table holds: an entry beyond it is damage."""
        return len(self._stored_counts()) - 1

    @property
    def source(self) -> str:
        """Where the distances come from, in words: the file, or the search in memory."""
        if self.entry is None:
            return "a breadth-first search in memory"
        return f"exact table {self.entry.path.name}"

    def _in_range(self, d: np.ndarray | int):
        """``d`` (distances read from the table) when none exceeds :attr:`max_distance`;
        else the table is damaged in a way no digest saw (a builder bug)."""
        top = int(np.max(d)) if np.size(d) else -1
        if top > self.max_distance:
            raise self.corrupt(
                f"holds distance {top}, beyond its largest ({self.max_distance})", self.data_dir
            )
        return d

    def reduce_many(self, boards: np.ndarray) -> np.ndarray:
        """Rows of ``boards`` (the user's labels) seen in the table's problem."""
        red = self.reduction
        boards = np.asarray(boards, dtype=np.int64)
        if red.symmetry.name != "identity":
            inverse = np.argsort(np.asarray(red.symmetry.cells))
            boards = boards[:, inverse]
        return np.asarray(red.relabel, dtype=np.int64)[boards]

    def reduced_distances(self, boards: np.ndarray) -> np.ndarray:
        """int16 distances of boards already reduced (-1: cannot reach the goal)."""
        if self.compact is not None:
            return self._in_range(self.compact.distances(boards))
        n = boards.shape[1]
        d = np.asarray(self.full)[rank_many(boards, n)].astype(np.int16)
        d[d == UNREACHABLE] = -1
        return self._in_range(d)

    def distances(self, boards: np.ndarray) -> np.ndarray:
        """int16 distances of the rows of ``boards`` to the user's goal (-1: unreachable)."""
        return self.reduced_distances(self.reduce_many(boards))

    def unreduce_many(self, boards: np.ndarray) -> np.ndarray:
        """The inverse of :meth:`reduce_many`: reduced boards in the user's labels."""
        red = self.reduction
        back = np.argsort(np.asarray(red.relabel, dtype=np.int64))
        boards = back[np.asarray(boards, dtype=np.int64)]
        if red.symmetry.name != "identity":
            boards = boards[:, np.asarray(red.symmetry.cells)]
        return boards

    def level_ids(self, lo: int, hi: int) -> np.ndarray | None:
        """Ids of every position whose distance is in ``lo..hi`` (for :meth:`boards_of`), or
        None when the table cannot list them: a compact table lists only its rare layers
        (``RARE_INDEX``); other levels are common enough to draw by rejection."""
        if self.compact is None:
            t = np.asarray(self.full)
            return np.flatnonzero((t >= lo) & (t <= hi) & (t != UNREACHABLE))
        attrs = self.file.table_attrs[compact.RARE_INDEX]
        listed = [int(d) for d in attrs["distances"]]
        top = len(self.counts) - 1
        wanted = [d for d in range(max(lo, 0), min(hi, top) + 1)]
        if not set(wanted) <= set(listed):
            return None
        offsets = attrs["offsets"]
        rare = self.file.tables[compact.RARE_INDEX]
        parts = [
            np.asarray(rare[offsets[i] : offsets[i + 1]], dtype=np.int64)
            for i, d in enumerate(listed)
            if lo <= d <= hi
        ]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)

    def boards_of(self, ids: np.ndarray) -> np.ndarray:
        """The positions (user's labels) with these ids of :meth:`level_ids`."""
        ids = np.asarray(ids, dtype=np.int64)
        if self.compact is not None:
            return self.unreduce_many(self.compact.boards(ids))
        n = self.target.shape.size
        return self.unreduce_many(unrank_many(ids, n, n))

    def distance_of(self, tiles: list[int]) -> int | None:
        """Distance of one reduced board (a list of tiles), None when unreachable: a scalar
        path with no array work for the full layout, a one-row lookup for compact."""
        if self.compact is not None:
            d = self.compact.distance_of(tiles)
        else:
            d = int(self.full[rank(np.array(tiles, dtype=np.int64), len(tiles))])
            d = None if d == UNREACHABLE else d
        return d if d is None else self._in_range(d)

    def corrupt(self, what: str, data_dir=None) -> store.DatabaseCorrupt:
        """The error for a table that contradicts itself (damaged in a way no digest saw)."""
        return store.DatabaseCorrupt(
            f"{self.entry.path.name} {what} (damaged)", self.entry.fix(data_dir)
        )


def goal_table(goal: Board, data_dir=None) -> GoalTable:
    """The table that answers ``goal`` and the reduction onto it (see
    :func:`solver.tables.catalog.resolve_exact`).  Raises DatabaseMissing/DatabaseCorrupt."""
    entry, red = catalog.resolve_exact(goal.shape, goal, data_dir)
    tf = _open(entry, data_dir)
    if entry.layout == names.COMPACT:
        table = compact.CompactTable(
            red.target,
            tf.tables[compact.NIBBLES],
            tf.tables[compact.BLOCK_BASE],
            tf.tables[compact.OVERFLOW_INDEX],
            tf.tables[compact.OVERFLOW_DISTANCE],
        )
        return GoalTable(entry, red, tf, compact=table, data_dir=data_dir)
    return GoalTable(
        entry, red, tf, full=tf.tables[table_name(red.target.blank)], data_dir=data_dir
    )


def made_in_memory(shape: Shape) -> bool:
    """Whether :func:`table_for` searches ``shape``'s table in memory where none is built:
    boards of up to ``config.FULL_BFS_CELLS`` cells, whose search takes about a second."""
    return shape.size <= config.FULL_BFS_CELLS


def table_for(goal: Board, data_dir=None) -> GoalTable:
    """The table that answers ``goal``: the built one (:func:`goal_table`), else on a board
    :func:`made_in_memory` a table searched in memory (kept for the process), whose
    ``notice`` names what is missing and the command that builds it.  Raises
    DatabaseMissing (larger boards) and DatabaseCorrupt (a damaged table is never bypassed)."""
    try:
        return goal_table(goal, data_dir)
    except store.DatabaseMissing as missing:
        if not made_in_memory(goal.shape):
            raise
        table = _searched_table(goal)
        said = f"{missing.args[0]}: searching its {sum(table.counts):,} positions in memory instead"
        return dataclasses.replace(table, notice=f"{said}; to build it once: {missing.fix}")


@functools.lru_cache(maxsize=4)  # a command asks for one goal's table several times
def _searched_table(goal: Board) -> GoalTable:
    """The full table of ``goal`` itself, by :func:`solver.tables.exact_bfs.bfs_exact`."""
    from .exact_bfs import bfs_exact  # the compiled engine: only where no table is built

    table, counts = bfs_exact(goal)
    same = reduction(goal, goal)  # the identity: the table is the goal's own
    return GoalTable(None, same, None, full=table, searched_counts=tuple(int(c) for c in counts))


def _reduced_start(start: Board, goal: Board, data_dir) -> tuple[GoalTable, list[int]]:
    """The table to read and the start seen in its problem."""
    if start.shape != goal.shape:
        raise BoardError(f"start is {start.shape} but goal is {goal.shape}")
    gt = goal_table(goal, data_dir)
    return gt, list(gt.reduction.board(start).tiles)


def lookup(start: Board, goal: Board, data_dir=None) -> int | None:
    """The exact distance from ``start`` to ``goal``, or None when unreachable (parity)."""
    gt, tiles = _reduced_start(start, goal, data_dir)
    return gt.distance_of(tiles)


def distance(start, goal, data_dir=None) -> int:
    """Like :func:`lookup` but raising :class:`~solver.core.solution.Unsolvable` when unreachable."""
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
    return goal_table(goal, data_dir).distances(boards)


def validate_many(boards: np.ndarray, n: int) -> np.ndarray:
    """Boolean mask of the rows of ``boards`` that are permutations of ``0..n-1``."""
    boards = np.asarray(boards)
    in_range = ((boards >= 0) & (boards < n)).all(axis=1)
    clipped = np.where(in_range[:, None], boards, 0)
    sorted_rows = np.sort(clipped, axis=1)
    return in_range & (sorted_rows == np.arange(n)).all(axis=1)


def optimal_moves(start: Board, goal: Board, data_dir=None) -> str | None:
    """An optimal move string (None when unreachable), walking to a neighbour one closer at
    every step."""
    gt, tiles = _reduced_start(start, goal, data_dir)
    d = gt.distance_of(tiles)
    if d is None:
        return None
    shape = start.shape
    moves = []
    blank = tiles.index(0)
    while d > 0:
        for mv in "UDLR":
            nb = shape.neighbour(blank, mv)
            if nb is None:
                continue
            tiles[blank], tiles[nb] = tiles[nb], 0
            if gt.distance_of(tiles) == d - 1:
                moves.append(mv)
                blank, d = nb, d - 1
                break
            tiles[nb], tiles[blank] = tiles[blank], 0
        else:  # a consistent table always has such a neighbour
            raise gt.corrupt(
                f"is inconsistent at distance {d}: no neighbour is one move closer", data_dir
            )
    return gt.reduction.moves_back("".join(moves))


def solve(start: Board, goal: Board, opts) -> Solution:
    """Algorithm ``table``: an optimal solution read off the exact table (``api.solve``)."""
    t0 = time.perf_counter()
    data_dir = getattr(opts, "data_dir", None)
    moves = optimal_moves(start, goal, data_dir)
    entry, _ = catalog.resolve_exact(start.shape, goal, data_dir)
    if moves is None:
        raise Unsolvable(solvability(start, goal))
    return table_solution(start, goal, moves, entry.path.name, time.perf_counter() - t0)


def table_solution(
    start: Board, goal: Board, moves: str, database: str, seconds: float
) -> Solution:
    """The Solution of a walk down the exact table (shared with the bulk walks)."""
    return Solution(
        start=start,
        goal=goal,
        moves=moves,
        algorithm="table",
        optimal=True,
        heuristic=EXACT_HEURISTIC,
        database=database,
        root_h=len(moves),
        lower_bound=len(moves),
        nodes_generated=4 * len(moves),
        nodes_expanded=len(moves),
        depth_reached=len(moves),
        seconds=seconds,
    )


def count_at_distances(shape: Shape, goal: Board | None = None, data_dir=None) -> list[int]:
    """Number of states at each distance from ``goal`` (default: blank last)."""
    # Renaming tiles and board symmetries do not change distances: the table's counts hold.
    return table_counts(goal_table(goal if goal is not None else preset_goal(shape), data_dir))


def table_counts(gt: GoalTable) -> list[int]:
    """Number of states at each distance in ``gt``, a full file's recounted."""
    if gt.full is not None and gt.file is not None:
        # A full table is recounted (milliseconds: at most 10! entries) and must agree with
        # the histogram stored beside it: the answer never rests on an attribute alone.
        hist = np.bincount(np.asarray(gt.full), minlength=256)[:UNREACHABLE]
        top = int(np.flatnonzero(hist).max()) if hist.any() else -1
        if hist[: top + 1].tolist() != gt.counts:
            raise gt.corrupt(
                f"stores counts for {table_name(gt.target.blank)} that do not match its table",
                gt.data_dir,
            )
    return gt.counts


__all__ = [
    "GoalTable",
    "canonical_goal",
    "goal_table",
    "made_in_memory",
    "table_for",
    "table_counts",
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
