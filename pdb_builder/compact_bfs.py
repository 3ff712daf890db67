"""The exact distance of every state of a 10- to 12-cell board, compactly (builder layer).

A breadth-first search backwards from one goal over the compact index of
:mod:`solver.tables.compact` (``N!/2`` states: 239,500,800 on 3x4 and 2x6), then the encoding
of each distance as a nibble beside its Manhattan distance.

The search works on a byte a state (``work``: the distance, :data:`UNSEEN` until reached; 240 MB
on 12 cells) and sweeps it layer by layer: at depth d every state holding d is decoded, its
neighbours ranked, and those still unseen get d+1.  Sweeps split the index range into slices run
by a few threads (the kernels release the GIL).  numba has no atomics, but none are needed: a
thread only ever writes ``d+1`` over ``UNSEEN``, so two threads reaching the same state write
the same byte, and the frontier (the bytes holding d) never changes during a sweep.  Layer
counts come from the sweep's own count of the states it expanded, so a state found twice is
still counted once.  Each state is expanded exactly once; the cost is mostly the random reads
of its neighbours.

Then a second sweep writes the nibbles and block bases (slices of whole blocks, so no two
threads share a byte)
and the overflow list and the ranks of the rare layers are gathered (see
:func:`bfs_compact`).

Imports: numpy, numba, the solver core and :mod:`solver.tables.compact`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numba
import numpy as np

from solver.core.board import Board
from solver.core.ranking_jit import unrank
from solver.tables import compact

from .pattern_bfs import thread_count
from .threads import run_items

UNSEEN = 255
SLICE = 60 << 14  # states per work item (a multiple of BLOCK and of compact.BASE_BLOCK):
#                   small enough to balance the threads, large enough that handing items out
#                   costs nothing
RARE_SHARE = 1e-4  # layers holding less than this share of the states keep a list of their
#                    indices (sampling positions at a rare distance, npuzzle generate)


BLOCK = 12  # consecutive indices sharing the cells of tiles 0..N-5: the last two ranked
#            tiles take 4 * 3 ordered places among the 4 cells left (digits in radix 4 and 3)


@numba.njit(cache=True, inline="always")
def _decode_block(block, n, p, free):
    """Fill ``p[:n-4]`` with the cells of tiles 0..n-5 shared by the ``block``-th run of
    :data:`BLOCK` indices and ``free`` with the 4 cells left, ascending; return the sum of
    the Lehmer digits so far (its parity is the permutation's, up to the last four)."""
    j = n - 4
    digit_sum = 0
    r = block
    for i in range(j - 1, -1, -1):  # the mixed-radix digits of the rank, last first
        radix = n - i
        digit_sum += r % radix
        r //= radix
    unrank(block, n, j, p)
    used = 0
    for i in range(j):
        used |= 1 << p[i]
    f = 0
    for v in range(n):
        if not (used >> v) & 1:
            free[f] = v
            f += 1
    return digit_sum


@numba.njit(cache=True, inline="always")
def _place_last(inner, digit_sum, n, need, p, free):
    """Complete ``p`` for the ``inner``-th index of its block: tiles n-4 and n-3 take their
    ranked places among ``free``; tiles n-2 and n-1 the two cells left, in the order whose
    parity reaches the goal."""
    a = inner // 3
    b = inner % 3  # the b-th of the 3 cells other than free[a]: free[b] or free[b + 1]
    x = 0 if b != 0 else 1  # the other two, ascending
    y = 2 if b != 2 else 1
    p[n - 4] = free[a]
    p[n - 3] = free[b if b < a else b + 1]
    lo = free[x if x < a else x + 1]
    hi = free[y if y < a else y + 1]
    if ((digit_sum + a + b) & 1) == need[p[0]]:
        p[n - 2], p[n - 1] = lo, hi
    else:
        p[n - 2], p[n - 1] = hi, lo


@numba.njit(cache=True, inline="always")
def _rank(p, k, n, popcount):
    """:func:`solver.core.ranking.rank` of ``p[:k]`` with a table for the bit counts (the
    hot path of the search: three ranks per state)."""
    used = 0
    r = 0
    for i in range(k):
        v = p[i]
        r = r * (n - i) + v - popcount[used & ((1 << v) - 1)]
        used |= 1 << v
    return r


@numba.njit(cache=True, nogil=True)
def _expand(work, lo, hi, d, n, need, nbr, popcount):
    """Expand every state of depth ``d`` in ``work[lo:hi]`` (``lo``, ``hi`` multiples of
    :data:`BLOCK`); return how many there were."""
    k = n - 2
    p = np.empty(n, np.int64)
    at = np.empty(n, np.int64)
    free = np.empty(4, np.int64)
    found = 0
    for block in range(lo // BLOCK, hi // BLOCK):
        base = block * BLOCK
        hit = False
        for inner in range(BLOCK):
            if work[base + inner] == d:
                hit = True
                break
        if not hit:
            continue
        digit_sum = _decode_block(block, n, p, free)
        for inner in range(BLOCK):
            if work[base + inner] != d:
                continue
            found += 1
            _place_last(inner, digit_sum, n, need, p, free)
            for t in range(n):
                at[p[t]] = t
            blank = p[0]
            for m in range(4):
                c = nbr[blank, m]
                if c < 0:
                    continue
                t = at[c]
                p[0] = c
                p[t] = blank
                r = _rank(p, k, n, popcount)
                if work[r] == UNSEEN:
                    work[r] = d + 1
                p[0] = blank
                p[t] = c
    return found


@numba.njit(cache=True, nogil=True)
def _encode(work, lo, hi, packed, base, n, need, md):
    """Write the nibbles and block bases of ``work[lo:hi]`` (``lo`` a multiple of
    :data:`~solver.tables.compact.BASE_BLOCK` and of :data:`BLOCK`); return how many
    states overflow."""
    p = np.empty(n, np.int64)
    free = np.empty(4, np.int64)
    gap = np.empty(hi - lo, np.int64)  # (distance - manhattan) / 2 of each state
    for block in range(lo // BLOCK, (hi + BLOCK - 1) // BLOCK):
        digit_sum = _decode_block(block, n, p, free)
        h0 = 0
        for t in range(1, n - 4):
            h0 += md[t, p[t]]
        for inner in range(BLOCK):
            idx = block * BLOCK + inner
            if idx >= hi:
                break
            _place_last(inner, digit_sum, n, need, p, free)
            h = h0
            for t in range(max(n - 4, 1), n):
                h += md[t, p[t]]
            gap[idx - lo] = (work[idx] - h) >> 1
    over = 0
    step = compact.BASE_BLOCK
    for start in range(lo, hi, step):
        stop = min(start + step, hi)
        low = gap[start - lo]
        for idx in range(start, stop):
            low = min(low, gap[idx - lo])
        base[start // step] = low
        for idx in range(start, stop):
            v = gap[idx - lo] - low
            if v > compact.MAX_STEP:
                v = compact.OVERFLOW
                over += 1
            if idx & 1:
                packed[idx >> 1] |= v << 4
            else:
                packed[idx >> 1] = v
    return over


@numba.njit(cache=True)
def _gather(work, packed, over, rare, rare_offsets):
    """The overflow list (indices whose nibble is OVERFLOW, with their distances) and the
    indices of the rare layers (``rare[d]``), grouped by distance at ``rare_offsets``."""
    o_index = np.empty(over, np.int64)
    o_dist = np.empty(over, np.uint8)
    r_index = np.empty(rare_offsets[-1], np.int64)
    cursor = rare_offsets[:-1].copy()
    j = 0
    for idx in range(work.shape[0]):
        d = work[idx]
        if rare[d]:
            r_index[cursor[d]] = idx
            cursor[d] += 1
        if (packed[idx >> 1] >> ((idx & 1) << 2)) & 0xF == compact.OVERFLOW:
            o_index[j] = idx
            o_dist[j] = d
            j += 1
    return o_index, o_dist, r_index


@dataclass
class CompactResult:
    """A built compact table and what the file records about it."""

    packed: np.ndarray  # uint8 nibbles
    base: np.ndarray  # uint8, one a BASE_BLOCK of states
    overflow_index: np.ndarray  # sorted int64 (stored as uint32)
    overflow_distance: np.ndarray  # uint8
    rare_index: np.ndarray  # int64, grouped by distance (stored as uint32)
    rare_distances: list  # the distances whose indices rare_index holds, in order
    rare_offsets: list  # rare_index[rare_offsets[i]:rare_offsets[i+1]] is distance i's
    counts: np.ndarray  # states at each distance
    seconds: float
    layers: list = field(default_factory=list)  # (depth, states, seconds)


def _sweep(kernel, total, args, threads, step=SLICE) -> int:
    """Run ``kernel(lo, hi, *args)`` over slices of ``range(total)`` on ``threads`` threads and
    return the sum of what it returns.  Ctrl-C stops it within a fraction of a second
    (:mod:`pdb_builder.threads`)."""
    bounds = [(lo, min(lo + step, total)) for lo in range(0, total, step)]
    results = [0] * len(bounds)

    def run_slice(i):
        results[i] = kernel(*args[:1], *bounds[i], *args[1:])

    run_items(run_slice, len(bounds), threads)
    return int(sum(results))


def bfs_compact(goal: Board, threads: int | None = None, progress=None) -> CompactResult:
    """The compact table of ``goal``: distances of all ``N!/2`` states that reach it.

    ``progress``, if given, is called as ``progress(depth, states_at_depth, states_so_far)``
    after each layer.
    """
    t0 = time.perf_counter()
    shape, n = goal.shape, goal.shape.size
    threads = threads or thread_count()
    geo = compact.Geometry.of(goal)
    nbr = np.array(shape.neighbour_table(), dtype=np.int64)
    total = compact.entries(shape)
    work = np.full(total, UNSEEN, dtype=np.uint8)
    popcount = np.array([bin(i).count("1") for i in range(1 << n)], dtype=np.int64)
    start = compact.index_many(np.array([goal.tiles]), geo)[0][0]
    work[start] = 0
    counts, layers, seen = [], [], 0
    d = 0
    while True:
        t1 = time.perf_counter()
        found = _sweep(_expand, total, (work, d, n, geo.need, nbr, popcount), threads)
        if found == 0:
            break
        counts.append(found)
        seen += found
        layers.append((d, found, time.perf_counter() - t1))
        if progress is not None:
            progress(d, found, seen)
        d += 1
    if seen != total:
        raise RuntimeError(f"the search reached {seen:,} of {total:,} states")
    counts = np.array(counts, dtype=np.int64)
    packed = np.zeros(compact.packed_bytes(shape), dtype=np.uint8)
    base = np.zeros(compact.base_entries(shape), dtype=np.uint8)
    over = _sweep(_encode, total, (work, packed, base, n, geo.need, geo.md), threads)
    rare = np.zeros(256, dtype=np.bool_)
    rare[: len(counts)] = counts < RARE_SHARE * total
    rare_counts = np.where(rare[: len(counts)], counts, 0)
    offsets = np.zeros(257, dtype=np.int64)
    offsets[1 : len(counts) + 1] = np.cumsum(rare_counts)
    offsets[len(counts) + 1 :] = offsets[len(counts)]
    o_index, o_dist, r_index = _gather(work, packed, over, rare, offsets)
    del work
    rare_d = [int(x) for x in np.flatnonzero(rare[: len(counts)])]
    rare_off = [int(offsets[x]) for x in rare_d] + [int(offsets[-1])]
    return CompactResult(
        packed,
        base,
        o_index,
        o_dist,
        r_index,
        rare_d,
        rare_off,
        counts,
        time.perf_counter() - t0,
        layers,
    )


__all__ = ["bfs_compact", "CompactResult", "UNSEEN", "RARE_SHARE"]
