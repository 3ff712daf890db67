#!/usr/bin/env python
"""Korf & Felner's 50 random 24-puzzles: any subset, solved one by one with a cap per board,
beside the published counts, with the CPU time of all 50 extrapolated.

    python scripts/bench_korf_felner50.py --easiest 13 --cap 600          # the 13 easiest
    python scripts/bench_korf_felner50.py --instances 1,5,30-33 --jobs 2
    python scripts/bench_korf_felner50.py --instances 9 --cap 0 --scheduler tcp://10.0.0.1:8786

Each board is one `npuzzle solve BOARD --goal blank-first --json` process of this checkout,
so what is measured is what a user runs: the databases the catalog finds in the data
directory (build the strongest 5x5 set first), the race, the threads.  Per board the table
prints the optimal length found, nodes generated and expanded, wall seconds and CPU-seconds
(of the process and its threads; with --scheduler the workers' CPU is elsewhere and the
column shows wall seconds x --jobs), and beside them Korf & Felner's generated nodes (2002)
and the expanded nodes of Clausecker's public solver with its 20-move FSM
(data/korf-felner-24-clausecker.txt).

The extrapolation to all 50: a board that was not run, or was stopped by the cap, is
projected at Clausecker's FSM-20 count times the median ratio of expanded nodes measured on
the boards that finished, at the CPU-seconds per expanded node they took.  It is an estimate
that is only as good as the boards measured; the table says how many it rests on.  The
published anchor: Clausecker's runs with his zero-aware 'small' set took 20,301 CPU-minutes
(338 CPU-hours) on his machine.

Rows are printed as each board ends, so a long run under ``nohup`` shows its progress.
Ctrl-C stops the board in flight and prints the table of the boards done.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench_summary import machine  # the machine in words, as the README's table names it

ROOT = Path(__file__).resolve().parents[1]
INSTANCES = ROOT / "data" / "korf-felner-24.txt"
CLAUSECKER = ROOT / "data" / "korf-felner-24-clausecker.txt"
CLAUSECKER_CPU_HOURS = 20_301 / 60  # his doc/zpdb-paper-2/runtimes.txt, small-zpdb, user time


@dataclass
class Instance:
    """One of the 50 boards with its published counts."""

    id: int
    tiles: str
    optimal: int
    kf_generated: int
    clausecker_fsm20: int


@dataclass
class Run:
    """What one board's search measured (``status`` is solved, limit or error)."""

    instance: Instance
    status: str
    length: int | None = None
    lower_bound: int | None = None
    generated: int = 0
    expanded: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    note: str = ""
    record: dict = field(default_factory=dict, repr=False)

    @property
    def ratio(self) -> float:
        """Expanded nodes as a multiple of Clausecker's FSM-20 count."""
        return self.expanded / self.instance.clausecker_fsm20


def read_instances() -> list[Instance]:
    """The 50 boards (blank-first goal) with Korf & Felner's and Clausecker's counts."""
    fsm20 = {}
    for line in CLAUSECKER.read_text().splitlines():
        if line and not line.startswith("#"):
            f = line.split("\t")
            fsm20[int(f[0])] = int(f[3])
    out = []
    for line in INSTANCES.read_text().splitlines():
        if line and line[0].isdigit():
            f = line.split("\t")
            i = int(f[0])
            out.append(Instance(i, f[1], int(f[2]), int(f[3]), fsm20[i]))
    return out


def parse_ids(text: str) -> set[int]:
    """``1,5,30-33`` -> {1, 5, 30, 31, 32, 33}."""
    ids = set()
    for part in text.split(","):
        lo, _, hi = part.strip().partition("-")
        ids.update(range(int(lo), int(hi or lo) + 1))
    return ids


def chosen(instances: list[Instance], args) -> list[Instance]:
    """The boards to run, in the order to run them."""
    if args.instances:
        ids = parse_ids(args.instances)
        unknown = ids - {p.id for p in instances}
        if unknown:
            sys.exit(f"bench_korf_felner50: no instance {sorted(unknown)}: ids are 1 to 50")
        return [p for p in instances if p.id in ids]
    easiest = sorted(instances, key=lambda p: p.clausecker_fsm20)
    return easiest[: args.easiest] if args.easiest else easiest


def command(p: Instance, args) -> list[str]:
    """The ``npuzzle solve`` command line of one board."""
    cmd = [sys.executable, "-m", "solver", "solve", p.tiles, "--goal", "blank-first", "--json"]
    if args.cap:
        cmd += ["--timeout", str(args.cap)]
    if args.jobs:
        cmd += ["--jobs", str(args.jobs)]
    if args.scheduler:
        cmd += ["--scheduler", args.scheduler]
    if args.data_dir:
        cmd += ["--data-dir", str(args.data_dir)]
    return cmd + list(args.extra)


def children_cpu() -> float:
    """CPU-seconds used so far by this process's finished children, their threads included."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_one(p: Instance, args) -> Run:
    """Solve one board in its own process and read its JSON answer."""
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )
    cpu0, t0 = children_cpu(), time.perf_counter()
    proc = subprocess.run(command(p, args), capture_output=True, text=True, env=env, cwd=ROOT)
    seconds, cpu = time.perf_counter() - t0, children_cpu() - cpu0
    if args.scheduler:
        cpu = seconds * (args.jobs or 1)
    lines = [x for x in proc.stdout.splitlines() if x.startswith("{")]
    if not lines:
        why = (proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[-1]
        return Run(p, "error", seconds=seconds, cpu_seconds=cpu, note=why)
    rec = json.loads(lines[-1])
    run = Run(
        p,
        "solved" if rec.get("moves") is not None else "limit",
        length=rec.get("length"),
        lower_bound=rec.get("lower_bound"),
        generated=rec.get("nodes_generated") or 0,
        expanded=rec.get("nodes_expanded") or 0,
        seconds=seconds,
        cpu_seconds=cpu,
        record=rec,
    )
    if run.status == "solved" and run.length != p.optimal:
        run.note = f"LENGTH {run.length} IS NOT THE PUBLISHED OPTIMUM {p.optimal}"
    return run


HEADER = (
    "| # | optimal | found | generated | expanded | s | CPU-s | KF 2002 generated "
    "| Clausecker FSM-20 expanded | expanded / FSM-20 |"
)
RULE = "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"


def row(r: Run) -> str:
    """One board's line of the table."""
    found = r.length if r.status == "solved" else f">= {r.lower_bound}" if r.lower_bound else "-"
    if r.status == "error":
        found = "error"
    cells = [
        r.instance.id,
        r.instance.optimal,
        found,
        f"{r.generated:,}",
        f"{r.expanded:,}",
        f"{r.seconds:,.1f}",
        f"{r.cpu_seconds:,.1f}",
        f"{r.instance.kf_generated:,}",
        f"{r.instance.clausecker_fsm20:,}",
        f"{r.ratio:.2f}" if r.expanded else "-",
    ]
    line = "| " + " | ".join(map(str, cells)) + " |"
    return line + (f" {r.note}" if r.note else "")


@dataclass
class Projection:
    """The CPU time of all 50, measured where a board finished and estimated elsewhere."""

    measured_cpu: float
    projected_cpu: float
    finished: int
    ratio: float | None
    rate: float | None  # CPU-seconds per expanded node on the finished boards


def project(runs: list[Run], instances: list[Instance]) -> Projection:
    """The extrapolation to all 50 (see the module's docstring)."""
    done = [r for r in runs if r.status == "solved" and r.expanded]
    measured = sum(r.cpu_seconds for r in done)
    if not done:
        return Projection(measured, float("nan"), 0, None, None)
    ratio = statistics.median(r.ratio for r in done)
    rate = measured / sum(r.expanded for r in done)
    finished = {r.instance.id for r in done}
    stopped = {r.instance.id: r.expanded for r in runs if r.instance.id not in finished}
    projected = 0.0
    for p in instances:
        if p.id not in finished:
            projected += max(p.clausecker_fsm20 * ratio, stopped.get(p.id, 0)) * rate
    return Projection(measured, projected, len(done), ratio, rate)


def report(runs: list[Run], instances: list[Instance], args) -> None:
    """The totals and the extrapolation, after the table."""
    pr = project(runs, instances)
    total = pr.measured_cpu + pr.projected_cpu
    print()
    print(f"boards run: {len(runs)}, solved optimally within the cap: {pr.finished}")
    if pr.ratio is None:
        print("no board finished: nothing to extrapolate from")
        return
    print(f"median expanded / Clausecker FSM-20 on those: {pr.ratio:.2f}")
    print(f"CPU-seconds per expanded node: {pr.rate * 1e9:.1f} per G")
    print(
        f"all 50: {pr.measured_cpu / 3600:.2f} CPU-hours measured + "
        f"{pr.projected_cpu / 3600:.2f} projected = {total / 3600:.2f} CPU-hours "
        f"(Clausecker's published 'small' zero-aware runs: {CLAUSECKER_CPU_HOURS:.0f} CPU-hours)"
    )


def main(argv=None) -> int:
    """Run the chosen boards and print the table, then the totals."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--instances", help="ids to run, e.g. 1,5,30-33 (default: all 50)")
    ap.add_argument("--easiest", type=int, default=0, help="run the N with the fewest FSM-20 nodes")
    ap.add_argument(
        "--cap", type=float, default=600, help="seconds per board, 0 for none (default 600)"
    )
    ap.add_argument("--jobs", "-j", type=int, default=None, help="npuzzle solve --jobs")
    ap.add_argument("--scheduler", help="a Dask scheduler's address: solve on that cluster")
    ap.add_argument("--data-dir", type=Path, help="npuzzle's --data-dir")
    ap.add_argument("--json", type=Path, help="also write every run's record to this file")
    ap.add_argument("extra", nargs="*", help="more options for npuzzle solve, after --")
    args = ap.parse_args(argv)
    instances = read_instances()
    todo = chosen(instances, args)
    print(
        f"Korf & Felner's 24-puzzles, {time.strftime('%Y-%m-%d')}, {machine()}, "
        f"Python {platform.python_version()}; "
        f"cap {args.cap:g} s a board, jobs {args.jobs or 'all'}"
        + (f", scheduler {args.scheduler}" if args.scheduler else "")
    )
    print()
    print(HEADER)
    print(RULE, flush=True)
    runs = []
    try:
        for p in todo:
            runs.append(run_one(p, args))
            print(row(runs[-1]), flush=True)
    except KeyboardInterrupt:
        print(f"(interrupted: {len(runs)} of {len(todo)} boards done)")
    report(runs, instances, args)
    if args.json:
        args.json.write_text("".join(json.dumps(r.record) + "\n" for r in runs if r.record))
    return 1 if any(r.note or r.status == "error" for r in runs) else 0


if __name__ == "__main__":
    sys.exit(main())
