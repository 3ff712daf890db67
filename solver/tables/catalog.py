"""The catalog of built databases: which file serves a shape and goal (layer 1: tables).

One place decides "which table answers this question?": the search (IDA*, A*), ``heuristic``,
``check``, the batch commands and the builder (which names its files here) all ask this module
and nothing else.  The catalog owns the file names and the ``build-pdb`` command that makes each
file, so a missing-database message always names the command for the user's own goal.

A file's name says what it holds, so choosing never opens a file (no h5py at start-up):

* ``exact-<shape>.h5`` -- the exact distance of every state, one table per goal blank cell;
* ``apdb-<shape>-<partition>[-<goal tag>].h5`` -- an additive pattern database, where the goal
  tag is empty for the default goal (blank-last), a preset name (``blank-first``, ``snake``,
  ``spiral``) or ``goal-`` and the goal's tiles joined by dots.

:func:`resolve` picks, for a shape and a goal, the goal's own database first (the strongest, or
the partition asked for), then one built for another goal that a board symmetry and a tile
renaming carry the goal onto (:mod:`solver.core.symmetry`), else raises
:class:`~solver.tables.store.DatabaseMissing` with the command that builds the goal's own.
Whether the chosen file is sound is decided when it is opened (:mod:`solver.tables.store`).

Imports: :mod:`solver.core`, :mod:`solver.tables.store`, :mod:`solver.tables.partitions`.
"""
from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from ..core import config
from ..core.board import GOAL_PRESETS, Board, Shape, goal_board
from ..core.symmetry import Reduction, reduction
from . import store
from .partitions import Partition, parse_partition

EXACT = "exact"
ADDITIVE = "additive-pdb"
CUSTOM_GOAL = "goal-"
_APDB_NAME = re.compile(r"apdb-(\d+x\d+)-([0-9][0-9.\-]*?)(?:-(blank-first|snake|spiral|"
                        r"goal-[0-9][0-9.]*))?\.h5")
_EXACT_NAME = re.compile(r"exact-(\d+x\d+)\.h5")


# --- names ---------------------------------------------------------------------------------


def goal_tag(goal: Board) -> str:
    """The goal's part of a file name: '' for the default goal, a preset's name, or ``goal-``
    and the tiles joined by dots (readable back by :func:`goal_from_tag`).

    >>> goal_tag(goal_board("3x3")), goal_tag(goal_board("3x3", "blank-first"))
    ('', 'blank-first')
    >>> goal_tag(goal_board("2x2", "0 2 1 3"))
    'goal-0.2.1.3'
    """
    if goal == goal_board(goal.shape):
        return ""
    for name in GOAL_PRESETS:
        if goal == goal_board(goal.shape, name):
            return name
    return CUSTOM_GOAL + ".".join(map(str, goal.tiles))


def goal_from_tag(shape: Shape, tag: str) -> Board:
    """The goal a file-name tag stands for (inverse of :func:`goal_tag`)."""
    if not tag:
        return goal_board(shape)
    if tag.startswith(CUSTOM_GOAL):
        return Board.from_tiles((int(t) for t in tag[len(CUSTOM_GOAL):].split(".")), shape)
    return goal_board(shape, tag)


def exact_file_name(shape: Shape) -> str:
    """``exact-3x3.h5``: the exact tables of ``shape`` (every goal, by relabelling)."""
    return f"exact-{shape}.h5"


def apdb_file_name(shape: Shape, partition: Partition | str, goal: Board | None = None) -> str:
    """``apdb-4x4-6-6-3.h5``; a goal other than blank-last adds its tag
    (``apdb-4x4-7-8-blank-first.h5``)."""
    name = partition.name if isinstance(partition, Partition) else str(partition)
    tag = goal_tag(goal) if goal is not None else ""
    return f"apdb-{shape}-{name}{'-' + tag if tag else ''}.h5"


def build_command(shape: Shape, partition: str | None = None, goal: Board | None = None,
                  data_dir=None, force: bool = False, kind: str = ADDITIVE) -> str:
    """The ``build-pdb`` command that builds the database asked for, ready to paste into a
    shell: the shape's default partition when ``partition`` is None, ``--goal`` for a goal
    other than blank-last, ``--data-dir`` when one was named, ``--force`` to replace a file
    that exists."""
    cmd = ["build-pdb", "--shape", str(shape)]
    if kind == ADDITIVE:
        part = partition or config.DEFAULT_PARTITION.get(str(shape))
        cmd += ["--partition", part or "TILES/TILES"]
        if goal is not None and goal != goal_board(shape):
            tag = goal_tag(goal)
            cmd += ["--goal", goal.flat() if tag.startswith(CUSTOM_GOAL) else tag]
    if data_dir:
        cmd += ["--data-dir", str(data_dir)]
    if force:
        cmd.append("--force")
    return " ".join(shlex.quote(word) for word in cmd)


def default_build_command(data_dir=None) -> str:
    """``build-pdb`` with no choice made: the default set of databases (ready to paste)."""
    words = ["build-pdb"] + (["--data-dir", str(data_dir)] if data_dir else [])
    return " ".join(shlex.quote(w) for w in words)


# --- what is built -------------------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    """One database file, as its name describes it."""

    path: Path
    kind: str
    shape: Shape
    tag: str = ""  # the goal's file-name tag (additive databases)
    partition_name: str | None = None

    @cached_property
    def goal(self) -> Board:
        """The goal the database was built for (exact files: the default goal; they hold a
        table per blank cell and serve every goal)."""
        return goal_from_tag(self.shape, self.tag)

    @cached_property
    def partition(self) -> Partition | None:
        """The partition, as tiles of :attr:`goal` (None for exact files or a malformed
        name)."""
        if self.kind != ADDITIVE:
            return None
        try:
            return parse_partition(self.partition_name, self.shape, self.goal)
        except ValueError:
            return None

    @cached_property
    def strength(self) -> int:
        """Table entries: the more, the better the heuristic (exact tables beat every PDB)."""
        if self.kind == EXACT:
            return 1 << 62
        return self.partition.entries(self.shape) if self.partition else 0

    def fix(self, data_dir=None) -> str:
        """The command that rebuilds this file."""
        exists = os.path.lexists(self.path)
        return build_command(self.shape, self.partition_name, self.goal, data_dir, exists,
                             self.kind)


def parse_name(path: Path) -> Entry | None:
    """The entry a file name describes, or None for other files."""
    name = path.name
    m = _EXACT_NAME.fullmatch(name)
    if m:
        return _entry(path, EXACT, m.group(1))
    m = _APDB_NAME.fullmatch(name)
    if m:
        return _entry(path, ADDITIVE, m.group(1), m.group(3) or "", m.group(2))
    return None


def _entry(path, kind, shape_text, tag="", partition=None) -> Entry | None:
    try:
        shape = Shape.parse(shape_text)
        entry = Entry(path, kind, shape, tag, partition)
        entry.goal  # a tag that is no goal of this shape: not one of ours
    except ValueError:
        return None
    if kind == ADDITIVE and entry.partition is None:
        return None  # no partition of this shape: not a file build-pdb could have written
    return entry


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
    return store.DatabaseCorrupt(f"{Path(database).name} {why}: the database is damaged",
                                 fix_for(database, data_dir))


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


def entries(shape: Shape, goal: Board | None = None, data_dir=None,
            kind: str = ADDITIVE) -> list[Entry]:
    """The databases built for ``shape`` and exactly ``goal`` (default: blank-last), strongest
    first (exact: the file of the shape, which serves every goal)."""
    goal = goal if goal is not None else goal_board(shape)
    found = [e for e in scan(data_dir) if e.kind == kind and e.shape == shape
             and (kind == EXACT or e.goal == goal)]
    return sorted(found, key=lambda e: -e.strength)


def exact_entry(shape: Shape, data_dir=None) -> Entry | None:
    """The exact-table file of ``shape``, or None when none is built."""
    found = entries(shape, None, data_dir, EXACT)
    return found[0] if found else None


def _same_partition(entry: Entry, wanted: Partition, red: Reduction) -> bool:
    """Does ``entry`` hold ``wanted`` (tiles of the user's goal), seen through ``red``?"""
    if entry.partition is None:
        return entry.partition_name == wanted.name
    mapped = sorted(sorted(red.relabel[t] for t in p) for p in wanted.patterns)
    return mapped == sorted(list(p) for p in entry.partition.patterns)


def candidates(shape: Shape, goal: Board, partition: str | None = None,
               data_dir=None) -> list[tuple[Entry, Reduction]]:
    """Every additive database that can answer ``goal``, in the order :func:`resolve` tries
    them: the goal's own files (strongest first), then files of other goals reachable by a
    board symmetry (strongest first)."""
    wanted = parse_partition(partition, shape, goal) if partition else None
    own, other = [], []
    for entry in scan(data_dir):
        if entry.kind != ADDITIVE or entry.shape != shape:
            continue
        red = reduction(goal, entry.goal)
        if red is None or (wanted is not None and not _same_partition(entry, wanted, red)):
            continue
        (own if entry.goal == goal else other).append((entry, red))
    default = goal_board(shape)
    own.sort(key=lambda er: -er[0].strength)
    other.sort(key=lambda er: (-er[0].strength, er[0].goal != default))
    return own + other


def resolve(shape: Shape, goal: Board, partition: str | None = None,
            data_dir=None) -> tuple[Entry, Reduction]:
    """The additive database that answers ``goal`` on ``shape`` and how to reduce the problem
    to its goal.  ``partition`` (a preset name or tiles of ``goal``) asks for one partition.

    Raises :class:`~solver.tables.store.DatabaseMissing` naming the command that builds the
    database for ``goal`` itself."""
    found = candidates(shape, goal, partition, data_dir)
    if found:
        return found[0]
    raise missing(shape, goal, partition, data_dir)


def missing(shape: Shape, goal: Board, partition: str | None, data_dir) -> store.DatabaseMissing:
    """The error for "no database answers this goal", with the command that builds one."""
    what = f"partition {partition}" if partition else "pattern database"
    goal_note = "" if goal == goal_board(shape) else f" and goal {goal.flat()}"
    return store.DatabaseMissing(
        f"no {what} is built for {shape}{goal_note} in {store.data_dir(data_dir)}",
        build_command(shape, partition, goal, data_dir))


def exact_missing(shape: Shape, data_dir) -> store.DatabaseMissing:
    """The error for a missing exact table, with the command that builds it."""
    return store.DatabaseMissing(f"no exact table is built for {shape} in "
                                 f"{store.data_dir(data_dir)}",
                                 build_command(shape, data_dir=data_dir, kind=EXACT))



__all__ = ["Entry", "scan", "fix_for", "damaged", "parse_name", "entries", "exact_entry", "candidates", "resolve", "missing",
           "exact_missing", "build_command", "default_build_command", "apdb_file_name", "exact_file_name", "goal_tag",
           "goal_from_tag", "clear_cache", "EXACT", "ADDITIVE"]
