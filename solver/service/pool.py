"""Worker processes that run searches off the event loop (layer 7: service).

A hard 15-puzzle can keep a core busy for a minute; a teaching BFS is pure Python.  Neither
may hold up the event loop, which keeps answering lookups in microseconds, so every answer
that may search runs in one of ``workers`` processes.  Processes, not threads: the teaching
searches and the board parsing hold the GIL, and a process can be ended without ending the
server.

Each worker is started with ``spawn`` (a clean interpreter: the server has threads and an
event loop by then, which a ``fork`` would copy half-made), loads the compiled kernels from
numba's on-disk cache and memory-maps the databases once (the pages live once in the page
cache, shared with every other process), says it is ready, then answers one request at a time.

The pool hands a request to an idle worker only, so it knows when each search started: a
worker that has not answered ``limits.hard_seconds`` after it began (every search stops itself
at ``max_seconds``; this is the safety net) is killed and replaced, and so is one that dies.
Requests beyond ``max_pending`` get a 503 at once instead of an ever longer queue.

Imports: the standard library, :mod:`.work`, :mod:`.limits`; the worker side imports the
search modules.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing as mp
import os
import signal
from dataclasses import dataclass

from . import work
from .limits import Settings

log = logging.getLogger("npuzzle.serve")
READY = "ready"


# --- the worker side -----------------------------------------------------------------------


def warm_up(settings: Settings) -> None:
    """Load what the searches need before the first request: the IDA* kernels (from numba's
    cache) and, for every shape with a pattern database built, the strongest one.  Best
    effort: a problem here is reported by the request that meets it."""
    from .. import api
    from ..core.board import goal_board
    from ..search import idastar
    from ..tables import catalog

    try:
        idastar.warm_up(goal_board("3x3"), api.SearchOptions(heuristic="linear-conflict"))
        shapes = {e.shape for e in catalog.scan(settings.data_dir) if e.kind == catalog.ADDITIVE}
        for shape in sorted(shapes, key=str):
            idastar.warm_up(goal_board(shape), api.SearchOptions(data_dir=settings.data_dir))
    except Exception as e:  # noqa: BLE001 - see the docstring
        log.warning("search worker warm-up: %s", e)


def serve_requests(conn, settings: Settings) -> None:
    """A worker's life: warm up, say ready, then answer ``(endpoint, params)`` messages with
    ``(status, body)`` until the connection closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's to handle
    warm_up(settings)
    conn.send((READY, os.getpid()))
    while True:
        try:
            endpoint, params = conn.recv()
        except (EOFError, OSError):
            return
        conn.send(work.answer(endpoint, params, settings))


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
        self._closed = False

    # -- life cycle --

    def start(self) -> None:
        """Start the workers; each becomes idle once warm (the server answers lookups
        meanwhile)."""
        self._idle = asyncio.Queue()
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
        self._closed = True
        for task in list(self._starting):
            task.cancel()
        for worker in list(self._all):
            self._discard(worker)

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

    async def run(self, endpoint: str, params: dict) -> tuple[int, dict]:
        """Answer one request in a worker: ``(status, body)``."""
        limits = self.settings.limits
        if self.pending >= limits.max_pending:
            return 503, {
                "error": f"busy: {self.pending} searches are running or waiting; try again shortly"
            }
        self.waiting += 1
        try:
            worker = await asyncio.wait_for(self._idle.get(), limits.max_wait_seconds)
        except asyncio.TimeoutError:
            return 503, {
                "error": f"busy: no search worker became free within "
                f"{limits.max_wait_seconds:g} s; try again later"
            }
        finally:
            self.waiting -= 1
        self.running += 1
        try:
            worker.conn.send((endpoint, params))
            result = await self._receive(worker, timeout=limits.hard_seconds)
        except WorkerLost as e:
            self._replace(worker)
            return 503, {"error": f"the search was ended: {e}; try again"}
        except asyncio.CancelledError:
            # Only a server shutting down cancels a request (after its grace period): end
            # the search, and tell the client in the API's own words.
            self.ready -= 1
            self._discard(worker)
            return 503, {"error": "the server is shutting down; try again later"}
        finally:
            self.running -= 1
        self._idle.put_nowait(worker)
        return result

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


__all__ = ["SearchPool", "serve_requests", "warm_up", "WorkerLost"]
