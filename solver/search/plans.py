"""Plans -- a heuristic made ready for the IDA* kernels -- and the choice of the plans a search
reads (layer 3: search; the arrays are :mod:`solver.search.kernel_data`'s, and
:mod:`solver.search.idastar` runs the plans).

Making a plan: the tables of one or more additive databases joined into one array each, with
the lookups (the sum, and with the reflection the mirrored sum) stacked for the kernel;
Manhattan distance as a database of one-tile patterns; linear conflict's tables.

Choosing: a search says what it wants once, parsed
(:class:`~solver.search.sources.HeuristicSpec`), and :func:`choose` opens the databases and
the race's rivals that :func:`solver.search.sources.choose` chooses and makes their plans --
else the plan of linear conflict, with the notice that says why.

Imports: numpy, :mod:`solver.core`, :mod:`solver.tables`, the kernel data and the choice of
databases (:mod:`solver.search.sources`).
"""

from __future__ import annotations

import functools
from dataclasses import replace

import numpy as np

from ..core.board import Board, Shape, manhattan_table
from ..core.solution import LC_HEURISTIC, MANHATTAN_HEURISTIC
from ..core.symmetry import Reduction, diagonal_reflection, reduction
from ..tables import names, pattern_db, store
from ..tables.catalog import MAX_COMBINED
from . import sources
from .kernel_data import Lines, Lookup, Plan, frame, stacked, zero_aware_data
from .sources import HeuristicSpec

# --- making plans ------------------------------------------------------------------------------


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
    md = manhattan_table(target)
    tiles = [t for t in range(1, shape.size)]
    tables = [np.array(md[t], dtype=np.uint8) for t in tiles]
    return pdb_plan(
        shape,
        target,
        [(t,) for t in tiles],
        tables,
        reflect=False,
        name=MANHATTAN_HEURISTIC,
        database=None,
    )


def lc_plan(shape: Shape, target: Board) -> Plan:
    """Manhattan distance plus linear conflicts, evaluated by
    the compiled kernel ``ida_lc``."""
    n, cols = shape.size, shape.cols
    home = [0] * n
    for c, t in enumerate(target.tiles):
        home[t] = c
    md = np.array(manhattan_table(target), dtype=np.int64)  # the blank's row is zeros
    grow = np.array([home[t] // cols if t else -1 for t in range(n)], dtype=np.int64)
    gcol = np.array([home[t] % cols if t else -1 for t in range(n)], dtype=np.int64)
    for a in (md, grow, gcol):
        a.setflags(write=False)
    return Plan(
        "lc", LC_HEURISTIC, shape, target, lines=Lines(md, grow, gcol, shape.rows, shape.cols)
    )


# --- choosing the plans of a search ----------------------------------------------------------


_PDB_PLANS: dict = {}


def clear_cache() -> None:
    """Forget prepared and chosen plans (and the opened databases behind them)."""
    _PDB_PLANS.clear()
    _CHOSEN.clear()
    _cached_simple_plan.cache_clear()
    pattern_db.clear_cache()


def pdb_plan_from(pdbs: list, reflect: bool, zero_aware: bool = False, data_dir=None) -> Plan:
    """A plan over opened databases of one goal (the maximum when there are several);
    prepared once per set of opened files.  ``zero_aware``: over their zero-aware twins
    (:func:`solver.tables.pattern_db.open_zero_aware`) where every one is built, else over
    them; ``data_dir``: the directory the databases were found in, named in the command that
    rebuilds a damaged twin."""
    twins = _twins(pdbs, data_dir) if zero_aware else None
    zero_aware = twins is not None
    files = tuple(p.path for p in pdbs + (twins or []))
    pdbs = twins or pdbs
    key = (tuple(id(p) for p in pdbs), bool(reflect))
    hit = _PDB_PLANS.get(key)
    if hit is not None and all(a is b for a, b in zip(hit[0], pdbs)):
        return hit[1]
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
    plan.files = files
    plan.name = (
        "pdb "
        + " & ".join(p.name for p in pdbs)
        + (" zero-aware" if zero_aware else "")
        + (" + reflection" if plan.reflect else "")
    )
    _PDB_PLANS[key] = (pdbs, plan)  # the pdbs are kept so their ids are never reused
    return plan


# (goal, heuristic, race, data directory) -> (the stamps of the directory and of the files
# read, the plans).  A batch asks once per board; while one stat of the directory and one of
# each file find them unchanged, the catalog is not asked again (0.1-0.25 ms a board).  The
# only other input of the choice is the machine's memory (how many rivals race).  A batch
# whose lines each name another goal would fill it: it is emptied when full.
_CHOSEN: dict = {}
_CHOSEN_MOST = 256


def choose(
    goal: Board, heuristic: HeuristicSpec, race: bool = False
) -> tuple[tuple[Plan, Reduction], ...]:
    """The plans a search towards ``goal`` reads, each with the reduction of boards of
    ``goal`` to its target: the one it searches with first, then -- with ``race`` and
    ``heuristic.pick``, where equally strong cuts are built -- the rivals of a race
    (:mod:`solver.search.race`), and with ``pick_max`` their maxima (:func:`_maxima`).

    The databases are those :func:`solver.search.sources.choose` chooses for IDA*, opened;
    without one, linear conflict with :attr:`Plan.notice` saying so and naming the command
    that builds a database (or :class:`~solver.tables.store.DatabaseMissing`, where the
    search needs one).  Chosen again only when the data directory or a file read changed."""
    directory = store.data_dir(heuristic.data_dir)
    key = (goal, heuristic, race, directory)
    hit = _CHOSEN.get(key)
    if hit is not None and hit[0] == (store.file_stamp(directory), *_file_stamps(hit[1])):
        return hit[1]
    before = store.file_stamp(directory)  # a file renamed in meanwhile changes it
    chosen = _choose(goal, heuristic, race)
    if len(_CHOSEN) >= _CHOSEN_MOST:
        _CHOSEN.clear()
    _CHOSEN[key] = ((before, *_file_stamps(chosen)), chosen)
    return chosen


def _file_stamps(chosen) -> tuple:
    """The stamps of every file the plans ``chosen`` read."""
    return tuple(store.file_stamp(p) for plan, _ in chosen for p in plan.files)


def _choose(goal: Board, heuristic: HeuristicSpec, race: bool):
    """:func:`choose`, asking the catalog."""
    shape = goal.shape
    same = reduction(goal, goal)
    source = sources.choose(goal, heuristic, sources.IDASTAR, race)
    if not source.databases:
        plan = _cached_simple_plan(shape, goal.tiles, source.kind)
        return ((replace(plan, notice=source.notice) if source.notice else plan, same),)
    found = [(_open(entry, heuristic), red) for entry, red in source.databases]
    reflect, zero, data_dir = heuristic.reflect, heuristic.zero_aware, heuristic.data_dir
    lead = (pdb_plan_from([pdb for pdb, _ in found], reflect, zero, data_dir), found[0][1])
    if source.notice:
        lead = (replace(lead[0], notice=source.notice), lead[1])
    if not source.rivals:
        return (lead,)
    found += [(_open(entry, heuristic), red) for entry, red in source.rivals]
    out = [lead] + [(pdb_plan_from([pdb], reflect, zero, data_dir), red) for pdb, red in found[1:]]
    if heuristic.pick_max:
        out += [(pdb_plan_from(pdbs, reflect, zero, data_dir), red) for pdbs, red in _maxima(found)]
    return tuple(out)


def _twins(pdbs: list, data_dir) -> list | None:
    """The zero-aware twins of ``pdbs``, or None where one of them is not built."""
    try:
        return [pattern_db.open_zero_aware(p, data_dir) for p in pdbs]
    except store.DatabaseMissing:
        return None


def _open(entry: names.Entry, heuristic: HeuristicSpec) -> pattern_db.AdditivePDB:
    """The database ``entry`` names, opened for a search (mapped only, when its zero-aware
    twin will be read instead)."""
    return pattern_db.open_entry(entry, heuristic.data_dir, twins=heuristic.zero_aware)


def _maxima(found: list) -> list:
    """The maxima a race enters beside its databases ``found`` (the incumbent first, each with its
    reduction): the incumbent with each rival of the same goal, then all of those together
    (up to :data:`~solver.tables.catalog.MAX_COMBINED`).  Rivals of another goal are reached
    through another reduction, so they combine with nothing."""
    lead, red = found[0]
    same = [pdb for pdb, _ in found[1:] if pdb.goal == lead.goal]
    pairs = [([lead, pdb], red) for pdb in same]
    every = [lead, *same][:MAX_COMBINED]
    return pairs + ([(every, red)] if len(every) > 2 else [])


@functools.lru_cache(maxsize=32)
def _cached_simple_plan(shape: Shape, goal_tiles, kind: str) -> Plan:
    target = Board(shape, goal_tiles)
    return manhattan_plan(shape, target) if kind == MANHATTAN_HEURISTIC else lc_plan(shape, target)
