"""Database file names: what a name says a file holds, and the command that builds it
(layer 1: tables).

A file's name says what it holds, so choosing a database never opens a file (no h5py at
start-up):

* ``exact-<shape>.h5`` -- the exact distance of every state, one table per goal blank cell
  (boards of up to 9 cells: a byte per full permutation, :mod:`solver.tables.exact`);
* ``exact-<shape>-blank<cell>.h5`` -- the compact exact table of one canonical goal (boards of
  10 to 12 cells: :mod:`solver.tables.compact`), whose blank cell stands for every cell a board
  symmetry carries onto it (the four corners share the default goal's table);
* ``apdb-<shape>-<partition>[-<goal tag>].h5`` -- an additive pattern database, where the goal
  tag is empty for the default goal (blank-last), a preset name (``blank-first``, ``snake``,
  ``spiral``) or ``goal-`` and the goal's tiles joined by dots;
* ``zpdb-...`` -- the same database's zero-aware twin (kind :data:`ZERO_AWARE`), read in its
  place by the search (:func:`solver.tables.pattern_db.open_zero_aware`).

This module names files (:func:`exact_file_name`, :func:`apdb_file_name`...), reads names
back (:func:`parse_name` gives an :class:`Entry`) and writes the ``build-pdb`` command that
makes each file, so a missing-database message always names the command for the user's own
goal.  Which file answers a question is :mod:`solver.tables.catalog`'s decision.

Imports: :mod:`solver.core`, :mod:`solver.tables.partitions`.
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
from ..core.symmetry import symmetries
from . import partitions
from .partitions import Partition, parse_partition

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
    elif goal is not None and default_exact_goal(goal):
        goal = None  # a bare build-pdb --shape S builds the table that serves it
    cmd += where_words(shape, goal, data_dir)
    if force:
        cmd.append("--force")
    return " ".join(shlex.quote(word) for word in cmd)


def where_words(shape: Shape, goal: Board | None = None, data_dir=None) -> list[str]:
    """The words of a ``build-pdb`` command that name its goal (none for blank-last: a preset's
    name, else the board) and its data directory (none for the default)."""
    words = []
    if goal is not None and goal != preset_goal(shape):
        tag = goal_tag(goal)
        words += ["--goal", goal.flat() if tag.startswith(CUSTOM_GOAL) else tag]
    if data_dir:
        words += ["--data-dir", str(data_dir)]
    return words


def default_build_command(data_dir=None) -> str:
    """``build-pdb`` with no choice made: the default set of databases (ready to paste)."""
    words = ["build-pdb"] + (["--data-dir", str(data_dir)] if data_dir else [])
    return " ".join(shlex.quote(w) for w in words)


def default_exact_goal(goal: Board) -> bool:
    """True when a bare ``build-pdb --shape S`` builds the exact table serving ``goal``."""
    shape = goal.shape
    return exact_layout(shape) == FULL or table_cell(shape, goal.blank) == shape.size - 1


# --- reading a name back ------------------------------------------------------------------


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
