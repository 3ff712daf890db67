#!/usr/bin/env python
"""The README's performance table: a few short, fresh measurements of what is built, printed
as markdown under a header naming the date and the machine.

    python scripts/bench_summary.py                          # the databases of npuzzle's data dir
    python scripts/bench_summary.py --data-dir /tmp/npz --build     # build the default set first
    python scripts/bench_summary.py --cref PATH              # the C reference side by side

Every row runs the real command line (``python -m solver``) in fresh processes, as a user does:

* the 8-puzzle: one ``npuzzle distance BOARD`` from the shell (whole process, median), and a
  batch of random boards through ``npuzzle distance -`` (boards a second, start-up included);
* the 15-puzzle: one random board from the shell (``npuzzle solve BOARD``, median), Korf's 100
  and, where 7-8 is built, the 17 positions that need 80 moves through ``npuzzle solve -`` with
  each 4x4 database built (the sum of the per-board search seconds, best of ``--runs``, and
  the nodes a board); the zero-aware twin is read where it is built, as npuzzle's default does;
* the 24-puzzle: Korf & Taylor's ten with ``--algorithm fast`` (no database), and with the
  6-6-6-6 database where it is built, ``--weight 1.5``.

With ``--cref PATH`` (the C reference solver, Korf & Felner's 2002 design: IDA* over the same
additive databases with the mirrored lookup, its tables in the binary's directory) the C
reference runs the same 15-puzzle jobs in the same run, alternating with npuzzle.  A row whose
database is not built is left out and named under the table, with the command that builds it.
The whole run takes one to two minutes with the default databases (plus half a minute for
``--build``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NPUZZLE = [sys.executable, "-m", "solver"]
BUILD_PDB = [sys.executable, "-m", "pdb_builder"]
KORF100 = ROOT / "data" / "korf100.txt"
HARD80 = ROOT / "data" / "hardest80.txt"
KT24 = ROOT / "data" / "korf-taylor-24.txt"
BOARD_8 = "8 6 7 2 5 4 3 0 1"
# A random solvable 15-puzzle (blank-last goal), drawn once with numpy's default_rng(11).
BOARD_15 = "2 8 13 12 1 9 6 5 11 4 15 3 10 7 0 14"
# The C reference's names of the partitions it has.
C_PARTITION = {"6-6-3": "663", "7-8": "78"}


@dataclass
class Row:
    """One line of the table: what was measured, npuzzle's figure and the C reference's."""

    label: str
    npuzzle: str
    c: str = "-"
    ratio: str = "-"


def machine() -> str:
    """The CPU model, the number of cores and the memory of this machine, in words."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
        kib = int(re.search(r"MemTotal:\s+(\d+)", Path("/proc/meminfo").read_text()).group(1))
        memory = f"{kib / 2**20:.0f} GiB memory"
    except (OSError, AttributeError):
        memory = "memory unknown"
    return f"{model}, {os.cpu_count()} cores, {memory}"


def run(cmd: list[str], stdin: bytes | None = None) -> tuple[float, subprocess.CompletedProcess]:
    """Wall seconds and the finished process of ``cmd`` (stdout and stderr captured)."""
    t = time.perf_counter()
    p = subprocess.run(cmd, input=stdin, capture_output=True)
    return time.perf_counter() - t, p


def checked(p: subprocess.CompletedProcess, what: str) -> subprocess.CompletedProcess:
    """``p`` if it exited 0; else stop the run with its last line of stderr."""
    if p.returncode != 0:
        tail = p.stderr.decode(errors="replace").strip().splitlines()[-1:]
        sys.exit(f"{what} failed (exit status {p.returncode}): {' '.join(tail)}")
    return p


def rows_of(path: Path) -> list[tuple[str, int]]:
    """(tiles, optimal length) of each instance of a tab-separated reference file."""
    out = []
    for line in path.read_text().splitlines():
        if line[:1].isdigit():
            fields = line.split("\t")
            out.append((fields[1], int(fields[2])))
    return out


def built(data: Path, name: str) -> bool:
    """Whether the database file ``name`` is in the data directory."""
    return (data / name).is_file()


def seconds(s: float) -> str:
    """``s`` as the table prints it."""
    return f"{s:.3f} s" if s < 10 else f"{s:.1f} s"


def ratio(n: float, c: float | None) -> str:
    """npuzzle's figure over C's, or a dash without C."""
    return "-" if not c else f"{n / c:.2f}x"


# --- the rows ----------------------------------------------------------------------------------


def eight_puzzle(data: Path, runs: int, batch: int) -> list[Row]:
    """One distance from the shell, and a batch of random 8-puzzles through ``distance -``."""
    one = [*NPUZZLE, "distance", BOARD_8, "--data-dir", str(data)]
    checked(run(one)[1], "npuzzle distance")  # warm: the digest recorded, the layout remembered
    walls = [run(one)[0] for _ in range(runs)]
    gen = [*NPUZZLE, "generate", "--count", str(batch), "--seed", "1", "--data-dir", str(data)]
    boards = checked(run(gen)[1], "npuzzle generate").stdout
    best = min(
        run([*NPUZZLE, "distance", "-", "--data-dir", str(data)], boards)[0] for _ in range(runs)
    )
    return [
        Row("one 8-puzzle distance from the shell (`npuzzle distance`)", seconds(median(walls))),
        Row(
            f"8-puzzle distances in a batch (`distance -`, {batch:,} boards, start-up included)",
            f"{batch / best:,.0f} boards/s",
        ),
    ]


def median(xs: list[float]) -> float:
    """The median of ``xs``."""
    return statistics.median(xs)


def solve_batch(
    boards: list[tuple[str, int]], data: Path, partition: str, extra: list[str] = ()
) -> tuple[float, float, int, str]:
    """npuzzle on ``boards`` (blank-first goal) in one ``solve -``: search seconds (the sum of
    the per-board seconds), whole-process seconds, nodes generated, the heuristic's name."""
    cmd = [*NPUZZLE, "solve", "-", "--json", "--goal", "blank-first", "--jobs", "1"]
    cmd += ["--partition", partition, "--data-dir", str(data), *extra]
    text = "".join(t + "\n" for t, _ in boards).encode()
    wall, p = run(cmd, text)
    answers = [json.loads(line) for line in checked(p, "npuzzle solve -").stdout.splitlines()]
    lengths = [a["length"] for a in answers]
    if lengths != [n for _, n in boards]:
        sys.exit(f"npuzzle's lengths differ from the published ones ({partition})")
    name = answers[0].get("heuristic_name") or answers[0].get("heuristic")
    search = sum(a["seconds"] for a in answers)
    return search, wall, sum(a["nodes_generated"] for a in answers), str(name)


def cref_batch(boards: list[tuple[str, int]], cref: Path, partition: str) -> float:
    """The C reference's search seconds on ``boards`` with the mirrored lookup."""
    cmd = [str(cref), "solve", C_PARTITION[partition], str(cref.parent), "--reflect"]
    p = checked(run(cmd, "".join(t + "\n" for t, _ in boards).encode())[1], "the C reference")
    out = p.stdout.decode()
    lengths = [int(line.split("\t")[0]) for line in out.splitlines() if line[:1].isdigit()]
    if lengths != [n for _, n in boards]:
        sys.exit(f"the C reference's lengths differ from the published ones ({partition})")
    return float(re.search(r"seconds=([\d.]+)", out).group(1))


def searches(data: Path, cref: Path | None, runs: int, partition: str) -> list[Row]:
    """Korf's 100 (and with 7-8 the 80-move positions) with ``partition``, C beside it."""
    jobs = [("Korf's 100", rows_of(KORF100), runs)]
    if partition == "7-8":
        jobs.append(("the 17 80-move positions", rows_of(HARD80), 1))
    out = []
    for title, boards, times in jobs:
        best_n = best_c = None
        nodes, name = 0, ""
        for _ in range(times):  # alternating, so that both meet the same load
            search, _, nodes, name = solve_batch(boards, data, partition)
            best_n = search if best_n is None else min(best_n, search)
            if cref is not None and partition in C_PARTITION:
                c = cref_batch(boards, cref, partition)
                best_c = c if best_c is None else min(best_c, c)
        out.append(
            Row(
                f"{title}, {name}, search (one core; {nodes / len(boards):,.0f} nodes a board)",
                seconds(best_n),
                seconds(best_c) if best_c else "-",
                ratio(best_n, best_c),
            )
        )
    return out


def one_15(data: Path, cref: Path | None, runs: int, partition: str) -> Row:
    """One random 15-puzzle from the shell, whole process, median of ``runs``."""
    cmd = [*NPUZZLE, "solve", BOARD_15, "--partition", partition, "--data-dir", str(data)]
    checked(run(cmd)[1], "npuzzle solve")
    ours, theirs = [], []
    blank_first = " ".join(str((16 - int(t)) % 16) for t in reversed(BOARD_15.split()))
    for _ in range(runs):
        ours.append(run(cmd)[0])
        if cref is not None and partition in C_PARTITION:
            c = [str(cref), "solve", C_PARTITION[partition], str(cref.parent), "--reflect"]
            theirs.append(run(c, (blank_first + "\n").encode())[0])
    c = median(theirs) if theirs else None
    return Row(
        f"one random 15-puzzle from the shell (`npuzzle solve`, {partition}), whole process",
        seconds(median(ours)),
        seconds(c) if c else "-",
        ratio(median(ours), c),
    )


def twenty_four(data: Path, missing) -> list[Row]:
    """Korf & Taylor's ten: ``--algorithm fast`` always, ``--weight 1.5`` where 6-6-6-6 is."""
    boards = rows_of(KT24)
    text = "".join(t + "\n" for t, _ in boards).encode()
    out = []
    modes = [("--algorithm fast", ["--algorithm", "fast"])]
    if built(data, "apdb-5x5-6-6-6-6.h5"):
        modes.append(("--weight 1.5", ["--weight", "1.5"]))
    else:
        missing.append(("Korf & Taylor's ten with --weight 1.5", "build-pdb --shape 5x5"))
    for label, flags in modes:
        cmd = [*NPUZZLE, "solve", "-", "--json", "--goal", "blank-first", *flags]
        wall, p = run([*cmd, "--data-dir", str(data)], text)
        answers = [json.loads(line) for line in checked(p, label).stdout.splitlines()]
        over = [a["length"] / n for a, (_, n) in zip(answers, boards)]
        out.append(
            Row(
                f"Korf & Taylor's ten 24-puzzles, `{label}` (length {min(over):.2f}-"
                f"{max(over):.2f} x optimal), whole process",
                seconds(wall),
            )
        )
    return out


def build_default(data: Path) -> Row:
    """The default ``build-pdb`` into ``data`` (and the 6-6-3 zero-aware twin), timed."""
    wall, p = run([*BUILD_PDB, "--data-dir", str(data)])
    checked(p, "build-pdb")
    twin = [*BUILD_PDB, "--shape", "4x4", "--partition", "6-6-3", "--zero-aware"]
    checked(run([*twin, "--data-dir", str(data)])[1], "build-pdb --zero-aware")
    return Row("the default `build-pdb` (exact tables up to 10 cells, 4x4 6-6-3)", seconds(wall))


# --- the table ---------------------------------------------------------------------------------


def header(data: Path, partitions: list[str], load: float) -> str:
    """The line above the table: the date, the machine, its load and the databases read."""
    twins = [p for p in partitions if built(data, f"zpdb-4x4-{p}.h5")]
    return (
        f"Measured {time.strftime('%Y-%m-%d')} by `scripts/bench_summary.py` on {machine()}; "
        f"load average {load:.2f} at the start; 15-puzzle databases "
        f"{', '.join(partitions) or 'none'}"
        + (f" (zero-aware twins of {', '.join(twins)})" if twins else "")
        + "."
    )


def markdown(rows: list[Row], with_c: bool) -> list[str]:
    """The table's lines; the C columns only when the C reference ran."""
    if with_c:
        lines = ["| measurement | npuzzle | C reference | npuzzle / C |", "|---|---:|---:|---:|"]
        lines += [f"| {r.label} | {r.npuzzle} | {r.c} | {r.ratio} |" for r in rows]
    else:
        lines = ["| measurement | npuzzle |", "|---|---:|"]
        lines += [f"| {r.label} | {r.npuzzle} |" for r in rows]
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", default=None, help="the databases (default: npuzzle's own)")
    ap.add_argument("--build", action="store_true", help="build the default set there first")
    ap.add_argument(
        "--cref",
        type=Path,
        default=None,
        help="the C reference solver's binary (its tables beside it); without it no C column",
    )
    ap.add_argument("--runs", type=int, default=3, help="runs of each row (best or median)")
    ap.add_argument("--batch", type=int, default=1_000_000, help="boards in the 8-puzzle batch")
    a = ap.parse_args()
    if a.cref is not None and not os.access(a.cref, os.X_OK):
        sys.exit(f"no C reference solver at {a.cref} (--cref names its binary)")
    sys.path.insert(0, str(ROOT))
    from solver.tables import store

    data = store.data_dir(a.data_dir).absolute()
    # As an installed package runs: byte-code compiled once, not at every start.
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "solver")], check=False)
    load = os.getloadavg()[0]
    rows: list[Row] = []
    if a.build:
        data.mkdir(parents=True, exist_ok=True)
        rows.append(build_default(data))
    missing: list[tuple[str, str]] = []
    if built(data, "exact-3x3.h5"):
        rows += eight_puzzle(data, max(a.runs, 5), a.batch)
    else:
        missing.append(("the 8-puzzle rows", "build-pdb"))
    partitions = [p for p in ("6-6-3", "7-8") if built(data, f"apdb-4x4-{p}.h5")]
    if not partitions:
        missing.append(("the 15-puzzle rows", "build-pdb"))
    if "7-8" not in partitions:
        fix = "build-pdb --shape 4x4 --partition 7-8"
        missing.append(("Korf's 100 and the 17 80-move positions with 7-8", fix))
    for partition in partitions:
        rows += searches(data, a.cref, a.runs, partition)
    if partitions:
        rows.append(one_15(data, a.cref, max(a.runs, 5), partitions[-1]))
    rows += twenty_four(data, missing)
    print(header(data, partitions, load))
    print()
    print("\n".join(markdown(rows, a.cref is not None)))
    if missing:
        print()
        print(
            "Not measured (not built in the data directory): "
            + "; ".join(f"{what} (`{fix}`)" for what, fix in dict(missing).items())
            + "."
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
