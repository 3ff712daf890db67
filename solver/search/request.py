"""One IDA* search, resolved: what to solve, how, and the tables it reads (layer 3: search).

A front end (:mod:`solver.api`, for the CLI and the service alike) turns what arrived as text
into a :class:`SearchRequest` once: the parsed start and goal, the heuristic asked for with its
partitions parsed (:class:`~solver.search.sources.HeuristicSpec`), the weight, the limits -- and
the plans chosen for it (:func:`solver.search.plans.choose`, which asks the catalog once).
The search takes the value as it is: nothing below parses options or asks the catalog again.

A request without its plans (:meth:`SearchRequest.bare`) is plain data: it travels to other
processes, which choose the same plans with :meth:`SearchRequest.with_plans`.

Imports: :mod:`solver.core`, the search's plans, sources and weights.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ..core import config
from ..core.board import Board, BoardError, Shape
from ..core.symmetry import Reduction
from .kernel_data import Plan
from .plans import choose

if TYPE_CHECKING:  # a weight is read as a fraction only where one is given
    from fractions import Fraction
from .sources import HeuristicSpec
from .weights import Weighting


@dataclass(frozen=True)
class SearchRequest:
    """An IDA* search from ``start`` to ``goal`` (boards of one shape), ready to run.

    ``heuristic``: what the search reads (:class:`~solver.search.sources.HeuristicSpec`);
    ``weight``: 1 for an optimal answer, W > 1 for one at most W times the optimal length;
    ``timeout`` (seconds) and ``max_nodes``: limits; ``jobs``: threads for the long
    iterations; ``fsm_depth``: the duplicate-pruning machine (:mod:`solver.search.fsm`);
    ``promising_first``: the order of the work units; ``progress``: hears about each
    iteration; ``start_bound``: a length the optimal one is proven not to be below (a resumed
    search: :mod:`solver.core.resume_token`), where IDA*'s first iteration starts.  ``plans``: the plans chosen, each with the reduction of boards of ``goal``
    to its target -- the one the search starts with first, then a race's rivals."""

    start: Board
    goal: Board
    heuristic: HeuristicSpec = HeuristicSpec()
    weight: Fraction | int = 1
    timeout: float | None = None
    max_nodes: int | None = None
    jobs: int = 1
    fsm_depth: int = config.DEFAULT_FSM_DEPTH
    promising_first: bool = True
    start_bound: int | None = None
    progress: Callable | None = field(default=None, compare=False, repr=False)
    plans: tuple[tuple[Plan, Reduction], ...] = field(default=(), compare=False, repr=False)

    def __post_init__(self):
        if self.start.shape != self.goal.shape:
            raise BoardError(f"start is {self.start.shape} but goal is {self.goal.shape}")

    @property
    def shape(self) -> Shape:
        """The boards' shape."""
        return self.start.shape

    @property
    def optimal(self) -> bool:
        """True when the search must return a shortest solution (weight 1)."""
        return Weighting.of(self.weight) is None

    def with_plans(self) -> SearchRequest:
        """This request with its plans chosen (itself when they are): the databases the
        catalog chooses for the goal, opened, and -- for an optimal search -- a race's
        rivals.  Raises :class:`~solver.tables.store.DatabaseMissing` where a database is
        needed and none is built."""
        if self.plans:
            return self
        return replace(self, plans=choose(self.goal, self.heuristic, race=self.optimal))

    def bare(self) -> SearchRequest:
        """This request as plain data: without its plans and its progress callback."""
        return replace(self, plans=(), progress=None)


__all__ = ["SearchRequest", "HeuristicSpec"]
