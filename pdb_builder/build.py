"""What to build, with progress, atomic writes, a summary and verification.

``build-pdb`` is a thin layer over this module: :func:`build_exact` writes the exact tables of
a small board, :func:`build_partition` an additive pattern database (delegating the search to
:mod:`pdb_builder.build_apdb`), :func:`list_built` and :func:`verify_all` inspect the data
directory.
"""
from __future__ import annotations

import resource
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

from solver.core import config
from solver.core.board import Shape
from solver.tables import catalog, exact, store

from .exact_bfs import bfs_exact, check_exact_shape, table_size

DEFAULT_EXACT_SHAPES = tuple(Shape.parse(s) for s in config.DEFAULT_EXACT_SHAPES)


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far, in MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def build_exact(shape: Shape, data_dir=None, force: bool = False, progress: bool = True,
                goal=None, layout: str | None = None) -> dict:
    """Build the exact table of ``shape`` that serves ``goal`` (default: blank-last).

    Full layout (up to 9 cells): ``exact-<shape>.h5``, one BFS per goal blank cell, serving
    every goal.  Compact layout (10 to 12 cells): ``exact-<shape>-blank<cell>.h5``, one BFS
    for the canonical goal of the cell that serves ``goal`` (:func:`catalog.table_cell`).
    ``layout`` overrides the shape's own (tests build compact tables of small boards).
    Returns a summary row; skips the work when the file exists and ``force`` is false.
    """
    layout = layout or catalog.exact_layout(shape)
    if layout == catalog.COMPACT:
        from .build_compact import build_compact

        return build_compact(shape, data_dir, force, progress, goal)
    check_exact_shape(shape)
    directory = store.ensure_writable(store.data_dir(data_dir))
    store.remove_stale_temporaries(directory)
    path = directory / f"exact-{shape}.h5"
    row = {"file": path.name, "kind": "exact", "entries": table_size(shape) * shape.size}
    if path.exists() and not force:
        return {**row, "skipped": True, "mb": path.stat().st_size / 2**20}
    t0 = time.perf_counter()
    default_goal = exact.canonical_goal(shape, shape.size - 1)
    attrs = {"kind": catalog.EXACT, "shape": str(shape), "goal": default_goal.flat(),
             "layout": catalog.FULL,
             "tables": "blank_<cell>: distances to the canonical goal with the blank on <cell>"}
    max_d, total_d, states = 0, 0, 0
    with store.atomic_h5(path, attrs) as f:
        cells = tqdm(range(shape.size), desc=f"exact {shape}", unit="goal", disable=not progress)
        for cell in cells:
            goal = exact.canonical_goal(shape, cell)
            table, counts = bfs_exact(goal)
            store.write_table(f, exact.table_name(cell), table, goal=goal.flat(),
                              counts=counts, max_distance=len(counts) - 1)
            max_d = max(max_d, len(counts) - 1)
            total_d += int(np.dot(np.arange(len(counts)), counts))
            states += int(counts.sum())
    return {**row, "skipped": False, "mb": path.stat().st_size / 2**20, "max_h": max_d,
            "mean_h": total_d / states, "seconds": time.perf_counter() - t0,
            "peak_mb": peak_rss_mb()}


def build_partition(shape: Shape, partition: str, goal=None, data_dir=None, force=False,
                    progress=True) -> dict:
    """Build the additive pattern database of ``partition`` (a preset such as ``6-6-3`` or
    tiles like ``1,2,3,4/5,6,7,8``) for ``shape`` and ``goal``."""
    from solver.core.board import goal_board

    from .build_apdb import build_apdb

    return build_apdb(shape, partition, goal_board(shape, goal), data_dir, force=force,
                      progress=progress)


def list_built(data_dir=None) -> list[dict]:
    """One row per database file in the data directory."""
    rows = []
    directory = store.data_dir(data_dir)
    for path in sorted(directory.glob("*.h5")) if directory.is_dir() else []:
        try:
            a = store.read_root_attrs(path)
        except OSError:
            a = {"kind": "unreadable"}
        rows.append({"file": path.name, "kind": a.get("kind", "?"), "shape": a.get("shape", "?"),
                     "partition": a.get("partition", ""), "goal": a.get("goal", ""),
                     "mb": path.stat().st_size / 2**20, "created_by": a.get("created_by", "")})
    return rows


def verify_all(data_dir=None) -> tuple[list[Path], list[str]]:
    """Recompute every checksum in the data directory: (files checked, problems found)."""
    directory = store.data_dir(data_dir)
    files = sorted(directory.glob("*.h5")) if directory.is_dir() else []
    problems = []
    for path in tqdm(files, desc="verify", unit="file", disable=len(files) < 2):
        problems += store.verify(path)
    return files, problems
