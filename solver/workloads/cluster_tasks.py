"""What the workers of a Dask cluster run for one hard board (layer 5: workloads): the probe,
a race's rivals, the split of an iteration into work units and the units themselves, each a
task of plain data -- the request without its tables -- that opens the tables once per worker
process.  The client that submits them and judges their answers is :mod:`.cluster_search`.

Imports: the search's units, parallel pool, race and driver, :mod:`.batch`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

from .. import api
from ..search import race, walk_state
from ..search.driver import SearchSettings, search
from ..search.parallel import in_order
from ..search.request import SearchRequest
from ..search.units import run_unit, split
from ..search.walk import READY, Problem, Walk
from ..search.weights import Weighting
from .batch import LINE_ERRORS, _portable
from .cluster import blamed

PROBE_SECONDS = 0.5  # iterations shorter than this on one worker are never split
# The probe stops at the end of an iteration that took this share of PROBE_SECONDS: IDA*
# iterations grow several-fold each (on the 24-puzzle 5-10x per bound), so the next would
# run past PROBE_SECONDS and be searched twice.
PROBE_GROWTH = 5
PROBE_SLICE = 1 << 18  # nodes between looks at the probe's clock
STOP_CHECK_SECONDS = 0.5  # how often a running unit asks whether the search is over


@dataclass(frozen=True)
class Entrants:
    """The plans a search reads, as the client needs them: their ``names`` and ``databases``
    (the first searches first, then a race's rivals), the ``costs`` of their nodes
    (:func:`solver.search.race.cost`) and the answer's fields every plan shares."""

    names: tuple
    databases: tuple
    costs: tuple
    notice: str | None
    pruning: str
    tables_bytes: int


@dataclass(frozen=True)
class Head:
    """What the probe learned: a solution (``moves``, caller's frame) or the ``bound`` to go
    on with (``done``: the bound of the iteration it ended with, None when it stopped in the
    middle of one), with the search's statistics, its :class:`Entrants` and the bound's
    ``lower_bound`` in moves."""

    moves: str | None
    bound: int
    done: int | None
    root_h: int
    generated: int
    expanded: int
    iterations: int
    entrants: Entrants
    lower_bound: int
    extra: dict = field(default_factory=dict)  # a weighted search's bound and cost rule

    @property
    def weighted(self) -> bool:
        """True for a bounded-suboptimal search (``--weight`` above 1)."""
        return bool(self.extra)


# --- on the workers --------------------------------------------------------------------------

_PLANS: dict = {}  # this process's plans, by request
_PREPARED: dict = {}  # this process's problems, by search and plan


def _plans(request: SearchRequest) -> tuple:
    """The plans of ``request`` (a bare request: chosen and opened once per process)."""
    hit = _PLANS.get(request)
    if hit is None:
        if len(_PLANS) >= 8:
            _PLANS.clear()
        hit = _PLANS[request] = request.with_plans().plans
        if not request.optimal:
            hit = _PLANS[request] = hit[:1]  # a weighted search never races
    return hit


def _prepared(spec: tuple, which: int = 0):
    """The problem of ``spec`` = ``(start, goal, options, bare request)`` searched with its
    plan number ``which`` (0: the first, then a race's rivals), and the reduction that maps
    its moves back to the goal."""
    key = (spec, which)
    hit = _PREPARED.get(key)
    if hit is None:
        if len(_PREPARED) >= 8:
            _PREPARED.clear()
        request = spec[3]
        plan, red = _plans(request)[which]
        weighting = Weighting.of(request.weight)
        problem = Problem(plan, red.board(request.start).tiles, weighting, request.fsm_depth)
        hit = _PREPARED[key] = problem, red
    return hit


def remote(fn, *args):
    """Run on a worker: ``fn(*args)``, a line error it raises returned (portable, a missing
    database naming the worker) instead of raised."""
    try:
        return _portable(fn(*args))
    except LINE_ERRORS as e:
        return _portable(blamed(e))


def _entrants(spec: tuple, problem: Problem) -> Entrants:
    found = _plans(spec[3])
    tables = {id(t): t for p, _ in found for t in p.tables}
    return Entrants(
        tuple(p.name for p, _ in found),
        tuple(p.database for p, _ in found),
        tuple(race.cost(p) for p, _ in found),
        found[0][0].notice,
        problem.machine.name,
        sum(int(t.nbytes) for t in tables.values()),
    )


def probe(
    spec: tuple,
    seconds: float,
    timeout: float | None,
    max_nodes: int | None,
    race_after: int | None = None,
):
    """The whole answer when the board needs no IDA* (an exact table, a teaching search);
    else IDA* alone with the first plan until an iteration has run for ``seconds``, one has
    ended that took ``seconds / PROBE_GROWTH``, the search has generated ``race_after`` nodes
    where rivals are built (at the end of an iteration), or a cap is reached: a
    :class:`Head`."""
    start, goal, opts, request = spec
    if api.resolve_algorithm(start, opts) != "idastar":
        return api.solve(start, goal, options=opts)
    problem, red = _prepared(spec)
    entrants = _entrants(spec, problem)
    weighting = problem.weighting
    extra = (
        {} if weighting is None else {"bound": float(weighting.weight), "weighting": weighting.rule}
    )
    if len(entrants.names) == 1:
        race_after = None
    moves, bound, done, generated, expanded, iterations = _serial(
        problem, seconds, timeout, max_nodes, race_after, request.start_bound
    )
    if moves is not None:
        moves = red.moves_back(moves)
    return Head(
        moves,
        bound,
        done,
        problem.root_h,
        generated,
        expanded,
        iterations,
        entrants,
        problem.lower_bound(bound),
        extra,
    )


def _serial(problem: Problem, seconds: float, timeout, max_nodes, race_after, start_bound=None):
    """IDA* iterations by one walk until a solution or a reason to stop (:func:`probe`):
    ``(moves or None, the bound to go on with, the bound of the iteration it ended with or
    None, generated, expanded, iterations done)``; a resumed search starts at ``start_bound``,
    proven."""
    bound = max(problem.first_bound(), problem.next_bound(start_bound or 0))
    if problem.root_h == 0:
        return "", bound, None, 0, 0, 0
    walk, t0 = Walk(problem), time.perf_counter()
    t_end = t0 + timeout if timeout is not None else float("inf")
    cap = max_nodes if max_nodes is not None else 1 << 62
    generated = expanded = iterations = 0
    done = None
    while True:
        status, t_iteration = walk.enter((), bound), time.perf_counter()
        while status in (READY, walk_state.BUDGET_SPENT):
            now = time.perf_counter()
            if now - t_iteration > seconds or now > t_end or generated + walk.generated >= cap:
                # a long iteration: searched again from the start (and counted) by everyone
                total = generated + walk.generated
                return None, bound, None, total, expanded + walk.expanded, iterations
            status = walk.run(PROBE_SLICE)
        iterations += 1
        generated += walk.generated
        expanded += walk.expanded
        if status == walk_state.FOUND:
            return Problem.letters(walk.path), bound, bound, generated, expanded, iterations
        if walk.next_f >= walk_state.INFINITE_F:
            problem.exhausted()
        done, bound = bound, problem.next_bound(walk.next_f)
        long = time.perf_counter() - t_iteration >= seconds / PROBE_GROWTH
        if long or (race_after is not None and generated >= race_after):
            return None, bound, done, generated, expanded, iterations


def rival_task(spec: tuple, which: int, stop_bound: int, cap: int, timeout: float | None):
    """A race's rival (plan number ``which``) searched up to ``stop_bound``, stopped after
    ``cap`` nodes (where it can no longer win) or ``timeout`` seconds: its
    :class:`~solver.search.driver.SearchResult`, ``paused`` set where it reached the bound."""
    problem, _ = _prepared(spec, which)
    request = spec[3]
    settings = SearchSettings(timeout=timeout, max_nodes=cap, fsm_depth=request.fsm_depth)
    return search(problem.plan, problem.start, settings, race.RaceRule(stop_bound=stop_bound))


def split_task(spec: tuple, which: int, f: int, want: int, depth: int, least: dict, jobs: int):
    """The iteration after one whose smallest pruned cost was ``f`` (or a bound), searched with
    plan number ``which``: ``(bound, its lower bound in moves, its bound in moves, the Split)``,
    its units in the order the workers take them (:func:`solver.search.parallel.in_order`
    with the previous iteration's ``least`` h by prefix, for ``jobs`` worker threads); a
    solution above the frontier mapped to the caller's goal."""
    problem, red = _prepared(spec, which)
    bound = problem.next_bound(f)
    walk = Walk(problem)
    sp = in_order(problem, bound, split(problem, bound, want, depth, walk), least, jobs, walk)
    if sp.moves is not None:
        sp = replace(sp, moves=red.moves_back(sp.moves))
    return bound, problem.lower_bound(bound), problem.in_moves(bound), sp


def unit_task(spec: tuple, which: int, bound: int, unit, stop: str):
    """Search one unit with plan number ``which``; stops early when the Event named ``stop``
    is set."""
    from distributed import Event

    problem, red = _prepared(spec, which)
    event, last = Event(stop), [time.monotonic()]

    def between(_walk) -> bool:
        now = time.monotonic()
        if now - last[0] < STOP_CHECK_SECONDS:
            return True
        last[0] = now
        return not event.is_set()

    result = run_unit(problem, unit, bound, between=between)
    if result.moves is not None:
        result = replace(result, moves=red.moves_back(result.moves))
    return result


# --- on the client ---------------------------------------------------------------------------
