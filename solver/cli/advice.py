"""Saying what would make a search much faster, once and before it starts (layer 7: the
command line).

Where the strongest set of databases of a shape is not built, or no database at all, a
search's plan carries a note naming the command that builds them
(:func:`solver.api.advice`).  Said after the search, the note would come minutes late, and a
search stopped by ``--timeout`` would never say it; the commands that search (``solve``,
``distance``, ``hint``) say it here first, once per goal, on stderr.  The answer's own
``notice`` repeats it for programs reading ``--json``; :func:`solver.cli.errors.notice`
says each note once, so a terminal hears it once.
"""

from __future__ import annotations

from .. import api
from ..core.board import Board, BoardError, solvability
from ..core.resume_token import proven_bound
from . import errors


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
        if solvability(start, goal_b).solvable:
            self.goal(goal_b, opts)

    def problems(self, problems) -> None:
        """Say the note of each goal among ``problems`` (``(start, goal)`` pairs)."""
        for _, goal_b in problems:
            self.goal(goal_b)

    def before(self, many):
        """``many`` (problems -> answers, a batch answered elsewhere) that first says the
        note of each goal among its problems."""

        def answer(problems):
            self.problems(problems)
            return many(problems)

        return answer
