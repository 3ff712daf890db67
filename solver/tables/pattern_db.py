"""Additive pattern databases read from disk: lookups, sums and the reflected sum
(layer 1: tables).

An additive pattern database (``apdb-4x4-7-8.h5``, built by ``build-pdb``) holds one table per
pattern of a partition of the tiles; each entry counts only the moves of that pattern's own
tiles, so the sum over the patterns never exceeds the true distance (every move slides one tile
and is charged to one table at most).  Tables are memory-mapped: loading a 7-8 database takes
milliseconds and costs no memory until entries are read.

The reflection lookup (:func:`solver.core.symmetry.diagonal_reflection`) maps a position to its
mirror image, which is exactly as far from the goal; the same tables give a second admissible
value and the heuristic is the larger of the two.

Which file serves a goal is the catalog's decision (:mod:`solver.tables.catalog`); this module
opens what it chose.

Imports: numpy, :mod:`solver.core`, :mod:`solver.tables` (store, catalog).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..core import ranking
from ..core.board import Board, BoardError, Shape, preset_goal
from ..core.packing import VALUE_MASK
from ..core.symmetry import Reduction, diagonal_reflection
from . import catalog, names, store
from .partitions import Partition


@dataclass
class PatternTable:
    """One pattern's table: ``table[rank(cells of tiles)]`` = moves of these tiles needed."""

    tiles: tuple[int, ...]
    table: np.ndarray  # uint8, memory-mapped

    def value(self, positions) -> int:
        """The entry for a board whose tile t stands on ``positions[t]``."""
        cells = np.array([positions[t] for t in self.tiles], dtype=np.int64)
        return int(self.table[ranking.rank(cells, len(positions))])


@dataclass
class AdditivePDB:
    """A loaded additive pattern database: h(board) = sum of its pattern tables' entries,
    and with ``reflect`` the max of that and the same sum for the mirrored board."""

    shape: Shape
    goal: Board
    name: str
    path: Path
    patterns: tuple[tuple[int, ...], ...]
    tables: list[PatternTable]
    reflection: Reduction | None = field(default=None, repr=False)

    def __post_init__(self):
        if self.reflection is None:
            self.reflection = diagonal_reflection(self.goal)

    @property
    def reflectable(self) -> bool:
        """True when the goal allows the mirrored lookup (square board, blank on the
        diagonal)."""
        return self.reflection is not None

    def reflected(self, board) -> Board:
        """The mirrored board with the tile names that make the goal its own mirror image."""
        if self.reflection is None:
            raise ValueError(
                f"the reflection needs a square board with the goal's blank on "
                f"the main diagonal ({self.name}, goal {self.goal})"
            )
        return self.reflection.board(Board(self.shape, self._tiles(board)))

    def _tiles(self, board) -> tuple[int, ...]:
        if isinstance(board, Board):
            if board.shape != self.shape:
                raise BoardError(f"board is {board.shape}, the database is for {self.shape}")
            return board.tiles
        tiles = tuple(int(t) for t in board)
        if len(tiles) != self.shape.size:
            raise BoardError(
                f"a {self.shape} board needs {self.shape.size} tiles, got {len(tiles)}"
            )
        return tiles

    def parts(self, board) -> list[int]:
        """Each pattern's table entry for ``board``."""
        positions = [0] * self.shape.size
        for cell, t in enumerate(self._tiles(board)):
            positions[t] = cell
        return [t.value(positions) for t in self.tables]

    def value(self, board, reflect: bool = True) -> int:
        """The heuristic of ``board`` (a :class:`Board` or a flat sequence of tiles)."""
        h = sum(self.parts(board))
        if reflect and self.reflectable:
            h = max(h, sum(self.parts(self.reflected(board))))
        return h

    def values(self, boards, reflect: bool = True) -> np.ndarray:
        """Vectorised :meth:`value` over an ``(m, N)`` array of boards (tiles row-major)."""
        boards = np.asarray(boards, dtype=np.int64)
        if boards.ndim != 2 or boards.shape[1] != self.shape.size:
            raise BoardError(f"expected an (m, {self.shape.size}) array of {self.shape} boards")
        h = self._sums(boards)
        if reflect and self.reflectable:
            h = np.maximum(h, self._sums(self.reflected_many(boards)))
        return h

    def reflected_many(self, boards: np.ndarray) -> np.ndarray:
        """:meth:`reflected` over the rows of an ``(m, N)`` array."""
        relabel = np.asarray(self.reflection.relabel, dtype=np.int64)
        inverse = np.argsort(np.asarray(self.reflection.symmetry.cells))
        return relabel[boards][:, inverse]

    def _sums(self, boards: np.ndarray) -> np.ndarray:
        positions = np.argsort(boards, axis=1)  # positions[:, t] = cell of tile t
        total = np.zeros(len(boards), np.int64)
        for t in self.tables:
            ranks = ranking.rank_many(positions[:, list(t.tiles)], self.shape.size)
            total += t.table[ranks]
        return total

    __call__ = value


# (path, stamp) -> database: each version of a file opened once.  A batch asks once per board;
# while one stat finds the version opened, the proof, the checks and the fix command (0.1 ms
# together) are not made again.
_OPENED: dict = {}
_TWINS: dict = {}  # (path, stamp, id of the additive database) -> (it, its zero-aware twin)


def open_entry(entry: names.Entry, data_dir=None, twins: bool = False) -> AdditivePDB:
    """Open the database a catalog entry names, checking that its tables are the sizes its
    patterns need and that the patterns cover every tile once (opened once per version of
    the file).  ``twins``: for a search that reads the zero-aware twin where one is built;
    such a database's own bytes are then only mapped, never read in (a batch would otherwise
    copy both files into memory: Korf's 100 with 7-8 took 0.73-2.4 s against 0.63-0.67 s)."""
    load = "map" if twins and _twin_path(entry).exists() else None
    hit = _OPENED.get((entry.path, store.file_stamp(entry.path), load))
    if hit is not None:
        return hit
    fix = entry.fix(data_dir)
    shape, goal = entry.shape, entry.goal
    opened = store.open_tables(
        entry.path, {"kind": names.ADDITIVE, "shape": str(shape), "goal": goal.flat()}, fix, load
    )
    key = (entry.path, opened.stamp, load)
    if key in _OPENED:
        return _OPENED[key]
    tables = []
    for ds in sorted(opened.tables, key=_dataset_order):
        table = opened.tables[ds]
        tiles = tuple(int(t) for t in np.atleast_1d(opened.table_attrs[ds].get("tiles", ())))
        want = ranking.count_placements(shape.size, len(tiles)) if tiles else -1
        if table.dtype != np.uint8 or table.ndim != 1 or table.size != want:
            raise store.DatabaseCorrupt(
                f"{entry.path.name}/{ds} has {table.size} entries of "
                f"{table.dtype}, expected {want} of uint8",
                fix,
            )
        tables.append(PatternTable(tiles, table))
    covered = sorted(t for pt in tables for t in pt.tiles)
    if covered != list(range(1, shape.size)):
        raise store.DatabaseCorrupt(
            f"{entry.path.name}: its patterns do not cover tiles 1..{shape.size - 1} once each", fix
        )
    _check_partition(entry, opened.attrs, tables, fix)
    name = opened.attrs.get("partition", entry.partition_name)
    pdb = AdditivePDB(shape, goal, name, entry.path, tuple(t.tiles for t in tables), tables)
    _OPENED[key] = pdb
    return pdb


def open_zero_aware(pdb: AdditivePDB, data_dir=None) -> AdditivePDB:
    """The zero-aware twin of ``pdb`` (``zpdb-...``, :mod:`pdb_builder.zero_aware`): the same
    patterns in the same order, each table holding a packed byte a placement (the distances
    with the blank in the main region of the free cells and elsewhere:
    :func:`pdb_builder.zero_aware.pack_classes`).  Raises
    :class:`~solver.tables.store.DatabaseMissing` naming the command that builds it, or
    DatabaseCorrupt when its sizes, patterns or goal entries are wrong."""
    entry = names.parse_name(pdb.path)
    path = _twin_path(entry)
    key = (path, store.file_stamp(path), id(pdb))
    if key in _TWINS:
        return _TWINS[key][1]
    fix = names.build_command(
        pdb.shape, entry.partition_name, pdb.goal, data_dir, path.exists(), names.ZERO_AWARE
    )
    if not path.exists():
        raise store.DatabaseMissing(f"no zero-aware twin of {pdb.path.name} ({path.name})", fix)
    opened = store.open_tables(
        path, {"kind": names.ZERO_AWARE, "shape": str(pdb.shape), "goal": pdb.goal.flat()}, fix
    )
    by_tiles = {
        tuple(int(t) for t in np.atleast_1d(opened.table_attrs[ds].get("tiles", ()))): table
        for ds, table in opened.tables.items()
    }
    home = _home_cells(pdb.goal)
    tables = [_twin_table(pt, by_tiles.get(pt.tiles), home, path.name, fix) for pt in pdb.tables]
    twin = AdditivePDB(pdb.shape, pdb.goal, pdb.name, path, pdb.patterns, tables, pdb.reflection)
    _TWINS[key] = (pdb, twin)  # pdb kept alive: its id is part of the key
    return twin


def _twin_path(entry: names.Entry) -> Path:
    """Where the zero-aware twin of the additive database ``entry`` is (or would be)."""
    return entry.path.with_name(names.zpdb_file_name(entry.shape, entry.partition_name, entry.goal))


def _twin_table(pt: PatternTable, table, home: list[int], where: str, fix: str) -> PatternTable:
    """Pattern ``pt``'s two-class table ``table`` (None: the file has none), once it has one
    uint8 entry a placement whose lower distance is 0 at the goal placement (each tile t on
    its cell ``home[t]``)."""
    want = pt.table.size
    if table is None or table.dtype != np.uint8 or table.ndim != 1 or table.size != want:
        raise store.DatabaseCorrupt(
            f"{where} has no table of {want} uint8 entries for tiles "
            f"{','.join(map(str, pt.tiles))}",
            fix,
        )
    twin = PatternTable(pt.tiles, table)
    if twin.value(home) & VALUE_MASK != 0:
        raise store.DatabaseCorrupt(f"{where}: tiles {pt.tiles} not at 0 at home", fix)
    return twin


def _home_cells(goal: Board) -> list[int]:
    """``home[t]``: the cell of tile t in ``goal``."""
    home = [0] * goal.shape.size
    for cell, t in enumerate(goal.tiles):
        home[t] = cell
    return home


def _check_partition(entry: names.Entry, attrs: dict, tables: list[PatternTable], fix: str) -> None:
    """The file holds the partition its name says, and each table belongs to its tiles: the
    entry of the goal placement is 0 (a table stored under another pattern's tiles fails
    this, as does an edited ``tiles`` attribute).  A few lookups, once per opened file."""
    where = entry.path.name
    if attrs.get("partition", entry.partition_name) != entry.partition_name:
        raise store.DatabaseCorrupt(
            f"{where} holds partition {attrs.get('partition')!r}, its "
            f"name says {entry.partition_name!r}",
            fix,
        )
    want = sorted(tuple(p) for p in entry.partition.patterns)
    if sorted(pt.tiles for pt in tables) != want:
        raise store.DatabaseCorrupt(
            f"{where}: its patterns are not those of partition {entry.partition_name}", fix
        )
    home = _home_cells(entry.goal)
    for pt in tables:
        if pt.value(home) != 0:
            raise store.DatabaseCorrupt(
                f"{where}: the table of tiles "
                f"{','.join(map(str, pt.tiles))} does not put their "
                f"goal at 0",
                fix,
            )


def _dataset_order(name: str) -> int:
    tail = name.rsplit("_", 1)[-1]
    return int(tail) if tail.isdigit() else 0


def database_for(
    shape: Shape,
    goal: Board,
    partition: Partition | None = None,
    data_dir=None,
    named: str | None = None,
) -> tuple[AdditivePDB, Reduction]:
    """The database the catalog chooses for ``goal`` (:func:`solver.tables.catalog.resolve`:
    its own, else a symmetric one), opened, and the reduction that maps boards of ``goal``
    onto the database's goal.  ``partition`` (tiles of ``goal``, parsed where the request
    arrived) asks for that one; ``named`` is how the caller wrote it (for the message when it
    is not built)."""
    entry, red = catalog.resolve(shape, goal, partition, data_dir, named)
    return open_entry(entry, data_dir), red


def load_apdb(
    shape: Shape,
    partition: Partition | None = None,
    goal: Board | None = None,
    data_dir=None,
) -> AdditivePDB:
    """The database built for exactly ``goal`` (default blank-last): ``partition`` (tiles of
    ``goal``, as :func:`~solver.tables.partitions.parse_partition` reads a preset such as
    ``6-6-3`` or tiles ``1,2,3,4/5,6,7,8``; None = the strongest built).

    Raises :class:`~solver.tables.store.DatabaseMissing` (nothing built for this goal) or
    :class:`~solver.tables.store.DatabaseCorrupt`; both carry the ``build-pdb`` command that
    fixes it.
    """
    goal = goal if goal is not None else preset_goal(shape)
    if goal.shape != shape:
        raise BoardError(f"the goal is {goal.shape}, not {shape}")
    own = [e for e, red in catalog.candidates(shape, goal, partition, data_dir) if e.goal == goal]
    if not own:
        raise catalog.missing(shape, goal, partition and partition.name, data_dir)
    return open_entry(own[0], data_dir)


def built_partitions(shape: Shape, data_dir=None, goal: Board | None = None) -> list[str]:
    """Names of the partitions built for ``shape`` and exactly ``goal`` (default:
    blank-last), strongest first."""
    return [e.partition_name for e in catalog.entries(shape, goal, data_dir)]


def clear_cache() -> None:
    """Forget opened databases and what the catalog scanned (tests rebuild files)."""
    _OPENED.clear()
    _TWINS.clear()
    store.clear_cache()
    catalog.clear_cache()
