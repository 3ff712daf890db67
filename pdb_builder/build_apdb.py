"""Build one additive pattern database file: every pattern of a partition (builder layer).

``build_apdb(shape, partition, goal, data_dir)`` runs :func:`pdb_builder.pattern_bfs.bfs_pattern`
for each pattern and writes ONE file, ``apdb-<shape>-<partition>[-<goal tag>].h5``, through
:func:`solver.tables.store.atomic_h5` (a temporary name renamed into place when complete, so an
interrupted or killed build leaves the previous file intact).  Root attributes: ``kind =
"additive-pdb"``, ``shape``, ``goal`` (the goal's tiles, flat), ``partition`` (its name) and
``patterns`` (its tiles, ``1,2,3/4,5,...``); one uint8 dataset per pattern (``pattern_0``, ...)
indexed by the k-permutation rank of the pattern tiles' cells, with attributes ``tiles`` and
``counts`` (entries at each h value).  Each table is written as soon as its search ends, so only
one search's working memory is alive at a time.

Imports: numpy, :mod:`solver.core`, :mod:`solver.tables` (names gives the file its name, the store
writes it, partitions reads the patterns), :mod:`pdb_builder.pattern_bfs`, :mod:`pdb_builder.budget`.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import NamedTuple

import numpy as np

from solver.core.board import Board, Shape, goal_board
from solver.core.ranking import count_placements
from solver.tables import names, store
from solver.tables.partitions import Partition, parse_partition

from .budget import peak_rss_mb
from .pattern_bfs import PatternResult, bfs_pattern

KIND = names.ADDITIVE


class Start(NamedTuple):
    """What a pattern-database build settles before any work: the parsed ``shape``, ``goal``
    and ``partition``, the file's ``path``, the summary ``row`` it returns and the file's root
    ``attrs``."""

    shape: Shape
    goal: Board
    partition: Partition
    path: Path
    row: dict
    attrs: dict


def start(shape, partition, goal, data_dir, kind: str = KIND) -> Start:
    """Parse and check a build's request, make the data directory ready (stale temporaries
    removed) and name its file: an additive database, or (``kind`` ZERO_AWARE) its two-class
    twin, whose tables hold two distances a placement (packed into one byte)."""
    shape = Shape.parse(shape)
    goal = goal if isinstance(goal, Board) else goal_board(shape, goal)
    if goal.shape != shape:
        raise ValueError(f"the goal is {goal.shape}, not {shape}")
    partition = parse_partition(partition, shape, goal)
    directory = store.ensure_writable(store.data_dir(data_dir))
    store.remove_stale_temporaries(directory)
    path = directory / names.pattern_file_name(shape, partition, goal, kind)
    classes = 2 if kind == names.ZERO_AWARE else 1
    attrs = {
        "kind": kind,
        "shape": str(shape),
        "goal": goal.flat(),
        "partition": partition.name,
        "patterns": str(partition),
    }
    if classes > 1:
        attrs["classes"] = classes
    row = {
        "file": path.name,
        "path": str(path),
        "kind": kind,
        "shape": str(shape),
        "partition": partition.name,
        "goal": goal.flat(),
        "entries": sum(count_placements(shape.size, len(p)) for p in partition),
    }
    return Start(shape, goal, partition, path, row, attrs)


def file_mb(path: Path) -> float:
    """The size of a written file in MiB (the summary rows' ``mb``)."""
    return path.stat().st_size / 2**20


def write_pattern(f, i: int, pattern, result: PatternResult) -> dict:
    """Write pattern ``i``'s table (the search's ``result``) into the open file ``f`` and
    return its summary: tiles, entries, max_h, mean_h, states, unreached, seconds."""
    counts, mean = result.counts, result.mean_h
    store.write_table(
        f,
        f"pattern_{i}",
        result.table,
        tiles=np.array(pattern, np.int64),
        counts=counts,
        max_h=len(counts) - 1,
        mean_h=mean,
        unreached=result.unreached,
        states=result.states,
    )
    return {
        "tiles": str(pattern),
        "entries": int(result.table.size),
        "max_h": len(counts) - 1,
        "mean_h": mean,
        "states": result.states,
        "unreached": result.unreached,
        "seconds": result.seconds,
    }


def summary(row: dict, details: list[dict], path: Path, t0: float) -> dict:
    """The summary row of a finished additive build (see :func:`build_apdb`)."""
    return {
        **row,
        "skipped": False,
        "mb": file_mb(path),
        "max_h": sum(d["max_h"] for d in details),
        "mean_h": sum(d["mean_h"] for d in details),
        "seconds": time.perf_counter() - t0,
        "peak_mb": peak_rss_mb(),
        "patterns": details,
    }


def build_apdb(
    shape: Shape | str,
    partition: Partition | str,
    goal: Board | str | None = None,
    data_dir=None,
    force: bool = False,
    progress: bool = True,
) -> dict:
    """Build ``apdb-<shape>-<partition>.h5`` in ``data_dir`` and return a summary row: file,
    entries, mb, max_h (the sum of the patterns' largest values), mean_h (the sum of their
    means: the average heuristic over random positions), seconds, peak_mb (peak resident
    memory of this process), skipped, and per-pattern details under ``patterns``.

    Skips the work (``skipped=True``) when the file exists and ``force`` is false.  Raises
    :class:`solver.tables.store.DataDirError` when the directory cannot be written.
    """
    shape, goal, partition, path, row, attrs = start(shape, partition, goal, data_dir)
    if path.exists() and not force:
        return {**row, "skipped": True, "mb": file_mb(path)}
    t0 = time.perf_counter()
    details = []
    with store.atomic_h5(path, attrs, size=row["entries"]) as f:
        for i, pattern in enumerate(partition):
            label = f"{partition.name} pattern {i + 1}/{len(partition)} ({pattern})"
            result = bfs_pattern(shape, pattern, goal, progress=progress, label=label)
            details.append(write_pattern(f, i, pattern, result))
            del result
    return summary(row, details, path, t0)
