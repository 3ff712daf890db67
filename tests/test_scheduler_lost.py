"""A Dask scheduler that goes away in the middle of ``--scheduler`` work (solver.workloads.cluster,
cluster_search; docs/faults.md).

Real processes, as a user has them: ``dask scheduler`` and ``dask worker`` on the loopback
address, ``python -m solver solve``, the scheduler killed with SIGKILL once the work is under
way (an event: work units running, a first answer printed) -- by the test, or by itself in the
first request for results it gets after that event, so that the loss lands while the client
fetches a result.  The command says so in one line -- a one-board search with the length it had
proven, as a timeout does -- and exits with status 2: no traceback, no log line of Dask's or of
the libraries under it.  With ``--slow``, each case runs 20 times.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import Watched, reference_file, watched

distributed = pytest.importorskip("distributed")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# 80 moves (the first of data/hardest80.txt): with 5-5-5 its search takes minutes, so the loss
# always lands while work units are still to come (a 65-move board's units could all be done
# in the moment between the first unit's start and the loss, on a loaded machine).
HARD = "15 11 8 12 14 10 9 13 2 6 1 4 3 7 5 0"
HARD_LENGTH = 80
BACKSTOP = 600  # seconds: only against a hung process, never met by a slow machine

# A scheduler preload (Dask's documented extension: ``dask_setup(scheduler)``): once the
# scheduler gets SIGUSR1 it kills itself in the next request for results ("gather", which a
# client's ``Future.result`` and ``Client.gather`` send), before answering it.  It wraps the
# handler in the server's table of handlers (``Server.handlers``).
DIES_IN_A_FETCH = """
import os
import signal


def dask_setup(scheduler):
    armed = []
    signal.signal(signal.SIGUSR1, lambda *_: armed.append(True))
    gather = scheduler.handlers["gather"]

    def gather_or_die(keys, serializers=None):
        if armed:
            os.kill(os.getpid(), signal.SIGKILL)
        return gather(keys=keys, serializers=serializers)

    scheduler.handlers["gather"] = gather_or_die
"""
KILLED, IN_A_FETCH = "killed", "in a fetch"  # the moments of the loss


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _env(tmp_path) -> dict:
    """This checkout first on the path; no real data or cache directory."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, env.get("PYTHONPATH")]))
    env["NPUZZLE_DATA"] = str(tmp_path / "no-default-data")
    os.makedirs(env["NPUZZLE_DATA"], exist_ok=True)  # empty: a missing one would be refused
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


class Scheduler:
    """The scheduler process of :func:`_cluster` and how its loss comes."""

    def __init__(self, proc, moment: str):
        self.proc, self.moment = proc, moment

    def lose(self) -> None:
        """Now (:data:`KILLED`), or in the next request for results (:data:`IN_A_FETCH`)."""
        self.proc.send_signal(signal.SIGKILL if self.moment == KILLED else signal.SIGUSR1)


@contextlib.contextmanager
def _cluster(tmp_path, moment: str = KILLED, seconds: float = BACKSTOP, nanny: bool = True):
    """``(address, Scheduler)``: a ``dask scheduler`` with one ``dask worker`` (one thread)
    connected, both ended afterwards; the caller loses the scheduler."""
    env = _env(tmp_path)
    address = f"tcp://127.0.0.1:{_free_port()}"
    port = address.rsplit(":", 1)[1]
    args = ["scheduler", "--host", "127.0.0.1", "--port", port, "--no-dashboard"]
    if moment == IN_A_FETCH:
        preload = tmp_path / "dies_in_a_fetch.py"
        preload.write_text(DIES_IN_A_FETCH)
        args += ["--preload", str(preload)]
    sched = _dask(args, env)
    worker = None
    try:
        sched.wait_for(b"Scheduler at:", seconds)
        worker = _dask(
            ["worker", address, "--nthreads", "1", "--no-dashboard"]
            + (["--nworkers", "1"] if nanny else ["--no-nanny"]),
            env,
        )
        with distributed.Client(address, timeout=seconds, set_as_default=False) as c:
            c.wait_for_workers(1, timeout=seconds)
        yield address, Scheduler(sched.proc, moment)
    finally:
        for w in (worker, sched):
            if w is not None:
                _end(w.proc)


@pytest.fixture(params=[KILLED, IN_A_FETCH])
def scheduler(request, tmp_path):
    """``(address, Scheduler)``: a ``dask scheduler`` with one ``dask worker`` (one thread)
    connected; the test loses the scheduler, at each moment."""
    with _cluster(tmp_path, request.param) as running:
        yield running


def _npuzzle(args: list[str], tmp_path, stdin=subprocess.DEVNULL) -> tuple[Watched, Path]:
    """``python -m solver ARGS`` started, its stdout read as it comes and its stderr written
    to a file (read once it has ended)."""
    err = tmp_path / "npuzzle-stderr.txt"
    with err.open("wb") as stderr:
        proc = subprocess.Popen(
            [sys.executable, "-m", "solver", *args],
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=stderr,
            env=_env(tmp_path),
        )
    return Watched(proc, proc.stdout), err


def _ended(run: Watched, err: Path, seconds: float) -> tuple[int, str, str]:
    """``(exit status, stdout, stderr)`` of an npuzzle run once it has ended."""
    try:
        run.proc.wait(seconds)
    except subprocess.TimeoutExpired:
        run.proc.kill()
        run.proc.wait()
        raise AssertionError(f"npuzzle still running {seconds:.0f} s after the loss") from None
    return run.proc.returncode, run.output().decode(), err.read_text()


def _wait_for_work_units(address: str, run: Watched, err: Path, seconds: float) -> None:
    """Until a work unit of the search runs on a worker (the probe's iterations are over, so
    a bound is proven): asked of the scheduler as it goes, while the search runs."""
    deadline = time.monotonic() + seconds
    with distributed.Client(address, timeout=seconds, set_as_default=False) as c:
        while True:
            running = [k for keys in c.processing().values() for k in keys]
            if any("npuzzle-units" in str(k) for k in running):
                return
            assert run.proc.poll() is None, (run.output(), err.read_text())
            assert time.monotonic() < deadline, "no work unit ran"
            time.sleep(0.05)  # how often to ask; the event is the unit's start


def _assert_one_line_lost(err: str, address: str) -> str:
    """stderr is npuzzle's one line about the loss and nothing else."""
    lines = err.splitlines()
    assert len(lines) == 1, f"{len(lines)} lines on stderr, not npuzzle's one: {err}"
    assert lines[0].startswith(f"npuzzle: error: lost the Dask scheduler at {address}"), err
    return lines[0]


def _one_board(address: str, sched: Scheduler, pdb_dir, tmp_path, seconds=BACKSTOP) -> None:
    """:data:`HARD` solved on the cluster, the scheduler lost once its work units run: one line
    saying the length proven, exit 2."""
    args = ["solve", HARD, "--goal", "blank-first", "--partition", "5-5-5"]
    run, err = _npuzzle([*args, "--data-dir", pdb_dir, "--scheduler", address], tmp_path)
    try:
        _wait_for_work_units(address, run, err, seconds)
    finally:
        sched.lose()
    status, out, said = _ended(run, err, seconds)
    assert status == 2, (status, out, said)
    assert out == "", (out, said)
    line = _assert_one_line_lost(said, address)
    proven = re.fullmatch(r".* after [0-9.]+ s: the optimal length is at least (\d+)", line)
    assert proven, line
    bound = int(proven.group(1))  # an IDA* bound: at most the optimum, of its parity
    assert 0 < bound <= HARD_LENGTH and bound % 2 == HARD_LENGTH % 2, line


def _batch(address: str, sched: Scheduler, pdb_dir, tmp_path, seconds=BACKSTOP) -> None:
    """A batch on the cluster, the scheduler lost once the first answer is out: the answers
    before the loss, right and in order, then one line, exit 2."""
    korf = [
        r.split("\t")
        for r in reference_file("korf100.txt").read_text().splitlines()
        if r and r[0].isdigit()
    ]
    # 20 quick boards, then #88, which 5-5-5 takes far longer over: the batch cannot end
    # before the scheduler is lost, however fast the workers answer the others (and the
    # results of #88 at least are still to fetch).
    rows = [*korf[:20], korf[87]]
    args = ["solve", "-", "--goal", "blank-first", "--partition", "5-5-5"]
    boards = tmp_path / "boards.txt"
    boards.write_text("".join(f"{r[1]}\n" for r in rows))
    with boards.open() as stdin:
        run, err = _npuzzle([*args, "--data-dir", pdb_dir, "--scheduler", address], tmp_path, stdin)
    try:
        run.wait_for(b"\n", seconds)  # the event: the first answer is out
    finally:
        sched.lose()
    status, out, said = _ended(run, err, seconds)
    assert status == 2, (status, out, said)
    answers = out.splitlines()
    assert 1 <= len(answers) < len(rows), (out, said)
    for answer, row in zip(answers, rows):  # the answers printed are right, in order
        assert answer.startswith(f"{row[2]} moves: "), (answer, row)
    _assert_one_line_lost(said, address)


def test_one_board_says_the_length_proven(scheduler, pdb_dir, tmp_path):
    _one_board(*scheduler, pdb_dir, tmp_path)


def test_batch_stops_with_one_line(scheduler, pdb_dir, tmp_path):
    _batch(*scheduler, pdb_dir, tmp_path)


REPEATS = 20
REPEATS_BACKSTOP = 1200  # seconds for all the runs of a case: only against a hang


@pytest.mark.slow
@pytest.mark.parametrize("case", [_one_board, _batch], ids=["one board", "batch"])
def test_the_loss_is_one_line_every_time(case, pdb_dir, tmp_path):
    """Each case :data:`REPEATS` times, the scheduler lost in turn at each moment, each run on
    a fresh scheduler and worker (a worker closes with its scheduler): the loss lands at a
    different point of the client's work each time (results being fetched, tasks submitted
    or cancelled) and every time the command says its one line.  Every failed run is counted
    before the test fails; its whole message is in its directory's ``failure.txt``."""
    deadline = time.monotonic() + REPEATS_BACKSTOP
    failures = []
    for i in range(REPEATS):
        left = deadline - time.monotonic()
        assert left > 0, f"{i} of {REPEATS} runs in {REPEATS_BACKSTOP} s; failed: {failures}"
        here = tmp_path / f"run{i}"
        here.mkdir()
        moment = (KILLED, IN_A_FETCH)[i % 2]
        # No nanny: one process less to start each time (the client sees the same loss).
        with _cluster(here, moment, left, nanny=False) as (address, sched):
            try:
                case(address, sched, pdb_dir, here, left)
            except AssertionError as e:
                (here / "failure.txt").write_text(str(e))
                failures.append(f"run {i} ({moment}): {str(e).strip().splitlines()[0][:300]}")
    assert not failures, f"{len(failures)} of {REPEATS} runs failed:\n" + "\n".join(failures)
