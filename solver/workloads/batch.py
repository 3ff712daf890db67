"""Solve many boards, one per input line, answering in input order -- on one or N processes.

With ``jobs > 1`` the lines are solved by a pool of forked worker processes.  Each worker
memory-maps the database files on its first puzzle (the pages live once in the operating
system's page cache, shared by every process) and loads the compiled kernels from numba's
on-disk cache, so nothing is compiled or read twice; the parent hands out one line at a time and
yields the answers in input order.

Imports: the solver API (and multiprocessing / tqdm when asked for).
"""
from __future__ import annotations

import os
import signal
import sys
from typing import Iterable, Iterator

from .. import api
from ..core.board import BoardError
from ..core.solution import SearchLimitReached, Solution, Unsolvable
from ..tables.store import DatabaseError

# What a single line may fail with; anything else is a bug and propagates.
LINE_ERRORS = (BoardError, Unsolvable, SearchLimitReached, DatabaseError)


def solve_line(line: str, goal=None, shape=None, options: api.SearchOptions | None = None):
    """The Solution for one input line, the exception it raised, or None for a blank line."""
    text = line.strip()
    if not text or text.startswith("#"):
        return None
    try:
        return api.solve(text, goal, shape=shape, options=options)
    except LINE_ERRORS as e:
        return e


def default_jobs() -> int:
    """The number of processes ``--jobs`` defaults to: the cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def solve_stream(lines: Iterable[str], *, goal=None, shape=None,
                 options: api.SearchOptions | None = None, jobs: int = 1,
                 progress: bool = False) -> Iterator[tuple[str, Solution | Exception | None]]:
    """Yield ``(line, result)`` for each line, in input order; ``result`` is a Solution, the
    exception raised for that line, or None for a blank or comment line.

    ``jobs`` processes solve in parallel (``jobs <= 0``: one per core); ``progress`` shows a
    tqdm bar on stderr.  A KeyboardInterrupt stops the workers and propagates.
    """
    jobs = default_jobs() if jobs is None or jobs <= 0 else jobs
    bar = _progress_bar(lines, progress)
    try:
        if jobs == 1:
            for line in lines:
                result = solve_line(line, goal, shape, options)
                _tick(bar, result)
                yield line, result
        else:
            yield from _parallel(lines, goal, shape, options, jobs, bar)
    finally:
        if bar is not None:
            bar.close()


def _progress_bar(lines, progress: bool):
    if not progress:
        return None
    from tqdm import tqdm

    total = len(lines) if hasattr(lines, "__len__") else None
    return tqdm(total=total, unit="board", desc="solving", leave=False, dynamic_ncols=True)


def _tick(bar, result) -> None:
    if bar is not None:
        bar.update(1)
        if isinstance(result, Exception) and not isinstance(result, Solution):
            bar.set_postfix_str(type(result).__name__, refresh=False)


# --- the process pool ------------------------------------------------------------------------

_WORKER_ARGS: tuple = ()


def _init_worker(goal, shape, options) -> None:
    global _WORKER_ARGS
    # Ctrl-C goes to the whole process group; the parent alone handles it and stops the pool.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A worker has nothing to say on stderr (every answer, error included, goes back to the
    # parent), but one still sending a result when the parent stops the pool early (a
    # missing database ends the stream) would print multiprocessing's traceback of the
    # broken pipe under the parent's one-line message.
    sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - for the worker's whole life
    _WORKER_ARGS = (goal, shape, options)


def _work(line: str):
    return _portable(solve_line(line, *_WORKER_ARGS))


def _portable(result):
    """Exceptions whose ``__init__`` takes more than a message do not survive pickling as
    they are; send their class, args and attributes instead."""
    if isinstance(result, BaseException):
        return ("exc", type(result), result.args, dict(result.__dict__))
    return ("ok", result)


def _restore(payload):
    if payload[0] == "ok":
        return payload[1]
    _, cls, args, attrs = payload
    exc = cls.__new__(cls, *args)
    exc.args = args
    exc.__dict__.update(attrs)
    return exc


def _warm_up(text, goal, shape, options) -> None:
    """Before forking: load the database and the kernel the first board needs, so that every
    worker inherits them instead of loading its own (best effort: any problem is left for the
    worker to report on its line)."""
    try:
        opts = options or api.SearchOptions()
        start, goal_b = api.read_problem(text.strip(), goal, shape)
        if api.resolve_algorithm(start, opts) != "idastar":
            return
        from ..search import idastar

        idastar.warm_up(goal_b, opts)
    except Exception:  # noqa: BLE001 - the line itself will say what is wrong
        pass


def _parallel(lines, goal, shape, options, jobs, bar):
    import itertools
    import multiprocessing as mp
    from collections import deque

    try:
        ctx = mp.get_context("fork")  # workers inherit the loaded modules and compiled kernels
    except ValueError:
        ctx = mp.get_context()
    # The lines are read lazily (stdin may be a pipe still being written): each is consumed
    # as a worker asks for work, and kept until its answer is yielded.
    pending: deque = deque()
    source = iter(lines)
    head = []
    for line in source:  # the first board tells which tables and kernel to load
        head.append(line)
        if line.strip() and not line.strip().startswith("#"):
            _warm_up(line, goal, shape, options)
            break
    source = itertools.chain(head, source)

    def feed():
        for line in source:
            pending.append(line)
            yield line

    pool = ctx.Pool(jobs, initializer=_init_worker, initargs=(goal, shape, options))
    try:
        for payload in pool.imap(_work, feed(), chunksize=1):
            result = _restore(payload)
            _tick(bar, result)
            yield pending.popleft(), result
        pool.close()
    finally:
        pool.terminate()
        pool.join()


__all__ = ["solve_stream", "solve_line", "default_jobs", "LINE_ERRORS"]
