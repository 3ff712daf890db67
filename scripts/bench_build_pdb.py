#!/usr/bin/env python
"""Build additive pattern databases and print what each cost, side by side with the C reference
builder where it did the same job: partition, entries, seconds, peak MB, C seconds, C peak MB,
ratio (our seconds / C's), then our CPU seconds and the load average.

    python scripts/bench_build_pdb.py                      # 5-5-5 and 6-6-3 into a temp dir
    python scripts/bench_build_pdb.py 7-8 --data-dir data  # the 7-8 database, kept in data/
    python scripts/bench_build_pdb.py 4-4 --shape 3x3
    python scripts/bench_build_pdb.py 7-8 --repeat 3       # three builds, one row each

Each build runs in a fresh subprocess, so its peak resident memory (getrusage) is its own and
not the largest of the run; ``--force`` rebuilds files that already exist.  "seconds" is the
build itself (search and writing), "CPU s" the whole child process (start-up
included), "load" the 1-minute load average before and after: on a shared machine a load
above the core count means the build did not have the cores to itself.

The C columns come from ``/usr/bin/time -v`` reports of the C reference's builder (the C
reference solver, Korf & Felner's 2002 design), kept in the directory of the binary that
``--cref PATH`` names: ``build-78.time`` for 7-8, ``build-663.time`` for 6-6-3; "-" where there
is none, or without ``--cref``.  C builds the same table sizes for Korf's blank-first goal with its own tile sets (its
6-6-3 splits the tiles differently; its 7-8 searches as many states as ours).  The table goes
to stdout, progress bars to stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_CHILD = """
import json, sys
from pdb_builder.build_apdb import build_apdb
row = build_apdb(sys.argv[1], sys.argv[2], sys.argv[3] or None, sys.argv[4],
                 force=sys.argv[5] == '1', progress=sys.argv[6] == '1')
row.pop('patterns', None)
print('ROW ' + json.dumps(row))
"""

C_JOBS = {("4x4", "7-8"): "build-78.time", ("4x4", "6-6-3"): "build-663.time"}

COLUMNS = [
    ("partition", "partition", "{}"),
    ("entries", "entries", "{:,}"),
    ("seconds", "seconds", "{:.1f}"),
    ("peak_mb", "peak MB", "{:.0f}"),
    ("c_seconds", "C seconds", "{:.1f}"),
    ("c_peak_mb", "C peak MB", "{:.0f}"),
    ("ratio", "ratio", "{:.2f}"),
    ("cpu", "CPU s", "{:.1f}"),
    ("load", "load", "{}"),
]


def read_time_report(path: Path) -> tuple[float, float] | None:
    """(wall seconds, peak MB) from a ``/usr/bin/time -v`` report, or None if unreadable."""
    try:
        text = path.read_text()
    except OSError:
        return None
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)", text)
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
    if not wall or not peak:
        return None
    seconds = 0.0
    for part in wall.group(1).split(":"):
        seconds = seconds * 60 + float(part)
    return seconds, int(peak.group(1)) / 1024


def build_one(
    shape: str, partition: str, goal: str, data_dir: str, force: bool, progress: bool
) -> dict:
    """Build in a child process; return its summary row plus the child's CPU time and load."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    load_before = os.getloadavg()[0]
    cpu0 = os.times()
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            _CHILD,
            shape,
            partition,
            goal or "",
            data_dir,
            "1" if force else "0",
            "1" if progress else "0",
        ],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        check=False,
    )
    cpu1 = os.times()
    cpu = (cpu1.children_user - cpu0.children_user) + (cpu1.children_system - cpu0.children_system)
    rows = [line[4:] for line in proc.stdout.splitlines() if line.startswith("ROW ")]
    if proc.returncode != 0 or not rows:
        raise SystemExit(f"building {partition} failed (exit status {proc.returncode})")
    return {
        **json.loads(rows[-1]),
        "cpu": cpu,
        "load": f"{load_before:.1f}-{os.getloadavg()[0]:.1f}",
    }


def with_reference(row: dict, shape: str, cref: Path | None) -> dict:
    """Add the C builder's seconds and peak for the same job, and our time over C's."""
    name = C_JOBS.get((shape, row["partition"]))
    ref = read_time_report(cref.parent / name) if name and cref is not None else None
    if ref is None or row.get("seconds") is None:
        return {**row, "c_seconds": ref and ref[0], "c_peak_mb": ref and ref[1], "ratio": None}
    return {**row, "c_seconds": ref[0], "c_peak_mb": ref[1], "ratio": row["seconds"] / ref[0]}


def print_table(rows: list[dict]) -> None:
    cells = [[h for _, h, _ in COLUMNS]]
    for r in rows:
        cells.append(["–" if r.get(k) is None else f.format(r[k]) for k, _, f in COLUMNS])
    widths = [max(len(row[i]) for row in cells) for i in range(len(COLUMNS))]
    for row in cells:
        print(
            "  ".join(
                c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))
            )
        )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "partitions",
        nargs="*",
        default=["5-5-5", "6-6-3"],
        help="presets (5-5-5, 6-6-3, 7-8) or tiles like 1,2,3,4/5,6,7,8",
    )
    ap.add_argument("--shape", default="4x4")
    ap.add_argument("--goal", default=None, help="goal preset or board (default blank-last)")
    ap.add_argument("--data-dir", default=None, help="keep the files here (default: a temp dir)")
    ap.add_argument("--force", action="store_true", help="rebuild files that exist")
    ap.add_argument("--repeat", type=int, default=1, help="build each partition this often")
    ap.add_argument(
        "--cref",
        default=None,
        type=Path,
        help="the C reference solver's binary; its directory holds the build-*.time reports",
    )
    ap.add_argument("--quiet", action="store_true", help="no progress bars")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="npuzzle-bench-") as tmp:
        directory = args.data_dir or tmp
        rows = []
        for p in args.partitions:
            for _ in range(args.repeat):
                row = build_one(
                    args.shape,
                    p,
                    args.goal,
                    directory,
                    args.force or not args.data_dir,
                    not args.quiet,
                )
                if row.get("skipped"):
                    row["seconds"] = row["peak_mb"] = None
                rows.append(with_reference(row, args.shape, args.cref))
        print(
            f"shape {args.shape}, files in {directory if args.data_dir else '(temp dir)'}, "
            f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}, "
            f"{time.strftime('%Y-%m-%d %H:%M')}"
        )
        print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
