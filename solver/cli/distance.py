"""``npuzzle distance``: the exact optimal number of moves, one board or a stream of them."""
from __future__ import annotations

import functools

import click

from .. import answers, api
from . import common, scheduler as cluster
from .common import main_group as main


@main.command()
@common.board_argument
@common.problem_options
@common.limit_options
@cluster.scheduler_option
@common.guarded
def distance(board, goal, shape, data_dir, as_json, timeout, max_nodes, scheduler):
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
      npuzzle distance - --scheduler tcp://10.0.0.1:8786 < boards.txt
    """
    opts = api.SearchOptions(timeout=timeout, max_nodes=max_nodes, data_dir=data_dir)

    def answer(text: str) -> dict:
        rec = answers.distance_record(text, goal, shape, options=opts)
        common.notice(rec.get("notice"))
        return rec

    remote = functools.partial(answers.distance_record, goal=goal, shape=shape,
                               options=cluster.remote_options(opts))
    with cluster.mapper(scheduler, remote) as mapper:
        if common.is_stdin(board):
            raise SystemExit(common.answer_stream(answer, lambda ans: str(ans["distance"]),
                                                  as_json, mapper))
        if mapper is not None:  # one board: one task on the cluster
            answer = functools.partial(_first, mapper)
        ans = common.answer_one(answer, common.board_text(board), as_json)
    click.echo(common.json_line(ans) if as_json else str(ans["distance"]))


def _first(mapper, text: str) -> dict:
    """The answer of one line mapped elsewhere, its error raised here."""
    _, result = next(iter(mapper([text])))
    if isinstance(result, Exception):
        raise result
    common.notice(result.get("notice"))
    return result
