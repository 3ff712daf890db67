"""``build-pdb``: build the databases npuzzle searches with (a thin layer over build.py).

Exit status: 0 done · 2 bad request (an unknown partition, a build that would not fit in
memory or on disk, a data directory that cannot be used, or for ``--list`` and ``--verify`` one
that does not exist) · 3 ``--verify`` or ``--list`` found a damaged or missing database (the message names the command that rebuilds it) · 130 interrupted (SIGINT)
· 143 terminated (SIGTERM) · 141 the reader of the output went away.  Always one line on
stderr for a failure.
"""

from __future__ import annotations

import click

from solver.core import config, interrupts
from solver.core.board import BoardError, Shape, goal_board
from solver.core.messages import ERROR, prefixed
from solver.core.program import (
    DATA_DIR,
    EXIT_DATABASE,
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    Command,
    fail_as,
)
from solver.tables import compact, names, store

from . import build

# The size of a 12-cell exact table (3x4, 2x6), as the help quotes it.
TWELVE_CELLS_MB = round(compact.table_bytes(Shape(3, 4)) / 1e6)


def _fail(message: str, code: int) -> None:
    fail_as("build-pdb", prefixed(ERROR, message), code)


def _print_rows(rows: list[dict], columns: list[tuple[str, str, str]]) -> None:
    """A plain aligned table on stdout: columns are (key, header, format)."""
    cells = [[h for _, h, _ in columns]]
    for r in rows:
        cells.append([("" if r.get(k) is None else format(r[k], f)) for k, _, f in columns])
    widths = [max(len(row[i]) for row in cells) for i in range(len(columns))]
    for row in cells:
        click.echo(
            "  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths)))
        )


SUMMARY = [
    ("file", "file", ""),
    ("entries", "entries", ",d"),
    ("mb", "MB", ".1f"),
    ("max_h", "max h", "d"),
    ("mean_h", "mean h", ".2f"),
    ("seconds", "seconds", ".2f"),
    ("peak_mb", "peak MB", ".0f"),
    ("status", "status", ""),
]
LISTING = [
    ("file", "file", ""),
    ("kind", "kind", ""),
    ("shape", "shape", ""),
    ("partition", "partition", ""),
    ("mb", "MB", ".1f"),
    ("created_by", "by", ""),
    ("status", "status", ""),
]


def _plan(shapes: tuple[str, ...], partitions: tuple[str, ...]) -> list[tuple[Shape, str | None]]:
    """(shape, partition-or-None-for-exact) pairs to build."""
    if not shapes and not partitions:
        return [(s, None) for s in build.DEFAULT_EXACT_SHAPES] + [
            (Shape(4, 4), config.DEFAULT_PARTITION["4x4"])
        ]
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
            raise BoardError(
                f"{s} is too large for an exact table and has no preset partition: give --partition"
            )
    return plan


@click.command(
    cls=Command, name="build-pdb", context_settings={"help_option_names": ["-h", "--help"]}
)
@click.option(
    "--shape",
    "shapes",
    multiple=True,
    metavar="RxC",
    help="Board shape to build for (repeatable). Boards of up to 12 cells get exact "
    f"tables (3x4 and 2x6: about a minute and {TWELVE_CELLS_MB} MB each); larger ones need "
    "--partition.",
)
@click.option(
    "--partition",
    "partitions",
    multiple=True,
    metavar="P",
    help="Additive pattern database: a preset (5-5-5, 6-6-3, 7-8, 7-8b on 4x4; 6-6-6-6 and "
    "6-6-6-6b to 6-6-6-6e on 5x5) or tile groups like '1,2,3,4/5,6,7,8' (repeatable).  With "
    "several equally strong ones built (6-6-6-6, c, d and e), a long `npuzzle solve` races "
    "them and goes on with the best for its board; `--combine` takes the larger of two "
    "databases' values.",
)
@click.option(
    "--goal",
    default=None,
    metavar="G",
    help="Goal: blank-last (default), blank-first, snake, spiral or a board.  "
    "Pattern databases are built for it; on 10- to 12-cell boards the exact "
    "table of its blank cell is (every corner shares the default one).",
)
@click.option(
    "--data-dir",
    type=DATA_DIR,
    default=None,
    help="Where databases go (default: $NPUZZLE_DATA, else data/ of a source "
    "checkout, else ~/.local/share/npuzzle).",
)
@click.option("--force", is_flag=True, help="Rebuild even when the file exists.")
@click.option(
    "--list",
    "list_",
    is_flag=True,
    help="Show the databases already built, and whether each is sound (exit 3 with the "
    "rebuild command when one is damaged).",
)
@click.option(
    "--verify",
    is_flag=True,
    help="Check every database completely: digest, checksums, every dataset and "
    "attribute against the file's name, histograms recomputed from the tables "
    "(exit 3 with the rebuild command when one is damaged).",
)
@click.option(
    "--zero-aware",
    is_flag=True,
    help="Build the zero-aware twin of each --partition (zpdb-...: two values a placement, "
    "by the region of free cells the blank is in, packed into a byte; the additive file's "
    "size).  `npuzzle solve` "
    "reads it wherever it is built: 0.69 times the nodes with 6-6-3.",
)
@click.option(
    "--strongest",
    is_flag=True,
    help="Build everything the fastest search of the --shape reads, skipping what is built: "
    "4x4 7-8, 5x5 6-6-6-6 and its cuts c, d and e, each with its zero-aware twin (one "
    "search makes a database and its twin).  Says what it will build, the time, disk and "
    "memory it expects, before it starts.  Example: build-pdb --shape 5x5 --strongest",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress bars.")
def main(shapes, partitions, goal, data_dir, force, list_, verify, quiet, zero_aware, strongest):
    """Build the databases that npuzzle answers from, once, offline.

    \b
    With no options: exact tables of every 2x3, 3x3, 2x4, 4x2, 2x5 and 5x2 state and
    the 4x4 6-6-3 additive pattern database -- about 4 s on 2 cores.
    \b
    Examples:
      build-pdb                                  # the default set
      build-pdb --shape 3x3                      # exact 8-puzzle tables only
      build-pdb --shape 4x4 --strongest          # the fastest 15-puzzle set: 7-8 and its twin
      build-pdb --shape 5x5 --strongest          # the fastest 24-puzzle set (4 + 4 files, 4 GB)
      build-pdb --shape 4x4 --partition 7-8      # the strongest 15-puzzle heuristic (about a minute)
      build-pdb --shape 5x5                      # the 24-puzzle's 6-6-6-6 (about a minute, 486 MB)
      build-pdb --shape 5x5 --partition 6-6-6-6c --partition 6-6-6-6d --partition 6-6-6-6e
                                                 # three more 24-puzzle cuts, raced by solve
      build-pdb --shape 3x3 --partition 1,2,3,4/5,6,7,8
      build-pdb --shape 4x4 --partition 6-6-3 --zero-aware   # its zero-aware twin
      build-pdb --list ; build-pdb --verify

    Files are written under a temporary name and renamed when complete: interrupting a
    build never leaves a partial or corrupt file.
    """
    try:
        if list_:
            _list(data_dir)
            return
        if verify:
            _verify(data_dir)
            return
        if strongest:
            _strongest(shapes, partitions, zero_aware, goal, data_dir, force, quiet)
            return
        if zero_aware and not partitions:
            raise BoardError("--zero-aware builds the twin of a --partition: name one")
        plan = _plan(shapes, partitions)
        for shape, partition in plan:  # refuse what cannot fit before building anything
            need = build.preflight(shape, partition, goal, data_dir, force, zero_aware)
            if need and partition is not None:  # what a pattern database's search will take
                click.echo(need, err=True)
        directory = store.ensure_writable(store.data_dir(data_dir))
        click.echo(f"building into {directory}", err=True)
        rows = []
        for shape, partition in plan:
            if partition is None:
                # --goal picks the exact table only of shapes named with --shape (a bare
                # build-pdb --goal G is about the 4x4 database; G may be no board of 2x3).
                row = build.build_exact(
                    shape, data_dir, force, progress=not quiet, goal=goal if shapes else None
                )
            else:
                row = build.build_partition(
                    shape, partition, goal, data_dir, force, not quiet, zero_aware
                )
            row["status"] = "exists (use --force)" if row.get("skipped") else "built"
            rows.append(row)
        _print_rows(rows, SUMMARY)
    except (BoardError, ValueError) as e:
        _fail(str(e), EXIT_USAGE)
    except store.DataDirError as e:
        _fail(str(e), EXIT_USAGE)
    except BrokenPipeError:
        raise  # the reader went away: Command.invoke ends it quietly (status 141)
    except OSError as e:
        _fail(f"{e.strerror or e} ({getattr(e, 'filename', '') or 'data directory'})", EXIT_USAGE)
    except MemoryError:
        _fail("out of memory", EXIT_USAGE)
    except KeyboardInterrupt:
        # Only where the handlers are not installed (the command run in-process): the
        # programs' own line, as solver.core.interrupts says it.
        fail_as("build-pdb", f"interrupted{interrupts.NOTES['build-pdb']}", EXIT_INTERRUPTED)


def _strongest(shapes, partitions, zero_aware, goal, data_dir, force, quiet) -> None:
    """``--strongest``: say what the set of the one --shape still needs and what it will
    take, then build it (a database and its missing twin from one search)."""
    from . import strongest

    shape = _strongest_shape(shapes, partitions, zero_aware)
    goal_b = goal_board(shape, goal)
    steps = strongest.plan(shape, goal_b, data_dir, force)
    for step in steps:  # refuse what cannot fit before building anything
        name = step.member.partition.name
        build.preflight(shape, name, goal_b, data_dir, force, step.twin)
        if step.additive and not step.twin:
            build.preflight(shape, name, goal_b, data_dir, force, False)
    est = strongest.estimate(shape, steps)
    build.check_disk(f"the strongest {shape} set", est.disk, data_dir)
    for line in strongest.describe(shape, steps, est):
        click.echo(line, err=True)
    if any(step.additive or step.twin for step in steps):
        directory = store.ensure_writable(store.data_dir(data_dir))
        click.echo(f"building into {directory}", err=True)
    rows = []
    for step in steps:
        rows += build.build_step(shape, step, goal_b, data_dir, not quiet)
    for row in rows:
        row["status"] = "exists, kept" if row.get("skipped") else "built"
    _print_rows(rows, SUMMARY)


def _strongest_shape(shapes, partitions, zero_aware) -> Shape:
    """The one shape ``--strongest`` builds the set of (BoardError for any other use)."""
    from . import strongest

    if len(shapes) != 1:
        raise BoardError("--strongest needs one --shape: 4x4 or 5x5")
    if partitions or zero_aware:
        raise BoardError(
            "--strongest chooses the partitions and their twins: leave out "
            "--partition and --zero-aware"
        )
    shape = Shape.parse(shapes[0])
    if not strongest.has_set(shape):
        raise BoardError(f"{shape} has no strongest set: --strongest is for 4x4 and 5x5")
    return shape


def _list(data_dir) -> None:
    directory = store.named(data_dir)
    click.echo(f"data directory: {directory}", err=True)
    rows = build.list_built(data_dir) if directory.is_dir() else []
    if not rows:
        click.echo("no databases built yet", err=True)
        return
    _print_rows(rows, LISTING)
    fixes = [r["fix"] for r in rows if r["status"] != "ok"]
    if fixes:  # as --verify: exit 3 with the commands that rebuild them
        _fail(
            f"{len(fixes)} damaged file(s) in {directory}; fix: {' && '.join(fixes)}",
            EXIT_DATABASE,
        )


def _verify(data_dir) -> None:
    directory = store.named(data_dir)
    files, problems, fixes = build.verify_all(data_dir)
    for p in problems:
        click.echo(p)
    if problems:
        _fail(
            f"{len(problems)} problem(s) in {len(fixes)} of {len(files)} file(s) in "
            f"{directory}; fix: {' && '.join(fixes)}",
            EXIT_DATABASE,
        )
    if not files:
        _fail(
            f"no databases in {directory}; fix: {names.default_build_command(data_dir)}",
            EXIT_DATABASE,
        )
    click.echo(
        f"{len(files)} file(s) verified: digests, checksums, datasets, attributes and "
        f"histograms match"
    )
