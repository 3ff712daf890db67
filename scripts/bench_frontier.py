#!/usr/bin/env python
"""What A*+IDA*'s frontier (Bu & Korf 2019) would give npuzzle's IDA*: the last iteration's
nodes when the frontier is taken in another order, and the duplicates a stored frontier holds.

A*+IDA* stores the nodes of the top of the tree (A* until memory is full), drops the
duplicates among them, and runs IDA* below each one, those of equal f smallest h first, so the
last iteration meets a solution early.  npuzzle's IDA* already enters every node's children
smallest h first and prunes duplicate move strings of up to 14 moves with its machine
(docs/research/search.md, section 1).  This script measures what is left to gain, per board:

* **order**: the last iteration is cut into work units at a frontier of about ``--units``
  nodes (``solver.search.units.split``); every unit is searched to the end within the last
  bound (and within the bound before, for its size there), and the nodes the last iteration
  would take up to its first solution are added up for each order: ``serial`` (npuzzle's),
  ``h`` (smallest h first: all units have the same g, so this is A*+IDA*'s f-then-h order),
  and ``h, larger before`` (smallest h, then the units largest in the iteration before).
* **duplicates**: the frontier of about ``--dup-units`` nodes within the optimal length,
  and how many of its nodes are the same board as one before them.

    python scripts/bench_frontier.py                          # Korf's 100 with 7-8 (first 100)
    python scripts/bench_frontier.py --workload kf24 --ids 25,32,38,40 --units 64
    python scripts/bench_frontier.py --workload kf24 --ids 40 --dup-units 1000000

Node counts are exact and do not depend on the machine; every search is one thread.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from solver import api  # noqa: E402
from solver.core.board import Board, Shape, preset_goal  # noqa: E402
from solver.search import units as U  # noqa: E402
from solver.search import walk_state as K  # noqa: E402
from solver.search.walk import READY, Walk  # noqa: E402

WORKLOADS = {  # name -> (file, shape)
    "korf100": (ROOT / "data" / "korf100.txt", "4x4"),
    "hard80": (ROOT / "data" / "hardest80.txt", "4x4"),
    "kf24": (ROOT / "data" / "korf-felner-24.txt", "5x5"),
}
ORDERS = ("serial", "h", "h, larger before")


def boards(workload: str, ids: set[str] | None, limit: int) -> list[tuple[str, str, int]]:
    """(id, tiles, optimal length) of the workload's boards (blank-first goal)."""
    path, _ = WORKLOADS[workload]
    rows = [line.split("\t") for line in path.read_text().splitlines() if line[:1].isdigit()]
    rows = [r for r in rows if ids is None or r[0] in ids][:limit]
    return [(r[0], r[1], int(r[2])) for r in rows]


def last_bound(problem) -> int:
    """The bound of the iteration that finds a solution, by a serial search."""
    bound, walk = problem.first_bound(), Walk(problem)
    while True:
        status = walk.enter((), bound)
        while status in (READY, K.BUDGET_SPENT):
            status = walk.run(1 << 30)
        if status == K.FOUND:
            return bound
        bound = problem.next_bound(walk.next_f)


def unit_h(problem, walk: Walk, unit: U.WorkUnit, bound: int) -> tuple[int, bytes]:
    """The heuristic value of a unit's root and its board (as bytes, for duplicates)."""
    path = problem.path_of(unit.moves)
    walk.enter(path, bound)
    return int(walk.stack.h[len(path)].max()), walk.tiles.tobytes()


def last_iteration(problem, units: int) -> dict[str, int] | None:
    """The last iteration's nodes up to its first solution in each of :data:`ORDERS`; None
    when the top of the tree holds the solution (no units)."""
    bound = last_bound(problem)
    sp = U.split(problem, bound, units)
    if not sp.units:
        return None
    walk, recs = Walk(problem), []
    for unit in sp.units:
        h, _ = unit_h(problem, walk, unit, bound)
        now = U.run_unit(problem, unit, bound)
        before = U.run_unit(problem, unit, bound - 2)
        recs.append((h, now.generated, now.moves is not None, before.generated))
    keys = {
        "serial": lambda i: i,
        "h": lambda i: (recs[i][0], i),
        "h, larger before": lambda i: (recs[i][0], -recs[i][3], i),
    }
    out = {}
    for name in ORDERS:
        total = 0
        for i in sorted(range(len(recs)), key=keys[name]):
            total += recs[i][1]
            if recs[i][2]:
                break
        out[name] = total
    out["whole"] = sum(r[1] for r in recs)
    out["units"] = len(recs)
    return out


def duplicates(problem, bound: int, units: int) -> str:
    """How many nodes of the frontier at ``bound`` repeat an earlier node's board."""
    sp = U.split(problem, bound, units)
    if sp.moves is not None:
        return "(solved above the frontier)"
    walk, seen, dups = Walk(problem), set(), 0
    for unit in sp.units:
        _, key = unit_h(problem, walk, unit, bound)
        dups += key in seen
        seen.add(key)
    return f"{dups:,} of {len(sp.units):,} at depth {sp.depth}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workload", choices=sorted(WORKLOADS), default="korf100")
    ap.add_argument("--ids", help="board ids, comma-separated (default: all)")
    ap.add_argument("--limit", type=int, default=100, help="at most this many boards")
    ap.add_argument("--units", type=int, default=64, help="frontier size for the orders")
    ap.add_argument("--dup-units", type=int, default=0, help="frontier size for duplicates")
    ap.add_argument("--partition", help="database (default: the catalog's choice)")
    a = ap.parse_args()
    _, shape = WORKLOADS[a.workload]
    goal = preset_goal(Shape.parse(shape), "blank-first")
    opts = api.SearchOptions(pick=False, partition=a.partition)
    ids = set(a.ids.split(",")) if a.ids else None
    sums = dict.fromkeys((*ORDERS, "whole"), 0)
    cols = " | ".join(ORDERS)
    print(f"| board | units | {cols} | whole iteration | frontier duplicates |")
    print("|---|---:|" + "---:|" * (len(ORDERS) + 2))
    for key, tiles, optimal in boards(a.workload, ids, a.limit):
        t = time.perf_counter()
        problem, _ = U.prepare(Board.parse(tiles, shape=Shape.parse(shape)), goal, opts)
        res = last_iteration(problem, a.units)
        dup = duplicates(problem, optimal, a.dup_units) if a.dup_units else ""
        if res is None:
            print(f"| {key} | 0 | (solved above the frontier) |||| {dup} |")
            continue
        for k in sums:
            sums[k] += res[k]
        cells = " | ".join(f"{res[o]:,}" for o in ORDERS)
        print(f"| {key} | {res['units']} | {cells} | {res['whole']:,} | {dup} |", flush=True)
        print(f"  ({time.perf_counter() - t:.1f} s)", file=sys.stderr)
    cells = " | ".join(f"**{sums[o]:,}**" for o in ORDERS)
    print(f"| all | | {cells} | {sums['whole']:,} | |")


if __name__ == "__main__":
    main()
