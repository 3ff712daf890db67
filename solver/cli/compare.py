"""``npuzzle compare``: several algorithms on one board, side by side (teaching mode).

Each algorithm runs through :func:`solver.api.solve`, so every solution in the table has been
replayed onto the start.  A run stopped by ``--max-nodes`` / ``--timeout`` shows ``limit``
(``capped``, a blind search) with the statistics it had gathered, and the other runs still
fill the table.  The blind searches stop at :data:`DEFAULT_BLIND_NODES` unless
``--max-nodes`` says otherwise: an IDDFS of a 31-move 8-puzzle would otherwise run for many
minutes.  A capped blind search is what the table shows, not a failure: the command exits 0
when A* or IDA* answered (:func:`exit_status`).  On a terminal a status line on stderr
says which run is under way (:mod:`.live_status`); Ctrl-C prints the table of the runs that
finished, the others marked, and exits 130.
"""

from __future__ import annotations

from dataclasses import replace

import click

from .. import api
from ..core import interrupts
from ..core.board import BoardError
from ..core.solution import STATUS_LIMIT, SearchLimitReached, Solution
from ..tables.store import DatabaseError
from . import errors, io, options
from .group import main_group as main
from .live_status import LiveStatus

DEFAULT_ALGORITHMS = "bfs,iddfs,astar,idastar"
BLIND = ("bfs", "dfs", "dls", "iddfs")
OPTIMAL = ("astar", "idastar")  # the informed searches, whose answer is the comparison's
CAPPED = "capped"  # the length column of a blind search stopped by its cap
# Generated nodes at which a blind search stops when --max-nodes is not given: a few seconds
# and a few hundred MB (a BFS of the 15-puzzle holds ~4.6 M states, 640 MB, at 5 M nodes),
# and room for the course example's IDDFS (4.45 M nodes, docs/search-algorithms.md).
DEFAULT_BLIND_NODES = 5_000_000
INTERRUPTED, NOT_RUN = "interrupted", "not run"
COLUMNS = (
    ("algorithm", "<"),
    ("setting", "<"),
    ("length", ">"),
    ("optimal", "^"),
    ("generated", ">"),
    ("expanded", ">"),
    ("max frontier", ">"),
    ("peak states", ">"),
    ("depth", ">"),
    ("seconds", ">"),
)


def parse_runs(text: str, default_check: str | None) -> list[tuple[str, str | None]]:
    """Read ``bfs,dfs:path,dls`` as ``[(algorithm, cycle check or None), ...]``.

    >>> parse_runs("bfs, dfs:path", None)
    [('bfs', None), ('dfs', 'path')]
    """
    runs = []
    for item in text.split(","):
        item = item.strip().lower()
        if not item:
            continue
        name, _, check = item.partition(":")
        if name not in api.ALGORITHMS:
            raise click.BadParameter(
                f"unknown algorithm '{name}': use {', '.join(api.ALGORITHMS)}",
                param_hint="--algorithms",
            )
        if check and check not in api.CYCLE_CHECKS:
            raise click.BadParameter(
                f"unknown cycle check '{check}' in '{item}': use {', '.join(api.CYCLE_CHECKS)}",
                param_hint="--algorithms",
            )
        runs.append((name, check or default_check))
    if not runs:
        raise click.BadParameter("give at least one algorithm", param_hint="--algorithms")
    return runs


def _setting(sol: Solution) -> str:
    """What the run was configured with: cycle check, depth limit, heuristic."""
    parts = []
    if sol.heuristic:
        parts.append(sol.heuristic)
    if sol.extra.get("cycle_check"):
        parts.append(sol.extra["cycle_check"])
    if sol.extra.get("depth_limit") is not None:
        parts.append(f"L={sol.extra['depth_limit']}")
    return ", ".join(parts)


def table_row(sol: Solution) -> list[str]:
    """The cells of one run's line in the table, in :data:`COLUMNS` order."""
    if sol.status == STATUS_LIMIT:
        length = CAPPED if sol.algorithm in BLIND else "limit"
    elif sol.moves is None:
        length = "none"
    else:
        length = str(sol.length)
    optimal = {True: "yes", False: "no", None: "?"}[sol.optimal]
    return [
        sol.algorithm,
        _setting(sol),
        length,
        optimal,
        f"{sol.nodes_generated:,}",
        f"{sol.nodes_expanded:,}",
        f"{sol.max_frontier:,}",
        f"{sol.peak_states:,}",
        str(sol.depth_reached),
        f"{sol.seconds:.3f}",
    ]


def format_table(rows: list[list[str]]) -> str:
    """Align ``rows`` under :data:`COLUMNS`."""
    header = [name for name, _ in COLUMNS]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(COLUMNS))]

    def line(cells):
        return "  ".join(f"{c:{a}{w}}" for c, (_, a), w in zip(cells, COLUMNS, widths)).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(header), rule, *(line(r) for r in rows)])


def options_for(algorithm: str, opts: api.SearchOptions) -> api.SearchOptions:
    """``opts`` for one run: a blind search gets :data:`DEFAULT_BLIND_NODES` as its node cap
    when none was asked for."""
    if algorithm in BLIND and opts.max_nodes is None:
        return replace(opts, max_nodes=DEFAULT_BLIND_NODES)
    return opts


def exit_status(outcomes: list[tuple[str, Solution | None, int]]) -> int:
    """The command's exit status from each run's ``(algorithm, solution or None, status)``: the
    worst, where a blind search stopped by its cap counts for nothing once an optimal search
    (A*, IDA*) answered -- a capped blind search is what the comparison shows, not a failure
    of the command."""
    answered = any(
        name in OPTIMAL and sol is not None and sol.moves is not None for name, sol, _ in outcomes
    )
    return max(
        (
            code
            for name, sol, code in outcomes
            if not (answered and name in BLIND and code == errors.EXIT_LIMIT)
        ),
        default=errors.EXIT_OK,
    )


def run_one(start, goal, algorithm: str, check: str | None, opts: api.SearchOptions):
    """Solve with one algorithm; return ``(solution or None, exit status, message or None)``.

    A search limit gives the partial solution (status ``limit``), a missing database or a
    bad option gives no solution and the message; other errors propagate.  A blind search
    stopped by the default node cap says how to raise it.
    """
    capped = options_for(algorithm, opts)
    try:
        sol = api.solve(start, goal, algorithm=algorithm, cycle_check=check, options=capped)
    except SearchLimitReached as e:
        message = errors.classify(e)[1]
        by_default = capped.max_nodes != opts.max_nodes
        if by_default and e.partial.nodes_generated >= capped.max_nodes:
            message += (
                f" (compare stops a blind search at {capped.max_nodes:,} generated nodes "
                "unless told otherwise: raise the cap with --max-nodes N)"
            )
        return e.partial, errors.EXIT_LIMIT, message
    except (DatabaseError, BoardError) as e:
        code, message = errors.classify(e)
        return None, code, message
    code = errors.EXIT_LIMIT if sol.moves is None else errors.EXIT_OK
    return sol, code, None


@main.command()
@io.board_argument
@click.option(
    "--algorithms",
    "-a",
    default=DEFAULT_ALGORITHMS,
    show_default=True,
    metavar="A[,A...]",
    help=f"Algorithms to run, in order: {', '.join(api.ALGORITHMS)}; "
    "append :parent, :path or :visited to set one run's cycle check "
    "(e.g. dfs:path).",
)
@options.taken_by("compare", shown=options.FOR_TEACHING)
@errors.guarded
def compare(board, goal, shape, as_json, algorithms, **params):
    """Run several algorithms on one board and print their statistics side by side.

    Columns: solution length (capped = a blind search stopped by its cap, limit = an
    informed one stopped by --max-nodes or --timeout, none = not found within the depth
    limit), whether it is optimal (? = unknown: no exact table built), nodes generated
    and expanded, the largest frontier, the most states held in memory at once, the
    deepest node, seconds.  Exit status 4 when a run found nothing or was stopped by a
    limit (a capped blind search counts only when no A* or IDA* run answered), 3 when a
    run lacked its database; the table is printed either way.

    The blind searches (bfs, dfs, dls, iddfs) stop at 5,000,000 generated nodes unless
    --max-nodes sets another cap.  On a terminal a line on stderr shows the run under
    way: its seconds, its nodes where the search reports them, the memory held.  Ctrl-C
    prints the table of the runs that finished, the others marked 'interrupted' or
    'not run', and exits 130.

    \b
      npuzzle compare "3 6 4/2 5 8/0 1 7" --goal blank-first
      npuzzle compare "3 6 4/2 5 8/0 1 7" --goal blank-first \\
          --algorithms bfs,dfs:visited,dls:path,dls:visited,astar --depth-limit 25
      npuzzle compare 1 2 3 4 5 6 0 8 7 9 10 11 13 14 15 12 -a bfs,astar,idastar \\
          --max-nodes 200000 --json
    """
    runs = parse_runs(algorithms, params["cycle_check"])
    start, goal_b = api.read_problem(io.board_text(board), goal, shape)
    api.check_solvable(start, goal_b)
    # cycle_check is each run's own (parse_runs)
    opts = options.search_options(params, cycle_check=None)
    outcomes, rows, records = [], [], []
    with LiveStatus() as status:
        _load_kernels(goal_b, runs, opts, status)
        try:
            for i, (name, check) in enumerate(runs):
                status.start(f"{name} ({i + 1} of {len(runs)})")
                sol, code, message = run_one(
                    start, goal_b, name, check, replace(opts, progress=status.heard)
                )
                status.finish()
                outcomes.append((name, sol, code))
                if sol is not None:
                    row, record = table_row(sol), sol.as_dict()
                else:
                    row = unfinished_row(name, check, opts.heuristic, "error")
                    record = {"algorithm": name, "cycle_check": check, "status": "error"}
                if message is not None:
                    record["error"] = message
                    if sol is None or not as_json:
                        click.echo(f"npuzzle: {name}: {message}", err=True)
                rows.append(row)
                records.append(record)
        except (interrupts.Interrupted, KeyboardInterrupt):
            # What finished is worth printing: the run under way and those after it are
            # marked, then the interruption goes on up (one line, exit status 130).
            seconds = status.elapsed() if status.label is not None else None
            status.close()
            del rows[len(records) :]
            for j, (name, check) in enumerate(runs[len(records) :]):
                state = INTERRUPTED if j == 0 else NOT_RUN
                ran = seconds if j == 0 else None
                rows.append(unfinished_row(name, check, opts.heuristic, state, ran))
                record = {
                    "algorithm": name,
                    "cycle_check": check,
                    "status": state.replace(" ", "-"),
                }
                if ran is not None:
                    record["seconds"] = ran
                records.append(record)
            _print_comparison(start, goal_b, rows, records, as_json)
            raise
    _print_comparison(start, goal_b, rows, records, as_json)
    raise SystemExit(exit_status(outcomes))


def _load_kernels(goal, runs, opts: api.SearchOptions, status: LiveStatus) -> None:
    """Load IDA*'s compiled kernel, and the tables it reads, before any run is timed: the
    first run after an install compiles it for seconds, which would otherwise be counted as
    that run's search time."""
    if not any(name in ("idastar", "auto") for name, _ in runs):
        return
    status.start("loading the search kernels")
    try:
        api.warm_up(goal, opts)
    except Exception:  # noqa: BLE001 - the run meets the same problem and reports it
        pass
    status.finish()


def unfinished_row(
    name: str, check: str | None, heuristic: str, state: str, seconds: float | None = None
) -> list[str]:
    """The table's line for a run without statistics: ``state`` (error, interrupted, not run)
    in the length column, the seconds it ran if known; the setting is the one asked for,
    with the algorithm's default cycle check."""
    from ..search.blind import DEFAULT_CYCLE_CHECK

    informed = name in ("astar", "idastar")
    check = check or DEFAULT_CYCLE_CHECK.get(name)
    setting = ", ".join(x for x in (heuristic if informed else None, check) if x)
    ran = "" if seconds is None else f"{seconds:.3f}"
    return [name, setting, state, *[""] * (len(COLUMNS) - 4), ran]


def _print_comparison(start, goal, rows: list[list[str]], records: list[dict], as_json: bool):
    if as_json:
        click.echo(
            io.json_line(
                {
                    "board": start.flat(),
                    "goal": goal.flat(),
                    "shape": str(start.shape),
                    "runs": records,
                }
            )
        )
    else:
        click.echo(f"start {start}  goal {goal}")
        click.echo(format_table(rows))
