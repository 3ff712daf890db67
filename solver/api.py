"""The public API: ``distance()`` and ``solve()``, dispatching to the right algorithm.

Each algorithm is a function ``fn(start, goal, options) -> Solution`` in its own module,
registered by name in :data:`ALGORITHMS` and imported only when used (the numba kernels cost
start-up time that a table lookup must not pay).  The CLI is a thin layer over this module.
"""

from __future__ import annotations

import importlib
import time
from dataclasses import replace

from .core.board import Board, BoardError, Shape, goal_board, parse_board, solvability
from .core.solution import InvalidSolution, Solution, Unsolvable

# The options of a search are declared once, in solver.options; these names stay here too.
from .options import ALGORITHMS as ALGORITHMS
from .options import CYCLE_CHECKS as CYCLE_CHECKS
from .options import HEURISTICS as HEURISTICS
from .options import SearchOptions as SearchOptions


def read_problem(board, goal=None, shape: Shape | str | None = None) -> tuple[Board, Board]:
    """Parse a start and a goal (preset name, board or None for the default) of one shape."""
    start = parse_board(board, shape)
    return start, goal_board(start.shape, goal)


def check_solvable(start: Board, goal: Board) -> None:
    """Raise :class:`Unsolvable` (with the parity working) when start cannot reach goal."""
    s = solvability(start, goal)
    if not s.solvable:
        raise Unsolvable(s)


def resolve_algorithm(start: Board, opts: SearchOptions) -> str:
    """The algorithm ``opts`` asks for, with ``auto`` made concrete for this board."""
    if opts.algorithm != "auto":
        return opts.algorithm
    from .tables import exact

    if opts.heuristic == "auto" and exact.has_table(start.shape, opts.data_dir):
        return "table"  # an optimal answer is within any weight's bound, and instant
    return "idastar"


def algorithm_function(name: str):
    """The function registered for algorithm ``name``."""
    module, func = ALGORITHMS[name]
    return getattr(importlib.import_module(module), func)


def solve(board, goal=None, *, shape=None, options: SearchOptions | None = None, **kw) -> Solution:
    """Solve ``board`` towards ``goal`` (default: blank last); optimal unless the algorithm
    is a non-optimal one (dfs, dls, fast).  Keyword arguments are :class:`SearchOptions` fields.

    Raises :class:`Unsolvable`, :class:`~solver.core.board.BoardError`,
    :class:`~solver.tables.store.DatabaseError` or :class:`~solver.core.solution.SearchLimitReached`.
    """
    opts = replace(options or SearchOptions(), **kw)
    start, goal_b = read_problem(board, goal, shape)
    check_solvable(start, goal_b)
    name = resolve_algorithm(start, opts)
    t0 = time.perf_counter()
    sol = algorithm_function(name)(start, goal_b, opts)
    if not sol.seconds:
        sol.seconds = time.perf_counter() - t0
    return checked(sol, opts.data_dir)


def checked(sol: Solution, data_dir=None) -> Solution:
    """``sol`` once its moves are replayed onto the start and found to reach the goal.  Moves
    read from a database that do not are the database's fault: :class:`DatabaseCorrupt`
    naming the file and the command that rebuilds it (a bug otherwise: InvalidSolution)."""
    try:
        return sol.check()
    except InvalidSolution as e:
        if not e.database:
            raise
        from .tables import catalog

        raise catalog.damaged(
            e.database, "gave moves that do not reach the goal", data_dir
        ) from None


def measure(start: Board, goal: Board, opts: SearchOptions) -> tuple[int, Solution | None]:
    """The optimal distance from ``start`` to ``goal``, and the search's Solution when a search
    was needed (None when the exact table answered).  Raises :class:`Unsolvable`."""
    from .tables import exact

    if opts.algorithm in ("auto", "table") and exact.has_table(start.shape, opts.data_dir):
        return exact.distance(start, goal, data_dir=opts.data_dir), None  # the table knows parity
    check_solvable(start, goal)
    algorithm = "idastar" if opts.algorithm in ("auto", "table") else opts.algorithm
    sol = checked(
        algorithm_function(algorithm)(start, goal, replace(opts, algorithm=algorithm)),
        opts.data_dir,
    )
    if not sol.optimal:
        raise BoardError(
            f"{algorithm} does not guarantee an optimal distance: use auto, "
            f"idastar, astar, bfs or iddfs"
        )
    return sol.length, sol


def exact_database(shape: Shape, goal: Board | None = None) -> str:
    """The file name of the exact table serving ``goal`` (default: blank-last) on ``shape``."""
    from .tables import catalog

    return catalog.exact_file_name(shape, goal)


def distance(board, goal=None, *, shape=None, data_dir=None, **kw) -> int:
    """The optimal number of moves from ``board`` to ``goal``.

    Boards with an exact table (up to 12 cells, once built) are answered by a lookup; other shapes
    are solved by IDA* (keyword arguments are :class:`SearchOptions` fields, e.g. ``timeout``).
    Raises :class:`Unsolvable` when the goal cannot be reached.
    """
    start, goal_b = read_problem(board, goal, shape)
    return measure(start, goal_b, SearchOptions(data_dir=data_dir, **kw))[0]
