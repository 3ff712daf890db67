"""The public API: ``distance()`` and ``solve()``, dispatching to the right algorithm.

Each algorithm is a function ``fn(start, goal, options) -> Solution`` in its own module,
registered by name in :data:`ALGORITHMS` and imported only when used (a table lookup must not
pay for the search's imports).  The CLI is a thin layer over this module.
"""

from __future__ import annotations

import importlib
import time
from dataclasses import replace

from .core.board import Board, BoardError, Shape, goal_board, parse_board, solvability
from .core.config import usable_cores as usable_cores  # the cores a batch or search may use
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
        raise Unsolvable(s, start, goal)


def resolve_algorithm(start: Board, opts: SearchOptions) -> str:
    """The algorithm ``opts`` asks for, with ``auto`` made concrete for this board."""
    if opts.algorithm != "auto":
        return opts.algorithm
    from .tables import catalog

    if opts.heuristic == "auto" and catalog.has_exact(start.shape, opts.data_dir):
        return "table"  # an optimal answer is within any weight's bound, and instant
    return "idastar"


def algorithm_function(name: str):
    """The function registered for algorithm ``name``: ``fn(start, goal, options)``.  IDA*'s
    is :func:`solve_idastar`, which resolves the options into a search first."""
    module, func = ALGORITHMS[name]
    return getattr(importlib.import_module(module), func)


# --- IDA* and A*: the options resolved once, here ------------------------------------------


def partition_words(text: str | None) -> tuple[str, ...]:
    """The words of ``--partition``, one per partition (``A+B`` is two), as the user wrote
    them; none for no partition."""
    return tuple(str(text).split("+")) if text else ()


def partitions_asked(text: str | None, goal: Board) -> tuple:
    """The partitions ``--partition`` names, parsed as tiles of ``goal``: none, one (a preset
    name or tiles), or ``A+B``, whose maximum the search takes (at most
    :data:`~solver.tables.catalog.MAX_COMBINED`).  Raises
    :class:`~solver.tables.partitions.PartitionError` (a BoardError) for anything else."""
    from .tables.catalog import MAX_COMBINED
    from .tables.partitions import PartitionError, parse_partition

    words = partition_words(text)
    if len(words) > MAX_COMBINED:
        raise PartitionError(f"at most {MAX_COMBINED} databases combine, not {text}")
    return tuple(parse_partition(word, goal.shape, goal) for word in words)


def one_partition(text: str | None, goal: Board, reader: str):
    """The one partition ``--partition`` names for ``reader`` (A*, a heuristic question), which
    reads a single database, parsed as tiles of ``goal``; None for none.  ``A+B``, the maximum
    of several databases, is IDA*'s: a :class:`~solver.tables.partitions.PartitionError`
    says so."""
    from .tables.partitions import PartitionError

    if len(partition_words(text)) > 1:
        raise PartitionError(
            f"{reader} reads one pattern database, not {text}: the maximum of several "
            f"databases is IDA*'s (solve --algorithm idastar)"
        )
    asked = partitions_asked(text, goal)
    return asked[0] if asked else None


def heuristic_spec(goal: Board, opts: SearchOptions):
    """What ``opts`` asks an IDA* search towards ``goal`` to read, parsed
    (:class:`~solver.search.sources.HeuristicSpec`); a partition is parsed only for the
    heuristics that read pattern databases."""
    from .search.sources import HeuristicSpec

    spec = HeuristicSpec(
        name=opts.heuristic,
        reflect=bool(opts.reflect),
        combine=bool(opts.combine),
        pick=bool(opts.pick),
        pick_max=bool(opts.pick_max),
        zero_aware=bool(opts.zero_aware),
        data_dir=opts.data_dir,
    )
    if not spec.reads_databases or not opts.partition:
        return spec
    return replace(
        spec,
        partitions=partitions_asked(opts.partition, goal),
        named=partition_words(opts.partition),
    )


def search_request(start: Board, goal: Board, opts: SearchOptions, plans: bool = True):
    """The IDA* search ``opts`` asks for from ``start`` to ``goal``, resolved once
    (:class:`~solver.search.request.SearchRequest`): the heuristic parsed, the weight read,
    the limits, the resume token checked against the boards
    (:func:`solver.core.resume_token.proven_bound`, a BoardError when it does not hold) --
    and with ``plans`` the tables chosen and opened (raises
    :class:`~solver.tables.store.DatabaseMissing` where one is needed and none is built)."""
    from .core.resume_token import proven_bound
    from .search.request import SearchRequest
    from .search.weights import parse_weight

    request = SearchRequest(
        start,
        goal,
        heuristic_spec(goal, opts),
        weight=parse_weight(opts.weight),
        timeout=opts.timeout,
        max_nodes=opts.max_nodes,
        jobs=opts.jobs,
        fsm_depth=opts.fsm,
        promising_first=bool(opts.promising_first),
        progress=opts.progress,
        start_bound=None if opts.resume is None else proven_bound(opts.resume, start, goal),
    )
    return request.with_plans() if plans else request


def advice(goal: Board, opts: SearchOptions) -> str | None:
    """The note a search towards ``goal`` with ``opts`` should hear before it starts, or
    None: where it would fall back to linear conflict, or where the strongest set of
    databases of the shape is not built and would make it much faster
    (:func:`solver.search.sources.advice`).  Only IDA* reads databases."""
    if resolve_algorithm(goal, opts) != "idastar":
        return None
    from .search import sources

    return sources.advice(goal, heuristic_spec(goal, opts))


def solve_idastar(start: Board, goal: Board, opts: SearchOptions) -> Solution:
    """IDA* (algorithm ``idastar``) on the search ``opts`` asks for
    (:func:`search_request`, then :func:`solver.search.idastar.solve`).  Its ``seconds``
    count choosing and opening the tables too."""
    from .search import idastar

    request = search_request(start, goal, opts, plans=False)
    t0 = time.perf_counter()
    request = request.with_plans()
    prepared = time.perf_counter() - t0
    sol = idastar.solve(request)
    sol.seconds += prepared
    return sol


def solve_astar(start: Board, goal: Board, opts: SearchOptions) -> Solution:
    """A* (algorithm ``astar``, :func:`solver.search.blind.astar`) on the heuristic ``opts``
    asks for, parsed here (:class:`~solver.search.sources.HeuristicSpec`): for the heuristics
    that read a pattern database, one database (:func:`one_partition`)."""
    from .search import blind
    from .search.sources import HeuristicSpec

    spec = HeuristicSpec(
        name=opts.heuristic or "auto",
        reflect=bool(opts.reflect),
        combine=False,
        data_dir=opts.data_dir,
    )
    partition = one_partition(opts.partition, goal, "A*") if spec.reads_databases else None
    if partition is not None:
        spec = replace(spec, partitions=(partition,), named=(opts.partition,))
    return blind.astar(start, goal, opts, spec)


def warm_up(goal: Board, opts: SearchOptions) -> None:
    """Map the tables and load the compiled kernel that IDA* towards ``goal`` with ``opts``
    needs, so that processes forked afterwards share both."""
    request = search_request(goal, goal, opts, plans=False)
    from .search import idastar

    idastar.warm_up(request)


def solve(board, goal=None, *, shape=None, options: SearchOptions | None = None, **kw) -> Solution:
    """Solve ``board`` towards ``goal`` (default: blank last); optimal unless the algorithm
    is a non-optimal one (dfs, dls, fast).  Keyword arguments are :class:`SearchOptions` fields.

    Raises :class:`Unsolvable`, :class:`~solver.core.board.BoardError`,
    :class:`~solver.tables.store.DatabaseError` or :class:`~solver.core.solution.SearchLimitReached`.
    """
    opts = options or SearchOptions()
    opts = replace(opts, **kw) if kw else opts
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
    from .tables import catalog, exact

    if opts.algorithm in ("auto", "table") and catalog.has_exact(start.shape, opts.data_dir):
        try:
            return exact.distance(start, goal, data_dir=opts.data_dir), None  # it knows parity
        except Unsolvable as e:
            raise Unsolvable(e.solvability, start, goal) from None
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
    from .tables import names

    return names.exact_file_name(shape, goal)


def distance(board, goal=None, *, shape=None, data_dir=None, **kw) -> int:
    """The optimal number of moves from ``board`` to ``goal``.

    Boards with an exact table (up to 12 cells, once built) are answered by a lookup; other shapes
    are solved by IDA* (keyword arguments are :class:`SearchOptions` fields, e.g. ``timeout``).
    Raises :class:`Unsolvable` when the goal cannot be reached.
    """
    start, goal_b = read_problem(board, goal, shape)
    return measure(start, goal_b, SearchOptions(data_dir=data_dir, **kw))[0]
