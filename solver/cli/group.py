"""The ``npuzzle`` group and the click command class of its commands (layer 7: cli).

The group imports a command's module only when the command runs or its help is shown, so one
command never pays for another's imports.  A command's ``--help`` lists its common options
and points at ``--help-all``, which lists the research and teaching options too, each tier
under its own heading (the tiers are :mod:`solver.options`').  The group's own option, ``-q``,
is declared once in the specification, which gives it to every command too.
"""

from __future__ import annotations

import difflib
import re

import click

from .. import __version__ as package_version
from ..core.program import OneLineUsage
from ..core.shape import BLANK_WORDS
from ..options import BY_NAME, COMMON, RESEARCH, TEACHING
from .options import HELP_ALL, click_option

TYPED_WORDS = "npuzzle.typed_words"  # a key of click's Context.meta: the words after `npuzzle`
HEADINGS = {COMMON: "Options", RESEARCH: "Research options", TEACHING: "Teaching options"}


# A negative number is a word of the command line, never an option (none is spelled with a
# digit): `distance 1 2 3 4 5 6 7 8 -1` is a board, which then says what is wrong with it.
NUMBER = re.compile(r"-[0-9]+")


class TieredCommand(click.Command):
    """A command whose ``--help`` shows the options it lists (``listed``: the common ones, and
    a teaching command's teaching ones), and ends by pointing at ``--help-all``, which shows
    every option, each tier under its heading (:mod:`solver.cli.options` sets both
    attributes; an option without them is a listed one).  It reads a negative number as a
    word (:data:`NUMBER`)."""

    def parse_args(self, ctx, args):
        """Click's parsing, where a negative number among the words is a word: click keeps an
        option it does not know for the words when asked to (``ignore_unknown_options``), and
        is asked only where a negative number is there to keep; any other unknown option is
        then refused as click refuses it."""
        words = [p for p in self.get_params(ctx) if isinstance(p, click.Argument) and p.nargs == -1]
        if not words or not any(NUMBER.fullmatch(a) for a in args):
            return super().parse_args(ctx, args)
        ctx.ignore_unknown_options = True
        rest = super().parse_args(ctx, args)
        names = [n for p in self.get_params(ctx) for n in getattr(p, "opts", ()) if n[:1] == "-"]
        for param in words:
            for word in ctx.params.get(param.name) or ():
                if word.startswith("-") and not NUMBER.fullmatch(word):
                    near = difflib.get_close_matches(word, names)
                    raise click.NoSuchOption(word, possibilities=near, ctx=ctx)
        return rest

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

    def parse_args(self, ctx, args):
        """Parse the group's own options, a new command's notes forgotten first."""
        from .errors import forget_notices

        # A command's notes are said once in it, as in a process of its own; forgotten before
        # the options are read, since --quiet is one of them.
        forget_notices()
        return super().parse_args(ctx, args)

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
@click_option(BY_NAME["quiet"])
def main_group():
    """The npuzzle group: its own options apply to every command, which takes them too."""


__all__ = [
    "Group",
    "TieredCommand",
    "main_group",
    "HELP_ALL",
    "NUMBER",
    "TYPED_WORDS",
]
