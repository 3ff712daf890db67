"""One request's answer as ``(HTTP status, JSON body)`` (layer 7: service).

The bodies are the records of :mod:`solver.answers` -- the same fields as the CLI's
``--json`` -- and the statuses follow DESIGN §7:

* 200 answered, also for an unsolvable start (``"solvable": false`` with the parity working)
  and for a search stopped by a cap (``"status": "limit"`` with the lower bound);
* 400 a request the CLI would refuse with exit status 2 (one ``error`` line);
* 503 a database is missing or damaged (``error`` names the ``build-pdb`` command, also given
  alone as ``fix``);
* 504 a ``/generate`` that had to solve its candidates and ran out of time.

:func:`answer` runs in the server process for lookups and in a worker process for searches
(:func:`is_lookup` decides), so everything it takes and returns is plain data.  Its
messages name options as the command line does (``--shape``): the request's keys are the
command line's option names, and a board is refused in the command line's words.

Imports: :mod:`solver.answers`, :mod:`solver.api`, :mod:`solver.core` (board, messages, program),
:mod:`solver.tables`, :mod:`solver.workloads`, and :mod:`.limits` and :mod:`.requests` of this
package.
"""

from __future__ import annotations

import json
import logging
import time

from .. import answers, api
from ..core.board import Board, BoardError, Shape, parse_board
from ..core.messages import speaking
from ..core.program import command_line_option
from ..tables import catalog, names
from ..workloads.distributions import uses_exact_table
from ..workloads.generate import MAX_SEARCHED_CELLS, GenerateTimeout
from .limits import Settings
from .requests import search_fields

log = logging.getLogger("npuzzle.serve")

STATUS_OF_KIND = {
    answers.UNSOLVABLE: 200,
    answers.LIMIT: 200,
    answers.BAD_INPUT: 400,
    answers.DATABASE: 503,
}


PARSED = "_parsed"  # the boards is_lookup() read, kept in the params for answer()
MIN_SECONDS = 0.001  # a search whose request has no time left still reports its lower bound
FAST_LOOKUP_CELLS = 64  # a fast (not optimal) solve this size takes a few ms: no worker needed


class RequestError(BoardError):
    """A request the service refuses before answering (too many boards, both ``board`` and
    ``boards``...); a 400 like any bad input."""


# --- one board -------------------------------------------------------------------------------


def _options(endpoint: str, params: dict, settings: Settings) -> api.SearchOptions:
    """The search a request to ``/ENDPOINT`` asks for, within the server's caps."""
    return settings.limits.options(data_dir=settings.data_dir, **search_fields(endpoint, params))


def _distance(board, p: dict, s: Settings) -> dict:
    return answers.distance_record(
        board, p.get("goal"), p.get("shape"), options=_options("distance", p, s)
    )


def _solve(board, p: dict, s: Settings) -> dict:
    return answers.solve_record(
        board, p.get("goal"), p.get("shape"), options=_options("solve", p, s)
    )


def _hint(board, p: dict, s: Settings) -> dict:
    return answers.hint_record(board, p.get("goal"), p.get("shape"), options=_options("hint", p, s))


def _heuristic(board, p: dict, s: Settings) -> dict:
    return answers.heuristic_record(
        board,
        p.get("goal"),
        p.get("shape"),
        partition=p.get("partition"),
        reflect=not p.get("no_reflect"),
        data_dir=s.data_dir,
    )


def _check(board, p: dict, s: Settings) -> dict:
    return answers.check_record(board, p.get("goal"), p.get("shape"))


BOARD_QUESTIONS = {
    "distance": _distance,
    "solve": _solve,
    "hint": _hint,
    "heuristic": _heuristic,
    "check": _check,
}


# --- the answer --------------------------------------------------------------------------------


def answer(endpoint: str, params: dict, settings: Settings) -> tuple[int, dict]:
    """The HTTP status and JSON body answering ``params`` (a validated request body) at
    ``endpoint`` (``solve``, ``distance``, ``hint``, ``heuristic``, ``check``, ``generate``)."""
    with speaking(command_line_option):
        return _answer(endpoint, params, settings)


def _answer(endpoint: str, params: dict, settings: Settings) -> tuple[int, dict]:
    try:
        if endpoint == "generate":
            return 200, {"results": _generate(params, settings)}
        question = BOARD_QUESTIONS[endpoint]
        boards, parsed = params.get("boards"), params.get(PARSED)
        if boards is None:
            board = _the_board(params)
            return _one(question, board, parsed[0] if parsed else None, params, settings)
        return 200, {"results": _many(question, boards, parsed, params, settings)}
    except Exception as e:  # noqa: BLE001 - a request must never take the server down
        return failure(e)


def failure(exc: BaseException) -> tuple[int, dict]:
    """The status and body for a request that failed as a whole."""
    if isinstance(exc, GenerateTimeout):
        return 504, {"error": answers.one_line(exc)}
    try:
        kind, _ = answers.describe(exc)
    except Exception:  # noqa: BLE001 - a bug: logged with its traceback, answered in one line
        log.exception("internal error")
        return 500, {
            "error": f"internal error ({type(exc).__name__}); the server log has the details"
        }
    body = {"error": answers.one_line(exc)}
    if kind == answers.DATABASE and getattr(exc, "fix", None):
        body["fix"] = exc.fix
    return STATUS_OF_KIND[kind], body


def _the_board(params: dict):
    board = params.get("board")
    if board is None:
        raise RequestError("give the board as 'board' (or several as 'boards')")
    return board


def _one(question, board, parsed, params: dict, settings: Settings) -> tuple[int, dict]:
    try:
        return 200, question(parsed or board, params, settings)
    except Exception as e:  # noqa: BLE001 - unexpected errors go on to failure()
        kind, _ = answers.describe(e)
        if kind == answers.DATABASE:
            raise
        return STATUS_OF_KIND[kind], answers.error_record(_input_text(board), e)


def _many(question, boards: list, parsed, params: dict, settings: Settings) -> list[dict]:
    """Each board's record, or its own error record; a missing database fails them all.
    The server's time cap holds for the whole request: each search gets what is left."""
    if params.get("board") is not None:
        raise RequestError("give either 'board' or 'boards', not both")
    cap = settings.limits.max_boards
    if len(boards) > cap:
        raise RequestError(f"{len(boards)} boards in one request: the server takes at most {cap}")
    out = []
    deadline = time.monotonic() + settings.limits.max_seconds
    for i, board in enumerate(boards):
        left = max(deadline - time.monotonic(), MIN_SECONDS)
        asked = params.get("timeout")
        mine = params if asked is not None and asked <= left else {**params, "timeout": left}
        try:
            out.append(question((parsed[i] if parsed else None) or board, mine, settings))
        except Exception as e:  # noqa: BLE001 - unexpected errors go on to failure()
            kind, _ = answers.describe(e)
            if kind == answers.DATABASE:
                raise
            out.append(answers.error_record(_input_text(board), e))
    return out


def _input_text(board) -> str:
    """The board as the client wrote it, as text (a list of rows as JSON)."""
    return board if isinstance(board, str) else json.dumps(board, separators=(",", ":"))


def _generate(p: dict, s: Settings) -> list[dict]:
    shape = Shape.parse(p.get("shape") or "3x3")
    searched = not uses_exact_table(shape, s.data_dir)
    cap = s.limits.max_generate_searched if searched else s.limits.max_generate
    if p.get("count", 1) > cap:
        what = "solved by search" if searched else "with an exact table"
        raise RequestError(
            f"count {p['count']} is more than the server makes in one request "
            f"for a {shape} board ({what}): at most {cap}"
        )
    wanted = dict(
        distance=p.get("distance"),
        min_distance=p.get("min"),
        max_distance=p.get("max"),
        seed=p.get("seed"),
        unique=bool(p.get("unique")),
        data_dir=s.data_dir,
    )
    if (
        searched
        and shape.size > MAX_SEARCHED_CELLS
        and p.get("method") != "walk"
        and all(wanted[k] is None for k in ("distance", "min_distance", "max_distance"))
    ):
        raise RequestError(
            f"the optimal distance of a random {shape} position takes minutes to hours to "
            f"find: ask for a 'distance' (random walks find positions up to about 60 moves "
            f"away in seconds with the {shape} pattern databases), or 'method': 'walk' with "
            f"a 'length'"
        )
    try:
        return answers.generate_records(
            shape,
            p.get("count", 1),
            goal=p.get("goal"),
            method=p.get("method", "shuffle"),
            walk_length=p.get("length"),
            timeout=_generate_seconds(p.get("timeout"), s.limits.max_seconds if searched else None),
            **wanted,
        )
    except GenerateTimeout as e:
        if shape.size <= MAX_SEARCHED_CELLS or pattern_db_built(shape, s.data_dir):
            raise
        raise GenerateTimeout(
            f"{answers.one_line(e)}: this server has no pattern database for {shape}, so each "
            f"candidate is solved with linear conflict; ask for a smaller distance"
        ) from None


def _generate_seconds(asked: float | None, cap: float | None) -> float | None:
    """How long a ``/generate`` may solve its candidates: the client's ``timeout`` within the
    server's cap (None: no limit, where nothing is solved)."""
    given = [t for t in (asked, cap) if t is not None]
    return min(given) if given else None


def pattern_db_built(shape: Shape, data_dir) -> bool:
    """True when a pattern database for ``shape`` is in the data directory."""
    return any(e.shape == shape and e.kind == names.ADDITIVE for e in catalog.scan(data_dir))


# --- where a request runs ----------------------------------------------------------------------


def is_lookup(endpoint: str, params: dict, settings: Settings) -> bool:
    """True when the answer is a table lookup (or a quick refusal), answered on the event
    loop; False when it may need a search, which runs in a worker process.

    Lookups: ``check``; ``heuristic``; ``distance``, ``hint`` and ``solve`` on shapes with an
    exact table (unless a search is asked for by name); ``generate`` on shapes with one built.  The
    boards read to decide are kept in ``params`` so that :func:`answer` does not read them
    again (a board that cannot be read is left for :func:`answer` to refuse in the parser's
    words).
    """
    if endpoint == "generate":
        try:
            shape = Shape.parse(params.get("shape") or "3x3")
        except BoardError:
            return True
        # A table searched in memory (no file built: exact.table_for) takes a second: a worker's.
        return catalog.has_exact(shape, settings.data_dir)
    boards = params.get("boards")
    parsed = [
        _parsed(b, params.get("shape"))
        for b in ([params.get("board")] if boards is None else boards[: settings.limits.max_boards])
    ]
    params[PARSED] = parsed
    if endpoint in ("check", "heuristic"):
        return True
    if endpoint == "solve" and params.get("algorithm") == "fast":
        # Line by line, in Python: milliseconds up to 8x8; larger boards go to a worker.
        return all(b.shape.size <= FAST_LOOKUP_CELLS for b in parsed if b is not None)
    if (params.get("algorithm") or "auto") not in ("auto", "table") or (
        params.get("heuristic") or "auto"
    ) != "auto":
        return False
    shapes = {b.shape for b in parsed if b is not None}
    return all(catalog.has_exact(shape, settings.data_dir) for shape in shapes)


def _parsed(board, shape) -> Board | None:
    """The board read as the CLI reads it, or None when it cannot be read."""
    if board is None:
        return None
    try:
        return parse_board(board, shape)
    except BoardError:
        return None


__all__ = ["answer", "failure", "is_lookup", "BOARD_QUESTIONS", "RequestError", "STATUS_OF_KIND"]
