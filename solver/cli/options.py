"""The ``npuzzle`` commands' options, made from the one specification in :mod:`solver.options`
(layer 7: cli).

``@options.taken_by("solve")`` gives a command every option the specification says it takes,
in the specification's order, each a click option tagged with its tier (so ``--help`` shows
the common ones, ``--help-all`` every one: :class:`.group.TieredCommand`).  A command's click
parameters carry the specification's names, so :func:`search_options` turns them into a
:class:`~solver.options.SearchOptions` without naming them again.
"""

from __future__ import annotations

from pathlib import Path

import click

from ..options import COMMON, SPEC, TEACHING, Option, SearchOptions, for_command
from .errors import notice, silence_notes
from .option_types import DATA_DIR, SECONDS

HELP_ALL = "npuzzle.help_all"  # a key of click's Context.meta: --help-all was asked for


class SpecOption(click.Option):
    """A click option that knows its tier (``common``, ``research`` or ``teaching``) and
    whether its command's ``--help`` lists it (``listed``: the common ones, and a teaching
    command's teaching ones)."""

    def __init__(self, *args, tier: str = COMMON, listed: bool = True, **kwargs):
        super().__init__(*args, **kwargs)
        self.tier = tier
        self.listed = listed

    @property
    def help_flag(self) -> str:
        """The help that lists this option."""
        return "--help" if self.listed else "--help-all"


def _blank_is_none(ctx, param, value):
    # '' (as `--scheduler ''` or an empty variable) means this machine, as None does.
    return value.strip() or None if value else None


def _set_load(ctx, param, value):
    # A process-wide preference (solver.tables.loading), not an argument of the command.
    if value is not None:
        from ..tables import loading

        loading.prefer(value)


def _named_data_dir(ctx, param, value):
    # Every command only reads the data directory: one named by --data-dir or $NPUZZLE_DATA
    # that does not exist is a typo, not "nothing is built" (solver.tables.directory.named;
    # build-pdb creates the one it writes).  The value stays None without --data-dir: the
    # variable is read where the directory is used (a cluster's workers read their own).
    from ..tables import directory, errors

    try:
        directory.named(value)
    except errors.DataDirError as e:
        if value is None:  # named by the variable, which the message says
            raise click.UsageError(str(e), ctx) from None
        raise click.BadParameter(str(e), ctx, param) from None
    return value


def _quiet(ctx, param, value):
    # For the rest of the command, whether given before its name (to the group) or after.
    if value:
        silence_notes()


# What the command line does with an option's value beyond parsing it.
CALLBACKS = {
    "scheduler": _blank_is_none,
    "load": _set_load,
    "data_dir": _named_data_dir,
    "quiet": _quiet,
}
NOT_PASSED = ("load", "quiet")  # set for the whole process: the command never sees it


def _type(option: Option):
    """The click type of ``option``'s values (None: text)."""
    if option.choices:
        return click.Choice(option.choices)
    if option.type is Path:
        return DATA_DIR
    if option.type is float and option.low == 0 and option.high is None:
        return SECONDS  # finite and >= 0: "inf" must not mean "no limit"
    if option.type is float:
        return click.FloatRange(option.low, option.high)
    if option.type is int:
        return click.IntRange(option.low, option.high)
    return None


def click_option(option: Option, shown: tuple = (COMMON,)):
    """The click option (a decorator) the command line takes for ``option``; one of the
    ``shown`` tiers is listed by ``--help`` as a common one."""
    first = f"{option.flags[0]}/{option.off}" if option.off else option.flags[0]
    kwargs = {
        "cls": SpecOption,
        "tier": option.tier,
        "listed": option.tier in shown,
        "default": option.command_line_default,
        "help": option.help,
        "metavar": option.metavar,
        "envvar": option.envvar,
        "callback": CALLBACKS.get(option.name),
        "expose_value": option.name not in NOT_PASSED,
    }
    if option.type is bool and not option.off:
        kwargs.update(is_flag=True, flag_value=not option.negated)
    else:
        kwargs["type"] = _type(option)
        kwargs["show_default"] = option.command_line_default is not None
    return click.option(first, *option.flags[1:], option.name, **kwargs)


def _show_every_tier(ctx, param, value):
    if not value or ctx.resilient_parsing:
        return
    ctx.meta[HELP_ALL] = True
    click.echo(ctx.get_help(), color=ctx.color)
    ctx.exit()


help_all_option = click.option(
    "--help-all",
    is_flag=True,
    is_eager=True,
    expose_value=False,
    callback=_show_every_tier,
    help="Show every option this command takes, each tier under its heading, and exit.",
)


FOR_TEACHING = (COMMON, TEACHING)  # the tiers a teaching command's --help shows


def taken_by(command: str, shown: tuple = (COMMON,)):
    """A decorator giving ``npuzzle COMMAND`` its options from the specification, in its
    order, and ``--help-all`` when some of them are in tiers that ``--help`` does not show
    (``shown``: a teaching command shows the teaching options too)."""
    mine = for_command(command)
    decorators = [click_option(o, shown) for o in mine]
    if any(o.tier not in shown for o in mine):
        decorators.append(help_all_option)

    def apply(function):
        for decorator in reversed(decorators):
            function = decorator(function)
        return function

    return apply


def search_options(params: dict, **fields) -> SearchOptions:
    """The :class:`~solver.options.SearchOptions` a command's parsed ``params`` ask for (the
    options it does not take keep their defaults; ``fields`` set others).  A value the
    command line leaves to the command (``--jobs``: None, all the cores) is not passed."""
    chosen = {}
    for name, value in params.items():
        option = _SEARCH.get(name)
        if option is not None and not (value is None and option.default is not None):
            chosen[name] = value
    return SearchOptions(**{**chosen, **fields})


_SEARCH = {o.name: o for o in SPEC if o.search}


def usable_jobs(requested: int | None) -> int:
    """The processes to use for ``--jobs``: the request capped at the cores this process may
    use (a larger request is said once on stderr), the cores when not given; one for a piece
    of a client's batch, which a server answers beside other pieces on its threads."""
    from .. import api
    from .piece_input import current

    if current() is not None:
        return 1
    cores = api.usable_cores()
    if requested is None:
        return cores
    if requested > cores:
        notice(f"--jobs {requested} is more than the {cores} usable core(s): using {cores}")
        return cores
    return requested


__all__ = [
    "HELP_ALL",
    "SpecOption",
    "click_option",
    "help_all_option",
    "search_options",
    "taken_by",
]
