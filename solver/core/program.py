"""What both programs, ``npuzzle`` and ``build-pdb``, are built on: their exit statuses and a
click command that ends in at most one line on stderr (layer 0: core).

Exit status (DESIGN §3): 0 answered · 1 unsolvable · 2 bad input or usage · 3 a database is
missing, stale or corrupt · 4 a search limit was reached (memory included) · 130 interrupted
(SIGINT) · 143 terminated (SIGTERM) · 141 the reader of the output went away · 70 an internal
error (a bug: please report it).  Every failure is one line on stderr, never a traceback
(``NPUZZLE_DEBUG=1`` shows the traceback of an internal error).  A message that names an
option names it as the command line spells it (:func:`command_line_option`).

Imports: click, :mod:`solver.core.config`, :mod:`solver.core.interrupts`,
:mod:`solver.core.messages`.
"""

from __future__ import annotations

import os
import sys

import click

from . import config, interrupts
from .messages import ERROR, LIMIT, prefixed, speaking

EXIT_OK = 0
EXIT_UNSOLVABLE = 1
EXIT_USAGE = 2
EXIT_DATABASE = 3
EXIT_LIMIT = 4
EXIT_INTERNAL = 70  # EX_SOFTWARE: a bug, not the user's doing
EXIT_INTERRUPTED = interrupts.EXIT_INTERRUPTED
EXIT_TERMINATED = interrupts.EXIT_TERMINATED
EXIT_BROKEN_PIPE = interrupts.EXIT_BROKEN_PIPE


def command_line_option(name: str, value: str | None = None) -> str:
    """Option ``name`` as the command line gives it: ``--shape ROWSxCOLS`` (its flag is its
    name in :mod:`solver.options` with dashes), ``--shape`` without a value."""
    flag = "--" + name.replace("_", "-")
    return f"{flag} {value}" if value is not None else flag


def one_line(text) -> str:
    """``text`` with every run of whitespace (newlines included) folded into one space: a
    library's message over several lines still makes one line of ours."""
    return " ".join(str(text).split())


def say(line: str) -> None:
    """Write one line to stderr; a stderr that cannot be written is not worth a traceback."""
    try:
        click.echo(one_line(line), err=True)
    except (OSError, ValueError):
        pass


def fail_as(program: str, message: str, code: int):
    """Print ``program: message`` on stderr (one line, whatever ``message`` holds) and exit
    with ``code``."""
    say(f"{program.split()[0]}: {message}")
    sys.exit(code)


def exit_status(code) -> int:
    """The exit status a ``SystemExit`` code stands for (None: 0; text: said, then 1)."""
    if code is None:
        return EXIT_OK
    if isinstance(code, int):
        return code
    say(one_line(code))
    return 1


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
            with speaking(command_line_option):  # where a command line's questions arrive
                rv = super().main(args, prog_name, **extra)
            # A closed pipe is noticed here, not at the process's end.
            gone = interrupts.flush_stdout()
            return gone if gone is not None else rv if isinstance(rv, int) else EXIT_OK
        except SystemExit as e:
            gone = interrupts.flush_stdout()
            return gone if gone is not None else exit_status(e.code)
        except click.exceptions.NoArgsIsHelpError as e:
            # Bare `npuzzle`: click's own usage and command list (on stderr, status 2), not
            # the whole help folded into one error line.
            e.show()
            return EXIT_USAGE
        except click.UsageError as e:
            where = e.ctx.command_path if e.ctx else program
            # An option that --help does not list points at the help that does.
            helps = getattr(getattr(e, "param", None), "help_flag", "--help")
            usage = prefixed(ERROR, f"{e.format_message()} (see '{where} {helps}')")
            say(f"{where.split()[0]}: {usage}")
            return EXIT_USAGE
        except click.ClickException as e:
            say(f"{program}: {prefixed(ERROR, e.format_message())}")
            return e.exit_code
        except (click.Abort, KeyboardInterrupt):
            say(f"{program}: interrupted")
            return EXIT_INTERRUPTED
        except BrokenPipeError:
            return interrupts.quiet_broken_pipe()
        except MemoryError:
            say(f"{program}: {prefixed(LIMIT, 'out of memory')}")
            return EXIT_LIMIT
        except Exception as e:  # noqa: BLE001 - a bug: still one line, the traceback on demand
            if os.environ.get(config.ENV_DEBUG) == "1":
                raise
            say(
                f"{program}: internal error: {type(e).__name__}: {one_line(e)} (a bug: "
                f"please report it; {config.ENV_DEBUG}=1 shows the traceback)"
            )
            return EXIT_INTERNAL


class Command(OneLineUsage, click.Command):
    """A stand-alone command (build-pdb), with one-line usage errors."""


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


DATA_DIR = DataDirType()

__all__ = [
    "Command",
    "DATA_DIR",
    "command_line_option",
    "DataDirType",
    "OneLineUsage",
    "exit_status",
    "fail_as",
    "one_line",
    "say",
    "EXIT_OK",
    "EXIT_UNSOLVABLE",
    "EXIT_USAGE",
    "EXIT_DATABASE",
    "EXIT_LIMIT",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_TERMINATED",
    "EXIT_BROKEN_PIPE",
]
