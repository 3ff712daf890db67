"""A lean start-up: each command imports what it needs and no more (numba only for searches,
h5py only to read a file's layout the first time, nothing heavy for --help)."""

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
        "heavy = ('numpy', 'h5py', 'numba', 'scipy', 'tqdm', 'matplotlib', 'cffi', "
        "'importlib.metadata', 'numba.np.arraymath', 'numba.np.arrayobj', 'yaml')\n"
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


def test_a_lookup_needs_numpy_only_and_h5py_only_the_first_time(tables_dir, tmp_path):
    env = {"NPUZZLE_DATA": str(tables_dir), "NPUZZLE_CACHE": str(tmp_path / "cache")}
    first = imported_after(["distance", "8 6 7 2 5 4 3 0 1"], env)
    assert first == {"numpy", "h5py"}
    assert imported_after(["distance", "8 6 7 2 5 4 3 0 1"], env) == {"numpy"}
    assert imported_after(["solve", "8 6 7 2 5 4 3 0 1"], env) == {"numpy"}
    search = ["solve", "1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15"]
    imported_after(search, env)  # the kernel compiled or loaded: cached from now on
    # A cached kernel needs numba and its runtime, not scipy, cffi, the extension scan or the
    # registries for all of NumPy (solver.core.numba_start).
    assert imported_after(search, env) == {"numpy", "numba"}


def test_a_zero_aware_search_loads_no_array_code_and_no_yaml(twin_dir, tmp_path):
    # The twin's region tables are made by a kernel that allocates nothing, and PyYAML is
    # left out where no numba configuration file is there to read (solver.core.numba_start).
    env = {"NPUZZLE_DATA": str(twin_dir), "NPUZZLE_CACHE": str(tmp_path / "cache")}
    search = ["solve", "1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15", "-v"]
    imported_after(search, env, cwd=str(tmp_path))  # compiled or loaded: cached from now on
    assert imported_after(search, env, cwd=str(tmp_path)) == {"numpy", "numba"}


def test_a_numba_configuration_file_is_still_read(tmp_path):
    pytest.importorskip("yaml", reason="numba reads its configuration file with PyYAML")
    (tmp_path / ".numba_config.yaml").write_text("developer_mode: 1\n")
    code = (
        "from solver.core.numba_start import import_numba\n"
        "import_numba()\n"
        "import numba.core.config as c\n"
        "print(c.DEVELOPER_MODE)\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": ROOT},
        cwd=tmp_path,
    )
    assert r.stdout.strip() == "1", r.stderr


@pytest.mark.slow
def test_a_kernel_compiled_afresh_still_solves(tables_dir, tmp_path):
    env = {
        **os.environ,
        "PYTHONPATH": ROOT,
        "NPUZZLE_DATA": str(tables_dir),
        "NUMBA_CACHE_DIR": str(tmp_path / "numba"),
    }
    r = subprocess.run(
        [sys.executable, "-m", "solver", "solve", "5 1 2 3 9 6 7 4 13 10 11 8 0 14 15 12"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )
    assert r.returncode == 0 and r.stdout == "9 moves: UUURRRDDD\n", r.stderr
