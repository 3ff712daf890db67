"""Answers as records: the JSON-ready dict of each question npuzzle answers (layer 6: answers).

The CLI's ``--json`` lines and the HTTP service's bodies are these records, so both speak the
same field names.  Each outcome has one shape whatever the route (``status`` says which):
an answer (``solved``), an unsolvable start (``unsolvable``), a question that could not be
read (``bad-input``, or ``database``), a search stopped by a cap (``limit``).  The service's
response models (:mod:`solver.service.responses`) declare each shape's keys.  Each function takes what the user typed (a board in any format, a goal
preset or board, a shape) and raises the library's errors (:class:`BoardError`,
:class:`~solver.core.solution.Unsolvable`, :class:`~solver.tables.store.DatabaseError`,
:class:`~solver.core.solution.SearchLimitReached`); :func:`error_record` turns one of those
into the record of a question that could not be answered.

Imports: :mod:`solver.api` and below.
"""

from __future__ import annotations

import time

from . import api
from .core import messages
from .core.board import (
    Board,
    BoardError,
    Shape,
    Solvability,
    goal_board,
    solvability,
    solvable_for,
)
from .core.solution import (
    EXACT_HEURISTIC,
    LC_HEURISTIC,
    PDB_HEURISTIC,
    SearchLimitReached,
    Solution,
    Unsolvable,
)
from .tables.errors import DatabaseError, DataDirError

# What went wrong, in words every front end maps to its own signal (the CLI to an exit status,
# the service to an HTTP status): exception type -> (kind, prefix of the one-line message).
# The kind is also the record's "status".
UNSOLVABLE, BAD_INPUT, DATABASE, LIMIT = "unsolvable", "bad-input", "database", "limit"
SOLVED = "solved"
ERROR_KINDS = (
    (Unsolvable, UNSOLVABLE, ""),  # its message already starts with "unsolvable:"
    (BoardError, BAD_INPUT, messages.ERROR),
    (DatabaseError, DATABASE, messages.ERROR),
    (DataDirError, BAD_INPUT, messages.ERROR),
    (SearchLimitReached, LIMIT, messages.LIMIT),
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
        "status": SOLVED,
        "distance": distance,
        "database": database,
        "seconds": round(seconds, 6),
    }


# Which estimate a heuristic question gets (the record's "heuristic" field), best first.
EXACT_ESTIMATE, PDB_ESTIMATE, LC_ESTIMATE = EXACT_HEURISTIC, PDB_HEURISTIC, LC_HEURISTIC


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
        "status": SOLVED,
        **parts,
        "seconds": round(seconds, 6),
    }


def check_record(board, goal=None, shape=None) -> dict:
    """Solvability with its working (inversions, blank rows, the rule for this width)."""
    start, goal_b = api.read_problem(board, goal, shape)
    return solvability_record(start, goal_b, solvability(start, goal_b))


def solvability_record(start: Board, goal: Board, s: Solvability) -> dict:
    """The fields of a solvability verdict for ``start`` and ``goal``; ``solvable_for`` names
    the everyday preset goal an unsolvable start reaches instead
    (:func:`~solver.core.board.solvable_for`), or is None."""
    return {
        **_problem(start, goal, None),
        **s.as_dict(),
        "solvable_for": solvable_for(start, goal) if not s.solvable else None,
    }


def other_goal_text(goal_name: str | None) -> str:
    """How a line of text says which preset goal an unsolvable start reaches (empty for
    none): ``solvable for --goal blank-first``."""
    return f"solvable for --goal {goal_name}" if goal_name else ""


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
        "status": SOLVED,
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
    (``error: ...``, ``limit: ...``: :mod:`solver.core.messages`) except for unsolvable
    starts, which say the preset goal they reach instead, if any.  Anything else is a bug and
    is re-raised."""
    for cls, kind, prefix in ERROR_KINDS:
        if isinstance(exc, cls):
            text = one_line(exc)
            other = other_goal_text(_solvable_for(exc)) if kind == UNSOLVABLE else ""
            return kind, messages.prefixed(prefix, f"{text}; {other}" if other else text)
    raise exc


def _solvable_for(exc: Unsolvable) -> str | None:
    """The preset goal the start of ``exc`` reaches instead (None where its boards are not
    known)."""
    if exc.start is None or exc.goal is None:
        return None
    return solvable_for(exc.start, exc.goal)


def one_line(exc: BaseException) -> str:
    """The error's message on one line; a capped search adds the lower bound it proved."""
    text = str(exc)
    if isinstance(exc, SearchLimitReached) and exc.partial.lower_bound is not None:
        text += f": the optimal length is at least {exc.partial.lower_bound}"
    return " ".join(text.split())


def error_record(
    text: str, exc: BaseException, start: Board | None = None, goal: Board | None = None
) -> dict:
    """The record of a question that could not be answered, named by its ``input`` and its
    ``status`` (the kind of :func:`describe`): ``{input, status, error}`` for bad input or a
    missing database; an unsolvable start is an answer (the boards, ``solvable: false`` with
    the parity working and ``solvable_for``; the boards are ``start`` and ``goal``, else the
    exception's); a capped search keeps what it found (the lower bound proven so far).
    ``error`` is the message without the prefix a line of text gives it."""
    kind, _ = describe(exc)
    head = {"input": text.strip()}
    if kind == UNSOLVABLE:
        start, goal = start or exc.start, goal or exc.goal
        verdict = solvability_record(start, goal, exc.solvability)
        return {**head, **_problem(start, goal, None), "solvable": False, "status": kind, **verdict}
    rec = {**head, "status": kind, "error": one_line(exc)}
    if kind == LIMIT:
        rec.update(exc.partial.as_dict())  # its status is "limit" too
    return rec


def answer_record(question, board, goal=None, shape=None, **kw) -> dict:
    """The record of any outcome of ``question(board, goal, shape, **kw)`` (one of the
    ``*_record`` functions): its answer, or the record of an unsolvable start, of bad input or
    of a capped search (:func:`error_record`).  A missing or damaged database still raises:
    it fails every question alike."""
    try:
        return question(board, goal, shape, **kw)
    except Exception as e:  # noqa: BLE001 - describe re-raises what is not a question's error
        if describe(e)[0] == DATABASE:
            raise
        return error_record(_input_text(board), e)


def _input_text(board) -> str:
    """The board as it was given, as text (a list of rows as JSON)."""
    if isinstance(board, str):
        return board
    if isinstance(board, Board):
        return board.flat()
    import json

    return json.dumps(board, separators=(",", ":"))


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
    "answer_record",
    "other_goal_text",
    "solvability_record",
    "describe",
    "one_line",
    "ERROR_KINDS",
    "UNSOLVABLE",
    "BAD_INPUT",
    "DATABASE",
    "LIMIT",
    "SOLVED",
]
