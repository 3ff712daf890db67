"""``npuzzle heuristic``: the additive pattern-database heuristic of a board (or a stream)."""
from __future__ import annotations

import click

from .. import answers
from . import common
from .common import main_group as main


@main.command()
@common.board_argument
@common.problem_options
@common.partition_option
@common.reflect_option
@common.guarded
def heuristic(board, goal, shape, data_dir, as_json, partition, no_reflect):
    """Print the additive pattern-database heuristic of BOARD: a lower bound on its
    distance to the goal (the max of the sum of the pattern tables and the same sum
    for the board mirrored across the diagonal).

    The database is the one built for the goal, else one built for a goal that a
    rotation or reflection of the board and a renaming of the tiles carry it onto.
    --json adds the parts: the plain and mirrored sums, each pattern's value, the
    database file, and Manhattan distance and linear conflict for comparison.  With
    BOARD '-', reads one board per line and prints one value per line.

    \b
      npuzzle heuristic 14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3 --goal blank-first
      npuzzle heuristic "1 2 3/4 5 6/0 7 8" --partition 1,2,3,4/5,6,7,8 --json
      npuzzle heuristic - --partition 6-6-3 < boards.txt
    """

    def answer(text: str) -> dict:
        return answers.heuristic_record(text, goal, shape, partition=partition,
                                        reflect=not no_reflect, data_dir=data_dir)

    if common.is_stdin(board):
        raise SystemExit(common.answer_stream(answer, lambda ans: str(ans["h"]), as_json))
    ans = common.answer_one(answer, common.board_text(board), as_json)
    click.echo(common.json_line(ans) if as_json else str(ans["h"]))
