"""Zero-aware pattern databases: two values a placement, by the blank's region (builder layer).

An additive table keeps, for each placement of a pattern's tiles, the fewest moves of those
tiles over every place of the blank.  The pattern BFS (:mod:`pdb_builder.pattern_bfs`) already
searches (placement, blank region) states and keeps the minimum; a *zero-aware* table
(Clausecker & Reinefeld) keeps the regions apart, which is larger wherever the pattern's tiles
wall the blank off from where they must go.  npuzzle's keep two classes a placement
(:mod:`solver.core.regions`): the distance with the blank in the main region and with the
blank elsewhere (the same value where there is no elsewhere).  The BFS fills them as pairs
(``2 * rank`` main, ``2 * rank + 1`` other); the file keeps them packed into one byte a
placement (:func:`pack_classes`: the smaller distance, and which class is 2 higher), so a twin
is the size of its additive table and a search needs the blank's class only where the two
differ.

They are made by the search :func:`pdb_builder.pattern_bfs.uses_region` picks
(:func:`twin_tables`).  The region BFS (:mod:`pdb_builder.region_bfs`) keeps its states by
region and folds them straight into the packed bytes.  The placement BFS keeps only a word of
region codes a placement, so after each of its layers :func:`classify_layer` has the
compiled engine (``solver/engine/pattern_twin.c``) look at the placements whose word (a code
per free cell: the depth its region was reached, modulo 3) shows regions reached in that layer
and write the depth into the class those regions belong to, unless the class was reached
before.  The minimum of a pair is the additive table's entry:
:func:`zero_aware_tables` checks it for every placement.

Files: ``zpdb-<shape>-<partition>[-<goal tag>].h5`` (named by :mod:`solver.tables.catalog`),
written like ``build_apdb``'s (atomic, digests), kind ``zero-aware-pdb``, one uint8 dataset
per pattern with ``n!/(n-k)!`` packed entries: an additive database's size (4x4 6-6-3
11.5 MB, 7-8 577 MB; 5x5 6-6-6-6 510 MB).

Imports: numpy, :mod:`solver.core` (board, packing, ranking, regions), :mod:`solver.engine`,
:mod:`solver.tables`, :mod:`pdb_builder`.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np

from solver.core import packing
from solver.core.board import Board, Shape
from solver.core.ranking import count_placements
from solver.core.regions import class_value, main_region_masks
from solver.engine import engine
from solver.tables import names, store

from .budget import peak_rss_mb
from .build_apdb import file_mb, start, summary, write_pattern
from .pattern_bfs import UNREACHED, PatternResult, bfs_pattern, geometry, thread_count, uses_region
from .region_bfs import region_bfs
from .threads import run_items

KIND = names.ZERO_AWARE
ITEMS_PER_THREAD = 8


def classify_layer(depth: int, first: int, last: int, tables, pairs, shape: Shape, k: int, main):
    """For the blocks ``first..last-1`` of the BFS's ``tables`` (``words, blk``): where a word
    shows regions reached at ``depth``, write ``depth`` into the classes (``pairs[2 * p +
    class]``) of those regions that have none yet; ``main`` is
    :func:`solver.core.regions.main_region_masks`.  Only blocks flagged as holding states of
    ``depth`` are read.  A placement whose free cells form one region gets its second class as
    soon as its first: the pair then compares equal and the search never looks further.  Runs
    in the engine, the GIL released."""
    words, blk = tables
    engine().pattern_classify(
        depth, first, last, words, blk, pairs, shape.rows, shape.cols, k, main
    )


def pack_classes(pairs: np.ndarray) -> tuple[np.ndarray, int]:
    """A two-class table (uint8, ``2 * r + class``) as one byte a placement
    (:mod:`solver.core.packing`): the smaller of the two distances in the low
    :data:`~solver.core.packing.VALUE_BITS` bits, in the top two ``1 + class`` of the class
    whose distance is :data:`~solver.core.packing.HIGHER_BY` higher (0: equal).  Returns the
    packed table and how many placements differed by another amount (kept lower: still a
    lower bound).  Raises ValueError for an odd number of entries or a distance too large to
    pack."""
    pairs = np.ascontiguousarray(pairs, dtype=np.uint8)
    if pairs.size % 2:
        raise ValueError("a two-class table has an even number of entries")
    out = np.empty(pairs.size // 2, np.uint8)
    clipped = engine().pattern_pack(
        pairs, out, packing.VALUE_BITS, packing.HIGHER_BY, packing.MAIN, packing.OTHER
    )
    return out, clipped


def zero_aware_tables(shape: Shape, tiles, goal: Board, progress: bool = True, label=None):
    """``(pairs, result)``: the two-class table of one pattern (``pairs[2 * rank + class]``)
    and the BFS's :class:`~pdb_builder.pattern_bfs.PatternResult` (the additive table), by
    the placement BFS (whose layers' words show the regions; :func:`twin_tables` picks the
    search a build uses).
    Raises RuntimeError if a pair's minimum is not the additive entry (a bug, never data)."""
    tiles = tuple(sorted(int(t) for t in tiles))
    n, k = shape.size, len(tiles)
    total = count_placements(n, k)
    pairs = np.full(2 * total, UNREACHED, np.uint8)
    main = main_region_masks(shape.rows, shape.cols, k)
    threads = thread_count()
    blocks = total // geometry(shape, k).block_size
    count = max(1, min(ITEMS_PER_THREAD * threads, blocks // 64))
    edges = [blocks * i // count for i in range(count + 1)]

    def after_layer(depth: int, words: np.ndarray, blk: np.ndarray) -> None:
        def item(i):
            classify_layer(depth, edges[i], edges[i + 1], (words, blk), pairs, shape, k, main)

        run_items(item, count, threads)

    result = bfs_pattern(
        shape, tiles, goal, progress=progress, label=label, after_layer=after_layer, region=False
    )
    if not np.array_equal(pairs.reshape(-1, 2).min(axis=1), result.table):
        raise RuntimeError(f"the zero-aware table of {tiles} does not fold to the additive one")
    return pairs, result


class Twin(NamedTuple):
    """One pattern's zero-aware table, packed (one byte a placement, 255 unreached), the
    placements whose classes differ by neither 0 nor HIGHER_BY (kept lower), the mean of
    the main class over the placements reached, and the search's additive table."""

    packed: np.ndarray
    clipped: int
    mean: float
    result: PatternResult


def main_mean(packed: np.ndarray) -> float:
    """The mean distance of the main class (the blank in the main region) of a packed table,
    over the placements reached: what the file gives a search, by
    :func:`solver.core.regions.class_value`."""
    # From the count of each byte, a part at a time: the table's values as one array would be
    # 8 bytes a placement (bincount's too: 4.6 GB for 7-8), more than the search itself needs.
    flat, step = packed.ravel(), 1 << 24
    counts = np.zeros(256, np.int64)
    for first in range(0, flat.size, step):
        counts += np.bincount(flat[first : first + step], minlength=256)
    counts[UNREACHED] = 0
    seen = int(counts.sum())
    values = class_value(np.arange(256, dtype=np.int64), packing.MAIN)
    return float(int(counts @ values) / seen) if seen else 0.0


def twin_tables(shape: Shape, tiles, goal: Board, progress: bool = True, label=None) -> Twin:
    """One pattern's zero-aware twin and additive table from one search: the region BFS
    where :func:`pdb_builder.pattern_bfs.uses_region` says so (its fold packs the classes),
    else the placement BFS with :func:`zero_aware_tables` (the pairs then packed by
    :func:`pack_classes`).  The bytes are the same either way."""
    tiles = tuple(sorted(int(t) for t in tiles))
    if uses_region(shape, len(tiles)):
        r = region_bfs(shape, tiles, goal, twin=True, progress=progress, label=label)
        result = PatternResult(
            r.tiles, r.table, r.counts, r.unreached, r.states, r.seconds, r.layers
        )
        return Twin(r.twin, r.clipped, main_mean(r.twin), result)
    pairs, result = zero_aware_tables(shape, tiles, goal, progress, label)
    packed, clipped = pack_classes(pairs)
    del pairs
    return Twin(packed, clipped, main_mean(packed), result)


def build_zero_aware(
    shape: Shape | str,
    partition,
    goal: Board | str | None = None,
    data_dir=None,
    force: bool = False,
    progress: bool = True,
) -> dict:
    """Build ``zpdb-<shape>-<partition>.h5`` in ``data_dir`` (for ``goal``; default
    blank-last) and return a summary row: file, entries, mb, mean_h (the sum of the patterns'
    means over the main class, and over the additive entries: ``mean_h_additive``), seconds,
    peak_mb, skipped.  Skips the work when the file exists and ``force`` is false.  Each
    table's attribute ``clipped`` counts the placements whose classes differ by more than
    the packed byte keeps (stored lower: still a lower bound)."""
    shape, goal, partition, path, row, attrs = start(shape, partition, goal, data_dir, KIND)
    if path.exists() and not force:
        return {**row, "skipped": True, "mb": file_mb(path)}
    t0 = time.perf_counter()
    with store.atomic_h5(path, attrs, size=row["entries"]) as f:
        means = [
            _write_twin(f, i, pattern, twin_tables(shape, pattern, goal, progress, label))
            for i, pattern, label in _labelled(partition)
        ]
    return _twin_summary(row, means, path, t0)


def build_with_twin(
    shape: Shape | str,
    partition,
    goal: Board | str | None = None,
    data_dir=None,
    progress: bool = True,
) -> tuple[dict, dict]:
    """Build the additive database of ``partition`` and its zero-aware twin from ONE search
    per pattern: the twin's search (:func:`twin_tables`) finds the additive table too
    (the smaller of each pair), so the additive file costs only its writing.  Both files are
    written atomically and (re)built whether or not they exist; returns their summary rows
    (:func:`~pdb_builder.build_apdb.build_apdb`'s, then :func:`build_zero_aware`'s)."""
    shape, goal, partition, path, row, attrs = start(shape, partition, goal, data_dir, KIND)
    additive = start(shape, partition, goal, data_dir)
    t0 = time.perf_counter()
    details, means = [], []
    with store.atomic_h5(additive.path, additive.attrs) as fa, store.atomic_h5(path, attrs) as fz:
        for i, pattern, label in _labelled(partition):
            twin = twin_tables(shape, pattern, goal, progress, label)
            details.append(write_pattern(fa, i, pattern, twin.result))
            means.append(_write_twin(fz, i, pattern, twin))
            del twin
    seconds = time.perf_counter() - t0
    rows = summary(additive.row, details, additive.path, t0), _twin_summary(row, means, path, t0)
    rows[0]["seconds"] = 0.0  # its search is the twin's: the time is counted once, there
    rows[1]["seconds"] = seconds
    return rows


def _labelled(partition):
    """``(index, pattern, progress label)`` of each pattern of a twin's build."""
    for i, pattern in enumerate(partition):
        yield (
            i,
            pattern,
            f"{partition.name} zero-aware pattern {i + 1}/{len(partition)} ({pattern})",
        )


def _write_twin(f, i: int, pattern, twin: Twin) -> tuple[float, float]:
    """Write pattern ``i``'s packed two-class table into the open file ``f``; return its
    mean over the main class and the additive table's mean."""
    store.write_table(
        f,
        f"pattern_{i}",
        twin.packed,
        tiles=np.array(pattern, np.int64),
        classes=2,
        clipped=twin.clipped,
    )
    return twin.mean, twin.result.mean_h


def _twin_summary(row: dict, means: list[tuple[float, float]], path, t0: float) -> dict:
    """The summary row of a finished twin (see :func:`build_zero_aware`)."""
    return {
        **row,
        "skipped": False,
        "mb": file_mb(path),
        "mean_h": sum(m for m, _ in means),
        "mean_h_additive": sum(a for _, a in means),
        "seconds": time.perf_counter() - t0,
        "peak_mb": peak_rss_mb(),
    }
