"""Shared pieces of the ``npuzzle`` commands: board arguments, options, errors and exit codes.

Exit status (DESIGN §3): 0 answered · 1 unsolvable · 2 bad input or usage · 3 a database is
missing, stale or corrupt · 4 a search limit was reached · 130 interrupted.  Every failure is
one line on stderr, never a traceback.
"""
from __future__ import annotations

import functools
import json
import sys

import click

from ..core.board import BoardError
from ..core.solution import SearchLimitReached, Unsolvable
from .. import __version__ as package_version
from ..tables.store import DatabaseError, DataDirError

EXIT_OK = 0
EXIT_UNSOLVABLE = 1
EXIT_USAGE = 2
EXIT_DATABASE = 3
EXIT_LIMIT = 4
EXIT_INTERRUPTED = 130

# exception type -> (exit status, prefix of the one-line message)
ERRORS = (
    (Unsolvable, EXIT_UNSOLVABLE, ""),  # its message already starts with "unsolvable:"
    (BoardError, EXIT_USAGE, "error"),
    (DatabaseError, EXIT_DATABASE, "error"),
    (DataDirError, EXIT_USAGE, "error"),
    (SearchLimitReached, EXIT_LIMIT, "limit"),
)


def classify(exc: BaseException) -> tuple[int, str]:
    """(exit status, one-line message) for an exception a command may meet."""
    for kind, code, prefix in ERRORS:
        if isinstance(exc, kind):
            return code, f"{prefix}: {_one_line(exc)}" if prefix else _one_line(exc)
    raise exc


def _one_line(exc: BaseException) -> str:
    text = str(exc)
    if isinstance(exc, SearchLimitReached) and exc.partial.lower_bound is not None:
        text += f"; the optimal length is at least {exc.partial.lower_bound}"
    return " ".join(text.split())


def fail(message: str, code: int):
    """Print ``npuzzle: message`` on stderr and exit with ``code``."""
    fail_as("npuzzle", message, code)


def guarded(command):
    """Wrap a command body so known errors become one line and an exit status."""

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except KeyboardInterrupt:
            fail("interrupted", EXIT_INTERRUPTED)
        except BrokenPipeError:
            sys.stderr.close()  # the reader went away (e.g. `| head`): not an error
            sys.exit(EXIT_OK)
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
                click.echo(json_line(error_record(line, e, message)))
            else:
                click.echo("unsolvable" if isinstance(e, Unsolvable) else message)
            if code == EXIT_USAGE:
                worst = code
            continue
        click.echo(json_line(record) if as_json else text_of(record))
    return worst


def is_skippable(line: str) -> bool:
    """Blank lines and ``#`` comments in batch input get an empty output line."""
    s = line.strip()
    return not s or s.startswith("#")


def json_line(obj) -> str:
    """One compact JSON object (for a line of stdout)."""
    return json.dumps(obj, separators=(",", ":"))


def error_record(line: str, exc: BaseException, message: str) -> dict:
    """The JSON answer for an input line that could not be answered."""
    rec = {"input": line.strip(), "error": message}
    if isinstance(exc, Unsolvable):
        rec = {"input": line.strip(), "solvable": False, **exc.solvability.as_dict()}
    elif isinstance(exc, SearchLimitReached):
        rec.update(exc.partial.as_dict())
        rec["error"] = message
    return rec


class OneLineUsage:
    """Mixin for click commands: usage errors become one line on stderr and exit status 2
    (click's default is a usage block over several lines)."""

    def main(self, args=None, prog_name=None, **extra):
        extra["standalone_mode"] = False
        try:
            rv = super().main(args, prog_name, **extra)
        except click.UsageError as e:
            where = e.ctx.command_path if e.ctx else (prog_name or self.name)
            fail_as(where, f"error: {e.format_message()} (see '{where} --help')", EXIT_USAGE)
        except click.ClickException as e:
            fail_as(prog_name or self.name, f"error: {e.format_message()}", e.exit_code)
        except click.Abort:
            fail_as(prog_name or self.name, "interrupted", EXIT_INTERRUPTED)
        sys.exit(rv if isinstance(rv, int) else EXIT_OK)


class Group(OneLineUsage, click.Group):
    """The npuzzle group, with one-line usage errors."""


class Command(OneLineUsage, click.Command):
    """A stand-alone command (build-pdb), with one-line usage errors."""


def fail_as(program: str, message: str, code: int):
    """Print ``program: message`` on stderr and exit with ``code``."""
    click.echo(f"{program.split()[0]}: {message}", err=True)
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
    Run `build-pdb` once first: it builds the databases (seconds).
    Exit status: 0 answered, 1 unsolvable, 2 bad input, 3 database missing or
    corrupt, 4 search limit reached, 130 interrupted.
    """


def problem_options(command):
    """The options every board-answering command shares: --goal, --shape, --data-dir, --json."""
    for decorator in reversed(
        [
            click.option("--goal", "-g", default=None, metavar="G",
                         help="Goal: blank-last (default), blank-first, snake, spiral, or a "
                              "board such as '0 1 2/3 4 5/6 7 8'."),
            click.option("--shape", "-s", default=None, metavar="RxC",
                         help="Board shape when it cannot be inferred from a flat list "
                              "(6, 9, 16, 25 tiles are 2x3, 3x3, 4x4, 5x5)."),
            click.option("--data-dir", default=None, type=click.Path(file_okay=False),
                         help="Database directory (default: $NPUZZLE_DATA, the checkout's "
                              "data/, or ~/.local/share/npuzzle)."),
            click.option("--json", "as_json", is_flag=True,
                         help="Print JSON (one object per line in batch mode)."),
        ]
    ):
        command = decorator(command)
    return command


def board_argument(command):
    """The BOARD argument: tiles as one or several words, or ``-`` for one board per line."""
    return click.argument("board", nargs=-1, required=True)(command)
