"""Batches on a Dask cluster: ``npuzzle solve - --scheduler ADDRESS`` (layer 5: workloads).

Dask (``dask.distributed``) is the engine for more than one machine (DESIGN §7): the user runs
``dask scheduler`` and a ``dask worker`` on each machine, and npuzzle only submits tasks.

* **Boards per task.**  The scheduler spends about a millisecond on every task, and a 3x3
  lookup takes tens of microseconds, so a task carries several boards: as many as make about
  :data:`TARGET_TASK_SECONDS` of solving at the time per board measured so far (a 3x3 lookup:
  thousands; a 15-puzzle with 7-8: dozens; a hard one: one).  With many workers each task
  grows further, so the scheduler -- which handles tasks one at a time -- never becomes the
  limit (``docs/cluster.md`` has the measurements).
* **A bounded window.**  Tasks are submitted while fewer than :data:`TASKS_PER_THREAD` per
  worker thread are unanswered and fewer than :data:`MAX_BOARDS_HELD` lines are held (on a
  big cluster of quick boards the window shrinks to :data:`MIN_TASKS_PER_THREAD` tasks per
  thread before tasks get smaller): a stream of ten million lines never sits in memory, and
  the answers are yielded in input order.
* **Databases on the workers.**  A task opens the tables in its worker process (once per
  process: the open cache), from ``--data-dir`` as given or the worker's own default
  (``$NPUZZLE_DATA``...).  A worker that lacks one answers with the exit-3 error, prefixed
  with its address and host.
* **Nothing lost.**  A task is pure (boards in, answers out) and the client holds its future
  until it has the answers: when a worker dies, Dask runs its tasks again elsewhere, and every
  answer is yielded once.  A task that kills ``distributed.scheduler.allowed-failures``
  workers ends the run with :class:`ClusterError`.
* **A lost scheduler** ends the run with :class:`SchedulerLost` as soon as the client's
  futures are cancelled, without asking the scheduler for anything more (each call would wait
  out the client's reconnection first).  The answers are fetched by the caller's own call,
  so a fetch that meets the loss raises there, not on the client's event loop.

One hard board cut into IDA* work units: :mod:`.cluster_search`.

Imports: :mod:`.batch` and, inside functions only, ``dask.distributed`` (importing this module
costs nothing and works without Dask).
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import socket
import time
import uuid
from collections.abc import Callable, Iterable, Iterator

from ..tables.store import DatabaseError
from .batch import LINE_ERRORS, _portable, _restore, solve_line

INSTALL = "pip install 'npuzzle[cluster]' (or: pip install 'dask[distributed]')"
CONNECT_SECONDS = 10  # how long to try reaching the scheduler
TARGET_TASK_SECONDS = 0.2  # the solving one task of boards aims at
SCHEDULER_SECONDS = 0.001  # the scheduler's time per task (about; see docs/cluster.md)
SCHEDULER_SHARE = 0.25  # tasks grow with the cluster so the scheduler stays below this load
MAX_BOARDS_PER_TASK = 4096
# Unanswered tasks per worker thread: every thread has the next at hand, and a slow board at
# the head of the answers (they are printed in order) does not soon leave the others idle.
TASKS_PER_THREAD = 16
MIN_TASKS_PER_THREAD = 2  # what the cap on held lines may shrink the window to
MAX_BOARDS_HELD = 250_000  # input lines the client holds at most (submitted, not yet answered)
REFRESH_SECONDS = 2.0  # how often the number of worker threads is asked again
# The loggers Dask's default logging configuration sets a level on (its "Logging" docs); any
# others it logs to are their children, or named in the user's Dask configuration.
DASK_LOGGERS = ("distributed", "distributed.client", "distributed.gc")


class ClusterError(Exception):
    """The cluster cannot do the work: no Dask, no scheduler at the address, or a task that
    keeps killing its workers."""


class SchedulerLost(ClusterError):
    """The scheduler went away in the middle of the work (killed, its machine down, the
    network cut): the client's futures were cancelled, or a call on it failed to connect."""

    def __init__(self, address: str, proven: str = ""):
        self.address = address
        super().__init__(f"lost the Dask scheduler at {address}{proven}")

    def proving(self, proven: str) -> SchedulerLost:
        """The same loss, followed by what the work had proven before it (``" after 4.2 s:
        the optimal length is at least 51"``)."""
        return SchedulerLost(self.address, proven)


def connection_errors() -> tuple[type[BaseException], ...]:
    """What a call on a client whose scheduler went away raises: its futures cancelled, the
    connection closed, or the reconnection timed out (a plain ``OSError``)."""
    distributed = require_dask()
    from distributed.comm import CommClosedError

    return (distributed.CancelledError, CommClosedError, TimeoutError, OSError)


@contextlib.contextmanager
def on_scheduler(client):
    """Calls on the scheduler (``client.nthreads()``, an Event's ``set``...): its loss is
    :class:`SchedulerLost`.  Not for a task's own result: a task may raise an OSError of its
    own (:func:`task_result` tells the two apart)."""
    try:
        yield
    except connection_errors():
        raise SchedulerLost(client.scheduler.address) from None


def task_result(client, future):
    """``future.result()``: what the task returned, or the error it raised; a future that
    ended without the task raising (cancelled with the connection, its result not fetched)
    is :class:`SchedulerLost`."""
    try:
        return future.result()
    except connection_errors():
        if future.status == "error":  # the task's own error
            raise
        raise SchedulerLost(client.scheduler.address) from None


def require_dask():
    """The ``distributed`` module, or :class:`ClusterError` saying how to install it."""
    try:
        import distributed
    except ImportError:
        raise ClusterError(f"--scheduler needs Dask, which is not installed: {INSTALL}") from None
    return distributed


def connect(address: str):
    """A ``distributed.Client`` connected to the scheduler at ``address``
    (``tcp://host:8786``); :class:`ClusterError` when there is none."""
    distributed = require_dask()
    try:
        return distributed.Client(address, timeout=CONNECT_SECONDS, set_as_default=False)
    except Exception as e:  # noqa: BLE001 - OSError, TimeoutError, ValueError for bad addresses
        why = " ".join(str(e).split())[:200] or type(e).__name__
        raise ClusterError(
            f"cannot reach the Dask scheduler at {address!r} ({why}); start "
            f"one with 'dask scheduler' and give its address"
        ) from None


def quiet_logs() -> None:
    """Dask's own log lines (the ``distributed`` loggers) off for the rest of the process:
    a lost scheduler, say, is the command's one line, not the client's tracebacks as it gives
    up reconnecting."""
    require_dask()
    import dask

    configured = dask.config.get("logging", default=None)
    configured = configured if isinstance(configured, dict) else {}
    named = {*DASK_LOGGERS, *configured, *(configured.get("loggers") or {})}
    for name in named:
        if str(name).split(".")[0] == "distributed":
            logging.getLogger(name).setLevel(logging.CRITICAL + 1)


def worker_threads(client) -> int:
    """The threads of all the workers the scheduler knows now (0 when none yet)."""
    return sum(client.nthreads().values())


def where() -> str:
    """Which Dask worker runs the caller: ``worker tcp://10.0.0.5:40123 on host node5``."""
    try:
        from distributed import get_worker

        address = get_worker().address
    except (ImportError, ValueError):
        address = "(not in a worker)"
    return f"worker {address} on host {socket.gethostname()}"


def blamed(exc: BaseException) -> BaseException:
    """A missing or damaged database, its message prefixed with the worker that met it (the
    fix command must run there); other errors as they are."""
    if isinstance(exc, DatabaseError) and exc.args and "worker " not in str(exc.args[0])[:8]:
        exc.args = (f"{where()}: {exc.args[0]}", *exc.args[1:])
    return exc


def answer_task(fn: Callable, items: list) -> tuple[list, float]:
    """Run on a worker: ``fn(item)`` for each item, each result or the line error it raised
    made portable; and the seconds it took (the client sizes later tasks by it)."""
    t0 = time.perf_counter()
    out = []
    for item in items:
        try:
            result = fn(item)
        except LINE_ERRORS as e:
            result = e
        if isinstance(result, BaseException):
            result = blamed(result)
        out.append(_portable(result))
    return out, time.perf_counter() - t0


class Pacer:
    """How many boards the next task carries and how many tasks may be unanswered, from the
    solving time per board measured so far and the number of worker threads."""

    def __init__(self, threads: int):
        self.per_board = None  # seconds, a moving average
        self.set_threads(threads)

    def set_threads(self, threads: int) -> None:
        """The cluster has ``threads`` worker threads now."""
        self.threads = max(1, threads)
        # threads / task_seconds tasks per second reach the scheduler; keep its share low.
        self.task_seconds = max(
            TARGET_TASK_SECONDS, self.threads * SCHEDULER_SECONDS / SCHEDULER_SHARE
        )
        self.window = TASKS_PER_THREAD * self.threads

    def learn(self, boards: int, seconds: float) -> None:
        """A task of ``boards`` boards took ``seconds`` of solving."""
        if boards:
            t = seconds / boards
            self.per_board = t if self.per_board is None else 0.7 * self.per_board + 0.3 * t

    def boards(self) -> int:
        """The boards the next task carries."""
        if self.per_board is None:
            return 1  # nothing measured yet: the first tasks tell
        want = int(self.task_seconds / max(self.per_board, 1e-7))
        # Lines held are capped: fewer tasks in flight first, smaller tasks only past that.
        held = MAX_BOARDS_HELD // (MIN_TASKS_PER_THREAD * self.threads)
        return max(1, min(want, MAX_BOARDS_PER_TASK, held))


def map_ordered(
    client, fn: Callable, items: Iterable, *, bar=None, pacer: Pacer | None = None
) -> Iterator[tuple]:
    """Yield ``(item, fn(item))`` for every item, in order, ``fn`` run on the cluster's
    workers (a picklable function; the line errors it raises are yielded as results, a
    missing database prefixed with the worker).  ``bar``: a tqdm bar counting finished items;
    ``pacer``: one that has measured earlier calls.  Unanswered tasks are cancelled when the
    caller stops early."""
    distributed = require_dask()
    source = iter(items)
    pacer = pacer or Pacer(worker_threads(client))
    refreshed = time.monotonic()
    # Without results: as_completed only tells which futures are done, and the answers are
    # fetched here, in this thread's own call (_next_batch).  Fetched by as_completed
    # (with_results=True), one that met a lost scheduler would fail on the event loop, where
    # nothing of ours catches it, and tornado would print its traceback before our one line.
    done = distributed.as_completed(loop=client.loop)
    group = f"npuzzle-boards-{uuid.uuid4().hex}"  # Dask's task group: "npuzzle-boards"
    chunks: dict = {}  # task number -> its items (until they are yielded)
    futures: dict = {}  # future key -> (task number, future), for tasks still running
    answered: dict = {}  # task number -> its results, finished out of order
    submitted = yielded = held = 0
    exhausted = False
    try:
        while True:
            while not exhausted and submitted - yielded < pacer.window and held < MAX_BOARDS_HELD:
                chunk = list(itertools.islice(source, pacer.boards()))
                if not chunk:
                    exhausted = True
                    break
                future = client.submit(answer_task, fn, chunk, pure=False, key=(group, submitted))
                futures[future.key] = (submitted, future)
                chunks[submitted] = chunk
                held += len(chunk)
                done.add(future)
                submitted += 1
            if yielded in answered:
                chunk, results = chunks.pop(yielded), answered.pop(yielded)
                held -= len(chunk)
                yielded += 1
                for item, payload in zip(chunk, results):
                    yield item, _restore(payload)
                continue
            if exhausted and yielded == submitted:
                return
            for future, (results, seconds) in _next_batch(client, done):
                k = futures.pop(future.key)[0]
                answered[k] = results
                pacer.learn(len(results), seconds)
                if bar is not None:
                    bar.update(len(results))
            if time.monotonic() - refreshed > REFRESH_SECONDS:
                with on_scheduler(client):
                    pacer.set_threads(worker_threads(client))
                refreshed = time.monotonic()
    except SchedulerLost:
        futures.clear()  # gone with the scheduler: nothing to cancel, no one to ask
        raise
    finally:
        if futures:  # the caller stopped early (or an error ends the run)
            client.cancel([f for _, f in futures.values()])


def cluster_failure(exc: BaseException) -> ClusterError | None:
    """What a task's failure means, when it is the cluster's and not the task's: workers
    that kept dying on it, or a scheduler or worker that could not read it (another version
    of npuzzle, or none, where it runs)."""
    from distributed import KilledWorker

    if isinstance(exc, KilledWorker):
        return ClusterError(
            f"workers died running a task, again and again ({exc}); see the workers' logs"
        )
    text = str(exc)
    unreadable = (
        isinstance(exc, ImportError)
        or isinstance(exc, RuntimeError)
        and "deserializ" in text
        or isinstance(exc, AttributeError)
        and (text.startswith("module 'solver") or "Can't get attribute" in text)
    )
    if unreadable:
        return ClusterError(
            "the scheduler or a worker could not read the task: install the "
            "same npuzzle (with [cluster]) on the scheduler and every worker "
            f"and restart them ({' '.join(text.split())[:160]})"
        )
    return None


def _next_batch(client, done) -> list[tuple]:
    """The tasks finished since the last call (at least one: it waits for one) as
    ``(future, result)`` pairs, their results fetched in one call on the scheduler; a task
    that killed its workers or that the cluster could not read is a :class:`ClusterError`,
    a scheduler lost before or while the results come a :class:`SchedulerLost`."""
    futures = done.next_batch(block=True)
    try:
        results = client.gather(futures)
    except Exception as e:  # noqa: BLE001 - told apart below; a bug in npuzzle as it is
        for future in futures:
            # The task raised (also one run again, its result lost with a worker, while the
            # results came): its own error or the cluster's.
            if future.status == "error":
                _failed(client, future)
        if isinstance(e, connection_errors()):  # cancelled with the connection, or cut
            raise SchedulerLost(client.scheduler.address) from None
        raise
    return list(zip(futures, results))


def _failed(client, future):
    """Raise the error of a task that raised: a :class:`ClusterError` when it is the
    cluster's failure, else the task's own error as it is."""
    try:
        task_result(client, future)
    except SchedulerLost:
        raise
    except Exception as e:  # noqa: BLE001 - a bug in the task itself propagates as it is
        failure = cluster_failure(e)
        if failure is None:
            raise
        raise failure from None
    raise AssertionError(f"internal error: task {future.key} failed without an error")


def on_problem(fn: Callable, problem):
    """``fn(start, goal)`` of a problem ``(start, goal)`` (an error passed in is passed on)."""
    return problem if isinstance(problem, BaseException) else fn(*problem)


class Answers:
    """``answers(problems)``: ``fn(start, goal)`` of each problem, in order, on the cluster
    (the line errors it raises given back as results) -- what the batch driver calls once per
    chunk of input; the pace measured and the progress bar carry over from chunk to chunk."""

    def __init__(self, client, fn: Callable, progress: bool = False):
        import functools

        self.client = client
        self.fn = functools.partial(on_problem, fn)
        self.pacer = Pacer(worker_threads(client))
        self.bar = progress_bar(progress)

    def __call__(self, problems: Iterable) -> Iterator:
        for _, result in map_ordered(
            self.client, self.fn, problems, bar=self.bar, pacer=self.pacer
        ):
            yield result

    def close(self) -> None:
        """Close the progress bar."""
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def solve_lines(
    client, lines: Iterable[str], *, goal=None, shape=None, options=None, progress: bool = False
) -> Iterator[tuple]:
    """Like :func:`solver.workloads.batch.solve_stream`, on the cluster: ``(line, result)``
    for every line in order, ``result`` a Solution, the error raised for that line, or None
    for a blank or comment line."""
    import functools

    fn = functools.partial(solve_line, goal=goal, shape=shape, options=options)
    bar = progress_bar(progress)
    try:
        yield from map_ordered(client, fn, lines, bar=bar)
    finally:
        if bar is not None:
            bar.close()


def progress_bar(progress: bool):
    """A progress bar on stderr counting finished boards, or None."""
    if not progress:
        return None
    from ..core.progress_bar import ProgressBar  # tqdm, with one lock for every bar

    return ProgressBar(unit="board", desc="solving on the cluster", leave=False, dynamic_ncols=True)


__all__ = [
    "ClusterError",
    "SchedulerLost",
    "connection_errors",
    "on_scheduler",
    "task_result",
    "connect",
    "quiet_logs",
    "map_ordered",
    "Answers",
    "on_problem",
    "solve_lines",
    "answer_task",
    "where",
    "blamed",
    "worker_threads",
    "Pacer",
    "INSTALL",
]
