"""Shared pieces of the ``npuzzle`` commands: board arguments, options, errors and exit codes.

Exit status (DESIGN §3): 0 answered · 1 unsolvable · 2 bad input or usage · 3 a database is
missing, stale or corrupt · 4 a search limit was reached (memory included) · 130 interrupted
(SIGINT) · 143 terminated (SIGTERM) · 141 the reader of the output went away · 70 an internal
error (a bug: please report it).  Every failure is one line on stderr, never a traceback
(``NPUZZLE_DEBUG=1`` shows the traceback of an internal error).
"""

from __future__ import annotations

import functools
import json
import math
import os
import sys
import threading

import click

from .. import __version__ as package_version
from .. import answers
from ..api import CYCLE_CHECKS, HEURISTICS
from ..core import config, interrupts
from ..core.solution import Unsolvable

EXIT_OK = 0
EXIT_UNSOLVABLE = 1
EXIT_USAGE = 2
EXIT_DATABASE = 3
EXIT_LIMIT = 4
EXIT_INTERNAL = 70  # EX_SOFTWARE: a bug, not the user's doing
EXIT_INTERRUPTED = interrupts.EXIT_INTERRUPTED
EXIT_TERMINATED = interrupts.EXIT_TERMINATED
EXIT_BROKEN_PIPE = interrupts.EXIT_BROKEN_PIPE

# what went wrong (solver.answers.describe) -> exit status
EXIT_OF_KIND = {
    answers.UNSOLVABLE: EXIT_UNSOLVABLE,
    answers.BAD_INPUT: EXIT_USAGE,
    answers.DATABASE: EXIT_DATABASE,
    answers.LIMIT: EXIT_LIMIT,
}


def classify(exc: BaseException) -> tuple[int, str]:
    """(exit status, one-line message) for an exception a command may meet."""
    if isinstance(exc, tuple(cls for cls, _, _ in answers.ERROR_KINDS)):
        kind, message = answers.describe(exc)
        return EXIT_OF_KIND[kind], message
    # What only a command-line run meets (the service answers these with a 500): the disk,
    # a file named on the command line, memory.
    if isinstance(exc, MemoryError):
        return EXIT_LIMIT, "limit: out of memory"
    if isinstance(exc, OSError) and not isinstance(exc, BrokenPipeError):
        where = f" ({exc.filename})" if exc.filename else ""
        return EXIT_USAGE, f"error: {one_line(exc.strerror or exc)}{where}"
    raise exc


def one_line(text) -> str:
    """``text`` with every run of whitespace (newlines included) folded into one space: a
    library's message over several lines still makes one line of ours."""
    return " ".join(str(text).split())


def fail(message: str, code: int):
    """Print ``npuzzle: message`` on stderr and exit with ``code``."""
    fail_as("npuzzle", message, code)


class _NotesSaid(threading.local):
    """The notes said so far, per thread: `npuzzle serve` runs forwarded commands in threads of
    one process (:mod:`solver.cli.capture`), and each run says its own notes once."""

    def __init__(self):
        self.notes: set = set()

    def __contains__(self, message) -> bool:
        return message in self.notes

    def add(self, message) -> None:
        self.notes.add(message)

    def clear(self) -> None:
        self.notes.clear()


_SAID = _NotesSaid()


def notice(message: str | None) -> None:
    """Say ``message`` on stderr once per command (e.g. "no database: falling back to ...")."""
    if message and message not in _SAID:
        _SAID.add(message)
        click.echo(f"npuzzle: note: {message}", err=True)


def guarded(command):
    """Wrap a command body so known errors become one line and an exit status (anything
    else reaches :meth:`OneLineUsage.main`, which says it in one line too)."""

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except KeyboardInterrupt:
            fail("interrupted", EXIT_INTERRUPTED)
        except BrokenPipeError:
            raise  # OneLineUsage.invoke ends it quietly
        except Exception as e:  # noqa: BLE001 - classify re-raises anything unexpected
            code, message = classify(e)
            fail(message, code)

    return wrapper


def board_text(words: tuple[str, ...]) -> str:
    """The board given on the command line, possibly split over several arguments."""
    return " ".join(words)


def is_stdin(words: tuple[str, ...]) -> bool:
    """True when the board argument is ``-``: read one board per line from stdin."""
    return words == ("-",)


def stdin_lines():
    """Lines of standard input, without their newline, read lazily (constant memory)."""
    for line in sys.stdin:
        yield line.rstrip("\r\n")


def answer_stream(answer, text_of, as_json: bool) -> int:
    """Answer stdin line by line, in order: ``answer(line) -> dict`` for each board, printed
    as ``text_of(dict)`` or as JSON; a line that fails prints ``unsolvable`` or
    ``error: ...`` and the stream goes on.  A missing database ends the stream (it would fail
    every line).  Returns the exit status: 2 if any line was bad input, else 0."""
    worst = EXIT_OK
    for line in stdin_lines():
        if is_skippable(line):
            click.echo("")
            continue
        try:
            record = answer(line)
        except Exception as e:  # noqa: BLE001 - classify re-raises the unexpected
            code, message = classify(e)
            if code == EXIT_DATABASE:
                raise
            if as_json:
                click.echo(json_line(answers.error_record(line, e, message)))
            else:
                click.echo("unsolvable" if isinstance(e, Unsolvable) else message)
            if code == EXIT_USAGE:
                worst = code
            continue
        click.echo(json_line(record) if as_json else text_of(record))
    return worst


def answer_one(answer, text: str, as_json: bool) -> dict:
    """``answer(text)`` for a board given on the command line; with ``--json`` a question that
    could not be answered also prints its record before the error line goes to stderr."""
    try:
        return answer(text)
    except Exception as e:  # noqa: BLE001 - classify re-raises the unexpected
        code, message = classify(e)
        if as_json:
            click.echo(json_line(answers.error_record(text, e, message)))
        raise


def is_skippable(line: str) -> bool:
    """Blank lines and ``#`` comments in batch input get an empty output line."""
    s = line.strip()
    return not s or s.startswith("#")


_COMPACT = json.JSONEncoder(separators=(",", ":"))  # one encoder: json.dumps makes one a call


def json_line(obj) -> str:
    """One compact JSON object (for a line of stdout)."""
    return _COMPACT.encode(obj)


class OneLineUsage:
    """Mixin for the programs' click commands: whatever happens ends in at most one line on
    stderr and a documented exit status -- usage errors (click's default is a block over
    several lines), signals (:mod:`solver.core.interrupts`), a closed output pipe, running out
    of memory and, as a last resort, a bug."""

    def main(self, args=None, prog_name=None, **extra):
        extra["standalone_mode"] = False
        program = prog_name or self.name
        try:
            with interrupts.command():
                code = self._status(args, prog_name, extra, program)
                interrupts.check()  # a signal whose exception a finaliser swallowed
        except interrupts.Interrupted as e:
            interrupts.start_line()
            say(interrupts.message(e.signum))
            code = e.code
        sys.exit(code)

    def invoke(self, ctx):
        """Run the command; the reader of our output going away (``| head -1``) ends it
        quietly with status 141 (click would say nothing and exit 1)."""
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            sys.exit(interrupts.quiet_broken_pipe())

    def _status(self, args, prog_name, extra, program) -> int:
        try:
            rv = super().main(args, prog_name, **extra)
            sys.stdout.flush()  # a closed pipe is noticed here, not at the interpreter's exit
            return rv if isinstance(rv, int) else EXIT_OK
        except SystemExit as e:
            try:
                sys.stdout.flush()
            except BrokenPipeError:
                return interrupts.quiet_broken_pipe()
            return exit_status(e.code)
        except click.exceptions.NoArgsIsHelpError as e:
            # Bare `npuzzle`: click's own usage and command list (on stderr, status 2), not
            # the whole help folded into one error line.
            e.show()
            return EXIT_USAGE
        except click.UsageError as e:
            where = e.ctx.command_path if e.ctx else program
            say(f"{where.split()[0]}: error: {e.format_message()} (see '{where} --help')")
            return EXIT_USAGE
        except click.ClickException as e:
            say(f"{program}: error: {e.format_message()}")
            return e.exit_code
        except (click.Abort, KeyboardInterrupt):
            say(f"{program}: interrupted")
            return EXIT_INTERRUPTED
        except BrokenPipeError:
            return interrupts.quiet_broken_pipe()
        except MemoryError:
            say(f"{program}: limit: out of memory")
            return EXIT_LIMIT
        except Exception as e:  # noqa: BLE001 - a bug: still one line, the traceback on demand
            if os.environ.get("NPUZZLE_DEBUG") == "1":
                raise
            say(
                f"{program}: internal error: {type(e).__name__}: {one_line(e)} (a bug: "
                f"please report it; NPUZZLE_DEBUG=1 shows the traceback)"
            )
            return EXIT_INTERNAL


def exit_status(code) -> int:
    """The exit status a ``SystemExit`` code stands for (None: 0; text: said, then 1)."""
    if code is None:
        return EXIT_OK
    if isinstance(code, int):
        return code
    say(one_line(code))
    return 1


def say(line: str) -> None:
    """Write one line to stderr; a stderr that cannot be written is not worth a traceback."""
    try:
        click.echo(one_line(line), err=True)
    except (OSError, ValueError):
        pass


TYPED_WORDS = "npuzzle.typed_words"  # a key of click's Context.meta: the words after `npuzzle`


class Group(OneLineUsage, click.Group):
    """The npuzzle group, with one-line usage errors and commands imported only when run:
    ``lazy`` maps a command's name to its module (in :mod:`solver.cli`) and the opening of its
    help, so ``npuzzle --help`` and ``npuzzle distance ...`` import no other command's
    dependencies."""

    lazy: dict = {}

    def make_context(self, info_name, args, parent=None, **extra):
        # The words as typed, kept for the warm path (solver.cli.remote), which sends them to
        # the server as they are rather than rebuilt from the parsed values.
        words = list(args)
        ctx = super().make_context(info_name, args, parent=parent, **extra)
        ctx.meta[TYPED_WORDS] = words
        return ctx

    def list_commands(self, ctx):
        return sorted(set(self.commands) | set(self.lazy))

    def get_command(self, ctx, name):
        if name not in self.commands and name in self.lazy:
            import importlib

            importlib.import_module(f"solver.cli.{self.lazy[name][0]}")  # registers itself
        return self.commands.get(name)

    def format_commands(self, ctx, formatter):
        # Each command's summary from ``lazy``, loaded or not: one text, never cut short.
        rows = [(name, self.lazy[name][1]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


class Command(OneLineUsage, click.Command):
    """A stand-alone command (build-pdb), with one-line usage errors."""


def fail_as(program: str, message: str, code: int):
    """Print ``program: message`` on stderr (one line, whatever ``message`` holds) and exit
    with ``code``."""
    say(f"{program.split()[0]}: {message}")
    sys.exit(code)


@click.group(cls=Group, name="npuzzle", context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_version, prog_name="npuzzle")
def main_group():
    """Solve sliding-tile puzzles (2x3, 8-puzzle, 15-puzzle, any RxC) optimally.

    \b
    Boards are written as flat numbers ('1 2 3 4 0 5', '1,2,3,4,0,5'), rows
    ('1 2 3/4 0 5'), or JSON ('[[1,2,3],[4,0,5]]'); the blank is 0, x, _ or '.'.
    A move is the direction the blank travels: U, D, L, R.  Use '-' as the board to
    read one board per line from stdin.

    \b
    Run `build-pdb` once first: it builds the databases (about half a minute).
    Exit status: 0 answered, 1 unsolvable, 2 bad input, 3 database missing or
    corrupt, 4 search limit reached, 130 interrupted.
    """


class DataDirType(click.Path):
    """A data directory: any path but the empty one (``--data-dir ""`` would silently mean
    "the default directory" -- more likely a shell variable that was never set)."""

    def __init__(self):
        super().__init__(file_okay=False)

    def convert(self, value, param, ctx):
        if isinstance(value, str) and not value.strip():
            self.fail(
                "the data directory is empty (leave the option out for the default)", param, ctx
            )
        return super().convert(value, param, ctx)


class SecondsType(click.ParamType):
    """A time limit in seconds: a finite number, zero or more (``nan``, ``inf`` and negative
    values are refused rather than meaning "no limit")."""

    name = "seconds"

    def __init__(self, positive: bool = False):
        self.positive = positive

    def convert(self, value, param, ctx):
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        if not math.isfinite(seconds) or seconds < 0 or (self.positive and seconds == 0):
            least = "> 0" if self.positive else ">= 0"
            self.fail(f"{value!r} is not a finite number of seconds {least}", param, ctx)
        return seconds


DATA_DIR = DataDirType()
SECONDS = SecondsType()
POSITIVE_SECONDS = SecondsType(positive=True)


def usable_jobs(requested: int | None) -> int:
    """The processes to use for ``--jobs``: the request capped at the cores this process may
    use (a larger request is said once on stderr), the cores when not given; one for a piece
    of a client's batch, which a server answers beside other pieces on its threads."""
    from ..workloads.batch import default_jobs
    from . import pieces

    if pieces.current() is not None:
        return 1
    cores = default_jobs()
    if requested is None:
        return cores
    if requested > cores:
        notice(f"--jobs {requested} is more than the {cores} usable core(s): using {cores}")
        return cores
    return requested


def problem_options(command):
    """The options every board-answering command shares: --goal, --shape, --data-dir, --json."""
    for decorator in reversed(
        [
            click.option(
                "--goal",
                "-g",
                default=None,
                metavar="G",
                help="Goal: blank-last (default), blank-first, snake, spiral, or a "
                "board such as '0 1 2/3 4 5/6 7 8'.",
            ),
            click.option(
                "--shape",
                "-s",
                default=None,
                metavar="RxC",
                help="Board shape when it cannot be inferred from a flat list "
                "(6, 9, 16, 25 tiles are 2x3, 3x3, 4x4, 5x5).",
            ),
            click.option(
                "--data-dir",
                default=None,
                type=DATA_DIR,
                help="Database directory (default: $NPUZZLE_DATA, the checkout's "
                "data/, or ~/.local/share/npuzzle).",
            ),
            click.option(
                "--json",
                "as_json",
                is_flag=True,
                help="Print JSON (one object per line in batch mode).",
            ),
        ]
    ):
        command = decorator(command)
    return command


def board_argument(command):
    """The BOARD argument: tiles as one or several words, or ``-`` for one board per line."""
    return click.argument("board", nargs=-1, required=True)(command)


def _options(*decorators):
    """One decorator applying several click options in the order written."""

    def apply(command):
        for decorator in reversed(decorators):
            command = decorator(command)
        return command

    return apply


# Options several commands take, declared once so their names and help agree everywhere.
limit_options = _options(
    click.option(
        "--timeout",
        type=SECONDS,
        default=None,
        metavar="S",
        help="Give up a search after S seconds (exit 4, with the lower bound proven so far).",
    ),
    click.option(
        "--max-nodes",
        type=click.IntRange(min=1),
        default=None,
        metavar="N",
        help="Give up a search after generating N nodes (exit 4).",
    ),
)
partition_option = click.option(
    "--partition",
    "-p",
    default=None,
    metavar="P",
    help="Which pattern database: a preset (7-8, 7-8b, 6-6-3, 5-5-5 on 4x4; 6-6-6-6, "
    "6-6-6-6b to 6-6-6-6e on 5x5), tiles like 1,2,3,4/5,6,7,8, or A+B (up to four: "
    "A+B+C+D) for the largest of the databases' values; default: the strongest built for "
    "the goal.",
)
combine_option = click.option(
    "--combine/--no-combine",
    default=config.DEFAULT_COMBINE,
    show_default=True,
    help="Take the largest value of up to four equally strong databases built for the goal "
    "(7-8 and 7-8b; 6-6-6-6 and its cuts c, d, e): a third to three quarters fewer nodes, "
    "each node costing two more table reads per database.",
)
pick_option = click.option(
    "--pick/--no-pick",
    default=config.DEFAULT_PICK,
    show_default=True,
    help="Once a search has generated 2 M nodes, race the equally strong databases built "
    "for the goal that are drawn for it (on 5x5: 6-6-6-6 and its cuts c, d, e; any custom "
    "partition) to the same bound, and go on with the one that needed the fewest nodes; "
    '-v and the JSON\'s "race" say how it went.',
)
pick_max_option = click.option(
    "--pick-max/--no-pick-max",
    default=config.DEFAULT_PICK_MAX,
    show_default=True,
    help="With --pick, race the maxima of the databases too (the leader with each rival, "
    "and all of them), each one's nodes counted as many times as its table reads cost.",
)
zero_aware_option = click.option(
    "--zero-aware/--no-zero-aware",
    default=config.DEFAULT_ZERO_AWARE,
    help="Read the zero-aware twins of the databases (`build-pdb --partition P "
    "--zero-aware`): a pattern's value also by the region of free cells the blank is in; "
    "Korf's 100 with 7-8: 0.57 times the nodes, 0.72 times the time.  Default: where they "
    "are built; --zero-aware says when one is missing.",
)
promising_first_option = click.option(
    "--promising-first/--search-order",
    default=config.DEFAULT_PROMISING_FIRST,
    show_default=True,
    help="IDA*'s long iterations are cut into work units: take first those whose subtree "
    "came nearest the goal in the iteration before (the least h it entered), or take them "
    "in search order.  Either finds a shortest solution; on 24-puzzles promising first "
    'reaches it about 3 times sooner.  The JSON\'s "unit_order" says which.',
)
reflect_option = click.option(
    "--no-reflect", is_flag=True, help="Only the additive sum, without the mirrored lookup."
)
fsm_option = click.option(
    "--fsm",
    type=click.IntRange(0, config.MAX_FSM_DEPTH),
    default=config.DEFAULT_FSM_DEPTH,
    show_default=True,
    metavar="DEPTH",
    help="IDA*'s duplicate pruning: skip every string of up to DEPTH blank moves that has "
    "a shorter or equal twin searched anyway (a finite-state machine, Taylor & Korf); "
    '2 only forbids undoing the last move.  The JSON\'s "pruning" names the machine used.',
)
heuristic_option = click.option(
    "--heuristic",
    default="auto",
    show_default=True,
    type=click.Choice(HEURISTICS),
    help="For idastar/astar: auto (the pattern database built for the goal, else linear "
    "conflict), pdb, manhattan or linear-conflict.",
)
depth_limit_option = click.option(
    "--depth-limit",
    type=click.IntRange(min=0),
    default=None,
    help="Depth limit for dls (required by it) and the last limit iddfs tries.",
)
cycle_check_option = click.option(
    "--cycle-check",
    type=click.Choice(CYCLE_CHECKS),
    default=None,
    help="For the blind searches: never return to the parent, never repeat a state on the "
    "current path, or remember every state generated (default per algorithm: bfs/dfs/"
    "astar visited, dls/iddfs path).",
)


def _set_load(ctx, param, value):
    # A process-wide preference (solver.tables.loading), not an argument of the command.
    if value is not None:
        from ..tables import loading

        loading.prefer(value)


load_option = click.option(
    "--load",
    type=click.Choice(("auto", "map", "populate", "read")),
    default=None,
    callback=_set_load,
    expose_value=False,
    is_eager=False,
    help="How database files reach memory: map (nothing read until used), populate (map and "
    "fault every page in before the search), read (copy into memory backed by huge "
    "pages).  auto (default, or $NPUZZLE_LOAD): populate for a batch ('-'), map for one "
    "board.",
)
