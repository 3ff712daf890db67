"""The catalog of built databases: which file serves a shape and goal (layer 1: tables).

One place decides "which table answers this question?": the search (IDA*, A*), ``heuristic``,
``check``, the batch commands and the builder all ask this module.  It scans the data
directory once per change of the directory (file names say what each file holds:
:mod:`solver.tables.names`) and resolves questions against that scan.

:func:`resolve` picks, for a shape and a goal, the goal's own database first (the strongest, or
the partition asked for), then one built for another goal that a board symmetry and a tile
renaming carry the goal onto (:mod:`solver.core.symmetry`), else raises
:class:`~solver.tables.store.DatabaseMissing` with the command that builds the goal's own.
:func:`choose` answers everything one IDA* search needs in one question (:class:`Choice`).
Whether the chosen file is sound is decided when it is opened (:mod:`solver.tables.store`).

Partitions arrive here parsed (:class:`~solver.tables.partitions.Partition`, as tiles of the
caller's goal); the words the caller wrote are only repeated in messages.

Imports: :mod:`solver.core`, :mod:`solver.tables` (store, partitions, names).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..core import config
from ..core.board import Board, Shape, preset_goal
from ..core.symmetry import Reduction, reduction
from . import partitions, store
from .names import (
    ADDITIVE,
    COMPACT,
    EXACT,
    Entry,
    build_command,
    canonical_goal,
    default_exact_goal,
    exact_layout,
    parse_name,
)
from .partitions import Partition


def fix_for(database: str | os.PathLike, data_dir=None) -> str | None:
    """The command that rebuilds the database file ``database`` (a path, or a bare file name
    looked up among the files scanned so far), or None when the name is not one of ours.
    For a search that finds a table inconsistent long after the catalog chose it."""
    path = Path(database)
    if path.parent == Path("."):
        scanned = [e for _, found in _SCANS.values() for e in found if e.path.name == path.name]
        if data_dir is None and scanned:
            return scanned[0].fix(scanned[0].path.parent)
        path = store.data_dir(data_dir) / path.name
    entry = parse_name(path)
    return entry.fix(data_dir if data_dir is not None else path.parent) if entry else None


def damaged(database: str | os.PathLike, why: str, data_dir=None) -> store.DatabaseCorrupt:
    """The error for a database found inconsistent while it was used (a search that cannot
    reach its bound, a walk that does not descend), naming the file and its fix."""
    return store.DatabaseCorrupt(
        f"{Path(database).name} {why}: the database is damaged", fix_for(database, data_dir)
    )


_SCANS: dict = {}


def scan(data_dir=None) -> tuple[Entry, ...]:
    """Every database file in the data directory (regular or not: a file that cannot be read
    is reported when it is opened, not skipped).  Read once per change of the directory."""
    directory = store.data_dir(data_dir)
    key = str(directory.absolute())
    stamp = store.file_stamp(directory)
    hit = _SCANS.get(key)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    found = []
    if stamp is not None:
        try:
            with os.scandir(directory) as it:
                names = sorted(e.name for e in it)
        except OSError:
            names = []
        for name in names:
            if store.TMP_MARK in name:
                continue
            entry = parse_name(directory / name)
            if entry is not None:
                found.append(entry)
    _SCANS[key] = (stamp, tuple(found))
    return _SCANS[key][1]


def clear_cache() -> None:
    """Forget what was scanned (the next question reads the directory again)."""
    _SCANS.clear()
    _CANDIDATES.clear()


def entries(
    shape: Shape, goal: Board | None = None, data_dir=None, kind: str = ADDITIVE
) -> list[Entry]:
    """The databases built for ``shape`` and exactly ``goal`` (default: blank-last), strongest
    first (exact: the file of the shape, which serves every goal)."""
    goal = goal if goal is not None else preset_goal(shape)
    found = [
        e
        for e in scan(data_dir)
        if e.kind == kind and e.shape == shape and (kind == EXACT or e.goal == goal)
    ]
    return sorted(found, key=lambda e: -e.strength)


def exact_candidates(
    shape: Shape, goal: Board | None = None, data_dir=None
) -> list[tuple[Entry, Reduction]]:
    """Every exact file that answers ``goal`` (default: blank-last), with the reduction of
    ``goal`` onto the goal of the table to read: a full file's table of the goal's own blank
    cell (a tile renaming), or a compact file whose blank cell a board symmetry reaches.
    Files of the shape's own layout come first, then those needing no symmetry."""
    goal = goal if goal is not None else preset_goal(shape)
    preferred = exact_layout(shape) if shape.size <= config.MAX_EXACT_CELLS else COMPACT
    found = []
    for entry in scan(data_dir):
        if entry.kind != EXACT or entry.shape != shape:
            continue
        target = entry.goal if entry.layout == COMPACT else canonical_goal(shape, goal.blank)
        red = reduction(goal, target)
        if red is not None:
            found.append((entry, red))
    found.sort(key=lambda er: (er[0].layout != preferred, er[1].symmetry.name != "identity"))
    return found


def has_exact(shape: Shape, data_dir=None) -> bool:
    """True when any exact file for ``shape`` is built (the shape is answered by tables; a
    goal whose own table is missing is then an exit-3 error naming the command)."""
    return exact_entry(shape, data_dir) is not None


def exact_entry(shape: Shape, data_dir=None, goal: Board | None = None) -> Entry | None:
    """The exact file that serves ``goal`` on ``shape`` -- or, with no goal, any exact file
    of the shape (is the shape answered by tables at all?) -- or None."""
    if goal is None:
        found = [e for e in scan(data_dir) if e.kind == EXACT and e.shape == shape]
        return found[0] if found else None
    found = exact_candidates(shape, goal, data_dir)
    return found[0][0] if found else None


def resolve_exact(shape: Shape, goal: Board, data_dir=None) -> tuple[Entry, Reduction]:
    """The exact file that answers ``goal`` and the reduction of ``goal`` onto the goal of
    its table.  Raises :class:`~solver.tables.store.DatabaseMissing` naming the command that
    builds the table for ``goal``."""
    found = exact_candidates(shape, goal, data_dir)
    if found:
        return found[0]
    raise exact_missing(shape, data_dir, goal)


def _same_partition(entry: Entry, wanted: Partition, red: Reduction) -> bool:
    """Does ``entry`` hold ``wanted`` (tiles of the user's goal), seen through ``red``?"""
    if entry.partition is None:
        return entry.partition_name == wanted.name
    mapped = sorted(sorted(red.relabel[t] for t in p) for p in wanted.patterns)
    return mapped == sorted(list(p) for p in entry.partition.patterns)


# (shape, goal, partition, data_dir) -> (the scan the answer was made from, the answer).  A
# batch asks the same question once per board, and the answer cost 0.1-0.2 ms (the
# reductions); it holds as long as the directory's scan does.
_CANDIDATES: dict = {}
_MAX_REMEMBERED = 256  # questions: a server asked about many goals forgets and starts again


def candidates(
    shape: Shape, goal: Board, partition: Partition | None = None, data_dir=None
) -> list[tuple[Entry, Reduction]]:
    """Every additive database that can answer ``goal``, in the order :func:`resolve` tries
    them: the goal's own files (strongest first), then files of other goals reachable by a
    board symmetry (strongest first); with ``partition`` (tiles of ``goal``) only the files
    holding it."""
    scanned = scan(data_dir)
    key = (shape, goal, partition, None if data_dir is None else str(data_dir))
    hit = _CANDIDATES.get(key)
    if hit is not None and hit[0] is scanned:
        return list(hit[1])
    found = _candidates(shape, goal, partition, scanned)
    if len(_CANDIDATES) >= _MAX_REMEMBERED:
        _CANDIDATES.clear()
    _CANDIDATES[key] = (scanned, tuple(found))
    return found


def _candidates(shape, goal, wanted, scanned) -> list[tuple[Entry, Reduction]]:
    own, other = [], []
    for entry in scanned:
        if entry.kind != ADDITIVE or entry.shape != shape:
            continue
        red = reduction(goal, entry.goal)
        if red is None or (wanted is not None and not _same_partition(entry, wanted, red)):
            continue
        (own if entry.goal == goal else other).append((entry, red))
    default = preset_goal(shape)
    own.sort(key=lambda er: (-er[0].strength, _preset_order(er[0])))
    other.sort(key=lambda er: (-er[0].strength, er[0].goal != default, _preset_order(er[0])))
    return own + other


def _preset_order(entry: Entry) -> int:
    """Among equally strong databases the presets come first, in the order they are defined
    (7-8 before its companion 7-8b), then custom partitions."""
    names = list(partitions.presets(entry.shape))
    return names.index(entry.partition_name) if entry.partition_name in names else len(names)


def resolve(
    shape: Shape,
    goal: Board,
    partition: Partition | None = None,
    data_dir=None,
    named: str | None = None,
) -> tuple[Entry, Reduction]:
    """The additive database that answers ``goal`` on ``shape`` and how to reduce the problem
    to its goal.  ``partition`` (tiles of ``goal``) asks for one partition; ``named`` is how
    the caller wrote it (for the message).

    Raises :class:`~solver.tables.store.DatabaseMissing` naming the command that builds the
    database for ``goal`` itself."""
    found = candidates(shape, goal, partition, data_dir)
    if found:
        return found[0]
    raise missing(shape, goal, _words(partition, named), data_dir)


def _words(partition: Partition | None, named: str | None) -> str | None:
    """The partition as the caller wrote it, else its name (None: none asked for)."""
    if partition is None:
        return None
    return named or partition.name


# The most databases one search takes the maximum of: the 24-puzzle's four cuts drawn for the
# race (6-6-6-6, c, d, e).  Each adds two lookups per child the ones before did not prune.
MAX_COMBINED = 4


@dataclass(frozen=True)
class Choice:
    """Everything the catalog says about one IDA* search, from one scan of the directory.

    ``databases``: the additive databases whose maximum the search reads (one, unless a
    combination was asked for), each with the reduction of the goal onto its goal; empty
    when none is built, and then ``missing`` is the error naming the command that builds
    one.  ``rivals``: the databases a race enters beside the first (:func:`rivals`), each
    with its own reduction.  ``exact_built``: an exact table of the shape is built (a search
    falling back without a database need not suggest one)."""

    databases: tuple = ()
    rivals: tuple = ()
    missing: store.DatabaseMissing | None = None
    exact_built: bool = False


def choose(
    shape: Shape,
    goal: Board,
    wanted: tuple[Partition, ...] = (),
    data_dir=None,
    *,
    named: tuple[str, ...] = (),
    combine: bool = False,
    race: bool = False,
) -> Choice:
    """What a search towards ``goal`` reads: the databases of the partitions ``wanted``
    (tiles of ``goal``; several: their maximum, built for one goal), else :func:`resolve`'s
    choice -- with ``combine`` and every other database of its goal as strong (the cuts
    drawn for the race first, up to :data:`MAX_COMBINED`) -- and, with ``race`` (and neither
    partitions nor ``combine``), the :func:`rivals` a race enters.  ``named``: the words
    each partition was written in, one per partition, for messages.  A missing database is
    returned, not raised (:attr:`Choice.missing`): the search may fall back without one."""
    exact_built = any(e.kind == EXACT and e.shape == shape for e in scan(data_dir))
    try:
        databases = _databases(shape, goal, wanted, data_dir, named, combine)
    except store.DatabaseMissing as e:
        return Choice(missing=e, exact_built=exact_built)
    others = ()
    if race and not wanted and not combine:
        others = tuple(rivals(shape, goal, data_dir)[1:])
    return Choice(tuple(databases), others, None, exact_built)


def _databases(shape, goal, wanted, data_dir, named, combine) -> list[tuple[Entry, Reduction]]:
    """:func:`choose`'s databases (raises :class:`~solver.tables.store.DatabaseMissing`)."""
    words = [_words(p, named[i] if i < len(named) else None) for i, p in enumerate(wanted)]
    if len(wanted) > 1:
        found = [resolve(shape, goal, p, data_dir, words[i]) for i, p in enumerate(wanted)]
        if len({entry.goal for entry, _ in found}) > 1:
            raise store.DatabaseMissing(
                f"the partitions {' and '.join(words)} are not built for one goal in "
                f"{store.data_dir(data_dir)}",
                build_command(shape, words[0], goal, data_dir),
            )
        return found
    partition = wanted[0] if wanted else None
    found = candidates(shape, goal, partition, data_dir)  # resolve()'s choice is the first
    if not found:
        raise missing(shape, goal, words[0] if words else None, data_dir)
    if partition is not None or not combine:
        return found[:1]
    lead = found[0][0]
    companions = [(entry, red) for entry, red in _as_strong(found) if entry.goal == lead.goal]
    # The cuts drawn for the race first: each is the best alone on some boards (6-6-6-6b
    # never is: docs/research/search.md, section 4).
    companions.sort(key=lambda er: not partitions.races(er[0].partition_name))
    return found[:1] + companions[: MAX_COMBINED - 1]


def _as_strong(found: list[tuple[Entry, Reduction]]) -> list[tuple[Entry, Reduction]]:
    """The candidates after the first that are as strong as it (the same table sizes)."""
    return [(entry, red) for entry, red in found[1:] if entry.strength == found[0][0].strength]


# The most databases one search races (solver.search.race): each costs a race of iterations,
# and all of them together stay within this share of the machine's memory.
MAX_RIVALS = 8
RIVALS_MEMORY_SHARE = 0.5


def rivals(shape: Shape, goal: Board, data_dir=None) -> list[tuple[Entry, Reduction]]:
    """The databases a search may race for ``goal`` (``--pick``), each with its own reduction:
    :func:`resolve`'s choice first, then every other one as strong (the same table sizes, cut
    differently) that races (:func:`partitions.races`), of ``goal`` or of a goal a board
    symmetry reaches, as many as :data:`MAX_RIVALS` and the memory allow.  Raises like
    :func:`resolve`."""
    found = candidates(shape, goal, None, data_dir)
    if not found:
        raise missing(shape, goal, None, data_dir)
    same = [
        (entry, red) for entry, red in _as_strong(found) if partitions.races(entry.partition_name)
    ]
    fit = int(RIVALS_MEMORY_SHARE * _physical_memory()) // max(1, found[0][0].strength)  # 1 B each
    return found[:1] + same[: max(0, min(MAX_RIVALS, fit) - 1)]


def _physical_memory() -> int:
    """The machine's memory in bytes."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def missing(shape: Shape, goal: Board, partition: str | None, data_dir) -> store.DatabaseMissing:
    """The error for "no database answers this goal", with the command that builds one
    (``partition``: the one asked for, as the caller wrote it)."""
    what = f"partition {partition}" if partition else "pattern database"
    goal_note = "" if goal == preset_goal(shape) else f" and goal {goal.flat()}"
    return store.DatabaseMissing(
        f"no {what} is built for {shape}{goal_note} in {store.data_dir(data_dir)}",
        build_command(shape, partition, goal, data_dir),
    )


def exact_missing(shape: Shape, data_dir, goal: Board | None = None) -> store.DatabaseMissing:
    """The error for a missing exact table, with the command that builds the one serving
    ``goal``."""
    note = ""
    if goal is not None and exact_layout(shape) == COMPACT and not default_exact_goal(goal):
        note = f" with the blank on cell {goal.blank}"
    return store.DatabaseMissing(
        f"no exact table is built for {shape}{note} in {store.data_dir(data_dir)}",
        build_command(shape, goal=goal, data_dir=data_dir, kind=EXACT),
    )
