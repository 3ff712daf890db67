#!/usr/bin/env python
"""What a user waits for from the shell: one 15-puzzle cold (a fresh process) and warm
(``--server URL``, through a running ``npuzzle serve``), Korf's 100 through the warm path, the
C reference's whole process on the same boards, one 80-move board on 2 cores against 1, and
the batch rates.  Every row is whole processes, timed from here,
in one run on one machine.

    python scripts/bench_oneshot.py                 # the table (about two minutes on 2 cores)
    python scripts/bench_oneshot.py --runs 21 --skip-80

Needs the 7-8 database in data/ (``build-pdb --shape 4x4 --partition 7-8``) and the C
reference when ``--cref PATH`` names it (the C reference solver, Korf & Felner's 2002 design,
which reads its tables from the binary's directory; without it the C rows are left out).  The server is started here on a free loopback port
with ``--workers 2`` and stopped at the end.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

ROOT = Path(__file__).resolve().parents[1]
BOARD = "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3"  # Korf's #1, 57 moves, a few ms of search
KORF = ROOT / "data" / "korf100.txt"
HARDEST = ROOT / "data" / "hardest80.txt"
NPUZZLE = [sys.executable, "-m", "solver"]
DISTANCE = [*NPUZZLE, "distance", "8 6 7 2 5 4 3 0 1"]  # the 8-puzzle's exact table
TARGETS = {
    "cold": "<= 2.0x import numpy",
    "cold-c": "<= 2.0x C one-shot",
    "distance": "<= 1.3x import numpy",
    "korf-cold": "<= 1.1x C whole process",
    "warm": "<= 0.15 s and <= C one-shot",
    "korf": "<= C whole process",
    "cores": ">= 1.7x",
    "heuristic": ">= 300,000 boards/s",
    "distance-rate": ">= 1,000,000 boards/s",
}


def timed(cmd, stdin: bytes | None = None, env=None) -> float:
    """Wall seconds of one whole process (its output discarded; it must succeed)."""
    t0 = time.perf_counter()
    r = subprocess.run(cmd, input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    seconds = time.perf_counter() - t0
    if r.returncode not in (0, 1):
        sys.exit(f"{' '.join(map(str, cmd))[:80]}: exit {r.returncode}: {r.stderr.decode()[-300:]}")
    return seconds


def spread(samples: list[float]) -> tuple[float, float, float]:
    return statistics.median(samples), min(samples), max(samples)


def random_boards(rows: int, cols: int, n: int, seed: int = 1) -> bytes:
    """``n`` uniformly random solvable boards for the blank-last goal, one a line."""
    from solver.core.board import goal_board
    from solver.workloads.bulk_answers import parity_many

    rng = np.random.default_rng(seed)
    b = np.argsort(rng.random((n, rows * cols)), axis=1)
    bad = np.flatnonzero(~parity_many(b, goal_board(f"{rows}x{cols}")).solvable)
    # Swapping two tiles (neither of them the blank) makes an unsolvable board solvable.
    i = np.where(b[bad, 0] == 0, 2, 0)
    j = np.where(b[bad, 1] == 0, 2, 1)
    b[bad, i], b[bad, j] = b[bad, j], b[bad, i].copy()
    return ("\n".join(" ".join(map(str, r)) for r in b.tolist()) + "\n").encode()


class Server:
    """``npuzzle serve`` on a free loopback port, ready when its workers are."""

    def __init__(self, workers: int, env: dict):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen(
            [*NPUZZLE, "serve", "--port", str(self.port), "--workers", str(workers)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        import json
        import urllib.request

        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(self.url + "/health", timeout=2) as r:
                    w = json.load(r)["workers"]
                    if w["ready"] == w["of"]:
                        return
            except OSError:
                pass
            time.sleep(0.3)
        sys.exit("the server did not start")

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGINT)
        self.proc.wait(30)


def two_cores(env: dict, url: str) -> list:
    """One 80-move board on 1 and 2 threads, whole processes: cold, and through the warm path
    (the server's search threads; what the client waits for is the search)."""
    hard = next(
        line.split("\t")[1] for line in HARDEST.read_text().splitlines() if line[:1].isdigit()
    )
    base = [*NPUZZLE, "solve", hard, "--goal", "blank-first", "--partition", "7-8"]
    rows = []
    for how, extra in (("whole process", []), ("through the warm path", ["--server", url])):
        j1 = [timed([*base, *extra, "-j", "1"], env=env) for _ in range(3)]
        j2 = [timed([*base, *extra, "-j", "2"], env=env) for _ in range(3)]
        ratio = statistics.median(j1) / statistics.median(j2)
        rows.append((f"80-move board, {how}, -j 1", spread(j1), ""))
        rows.append(
            (f"80-move board, {how}, -j 2", spread(j2), f"{ratio:.2f}x; target {TARGETS['cores']}")
        )
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=11, help="runs of each one-shot row (median)")
    ap.add_argument(
        "--cref",
        type=Path,
        default=None,
        help="the C reference solver's binary (its tables beside it); without it no C rows",
    )
    ap.add_argument("--skip-80", action="store_true", help="leave out the 80-move row")
    ap.add_argument("--batch", type=int, default=1_000_000, help="boards in the rate rows")
    a = ap.parse_args()
    cref = a.cref
    if cref is not None and not os.access(cref, os.X_OK):
        sys.exit(f"no C reference solver at {cref} (--cref names its binary)")
    # As an installed package runs: bytecode cached (a sandbox that sets PYTHONDONTWRITEBYTECODE
    # makes every process compile npuzzle's sources again: +0.1-0.2 s; see docs/research/end-to-end.md).
    drop = ("NPUZZLE_SERVER", "PYTHONDONTWRITEBYTECODE")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    korf = [line.split("\t")[1] for line in KORF.read_text().splitlines() if line[:1].isdigit()]
    korf_in = ("\n".join(korf) + "\n").encode()
    one = [*NPUZZLE, "solve", BOARD, "--goal", "blank-first"]
    rows = []

    server = Server(workers=2, env=env)
    try:
        warm = [*one, "--server", server.url]
        for cmd in (one, warm):  # the page cache, the server's threads
            timed(cmd, env=env)
        imports, cold, hot, c_one, dist = [], [], [], [], []
        for _ in range(a.runs):  # interleaved: a change in the machine's load hits every row
            imports.append(timed([sys.executable, "-c", "import numpy"], env=env))
            cold.append(timed(one, env=env))
            dist.append(timed(DISTANCE, env=env))
            hot.append(timed(warm, env=env))
            if cref is not None:
                c_one.append(
                    timed([cref, "solve", "78", cref.parent, "--reflect"], (BOARD + "\n").encode())
                )
        imp = spread(imports)
        rows.append(("python -c 'import numpy'", imp, ""))
        rows.append(
            (
                "cold one-shot `npuzzle solve` (15-puzzle)",
                spread(cold),
                f"{statistics.median(cold) / imp[0]:.2f}x import; target {TARGETS['cold']}",
            )
        )
        rows.append(
            (
                "`npuzzle distance` 3x3 (exact table)",
                spread(dist),
                f"{statistics.median(dist) / imp[0]:.2f}x import; target {TARGETS['distance']}",
            )
        )
        rows.append(("warm one-shot `--server URL`", spread(hot), f"target {TARGETS['warm']}"))
        if cref is not None:
            ratio = statistics.median(cold) / statistics.median(c_one)
            rows.append(
                (
                    "C reference one-shot (loads 550 MB)",
                    spread(c_one),
                    f"cold npuzzle {ratio:.2f}x this; target {TARGETS['cold-c']}",
                )
            )
        runs = max(3, a.runs // 3)
        korf_warm = [
            timed(
                [*NPUZZLE, "solve", "-", "--goal", "blank-first", "--server", server.url],
                korf_in,
                env,
            )
            for _ in range(runs)
        ]
        korf_c = [
            timed([cref, "solve", "78", cref.parent, "--reflect"], korf_in)
            for _ in range(runs if cref is not None else 0)
        ]
        korf_cold = [
            timed([*NPUZZLE, "solve", "-", "--goal", "blank-first"], korf_in, env)
            for _ in range(runs)
        ]
        versus = (
            f"{statistics.median(korf_warm) / statistics.median(korf_c):.2f}x C; " if korf_c else ""
        )
        rows.append(
            (
                "Korf's 100 through the warm path (2 server threads)",
                spread(korf_warm),
                f"{versus}target {TARGETS['korf']}",
            )
        )
        if korf_c:
            rows.append(("Korf's 100, C reference whole process (1 core)", spread(korf_c), ""))
        cold_c = (
            f"{statistics.median(korf_cold) / statistics.median(korf_c):.2f}x C; "
            f"target {TARGETS['korf-cold']}"
            if korf_c
            else ""
        )
        rows.append(("Korf's 100, `npuzzle solve -` cold whole process", spread(korf_cold), cold_c))
        if not a.skip_80:
            rows += two_cores(env, server.url)
    finally:
        server.stop()

    with tempfile.TemporaryDirectory() as tmp:
        for name, shape, cmd in (
            ("heuristic", (4, 4), "heuristic"),
            ("distance-rate", (3, 3), "distance"),
        ):
            f = Path(tmp) / f"{name}.txt"
            f.write_bytes(random_boards(*shape, a.batch))
            samples = []
            for _ in range(3):
                with open(f, "rb") as stdin:
                    t0 = time.perf_counter()
                    subprocess.run(
                        [*NPUZZLE, cmd, "-"],
                        stdin=stdin,
                        stdout=subprocess.DEVNULL,
                        env=env,
                        check=True,
                    )
                    samples.append(a.batch / (time.perf_counter() - t0))
            rate = statistics.median(samples)
            label = f"`npuzzle {cmd} -` {shape[0]}x{shape[1]}, {a.batch:,} boards"
            rows.append((label, None, f"{rate:,.0f} boards/s; target {TARGETS[name]}"))

    load = os.getloadavg()[0]
    print(
        f"# {os.cpu_count()} cores, load average {load:.1f}; medians of {a.runs} runs (min-max); whole processes"
    )
    print("| measurement | median s | min-max s | note |")
    print("|---|---|---|---|")
    for label, s, note in rows:
        if s is None:
            print(f"| {label} | | | {note} |")
        else:
            print(f"| {label} | {s[0]:.3f} | {s[1]:.3f}-{s[2]:.3f} | {note} |")


if __name__ == "__main__":
    main()
