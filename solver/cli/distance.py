"""``npuzzle distance``: the exact optimal number of moves, one board or a stream of them."""
from __future__ import annotations

import time

import click

from .. import api
from ..core.solution import Unsolvable
from . import common
from .common import main_group as main


def _answer(text: str, goal, shape, data_dir) -> dict:
    t0 = time.perf_counter()
    start, goal_b = api.read_problem(text, goal, shape)
    d = api.distance(start, goal_b, data_dir=data_dir)
    return {"board": start.flat(), "goal": goal_b.flat(), "shape": str(start.shape),
            "solvable": True, "distance": d, "seconds": round(time.perf_counter() - t0, 6)}


def _batch(goal, shape, data_dir, as_json) -> int:
    return common.answer_stream(lambda line: _answer(line, goal, shape, data_dir),
                                lambda ans: str(ans["distance"]), as_json)


@main.command()
@common.board_argument
@common.problem_options
@common.guarded
def distance(board, goal, shape, data_dir, as_json):
    """Print the optimal number of moves from BOARD to the goal.

    2x3 and 3x3 boards are a table lookup (any goal); larger boards are solved by IDA*.
    With BOARD '-', reads one board per line and prints one answer per line: the
    distance, 'unsolvable' or 'error: ...'.

    \b
      npuzzle distance 8 6 7 2 5 4 3 0 1          # -> 31
      npuzzle distance "1 2 3/4 0 5" --json
      npuzzle distance - < boards.txt
    """
    if common.is_stdin(board):
        raise SystemExit(_batch(goal, shape, data_dir, as_json))
    try:
        ans = _answer(common.board_text(board), goal, shape, data_dir)
    except Unsolvable as e:
        if as_json:
            click.echo(common.json_line(common.error_record(common.board_text(board), e,
                                                            str(e))))
        raise
    click.echo(common.json_line(ans) if as_json else str(ans["distance"]))
