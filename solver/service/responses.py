"""Response bodies: the one definition of each record's keys (layer 7: service).

Every answer npuzzle gives -- the CLI's text and ``--json``, a batch's lines, the Python API's
``*_record`` functions (:mod:`solver.answers`) and these bodies -- has one shape per outcome,
told apart by ``status``:

* answered (``solved``): :class:`SolveRecord`, :class:`DistanceRecord`, :class:`HintRecord`,
  :class:`HeuristicRecord`; :class:`CheckRecord` for ``check``, whose answer is the verdict;
* an unsolvable start (``unsolvable``): :class:`UnsolvableRecord`;
* a board that cannot be read (``bad-input``) or a missing database (``database``):
  :class:`ErrorRecord`;
* a search stopped by a cap (``limit``): :class:`LimitRecord`, with the lower bound proven.

A batch line adds ``line`` (and the ``id`` and other keys its input line carried).  Each
field is required unless it has a default, and no other key is allowed, so validating a
record against its model checks its keys both ways (``tests/test_records.py`` does, on every
route).  The models also make the OpenAPI schema (``/openapi.json``, ``/docs``).

Imports: pydantic.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

GoalName = Literal["blank-last", "blank-first"]


class Record(BaseModel):
    """A record: exactly the keys declared."""

    model_config = ConfigDict(extra="forbid")


class Boards(Record):
    """The problem, as the answer read it."""

    board: str = Field(description="The start, as flat numbers (0 the blank).")
    goal: str = Field(description="The goal, as flat numbers.")
    shape: str = Field(description="ROWSxCOLS.")


class Verdict(Boards):
    """Solvability with the working of the parity rule."""

    solvable: bool
    start_inversions: int
    goal_inversions: int
    start_blank_row_from_bottom: int = Field(description="1 is the bottom row.")
    goal_blank_row_from_bottom: int
    width_even: bool
    reason: str = Field(description="The verdict and the rule, in words.")
    solvable_for: GoalName | None = Field(
        description="For an unsolvable start: the preset goal (blank-last or blank-first) "
        "it reaches instead, to ask for as 'goal' (--goal on the command line); else null."
    )


class CheckRecord(Verdict):
    """``/check``, ``npuzzle check``: the verdict is the answer, either way."""


class UnsolvableRecord(Verdict):
    """A question on a start that cannot reach the goal (``check`` excepted)."""

    input: str = Field(description="The board as it was given.")
    solvable: Literal[False]
    status: Literal["unsolvable"]


class ErrorRecord(Record):
    """A question that could not be answered: its board cannot be read (``bad-input``, HTTP
    400) or a database it needs is missing or damaged (``database``)."""

    input: str = Field(description="The board as it was given.")
    status: Literal["bad-input", "database"]
    error: str = Field(description="What is wrong, in one line (no 'error:' prefix).")


class SearchFields(Boards):
    """What a search reports, answered or stopped."""

    solvable: Literal[True]
    length: int | None = Field(description="The number of moves; null without a solution.")
    moves: str | None = Field(description="The blank's moves, U D L R.")
    optimal: bool | None = Field(description="Whether the length is proven optimal.")
    algorithm: str
    heuristic: str | None = Field(description="The heuristic's name.")
    h: int | None = Field(description="The heuristic value of the start.")
    database: str | None = Field(description="The file of the database read.")
    lower_bound: int | None = Field(description="The optimal length is at least this.")
    nodes_generated: int
    nodes_expanded: int
    iterations: int
    max_frontier: int
    peak_states: int
    depth_reached: int
    seconds: float
    notice: str | None = Field(description="Something said once, e.g. a slower fallback.")
    # The statistics of one kind of search (IDA*, a weighted search, a blind one, a cluster).
    search_seconds: float | None = None
    jobs: int | None = None
    work_units: int | None = None
    unit_order: str | None = None
    pruning: str | None = None
    tables_bytes: int | None = None
    race: str | None = None
    bound: float | None = Field(None, description="A weighted search: at most this x optimal.")
    weighting: str | None = None
    scheduler: str | None = None
    frontier: str | None = None
    cycle_check: str | None = None
    depth_limit: int | None = None
    resume: str | None = Field(
        None, description="A stopped optimal search: the token that goes on from its bound."
    )


class SolveRecord(SearchFields):
    """``/solve``: a solution (``not-found``: a depth-limited search found none)."""

    status: Literal["solved", "not-found"]
    tiles: list[int] | None = Field(description="The tile that slides at each move.")


class LimitRecord(SearchFields):
    """A search stopped by a cap (time, nodes; ``interrupted``: a signal): what it proved so
    far."""

    input: str = Field(description="The board as it was given.")
    status: Literal["limit", "interrupted"]
    error: str = Field(description="Which cap, and the lower bound proven (no 'limit:' prefix).")


class DistanceRecord(Boards):
    """``/distance``: the optimal distance."""

    solvable: Literal[True]
    status: Literal["solved"]
    distance: int
    database: str | None
    seconds: float
    notice: str | None = None


class HintRecord(Boards):
    """``/hint``: the next move of an optimal solution (null at the goal)."""

    solvable: Literal[True]
    status: Literal["solved"]
    distance: int
    move: str | None
    tile: int | None
    board_after: str
    distance_after: int
    algorithm: str
    database: str | None
    seconds: float


class PatternValue(Record):
    """One pattern's share of a pattern-database value."""

    tiles: str
    h: int


class HeuristicRecord(Boards):
    """``/heuristic``: the best estimate built, with Manhattan distance and linear conflict;
    from a pattern database, its parts too."""

    solvable: Literal[True]
    status: Literal["solved"]
    heuristic: str
    h: int
    database: str | None
    manhattan: int
    linear_conflict: int
    seconds: float
    notice: str | None = None
    plain: int | None = None
    reflected: int | None = None
    reflect: bool | None = None
    partition: str | None = None
    patterns: list[PatternValue] | None = None


class ErrorBody(Record):
    """A request that failed as a whole (a body that does not fit, a missing database, a
    server too busy)."""

    error: str
    fix: str | None = Field(None, description="The command that builds the missing database.")
    retry_after: int | None = None


# What each question's body is, one board at a time; ``boards`` gives ``{"results": [...]}``.
OUTCOMES = {
    "solve": (SolveRecord, UnsolvableRecord, LimitRecord, ErrorRecord),
    "distance": (DistanceRecord, UnsolvableRecord, LimitRecord, ErrorRecord),
    "hint": (HintRecord, UnsolvableRecord, LimitRecord, ErrorRecord),
    "heuristic": (HeuristicRecord, UnsolvableRecord, ErrorRecord),
    "check": (CheckRecord, ErrorRecord),
}


def answer_model(endpoint: str):
    """The body of a 200 at ``/ENDPOINT``: one of its records, or their list under
    ``results``."""
    one = OUTCOMES[endpoint][:-1]  # a bad board is a 400
    record = one[0] if len(one) == 1 else _union(one)
    results = create_model(
        f"{endpoint.title()}Results",
        __base__=Record,
        results=(list[_union(OUTCOMES[endpoint])], ...),
    )
    return _union((record, results))


def _union(models):
    """``A | B | ...`` of ``models``."""
    out = models[0]
    for m in models[1:]:
        out = out | m
    return out


def record_model(record: dict) -> type[Record]:
    """The model a record of any question claims to be, by its keys: the one to validate it
    against (a batch's ``line`` and ``id`` are not the record's)."""
    status = record.get("status")
    if status == "unsolvable":
        return UnsolvableRecord
    if status in ("bad-input", "database"):
        return ErrorRecord
    if status in ("limit", "interrupted"):
        return LimitRecord
    if "move" in record:
        return HintRecord
    if "moves" in record:
        return SolveRecord
    if "linear_conflict" in record:
        return HeuristicRecord
    if "distance" in record:
        return DistanceRecord
    return CheckRecord


__all__ = [
    "OUTCOMES",
    "answer_model",
    "record_model",
    "CheckRecord",
    "DistanceRecord",
    "ErrorBody",
    "ErrorRecord",
    "HeuristicRecord",
    "HintRecord",
    "LimitRecord",
    "SolveRecord",
    "UnsolvableRecord",
]
