"""A Dask scheduler that goes away in the middle of ``--scheduler`` work (solver.workloads.cluster,
cluster_search; docs/faults.md).

Real processes, as a user has them: ``dask scheduler`` and ``dask worker`` on the loopback
address, ``python -m solver solve``, the scheduler killed with SIGKILL once the
work is under way (an event: work units running, a first answer printed).  The command says so
in one line -- a one-board search with the length it had proven, as a timeout does -- and
exits with status 2: no traceback, none of Dask's own log lines.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys

import pytest
from conftest import Watched, reference_file, watched

distributed = pytest.importorskip("distributed")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KORF_88 = "15 2 12 11 14 13 9 5 1 3 8 7 0 10 6 4"  # 65 moves; ~12 M nodes with 5-5-5
BACKSTOP = 600  # seconds: only against a hung process, never met by a slow machine


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _env(tmp_path) -> dict:
    """This checkout first on the path; no real data or cache directory."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, env.get("PYTHONPATH")]))
    env["NPUZZLE_DATA"] = str(tmp_path / "no-default-data")
    env["NPUZZLE_CACHE"] = str(tmp_path / "cache")
    return env


def _dask(args: list[str], env: dict) -> Watched:
    return watched([sys.executable, "-m", "dask", *args], env=env, start_new_session=True)


def _end(proc) -> None:
    if proc.poll() is None:
        proc.terminate()  # a dask worker closes its nanny and worker on SIGTERM
        try:
            proc.wait(BACKSTOP)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture
def scheduler(tmp_path):
    """``(address, scheduler process)``: a ``dask scheduler`` with one ``dask worker`` (one
    thread) connected; the test kills the scheduler."""
    env = _env(tmp_path)
    address = f"tcp://127.0.0.1:{_free_port()}"
    port = address.rsplit(":", 1)[1]
    sched = _dask(["scheduler", "--host", "127.0.0.1", "--port", port, "--no-dashboard"], env)
    worker = None
    try:
        sched.wait_for(b"Scheduler at:", BACKSTOP)
        worker = _dask(
            ["worker", address, "--nworkers", "1", "--nthreads", "1", "--no-dashboard"], env
        )
        with distributed.Client(address, timeout=BACKSTOP, set_as_default=False) as c:
            c.wait_for_workers(1, timeout=BACKSTOP)
        yield address, sched.proc
    finally:
        for w in (worker, sched):
            if w is not None:
                _end(w.proc)


def _npuzzle(args: list[str], tmp_path, stdin=subprocess.DEVNULL) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "solver", *args],
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_env(tmp_path),
    )


def _wait_for_work_units(address: str, proc) -> None:
    """Until a work unit of the search runs on a worker (the probe's iterations are over, so
    a bound is proven): asked of the scheduler as it goes, while the search runs."""
    import time

    with distributed.Client(address, timeout=BACKSTOP, set_as_default=False) as c:
        while True:
            running = [k for keys in c.processing().values() for k in keys]
            if any("npuzzle-units" in str(k) for k in running):
                return
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.05)  # how often to ask; the event is the unit's start


def _assert_one_line_lost(err: str, address: str) -> str:
    assert "Traceback" not in err and "distributed." not in err, err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"npuzzle: error: lost the Dask scheduler at {address}"), err
    return lines[0]


def test_one_board_says_the_length_proven(scheduler, pdb_dir, tmp_path):
    address, sched = scheduler
    args = ["solve", KORF_88, "--goal", "blank-first", "--partition", "5-5-5"]
    proc = _npuzzle([*args, "--data-dir", pdb_dir, "--scheduler", address], tmp_path)
    _wait_for_work_units(address, proc)
    sched.send_signal(signal.SIGKILL)
    out, err = proc.communicate(timeout=BACKSTOP)
    assert proc.returncode == 2, (out, err)
    assert out == b""
    line = _assert_one_line_lost(err.decode(), address)
    proven = re.fullmatch(r".* after [0-9.]+ s: the optimal length is at least (\d+)", line)
    assert proven, line
    bound = int(proven.group(1))  # an IDA* bound: at most the optimum (65), of its parity
    assert 0 < bound <= 65 and bound % 2 == 1, line


def test_batch_stops_with_one_line(scheduler, pdb_dir, tmp_path):
    address, sched = scheduler
    korf = [
        r.split("\t")
        for r in reference_file("korf100.txt").read_text().splitlines()
        if r and r[0].isdigit()
    ]
    # 20 quick boards, then #88, which 5-5-5 takes far longer over: the batch cannot end
    # before the scheduler is killed, however fast the workers answer the others.
    rows = [*korf[:20], korf[87]]
    args = ["solve", "-", "--goal", "blank-first", "--partition", "5-5-5"]
    boards = tmp_path / "boards.txt"
    boards.write_text("".join(f"{r[1]}\n" for r in rows))
    with boards.open() as stdin:
        proc = _npuzzle([*args, "--data-dir", pdb_dir, "--scheduler", address], tmp_path, stdin)
    first = proc.stdout.readline()  # the event: the first answer is out
    sched.send_signal(signal.SIGKILL)
    out, err = proc.communicate(timeout=BACKSTOP)
    assert proc.returncode == 2, (first, out, err)
    answers = (first + out).decode().splitlines()
    assert 1 <= len(answers) < len(rows)
    for answer, row in zip(answers, rows):  # the answers printed are right, in order
        assert answer.startswith(f"{row[2]} moves: "), (answer, row)
    _assert_one_line_lost(err.decode(), address)
