"""The ``npuzzle`` group and the click command class of its commands (layer 7: cli).

The group imports a command's module only when the command runs or its help is shown, so one
command never pays for another's imports.  A command's ``--help`` lists its common options
and points at ``--help-all``, which lists the research and teaching options too, each tier
under its own heading (the tiers are :mod:`solver.options`').
"""

from __future__ import annotations

import click

from .. import __version__ as package_version
from ..core import config
from ..core.program import OneLineUsage
from ..core.shape import BLANK_WORDS
from ..options import COMMON, RESEARCH, TEACHING

TYPED_WORDS = "npuzzle.typed_words"  # a key of click's Context.meta: the words after `npuzzle`
HELP_ALL = "npuzzle.help_all"  # a key of click's Context.meta: --help-all was asked for
HEADINGS = {COMMON: "Options", RESEARCH: "Research options", TEACHING: "Teaching options"}


class TieredCommand(click.Command):
    """A command whose ``--help`` shows the options it lists (``listed``: the common ones, and
    a teaching command's teaching ones), and ends by pointing at ``--help-all``, which shows
    every option, each tier under its heading (:mod:`solver.cli.options` sets both
    attributes; an option without them is a listed one)."""

    def _tiers(self, ctx) -> dict[str, list]:
        rows: dict[str, list] = {tier: [] for tier in HEADINGS}
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is not None and not isinstance(param, click.Argument):
                listed = getattr(param, "listed", True)
                rows[COMMON if listed else param.tier].append(record)
        return rows

    def format_options(self, ctx, formatter):
        rows = self._tiers(ctx)
        shown = HEADINGS if ctx.meta.get(HELP_ALL) else (COMMON,)
        for tier in shown:
            if rows[tier]:
                with formatter.section(HEADINGS[tier]):
                    formatter.write_dl(rows[tier])

    def format_epilog(self, ctx, formatter):
        super().format_epilog(ctx, formatter)
        rows = self._tiers(ctx)
        hidden = ", ".join(tier for tier in (RESEARCH, TEACHING) if rows[tier])
        if hidden and not ctx.meta.get(HELP_ALL):
            formatter.write_paragraph()
            formatter.write_text(f"More options ({hidden}): {ctx.command_path} --help-all")


class Group(OneLineUsage, click.Group):
    """The npuzzle group, with one-line usage errors and commands imported only when run:
    ``lazy`` maps a command's name to its module (in :mod:`solver.cli`) and the opening of its
    help, so ``npuzzle --help`` and ``npuzzle distance ...`` import no other command's
    dependencies."""

    command_class = TieredCommand
    lazy: dict = {}

    def make_context(self, info_name, args, parent=None, **extra):
        # The words as typed, kept for the warm path (solver.cli.forwarding), which sends them
        # to the server as they are rather than rebuilt from the parsed values.
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


HELP = f"""Solve sliding-tile puzzles (2x3, 8-puzzle, 15-puzzle, any RxC) optimally.

\b
Boards are written as flat numbers ('1 2 3 4 0 5', '1,2,3,4,0,5'), rows
('1 2 3/4 0 5'), or JSON ('[[1,2,3],[4,0,5]]'); the blank is {BLANK_WORDS}.
A move is the direction the blank travels: U, D, L, R.  Use '-' as the board to
read one board per line from stdin.

\b
Run `build-pdb` once first: it builds the databases (about half a minute).
Exit status: 0 answered, 1 unsolvable, 2 bad input, 3 database missing or
corrupt, 4 search limit reached, 130 interrupted.
"""


@click.group(
    cls=Group,
    name="npuzzle",
    help=HELP,
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(package_version, prog_name="npuzzle")
@click.option(
    "--quiet",
    "-q",
    is_flag=True,
    envvar=config.ENV_QUIET,
    help=f"No notes on stderr (what to build, a fallback); failures are still said. ${config.ENV_QUIET}=1 too.",
)
def main_group(quiet):
    """The npuzzle group: its own options apply to every command."""
    from .errors import forget_notices, silence_notes

    forget_notices()  # a command's notes are said once in it, as in a process of its own
    silence_notes(quiet)


__all__ = ["Group", "TieredCommand", "main_group", "HELP_ALL", "TYPED_WORDS"]
