"""What an IDA* search needs besides its kernel: move tables, the per-tile tables that turn a
slide into a rank update, and *plans* -- a heuristic made ready for the kernels -- with the
choice of a plan for a goal (layer 3: search; :mod:`solver.search.idastar` runs them).

A plan is plain arrays: for additive pattern databases (and Manhattan distance, which is the
database of one-tile patterns) the joined tables with each pattern's offset, the rank-update
tables for the normal and the mirrored state and the slide geometry; for linear conflict the
Manhattan table and the goal rows and columns.  Choosing a plan: the database the catalog
chooses for the goal (:mod:`solver.tables.catalog`) and the reduction to its goal, else linear
conflict with a notice, or the command that builds one.

Imports: numpy, :mod:`solver.core`, :mod:`solver.tables` -- no numba, so plans are prepared
without the compiler.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field, replace
from typing import NamedTuple

import numpy as np

from ..core import config
from ..core.board import Board, Shape
from ..core.ranking import rank
from ..core.symmetry import Reduction, diagonal_reflection, reduction
from ..tables import pattern_db, store
from ..tables.catalog import MAX_COMBINED

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
# of cells a vertical slide jumps over, as tuples whose lengths numba compiles into the kernel
# as constants, so that the loops over them unroll (with the counts read from arrays at run
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
    (:func:`solver.core.regions.pack_classes`).  The kernel finds a child's class from the
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
    from ..core import regions  # numba: only plans over zero-aware tables need it

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

    width = max(len(look.patterns) for look in lookups)
    moff = np.zeros((len(lookups), width), np.int64)
    if shape.size <= 16:
        return regions.main_by_mask(shape.rows, shape.cols), moff, ()
    sizes = sorted({len(p) for look in lookups for p in look.patterns})
    tables = [regions.main_region_masks(shape.rows, shape.cols, k) for k in sizes]
    start = dict(zip(sizes, np.cumsum([0] + [len(t) for t in tables[:-1]]).tolist()))
    for f, look in enumerate(lookups):
        for p, pt in enumerate(look.patterns):
            moff[f, p] = start[len(pt)]
    return np.concatenate(tables), moff, tuple(range(-(-shape.size // 8)))


# --- heuristic plans -------------------------------------------------------------------------


@dataclass
class Plan:
    """Everything a kernel needs to search towards ``target`` with one heuristic.

    ``name`` is the heuristic as reported (``pdb 6-6-3 + reflection``, ``manhattan``...),
    ``database`` the file name of the tables (None for Manhattan / linear conflict).  A "pdb"
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
        from ..core import regions  # compiled: this plan's kernel needs numba anyway

        z = self.zero
        n = self.shape.size
        index = mask if not z.chunks else regions.set_rank(mask, n, regions.binomials(n))
        in_main = (int(z.main[z.moff[f, p] + index]) >> int(z.bcell[f, blank])) & 1
        return int(regions.class_value(int(table[r]), regions.OTHER - in_main))

    def h(self, tiles) -> int:
        """The heuristic value of the board ``tiles`` ("pdb" plans)."""
        return int(self.ranks(tiles)[1].sum(axis=1).max())


def _readonly(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    if a.flags.writeable:
        a = a.view()
        a.setflags(write=False)
    return a


def _joined_tables(tables: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """One read-only uint8 array holding every pattern table, and each table's offset in it.

    Tables of one opened database file are joined by using the file's bytes as they were
    loaded (mapped or read: :mod:`solver.tables.loading`), without a copy; others are
    concatenated."""
    hit = store.joined(tables)
    if hit is not None:
        return _readonly(hit[0]), hit[1]
    sizes = [len(t) for t in tables]
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    return _readonly(np.concatenate([np.asarray(t, dtype=np.uint8) for t in tables])), offsets


def pdb_plan(
    shape: Shape, target: Board, patterns, tables, *, reflect: bool, name: str, database: str | None
) -> Plan:
    """A plan for additive tables ``tables[i]`` over ``patterns[i]`` (tuples of tiles),
    indexed by :func:`solver.core.ranking.rank` of the pattern tiles' cells in sorted tile order."""
    return combined_plan(
        shape, target, [(patterns, tables)], reflect=reflect, name=name, database=database
    )


def combined_plan(
    shape: Shape,
    target: Board,
    databases,
    *,
    reflect: bool,
    name: str,
    database: str | None,
    zero_aware: bool = False,
) -> Plan:
    """A plan whose heuristic is the maximum of several additive databases, each given as
    ``(patterns, tables)`` (see :func:`pdb_plan`), with each one's mirrored sum too when
    ``reflect`` (and the target has a diagonal reflection).  ``zero_aware``: the tables are
    two-class ones (two distances a placement, packed: :class:`ZeroAware`)."""
    reflection = diagonal_reflection(target) if reflect else None
    relabel = list(reflection.relabel) if reflection is not None else None
    cells = list(reflection.symmetry.cells) if reflection is not None else None
    tables, lookups, frames = [], [], []
    for tab, (patterns, parts) in enumerate(databases):
        patterns = [tuple(sorted(int(t) for t in p)) for p in patterns]
        table, offsets = _joined_tables(list(parts))
        tables.append(table)
        lookups.append(Lookup(patterns, offsets, tab))
        frames.append(frame(shape, patterns))
        if reflection is not None:
            lookups.append(Lookup(patterns, offsets, tab, cells, relabel))
            frames.append(frame(shape, patterns, relabel, cells))
    return Plan(
        "pdb",
        name,
        shape,
        target,
        database,
        reflection is not None,
        tuple(tables),
        lookups,
        stacked(frames, [look.tab for look in lookups]),
        zero=zero_aware_data(shape, lookups) if zero_aware else None,
    )


def manhattan_plan(shape: Shape, target: Board) -> Plan:
    """Manhattan distance as a database of one-tile patterns: tile t's table holds the grid
    distance from each cell to t's goal cell."""
    cols = shape.cols
    home = {t: c for c, t in enumerate(target.tiles)}
    tiles = [t for t in range(1, shape.size)]
    tables = [
        np.array(
            [
                abs(c // cols - home[t] // cols) + abs(c % cols - home[t] % cols)
                for c in range(shape.size)
            ],
            dtype=np.uint8,
        )
        for t in tiles
    ]
    return pdb_plan(
        shape, target, [(t,) for t in tiles], tables, reflect=False, name="manhattan", database=None
    )


def lc_plan(shape: Shape, target: Board) -> Plan:
    """Manhattan distance plus linear conflicts, evaluated by
    :func:`solver.search.kernels.ida_lc`."""
    n, cols = shape.size, shape.cols
    home = [0] * n
    for c, t in enumerate(target.tiles):
        home[t] = c
    md = np.zeros((n, n), dtype=np.int64)
    for t in range(1, n):
        for c in range(n):
            md[t, c] = abs(c // cols - home[t] // cols) + abs(c % cols - home[t] % cols)
    grow = np.array([home[t] // cols if t else -1 for t in range(n)], dtype=np.int64)
    gcol = np.array([home[t] % cols if t else -1 for t in range(n)], dtype=np.int64)
    for a in (md, grow, gcol):
        a.setflags(write=False)
    return Plan(
        "lc", "linear-conflict", shape, target, lines=Lines(md, grow, gcol, shape.rows, shape.cols)
    )


# --- choosing a heuristic --------------------------------------------------------------------

_PDB_PLANS: dict = {}


def clear_cache() -> None:
    """Forget prepared plans (and the opened databases behind them)."""
    _PDB_PLANS.clear()
    _cached_simple_plan.cache_clear()
    pattern_db.clear_cache()


def pdb_plan_from(pdbs: list, reflect: bool, zero_aware: bool | None = False) -> Plan:
    """A plan over opened databases of one goal (the maximum when there are several);
    prepared once per set of opened files.  ``zero_aware`` True or None: over their
    zero-aware twins (:func:`solver.tables.pattern_db.open_zero_aware`) where every one is
    built, else over them -- with True, with a notice naming the command that builds the
    missing twin."""
    notice = None
    if zero_aware is not False:
        try:
            pdbs = [pattern_db.open_zero_aware(p) for p in pdbs]
            zero_aware = True
        except store.DatabaseMissing as e:
            if zero_aware:
                notice = f"{e.args[0]}: searching without it; to build it: {e.fix}"
            zero_aware = False
    key = (tuple(id(p) for p in pdbs), bool(reflect))
    hit = _PDB_PLANS.get(key)
    if hit is not None and all(a is b for a, b in zip(hit[0], pdbs)):
        return replace(hit[1], notice=notice) if notice else hit[1]
    databases = [
        ([tuple(int(t) for t in e.tiles) for e in p.tables], [e.table for e in p.tables])
        for p in pdbs
    ]
    plan = combined_plan(
        pdbs[0].shape,
        pdbs[0].goal,
        databases,
        reflect=reflect,
        name="",
        database=", ".join(p.path.name for p in pdbs),
        zero_aware=zero_aware,
    )
    plan.name = (
        "pdb "
        + " & ".join(p.name for p in pdbs)
        + (" zero-aware" if zero_aware else "")
        + (" + reflection" if plan.reflect else "")
    )
    _PDB_PLANS[key] = (pdbs, plan)  # the pdbs are kept so their ids are never reused
    return replace(plan, notice=notice) if notice else plan


def plan_for(goal: Board, opts) -> tuple[Plan, Reduction]:
    """The plan that solves towards ``goal`` with ``opts.heuristic``, ``opts.partition`` and
    ``opts.reflect``, and the reduction of boards of ``goal`` to the plan's target.

    ``auto``: the pattern database the catalog chooses for the goal (its own, else a symmetric
    one), else linear conflict -- with :attr:`Plan.notice` saying so and naming the command
    that builds a database.  ``pdb``, a named partition, or a shape in
    :data:`~solver.core.config.REQUIRES_PDB` raise :class:`~solver.tables.store.DatabaseMissing`
    instead (on the 15-puzzle IDA* with linear conflict alone takes minutes to hours)."""
    shape = goal.shape
    kind = opts.heuristic
    same = reduction(goal, goal)
    if kind in ("manhattan", "linear-conflict"):
        return _cached_simple_plan(shape, goal.tiles, kind), same
    try:
        pdbs, red = pattern_db.resolve_many(
            shape,
            goal,
            opts.partition,
            opts.data_dir,
            getattr(opts, "combine", False),
            twins=_zero_aware(opts) is not False,
        )
    except store.DatabaseMissing as e:
        if kind == "pdb" or opts.partition or str(shape) in config.REQUIRES_PDB:
            raise
        plan = replace(
            _cached_simple_plan(shape, goal.tiles, "linear-conflict"),
            notice=fallback_notice(e, goal, opts.data_dir),
        )
        return plan, same
    return pdb_plan_from(pdbs, bool(opts.reflect), _zero_aware(opts)), red


def _zero_aware(opts) -> bool | None:
    return getattr(opts, "zero_aware", False)


def rival_plans(goal: Board, opts) -> list[tuple[Plan, Reduction]]:
    """The plans a search races for ``goal`` (:mod:`solver.search.race`), each with its
    reduction: with ``opts.pick``, a pattern-database heuristic, no partition named and no
    ``combine``, every equally strong database built (:func:`catalog.rivals`), and with
    ``opts.pick_max`` their maxima after them (:func:`_maxima`); else the one
    :func:`plan_for` chooses."""
    plain = (
        not getattr(opts, "pick", False)
        or getattr(opts, "combine", False)
        or opts.partition
        or opts.heuristic not in ("auto", "pdb")
    )
    if not plain:
        try:
            found = pattern_db.resolve_rivals(
                goal.shape, goal, opts.data_dir, twins=_zero_aware(opts) is not False
            )
        except store.DatabaseMissing:
            found = []  # plan_for says what is missing, or falls back
        if len(found) > 1:
            reflect, zero = bool(opts.reflect), _zero_aware(opts)
            out = [(pdb_plan_from([pdb], reflect, zero), red) for pdb, red in found]
            if getattr(opts, "pick_max", False):
                out += [(pdb_plan_from(pdbs, reflect, zero), red) for pdbs, red in _maxima(found)]
            return out
    return [plan_for(goal, opts)]


def _maxima(found: list) -> list:
    """The maxima a race enters beside its databases ``found`` (leader first, each with its
    reduction): the leader with each rival of the same goal, then all of those together
    (up to :data:`~solver.tables.catalog.MAX_COMBINED`).  Rivals of another goal are reached
    through another reduction, so they combine with nothing."""
    lead, red = found[0]
    same = [pdb for pdb, _ in found[1:] if pdb.goal == lead.goal]
    pairs = [([lead, pdb], red) for pdb in same]
    every = [lead, *same][:MAX_COMBINED]
    return pairs + ([(every, red)] if len(every) > 2 else [])


def fallback_notice(missing: store.DatabaseMissing, goal: Board, data_dir) -> str:
    """The note of a search that falls back to linear conflict: what is missing, in the
    catalog's words (naming the goal when it is not the default), and what would do better --
    the pattern database's ``build-pdb`` command, and the exact table's where the board is
    small enough for one and none is built; nothing where no database can be built."""
    from ..tables import catalog, exact, partitions

    shape = goal.shape
    said = f"{missing.args[0]}: searching with linear conflict (much slower)"
    if shape.size > partitions.MAX_CELLS:
        return (
            f"{said}; pattern databases are built for boards of up to {partitions.MAX_CELLS} cells"
        )
    said += f"; to build one: {missing.fix}"
    if shape.size <= config.MAX_EXACT_CELLS and not exact.has_table(shape, data_dir):
        command = catalog.build_command(shape, goal=goal, data_dir=data_dir, kind=catalog.EXACT)
        said += f" (or, for instant exact answers: {command})"
    return said


@functools.lru_cache(maxsize=32)
def _cached_simple_plan(shape: Shape, goal_tiles, kind: str) -> Plan:
    target = Board(shape, goal_tiles)
    return manhattan_plan(shape, target) if kind == "manhattan" else lc_plan(shape, target)
