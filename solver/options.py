"""Every option a search or a command takes, declared once (layer 4, beside :mod:`solver.api`).

Each :class:`Option` says its name, type, default, help text and tier (``common``,
``research`` or ``teaching``), how the command line spells it and which commands take it, and
which service endpoints take it.  From :data:`SPEC` come

* :class:`SearchOptions`, the value every search reads (the options whose ``search`` is true,
  under the same names and defaults), made here;
* the ``npuzzle`` commands' click options (:mod:`solver.cli.options`): ``--help`` shows the
  common tier, ``--help-all`` every tier under its own heading;
* the service's request bodies (:mod:`solver.service.requests`): the same names (``no_reflect``
  for :attr:`~SearchOptions.reflect`, as the command line spells it), defaults and bounds.

``tests/test_options.py`` checks that the three agree.

Imports: :mod:`solver.core` at module level; :mod:`solver.search.weights` (numpy)
lazily, when a :class:`SearchOptions` checks its weight.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, make_dataclass
from pathlib import Path
from typing import Any

from .core import config
from .core.board import BoardError
from .core.messages import option
from .core.solution import LC_HEURISTIC, MANHATTAN_HEURISTIC, PDB_HEURISTIC

# name -> (module, function); 'auto' picks 'table' or 'idastar'.
ALGORITHMS = {
    "table": ("solver.tables.exact", "solve"),
    "idastar": ("solver.api", "solve_idastar"),
    "astar": ("solver.api", "solve_astar"),
    "bfs": ("solver.search.blind", "bfs"),
    "dfs": ("solver.search.blind", "dfs"),
    "dls": ("solver.search.blind", "dls"),
    "iddfs": ("solver.search.blind", "iddfs"),
    "fast": ("solver.search.fast", "solve"),  # quick, not optimal: any board, any size
}
HEURISTICS = ("auto", PDB_HEURISTIC, MANHATTAN_HEURISTIC, LC_HEURISTIC)
CYCLE_CHECKS = ("parent", "path", "visited")
MIN_FSM_DEPTH = 2  # the smallest machine: never undo the last move
MAX_WEIGHT = 100  # far past the point where a larger weight finds anything sooner

COMMON, RESEARCH, TEACHING = "common", "research", "teaching"
TIERS = (COMMON, RESEARCH, TEACHING)

# The commands that answer a board question (all of them take --goal, --shape, --json).
BOARD_COMMANDS = ("solve", "distance", "hint", "heuristic", "check", "compare")
EVERY_COMMAND = (*BOARD_COMMANDS, "generate", "stats", "serve")
SAME = object()  # Option.cli_default: the command line's default is the option's default


@dataclass(frozen=True)
class Option:
    """One option: what it is, and where it is taken.

    ``flags`` are the command line's spellings (``("--algorithm", "-a")``), ``off`` the
    second spelling of an on/off pair (``--no-combine``).  A ``negated`` option is a single
    flag that turns it off (``--no-reflect``); the service calls it ``service_key`` when that
    differs from ``name`` (``no_reflect``, holding the opposite).  ``cli_default`` is the
    command line's default where it differs (``--jobs``: all the cores, resolved by the
    command).  ``low``/``high`` bound a number; ``choices`` name the values a text takes.
    ``unserved`` says why the service takes no such key, for an option of the command line's
    own (how it prints, where it runs): a request naming it is told so."""

    name: str
    type: type
    default: Any
    tier: str = COMMON
    help: str = ""
    flags: tuple[str, ...] = ()
    commands: tuple[str, ...] = ()
    endpoints: tuple[str, ...] = ()
    search: bool = True
    choices: tuple[str, ...] | None = None
    low: float | None = None
    high: float | None = None
    metavar: str | None = None
    off: str | None = None
    negated: bool = False
    service_key: str | None = None
    cli_default: Any = SAME
    envvar: str | None = None
    unserved: str = ""

    @property
    def key(self) -> str:
        """The name of the option in a request body."""
        return self.service_key or self.name

    @property
    def command_line_default(self):
        """The default when the command line leaves the option out."""
        return self.default if self.cli_default is SAME else self.cli_default

    @property
    def optional(self) -> bool:
        """Whether None is a value of the option (no limit, or: chosen per board)."""
        return self.default is None


# One entry per option, in the order a command's help lists them.  Kept compact (the formatter
# would give each keyword a line of its own): the first line says what the option is, the
# second where it is taken, the rest is its help.
# fmt: off
SPEC: tuple[Option, ...] = (
    # -- common: what a user needs --------------------------------------------------------
    Option("goal", str, None, flags=("--goal", "-g"), metavar="G", search=False,
           commands=BOARD_COMMANDS,
           help="Goal: blank-last (default), blank-first, snake, spiral, or a board such as "
           "'0 1 2/3 4 5/6 7 8'."),
    Option("shape", str, None, flags=("--shape", "-s"), metavar="RxC", search=False,
           commands=BOARD_COMMANDS,
           help="Board shape when it cannot be inferred from a flat list (6, 9, 16, 25 tiles "
           "are 2x3, 3x3, 4x4, 5x5)."),
    Option("data_dir", Path, None, flags=("--data-dir",),
           commands=EVERY_COMMAND,
           unserved="the server reads its own databases (npuzzle serve --data-dir)",
           help="Database directory (default: $NPUZZLE_DATA, the checkout's data/, or "
           "~/.local/share/npuzzle)."),
    Option("as_json", bool, False, flags=("--json",), search=False,
           commands=BOARD_COMMANDS, unserved="every answer is JSON",
           help="Print JSON (one object per line in batch mode)."),
    Option("show", bool, False, flags=("--show",), search=False,
           commands=("solve",), endpoints=("solve",),
           help="Print the board after every move (a JSON answer is the same: its moves "
           "replay them)."),
    Option("tiles", bool, False, flags=("--tiles",), search=False,
           commands=("solve",), endpoints=("solve",),
           help="Print which tile slides at each step instead of the blank's directions (a "
           "JSON answer holds both)."),
    Option("algorithm", str, "auto", flags=("--algorithm", "-a"), choices=("auto", *ALGORITHMS),
           commands=("solve",), endpoints=("hint", "solve"),
           help="auto: the exact table where one is built (up to 12 cells), IDA* elsewhere.  "
           "fast: a quick solution that is NOT optimal (line by line, like a person), any "
           'board up to 16x16, no database needed; the answer says "optimal": false.  bfs, '
           "dfs, dls, iddfs and astar are the teaching searches (with statistics)."),
    Option("partition", str, None, flags=("--partition", "-p"), metavar="P",
           commands=("solve", "heuristic"), endpoints=("heuristic", "hint", "solve"),
           help="Which pattern database: a preset (7-8, 7-8b, 6-6-3, 5-5-5 on 4x4; 6-6-6-6, "
           "6-6-6-6b to 6-6-6-6e on 5x5), tiles like 1,2,3,4/5,6,7,8, or, for IDA*, A+B (up to "
           "four: A+B+C+D) for the largest of the databases' values; default: the strongest "
           "built for the goal."),
    Option("weight", float, 1, flags=("--weight", "-w"), low=1, high=MAX_WEIGHT,
           commands=("solve",), endpoints=("solve",),
           help="Accept a solution up to W times the optimal length, found much faster "
           "(weighted IDA*; 1.5 is a good start on 5x5).  The answer then says \"optimal\": "
           'false and "bound": W.'),
    Option("jobs", int, 1, flags=("--jobs", "-j"), low=1, cli_default=None,
           commands=("solve",),
           unserved="the server shares its cores among its searches (npuzzle serve --workers)",
           help="Cores to use (default, and at most: all this process may use).  One board: "
           "IDA* shares its long iterations among J threads.  '-': J processes solve the "
           "boards."),
    Option("timeout", float, None, flags=("--timeout",), metavar="S", low=0,
           commands=("solve", "distance", "hint", "compare"),
           endpoints=("distance", "hint", "solve"),
           help="Give up a search after S seconds (exit status 4, or the answer's \"status\": "
           '"limit"), with the lower bound proven so far.'),
    Option("max_nodes", int, None, flags=("--max-nodes",), metavar="N", low=1,
           commands=("solve", "distance", "hint", "compare"),
           endpoints=("distance", "hint", "solve"),
           help="Give up a search after generating N nodes (exit status 4)."),
    Option("resume", str, None, flags=("--resume",), metavar="TOKEN",
           commands=("solve",), endpoints=("solve",),
           help="Go on with a search that a limit or Ctrl-C stopped: IDA* starts at the bound "
           "it proved.  TOKEN is the one npuzzle printed then (the answer's \"resume\"); it "
           "is checked against the board and the goal."),
    Option("scheduler", str, None, flags=("--scheduler",), metavar="ADDRESS", search=False,
           envvar=config.ENV_SCHEDULER, commands=("solve", "distance"),
           unserved="the server searches in its own worker processes",
           help="Solve on a Dask cluster: the address of its scheduler (tcp://host:8786; "
           "default $DASK_SCHEDULER_ADDRESS; --scheduler '' solves on this machine).  Each "
           "worker needs npuzzle and the databases (a shared --data-dir, or build-pdb on each "
           "machine); the cluster's workers, not this machine's cores, then do the searching.  "
           "Needs pip install 'npuzzle[cluster]'."),
    Option("verbose", bool, False, flags=("--verbose", "-v"), search=False,
           commands=("solve",),
           unserved="it writes to the command's stderr; the answer holds the search's counts",
           help="Statistics on stderr, and the iterations of a long search even when stderr "
           "is not a terminal."),
    Option("server", str, None, flags=("--server",), metavar="URL", search=False,
           envvar=config.ENV_SERVER,
           commands=("solve", "distance", "hint", "heuristic", "check", "generate"),
           unserved="this is the server",
           help="Ask a running `npuzzle serve` (http://HOST:PORT; default $NPUZZLE_SERVER): "
           "the same answers without starting numpy here.  Without a server there, "
           "the command says so and answers here; --server '' answers here."),
    Option("token", str, None, flags=("--token",), metavar="TOKEN", search=False,
           envvar=config.ENV_TOKEN,
           commands=("solve", "distance", "hint", "heuristic", "check", "generate", "serve"),
           unserved="send it as the header Authorization: Bearer TOKEN",
           help="The service's token (default $NPUZZLE_TOKEN, which keeps it out of the "
           "process list): `npuzzle serve` answers only requests that carry "
           "Authorization: Bearer TOKEN, and a command sends it to the server it asks."),
    # `npuzzle` takes it before the command's name too (solver.cli.group): one option.
    Option("quiet", bool, False, flags=("--quiet", "-q"), search=False,
           envvar=config.ENV_QUIET, commands=EVERY_COMMAND,
           unserved='it quiets the command\'s stderr; an answer carries its note as "notice"',
           help="No notes on stderr (what to build, a fallback) and no progress bar; failures "
           f"are still said.  ${config.ENV_QUIET}=1 too."),
    # -- research: switches of the engine, each with a good default -----------------------
    Option("fsm", int, config.DEFAULT_FSM_DEPTH, RESEARCH, flags=("--fsm",), metavar="DEPTH",
           low=MIN_FSM_DEPTH, high=config.MAX_FSM_DEPTH,
           commands=("solve",), endpoints=("solve",),
           help="IDA*'s duplicate pruning: skip every string of up to DEPTH blank moves that "
           "has a shorter or equal twin searched anyway (a finite-state machine, Taylor & "
           "Korf); 2 only forbids undoing the last move.  The answer's \"pruning\" names the "
           "machine used."),
    Option("combine", bool, config.DEFAULT_COMBINE, RESEARCH, flags=("--combine",),
           off="--no-combine", commands=("solve",), endpoints=("solve",),
           help="Take the largest value of up to four equally strong databases built for the "
           "goal (7-8 and 7-8b; 6-6-6-6 and its cuts c, d, e): fewer nodes, each costing more "
           "table reads."),
    Option("pick", bool, config.DEFAULT_PICK, RESEARCH, flags=("--pick",),
           off="--no-pick", commands=("solve",), endpoints=("solve",),
           help="Once a search is long, race the equally strong databases built for the goal "
           "(on 5x5: 6-6-6-6 and its cuts c, d, e; any custom partition) to the same bound, "
           "and go on with the one that needed the fewest nodes; the answer's \"race\" says "
           "how it went."),
    Option("pick_max", bool, config.DEFAULT_PICK_MAX, RESEARCH, flags=("--pick-max",),
           off="--no-pick-max", commands=("solve",), endpoints=("solve",),
           help="When the databases are raced, race their maxima too (the incumbent with each "
           "rival, and all of them), each one's nodes counted as many times as its table reads "
           "cost."),
    Option("zero_aware", bool, config.DEFAULT_ZERO_AWARE, RESEARCH, flags=("--no-zero-aware",),
           negated=True, commands=("solve",), endpoints=("solve",),
           help="The zero-aware twins of the databases (`build-pdb --partition P "
           "--zero-aware`: a pattern's value also by the region of free cells the blank is "
           "in) are read wherever they are built; --no-zero-aware (false) never reads them."),
    Option("promising_first", bool, config.DEFAULT_PROMISING_FIRST, RESEARCH,
           flags=("--promising-first",), off="--search-order",
           commands=("solve",), endpoints=("solve",),
           help="IDA*'s long iterations are cut into work units: take first those whose "
           "subtree came nearest the goal in the iteration before (the least h it entered), "
           "or take them in search order.  Either finds a shortest solution; the answer's "
           '"unit_order" says which.'),
    Option("reflect", bool, True, RESEARCH, flags=("--no-reflect",), negated=True,
           service_key="no_reflect",
           commands=("solve", "heuristic"), endpoints=("heuristic", "hint", "solve"),
           help="Only the additive sum, without the mirrored lookup."),
    Option("load", str, None, RESEARCH, flags=("--load",),
           choices=("auto", "map", "populate", "read"), search=False,
           commands=("solve", "distance", "hint", "heuristic"),
           unserved="how the server's databases reach memory is set where it starts "
           "($NPUZZLE_LOAD)",
           help="How database files reach memory: map (nothing read until used), populate "
           "(map and fault every page in before the search), read (copy into memory backed "
           "by huge pages).  auto (default, or $NPUZZLE_LOAD): populate for a batch ('-'), "
           "map for one board."),
    # -- teaching: the textbook searches ------------------------------------------------
    Option("heuristic", str, "auto", TEACHING, flags=("--heuristic",), choices=HEURISTICS,
           commands=("solve", "compare"), endpoints=("hint", "solve"),
           help="For idastar/astar: auto (the pattern database built for the goal, else "
           "linear conflict), pdb, manhattan or linear-conflict."),
    Option("depth_limit", int, None, TEACHING, flags=("--depth-limit",), low=0,
           commands=("solve", "compare"), endpoints=("solve",),
           help="Depth limit for dls (required by it) and the last limit iddfs tries."),
    Option("cycle_check", str, None, TEACHING, flags=("--cycle-check",), choices=CYCLE_CHECKS,
           commands=("solve", "compare"), endpoints=("solve",),
           help="For the blind searches: never return to the parent, never repeat a state on "
           "the current path, or remember every state generated (default per algorithm: "
           "bfs/dfs/astar visited, dls/iddfs path)."),
)
# fmt: on

BY_NAME = {o.name: o for o in SPEC}


def for_command(command: str) -> tuple[Option, ...]:
    """The options ``npuzzle COMMAND`` takes, in the order its help lists them."""
    return tuple(o for o in SPEC if command in o.commands)


def for_endpoint(endpoint: str) -> tuple[Option, ...]:
    """The options the service's ``/ENDPOINT`` takes."""
    return tuple(o for o in SPEC if endpoint in o.endpoints)


# --- SearchOptions ----------------------------------------------------------------------------


_CHOSEN = tuple(o for o in SPEC if o.search and o.choices)


class _Checks:
    """The rules a :class:`SearchOptions` keeps, checked when one is made."""

    def __post_init__(self):
        for o in _CHOSEN:  # a value from a fixed list: the specification's list
            value = getattr(self, o.name)
            if not (value is None and o.optional) and value not in o.choices:
                what = o.name.replace("_", " ")
                raise BoardError(f"unknown {what} '{value}': use {', '.join(o.choices)}")
        if not isinstance(self.jobs, int) or self.jobs < 1:
            raise BoardError(f"jobs must be a whole number of at least 1, not {self.jobs!r}")
        low, top = MIN_FSM_DEPTH, config.MAX_FSM_DEPTH
        fsm = self.fsm
        if isinstance(fsm, bool) or not isinstance(fsm, int) or not low <= fsm <= top:
            raise BoardError(f"fsm depth must be a whole number from {low} to {top}, not {fsm!r}")
        from .search.weights import parse_weight  # numpy only

        weighted = parse_weight(self.weight) > 1
        if weighted and self.algorithm not in ("auto", "idastar", "table"):
            raise BoardError(
                f"{option('weight')} works with IDA* (algorithm auto or idastar), not "
                f"{self.algorithm}"
            )
        if self.resume is not None:
            if self.algorithm not in ("auto", "idastar"):
                raise BoardError(
                    f"{option('resume')} goes on with IDA* (auto or idastar), not {self.algorithm}"
                )
            if weighted:
                raise BoardError(
                    f"{option('resume')} goes on with an optimal search, not a weighted one"
                )


def _search_fields() -> list[tuple]:
    fields: list[tuple] = [
        (o.name, o.type | None if o.optional else o.type, field(default=o.default))
        for o in SPEC
        if o.search
    ]
    # hears about each IDA* iteration (a solver.search.driver.Progress); not part of equality
    fields.append(("progress", Callable | None, field(default=None, compare=False, repr=False)))
    return fields


SearchOptions = make_dataclass(
    "SearchOptions",
    _search_fields(),
    bases=(_Checks,),
    frozen=True,
)
SearchOptions.__module__ = __name__  # where pickle finds it (batches send it to workers)
SearchOptions.__doc__ = (
    "Everything a caller may ask of a search; each algorithm reads the fields it knows.  "
    "The fields, their defaults and their meaning are the options of :data:`SPEC` marked "
    "``search``: " + ", ".join(o.name for o in SPEC if o.search) + "; and ``progress``, "
    "which hears about each IDA* iteration (not part of equality)."
)

__all__ = [
    "ALGORITHMS",
    "CYCLE_CHECKS",
    "HEURISTICS",
    "SPEC",
    "BY_NAME",
    "TIERS",
    "Option",
    "SearchOptions",
    "for_command",
    "for_endpoint",
]
