"""The ``npuzzle`` command: a thin click layer over the :mod:`solver` API.

The group (:data:`main`) lives in :mod:`.group` and is imported when first used, so that
:func:`launch`, the ``npuzzle`` command, can ask a running server first without importing
click (:mod:`solver.client.quick`), and look a plain ``distance BOARD`` up in an exact table
(:mod:`.lookup`).  Each command lives in its own module and registers itself
on the group when it is imported -- which happens only when the command runs (or its help is
shown), so one command never pays for another's imports.  :data:`COMMANDS` names them, with
the summary of each that ``npuzzle --help`` shows.
Signal handling comes first, before any heavy import, so Ctrl-C during start-up is one line
too (:mod:`solver.core.interrupts`).
"""

from __future__ import annotations

import sys

from ..core import interrupts

interrupts.install_if_program("npuzzle")

# name -> (module, the command's summary in `npuzzle --help`: whole on an 80-column screen)
COMMANDS = {
    "check": ("check", "Say whether BOARD can reach the goal, and why."),
    "compare": ("compare", "Run several algorithms on one board, side by side."),
    "distance": ("distance", "Print the optimal number of moves from BOARD to the goal."),
    "generate": ("generate", "Print random positions, each with its optimal distance."),
    "heuristic": ("heuristic", "Print the best lower bound on BOARD's distance."),
    "hint": ("hint", "Print the next move of an optimal solution."),
    "serve": ("serve", "Answer the questions over HTTP, with a page to solve on."),
    "solve": ("solve", "Print an optimal solution: the blank's moves (U D L R)."),
    "stats": ("stats", "Count the positions at each optimal distance from the goal."),
}


def __getattr__(name: str):
    # ``main``, the click group, is imported when first asked for: the warm path's quick
    # client (:func:`launch`) answers without click.
    if name == "main":
        from .group import main_group

        main_group.lazy = COMMANDS
        return main_group
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def launch() -> None:
    """The ``npuzzle`` command: a one-board question to a server named by ``--server`` or
    ``$NPUZZLE_SERVER`` is asked before click is imported (:mod:`solver.client.quick`), and
    a plain ``distance BOARD`` over an exact table is looked up before it too
    (:mod:`.lookup`); everything else, and anything those did not answer, runs through
    click (:data:`main`).  The process then ends without the interpreter's teardown
    (:func:`solver.core.interrupts.finish`)."""
    from ..client import quick

    status, args = quick.answer(sys.argv[1:])
    if status is not None:
        sys.exit(status)
    from . import lookup

    status = lookup.answer(args)
    if status is None:
        try:
            __getattr__("main")(args, prog_name="npuzzle")
        except SystemExit as e:
            from ..core.program import exit_status

            status = exit_status(e.code)
    interrupts.finish(status or 0)
