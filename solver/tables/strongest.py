"""The strongest set of databases of a shape, and whether it is built (layer 1: tables).

:data:`solver.core.config.STRONGEST` names, per shape, the partitions that the fastest
measured search reads; each is built with its zero-aware twin, by one command
(``build-pdb --shape S --strongest``).  Here: the files of the set for a goal, which of them
are not built, and the note a search hears where the set would make it much faster
(:func:`advice`).  The builder plans its work from :func:`members`; the search asks
:func:`advice` once, before its first iteration.

Imports: :mod:`solver.core`, :mod:`solver.tables` (catalog, names, partitions).
"""

from __future__ import annotations

import functools
import shlex
from typing import NamedTuple

from ..core import config
from ..core.board import Board, Shape, preset_goal
from . import catalog, names
from .partitions import Partition, parse_partition


class Member(NamedTuple):
    """One partition of a strongest set: the additive file and its zero-aware twin's."""

    partition: Partition
    additive: str  # file name
    twin: str  # file name


def has_set(shape: Shape) -> bool:
    """Whether ``shape`` has a strongest set (``build-pdb --strongest`` builds one)."""
    return str(shape) in config.STRONGEST


def members(shape: Shape, goal: Board | None = None) -> list[Member]:
    """The partitions of ``shape``'s strongest set as tiles of ``goal`` (default:
    blank-last), with their files' names; empty for a shape without a set."""
    return list(_members(shape, goal if goal is not None else preset_goal(shape)))


@functools.lru_cache(maxsize=64)
def _members(shape: Shape, goal: Board) -> tuple[Member, ...]:
    # Asked by every search of a batch (its note): the partitions are read once per goal.
    out = []
    for name in config.STRONGEST.get(str(shape), ()):
        partition = parse_partition(name, shape, goal)
        additive = names.apdb_file_name(shape, partition, goal)
        out.append(Member(partition, additive, names.zpdb_file_name(shape, partition, goal)))
    return tuple(out)


def not_built(shape: Shape, goal: Board, data_dir=None, zero_aware: bool = True) -> list[str]:
    """The files of the strongest set for ``goal`` that the data directory lacks (the twins
    only when ``zero_aware``: a search that never reads them does not miss them)."""
    built = {e.path.name for e in catalog.scan(data_dir)}
    wanted = []
    for m in members(shape, goal):
        wanted += [m.additive, m.twin] if zero_aware else [m.additive]
    return [name for name in wanted if name not in built]


def command(shape: Shape, goal: Board | None = None, data_dir=None) -> str:
    """``build-pdb --shape S --strongest`` for ``goal`` and ``data_dir``, ready to paste."""
    words = ["build-pdb", "--shape", str(shape), "--strongest"]
    words += names.where_words(shape, goal, data_dir)
    return " ".join(shlex.quote(w) for w in words)


def advice(
    shape: Shape,
    goal: Board,
    data_dir=None,
    zero_aware: bool = True,
    served_by: Board | None = None,
) -> str | None:
    """The note a search towards ``goal`` hears where the strongest set is not built: what
    is missing, the command that builds it and the measured gain; None where the shape has
    no set or where it is built, for ``goal`` or for ``served_by`` -- the goal of the
    database the catalog chose, which a symmetry carries onto ``goal``.  The command builds
    the set for ``served_by`` (beside the database the search reads now), else for ``goal``."""
    if not has_set(shape):
        return None
    target = served_by if served_by is not None else goal
    missing = not_built(shape, target, data_dir, zero_aware)
    if not missing or not not_built(shape, goal, data_dir, zero_aware):
        return None
    total = len(members(shape, target)) * (2 if zero_aware else 1)
    return (
        f"{len(missing)} of the {total} databases of the strongest {shape} set are not "
        f"built; with them the search would be much faster "
        f"({gain(shape, target, data_dir, zero_aware)}): {command(shape, target, data_dir)}"
    )


def gain(shape: Shape, goal: Board, data_dir=None, zero_aware: bool = True) -> str:
    """The measured gain of the strongest set over the strongest database built for
    ``goal`` that the records measured (:data:`solver.core.config.STRONGEST_GAIN`), e.g.
    "Korf's 100: 21 ms a board with 6-6-3, 1.3 ms with the set"; the set's own time where
    none of those is built."""
    workload, with_set, baselines = config.STRONGEST_GAIN[str(shape)]
    built = {e.path.name for e in catalog.scan(data_dir)}
    for name, twin, time in baselines:
        partition = parse_partition(name, shape, goal)
        if names.apdb_file_name(shape, partition, goal) not in built:
            continue
        reads_twin = zero_aware and names.zpdb_file_name(shape, partition, goal) in built
        if reads_twin != twin:
            if twin:
                continue  # the twin is not built: the same partition alone comes next
            break  # read with a twin the records did not measure: no baseline to name
        what = f"{name} and its twin" if twin else name
        return f"{workload}: {time} with {what}, {with_set} with the set"
    return f"{workload}: {with_set} with the set"
