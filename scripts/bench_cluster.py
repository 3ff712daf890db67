#!/usr/bin/env python
"""A local two-worker Dask cluster against ``--jobs 2``, a worker killed mid-batch, and the
per-task costs behind the throughput estimate for bigger clusters (docs/notes-cluster.md).

    python scripts/bench_cluster.py --data-dir /work/data            # everything (minutes)
    python scripts/bench_cluster.py --data-dir /work/data --random 200 --skip-kill

1. **Costs.**  The scheduler's time per task (empty tasks, many in flight), the client's CPU
   time per answer, and the solving time per board on one core: 3x3 table walks, random
   15-puzzles with 6-6-3 and with 7-8.
2. **Throughput.**  Each workload through the real command line, ``npuzzle solve -`` with
   ``--jobs 2`` and with ``--scheduler`` on a local cluster of two worker processes (one
   thread each): *cold* right after the workers restarted (they load the kernels and map the
   tables), *warm* on a second run.  Wall-clock time of the whole command, start-up
   included; the answers must be identical.
3. **A killed worker.**  A cluster run of the random 15-puzzles during which one worker is
   killed (SIGKILL) part-way: every answer must be there, once, in order, identical to the
   ``--jobs 2`` answers (and so optimal).
4. **Estimate** for 10, 100 and 1,000 workers, from the costs in 1: the solving capacity
   (workers / seconds per board), the scheduler's limit (boards per task / seconds per task)
   with one board per task and with the boards per task the client chooses, and the client's
   limit (one process prints every answer).

The machine's load average is printed with the results (all of it runs on this machine: the
scheduler, the client and both workers share its cores).
"""
from __future__ import annotations

import argparse
import os
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


def korf_lines() -> list[str]:
    """Korf's 100 instances (for the blank-first goal)."""
    return [line.split("\t")[1] for line in KORF_FILE.read_text().splitlines()
            if line and line[0].isdigit()]


def random_lines(shape: str, count: int, seed: int) -> list[str]:
    """``count`` uniformly random solvable positions (blank-last goal)."""
    boards = shuffled(goal_board(Shape.parse(shape)), count, np.random.default_rng(seed))
    return [" ".join(map(str, row)) for row in boards.tolist()]


def run_cli(args: list[str], lines: list[str], kill=None) -> tuple[float, list[str], int]:
    """``npuzzle solve - ARGS`` on the lines: (wall seconds, stdout lines, exit status).
    ``kill()`` is called from a thread while it runs, when given."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    t0 = time.perf_counter()
    p = subprocess.Popen([sys.executable, "-m", "solver", "solve", "-", *args], env=env,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    killer = threading.Thread(target=kill, daemon=True) if kill else None
    if killer:
        killer.start()
    out, _ = p.communicate("\n".join(lines) + "\n")
    if killer:
        killer.join()
    return time.perf_counter() - t0, out.splitlines(), p.returncode


# --- 1. costs --------------------------------------------------------------------------------


def _nothing(item):
    return item


def scheduler_seconds_per_task(client, tasks: int = 3000) -> float:
    """Wall seconds per empty task with many in flight: what the scheduler, the client and
    the workers together spend on one task (the scheduler is the serial part)."""
    saved = cluster.MAX_BOARDS_PER_TASK, cluster.TASKS_PER_THREAD
    cluster.MAX_BOARDS_PER_TASK, cluster.TASKS_PER_THREAD = 1, 500
    try:
        list(cluster.map_ordered(client, _nothing, range(200)))  # warm
        t0 = time.perf_counter()
        list(cluster.map_ordered(client, _nothing, range(tasks)))
        return (time.perf_counter() - t0) / tasks
    finally:
        cluster.MAX_BOARDS_PER_TASK, cluster.TASKS_PER_THREAD = saved


def client_seconds_per_answer(client, lines: list[str], opts) -> tuple[float, float]:
    """(client CPU seconds per answer, wall seconds per answer) of a batch of quick boards
    through the cluster, tasks sized by the client."""
    list(cluster.solve_lines(client, lines[:2000], options=opts))  # warm
    c0, t0 = time.process_time(), time.perf_counter()
    list(cluster.solve_lines(client, lines, options=opts))
    return ((time.process_time() - c0) / len(lines), (time.perf_counter() - t0) / len(lines))


def solve_seconds_per_board(lines: list[str], opts, goal=None) -> float:
    """Seconds per board solving them one after another on this process (after a warm-up)."""
    api.solve(lines[0], goal, options=opts)
    t0 = time.perf_counter()
    for line in lines:
        api.solve(line, goal, options=opts)
    return (time.perf_counter() - t0) / len(lines)


# --- 4. the estimate -------------------------------------------------------------------------


def estimate(per_board: float, sched: float, client_cpu: float, workers: int) -> dict:
    """Boards per second that ``workers`` single-thread workers reach, and what limits it."""
    pacer = cluster.Pacer(workers)
    pacer.learn(1, per_board)
    batched = pacer.boards()
    limits = {"solving": workers / per_board,
              "scheduler": batched / sched,
              "client": 1 / client_cpu}
    which = min(limits, key=limits.get)
    return {"one_per_task": min(workers / per_board, 1 / sched), "batched": batched,
            "rate": limits[which], "limit": which}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=os.environ.get("NPUZZLE_DATA", "/work/data"))
    ap.add_argument("--random", type=int, default=1000, help="random 15-puzzles (default 1000)")
    ap.add_argument("--lookups", type=int, default=20_000, help="3x3 boards (default 20,000)")
    ap.add_argument("--skip-kill", action="store_true")
    args = ap.parse_args()

    import logging

    import distributed

    data = str(Path(args.data_dir).absolute())
    os.environ["NPUZZLE_DATA"] = data
    lc = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address="127.0.0.1:0",
                                  silence_logs=logging.CRITICAL)
    client = distributed.Client(lc, set_as_default=False)
    address = lc.scheduler_address
    print(f"local cluster {address}: 2 worker processes x 1 thread; data {data}")
    print(f"load average before: {os.getloadavg()[0]:.2f}\n")

    korf = korf_lines()
    rnd = random_lines("4x4", args.random, 1)
    eights = random_lines("3x3", args.lookups, 2)

    # 1. costs
    sched = scheduler_seconds_per_task(client)
    opts3 = api.SearchOptions(data_dir=data)
    client_cpu, wall3 = client_seconds_per_answer(client, eights[:20_000], opts3)
    per = {
        "3x3 table walk": solve_seconds_per_board(eights[:5000], opts3),
        "4x4 6-6-3": solve_seconds_per_board(rnd[:100], api.SearchOptions(
            data_dir=data, partition="6-6-3")),
        "4x4 7-8": solve_seconds_per_board(rnd[:200], api.SearchOptions(
            data_dir=data, partition="7-8")),
    }
    print("| cost | seconds |\n|---|---|")
    print(f"| scheduler, per task (empty tasks, many in flight) | {sched * 1e3:.2f} ms |")
    print(f"| client CPU, per answer | {client_cpu * 1e6:.0f} us |")
    print(f"| cluster wall, per 3x3 answer (2 workers, in-process client) | "
          f"{wall3 * 1e6:.0f} us |")
    for name, s in per.items():
        print(f"| solving, per board, one core: {name} | {s * 1e3:.3f} ms |")
    print(f"\nload average: {os.getloadavg()[0]:.2f}\n")

    # 2. throughput through the command line
    work = [
        ("3x3 lookups", eights, []),
        ("Korf 100, 6-6-3", korf, ["--goal", "blank-first", "--partition", "6-6-3"]),
        ("Korf 100, 7-8", korf, ["--goal", "blank-first", "--partition", "7-8"]),
        (f"{len(rnd)} random, 6-6-3", rnd, ["--partition", "6-6-3"]),
        (f"{len(rnd)} random, 7-8", rnd, ["--partition", "7-8"]),
    ]
    print("| workload | boards | --jobs 2 s | cluster cold s | cluster warm s | warm / jobs 2 "
          "throughput | same answers | load |")
    print("|---|---|---|---|---|---|---|---|")
    reference = {}
    for name, lines, extra in work:
        base = ["--data-dir", data, *extra]
        t_jobs, out_jobs, _ = run_cli([*base, "--jobs", "2"], lines)
        client.restart()
        t_cold, out_cold, _ = run_cli([*base, "--scheduler", address], lines)
        t_warm, out_warm, _ = run_cli([*base, "--scheduler", address], lines)
        same = out_jobs == out_cold == out_warm and len(out_jobs) == len(lines)
        reference[name] = (base, lines, out_jobs, t_warm)
        print(f"| {name} | {len(lines):,} | {t_jobs:.2f} | {t_cold:.2f} | {t_warm:.2f} | "
              f"{t_jobs / t_warm:.2f} | {'yes' if same else 'NO'} | "
              f"{os.getloadavg()[0]:.1f} |", flush=True)

    # 3. a worker killed part-way
    if not args.skip_kill:
        base, lines, expected, t_warm = reference[f"{len(rnd)} random, 6-6-3"]
        pids = client.run(os.getpid)
        victim = sorted(pids)[0]

        def kill():
            time.sleep(max(1.0, 0.4 * t_warm))
            os.kill(pids[victim], signal.SIGKILL)

        t_kill, out, status = run_cli([*base, "--scheduler", address], lines, kill)
        alive = pids[victim] not in client.run(os.getpid).values()
        lengths = [int(x.split()[0]) for x in out if x and x[0].isdigit()]
        print(f"\nworker killed after {max(1.0, 0.4 * t_warm):.1f} s of a {t_warm:.1f} s run: "
              f"killed={alive}, exit {status}, {len(out)} answers for {len(lines)} boards, "
              f"identical to --jobs 2 (same order, same optimal moves): "
              f"{'yes' if out == expected else 'NO'}; mean length "
              f"{sum(lengths) / max(1, len(lengths)):.2f}; {t_kill:.2f} s")

    # 4. the estimate
    print("\nEstimated boards per second on W single-thread workers (scheduler "
          f"{sched * 1e3:.2f} ms/task, client {client_cpu * 1e6:.0f} us/answer):\n")
    print("| workload | W | solving capacity | 1 board per task | boards per task | "
          "batched | limit |")
    print("|---|---|---|---|---|---|---|")
    for name, s in per.items():
        for w in (10, 100, 1000):
            e = estimate(s, sched, client_cpu, w)
            print(f"| {name} | {w:,} | {w / s:,.0f} | {e['one_per_task']:,.0f} | "
                  f"{e['batched']:,} | {e['rate']:,.0f} | {e['limit']} |")
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")
    client.close()
    lc.close()


if __name__ == "__main__":
    main()
