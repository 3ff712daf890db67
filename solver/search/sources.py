"""Where a question's estimate comes from: the one choice of the databases that IDA*, A* and a
heuristic question (``npuzzle heuristic``, the service's ``/heuristic``) read (layer 3: search).

A question says what it wants once, parsed (:class:`HeuristicSpec`), and :func:`choose` asks
the catalog once (:func:`solver.tables.catalog.choose`): the exact table where a heuristic
question may read one, else the pattern databases the catalog chooses (with a race's rivals
for IDA*), else linear conflict -- with a notice naming the command that builds a database --
or, where the question needs a database, :class:`~solver.tables.store.DatabaseMissing`.  The
answer (:class:`Source`) names files; :mod:`solver.search.plans` opens them for IDA*,
:mod:`solver.search.blind` for A*, :mod:`solver.heuristics` for a heuristic question.

Imports: :mod:`solver.core`, :mod:`solver.tables` -- no numpy at import.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..core import config
from ..core.board import Board
from ..core.solution import EXACT_HEURISTIC, LC_HEURISTIC, MANHATTAN_HEURISTIC, PDB_HEURISTIC
from ..tables import catalog, names, store, strongest
from ..tables.partitions import MAX_CELLS, Partition

# Who asks: each reads the databases its own way.  IDA* takes the maximum of several and races
# rivals, and refuses to run without a database on the shapes of config.REQUIRES_PDB; A* and a
# heuristic question read one database; a heuristic question reads the exact table first.
IDASTAR, ASTAR, HEURISTIC = "IDA*", "A*", "a heuristic question"

# Where the estimate comes from (:attr:`Source.kind`).
EXACT, PDB, LINEAR_CONFLICT, MANHATTAN = (
    EXACT_HEURISTIC,
    PDB_HEURISTIC,
    LC_HEURISTIC,
    MANHATTAN_HEURISTIC,
)


@dataclass(frozen=True)
class HeuristicSpec:
    """The heuristic a question asked for, parsed where the request arrived.

    ``name``: ``auto`` (a pattern database where one is built, else linear conflict), ``pdb``
    (a pattern database or an error), ``manhattan`` or ``linear-conflict``.  ``partitions``:
    the partitions asked for, as tiles of the goal (several: their maximum; none: the
    catalog's choice), and ``named`` the words each was asked in, one per partition (for
    messages).
    ``reflect``: the mirrored lookup too; ``combine``: the maximum of the equally strong
    databases of the goal; ``pick``: a race of the equally strong cuts, ``pick_max`` with
    their maxima; ``zero_aware``: the zero-aware twins where they are built;
    ``data_dir``: where the databases are."""

    name: str = "auto"
    partitions: tuple[Partition, ...] = ()
    named: tuple[str, ...] = ()
    reflect: bool = True
    combine: bool = config.DEFAULT_COMBINE
    pick: bool = config.DEFAULT_PICK
    pick_max: bool = config.DEFAULT_PICK_MAX
    zero_aware: bool = config.DEFAULT_ZERO_AWARE
    data_dir: Path | None = None

    @property
    def reads_databases(self) -> bool:
        """True for the heuristics read from pattern databases (``auto``, ``pdb``)."""
        return self.name not in (MANHATTAN, LINEAR_CONFLICT)


@dataclass(frozen=True)
class Source:
    """The estimate a question reads: ``kind`` (:data:`EXACT`, :data:`PDB`,
    :data:`LINEAR_CONFLICT` or :data:`MANHATTAN`); for :data:`PDB` the ``databases`` whose
    maximum it reads and the ``rivals`` a race enters beside them, each a catalog entry with
    the reduction of the goal onto its goal; the ``notice`` the user hears before the
    answer, or None."""

    kind: str
    databases: tuple = ()
    rivals: tuple = ()
    notice: str | None = None


def choose(
    goal: Board, heuristic: HeuristicSpec, asker: str = IDASTAR, race: bool = False
) -> Source:
    """Where the estimate of a question towards ``goal`` that reads ``heuristic`` comes from,
    for ``asker`` (:data:`IDASTAR`, :data:`ASTAR` or :data:`HEURISTIC`); ``race``: with
    ``heuristic.pick``, where equally strong cuts are built, the rivals of IDA*'s race too.

    ``manhattan`` and ``linear-conflict`` read no database.  ``auto``: for a heuristic question
    without a partition, the exact table where one serves the goal; else the databases the
    catalog chooses for the goal (its own, else a symmetric one) -- for IDA*, with the note
    of the strongest set where it is not built (:func:`solver.tables.strongest.advice`) --
    else linear conflict with a notice naming the command that builds a database.  ``pdb``,
    a partition asked for, or IDA* on a shape of :data:`~solver.core.config.REQUIRES_PDB`
    raise :class:`~solver.tables.store.DatabaseMissing` instead (on the 15-puzzle IDA* with
    linear conflict alone takes minutes to hours)."""
    if not heuristic.reads_databases:
        return Source(heuristic.name)
    if asker == HEURISTIC and not heuristic.partitions:
        exact = _exact_source(goal, heuristic.data_dir)
        if exact is not None:
            return exact
    choice = catalog.choose(
        goal.shape,
        goal,
        heuristic.partitions,
        heuristic.data_dir,
        named=heuristic.named,
        combine=heuristic.combine,
        race=race and heuristic.pick,
    )
    if choice.missing is None:
        note = None
        if asker == IDASTAR and not heuristic.partitions:
            note = _set_advice(goal, heuristic, choice)
        return Source(PDB, choice.databases, choice.rivals, note)
    if _refuses(goal, heuristic, asker):
        raise choice.missing
    if asker == HEURISTIC:
        return Source(LINEAR_CONFLICT, notice=_estimate_notice(choice.missing))
    notice = fallback_notice(choice.missing, goal, heuristic.data_dir, choice.exact_built)
    return Source(LINEAR_CONFLICT, notice=notice)


def heuristic_source(
    goal: Board, partition: Partition | None = None, data_dir=None, named: str | None = None
) -> Source:
    """:func:`choose` for a heuristic question towards ``goal``: the best estimate built, as
    ``solve`` chooses -- the exact table where one serves the goal (the true distance), else
    the pattern database the catalog chooses, else linear conflict.  A ``partition`` (tiles of
    ``goal``, parsed where the question arrived: :func:`solver.answers.heuristic_partition`)
    asks for that database and nothing else (:class:`~solver.tables.store.DatabaseMissing`,
    in the words ``named``, when it is not built)."""
    spec = HeuristicSpec(
        partitions=(partition,) if partition is not None else (),
        named=(named,) if partition is not None and named else (),
        combine=False,
        data_dir=data_dir,
    )
    return choose(goal, spec, HEURISTIC)


def advice(goal: Board, heuristic: HeuristicSpec) -> str | None:
    """The note an IDA* search towards ``goal`` reading ``heuristic`` should hear before its
    first iteration (the same as its plan's :attr:`~solver.search.kernel_data.Plan.notice`):
    where no database is built and it falls back to linear conflict, :func:`fallback_notice`;
    where the strongest set of the shape (:mod:`solver.tables.strongest`) is not built and
    would make it much faster, the command that builds it and the measured gain.  None
    otherwise, and where partitions were asked for (the user chose) or the search will
    refuse to run (its error names the command)."""
    if not heuristic.reads_databases or heuristic.partitions:
        return None
    try:
        return choose(goal, heuristic).notice
    except store.DatabaseMissing:
        return None


def _refuses(goal: Board, heuristic: HeuristicSpec, asker: str) -> bool:
    """Whether a question that finds no database is refused rather than answered with linear
    conflict: it asked for a database (``pdb``, a partition), or it is IDA*'s on a shape
    where linear conflict alone takes too long."""
    if heuristic.name == PDB or heuristic.partitions:
        return True
    return asker == IDASTAR and str(goal.shape) in config.REQUIRES_PDB


def _exact_source(goal: Board, data_dir) -> Source | None:
    """The exact table as a heuristic question's estimate (the true distance), where one
    serves ``goal``; None where none does (a table of the shape may serve other goals only,
    and then a database may serve this one)."""
    shape = goal.shape
    if not catalog.has_exact(shape, data_dir):
        return None
    from ..tables import exact  # numpy: only once an exact table is built

    try:
        exact.tables(shape, data_dir, goal)
    except store.DatabaseMissing:
        return None
    name = names.exact_file_name(shape, goal)
    return Source(EXACT, notice=f"h is the exact distance, from {name} (the best estimate)")


def _estimate_notice(missing: store.DatabaseMissing) -> str:
    """The note of a heuristic question answered by linear conflict: what is missing and the
    command that builds a database."""
    fix = getattr(missing, "fix", None)
    return f"{missing.args[0]}: h is linear conflict" + (
        f"; to build a database: {fix}" if fix else ""
    )


def _set_advice(goal: Board, heuristic: HeuristicSpec, choice: catalog.Choice) -> str | None:
    """:func:`solver.tables.strongest.advice` for a search that found databases (``choice``):
    the set counts as built where it is built for the goal of the first database chosen too."""
    served = choice.databases[0][0].goal
    return strongest.advice(goal.shape, goal, heuristic.data_dir, heuristic.zero_aware, served)


def fallback_notice(
    missing: store.DatabaseMissing, goal: Board, data_dir, exact_built: bool
) -> str:
    """The note of a search that falls back to linear conflict: what is missing, in the
    catalog's words (naming the goal when it is not the default), and what would do better --
    the pattern database's ``build-pdb`` command, and the exact table's where the board is
    small enough for one and none is built (``exact_built`` False); nothing where no
    database can be built."""
    shape = goal.shape
    said = f"{missing.args[0]}: searching with linear conflict (much slower)"
    if shape.size > MAX_CELLS:
        return f"{said}; pattern databases are built for boards of up to {MAX_CELLS} cells"
    said += f"; to build one: {missing.fix}"
    if strongest.has_set(shape):
        said += f" (or, for the fastest searches: {strongest.command(shape, goal, data_dir)})"
    if shape.size <= config.MAX_EXACT_CELLS and not exact_built:
        command = names.build_command(shape, goal=goal, data_dir=data_dir, kind=names.EXACT)
        said += f" (or, for instant exact answers: {command})"
    return said
