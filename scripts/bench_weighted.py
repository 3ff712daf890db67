#!/usr/bin/env python
"""Bounded-suboptimal IDA* (``--weight W``, solver/search/weights.py) at several weights --
seconds, nodes, and how much longer than optimal the answers are.

    python scripts/bench_weighted.py                                   # 17 80-move boards, 7-8
    python scripts/bench_weighted.py --boards data/korf100.txt --partition 6-6-3
    python scripts/bench_weighted.py --boards korf-taylor-24.txt --shape 5x5 --data-dir DIR \\
        --weights 1.5 --timeout 60                                      # the 24-puzzle

The boards file is tab-separated: id, tiles for the blank-first goal, optimal length.  A board
that hits ``--timeout`` counts its seconds and is reported as capped.  Every answer is replayed
and checked to be within W times the optimal length.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from solver import api  # noqa: E402
from solver.api import SearchOptions  # noqa: E402
from solver.core.board import Board, Shape, goal_board  # noqa: E402
from solver.core.solution import SearchLimitReached  # noqa: E402
from solver.search import weights  # noqa: E402


def read_boards(path: Path) -> list[tuple[str, str, int]]:
    rows = []
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            f = line.split("\t")
            rows.append((f[0], f[1], int(f[2])))
    return rows


def run(rows, goal, opts, weight: str) -> dict:
    out = {"s": 0.0, "nodes": 0, "ratios": [], "capped": 0, "iterations": 0}
    for ident, tiles, optimal in rows:
        t = time.perf_counter()
        try:
            sol = api.solve_idastar(Board.parse(tiles, goal.shape), goal, opts).check()
        except SearchLimitReached as e:
            out["capped"] += 1
            out["nodes"] += e.partial.nodes_generated
            out["s"] += time.perf_counter() - t
            continue
        out["s"] += time.perf_counter() - t
        out["nodes"] += sol.nodes_generated
        out["iterations"] += sol.iterations
        ratio = sol.length / optimal
        if ratio > float(weights.parse_weight(weight)) + 1e-9:
            raise SystemExit(f"board {ident}: {sol.length} moves is more than {weight} x {optimal}")
        out["ratios"].append(ratio)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--boards", type=Path, default=ROOT / "data" / "hardest80.txt")
    ap.add_argument("--shape", default="4x4")
    ap.add_argument("--partition", default=None, help="default: the strongest built")
    ap.add_argument("--data-dir", type=Path, default=None)
    ap.add_argument("--weights", default="1.2,1.5,2")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per board")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--instances", default=None, help="e.g. 1-5 (1-based rows of the file)")
    args = ap.parse_args(argv)

    rows = read_boards(args.boards)
    if args.instances:
        a, _, b = args.instances.partition("-")
        rows = rows[int(a) - 1 : int(b or a)]
    shape = Shape.parse(args.shape)
    goal = goal_board(shape, "blank-first")
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"{args.boards.name} ({len(rows)} boards, {shape}), timeout {args.timeout:g} s per "
        f"board, {args.jobs} job(s); load average {load}\n"
    )
    print("| W | solved | search s | nodes | iterations | mean length / optimal | worst |")
    print("|---|---|---|---|---|---|---|")
    for weight in args.weights.split(","):
        opts = SearchOptions(
            algorithm="idastar",
            heuristic="pdb",
            partition=args.partition,
            data_dir=args.data_dir,
            weight=weight,
            timeout=args.timeout,
            jobs=args.jobs,
        )
        api.solve_idastar(Board.parse(rows[0][1], shape), goal, opts)  # warm up
        r = run(rows, goal, opts, weight)
        solved = len(rows) - r["capped"]
        mean = sum(r["ratios"]) / len(r["ratios"]) if r["ratios"] else float("nan")
        worst = max(r["ratios"], default=float("nan"))
        print(
            f"| {weight} | {solved}/{len(rows)} | {r['s']:.2f} | "
            f"{r['nodes']:,} | {r['iterations']} | {mean:.3f} | {worst:.3f} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
