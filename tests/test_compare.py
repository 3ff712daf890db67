"""``npuzzle compare`` on boards whose blind searches run long: the status line on a terminal,
the default cap on a blind search (and how to raise it), and Ctrl-C, which keeps the rows
that finished.

The status line is written only to a terminal, so the real program runs here with its stderr
on a pseudo-terminal; Ctrl-C is a real SIGINT sent to it once its status line says the run
to interrupt is under way (no test waits for a fixed time).
"""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import subprocess
import sys

import pytest

from solver.cli import compare

HARDEST_3X3 = "8 6 7 2 5 4 3 0 1"  # 31 moves: a BFS takes a second, an IDDFS many minutes
KORF_1 = "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3"  # 57 moves to blank-first


class Terminal:
    """``npuzzle ARGS`` in a real process, stdout a pipe, stderr a pseudo-terminal."""

    def __init__(self, *args: str):
        self.master, slave = pty.openpty()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "solver", *args],
            stdout=subprocess.PIPE,
            stderr=slave,
            text=True,
        )
        os.close(slave)
        self.screen = ""

    def read_until(self, text: str, seconds: float = 120) -> bool:
        """Read stderr until ``text`` shows (True) or it ends (False)."""
        while text not in self.screen:
            ready, _, _ = select.select([self.master], [], [], seconds)
            try:
                chunk = os.read(self.master, 4096) if ready else b""
            except OSError:  # the process closed the terminal
                chunk = b""
            if not chunk:
                return False
            self.screen += chunk.decode(errors="replace")
        return True

    def finish(self) -> tuple[int, str]:
        """(exit status, stdout) once the process has ended; stderr read to its end."""
        stdout, _ = self.process.communicate(timeout=120)
        self.read_until("\0")  # everything left on the terminal
        os.close(self.master)
        return self.process.returncode, stdout


def status_lines(screen: str) -> list[str]:
    """The status lines drawn on the terminal (each redraw starts with a carriage return
    and an erase)."""
    return [part.strip() for part in screen.split("\r\x1b[K") if part.strip()]


def table_rows(stdout: str) -> dict[str, list[str]]:
    lines = stdout.splitlines()
    assert lines[1].split()[:3] == ["algorithm", "setting", "length"]
    return {line.split()[0]: line.split() for line in lines[3:]}


def test_ctrl_c_prints_what_finished_and_marks_the_rest():
    run = Terminal("compare", HARDEST_3X3, "--algorithms", "bfs,iddfs,astar")
    assert run.read_until("iddfs (2 of 3)"), run.screen  # the BFS is done, the IDDFS runs
    run.process.send_signal(signal.SIGINT)
    code, stdout = run.finish()
    assert code == 130
    rows = table_rows(stdout)
    assert rows["bfs"][:4] == ["bfs", "visited", "31", "yes"]
    assert rows["iddfs"][:3] == ["iddfs", "path", "interrupted"]
    assert rows["astar"] == ["astar", "auto,", "visited", "not", "run"]
    # While it ran, the line on stderr named the run, its seconds and the memory held;
    # at the end, one line says why it stopped, and no traceback.
    during = status_lines(run.screen)
    assert any(s.startswith("npuzzle: bfs (1 of 3): ") and s.endswith(" MB") for s in during)
    assert during[-1] == "npuzzle: interrupted" and "Traceback" not in run.screen


def test_the_status_line_counts_the_nodes_a_search_reports():
    # IDA* tells its progress callback the nodes generated so far.
    run = Terminal(
        "compare", KORF_1, "--goal", "blank-first", "-a", "idastar", "--heuristic", "manhattan",
        "--max-nodes", "30000000",
    )  # fmt: skip
    code, stdout = run.finish()
    assert code == 4 and table_rows(stdout)["idastar"][2] == "limit"
    counted = [s for s in status_lines(run.screen) if " nodes, " in s]
    assert counted and all(s.startswith("npuzzle: idastar (1 of 1): ") for s in counted)


def test_no_status_line_off_a_terminal(run_cli):
    r = run_cli(["compare", HARDEST_3X3, "-a", "bfs"])
    assert r.exit_code == 0 and r.stderr == ""


def test_a_blind_search_stops_at_the_default_cap_and_says_how_to_raise_it(run_cli, monkeypatch):
    monkeypatch.setattr(compare, "DEFAULT_BLIND_NODES", 5_000)  # 5,000,000 takes seconds
    r = run_cli(["compare", HARDEST_3X3, "-a", "iddfs,astar", "--json"])
    assert r.exit_code == 0  # A* answered: the capped IDDFS is a row, not a failure
    runs = {run["algorithm"]: run for run in json.loads(r.stdout)["runs"]}
    assert runs["iddfs"]["status"] == "limit" and 5_000 <= runs["iddfs"]["nodes_generated"] < 5_004
    assert runs["iddfs"]["error"].endswith(
        "(compare stops a blind search at 5,000 generated nodes unless told otherwise: "
        "raise the cap with --max-nodes N)"
    )
    # A* is informed: no default cap, it generates what it needs (10,098 nodes here).
    assert runs["astar"]["status"] == "solved" and runs["astar"]["nodes_generated"] > 5_000
    # --max-nodes replaces the default: the search goes further, and its limit is its own.
    r = run_cli(["compare", HARDEST_3X3, "-a", "iddfs", "--max-nodes", "30000", "--json"])
    assert r.exit_code == 4  # no optimal search answered
    (run,) = json.loads(r.stdout)["runs"]
    assert 30_000 <= run["nodes_generated"] < 30_004 and "--max-nodes N" not in run["error"]
    # In the table's form the message goes to stderr.
    r = run_cli(["compare", HARDEST_3X3, "-a", "dfs:parent"])
    assert r.exit_code == 4 and "raise the cap with --max-nodes N" in r.stderr


def test_a_capped_blind_search_is_a_capped_row_and_the_optimal_answers_decide(run_cli, monkeypatch):
    monkeypatch.setattr(compare, "DEFAULT_BLIND_NODES", 5_000)
    r = run_cli(["compare", HARDEST_3X3, "-a", "bfs,iddfs,astar"])
    assert r.exit_code == 0, r.output
    rows = table_rows(r.stdout)
    assert rows["bfs"][2] == "capped" and rows["iddfs"][2] == "capped"
    assert rows["astar"][3:5] == ["31", "yes"]  # its setting is two words: "auto, visited"
    # What capped them is still said, on stderr.
    assert r.stderr.count("raise the cap with --max-nodes N") == 2
    # Without an optimal search's answer the cap is the outcome: exit 4.
    r = run_cli(["compare", HARDEST_3X3, "-a", "bfs,dfs"])
    assert r.exit_code == 4 and table_rows(r.stdout)["bfs"][2] == "capped"


def test_interrupted_json_marks_the_runs(run_cli, monkeypatch):
    """The record printed on Ctrl-C: finished runs in full, then 'interrupted', 'not-run'."""
    real_solve = compare.api.solve

    def solve(start, goal, *, algorithm, **kw):
        if algorithm == "astar":
            raise KeyboardInterrupt  # as Ctrl-C during the second run
        return real_solve(start, goal, algorithm=algorithm, **kw)

    monkeypatch.setattr(compare.api, "solve", solve)
    r = run_cli(["compare", HARDEST_3X3, "-a", "bfs,astar,idastar", "--json"])
    assert r.exit_code == 130 and r.stderr.strip() == "npuzzle: interrupted"
    runs = json.loads(r.stdout)["runs"]
    assert [(run["algorithm"], run["status"]) for run in runs] == [
        ("bfs", "solved"),
        ("astar", "interrupted"),
        ("idastar", "not-run"),
    ]
    assert runs[0]["length"] == 31 and runs[1]["seconds"] >= 0


@pytest.mark.parametrize("algorithm", compare.BLIND)
def test_every_blind_search_gets_the_default_cap(algorithm):
    opts = compare.options_for(algorithm, compare.api.SearchOptions())
    assert opts.max_nodes == compare.DEFAULT_BLIND_NODES
    given = compare.api.SearchOptions(max_nodes=7)
    assert compare.options_for(algorithm, given).max_nodes == 7
    assert compare.options_for("astar", compare.api.SearchOptions()).max_nodes is None


def test_idastars_kernel_is_loaded_before_any_run_is_timed(run_cli, monkeypatch, tmp_path):
    """The first compare would otherwise time mapping IDA*'s tables and making its pruning
    machine as the IDA* run's search."""
    from solver import api

    calls = []
    warm_up, solve = api.warm_up, api.solve
    monkeypatch.setattr(api, "warm_up", lambda *a: calls.append("load") or warm_up(*a))
    monkeypatch.setattr(api, "solve", lambda *a, **k: calls.append("run") or solve(*a, **k))
    r = run_cli(["compare", "3 6 4/2 5 8/0 1 7", "-a", "astar,idastar", "--data-dir", tmp_path])
    assert r.exit_code == 0, r.output
    assert calls == ["load", "run", "run"]
