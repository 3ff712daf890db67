"""Request bodies: JSON objects whose keys are the CLI's option names (layer 7: service).

``board`` (and ``goal``) take every format the CLI takes -- a string in any of its forms or a
list of rows -- and are read by the CLI's own parser, so a bad board gets the CLI's message.
The other fields are typed here (numbers, names from a fixed list), which is also what
``/docs`` shows.  Unknown keys are refused: a misspelt ``max_node`` must not be ignored.

A board question takes ``board`` (one answer) or ``boards`` (a list; the answers come back in
order under ``results``, each board failing on its own like a line of ``npuzzle distance -``).

Imports: pydantic, and :mod:`solver.api` for the names of algorithms and heuristics.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .. import api
from ..core import config

BOARD_HELP = (
    "A board in any format the CLI reads: flat numbers '8 6 7 2 5 4 3 0 1' or "
    "'8,6,7,...', rows '8 6 7/2 5 4/3 0 1', or a JSON list of rows [[8,6,7],...]; "
    "the blank is 0, x, _ or '.'."
)
GOAL_HELP = "blank-last (default), blank-first, snake, spiral, or a board of the same shape."

Algorithm = Literal[("auto", *api.ALGORITHMS)]
Heuristic = Literal[api.HEURISTICS]
CycleCheck = Literal[api.CYCLE_CHECKS]
Seconds = Field(
    None,
    ge=0,
    allow_inf_nan=False,
    description="Give up a search after this many seconds (the server's cap "
    "applies when it is lower); the answer then has status 'limit' "
    "and the lower bound proven so far.",
)
Nodes = Field(
    None,
    ge=1,
    description="Give up a search after generating this many nodes (capped by the server).",
)


class Strict(BaseModel):
    """A request body: unknown keys are an error."""

    model_config = ConfigDict(extra="forbid")


class Problem(Strict):
    """One board (or several) and the goal it should reach."""

    board: Any = Field(None, description=BOARD_HELP, examples=["8 6 7/2 5 4/3 0 1"])
    boards: list[Any] | None = Field(
        None,
        description="Several boards instead of one; the "
        "answers come back in order under "
        "'results'.",
    )
    goal: Any = Field(None, description=GOAL_HELP, examples=["blank-last"])
    shape: str | None = Field(
        None,
        description="ROWSxCOLS, for a flat list whose shape "
        "cannot be inferred (6, 9, 16, 25 tiles are "
        "2x3, 3x3, 4x4, 5x5).",
        examples=["3x3"],
    )


class CheckRequest(Problem):
    """``/check``: solvability, with the parity working."""


class DistanceRequest(Problem):
    """``/distance``: the exact optimal distance."""

    timeout: float | None = Seconds
    max_nodes: int | None = Nodes


class HeuristicRequest(Problem):
    """``/heuristic``: the pattern-database value and its parts."""

    partition: str | None = Field(
        None, description="A preset (7-8, 6-6-3, 5-5-5 on 4x4) or tiles like 1,2,3,4/5,6,7,8."
    )
    no_reflect: bool = Field(
        False, description="Only the additive sum, without the mirrored lookup."
    )


class HintRequest(DistanceRequest, HeuristicRequest):
    """``/hint``: the next optimal move."""

    algorithm: Algorithm = Field(
        "auto", description="auto: the exact table on 2x3/3x3, IDA* elsewhere."
    )
    heuristic: Heuristic = "auto"


class SolveRequest(HintRequest):
    """``/solve``: an optimal solution, or a teaching search with its statistics, or a quick
    one that is not optimal (``fast``, ``weight``)."""

    depth_limit: int | None = Field(None, ge=0, description="For dls (required) and iddfs.")
    cycle_check: CycleCheck | None = None
    fast: bool = Field(
        False,
        description="A quick solution that is NOT optimal (line by line, like a person): any "
        "board up to 16x16, no database needed; the same as algorithm 'fast'.",
    )
    weight: float = Field(
        1,
        ge=1,
        le=100,
        allow_inf_nan=False,
        description="Accept a solution up to this many times the optimal length, found much "
        "faster (weighted IDA*; 1.5 is a good start on 5x5); the answer then says "
        "'optimal': false and 'bound'.",
    )
    fsm: int | None = Field(
        None,
        ge=0,
        le=config.MAX_FSM_DEPTH,
        description="IDA*'s duplicate pruning: the depth of its move-string machine (2 only "
        "forbids undoing the last move); the answer's 'pruning' names the machine used.",
    )
    combine: bool | None = Field(
        None,
        description="The largest value of up to four equally strong databases built for the "
        "goal (7-8 and 7-8b; 6-6-6-6 and its cuts).",
    )
    pick: bool | None = Field(
        None,
        description="Race the equally strong databases built for the goal once a search is "
        "long, and go on with the one that needs the fewest nodes; the answer's 'race' says "
        "how it went.",
    )
    pick_max: bool | None = Field(
        None,
        description="With 'pick', race the maxima of the databases too, each one's nodes "
        "weighted by its cost per node.",
    )
    promising_first: bool | None = Field(
        None,
        description="Take IDA*'s work units whose subtree came nearest the goal in the "
        "iteration before first (default), or (false) in search order; the answer's "
        "'unit_order' says which.",
    )
    zero_aware: bool | None = Field(
        None,
        description="Read the zero-aware twins of the databases where they are built "
        "(build-pdb --zero-aware): a pattern's value also by the blank's region.",
    )


class GenerateRequest(Strict):
    """``/generate``: random solvable positions, each with its exact distance."""

    shape: str = Field("3x3", examples=["3x3"])
    count: int = Field(1, ge=0, description="How many positions (capped by the server).")
    distance: int | None = Field(None, ge=0, le=10_000, description="Exact optimal distance.")
    min: int | None = Field(None, ge=0, le=10_000, description="Smallest distance allowed.")
    max: int | None = Field(None, ge=0, le=10_000, description="Largest distance allowed.")
    goal: Any = Field(None, description=GOAL_HELP)
    method: Literal["shuffle", "walk"] = "shuffle"
    length: int | None = Field(None, ge=0, le=10_000, description="Steps of each walk.")
    seed: int | None = Field(None, ge=0, lt=2**64, description="The same seed, the same positions.")
    unique: bool = False


__all__ = [
    "Problem",
    "CheckRequest",
    "DistanceRequest",
    "HeuristicRequest",
    "HintRequest",
    "SolveRequest",
    "GenerateRequest",
]
