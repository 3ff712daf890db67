"""The lookup path: ``npuzzle distance BOARD`` answered from an exact table before click is
imported (layer 7: the command line).

On a shape with an exact table (2x3, 3x3, 2x4, 2x5 by default) the answer is one read of a
mapped table; what the command waits for is Python, numpy and, on the usual path, importing
click, the options and the answer records (about a third of the whole process).  So
:func:`answer` runs first (after the warm path's quick client), on the command line as it was
typed, and takes only the plainest one: ``distance`` and the board's words, no option, no
cluster named in the environment, the default goal, a table built for it.

It has no errors, options or words of its own.  Anything else -- an option, ``-``, a board
that cannot be read or cannot reach the goal, a shape without a table, a table missing or
damaged -- goes the usual way, through click, which answers or says what is wrong exactly as
it always does.  What it prints is what that way prints: the distance and a newline.

Imports: the standard library, :mod:`solver.core`, :mod:`solver.tables.exact`.
"""

from __future__ import annotations

import os
import sys

from ..core import config, interrupts


def answer(args: list[str]) -> int | None:
    """The exit status once ``npuzzle ARGS`` was answered here (printed on stdout), or None
    for the command line to run as usual."""
    words = _board_words(args)
    if words is None:
        return None
    distance = _distance(" ".join(words))
    if distance is None:
        return None
    try:
        # Past Python's buffer: the line is written whole or not at all (a few bytes).
        os.write(sys.stdout.fileno(), f"{distance}\n".encode())
    except BrokenPipeError:  # the reader went away (`| head -0`): quietly, as the command
        return interrupts.quiet_broken_pipe()
    except (OSError, AttributeError):
        return None  # a full disk, stdout closed: the usual way says so, as it always does
    return 0


def _board_words(args: list[str]) -> list[str] | None:
    """The board's words of ``distance WORDS``, or None when anything else is on the line
    (an option, ``-``) or a cluster is named in the environment."""
    if len(args) < 2 or args[0] != "distance" or os.environ.get(config.ENV_SCHEDULER):
        return None
    words = args[1:]
    if any(word.startswith("-") for word in words):
        return None
    return words


def _distance(text: str) -> int | None:
    """The distance of the board ``text`` to the default goal, read from its shape's exact
    table; None where the usual way must answer (it also says why)."""
    from ..core.board import parse_board, preset_goal
    from ..tables import catalog, exact
    from ..tables.errors import DatabaseError

    try:
        start = parse_board(text)
        if not catalog.has_exact(start.shape):
            return None
        return exact.lookup(start, preset_goal(start.shape))
    except (ValueError, DatabaseError, OSError):  # a bad board is a ValueError (BoardError)
        return None


__all__ = ["answer"]
