"""Work units: one IDA* iteration cut into subtrees that any worker -- a thread here, a process,
another machine -- can search on its own (layer 3: search).

Everything that crosses a worker boundary is plain data: a :class:`WorkUnit` is the blank's
moves from the start to the subtree's root, a bound is an int, a :class:`UnitResult` is a
solution (or None), the smallest cost that went over the bound, and node counts.  The tables
never travel: each worker opens them itself with :func:`prepare` (memory-mapped, so every
process on a machine shares one copy in the page cache).

The protocol, as :func:`search_units` runs it (any ``map`` will do, e.g. a Dask client's)::

    problem, reduction = prepare(request)             # on every worker too: cheap, cached
    bound = problem.first_bound()
    while True:
        sp = split(problem, bound, want=256)         # the top of the tree, in search order
        if sp.moves is not None: break               # met the goal above the frontier
        results = map(lambda u: run_unit(problem, u, bound), sp.units)
        found = [r.moves for r in results if r.moves is not None]
        if found: break                              # any of them: see below
        bound = problem.next_bound(min([sp.next_f] + [r.next_f for r in results]))
    moves = reduction.moves_back(found[0])           # back to the caller's goal

Every unit of an iteration shares its bound, and the iteration before found nothing within a
smaller one, so *any* solution found within the bound is a shortest one (with ``--weight W``:
at most W times the shortest); a worker that finds one may tell the others to stop.  The units
come in the order the serial search would take them; running them in that order keeps the
nodes of the last iteration close to the serial count.  Moves are in the frame of the plan's
target (``problem.plan.target``); ``reduction.moves_back`` maps them to the caller's goal.

Imports: :mod:`solver.core`, the search's request, plans, weights and walk.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..core.symmetry import Reduction
from . import walk_state
from .plans import choose
from .request import SearchRequest
from .walk import READY, Problem, Walk
from .weights import Weighting

SLICE_NODES = 1 << 16  # nodes per kernel call in a unit: how often `between` is asked
SPLIT_BUDGET = 1 << 30  # a split's walk never stops for its budget: it stops at the frontier


@dataclass(frozen=True)
class WorkUnit:
    """The subtree of an iteration below the node the blank's ``moves`` reach from the
    start (in the plan's frame); ``g`` = its depth."""

    moves: str

    @property
    def g(self) -> int:
        """The depth of the unit's root."""
        return len(self.moves)


@dataclass(frozen=True)
class UnitResult:
    """What searching one unit found: a solution from the start (``moves``, plan frame) or
    None; the smallest cost over the bound (``next_f``, :data:`INFINITE_F` when nothing went
    over); the nodes generated and expanded; ``complete`` False when it was stopped early."""

    moves: str | None
    next_f: int
    generated: int
    expanded: int
    complete: bool = True
    least_h: int = walk_state.INFINITE_F  # the least h of a node it entered (pattern databases)


@dataclass(frozen=True)
class Split:
    """The top of one iteration's tree: the ``units`` below its frontier at ``depth`` (in search
    order), a solution met above the frontier (``moves``), the smallest cost pruned above
    the frontier and the nodes the split generated and expanded."""

    units: list
    moves: str | None
    next_f: int
    generated: int
    expanded: int
    depth: int


INFINITE_F = walk_state.INFINITE_F


def prepare(request: SearchRequest) -> tuple[Problem, Reduction]:
    """The :class:`~solver.search.walk.Problem` of ``request`` with its first plan (a race's
    rivals are not searched in units), and the reduction whose ``moves_back`` maps its moves
    to the request's goal.  Opens the tables if the request has not (raises
    :class:`~solver.tables.store.DatabaseMissing` where there are none)."""
    plan, red = (request.plans or choose(request.goal, request.heuristic))[0]
    weighting = Weighting.of(request.weight)
    return Problem(plan, red.board(request.start).tiles, weighting, request.fsm_depth), red


def split(
    problem: Problem,
    bound: int,
    want: int = 64,
    depth: int = 1,
    walk: Walk | None = None,
    below: WorkUnit | None = None,
) -> Split:
    """Cut the iteration with ``bound`` into at least ``want`` units (when the tree has
    them): the nodes within the bound at the shallowest depth (from ``depth`` on) that has
    that many.  With ``below``, cut that unit's subtree instead (``depth`` past its own)."""
    walk = walk or Walk(problem)
    limit = max(1, problem.depth_limit(bound))
    root = () if below is None else problem.path_of(below.moves)
    generated = expanded = 0
    while True:
        paths = []
        status = walk.enter(root, bound, cut=depth)
        while status in (READY, walk_state.FRONTIER, walk_state.BUDGET_SPENT):
            if status == walk_state.FRONTIER:
                paths.append(walk.path)
            status = walk.run(SPLIT_BUDGET)
        generated += walk.generated
        expanded += walk.expanded
        if status == walk_state.FOUND:
            return Split([], Problem.letters(walk.path), walk.next_f, generated, expanded, depth)
        if len(paths) >= want or depth >= limit or not paths:
            units = [WorkUnit(Problem.letters(p)) for p in paths]
            return Split(units, None, walk.next_f, generated, expanded, depth)
        depth += 1


def run_unit(
    problem: Problem,
    unit: WorkUnit,
    bound: int,
    *,
    between: Callable[[Walk], bool] | None = None,
    walk: Walk | None = None,
    slice_nodes: int = SLICE_NODES,
) -> UnitResult:
    """Search ``unit`` within ``bound``.  ``between(walk)`` is called every ``slice_nodes``
    nodes and stops the unit when it returns False (it may also take work away from the walk
    with ``walk.give_away()``)."""
    walk = walk or Walk(problem)
    status = walk.enter(problem.path_of(unit.moves), bound)
    while status in (READY, walk_state.BUDGET_SPENT):
        if status == walk_state.BUDGET_SPENT and between is not None and not between(walk):
            return UnitResult(None, walk.next_f, walk.generated, walk.expanded, False, walk.least_h)
        status = walk.run(slice_nodes)
    moves = Problem.letters(walk.path) if status == walk_state.FOUND else None
    return UnitResult(moves, walk.next_f, walk.generated, walk.expanded, True, walk.least_h)


def least_by_prefix(least: dict[str, int]) -> dict[str, int]:
    """From each searched unit's least h (by the unit's ``moves``), the least h below every
    prefix of those moves: what :func:`promising_first` looks up, whatever depth the next
    iteration's split reaches."""
    out: dict[str, int] = {}
    for moves, h in least.items():
        for k in range(len(moves) + 1):
            key = moves[:k]
            if h < out.get(key, walk_state.INFINITE_F):
                out[key] = h
    return out


def promising_first(units: list, least: dict[str, int]) -> list:
    """The units of an iteration, those whose subtree came nearest the goal in the iteration
    before first: by the least h of a node entered below the unit's root then (``least``
    from :func:`least_by_prefix`; a unit deeper than those searched takes its ancestor's),
    ties in search order.

    Why: an iteration that fails still walks most of the paths the next one will, and the
    solution's path is cut off only where its f passes the bound -- deep, at a small h.  On
    eight 24-puzzles the last iteration reached its solution after 0.03-0.22 of its nodes in
    this order against 0.13-0.82 in search order, 5.5 times fewer in all
    (docs/research/search.md, section 9).
    Every unit of an iteration shares its bound, so the order changes which shortest solution
    is found first and how soon, never its length."""
    if not least:
        return list(units)

    def key(pair):
        i, unit = pair
        moves = unit.moves
        for k in range(len(moves), -1, -1):
            h = least.get(moves[:k])
            if h is not None:
                return h, i
        return walk_state.INFINITE_F, i

    return [unit for _, unit in sorted(enumerate(units), key=key)]


def search_units(
    request: SearchRequest, mapper=map, want: int = 64, max_iterations: int = 10_000
) -> tuple[str, int, int]:
    """IDA* by the unit protocol above, each iteration's units run by ``mapper(fn, units)``
    (``map``, a process pool's ``map``, a Dask client's ``map`` + ``gather``...; ``fn`` is a
    picklable :class:`UnitTask`).  Returns ``(moves, nodes generated, units run)``, the moves
    towards the request's goal.  A reference for other engines; :mod:`solver.search.parallel` runs the
    same units on threads, with early stops and work sharing."""
    problem, red = prepare(request)
    task = request.bare()  # what travels to the workers: no tables
    bound = problem.first_bound()
    generated = units = 0
    depth = 1
    least: dict[str, int] = {}
    if problem.root_h == 0:
        return "", 0, 0
    for _ in range(max_iterations):
        sp = split(problem, bound, want, depth)
        depth = sp.depth
        generated += sp.generated
        if sp.moves is not None:
            return red.moves_back(sp.moves), generated, units
        order = promising_first(sp.units, least)
        results = list(mapper(UnitTask(task, bound), order))
        least = least_by_prefix({u.moves: r.least_h for u, r in zip(order, results)})
        units += len(sp.units)
        generated += sum(r.generated for r in results)
        found = [r.moves for r in results if r.moves is not None]
        if found:
            return red.moves_back(found[0]), generated, units
        nxt = min([sp.next_f] + [r.next_f for r in results])
        if nxt >= INFINITE_F:
            problem.exhausted()
        bound = problem.next_bound(nxt)
    raise AssertionError(f"no solution after {max_iterations} iterations")


@dataclass(frozen=True)
class UnitTask:
    """``run_unit`` for one iteration as plain data -- the request without its tables
    (:meth:`SearchRequest.bare`) and the bound -- to send to another process or machine;
    calling it with a unit there opens the tables (once per process) and searches the unit."""

    request: SearchRequest
    bound: int

    def __call__(self, unit: WorkUnit) -> UnitResult:
        key = self.request
        problem = _PROBLEMS.get(key)
        if problem is None:
            if len(_PROBLEMS) >= 8:
                _PROBLEMS.clear()
            problem = _PROBLEMS[key] = prepare(self.request)[0]
        return run_unit(problem, unit, self.bound)


_PROBLEMS: dict = {}  # this process's prepared problems, by request
