"""``npuzzle distance``: the exact optimal number of moves, one board or a stream of them."""
from __future__ import annotations

import click

from .. import answers, api
from . import common
from .common import main_group as main


@main.command()
@common.board_argument
@common.problem_options
@common.limit_options
@common.guarded
def distance(board, goal, shape, data_dir, as_json, timeout, max_nodes):
    """Print the optimal number of moves from BOARD to the goal.

    Boards with an exact table are a lookup (any goal): 2x3, 3x3, 2x4, 2x5 by default,
    3x4 and 2x6 once built (`build-pdb --shape 3x4`); larger boards are solved by IDA*.
    With BOARD '-', reads one board per line and prints one answer per line: the
    distance, 'unsolvable' or 'error: ...'.

    \b
      npuzzle distance 8 6 7 2 5 4 3 0 1          # -> 31
      npuzzle distance "1 2 3/4 0 5" --json
      npuzzle distance "4 3 2 5/8 7 6 1/0 11 10 9"   # -> 53, on the 3x4 table
      npuzzle distance - < boards.txt
    """
    opts = api.SearchOptions(timeout=timeout, max_nodes=max_nodes, data_dir=data_dir)

    def answer(text: str) -> dict:
        rec = answers.distance_record(text, goal, shape, options=opts)
        common.notice(rec.get("notice"))
        return rec

    if common.is_stdin(board):
        raise SystemExit(common.answer_stream(answer, lambda ans: str(ans["distance"]),
                                              as_json))
    text = common.board_text(board)
    ans = common.answer_one(answer, text, as_json)
    click.echo(common.json_line(ans) if as_json else str(ans["distance"]))
