"""``build-pdb --strongest``: what the strongest set of a shape still needs, and its cost
(builder layer).

The set is :data:`solver.core.config.STRONGEST`'s partitions, each with its zero-aware twin
(:mod:`solver.tables.strongest` names the files).  :func:`plan` says, per partition, which of
the two files a build must make; :func:`estimate` what that will take, before anything is
built: disk from the tables' entry counts (a byte a placement), time and peak memory from
builds measured in docs/research/search.md (sections 8b and 10).  A partition whose two
files are both missing is built by one search per pattern
(:func:`pdb_builder.zero_aware.build_with_twin`): it costs the twin's time alone.

Imports: :mod:`solver.core`, :mod:`solver.tables`, :mod:`pdb_builder`.
"""

from __future__ import annotations

import os
from typing import NamedTuple

from solver.core.board import Board, Shape
from solver.tables import store
from solver.tables.strongest import Member, has_set, members

from .pattern_bfs import partition_cost, thread_count


class Step(NamedTuple):
    """One partition of the set: which of its two files the build makes."""

    member: Member
    additive: bool  # build the additive file
    twin: bool  # build the zero-aware twin


class Measured(NamedTuple):
    """A table's build as measured: seconds on 2 cores and on 16 (None: not measured there),
    and the build's peak memory in bytes (None: not measured; the builder's memory model,
    :func:`pdb_builder.pattern_bfs.partition_cost`, stands in)."""

    two_cores: float
    sixteen_cores: float | None
    peak: int | None


# Per partition, by (shape, kind): its additive file, its twin alone, or both from one search.
# Both from one search, as --strongest builds them, measured with the C builder on 2 cores of
# machine A (docs/research/end-to-end.md, 2026-12-06): the 5x5 set's four partitions in 104 s,
# about 26 s each; 4x4's 7-8 with its twin in 37 s, peak 1.9 GB.  The 5x5 additive and twin
# rows, measured with the earlier builder on 2 and 16 cores (docs/research/search.md,
# sections 8b and 10), stay for the share of a build that more cores do not shorten; where a
# peak was not measured with the C builder, the builder's memory model stands in.
MEASURED = {
    ("5x5", "additive"): Measured((60 + 258) / 4, (25.9 + 56.1) / 4, None),
    ("5x5", "twin"): Measured(118, 199.4 / 4, None),
    ("5x5", "both"): Measured(104 / 4, None, None),
    ("4x4", "additive"): Measured(60, None, None),
    ("4x4", "twin"): Measured(37, None, int(1.9e9)),
}
GB = 1e9


class Estimate(NamedTuple):
    """What a build will take: seconds, bytes of disk, peak bytes of memory, and the cores
    the time is scaled to."""

    seconds: float
    disk: int
    memory: int
    cores: int


def plan(shape: Shape, goal: Board, data_dir=None, force: bool = False) -> list[Step]:
    """Each partition of ``shape``'s strongest set for ``goal``, with the files the build
    must make: the missing ones (every one with ``force``)."""
    directory = store.data_dir(data_dir)
    steps = []
    for m in members(shape, goal):
        additive = force or not os.path.lexists(directory / m.additive)
        twin = force or not os.path.lexists(directory / m.twin)
        steps.append(Step(m, additive, twin))
    return steps


def seconds_on(measured: Measured, serial: float, cores: int) -> float:
    """A build's time on ``cores`` cores: a serial part and a part shared over the cores,
    fitted to the two measurements (Amdahl's law), else ``serial`` (the serial share) of
    the 2-core time.

    >>> round(seconds_on(Measured(100, 40, 0), 0, 2)), round(seconds_on(Measured(100, 40, 0), 0, 16))
    (100, 40)
    """
    if measured.sixteen_cores is not None:
        fixed, parallel = _fit(measured)
    else:
        fixed = serial * measured.two_cores
        parallel = 2 * (measured.two_cores - fixed)
    return fixed + parallel / max(1, cores)


def _fit(measured: Measured) -> tuple[float, float]:
    """``(serial seconds, parallel core-seconds)`` fitted to a build measured on 2 cores and
    on 16 (Amdahl's law)."""
    parallel = (measured.two_cores - measured.sixteen_cores) / (1 / 2 - 1 / 16)
    return measured.two_cores - parallel / 2, parallel


def _serial_share(kind: str) -> float:
    """The share of a build's time that more threads do not shorten, where only 2 cores
    measured it: that of the 5x5 builds of ``kind`` (both measurements exist there)."""
    m = MEASURED[("5x5", kind)]
    return _fit(m)[0] / m.two_cores


def _kind(step: Step) -> str | None:
    """What a step builds: ``both`` files, the ``twin`` or the ``additive`` file (None:
    nothing)."""
    if step.additive and step.twin:
        return "both"
    return "twin" if step.twin else "additive" if step.additive else None


def estimate(shape: Shape, steps: list[Step], cores: int | None = None) -> Estimate:
    """What building ``steps`` will take on ``cores`` (default: the builder's threads)."""
    cores = cores or thread_count()
    seconds, disk, memory = 0.0, 0, 0
    for step in steps:
        sizes = [len(p) for p in step.member.partition]
        model, size = partition_cost(shape, sizes, 1 + step.twin)  # a file's size
        disk += size * (step.additive + step.twin)
        kind = _kind(step)
        if kind is None:
            continue
        # Both files come from one search (pdb_builder.zero_aware.build_with_twin); where that
        # was not measured, the twin's time stands in.
        measured = MEASURED.get((str(shape), kind)) or MEASURED[(str(shape), "twin")]
        seconds += seconds_on(
            measured, _serial_share("additive" if kind == "additive" else "twin"), cores
        )
        memory = max(memory, measured.peak or model)
    return Estimate(seconds, disk, memory, cores)


def describe(shape: Shape, steps: list[Step], est: Estimate) -> list[str]:
    """The lines ``build-pdb --strongest`` says before it builds: the set, what exists,
    what it will build and the estimate."""
    names = ", ".join(s.member.partition.name for s in steps)
    lines = [f"the strongest {shape} set: {names}, each with its zero-aware twin"]
    kept = [
        f
        for s in steps
        for f, build in ((s.member.additive, s.additive), (s.member.twin, s.twin))
        if not build
    ]
    if kept:
        lines.append(f"already built, kept: {', '.join(kept)}")
    todo = [s for s in steps if s.additive or s.twin]
    if not todo:
        lines.append("nothing to build")
        return lines
    for s in todo:
        files = [f for f, b in ((s.member.additive, s.additive), (s.member.twin, s.twin)) if b]
        shared = " (one search for both)" if len(files) == 2 else ""
        lines.append(f"to build: {' and '.join(files)}{shared}")
    lines.append(
        f"estimate: about {_duration(est.seconds)} on {est.cores} core(s), "
        f"{est.disk / GB:.1f} GB of disk, peak memory about {est.memory / GB:.1f} GB "
        f"(an estimate from the builds measured in docs/research/)"
    )
    return lines


def _duration(seconds: float) -> str:
    """``45 s``, ``7 min``, ``1.5 h``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


__all__ = ["Estimate", "Measured", "Step", "describe", "estimate", "has_set", "plan"]
