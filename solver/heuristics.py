"""Heuristics: additive pattern databases (+ reflection), Manhattan distance, linear conflict
(layer 4: tables -> heuristics).

An additive pattern database (``apdb-4x4-7-8.h5``, built by ``build-pdb``) holds one table per
pattern of a partition of the tiles; each entry counts only the moves of that pattern's own
tiles, so the sum over the patterns never exceeds the true distance (every move slides one tile
and is charged to one table at most).  Tables are memory-mapped: loading a 7-8 database takes
milliseconds and costs no memory until entries are read.

The reflection lookup: mirroring a square board across its main diagonal and renaming every
tile t to the goal's tile on the mirror of t's goal cell maps the goal to itself and moves to
moves, so a mirrored position is exactly as far from the goal as the original.  Looking up the
mirrored position in the same tables gives a second admissible value; the heuristic is the
larger of the two (valid for any partition, provided the goal's blank is on the diagonal).

Imports: numpy, :mod:`solver.board`, :mod:`solver.ranking`, :mod:`solver.store`; never numba
and never the builder, so lookups start instantly.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .core import ranking
from .tables import store
from .core.board import BLANK, Board, BoardError, Shape, goal_board
from .core.board import manhattan as _board_manhattan

KIND = "additive-pdb"
FILE_GLOB = "apdb-{shape}-*.h5"
GOAL_PRESETS = ("blank-first", "snake", "spiral")  # named in file names; blank-last is the default
DEFAULT_BUILD = {"4x4": "6-6-3", "3x3": "4-4", "2x3": "3-2"}  # what the fix command suggests
_CACHE: dict = {}


# --- Manhattan distance and linear conflict ---------------------------------------------------


def _as_board(board, shape=None) -> Board:
    return board if isinstance(board, Board) else Board.parse(board, shape)


def manhattan(board, goal=None) -> int:
    """Sum over tiles of the grid distance from their cell to their goal cell.

    >>> manhattan(Board.parse("1 2 3/4 5 6/0 7 8"))
    2
    """
    board = _as_board(board)
    goal = goal_board(board.shape, goal) if not isinstance(goal, Board) else goal
    return _board_manhattan(board, goal)


def _fewest_removals(seq: list[int]) -> int:
    """Fewest items to delete from ``seq`` so that the rest increases (len - LIS)."""
    best: list[int] = []  # best[j] = smallest tail of an increasing subsequence of length j+1
    for v in seq:
        lo, hi = 0, len(best)
        while lo < hi:
            mid = (lo + hi) // 2
            if best[mid] < v:
                lo = mid + 1
            else:
                hi = mid
        if lo == len(best):
            best.append(v)
        else:
            best[lo] = v
    return len(seq) - len(best)


def linear_conflict(board, goal=None) -> int:
    """Manhattan distance plus 2 for each tile that must leave its line: in every row (column),
    among the tiles whose goal is in that row (column), the fewest that must be taken out so
    the others already stand in goal order -- each of those needs two extra moves to step out
    of the line and back.  Admissible and never below Manhattan.

    >>> linear_conflict(Board.parse("3 2 1/4 5 6/7 8 0"))   # 3 and 1 both need to pass 2
    8
    """
    board = _as_board(board)
    goal = goal_board(board.shape, goal) if not isinstance(goal, Board) else goal
    rows, cols = board.shape.rows, board.shape.cols
    home = {t: c for c, t in enumerate(goal.tiles)}
    extra = 0
    for r in range(rows):
        line = [home[t] % cols for t in board.tiles[r * cols:(r + 1) * cols]
                if t != BLANK and home[t] // cols == r]
        extra += _fewest_removals(line)
    for c in range(cols):
        line = [home[t] // cols for t in board.tiles[c::cols]
                if t != BLANK and home[t] % cols == c]
        extra += _fewest_removals(line)
    return _board_manhattan(board, goal) + 2 * extra


# --- additive pattern databases --------------------------------------------------------------


@dataclass
class PatternTable:
    """One pattern's table: ``table[rank(cells of tiles)]`` = moves of these tiles needed."""

    tiles: tuple[int, ...]
    table: np.ndarray  # uint8, memory-mapped

    def value(self, positions) -> int:
        """The entry for a board whose tile t stands on ``positions[t]``."""
        return int(self.table[_rank([positions[t] for t in self.tiles], len(positions))])


def _rank(cells: list[int], n: int) -> int:
    """:func:`solver.ranking.rank` for a short Python list (no numpy per call)."""
    r, used = 0, 0
    for i, v in enumerate(cells):
        below = bin(used & ((1 << v) - 1)).count("1")
        r = r * (n - i) + (v - below)
        used |= 1 << v
    return r


def _mirror(shape: Shape) -> np.ndarray | None:
    """Cell permutation of the reflection across the main diagonal (None if not square)."""
    if shape.rows != shape.cols:
        return None
    c = shape.cols
    return np.array([(i % c) * c + i // c for i in range(shape.size)], np.int64)


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
    reflectable: bool = False
    _mirror: np.ndarray | None = field(default=None, repr=False)
    _relabel: np.ndarray | None = field(default=None, repr=False)
    _stamp: tuple | None = field(default=None, repr=False)

    def __post_init__(self):
        mirror = _mirror(self.shape)
        if mirror is not None and mirror[self.goal.blank] == self.goal.blank:
            home = {t: cell for cell, t in enumerate(self.goal.tiles)}
            relabel = np.zeros(self.shape.size, np.int64)
            for t in range(self.shape.size):
                relabel[t] = self.goal.tiles[mirror[home[t]]]
            self._mirror, self._relabel, self.reflectable = mirror, relabel, True

    def reflected(self, board) -> Board:
        """The mirrored board with the tile names that make the goal its own mirror image."""
        if not self.reflectable:
            raise ValueError(f"the reflection needs a square board with the goal's blank on "
                             f"the main diagonal ({self.name}, goal {self.goal})")
        tiles = self._tiles(board)
        out = [0] * self.shape.size
        for cell, t in enumerate(tiles):
            out[int(self._mirror[cell])] = int(self._relabel[t])
        return Board(self.shape, tuple(out))

    def _tiles(self, board) -> tuple[int, ...]:
        if isinstance(board, Board):
            if board.shape != self.shape:
                raise BoardError(f"board is {board.shape}, the database is for {self.shape}")
            return board.tiles
        tiles = tuple(int(t) for t in board)
        if len(tiles) != self.shape.size:
            raise BoardError(f"a {self.shape} board needs {self.shape.size} tiles, got "
                             f"{len(tiles)}")
        return tiles

    def _sum(self, tiles) -> int:
        positions = [0] * self.shape.size
        for cell, t in enumerate(tiles):
            positions[t] = cell
        return sum(t.value(positions) for t in self.tables)

    def value(self, board, reflect: bool = True) -> int:
        """The heuristic of ``board`` (a :class:`Board` or a flat sequence of tiles)."""
        tiles = self._tiles(board)
        h = self._sum(tiles)
        if reflect and self.reflectable:
            h = max(h, self._sum(self.reflected(tiles).tiles))
        return h

    def values(self, boards, reflect: bool = True) -> np.ndarray:
        """Vectorised :meth:`value` over an ``(m, N)`` array of boards (tiles row-major)."""
        boards = np.asarray(boards, dtype=np.int64)
        if boards.ndim != 2 or boards.shape[1] != self.shape.size:
            raise BoardError(f"expected an (m, {self.shape.size}) array of {self.shape} boards")
        h = self._sums(boards)
        if reflect and self.reflectable:
            h = np.maximum(h, self._sums(self._relabel[boards][:, self._mirror]))
        return h

    def _sums(self, boards: np.ndarray) -> np.ndarray:
        positions = np.argsort(boards, axis=1)  # positions[:, t] = cell of tile t
        total = np.zeros(len(boards), np.int64)
        for t in self.tables:
            ranks = ranking.rank_many(positions[:, list(t.tiles)], self.shape.size)
            total += t.table[ranks]
        return total

    __call__ = value


def goal_tag(shape: Shape | str, goal: Board | None) -> str:
    """Short file-name tag for a goal: '' for the default (blank-last), the preset's name for
    another preset, else ``goal-`` and 8 hex digits of a hash of the tiles.

    >>> goal_tag("3x3", None), goal_tag("3x3", goal_board("3x3", "blank-first"))
    ('', 'blank-first')
    """
    import hashlib

    shape = Shape.parse(shape)
    if goal is None or goal == goal_board(shape):
        return ""
    for name in GOAL_PRESETS:
        if goal == goal_board(shape, name):
            return name
    return "goal-" + hashlib.blake2b(goal.flat().encode(), digest_size=4).hexdigest()


def apdb_file_name(shape: Shape | str, partition: str, goal: Board | None = None) -> str:
    """``apdb-4x4-6-6-3.h5``; a goal other than blank-last adds its tag
    (``apdb-4x4-7-8-blank-first.h5``).  ``partition`` is the partition's name."""
    shape = Shape.parse(shape)
    tag = goal_tag(shape, goal)
    return f"apdb-{shape}-{partition}{'-' + tag if tag else ''}.h5"


def fix_command(shape: Shape, partition: str | None, goal: Board, data_dir=None) -> str:
    """The ``build-pdb`` command that builds the database asked for (default partition of
    the shape when ``partition`` is None)."""
    part = partition or DEFAULT_BUILD.get(str(shape), "<tiles like 1,2,3/4,5,6>")
    cmd = f"build-pdb --shape {shape} --partition {part}"
    if goal != goal_board(shape):
        cmd += f" --goal '{goal.flat()}'"
    if data_dir:
        cmd += f" --data-dir {data_dir}"
    return cmd


def _canonical_patterns(text: str) -> str | None:
    """``1,2,3/4,5`` (or ``1.2.3-4.5``) as sorted tile sets in the ``patterns`` attribute's
    form; None for anything else (a preset name)."""
    import re

    raw = text.strip()
    if re.fullmatch(r"\d+(\.\d+)*(-\d+(\.\d+)*)+", raw) and "." in raw:
        groups = [g.split(".") for g in raw.split("-")]
    elif re.fullmatch(r"[\d\s,/|;]+", raw) and re.search(r"[,/|;\s]", raw):
        groups = [[t for t in re.split(r"[\s,]+", g.strip()) if t]
                  for g in re.split(r"[/|;]", raw)]
    else:
        return None
    pats = sorted(sorted(int(t) for t in g) for g in groups if g)
    return "/".join(",".join(map(str, p)) for p in pats)


def _candidates(shape: Shape, directory: Path) -> list[tuple[Path, dict]]:
    out = []
    if directory.is_dir():
        for path in sorted(directory.glob(FILE_GLOB.format(shape=shape))):
            if store.TMP_MARK in path.name:
                continue
            try:
                attrs = store.read_root_attrs(path)
            except OSError:
                continue
            if attrs.get("kind") == KIND and attrs.get("shape") == str(shape):
                out.append((path, attrs))
    return out


def _strength(attrs: dict, shape: Shape) -> int:
    """Total table entries: bigger patterns, better heuristic (7-8 > 6-6-3 > 5-5-5)."""
    pats = [p.split(",") for p in str(attrs.get("patterns", "")).split("/") if p]
    return sum(ranking.count_placements(shape.size, len(p)) for p in pats)


def built_partitions(shape: Shape | str, data_dir=None, goal=None) -> list[str]:
    """Names of the partitions built for ``shape`` (and ``goal``), strongest first."""
    shape = Shape.parse(shape)
    goal = goal if isinstance(goal, Board) else goal_board(shape, goal)
    found = [(p, a) for p, a in _candidates(shape, store.data_dir(data_dir))
             if a.get("goal") == goal.flat()]
    found.sort(key=lambda pa: -_strength(pa[1], shape))
    return [a.get("partition") for _, a in found]


def _find(shape: Shape, partition: str | None, goal: Board, directory: Path):
    if partition is not None and all(ch.isalnum() or ch in ".-" for ch in partition):
        # The file a build of this name writes: open it even when it is unreadable, so that a
        # damaged file is reported as damaged rather than as missing.
        path = directory / apdb_file_name(shape, partition, goal)
        if path.is_file():
            return path, {"partition": partition}
    found = [(p, a) for p, a in _candidates(shape, directory) if a.get("goal") == goal.flat()]
    if partition is None:
        found.sort(key=lambda pa: -_strength(pa[1], shape))
        return found[0] if found else None
    wanted = _canonical_patterns(partition)
    for path, attrs in found:
        if attrs.get("partition") == partition or (wanted and attrs.get("patterns") == wanted):
            return path, attrs
    return None


def load_apdb(shape: Shape | str, partition: str | None = None, goal=None,
              data_dir=None) -> AdditivePDB:
    """Memory-map the additive pattern database of ``partition`` (a preset name such as
    ``6-6-3`` or tiles ``1,2,3,4/5,6,7,8``; None = the strongest one built) for ``shape`` and
    ``goal`` (default blank-last).  Loaded databases are cached for the process (a file
    rebuilt since is loaded again).

    Raises :class:`solver.store.DatabaseMissing` (nothing built) or
    :class:`solver.store.DatabaseCorrupt` (wrong metadata or table sizes); both carry the
    ``build-pdb`` command that fixes it.
    """
    shape = Shape.parse(shape)
    goal = goal if isinstance(goal, Board) else goal_board(shape, goal)
    if goal.shape != shape:
        raise BoardError(f"the goal is {goal.shape}, not {shape}")
    directory = store.data_dir(data_dir)
    key = (str(shape), partition, goal.tiles, str(directory.resolve()))
    hit = _CACHE.get(key)
    if hit is not None and _stamp(hit.path) == hit._stamp:
        return hit
    fix = fix_command(shape, partition, goal, data_dir)
    hit = _find(shape, partition, goal, directory)
    if hit is None:
        what = f"partition {partition}" if partition else "additive pattern database"
        goal_note = "" if goal == goal_board(shape) else f" and goal {goal.flat()}"
        raise store.DatabaseMissing(f"no {what} built for {shape}{goal_note} in {directory}",
                                    fix)
    path, attrs = hit
    same_file = _CACHE.get((str(path.resolve()), goal.tiles))
    if same_file is not None and _stamp(path) == same_file._stamp:
        _CACHE[key] = same_file
        return same_file
    name = attrs.get("partition", path.stem)
    fix = fix_command(shape, name, goal, data_dir) + " --force"
    opened = store.open_tables(path, {"kind": KIND, "shape": str(shape), "goal": goal.flat()},
                               fix)
    name = opened.attrs.get("partition", name)
    tables = []
    for ds in sorted(opened.tables, key=lambda s: int(s.rsplit("_", 1)[-1])
                     if s.rsplit("_", 1)[-1].isdigit() else 0):
        table = opened.tables[ds]
        tiles = tuple(int(t) for t in np.atleast_1d(opened.table_attrs[ds].get("tiles", ())))
        want = ranking.count_placements(shape.size, len(tiles)) if tiles else -1
        if table.dtype != np.uint8 or table.ndim != 1 or table.size != want:
            raise store.DatabaseCorrupt(f"{path.name}/{ds} has {table.size} entries of "
                                        f"{table.dtype}, expected {want} of uint8", fix)
        tables.append(PatternTable(tiles, table))
    covered = sorted(t for pt in tables for t in pt.tiles)
    if covered != list(range(1, shape.size)):
        raise store.DatabaseCorrupt(f"{path.name}: its patterns do not cover tiles "
                                    f"1..{shape.size - 1} once each", fix)
    pdb = AdditivePDB(shape, goal, name, path, tuple(t.tiles for t in tables), tables)
    pdb._stamp = _stamp(path)
    _CACHE[key] = _CACHE[(str(path.resolve()), goal.tiles)] = pdb
    return pdb


def _stamp(path: Path):
    """What tells a rebuilt file from the one a cached database maps."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns, st.st_size


def clear_cache() -> None:
    """Forget loaded databases (tests rebuild files under the same name)."""
    _CACHE.clear()



# --- one answer, for the CLI and the API --------------------------------------------------------


def evaluate(board, goal=None, partition: str | None = None, reflect: bool = True,
             data_dir=None) -> dict:
    """The pattern-database heuristic of ``board`` with its parts: ``h`` (what a search would
    use), ``plain`` (the additive sum), ``reflected`` (the sum for the mirrored board, None when
    the goal does not allow it), per-pattern values, the partition and file used, plus
    ``manhattan`` and ``linear_conflict`` for comparison.

    A goal without its own database is reduced to the default goal by a board symmetry and a
    relabelling when possible (see :mod:`solver.symmetry`); the values are the same.
    """
    from .core.symmetry import reduce_to

    board = _as_board(board)
    goal = goal if isinstance(goal, Board) else goal_board(board.shape, goal)
    default = goal_board(board.shape)
    try:
        pdb, looked_up = load_apdb(board.shape, partition, goal, data_dir), board
    except store.DatabaseMissing as missing:
        red = reduce_to(board, goal, default) if goal != default else None
        if red is None:
            raise
        try:
            pdb, looked_up = load_apdb(board.shape, partition, default, data_dir), red.start
        except store.DatabaseMissing:
            raise missing from None
    positions = [0] * board.shape.size
    for cell, t in enumerate(looked_up.tiles):
        positions[t] = cell
    parts = [t.value(positions) for t in pdb.tables]
    plain = sum(parts)
    mirrored = pdb.value(pdb.reflected(looked_up), reflect=False) if pdb.reflectable else None
    used = reflect and mirrored is not None
    return {"h": max(plain, mirrored) if used else plain, "plain": plain, "reflected": mirrored,
            "reflect": used, "partition": pdb.name, "database": pdb.path.name,
            "patterns": [{"tiles": ",".join(map(str, t.tiles)), "h": v}
                         for t, v in zip(pdb.tables, parts)],
            "manhattan": manhattan(board, goal), "linear_conflict": linear_conflict(board, goal)}
