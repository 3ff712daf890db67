"""``build-pdb``: build the databases npuzzle searches with (a thin layer over build.py)."""
from __future__ import annotations

import sys

import click

from solver.cli.common import Command
from solver.core import config
from solver.core.board import BoardError, Shape
from solver.tables import store

from . import build

EXIT_USAGE, EXIT_DATABASE, EXIT_INTERRUPTED = 2, 3, 130


def _fail(message: str, code: int) -> None:
    click.echo(f"build-pdb: error: {message}", err=True)
    sys.exit(code)


def _print_rows(rows: list[dict], columns: list[tuple[str, str, str]]) -> None:
    """A plain aligned table on stdout: columns are (key, header, format)."""
    cells = [[h for _, h, _ in columns]]
    for r in rows:
        cells.append([("" if r.get(k) is None else format(r[k], f)) for k, _, f in columns])
    widths = [max(len(row[i]) for row in cells) for i in range(len(columns))]
    for row in cells:
        click.echo("  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))))


SUMMARY = [("file", "file", ""), ("entries", "entries", ",d"), ("mb", "MB", ".1f"),
           ("max_h", "max h", "d"), ("mean_h", "mean h", ".2f"), ("seconds", "seconds", ".2f"),
           ("peak_mb", "peak MB", ".0f"), ("status", "status", "")]
LISTING = [("file", "file", ""), ("kind", "kind", ""), ("shape", "shape", ""),
           ("partition", "partition", ""), ("mb", "MB", ".1f"), ("created_by", "by", "")]


def _plan(shapes: tuple[str, ...], partitions: tuple[str, ...]) -> list[tuple[Shape, str | None]]:
    """(shape, partition-or-None-for-exact) pairs to build."""
    if not shapes and not partitions:
        return [(s, None) for s in build.DEFAULT_EXACT_SHAPES] + [
            (Shape(4, 4), config.DEFAULT_PARTITION["4x4"])]
    parsed = [Shape.parse(s) for s in shapes] or [Shape(4, 4)]
    if partitions:
        if len(parsed) != 1:
            raise BoardError("--partition applies to one --shape at a time")
        return [(parsed[0], p) for p in partitions]
    plan = []
    for s in parsed:
        if s.size <= config.MAX_EXACT_CELLS:
            plan.append((s, None))
        elif str(s) in config.DEFAULT_PARTITION:
            plan.append((s, config.DEFAULT_PARTITION[str(s)]))
        else:
            raise BoardError(f"{s} is too large for an exact table and has no preset "
                             f"partition: give --partition")
    return plan


@click.command(cls=Command, name="build-pdb",
               context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--shape", "shapes", multiple=True, metavar="RxC",
              help="Board shape to build for (repeatable). Boards of up to 12 cells get exact "
                   "tables (3x4 and 2x6: about a minute and 115 MB each); larger ones need "
                   "--partition.")
@click.option("--partition", "partitions", multiple=True, metavar="P",
              help="Additive pattern database: a preset (5-5-5, 6-6-3, 7-8 on 4x4; 6-6-6-6 on "
                   "5x5) or tile "
                   "groups like '1,2,3,4/5,6,7,8' (repeatable).")
@click.option("--goal", default=None, metavar="G",
              help="Goal: blank-last (default), blank-first, snake, spiral or a board.  "
                   "Pattern databases are built for it; on 10- to 12-cell boards the exact "
                   "table of its blank cell is (every corner shares the default one).")
@click.option("--data-dir", type=click.Path(file_okay=False), default=None,
              help="Where databases go (default: $NPUZZLE_DATA, else data/ of a source "
                   "checkout, else ~/.local/share/npuzzle).")
@click.option("--force", is_flag=True, help="Rebuild even when the file exists.")
@click.option("--list", "list_", is_flag=True, help="Show the databases already built.")
@click.option("--verify", is_flag=True, help="Recompute every checksum and check metadata.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bars.")
def main(shapes, partitions, goal, data_dir, force, list_, verify, quiet):
    """Build the databases that npuzzle answers from, once, offline.

    \b
    With no options: exact tables of every 2x3, 3x3, 2x4, 4x2, 2x5 and 5x2 state (seconds)
    and the 4x4 6-6-3 additive pattern database (seconds).
    \b
    Examples:
      build-pdb                                  # the default set
      build-pdb --shape 3x3                      # exact 8-puzzle tables only
      build-pdb --shape 3x4                      # every 11-puzzle distance (a minute)
      build-pdb --shape 3x4 --goal "1 2 3 4/5 0 6 7/8 9 10 11"   # a goal's own table
      build-pdb --shape 4x4 --partition 7-8      # the strongest 15-puzzle heuristic (minutes)
      build-pdb --shape 5x5                      # the 24-puzzle's 6-6-6-6 (minutes, 486 MB)
      build-pdb --shape 3x3 --partition 1,2,3,4/5,6,7,8
      build-pdb --list ; build-pdb --verify

    Files are written under a temporary name and renamed when complete: interrupting a
    build never leaves a partial or corrupt file.
    """
    try:
        if list_:
            rows = build.list_built(data_dir)
            click.echo(f"data directory: {store.data_dir(data_dir)}", err=True)
            _print_rows(rows, LISTING) if rows else click.echo("no databases built yet", err=True)
            return
        if verify:
            files, problems = build.verify_all(data_dir)
            for p in problems:
                click.echo(p)
            if problems:
                _fail(f"{len(problems)} problem(s) in {len(files)} file(s); rebuild with --force",
                      EXIT_DATABASE)
            click.echo(f"{len(files)} file(s) verified, checksums match")
            return
        plan = _plan(shapes, partitions)
        directory = store.ensure_writable(store.data_dir(data_dir))
        click.echo(f"building into {directory}", err=True)
        rows = []
        for shape, partition in plan:
            if partition is None:
                # --goal picks the exact table only of shapes named with --shape (a bare
                # build-pdb --goal G is about the 4x4 database; G may be no board of 2x3).
                row = build.build_exact(shape, data_dir, force, progress=not quiet,
                                        goal=goal if shapes else None)
            else:
                row = build.build_partition(shape, partition, goal, data_dir, force,
                                            progress=not quiet)
            row["status"] = "exists (use --force)" if row.get("skipped") else "built"
            rows.append(row)
        _print_rows(rows, SUMMARY)
    except (BoardError, ValueError) as e:
        _fail(str(e), EXIT_USAGE)
    except store.DataDirError as e:
        _fail(str(e), EXIT_USAGE)
    except OSError as e:
        _fail(f"{e.strerror or e} ({getattr(e, 'filename', '') or 'data directory'})", EXIT_USAGE)
    except KeyboardInterrupt:
        _fail("interrupted; no partial file was left behind", EXIT_INTERRUPTED)
