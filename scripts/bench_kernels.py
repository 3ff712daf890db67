#!/usr/bin/env python3
"""The compiled kernels against numba's JIT: the same searches, one thread, node for node.

Solves a reference set (Korf's 100, the 80-move positions, or any batch file with a
``tiles`` column) as one batch on one thread, once per round with each implementation
(``NPUZZLE_KERNELS=native`` and ``=jit``, alternating, each a fresh process after a warm-up
that fills numba's cache), and prints the search's seconds (``search_seconds``, summed), the
nodes generated and the time a node, with the ratio native / JIT.  Every board's node count
and length must be the same through both: the script says so, or stops on the first that is
not.

    python scripts/bench_kernels.py --set korf100 --rounds 3
    python scripts/bench_kernels.py --set hardest80 --rounds 1
    python scripts/bench_kernels.py --set korf-taylor --ids 2 --rounds 1 --no-warm-up

Korf & Taylor's 24-puzzles need the 5x5 databases (``build-pdb --shape 5x5 --zero-aware``);
``--ids`` keeps the boards of those ids (the first column), and ``--no-warm-up`` skips the
warm-up where only the node counts are wanted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SETS = {
    "korf100": ROOT / "data" / "korf100.txt",
    "hardest80": ROOT / "data" / "hardest80.txt",
    "korf-taylor": ROOT / "data" / "korf-taylor-24.txt",
}
KINDS = ("native", "jit")


def _solve(kind: str, boards: Path, extra: list[str]) -> list[dict]:
    env = {**os.environ, "NPUZZLE_KERNELS": kind}
    cmd = [sys.executable, "-m", "solver", "--quiet", "solve", "-", "--goal", "blank-first"]
    cmd += ["--jobs", "1", "--json", *extra]
    with boards.open("rb") as stdin:
        out = subprocess.run(cmd, stdin=stdin, capture_output=True, env=env, check=True)
    return [json.loads(line) for line in out.stdout.splitlines()]


def _chosen(boards: Path, ids: list[str], into: Path) -> Path:
    """The batch file with only the boards whose first column is one of ``ids`` (comment
    lines, the header among them, kept)."""
    lines = boards.read_text().splitlines(keepends=True)
    kept = [ln for ln in lines if ln.startswith("#") or ln.split("\t", 1)[0] in ids]
    into.write_text("".join(kept))
    return into


def _totals(records: list[dict]) -> tuple[float, int]:
    return sum(r["search_seconds"] for r in records), sum(r["nodes_generated"] for r in records)


def _same(a: list[dict], b: list[dict]) -> None:
    for x, y in zip(a, b, strict=True):
        key = ("length", "nodes_generated", "nodes_expanded", "iterations")
        if tuple(x[k] for k in key) != tuple(y[k] for k in key):
            sys.exit(f"line {x['line']}: native {[x[k] for k in key]} != jit {[y[k] for k in key]}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--set", choices=sorted(SETS), default="korf100")
    ap.add_argument("--rounds", type=int, default=3, help="rounds of both (median; default 3)")
    ap.add_argument("--data-dir", help="the databases (default: npuzzle's data directory)")
    ap.add_argument("--ids", help="only these boards, by the first column (e.g. 2 or 1,2)")
    ap.add_argument("--no-warm-up", action="store_true", help="time the first runs too")
    args = ap.parse_args()
    extra = ["--data-dir", args.data_dir] if args.data_dir else []
    with tempfile.TemporaryDirectory() as tmp:
        boards = SETS[args.set]
        if args.ids:
            boards = _chosen(boards, args.ids.split(","), Path(tmp) / boards.name)
        _compare(args, boards, extra)


def _compare(args: argparse.Namespace, boards: Path, extra: list[str]) -> None:
    if not args.no_warm_up:
        for kind in KINDS:  # warm-up: numba's cache filled, the tables in the page cache
            _solve(kind, boards, extra)
    seconds: dict = {k: [] for k in KINDS}
    first: dict = {}
    for r in range(args.rounds):
        for kind in KINDS if r % 2 == 0 else reversed(KINDS):
            records = _solve(kind, boards, extra)
            first.setdefault(kind, records)
            secs, nodes = _totals(records)
            seconds[kind].append(secs)
            print(f"round {r + 1} {kind}: {secs:.3f} s, {nodes:,} nodes", file=sys.stderr)
    _same(first["native"], first["jit"])
    nodes = _totals(first["native"])[1]
    med = {k: statistics.median(v) for k, v in seconds.items()}
    print(f"{args.set}, one thread, {len(first['native'])} boards, {args.rounds} rounds (median)")
    print("| kernels | search s | nodes generated | ns a node |")
    print("|---|---:|---:|---:|")
    for kind in KINDS:
        print(f"| {kind} | {med[kind]:.3f} | {nodes:,} | {1e9 * med[kind] / nodes:.2f} |")
    print(f"native / jit: {med['native'] / med['jit']:.3f}; node counts identical on every board")


if __name__ == "__main__":
    main()
