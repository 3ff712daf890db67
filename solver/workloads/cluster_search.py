"""One hard board on a Dask cluster: ``npuzzle solve BOARD --scheduler ADDRESS`` (layer 5:
workloads; batches are :mod:`.cluster`).

The IDA* iterations of one search are cut into work units (:mod:`solver.search.units`: plain
data, searched by any process that opens the tables), and each unit becomes a Dask task:

1. **A probe.**  One worker searches the board alone until an iteration has taken
   :data:`PROBE_SECONDS` -- most boards end there, for the price of one task; splitting
   short iterations would cost more in tasks than it saves.  Otherwise it reports the bound
   of that long iteration, which is searched again from its start by everyone.
2. **Each iteration** is split by a worker into about :data:`UNITS_PER_THREAD` units per
   worker thread (the top of the tree, a few moves deep, in the order the serial search
   visits it), and the units are submitted with priorities in that order.
3. **First solution wins.**  All units of an iteration share its bound and the previous
   iteration found nothing within a smaller one, so any solution found is a shortest one (at
   most W times with ``--weight W``).  The others are cancelled, and the units still running
   stop within :data:`STOP_CHECK_SECONDS`: they watch a ``distributed.Event``.

The client needs no database: the workers open them (and map moves back to the caller's
goal); the client parses the board, checks solvability, keeps the caps (``--timeout``,
``--max-nodes``: checked as units finish, so a cluster may go a little past them) and replays
the solution before returning it.

Imports: the solver API, the search's units and driver (Progress), :mod:`.cluster`.
"""

from __future__ import annotations

import queue
import time
import uuid
from dataclasses import dataclass, field, replace

from .. import api
from ..core.solution import STATUS_LIMIT, SearchLimitReached, Solution
from ..search import kernels as K
from ..search.driver import Progress
from ..search.units import prepare, run_unit, split
from ..search.walk import READY, Problem, Walk
from .batch import LINE_ERRORS, _portable, _restore
from .cluster import ClusterError, blamed, cluster_failure, require_dask, worker_threads

PROBE_SECONDS = 0.5  # iterations shorter than this on one worker are never split
PROBE_SLICE = 1 << 18  # nodes between looks at the probe's clock
UNITS_PER_THREAD = 16  # units an iteration is cut into, per worker thread
STOP_CHECK_SECONDS = 0.5  # how often a running unit asks whether the search is over
TICK_SECONDS = 0.2  # how often the client looks at the caps and reports progress


@dataclass(frozen=True)
class Head:
    """What the probe learned: a solution (``moves``, caller's frame) or the ``bound`` to go
    on from, with the search's statistics and the names the Solution reports."""

    moves: str | None
    bound: int
    root_h: int
    generated: int
    expanded: int
    iterations: int
    heuristic: str
    database: str | None
    notice: str | None
    lower_bound: int
    extra: dict = field(default_factory=dict)  # a weighted search's bound and cost rule

    @property
    def weighted(self) -> bool:
        """True for a bounded-suboptimal search (``--weight`` above 1)."""
        return bool(self.extra)


# --- on the workers --------------------------------------------------------------------------

_PREPARED: dict = {}  # this process's problems, by search


def _prepared(spec: tuple):
    """The problem of ``spec`` = ``(start, goal, options, request without plans)`` and its
    reduction, its tables opened on this worker (once per process)."""
    hit = _PREPARED.get(spec)
    if hit is None:
        if len(_PREPARED) >= 8:
            _PREPARED.clear()
        hit = _PREPARED[spec] = prepare(spec[3])
    return hit


def remote(fn, *args):
    """Run on a worker: ``fn(*args)``, a line error it raises returned (portable, a missing
    database naming the worker) instead of raised."""
    try:
        return _portable(fn(*args))
    except LINE_ERRORS as e:
        return _portable(blamed(e))


def probe(spec: tuple, seconds: float, timeout: float | None, max_nodes: int | None):
    """The whole answer when the board needs no IDA* (an exact table, a teaching search);
    else IDA* alone until an iteration has run for ``seconds`` (or a cap is reached): a
    :class:`Head`."""
    start, goal, opts, _ = spec
    if api.resolve_algorithm(start, opts) != "idastar":
        return api.solve(start, goal, options=opts)
    problem, red = _prepared(spec)
    plan, weighting = problem.plan, problem.weighting
    extra = (
        {} if weighting is None else {"bound": float(weighting.weight), "weighting": weighting.rule}
    )
    moves, bound, generated, expanded, iterations = _serial(problem, seconds, timeout, max_nodes)
    if moves is not None:
        moves = red.moves_back(moves)
    return Head(
        moves,
        bound,
        problem.root_h,
        generated,
        expanded,
        iterations,
        plan.name,
        plan.database,
        plan.notice,
        problem.lower_bound(bound),
        extra,
    )


def _serial(problem: Problem, seconds: float, timeout: float | None, max_nodes: int | None):
    """IDA* iterations by one walk until a solution, an iteration longer than ``seconds``,
    ``timeout`` or ``max_nodes``: ``(moves or None, the last bound, generated, expanded,
    iterations done)``."""
    bound = problem.first_bound()
    if problem.root_h == 0:
        return "", bound, 0, 0, 0
    walk, t0 = Walk(problem), time.perf_counter()
    t_end = t0 + timeout if timeout is not None else float("inf")
    cap = max_nodes if max_nodes is not None else 1 << 62
    generated = expanded = iterations = 0
    while True:
        status, t_iteration = walk.enter((), bound), time.perf_counter()
        while status in (READY, K.BUDGET_SPENT):
            now = time.perf_counter()
            if now - t_iteration > seconds or now > t_end or generated + walk.generated >= cap:
                # a long iteration: searched again from the start (and counted) by everyone
                return None, bound, generated + walk.generated, expanded + walk.expanded, iterations
            status = walk.run(PROBE_SLICE)
        iterations += 1
        generated += walk.generated
        expanded += walk.expanded
        if status == K.FOUND:
            return Problem.letters(walk.path), bound, generated, expanded, iterations
        if walk.next_f >= K.INFINITE_F:
            raise AssertionError("internal error: IDA* exhausted a solvable puzzle")
        bound = problem.next_bound(walk.next_f)


def split_task(spec: tuple, f: int, want: int, depth: int):
    """The iteration after one whose smallest pruned cost was ``f``: ``(bound, its lower
    bound in moves, its bound in moves, the Split)`` (a solution above the frontier mapped
    to the caller's goal)."""
    problem, red = _prepared(spec)
    bound = problem.next_bound(f)
    sp = split(problem, bound, want, depth)
    if sp.moves is not None:
        sp = replace(sp, moves=red.moves_back(sp.moves))
    return bound, problem.lower_bound(bound), problem.in_moves(bound), sp


def unit_task(spec: tuple, bound: int, unit, stop: str):
    """Search one unit; stops early when the Event named ``stop`` is set."""
    from distributed import Event

    problem, red = _prepared(spec)
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


def _result(future):
    """A finished task's answer, its line error raised here; the cluster's failures as
    :class:`ClusterError`."""
    try:
        payload = future.result()
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
    return _result(client.submit(remote, fn, *args, pure=False, priority=priority))


@dataclass
class _Search:
    """The running totals of one search on the cluster."""

    spec: tuple
    head: Head
    t0: float
    generated: int = 0
    expanded: int = 0
    iterations: int = 0
    units: int = 0
    threads: int = 1

    def limit(self, opts) -> str | None:
        """Why a cap stops the search now, or None."""
        if opts.timeout is not None and time.perf_counter() - self.t0 >= opts.timeout:
            return f"time limit of {opts.timeout:g} s reached"
        if opts.max_nodes is not None and self.generated >= opts.max_nodes:
            return f"node limit of {opts.max_nodes:,} reached"
        return None


def solve_board(client, board, goal=None, *, shape=None, options=None) -> Solution:
    """Solve one board on the cluster: like :func:`solver.api.solve`, the long IDA*
    iterations shared by every worker thread.  ``options.progress`` (on this process) hears
    about each iteration."""
    opts = options or api.SearchOptions()
    start, goal_b = api.read_problem(board, goal, shape)
    api.check_solvable(start, goal_b)
    t0 = time.perf_counter()
    sent = replace(opts, progress=None, jobs=1)
    # Parsed here, once (the workers choose and open the tables themselves).
    request = None
    if sent.algorithm in ("auto", "idastar"):
        request = api.search_request(start, goal_b, sent, plans=False)
    spec = (start, goal_b, sent, request)
    head = _call(client, probe, spec, PROBE_SECONDS, opts.timeout, opts.max_nodes)
    if isinstance(head, Solution):
        return head.check()
    run = _Search(spec, head, t0, head.generated, head.expanded, head.iterations)
    moves, lower = head.moves, head.lower_bound
    if moves is None:
        moves, lower = _iterations(client, run, opts)
    return _solution(run, start, goal_b, moves, lower, client).check()


def _iterations(client, run: _Search, opts) -> tuple[str, int]:
    """The iterations from the probe's bound on, each split into units: ``(moves, length
    proven)``; a cap raises SearchLimitReached."""
    distributed = require_dask()
    stop = distributed.Event(f"npuzzle-stop-{uuid.uuid4().hex}", client=client)
    f, depth = run.head.bound, 1
    try:
        while True:
            stopped = run.limit(opts)
            if stopped:
                raise SearchLimitReached(_partial(run, client, run.head.lower_bound), stopped)
            run.threads = max(1, worker_threads(client))
            want = UNITS_PER_THREAD * run.threads
            bound, lower, in_moves, sp = _call(client, split_task, run.spec, f, want, depth)
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
            f = min(sp.next_f, next_f)
            if f >= K.INFINITE_F:
                raise AssertionError("internal error: IDA* exhausted a solvable puzzle")
    finally:
        stop.set()  # units still running anywhere stop within STOP_CHECK_SECONDS


def _units(client, run: _Search, opts, bound: int, in_moves, sp, stop):
    """Search one iteration's units: ``(moves or None, smallest pruned cost, why a cap
    stopped it or None)``."""
    distributed = require_dask()
    n = len(sp.units)
    finished: queue.Queue = queue.Queue()
    pending = set()
    group = f"npuzzle-units-{uuid.uuid4().hex}"
    for i, unit in enumerate(sp.units):  # priorities: the serial search's order
        future = client.submit(
            remote,
            unit_task,
            run.spec,
            bound,
            unit,
            stop.name,
            key=(group, i),
            pure=False,
            priority=n - i,
        )
        future.add_done_callback(finished.put)
        pending.add(future)
    next_f, tick = K.INFINITE_F, 0.0
    try:
        while pending:
            try:
                future = finished.get(timeout=TICK_SECONDS)
            except queue.Empty:
                future = None
            if future is not None:
                pending.discard(future)
                result = _result(future)
                run.units += 1
                run.generated += result.generated
                run.expanded += result.expanded
                if result.moves is not None:
                    return result.moves, next_f, None
                next_f = min(next_f, result.next_f)
            stopped = run.limit(opts)
            if stopped:
                return None, next_f, stopped
            if opts.progress is not None and time.monotonic() - tick >= TICK_SECONDS:
                tick = time.monotonic()
                opts.progress(_progress(run, in_moves, False))
        if opts.progress is not None:
            opts.progress(_progress(run, in_moves, True))
        return None, next_f, None
    except distributed.client.CancelledError:
        raise ClusterError("a work unit was cancelled: has the scheduler gone away?") from None
    finally:
        if pending:
            client.cancel(list(pending))


def _progress(run: _Search, in_moves, done: bool) -> Progress:
    return Progress(
        run.iterations, in_moves, run.generated, time.perf_counter() - run.t0, done, run.threads
    )


def _solution(run: _Search, start, goal, moves: str | None, lower: int, client) -> Solution:
    head = run.head
    if moves is not None and not head.weighted:
        lower = len(moves)  # an optimal search proves its solution's length
    extra = {
        "search_seconds": round(time.perf_counter() - run.t0, 6),
        "jobs": run.threads,
        "work_units": run.units,
        "scheduler": client.scheduler.address,
        **head.extra,
    }
    return Solution(
        start=start,
        goal=goal,
        moves=moves,
        algorithm="idastar",
        optimal=moves is not None and not head.weighted,
        heuristic=head.heuristic,
        database=head.database,
        root_h=head.root_h,
        lower_bound=lower,
        nodes_generated=run.generated,
        nodes_expanded=run.expanded,
        iterations=run.iterations,
        depth_reached=lower,
        seconds=time.perf_counter() - run.t0,
        notice=head.notice,
        extra=extra,
    )


def _partial(run: _Search, client, lower: int) -> Solution:
    start, goal = run.spec[:2]
    sol = _solution(run, start, goal, None, lower, client)
    sol.status, sol.optimal = STATUS_LIMIT, None
    return sol


__all__ = ["solve_board", "probe", "split_task", "unit_task", "remote", "Head"]
