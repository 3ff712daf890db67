"""The catalog of built databases: which file serves a shape and goal (layer 1: tables).

One place decides "which table answers this question?": the search (IDA*, A*), ``heuristic``,
``check``, the batch commands and the builder (which names its files here) all ask this module
and nothing else.  The catalog owns the file names and the ``build-pdb`` command that makes each
file, so a missing-database message always names the command for the user's own goal.

A file's name says what it holds, so choosing never opens a file (no h5py at start-up):

* ``exact-<shape>.h5`` -- the exact distance of every state, one table per goal blank cell
  (boards of up to 9 cells: a byte per full permutation, :mod:`solver.tables.exact`);
* ``exact-<shape>-blank<cell>.h5`` -- the compact exact table of one canonical goal (boards of
  10 to 12 cells: :mod:`solver.tables.compact`), whose blank cell stands for every cell a board
  symmetry carries onto it (the four corners share the default goal's table);
* ``apdb-<shape>-<partition>[-<goal tag>].h5`` -- an additive pattern database, where the goal
  tag is empty for the default goal (blank-last), a preset name (``blank-first``, ``snake``,
  ``spiral``) or ``goal-`` and the goal's tiles joined by dots;
* ``zpdb-...`` -- the same database's zero-aware twin (kind :data:`ZERO_AWARE`), read in its
  place by the search (:func:`solver.tables.pattern_db.open_zero_aware`), never chosen here.

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
from ..core.board import GOAL_PRESETS, Board, Shape, preset_goal
from ..core.symmetry import Reduction, reduction, symmetries
from . import partitions, store
from .partitions import Partition, PartitionError, parse_partition

EXACT = "exact"
ADDITIVE = "additive-pdb"
ZERO_AWARE = "zero-aware-pdb"  # an additive database's two-class twin (zpdb-...: see below)
CUSTOM_GOAL = "goal-"
_APDB_NAME = re.compile(  # a preset may end in a letter: 7-8b, the companion of 7-8
    r"apdb-(\d+x\d+)-([0-9][0-9.\-]*?[a-z]?)(?:-(blank-first|snake|spiral|"
    r"goal-[0-9][0-9.]*))?\.h5"
)
_ZPDB_NAME = re.compile(_APDB_NAME.pattern.replace("apdb-", "zpdb-", 1))
_EXACT_NAME = re.compile(r"exact-(\d+x\d+)(?:-blank(\d+))?\.h5")
FULL, COMPACT = "full", "compact"  # the two layouts of exact tables


# --- names ---------------------------------------------------------------------------------


def goal_tag(goal: Board) -> str:
    """The goal's part of a file name: '' for the default goal, a preset's name, or ``goal-``
    and the tiles joined by dots (readable back by :func:`goal_from_tag`).

    >>> goal_tag(preset_goal(Shape(3, 3))), goal_tag(preset_goal(Shape(3, 3), "blank-first"))
    ('', 'blank-first')
    >>> goal_tag(Board.parse("0 2 1 3", Shape(2, 2)))
    'goal-0.2.1.3'
    """
    if goal == preset_goal(goal.shape):
        return ""
    for name in GOAL_PRESETS:
        if goal == preset_goal(goal.shape, name):
            return name
    return CUSTOM_GOAL + ".".join(map(str, goal.tiles))


def goal_from_tag(shape: Shape, tag: str) -> Board:
    """The goal a file-name tag stands for (inverse of :func:`goal_tag`)."""
    if not tag:
        return preset_goal(shape)
    if tag.startswith(CUSTOM_GOAL):
        return Board.from_tiles((int(t) for t in tag[len(CUSTOM_GOAL) :].split(".")), shape)
    return preset_goal(shape, tag)


def exact_layout(shape: Shape) -> str:
    """How the exact tables of ``shape`` are stored: :data:`FULL` (a byte per full
    permutation, every blank cell in one file) up to ``config.COMPACT_EXACT_CELLS - 1`` cells,
    :data:`COMPACT` (one parity class, half a byte a state, a file per blank cell) from there
    to ``config.MAX_EXACT_CELLS``.  Raises ValueError for larger boards."""
    if shape.size > config.MAX_EXACT_CELLS:
        raise ValueError(
            f"an exact table for {shape} would hold {shape.size}!/2 states; exact tables are "
            f"built for boards of at most {config.MAX_EXACT_CELLS} cells — use pattern "
            f"databases (build-pdb --shape {shape} --partition ...)"
        )
    return COMPACT if shape.size >= config.COMPACT_EXACT_CELLS else FULL


def canonical_goal(shape: Shape, blank_cell: int) -> Board:
    """Tiles ``1..N-1`` in row-major order with the blank on ``blank_cell``: the goal every
    exact table is built for (any other goal is renamed onto it).

    >>> str(canonical_goal(Shape(2, 3), 0)), str(canonical_goal(Shape(2, 3), 5))
    ('0 1 2/3 4 5', '1 2 3/4 5 0')
    """
    tiles = list(range(1, shape.size))
    tiles.insert(blank_cell, 0)
    return Board(shape, tuple(tiles))


def table_cell(shape: Shape, blank_cell: int) -> int:
    """The blank cell of the compact table that serves goals with the blank on
    ``blank_cell``: the largest cell a board symmetry carries it to, so every corner maps to
    the default goal's cell ``N-1``.

    >>> [table_cell(Shape(3, 4), c) for c in (0, 3, 8, 11, 1, 5)]
    [11, 11, 11, 11, 10, 6]
    """
    return max(sym.cells[blank_cell] for sym in symmetries(shape))


def exact_file_name(shape: Shape, goal: Board | None = None) -> str:
    """``exact-3x3.h5`` (every goal, by relabelling) or, for compact shapes,
    ``exact-3x4-blank11.h5``: the table serving ``goal`` (default: blank-last)."""
    if exact_layout(shape) == FULL:
        return f"exact-{shape}.h5"
    cell = table_cell(shape, goal.blank if goal is not None else shape.size - 1)
    return f"exact-{shape}-blank{cell}.h5"


def apdb_file_name(shape: Shape, partition: Partition | str, goal: Board | None = None) -> str:
    """``apdb-4x4-6-6-3.h5``; a goal other than blank-last adds its tag
    (``apdb-4x4-7-8-blank-first.h5``)."""
    name = partition.name if isinstance(partition, Partition) else str(partition)
    tag = goal_tag(goal) if goal is not None else ""
    return f"apdb-{shape}-{name}{'-' + tag if tag else ''}.h5"


def zpdb_file_name(shape: Shape, partition: Partition | str, goal: Board | None = None) -> str:
    """``zpdb-4x4-6-6-3.h5``: the zero-aware twin of :func:`apdb_file_name`'s database (two
    values a placement, by the blank's region: :mod:`pdb_builder.zero_aware`)."""
    return "z" + apdb_file_name(shape, partition, goal)[1:]


def pattern_file_name(
    shape: Shape, partition: Partition | str, goal: Board | None = None, kind: str = ADDITIVE
) -> str:
    """The file of a pattern database of ``kind``: :func:`apdb_file_name` or, for
    :data:`ZERO_AWARE`, :func:`zpdb_file_name`."""
    name = zpdb_file_name if kind == ZERO_AWARE else apdb_file_name
    return name(shape, partition, goal)


def build_command(
    shape: Shape,
    partition: str | None = None,
    goal: Board | None = None,
    data_dir=None,
    force: bool = False,
    kind: str = ADDITIVE,
) -> str:
    """The ``build-pdb`` command that builds the database asked for, ready to paste into a
    shell: the shape's default partition when ``partition`` is None, ``--goal`` for a goal
    other than blank-last, ``--data-dir`` when one was named, ``--force`` to replace a file
    that exists."""
    cmd = ["build-pdb", "--shape", str(shape)]
    if kind in (ADDITIVE, ZERO_AWARE):
        part = partition or config.DEFAULT_PARTITION.get(str(shape))
        cmd += ["--partition", part or partitions.suggested(shape)]
        if kind == ZERO_AWARE:
            cmd.append("--zero-aware")
    elif goal is not None and _default_exact_goal(goal):
        goal = None  # a bare build-pdb --shape S builds the table that serves it
    if goal is not None and goal != preset_goal(shape):
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


def _default_exact_goal(goal: Board) -> bool:
    """True when a bare ``build-pdb --shape S`` builds the exact table serving ``goal``."""
    shape = goal.shape
    return exact_layout(shape) == FULL or table_cell(shape, goal.blank) == shape.size - 1


# --- what is built -------------------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    """One database file, as its name describes it."""

    path: Path
    kind: str
    shape: Shape
    tag: str = ""  # the goal's file-name tag (additive databases)
    partition_name: str | None = None
    cell: int | None = None  # compact exact files: the blank cell of their canonical goal

    @cached_property
    def goal(self) -> Board:
        """The goal the database was built for (full exact files: the default goal; they
        hold a table per blank cell and serve every goal)."""
        if self.cell is not None:
            return canonical_goal(self.shape, self.cell)
        return goal_from_tag(self.shape, self.tag)

    @property
    def layout(self) -> str | None:
        """:data:`FULL` or :data:`COMPACT` for exact files, None for pattern databases."""
        if self.kind != EXACT:
            return None
        return FULL if self.cell is None else COMPACT

    @cached_property
    def partition(self) -> Partition | None:
        """The partition, as tiles of :attr:`goal` (None for exact files or a malformed
        name)."""
        if self.kind not in (ADDITIVE, ZERO_AWARE):
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
        return build_command(
            self.shape, self.partition_name, self.goal, data_dir, exists, self.kind
        )


def parse_name(path: Path) -> Entry | None:
    """The entry a file name describes, or None for other files."""
    name = path.name
    m = _EXACT_NAME.fullmatch(name)
    if m:
        cell = None if m.group(2) is None else int(m.group(2))
        return _entry(path, EXACT, m.group(1), cell=cell)
    for kind, pattern in ((ADDITIVE, _APDB_NAME), (ZERO_AWARE, _ZPDB_NAME)):
        m = pattern.fullmatch(name)
        if m:
            return _entry(path, kind, m.group(1), m.group(3) or "", m.group(2))
    return None


def _entry(path, kind, shape_text, tag="", partition=None, cell=None) -> Entry | None:
    try:
        shape = Shape.parse(shape_text)
        if cell is not None and not 0 <= cell < shape.size:
            return None
        entry = Entry(path, kind, shape, tag, partition, cell)
        _ = entry.goal  # a tag that is no goal of this shape: not one of ours
    except ValueError:
        return None
    if kind in (ADDITIVE, ZERO_AWARE) and entry.partition is None:
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
# reductions, the partitions parsed); it holds as long as the directory's scan does.
_CANDIDATES: dict = {}
_MAX_REMEMBERED = 256  # questions: a server asked about many goals forgets and starts again


def candidates(
    shape: Shape, goal: Board, partition: str | None = None, data_dir=None
) -> list[tuple[Entry, Reduction]]:
    """Every additive database that can answer ``goal``, in the order :func:`resolve` tries
    them: the goal's own files (strongest first), then files of other goals reachable by a
    board symmetry (strongest first)."""
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


def _candidates(shape, goal, partition, scanned) -> list[tuple[Entry, Reduction]]:
    wanted = parse_partition(partition, shape, goal) if partition else None
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
    shape: Shape, goal: Board, partition: str | None = None, data_dir=None
) -> tuple[Entry, Reduction]:
    """The additive database that answers ``goal`` on ``shape`` and how to reduce the problem
    to its goal.  ``partition`` (a preset name or tiles of ``goal``) asks for one partition.

    Raises :class:`~solver.tables.store.DatabaseMissing` naming the command that builds the
    database for ``goal`` itself."""
    found = candidates(shape, goal, partition, data_dir)
    if found:
        return found[0]
    raise missing(shape, goal, partition, data_dir)


# The most databases one search takes the maximum of: the 24-puzzle's four cuts drawn for the
# race (6-6-6-6, c, d, e).  Each adds two lookups per child the ones before did not prune.
MAX_COMBINED = 4


def resolve_many(
    shape: Shape, goal: Board, partition: str | None = None, data_dir=None, combine: bool = False
) -> list[tuple[Entry, Reduction]]:
    """The additive databases whose maximum answers ``goal``, each with the reduction of
    ``goal`` onto their common goal: :func:`resolve`'s choice and, with ``combine`` and no
    ``partition``, every other database of the same goal and the same size (as strong,
    differently cut); ``partition`` ``A+B`` names them.  Raises like :func:`resolve`."""
    if partition and "+" in partition:
        parts = partition.split("+")
        if len(parts) > MAX_COMBINED:
            raise PartitionError(f"at most {MAX_COMBINED} databases combine, not {partition}")
        found = [resolve(shape, goal, part, data_dir) for part in parts]
        if len({entry.goal for entry, _ in found}) > 1:
            raise store.DatabaseMissing(
                f"the partitions {partition} are not built for one goal in "
                f"{store.data_dir(data_dir)}",
                build_command(shape, parts[0], goal, data_dir),
            )
        return found
    found = candidates(shape, goal, partition, data_dir)  # resolve()'s choice is the first
    if not found:
        raise missing(shape, goal, partition, data_dir)
    if partition or not combine:
        return found[:1]
    lead = found[0][0]
    companions = [(entry, red) for entry, red in _as_strong(found) if entry.goal == lead.goal]
    # The cuts drawn for the race first: each is the best alone on some boards (6-6-6-6b
    # never is: docs/research-table.md, section 4).
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
    symmetry reaches.  Raises like :func:`resolve`."""
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
    """The error for "no database answers this goal", with the command that builds one."""
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
    if goal is not None and exact_layout(shape) == COMPACT and not _default_exact_goal(goal):
        note = f" with the blank on cell {goal.blank}"
    return store.DatabaseMissing(
        f"no exact table is built for {shape}{note} in {store.data_dir(data_dir)}",
        build_command(shape, goal=goal, data_dir=data_dir, kind=EXACT),
    )


__all__ = [
    "Entry",
    "scan",
    "fix_for",
    "damaged",
    "parse_name",
    "entries",
    "exact_entry",
    "exact_candidates",
    "resolve_exact",
    "exact_layout",
    "canonical_goal",
    "table_cell",
    "FULL",
    "COMPACT",
    "candidates",
    "resolve",
    "rivals",
    "missing",
    "exact_missing",
    "build_command",
    "default_build_command",
    "apdb_file_name",
    "exact_file_name",
    "goal_tag",
    "goal_from_tag",
    "clear_cache",
    "EXACT",
    "ADDITIVE",
]
