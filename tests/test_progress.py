"""Progress of long IDA* searches (solver.search.progress and ``npuzzle solve -v``).

Lines go to stderr only: on a terminal, or anywhere with -v; never on stdout; nothing for
searches shorter than a second.
"""

from __future__ import annotations

import io

import pytest

from solver import api
from solver.search import driver, progress
from solver.search.driver import Progress

HARD = "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3"  # Korf #1, 57 moves to blank-first


def test_describe():
    p = Progress(iteration=7, bound=59, nodes=1_839_113, seconds=0.5, done=True, jobs=2)
    assert progress.describe(p) == (
        "iteration 7, bound 59 done: 1,839,113 nodes (3.7 M/s, 2 threads), 0.5 s"
    )
    p = Progress(3, 52.5, 10, 2.0, False, 1)
    assert progress.describe(p) == "iteration 3, bound 52.5: 10 nodes (0.0 M/s), 2.0 s"


def test_the_driver_reports_every_iteration(pdb_dir):
    heard = []
    sol = api.solve(
        HARD,
        "blank-first",
        algorithm="idastar",
        partition="5-5-5",
        data_dir=pdb_dir,
        progress=heard.append,
    )
    done = [p for p in heard if p.done]
    assert [p.iteration for p in done] == list(range(1, sol.iterations + 1))
    assert done[-1].bound == 57 and done[-1].nodes == sol.nodes_generated
    assert all(a.nodes <= b.nodes and a.seconds <= b.seconds for a, b in zip(heard, heard[1:]))


def test_quiet_for_short_searches_and_off_a_terminal():
    out = io.StringIO()
    log = progress.IterationLog(out)  # a StringIO is not a terminal: no status line
    log(Progress(1, 40, 100, 0.5, True, 1))  # under a second: nothing
    log(Progress(2, 42, 200, 1.5, False, 1))  # under way, not live: nothing
    log(Progress(2, 42, 300, 1.6, True, 1))
    log.close()
    assert out.getvalue() == "npuzzle: iteration 2, bound 42 done: 300 nodes (0.0 M/s), 1.6 s\n"


def test_live_status_line():
    out = io.StringIO()
    with progress.IterationLog(out, live=True) as log:
        log(Progress(5, 50, 10**6, 1.2, False, 2))
        log(Progress(5, 50, 2 * 10**6, 1.4, True, 2))
    text = out.getvalue()
    assert "iteration 5, bound 50: 1,000,000 nodes" in text  # the status line
    assert "iteration 5, bound 50 done: 2,000,000 nodes" in text  # the lasting line


@pytest.mark.parametrize("verbose", [True, False])
def test_cli_prints_iterations_on_stderr_with_v(run_cli, pdb_dir, monkeypatch, verbose):
    monkeypatch.setattr(progress, "QUIET_SECONDS", 0.0)
    monkeypatch.setattr(driver, "TICK_SECONDS", 0.0)
    args = ["solve", HARD, "--goal", "blank-first", "--data-dir", pdb_dir] + (
        ["-v"] if verbose else []
    )
    r = run_cli(args)
    assert r.exit_code == 0
    assert r.stdout.startswith("57 moves: ") and "iteration" not in r.stdout
    lines = [line for line in r.stderr.splitlines() if line.startswith("npuzzle: iteration")]
    if verbose:
        assert lines and "bound 57 done" in lines[-1]
    else:
        assert not lines  # CliRunner's stderr is not a terminal
