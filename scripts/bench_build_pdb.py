#!/usr/bin/env python
"""Build additive pattern databases and print what each cost: a table of partition, entries, MB,
max/mean h, seconds and peak memory.

    python scripts/bench_build_pdb.py                      # 5-5-5 and 6-6-3 into a temp dir
    python scripts/bench_build_pdb.py 7-8 --data-dir data  # the 7-8 database, kept in data/
    python scripts/bench_build_pdb.py 4-4 --shape 3x3

Each partition is built in a fresh subprocess, so its peak resident memory (getrusage) is its
own and not the largest of the run; ``--force`` rebuilds files that already exist.  "seconds"
is the build itself, "wall s" and "CPU s" the whole child process (start-up, numba cache load,
writing), "load avg" the 1-minute load average before and after -- on a shared machine a load
above the core count means the build did not have the cores to itself.  The table goes to
stdout, progress bars to stderr.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

_CHILD = """
import json, sys
from pdb_builder.build_apdb import build_apdb
row = build_apdb(sys.argv[1], sys.argv[2], sys.argv[3] or None, sys.argv[4],
                 force=sys.argv[5] == '1', progress=sys.argv[6] == '1')
row.pop('patterns', None)
print('ROW ' + json.dumps(row))
"""

COLUMNS = [("partition", "partition", "{}"), ("entries", "entries", "{:,}"), ("mb", "MB", "{:.1f}"),
           ("max_h", "max h", "{}"), ("mean_h", "mean h", "{:.2f}"),
           ("seconds", "seconds", "{:.1f}"), ("peak_mb", "peak MB", "{:.0f}"),
           ("wall", "wall s", "{:.1f}"), ("cpu", "CPU s", "{:.1f}"), ("load", "load avg", "{}")]


def build_one(shape: str, partition: str, goal: str, data_dir: str, force: bool,
              progress: bool) -> dict:
    """Build in a child process; return its summary row plus the child's wall time."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    load_before = os.getloadavg()[0]
    cpu0 = os.times()
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _CHILD, shape, partition, goal or "", data_dir,
                           "1" if force else "0", "1" if progress else "0"],
                          stdout=subprocess.PIPE, text=True, env=env)
    wall = time.perf_counter() - t0
    cpu1 = os.times()
    cpu = (cpu1.children_user - cpu0.children_user) + (cpu1.children_system - cpu0.children_system)
    load = f"{load_before:.1f}-{os.getloadavg()[0]:.1f}"
    rows = [line[4:] for line in proc.stdout.splitlines() if line.startswith("ROW ")]
    if proc.returncode != 0 or not rows:
        raise SystemExit(f"building {partition} failed (exit status {proc.returncode})")
    return {**json.loads(rows[-1]), "wall": wall, "cpu": cpu, "load": load}


def print_table(rows: list[dict]) -> None:
    cells = [[h for _, h, _ in COLUMNS]]
    for r in rows:
        cells.append(["-" if r.get(k) is None else f.format(r[k]) for k, _, f in COLUMNS])
    widths = [max(len(row[i]) for row in cells) for i in range(len(COLUMNS))]
    for row in cells:
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                        for i, (c, w) in enumerate(zip(row, widths))))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("partitions", nargs="*", default=["5-5-5", "6-6-3"],
                    help="presets (5-5-5, 6-6-3, 7-8) or tiles like 1,2,3,4/5,6,7,8")
    ap.add_argument("--shape", default="4x4")
    ap.add_argument("--goal", default=None, help="goal preset or board (default blank-last)")
    ap.add_argument("--data-dir", default=None, help="keep the files here (default: a temp dir)")
    ap.add_argument("--force", action="store_true", help="rebuild files that exist")
    ap.add_argument("--quiet", action="store_true", help="no progress bars")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="npuzzle-bench-") as tmp:
        directory = args.data_dir or tmp
        rows = []
        for p in args.partitions:
            row = build_one(args.shape, p, args.goal, directory, args.force or not args.data_dir,
                            not args.quiet)
            if row.get("skipped"):
                row["seconds"] = row["peak_mb"] = row["max_h"] = row["mean_h"] = None
            rows.append(row)
        print(f"shape {args.shape}, files in {directory if args.data_dir else '(temp dir)'}, "
              f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")
        print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
