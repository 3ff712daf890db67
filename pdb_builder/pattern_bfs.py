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
each layer over threads as ranges of blocks.  The data layout and the numba kernels are in
:mod:`pdb_builder.pattern_kernels`.  A layer *pushes* (frontier states write their successors)
while many states are unreached and *pulls* (unreached states look for a frontier neighbour)
once the unreached states number fewer than ``pull_when`` times the frontier: the late layers
then look at the few states left instead of the many just reached.  How many states there are
is counted beforehand from the regions of every set of occupied cells
(:func:`state_count`).

Imports: numpy, :mod:`solver.core` (board, ranking, progress_bar), :mod:`pdb_builder`
(pattern_blocks, pattern_kernels).
"""

from __future__ import annotations

import itertools
import math
import os
import time
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from solver.core import config, ranking
from solver.core.board import Board, Shape
from solver.core.progress_bar import ProgressBar

from . import pattern_blocks, pattern_kernels
from .threads import run_items

UNREACHED = 255  # dist value of a placement no search reached (e.g. the other parity class)
MAX_DEPTH = 254
MAX_CELLS = 31  # cell masks are 32-bit (pext/pdep) and a word holds two bits per free cell
BLOCKS_PER_ITEM = 16384  # work handed to a thread at a time, at most
ITEMS_PER_THREAD = 8  # at least, where the table is large enough: threads finish together
NEAR_WEIGHT = 1 << 14  # a pull looks at the moves of tiles of rank weight up to this first
# Pull once unreached states < PULL_WHEN x frontier states.  Measured per layer on the 4x4 7-tile
# and 8-tile patterns (one thread, same snapshot): pushing is cheaper down to a ratio of about
# 2.4 (8 tiles: push 12.7 s, pull 15.1 s), pulling from about 1.8-2.0 (10.6 s vs 11.7 s).
PULL_WHEN = 2.0


class Geometry(NamedTuple):
    """The integer constants and tables the kernels take for k tiles on a board."""

    geo: np.ndarray  # see pattern_blocks: N, K, COLS, SHIFT, FULL, KEEP_L, KEEP_R, INNER, BS, NEAR
    moves: np.ndarray  # [4*c + t] = (cell reached from c in direction t or DEAD, cells passed
    #                     over, +1/-1 as the move goes up or down the cell order)
    weights: np.ndarray  # rank digit weights: rank = sum(digit_j * weights[j])
    word_type: type  # numpy dtype of a placement's word: two bits per free cell

    @property
    def block_size(self) -> int:
        """Placements per block (the inner tiles' choices)."""
        return int(self.geo[pattern_blocks.BS])

    @property
    def shift(self) -> int:
        """Where a word's high code bits start."""
        return int(self.geo[pattern_blocks.SHIFT])


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


def thread_count() -> int:
    """Worker threads for the sweeps: ``$NPUZZLE_THREADS`` or the CPUs this process may use."""
    env = os.environ.get(config.ENV_THREADS)
    if env and env.isdigit() and int(env) > 0:
        return int(env)
    return config.usable_cores()


def geometry(shape: Shape, k: int) -> Geometry:
    """The kernels' constants for ``k`` tiles on ``shape``.  A block is the placements that
    share all but the last ``inner`` = min(2, k-1) tiles.

    >>> g = geometry(Shape.parse("4x4"), 8)
    >>> g.word_type.__name__, g.shift, g.block_size  # 8 free cells: 16 bits
    ('uint16', 8, 90)
    """
    n, cols = shape.size, shape.cols
    if n > MAX_CELLS:
        raise ValueError(
            f"pattern databases support boards of up to {MAX_CELLS} cells, {shape} has {n}"
        )
    if not 1 <= k < n:
        raise ValueError(f"a pattern needs 1..{n - 1} tiles on {shape}, got {k}")
    inner = min(2, k - 1)
    weights = np.ones(k, np.int64)
    for j in range(k - 2, -1, -1):
        weights[j] = weights[j + 1] * (n - j - 1)
    bs = int(weights[k - inner - 1])  # placements per block (the inner tiles' choices)
    free_cells = n - k
    word_type = np.uint16 if free_cells <= 8 else np.uint32 if free_cells <= 16 else np.uint64
    shift = np.dtype(word_type).itemsize * 4  # high code bits start half-way up the word
    full = (1 << n) - 1
    col0 = sum(1 << c for c in range(0, n, cols))
    last = sum(1 << c for c in range(cols - 1, n, cols))
    near = min(i for i in range(k) if weights[i] <= NEAR_WEIGHT or i == k - inner)  # see pull_layer
    geo = np.array([n, k, cols, shift, full, full & ~col0, full & ~last, inner, bs, near], np.int64)
    nbr = shape.neighbour_table()
    moves = np.zeros((4 * n, 3), np.int64)
    for c in range(n):
        for t in range(4):
            b = int(nbr[c][t])
            if b < 0:
                moves[4 * c + t] = (pattern_blocks.DEAD, 0, 0)
            else:
                lo, hi = min(b, c), max(b, c)
                passed = sum(1 << x for x in range(lo + 1, hi))
                moves[4 * c + t] = (b, passed, 1 if b > c else -1)
    return Geometry(geo, moves, weights, word_type)


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


def _run(kernel, items, args, threads) -> np.ndarray:
    """Run ``kernel(first, last, *args, out)`` over the block ranges ``items`` on up to
    ``threads`` threads, handing items out one at a time; return the summed (new states, new
    placements).  Ctrl-C stops it within a fraction of a second (:mod:`pdb_builder.threads`)."""
    out = np.zeros((len(items), 2), np.int64)
    d, rest = args[0], args[1:]

    def run_item(i):
        """Run the kernel over the i-th block range, adding into its own row of ``out``."""
        kernel(d, items[i][0], items[i][1], *rest, out[i])

    run_items(run_item, len(items), threads)
    return out.sum(axis=0)


def state_count(shape: Shape, k: int) -> int:
    """The (placement, blank region) states of a k-tile pattern a search can reach: k! times
    the regions of every set of k occupied cells; half of those when the pattern holds every
    tile (only one parity class is reachable).

    >>> state_count(Shape.parse("4x4"), 8), state_count(Shape.parse("3x3"), 8)
    (1425191040, 181440)
    """
    regions = int(pattern_kernels.count_regions(geometry(shape, k).geo))
    return math.factorial(k) * regions // (2 if k == shape.size - 1 else 1)


def trace_ranks(shape: Shape | str, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Run the kernels' decoding and move generation over all placements of k tiles on
    ``shape``: return ``cells`` (row p = the placement the kernels treat as rank p) and
    ``moves`` (entry ``[p, 4*i + direction]`` = the rank they compute after tile i moves in
    direction U, D, L, R; -1 when the move is impossible).  Tests compare both with
    :func:`solver.core.ranking.rank`."""
    shape = Shape.parse(shape)
    g = geometry(shape, k)
    total = ranking.count_placements(shape.size, k)
    cells = np.full((total, k), -1, np.int64)
    moves = np.full((total, 4 * k), -1, np.int64)
    pattern_kernels.trace_moves(0, total // g.block_size, g.geo, g.moves, g.weights, cells, moves)
    return cells, moves


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
    blk[p0 // bs] |= pattern_kernels.depth_bit(0)
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
) -> PatternResult:
    """Build the table of one pattern: for every placement of ``tiles`` (sorted), the fewest
    moves of those tiles that bring them to their cells in ``goal`` (default: blank-last),
    other tiles moving for free.

    A layer pulls (instead of pushing) once the states not yet reached number fewer than
    ``pull_when`` times the frontier states (0: push every layer; a huge value: pull every
    layer).  ``after_layer(depth, words, shift)``, if given, is called once the states of each
    depth are reached, with the words (their regions' codes) and where a word's high code bits
    start (:mod:`pdb_builder.zero_aware` reads the regions from them).

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
    total = ranking.count_placements(shape.size, k)
    words, dist, blk = _first_layer(shape, goal, tiles, g, total)
    if after_layer is not None:
        after_layer(0, words, g.shift)

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
            arrays = (words, dist, blk, g.geo, g.moves, g.weights)
            new_states, new_placements, layer = _layer(d, pull, items, arrays, threads)
            layers.append(layer)
            if new_states == 0:
                break
            d += 1
            if after_layer is not None:
                after_layer(d, words, g.shift)
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


def _layer(d: int, pull: bool, items, arrays, threads: int) -> tuple[int, int, tuple]:
    """Reach the states at depth ``d + 1`` from those at depth ``d``, by pulling (each state
    not yet reached looks for a neighbour at ``d``) or pushing (each state at ``d`` marks its
    neighbours), over the block ranges ``items`` on ``threads`` threads.  ``arrays`` are the
    kernels' ``(words, dist, blk, geo, moves, weights)``.  Return the new states, the new
    placements and the layer's record ``(depth, "pull" or "push", new states, seconds)``."""
    blk = arrays[2]
    # Two bits mark the depths of a block's states, by parity: the one of depth d + 1 still
    # marks depth d - 1, whose blocks this layer no longer reads.
    np.bitwise_and(blk, np.uint8(0xFF ^ pattern_kernels.depth_bit(d + 1)), out=blk)
    t1 = time.perf_counter()
    kernel = pattern_kernels.pull_layer if pull else pattern_kernels.push_layer
    new_states, new_placements = (int(v) for v in _run(kernel, items, (d, *arrays), threads))
    how = "pull" if pull else "push"
    return new_states, new_placements, (d + 1, how, new_states, time.perf_counter() - t1)
