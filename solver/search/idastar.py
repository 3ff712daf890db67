"""IDA* for the API: ``solve(request) -> Solution`` (layer 3: search).

IDA* is a depth-first search with a bound on ``f = g + h`` that grows from one iteration to the
next (the smallest f that went over the last bound), skipping the move strings a pruning machine
forbids (never undoing the previous move, and more); with an admissible h the first solution
found is a shortest one.  The pieces, innermost first:

* :mod:`solver.engine` -- the compiled walks, one per heuristic family (C);
* :mod:`solver.search.fsm` -- the duplicate-pruning machine the kernels step (Taylor & Korf);
* :mod:`solver.search.kernel_data` -- the arrays a heuristic gives them (a plan);
* :mod:`solver.search.plans` -- making plans, and choosing the plans of a search;
* :mod:`solver.search.request` -- one search resolved: boards, heuristic, limits and plans;
* :mod:`solver.search.walk` -- one resumable walk of an iteration, and the search's bounds;
* :mod:`solver.search.weights` -- ``--weight W``: at most W times the optimal length;
* :mod:`solver.search.units` / :mod:`solver.search.parallel` -- an iteration cut into work
  units, searched by threads (``--jobs``) or by any other engine;
* :mod:`solver.search.driver` -- the iterations, limits and progress.

This module takes a :class:`~solver.search.request.SearchRequest` (built once, where the
request arrived: :mod:`solver.api`), runs the driver -- or a race -- on the plans it holds,
maps the moves back to the request's goal and wraps the answer.
Imports: the search package and :mod:`solver.core`.
"""

from __future__ import annotations

import time

from ..core import resume_token
from ..core.solution import STATUS_INTERRUPTED, STATUS_LIMIT, SearchLimitReached, Solution
from . import race
from .driver import (  # noqa: F401 - public names
    INTERRUPTIONS,
    Progress,
    SearchResult,
    SearchSettings,
    interrupted_search,
    search,
)
from .kernel_data import Plan
from .plans import (  # noqa: F401 - the plans are part of this module's interface
    clear_cache,
    lc_plan,
    manhattan_plan,
    pdb_plan,
    pdb_plan_from,
)
from .request import SearchRequest
from .walk import line_values  # noqa: F401
from .weights import Weighting


def warm_up(request: SearchRequest) -> Plan:
    """Map the tables and load the compiled kernel that ``request`` needs (a one-move search
    with its first plan), so that processes forked afterwards share both."""
    plan, _ = request.with_plans().plans[0]
    target = plan.target
    one_move = target.move(target.legal_moves()[0]).tiles
    search(plan, one_move, SearchSettings(fsm_depth=request.fsm_depth))
    return plan


def solve(request: SearchRequest) -> Solution:
    """Solve ``request`` with IDA* (algorithm ``"idastar"``): optimal, or with
    ``request.weight`` W > 1 at most W times the optimal length (``optimal`` False, ``bound`` W).

    The plans are the request's (:meth:`SearchRequest.with_plans`): goals other than the
    database's are reduced to it by relabelling and board symmetry, and the moves are mapped
    back.  With several plans (an optimal search), a race picks the one that searches on
    (:mod:`solver.search.race`).  ``request.jobs`` threads share the long iterations;
    ``request.progress`` hears about each iteration (:class:`~solver.search.driver.Progress`).
    ``request.timeout`` / ``request.max_nodes`` raise
    :class:`~solver.core.solution.SearchLimitReached` whose ``partial.lower_bound`` is the
    optimal length proven so far, and (an optimal search) whose ``partial.extra["resume"]``
    is the token that goes on from there (:mod:`solver.core.resume_token`);
    ``request.start_bound`` is where such a search goes on.  An interruption (Ctrl-C) goes on
    up as it came, carrying the same partial answer as its ``partial`` (status
    ``interrupted``).  Missing databases raise
    :class:`~solver.tables.store.DatabaseMissing` with the command that builds them.
    """
    t0 = time.perf_counter()
    request = request.with_plans()
    weighting = Weighting.of(request.weight)
    entrants = request.plans if weighting is None else request.plans[:1]
    try:
        res, won, race_said = _run(request, entrants, weighting)
    except INTERRUPTIONS as e:
        stopped = interrupted_search(e)
        if stopped is not None:
            partial = _solution(request, stopped, entrants, 0, weighting, None, t0)
            partial.status = STATUS_INTERRUPTED
            partial.optimal = None
            e.partial = partial  # what the CLI reports of the search that Ctrl-C stopped
        raise
    sol = _solution(request, res, entrants, won, weighting, race_said, t0)
    if res.stopped:
        sol.status = STATUS_LIMIT
        sol.optimal = None
        raise SearchLimitReached(sol, res.stopped)  # the CLI adds the proven lower bound
    return sol


def _solution(request: SearchRequest, res: SearchResult, entrants, won, weighting, race_said, t0):
    """The answer of ``request`` from the search's result ``res`` (ended with plan number
    ``won``): the moves mapped back to the request's goal; a stopped optimal search carries
    the token that resumes it (its ``extra["resume"]``)."""
    plan, red = entrants[won]
    moves = None if res.moves is None else red.moves_back(res.moves)
    sol = Solution(
        start=request.start,
        goal=request.goal,
        moves=moves,
        algorithm="idastar",
        optimal=moves is not None and weighting is None,
        heuristic=plan.name,
        database=plan.database,
        root_h=res.root_h,
        lower_bound=res.lower_bound,
        nodes_generated=res.generated,
        nodes_expanded=res.expanded,
        iterations=res.iterations,
        depth_reached=res.lower_bound,
        seconds=time.perf_counter() - t0,
        notice=entrants[0][0].notice,  # the first entrant's: said whichever plan won
        extra=_extra(request, res, entrants, weighting, race_said),
    )
    if res.stopped and weighting is None:
        sol.extra["resume"] = resume_token.issue(request.start, request.goal, res.lower_bound)
    return sol


def _run(request: SearchRequest, entrants, weighting) -> tuple[SearchResult, int, str | None]:
    """Search with ``entrants`` (a race when there are several): ``(result, index of the plan
    it ended with, the race's summary or None)``."""
    settings = SearchSettings(
        timeout=request.timeout,
        max_nodes=request.max_nodes,
        jobs=request.jobs,
        progress=request.progress,
        fsm_depth=request.fsm_depth,
        promising_first=request.promising_first,
        weighting=weighting,
        start_bound=request.start_bound,
    )
    runners = [race.Entrant(p, r.board(request.start).tiles) for p, r in entrants]
    res, won, ran = race.solve(runners, settings)
    said = None if len(entrants) == 1 else race.describe(ran, [p.name for p, _ in entrants])
    return res, won, said


def _extra(request: SearchRequest, res: SearchResult, entrants, weighting, race_said) -> dict:
    """The answer's statistics beyond the counts: threads, work units and their order, the
    pruning machine, the bytes of tables read, the race, the weighting."""
    extra = {
        "search_seconds": round(res.seconds, 6),
        "jobs": res.jobs,
        "work_units": res.work_units,
        "unit_order": "promising first" if request.promising_first else "search order",
        "pruning": res.pruning,
    }
    # What the search read (every entrant's tables, for a race), for --json and -v.
    # (A maximum of several databases reads the same tables as the databases alone.)
    tables = {id(t): t for p, _ in entrants for t in p.tables}
    extra["tables_bytes"] = sum(int(t.nbytes) for t in tables.values())
    if len(entrants) > 1:
        extra["race"] = race_said
    if weighting is not None:
        extra.update(bound=float(weighting.weight), weighting=weighting.rule)
    return extra
