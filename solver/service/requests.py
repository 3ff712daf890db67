"""Request bodies: JSON objects whose keys are the CLI's option names (layer 7: service).

``board`` (and ``goal``) take every format the CLI takes -- a string in any of its forms or a
list of rows -- and are read by the CLI's own parser, so a bad board gets the CLI's message.
The search options are the specification's (:mod:`solver.options`): the same names, types,
defaults, bounds and help as on the command line, which is also what ``/docs`` shows (null
means the default).  Unknown keys are refused: a misspelt ``max_node`` must not be ignored,
and the refusal names the keys the endpoint takes; an option of the command line's own
(``--json``, ``--jobs``, ...: :attr:`~solver.options.Option.unserved`) is refused saying
why.

A board question takes ``board`` (one answer) or ``boards`` (a list; the answers come back in
order under ``results``, each board failing on its own like a line of ``npuzzle distance -``).

Imports: pydantic, :mod:`solver.options` and :mod:`solver.core.shape` (the blank's words).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from ..core.shape import BLANK_WORDS
from ..options import SPEC, Option, for_endpoint

BOARD_HELP = (
    "A board in any format the CLI reads: flat numbers '8 6 7 2 5 4 3 0 1' or "
    "'8,6,7,...', rows '8 6 7/2 5 4/3 0 1', or a JSON list of rows [[8,6,7],...]; "
    f"the blank is {BLANK_WORDS}."
)
GOAL_HELP = "blank-last (default), blank-first, snake, spiral, or a board of the same shape."


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


def field_of(option: Option) -> tuple[Any, Any]:
    """``(annotation, pydantic Field)`` of ``option`` in a request body: its type (or its
    choices), None allowed for "the default", its bounds and its help.  An option the service
    calls by another name holds the opposite (``no_reflect``)."""
    kind = option.type if option.choices is None else Literal[option.choices]
    bounds = {}
    if option.low is not None:
        bounds["ge"] = option.low
    if option.high is not None:
        bounds["le"] = option.high
    if option.type is float:
        bounds["allow_inf_nan"] = False
    default = not option.default if option.service_key else option.default
    return kind | None, Field(default, description=option.help, **bounds)


def _request(name: str, endpoint: str, doc: str) -> type[Problem]:
    """The request body of ``/ENDPOINT``: a :class:`Problem` and the options it takes."""
    fields = {o.key: field_of(o) for o in for_endpoint(endpoint)}
    return create_model(name, __base__=Problem, __doc__=doc, __module__=__name__, **fields)


def search_fields(endpoint: str, params: dict) -> dict:
    """The :class:`~solver.options.SearchOptions` fields a request to ``/ENDPOINT`` sets,
    from its validated body ``params`` (a key left out, or null, keeps the default).  The
    keys that only say how a command prints its answer (``show``, ``tiles``) leave the
    record as the command's ``--json`` prints it."""
    chosen = {}
    for option in for_endpoint(endpoint):
        if not option.search:
            continue
        value = params.get(option.key)
        if value is not None:
            chosen[option.name] = not value if option.service_key else value
    return chosen


class CheckRequest(Problem):
    """``/check``: solvability, with the parity working."""


DistanceRequest = _request("DistanceRequest", "distance", "``/distance``: the exact distance.")
HeuristicRequest = _request(
    "HeuristicRequest", "heuristic", "``/heuristic``: the pattern-database value and its parts."
)
HintRequest = _request("HintRequest", "hint", "``/hint``: the next optimal move.")
SolveRequest = _request(
    "SolveRequest",
    "solve",
    "``/solve``: an optimal solution, or a teaching search with its statistics, or a quick one "
    "that is not optimal (``algorithm`` fast, ``weight``).",
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
    timeout: float | None = Field(
        None,
        ge=0,
        allow_inf_nan=False,
        description="Give up solving candidates after S seconds (at most the server's cap; "
        "boards with an exact table need no solving).",
    )


# The request body of each endpoint: /check, /distance, ...
REQUESTS: dict[str, type[Strict]] = {
    "check": CheckRequest,
    "distance": DistanceRequest,
    "heuristic": HeuristicRequest,
    "hint": HintRequest,
    "solve": SolveRequest,
    "generate": GenerateRequest,
}


def command_line_key(option: Option) -> str:
    """The key a client would write for ``option``: its first flag as a name (``--data-dir``:
    ``data_dir``, ``--json``: ``json``)."""
    return option.flags[0].lstrip("-").replace("-", "_")


# The command line's own options, by the key a client would write: why the service takes none.
COMMAND_LINE_ONLY = {command_line_key(o): o.unserved for o in SPEC if o.unserved}


def unknown_key(endpoint: str, key: str) -> str:
    """The one line refusing ``key`` in a request to ``/ENDPOINT``: why, for an option of the
    command line's own, and the keys the endpoint takes."""
    why = COMMAND_LINE_ONLY.get(key)
    head = f"{key!r} is the command line's own: {why}" if why else f"unknown field {key!r}"
    return f"{head}; /{endpoint} takes {', '.join(REQUESTS[endpoint].model_fields)}"


__all__ = [
    "COMMAND_LINE_ONLY",
    "REQUESTS",
    "command_line_key",
    "field_of",
    "search_fields",
    "unknown_key",
    "Problem",
    "CheckRequest",
    "DistanceRequest",
    "HeuristicRequest",
    "HintRequest",
    "SolveRequest",
    "GenerateRequest",
]
