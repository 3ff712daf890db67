"""Answers as records: the JSON-ready dict of each question npuzzle answers (layer 5: api).

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
from .core.board import Board, Solvability, solvability
from .core.solution import SearchLimitReached, Solution, Unsolvable


def _problem(board: Board, goal: Board, shape) -> dict:
    return {"board": board.flat(), "goal": goal.flat(), "shape": str(board.shape)}


def distance_record(board, goal=None, shape=None, *, options: api.SearchOptions | None = None
                    ) -> dict:
    """``{board, goal, shape, solvable, distance, database, seconds}``: the optimal distance,
    from the exact table when one is built for the shape, else by IDA*."""
    t0 = time.perf_counter()
    start, goal_b = api.read_problem(board, goal, shape)
    opts = options or api.SearchOptions()
    d, sol = api.measure(start, goal_b, opts)
    rec = distance_fields(start.flat(), goal_b.flat(), str(start.shape), d,
                          sol.database if sol else api.exact_database(start.shape),
                          time.perf_counter() - t0)
    if sol is not None and sol.notice:
        rec["notice"] = sol.notice
    return rec


def distance_fields(board: str, goal: str, shape: str, distance: int, database: str | None,
                    seconds: float) -> dict:
    """The record of a distance (boards as flat text): one definition for the one-board and
    the bulk answers."""
    return {"board": board, "goal": goal, "shape": shape, "solvable": True,
            "distance": distance, "database": database, "seconds": round(seconds, 6)}


def heuristic_record(board, goal=None, shape=None, *, partition: str | None = None,
                     reflect: bool = True, data_dir=None) -> dict:
    """The pattern-database heuristic with its parts (see :func:`solver.heuristics.evaluate`)."""
    from . import heuristics

    t0 = time.perf_counter()
    start, goal_b = api.read_problem(board, goal, shape)
    api.check_solvable(start, goal_b)
    ans = heuristics.evaluate(start, goal_b, partition, reflect, data_dir)
    return heuristic_fields(start.flat(), goal_b.flat(), str(start.shape), ans,
                            time.perf_counter() - t0)


def heuristic_fields(board: str, goal: str, shape: str, parts: dict, seconds: float) -> dict:
    """The record of a heuristic value with its ``parts`` (the fields of
    :func:`solver.heuristics.evaluate`)."""
    return {"board": board, "goal": goal, "shape": shape, "solvable": True, **parts,
            "seconds": round(seconds, 6)}


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


def solve_record(board, goal=None, shape=None, *, options: api.SearchOptions | None = None
                 ) -> dict:
    """An optimal solution (or the teaching search asked for) as a record."""
    return solution_record(api.solve(board, goal, shape=shape, options=options))


def error_record(text: str, exc: BaseException, message: str, start: Board | None = None,
                 goal: Board | None = None) -> dict:
    """The record of a question that could not be answered: ``{input, error}``; an unsolvable
    start is an answer (``solvable: false`` with the parity working, and the boards when
    ``start`` and ``goal`` are known); a capped search keeps what it found (the lower bound
    proven so far)."""
    if isinstance(exc, Unsolvable):
        boards = _problem(start, goal, None) if start is not None and goal is not None else {}
        return {"input": text.strip(), **boards, "solvable": False,
                **exc.solvability.as_dict()}
    rec = {"input": text.strip(), "error": message}
    if isinstance(exc, SearchLimitReached):
        rec.update(exc.partial.as_dict())
        rec["error"] = message
    return rec


__all__ = ["distance_record", "heuristic_record", "check_record", "solution_record",
           "solve_record", "error_record", "solvability_record"]
