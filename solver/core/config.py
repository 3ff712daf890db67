"""Defaults and tunables, in one place (layer 0: core).

Every default a user may meet (which databases ``build-pdb`` builds, which one a shape's fix
command suggests) and every knob read from the environment (``NPUZZLE_*``) is named here, so a
reader finds each decision once.  Values that belong to one algorithm's inner workings (kernel
slice sizes, say) stay beside that algorithm, named.

Imports: the standard library only.
"""

from __future__ import annotations

import os

# --- environment variables ---------------------------------------------------------------------
ENV_DATA_DIR = "NPUZZLE_DATA"  # where databases live (below --data-dir, above the defaults)
ENV_CACHE_DIR = (
    "NPUZZLE_CACHE"  # the record of verified files, pruning machines (default XDG cache)
)
ENV_THREADS = "NPUZZLE_THREADS"  # threads of the pattern-database builder
ENV_ORDER = "NPUZZLE_ORDER"  # 0: IDA* enters children in move order, not smallest h first
ENV_LOAD = "NPUZZLE_LOAD"  # how pattern tables reach memory: auto, map or read
ENV_DEBUG = "NPUZZLE_DEBUG"  # 1: an internal error shows its traceback
ENV_SERVER = "NPUZZLE_SERVER"  # the address of a running `npuzzle serve` the CLI may ask
ENV_TOKEN = "NPUZZLE_TOKEN"  # the token `npuzzle serve` asks for and a `--server` client sends
ENV_BULK = "NPUZZLE_BULK"  # 0: batches of boards are answered one by one, not in bulk
ENV_QUIET = "NPUZZLE_QUIET"  # 1: no notes on stderr (npuzzle --quiet); errors are still said
# Dask's own variable, not npuzzle's: the scheduler `--scheduler` defaults to (Dask's clients
# read it too).  A command with one set solves on the cluster, not on a `--server`.
ENV_SCHEDULER = "DASK_SCHEDULER_ADDRESS"

# --- what gets built -----------------------------------------------------------------------
# Boards small enough for a table of every state's exact distance, built by a bare `build-pdb`.
DEFAULT_EXACT_SHAPES = ("2x3", "3x3", "2x4", "4x2", "2x5", "5x2")
# Exact tables exist for boards of up to 12 cells (3x4, 2x6: 239,500,800 states a goal).  From
# 10 cells on they are compact (solver.tables.compact: one parity class, half a byte a state,
# a file per goal blank cell); smaller boards keep a byte per full permutation, every blank
# cell in one file (the 8-puzzle's 3 MB).
MAX_EXACT_CELLS = 12
COMPACT_EXACT_CELLS = 10
# The breadth-first search of every arrangement (solver.tables.exact_bfs, a byte per full
# permutation) takes boards of up to 10 cells: 10! bytes, about a second.  Where no exact
# table is built, `generate` and `stats` run it in memory for such boards (3x3, 2x5, ...).
FULL_BFS_CELLS = 10
# The partition a bare `build-pdb --shape S` builds and a missing-database message suggests.
# 4x4: 6-6-3 builds in seconds; 7-8 (minutes, 550 MB) is the one to build for speed.
DEFAULT_PARTITION = {"2x3": "3-2", "3x3": "4-4", "4x4": "6-6-3", "5x5": "6-6-6-6"}
# The strongest set of a shape, built by `build-pdb --shape S --strongest`: these partitions,
# each with its zero-aware twin -- everything the fastest measured search reads
# (docs/research/search.md).  4x4: 7-8 and its twin, Korf's 100 at 1.3 ms a board against
# 8.6 ms with 6-6-3 and its twin (its baselines); 7-8b is left out: its twin in a maximum with
# 7-8's cut the nodes to 0.66x but took more time (the 80-move positions 6.62-7.09 s against
# 6.32-6.56 s, Korf's 100 0.19 s against 0.16 s: section 8c).  5x5: 6-6-6-6 and the cuts a
# long search races (section 4), with their twins: Korf & Taylor #2 in 2-3 s on 2 threads
# against 11-22 s with 6-6-6-6 alone.
STRONGEST = {
    "4x4": ("7-8",),
    "5x5": ("6-6-6-6", "6-6-6-6c", "6-6-6-6d", "6-6-6-6e"),
}
# What a search is told the strongest set gains over what is built (the same records): the
# workload, its time with the set, and its time with each smaller database a search reads
# instead, strongest first: (partition, read with its zero-aware twin, time).  4x4: the set
# and 6-6-3 with its twin 1.30 and 8.58 ms a board (docs/research/search.md, the rows with
# the zero-aware twins); 7-8, 6-6-3 and 5-5-5, each with its reflection, 0.29, 2.11 and
# 25.83 s for the 100 (docs/research/end-to-end.md, "Korf's 100 per database").  5x5:
# section 4 of docs/research/search.md.
STRONGEST_GAIN = {
    "4x4": (
        "Korf's 100",
        "1.3 ms",
        (
            ("7-8", False, "2.9 ms a board"),
            ("6-6-3", True, "8.6 ms a board"),
            ("6-6-3", False, "21 ms a board"),
            ("5-5-5", False, "258 ms a board"),
        ),
    ),
    "5x5": ("Korf & Taylor #2 on 2 threads", "2-3 s", (("6-6-6-6", False, "11-22 s"),)),
}
# Shapes whose IDA* without a pattern database would take minutes to hours: a search there
# without one is refused (exit 3, with the command that builds one) instead of falling back.
REQUIRES_PDB = ("4x4",)

# --- how IDA* searches -----------------------------------------------------------------------
# The duplicate-pruning machine's depth (solver.search.fsm): the longest move strings compared.
# 2 is "never undo the previous move"; the default is the best measured (scripts/bench_research.py,
# docs/research/search.md, section 1).
# Against 10, 14 generates 7 % fewer nodes on Korf's 100, 9 % fewer on the 80-move positions
# and 21-25 % fewer on 5x5 boards; it searches 8-13 % faster on the latter two, but 10-15 %
# slower on Korf's 100 in two runs of that script (its larger machine costs per node, and
# those searches are short; interleaved runs in one process were within the noise).  Chosen
# for the long searches, where time matters most.  Its strings ship with the package; the
# machine is made from them in 0.1-0.4 s the first time, then cached.
DEFAULT_FSM_DEPTH = 14
# The deepest machine that may be asked for (the CLI, the API, the service): the depth whose
# strings ship with the package.  Deeper ones were measured no faster (depth 16: 2-4 % fewer
# nodes, the same time: its larger machine costs per node) and their strings are made by a
# Python BFS that needs 3.7 GB (4x4, depth 15) to more than 14 GB (5x5, depth 16): a request
# for one must not take a machine's memory (docs/research/search.md, sections 1 and 6).
MAX_FSM_DEPTH = 14
# Whether IDA* takes the maximum of the equally strong databases built for one goal, up to four
# (catalog.MAX_COMBINED: 7-8 with 7-8b; 6-6-6-6 with its cuts c, d, e).  Off: it cuts the
# nodes (Korf's 100 with 7-8 and 7-8b: 17,864 a board against 27,912) but every table read
# costs (two databases 1.7, four 3.1 times one database's time per node), and on the long
# searches 7-8 alone was the fastest (docs/research/search.md, section 2).
DEFAULT_COMBINE = False
# Whether IDA* races equally strong databases cut differently and searches on with the one
# that needed the fewest nodes (solver.search.race).  On: only searches past 2 M nodes race,
# only where cuts drawn for it are built, and on the 24-puzzle the best of four 6-6-6-6 cuts
# needs 1.2-4.3 times fewer nodes than 6-6-6-6 (docs/research/search.md, section 4).
DEFAULT_PICK = True
# Whether the race also enters the maxima of its databases (the incumbent with each rival, and
# all of them), each one's nodes weighted by its extra table reads (solver.search.race).
# On: with the kernel reading every table without a reference count (docs/research/search.md,
# section 2), the maximum of two cuts halved Korf & Taylor #4's nodes (section 4b).
DEFAULT_PICK_MAX = True
# Whether IDA* reads the zero-aware twins of its databases (zpdb-..., built with build-pdb
# --zero-aware: two distances a placement, by the blank's region): True reads them where they
# are built (and the additive file where not), False never.  Korf's 100 with 7-8: 27,912 -> 15,808
# nodes a board, 0.72x the time (docs/research/search.md, sections 8 and 8b).
DEFAULT_ZERO_AWARE = True
# Whether IDA*'s long iterations take their work units most promising first: those whose
# subtree came nearest the goal (the least h entered) in the iteration before
# (solver.search.units.promising_first).  On: the last iteration of eight 24-puzzles reached
# its first solution after 476.8 M nodes instead of 2,605.6 M in search order
# (docs/research/search.md, section 9); off: units in search order, and a one-thread search
# never splits its iterations.
DEFAULT_PROMISING_FIRST = True


def env_flag(name: str, default: bool) -> bool:
    """The boolean value of environment variable ``name`` (``1``/``0``), or ``default``."""
    value = os.environ.get(name)
    return default if value is None or value == "" else value == "1"


def env_choice(name: str, choices: tuple[str, ...], default: str) -> str:
    """The value of environment variable ``name`` when it is one of ``choices``, else
    ``default``."""
    value = os.environ.get(name, "").strip().lower()
    return value if value in choices else default


def usable_cores() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # no affinity on this platform
        return max(1, os.cpu_count() or 1)
