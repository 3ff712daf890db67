"""IDA* for the API: ``solve(start, goal, opts) -> Solution`` (layer 3: search).

IDA* is a depth-first search with a bound on ``f = g + h`` that grows from one iteration to the
next (the smallest f that went over the last bound), skipping the move strings a pruning machine
forbids (never undoing the previous move, and more); with an admissible h the first solution
found is a shortest one.  The pieces, innermost first:

* :mod:`solver.search.kernels` -- the numba loops, one per heuristic family;
* :mod:`solver.search.fsm` -- the duplicate-pruning machine the kernels step (Taylor & Korf);
* :mod:`solver.search.plans` -- a heuristic made ready for them (which database, which arrays);
* :mod:`solver.search.walk` -- one resumable walk of an iteration, and the search's bounds;
* :mod:`solver.search.weights` -- ``--weight W``: at most W times the optimal length;
* :mod:`solver.search.units` / :mod:`solver.search.parallel` -- an iteration cut into work
  units, searched by threads (``--jobs``) or by any other engine;
* :mod:`solver.search.driver` -- the iterations, limits and progress.

This module maps a problem onto the database's goal, runs the driver and wraps the answer.
Imports: the search package and :mod:`solver.core`.
"""

from __future__ import annotations

import time

from ..core.board import Board, BoardError
from ..core.solution import STATUS_LIMIT, SearchLimitReached, Solution
from . import race
from .driver import Progress, SearchResult, numba_ready, search  # noqa: F401 - public names
from .plans import (  # noqa: F401 - the plans are part of this module's interface
    Plan,
    clear_cache,
    lc_plan,
    manhattan_plan,
    move_tables,
    pdb_plan,
    pdb_plan_from,
    plan_for,
    rival_plans,
)
from .walk import line_values  # noqa: F401
from .weights import Weighting

_numba_ready = numba_ready  # the name scripts used before the split into modules


def warm_up(goal: Board, opts) -> Plan:
    """Map the tables and load the compiled kernel that solving towards ``goal`` with
    ``opts`` needs (a one-move search), so that processes forked afterwards share both."""
    plan, _ = plan_for(goal, opts)
    target = plan.target
    search(plan, target.move(target.legal_moves()[0]).tiles)
    return plan


def solve(start: Board, goal: Board, opts) -> Solution:
    """Solve ``start`` -> ``goal`` with IDA* (algorithm ``"idastar"``): optimal, or with
    ``opts.weight`` W > 1 at most W times the optimal length (``optimal`` False, ``bound`` W).

    The heuristic follows ``opts.heuristic`` / ``opts.partition`` / ``opts.reflect``; goals other
    than the database's are reduced to it by relabelling and board symmetry, and the moves are
    mapped back.  ``opts.jobs`` threads share the long iterations; ``opts.progress`` hears
    about each iteration (:class:`~solver.search.driver.Progress`).  ``opts.timeout`` /
    ``opts.max_nodes`` raise :class:`~solver.core.solution.SearchLimitReached` whose
    ``partial.lower_bound`` is the optimal length proven so far.  Missing databases raise
    :class:`~solver.tables.store.DatabaseMissing` with the command that builds them.
    """
    if start.shape != goal.shape:
        raise BoardError(f"start is {start.shape} but goal is {goal.shape}")
    t0 = time.perf_counter()
    weighting = Weighting.of(getattr(opts, "weight", 1))
    limits = dict(
        timeout=opts.timeout,
        max_nodes=opts.max_nodes,
        jobs=max(1, getattr(opts, "jobs", 1) or 1),
        progress=getattr(opts, "progress", None),
        fsm_depth=getattr(opts, "fsm", None),
        promising_first=getattr(opts, "promising_first", True),
    )
    entrants = rival_plans(goal, opts) if weighting is None else [plan_for(goal, opts)]
    race_said = None
    if len(entrants) > 1:
        res, won, ran = race.solve(
            [race.Entrant(p, r.board(start).tiles) for p, r in entrants], **limits
        )
        if ran is not None:
            race_said = ran.summary([p.name for p, _ in entrants])
        plan, red = entrants[won]
    else:
        plan, red = entrants[0]
        res = search(plan, red.board(start).tiles, weighting=weighting, **limits)
    moves = res.moves
    if moves is not None:
        moves = red.moves_back(moves)
    extra = {
        "search_seconds": round(res.seconds, 6),
        "jobs": res.jobs,
        "work_units": res.work_units,
        "unit_order": "promising first" if limits["promising_first"] else "search order",
        "pruning": res.pruning,
    }
    # What the search read (every entrant's tables, for a race), for --json and -v.
    # (A maximum of several databases reads the same tables as the databases alone.)
    tables = {id(t): t for p, _ in entrants for t in p.tables}
    extra["tables_bytes"] = sum(int(t.nbytes) for t in tables.values())
    if len(entrants) > 1:
        extra["race"] = race_said or f"none (the search ended within {race.RACE_AFTER:,} nodes)"
    if weighting is not None:
        extra.update(bound=float(weighting.weight), weighting=weighting.rule)
    sol = Solution(
        start=start,
        goal=goal,
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
        notice=plan.notice,
        extra=extra,
    )
    if res.stopped:
        sol.status = STATUS_LIMIT
        sol.optimal = None
        raise SearchLimitReached(sol, res.stopped)  # the CLI adds the proven lower bound
    return sol
