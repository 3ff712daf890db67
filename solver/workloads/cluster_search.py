"""One hard board on a Dask cluster: ``npuzzle solve BOARD --scheduler ADDRESS`` (layer 5:
workloads; batches are :mod:`.cluster`).

The same search as ``--jobs N`` on one machine (:mod:`solver.search.idastar`): the request is
resolved once here (:func:`solver.api.search_request`) and travels without its tables
(:meth:`~solver.search.request.SearchRequest.bare`); every worker chooses the same plans from
it -- the zero-aware twins where built, a race's rivals -- and opens them itself.  The IDA*
iterations are cut into work units (:mod:`solver.search.units`: plain data), each a Dask task:

The tasks the workers run are :mod:`.cluster_tasks`'s; this module submits them and judges
their answers.

1. **A probe.**  One worker searches the board alone, whole iterations, until an iteration
   takes :data:`~.cluster_tasks.PROBE_SECONDS` or the one just ended took a
   :data:`~.cluster_tasks.PROBE_GROWTH`-th of that
   (the next would be long), or -- where rivals are built -- the search has generated
   :data:`solver.search.race.RACE_AFTER` nodes.  Most boards end there, for the price of one
   task.  An iteration stopped part-way is searched again from its start by everyone.
2. **The race** (:mod:`solver.search.race`), where the local search would race: once the
   incumbent has generated ``RACE_AFTER`` nodes, at the end of an iteration with bound ``B``,
   each rival searches up to ``B`` as a task of its own (capped where it could no longer
   win), the client judges them as the local race does, and the winner goes on from the
   largest bound any entrant proved.  Every node of the race is counted.
3. **Each iteration** is split by a worker into about :data:`UNITS_PER_THREAD` units per
   worker thread, taken as the local pool takes them (:func:`solver.search.parallel.in_order`):
   those whose subtree came nearest the goal in the iteration before first (each unit reports
   its least h), the first of them cut into pieces for every worker (the tasks' priorities
   keep that order).
4. **First solution wins.**  All units of an iteration share its bound and the previous
   iteration found nothing within a smaller one, so any solution found is a shortest one (at
   most W times with ``--weight W``).  The others are cancelled, and the units still running
   stop within :data:`~.cluster_tasks.STOP_CHECK_SECONDS`: they watch a ``distributed.Event``.

The client needs no database: the workers open them (and map moves back to the caller's
goal); the client parses the board, checks solvability, keeps the caps (``--timeout``,
``--max-nodes``: checked as units finish, so a cluster may go a little past them) and replays
the solution before returning it.  The answer names the heuristic the search ended with, the
race, the unit order and the pruning machine, as the local search's does.

Imports: the solver API, the search's units, parallel pool, race and driver, :mod:`.cluster`.
"""

from __future__ import annotations

import contextlib
import queue
import time
import uuid
from dataclasses import dataclass, field, replace

from .. import api
from ..core.solution import STATUS_LIMIT, SearchLimitReached, Solution
from ..search import race, walk_state
from ..search.driver import Progress, SearchResult
from ..search.units import least_by_prefix
from .batch import _restore
from .cluster import (
    SchedulerLost,
    cluster_failure,
    connection_errors,
    on_scheduler,
    require_dask,
    task_result,
    worker_threads,
)
from .cluster_tasks import (
    PROBE_SECONDS,
    Head,
    probe,
    remote,
    rival_task,
    split_task,
    unit_task,
)

UNITS_PER_THREAD = 32  # units an iteration is cut into, per worker thread
TICK_SECONDS = 0.2  # how often the client looks at the caps and reports progress


def _result(client, future):
    """A finished task's answer, its line error raised here; the cluster's failures as
    :class:`~.cluster.ClusterError` (a lost scheduler: :class:`~.cluster.SchedulerLost`)."""
    try:
        payload = task_result(client, future)
    except SchedulerLost:
        raise
    except Exception as e:  # noqa: BLE001 - a bug in the task itself propagates as it is
        failure = cluster_failure(e)
        if failure is None:
            raise
        raise failure from None
    result = _restore(payload)
    if isinstance(result, BaseException):
        raise result
    return result


def _call(client, fn, *args, priority: int = 0):
    """``fn(*args)`` on a worker, its line error raised here."""
    return _result(client, client.submit(remote, fn, *args, pure=False, priority=priority))


@dataclass
class _Search:
    """The running totals of one search on the cluster, and what it searches with."""

    spec: tuple
    head: Head
    t0: float
    generated: int = 0
    expanded: int = 0
    iterations: int = 0
    units: int = 0
    threads: int = 1
    which: int = 0  # the plan searching: 0, or the race's winner
    raced: str | None = None  # the answer's "race" field, once known
    least: dict = field(default_factory=dict)  # the last iteration's least h by prefix

    def limit(self, opts) -> str | None:
        """Why a cap stops the search now, or None."""
        if opts.timeout is not None and time.perf_counter() - self.t0 >= opts.timeout:
            return f"time limit of {opts.timeout:g} s reached"
        if opts.max_nodes is not None and self.generated >= opts.max_nodes:
            return f"node limit of {opts.max_nodes:,} reached"
        return None

    @property
    def racing(self) -> bool:
        """True while a race is still to run (rivals built, none run yet)."""
        return len(self.head.entrants.names) > 1 and self.raced is None


def solve_board(client, board, goal=None, *, shape=None, options=None) -> Solution:
    """Solve one board on the cluster: like :func:`solver.api.solve` with ``--jobs`` (the
    same plans, race and order of units), the long IDA* iterations shared by every worker
    thread.  ``options.progress`` (on this process) hears about each iteration."""
    opts = options or api.SearchOptions()
    start, goal_b = api.read_problem(board, goal, shape)
    api.check_solvable(start, goal_b)
    t0 = time.perf_counter()
    sent = replace(opts, progress=None, jobs=1)
    # Parsed here, once (the workers choose and open the tables themselves).
    request = None
    if sent.algorithm in ("auto", "idastar"):
        request = api.search_request(start, goal_b, sent, plans=False).bare()
    spec = (start, goal_b, sent, request)
    try:
        head = _call(
            client, probe, spec, PROBE_SECONDS, opts.timeout, opts.max_nodes, race.RACE_AFTER
        )
    except SchedulerLost as e:
        raise e.proving(f" after {time.perf_counter() - t0:.1f} s: nothing proven yet") from None
    if isinstance(head, Solution):
        return head.check()
    run = _Search(spec, head, t0, head.generated, head.expanded, head.iterations)
    moves, lower = head.moves, head.lower_bound
    if moves is None:
        moves, lower = _iterations(client, run, opts)
    return _solution(run, start, goal_b, moves, lower, client).check()


def _iterations(client, run: _Search, opts) -> tuple[str, int]:
    """The iterations from the probe's bound on, each split into units (a race first, where
    one is due): ``(moves, length proven)``; a cap raises SearchLimitReached, a lost
    scheduler :class:`~.cluster.SchedulerLost` saying the length proven, as a cap does."""
    distributed = require_dask()
    stop = distributed.Event(f"npuzzle-stop-{uuid.uuid4().hex}", client=client)
    f, done, depth = run.head.bound, run.head.done, 1
    lower = run.head.lower_bound
    lost = False
    try:
        while True:
            stopped = run.limit(opts)
            if stopped:
                raise SearchLimitReached(_partial(run, client, lower), stopped)
            if run.racing and done is not None and run.generated >= race.RACE_AFTER:
                f, stopped = _race(client, run, opts, done, f)
                depth = 1
                if stopped:
                    raise SearchLimitReached(_partial(run, client, lower), stopped)
            with on_scheduler(client):
                run.threads = max(1, worker_threads(client))
            want = UNITS_PER_THREAD * run.threads
            least = run.least if run.spec[3].promising_first else {}
            bound, lower, in_moves, sp = _call(
                client, split_task, run.spec, run.which, f, want, depth, least, run.threads
            )
            run.iterations += 1
            run.generated += sp.generated
            run.expanded += sp.expanded
            if sp.moves is not None:
                return sp.moves, lower
            if len(sp.units) >= want:  # the next tree is bigger: split from here on
                depth = max(1, sp.depth - (len(sp.units) >= 4 * want))
            moves, next_f, stopped = _units(client, run, opts, bound, in_moves, sp, stop)
            if moves is not None:
                return moves, lower
            if stopped:
                raise SearchLimitReached(_partial(run, client, lower), stopped)
            f, done = min(sp.next_f, next_f), bound
            if f >= walk_state.INFINITE_F:
                raise AssertionError("internal error: IDA* exhausted a solvable puzzle")
    except SchedulerLost as e:
        lost = True  # the workers lose it too, and their units with it
        elapsed = time.perf_counter() - run.t0
        raise e.proving(f" after {elapsed:.1f} s: {_proven(lower)}") from None
    finally:
        if not lost:  # units still running anywhere stop within STOP_CHECK_SECONDS
            with contextlib.suppress(*connection_errors()):  # lost now: the answer stands
                stop.set()


def _race(client, run: _Search, opts, bound: int, f: int) -> tuple[int, str | None]:
    """The race at ``bound`` (the incumbent's last finished iteration; ``f`` the bound it
    would go on with), each rival a task: sets the winner and the race's summary, and
    returns ``(the bound the winner goes on with, why a cap stopped the search or None)``.
    The same rule as the local race (:func:`solver.search.race.judge`)."""
    entrants = run.head.entrants
    lead = SearchResult(None, run.head.root_h, f, run.generated, run.expanded, 0, 0.0)
    lead.paused = bound
    left = None
    if opts.timeout is not None:
        left = max(0.0, opts.timeout - (time.perf_counter() - run.t0))
    futures = [
        client.submit(
            remote,
            rival_task,
            run.spec,
            i,
            bound,
            race.rival_limit(run.generated, entrants.costs[i], opts.max_nodes),
            left,
            pure=False,
            priority=1,
        )
        for i in range(1, len(entrants.names))
    ]
    rivals = [_result(client, fut) for fut in futures]
    results = [lead, *rivals]
    ran = race.judge(results, list(entrants.costs))
    run.raced = race.describe(ran, list(entrants.names))
    run.generated += sum(r.generated for r in rivals)
    run.expanded += sum(r.expanded for r in rivals)
    stopped = run.limit(opts)  # a rival's own cap only says it could not win
    if ran.winner != 0:
        run.which, run.least = ran.winner, {}  # another plan's frame: no order known yet
    return race.start_bound(results), stopped


def _units(client, run: _Search, opts, bound: int, in_moves, sp, stop):
    """Search one iteration's units: ``(moves or None, smallest pruned cost, why a cap
    stopped it or None)``."""
    n = len(sp.units)
    finished: queue.Queue = queue.Queue()
    pending = set()
    group = f"npuzzle-units-{uuid.uuid4().hex}"
    units = {}
    for i, unit in enumerate(sp.units):  # priorities: the order the split gave
        future = client.submit(
            remote,
            unit_task,
            run.spec,
            run.which,
            bound,
            unit,
            stop.name,
            key=(group, i),
            pure=False,
            priority=n - i,
        )
        future.add_done_callback(finished.put)
        pending.add(future)
        units[future.key] = unit
    least = {}
    next_f, tick = walk_state.INFINITE_F, 0.0
    try:
        while pending:
            try:
                future = finished.get(timeout=TICK_SECONDS)
            except queue.Empty:
                future = None
            if future is not None:
                pending.discard(future)
                result = _result(client, future)
                run.units += 1
                run.generated += result.generated
                run.expanded += result.expanded
                if result.moves is not None:
                    return result.moves, next_f, None
                next_f = min(next_f, result.next_f)
                least[units[future.key].moves] = result.least_h
            stopped = run.limit(opts)
            if stopped:
                return None, next_f, stopped
            if opts.progress is not None and time.monotonic() - tick >= TICK_SECONDS:
                tick = time.monotonic()
                opts.progress(_progress(run, in_moves, False))
        if opts.progress is not None:
            opts.progress(_progress(run, in_moves, True))
        run.least = least_by_prefix(least)
        return None, next_f, None
    except SchedulerLost:
        pending.clear()  # cancelled with the connection: no one to tell
        raise
    finally:
        if pending:
            with contextlib.suppress(*connection_errors()):  # lost now: the answer stands
                client.cancel(list(pending))


def _proven(lower: int) -> str:
    """What a search stopped early has proven, in the words of a capped one
    (:func:`solver.answers.one_line`)."""
    return f"the optimal length is at least {lower}"


def _progress(run: _Search, in_moves, done: bool) -> Progress:
    return Progress(
        run.iterations, in_moves, run.generated, time.perf_counter() - run.t0, done, run.threads
    )


def _solution(run: _Search, start, goal, moves: str | None, lower: int, client) -> Solution:
    head, entrants = run.head, run.head.entrants
    if moves is not None and not head.weighted:
        lower = len(moves)  # an optimal search proves its solution's length
    extra = {
        "search_seconds": round(time.perf_counter() - run.t0, 6),
        "jobs": run.threads,
        "work_units": run.units,
        "unit_order": "promising first" if run.spec[3].promising_first else "search order",
        "pruning": entrants.pruning,
        "tables_bytes": entrants.tables_bytes,
        "scheduler": client.scheduler.address,
        **head.extra,
    }
    if len(entrants.names) > 1:
        extra["race"] = run.raced or race.describe(None, list(entrants.names))
    return Solution(
        start=start,
        goal=goal,
        moves=moves,
        algorithm="idastar",
        optimal=moves is not None and not head.weighted,
        heuristic=entrants.names[run.which],
        database=entrants.databases[run.which],
        root_h=head.root_h,
        lower_bound=lower,
        nodes_generated=run.generated,
        nodes_expanded=run.expanded,
        iterations=run.iterations,
        depth_reached=lower,
        seconds=time.perf_counter() - run.t0,
        notice=entrants.notice,
        extra=extra,
    )


def _partial(run: _Search, client, lower: int) -> Solution:
    start, goal = run.spec[:2]
    sol = _solution(run, start, goal, None, lower, client)
    sol.status, sol.optimal = STATUS_LIMIT, None
    return sol


__all__ = ["solve_board"]
