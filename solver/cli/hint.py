"""``npuzzle hint``: the next move of an optimal solution, one board or a stream of them."""

from __future__ import annotations

import click

from .. import answers
from . import errors, io, options
from .advice import Advice, record
from .forwarding import forwarded
from .group import main_group as main


def _text(rec: dict) -> str:
    """``U: slide tile 5, 30 moves left`` (the blank's move, the tile, the distance after)."""
    if rec["move"] is None:
        return "already at the goal"
    left = rec["distance_after"]
    return f"{rec['move']}: slide tile {rec['tile']}, {left} move{'' if left == 1 else 's'} left"


@main.command()
@io.board_argument
@options.taken_by("hint")
@forwarded
@errors.guarded
def hint(board, goal, shape, as_json, **params):
    """Print the next move of an optimal solution: the blank's direction and the tile it slides.

    The move starts a shortest path (from the exact table up to 12 cells, by IDA* on
    larger boards); the line also says how many moves are left after it.  --json adds
    the distance before and after and the board after the move.  With BOARD '-', reads
    one board per line and prints one hint per line.

    \b
      npuzzle hint 8 6 7 2 5 4 3 0 1                 # -> U: slide tile 5, 30 moves left
      npuzzle hint "1 2 3/4 0 5" --json
      npuzzle hint - < boards.txt
    """
    opts = options.search_options(params)
    advice = Advice(opts)

    def answer(text) -> dict:
        advice.board(text, goal, shape)
        return answers.hint_record(text, goal, shape, options=opts)

    def one(start, goal_b) -> dict:
        # A batch's boards arrive read: the note is the goal's, not read again a board.
        advice.problems([(start, goal_b)])
        return answers.hint_record(start, goal_b, shape, options=opts)

    if io.is_stdin(board):
        from . import stream

        batch = stream.Batch(
            one=one,
            text=_text,
            record=record,
            goal=goal,
            shape=shape,
            as_json=as_json,
            searches=True,  # a hint beyond 12 cells is an IDA* search
        )
        raise SystemExit(stream.run(batch))
    rec = io.answer_one(answer, io.board_text(board), as_json)
    click.echo(io.json_line(rec) if as_json else _text(rec))
