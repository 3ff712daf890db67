"""A lean start-up: each command imports what it needs and no more (h5py only to read a
file's layout the first time, nothing heavy for --help)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from solver.cli import COMMANDS, main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def imported_after(args: list[str], env: dict, cwd: str = ROOT) -> set:
    """The heavy modules imported by running ``npuzzle ARGS`` in a fresh interpreter."""
    code = (
        "import sys, atexit, json\n"
        "heavy = ('numpy', 'h5py', 'scipy', 'tqdm', 'matplotlib', 'cffi', "
        "'importlib.metadata', 'yaml')\n"
        "atexit.register(lambda: sys.__stderr__.write('MODULES ' + json.dumps("
        "[m for m in heavy if m in sys.modules]) + '\\n'))\n"
        "from solver.cli import main\n"
        f"main({args!r})\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": ROOT, **env},
        cwd=cwd,
    )
    line = [l for l in r.stderr.splitlines() if l.startswith("MODULES ")][-1]
    return set(json.loads(line[len("MODULES ") :]))


def test_the_group_help_lists_every_command_with_its_whole_summary():
    ctx = click.Context(main)
    assert set(main.list_commands(ctx)) == set(COMMANDS)
    text = CliRunner().invoke(main, ["--help"], terminal_width=80).output
    for name, (_module, summary) in COMMANDS.items():
        assert main.get_command(ctx, name) is not None, name
        assert re.search(rf"^  {name} +{re.escape(summary)}$", text, re.M), (name, text)


def test_help_imports_nothing_heavy(tmp_path):
    assert imported_after(["--help"], {"NPUZZLE_DATA": str(tmp_path)}) == set()
    assert imported_after(["check", "1 2 3/4 0 5"], {"NPUZZLE_DATA": str(tmp_path)}) == set()


FIFTEEN = "1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15"
HARDER = "13 14 15 7 11 12 9 5 6 0 2 1 4 8 10 3"  # 63 moves


def test_a_lookup_needs_numpy_only_and_h5py_only_the_first_time(tables_dir, tmp_path):
    env = {"NPUZZLE_DATA": str(tables_dir), "NPUZZLE_CACHE": str(tmp_path / "cache")}
    first = imported_after(["distance", "8 6 7 2 5 4 3 0 1"], env)
    assert first == {"numpy", "h5py"}
    assert imported_after(["distance", "8 6 7 2 5 4 3 0 1"], env) == {"numpy"}
    assert imported_after(["solve", "8 6 7 2 5 4 3 0 1"], env) == {"numpy"}
    assert imported_after(["hint", "8 6 7 2 5 4 3 0 1"], env) == {"numpy"}


@pytest.mark.parametrize("command", ["solve", "distance", "hint"])
def test_a_search_on_the_compiled_kernels_imports_numpy_alone(tables_dir, tmp_path, command):
    # Over a pattern database (4x4 5-5-5), the tables' layouts remembered by the first run.
    env = {"NPUZZLE_DATA": str(tables_dir), "NPUZZLE_CACHE": str(tmp_path / "cache")}
    imported_after([command, HARDER], env)
    assert imported_after([command, HARDER], env) == {"numpy"}


def test_a_search_without_a_database_imports_numpy_alone(tmp_path):
    # Linear conflict on a shape with no table built.
    env = {"NPUZZLE_DATA": str(tmp_path), "NPUZZLE_CACHE": str(tmp_path / "cache")}
    assert imported_after(["solve", "3 1 2 0/4 5 6 7/8 9 10 11"], env) == {"numpy"}


@pytest.mark.parametrize("command", ["solve", "distance", "hint"])
def test_a_zero_aware_search_on_the_compiled_kernels_imports_numpy_alone(
    twin_dir, tmp_path, command
):
    # The twin's region tables are made with numpy (solver.core.regions).
    env = {"NPUZZLE_DATA": str(twin_dir), "NPUZZLE_CACHE": str(tmp_path / "cache")}
    imported_after([command, HARDER], env, cwd=str(tmp_path))
    assert imported_after([command, HARDER], env, cwd=str(tmp_path)) == {"numpy"}


def test_npuzzle_ends_without_the_teardown_and_loses_nothing_it_said(exact_dir):
    # solver.core.interrupts.finish: os._exit once the command returned, its output flushed.
    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: sys.stderr.write('the teardown ran'))\n"
        "from solver.cli import launch\n"
        "sys.argv = ['npuzzle', 'distance', '-', '--data-dir', sys.argv[1]]\n"
        "launch()\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", code, str(exact_dir)],
        input="1 2 3/4 0 5\n" * 5000,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": ROOT},
        cwd=ROOT,
    )
    assert (r.returncode, r.stderr) == (0, "")
    assert r.stdout == "1\n" * 5000
