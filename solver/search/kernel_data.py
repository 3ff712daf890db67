"""The arrays an IDA* kernel reads: move tables, the per-tile tables that turn a slide into a
rank update, the zero-aware tables' region data, and the :class:`Plan` that holds them all for
one heuristic (layer 3: search; :mod:`solver.search.plans` makes and chooses plans,
the compiled kernels of
:mod:`solver.engine` read them).

A plan is plain arrays: for additive pattern databases (and Manhattan distance, which is the
database of one-tile patterns) the joined tables with each pattern's offset, the rank-update
tables for the normal and the mirrored state and the slide geometry; for linear conflict the
Manhattan table and the goal rows and columns.

Imports: numpy, :mod:`solver.core`, :mod:`solver.tables.kept_arrays` (region tables kept);
zero-aware tables' region tables are made with numpy.
"""

from __future__ import annotations

import functools
import math
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ..core.board import Board, Shape
from ..core.ranking import rank

# --- move tables -----------------------------------------------------------------------------


class Moves(NamedTuple):
    """Per move id ``m = cell * 4 + direction`` (the blank on ``cell`` travelling U, D, L, R):
    the cell the blank lands on (``nb``, -1 off the board); ``succ[cell * 5 + prev]`` lists the
    move ids from ``cell`` except the one undoing direction ``prev`` (4 at the start), and
    ``succ_n`` how many there are."""

    nb: np.ndarray
    succ: np.ndarray
    succ_n: np.ndarray


@functools.cache
def move_tables(shape: Shape) -> Moves:
    """The move tables of ``shape`` (cached)."""
    n = shape.size
    nb = np.full(n * 4, -1, dtype=np.int64)
    for cell, targets in enumerate(shape.neighbour_table()):
        nb[cell * 4 : cell * 4 + 4] = targets
    succ = np.zeros((n * 5, 4), dtype=np.int64)
    succ_n = np.zeros(n * 5, dtype=np.int64)
    for cell in range(n):
        for prev in range(5):
            k = 0
            for d in range(4):
                if nb[cell * 4 + d] < 0 or (prev < 4 and d == prev ^ 1):
                    continue
                succ[cell * 5 + prev, k] = cell * 4 + d
                k += 1
            succ_n[cell * 5 + prev] = k
    for a in (nb, succ, succ_n):
        a.setflags(write=False)
    return Moves(nb, succ, succ_n)


def rank_delta_tables(shape: Shape, patterns: list[tuple[int, ...]], relabel=None):
    """Per-tile data that turns a one-tile slide into a rank update of a few lookups.

    Returns ``pat[t]`` (pattern of tile t, -1 for the blank), ``wt[t]`` (the weight of t's
    digit: the product of the radices after it) and ``contrib[t, u]``: how a tile u of the same
    pattern, standing on a cell the vertical slide of t jumps over, changes the rank -- u
    before t in the pattern loses t from its count of smaller cells (t's digit drops by one,
    ``-wt[t]``), u after t no longer sees t below it (u's digit grows, ``+wt[u]``).  A slide of
    t from cell a to cell b then changes the rank by
    ``sign(b - a) * (wt[t] * |b - a| + sum of contrib[t, u] over the cells between)``.

    With ``relabel`` the tables describe the mirrored state: tile t stands for ``relabel[t]``.
    """
    n = shape.size
    pat = np.full(n, -1, dtype=np.int64)
    idx = np.zeros(n, dtype=np.int64)
    wt = np.zeros(n, dtype=np.int64)
    for p, tiles in enumerate(patterns):
        k = len(tiles)
        for i, t in enumerate(sorted(tiles)):
            pat[t], idx[t] = p, i
            wt[t] = math.prod(n - j for j in range(i + 1, k))
    contrib = np.zeros((n, n), dtype=np.int64)
    for t in range(1, n):
        for u in range(1, n):
            if u != t and pat[u] == pat[t]:
                contrib[t, u] = -wt[t] if idx[u] < idx[t] else wt[u]
    if relabel is not None:
        r = np.asarray(relabel, dtype=np.int64)
        pat, wt, contrib = pat[r], wt[r], contrib[np.ix_(r, r)]
    for a in (pat, wt, contrib):
        a.setflags(write=False)
    return pat, wt, contrib


def slide_geometry(shape: Shape, cells: list[int] | None = None):
    """Per move id, in the cell numbering ``cells`` (None: the board's own; the mirror's
    otherwise): the sign of the tile's step, its length (1 or ``cols``) and the ``cols - 1``
    cells it jumps over (a horizontal step jumps over none: its list repeats the blank's cell,
    whose tile 0 counts for nothing).  Returns ``sgn, step, btw``."""
    n, cols = shape.size, shape.cols
    cells = list(range(n)) if cells is None else list(cells)
    mt = move_tables(shape)
    sgn = np.zeros(n * 4, dtype=np.int64)
    step = np.zeros(n * 4, dtype=np.int64)
    btw = np.zeros((n * 4, cols - 1), dtype=np.int64)
    for m in range(n * 4):
        b, a = m >> 2, int(mt.nb[m])  # the tile slides from a (the blank's target) to b
        if a < 0:
            continue
        sgn[m] = 1 if cells[b] > cells[a] else -1
        step[m] = abs(cells[b] - cells[a])
        lo, hi = min(cells[a], cells[b]), max(cells[a], cells[b])
        over = [cells[y] for y in range(lo + 1, hi)]  # cells is an involution
        btw[m] = over + [b] * (cols - 1 - len(over))
    for x in (sgn, step, btw):
        x.setflags(write=False)
    return sgn, step, btw


class Frame(NamedTuple):
    """How one slide changes the pattern ranks in one cell numbering (normal or mirrored).

    Per tile t: ``pat[t]`` its pattern (-1 for the blank), ``wt[t]`` the weight of its digit,
    ``contrib[t, u]`` the change a pattern tile u on a cell that t jumps over makes.  Per move
    id m: ``sgn[m]`` the sign of the tile's step, ``step[m]`` its length, ``btw[m]`` the cells
    jumped over (the blank's cell, worth nothing, pads a horizontal step's list)."""

    pat: np.ndarray
    wt: np.ndarray
    contrib: np.ndarray
    sgn: np.ndarray
    step: np.ndarray
    btw: np.ndarray


def frame(shape: Shape, patterns, relabel=None, cells=None) -> Frame:
    """The :class:`Frame` of ``patterns``: the board's own, or with ``relabel`` and ``cells``
    the mirrored state's (tile t stands for ``relabel[t]``, cell c for ``cells[c]``)."""
    return Frame(*rank_delta_tables(shape, patterns, relabel), *slide_geometry(shape, cells))


# Every lookup of a plan, stacked for the kernel: ``Frames.pat[f]`` is :attr:`Frame.pat` of
# lookup f and so on; ``tab[f]`` says which of the plan's ``tables`` lookup f reads.  ``ids``
# is ``(0, 1, ..., f - 1)`` and ``over`` ``(0, 1, ..., cols - 2)``: the number of lookups and
# of cells a vertical slide jumps over, as tuples whose lengths pick the kernel's
# compiled instance, so that the loops over them unroll (with the counts read from arrays at run
# time the kernel took a third longer on Korf's 100 with 6-6-3, and 6 % longer on a 5x5).
Frames = NamedTuple(
    "Frames",
    [*((name, np.ndarray) for name in (*Frame._fields, "tab")), ("ids", tuple), ("over", tuple)],
)


def stacked(frames: list[Frame], tabs: list[int]) -> Frames:
    """The :class:`Frames` of ``frames``, lookup f reading table ``tabs[f]``."""
    arrays = [np.ascontiguousarray(np.stack(same)) for same in zip(*frames)]
    arrays.append(np.asarray(tabs, dtype=np.int64))
    for a in arrays:
        a.setflags(write=False)
    jumped = frames[0].btw.shape[1]
    return Frames(*arrays, tuple(range(len(frames))), tuple(range(jumped)))


class Lookup(NamedTuple):
    """One lookup of a plan, as Python computes its start values: the ``patterns`` (sorted
    tiles), their tables' ``offsets`` in table ``tab`` of the plan, and for a mirrored lookup
    the mirror's ``cells`` and tile names ``relabel`` (None: the board as it is)."""

    patterns: list
    offsets: np.ndarray
    tab: int
    cells: list | None = None
    relabel: list | None = None


class Lines(NamedTuple):
    """Linear conflict's tables: ``md[t, c]`` the grid distance from cell c to tile t's goal
    cell, ``grow[t]``/``gcol[t]`` its goal row and column, and the board's ``rows``/``cols``."""

    md: np.ndarray
    grow: np.ndarray
    gcol: np.ndarray
    rows: int
    cols: int


class ZeroAware(NamedTuple):
    """What the kernels need to read two-class (zero-aware) tables
    (:mod:`pdb_builder.zero_aware`): entry r of a pattern's placement r packs its distances
    with the blank in the main region of the free cells and elsewhere into one byte
    (:func:`pdb_builder.zero_aware.pack_classes`).  The kernel finds a child's class from the
    pattern's cell set, kept per lookup f and pattern p as a mask in f's cell numbering
    (``Node.masks[f, p]``):

    * ``xmask[f, m]``: the two cells (f's numbering) between which move m slides its tile,
      XORed into the moved tile's mask on the way down and back on the way up;
    * ``bcell[f, c]``: board cell c in f's numbering (where the blank is);
    * ``main[moff[f, p] + colex rank of the mask]``: the main region's cells of that set
      (:func:`solver.core.regions.main_region_masks`, one table per pattern size, joined);
      on boards of up to 16 cells ``main[mask]`` (:func:`regions.main_by_mask`: no rank);
    * ``part``/``ones``: the colex rank a byte at a time (:func:`regions.colex_tables`), over
      ``chunks`` = ``(0, 1, ...)``, a byte of cells each: a tuple, so that its length is a
      constant of the compiled kernel and the loop unrolls (4 on 5x5; none where ``main``
      is indexed by the mask)."""

    xmask: np.ndarray
    bcell: np.ndarray
    main: np.ndarray
    moff: np.ndarray
    part: np.ndarray
    ones: np.ndarray
    chunks: tuple


def zero_aware_data(shape: Shape, lookups: list) -> ZeroAware:
    """The :class:`ZeroAware` arrays of a plan's ``lookups`` (two-class tables)."""
    from ..core import regions  # only plans over zero-aware tables need it

    n = shape.size
    mt = move_tables(shape)
    frames_cells = [list(range(n)) if look.cells is None else list(look.cells) for look in lookups]
    xmask = np.zeros((len(lookups), 4 * n), np.int64)
    for f, cells in enumerate(frames_cells):
        for m in range(4 * n):
            if mt.nb[m] >= 0:
                xmask[f, m] = (1 << cells[m >> 2]) | (1 << cells[int(mt.nb[m])])
    bcell = np.array(frames_cells, np.int64)
    main, moff, chunks = _main_tables(shape, lookups)
    part, ones = regions.colex_tables()
    for a in (xmask, bcell, main, moff):
        a.setflags(write=False)
    return ZeroAware(xmask, bcell, main, moff, part, ones, chunks)


def _main_tables(shape: Shape, lookups: list) -> tuple[np.ndarray, np.ndarray, tuple]:
    """``(main, moff, chunks)`` of :class:`ZeroAware`: on boards of up to 16 cells one table
    indexed by the cell set's mask; on larger ones a table per pattern size, indexed by the
    set's colex rank a byte at a time."""
    from ..core import regions

    rows, cols = shape.rows, shape.cols
    width = max(len(look.patterns) for look in lookups)
    moff = np.zeros((len(lookups), width), np.int64)
    if shape.size <= 16:
        return _kept_regions(f"{rows}x{cols}", lambda: regions.main_by_mask(rows, cols)), moff, ()
    sizes = sorted({len(p) for look in lookups for p in look.patterns})
    tables = [
        _kept_regions(f"{rows}x{cols}-{k}", lambda k=k: regions.main_region_masks(rows, cols, k))
        for k in sizes
    ]
    start = dict(zip(sizes, np.cumsum([0] + [len(t) for t in tables[:-1]]).tolist()))
    for f, look in enumerate(lookups):
        for p, pt in enumerate(look.patterns):
            moff[f, p] = start[len(pt)]
    return np.concatenate(tables), moff, tuple(range(-(-shape.size // 8)))


def _kept_regions(name: str, make) -> np.ndarray:
    """A region table kept in npuzzle's cache directory (:mod:`solver.tables.kept_arrays`):
    making the 4x4 one takes 25 ms with numpy, reading it a tenth of a millisecond.  Its name
    carries the CRC-32 of :mod:`solver.core.regions`' source, so a table made another way is
    never read back; without the source at hand it is made every time."""
    from ..core import regions
    from ..tables import kept_arrays

    try:
        source = f"{zlib.crc32(Path(regions.__file__).read_bytes()):08x}"
    except OSError:
        return make()
    return kept_arrays.kept(f"regions-{name}-{source}", make)


# --- heuristic plans -------------------------------------------------------------------------


@dataclass
class Plan:
    """Everything a kernel needs to search towards ``target`` with one heuristic.

    ``name`` is the heuristic as reported (``pdb 6-6-3 + reflection``, ``manhattan``...),
    ``database`` the file name of the tables (None for Manhattan / linear conflict) and
    ``files`` the paths of every database file behind them (a twin's and its own).  A "pdb"
    plan has ``tables`` (one read-only array per database, each holding its pattern tables
    joined) and its ``lookups``: the database's additive sum, its mirrored sum with the
    reflection, and the same for every further database (the heuristic is their maximum);
    ``frames`` are the lookups stacked for the kernel.  An "lc" plan has ``lines``.
    A plan over zero-aware tables (two classes a placement) has ``zero`` (:class:`ZeroAware`).
    """

    kind: str  # "pdb" (also Manhattan) or "lc"
    name: str
    shape: Shape
    target: Board
    database: str | None = None
    reflect: bool = False
    tables: tuple = ()
    lookups: list = field(default_factory=list)
    frames: Frames | None = None
    lines: Lines | None = None
    notice: str | None = None  # said once to the user: e.g. the search fell back
    zero: ZeroAware | None = None
    files: tuple = ()

    @property
    def patterns(self) -> list:
        """The first database's patterns."""
        return self.lookups[0].patterns

    @property
    def deltas(self) -> np.ndarray | None:
        """None for one database; else where each database's table starts, in bytes from the
        first one's: how the kernel reads them all through the first array (the plan keeps
        every table alive).  Worked out at each kernel call, never kept: a plan copied to
        another process has its tables elsewhere, and a kept distance would read there."""
        if len(self.tables) < 2:
            return None
        base = self.tables[0].ctypes.data
        return np.array([t.ctypes.data - base for t in self.tables], dtype=np.int64)

    def ranks(self, tiles) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(ranks, vals, masks)`` of the board ``tiles`` (cell -> tile), each of shape
        ``(lookups, most patterns)``: per lookup f and pattern p the table index (offset
        included; a two-class table has one packed entry a placement too), its value, and
        for two-class tables the cell set of the pattern's tiles in f's
        cell numbering (bit c: cell c; 0 otherwise, and where a lookup has fewer patterns)."""
        # On Python ints: once per search, and numpy's per-element costs made it a tenth of
        # a short search's set-up.
        tiles = [int(t) for t in tiles]
        n = len(tiles)
        pos = [0] * n
        for cell, t in enumerate(tiles):
            pos[t] = cell
        width = max(len(look.patterns) for look in self.lookups)
        ranks = np.zeros((len(self.lookups), width), dtype=np.int64)
        vals = np.zeros((len(self.lookups), width), dtype=np.int64)
        masks = np.zeros((len(self.lookups), width), dtype=np.int64)
        for f, look in enumerate(self.lookups):
            cell_of = pos
            if look.cells is not None:
                # In the mirrored state tile relabel[t] stands on cells[pos[t]].
                cell_of = [0] * n
                for t, named in enumerate(look.relabel):
                    cell_of[named] = look.cells[pos[t]]
            for p, pt in enumerate(look.patterns):
                r = int(look.offsets[p]) + rank([cell_of[t] for t in pt], self.shape.size)
                if self.zero is not None:  # only two-class tables read the cell sets
                    masks[f, p] = sum(1 << cell_of[t] for t in pt)
                ranks[f, p], vals[f, p] = r, self._value(look.tab, r, f, p, masks[f, p], pos[0])
        return ranks, vals, masks

    def _value(self, tab: int, r: int, f: int, p: int, mask: int, blank: int) -> int:
        """Entry ``r`` of table ``tab``; of a two-class table the blank's class (the blank on
        board cell ``blank``, the pattern on the cells ``mask`` of lookup f's numbering)."""
        table = self.tables[tab]
        if self.zero is None:
            return int(table[r])
        from ..core import regions

        z = self.zero
        n = self.shape.size
        index = mask if not z.chunks else regions.set_rank(mask, n, regions.binomials(n))
        in_main = (int(z.main[z.moff[f, p] + index]) >> int(z.bcell[f, blank])) & 1
        return int(regions.class_value(int(table[r]), regions.OTHER - in_main))

    def h(self, tiles) -> int:
        """The heuristic value of the board ``tiles`` ("pdb" plans)."""
        return int(self.ranks(tiles)[1].sum(axis=1).max())
