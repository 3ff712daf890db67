"""Breadth-first search over pattern placements with zero-cost blank moves (builder layer).

One additive pattern database = one table over the placements of the pattern's k tiles (the
cells they stand on, in sorted tile order), indexed by the k-permutation rank of
:func:`solver.core.ranking.rank` (``n!/(n-k)!`` entries, uint8).  The entry is the fewest moves **of
the pattern's own tiles** that bring them home, the other tiles being indistinguishable and
moving for free.  Only such tables may be summed over a partition: every real move slides one
tile, so it is charged to at most one table.  (A table counting every move would be charged by
all tables at once and the sum would overestimate: this module does not build one.)

The search.  Because moving a non-pattern tile is free, the blank roams its whole connected
region of free cells at no cost, so a search state is (placement, blank region).  Sliding a
pattern tile from cell c into a cell b of the region costs 1; afterwards the blank stands on c
and its new region is the component of c.  The search runs backwards from the goal (moves are
reversible) and a placement's value is the depth at which any of its regions is first reached.

This module is the driver: it lays out the tables, runs one layer after another and splits
each layer over threads as ranges of blocks.  The layers themselves are the compiled engine's
(``solver/engine/pattern_bfs.c``; ``pattern_bfs.h`` there describes the tables: a word of 2-bit
region codes per placement, the distances, a byte of flags per block), run with the GIL
released.  A layer
*pushes* (frontier states write their successors) while many states are unreached and *pulls*
(unreached states look for a frontier neighbour) once the unreached states number fewer than
``pull_when`` times the frontier: the late layers then look at the few states left instead of
the many just reached.  How many states there are is counted beforehand from the regions of
every set of occupied cells (:func:`state_count`).

Which search a pattern gets is decided here, once (:func:`uses_region`): every pattern the
region BFS (:mod:`pdb_builder.region_bfs`: one byte a (placement, blank region) state, the
same tables) can take -- up to 8 tiles -- goes to it, and only larger patterns, or a caller
that reads the layers' words (``after_layer``), to the placement BFS of this module.  Measured
on 2 shared cores, the region BFS is as fast on patterns of up to 4 tiles (milliseconds
either way) and faster from 5 on (4x4: 5 tiles 0.07 s vs 0.12 s, 6 tiles 0.8 s vs 2.8 s,
7 tiles 12 s vs 23 s; 5x5: 5 tiles 0.9 s vs 3.5 s), and it needs less memory everywhere
(5x5, 7 tiles: 6.5 GB of arrays instead of 21.8 GB).  :func:`pattern_bytes` prices the
chosen search for the budget check (:mod:`pdb_builder.budget`).

Imports: numpy, :mod:`solver.core` (board, ranking, progress_bar), :mod:`solver.engine`,
:mod:`pdb_builder` (budget, region_bfs, threads).
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from solver.core import ranking
from solver.core.board import Board, Shape
from solver.core.progress_bar import ProgressBar
from solver.engine import engine

from . import budget, region_bfs
from .threads import run_items, thread_count

UNREACHED = 255  # dist value of a placement no search reached (e.g. the other parity class)
MAX_DEPTH = 254
MAX_CELLS = 31  # cell masks are 32-bit (pext/pdep) and a word holds two bits per free cell
BLOCKS_PER_ITEM = 16384  # work handed to a thread at a time, at most
ITEMS_PER_THREAD = 8  # at least, where the table is large enough: threads finish together
# Pull once unreached states < PULL_WHEN x frontier states.  Measured per layer on the 4x4 7-tile
# and 8-tile patterns (one thread, same snapshot): pushing is cheaper down to a ratio of about
# 2.4 (8 tiles: push 12.7 s, pull 15.1 s), pulling from about 1.8-2.0 (10.6 s vs 11.7 s).
PULL_WHEN = 2.0
DONE = 1  # a block's flag: every state of the block is reached
WORD_TYPES = {2: np.uint16, 4: np.uint32, 8: np.uint64}  # by the engine's word bytes


def depth_bit(depth: int) -> int:
    """The flag of blocks holding states of this depth (two bits, by the depth's parity)."""
    return 2 << (depth & 1)


class Geometry(NamedTuple):
    """What the driver needs to know of k tiles on a board (the engine works out the rest)."""

    shape: Shape
    k: int
    word_type: type  # numpy dtype of a placement's word: two bits per free cell
    shift: int  # where a word's high code bits start
    block_size: int  # placements per block (the inner tiles' choices)
    placements: int  # n!/(n-k)!

    @property
    def blocks(self) -> int:
        """Blocks of the table (the unit of work handed to threads)."""
        return self.placements // self.block_size


@dataclass
class PatternResult:
    """A pattern's table and how the search went."""

    tiles: tuple[int, ...]
    table: np.ndarray  # uint8, indexed by the k-permutation rank of the tiles' cells
    counts: np.ndarray  # placements at each h value 0..max
    unreached: int  # placements never reached (left at 255)
    states: int  # (placement, region) states reached
    seconds: float
    layers: list = field(default_factory=list)  # (depth, mode, new states, seconds)

    @property
    def mean_h(self) -> float:
        """The table's mean over the placements reached (from :attr:`counts`)."""
        counts = self.counts
        return float(np.dot(np.arange(len(counts)), counts) / counts.sum())


def geometry(shape: Shape, k: int) -> Geometry:
    """The geometry of ``k`` tiles on ``shape``, as the engine lays out their tables.  A block
    is the placements that share all but the last ``inner`` = min(2, k-1) tiles.

    >>> g = geometry(Shape.parse("4x4"), 8)
    >>> g.word_type.__name__, g.shift, g.block_size  # 8 free cells: 16 bits
    ('uint16', 8, 90)
    """
    n = shape.size
    if n > MAX_CELLS:
        raise ValueError(
            f"pattern databases support boards of up to {MAX_CELLS} cells, {shape} has {n}"
        )
    if not 1 <= k < n:
        raise ValueError(f"a pattern needs 1..{n - 1} tiles on {shape}, got {k}")
    word_bytes, shift, block_size, placements = engine().pattern_geometry(shape.rows, shape.cols, k)
    return Geometry(shape, k, WORD_TYPES[word_bytes], shift, block_size, placements)


def _region(cell: int, free: int, shape: Shape) -> int:
    """Plain-Python flood fill (used once, for the goal)."""
    seen, stack = 0, [cell]
    nbr = shape.neighbour_table()
    while stack:
        c = stack.pop()
        if (seen >> c) & 1 or not (free >> c) & 1:
            continue
        seen |= 1 << c
        stack.extend(b for b in nbr[c] if b >= 0)
    return seen


def _free_cell_mask(cells: int, free: int) -> int:
    """The cell mask ``cells`` (within ``free``) renumbered by free cells (a plain pext)."""
    return sum(
        1 << i
        for i, c in enumerate(c for c in range(free.bit_length()) if (free >> c) & 1)
        if (cells >> c) & 1
    )


def work_items(nblocks: int, threads: int) -> list[tuple[int, int]]:
    """Split blocks ``0..nblocks-1`` into contiguous ranges: at most BLOCKS_PER_ITEM blocks
    each and, where there are enough blocks, ITEMS_PER_THREAD per thread or more, so that a
    thread that drew a busy range does not leave the others waiting.

    >>> work_items(10, 1), len(work_items(5_765_760, 2)), len(work_items(5_765_760, 64))
    ([(0, 10)], 352, 512)
    """
    count = max(
        -(-nblocks // BLOCKS_PER_ITEM),
        min(nblocks, ITEMS_PER_THREAD * threads) if threads > 1 else 1,
    )
    edges = [nblocks * i // count for i in range(count + 1)]
    return [(a, b) for a, b in itertools.pairwise(edges) if b > a]


def _run(layer, items, threads) -> tuple[int, int]:
    """Run ``layer(first, last)`` over the block ranges ``items`` on up to ``threads`` threads,
    handing items out one at a time; return the summed (new states, new placements).  Ctrl-C
    stops it within a fraction of a second (:mod:`pdb_builder.threads`)."""
    out = [(0, 0)] * len(items)

    def run_item(i):
        """Run the layer over the i-th block range, its counts kept in its own slot."""
        out[i] = layer(*items[i])

    run_items(run_item, len(items), threads)
    return sum(s for s, _ in out), sum(p for _, p in out)


def state_count(shape: Shape, k: int) -> int:
    """The (placement, blank region) states of a k-tile pattern a search can reach: k! times
    the regions of every set of k occupied cells; half of those when the pattern holds every
    tile (only one parity class is reachable).

    >>> state_count(Shape.parse("4x4"), 8), state_count(Shape.parse("3x3"), 8)
    (1425191040, 181440)
    """
    geometry(shape, k)  # the checks, with their messages
    regions = engine().pattern_count_regions(shape.rows, shape.cols, k)
    return math.factorial(k) * regions // (2 if k == shape.size - 1 else 1)


def trace_ranks(shape: Shape | str, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Run the engine's decoding and move generation over all placements of k tiles on
    ``shape``: return ``cells`` (row p = the placement the engine treats as rank p) and
    ``moves`` (entry ``[p, 4*i + direction]`` = the rank it computes after tile i moves in
    direction U, D, L, R; -1 when the move is impossible).  Tests compare both with
    :func:`solver.core.ranking.rank`."""
    shape = Shape.parse(shape)
    g = geometry(shape, k)
    cells = np.full((g.placements, k), -1, np.int64)
    moves = np.full((g.placements, 4 * k), -1, np.int64)
    engine().pattern_trace(shape.rows, shape.cols, k, cells, moves)
    return cells, moves


def uses_region(shape: Shape | str, k: int) -> bool:
    """Whether a pattern of ``k`` tiles on ``shape`` is searched by the region BFS
    (:func:`pdb_builder.region_bfs.region_bfs`): wherever it can take the pattern (up to
    :data:`pdb_builder.region_bfs.MAX_TILES` tiles, boards of up to :data:`MAX_CELLS` cells).
    The one place the choice is made: the builders and the budget check both ask it.

    >>> uses_region("5x5", 7), uses_region("4x4", 3), uses_region("4x4", 9)
    (True, True, False)
    """
    shape = Shape.parse(shape)
    return 1 <= k <= region_bfs.MAX_TILES and k < shape.size <= MAX_CELLS


def pattern_bytes(shape: Shape | str, k: int, classes: int = 1) -> int:
    """Peak bytes of the arrays of the search :func:`uses_region` picks for ``k`` tiles on
    ``shape`` (``classes`` 2: with its zero-aware twin), by :mod:`pdb_builder.budget`'s
    models.

    >>> pattern_bytes("5x5", 7), pattern_bytes("5x5", 7, classes=2)
    (6509585660, 6509585660)
    """
    shape = Shape.parse(shape)
    if uses_region(shape, k):
        entries = region_bfs.entry_count(shape, k)
        return budget.region_bytes(shape.size, k, entries, classes)
    return budget.placement_bytes(shape.size, k, classes)


def partition_cost(shape: Shape | str, sizes, classes: int = 1) -> tuple[int, int]:
    """(peak memory, disk) in bytes for the pattern tables of ``sizes`` tiles on ``shape``,
    each searched as :func:`uses_region` decides (:func:`pdb_builder.budget.partition_cost`).
    """
    shape = Shape.parse(shape)
    sizes = [int(k) for k in sizes]
    return budget.partition_cost(
        shape.size, sizes, [pattern_bytes(shape, k, classes) for k in sizes]
    )


def _pattern(shape: Shape, tiles) -> tuple[int, ...]:
    """``tiles`` sorted, once they are distinct tiles of ``shape`` (ValueError otherwise)."""
    tiles = tuple(sorted(int(t) for t in tiles))
    if len(set(tiles)) != len(tiles) or not all(1 <= t < shape.size for t in tiles):
        raise ValueError(
            f"pattern {tiles} is not a set of tiles of a {shape} board (1..{shape.size - 1})"
        )
    return tiles


def _first_layer(shape: Shape, goal: Board, tiles, g, total: int):
    """``(words, dist, blk)`` of a BFS over ``total`` placements with only the goal
    placement reached: its word holds the blank's region among the free cells (code 1 =
    depth 0), its distance 0, its block the bit of depth 0."""
    n, bs = shape.size, g.block_size
    words = np.zeros(total, g.word_type)
    dist = np.full(total, UNREACHED, np.uint8)
    blk = np.zeros(total // bs, np.uint8)
    home = [goal.tiles.index(t) for t in tiles]
    p0 = int(ranking.rank(np.array(home, np.int64), n))
    free = ((1 << n) - 1) & ~sum(1 << c for c in home)
    words[p0] = _free_cell_mask(_region(goal.blank, free, shape), free)
    dist[p0] = 0
    blk[p0 // bs] |= depth_bit(0)
    return words, dist, blk


def _bar(total: int, desc: str, progress: bool) -> ProgressBar:
    """The progress bar of one pattern's BFS, with its first placement counted."""
    bar = ProgressBar(
        total=total,
        desc=desc,
        unit="pl",
        unit_scale=True,
        disable=not progress,
        leave=True,
        smoothing=0.1,
        mininterval=0.5,
    )
    bar.update(1)
    return bar


def bfs_pattern(
    shape: Shape | str,
    tiles,
    goal: Board | None = None,
    progress: bool = True,
    label: str | None = None,
    threads: int | None = None,
    pull_when: float = PULL_WHEN,
    after_layer=None,
    region: bool | None = None,
) -> PatternResult:
    """Build the table of one pattern: for every placement of ``tiles`` (sorted), the fewest
    moves of those tiles that bring them to their cells in ``goal`` (default: blank-last),
    other tiles moving for free.

    A layer pulls (instead of pushing) once the states not yet reached number fewer than
    ``pull_when`` times the frontier states (0: push every layer; a huge value: pull every
    layer).  ``after_layer(depth, words, blk)``, if given, is called once the states of each
    depth are reached, with the words (their regions' codes) and the blocks' flags (which
    blocks hold states of the depth): :mod:`pdb_builder.zero_aware` reads the regions from
    them.

    The search is the region BFS (:func:`pdb_builder.region_bfs.region_bfs`, the same table)
    where :func:`uses_region` says so and no ``after_layer`` is given, else this module's
    placement BFS; ``region`` True or False forces one (tests compare the two).

    >>> r = bfs_pattern("2x2", (1, 2, 3), progress=False)   # the whole 3-puzzle
    >>> r.table.tolist()[:8], r.unreached, r.counts.tolist()
    ([0, 1, 255, 255, 255, 1, 255, 255], 12, [1, 2, 2, 2, 2, 2, 1])
    """
    from solver.core.board import goal_board

    shape = Shape.parse(shape)
    goal = goal if goal is not None else goal_board(shape)
    tiles = _pattern(shape, tiles)
    k = len(tiles)
    g = geometry(shape, k)
    if region is None:
        region = after_layer is None and uses_region(shape, k)
    if region:
        if after_layer is not None:
            raise ValueError("the region BFS keeps no words: after_layer needs region=False")
        r = region_bfs.region_bfs(
            shape,
            tiles,
            goal,
            progress=progress,
            label=label,
            threads=threads,
            pull_when=pull_when,
        )
        return PatternResult(r.tiles, r.table, r.counts, r.unreached, r.states, r.seconds, r.layers)
    total = ranking.count_placements(shape.size, k)
    words, dist, blk = _first_layer(shape, goal, tiles, g, total)
    if after_layer is not None:
        after_layer(0, words, blk)

    threads = threads or thread_count()
    items = work_items(total // g.block_size, threads)
    t0 = time.perf_counter()
    reached, states, frontier = 1, 1, 1
    all_states = state_count(shape, k)
    counts = [1]  # placements first reached at each depth: the table's histogram
    layers = []
    bar = _bar(total, label or f"pattern {','.join(map(str, tiles))}", progress)
    d = 0
    try:
        while True:
            if d >= MAX_DEPTH:
                raise ValueError(
                    f"pattern {tiles} needs more than {MAX_DEPTH} moves: too many for a uint8 table"
                )
            pull = all_states - states < pull_when * frontier
            new_states, new_placements, layer = _layer(
                d, pull, items, (words, dist, blk), g, threads
            )
            layers.append(layer)
            if new_states == 0:
                break
            d += 1
            if after_layer is not None:
                after_layer(d, words, blk)
            counts.append(new_placements)
            reached += new_placements
            states += new_states
            frontier = new_states
            bar.update(new_placements)
            bar.set_postfix_str(f"depth {d}, {new_states:,} states", refresh=False)
    finally:
        bar.close()
    del words, blk
    while len(counts) > 1 and counts[-1] == 0:  # last layers may add regions, not placements
        counts.pop()
    histogram, seconds = np.array(counts, np.int64), time.perf_counter() - t0
    return PatternResult(tiles, dist, histogram, total - reached, states, seconds, layers)


def _layer(d: int, pull: bool, items, tables, g: Geometry, threads: int) -> tuple[int, int, tuple]:
    """Reach the states at depth ``d + 1`` from those at depth ``d``, by pulling (each state
    not yet reached looks for a neighbour at ``d``) or pushing (each state at ``d`` marks its
    neighbours), over the block ranges ``items`` on ``threads`` threads.  ``tables`` are
    ``(words, dist, blk)``.  Return the new states, the new placements and the layer's record
    ``(depth, "pull" or "push", new states, seconds)``."""
    words, dist, blk = tables
    # Two bits mark the depths of a block's states, by parity: the one of depth d + 1 still
    # marks depth d - 1, whose blocks this layer no longer reads.
    np.bitwise_and(blk, np.uint8(0xFF ^ depth_bit(d + 1)), out=blk)
    t1 = time.perf_counter()
    run_layer = engine().pattern_layer
    rows, cols = g.shape.rows, g.shape.cols

    def layer(first: int, last: int) -> tuple[int, int]:
        """One range of blocks of the layer (the engine releases the GIL)."""
        return run_layer(pull, d, first, last, words, dist, blk, rows, cols, g.k)

    new_states, new_placements = _run(layer, items, threads)
    how = "pull" if pull else "push"
    return new_states, new_placements, (d + 1, how, new_states, time.perf_counter() - t1)
