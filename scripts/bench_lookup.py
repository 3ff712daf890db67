#!/usr/bin/env python
"""Benchmark the exact tables: build time, one `npuzzle distance` from the shell against the
bare cost of starting Python with numpy and h5py, and vectorised lookups per second.

    python scripts/bench_lookup.py [--data-dir DIR] [--repeat 15]

Prints a table; re-run it at will.  The tables are built into a temporary directory unless
--data-dir is given.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def wall(cmd: list[str], repeat: int) -> float:
    """Median wall-clock seconds of running ``cmd``."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", type=Path, default=None)
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--boards", type=int, default=2_000_000)
    args = ap.parse_args()
    data = args.data_dir or Path(tempfile.mkdtemp(prefix="npuzzle-bench-"))

    from pdb_builder.build import build_exact
    from solver.core.board import Shape, goal_board
    from solver.tables import exact

    rows = []
    for shape in ("2x3", "3x3"):
        build_exact(Shape.parse(shape), data, force=True, progress=False)  # compile once
        t0 = time.perf_counter()
        build_exact(Shape.parse(shape), data, force=True, progress=False)
        rows.append((f"build exact {shape} (all goal blank cells)", time.perf_counter() - t0, "s"))

    py = sys.executable
    bare = wall([py, "-c", "import numpy, h5py"], args.repeat)
    python_only = wall([py, "-c", "pass"], args.repeat)
    one = wall(
        [py, "-m", "solver", "distance", "8 6 7 2 5 4 3 0 1", "--data-dir", str(data)], args.repeat
    )
    rows += [
        ("python -c pass", python_only, "s"),
        ("python -c 'import numpy, h5py'", bare, "s"),
        ("npuzzle distance <3x3 board> (one process)", one, "s"),
        ("  ratio to python+numpy+h5py", one / bare, "x"),
    ]

    rng = np.random.default_rng(0)
    boards = rng.permuted(np.tile(np.arange(9), (args.boards, 1)), axis=1)
    goal = goal_board("3x3")
    exact.distances(boards[:10], goal, data)  # open and map the file
    t0 = time.perf_counter()
    d = exact.distances(boards, goal, data)
    dt = time.perf_counter() - t0
    rows.append(
        (f"vectorised exact.distances, {args.boards:,} 3x3 boards", args.boards / dt, "boards/s")
    )
    assert (d >= 0).sum() > 0.45 * args.boards

    width = max(len(r[0]) for r in rows)
    print(f"{'measurement'.ljust(width)}  {'value':>14}  unit")
    for name, value, unit in rows:
        shown = f"{value:,.0f}" if value >= 1000 else f"{value:.3f}"
        print(f"{name.ljust(width)}  {shown:>14}  {unit}")


if __name__ == "__main__":
    main()
