#!/usr/bin/env python
"""The same searches through two checkouts, node for node: each board of a reference set
solved by this checkout's ``npuzzle`` and by another's (``--old PATH``, e.g. a git worktree
of an earlier commit, run with the same interpreter), one thread, and every board's length,
nodes generated and nodes expanded compared.

Prints a table, one row a set and search, and exits 1 on any difference.  With one thread
the counts do not depend on the timing, so two checkouts whose kernels search alike give
the same numbers exactly.  The two checkouts run in turn, new then old, ``--runs`` times;
"search s" is the median over the runs of the sum of the boards' own search seconds, "x" the
median of the runs' ratios (new / old), so that both were timed on the same machine in the
same minutes.  ``--old-env NAME=VALUE`` sets a variable for the old checkout only (e.g.
``NPUZZLE_KERNELS=jit``, for a checkout that still had a second set of kernels).

    python scripts/compare_searches.py --old /tmp/old --data-dir data \\
        --set korf100:"--goal blank-first" --set lc3x5:"--heuristic linear-conflict"

A set is a file of ``data/`` (``korf100``, ``hardest80``, ``korf-taylor-24``, ...), some of
its rows by their ids (``korf-felner-24#32,44``), or
``random:SHAPE:COUNT:STEPS`` (random walks from the set's ``--goal``, seeded), followed by the options
of ``npuzzle solve`` after a colon.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from solver.core.board import Shape, goal_board  # noqa: E402


def boards_of(spec: str, seed: int, goal: str | None = None) -> list[str]:
    """The boards of a set: a reference file's first column, or random walks from ``goal``
    (a preset or board; default blank-last), the goal the set is solved towards."""
    if spec.startswith("random:"):
        _, shape, count, steps = spec.split(":")
        rng = random.Random(seed)
        goal = goal_board(Shape.parse(shape), goal)
        out = []
        for _ in range(int(count)):
            board, prev = goal, None
            for _ in range(int(steps)):
                m = rng.choice([m for m in board.legal_moves() if m != prev])
                board = board.move(m)
                prev = {"U": "D", "D": "U", "L": "R", "R": "L"}[m]
            cols = board.shape.cols
            rows = [board.tiles[i : i + cols] for i in range(0, len(board.tiles), cols)]
            out.append("/".join(" ".join(map(str, r)) for r in rows))  # rows: the shape is read
        return out
    name, _, ids = spec.partition("#")
    path = ROOT / "data" / (name if name.endswith(".txt") else f"{name}.txt")
    rows = [line.split("\t") for line in path.read_text().splitlines()]
    rows = [r for r in rows if r and r[0][:1].isdigit()]
    if ids:  # the rows of those ids (a file's first column)
        rows = [r for r in rows if r[0] in ids.split(",")]
    return [r[1] if r[0].isdigit() and len(r) > 1 else r[0] for r in rows]


def solve(
    checkout: Path, boards: list[str], options: list[str], data_dir: str, env: dict | None = None
) -> tuple:
    """``(records, search seconds)`` of ``npuzzle solve - --json -j 1`` run from ``checkout``,
    the seconds the sum of the boards' own."""
    env = {**os.environ, **(env or {}), "PYTHONPATH": str(checkout)}
    args = [sys.executable, "-m", "solver", "solve", "-", "--json", "--jobs", "1"]
    run = subprocess.run(
        [*args, "--data-dir", data_dir, *options],
        input="".join(f"{b}\n" for b in boards),
        capture_output=True,
        text=True,
        env=env,
        cwd=checkout,
    )
    if run.returncode != 0:
        sys.exit(f"compare_searches: {checkout}: {run.stderr.strip()[-400:]}")
    records = [json.loads(line) for line in run.stdout.splitlines() if line]
    return records, sum(r.get("seconds") or 0.0 for r in records)


def counts(record: dict) -> tuple:
    """What must be equal: the length and the nodes generated and expanded."""
    return record.get("length"), record.get("nodes_generated"), record.get("nodes_expanded")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--old", required=True, type=Path, help="the other checkout")
    p.add_argument("--data-dir", required=True, help="the databases both read")
    p.add_argument("--set", action="append", required=True, metavar="SET[:OPTIONS]")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--runs", type=int, default=1, help="new and old in turn, this many times")
    p.add_argument("--old-env", action="append", default=[], metavar="NAME=VALUE")
    a = p.parse_args()
    old_env = dict(item.split("=", 1) for item in a.old_env)
    print(
        f"{'set':<14} {'options':<44} {'boards':>6} {'generated':>14} {'new s':>8} "
        f"{'old s':>8} {'x':>5}  same"
    )
    differ = False
    for item in a.set:
        spec, _, opts = (
            item.partition(":")
            if not item.startswith("random:")
            else (":".join(item.split(":")[:4]), "", ":".join(item.split(":")[4:]))
        )
        options = shlex.split(opts)
        goal = options[options.index("--goal") + 1] if "--goal" in options else None
        boards = boards_of(spec, a.seed, goal)
        new_s, old_s, same = [], [], True
        for _ in range(a.runs):
            new, seconds = solve(ROOT, boards, options, a.data_dir)
            new_s.append(seconds)
            old, seconds = solve(a.old.resolve(), boards, options, a.data_dir, old_env)
            old_s.append(seconds)
            same &= [counts(x) for x in new] == [counts(x) for x in old]
        differ |= not same
        generated = sum(x.get("nodes_generated") or 0 for x in new)
        ratio = statistics.median(n / o for n, o in zip(new_s, old_s, strict=True) if o)
        print(
            f"{spec:<14} {opts:<44} {len(boards):>6} {generated:>14,} "
            f"{statistics.median(new_s):>8.2f} {statistics.median(old_s):>8.2f} {ratio:>5.2f}"
            f"  {'yes' if same else 'NO'}"
        )
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
