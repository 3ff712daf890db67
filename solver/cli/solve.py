"""``npuzzle solve``: an optimal solution (or a teaching search) for one board or a stream."""

from __future__ import annotations

import contextlib
import shlex
import signal
import sys
from dataclasses import replace

import click

from .. import answers, api
from ..core import interrupts
from ..core.board import Board, BoardError
from ..core.solution import SearchLimitReached, Solution
from . import advice, errors, io, options
from .advice import Advice
from .forwarding import forwarded
from .group import TYPED_WORDS
from .group import main_group as main
from .scheduler import batch_solver, solver


def _moves_text(sol: Solution, tiles: bool) -> str:
    if tiles:
        return " ".join(map(str, sol.start.tiles_moved(sol.moves)))
    return sol.moves


def _human(sol: Solution, tiles: bool) -> str:
    if sol.length == 0:
        return "0 moves: already at the goal"
    return f"{_count(sol.length)}{_caveat(sol)}: {_moves_text(sol, tiles)}"


def _caveat(sol: Solution) -> str:
    """What the count must say of an answer that is not proven optimal, and why: the bound
    of a weighted search, else the algorithm (``, not proven optimal (fast)``)."""
    if sol.optimal:
        return ""
    bound = sol.extra.get("bound")
    return f", not proven optimal ({f'at most {bound:g} x optimal' if bound else sol.algorithm})"


def _count(length: int) -> str:
    """``1 move``, ``31 moves``."""
    return f"{length} move{'' if length == 1 else 's'}"


def _stats(sol: Solution) -> str:
    parts = [sol.algorithm]
    if sol.heuristic:
        parts.append(f"heuristic {sol.heuristic}")
    if sol.database:
        parts.append(f"database {sol.database}")
    if sol.extra.get("pruning"):
        parts.append(f"pruning {sol.extra['pruning']}")
    if sol.extra.get("tables_bytes"):
        size = sol.extra["tables_bytes"]
        parts.append(f"tables {size / 1e6:,.1f} MB" if size >= 1e5 else f"tables {size:,} bytes")
    if sol.extra.get("race"):
        parts.append(f"race: {sol.extra['race']}")
    parts.append(f"{sol.nodes_generated:,} nodes generated")
    if sol.iterations:
        parts.append(f"{sol.iterations} iterations")
    if sol.extra.get("work_units"):
        order = sol.extra.get("unit_order", "search order")
        parts.append(
            f"{sol.extra['work_units']:,} work units on {sol.extra['jobs']} threads ({order})"
        )
    if sol.extra.get("bound"):
        parts.append(
            f"at most {sol.extra['bound']:g} x optimal (optimal length >= {sol.lower_bound})"
        )
    parts.append(f"{sol.seconds:.3f} s")
    return ", ".join(parts)


def _show(sol: Solution) -> str:
    boards = sol.boards()
    blocks = [f"start\n{boards[0].grid()}"]
    for i, (m, b) in enumerate(zip(sol.moves, boards[1:]), 1):
        tile = boards[i - 1].tiles[b.blank]
        blocks.append(f"{i}. {m} (tile {tile})\n{b.grid()}")
    return "\n\n".join(blocks)


def _print_solution(sol: Solution, as_json, show, tiles, verbose) -> int:
    advice.solution(sol)
    if sol.moves is None:  # e.g. depth-limited search with too low a limit
        if as_json:
            click.echo(io.json_line(advice.record(answers.solution_record(sol))))
        else:
            limit = sol.extra.get("depth_limit")
            within = f" within depth limit {limit}" if limit is not None else ""
            click.echo(f"npuzzle: not found: {sol.algorithm} found no solution{within}", err=True)
        return errors.EXIT_LIMIT
    if as_json:
        click.echo(io.json_line(advice.record(answers.solution_record(sol))))
        return errors.EXIT_OK
    if show:
        click.echo(_show(sol))
        click.echo("")
    click.echo(_human(sol, tiles))
    if verbose:
        click.echo(_stats(sol), err=True)
    return errors.EXIT_OK


def _text(sol: Solution, tiles: bool) -> str:
    """The text answer of one line of a batch."""
    advice.solution(sol)
    if sol.moves is None:
        limit = sol.extra.get("depth_limit")
        within = f" within depth limit {limit}" if limit is not None else ""
        return f"not found: {sol.algorithm} found no solution{within}"
    return _human(sol, tiles)


def _bulk(opts: api.SearchOptions, tiles: bool):
    """Optimal solutions of a whole group of boards walked down the exact table at once;
    None for boards that need a search."""

    def answer(group, as_json: bool):
        import time

        import numpy as np

        from ..tables import catalog

        if opts.algorithm not in ("auto", "table") or (
            opts.algorithm == "auto" and opts.heuristic != "auto"
        ):
            return None
        if not catalog.has_exact(group.shape, opts.data_dir):
            return None
        from ..tables import exact
        from ..workloads import bulk_answers
        from .stream import BulkAnswers

        t0 = time.perf_counter()
        walks = bulk_answers.table_walks(group.tiles, group.goal, opts.data_dir)
        share = (time.perf_counter() - t0) / max(1, len(walks))
        bad = np.array([w is None for w in walks], dtype=bool)

        database = exact.goal_table(group.goal, opts.data_dir).entry.path.name  # as exact.solve

        def solution(k: int) -> Solution:
            start = Board(group.shape, tuple(group.tiles[k].tolist()))
            return exact.table_solution(start, group.goal, walks[k], database, share)

        out = BulkAnswers(unsolvable=bad)
        if as_json:
            out.record = lambda k: answers.solution_record(solution(k))
        elif tiles:
            out.texts = [
                None if w is None else _human(solution(k), True) for k, w in enumerate(walks)
            ]
        else:
            out.texts = [
                None
                if w is None
                else (f"{_count(len(w))}: {w}" if w else "0 moves: already at the goal")
                for w in walks
            ]
        return out

    return answer


def _advised_one(solve_one, opts: api.SearchOptions):
    """``solve_one`` that first says the note of its board's search (:mod:`.advice`)."""
    notes = Advice(opts)

    def solve(text, goal=None, *, shape=None, options=None):
        notes.board(text, goal, shape, options)
        return solve_one(text, goal, shape=shape, options=options)

    return solve


def _batch(goal, shape, opts, as_json, tiles, jobs, scheduler) -> int:
    from . import stream

    with batch_solver(scheduler, opts, jobs) as solve_many:
        spec = stream.Batch(
            one=lambda start, goal_b: api.solve(start, goal_b, options=opts),
            text=lambda sol: _text(sol, tiles),
            record=lambda sol: advice.record(answers.solution_record(sol)),
            code=lambda sol: errors.EXIT_LIMIT if sol.moves is None else errors.EXIT_OK,
            bulk=_bulk(opts, tiles),
            many=Advice(opts).before(solve_many),
            goal=goal,
            shape=shape,
            as_json=as_json,
            searches=True,
        )
        return stream.run(spec)


@main.command()
@io.board_argument
@options.taken_by("solve")
@forwarded
@errors.guarded
def solve(board, goal, shape, as_json, show, tiles, jobs, scheduler, verbose, **params):
    """Print an optimal solution: the blank's moves (U D L R) and their number.

    Boards of up to 12 cells walk the exact table (2x3, 3x3, 2x5 by default; 3x4 and
    2x6 once `build-pdb --shape 3x4` has built theirs); larger boards use IDA* with the
    strongest pattern database built (`build-pdb`).  With BOARD '-', reads one board
    per line and prints one answer per line, in order.

    \b
      npuzzle solve 8 6 7 2 5 4 3 0 1
      npuzzle solve "1 2 3/4 0 5" --show
      npuzzle solve 14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3 --goal blank-first
      npuzzle solve "3 6 4/2 5 8/0 1 7" --algorithm bfs --goal blank-first -v
      npuzzle solve 15 11 13 12 14 10 8 9 7 2 5 1 3 6 4 0 --goal blank-first -j 2 -v
      npuzzle solve 15 11 13 12 14 10 8 9 7 2 5 1 3 6 4 0 --goal blank-first -w 1.2
      npuzzle solve - --json < boards.txt
      npuzzle solve - --scheduler tcp://10.0.0.1:8786 < boards.txt    # on a Dask cluster
      npuzzle solve -a fast "$(cat board-10x10.txt)"     # rows on lines: any size
    """
    opts = options.search_options(params)
    # On this machine --jobs is capped at its cores (said once); a Dask scheduler's workers
    # are elsewhere, and take what they are given.
    jobs = (jobs or api.usable_cores()) if scheduler else options.usable_jobs(jobs)
    if io.is_stdin(board):
        if opts.resume is not None:
            raise BoardError("--resume goes on with the search of one board, not a batch")
        raise SystemExit(_batch(goal, shape, opts, as_json, tiles, jobs, scheduler))
    text = io.board_text(board)
    try:
        with _iteration_log(verbose) as log, solver(scheduler) as solve_one:
            opts = replace(opts, jobs=jobs, progress=log)
            solve_one = _advised_one(solve_one, opts)
            sol = io.answer_one(
                lambda t: solve_one(t, goal, shape=shape, options=opts), text, as_json
            )
    except SearchLimitReached as e:
        errors.fail(_going_on(errors.classify(e)[1], e.partial), errors.EXIT_LIMIT)
    except (interrupts.Interrupted, KeyboardInterrupt) as e:
        _interrupted(e, text, as_json)
    raise SystemExit(_print_solution(sol, as_json, show, tiles, verbose))


def _interrupted(e: BaseException, text: str, as_json: bool):
    """Ctrl-C (or SIGTERM) stopped the search: say what it had proven and how to go on (with
    ``--json`` its record first, shaped as a limit's), then exit 130 (143).  An interruption
    before the search proved anything goes on up as it came."""
    partial = getattr(e, "partial", None)  # solver.search.idastar.solve sets it
    if partial is None or partial.lower_bound is None:
        raise e
    interrupts.handled()  # said here, with what was proven: not again by the program
    signum = e.signum if isinstance(e, interrupts.Interrupted) else signal.SIGINT
    seconds = partial.seconds
    took = f"{seconds:.1f} s" if seconds < 10 else f"{seconds:,.0f} s"
    stopped = SearchLimitReached(partial, f"{interrupts.describe(signum)} after {took}")
    if as_json:
        click.echo(io.json_line(answers.error_record(text, stopped)))
    errors.fail(_going_on(answers.one_line(stopped), partial), 128 + signum)


def _going_on(message: str, partial: Solution) -> str:
    """``message`` about a stopped search, with the command that goes on where it stopped
    when the search left a resume token (:mod:`solver.core.resume_token`)."""
    token = partial.extra.get("resume")
    if not token:
        return message
    ctx = click.get_current_context()
    words = ctx.meta.get(TYPED_WORDS) or [ctx.info_name]
    words = words[words.index(ctx.info_name) :] if ctx.info_name in words else [ctx.info_name]
    kept, skip = [], False
    for word in words:
        if skip or word == "--resume" or word.startswith("--resume="):
            skip = word == "--resume"
            continue
        kept.append(word)
    return f"{message}; go on with: npuzzle {shlex.join([*kept, '--resume', token])}"


@contextlib.contextmanager
def _iteration_log(verbose: bool):
    """IDA*'s iterations on stderr, with a live status line: on a terminal, or anywhere with
    -v; else nothing."""
    if not (verbose or sys.stderr.isatty()):
        yield None
        return
    from ..search.progress import IterationLog

    log = IterationLog(sys.stderr, live=True)
    try:
        yield log
    finally:
        log.close()
