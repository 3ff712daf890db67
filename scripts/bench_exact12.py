#!/usr/bin/env python
"""Benchmark the compact exact tables of 12-cell boards (3x4, 2x6) beside the 8-puzzle's.

For each shape: build its default table (one process, so the peak memory is the build's own),
check the counts at every distance against the published ones (the committed
``solver/workloads/reference/distances-<shape>.txt``: OEIS A090166 for 3x4, A090167 for 2x6),
then time the vectorised lookup (``exact.distances`` on a million uniformly random boards), an
optimal solution walked down the table, and one ``npuzzle distance`` from the shell.

    python scripts/bench_exact12.py                      # 3x4 and 2x6 into a temporary dir
    python scripts/bench_exact12.py --shape 3x4 --data-dir data   # reuse/build in data/

Prints a table; exits 1 when a table's counts differ from the published ones.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from solver.core.board import Board, Shape, goal_board  # noqa: E402
from solver.tables import exact, names  # noqa: E402
from solver.workloads.distributions import reference_counts  # noqa: E402
from solver.workloads.generate import shuffled  # noqa: E402


def build(shape: Shape, data_dir: Path, force: bool) -> dict:
    """Build in a child process; its wall time and peak RSS (from the kernel's rusage)."""
    path = data_dir / names.exact_file_name(shape)
    if path.exists() and not force:
        return {"seconds": None, "peak_mb": None, "mb": path.stat().st_size / 1e6}
    cmd = [
        sys.executable,
        "-m",
        "pdb_builder",
        "--shape",
        str(shape),
        "--data-dir",
        str(data_dir),
        "--quiet",
        "--force",
    ]
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        cmd, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(proc.pid, 0)  # the child's own peak RSS (Linux: KiB)
    peak = usage.ru_maxrss / 1024
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"build of {shape} failed ({code})")
    return {"seconds": time.perf_counter() - t0, "peak_mb": peak, "mb": path.stat().st_size / 1e6}


def lookups_per_second(shape: Shape, data_dir: Path, count: int) -> tuple[float, float]:
    """Boards a second of ``exact.distances`` on ``count`` random boards, best of three: by
    the wall clock and by this process's CPU time (which other processes on a busy machine
    disturb far less)."""
    goal = goal_board(shape)
    boards = shuffled(goal, count, np.random.default_rng(1))
    exact.distances(boards, goal, data_dir)  # open the file, fault its pages in
    wall, cpu = [], []
    for _ in range(3):
        t0, c0 = time.perf_counter(), time.process_time()
        d = exact.distances(boards, goal, data_dir)
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        assert (d >= 0).all()
    return count / min(wall), count / min(cpu)


def solve_ms(shape: Shape, data_dir: Path, count: int) -> tuple[float, float, float]:
    """Mean and max milliseconds of an optimal solution walked down the table, mean length."""
    goal = goal_board(shape)
    boards = shuffled(goal, count, np.random.default_rng(2))
    exact.optimal_moves(Board(shape, tuple(boards[0].tolist())), goal, data_dir)  # warm
    times, lengths = [], []
    for row in boards:
        start = Board(shape, tuple(row.tolist()))
        t0 = time.perf_counter()
        moves = exact.optimal_moves(start, goal, data_dir)
        times.append(time.perf_counter() - t0)
        assert start.apply(moves) == goal
        lengths.append(len(moves))
    return 1000 * statistics.mean(times), 1000 * max(times), statistics.mean(lengths)


def shell_distance(shape: Shape, data_dir: Path, runs: int) -> float:
    """Median seconds of one ``npuzzle distance`` process (warm caches)."""
    board = shuffled(goal_board(shape), 1, np.random.default_rng(3))[0]
    text = Board(shape, tuple(board.tolist())).flat()
    cmd = [
        sys.executable,
        "-m",
        "solver",
        "distance",
        text,
        "--shape",
        str(shape),
        "--data-dir",
        str(data_dir),
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run(cmd, check=True, env=env, capture_output=True)  # warm the OS caches
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, env=env, capture_output=True)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shape", action="append", help="3x4, 2x6, ... (default: both)")
    ap.add_argument("--data-dir", help="where tables are (built when missing); default: temp")
    ap.add_argument("--force", action="store_true", help="rebuild tables that exist")
    ap.add_argument("--boards", type=int, default=1_000_000)
    ap.add_argument("--solves", type=int, default=200)
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    shapes = [Shape.parse(s) for s in (args.shape or ["3x4", "2x6"])]
    data_dir = Path(args.data_dir or tempfile.mkdtemp(prefix="bench-exact12-"))
    print(f"load average before: {os.getloadavg()[0]:.2f} (2-core machine)", file=sys.stderr)
    rows, bad = [], 0
    for shape in [Shape(3, 3)] + shapes:
        b = build(shape, data_dir, args.force)
        counts = exact.count_at_distances(shape, None, data_dir)
        ref = reference_counts(shape)
        match = "-" if ref is None else ("yes" if tuple(counts) == ref.counts else "NO")
        bad += match == "NO"
        mean_ms, max_ms, length = solve_ms(shape, data_dir, args.solves)
        rows.append(
            [
                str(shape),
                f"{sum(counts):,}",
                str(len(counts) - 1),
                match,
                f"{b['mb']:.1f}",
                "-" if b["seconds"] is None else f"{b['seconds']:.1f}",
                "-" if b["peak_mb"] is None else f"{b['peak_mb']:.0f}",
                "{:.2f} M / {:.2f} M".format(
                    *(r / 1e6 for r in lookups_per_second(shape, data_dir, args.boards))
                ),
                f"{mean_ms:.2f} / {max_ms:.2f} ({length:.1f} moves)",
                f"{shell_distance(shape, data_dir, args.runs):.3f}",
            ]
        )
    head = [
        "shape",
        "states",
        "max d",
        "published",
        "file MB",
        "build s",
        "peak MB",
        "lookups/s wall/cpu",
        "solve ms mean/max",
        "shell distance s",
    ]
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
    for r in [head] + rows:
        print("  ".join(c.rjust(w) for c, w in zip(r, widths)))
    print(f"load average after: {os.getloadavg()[0]:.2f}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
