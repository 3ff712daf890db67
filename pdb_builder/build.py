"""What to build, with progress, atomic writes, a summary and verification.

``build-pdb`` is a thin layer over this module: :func:`build_exact` writes the exact tables of
a small board, :func:`build_partition` an additive pattern database (delegating the search to
:mod:`pdb_builder.build_apdb`), :func:`list_built` and :func:`verify_all` inspect the data
directory.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np

from solver.core import config
from solver.core.board import Board, Shape, goal_board
from solver.core.progress_bar import ProgressBar
from solver.tables import (
    audit,
    exact,
    names,
    store,
)
from solver.tables.exact_bfs import bfs_exact, check_exact_shape, table_size
from solver.tables.partitions import parse_partition

from . import budget

DEFAULT_EXACT_SHAPES = tuple(Shape.parse(s) for s in config.DEFAULT_EXACT_SHAPES)


def build_exact(
    shape: Shape,
    data_dir=None,
    force: bool = False,
    progress: bool = True,
    goal=None,
    layout: str | None = None,
) -> dict:
    """Build the exact table of ``shape`` that serves ``goal`` (default: blank-last).

    Full layout (up to 9 cells): ``exact-<shape>.h5``, one BFS per goal blank cell, serving
    every goal.  Compact layout (10 to 12 cells): ``exact-<shape>-blank<cell>.h5``, one BFS
    for the canonical goal of the cell that serves ``goal`` (:func:`names.table_cell`).
    ``layout`` overrides the shape's own (tests build compact tables of small boards).
    Returns a summary row; skips the work when the file exists and ``force`` is false.
    """
    layout = layout or names.exact_layout(shape)
    if layout == names.COMPACT:
        from .build_compact import build_compact

        return build_compact(shape, data_dir, force, progress, goal)
    check_exact_shape(shape)
    directory = store.ensure_writable(store.data_dir(data_dir))
    store.remove_stale_temporaries(directory)
    path = directory / f"exact-{shape}.h5"
    row = {"file": path.name, "kind": "exact", "entries": table_size(shape) * shape.size}
    if os.path.lexists(path) and not force:
        return {**row, "skipped": True, "mb": _mb(path)}
    preflight(shape, None, None, data_dir, force)
    t0 = time.perf_counter()
    default_goal = exact.canonical_goal(shape, shape.size - 1)
    attrs = {
        "kind": names.EXACT,
        "shape": str(shape),
        "goal": default_goal.flat(),
        "layout": names.FULL,
        "tables": "blank_<cell>: distances to the canonical goal with the blank on <cell>",
    }
    max_d, total_d, states = 0, 0, 0
    with store.atomic_h5(path, attrs, size=row["entries"]) as f:
        cells = ProgressBar(
            range(shape.size), desc=f"exact {shape}", unit="goal", disable=not progress
        )
        for cell in cells:
            goal = exact.canonical_goal(shape, cell)
            table, counts = bfs_exact(goal)
            store.write_table(
                f,
                exact.table_name(cell),
                table,
                goal=goal.flat(),
                counts=counts,
                max_distance=len(counts) - 1,
            )
            max_d = max(max_d, len(counts) - 1)
            total_d += int(np.dot(np.arange(len(counts)), counts))
            states += int(counts.sum())
    return {
        **row,
        "skipped": False,
        "mb": _mb(path),
        "max_h": max_d,
        "mean_h": total_d / states,
        "seconds": time.perf_counter() - t0,
        "peak_mb": budget.peak_rss_mb(),
    }


def _mb(path: Path) -> float:
    try:
        return os.lstat(path).st_size / 2**20
    except OSError:
        return 0.0


def build_partition(
    shape: Shape,
    partition: str,
    goal=None,
    data_dir=None,
    force=False,
    progress=True,
    zero_aware=False,
) -> dict:
    """Build the additive pattern database of ``partition`` (a preset such as ``6-6-3`` or
    tiles like ``1,2,3,4/5,6,7,8``) for ``shape`` and ``goal``, or with ``zero_aware`` its
    two-class twin (:mod:`pdb_builder.zero_aware`), once its memory and disk needs are known
    to fit (:mod:`pdb_builder.budget`)."""
    goal_b = goal if isinstance(goal, Board) else goal_board(shape, goal)
    preflight(shape, partition, goal_b, data_dir, force, zero_aware)
    if zero_aware:
        from .zero_aware import build_zero_aware

        return build_zero_aware(shape, partition, goal_b, data_dir, force, progress)
    from .build_apdb import build_apdb

    return build_apdb(shape, partition, goal_b, data_dir, force=force, progress=progress)


def build_step(shape: Shape, step, goal: Board, data_dir=None, progress=True) -> list[dict]:
    """Build what one :class:`pdb_builder.strongest.Step` asks for: the additive database
    and its zero-aware twin from one search where both are to be made, else the one that
    is; the summary rows of both files (a kept one ``skipped``)."""
    name = step.member.partition.name
    if step.additive and step.twin:
        from .zero_aware import build_with_twin

        return list(build_with_twin(shape, name, goal, data_dir, progress))
    # One file is missing (a forced step rebuilds both, above): build it, keep the other.
    return [
        build_partition(shape, name, goal, data_dir, False, progress),
        build_partition(shape, name, goal, data_dir, False, progress, True),
    ]


def preflight(
    shape: Shape,
    partition: str | None,
    goal=None,
    data_dir=None,
    force: bool = False,
    zero_aware: bool = False,
) -> str | None:
    """Refuse, before any work, a build that would not fit in memory or on disk
    (:class:`pdb_builder.budget.BudgetError`); ``partition`` None means the exact tables,
    ``zero_aware`` a partition's two-class twin.  Returns the line that says what the build
    needs (:func:`pdb_builder.budget.check`), None where nothing was checked: compact exact
    tables, or a file that exists and will be kept (no ``force``)."""
    directory = store.data_dir(data_dir)
    probe = directory if directory.is_dir() else Path(os.path.dirname(directory) or ".")
    if partition is None:
        if names.exact_layout(shape) != names.FULL:
            return None  # compact tables (10 to 12 cells): a known, fixed cost (pdb_builder.compact_bfs)
        check_exact_shape(shape)
        path, what = directory / names.exact_file_name(shape), f"the exact tables of {shape}"
        cost = budget.exact_cost(shape.size)
    else:
        path, parsed = _pattern_target(shape, partition, goal, directory, zero_aware)
        what = f"partition {parsed.name} of {shape}" + (" (zero-aware)" if zero_aware else "")
        # Priced as built: each pattern by the search pattern_bfs.uses_region picks for it.
        from .pattern_bfs import partition_cost

        cost = partition_cost(shape, [len(p) for p in parsed], 2 if zero_aware else 1)
    if force or not os.path.lexists(path):
        return budget.check(what, cost, _disk_of(probe))
    return None


def _pattern_target(shape: Shape, partition: str, goal, directory: Path, zero_aware: bool):
    """The file a partition's build writes in ``directory``, and the partition parsed."""
    goal_b = goal if isinstance(goal, Board) else goal_board(shape, goal)
    parsed = parse_partition(partition, shape, goal_b)
    kind = names.ZERO_AWARE if zero_aware else names.ADDITIVE
    return directory / names.pattern_file_name(shape, parsed, goal_b, kind), parsed


def _disk_of(probe: Path) -> Path:
    """The nearest existing directory at or above ``probe``: the disk a directory not yet
    made will be created on."""
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    return probe


def check_disk(what: str, disk: int, data_dir=None) -> None:
    """Refuse (:class:`pdb_builder.budget.BudgetError`) files of ``disk`` bytes in all that
    the data directory's disk has no room for (several builds, checked together)."""
    budget.check(what, (0, disk), _disk_of(store.data_dir(data_dir)))


def database_files(data_dir=None) -> list[Path]:
    """The files of the data directory whose names are databases' (any kind of file: a FIFO
    or a directory under such a name is reported, never opened).  Raises DataDirError when
    the directory does not exist."""
    directory = store.existing(store.data_dir(data_dir))
    listed = sorted(os.listdir(directory))
    return [
        directory / n
        for n in listed
        if store.TMP_MARK not in n and names.parse_name(directory / n) is not None
    ]


def list_built(data_dir=None) -> list[dict]:
    """One row per database file in the data directory: what its name says, its size, and
    whether it is sound (its digest proven; only then are its attributes read).  A file that
    is not has the ``status`` ``damaged: <why>`` and the ``fix`` that rebuilds it."""
    rows = []
    for path in database_files(data_dir):
        entry = names.parse_name(path)
        row = {
            "file": path.name,
            "kind": entry.kind,
            "shape": str(entry.shape),
            "partition": entry.partition_name or "",
            "goal": entry.tag,
            "mb": _mb(path),
            "created_by": "",
            "status": "ok",
        }
        try:
            attrs = store.read_root_attrs(path)
            row["created_by"] = attrs.get("created_by", "")
        except store.DatabaseError as e:
            row["status"] = "damaged: " + _why(e, path)
            row["fix"] = entry.fix(data_dir)
        rows.append(row)
    return rows


def _why(e: store.DatabaseError, path: Path) -> str:
    """What is wrong with the file at ``path``, in the words of ``e`` without the path, and
    without the word "damaged" that the status says once already."""
    text = e.args[0].replace(f"database {path}", "").replace(str(path), "").strip(" :")
    text = text.replace(" (damaged)", "").replace("(damaged, ", "(")
    return text or "unreadable"


def verify_all(data_dir=None) -> tuple[list[Path], list[str], list[str]]:
    """Audit every database file in the data directory (:func:`solver.tables.audit.audit`):
    (files checked, problems found, the commands that rebuild the damaged files)."""
    files = database_files(data_dir)
    problems, fixes = [], []
    for path in ProgressBar(
        files, desc="verify", unit="file", disable=None if len(files) > 1 else True, leave=False
    ):
        found = audit.audit(path)
        problems += found
        if found:
            fixes.append(names.parse_name(path).fix(data_dir))
    return files, problems, fixes
