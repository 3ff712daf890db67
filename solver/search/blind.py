"""Teaching searches: BFS, DFS, depth-limited, iterative deepening and A* (layer 3: search).

Every algorithm here is the *same* loop, :func:`solver.search.blind_loop.search`, run with
two policies:

* a **frontier policy** — which generated-but-unexpanded node comes out next:
  a FIFO queue (breadth-first), a LIFO stack (depth-first) or a priority queue on
  ``f = g + h`` (A*);
* a **cycle-check policy** — which children are thrown away because their state was seen:
  ``parent`` (never undo the last move), ``path`` (no state twice on the path from the root)
  or ``visited`` (remember every state generated).

=========  ==========  ====================  ==========================================
algorithm  frontier    cycle check default   depth limit
=========  ==========  ====================  ==========================================
bfs        FIFO        visited               none
dfs        LIFO        visited               none
dls        LIFO        path                  ``opts.depth_limit`` (required)
iddfs      LIFO        path                  0, 1, 2, ... up to ``opts.depth_limit``
astar      f = g + h   visited (re-opened     none
                       when a shorter path
                       is found)
=========  ==========  ====================  ==========================================

Each run counts what a teacher wants to compare: nodes generated and expanded, the largest
frontier, the states held in memory at the peak, the deepest node, seconds.  ``opts.max_nodes``
(nodes generated) and ``opts.timeout`` (seconds) stop a run by raising
:class:`~solver.core.solution.SearchLimitReached` with those statistics.

The policies and the packed states they work on live in :mod:`solver.search.policies`, the
loop in :mod:`solver.search.blind_loop`.

Imports: :mod:`solver.core.board`, :mod:`solver.core.solution`, :mod:`solver.search.policies`,
:mod:`solver.search.blind_loop`; :mod:`solver.search.sources` and :mod:`solver.heuristics` (A*)
and :mod:`solver.tables.exact` (is a DFS answer optimal?) lazily, when a run needs them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..core.board import Board, BoardError, solvability
from ..core.solution import (
    STATUS_LIMIT,
    STATUS_NOT_FOUND,
    STATUS_SOLVED,
    SearchLimitReached,
    Solution,
    Unsolvable,
)
from .blind_loop import Heard, Limit, Stats, search  # noqa: F401 - Heard: progress's type
from .policies import (
    FifoFrontier,
    LifoFrontier,
    ParentCheck,
    PathCheck,
    PriorityFrontier,
    VisitedCheck,
    cycle_check,
    encoding,
)

if TYPE_CHECKING:
    from .sources import HeuristicSpec

DEFAULT_CYCLE_CHECK = {
    "bfs": "visited",
    "dfs": "visited",
    "dls": "path",
    "iddfs": "path",
    "astar": "visited",
}
# --- heuristics and the exact distance -----------------------------------------------------


def _heuristic(goal: Board, heuristic: HeuristicSpec):
    """``(name, h(board) -> int, database file or None, notice or None)`` for ``heuristic``
    towards ``goal``: the source :func:`solver.search.sources.choose` chooses for A* --
    ``auto``, the pattern database the catalog chooses for the goal (its own or a symmetric
    one), else linear conflict with a notice that names the command that builds one; a
    partition asks for that database and no other.
    """
    from .. import heuristics
    from ..tables import pattern_db
    from . import sources

    name = heuristic.name
    if name not in ("auto", "pdb", sources.MANHATTAN, sources.LINEAR_CONFLICT):
        raise BoardError(f"unknown heuristic '{name}': use auto, manhattan, linear-conflict or pdb")
    source = sources.choose(goal, heuristic, sources.ASTAR)
    if source.databases:
        entry, red = source.databases[0]
        pdb = pattern_db.open_entry(entry, heuristic.data_dir)
        reflect = heuristic.reflect
        return "pdb", (lambda b: pdb.value(red.board(b), reflect=reflect)), pdb.path.name, None
    if source.kind == sources.MANHATTAN:
        return source.kind, (lambda b: heuristics.manhattan(b, goal)), None, source.notice
    return source.kind, (lambda b: heuristics.linear_conflict(b, goal)), None, source.notice


def exact_distance(start: Board, goal: Board, data_dir=None) -> int | None:
    """The optimal distance when an exact table for the shape is built, else None."""
    try:
        from ..tables import catalog, exact
        from ..tables.store import DatabaseError
    except ImportError:
        return None
    try:
        if not catalog.has_exact(start.shape, data_dir):
            return None
        return exact.distance(start, goal, data_dir=data_dir)
    except DatabaseError:
        return None


# --- the algorithms ------------------------------------------------------------------------


def _run(
    algorithm: str,
    start: Board,
    goal: Board,
    opts,
    make_frontier: Callable[[], object],
    *,
    depth_limit: int | None = None,
    reopen: bool = False,
    optimal: bool | None = None,
    heuristic: str | None = None,
    database: str | None = None,
    root_h: int | None = None,
) -> Solution:
    """Run one :func:`search` and wrap it as a Solution with statistics and the optimality
    verdict (``optimal`` when the algorithm guarantees it, else compared with the exact
    table)."""
    _require_solvable(start, goal)
    check_name = opts.cycle_check or DEFAULT_CYCLE_CHECK[algorithm]
    frontier = make_frontier()
    check = cycle_check(check_name, frontier.depth_first, reopen)
    stats = Stats()
    stats.iterations = 1
    sol = Solution(start, goal, None, algorithm, heuristic=heuristic, database=database)
    sol.root_h = root_h
    sol.extra = {"frontier": frontier.name, "cycle_check": check_name, "depth_limit": depth_limit}
    try:
        moves, _, _ = search(
            start,
            goal,
            frontier,
            check,
            depth_limit=depth_limit,
            stats=stats,
            **_caps(opts, stats),
        )
    except Limit as e:
        _stop(sol, stats, str(e))
    return _finish(sol, stats, moves, optimal, opts)


def _caps(opts, stats: Stats) -> dict:
    timeout = getattr(opts, "timeout", None)
    return {
        "max_nodes": getattr(opts, "max_nodes", None),
        "deadline": None if timeout is None else stats.started + timeout,
        "progress": getattr(opts, "progress", None),
    }


def _stop(sol: Solution, stats: Stats, why: str):
    sol.status = STATUS_LIMIT
    stats.fill(sol)
    raise SearchLimitReached(sol, why)


def _finish(sol: Solution, stats: Stats, moves: str | None, optimal, opts) -> Solution:
    stats.fill(sol)
    sol.moves = moves
    if moves is None:
        sol.status = STATUS_NOT_FOUND
        sol.optimal = None
        return sol
    sol.status = STATUS_SOLVED
    sol.lower_bound = None
    if optimal is None:
        best = exact_distance(sol.start, sol.goal, getattr(opts, "data_dir", None))
        optimal = None if best is None else len(moves) == best
    sol.optimal = optimal
    return sol


def _require_solvable(start: Board, goal: Board) -> None:
    # api.solve checks too; repeated here so a direct call on an unsolvable start cannot
    # send DFS or IDDFS round the unreachable half of the space forever.
    s = solvability(start, goal)
    if not s.solvable:
        raise Unsolvable(s)


def bfs(start: Board, goal: Board, opts) -> Solution:
    """Breadth-first search: a FIFO frontier; cycle check ``opts.cycle_check`` (default
    ``visited``).  Optimal with any cycle check: every state is first met at its least depth.
    Time and memory O(b^d).
    """
    return _run("bfs", start, goal, opts, FifoFrontier, optimal=True)


def dfs(start: Board, goal: Board, opts) -> Solution:
    """Depth-first search with no depth limit: a LIFO frontier; cycle check
    ``opts.cycle_check`` (default ``visited``; ``path`` terminates but can take very long;
    ``parent`` can loop forever, so give it ``max_nodes`` or ``timeout``).  Not optimal:
    ``optimal`` is filled in by comparing with the exact table when one is built, else None.
    """
    return _run("dfs", start, goal, opts, LifoFrontier)


def dls(start: Board, goal: Board, opts) -> Solution:
    """Depth-limited search: DFS that does not expand nodes at depth ``opts.depth_limit``
    (required); cycle check ``opts.cycle_check`` (default ``path``).  Returns a Solution with
    ``moves=None, status="not-found"`` when no solution of at most that many moves is found.
    Any solution is at most the limit long, not necessarily the shortest; ``optimal`` comes
    from the exact table when one is built.  Time O(b^L), memory O(b·L).
    """
    limit = _depth_limit(opts, required=True)
    return _run("dls", start, goal, opts, LifoFrontier, depth_limit=limit)


def iddfs(start: Board, goal: Board, opts) -> Solution:
    """Iterative deepening: depth-limited search with limits 0, 1, 2, ... until a solution
    (optimal: the first limit that succeeds is the distance).  Cycle check
    ``opts.cycle_check`` (default ``path``; with ``visited`` a limit can fail although a
    solution within it exists, so optimality is then checked against the exact table).
    ``opts.depth_limit``, if given, is the last limit tried (then ``status="not-found"``).
    Statistics add up over the iterations; ``iterations`` counts them.
    """
    _require_solvable(start, goal)
    max_limit = _depth_limit(opts, required=False)
    check_name = opts.cycle_check or DEFAULT_CYCLE_CHECK["iddfs"]
    stats = Stats()
    sol = Solution(start, goal, None, "iddfs")
    sol.extra = {"frontier": "lifo", "cycle_check": check_name, "depth_limit": max_limit}
    caps = _caps(opts, stats)
    limit, moves = 0, None
    while max_limit is None or limit <= max_limit:
        check = cycle_check(check_name, depth_first=True)
        stats.iterations += 1
        try:
            moves, cut_off, _ = search(
                start, goal, LifoFrontier(), check, depth_limit=limit, stats=stats, **caps
            )
        except Limit as e:
            stats.lower_bound = limit  # every limit below this one failed
            _stop(sol, stats, str(e))
        if moves is not None or not cut_off:
            break
        limit += 1
    stats.lower_bound = None
    return _finish(sol, stats, moves, True if check_name != "visited" else None, opts)


def astar(start: Board, goal: Board, opts, heuristic: HeuristicSpec) -> Solution:
    """A*: a priority frontier on ``f = g + h`` with ``h`` the ``heuristic`` asked for, parsed
    (:func:`solver.api.solve_astar`): ``auto`` is the pattern database when one is built for
    the shape, else linear conflict; also ``manhattan``, ``linear-conflict``, ``pdb``; a
    partition asks for that database.  Cycle check ``opts.cycle_check`` (default
    ``visited``, re-opening a state reached again by a shorter path).  Optimal, since every
    heuristic offered is admissible.  Memory holds every state generated: O(b^d) in the worst
    case, which is why IDA* is the one that scales to the 15-puzzle.
    """
    name, h_board, database, notice = _heuristic(goal, heuristic)
    enc = encoding(start.shape)
    shape = start.shape

    def h(state: int) -> int:
        return h_board(Board(shape, enc.decode(state)))

    sol = _run(
        "astar",
        start,
        goal,
        opts,
        lambda: PriorityFrontier(h),
        reopen=True,
        optimal=True,
        heuristic=name,
        database=database,
        root_h=h_board(start),
    )
    sol.notice = notice
    return sol


def _depth_limit(opts, required: bool) -> int | None:
    limit = getattr(opts, "depth_limit", None)
    if limit is None:
        if required:
            raise BoardError("depth-limited search needs a depth limit (--depth-limit L)")
        return None
    if limit < 0:
        raise BoardError(f"depth limit {limit} is negative")
    return int(limit)


__all__ = [
    "bfs",
    "dfs",
    "dls",
    "iddfs",
    "astar",
    "search",
    "FifoFrontier",
    "LifoFrontier",
    "PriorityFrontier",
    "ParentCheck",
    "PathCheck",
    "VisitedCheck",
    "cycle_check",
    "encoding",
    "exact_distance",
    "DEFAULT_CYCLE_CHECK",
]
