#!/usr/bin/env python
"""A local two-worker Dask cluster against ``--jobs 2``, a worker killed mid-batch, and the
per-task costs behind the throughput estimate for bigger clusters (docs/research/cluster.md).

    python scripts/bench_cluster.py --data-dir DIR                  # everything (minutes)
    python scripts/bench_cluster.py --data-dir DIR --random 200 --skip-kill

1. **Costs.**  The scheduler's time per task (empty tasks, many in flight), the client's CPU
   time per answer, and the solving time per board on one core: 3x3 table walks, random
   15-puzzles with 6-6-3 and with 7-8.
2. **Throughput.**  Each workload through the real command line, ``npuzzle solve -`` with
   ``--jobs 2`` and with ``--scheduler`` on a local cluster started as the docs say
   (``dask scheduler``; ``dask worker --nworkers 2 --nthreads 1``): *cold* right after the
   workers restarted (they load the kernels and map the tables), *warm* on a second run.
   Wall-clock time of the whole command, start-up included, and the CPU seconds of every
   process involved (client, scheduler, nannies and workers; for ``--jobs 2`` the command
   and its pool) -- on a shared, loaded machine the CPU time is the steadier measure.  The
   answers must be identical.
3. **A killed worker.**  A cluster run of the random 15-puzzles during which one worker is
   killed (SIGKILL) part-way: every answer must be there, once, in order, identical to the
   ``--jobs 2`` answers (and so optimal).
4. **Estimate** for 10, 100 and 1,000 workers, from the costs in 1: the solving capacity
   (workers / seconds per board), the scheduler's limit (boards per task / seconds per task)
   with one board per task and with the boards per task the client chooses, and the client's
   limit (one process prints every answer).
5. **One hard board** (``--one-board IDS``, instead of 1-4): Korf & Felner's 24-puzzles
   (``data/korf-felner-24.txt``, goal blank-first), each ``npuzzle solve BOARD --json`` with
   ``--jobs 2`` and with ``--scheduler``, alternating, ``--runs`` times, after one untimed
   run of an easy board each way (the workers map the tables): the command's wall seconds,
   the search's seconds and nodes, the heuristic and the race the answers name.

    python scripts/bench_cluster.py --data-dir DIR --one-board 13 --runs 2

Costs are CPU seconds (``time.process_time``, psutil for the Dask processes), so they hold on
a quiet machine too; the load average is printed with the wall-clock results (all of it runs
on this machine: the scheduler, the client and both workers share its cores).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from solver import api  # noqa: E402
from solver.core.board import Shape, goal_board  # noqa: E402
from solver.workloads import cluster  # noqa: E402
from solver.workloads.generate import shuffled  # noqa: E402

KORF_FILE = ROOT / "data" / "korf100.txt"
# Dask's command beside this Python (a virtual environment not on PATH), else on PATH.
DASK = str(Path(sys.executable).with_name("dask"))
DASK = DASK if os.path.exists(DASK) else "dask"


def korf_lines() -> list[str]:
    """Korf's 100 instances (for the blank-first goal)."""
    return [
        line.split("\t")[1]
        for line in KORF_FILE.read_text().splitlines()
        if line and line[0].isdigit()
    ]


def random_lines(shape: str, count: int, seed: int) -> list[str]:
    """``count`` uniformly random solvable positions (blank-last goal)."""
    boards = shuffled(goal_board(Shape.parse(shape)), count, np.random.default_rng(seed))
    return [" ".join(map(str, row)) for row in boards.tolist()]


def children_cpu() -> float:
    """CPU seconds of this process's finished children (a command and its pool)."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


CLI_CPU: list = []  # the CPU seconds of the last command alone (with its pool, if any)


def run_cli(
    args: list[str], lines: list[str], dask=None, kill=None, env=None
) -> tuple[float, float, list[str], int]:
    """``npuzzle solve - ARGS`` on the lines: (wall seconds, CPU seconds of the command and
    of the Dask processes ``dask``, stdout lines, exit status).  ``kill()`` is called from a
    thread while it runs, when given."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    own = children_cpu()
    before = own + (dask.cpu() if dask else 0.0)
    t0 = time.perf_counter()
    p = subprocess.Popen(
        [sys.executable, "-m", "solver", "solve", "-", *args],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    killer = threading.Thread(target=kill, daemon=True) if kill else None
    if killer:
        killer.start()
    out, _ = p.communicate("\n".join(lines) + "\n")
    if killer:
        killer.join()
    wall = time.perf_counter() - t0
    CLI_CPU[:] = [children_cpu() - own]
    cpu = children_cpu() + (dask.cpu() if dask else 0.0) - before
    return wall, cpu, out.splitlines(), p.returncode


class Dask:
    """A cluster started as the docs say: ``dask scheduler`` and ``dask worker --nworkers 2
    --nthreads 1``, on 127.0.0.1 only."""

    def __init__(self, data: str):
        import psutil

        self.dir = tempfile.mkdtemp(prefix="npuzzle-bench-dask-")
        self.file = os.path.join(self.dir, "scheduler.json")
        env = {**os.environ, "PYTHONPATH": str(ROOT), "NPUZZLE_DATA": data}
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "env": env}
        self.scheduler = subprocess.Popen(
            [
                DASK,
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--dashboard-address",
                "127.0.0.1:0",
                "--scheduler-file",
                self.file,
            ],
            **quiet,
        )
        while not os.path.exists(self.file):
            time.sleep(0.1)
        time.sleep(0.5)  # written, and complete
        self.address = json.load(open(self.file))["address"]
        self.workers = subprocess.Popen(
            [
                DASK,
                "worker",
                self.address,
                "--nworkers",
                "2",
                "--nthreads",
                "1",
                "--host",
                "127.0.0.1",
                "--dashboard-address",
                "127.0.0.1:0",
            ],
            **quiet,
        )
        self.psutil = psutil

    def processes(self) -> list:
        """The scheduler, the nannies and the workers."""
        out = []
        for top in (self.scheduler, self.workers):
            p = self.psutil.Process(top.pid)
            out += [p, *p.children(recursive=True)]
        return out

    def cpu(self) -> float:
        """CPU seconds the Dask processes have used so far."""
        total = 0.0
        for p in self.processes():
            try:
                t = p.cpu_times()
                total += t.user + t.system
            except self.psutil.Error:
                pass  # a worker that just died
        return total

    def scheduler_cpu(self) -> float:
        t = self.psutil.Process(self.scheduler.pid).cpu_times()
        return t.user + t.system

    def close(self) -> None:
        for p in (self.workers, self.scheduler):
            p.send_signal(signal.SIGINT)
        for p in (self.workers, self.scheduler):
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                p.kill()


# --- 1. costs --------------------------------------------------------------------------------


def _nothing(item):
    return item


def scheduler_seconds_per_task(client, dask: Dask, tasks: int = 3000) -> tuple[float, float]:
    """(scheduler CPU seconds per task, wall seconds per task) of empty tasks, many in
    flight: the scheduler handles tasks one at a time, so its CPU time per task is the
    cluster's limit in tasks per second."""
    saved = cluster.MAX_BOARDS_PER_TASK, cluster.TASKS_PER_THREAD
    cluster.MAX_BOARDS_PER_TASK, cluster.TASKS_PER_THREAD = 1, 500
    try:
        list(cluster.map_ordered(client, _nothing, range(200)))  # warm
        c0, t0 = dask.scheduler_cpu(), time.perf_counter()
        list(cluster.map_ordered(client, _nothing, range(tasks)))
        return (dask.scheduler_cpu() - c0) / tasks, (time.perf_counter() - t0) / tasks
    finally:
        cluster.MAX_BOARDS_PER_TASK, cluster.TASKS_PER_THREAD = saved


def solve_seconds_per_board(lines: list[str], opts, goal=None) -> float:
    """CPU seconds per board solving them one after another on this process (warmed up)."""
    api.solve(lines[0], goal, options=opts)
    t0 = time.process_time()
    for line in lines:
        api.solve(line, goal, options=opts)
    return (time.process_time() - t0) / len(lines)


# --- 4. the estimate -------------------------------------------------------------------------


def estimate(per_board: float, sched: float, client_cpu: float, workers: int) -> dict:
    """Boards per second that ``workers`` single-thread workers reach, and what limits it."""
    pacer = cluster.Pacer(workers)
    pacer.learn(1, per_board)
    batched = pacer.boards()
    limits = {
        "solving": workers / per_board,
        "scheduler": batched / sched,
        "client": 1 / client_cpu,
    }
    which = min(limits, key=limits.get)
    return {
        "one_per_task": min(workers / per_board, 1 / sched),
        "batched": batched,
        "rate": limits[which],
        "limit": which,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--data-dir",
        default=None,
        help="the databases (default: npuzzle's own: $NPUZZLE_DATA, the checkout's data/, ...)",
    )
    ap.add_argument("--random", type=int, default=1000, help="random 15-puzzles (default 1000)")
    ap.add_argument("--lookups", type=int, default=20_000, help="3x3 boards (default 20,000)")
    ap.add_argument("--skip-kill", action="store_true")
    ap.add_argument(
        "--one-board",
        default=None,
        help="Korf & Felner instances, e.g. 13 or 13,16: one board at a time (part 5 only)",
    )
    ap.add_argument("--runs", type=int, default=1, help="runs of each board each way (part 5)")
    args = ap.parse_args()

    from solver.tables import store

    data = str(store.data_dir(args.data_dir).absolute())
    os.environ["NPUZZLE_DATA"] = data
    dask = Dask(data)
    try:
        client = cluster.connect(dask.address)
        client.wait_for_workers(2)
        print(f"dask scheduler {dask.address}; dask worker --nworkers 2 --nthreads 1; data {data}")
        print(f"load average before: {os.getloadavg()[0]:.2f}\n")
        if args.one_board:
            ids = [int(x) for x in args.one_board.split(",")]
            one_board(dask, data, ids, args.runs)
            client.close()
            return
        korf = korf_lines()
        rnd = random_lines("4x4", args.random, 1)
        eights = random_lines("3x3", args.lookups, 2)
        sched, per = costs(client, dask, data, korf, rnd, eights)
        reference, client_cpu = throughput(client, dask, data, korf, rnd, eights)
        if not args.skip_kill:
            killed_worker(client, dask, *reference[f"{len(rnd)} random, 6-6-3"])
        estimates(sched, client_cpu, per)
        print(f"\nload average after: {os.getloadavg()[0]:.2f}")
        client.close()
    finally:
        dask.close()


def costs(client, dask: Dask, data: str, korf, rnd, eights):
    """1: the scheduler's CPU per task, the client's per answer, the solving per board."""
    sched, sched_wall = scheduler_seconds_per_task(client, dask)
    opts3 = api.SearchOptions(data_dir=data)
    per = {
        "3x3 table walk": solve_seconds_per_board(eights[:5000], opts3),
        "4x4 6-6-3": solve_seconds_per_board(
            rnd[:100], api.SearchOptions(data_dir=data, partition="6-6-3")
        ),
        "4x4 7-8": solve_seconds_per_board(
            rnd[:200], api.SearchOptions(data_dir=data, partition="7-8")
        ),
    }
    print("| cost (CPU seconds) | per item |\n|---|---|")
    print(
        f"| scheduler, per task (empty tasks, many in flight; wall {sched_wall * 1e3:.2f} ms "
        f"per task here) | {sched * 1e3:.3f} ms |"
    )
    for name, sec in per.items():
        print(f"| solving, per board, one core: {name} | {sec * 1e3:.3f} ms |")
    print(f"\nload average: {os.getloadavg()[0]:.2f}\n")
    return sched, per


def throughput(client, dask: Dask, data: str, korf, rnd, eights) -> dict:
    """2: each workload through the command line, --jobs 2 and the cluster (cold, warm)."""
    # NPUZZLE_BULK=0: 3x3 boards one by one, in tasks (with the table at hand the command
    # answers them in bulk on its own process, far faster than any cluster).
    work = [
        ("3x3 table walks, one by one", eights, []),
        ("Korf 100, 6-6-3", korf, ["--goal", "blank-first", "--partition", "6-6-3"]),
        ("Korf 100, 7-8", korf, ["--goal", "blank-first", "--partition", "7-8"]),
        (f"{len(rnd)} random, 6-6-3", rnd, ["--partition", "6-6-3"]),
        (f"{len(rnd)} random, 7-8", rnd, ["--partition", "7-8"]),
    ]
    print(
        "| workload | boards | --jobs 2: wall s, CPU s | cluster cold: wall, CPU | "
        "cluster warm: wall, CPU | warm vs jobs 2, by wall | by CPU | same answers | load |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    reference = {}
    run_cli(["--scheduler", dask.address], [])
    startup = CLI_CPU[0]  # what a command costs with no boards
    client_cpu = None
    for name, lines, extra in work:
        base = ["--data-dir", data, *extra]
        env = {"NPUZZLE_BULK": "0"} if name.startswith("3x3") else None
        t_jobs, c_jobs, out_jobs, _ = run_cli([*base, "--jobs", "2"], lines, env=env)
        client.restart()
        t_cold, c_cold, out_cold, _ = run_cli(
            [*base, "--scheduler", dask.address], lines, dask, env=env
        )
        t_warm, c_warm, out_warm, _ = run_cli(
            [*base, "--scheduler", dask.address], lines, dask, env=env
        )
        if client_cpu is None:  # the quickest boards: the command's CPU per answer printed
            client_cpu = max(CLI_CPU[0] - startup, 0.0) / len(lines)
        same = out_jobs == out_cold == out_warm and len(out_jobs) == len(lines)
        reference[name] = (base, lines, out_jobs, t_warm)
        print(
            f"| {name} | {len(lines):,} | {t_jobs:.2f}, {c_jobs:.2f} | {t_cold:.2f}, "
            f"{c_cold:.2f} | {t_warm:.2f}, {c_warm:.2f} | {t_jobs / t_warm:.2f} | "
            f"{c_jobs / c_warm:.2f} | {'yes' if same else 'NO'} | "
            f"{os.getloadavg()[0]:.1f} |",
            flush=True,
        )
    print(
        f"\nThe client (the command: receiving, unpickling and printing the answers) used "
        f"{client_cpu * 1e6:.0f} us of CPU per answer on the 3x3 boards, after "
        f"{startup:.2f} s to start."
    )
    return reference, client_cpu


# --- 5. one hard board -----------------------------------------------------------------------

KF_FILE = ROOT / "data" / "korf-felner-24.txt"
EASY_KF = 40  # about a second: the untimed first run that maps the tables


def kf_boards() -> dict[int, tuple[str, int]]:
    """Korf & Felner's 50 24-puzzles (goal blank-first): id -> (tiles, optimal length)."""
    out = {}
    for line in KF_FILE.read_text().splitlines():
        if line and line[0].isdigit():
            number, tiles, length = line.split("\t")[:3]
            out[int(number)] = (tiles, int(length))
    return out


def solve_one(tiles: str, data: str, how: list[str]) -> tuple[float, dict]:
    """``npuzzle solve TILES --goal blank-first --json`` with ``how``: (wall seconds, the
    answer's record)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    t0 = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-m", "solver", "solve", tiles, "--goal", "blank-first", "--json"]
        + ["--data-dir", data, *how],
        env=env,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - t0
    if out.returncode != 0:
        raise SystemExit(f"npuzzle solve failed ({out.returncode}): {out.stderr.strip()}")
    return wall, json.loads(out.stdout.splitlines()[-1])


def one_board(dask: Dask, data: str, ids: list[int], runs: int) -> None:
    """5: each board with ``--jobs 2`` and with ``--scheduler``, alternating."""
    boards = kf_boards()
    ways = {"--jobs 2": ["--jobs", "2"], "--scheduler": ["--scheduler", dask.address]}
    for how in ways.values():  # untimed: the workers and the page cache get the tables
        solve_one(boards[EASY_KF][0], data, how)
    print(
        "| KF # | how | length | wall s | search s | generated | expanded | work units | "
        "heuristic | race | load |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---|---|---:|")
    for number in ids:
        tiles, optimal = boards[number]
        for _ in range(runs):
            for name, how in ways.items():
                wall, r = solve_one(tiles, data, how)
                ok = "" if r.get("length") == optimal else " (NOT OPTIMAL)"
                print(
                    f"| {number} | {name} | {r.get('length')}{ok} | {wall:.1f} | "
                    f"{r.get('search_seconds', r.get('seconds', 0)):.1f} | "
                    f"{r.get('nodes_generated', 0):,} | {r.get('nodes_expanded', 0):,} | "
                    f"{r.get('work_units', 0):,} | {r.get('heuristic')} | "
                    f"{r.get('race', '-')} | {os.getloadavg()[0]:.1f} |",
                    flush=True,
                )


def killed_worker(client, dask: Dask, base, lines, expected, t_warm) -> None:
    """3: a worker killed (SIGKILL) part-way through a cluster run."""
    pids = client.run(os.getpid)
    victim = pids[sorted(pids)[0]]
    after = max(1.0, 0.4 * t_warm)

    def kill():
        time.sleep(after)
        os.kill(victim, signal.SIGKILL)

    t_kill, _, out, status = run_cli([*base, "--scheduler", dask.address], lines, kill=kill)
    gone = victim not in client.run(os.getpid).values()
    lengths = [int(x.split()[0]) for x in out if x and x[0].isdigit()]
    print(
        f"\nA worker killed {after:.1f} s into a run of {len(lines):,} boards (warm run: "
        f"{t_warm:.1f} s): killed {'yes' if gone else 'NO'}, exit status {status}, "
        f"{len(out):,} answers, identical to --jobs 2 (every board once, in order, the same "
        f"optimal moves) {'yes' if out == expected else 'NO'}, mean length "
        f"{sum(lengths) / max(1, len(lengths)):.2f}, {t_kill:.2f} s"
    )


def estimates(sched: float, client_cpu: float, per: dict) -> None:
    """4: boards per second for 10, 100 and 1,000 workers, and what limits them."""
    print(
        f"\nEstimated boards per second on W single-thread workers (scheduler "
        f"{sched * 1e3:.3f} ms per task, client {client_cpu * 1e6:.0f} us per answer):\n"
    )
    print(
        "| workload | W | solving capacity | 1 board per task | boards per task chosen | "
        "with them | limit |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, sec in per.items():
        for w in (10, 100, 1000):
            e = estimate(sec, sched, client_cpu, w)
            print(
                f"| {name} | {w:,} | {w / sec:,.0f} | {e['one_per_task']:,.0f} | "
                f"{e['batched']:,} | {e['rate']:,.0f} | {e['limit']} |"
            )


if __name__ == "__main__":
    main()
