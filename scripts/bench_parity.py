#!/usr/bin/env python3
"""npuzzle side by side with the C reference solver, end to end: searches (search time and
whole process), the one-shot shell solve, a lookup's start-up, batch throughput, and the ways
tables reach memory.

Usage (from the project root; the 7-8 and 6-6-3 databases built; ``--cref PATH`` names the C
reference solver's binary -- Korf & Felner's 2002 design, its tables in the binary's directory;
without it the C column is left empty):

    python scripts/bench_parity.py [--runs 3] [--data-dir DIR] [--cref PATH]
                                   [--only searches,oneshot,lookup,batch,load]

Every time is the best of ``--runs`` runs, npuzzle and C alternating so that both meet the
same machine load; the load average is printed before and after.  Search time is npuzzle's
sum of per-board ``seconds`` (tables and kernel are loaded before the first board's clock
starts, as C loads its tables before its timer) against C's own total; whole process is the
wall time of the command.  Python byte-code is compiled first (as an install does).
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

ROOT = Path(__file__).resolve().parents[1]
# The interpreter itself, not a version manager's shim (pyenv's adds 0.1-0.2 s per command).
NPUZZLE = [sys.executable, "-m", "solver"]
DATA = ROOT / "data"
KORF, HARD80 = DATA / "korf100.txt", DATA / "hardest80.txt"


def rows_of(path: Path) -> list[list[str]]:
    return [l.rstrip("\n").split("\t") for l in open(path) if l.strip() and not l.startswith("#")]


def run(cmd, stdin: bytes | None = None, env=None) -> tuple[float, subprocess.CompletedProcess]:
    t = time.perf_counter()
    p = subprocess.run(cmd, input=stdin, capture_output=True, env={**os.environ, **(env or {})})
    return time.perf_counter() - t, p


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


# --- searches ----------------------------------------------------------------------------------


def npuzzle_solve(boards: str, partition: str, reflect: bool, data_dir, env=None):
    cmd = (
        NPUZZLE
        + [
            "solve",
            "-",
            "--json",
            "--goal",
            "blank-first",
            "--partition",
            partition,
            "--jobs",
            "1",
            "--data-dir",
            str(data_dir),
        ]
        + ([] if reflect else ["--no-reflect"])
    )
    wall, p = run(cmd, boards.encode(), env)
    if p.returncode:
        sys.exit(f"npuzzle failed: {p.stderr.decode()[-300:]}")
    answers = [json.loads(l) for l in p.stdout.splitlines() if l.strip()]
    return sum(a["seconds"] for a in answers), wall, [a["length"] for a in answers]


def cref_solve(boards: str, partition: str, reflect: bool, cref: Path):
    """The C reference's search seconds, wall seconds and lengths on ``boards``."""
    cmd = [str(cref), "solve", partition, str(cref.parent)]
    wall, p = run(cmd + (["--reflect"] if reflect else []), boards.encode())
    out = p.stdout.decode()
    search = float(re.search(r"seconds=([\d.]+)", out).group(1))
    lengths = [int(l.split("\t")[0]) for l in out.splitlines() if l and l[0].isdigit()]
    return search, wall, lengths


def searches(a) -> list[tuple]:
    cases = [
        (HARD80, "7-8", True, "17 80-move positions, 7-8 + reflection"),
        (KORF, "6-6-3", True, "Korf's 100, 6-6-3 + reflection"),
        (KORF, "7-8", True, "Korf's 100, 7-8 + reflection"),
        (KORF, "7-8", False, "Korf's 100, 7-8, no reflection"),
    ]
    out = []
    for path, part, reflect, label in cases:
        rows = rows_of(path)
        boards = "\n".join(r[1] for r in rows) + "\n"
        want = [int(r[2]) for r in rows]
        cpart = part.replace("-", "")
        best_n, best_c = (1e9, 1e9), (1e9, 1e9)
        runs = 1 if path == HARD80 else a.runs
        for _ in range(runs):
            s, w, got = npuzzle_solve(boards, part, reflect, a.data_dir)
            assert got == want, f"npuzzle lengths differ on {label}"
            best_n = min(best_n, (s, w))
            if a.cref is not None:
                s, w, got = cref_solve(boards, cpart, reflect, a.cref)
                assert got == want, f"C lengths differ on {label}"
                best_c = min(best_c, (s, w))
        out.append((label + ", search", best_n[0], best_c[0]))
        out.append((label + ", whole process", best_n[1], best_c[1]))
    return out


# --- one board from the shell ------------------------------------------------------------------


def oneshot(a) -> list[tuple]:
    best_n = best_c = 1e9
    for _ in range(a.runs):
        for b in RANDOM_15:
            w, p = run(NPUZZLE + ["solve", b, "--data-dir", str(a.data_dir)])
            assert p.returncode == 0, p.stderr
            best_n = min(best_n, w)
            if a.cref is not None:
                w, _ = run(
                    [str(a.cref), "solve", "78", str(a.cref.parent), "--reflect"],
                    (_to_blank_first(b) + "\n").encode(),
                )
                best_c = min(best_c, w)
    return [("one random 15-puzzle from the shell, 7-8, whole process", best_n, best_c)]


# Random solvable 15-puzzles (blank-last goal), drawn once with numpy's default_rng(11).
RANDOM_15 = [
    "2 8 13 12 1 9 6 5 11 4 15 3 10 7 0 14",
    "14 12 4 9 2 1 15 8 7 10 3 5 13 11 6 0",
    "2 11 4 5 6 13 10 14 9 15 12 0 1 7 8 3",
]


def _to_blank_first(board: str) -> str:
    """The same problem for C's blank-first goal: rotate the board by 180 degrees and rename
    tile t to 16 - t (the blank stays 0)."""
    tiles = [int(t) for t in board.split()][::-1]
    return " ".join(str(0 if t == 0 else 16 - t) for t in tiles)


# --- a lookup's start-up -----------------------------------------------------------------------


def lookup(a) -> list[tuple]:
    best_n = best_b = 1e9
    for _ in range(max(5, a.runs)):
        w, p = run(NPUZZLE + ["distance", "8 6 7 2 5 4 3 0 1", "--data-dir", str(a.data_dir)])
        assert p.stdout == b"31\n", p
        best_n = min(best_n, w)
        w, _ = run([sys.executable, "-c", "import numpy, h5py"])
        best_b = min(best_b, w)
    return [
        ("npuzzle distance BOARD (3x3), whole process", best_n, None),
        ("python -c 'import numpy, h5py'", best_b, None),
        ("  ratio", best_n / best_b, None),
    ]


# --- batches -----------------------------------------------------------------------------------


def batches(a) -> list[tuple]:
    import numpy as np

    tmp = Path(tempfile.mkdtemp(prefix="bench-parity-"))
    rng = np.random.default_rng(1)
    b3 = np.argsort(rng.random((1_000_000, 9)), axis=1)
    flat3 = "\n".join(" ".join(map(str, r)) for r in b3.tolist()) + "\n"
    (tmp / "flat3.txt").write_text(flat3)
    with open(tmp / "flat3.jsonl", "w") as fh:
        for i, r in enumerate(b3.tolist()):
            fh.write(json.dumps({"id": i, "board": " ".join(map(str, r))}) + "\n")
    b4 = np.argsort(rng.random((300_000, 16)), axis=1)
    (tmp / "flat4.txt").write_text("\n".join(" ".join(map(str, r)) for r in b4.tolist()) + "\n")
    gen = run(
        NPUZZLE
        + ["generate", "--count", "200000", "--json", "--seed", "1", "--data-dir", str(a.data_dir)]
    )[1]
    (tmp / "generated.jsonl").write_bytes(gen.stdout)
    cases = [
        (
            "distance - , 1,000,000 flat 3x3 lines from a file",
            "npuzzle distance - < flat3.txt",
            1_000_000,
        ),
        (
            "distance - , 1,000,000 JSON lines piped (cat | npuzzle)",
            "cat flat3.jsonl | npuzzle distance -",
            1_000_000,
        ),
        (
            "distance - --json , 200,000 generate --json lines",
            "npuzzle distance - --json < generated.jsonl",
            200_000,
        ),
        (
            "heuristic - , 300,000 4x4 lines (7-8 + reflection)",
            "npuzzle heuristic - < flat4.txt",
            300_000,
        ),
        ("check - , 1,000,000 flat 3x3 lines", "npuzzle check - < flat3.txt", 1_000_000),
        (
            "solve - , 200,000 generate --json lines (3x3 table walks)",
            "npuzzle solve - < generated.jsonl",
            200_000,
        ),
        (
            "distance - line by line (NPUZZLE_BULK=0), 100,000 flat 3x3 lines",
            "head -100000 flat3.txt | NPUZZLE_BULK=0 npuzzle distance -",
            100_000,
        ),
    ]
    out = []
    for label, shell, n in cases:
        best = 1e9
        for _ in range(a.runs):
            shell = shell.replace("npuzzle", " ".join(NPUZZLE))
            w, p = run(
                ["bash", "-c", f"cd {tmp} && {shell} > /dev/null"],
                env={"NPUZZLE_DATA": str(a.data_dir)},
            )
            assert p.returncode in (0, 1, 2), p.stderr
            best = min(best, w)
        out.append((label, best, n / best))
    import shutil

    shutil.rmtree(tmp, ignore_errors=True)
    return out


# --- how tables reach memory -------------------------------------------------------------------


def load_modes(a) -> list[tuple]:
    rows = rows_of(KORF)
    boards = "\n".join(r[1] for r in rows) + "\n"
    out = []
    for mode in ("map", "populate", "read"):
        best = (1e9, 1e9)
        for _ in range(a.runs):
            s, w, _ = npuzzle_solve(boards, "7-8", True, a.data_dir, {"NPUZZLE_LOAD": mode})
            best = min(best, (s, w))
        one = 1e9
        for _ in range(a.runs):
            for b in RANDOM_15:
                w, _ = run(
                    NPUZZLE + ["solve", b, "--data-dir", str(a.data_dir)],
                    env={"NPUZZLE_LOAD": mode},
                )
                one = min(one, w)
        out.append((mode, best[0], best[1], one))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--data-dir", type=Path, default=Path(os.environ.get("NPUZZLE_DATA", DATA)))
    ap.add_argument(
        "--cref",
        type=Path,
        default=None,
        help="the C reference solver's binary (its tables beside it); without it no C column",
    )
    ap.add_argument("--only", default="searches,oneshot,lookup,batch,load")
    a = ap.parse_args()
    parts = a.only.split(",")
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(ROOT / "solver")], stdout=subprocess.DEVNULL
    )
    subprocess.run(
        NPUZZLE + ["solve", RANDOM_15[0], "--data-dir", str(a.data_dir)], capture_output=True
    )  # warm: digests recorded, layouts remembered, kernel cached
    print(f"load average before: {load()}")
    if "searches" in parts or "oneshot" in parts:
        print("\n| measurement | npuzzle s | C s | npuzzle / C |\n|---|---|---|---|")
        rows = (searches(a) if "searches" in parts else []) + (
            oneshot(a) if "oneshot" in parts else []
        )
        for label, n, c in rows:
            if c >= 1e9:  # no C reference
                print(f"| {label} | {n:.3f} | - | - |")
            else:
                print(f"| {label} | {n:.3f} | {c:.3f} | {n / c:.2f}x |")
    if "lookup" in parts:
        print("\n| start-up | seconds |\n|---|---|")
        for label, n, _ in lookup(a):
            print(f"| {label} | {n:.3f} |" if "ratio" not in label else f"| {label} | {n:.2f}x |")
    if "batch" in parts:
        print("\n| batch (whole process) | seconds | boards/s |\n|---|---|---|")
        for label, s, rate in batches(a):
            print(f"| {label} | {s:.2f} | {rate:,.0f} |")
    if "load" in parts:
        print(
            "\n| tables (7-8) | Korf 100 + refl search s | whole s | one board whole s |\n"
            "|---|---|---|---|"
        )
        for mode, s, w, one in load_modes(a):
            print(f"| {mode} | {s:.3f} | {w:.2f} | {one:.3f} |")
    print(f"\nload average after: {load()}")


if __name__ == "__main__":
    main()
