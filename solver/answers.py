"""Answers as records: the JSON-ready dict of each question npuzzle answers (layer 6: answers).

The CLI's ``--json`` lines and the HTTP service's bodies are these records, so both speak the
same field names.  Each function takes what the user typed (a board in any format, a goal
preset or board, a shape) and raises the library's errors (:class:`BoardError`,
:class:`~solver.core.solution.Unsolvable`, :class:`~solver.tables.store.DatabaseError`,
:class:`~solver.core.solution.SearchLimitReached`); :func:`error_record` turns one of those
into the record of a question that could not be answered.

Imports: :mod:`solver.api` and below.
"""

from __future__ import annotations

import time

from . import api
from .core.board import Board, BoardError, Shape, Solvability, goal_board, solvability
from .core.solution import EXACT_HEURISTIC, SearchLimitReached, Solution, Unsolvable
from .tables.errors import DatabaseError, DataDirError

# What went wrong, in words every front end maps to its own signal (the CLI to an exit status,
# the service to an HTTP status): exception type -> (kind, prefix of the one-line message).
UNSOLVABLE, BAD_INPUT, DATABASE, LIMIT = "unsolvable", "bad-input", "database", "limit"
ERROR_KINDS = (
    (Unsolvable, UNSOLVABLE, ""),  # its message already starts with "unsolvable:"
    (BoardError, BAD_INPUT, "error"),
    (DatabaseError, DATABASE, "error"),
    (DataDirError, BAD_INPUT, "error"),
    (SearchLimitReached, LIMIT, "limit"),
)


def _problem(board: Board, goal: Board, shape) -> dict:
    return {"board": board.flat(), "goal": goal.flat(), "shape": str(board.shape)}


def distance_record(
    board, goal=None, shape=None, *, options: api.SearchOptions | None = None
) -> dict:
    """``{board, goal, shape, solvable, distance, database, seconds}``: the optimal distance,
    from the exact table when one is built for the shape, else by IDA*."""
    t0 = time.perf_counter()
    start, goal_b = api.read_problem(board, goal, shape)
    opts = options or api.SearchOptions()
    d, sol = api.measure(start, goal_b, opts)
    rec = distance_fields(
        start.flat(),
        goal_b.flat(),
        str(start.shape),
        d,
        sol.database if sol else api.exact_database(start.shape, goal_b),
        time.perf_counter() - t0,
    )
    if sol is not None and sol.notice:
        rec["notice"] = sol.notice
    return rec


def distance_fields(
    board: str, goal: str, shape: str, distance: int, database: str | None, seconds: float
) -> dict:
    """The record of a distance (boards as flat text): one definition for the one-board and
    the bulk answers."""
    return {
        "board": board,
        "goal": goal,
        "shape": shape,
        "solvable": True,
        "distance": distance,
        "database": database,
        "seconds": round(seconds, 6),
    }


# Which estimate a heuristic question gets (the record's "heuristic" field), best first.
EXACT_ESTIMATE, PDB_ESTIMATE, LC_ESTIMATE = EXACT_HEURISTIC, "pdb", "linear-conflict"


def heuristic_partition(text: str | None, goal: Board):
    """The partition a heuristic question names (``--partition``, the service's
    ``partition``), parsed as tiles of ``goal``; None for none.  One database: ``A+B`` is
    refused (:func:`solver.api.one_partition`)."""
    return api.one_partition(text, goal, "a heuristic question")


def heuristic_record(
    board,
    goal=None,
    shape=None,
    *,
    partition: str | None = None,
    reflect: bool = True,
    data_dir=None,
) -> dict:
    """The best lower bound on the distance that is built
    (:func:`solver.search.sources.heuristic_source`), named in ``heuristic``, with Manhattan
    distance and linear conflict for comparison; from a pattern database, its parts too (see :func:`solver.heuristics.evaluate`).  ``partition``:
    the words asked for (:func:`heuristic_partition`)."""
    from . import heuristics
    from .search import sources

    t0 = time.perf_counter()
    start, goal_b = api.read_problem(board, goal, shape)
    api.check_solvable(start, goal_b)
    asked = heuristic_partition(partition, goal_b)
    source = sources.heuristic_source(goal_b, asked, data_dir, partition or None)
    kind, notice = source.kind, source.notice
    if kind == PDB_ESTIMATE:
        parts = {
            "heuristic": kind,
            **heuristics.evaluate(start, goal_b, asked, reflect, data_dir),
        }
    else:
        lc = heuristics.linear_conflict(start, goal_b)
        exact_d = kind == EXACT_ESTIMATE
        parts = {
            "h": api.distance(start, goal_b, data_dir=data_dir) if exact_d else lc,
            **estimate_parts(kind, notice, goal_b, heuristics.manhattan(start, goal_b), lc),
        }
    return heuristic_fields(
        start.flat(), goal_b.flat(), str(start.shape), parts, time.perf_counter() - t0
    )


def estimate_parts(kind: str, notice, goal: Board, manhattan: int, linear_conflict: int) -> dict:
    """The parts of a heuristic record whose estimate is not a pattern database's: its
    ``kind`` (:attr:`solver.search.sources.Source.kind`), the exact table's file or None, the
    note, and Manhattan distance and linear conflict for comparison."""
    exact_d = kind == EXACT_ESTIMATE
    return {
        "heuristic": kind,
        "database": api.exact_database(goal.shape, goal) if exact_d else None,
        "manhattan": manhattan,
        "linear_conflict": linear_conflict,
        "notice": notice,
    }


def heuristic_fields(board: str, goal: str, shape: str, parts: dict, seconds: float) -> dict:
    """The record of a heuristic value with its ``parts`` (the fields of
    :func:`solver.heuristics.evaluate`)."""
    return {
        "board": board,
        "goal": goal,
        "shape": shape,
        "solvable": True,
        **parts,
        "seconds": round(seconds, 6),
    }


def check_record(board, goal=None, shape=None) -> dict:
    """Solvability with its working (inversions, blank rows, the rule for this width)."""
    start, goal_b = api.read_problem(board, goal, shape)
    return solvability_record(start, goal_b, solvability(start, goal_b))


def solvability_record(start: Board, goal: Board, s: Solvability) -> dict:
    """The fields of a solvability verdict for ``start`` and ``goal``."""
    return {**_problem(start, goal, None), **s.as_dict()}


def solution_record(sol: Solution) -> dict:
    """A solution's fields, plus the tiles that slide at each move."""
    rec = sol.as_dict()
    rec["tiles"] = sol.start.tiles_moved(sol.moves) if sol.moves is not None else None
    return rec


def solve_record(board, goal=None, shape=None, *, options: api.SearchOptions | None = None) -> dict:
    """An optimal solution (or the teaching search asked for) as a record."""
    return solution_record(api.solve(board, goal, shape=shape, options=options))


def hint_record(board, goal=None, shape=None, *, options: api.SearchOptions | None = None) -> dict:
    """The next move of an optimal solution: ``{board, goal, shape, solvable, distance, move,
    tile, board_after, distance_after, algorithm, database, seconds}``; ``move`` (the blank's
    direction) and ``tile`` (the tile that slides) are None on the goal itself."""
    t0 = time.perf_counter()
    sol = api.solve(board, goal, shape=shape, options=options)
    if not sol.optimal or sol.moves is None:
        raise BoardError(
            f"a hint needs an optimal search, and {sol.algorithm} is not one: use "
            f"auto, table, idastar, astar, bfs or iddfs"
        )
    move = sol.moves[:1] or None
    after = sol.start.move(move) if move else sol.start
    return {
        **_problem(sol.start, sol.goal, shape),
        "solvable": True,
        "distance": sol.length,
        "move": move,
        "tile": sol.start.tiles[after.blank] if move else None,
        "board_after": after.flat(),
        "distance_after": max(sol.length - 1, 0),
        "algorithm": sol.algorithm,
        "database": sol.database,
        "seconds": round(time.perf_counter() - t0, 6),
    }


def generate_records(
    shape="3x3", count: int = 1, *, goal=None, method: str = "shuffle", progress: bool = False, **kw
) -> list[dict]:
    """``count`` random solvable positions, each ``{board, rows, shape, goal, solvable,
    distance, method}``; the keyword arguments are those of
    :func:`solver.workloads.generate.generate` (``distance``, ``min_distance``, ``seed``...)."""
    return list(
        iter_generate_records(shape, count, goal=goal, method=method, progress=progress, **kw)
    )


def iter_generate_records(
    shape="3x3", count: int = 1, *, goal=None, method: str = "shuffle", progress: bool = False, **kw
):
    """:func:`generate_records` one record at a time, in flat memory however large the count
    (:func:`solver.workloads.generate.iter_generate_rows`); a request that cannot be met raises
    on the first ``next()``."""
    from .workloads import generate  # numpy-heavy: imported only when asked

    shape_ = Shape.parse(shape)
    goal_b = goal_board(shape_, goal)
    yield from _generate_records(
        shape_,
        goal_b,
        generate.iter_generate_rows(
            shape_, count, goal=goal_b, method=method, progress=progress, **kw
        ),
    )


def _generate_records(shape: Shape, goal: Board, rows):
    # The record names the method that made the position, which may not be the one asked
    # for (a rare 4x4 level is searched by random walks, not shuffles).
    for board, d, method_used in rows:
        yield {
            "board": board.flat(),
            "rows": str(board),
            "shape": str(shape),
            "goal": goal.flat(),
            "solvable": True,
            "distance": d,
            "method": method_used,
        }


def describe(exc: BaseException) -> tuple[str, str]:
    """``(kind, one-line message)`` for an error the library raises on a question: kind is
    one of ``unsolvable``, ``bad-input``, ``database``, ``limit``; the message is prefixed
    (``error: ...``, ``limit: ...``) except for unsolvable starts.  Anything else is a bug and
    is re-raised."""
    for cls, kind, prefix in ERROR_KINDS:
        if isinstance(exc, cls):
            text = one_line(exc)
            return kind, f"{prefix}: {text}" if prefix else text
    raise exc


def one_line(exc: BaseException) -> str:
    """The error's message on one line; a capped search adds the lower bound it proved."""
    text = str(exc)
    if isinstance(exc, SearchLimitReached) and exc.partial.lower_bound is not None:
        text += f"; the optimal length is at least {exc.partial.lower_bound}"
    return " ".join(text.split())


def error_record(
    text: str,
    exc: BaseException,
    message: str,
    start: Board | None = None,
    goal: Board | None = None,
) -> dict:
    """The record of a question that could not be answered: ``{input, error}``; an unsolvable
    start is an answer (``solvable: false`` with the parity working, and the boards when
    ``start`` and ``goal`` are known); a capped search keeps what it found (the lower bound
    proven so far)."""
    if isinstance(exc, Unsolvable):
        boards = _problem(start, goal, None) if start is not None and goal is not None else {}
        return {"input": text.strip(), **boards, "solvable": False, **exc.solvability.as_dict()}
    rec = {"input": text.strip(), "error": message}
    if isinstance(exc, SearchLimitReached):
        rec.update(exc.partial.as_dict())
        rec["error"] = message
    return rec


__all__ = [
    "distance_record",
    "heuristic_record",
    "heuristic_partition",
    "estimate_parts",
    "check_record",
    "solution_record",
    "solve_record",
    "hint_record",
    "generate_records",
    "error_record",
    "solvability_record",
    "describe",
    "one_line",
    "ERROR_KINDS",
    "UNSOLVABLE",
    "BAD_INPUT",
    "DATABASE",
    "LIMIT",
]
