#!/usr/bin/env python
"""Every core on one puzzle: IDA* on 1 thread against N threads (``--jobs``), board by board.

    python scripts/bench_parallel.py                          # the 17 80-move boards, 7-8 + reflection
    python scripts/bench_parallel.py --boards data/korf100.txt --partition 6-6-3
    python scripts/bench_parallel.py --jobs 1,2 --runs 3      # best of 3 per board and job count
    python scripts/bench_parallel.py --processes              # also: the units on a process pool
    python scripts/bench_parallel.py --simulate 4,8,16        # what more cores should give

Prints one row per board (search seconds, nodes, speed-up, extra nodes of the parallel run)
and the totals, with the load average before and after: the machine may be shared, and a
speed-up measured on busy cores means little.  Lengths are checked against the file and
between the job counts.  ``--processes`` also runs the pure-data unit protocol
(solver.search.units.search_units) on a fork pool -- no early stop, no work sharing -- the
design the threads were chosen over.  ``--simulate`` replays each search unit by unit on one
core and schedules the units on N idealised workers (each takes the next unit in order; the last
iteration stops when the solution's unit reaches it; no work sharing, no memory contention): the
speed-up in nodes that N cores could reach with the same split.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from solver import api  # noqa: E402
from solver.api import SearchOptions  # noqa: E402
from solver.core.board import Board, Shape, goal_board  # noqa: E402
from solver.search import driver, units  # noqa: E402

SHAPE = Shape(4, 4)


def read_boards(path: Path) -> list[tuple[str, str, int]]:
    """(id, tiles for the blank-first goal, optimal length) of a tab-separated file."""
    rows = []
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            f = line.split("\t")
            rows.append((f[0], f[1], int(f[2])))
    return rows


def load() -> str:
    """The 1, 5 and 15 minute load averages."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def solve(tiles: str, goal: Board, opts: SearchOptions, runs: int) -> dict:
    """The best of ``runs`` solves: search seconds, nodes, units, length."""
    best = None
    for _ in range(runs):
        t = time.perf_counter()
        cpu = time.process_time()
        sol = api.solve_idastar(Board.parse(tiles), goal, opts).check()
        row = {
            "s": sol.extra["search_seconds"],
            "wall": time.perf_counter() - t,
            "cpu": time.process_time() - cpu,
            "nodes": sol.nodes_generated,
            "units": sol.extra["work_units"],
            "length": sol.length,
        }
        if best is None or row["s"] < best["s"]:
            best = row
    return best


def with_processes(tiles: str, goal: Board, opts: SearchOptions, pool) -> dict:
    t = time.perf_counter()
    request = api.search_request(Board.parse(tiles), goal, opts)
    moves, nodes, count = units.search_units(request, mapper=pool.map, want=64)
    return {"s": time.perf_counter() - t, "nodes": nodes, "units": count, "length": len(moves)}


def simulate(tiles: str, goal: Board, opts: SearchOptions, jobs: int) -> tuple[int, int]:
    """(span, nodes) of ``jobs`` idealised workers running the units of every iteration in
    order: the nodes the slowest worker generated (the split counted in full) and the nodes of
    all; see the module docstring."""
    problem, _ = units.prepare(api.search_request(Board.parse(tiles), goal, opts))
    bound, parallel_span, parallel_nodes, depth = problem.first_bound(), 0, 0, 1
    while True:
        sp = units.split(problem, bound, 32 * jobs, depth)
        depth = sp.depth if len(sp.units) >= 32 * jobs else depth
        free = [0] * jobs  # when each worker is free, in nodes since the iteration began
        parallel_nodes += sp.generated
        parallel_span += sp.generated  # the split runs before the workers start
        stop, nxt, done = None, sp.next_f, sp.moves is not None
        for unit in sp.units:
            w = min(range(jobs), key=free.__getitem__)
            start = free[w]
            if stop is not None and start >= stop:
                break
            cap = None if stop is None else stop - start
            r = units.run_unit(
                problem,
                unit,
                bound,
                slice_nodes=1024,
                between=None if cap is None else (lambda wk, c=cap: wk.generated < c),
            )
            free[w] = start + r.generated
            parallel_nodes += r.generated
            nxt = min(nxt, r.next_f)
            if r.moves is not None and stop is None:
                stop, done = free[w], True
        span = max(free) if stop is None else stop
        parallel_span += span
        if done:
            return parallel_span, parallel_nodes
        bound = problem.next_bound(nxt)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--boards", type=Path, default=ROOT / "data" / "hardest80.txt")
    ap.add_argument("--partition", default="7-8")
    ap.add_argument("--no-reflect", action="store_true")
    ap.add_argument("--jobs", default="1,2", help="job counts to compare, the first is the base")
    ap.add_argument("--runs", type=int, default=1, help="best of N per board and job count")
    ap.add_argument("--instances", default=None, help="e.g. 1-5 (1-based rows of the file)")
    ap.add_argument("--data-dir", type=Path, default=None)
    ap.add_argument(
        "--processes",
        action="store_true",
        help="also run the units on a process pool of the largest job count",
    )
    ap.add_argument(
        "--parallel-after",
        type=float,
        default=None,
        help="seconds an iteration takes before the next goes parallel (default: "
        "solver.search.driver.PARALLEL_AFTER)",
    )
    ap.add_argument(
        "--simulate",
        default=None,
        help="job counts to simulate instead of measuring, e.g. 2,4,8,16",
    )
    args = ap.parse_args(argv)

    if args.parallel_after is not None:
        driver.PARALLEL_AFTER = args.parallel_after
    rows = read_boards(args.boards)
    if args.instances:
        a, _, b = args.instances.partition("-")
        rows = rows[int(a) - 1 : int(b or a)]
    jobs = [int(j) for j in args.jobs.split(",")]
    goal = goal_board(SHAPE, "blank-first")
    base = SearchOptions(
        algorithm="idastar",
        heuristic="pdb",
        partition=args.partition,
        reflect=not args.no_reflect,
        data_dir=args.data_dir,
    )
    api.solve_idastar(Board.parse(rows[0][1]), goal, base)  # map the tables, load the kernels
    if args.simulate:
        return print_simulation(rows, goal, base, [int(j) for j in args.simulate.split(",")])
    before = load()
    print(f"load average before: {before}  (cores: {os.cpu_count()})", file=sys.stderr)
    results = {j: [] for j in jobs}
    procs = []
    pool = None
    if args.processes:
        pool = multiprocessing.get_context("fork").Pool(max(jobs))
    for ident, tiles, length in rows:
        for j in jobs:
            r = solve(tiles, goal, replace(base, jobs=j), args.runs)
            if r["length"] != length:
                print(
                    f"WRONG length {r['length']} for board {ident} with {j} jobs (want {length})",
                    file=sys.stderr,
                )
                return 1
            results[j].append(r)
        if pool is not None:
            procs.append(with_processes(tiles, goal, base, pool))
        one = results[jobs[0]][-1]
        line = "  ".join(f"{j} jobs {results[j][-1]['s']:7.3f} s" for j in jobs)
        print(
            f"  board {ident:>3} ({length} moves): {line}  nodes {one['nodes']:,}",
            file=sys.stderr,
            flush=True,
        )
    if pool is not None:
        pool.close()
    after = load()

    base_j = jobs[0]
    head = f"| board | length | {base_j} job s | nodes |"
    for j in jobs[1:]:
        head += f" {j} jobs s | nodes | units | speed-up | extra nodes |"
    if procs:
        head += f" {max(jobs)} processes s | speed-up |"
    print(
        f"\n{args.boards.name}, {args.partition}{'' if args.no_reflect else ' + reflection'}"
        f", best of {args.runs}, parallel after {driver.PARALLEL_AFTER:g} s; load average "
        f"before {before}, after {after}\n"
    )
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    n = len(rows)
    for i, (ident, _, length) in enumerate(rows if n <= 20 else []):  # totals only for more
        one = results[base_j][i]
        cells = [ident, str(length), f"{one['s']:.3f}", f"{one['nodes']:,}"]
        for j in jobs[1:]:
            r = results[j][i]
            cells += [
                f"{r['s']:.3f}",
                f"{r['nodes']:,}",
                str(r["units"]),
                f"{one['s'] / r['s']:.2f}x",
                f"{100 * (r['nodes'] / one['nodes'] - 1):+.1f} %",
            ]
        if procs:
            cells += [f"{procs[i]['s']:.3f}", f"{one['s'] / procs[i]['s']:.2f}x"]
        print("| " + " | ".join(cells) + " |")
    tot = {j: (sum(r["s"] for r in results[j]), sum(r["nodes"] for r in results[j])) for j in jobs}
    cells = ["all", f"{n} boards", f"{tot[base_j][0]:.3f}", f"{tot[base_j][1]:,}"]
    for j in jobs[1:]:
        cells += [
            f"{tot[j][0]:.3f}",
            f"{tot[j][1]:,}",
            str(sum(r["units"] for r in results[j])),
            f"{tot[base_j][0] / tot[j][0]:.2f}x",
            f"{100 * (tot[j][1] / tot[base_j][1] - 1):+.1f} %",
        ]
    if procs:
        ps = sum(p["s"] for p in procs)
        cells += [f"{ps:.3f}", f"{tot[base_j][0] / ps:.2f}x"]
    print("| " + " | ".join(f"**{c}**" for c in cells) + " |")
    return 0


def print_simulation(rows, goal, base, jobs_list) -> int:
    print(
        "| board | "
        + " | ".join(f"{j} jobs: speed-up (nodes) | extra nodes" for j in jobs_list)
        + " |"
    )
    print("|" + "---|" * (1 + 2 * len(jobs_list)))
    totals = {j: [0, 0, 0] for j in jobs_list}
    for ident, tiles, _ in rows:
        cells = [ident]
        one = api.solve_idastar(Board.parse(tiles), goal, base).nodes_generated
        for j in jobs_list:
            span, nodes = simulate(tiles, goal, base, j)
            totals[j][0] += span
            totals[j][1] += nodes
            totals[j][2] += one
            cells += [f"{one / span:.2f}x", f"{100 * (nodes / one - 1):+.1f} %"]
        print("| " + " | ".join(cells) + " |", flush=True)
    cells = ["**all**"]
    for j in jobs_list:
        span, nodes, one = totals[j]
        cells += [f"**{one / span:.2f}x**", f"**{100 * (nodes / one - 1):+.1f} %**"]
    print("| " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
