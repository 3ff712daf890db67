#!/usr/bin/env python
"""Build databases with two checkouts of npuzzle and check that the files hold the same bytes.

Each database is built twice, in a fresh data directory each: by ``python -m pdb_builder`` of
another checkout (OLD, run with its own directory first on ``PYTHONPATH``) and of this one.
Then every file written must be in both, with the same root attributes (all but
``created_by``, which names the version that wrote it) and the same datasets: the same
bytes, dtype, shape and attributes.  Prints one row per file, with the seconds each build
took (the whole process), and exits 1 on any difference.

A database is written ``SHAPE[:PARTITION][+zero-aware][@GOAL]`` or ``SHAPE:strongest``:
``3x3:4-4``, ``4x4:6-6-3+zero-aware``, ``3x3:1,2,3/4,5,6,7,8@spiral``, ``4x4:strongest``
(7-8 and its twin, 1.2 GB a build); a bare ``SHAPE`` builds its exact tables.  The data
directories are made under ``--work`` (default: a temporary directory) and removed once
compared.

    python scripts/compare_builders.py ../old-checkout 3x3:4-4 4x4:5-5-5+zero-aware
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import h5py
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
IGNORED_ATTRS = {"created_by"}


def build_args(spec: str) -> list[str]:
    """The ``build-pdb`` options that build the database ``spec`` (see the module's docstring)."""
    spec, _, goal = spec.partition("@")
    zero_aware = spec.endswith("+zero-aware")
    spec = spec.removesuffix("+zero-aware")
    shape, _, partition = spec.partition(":")
    args = ["--shape", shape]
    if partition == "strongest":
        args.append("--strongest")
    elif partition:
        args += ["--partition", partition]
    if zero_aware:
        args.append("--zero-aware")
    if goal:
        args += ["--goal", goal]
    return args


def build(checkout: Path, args: list[str], data_dir: Path) -> float:
    """Run ``build-pdb ARGS`` of ``checkout`` into ``data_dir``; return its seconds."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    command = [sys.executable, "-m", "pdb_builder", "--quiet", "--data-dir", str(data_dir), *args]
    t0 = time.perf_counter()
    run = subprocess.run(command, cwd=checkout, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if run.returncode != 0:
        sys.exit(f"build-pdb {' '.join(args)} of {checkout} failed:\n{run.stderr}")
    return seconds


def attrs_of(obj) -> dict:
    """An HDF5 object's attributes, comparable with ``==`` (arrays as bytes and dtype)."""
    out = {}
    for name, value in obj.attrs.items():
        if name in IGNORED_ATTRS:
            continue
        if isinstance(value, np.ndarray):
            value = (value.dtype.str, value.shape, value.tobytes())
        out[name] = value
    return out


def datasets_of(f: h5py.File) -> dict[str, h5py.Dataset]:
    """Every dataset of an open file, by its path in the file."""
    found = {}

    def visit(name, obj):
        if isinstance(obj, h5py.Dataset):
            found[name] = obj  # returns None: h5py goes on to the next object

    f.visititems(visit)
    return found


def compare_files(old: Path, new: Path) -> tuple[int, int, list[str]]:
    """(datasets, bytes compared, differences) between two database files."""
    problems = []
    with h5py.File(old, "r") as fo, h5py.File(new, "r") as fn:
        if attrs_of(fo) != attrs_of(fn):
            problems.append("root attributes differ")
        old_sets, new_sets = datasets_of(fo), datasets_of(fn)
        if old_sets.keys() != new_sets.keys():
            problems.append(f"datasets differ: {sorted(old_sets)} vs {sorted(new_sets)}")
        size = 0
        for name in sorted(old_sets.keys() & new_sets.keys()):
            a, b = old_sets[name][()], new_sets[name][()]
            size += a.nbytes
            if a.dtype != b.dtype or a.shape != b.shape or a.tobytes() != b.tobytes():
                problems.append(f"{name}: contents differ")
            if attrs_of(old_sets[name]) != attrs_of(new_sets[name]):
                problems.append(f"{name}: attributes differ")
    return len(old_sets), size, problems


def compare(old_checkout: Path, spec: str, work: Path) -> list[tuple]:
    """Build ``spec`` with both checkouts into fresh directories under ``work`` and compare
    what they wrote: one row per file."""
    args = build_args(spec)
    dirs = {side: Path(tempfile.mkdtemp(prefix=f"{side}-", dir=work)) for side in ("old", "new")}
    try:
        seconds = {
            "old": build(old_checkout, args, dirs["old"]),
            "new": build(ROOT, args, dirs["new"]),
        }
        names = {side: {p.name for p in d.glob("*.h5")} for side, d in dirs.items()}
        if not names["old"] | names["new"]:
            return [(spec, "-", 0, 0, seconds, ["neither build wrote a file"])]
        rows = []
        for name in sorted(names["old"] | names["new"]):
            if name not in names["old"] or name not in names["new"]:
                side = "new" if name in names["new"] else "old"
                rows.append((spec, name, 0, 0, seconds, [f"only the {side} build wrote it"]))
                continue
            count, size, problems = compare_files(dirs["old"] / name, dirs["new"] / name)
            rows.append((spec, name, count, size, seconds, problems))
        return rows
    finally:
        for d in dirs.values():
            shutil.rmtree(d, ignore_errors=True)


def main(argv=None) -> int:
    """Compare the databases named on the command line; exit 1 on any difference."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", type=Path, help="the other checkout (its root directory)")
    parser.add_argument("databases", nargs="+", help="SHAPE[:PARTITION][+zero-aware][@GOAL]")
    parser.add_argument("--work", type=Path, help="where the data directories are made")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="compare-builders-", dir=args.work))
    header = (
        f"{'database':34} {'file':44} {'sets':>4} {'bytes':>13} {'old s':>7} {'new s':>7}  same"
    )
    print(header)
    print("-" * len(header))
    failed = False
    try:
        for spec in args.databases:
            for spec_, name, count, size, seconds, problems in compare(args.old, spec, work):
                same = "yes" if not problems else "NO: " + "; ".join(problems)
                failed |= bool(problems)
                print(
                    f"{spec_:34} {name:44} {count:4} {size:13,} {seconds['old']:7.1f} "
                    f"{seconds['new']:7.1f}  {same}",
                    flush=True,
                )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
