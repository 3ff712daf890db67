"""What went wrong, as the ``npuzzle`` commands say it: an exit status and one line (layer 7:
cli).

The statuses and the one-line program base are :mod:`solver.core.program`'s (``build-pdb``
shares them); here an exception a command meets becomes its status and line
(:func:`classify`), a command body is :func:`guarded` so it always does, and a note on stderr
is said once per command (:func:`notice`).
"""

from __future__ import annotations

import functools
import os
import sys
import threading

import click

from .. import answers
from ..core import config, interrupts
from ..core.messages import ERROR, LIMIT, prefixed
from ..core.program import (
    EXIT_BROKEN_PIPE,
    EXIT_DATABASE,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_LIMIT,
    EXIT_OK,
    EXIT_TERMINATED,
    EXIT_UNSOLVABLE,
    EXIT_USAGE,
    fail_as,
    one_line,
    say,
)

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
        return EXIT_LIMIT, prefixed(LIMIT, "out of memory")
    if isinstance(exc, OSError) and not isinstance(exc, BrokenPipeError):
        where = f" ({exc.filename})" if exc.filename else ""
        return EXIT_USAGE, prefixed(ERROR, f"{one_line(exc.strerror or exc)}{where}")
    raise exc


def fail(message: str, code: int):
    """Print ``npuzzle: message`` on stderr and exit with ``code``."""
    fail_as("npuzzle", message, code)


class _NotesSaid(threading.local):
    """The notes said so far, per thread: `npuzzle serve` runs forwarded commands in threads of
    one process (:mod:`solver.cli.capture`), and each run says its own notes once."""

    def __init__(self):
        self.notes: set = set()
        self.quiet = False

    def __contains__(self, message) -> bool:
        return message in self.notes

    def add(self, message) -> None:
        self.notes.add(message)

    def clear(self) -> None:
        self.notes.clear()


_SAID = _NotesSaid()


def notice(message: str | None) -> None:
    """Say ``message`` on stderr once per command (e.g. "no database: falling back to ..."),
    unless notes are silenced (:func:`quiet`)."""
    if message and message not in _SAID and not quiet():
        _SAID.add(message)
        _beside_bars(f"npuzzle: note: {message}")


def _beside_bars(line: str) -> None:
    """Say ``line`` on stderr, on a line of its own where a progress bar is drawn there: the
    bars are cleared first and drawn again after."""
    bars = interrupts.drawn_bars()
    if bars is not None:
        bars.write(line, file=sys.stderr)
    else:
        click.echo(line, err=True)


def silence_notes(silent: bool = True) -> None:
    """``npuzzle --quiet``: no note on stderr for the rest of the command (errors stay)."""
    _SAID.quiet = silent


def quiet() -> bool:
    """Whether notes are silenced: ``--quiet``, or ``NPUZZLE_QUIET=1``."""
    return _SAID.quiet or os.environ.get(config.ENV_QUIET, "") not in ("", "0")


def forget_notices() -> None:
    """Start a new command in this thread: each of its notes is said again, once."""
    _SAID.clear()
    _SAID.quiet = False


def guarded(command):
    """Wrap a command body so known errors become one line and an exit status (anything
    else reaches :meth:`~solver.core.program.OneLineUsage.main`, which says it in one line
    too)."""

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


__all__ = [
    "classify",
    "fail",
    "forget_notices",
    "guarded",
    "notice",
    "quiet",
    "silence_notes",
    "one_line",
    "say",
    "EXIT_OF_KIND",
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
