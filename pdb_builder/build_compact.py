"""Build and write one compact exact table (``exact-<shape>-blank<cell>.h5``), with a progress
bar by BFS layer, an atomic write and the summary row ``build-pdb`` prints.

Imports: numpy, the solver core (its progress bar) and tables, :mod:`pdb_builder.compact_bfs` and
:mod:`pdb_builder.budget`.
"""

from __future__ import annotations

import time

import numpy as np

from solver.core.board import Shape, goal_board
from solver.core.progress_bar import ProgressBar
from solver.tables import compact, names, store

from .budget import peak_rss_mb
from .compact_bfs import bfs_compact


def build_compact(
    shape: Shape, data_dir=None, force: bool = False, progress: bool = True, goal=None
) -> dict:
    """Build the compact table serving ``goal`` (default: blank-last) on ``shape``: the BFS
    from the canonical goal of :func:`names.table_cell` of the goal's blank cell."""
    g = goal_board(shape, goal)
    cell = names.table_cell(shape, g.blank)
    target = names.canonical_goal(shape, cell)
    directory = store.ensure_writable(store.data_dir(data_dir))
    store.remove_stale_temporaries(directory)
    path = directory / f"exact-{shape}-blank{cell}.h5"
    total = compact.entries(shape)
    row = {"file": path.name, "kind": "exact", "entries": total}
    if path.exists() and not force:
        return {**row, "skipped": True, "mb": path.stat().st_size / 2**20}
    t0 = time.perf_counter()
    with ProgressBar(
        total=total,
        desc=f"exact {shape} blank {cell}",
        unit="state",
        unit_scale=True,
        disable=not progress,
        smoothing=0,
    ) as bar:

        def layer(depth, found, seen):
            bar.set_postfix_str(f"depth {depth}", refresh=False)
            bar.update(found)

        result = bfs_compact(target, progress=layer)
    counts = result.counts
    attrs = {
        "kind": names.EXACT,
        "shape": str(shape),
        "goal": target.flat(),
        "layout": names.COMPACT,
        "blank_cell": cell,
        "encoding": compact.ENCODING,
        "index": compact.INDEX,
        "tables": (
            f"{compact.NIBBLES}: (distance - manhattan) / 2 - {compact.BLOCK_BASE}"
            f"[index // {compact.BASE_BLOCK}] per state, two a byte, "
            f"{compact.OVERFLOW} = in {compact.OVERFLOW_INDEX}; "
            f"{compact.RARE_INDEX}: the states of the rarest distances"
        ),
    }
    with store.atomic_h5(path, attrs) as f:
        store.write_table(
            f,
            compact.NIBBLES,
            result.packed,
            goal=target.flat(),
            counts=counts,
            max_distance=len(counts) - 1,
        )
        store.write_table(f, compact.BLOCK_BASE, result.base, block=compact.BASE_BLOCK)
        store.write_table(f, compact.OVERFLOW_INDEX, result.overflow_index.astype(np.uint32))
        store.write_table(f, compact.OVERFLOW_DISTANCE, result.overflow_distance)
        store.write_table(
            f,
            compact.RARE_INDEX,
            result.rare_index.astype(np.uint32),
            distances=np.array(result.rare_distances, dtype=np.int64),
            offsets=np.array(result.rare_offsets, dtype=np.int64),
        )
    mean = float(np.dot(np.arange(len(counts)), counts) / counts.sum())
    return {
        **row,
        "skipped": False,
        "mb": path.stat().st_size / 2**20,
        "max_h": len(counts) - 1,
        "mean_h": mean,
        "seconds": time.perf_counter() - t0,
        "peak_mb": peak_rss_mb(),
    }
