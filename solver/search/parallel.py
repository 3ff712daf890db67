"""Every core on one puzzle: the work units of one IDA* iteration searched by N threads that
share one copy of the tables (layer 3: search; :mod:`solver.search.driver` decides when).

* **Threads, not processes.**  The kernels release the GIL (``nogil=True``), so N threads run
  N walks at full speed, all reading the same memory-mapped tables: nothing is copied, pickled
  or started per process.
* **The most promising units first.**  Each iteration is split into about
  ``UNITS_PER_JOB * jobs`` units (:func:`solver.search.units.split`), which workers take
  with those whose subtree came nearest the goal in the iteration before first
  (:func:`solver.search.units.promising_first`), the rest in the order the serial search
  would visit them: the last iteration reaches a solution's unit sooner.  The first of
  them is cut into pieces that every thread searches at once.
* **Work sharing at the end.**  When the queue is empty and a worker is idle, a busy worker
  hands over the untried children of the shallowest node on its path
  (:meth:`~solver.search.walk.Walk.give_away`): one huge subtree does not leave cores idle.
* **First solution wins.**  All units of an iteration share its bound and the previous
  iteration found nothing within a smaller one, so any solution found is a shortest one (at
  most W times the shortest with ``--weight W``); the worker that finds it stops the others.

Imports: the standard library's threading, and the search's walk and units.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import replace

from . import walk_state
from .units import (
    SLICE_NODES,
    Split,
    WorkUnit,
    least_by_prefix,
    promising_first,
    run_unit,
    split,
)
from .walk import Limits, Outcome, Problem, Walk

UNITS_PER_JOB = 32  # units an iteration is split into, per worker
# Pieces per thread of the most promising unit (Pool._shared): on 2 threads Korf & Taylor #8
# 52-54 s -> 29-30 s, #4 45-47 s -> 31-34 s; #1 and Korf & Felner #5, #37 lose 3-4 s each.
SHARED_PIECES = 4
JOIN_SECONDS = 0.05  # how often the coordinating thread looks at the clock and the caps


class _Iteration:
    """The state the workers of one iteration share, guarded by ``cond``."""

    def __init__(self, bound: int, units: list, limits: Limits, nodes_before: int, jobs: int):
        self.cond = threading.Condition()
        self.bound = bound
        self.queue = deque(units)
        self.limits = limits
        self.nodes_before = nodes_before
        self.jobs = jobs
        self.active = 0  # workers inside a unit
        self.hungry = 0  # workers waiting for one
        self.found = None
        self.stopped = None
        self.error = None  # what a worker raised: the coordinating thread raises it again
        self.next_f = walk_state.INFINITE_F
        self.generated = 0
        self.expanded = 0
        self.units = 0
        self.least = {}  # each unit's least h entered (by its moves), for the next iteration

    def take(self) -> WorkUnit | None:
        """The next unit, waiting while busy workers may still give some; None when the
        iteration is over."""
        with self.cond:
            while not self.queue and self.active and not self.over:
                self.hungry += 1
                self.cond.wait()
                self.hungry -= 1
            if self.over or not self.queue:
                self.cond.notify_all()
                return None
            self.active += 1
            self.units += 1
            return self.queue.popleft()

    @property
    def over(self) -> bool:
        """A solution was found or a limit reached."""
        return self.found is not None or self.stopped is not None


class Pool:
    """``jobs`` walks that search the iterations of one problem together."""

    def __init__(self, problem: Problem, jobs: int, promising_first: bool = True):
        self.problem = problem
        self.jobs = jobs
        self.want = UNITS_PER_JOB * jobs
        self.walks = [Walk(problem) for _ in range(jobs)]
        self.depth = 1  # the frontier depth of the last split: the next one starts there
        self.promising_first = promising_first
        self.least = {}  # the last iteration's least h below each prefix (promising_first)

    def iteration(self, bound: int, limits: Limits, nodes_before: int = 0, tick=None) -> Outcome:
        """Search the iteration with ``bound`` on the pool's threads.  ``tick(nodes)`` is
        called by this (coordinating) thread every ``JOIN_SECONDS`` with the nodes so far;
        a KeyboardInterrupt here stops the workers and propagates."""
        sp = split(self.problem, bound, self.want, self.depth, self.walks[0])
        if len(sp.units) >= self.want:
            # The next iteration's tree is bigger: start from this depth, or one above it
            # when this one gave many more units than wanted.
            self.depth = max(1, sp.depth - (len(sp.units) >= 4 * self.want))
        least = self.least if self.promising_first else {}
        sp = in_order(self.problem, bound, sp, least, self.jobs, self.walks[0])
        if sp.moves is not None:
            return Outcome(self.problem.path_of(sp.moves), sp.next_f, sp.generated, sp.expanded)
        it = _Iteration(bound, sp.units, limits, nodes_before, self.jobs)
        it.next_f, it.generated, it.expanded = sp.next_f, sp.generated, sp.expanded
        threads = [
            threading.Thread(target=self._work, args=(walk, it), daemon=True) for walk in self.walks
        ]
        for t in threads:
            t.start()
        try:
            for t in threads:
                while t.is_alive():
                    t.join(JOIN_SECONDS)
                    if tick is not None:
                        tick(nodes_before + it.generated)
                    reason = limits.reason(nodes_before + it.generated, time.perf_counter())
                    if reason and not it.over:
                        with it.cond:
                            it.stopped = reason
                            it.cond.notify_all()
        except BaseException:  # KeyboardInterrupt above all: stop the workers first
            with it.cond:
                it.stopped = "interrupted"
                it.cond.notify_all()
            for t in threads:
                t.join()
            raise
        if it.error is not None:
            raise it.error
        stopped = None if it.found is not None else it.stopped
        self.least = least_by_prefix(it.least)
        return Outcome(it.found, it.next_f, it.generated, it.expanded, stopped, it.units)

    def _work(self, walk: Walk, it: _Iteration) -> None:
        """A worker thread: take units until the iteration is over; anything it raises stops
        the iteration and is raised again by the coordinating thread."""
        try:
            self._take_units(walk, it)
        except BaseException as e:  # noqa: BLE001 - handed over, not swallowed
            with it.cond:
                it.error = e
                it.stopped = "error"
                it.active = 0
                it.cond.notify_all()

    def _take_units(self, walk: Walk, it: _Iteration) -> None:
        while True:
            unit = it.take()
            if unit is None:
                return
            spent = [0, 0]  # nodes of this unit already added to the shared counts

            def between(w: Walk, spent=spent) -> bool:
                with it.cond:
                    _count(it, w, spent)
                    reason = it.limits.reason(it.nodes_before + it.generated, time.perf_counter())
                    if reason and not it.over:
                        it.stopped = reason
                        it.cond.notify_all()
                    if it.over:
                        return False
                    if it.hungry and not it.queue:
                        given = w.give_away()
                        _count(it, w, spent)  # a linear-conflict walk counts what it gives
                        if given:
                            it.queue.extend(WorkUnit(Problem.letters(p)) for p in given)
                            it.cond.notify_all()
                return True

            cap = it.limits.budget(it.nodes_before + it.generated, SLICE_NODES, it.jobs)
            result = run_unit(
                self.problem, unit, it.bound, between=between, walk=walk, slice_nodes=max(1, cap)
            )
            with it.cond:
                _count(it, walk, spent)
                it.least[unit.moves] = result.least_h
                if result.moves is not None and it.found is None:
                    it.found = self.problem.path_of(result.moves)
                elif result.complete:
                    it.next_f = min(it.next_f, result.next_f)
                it.active -= 1
                it.cond.notify_all()


def in_order(
    problem: Problem, bound: int, sp: Split, least: dict, jobs: int, walk: Walk | None = None
) -> Split:
    """The units of ``sp`` (an iteration with ``bound`` cut by :func:`split`) in the order
    workers take them: with ``least`` (the iteration before's, from
    :func:`~solver.search.units.least_by_prefix`) the most promising first, and with several
    workers (``jobs``) the first of them cut into about ``SHARED_PIECES * jobs`` pieces in
    search order, for every worker to search at once.  The counts, the smallest pruned cost
    and a solution met while cutting are the whole top's.

    Why share: the unit nearest the goal often holds the solution and can be large (Korf &
    Taylor #8: 990 M nodes in it before its solution), and one worker alone would search it
    while the others search units that hold none.  Taken in search order, the pieces keep the
    unit's own order of children (smallest h first); ordered again by their least h they lost
    more than they won (docs/research/search.md, section 9)."""
    if sp.moves is not None or not least or not sp.units:
        return sp
    units = promising_first(sp.units, least)
    if jobs <= 1:
        return replace(sp, units=units)
    first = units[0]
    top = split(problem, bound, SHARED_PIECES * jobs, first.g + 1, walk, below=first)
    return replace(
        sp,
        units=top.units + units[1:],
        moves=top.moves,
        next_f=min(sp.next_f, top.next_f),
        generated=sp.generated + top.generated,
        expanded=sp.expanded + top.expanded,
    )


def _count(it: _Iteration, walk: Walk, spent: list) -> None:
    """Add the walk's nodes since the last call to the iteration's counts (under it.cond)."""
    it.generated += walk.generated - spent[0]
    it.expanded += walk.expanded - spent[1]
    spent[0], spent[1] = walk.generated, walk.expanded
