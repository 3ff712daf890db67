"""``npuzzle heuristic``: the additive pattern-database heuristic of a board (or a stream)."""
from __future__ import annotations

import time

import click

from .. import api, heuristics
from ..core.solution import Unsolvable
from . import common
from .common import main_group as main


def _answer(text: str, goal, shape, partition, reflect, data_dir) -> dict:
    t0 = time.perf_counter()
    start, goal_b = api.read_problem(text, goal, shape)
    api.check_solvable(start, goal_b)
    ans = heuristics.evaluate(start, goal_b, partition, reflect, data_dir)
    return {"board": start.flat(), "goal": goal_b.flat(), "shape": str(start.shape),
            "solvable": True, **ans, "seconds": round(time.perf_counter() - t0, 6)}


def _batch(goal, shape, partition, reflect, data_dir, as_json) -> int:
    return common.answer_stream(lambda line: _answer(line, goal, shape, partition, reflect, data_dir),
                                lambda ans: str(ans["h"]), as_json)


@main.command()
@common.board_argument
@common.problem_options
@click.option("--partition", "-p", default=None, metavar="P",
              help="Which pattern database (7-8, 6-6-3, 5-5-5 or tiles like 1,2,3,4/5,6,7,8); "
                   "default: the strongest built.")
@click.option("--no-reflect", is_flag=True,
              help="Only the additive sum, without the mirrored lookup.")
@common.guarded
def heuristic(board, goal, shape, data_dir, as_json, partition, no_reflect):
    """Print the additive pattern-database heuristic of BOARD: a lower bound on its
    distance to the goal (the max of the sum of the pattern tables and the same sum
    for the board mirrored across the diagonal).

    --json adds the parts: the plain and mirrored sums, each pattern's value, the
    database file, and Manhattan distance and linear conflict for comparison.  With
    BOARD '-', reads one board per line and prints one value per line.

    \b
      npuzzle heuristic 14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3 --goal blank-first
      npuzzle heuristic "1 2 3/4 5 6/0 7 8" --partition 1,2,3,4/5,6,7,8 --json
      npuzzle heuristic - --partition 6-6-3 < boards.txt
    """
    reflect = not no_reflect
    if common.is_stdin(board):
        raise SystemExit(_batch(goal, shape, partition, reflect, data_dir, as_json))
    text = common.board_text(board)
    try:
        ans = _answer(text, goal, shape, partition, reflect, data_dir)
    except Unsolvable as e:
        if as_json:
            click.echo(common.json_line(common.error_record(text, e, str(e))))
        raise
    click.echo(common.json_line(ans) if as_json else str(ans["h"]))
