"""A lean start-up: each command imports what it needs and no more (numba only for searches
that run numba's kernels -- none where the compiled ones are built --, h5py only to read a
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
from solver.core import config
from solver.search import native

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def imported_after(args: list[str], env: dict, cwd: str = ROOT) -> set:
    """The heavy modules imported by running ``npuzzle ARGS`` in a fresh interpreter."""
    code = (
        "import sys, atexit, json\n"
        "heavy = ('numpy', 'h5py', 'numba', 'scipy', 'tqdm', 'matplotlib', 'cffi', "
        "'importlib.metadata', 'numba.np.arraymath', 'numba.np.arrayobj', 'yaml', 'llvmlite')\n"
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


COMPILED = pytest.mark.skipif(
    native.load() is None,
    reason="the compiled kernels are not built (pip install -e . with a C compiler builds them)",
)
JIT = {config.ENV_KERNELS: "jit"}
# The tests that run numba's search kernels compile them first (a minute on a fresh numba
# cache): marked slow, they run with --slow, and .ci/run runs them after the searches' tests on
# the JIT, whose compiles they then find in the cache.
JIT_RUN = pytest.mark.slow
FIFTEEN = "1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15"
HARDER = "13 14 15 7 11 12 9 5 6 0 2 1 4 8 10 3"  # 63 moves


def test_a_lookup_needs_numpy_only_and_h5py_only_the_first_time(tables_dir, tmp_path):
    env = {"NPUZZLE_DATA": str(tables_dir), "NPUZZLE_CACHE": str(tmp_path / "cache")}
    first = imported_after(["distance", "8 6 7 2 5 4 3 0 1"], env)
    assert first == {"numpy", "h5py"}
    assert imported_after(["distance", "8 6 7 2 5 4 3 0 1"], env) == {"numpy"}
    assert imported_after(["solve", "8 6 7 2 5 4 3 0 1"], env) == {"numpy"}
    assert imported_after(["hint", "8 6 7 2 5 4 3 0 1"], env) == {"numpy"}


@COMPILED
@pytest.mark.parametrize("command", ["solve", "distance", "hint"])
def test_a_search_on_the_compiled_kernels_imports_numpy_alone(tables_dir, tmp_path, command):
    # Over a pattern database (4x4 5-5-5), the tables' layouts remembered by the first run.
    env = {"NPUZZLE_DATA": str(tables_dir), "NPUZZLE_CACHE": str(tmp_path / "cache")}
    imported_after([command, HARDER], env)
    assert imported_after([command, HARDER], env) == {"numpy"}


@COMPILED
def test_a_search_without_a_database_imports_numpy_alone(tmp_path):
    # Linear conflict on a shape with no table built.
    env = {"NPUZZLE_DATA": str(tmp_path), "NPUZZLE_CACHE": str(tmp_path / "cache")}
    assert imported_after(["solve", "3 1 2 0/4 5 6 7/8 9 10 11"], env) == {"numpy"}


@COMPILED
@pytest.mark.parametrize("command", ["solve", "distance", "hint"])
def test_a_zero_aware_search_on_the_compiled_kernels_imports_numpy_alone(
    twin_dir, tmp_path, command
):
    # The twin's region tables are made with numpy (solver.core.regions).
    env = {"NPUZZLE_DATA": str(twin_dir), "NPUZZLE_CACHE": str(tmp_path / "cache")}
    imported_after([command, HARDER], env, cwd=str(tmp_path))
    assert imported_after([command, HARDER], env, cwd=str(tmp_path)) == {"numpy"}


def _search_line(args: list[str], env: dict) -> tuple:
    """The answer of ``npuzzle solve ARGS -v -j 1`` in a fresh interpreter, its heuristic
    and its node and iteration counts."""
    r = subprocess.run(
        [sys.executable, "-m", "solver", "solve", *args, "-v", "-j", "1"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": ROOT, **env},
        cwd=ROOT,
    )
    assert r.returncode == 0, r.stderr
    stats = re.search(r"heuristic ([^,]*),.* ([\d,]+) nodes generated, (\d+) iterations", r.stderr)
    return (r.stdout, *stats.groups())


@JIT_RUN
def test_numba_s_kernels_when_asked_give_the_same_search(twin_dir, tmp_path):
    env = {"NPUZZLE_DATA": str(twin_dir), "NPUZZLE_CACHE": str(tmp_path / "cache")}
    jit = _search_line([HARDER], {**env, **JIT})
    assert jit[0].startswith("63 moves") and "zero-aware" in jit[1]
    assert _search_line([HARDER], env) == jit
    plain = ["--heuristic", "linear-conflict", "3 1 2 0/4 5 6 7/8 9 10 11"]
    assert _search_line(plain, {**env, **JIT}) == _search_line(plain, env)


NUMBA_ALONE = {"numpy", "numba", "llvmlite", "importlib.metadata"}


@JIT_RUN
def test_a_search_on_numba_s_kernels_needs_numba_alone(tables_dir, tmp_path):
    env = {"NPUZZLE_DATA": str(tables_dir), "NPUZZLE_CACHE": str(tmp_path / "cache"), **JIT}
    imported_after(["solve", FIFTEEN], env)  # the kernel compiled or loaded: cached from now on
    # A cached kernel needs numba and its runtime, not scipy, cffi or the registries for all
    # of NumPy (solver.core.numba_start); numba's import brings importlib.metadata.
    assert imported_after(["solve", FIFTEEN], env) == NUMBA_ALONE


@JIT_RUN
def test_a_zero_aware_search_on_numba_s_kernels_loads_no_array_code_and_no_yaml(twin_dir, tmp_path):
    # PyYAML is left out where no numba configuration file is there to read
    # (solver.core.numba_start).
    env = {"NPUZZLE_DATA": str(twin_dir), "NPUZZLE_CACHE": str(tmp_path / "cache"), **JIT}
    search = ["solve", FIFTEEN, "-v"]
    imported_after(search, env, cwd=str(tmp_path))  # compiled or loaded: cached from now on
    assert imported_after(search, env, cwd=str(tmp_path)) == NUMBA_ALONE


@JIT_RUN
def test_the_jit_note_is_said_once_where_the_compiled_kernels_are_missing(tables_dir, tmp_path):
    code = (
        "import sys\n"
        "from solver.search import native\n"
        "native.load = lambda *a, **k: None  # as on a machine without a C compiler\n"
        "from solver.cli import main\n"
        "main(sys.argv[1:])\n"
    )
    env = {**os.environ, "PYTHONPATH": ROOT, "NPUZZLE_DATA": str(tables_dir)}
    env.pop(config.ENV_KERNELS, None)
    board = ["13 14 15 7 11 12 9 5 6 0 2 1 4 8 10 3", "5 1 2 3 9 6 7 4 13 10 11 8 0 14 15 12"]
    r = subprocess.run(
        [sys.executable, "-c", code, "solve", "-"],
        input="\n".join(board) + "\n",
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )
    assert r.returncode == 0, r.stderr
    assert r.stderr.count(native.JIT_NOTE) == 1
    quiet = subprocess.run(
        [sys.executable, "-c", code, "--quiet", "solve", board[1]],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )
    assert quiet.returncode == 0 and native.JIT_NOTE not in quiet.stderr


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


def test_the_jit_note_is_not_said_where_the_search_will_not_run(pdb_dir, tmp_path, monkeypatch):
    # Without compiled kernels, a 15-puzzle search without a database is refused (exit 3,
    # its error naming the command): a note about how to start faster would be noise.
    from solver import api
    from solver.core.board import Shape, goal_board

    monkeypatch.setattr(native, "kernels", lambda: None)
    monkeypatch.delenv(config.ENV_KERNELS, raising=False)
    goal = goal_board(Shape(4, 4))
    assert api.kernels_note(goal, api.SearchOptions(data_dir=tmp_path)) is None
    assert api.kernels_note(goal, api.SearchOptions(data_dir=pdb_dir)) == native.JIT_NOTE
