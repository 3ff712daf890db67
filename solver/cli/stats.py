"""``npuzzle stats``: how many positions lie at each optimal distance — a table, a terminal
bar chart and, with matplotlib, a histogram PNG."""

from __future__ import annotations

import click

from ..core.board import goal_board
from ..workloads.distributions import distance_counts
from . import errors, io, options
from .group import main_group as main

BAR_WIDTH = 50  # characters of the longest bar
PLOT_HINT = "pip install 'npuzzle[plot]'"


def table_lines(dc) -> list[str]:
    """The counts as aligned rows: distance, states, percentage, cumulative percentage, bar
    (``dc`` is a :class:`~solver.workloads.distributions.DistanceCounts` or a :class:`~.lengths.Lengths`)."""
    if not dc.total:
        return ["no lengths"]
    top = max(dc.counts)
    width = max(len(f"{top:,}"), len("states"))
    lines = [f"{'distance':>8}  {'states':>{width}}  {'%':>7}  {'cum %':>7}"]
    cum = 0
    first = next(d for d, c in enumerate(dc.counts) if c)
    for d, c in enumerate(dc.counts):
        cum += c
        if d < first:
            continue
        bar = "#" * round(BAR_WIDTH * c / top)
        if c and not bar:
            bar = "."  # fewer than half a character's worth, but not none
        lines.append(
            f"{d:>8}  {c:>{width},}  {100 * c / dc.total:>7.3f}  "
            f"{100 * cum / dc.total:>7.3f}  {bar}"
        )
    lines.append(f"{'total':>8}  {dc.total:>{width},}")
    lines.append(f"mean distance {dc.mean:.6f}, maximum {dc.max_distance}")
    return lines


def _pyplot():
    """matplotlib's pyplot on a file-only backend, or a one-line error and exit 2."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        errors.fail(
            f"--plot needs matplotlib, which is not installed: {PLOT_HINT}", errors.EXIT_USAGE
        )
    return plt


def write_plot(dc, path: str, plt, title: str | None = None) -> None:
    """A bar chart of the counts, saved to ``path`` (the format follows its extension)."""
    fig, ax = plt.subplots(figsize=(9, 5))
    ax.bar(range(len(dc.counts)), dc.counts, color="#3b6ea8")
    ax.set_xlabel("optimal distance (moves)")
    ax.set_ylabel("positions")
    ax.set_title(
        title
        or f"{dc.shape}: positions at each distance from {dc.goal} "
        f"(mean {dc.mean:.2f}, max {dc.max_distance})"
    )
    ax.axvline(dc.mean, color="#c44e52", linestyle="--", linewidth=1)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


@main.command()
@click.argument("source", required=False, metavar="[-]")
@click.option(
    "--shape",
    "-s",
    default=None,
    metavar="RxC",
    help="Board shape (default 3x3; with '-': of the boards read).",
)
@click.option(
    "--goal",
    "-g",
    default=None,
    metavar="G",
    help="Goal: blank-last (default), blank-first, snake, spiral, or a board.",
)
@click.option(
    "--plot",
    "plot_path",
    default=None,
    metavar="FILE.png",
    help=f"Also write a histogram to FILE.png (needs matplotlib: {PLOT_HINT}).",
)
@options.taken_by("stats")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@errors.guarded
def stats(source, shape, goal, plot_path, data_dir, as_json):
    """Count the positions at each optimal distance from the goal.

    Boards with an exact table (2x3, 3x3, 2x4, 2x5 by default; 3x4, 2x6 after
    `build-pdb --shape 3x4`) are counted from it, searched in memory where none is built
    on boards of up to 10 cells; otherwise the published counts are
    shown (4x4: Korf & Schultze 2005; 3x4, 2x6: OEIS), valid for any goal with the
    blank in a corner.

    With '-', counts the lengths in what stdin holds instead: the answers of
    'solve -' and 'distance -' (text or --json), or boards (their distances are
    computed), as 'generate' writes them.

    \b
      npuzzle stats --shape 3x3
      npuzzle stats --shape 4x4 --json
      npuzzle stats --shape 3x4 --plot 11-puzzle.png
      npuzzle stats --shape 3x3 --goal spiral --plot spiral.png
      npuzzle generate --count 1000 | npuzzle solve - | npuzzle stats - --plot lengths.png
    """
    plt = _pyplot() if plot_path else None  # fail before any work when it cannot plot
    if source is not None:
        if source != "-":
            raise click.UsageError(f"stats reads '-' (stdin) or nothing, not '{source}'")
        raise SystemExit(_lengths(goal, shape, data_dir, as_json, plot_path, plt))
    g = goal_board(shape or "3x3", goal)
    dc = distance_counts(g.shape, g, data_dir)
    errors.notice(dc.notice)
    if as_json:
        click.echo(io.json_line(dc.as_dict()))
    else:
        click.echo(f"{dc.shape} positions by optimal distance to {dc.goal} ({dc.source})")
        for line in table_lines(dc):
            click.echo(line)
    if plot_path:
        write_plot(dc, plot_path, plt)
        click.echo(f"wrote {plot_path}", err=True)


def _lengths(goal, shape, data_dir, as_json, plot_path, plt) -> int:
    import sys

    from .lengths import read_lengths

    found, status = read_lengths(sys.stdin.buffer, goal, shape, data_dir)
    if as_json:
        click.echo(io.json_line(found.as_dict()))
    else:
        click.echo(
            f"solution lengths read from stdin: {found.total:,} answers, "
            f"{found.unanswered:,} without a length (unsolvable or not found), "
            f"{found.errors:,} errors"
        )
        for line in table_lines(found):
            click.echo(line)
    if plot_path:
        write_plot(
            found,
            plot_path,
            plt,
            f"solution lengths of {found.total:,} answers "
            f"(mean {found.mean:.2f}, max {found.max_distance})",
        )
        click.echo(f"wrote {plot_path}", err=True)
    return status
