"""The IDA* driver: iterations with growing bounds, each searched by one walk in kernel slices
or -- once iterations get long -- in work units by a pool of ``jobs`` threads; limits, progress
(layer 3: search; :mod:`solver.search.idastar` wraps it for the API).

Why slices: the kernel runs without Python between nodes, so the driver calls it for a budget
of nodes at a time and looks at the clock, the node cap, a KeyboardInterrupt and the progress
display in between.  The first slice is small so easy puzzles pay nothing; later ones aim at
about ``SLICE_SECONDS`` of search each.

Why serial first: splitting an iteration and starting threads costs about a millisecond, and
most boards are solved in less.  An iteration runs in parallel only when the one before it
took ``PARALLEL_AFTER`` seconds or more (IDA* iterations grow several-fold each, so the next
one is long enough to share; see ``scripts/bench_parallel.py``).

Imports: :mod:`solver.core`, the search's walk (and its state), weights and parallel pool.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ..core.interrupts import Interrupted
from . import walk_state
from .kernel_data import Plan
from .walk import READY, Limits, Outcome, Problem, Walk
from .weights import Weighting

FIRST_SLICE = 1 << 18
MAX_SLICE = 1 << 26
SLICE_SECONDS = 0.05
# Seconds an iteration takes before the next one goes parallel.  5 ms: with the twins the
# 80-move 15-puzzles are searches of 0.2-0.8 s, and on 2 threads they ran 1.78-1.91x (four
# runs, best of 3 each) against 1.70-1.82x with 20 ms (scripts/bench_parallel.py).
PARALLEL_AFTER = 0.005
# Nodes after which even a one-thread search takes its iterations in work units: the pool
# takes them most promising first (solver.search.units.promising_first), which on the
# 24-puzzle reaches the last iteration's solution several times sooner.  Below it, one
# kernel call searches every iteration (no split, no thread: short searches pay nothing).
UNITS_AFTER = 2_000_000
TICK_SECONDS = 0.2  # at most this often a progress callback hears about an iteration under way


@dataclass
class SearchResult:
    """What a finished (or stopped) search reports, in the plan's target frame."""

    moves: str | None
    root_h: int
    lower_bound: int
    generated: int
    expanded: int
    iterations: int
    seconds: float
    stopped: str | None = None  # why a limit stopped it
    jobs: int = 1
    work_units: int = 0
    pruning: str = ""  # the duplicate-pruning machine it used (Automaton.name)
    # A paused search (``stop_bound``, ``pause_after``) has searched every iteration up to
    # this bound; it would go on at ``lower_bound``.
    paused: int | None = None


@dataclass(frozen=True)
class RaceRule:
    """How one search of a race (:mod:`solver.search.race`, which exports this class) starts
    and stops; an optimal search only.

    ``start_bound``: start at this bound, a length already proven not to be beaten (its
    iterations are taken to be long, so with ``jobs`` > 1 the first is parallel already).
    ``stop_bound``: pause -- :attr:`SearchResult.paused` set, no moves -- before an iteration
    over this bound (a rival, which searches whole iterations: never in promising order).
    ``pause_after``: pause after the iteration during which the search generated this many
    nodes in all (the incumbent).  ``nodes_before``: the nodes of the race before this search,
    counted towards :data:`UNITS_AFTER`."""

    start_bound: int | None = None
    stop_bound: int | None = None
    pause_after: int | None = None
    nodes_before: int = 0


NO_RACE = RaceRule()


@dataclass(frozen=True)
class SearchSettings:
    """How a search runs, whatever it searches: its limits (``timeout`` seconds, ``max_nodes``
    generated), ``jobs`` threads for the long iterations, the ``progress`` callback, the
    duplicate-pruning machine's depth ``fsm_depth``, the order of the work units
    (``promising_first``), the cost rule (``weighting``; None: optimal) and ``start_bound``,
    a length the optimal one is proven not to be below (a resumed search starts there).
    :func:`search` searches with them; :func:`solver.search.race.solve` races with them."""

    timeout: float | None = None
    max_nodes: int | None = None
    jobs: int = 1
    progress: object = field(default=None, compare=False, repr=False)
    fsm_depth: int | None = None
    promising_first: bool = True
    weighting: Weighting | None = None
    start_bound: int | None = None


DEFAULT_SETTINGS = SearchSettings()


# --- Ctrl-C: what a search had proven when it was interrupted --------------------------------

INTERRUPTIONS = (KeyboardInterrupt, Interrupted)
_SEARCHED = "npuzzle_search_result"  # the attribute an interruption carries its search in


def interrupted_search(exc: BaseException) -> SearchResult | None:
    """What the search that ``exc`` (an interruption) stopped had done and proven: a
    :class:`SearchResult` whose ``stopped`` is ``"interrupted"``; None when no search was
    under way."""
    return getattr(exc, _SEARCHED, None)


def carry_search(exc: BaseException, result: SearchResult) -> None:
    """Let the interruption ``exc`` carry ``result``, the search it stopped, on its way up
    (read back by :func:`interrupted_search`); the interruption itself goes on as it was, so
    every ``finally`` on the way runs and the program still ends with its status."""
    if isinstance(exc, INTERRUPTIONS):
        setattr(exc, _SEARCHED, result)


@dataclass(frozen=True)
class Progress:
    """What a progress callback hears: the ``iteration`` under way (``done``: just finished)
    with its ``bound`` in moves, the nodes generated so far, the elapsed seconds and the
    number of workers on it."""

    iteration: int
    bound: float
    nodes: int
    seconds: float
    done: bool
    jobs: int


class _Serial:
    """Iterations searched by one walk on the calling thread."""

    def __init__(self, problem: Problem):
        self.walk = Walk(problem)
        self.slice_nodes = FIRST_SLICE

    def iteration(
        self,
        bound: int,
        limits: Limits,
        nodes_before: int,
        tick,
        go_on: bool = False,
        settle_at: int | None = None,
    ) -> Outcome:
        """One iteration with ``bound`` (more with ``go_on``: see :meth:`Walk.enter`); with
        ``settle_at``, going on ends with the iteration under way once the search has
        generated that many nodes (exactly there, whatever the slices' sizes)."""
        walk = self.walk
        status = walk.enter((), bound, go_on=go_on)
        stopped = None
        while status in (READY, walk_state.BUDGET_SPENT):
            nodes = nodes_before + walk.generated
            budget = limits.budget(nodes, self.slice_nodes)
            if settle_at is not None:
                if nodes >= settle_at:
                    walk.end_with_iteration()
                else:
                    budget = min(budget, settle_at - nodes)
            if budget <= 0:
                stopped = limits.reason(nodes, time.perf_counter())
                break
            t = time.perf_counter()
            status = walk.run(budget)
            now = time.perf_counter()
            if status == walk_state.BUDGET_SPENT:
                if now - t < SLICE_SECONDS / 2 and self.slice_nodes < MAX_SLICE:
                    self.slice_nodes *= 2
                stopped = limits.reason(nodes_before + walk.generated, now)
                if stopped:
                    break
                if tick is not None:
                    tick(nodes_before + walk.generated)
        path = walk.path if status == walk_state.FOUND else None
        return Outcome(
            path,
            walk.next_f,
            walk.generated,
            walk.expanded,
            stopped,
            iterations=walk.iterations,
            bound=walk.bound,
        )


class _Report:
    """Tells ``progress`` about the iteration under way (at most every ``TICK_SECONDS``) and
    about each one that ends."""

    def __init__(self, progress, problem: Problem, t0: float):
        self.progress, self.problem, self.t0 = progress, problem, t0
        self.last = t0
        self.iteration = self.bound = self.jobs = 0

    def start(self, iteration: int, bound: int, jobs: int) -> None:
        self.iteration, self.bound, self.jobs = iteration, bound, jobs

    def tick(self, nodes: int) -> None:
        now = time.perf_counter()
        if self.progress is not None and now - self.last >= TICK_SECONDS:
            self.last = now
            self._say(nodes, now, False)

    def done(self, nodes: int) -> None:
        if self.progress is not None:
            self._say(nodes, time.perf_counter(), True)

    def _say(self, nodes: int, now: float, done: bool) -> None:
        self.progress(
            Progress(
                self.iteration,
                self.problem.in_moves(self.bound),
                nodes,
                now - self.t0,
                done,
                self.jobs,
            )
        )


def search(
    plan: Plan,
    tiles,
    settings: SearchSettings = DEFAULT_SETTINGS,
    race: RaceRule = NO_RACE,
) -> SearchResult:
    """Run IDA* from ``tiles`` (cell -> tile) to ``plan.target`` as ``settings`` say: optimal,
    or within ``settings.weighting``'s factor of optimal.  ``jobs`` threads share iterations
    that are long enough; ``progress(Progress)`` hears about each iteration; ``fsm_depth``
    chooses the duplicate-pruning machine (:mod:`solver.search.fsm`); ``promising_first`` the
    order of the work units (:func:`solver.search.units.promising_first`, else search order;
    only then does a one-thread search go on in units after :data:`UNITS_AFTER` nodes).  Stops
    at ``timeout`` seconds or ``max_nodes`` generated nodes (``SearchResult.stopped`` says
    which).  ``race``: where a search of a race starts and pauses (:class:`RaceRule`; a
    race starts at ``settings.start_bound`` through it, :func:`solver.search.race.solve`)."""
    t0 = time.perf_counter()
    timeout, jobs, weighting = settings.timeout, settings.jobs, settings.weighting
    problem = Problem(plan, tiles, weighting, settings.fsm_depth)
    limits = Limits(timeout, settings.max_nodes, None if timeout is None else t0 + timeout)
    if problem.root_h == 0:
        return SearchResult(
            "", 0, 0, 0, 0, 0, time.perf_counter() - t0, jobs=jobs, pruning=problem.machine.name
        )
    report = _Report(settings.progress, problem, t0)
    loop = _Iterations(problem, limits, report, jobs, settings.promising_first, race)
    try:
        out, bound, paused = loop.run()
    except INTERRUPTIONS as e:
        lower = problem.lower_bound(loop.proven_bound())
        carry_search(e, loop.stopped_by_interrupt(lower, time.perf_counter() - t0))
        raise
    found = out is not None and out.path is not None
    moves = Problem.letters(out.path) if found else None
    lower = len(moves) if moves is not None and weighting is None else problem.lower_bound(bound)
    return SearchResult(
        moves,
        problem.root_h,
        lower,
        loop.generated,
        loop.expanded,
        loop.iterations,
        time.perf_counter() - t0,
        out.stopped if out is not None else None,
        jobs,
        loop.units,
        problem.machine.name,
        paused,
    )


class _Iterations:
    """The iterations of one search, each run by the serial walk or the pool of threads,
    with the counts so far."""

    def __init__(self, problem, limits, report, jobs, promising_first, race: RaceRule):
        self.problem, self.limits, self.report, self.jobs = problem, limits, report, jobs
        self.promising_first, self.race = promising_first, race
        self.serial, self.pool = _Serial(problem), None
        self.generated = self.expanded = self.iterations = self.units = 0
        self.bound = 0  # the bound of the iteration under way (see proven_bound)
        # A search that starts at a proven bound goes on with a long one: parallel at once.
        self.last_seconds = 0.0 if race.start_bound is None else PARALLEL_AFTER
        # A long search goes on in work units (UNITS_AFTER), taken most promising first.  Not
        # one that stops at a bound (a race's rival): it searches whole iterations, in any
        # order alike.
        self.ordered = promising_first and race.stop_bound is None
        self.units_after = (
            UNITS_AFTER - race.nodes_before if self.ordered else walk_state.INFINITE_F
        )
        # A serial walk goes on to the next iterations by itself (one kernel call for a short
        # search) unless someone hears about each iteration, the iterations may go parallel or
        # the search must pause at a bound.
        self.go_on = report.progress is None and jobs == 1 and race.stop_bound is None

    def run(self) -> tuple[Outcome | None, int, int | None]:
        """Iterations until a solution, a limit or a pause: ``(the last iteration's outcome,
        the bound the search would go on with, the bound it paused after or None)``."""
        problem, race = self.problem, self.race
        # A start bound is proven (a race's, a resumed search's): rounded up to the parity of
        # every solution's length, it is proven too.
        bound = max(problem.first_bound(), problem.next_bound(race.start_bound or 0))
        out = paused = None
        while True:
            self.bound = bound  # proven: every iteration below it ended without a solution
            if race.stop_bound is not None and bound > race.stop_bound:
                return out, bound, race.stop_bound  # every iteration within it is searched
            out, bound = self.iteration(bound)
            if out.path is not None or out.stopped:
                return out, bound, None
            if out.next_f >= walk_state.INFINITE_F:
                problem.exhausted()
            if race.pause_after is not None and self.generated >= race.pause_after:
                paused = bound
            bound = problem.next_bound(out.next_f)
            if paused is not None:
                return out, bound, paused

    def proven_bound(self) -> int:
        """The largest bound whose iteration has started (so every one below it ended without
        a solution): the bound the search would go on with, were it stopped now.  A serial walk
        that goes on by itself moves its bound on after each iteration it finished."""
        walk_bound = self.serial.walk.bound if self.go_on else 0
        return max(self.bound, walk_bound)

    def stopped_by_interrupt(self, lower_bound: int, seconds: float) -> SearchResult:
        """The result of this search stopped now: its counts so far (those of the iteration
        under way are lost with it), ``lower_bound`` proven."""
        return SearchResult(
            None,
            self.problem.root_h,
            lower_bound,
            self.generated,
            self.expanded,
            self.iterations,
            seconds,
            "interrupted",
            self.jobs,
            self.units,
            self.problem.machine.name,
        )

    def iteration(self, bound: int) -> tuple[Outcome, int]:
        """One iteration with ``bound`` (more, when the serial walk goes on by itself):
        ``(its outcome, the bound of the last iteration searched)``."""
        self.iterations += 1
        engine = self.serial
        if self.generated >= self.units_after or (
            self.jobs > 1 and self.last_seconds >= PARALLEL_AFTER
        ):
            from .parallel import Pool  # a long search's: a short one never reaches it

            engine = self.pool = self.pool or Pool(self.problem, self.jobs, self.promising_first)
        self.report.start(self.iterations, bound, self.jobs if engine is self.pool else 1)
        ts = time.perf_counter()
        if engine is self.serial:
            settle = self.race.pause_after
            if self.go_on and self.ordered:  # come back to go on in work units
                settle = self.units_after if settle is None else min(settle, self.units_after)
            out = self.serial.iteration(
                bound, self.limits, self.generated, self.report.tick, self.go_on, settle
            )
            self.iterations += out.iterations - 1
            bound = out.bound
        else:
            out = self.pool.iteration(bound, self.limits, self.generated, self.report.tick)
        self.last_seconds = time.perf_counter() - ts
        self.generated += out.generated
        self.expanded += out.expanded
        self.units += out.units
        if not out.stopped:
            self.report.done(self.generated)
        if out.path is None and not out.stopped:  # a limit may be reached between iterations
            out.stopped = self.limits.reason(self.generated, time.perf_counter())
        return out, bound
