"""``npuzzle distance``: the exact optimal number of moves, one board or a stream of them."""

from __future__ import annotations

import functools
import time

import click

from .. import answers, api
from . import errors, io, options
from .advice import Advice, record
from .forwarding import forwarded
from .group import main_group as main
from .scheduler import many, remote_options


def _bulk(opts: api.SearchOptions):
    """Distances of a whole group of boards, when an exact table answers their shape."""

    def answer(group, as_json: bool):
        from ..tables import catalog

        if not catalog.has_exact(group.shape, opts.data_dir):
            return None  # IDA*, one board at a time
        from ..workloads import bulk_answers

        t0 = time.perf_counter()
        d = bulk_answers.exact_distances(group.tiles, group.goal, opts.data_dir)
        from .stream import BulkAnswers

        out = BulkAnswers(unsolvable=d < 0, ints=d)
        if as_json:
            share = (time.perf_counter() - t0) / max(1, len(d))
            goal, shape = group.goal.flat(), str(group.shape)
            database = api.exact_database(group.shape, group.goal)
            out.record = lambda k: answers.distance_fields(
                " ".join(map(str, group.tiles[k].tolist())), goal, shape, int(d[k]), database, share
            )
        return out

    return answer


def make_batch(opts: api.SearchOptions, goal, shape, as_json: bool, many=None):
    """The batch mode of ``distance`` (also what ``stats -`` runs on the boards it reads);
    ``many`` answers the boards elsewhere (a cluster: :func:`.scheduler.many`)."""
    from . import stream

    advice = Advice(opts)

    def one(start, goal_b) -> dict:
        advice.problems([(start, goal_b)])
        return answers.distance_record(start, goal_b, options=opts)

    return stream.Batch(
        one=one,
        text=lambda rec: str(_heard(rec)["distance"]),
        record=_heard,
        bulk=_bulk(opts),
        many=None if many is None else advice.before(many),
        goal=goal,
        shape=shape,
        as_json=as_json,
    )


def _heard(rec: dict) -> dict:
    """``rec``, its notice (a fallback heuristic...) said once on stderr
    (:func:`.advice.record`)."""
    return record(rec)


@main.command()
@io.board_argument
@options.taken_by("distance")
@forwarded
@errors.guarded
def distance(board, goal, shape, as_json, scheduler, **params):
    """Print the optimal number of moves from BOARD to the goal.

    Boards with an exact table are a lookup (any goal): 2x3, 3x3, 2x4, 2x5 by default,
    3x4 and 2x6 once built (`build-pdb --shape 3x4`); larger boards are solved by IDA*.
    With BOARD '-', reads one board per line and prints one answer per line: the
    distance, 'unsolvable' or 'error: ...' (see 'npuzzle --help' for the line formats).

    \b
      npuzzle distance 8 6 7 2 5 4 3 0 1          # -> 31
      npuzzle distance "1 2 3/4 0 5" --json
      npuzzle distance "4 3 2 5/8 7 6 1/0 11 10 9"   # -> 53, on the 3x4 table
      npuzzle distance - < boards.txt
      npuzzle generate --count 1000 --json | npuzzle distance - --json
      npuzzle distance - --scheduler tcp://10.0.0.1:8786 < boards.txt   # on a Dask cluster
    """
    opts = options.search_options(params)
    advice = Advice(opts)

    def answer(text) -> dict:
        advice.board(text, goal, shape)
        return record(answers.distance_record(text, goal, shape, options=opts))

    remote = functools.partial(answers.distance_record, options=remote_options(opts))
    with many(scheduler, remote) as elsewhere:
        if io.is_stdin(board):
            from . import stream

            raise SystemExit(stream.run(make_batch(opts, goal, shape, as_json, elsewhere)))
        one = (
            answer
            if elsewhere is None
            else functools.partial(_first, elsewhere, goal, shape, advice)
        )
        ans = io.answer_one(one, io.board_text(board), as_json)  # cluster: one task
    click.echo(io.json_line(ans) if as_json else str(ans["distance"]))


def _first(many, goal, shape, advice: Advice, text: str) -> dict:
    """The answer of one board, asked of ``many``, its note said first; its error raised
    here."""
    advice.board(text, goal, shape)
    (result,) = many([api.read_problem(text, goal, shape)])
    if isinstance(result, Exception):
        raise result
    return _heard(result)
