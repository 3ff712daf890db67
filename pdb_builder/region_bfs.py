"""The pattern BFS of large patterns by (map, blank region, permutation): one byte a state.

:mod:`pdb_builder.pattern_bfs` keeps, for each of a pattern's ``n!/(n-k)!`` placements, a
distance byte and a word of 2-bit region codes (64 bits on 5x5): 9 bytes a placement, 27.5 GB
of working state for 7 tiles on 5x5 before any slack.  This module searches the same states,
(placement, blank region), laid out so that nothing but the depth is stored a state.

The regions the free cells split into depend only on the *set* of cells the k tiles stand on
(the map, one of ``C(n, k)``), not on which tile stands where.  A state is therefore indexed
by the map, the blank's region among the map's regions and the permutation of the tiles over
the map's cells (``k!``): ``(offset[map] + region) * k! + permutation``, with a small offset
table per map (``solver/engine/region_bfs.h``).  The entries number ``k!`` times the regions
of every map, 4,066,655,040 bytes for 7 tiles on 5x5 (:func:`entry_count`), each the depth at
which its state was reached or 255.

Each layer scans the entries at depth d and pushes them (every tile next to the blank's
region slides into it, the blank now where the tile stood; unseen targets become d + 1) or,
once the unseen states number fewer than ``pull_when`` times the frontier, pulls (every
unseen state with a neighbour at depth d becomes d + 1).  The loops are the compiled
engine's (``solver/engine/region_sweep.c``), run with the GIL released on ranges of maps that
this module's threads take in turn; Ctrl-C stops a build between two ranges, within a
fraction of a second.

At the end the entries are folded into the tables :mod:`pdb_builder.pattern_bfs` builds: the
additive table (per placement, by the k-permutation rank of
:func:`solver.core.ranking.rank`, the smallest depth over its regions) and, if asked, the
zero-aware twin's bytes in :mod:`pdb_builder.zero_aware`'s packed format (the main region's
depth and the other regions' smallest, packed as :mod:`solver.core.packing` says).  Both are
byte for byte those of the existing builders (``tests/test_region_bfs.py``).

Memory (:func:`memory_bytes`): the entries, plus one table of ``n!/(n-k)!`` bytes while they
are folded (the twin's bytes when one is built: the additive table is their low bits, taken
once the entries are freed), plus the plan (the maps' labels and the permutations' move
table, 20 MB for 7 tiles on 5x5: :func:`plan_bytes`).  7 tiles on 5x5: 4.07 GB + 2.43 GB +
0.02 GB = 6.5 GB.

Imports: numpy, :mod:`solver.core` (board, packing, progress_bar, ranking, regions),
:mod:`solver.engine`, :mod:`pdb_builder.budget` (the memory model) and :mod:`pdb_builder.threads`.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from solver.core import packing
from solver.core.board import Board, Shape, goal_board
from solver.core.progress_bar import ProgressBar
from solver.core.regions import main_region_masks
from solver.engine import engine

from . import budget
from .threads import run_items, thread_count

UNSEEN = 255  # an entry no layer has reached (the other parity class, for a full pattern)
MAX_DEPTH = 254
MAX_TILES = 8  # a permutation's rank fits 16 bits in the engine's move table
ENTRIES_PER_ITEM = 1 << 21  # a layer's work handed to a thread at a time: well under a second
PLACEMENTS_PER_ITEM = 1 << 21  # the fold's, likewise
ITEMS_PER_THREAD = 8  # at least, so that threads finish a layer together
PULL_WHEN = 2.0  # pull once unseen states < PULL_WHEN x frontier states


class Plan(NamedTuple):
    """The engine's tables of k tiles on a board (an opaque capsule) and their sizes."""

    capsule: object
    shape: Shape
    k: int
    maps: int  # C(n, k) sets of occupied cells
    regions: int  # the regions of every map
    entries: int  # regions x k!: the states, one byte each
    perms: int  # k!
    prefixes: int  # n!/(n-k+1)!: the placements in runs of n-k+1 ranks

    @property
    def placements(self) -> int:
        """The placements of the k tiles: n!/(n-k)!."""
        return self.prefixes * (self.shape.size - self.k + 1)


@dataclass
class RegionResult:
    """A pattern's tables and how the search went (the fields of
    :class:`pdb_builder.pattern_bfs.PatternResult`, and the twin's)."""

    tiles: tuple[int, ...]
    table: np.ndarray  # uint8 by the k-permutation rank of the tiles' cells, 255 unreached
    counts: np.ndarray  # placements at each h value 0..max
    unreached: int  # placements never reached
    states: int  # (placement, region) states reached
    seconds: float
    layers: list = field(default_factory=list)  # (depth, "push" or "pull", new states, seconds)
    twin: np.ndarray | None = None  # the zero-aware twin's packed bytes, when asked for
    clipped: int = 0  # placements whose two classes differ by neither 0 nor HIGHER_BY
    entries: int = 0  # the search's bytes: one a state

    @property
    def mean_h(self) -> float:
        """The additive table's mean over the placements reached (from :attr:`counts`)."""
        counts = self.counts
        return float(np.dot(np.arange(len(counts)), counts) / counts.sum())


def make_plan(shape: Shape | str, k: int) -> Plan:
    """The engine's plan for ``k`` tiles on ``shape`` (ValueError where it cannot be made).

    >>> p = make_plan("5x5", 7)
    >>> p.maps, p.regions, p.entries, p.placements
    (480700, 806876, 4066655040, 2422728000)
    """
    shape = Shape.parse(shape)
    capsule = engine().region_plan(shape.rows, shape.cols, k)
    maps, regions, entries, perms, prefixes = engine().region_plan_info(capsule)
    return Plan(capsule, shape, k, maps, regions, entries, perms, prefixes)


def entry_count(shape: Shape | str, k: int) -> int:
    """The bytes of a k-tile pattern's search: k! times the regions of every set of k cells.

    >>> entry_count("5x5", 7), entry_count("4x4", 8)
    (4066655040, 1425191040)
    """
    shape = Shape.parse(shape)
    return math.factorial(k) * engine().pattern_count_regions(shape.rows, shape.cols, k)


def plan_bytes(shape: Shape | str, k: int) -> int:
    """The plan's bytes: per map its mask, offset and a label per cell; the move table of
    k x k x k! permutation ranks (20 MB for 7 tiles on 5x5)."""
    shape = Shape.parse(shape)
    maps = math.comb(shape.size, k)
    return maps * (16 + shape.size) + 2 * k * k * math.factorial(k)


def memory_bytes(shape: Shape | str, k: int) -> int:
    """Peak bytes of the arrays of one pattern's search and fold (the twin's as well: the
    additive table is the twin's low bits, made once the entries are freed): the entries,
    one table of placements and the plan.

    >>> memory_bytes("5x5", 7)
    6509585660
    """
    shape = Shape.parse(shape)
    return budget.region_bytes(shape.size, k, entry_count(shape, k))


def map_items(plan: Plan, threads: int) -> list[tuple[int, int]]:
    """Ranges of maps holding about equal numbers of entries: at most ENTRIES_PER_ITEM each
    (a map's blocks never split) and, where there are enough maps, ITEMS_PER_THREAD per
    thread or more."""
    offsets = np.empty(plan.maps + 1, np.int64)
    engine().region_offsets(plan.capsule, offsets)
    count = max(-(-plan.entries // ENTRIES_PER_ITEM), ITEMS_PER_THREAD * threads)
    count = min(count, plan.maps)
    edges = np.searchsorted(offsets, np.linspace(0, plan.regions, count + 1), side="left")
    edges[0], edges[-1] = 0, plan.maps
    edges = np.unique(edges)
    return [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:], strict=True)]


def prefix_items(plan: Plan, threads: int, first: int, last: int) -> list[tuple[int, int]]:
    """Ranges of the prefixes ``first..last-1`` (runs of n-k+1 placements) for the fold, as
    :func:`map_items`."""
    total = (last - first) * (plan.shape.size - plan.k + 1)
    count = max(-(-total // PLACEMENTS_PER_ITEM), ITEMS_PER_THREAD * threads)
    count = max(1, min(count, last - first))
    edges = [first + (last - first) * i // count for i in range(count + 1)]
    return [(a, b) for a, b in zip(edges[:-1], edges[1:], strict=True) if b > a]


def _pattern(shape: Shape, tiles) -> tuple[int, ...]:
    """``tiles`` sorted, once they are distinct tiles of ``shape`` (ValueError otherwise)."""
    tiles = tuple(sorted(int(t) for t in tiles))
    if len(set(tiles)) != len(tiles) or not all(1 <= t < shape.size for t in tiles):
        raise ValueError(
            f"pattern {tiles} is not a set of tiles of a {shape} board (1..{shape.size - 1})"
        )
    if len(tiles) > MAX_TILES:
        raise ValueError(f"the region BFS takes patterns of up to {MAX_TILES} tiles")
    return tiles


@dataclass
class Search:
    """A finished search: the plan, the entries (one byte a state: its depth, 255 unseen)
    and what the layers did; :func:`fold` and :func:`fold_chunks` read the tables from it."""

    plan: Plan
    tiles: tuple[int, ...]
    entries: np.ndarray | None
    states: int
    layers: list
    seconds: float
    threads: int


class Folded(NamedTuple):
    """What a fold found: placements by their smallest depth (index 255: unreached), the
    twin's placements whose classes differ by neither 0 nor HIGHER_BY, the largest depth."""

    hist: np.ndarray
    clipped: int
    largest: int


def search(
    shape: Shape | str,
    tiles,
    goal: Board | None = None,
    progress: bool = True,
    label: str | None = None,
    threads: int | None = None,
    pull_when: float = PULL_WHEN,
    on_layer=None,
) -> Search:
    """Search every (placement, blank region) state of ``tiles`` from ``goal`` (default:
    blank-last), a layer at a time until one reaches nothing.  A layer pulls instead of
    pushing once the unseen states number fewer than ``pull_when`` times the frontier.
    ``on_layer(depth, new states, seconds)``, if given, is called after each layer."""
    shape = Shape.parse(shape)
    goal = goal if goal is not None else goal_board(shape)
    tiles = _pattern(shape, tiles)
    plan = make_plan(shape, len(tiles))
    threads = threads or thread_count()
    t0 = time.perf_counter()
    entries = np.full(plan.entries, UNSEEN, np.uint8)
    home = [goal.tiles.index(t) for t in tiles]
    entries[engine().region_index(plan.capsule, home, goal.blank)] = 0
    desc = label or f"pattern {','.join(map(str, tiles))}"
    states, layers = _layers(plan, entries, threads, pull_when, desc, progress, on_layer)
    return Search(plan, tiles, entries, states, layers, time.perf_counter() - t0, threads)


def fold(found: Search, first: int, last: int, additive=None, twin=None) -> Folded:
    """Write the tables of the placements of prefixes ``first..last-1`` (the ranks from
    ``first * (n-k+1)`` on) into ``additive`` (the smallest depth over the regions) and
    ``twin`` (the two classes packed: :func:`pdb_builder.zero_aware.pack_classes`'s byte),
    uint8 arrays of one item a placement, either None when not wanted; on the search's
    threads.  Raises ValueError where a twin's distance does not fit a packed byte."""
    plan = found.plan
    shape, run = plan.shape, plan.shape.size - plan.k + 1
    main = main_region_masks(shape.rows, shape.cols, plan.k) if twin is not None else None
    items = prefix_items(plan, found.threads, first, last)
    hists = np.zeros((len(items), 256), np.int64)
    out = [(0, 0, 0)] * len(items)
    call = engine().region_fold
    args = (packing.VALUE_BITS, packing.HIGHER_BY, packing.MAIN, packing.OTHER)

    def part(table, a, b):
        return None if table is None else table[(a - first) * run : (b - first) * run]

    def task(i):
        """One range of prefixes (the engine releases the GIL)."""
        a, b = items[i]
        out[i] = call(
            plan.capsule,
            found.entries,
            a,
            b,
            part(additive, a, b),
            part(twin, a, b),
            main,
            hists[i],
            *args,
        )

    run_items(task, len(items), found.threads)
    largest = max(o[2] for o in out)
    if twin is not None and largest > packing.VALUE_MASK:
        raise ValueError(f"a distance above {packing.VALUE_MASK} does not fit a packed entry")
    return Folded(hists.sum(axis=0), sum(o[1] for o in out), largest)


def fold_chunks(found: Search, twin: bool = False, placements: int = 1 << 26):
    """The search's tables a part at a time, for a writer that never holds a whole table:
    yields ``(first rank, additive part, twin part or None, Folded)``, the parts about
    ``placements`` long, in rank order.  Memory: the entries and the parts."""
    plan = found.plan
    run = plan.shape.size - plan.k + 1
    step = max(1, placements // run)
    for a in range(0, plan.prefixes, step):
        b = min(plan.prefixes, a + step)
        additive = np.empty((b - a) * run, np.uint8)
        packed = np.empty((b - a) * run, np.uint8) if twin else None
        folded = fold(found, a, b, additive, packed)
        yield a * run, additive, packed, folded


def region_bfs(
    shape: Shape | str,
    tiles,
    goal: Board | None = None,
    twin: bool = False,
    progress: bool = True,
    label: str | None = None,
    threads: int | None = None,
    pull_when: float = PULL_WHEN,
    on_layer=None,
) -> RegionResult:
    """Build the additive table of one pattern (and, with ``twin``, its zero-aware twin's
    packed bytes) for ``goal`` (default: blank-last) by the search over (map, region,
    permutation): the same tables as :func:`pdb_builder.pattern_bfs.bfs_pattern` and
    :func:`pdb_builder.zero_aware.pack_classes` of
    :func:`~pdb_builder.zero_aware.zero_aware_tables`.  The arguments are :func:`search`'s.
    A twin's distances must fit a packed byte (ValueError otherwise, as the packing's); its
    additive table is then the packed bytes' low bits, taken once the entries are freed.

    >>> r = region_bfs("2x2", (1, 2, 3), progress=False)   # the whole 3-puzzle
    >>> r.table.tolist()[:8], r.unreached, r.counts.tolist()
    ([0, 1, 255, 255, 255, 1, 255, 255], 12, [1, 2, 2, 2, 2, 2, 1])
    """
    t0 = time.perf_counter()
    found = search(shape, tiles, goal, progress, label, threads, pull_when, on_layer)
    plan = found.plan
    table = None if twin else np.empty(plan.placements, np.uint8)
    packed = np.empty(plan.placements, np.uint8) if twin else None
    folded = fold(found, 0, plan.prefixes, table, packed)
    found.entries = None  # freed before the additive table is taken from the twin
    if packed is not None:  # every distance fits the packed byte: its low bits are the minimum
        table = np.bitwise_and(packed, np.uint8(packing.VALUE_MASK))
    hist = folded.hist
    top = int(np.flatnonzero(hist[:UNSEEN]).max())
    return RegionResult(
        tiles=found.tiles,
        table=table,
        counts=hist[: top + 1].copy(),
        unreached=int(hist[UNSEEN]),
        states=found.states,
        seconds=time.perf_counter() - t0,
        layers=found.layers,
        twin=packed,
        clipped=folded.clipped,
        entries=plan.entries,
    )


def _layers(plan: Plan, entries, threads, pull_when, desc, progress, on_layer):
    """Run the layers from the goal state (the one entry at 0) until one reaches nothing;
    return the states reached and the layers' records."""
    items = map_items(plan, threads)
    n = plan.shape.size
    reachable = plan.entries // 2 if plan.k == n - 1 else plan.entries  # one parity class
    bar = ProgressBar(
        total=reachable, desc=desc, unit="st", unit_scale=True, disable=not progress, leave=True
    )
    bar.update(1)
    states, frontier, layers, d = 1, 1, [], 0
    try:
        while True:
            if d >= MAX_DEPTH:
                raise ValueError(f"{desc} needs more than {MAX_DEPTH} moves: too many for a byte")
            pull = reachable - states < pull_when * frontier
            t1 = time.perf_counter()
            new = _layer(plan, entries, pull, d, items, threads)
            seconds = time.perf_counter() - t1
            layers.append((d + 1, "pull" if pull else "push", new, seconds))
            if on_layer is not None:
                on_layer(d + 1, new, seconds)
            if new == 0:
                break
            d, states, frontier = d + 1, states + new, new
            bar.update(new)
            bar.set_postfix_str(f"depth {d}, {new:,} states", refresh=False)
    finally:
        bar.close()
    return states, layers


def _layer(plan: Plan, entries, pull: bool, d: int, items, threads: int) -> int:
    """The states at depth ``d + 1``, reached from those at ``d`` over the map ranges
    ``items`` on ``threads`` threads; their count."""
    out = [0] * len(items)
    run = engine().region_layer

    def task(i):
        """One range of maps (the engine releases the GIL)."""
        out[i] = run(plan.capsule, entries, pull, d, *items[i])

    run_items(task, len(items), threads)
    return sum(out)


__all__ = [
    "Folded",
    "Plan",
    "RegionResult",
    "Search",
    "fold",
    "fold_chunks",
    "search",
    "entry_count",
    "make_plan",
    "memory_bytes",
    "plan_bytes",
    "region_bfs",
]
