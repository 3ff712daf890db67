"""The npuzzle and build-pdb commands: answers, batch streams, exit codes and error lines."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner
from conftest import assert_one_line_error

from pdb_builder.cli import main as build_main
from solver.core.board import Board, goal_board

# (arguments, expected exit status) — DESIGN §3.
EXIT_TABLE = [
    (["distance", "1 2 3/4 0 5"], 0),
    (["distance", "1", "2", "3", "4", "0", "5"], 0),
    (["distance", "1 2 3/5 4 0"], 1),
    (["distance", "1 2 3 4 5 6 7 7 0"], 2),
    (["distance", "1 2 3/4 5"], 2),
    (["distance", "1 2 3 4 5 q"], 2),
    (["distance", "1 2 3 4 0 5", "--goal", "nowhere"], 2),
    (["distance", "1 2 3 4 0 5", "--goal", "1 2 3 4 5 6 7 8 0"], 2),
    (["distance", "1 0 2 3 4 5 6", "--shape", "7x1"], 2),
    (["solve", "8 6 7 2 5 4 3 0 1"], 0),
    (["solve", "1 2 3 4 5 6 8 7 0"], 1),
    (["solve", "1 2 3 4 5 6 8 7"], 2),
    (["solve", "1 2 3 4 0 5", "--algorithm", "warp"], 2),
    (["solve", "1 2 3 4 0 5", "--fsm", "15"], 2),  # deeper than the shipped machines
    (["solve", "1 2 3 4 0 5", "--fsm", "1"], 2),  # 2 is the smallest machine: never undo
    (["solve", "1 2 3 4 0 5", "--fast"], 2),  # gone: --algorithm fast
    (["solve", "1 2 3 4 0 5", "--zero-aware"], 2),  # gone: the twins are read where built
]


@pytest.mark.parametrize("args,code", EXIT_TABLE)
def test_exit_status_table(run_cli, exact_dir, args, code):
    r = run_cli([*args, "--data-dir", exact_dir])
    if code:
        assert_one_line_error(r, code)
    else:
        assert r.exit_code == 0, r.output


def test_missing_database_is_exit_3_with_the_fix(run_cli, tmp_path):
    r = run_cli(["distance", "1 2 3/4 0 5", "--algorithm", "table"][:2] + ["--data-dir", tmp_path])
    # without a table, distance falls back to search only when a solver exists; the table
    # algorithm itself must say how to build it
    r = run_cli(["solve", "1 2 3/4 0 5", "--algorithm", "table", "--data-dir", tmp_path])
    assert_one_line_error(r, 3)
    assert "build-pdb --shape 2x3" in r.stderr


def test_distance_prints_only_the_integer(run_cli, exact_dir):
    r = run_cli(["distance", "8 6 7 2 5 4 3 0 1", "--data-dir", exact_dir])
    assert r.stdout == "31\n"


def test_distance_json(run_cli, exact_dir):
    r = run_cli(["distance", "[[4,1,2],[5,0,3]]", "--json", "--data-dir", exact_dir])
    rec = json.loads(r.stdout)
    assert rec["distance"] == 5 and rec["solvable"] and rec["shape"] == "2x3"


def test_unsolvable_is_a_sentence_and_exit_1(run_cli, exact_dir):
    r = run_cli(["distance", "1 2 3 4 5 6 8 7 0", "--data-dir", exact_dir])
    assert_one_line_error(r, 1)
    assert "inversion" in r.stderr and r.stdout == ""


def test_batch_distance_answers_every_line_in_order(run_cli, exact_dir):
    lines = [
        "8 6 7 2 5 4 3 0 1",
        "1 2 3 4 5 6 8 7 0",
        "junk",
        "",
        "1 2 3/4 0 5",
        "0 1 2 3 4 5 6 7 8",
    ]
    r = run_cli(["distance", "-", "--data-dir", exact_dir], input="\n".join(lines) + "\n")
    out = r.stdout.split("\n")[:-1]
    assert out[0] == "31" and out[1] == "unsolvable" and out[2].startswith("error: ")
    assert out[3] == "" and out[4] == "1" and out[5] == "22"
    assert r.exit_code == 2  # a malformed line makes the whole run report bad input


def test_batch_distance_json_lines(run_cli, exact_dir):
    r = run_cli(
        ["distance", "-", "--json", "--goal", "blank-first", "--data-dir", exact_dir],
        input="3 6 4/2 5 8/0 1 7\n1 0 2/3 4 5/6 7 8\n",
    )
    recs = [json.loads(x) for x in r.stdout.splitlines()]
    assert [x["distance"] for x in recs] == [24, 1]


def test_solve_json_has_the_promised_fields(run_cli, exact_dir):
    r = run_cli(
        ["solve", "3 6 4 2 5 8 0 1 7", "--goal", "blank-first", "--json", "--data-dir", exact_dir]
    )
    rec = json.loads(r.stdout)
    assert {"length", "moves", "solvable", "seconds"} <= rec.keys()
    assert rec["length"] == 24 and rec["optimal"]
    start = Board.parse("3 6 4 2 5 8 0 1 7")
    assert start.apply(rec["moves"]) == goal_board("3x3", "blank-first")
    assert start.tiles_moved(rec["moves"]) == rec["tiles"]


def test_solve_show_and_tiles(run_cli, exact_dir):
    r = run_cli(["solve", "1 2 3/4 0 5", "--show", "--tiles", "--data-dir", exact_dir])
    assert r.stdout.rstrip().endswith("1 move: 5")
    assert "1. R (tile 5)" in r.stdout
    r = run_cli(["solve", "1 2 3/4 5 0", "--data-dir", exact_dir])
    assert "already at the goal" in r.stdout


def test_batch_solve_replays(run_cli, exact_dir):
    boards = ["8 6 7 2 5 4 3 0 1", "1 2 3 4 5 6 0 7 8", "4 1 2 5 0 3"]
    r = run_cli(["solve", "-", "--json", "--data-dir", exact_dir], input="\n".join(boards))
    for text, line in zip(boards, r.stdout.splitlines()):
        rec = json.loads(line)
        b = Board.parse(text)
        assert b.apply(rec["moves"]) == goal_board(b.shape)


def test_build_pdb_list_verify_and_damage(exact_dir, tmp_path):
    import shutil

    import h5py

    runner = CliRunner()
    shutil.copy(exact_dir / "exact-2x3.h5", tmp_path)
    r = runner.invoke(build_main, ["--list", "--data-dir", str(tmp_path)])
    assert "exact-2x3.h5" in r.stdout
    assert runner.invoke(build_main, ["--verify", "--data-dir", str(tmp_path)]).exit_code == 0
    with h5py.File(tmp_path / "exact-2x3.h5", "r+") as f:
        f["blank_3"][5] ^= 1
    r = runner.invoke(build_main, ["--verify", "--data-dir", str(tmp_path)])
    assert r.exit_code == 3 and "does not match its digest" in r.stdout


def test_build_pdb_refuses_bad_requests(tmp_path):
    runner = CliRunner()
    r = runner.invoke(build_main, ["--shape", "4x5", "--data-dir", str(tmp_path)])
    assert_one_line_error(r, 2)
    r = runner.invoke(build_main, ["--shape", "banana", "--data-dir", str(tmp_path)])
    assert_one_line_error(r, 2)


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write to read-only directories")
def test_build_pdb_read_only_directory(tmp_path):
    tmp_path.chmod(0o500)
    r = CliRunner().invoke(build_main, ["--shape", "2x3", "--data-dir", str(tmp_path / "x")])
    assert_one_line_error(r, 2)


def test_build_pdb_unwritable_directory_is_one_line(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    r = CliRunner().invoke(build_main, ["--shape", "2x3", "--data-dir", str(blocker / "sub")])
    assert_one_line_error(r, 2)


def test_real_process_has_no_traceback(exact_dir):
    """The installed entry point, as a user runs it: bad input is one line and exit 2."""
    cmd = [sys.executable, "-m", "solver", "distance", "1 2 2 4 0 5", "--data-dir", str(exact_dir)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "Traceback" not in p.stderr
    assert "tile 2 appears twice" in p.stderr


@pytest.mark.parametrize("command", ["check", "distance", "solve"])
def test_stdout_closed_from_the_start_is_141_without_a_word(exact_dir, command):
    """``npuzzle ... >&-``: no one reads the answer, as after ``| head -0`` (``distance`` on
    the lookup path, solver.cli.lookup, and through click)."""
    line = f'exec "$0" -m solver {command} "1 2 3/4 0 5" >&-'
    env = {**os.environ, "NPUZZLE_DATA": str(exact_dir)}
    p = subprocess.run(["sh", "-c", line, sys.executable], capture_output=True, env=env)
    assert (p.returncode, p.stderr) == (141, b"")


@pytest.mark.parametrize("command", ["solve", "distance", "hint", "heuristic", "check"])
@pytest.mark.parametrize("goal", ["1 2 3 4", "1 1 2 3 4 5 6 7 0"])
def test_a_bad_goal_is_named_as_the_goal(run_cli, tables_dir, command, goal):
    r = run_cli([command, "8 6 7 2 5 4 3 0 1", "--goal", goal, "--data-dir", tables_dir])
    assert_one_line_error(r, 2)
    assert "the goal: " in r.stderr, r.stderr
