#!/usr/bin/env python
"""Korf & Taylor's ten 24-puzzle instances: optimal IDA* with the 6-6-6-6 database (capped per
instance), bounded-suboptimal weighted IDA* (``--weight``, where the search has it) and the quick
line-by-line method (``--algorithm fast``); per instance the length found, whether it is optimal, nodes,
seconds and the node rate, and the bound reached when a cap stopped the search.

    python scripts/bench_24puzzle.py --data-dir DIR                         # all three modes
    python scripts/bench_24puzzle.py --modes optimal --instances 2,8 --cap 1800 --jobs 2
    python scripts/bench_24puzzle.py --modes optimal --instances 2 --cap 1800 --threads 2
    python scripts/bench_24puzzle.py --modes fast --fast-shapes 5x5,8x8,10x10,16x16

The instances are stated for Korf's blank-first goal; npuzzle's 6-6-6-6 database is built for
its blank-last goal, so each instance is searched as its 180-degree rotation, exactly as
``npuzzle solve --goal blank-first`` does.  Caps are wall-clock: on a busy machine say so
(the load average is printed with the table).  Each row is printed as soon as it is known, so a
long run under ``nohup`` shows its progress in its log.
"""

from __future__ import annotations

import argparse
import csv
import multiprocessing
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from solver import api  # noqa: E402
from solver.core.board import Board, Shape, goal_board, solvability  # noqa: E402
from solver.core.solution import SearchLimitReached  # noqa: E402

INSTANCES = ROOT / "data" / "korf-taylor-24.txt"
SHAPE = Shape(5, 5)
GOAL = "blank-first"
FIELDS = [
    "mode",
    "id",
    "optimal_length",
    "length",
    "optimal",
    "ratio",
    "status",
    "bound",
    "nodes",
    "seconds",
    "cpu_seconds",
    "nodes_per_s",
    "heuristic",
]


def read_instances(path: Path = INSTANCES) -> list[dict]:
    """The instances: id, tiles (blank-first goal), optimal length."""
    rows = []
    for line in path.read_text().splitlines():
        if line and line[0].isdigit():
            f = line.split("\t")
            rows.append({"id": int(f[0]), "tiles": f[1], "optimal": int(f[2])})
    return rows


def options(mode: str, args) -> api.SearchOptions:
    """The search options of one mode."""
    if mode == "fast":
        return api.SearchOptions(algorithm="fast")
    if mode == "weight":
        return api.SearchOptions(
            algorithm="idastar",
            heuristic="pdb",
            data_dir=args.data_dir,
            timeout=args.weight_cap,
            weight=args.weight,
            jobs=args.threads,
        )
    return api.SearchOptions(
        algorithm="idastar",
        heuristic="pdb",
        data_dir=args.data_dir,
        timeout=args.cap,
        jobs=args.threads,
    )


def run_one(job) -> dict:
    """Solve one instance in one mode; a capped search reports the bound it proved."""
    mode, inst, args = job
    opts = options(mode, args)
    row = {
        "mode": mode if mode != "weight" else f"weight {args.weight}",
        "id": inst["id"],
        "optimal_length": inst["optimal"],
    }
    c0, t0 = time.process_time(), time.perf_counter()
    try:
        sol = api.solve(inst["tiles"], GOAL, shape=SHAPE, options=opts)
        row.update(
            length=sol.length,
            status="solved",
            bound=sol.lower_bound,
            nodes=sol.nodes_generated,
            heuristic=sol.heuristic,
        )
        row["optimal"] = sol.length == inst["optimal"]
        row["ratio"] = round(sol.length / inst["optimal"], 3)
    except SearchLimitReached as e:
        p = e.partial
        row.update(
            status="cap", bound=p.lower_bound, nodes=p.nodes_generated, heuristic=p.heuristic
        )
    row["seconds"] = round(time.perf_counter() - t0, 3)
    row["cpu_seconds"] = round(time.process_time() - c0, 3)
    if row.get("nodes"):
        row["nodes_per_s"] = int(row["nodes"] / max(row["cpu_seconds"], 1e-9))
    return row


def warm(args) -> None:
    """Compile the kernel and map the database before any clock starts."""
    easy = goal_board(SHAPE, GOAL).apply("DDRR")
    api.solve(easy.flat(), GOAL, shape=SHAPE, options=options("optimal", args))


def print_row(row: dict) -> None:
    cells = [str(row.get(k, "")) if row.get(k) is not None else "" for k in FIELDS]
    print("| " + " | ".join(cells) + " |", flush=True)


def fast_shapes(shapes: str, per_shape: int, seed: int) -> None:
    """--algorithm fast on random boards of larger shapes: length and seconds (replay included)."""
    rng = random.Random(seed)
    print(
        "\n--algorithm fast on uniformly random solvable boards (seconds include the replay check):\n"
    )
    print("| shape | boards | mean length | max s | mean s |\n|---|---|---|---|---|")
    for text in shapes.split(","):
        shape = Shape.parse(text)
        goal = goal_board(shape)
        lengths, secs = [], []
        for _ in range(per_shape):
            while True:
                tiles = list(range(shape.size))
                rng.shuffle(tiles)
                board = Board(shape, tuple(tiles))
                if solvability(board, goal).solvable:
                    break
            t0 = time.perf_counter()
            sol = api.solve(board.flat(), None, shape=shape, algorithm="fast")
            secs.append(time.perf_counter() - t0)
            lengths.append(sol.length)
        print(
            f"| {shape} | {per_shape} | {statistics.mean(lengths):.0f} | {max(secs):.3f} | "
            f"{statistics.mean(secs):.3f} |",
            flush=True,
        )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--modes", default="optimal,weight,fast", help="comma-separated: optimal, weight, fast"
    )
    ap.add_argument("--instances", default="1-10", help="e.g. 1-10 or 2,6,8 (Korf-Taylor ids)")
    ap.add_argument("--cap", type=float, default=60.0, help="seconds per optimal search")
    ap.add_argument("--weight", type=float, default=1.5)
    ap.add_argument("--weight-cap", type=float, default=60.0, help="seconds per weighted search")
    ap.add_argument("--jobs", type=int, default=1, help="instances searched at once")
    ap.add_argument(
        "--threads", type=int, default=1, help="threads sharing the iterations of one search"
    )
    ap.add_argument("--data-dir", type=Path, default=None)
    ap.add_argument("--csv", type=Path, default=ROOT / "bench-results" / "korf-taylor-24.csv")
    ap.add_argument(
        "--fast-shapes",
        default="5x5,8x8,10x10,16x16",
        help="also time --algorithm fast on random boards of these shapes ('' to skip)",
    )
    ap.add_argument("--fast-boards", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)

    wanted = set()
    for part in args.instances.split(","):
        a, _, b = part.partition("-")
        wanted.update(range(int(a), int(b or a) + 1))
    order = [int(p) for p in args.instances.split(",") if p.isdigit()]
    instances = sorted(
        (i for i in read_instances() if i["id"] in wanted),
        key=lambda i: order.index(i["id"]) if i["id"] in order else i["id"],
    )
    modes = [m for m in args.modes.split(",") if m]
    print(
        f"load average at start: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} "
        f"{os.getloadavg()[2]:.2f}; {os.cpu_count()} cores; jobs {args.jobs}, "
        f"threads {args.threads}",
        flush=True,
    )
    if set(modes) - {"fast"}:
        warm(args)
    print("\n| " + " | ".join(FIELDS) + " |\n|" + "---|" * len(FIELDS), flush=True)
    jobs = [(m, i, args) for m in modes for i in instances]
    rows = []
    if args.jobs > 1:
        with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
            for row in pool.imap(run_one, jobs):
                print_row(row)
                rows.append(row)
    else:
        for job in jobs:
            row = run_one(job)
            print_row(row)
            rows.append(row)
    print(
        f"\nload average at end: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} "
        f"{os.getloadavg()[2]:.2f}",
        flush=True,
    )
    args.csv.parent.mkdir(parents=True, exist_ok=True)
    with open(args.csv, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=FIELDS, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    if "fast" in modes and args.fast_shapes:
        fast_shapes(args.fast_shapes, args.fast_boards, args.seed)
    wrong = [
        r for r in rows if r["mode"] == "optimal" and r["status"] == "solved" and not r["optimal"]
    ]
    if wrong:
        print(f"WRONG optimal lengths: {[r['id'] for r in wrong]}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
