"""The exact distance of every state of a 10- to 12-cell board, compactly (builder layer).

A breadth-first search backwards from one goal over the compact index of
:mod:`solver.tables.compact` (``N!/2`` states: 239,500,800 on 3x4 and 2x6), then the encoding
of each distance as a nibble beside its Manhattan distance.

The search works on a byte a state (``work``: the distance, :data:`UNSEEN` until reached; 240 MB
on 12 cells) and sweeps it layer by layer: at depth d every state holding d is decoded, its
neighbours ranked, and those still unseen get d+1.  Sweeps split the index range into slices run
by a few threads, each calling the compiled engine's sweep (``solver/engine/exact_compact.c``)
with the GIL released.  No atomic read-modify-write is needed: a thread only ever writes
``d+1`` over ``UNSEEN``, so two threads reaching the same state write the same byte, and the
frontier (the bytes holding d) never changes during a sweep.  Layer counts come from the
sweep's own count of the states it expanded, so a state found twice is still counted once.
Each state is expanded exactly once; the cost is mostly the random reads of its neighbours.

Then a second sweep writes the nibbles and block bases (slices of whole blocks, so no two
threads share a byte), and one pass gathers the overflow list and the indices of the rare
layers (see :func:`bfs_compact`).  A slice takes a fraction of a second and the gather looks
for a signal between stretches, so Ctrl-C stops a build at once (:mod:`pdb_builder.threads`).

Imports: numpy, the solver core and tables (:mod:`solver.tables.compact`), :mod:`solver.engine`
and :mod:`pdb_builder.threads`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from solver.core.board import Board
from solver.engine import engine
from solver.tables import compact

from .threads import run_items, thread_count

UNSEEN = 255
BLOCK = 12  # consecutive indices sharing the cells of tiles 0..N-5: the last two ranked
#            tiles take 4 * 3 ordered places among the 4 cells left (digits in radix 4 and 3)
SLICE = 60 << 14  # states per work item (a multiple of BLOCK and of compact.BASE_BLOCK):
#                   small enough to balance the threads, large enough that handing items out
#                   costs nothing
RARE_SHARE = 1e-4  # layers holding less than this share of the states keep a list of their
#                    indices (sampling positions at a rare distance, npuzzle generate)


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


def _sweep(kernel, total, args, threads) -> int:
    """Run ``kernel(args[0], lo, hi, *args[1:])`` over slices of :data:`SLICE` states of
    ``range(total)`` on ``threads`` threads and return the sum of what it returns.  Ctrl-C
    stops it within a fraction of a second (:mod:`pdb_builder.threads`)."""
    step = SLICE
    bounds = [(lo, min(lo + step, total)) for lo in range(0, total, step)]
    results = [0] * len(bounds)

    def run_slice(i):
        results[i] = kernel(args[0], *bounds[i], *args[1:])

    run_items(run_slice, len(bounds), threads)
    return int(sum(results))


def bfs_compact(goal: Board, threads: int | None = None, progress=None) -> CompactResult:
    """The compact table of ``goal``: distances of all ``N!/2`` states that reach it.

    ``progress``, if given, is called as ``progress(depth, states_at_depth, states_so_far)``
    after each layer.
    """
    t0 = time.perf_counter()
    shape = goal.shape
    threads = threads or thread_count()
    geo = compact.Geometry.of(goal)
    nbr = np.array(shape.neighbour_table(), dtype=np.int64)
    need = np.ascontiguousarray(geo.need, dtype=np.int64)
    md = np.ascontiguousarray(geo.md, dtype=np.int64)
    total = compact.entries(shape)
    work = np.full(total, UNSEEN, dtype=np.uint8)
    start = compact.index_many(np.array([goal.tiles]), geo)[0][0]
    work[start] = 0
    kernels = engine()
    counts, layers, seen = [], [], 0
    d = 0
    while True:
        t1 = time.perf_counter()
        found = _sweep(kernels.compact_expand, total, (work, d, need, nbr), threads)
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
    over = _sweep(kernels.compact_encode, total, (work, packed, base, need, md), threads)
    rare = np.zeros(256, dtype=np.uint8)
    rare[: len(counts)] = counts < RARE_SHARE * total
    rare_counts = np.where(rare[: len(counts)], counts, 0)
    offsets = np.zeros(257, dtype=np.int64)
    offsets[1 : len(counts) + 1] = np.cumsum(rare_counts)
    offsets[len(counts) + 1 :] = offsets[len(counts)]
    o_index = np.empty(over, dtype=np.int64)
    o_dist = np.empty(over, dtype=np.uint8)
    r_index = np.empty(offsets[-1], dtype=np.int64)
    kernels.compact_gather(work, packed, rare, offsets, o_index, o_dist, r_index)
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
