"""Solve many boards, one per input line, answering in input order.

Imports: the solver API.
"""
from __future__ import annotations

from typing import Iterable, Iterator

from . import api
from .board import BoardError
from .solution import SearchLimitReached, Solution, Unsolvable
from .store import DatabaseError

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


def solve_stream(lines: Iterable[str], *, goal=None, shape=None,
                 options: api.SearchOptions | None = None, jobs: int = 1,
                 progress: bool = False) -> Iterator[tuple[str, Solution | Exception | None]]:
    """Yield ``(line, result)`` for each line, in input order; ``result`` is a Solution, the
    exception raised for that line, or None for a blank or comment line."""
    for line in lines:
        yield line, solve_line(line, goal, shape, options)
