"""What every solver returns: a :class:`Solution` with its statistics, and the search errors.

Shared by the exact-table walk, IDA*, A* and the blind searches, so the CLI prints them all the
same way.  Imports: :mod:`solver.core.board` only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .board import Board, BoardError, Solvability

STATUS_SOLVED = "solved"
STATUS_LIMIT = "limit"  # a --timeout / --max-nodes cap stopped the search
STATUS_NOT_FOUND = "not-found"  # the search ended without a solution (e.g. depth limit too low)
STATUS_INTERRUPTED = "interrupted"  # Ctrl-C stopped the search (its record on exit 130)


class Unsolvable(ValueError):
    """The start cannot reach the goal; ``solvability`` holds the parity working, ``start``
    and ``goal`` the boards where the raiser knows them (the records show them)."""

    def __init__(
        self, solvability: Solvability, start: Board | None = None, goal: Board | None = None
    ):
        super().__init__(solvability.reason)
        self.solvability = solvability
        self.start, self.goal = start, goal


class InvalidSolution(RuntimeError):
    """A solver returned moves that do not take the start to the goal: a bug, or a damaged
    database (``database`` names the file the moves were read from, if any)."""

    def __init__(self, message: str, database: str | None = None):
        super().__init__(message)
        self.database = database


class SearchLimitReached(Exception):
    """A node or time cap stopped the search; ``partial`` holds the statistics so far and
    ``partial.lower_bound`` the distance proven so far (the last completed threshold)."""

    def __init__(self, partial: Solution, why: str):
        super().__init__(why)
        self.partial = partial


# The estimates an answer names (its "heuristic"; a search's names its plan after them, e.g.
# "pdb 7-8 + reflection"), written once: an exact table's is the distance itself.  The last
# three are also the values of --heuristic besides "auto".
EXACT_HEURISTIC = "exact"
PDB_HEURISTIC, MANHATTAN_HEURISTIC, LC_HEURISTIC = "pdb", "manhattan", "linear-conflict"


@dataclass
class Solution:
    """A solved (or abandoned) search from ``start`` to ``goal``.

    ``moves`` is the blank's path as ``UDLR`` letters (None when no solution was found);
    ``optimal`` is True when the algorithm guarantees a shortest path, False when it does not,
    None when unknown.
    """

    start: Board
    goal: Board
    moves: str | None
    algorithm: str
    optimal: bool | None = None
    status: str = STATUS_SOLVED
    heuristic: str | None = None
    database: str | None = None
    root_h: int | None = None
    lower_bound: int | None = None
    nodes_generated: int = 0
    nodes_expanded: int = 0
    iterations: int = 0
    max_frontier: int = 0
    peak_states: int = 0
    depth_reached: int = 0
    seconds: float = 0.0
    notice: str | None = None  # something the user should hear once, e.g. a fallback heuristic
    extra: dict = field(default_factory=dict)

    @property
    def length(self) -> int | None:
        """Number of moves, or None without a solution."""
        return None if self.moves is None else len(self.moves)

    def check(self) -> Solution:
        """Replay the moves on the start; raise :class:`InvalidSolution` if they do not reach
        the goal (or are not moves at all).  Returns self."""
        if self.moves is None:
            return self
        try:
            reached = self.start.apply(self.moves)
        except (BoardError, ValueError, IndexError):
            reached = None
        if reached != self.goal:
            raise InvalidSolution(
                f"{self.algorithm} returned {len(self.moves)} moves that do not take "
                f"{self.start} to {self.goal}",
                self.database,
            )
        return self

    def boards(self) -> list[Board]:
        """The start and every board after each move."""
        out = [self.start]
        for m in self.moves or "":
            out.append(out[-1].move(m))
        return out

    def as_dict(self) -> dict:
        """JSON-ready fields (``solvable`` is always True here: unsolvable starts raise).

        The keys mean what they mean in every other record: ``board`` is the start, ``h`` the
        heuristic value of the start and ``heuristic`` the heuristic's name."""
        d = {
            "board": self.start.flat(),
            "goal": self.goal.flat(),
            "shape": str(self.start.shape),
            "solvable": True,
            "status": self.status,
            "length": self.length,
            "moves": self.moves,
            "optimal": self.optimal,
            "algorithm": self.algorithm,
            "heuristic": self.heuristic,
            "h": self.root_h,
            "database": self.database,
            "lower_bound": self.lower_bound,
            "nodes_generated": self.nodes_generated,
            "nodes_expanded": self.nodes_expanded,
            "iterations": self.iterations,
            "max_frontier": self.max_frontier,
            "peak_states": self.peak_states,
            "depth_reached": self.depth_reached,
            "seconds": round(self.seconds, 6),
            "notice": self.notice,
        }
        d.update(self.extra)
        return d


__all__ = [
    "EXACT_HEURISTIC",
    "PDB_HEURISTIC",
    "MANHATTAN_HEURISTIC",
    "LC_HEURISTIC",
    "Solution",
    "InvalidSolution",
    "Unsolvable",
    "SearchLimitReached",
    "BoardError",
    "STATUS_SOLVED",
    "STATUS_LIMIT",
    "STATUS_NOT_FOUND",
    "STATUS_INTERRUPTED",
]
