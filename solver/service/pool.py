"""Worker processes that run searches off the event loop (layer 7: service).

A hard 15-puzzle can keep a core busy for a minute; a teaching BFS is pure Python.  Neither
may hold up the event loop, which keeps answering lookups in microseconds, so every answer
that may search runs in one of ``workers`` processes.  Processes, not threads: the teaching
searches and the board parsing hold the GIL, and a process can be ended without ending the
server.

Each worker is started with ``spawn`` (a clean interpreter: the server has threads and an
event loop by then, which a ``fork`` would copy half-made), loads the compiled kernels and
memory-maps the databases once (the pages live once in the page
cache, shared with every other process), says it is ready, then answers one request at a time.

The pool hands a request to an idle worker only, so it knows when each search started: a
worker that has not answered ``limits.hard_seconds`` after it began (every search stops itself
at ``max_seconds``; this is the safety net) is killed and replaced, and so is one that dies.

Abuse it must survive:

* a client that hangs up mid-search: the request's task is cancelled (:mod:`.app` watches the
  connection), and the worker is told to drop the search (``SIGUSR1``, raised as
  :class:`Cancelled` between two slices of the search) and is idle again in a moment; one that
  does not answer within ``cancel_seconds`` is ended and replaced;
* a flood: a request whose expected wait for a worker -- the requests waiting ahead of it and
  one more, shared by the workers, times the recent searches' mean duration (the cap, before
  any has run) -- is over ``max_expected_wait`` gets a 503 with ``retry_after`` at once, and so
  does any request beyond ``max_pending``.  The estimate can be wrong (a burst of hard
  searches after quick ones): a request still waiting for a worker after
  ``max_expected_wait`` gets the same 503 then, so none waits longer;
* shutting down (:meth:`SearchPool.abort`, on SIGTERM or Ctrl-C): the workers are ended and
  every request in flight is answered 503 at once, so the server closes its connections and
  exits promptly instead of waiting out uvicorn's grace period.

Imports: the standard library, :mod:`.work`, :mod:`.limits`; the worker side imports the
search modules.
"""

from __future__ import annotations

import asyncio
import logging
import math
import multiprocessing as mp
import os
import signal
import time
from dataclasses import dataclass

from . import work
from .limits import Settings

log = logging.getLogger("npuzzle.serve")
READY = "ready"
CANCELLED = "cancelled"  # a worker's answer to a search it was told to drop
CANCEL_SIGNAL = signal.SIGUSR1
MEAN_WEIGHT = 0.3  # of the newest search in the running mean of search durations
SHUTTING_DOWN = (503, {"error": "the server is shutting down; try again later"})


class Cancelled(BaseException):
    """Raised in a worker, between two slices of its search, when the server asks it to drop
    the search (its client hung up).  Not an ``Exception``: nothing on the way up may take
    it for the search's own failure."""


# --- the worker side -----------------------------------------------------------------------


def warm_up(settings: Settings) -> None:
    """Load what the searches need before the first request: the IDA* kernels and, for
    every shape with a pattern database built, the strongest one.  Best
    effort: a problem here is reported by the request that meets it."""
    from .. import api
    from ..core import config
    from ..core.board import Shape, goal_board
    from ..core.solution import LC_HEURISTIC
    from ..search import fsm
    from ..tables import catalog, names

    try:
        api.warm_up(goal_board("3x3"), api.SearchOptions(heuristic=LC_HEURISTIC))
        shapes = {e.shape for e in catalog.scan(settings.data_dir) if e.kind == names.ADDITIVE}
        for shape in sorted(shapes, key=str):
            api.warm_up(goal_board(shape), api.SearchOptions(data_dir=settings.data_dir))
        # The pruning machines of the shapes a database is named for, with or without one
        # built: made once per cache directory (0.1-0.5 s), then read in milliseconds.
        for shape in config.DEFAULT_PARTITION:
            fsm.machine_for(Shape.parse(shape))
    except Exception as e:  # noqa: BLE001 - see the docstring
        log.warning("search worker warm-up: %s", e)


def serve_requests(conn, settings: Settings) -> None:
    """A worker's life: warm up, say ready, then answer ``(endpoint, params)`` messages with
    ``(status, body)`` until the connection closes -- exactly one answer per message, which is
    ``(CANCELLED, None)`` when the server dropped the search."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's to handle
    busy = [False]  # only a search under way is dropped: a late signal is ignored

    def drop(signum, frame):
        if busy[0]:
            busy[0] = False
            raise Cancelled

    signal.signal(CANCEL_SIGNAL, drop)
    warm_up(settings)
    conn.send((READY, os.getpid()))
    while True:
        try:
            endpoint, params = conn.recv()
        except (EOFError, OSError):
            return
        try:
            busy[0] = True
            result = work.answer(endpoint, params, settings)
            busy[0] = False
        except Cancelled:
            result = (CANCELLED, None)
        conn.send(result)


# --- the server side -----------------------------------------------------------------------


@dataclass(eq=False)  # workers are kept in a set, by identity
class _Worker:
    process: mp.process.BaseProcess
    conn: object  # multiprocessing Connection


class WorkerLost(Exception):
    """A worker died, or was ended for overrunning its time."""


class SearchPool:
    """``workers`` search processes and the requests waiting for them."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self._ctx = mp.get_context("spawn")
        self._idle: asyncio.Queue | None = None
        self._all: set = set()
        self.ready = 0
        self.running = 0
        self.waiting = 0
        self._starting: set = set()
        self._reclaiming: set = set()
        self._busy_workers: set = set()
        self._loop = None
        self._closed = False
        self.cancelled = 0  # searches dropped because their client hung up
        self.refused = 0  # requests refused because the wait would be too long
        self.mean_seconds: float | None = None  # running mean of the searches' durations

    # -- life cycle --

    def start(self) -> None:
        """Start the workers; each becomes idle once warm (the server answers lookups
        meanwhile)."""
        self._idle = asyncio.Queue()
        self._loop = asyncio.get_running_loop()
        for _ in range(self.settings.workers):
            self._spawn()

    def _spawn(self) -> None:
        parent, child = self._ctx.Pipe()
        proc = self._ctx.Process(
            target=serve_requests, args=(child, self.settings), name="npuzzle-search", daemon=True
        )
        proc.start()
        child.close()
        worker = _Worker(proc, parent)
        self._all.add(worker)
        task = asyncio.get_running_loop().create_task(self._await_ready(worker))
        self._starting.add(task)
        task.add_done_callback(self._starting.discard)

    async def _await_ready(self, worker: _Worker) -> None:
        try:
            message = await self._receive(worker, timeout=None)
        except WorkerLost:
            log.error("a search worker died while starting (exit code %s)", worker.process.exitcode)
            self._discard(worker)
            return
        if message[0] == READY and not self._closed:
            self.ready += 1
            self._idle.put_nowait(worker)

    async def close(self) -> None:
        """End every worker."""
        self.abort()

    def abort(self) -> None:
        """Shutting down: end every worker now; every request in flight is answered 503 (a
        running one when its worker's pipe closes, a waiting one at once)."""
        if self._closed:
            return
        self._closed = True
        for task in list(self._starting) + list(self._reclaiming):
            task.cancel()
        for worker in list(self._all):
            if worker in self._busy_workers:
                worker.process.kill()  # its request reads the closed pipe, then discards it
            else:
                self._discard(worker)
        for _ in range(self.waiting):
            self._idle.put_nowait(None)  # wakes a waiting request: see run()

    def abort_soon(self) -> None:
        """:meth:`abort` on the event loop, from a signal handler."""
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self.abort)

    def _discard(self, worker: _Worker) -> None:
        self._all.discard(worker)
        try:
            worker.conn.close()
        except OSError:
            pass
        if worker.process.is_alive():
            worker.process.kill()
        worker.process.join(timeout=5)

    def _replace(self, worker: _Worker) -> None:
        self.ready -= 1
        self._discard(worker)
        if not self._closed:
            self._spawn()

    # -- requests --

    @property
    def pending(self) -> int:
        """Requests running or waiting for a worker."""
        return self.running + self.waiting

    def expected_wait(self) -> float:
        """Seconds a new request would wait for a worker, roughly: none while one is idle
        (or starting), else the time for the workers to finish the requests waiting ahead of it and one
        more, each taking the recent searches' mean time -- the cap before any search has
        run here (no evidence yet: the worst the server allows)."""
        starting = len(self._starting)  # free as soon as they are warm
        if self._idle is not None and self._idle.qsize() + starting > self.waiting:
            return 0.0
        limits = self.settings.limits
        typical = limits.max_seconds if self.mean_seconds is None else self.mean_seconds
        return (self.waiting + 1) / max(1, self.settings.workers) * typical

    def longest_wait(self) -> float:
        """How long a request waits for a worker before it gets a 503: ``max_expected_wait``
        (``--max-wait``), whatever the estimate said when it was queued -- searches that
        were quick until now say little of the ones ahead of it; before any worker is ready,
        ``max_wait_seconds``, since a first start may compile the kernels."""
        limits = self.settings.limits
        return limits.max_expected_wait if self.ready else limits.max_wait_seconds

    def _busy(self) -> tuple[int, dict] | None:
        """The 503 for a request that should not queue, or None."""
        limits = self.settings.limits
        if self.pending >= limits.max_pending:
            wait, why = self.expected_wait(), f"{self.pending} searches are running or waiting"
        else:
            wait = self.expected_wait()
            if wait <= limits.max_expected_wait:
                return None
            why = f"the wait for a search worker would be about {wait:.0f} s"
        self.refused += 1
        retry = max(1, math.ceil(wait - limits.max_expected_wait))
        return 503, {"error": f"busy: {why}; try again in {retry} s", "retry_after": retry}

    async def run(self, endpoint: str, params: dict) -> tuple[int, dict]:
        """Answer one request in a worker: ``(status, body)``.  Cancelling the call (the
        client hung up) drops the search and frees the worker in a moment."""
        if self._closed:
            return SHUTTING_DOWN
        refused = self._busy()
        if refused:
            return refused
        limits = self.settings.limits
        deadline = self.longest_wait()
        self.waiting += 1
        try:
            worker = await asyncio.wait_for(self._idle.get(), deadline)
        except asyncio.TimeoutError:
            self.refused += 1
            retry = max(1, math.ceil(self.expected_wait()))
            return 503, {
                "error": f"busy: no search worker became free within {deadline:g} s; "
                f"try again in {retry} s",
                "retry_after": retry,
            }
        finally:
            self.waiting -= 1
        if worker is None:  # woken by abort()
            return SHUTTING_DOWN
        self.running += 1
        self._busy_workers.add(worker)
        started = time.monotonic()
        try:
            worker.conn.send((endpoint, params))
            result = await self._receive(worker, timeout=limits.hard_seconds)
        except WorkerLost as e:
            if self._closed:
                self._discard(worker)
                return SHUTTING_DOWN
            self._replace(worker)
            return 503, {"error": f"the search was ended: {e}; try again"}
        except asyncio.CancelledError:
            if self._closed:  # uvicorn gave up waiting: the worker is already ended
                return SHUTTING_DOWN
            self._drop(worker)
            raise
        finally:
            self.running -= 1
            self._busy_workers.discard(worker)
        self._learn(time.monotonic() - started)
        self._idle.put_nowait(worker)
        if result[0] == CANCELLED:  # a drop meant for the search before (a signal's race)
            return 503, {"error": "the search was interrupted; try again", "retry_after": 1}
        return result

    def _learn(self, seconds: float) -> None:
        m = self.mean_seconds
        self.mean_seconds = seconds if m is None else m + MEAN_WEIGHT * (seconds - m)

    def _drop(self, worker: _Worker) -> None:
        """The client of ``worker``'s search hung up: tell the worker to drop the search,
        and take it back once it answers."""
        self.cancelled += 1
        try:
            os.kill(worker.process.pid, CANCEL_SIGNAL)
        except OSError:
            pass  # it has just died: _reclaim finds out
        task = asyncio.get_running_loop().create_task(self._reclaim(worker))
        self._reclaiming.add(task)
        task.add_done_callback(self._reclaiming.discard)

    async def _reclaim(self, worker: _Worker) -> None:
        try:
            await self._receive(worker, timeout=self.settings.limits.cancel_seconds)
        except WorkerLost as e:
            log.warning("a search worker did not drop its search: %s; replacing it", e)
            self._replace(worker)
            return
        if self._closed:
            self._discard(worker)
        else:
            self._idle.put_nowait(worker)

    async def _receive(self, worker: _Worker, timeout: float | None):
        """The next message from ``worker``, read when its pipe becomes readable."""
        loop = asyncio.get_running_loop()
        done = loop.create_future()
        fd = worker.conn.fileno()

        def readable():
            if not done.done():
                done.set_result(None)

        loop.add_reader(fd, readable)
        try:
            await asyncio.wait_for(done, timeout)
        except asyncio.TimeoutError:
            raise WorkerLost(f"no answer within {timeout:g} s") from None
        finally:
            loop.remove_reader(fd)
        try:
            return worker.conn.recv()
        except (EOFError, OSError):
            raise WorkerLost(f"the worker exited (code {worker.process.exitcode})") from None


__all__ = ["SearchPool", "serve_requests", "warm_up", "WorkerLost", "Cancelled", "CANCELLED"]
