"""The data directory a user names, and what ``build-pdb --list`` says of its files.

A ``--data-dir`` that does not exist is a typo, not "nothing is built": one line and exit 2 for
every ``npuzzle`` command and for ``build-pdb --list`` and ``--verify``, while a build still
creates the directory it writes into.  ``$NPUZZLE_DATA`` is a directory named too: missing, it
is the same line and exit status (only the default directory of a fresh install may be missing).
``--list`` states each file's status once and exits 3 with the rebuild command when one is
damaged, as ``--verify`` does."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import click
import pytest
from click.testing import CliRunner
from conftest import assert_one_line_error

from pdb_builder.cli import main as build_main
from solver.cli import COMMANDS, main
from solver.core.board import Shape
from solver.tables import store


def commands_taking_a_data_dir() -> list[str]:
    ctx = click.Context(main)
    return [
        name
        for name in COMMANDS
        if any("--data-dir" in p.opts for p in main.get_command(ctx, name).params)
    ]


def test_every_command_that_reads_databases_is_checked():
    assert {"solve", "distance", "hint", "generate", "stats", "serve"} <= set(
        commands_taking_a_data_dir()
    )


@pytest.mark.parametrize("command", commands_taking_a_data_dir())
def test_a_missing_data_dir_is_one_line_and_exit_2(run_cli, tmp_path, command):
    missing = tmp_path / "no" / "such"
    r = run_cli([command, "--data-dir", missing, *(["1 2 3/4 5 6/7 0 8"] if command in (
        "solve", "distance", "hint", "heuristic", "check", "compare") else [])])  # fmt: skip
    assert_one_line_error(r, 2)
    assert f"data directory {missing} does not exist" in r.stderr
    assert not missing.parent.exists()


@pytest.mark.parametrize("flag", ["--list", "--verify"])
def test_build_pdb_list_and_verify_refuse_a_missing_data_dir(tmp_path, flag):
    missing = tmp_path / "no" / "such"
    r = CliRunner().invoke(build_main, [flag, "--data-dir", str(missing)])
    assert_one_line_error(r, 2)
    assert f"data directory {missing} does not exist" in r.stderr


def test_a_build_still_creates_the_directory_it_writes(tmp_path):
    new = tmp_path / "new" / "dir"
    r = CliRunner().invoke(build_main, ["--shape", "2x3", "-q", "--data-dir", str(new)])
    assert r.exit_code == 0, r.output
    assert (new / "exact-2x3.h5").is_file()


@pytest.mark.parametrize("command", [c for c in commands_taking_a_data_dir() if c != "serve"])
def test_a_missing_npuzzle_data_is_refused_as_a_missing_data_dir_is(
    run_cli, tmp_path, monkeypatch, command
):
    missing = tmp_path / "not-yet"
    monkeypatch.setenv("NPUZZLE_DATA", str(missing))
    r = run_cli([command, *(["1 2 3/4 5 6/7 0 8"] if command in (
        "solve", "distance", "hint", "heuristic", "check", "compare") else [])])  # fmt: skip
    assert_one_line_error(r, 2)
    assert f"data directory {missing} (named by $NPUZZLE_DATA) does not exist" in r.stderr
    assert not missing.exists()


def test_serve_refuses_a_missing_npuzzle_data_before_it_starts(tmp_path):
    # A process with a bound: a server that started would answer until it is stopped.
    env = {**os.environ, "NPUZZLE_DATA": str(tmp_path / "not-yet")}
    p = subprocess.run(
        [sys.executable, "-m", "solver", "serve", "--port", "0"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 2 and p.stderr.count("\n") == 1, p.stderr
    assert "(named by $NPUZZLE_DATA) does not exist" in p.stderr


@pytest.mark.parametrize("flag", ["--list", "--verify"])
def test_build_pdb_list_and_verify_refuse_a_missing_npuzzle_data(tmp_path, monkeypatch, flag):
    monkeypatch.setenv("NPUZZLE_DATA", str(tmp_path / "not-yet"))
    r = CliRunner().invoke(build_main, [flag])
    assert_one_line_error(r, 2)
    assert "does not exist" in r.stderr and "NPUZZLE_DATA" in r.stderr


def test_a_build_creates_the_directory_of_npuzzle_data(tmp_path, monkeypatch):
    new = tmp_path / "not-yet"
    monkeypatch.setenv("NPUZZLE_DATA", str(new))
    r = CliRunner().invoke(build_main, ["--shape", "2x3", "-q"])
    assert r.exit_code == 0, r.output
    assert (new / "exact-2x3.h5").is_file()


# --- build-pdb --list --------------------------------------------------------------------------


@pytest.fixture
def listed_dir(exact_dir, tmp_path):
    """Copies of the exact 2x3 and 3x3 tables: one sound, one with a changed byte, and a file
    under a database's name with no digest header."""
    for name in ("exact-2x3.h5", "exact-3x3.h5"):
        shutil.copy(exact_dir / name, tmp_path)
    path = tmp_path / "exact-3x3.h5"
    data = bytearray(path.read_bytes())
    data[store.HEADER_SIZE + 4000] ^= 0xFF
    path.write_bytes(bytes(data))
    (tmp_path / f"exact-{Shape(2, 4)}.h5").write_bytes(b"not a database")
    return tmp_path


def test_list_states_each_status_once_and_exits_3_when_one_is_damaged(listed_dir):
    r = CliRunner().invoke(build_main, ["--list", "--data-dir", str(listed_dir)])
    assert r.exit_code == 3, r.output
    status = {ln.split()[0]: ln for ln in r.stdout.splitlines()[1:]}
    assert status["exact-2x3.h5"].endswith(" ok")
    assert status["exact-3x3.h5"].endswith(" damaged: does not match its digest")
    assert status["exact-2x4.h5"].endswith(
        " damaged: has no npuzzle digest header (or built by an older npuzzle)"
    )
    for line in status.values():
        assert line.count("damaged") <= 1 and str(listed_dir) not in line
    err = r.stderr.strip()
    assert "\n" not in err.split("data directory: ", 1)[1].split("\n", 1)[1], err
    assert "2 damaged file(s)" in err
    for shape in ("3x3", "2x4"):
        assert f"build-pdb --shape {shape} --data-dir {listed_dir} --force" in err


def test_list_of_sound_files_exits_0(exact_dir, tmp_path):
    shutil.copy(exact_dir / "exact-2x3.h5", tmp_path)
    r = CliRunner().invoke(build_main, ["--list", "--data-dir", str(tmp_path)])
    assert r.exit_code == 0 and r.stdout.splitlines()[1].endswith(" ok"), r.output
