"""Which database searches a board: a race of IDA* iterations between equally strong pattern
databases cut differently (``--pick``; layer 3: search, over :mod:`solver.search.driver`).

Two partitions of the tiles into the same table sizes are equally strong on average and
often far apart on one board: on Korf & Taylor's 24-puzzles one 6-6-6-6 cut generates up to
ten times the nodes of another to the same bound, and which cut wins changes from board to
board (docs/research-table.md, section 4).  The gap shows early: from the first iteration
past a million nodes to the largest bound measured (10-100 M nodes), the ratio between two
cuts moved by at most 15 % on those ten, so a short race predicts the long search; a small
lead can still turn round in the iterations after, hence :data:`MARGIN`.  Taking the maximum
of the cuts (``--combine``) would cut the nodes further but reads every table for every
node; the race reads one table per node once it is decided.

How it runs:

1. The *leader* (the catalog's choice) searches as usual.  A search that ends before it has
   generated :data:`RACE_AFTER` nodes never races, nor one with no rival built (the cuts
   drawn for the race, 6-6-6-6 c, d and e, and custom partitions race: see
   :func:`solver.tables.partitions.races`).
2. Otherwise the leader pauses at the end of the iteration under way, with bound ``B`` and
   ``N`` nodes generated in all.  Every *rival* searches its own iterations up to ``B``, each
   stopped as soon as it has generated more than ``MARGIN * N`` (it would lose); the rivals
   run on ``jobs`` threads at once.
3. The rival that generated the fewest nodes up to ``B``, if that is at most ``MARGIN * N``,
   else the leader, searches on from the largest bound any entrant proved: every iteration
   up to ``B`` failed under an admissible heuristic, so none of them can hold a shorter
   solution.

Node counts decide, never the clock, so a board picks the same database in any process.  (With
``jobs`` > 1 a parallel iteration counts a few more nodes than a serial one -- the work units'
roots -- so only a near tie could go the other way on another number of threads.)  Every node
of the race is counted in the answer.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace

from .driver import Progress, SearchResult, search
from .plans import Plan
from .walk import Limits

# Nodes the leader generates before a race (it finishes the iteration under way: 2-20 M
# nodes on the 24-puzzle, a fraction of a second).  Each rival costs at most MARGIN times as
# many again, a few per cent of a search of 10^8 nodes; the ratios between cuts are already
# as they will stay (within 15 % on Korf & Taylor's ten).  With 16 M the race cost a search
# of 3 * 10^8 nodes as much again (Korf & Felner #32: 47 s against 23 s).
RACE_AFTER = 2_000_000
# A rival takes over only if it needed at most this share of the leader's nodes.  The ratio
# between two cuts drifts as the bound grows (by up to a third over the last few iterations
# on Korf & Taylor's ten), so a smaller lead predicts nothing: KT #4's 7 % went the other way
# (5.26 G nodes against the leader's 4.65 G).  It also stops each rival sooner.
MARGIN = 0.8


def most_to_win(leader_nodes: int) -> int:
    """The most nodes a rival may need to the race's bound and still take over."""
    return int(MARGIN * leader_nodes)


@dataclass
class Entrant:
    """A database in the race: its ``plan`` and the start board in the plan's frame."""

    plan: Plan
    tiles: tuple


@dataclass
class Race:
    """How a race went: the ``bound`` every entrant searched to, each entrant's nodes up to it
    (None: it stopped once it could not win) and the index of the winner."""

    bound: int
    nodes: list = field(default_factory=list)
    winner: int = 0

    def summary(self, names: list[str]) -> str:
        """One line for people: who won, against whom, at which bound, with what nodes."""
        over = f"over {most_to_win(self.nodes[0]):,}"
        shown = [
            f"{name}: {over if n is None else format(n, ',')}" for name, n in zip(names, self.nodes)
        ]
        return f"raced to bound {self.bound}, {names[self.winner]} won ({'; '.join(shown)})"


def solve(
    entrants: list[Entrant],
    *,
    timeout: float | None = None,
    max_nodes: int | None = None,
    jobs: int = 1,
    progress=None,
    fsm_depth: int | None = None,
) -> tuple[SearchResult, int, Race | None]:
    """Search with the entrant a race picks: ``(result, winner's index, race)``; the race is
    None when the leader finished (or hit a limit) before one was needed.  Limits count the
    whole search, race included."""
    t0 = time.perf_counter()
    deadline = None if timeout is None else t0 + timeout
    common = dict(fsm_depth=fsm_depth)
    lead = search(
        entrants[0].plan,
        entrants[0].tiles,
        timeout=timeout,
        max_nodes=max_nodes,
        jobs=jobs,
        progress=progress,
        pause_after=RACE_AFTER if len(entrants) > 1 else None,  # alone: nothing to race
        **common,
    )
    if lead.paused is None:
        return lead, 0, None
    race = Race(lead.paused, [lead.generated])
    results = [lead] + _rivals(entrants[1:], lead, deadline, max_nodes, jobs, common)
    best = most_to_win(lead.generated)
    for i, res in enumerate(results[1:], 1):
        race.nodes.append(None if res.paused is None else res.generated)
        if res.paused is not None and res.generated <= best:
            race.winner, best = i, res.generated - 1
    spent = sum(r.generated for r in results)
    stopped = Limits(timeout, max_nodes, deadline).reason(spent, time.perf_counter())
    if stopped:
        return _total(replace(lead, stopped=stopped), results[1:], t0), 0, race
    start = max(r.lower_bound for r in results if r.paused is not None)
    winner = entrants[race.winner]
    rest = search(
        winner.plan,
        winner.tiles,
        timeout=None if deadline is None else deadline - time.perf_counter(),
        max_nodes=None if max_nodes is None else max_nodes - spent,
        jobs=jobs,
        progress=_carried(progress, lead.iterations, spent, t0),
        start_bound=start,
        **common,
    )
    return _total(rest, results, t0, lead.iterations), race.winner, race


def _rivals(entrants, lead: SearchResult, deadline, max_nodes, jobs: int, common) -> list:
    """Each rival's search up to the leader's bound, stopped once it passes ``MARGIN`` times
    the leader's nodes; ``jobs`` at a time (the kernels release the GIL)."""
    cap = most_to_win(lead.generated) + 1  # it cannot win once it has spent this many
    if max_nodes is not None:
        cap = min(cap, max(1, max_nodes - lead.generated))

    def run(entrant: Entrant) -> SearchResult:
        left = None if deadline is None else max(0.0, deadline - time.perf_counter())
        return search(
            entrant.plan,
            entrant.tiles,
            timeout=left,
            max_nodes=cap,
            stop_bound=lead.paused,
            **common,
        )

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as threads:
        return list(threads.map(run, entrants))


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
