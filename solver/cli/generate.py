"""``npuzzle generate``: random solvable positions, each with its exact optimal distance."""

from __future__ import annotations

import sys
import time

import click

from .. import answers
from ..core.messages import LIMIT, prefixed
from . import errors, io, option_types, options
from .forwarding import forwarded
from .group import main_group as main

FLUSH_SECONDS = 0.2  # rows written to a pipe reach it at least this often


@main.command()
@click.option("--shape", "-s", default="3x3", show_default=True, metavar="RxC", help="Board shape.")
@click.option(
    "--count",
    "-n",
    default=1,
    show_default=True,
    type=click.IntRange(min=0),
    help="How many positions.",
)
@click.option(
    "--distance",
    "-d",
    type=click.IntRange(min=0),
    default=None,
    help="Exact optimal distance of every position.",
)
@click.option(
    "--min",
    "min_distance",
    type=click.IntRange(min=0),
    default=None,
    help="Smallest optimal distance allowed.",
)
@click.option(
    "--max",
    "max_distance",
    type=click.IntRange(min=0),
    default=None,
    help="Largest optimal distance allowed.",
)
@click.option(
    "--goal",
    "-g",
    default=None,
    metavar="G",
    help="Goal: blank-last (default), blank-first, snake, spiral, or a board.",
)
@click.option(
    "--method",
    "-m",
    type=click.Choice(("shuffle", "walk")),
    default="shuffle",
    show_default=True,
    help="shuffle: uniform over the solvable positions; walk: random walks from the "
    "goal that never undo a move.",
)
@click.option(
    "--length",
    "walk_length",
    type=click.IntRange(min=0),
    default=None,
    help="Steps of each walk (--method walk; default 20 per cell).",
)
@click.option(
    "--seed", type=int, default=None, help="Random seed: the same seed, the same positions."
)
@click.option("--unique", is_flag=True, help="Never repeat a position.")
@options.taken_by("generate")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per line.")
@click.option(
    "--timeout",
    type=option_types.SECONDS,
    default=None,
    metavar="S",
    help="Give up solving candidates after S seconds (exit 4; boards with an exact table "
    "need no solving).",
)
@forwarded
@errors.guarded
def generate(
    shape,
    count,
    distance,
    min_distance,
    max_distance,
    goal,
    method,
    walk_length,
    seed,
    unique,
    data_dir,
    as_json,
    timeout,
):
    """Print COUNT random positions that can reach the goal, each with its optimal distance.

    Each line is the board (rows separated by '/'), a tab, and the distance.  With
    --distance (or --min/--max), boards with an exact table (2x3, 3x3, 3x4 ...; searched
    in memory where none is built, up to 10 cells) are drawn uniformly from it; 4x4 positions are searched for, solving
    candidates optimally, with a progress bar on stderr.  Boards larger than 4x4 without
    an exact table take short walks only (--method walk --length L): the optimal
    distance of a random 5x5 position takes minutes to hours.

    \b
      npuzzle generate --count 5 --seed 1
      npuzzle generate --shape 3x3 --distance 31 --count 2
      npuzzle generate --shape 4x4 --count 3 --min 40 --max 45 --json
      npuzzle generate --shape 2x3 --method walk --length 12 --goal blank-first
      npuzzle generate --shape 5x5 --method walk --length 60 --count 3
    """
    records = answers.iter_generate_records(
        shape,
        count,
        goal=goal,
        method=method,
        distance=distance,
        min_distance=min_distance,
        max_distance=max_distance,
        seed=seed,
        data_dir=data_dir,
        progress=not errors.quiet(),  # on a terminal only (solver.workloads.generate)
        walk_length=walk_length,
        unique=unique,
        timeout=timeout,
        notice=errors.notice,
    )
    flushed = time.monotonic()
    try:
        for rec in records:  # streamed: the first lines come at once, memory stays flat
            click.echo(io.json_line(rec) if as_json else f"{rec['rows']}\t{rec['distance']}")
            if time.monotonic() - flushed > FLUSH_SECONDS:  # slow rows reach a pipe promptly
                sys.stdout.flush()
                flushed = time.monotonic()
    except Exception as e:
        from ..workloads.generate import GenerateTimeout  # loaded by now: no cost

        if isinstance(e, GenerateTimeout):  # a search limit, as --timeout is everywhere
            errors.fail(prefixed(LIMIT, errors.one_line(e)), errors.EXIT_LIMIT)
        raise
