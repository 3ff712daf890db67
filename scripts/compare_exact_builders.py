#!/usr/bin/env python
"""Compare the exact tables another checkout builds with this checkout's, byte for byte.

For each shape (and each goal given), ``build-pdb --shape S [--goal G]`` runs once in the other
checkout (``OLD``, e.g. a ``git worktree`` of an earlier commit) and once in this one, each
into a data directory of its own under a temporary directory, one after the other, timed.
Every file either wrote is then compared: the same file names, the same datasets with the same
dtype, shape and bytes, the same dataset attributes, and the same root attributes but
``created_by`` (which names the version that wrote the file).  Boards of up to 10 cells also
run the in-memory search (``solver.tables.exact_bfs.bfs_exact``, what ``generate`` and
``stats`` run where no table is built) in both checkouts, for the default goal, blank-first
and every goal given: the tables' SHA-256 and the counts at every distance must agree.

    python scripts/compare_exact_builders.py /tmp/old 2x3 3x3 2x4 4x2 2x5 5x2
    python scripts/compare_exact_builders.py /tmp/old 3x4 2x6 --random 1 --seed 7
    python scripts/compare_exact_builders.py /tmp/old 2x5 --goal '1 2 0 3 4/5 6 7 8 9'
    python scripts/compare_exact_builders.py /tmp/old 3x4 --goals-only --goal '1 2 3 4/5 0 6 7/8 9 10 11'

Prints one row per file (and per in-memory search) on stdout, progress on stderr; exits 1 when
anything differs or a build fails.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from solver.core.board import Board, Shape, goal_board  # noqa: E402
from solver.tables import names  # noqa: E402

IGNORED_ROOT_ATTRS = {"created_by"}
MEMORY_CELLS = 10  # solver.core.config.FULL_BFS_CELLS: boards the in-memory search runs on
# What each checkout runs for the in-memory search: the SHA-256 of each goal's table and its
# counts, one JSON record.
MEMORY_PROBE = """
import hashlib, json, sys, time
import numpy as np
from solver.core.board import Board, Shape
from solver.tables.exact_bfs import bfs_exact
shape = Shape.parse(sys.argv[1])
out = []
for flat in sys.argv[2:]:
    goal = Board(shape, tuple(int(t) for t in flat.split()))
    t0 = time.perf_counter()
    table, counts = bfs_exact(goal)
    seconds = time.perf_counter() - t0
    out.append([flat, hashlib.sha256(table.tobytes()).hexdigest(), counts.tolist(), seconds])
print(json.dumps(out))
"""


def run_in(checkout: Path, args: list[str]) -> tuple[float, subprocess.CompletedProcess]:
    """Run ``python args`` in ``checkout`` with it first on the path: seconds and result."""
    env = dict(os.environ, PYTHONPATH=str(checkout))
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, *args], cwd=checkout, env=env, capture_output=True, text=True
    )
    return time.perf_counter() - t0, done


def build(checkout: Path, shape: str, goal: str | None, data_dir: Path) -> float:
    """``build-pdb --shape shape [--goal goal]`` of ``checkout`` into ``data_dir``; seconds."""
    args = ["-m", "pdb_builder", "-q", "--shape", shape, "--data-dir", str(data_dir)]
    seconds, done = run_in(checkout, args + (["--goal", goal] if goal else []))
    if done.returncode != 0:
        raise RuntimeError(f"build-pdb in {checkout} failed: {done.stderr.strip()[-500:]}")
    return seconds


def h5_contents(path: Path) -> dict:
    """Everything of a database file that must match: root attributes (but created_by), and
    for each dataset its dtype, shape, bytes and attributes."""
    import h5py

    def plain(value):
        return value.tolist() if isinstance(value, np.ndarray) else value

    with h5py.File(path, "r") as f:
        root = {k: plain(v) for k, v in f.attrs.items() if k not in IGNORED_ROOT_ATTRS}
        datasets = {}
        for name, ds in f.items():
            data = ds[()]
            datasets[name] = {
                "dtype": str(data.dtype),
                "shape": data.shape,
                "bytes": data.tobytes(),
                "attrs": {k: plain(v) for k, v in ds.attrs.items()},
            }
    return {"root": root, "datasets": datasets}


def differences(old: Path, new: Path) -> list[str]:
    """What differs between two database files (empty when they match)."""
    a, b = h5_contents(old), h5_contents(new)
    found = []
    for key in sorted(set(a["root"]) | set(b["root"])):
        if a["root"].get(key) != b["root"].get(key):
            found.append(f"root attribute {key}")
    for name in sorted(set(a["datasets"]) | set(b["datasets"])):
        x, y = a["datasets"].get(name), b["datasets"].get(name)
        if x is None or y is None:
            found.append(f"dataset {name} in one file only")
            continue
        for part in ("dtype", "shape", "bytes", "attrs"):
            if x[part] != y[part]:
                found.append(f"{name}: {part}")
    return found


def compare_builds(old: Path, shape: str, goal: str | None, work: Path, tag: str) -> list[dict]:
    """Build ``shape`` (for ``goal``) with both checkouts into directories named ``tag`` under
    ``work`` and compare their files: one row a file."""
    dirs = {side: work / side / tag for side in ("old", "new")}
    print(f"building {shape} {goal or ''} (old) ...", file=sys.stderr, flush=True)
    t_old = build(old, shape, goal, dirs["old"])
    print(f"building {shape} {goal or ''} (new) ...", file=sys.stderr, flush=True)
    t_new = build(ROOT, shape, goal, dirs["new"])
    names = sorted({p.name for d in dirs.values() for p in d.glob("*.h5")})
    rows = []
    for name in names:
        a, b = dirs["old"] / name, dirs["new"] / name
        if not a.exists() or not b.exists():
            found = ["written by one checkout only"]
        else:
            found = differences(a, b)
        same_file = a.exists() and b.exists() and a.read_bytes() == b.read_bytes()
        rows.append(
            {
                "what": name,
                "goal": goal or "default",
                "old_s": t_old,
                "new_s": t_new,
                "file_bytes": "same" if same_file else "differ",
                "result": "identical" if not found else "DIFFERENT: " + "; ".join(found),
            }
        )
    for d in dirs.values():
        for p in d.glob("*"):
            p.unlink()
    return rows


def probe_memory(checkout: Path, shape: str, goals: list[str]) -> list:
    """The in-memory search of ``checkout`` for ``goals``: [flat, sha256, counts, seconds]."""
    _, done = run_in(checkout, ["-c", MEMORY_PROBE, shape, *goals])
    if done.returncode != 0:
        raise RuntimeError(f"bfs_exact in {checkout} failed: {done.stderr.strip()[-500:]}")
    return json.loads(done.stdout)


def compare_memory(old: Path, shape: str, goals: list[str]) -> list[dict]:
    """Run the in-memory search in both checkouts: one row a goal."""
    print(f"in-memory search {shape} (old, new) ...", file=sys.stderr, flush=True)
    a, b = probe_memory(old, shape, goals), probe_memory(ROOT, shape, goals)
    return [
        {
            "what": f"bfs_exact {shape}",
            "goal": x[0],
            "old_s": x[3],
            "new_s": y[3],
            "file_bytes": "-",
            "result": "identical" if x[1:3] == y[1:3] else "DIFFERENT",
        }
        for x, y in zip(a, b)
    ]


def goals_for(shape: Shape, given: list[str], random_goals: int, rng) -> list[str]:
    """The goals given that fit ``shape`` and ``random_goals`` random ones, as flat strings."""
    out = []
    for g in given:
        try:
            out.append(Board.parse(g, shape).flat())
        except ValueError:
            continue  # a goal of another shape
    for _ in range(random_goals):
        out.append(" ".join(str(int(t)) for t in rng.permutation(shape.size)))
    return out


def print_table(rows: list[dict]) -> None:
    heads = ["what", "goal", "old_s", "new_s", "file_bytes", "result"]
    cells = [[f"{r[h]:.2f}" if isinstance(r[h], float) else str(r[h]) for h in heads] for r in rows]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(heads)]
    print("  ".join(h.ljust(w) for h, w in zip(heads, widths)))
    for c in cells:
        print("  ".join(v.ljust(w) for v, w in zip(c, widths)))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", type=Path, help="the other checkout (its build-pdb is run)")
    parser.add_argument("shapes", nargs="+", help="shapes to build, e.g. 3x3 2x5 3x4")
    parser.add_argument("--goal", action="append", default=[], help="a goal (repeatable)")
    parser.add_argument("--random", type=int, default=0, help="random goals a shape")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--work-dir", type=Path, help="where the data directories go")
    parser.add_argument(
        "--goals-only", action="store_true", help="build only for the goals given, not the default"
    )
    args = parser.parse_args(argv)
    old = args.old.resolve()
    rng = np.random.default_rng(args.seed)
    rows = []
    with tempfile.TemporaryDirectory(dir=args.work_dir, prefix="compare-exact-") as tmp:
        for name in args.shapes:
            shape = Shape.parse(name)
            goals = goals_for(shape, args.goal, args.random, rng)
            # A full layout's file serves every goal: only compact tables are built per goal.
            per_goal = goals if names.exact_layout(shape) == names.COMPACT else []
            builds = per_goal if args.goals_only else [None, *per_goal]
            for i, goal in enumerate(builds):
                rows += compare_builds(old, name, goal, Path(tmp), f"{name}-{i}")
            if shape.size <= MEMORY_CELLS:
                default = [goal_board(shape).flat(), goal_board(shape, "blank-first").flat()]
                rows += compare_memory(old, name, default + goals)
    print_table(rows)
    return 0 if all(r["result"] == "identical" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
