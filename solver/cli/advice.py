"""Saying what would make a search much faster, once and before it starts (layer 7: the
command line).

Where the strongest set of databases of a shape is not built, or no database at all, a
search's plan carries a note naming the command that builds them
(:func:`solver.api.advice`).  Said after the search, the note would come minutes late, and a
search stopped by ``--timeout`` would never say it; the commands that search (``solve``,
``distance``, ``hint``) say it here first, once per goal, on stderr.  The answer's own
``notice`` repeats it for programs reading ``--json``; :func:`solver.cli.errors.notice`
says each note once, so a terminal hears it once, and :func:`record` keeps it in the first
record that carries it.  A search that is trivial (:func:`searched`) or never runs hears no
note: its answer is instant whatever is built.
"""

from __future__ import annotations

from .. import api
from ..core.board import Board, BoardError, Shape, solvability
from ..core.resume_token import proven_bound
from ..core.solution import Solution
from . import errors

# Boards of at most this many cells (2x2: 12 states) are searched instantly by any heuristic.
TRIVIAL_CELLS = 4


def searched(start: Board, goal: Board) -> bool:
    """Whether a search from ``start`` to ``goal`` is one a note can help: it runs (the start
    is solvable) and is not trivial (already at the goal, or a board of at most
    :data:`TRIVIAL_CELLS` cells)."""
    return start.shape.size > TRIVIAL_CELLS and start != goal and solvability(start, goal).solvable


def solution(sol: Solution) -> Solution:
    """``sol``, its notice said once on stderr where its search was one a note can help."""
    if sol.notice and searched(sol.start, sol.goal):
        errors.notice(sol.notice)
    return sol


def record(rec: dict) -> dict:
    """``rec`` (a JSON answer), its ``notice`` said once on stderr (a batch prints it in its
    first record only: :mod:`solver.core.notes`); none in the record of a trivial search (at
    the goal, a board of at most :data:`TRIVIAL_CELLS` cells).  A record without its note keeps
    the key, null: every record of an outcome has the same keys."""
    message = rec.get("notice")
    if not message:
        return rec
    length = rec.get("distance", rec.get("length"))
    cells = Shape.parse(rec["shape"]).size if rec.get("shape") else TRIVIAL_CELLS + 1
    if length == 0 or cells <= TRIVIAL_CELLS:
        return {**rec, "notice": None}
    errors.notice(message)  # on stderr once; in the first record printed (core.notes)
    return rec


class Advice:
    """The notes of one command: each goal's said once, before its first search."""

    def __init__(self, opts: api.SearchOptions):
        self.opts = opts
        self.said: set = set()

    def goal(self, goal: Board, opts: api.SearchOptions | None = None) -> None:
        """Say the note of a search towards ``goal`` (with ``opts``, default the command's),
        unless this goal's was said."""
        if goal.tiles not in self.said:
            self.said.add(goal.tiles)
            errors.notice(api.advice(goal, opts or self.opts))

    def board(self, text: str, goal=None, shape=None, opts=None) -> None:
        """Say the note of the search ``text`` asks for; nothing for a board that cannot be
        read or solved, or whose resume token does not hold (its error comes alone, with its
        answer)."""
        resume = (opts or self.opts).resume
        try:
            start, goal_b = api.read_problem(text, goal, shape)
            if resume is not None:
                proven_bound(resume, start, goal_b)
        except BoardError:
            return
        if searched(start, goal_b):
            self.goal(goal_b, opts)

    def problems(self, problems) -> None:
        """Say the note of each goal among ``problems`` (``(start, goal)`` pairs) that a
        search from one of its starts needs (:func:`searched`)."""
        for start, goal_b in problems:
            if goal_b.tiles not in self.said and searched(start, goal_b):
                self.goal(goal_b)

    def before(self, many):
        """``many`` (problems -> answers, a batch answered elsewhere) that first says the
        note of each goal among its problems."""

        def answer(problems):
            self.problems(problems)
            return many(problems)

        return answer
