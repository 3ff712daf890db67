"""Solve many problems, answering in input order -- on one or N processes (layer 5: workloads).

Before the first problem is solved (and timed), the database and the compiled kernel it needs
are loaded (:func:`_warm_up`), as a compiled solver loads its tables before its clock starts.
With ``jobs > 1`` the problems are solved by a pool of forked worker processes, forked after
that: the workers inherit both -- the tables' pages are shared, read or mapped,
never copied per worker (:mod:`solver.tables.loading`) -- so nothing is compiled or read
twice.  The parent hands out one problem at a time and yields the answers in input order.

:class:`Solver` answers problems (parsed boards) for the CLI's batch driver, which reads the
lines itself (:mod:`.lines`); :func:`solve_stream` answers raw lines, for scripts.

Imports: the solver API (and multiprocessing / tqdm when asked for).
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterable, Iterator

from .. import api
from ..core.board import Board, BoardError
from ..core.solution import SearchLimitReached, Solution, Unsolvable
from ..tables.store import DatabaseError

# What a single problem may fail with; anything else is a bug and propagates.
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


class Solver:
    """Answers problems ``(start, goal)`` in order -- a Solution or the exception raised --
    on ``jobs`` processes.  The pool is forked on the first problem that needs a search and
    lives until :meth:`close` (use it as a context manager)."""

    def __init__(
        self, options: api.SearchOptions | None = None, jobs: int = 1, progress: bool = False
    ):
        self.options = options or api.SearchOptions()
        self.jobs = api.usable_cores() if jobs is None or jobs <= 0 else jobs
        self.bar = _progress_bar(progress)
        self.pool = None
        self.warm = False

    def __enter__(self) -> Solver:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Stop the workers and the progress bar."""
        if self.pool is not None:
            self.pool.terminate()
            self.pool.join()
            self.pool = None
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def solve(self, problems: Iterable) -> Iterator:
        """Yield the answer of each ``(start, goal)`` of ``problems``, in order (an item that
        is already an exception is passed through)."""
        problems = list(problems)
        if not self.warm:
            self._warm(problems)
        if self.jobs == 1 or len(problems) < 2:
            for p in problems:
                yield self._tick(_solve(p, self.options))
            return
        if self.pool is None:
            self._fork()
        for payload in self.pool.imap(_work, problems, chunksize=1):
            yield self._tick(_restore(payload))

    def _warm(self, problems: list) -> None:
        """Load the tables and the kernel the first problem needs before any search is timed
        (and before a pool forks, so that its workers share them)."""
        for p in problems:
            if not isinstance(p, BaseException):
                _warm_up(*p, self.options)
                self.warm = True
                return

    def _fork(self) -> None:
        import multiprocessing as mp

        try:
            ctx = mp.get_context("fork")  # workers inherit the loaded tables and kernels
        except ValueError:
            ctx = mp.get_context()
        self.pool = ctx.Pool(self.jobs, initializer=_init_worker, initargs=(self.options,))

    def _tick(self, result):
        if self.bar is not None:
            self.bar.update(1)
            if isinstance(result, Exception) and not isinstance(result, Solution):
                self.bar.set_postfix_str(type(result).__name__, refresh=False)
        return result


def _solve(problem, options):
    if isinstance(problem, BaseException):
        return problem
    start, goal = problem
    try:
        return api.solve(start, goal, options=options)
    except LINE_ERRORS as e:
        return e


def solve_stream(
    lines: Iterable[str],
    *,
    goal=None,
    shape=None,
    options: api.SearchOptions | None = None,
    jobs: int = 1,
    progress: bool = False,
) -> Iterator[tuple[str, Solution | Exception | None]]:
    """Yield ``(line, result)`` for each line, in input order; ``result`` is a Solution, the
    exception raised for that line, or None for a blank or comment line.

    ``jobs`` processes solve in parallel (``jobs <= 0``: one per core); ``progress`` shows a
    tqdm bar on stderr.  A KeyboardInterrupt stops the workers and propagates.
    """
    lines = list(lines)
    problems, where = [], []
    for i, line in enumerate(lines):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        try:
            problems.append(api.read_problem(text, goal, shape))
        except BoardError as e:
            problems.append(e)
        where.append(i)
    results: list = [None] * len(lines)
    with Solver(options, jobs, progress) as solver:
        for i, result in zip(where, solver.solve(problems)):
            results[i] = result
    for line, result in zip(lines, results):
        yield line, result


def _progress_bar(progress: bool):
    if not progress:
        return None
    from ..core.progress_bar import ProgressBar  # tqdm, with one lock for every bar

    return ProgressBar(unit="board", desc="solving", leave=False, dynamic_ncols=True)


# --- the process pool ------------------------------------------------------------------------

_WORKER_OPTIONS: api.SearchOptions | None = None


def _init_worker(options) -> None:
    global _WORKER_OPTIONS
    # Ctrl-C goes to the whole process group; the parent alone handles it and stops the pool.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A worker has nothing to say on stderr (every answer, error included, goes back to the
    # parent), but one still sending a result when the parent stops the pool early (a
    # missing database ends the stream) would print multiprocessing's traceback of the
    # broken pipe under the parent's one-line message.
    sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - for the worker's whole life
    _WORKER_OPTIONS = options
    from ..tables import store

    store.prefault_opened()  # the tables' pages are shared; their page-table entries are not


def _work(problem):
    return _portable(_solve(problem, _WORKER_OPTIONS))


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


def _warm_up(start: Board, goal: Board, options) -> None:
    """Before forking: load the database and the kernel ``start`` needs, so that every
    worker inherits them instead of loading its own (best effort: any problem is left for the
    worker to report)."""
    try:
        if api.resolve_algorithm(start, options) != "idastar":
            return
        api.warm_up(goal, options)
    except Exception:  # noqa: BLE001 - the problem itself will say what is wrong
        pass


__all__ = ["Solver", "solve_stream", "solve_line", "LINE_ERRORS"]
