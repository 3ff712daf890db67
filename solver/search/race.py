"""Which database searches a board: a race of IDA* iterations between equally strong pattern
databases cut differently (``--pick``; layer 3: search, over :mod:`solver.search.driver`).

Two partitions of the tiles into the same table sizes are equally strong on average and
often far apart on one board: on Korf & Taylor's 24-puzzles one 6-6-6-6 cut generates up to
ten times the nodes of another to the same bound, and which cut wins changes from board to
board (docs/research/search.md, section 4).  The gap shows early: from the first iteration
past a million nodes to the largest bound measured (10-100 M nodes), the ratio between two
cuts moved by at most 15 % on those ten, so a short race predicts the long search; a small
lead can still turn round in the iterations after, hence :data:`MARGIN`.

The maximum of two cuts needs fewer nodes than either (about half on Korf & Taylor #4 and #8)
but reads two tables per node, and the maximum of all four fewer still for four.  So with
``pick_max`` the race enters those maxima too (:func:`solver.search.plans.choose`), and
every entrant's nodes count :func:`cost` times: what its table reads cost per node, against
one database's.  The costs are constants, measured once, never the clock.

How it runs:

1. The *incumbent* (the catalog's choice) searches as usual.  A search that ends before it has
   generated :data:`RACE_AFTER` nodes never races, nor one with no rival built (the cuts
   drawn for the race, 6-6-6-6 c, d and e, and custom partitions race: see
   :func:`solver.tables.partitions.races`).
2. Otherwise the incumbent pauses at the end of the iteration under way, with bound ``B`` and
   ``N`` nodes generated in all.  Every *rival* searches its own iterations up to ``B``, each
   stopped as soon as its nodes cost more than ``MARGIN * N`` (it would lose); the rivals run
   on ``jobs`` threads at once.
3. The rival whose nodes up to ``B`` cost the least (nodes times :func:`cost`), if that is
   at most ``MARGIN * N``, else the incumbent, searches on from the largest bound any entrant
   proved: every iteration up to ``B`` failed under an admissible heuristic, so none of them
   can hold a shorter solution.

Node counts decide, never the clock, so a board picks the same database in any process.  (With
``jobs`` > 1 a parallel iteration counts a few more nodes than a serial one -- the work units'
roots -- so only a near tie could go the other way on another number of threads.)  Every node
of the race is counted in the answer.

Each search of a race is told where it starts and pauses by one :class:`RaceRule` (defined
beside the driver that obeys it, :class:`solver.search.driver.RaceRule`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

from .driver import (
    DEFAULT_SETTINGS,
    INTERRUPTIONS,
    Progress,
    RaceRule,
    SearchResult,
    SearchSettings,
    carry_search,
    interrupted_search,
    search,
)
from .kernel_data import Plan
from .walk import Limits

# Nodes the incumbent generates before a race (it finishes the iteration under way: 2-20 M
# nodes on the 24-puzzle, a fraction of a second).  Each rival costs at most MARGIN times as
# many again, a few per cent of a search of 10^8 nodes; the ratios between cuts are already
# as they will stay (within 15 % on Korf & Taylor's ten).  With 16 M the race cost a search
# of 3 * 10^8 nodes as much again (Korf & Felner #32: 47 s against 23 s).
RACE_AFTER = 2_000_000
# A rival takes over only if it needed at most this share of the incumbent's nodes.  The ratio
# between two cuts drifts as the bound grows (by up to a third over the last few iterations
# on Korf & Taylor's ten), so a smaller lead predicts nothing: KT #4's 7 % went the other way
# (5.26 G nodes against the incumbent's 4.65 G).  It also stops each rival sooner.
MARGIN = 0.8
# What each database after the first adds to the time of a node, as a share of one
# database's: one thread, Korf & Taylor #4 and #8, 10^8 nodes each, the maximum of two cuts
# ran at 20-25 M nodes/s and of four at 12-13.5 M/s, against 39-42 M/s for one (1.7 and
# 3.1 times one database's time).
EXTRA_PER_DATABASE = 0.7


def cost(plan: Plan) -> float:
    """What a node of ``plan`` costs against a node of one database (its table reads)."""
    return 1 + EXTRA_PER_DATABASE * max(0, len(plan.tables) - 1)


def most_to_win(incumbent_nodes: int, entrant_cost: float = 1.0) -> int:
    """The most nodes an entrant of ``entrant_cost`` may need to the race's bound and still
    take over from an incumbent (of one database) that needed ``incumbent_nodes``."""
    return int(MARGIN * incumbent_nodes / entrant_cost)


@dataclass
class Entrant:
    """A database (or a maximum of several) in the race: its ``plan`` and the start board in
    the plan's frame."""

    plan: Plan
    tiles: tuple

    @property
    def cost(self) -> float:
        """What one of its nodes costs against one database's (:func:`cost`)."""
        return cost(self.plan)


@dataclass
class Race:
    """How a race went: the ``bound`` every entrant searched to, each entrant's nodes up to it
    (None: it stopped once it could not win) and the index of the winner."""

    bound: int
    nodes: list = field(default_factory=list)
    winner: int = 0
    costs: list = field(default_factory=list)  # each entrant's cost per node (:func:`cost`)

    def summary(self, names: list[str]) -> str:
        """One line for people: who won, against whom, at which bound, with what nodes (and,
        for a maximum of several databases, how many times they counted)."""
        shown = []
        for name, n, c in zip(names, self.nodes, self.costs):
            said = f"over {most_to_win(self.nodes[0], c):,}" if n is None else f"{n:,}"
            shown.append(f"{name}: {said}" + (f" (x{c:g})" if c != 1 else ""))
        return f"raced to bound {self.bound}, {names[self.winner]} won ({'; '.join(shown)})"


def solve(
    entrants: list[Entrant], settings: SearchSettings = DEFAULT_SETTINGS
) -> tuple[SearchResult, int, Race | None]:
    """Search with the entrant a race picks, as ``settings`` say: ``(result, winner's index,
    race)``; the race is None when the incumbent finished (or hit a limit) before one was
    needed, or ran alone.  Limits count the whole search, race included; every entrant
    starts at ``settings.start_bound``.  An interruption carries the whole search's counts and
    the largest bound it proved (:func:`~solver.search.driver.interrupted_search`)."""
    t0 = time.perf_counter()
    timeout, max_nodes = settings.timeout, settings.max_nodes
    deadline = None if timeout is None else t0 + timeout
    start = settings.start_bound
    alone = len(entrants) == 1
    # alone: no race
    lead_rule = RaceRule(start_bound=start, pause_after=None if alone else RACE_AFTER)
    lead = search(entrants[0].plan, entrants[0].tiles, settings, lead_rule)
    if lead.paused is None:
        return lead, 0, None
    try:
        results = [lead] + _rivals(entrants[1:], lead, deadline, settings)
    except INTERRUPTIONS as e:
        carry_search(e, _total(replace(lead, stopped="interrupted"), [], t0))
        raise
    race = judge(results, [e.cost for e in entrants])
    spent = sum(r.generated for r in results)
    stopped = Limits(timeout, max_nodes, deadline).reason(spent, time.perf_counter())
    if stopped:
        return _total(replace(lead, stopped=stopped), results[1:], t0), 0, race
    winner = entrants[race.winner]
    rest_settings = replace(
        settings,
        timeout=None if deadline is None else deadline - time.perf_counter(),
        max_nodes=None if max_nodes is None else max_nodes - spent,
        progress=_carried(settings.progress, lead.iterations, spent, t0),
    )
    rule = RaceRule(start_bound=start_bound(results), nodes_before=spent)
    try:
        rest = search(winner.plan, winner.tiles, rest_settings, rule)
    except INTERRUPTIONS as e:
        # Stopped before its first iteration: what the race proved.
        rest = interrupted_search(e) or SearchResult(
            None, lead.root_h, rule.start_bound, 0, 0, 0, 0.0, "interrupted"
        )
        carry_search(e, _total(rest, results, t0, lead.iterations))
        raise
    return _total(rest, results, t0, lead.iterations), race.winner, race


def judge(results: list[SearchResult], costs: list[float]) -> Race:
    """The race run by ``results`` -- the incumbent's search paused at the race's bound, then
    each rival's up to it (its ``paused`` None where it stopped because it could not win) --
    of entrants whose nodes cost ``costs``: the winner is the rival whose nodes cost the
    least, if at most ``MARGIN`` times the incumbent's, else the incumbent."""
    lead = results[0]
    race = Race(lead.paused, [lead.generated], costs=list(costs))
    best = None  # the winner's nodes times its cost; a tie goes to the earlier entrant
    for i, res in enumerate(results[1:], 1):
        race.nodes.append(None if res.paused is None else res.generated)
        price = res.generated * costs[i]
        wins = price <= most_to_win(lead.generated) and (best is None or price < best)
        if res.paused is not None and wins:
            race.winner, best = i, price
    return race


def start_bound(results: list[SearchResult]) -> int:
    """The bound the winner of a race goes on with: the largest any entrant proved (every
    iteration up to the race's bound failed under an admissible heuristic)."""
    return max(r.lower_bound for r in results if r.paused is not None)


def rival_limit(lead_generated: int, entrant_cost: float, max_nodes: int | None) -> int:
    """The node cap of a rival's search: past it the rival cannot win (or the search's own
    cap is reached)."""
    cap = most_to_win(lead_generated, entrant_cost) + 1
    if max_nodes is not None:
        cap = min(cap, max(1, max_nodes - lead_generated))
    return cap


def describe(ran: Race | None, names: list[str]) -> str:
    """The answer's ``race`` field: how the race went, or that the search ended before one."""
    if ran is None:
        return f"none (the search ended within {RACE_AFTER:,} nodes)"
    return ran.summary(names)


def _rivals(entrants, lead: SearchResult, deadline, settings: SearchSettings) -> list:
    """Each rival's search up to the incumbent's bound, stopped once its nodes cost more than
    ``MARGIN`` times the incumbent's; ``settings.jobs`` at a time (the kernels release the
    GIL), each on one thread, hearing no progress."""

    def one(entrant: Entrant) -> SearchResult:
        left = None if deadline is None else max(0.0, deadline - time.perf_counter())
        mine = replace(
            settings,
            timeout=left,
            max_nodes=rival_limit(lead.generated, entrant.cost, settings.max_nodes),
            jobs=1,
            progress=None,
        )
        rule = RaceRule(start_bound=settings.start_bound, stop_bound=lead.paused)
        return search(entrant.plan, entrant.tiles, mine, rule)

    from concurrent.futures import ThreadPoolExecutor  # only a race has rivals

    with ThreadPoolExecutor(max_workers=max(1, settings.jobs)) as threads:
        return list(threads.map(one, entrants))


def _carried(progress, iterations_before: int, nodes_before: int, t0: float):
    """``progress`` hearing about the winner's iterations numbered, counted and timed as the
    whole search's."""
    if progress is None:
        return None
    offset = time.perf_counter() - t0

    def hear(p: Progress) -> None:
        progress(
            replace(
                p,
                iteration=p.iteration + iterations_before,
                nodes=p.nodes + nodes_before,
                seconds=p.seconds + offset,
            )
        )

    return hear


def _total(
    last: SearchResult, earlier: list, t0: float, iterations_before: int = 0
) -> SearchResult:
    """``last`` with the nodes of the ``earlier`` searches, the iterations before it and the
    time of the whole search."""
    return replace(
        last,
        generated=last.generated + sum(r.generated for r in earlier),
        expanded=last.expanded + sum(r.expanded for r in earlier),
        iterations=last.iterations + iterations_before,
        seconds=time.perf_counter() - t0,
        paused=None,
    )


__all__ = [
    "RaceRule",
    "Entrant",
    "Race",
    "solve",
    "judge",
    "start_bound",
    "rival_limit",
    "describe",
    "cost",
    "most_to_win",
    "RACE_AFTER",
    "MARGIN",
]
