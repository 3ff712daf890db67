"""The lookup path (solver.cli.lookup): a plain ``npuzzle distance BOARD`` over an exact table is
answered before click is imported, and every other command line gets exactly what the usual
path gives it."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from conftest import imports_said
from naive_bfs import distances_from

from solver.cli import lookup
from solver.core import config
from solver.core.board import parse_board, preset_goal

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Runs the command as the `npuzzle` script does (launch), or through click alone (main).
RUN = (
    "import sys\n"
    "sys.argv = ['npuzzle', *{args!r}]\n"
    "from solver import cli\n"
    "cli.launch() if {lookup} else cli.main(sys.argv[1:], prog_name='npuzzle')\n"
)
SECONDS = re.compile(r'"seconds":[0-9.e-]+')


def npuzzle(args: list[str], env: dict, lookup: bool = True) -> tuple[int, str, str, list]:
    """``(exit status, stdout, stderr, which of click and h5py it imported)`` of
    ``npuzzle ARGS`` in a fresh interpreter (the seconds a JSON answer took said as 0)."""
    r = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", RUN.format(args=args, lookup=lookup)],
        capture_output=True,
        env={**os.environ, "PYTHONPATH": ROOT, **env},
        cwd=ROOT,
    )
    err, imported = imports_said(r.stderr)
    heavy = sorted(m for m in ("click", "h5py") if m in imported)
    return r.returncode, SECONDS.sub('"seconds":0', r.stdout.decode()), err.decode(), heavy


@pytest.fixture
def env(exact_dir, tmp_path):
    return {"NPUZZLE_DATA": str(exact_dir), "NPUZZLE_CACHE": str(tmp_path / "cache")}


@pytest.mark.parametrize(
    "board",
    [["8 6 7 2 5 4 3 0 1"], "8 6 7 2 5 4 3 0 1".split(), ["1 2 3/4 0 5"], ["1 2 3/4 5 0"]],
)
def test_a_plain_distance_is_looked_up_without_click(env, board):
    npuzzle(["distance", *board], env)  # the first reads the table's layout (h5py)
    status, out, err, modules = npuzzle(["distance", *board], env)
    start = parse_board(" ".join(board))
    goal = preset_goal(start.shape)
    truth = distances_from(goal.tiles, start.shape.rows, start.shape.cols)[start.tiles]
    assert (status, out, err) == (0, f"{truth}\n", "")
    assert modules == []  # no click, no h5py (the layout is remembered)
    assert npuzzle(["distance", *board], env, lookup=False)[:3] == (status, out, err)


@pytest.mark.parametrize(
    "args",
    [
        ["distance", "1 2 3/5 4 0"],  # cannot reach the goal
        ["distance", "1 2 3/4 4 0"],  # not a board
        ["distance", "1 2 3 4 5 6 7"],  # no shape of 7 cells
        ["distance", "8 6 7 2 5 4 3 0 1", "--json"],
        ["distance", "8 6 7 2 5 4 3 0 1", "--goal", "blank-first"],
        ["distance", "--", "8 6 7 2 5 4 3 0 1"],
        ["distance", "1 2 3 4/5 6 7 0"],  # 2x4: no table in this directory, a search
    ],
)
def test_every_other_command_line_goes_the_usual_way(env, args):
    status, out, err, modules = npuzzle(args, env)
    assert "click" in modules
    assert (status, out, err) == npuzzle(args, env, lookup=False)[:3]
    assert "Traceback" not in err


def test_a_missing_or_damaged_table_is_said_by_the_usual_way(exact_dir, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    table = (exact_dir / "exact-3x3.h5").read_bytes()
    (data / "exact-3x3.h5").write_bytes(table[:-100])  # cut short
    env = {"NPUZZLE_DATA": str(data), "NPUZZLE_CACHE": str(tmp_path / "cache")}
    status, out, err, modules = npuzzle(["distance", "8 6 7 2 5 4 3 0 1"], env)
    assert status == 3 and out == "" and "exact-3x3.h5" in err and "\n" not in err.strip()
    assert "click" in modules
    assert (data / "exact-3x3.h5").read_bytes() == table[:-100]  # left as it was


def test_a_cluster_in_the_environment_goes_the_usual_way(exact_dir, monkeypatch, capfd):
    # `distance BOARD` with DASK_SCHEDULER_ADDRESS set is one task on that cluster.
    monkeypatch.setenv("NPUZZLE_DATA", str(exact_dir))
    assert lookup.answer(["distance", "1 2 3/4 5 0"]) == 0
    assert capfd.readouterr().out == "0\n"
    monkeypatch.setenv(config.ENV_SCHEDULER, "tcp://127.0.0.1:8786")
    assert lookup.answer(["distance", "1 2 3/4 5 0"]) is None
