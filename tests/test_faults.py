"""Faults: damaged databases are refused with a fix that works, signals end in one line with the
conventional status, resources stay bounded, errors are one line.

The damaged copies are of the small databases (exact 2x3/3x3, a 3x3 4-4 PDB): a changed byte in
a table and in the HDF5 metadata, a truncation, another database's file under the name, a FIFO,
attributes edited and re-sealed with a valid digest.  ``scripts/fault_injection.py`` runs the
same damages (and many more) over every command, thousands of cases.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import h5py
import numpy as np
import pytest
from click.testing import CliRunner
from conftest import assert_one_line_error

from pdb_builder.build_apdb import build_apdb
from pdb_builder.cli import main as build_main
from solver import api
from solver.core import interrupts
from solver.core.board import Board, goal_board
from solver.core.solution import InvalidSolution, Solution
from solver.tables import audit, catalog, exact, names, store

ROOT = Path(__file__).resolve().parents[1]
ENV = dict(os.environ, PYTHONPATH=str(ROOT))
START_3X3 = "8 6 7 2 5 4 3 0 1"  # 31 moves


@pytest.fixture(scope="session")
def sound_dir(tmp_path_factory, exact_dir):
    """Exact 2x3/3x3 tables and the 3x3 4-4 PDB in a directory whose name has a space."""
    d = tmp_path_factory.mktemp("sound") / "my data"
    shutil.copytree(exact_dir, d)
    build_apdb("3x3", "4-4", None, d, progress=False)
    return d


@pytest.fixture
def damaged(sound_dir, tmp_path):
    """A fresh copy of ``sound_dir`` to damage (its name has a space too)."""
    d = tmp_path / "damaged data"
    shutil.copytree(sound_dir, d)
    return d


def _flip(path: Path, offset: int) -> None:
    with open(path, "r+b") as fh:
        fh.seek(offset)
        b = fh.read(1)
        fh.seek(offset)
        fh.write(bytes([b[0] ^ 0x41]))


def _edit(path: Path, fn, reseal: bool = True) -> None:
    with h5py.File(path, "r+") as f:
        fn(f)
    if reseal:
        store._seal(path)  # a valid digest: only the checks behind it can tell


def _swap_tiles(f):
    a, b = f["pattern_0"].attrs["tiles"], f["pattern_1"].attrs["tiles"]
    f["pattern_0"].attrs["tiles"], f["pattern_1"].attrs["tiles"] = b, a


def _scramble_counts(f):
    c = np.array(f["blank_8"].attrs["counts"])
    c[3], c[4] = c[4], c[3]
    f["blank_8"].attrs["counts"] = c


EXACT, PDB = "exact-3x3.h5", "apdb-3x3-4-4.h5"
DAMAGES = {
    "table byte": (EXACT, lambda p: _flip(p, p.stat().st_size - 1000)),
    "metadata byte": (EXACT, lambda p: _flip(p, store.HEADER_SIZE + 100)),
    "truncated": (EXACT, lambda p: os.truncate(p, p.stat().st_size // 2)),
    "another file": (EXACT, lambda p: shutil.copyfile(p.with_name("exact-2x3.h5"), p)),
    "pdb metadata byte": (PDB, lambda p: _flip(p, store.HEADER_SIZE + 300)),
    "pdb swapped tiles, re-sealed": (PDB, lambda p: _edit(p, _swap_tiles)),
    "pdb partition edited, re-sealed": (
        PDB,
        lambda p: _edit(p, lambda f: f.attrs.__setitem__("partition", "1.2.3-4.5.6.7.8")),
    ),
    "counts edited, re-sealed": (EXACT, lambda p: _edit(p, _scramble_counts)),
    "dataset deleted, re-sealed": (EXACT, lambda p: _edit(p, lambda f: f.__delitem__("blank_8"))),
    "pdb other shape, re-sealed": (
        PDB,
        lambda p: _edit(p, lambda f: f.attrs.__setitem__("shape", "2x3")),
    ),
}
# The commands that read each file, with their answer on sound databases.
READERS = {
    EXACT: [
        (["distance", START_3X3], "31"),
        (["solve", START_3X3], None),
        (["stats", "--shape", "3x3"], None),
        (["generate", "--count", "2", "--seed", "1"], None),
        (["distance", "-"], "31"),
    ],
    PDB: [
        # Without --partition the exact table answers (the best estimate): name the database.
        (["heuristic", START_3X3, "--partition", "4-4"], None),
        (["heuristic", "-", "--partition", "4-4"], None),
        (["solve", START_3X3, "--heuristic", "pdb", "-a", "idastar"], None),
    ],
}


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_every_reader_and_verify_refuse_a_damaged_file_with_its_fix(run_cli, damaged, damage):
    name, do = DAMAGES[damage]
    do(damaged / name)
    if damage == "counts edited, re-sealed":
        readers = [(["stats", "--shape", "3x3"], None)]  # the only reader of the counts
    else:
        readers = READERS[name]
    for args, _ in readers:
        r = run_cli([*args, "--data-dir", damaged], input=START_3X3 + "\n")
        assert_one_line_error(r, 3)
        assert "fix: build-pdb --shape 3x3" in r.stderr and "--force" in r.stderr
    r = CliRunner().invoke(build_main, ["--verify", "--data-dir", str(damaged)])
    assert_one_line_error(r, 3)
    assert name in r.stdout and "fix: build-pdb --shape 3x3" in r.stderr


def test_damage_to_a_file_a_command_does_not_read_does_not_disturb_it(run_cli, damaged):
    _flip(damaged / PDB, store.HEADER_SIZE + 10)
    r = run_cli(["distance", START_3X3, "--data-dir", damaged])
    assert r.exit_code == 0 and r.stdout.strip() == "31"
    r = run_cli(["solve", START_3X3, "--data-dir", damaged])
    assert r.exit_code == 0 and r.stdout.startswith("31 moves")


def _paste(fix: str, tmp_path: Path) -> subprocess.CompletedProcess:
    """Run ``fix`` in a shell exactly as pasted, with build-pdb meaning this checkout's."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    script = bin_dir / "build-pdb"
    script.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m pdb_builder -q "$@"\n')
    script.chmod(0o755)
    env = dict(os.environ, PYTHONPATH=str(ROOT), PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return subprocess.run(["bash", "-c", fix], env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize(
    "case",
    ["exact missing", "exact corrupt", "pdb missing", "pdb corrupt", "pdb goal missing", "verify"],
)
def test_the_fix_in_the_message_works_when_pasted(run_cli, damaged, tmp_path, case):
    args = {
        "exact missing": ["solve", START_3X3, "--algorithm", "table"],
        "exact corrupt": ["distance", START_3X3],
        "pdb missing": ["heuristic", START_3X3, "--partition", "1,2,3/4,5,6,7,8"],
        "pdb corrupt": ["heuristic", START_3X3, "--partition", "4-4"],
        "pdb goal missing": [
            "heuristic",
            "1 2 3/4 5 0/6 7 8",
            "--goal",
            "1 2 3/4 0 5/6 7 8",
            "--partition",
            "1,2,3,4/5,6,7,8",
        ],
        "verify": None,
    }[case]
    if "exact" in case:
        (damaged / EXACT).unlink() if "missing" in case else _flip(damaged / EXACT, 5000)
    elif case == "pdb corrupt" or case == "verify":
        _flip(damaged / PDB, 4000)
    if args is None:
        r = CliRunner().invoke(build_main, ["--verify", "--data-dir", str(damaged)])
    else:
        r = run_cli([*args, "--data-dir", damaged])
    assert_one_line_error(r, 3)
    fix = r.stderr.split("fix: ", 1)[1].strip()
    done = _paste(fix, tmp_path)
    assert done.returncode == 0, (fix, done.stderr)
    if args is None:
        assert (
            CliRunner().invoke(build_main, ["--verify", "--data-dir", str(damaged)]).exit_code == 0
        )
    else:
        again = run_cli([*args, "--data-dir", damaged])
        assert again.exit_code == 0, (fix, again.stderr)


def test_the_default_data_dir_fix_names_no_data_dir(run_cli, tmp_path, monkeypatch):
    (tmp_path / "with space").mkdir()
    monkeypatch.setenv("NPUZZLE_DATA", str(tmp_path / "with space"))
    table = ["solve", START_3X3, "--algorithm", "table"]  # the exact table, no search instead
    r = run_cli(table)
    assert_one_line_error(r, 3)
    fix = r.stderr.split("fix: ", 1)[1].strip()
    assert fix == "build-pdb --shape 3x3"
    assert _paste(fix, tmp_path).returncode == 0
    assert run_cli(table).exit_code == 0
    assert "exact-3x3.h5" in run_cli(["stats", "--shape", "3x3"]).stdout


@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_a_fifo_or_directory_under_a_name_is_refused_at_once(damaged, tmp_path, kind):
    target = damaged / EXACT
    target.unlink()
    os.mkfifo(target) if kind == "fifo" else (target.mkdir(), (target / "keep.txt").touch())
    for cmd in (
        ["solver", "distance", START_3X3],
        ["pdb_builder", "--verify"],
        ["pdb_builder", "--list"],
    ):
        p = subprocess.run(
            [sys.executable, "-m", *cmd, "--data-dir", str(damaged)],
            capture_output=True,
            text=True,
            timeout=60,
            env=ENV,
        )
        assert p.returncode == 3, p.stderr
        assert "Traceback" not in p.stderr and "not a regular file" in p.stdout + p.stderr
        assert "; fix: build-pdb --shape 3x3" in p.stderr
    p = subprocess.run(
        [sys.executable, "-m", "solver", "distance", START_3X3, "--data-dir", str(damaged)],
        capture_output=True,
        text=True,
        env=ENV,
    )
    fix = p.stderr.split("fix: ", 1)[1].strip()
    assert _paste(fix, tmp_path).returncode == 0
    assert names.parse_name(target) and audit.audit(target) == []
    if kind == "directory":  # moved aside, not deleted
        assert [p.name for p in damaged.glob(f"{EXACT}.moved-*/keep.txt")] == ["keep.txt"]


def test_verify_reports_a_missing_directory_and_an_empty_one(tmp_path):
    r = CliRunner().invoke(build_main, ["--verify", "--data-dir", str(tmp_path / "nowhere")])
    assert_one_line_error(r, 2)
    r = CliRunner().invoke(build_main, ["--verify", "--data-dir", str(tmp_path)])
    assert_one_line_error(r, 3)


def test_verify_always_hashes_afresh(damaged):
    path = damaged / EXACT
    store.prove(path)  # recorded as sound
    st = os.stat(path)
    _flip(path, 9000)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # the change time still moves
    assert any("digest" in p for p in audit.audit(path))


def test_an_exact_walk_that_does_not_descend_names_the_file(damaged):
    path = damaged / EXACT
    start = Board.parse(START_3X3)
    _edit(path, lambda f: f["blank_8"].__setitem__(exact._rank(list(start.tiles)), 30))
    with pytest.raises(store.DatabaseCorrupt) as info:
        api.solve(start, data_dir=damaged)
    assert EXACT in str(info.value) and "--force" in info.value.fix


def test_a_solution_that_does_not_replay_is_blamed_on_its_database(damaged):
    start = Board.parse(START_3X3)
    sol = Solution(start, goal_board(start.shape), "UU", "idastar", database=PDB)
    with pytest.raises(InvalidSolution):
        sol.check()
    with pytest.raises(store.DatabaseCorrupt) as info:
        api.checked(sol, damaged)
    assert PDB in str(info.value) and info.value.fix.startswith("build-pdb --shape 3x3")


def test_damaged_names_its_file_and_fix():
    err = catalog.damaged("/some where/apdb-4x4-7-8.h5", "gave IDA* no path to the goal")
    assert "apdb-4x4-7-8.h5" in str(err)
    assert err.fix == "build-pdb --shape 4x4 --partition 7-8 --data-dir '/some where'"


# --- resources and bad arguments ----------------------------------------------------------


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "1e999"])
def test_a_timeout_must_be_finite(run_cli, exact_dir, value):
    assert_one_line_error(run_cli(["distance", START_3X3, "--timeout", value]), 2)


def test_an_empty_data_dir_is_refused(run_cli):
    assert_one_line_error(run_cli(["distance", START_3X3, "--data-dir", ""]), 2)
    assert_one_line_error(CliRunner().invoke(build_main, ["--list", "--data-dir", ""]), 2)


def test_jobs_beyond_the_cores_are_capped_and_said_once(run_cli, exact_dir):
    r = run_cli(
        ["solve", "-", "--jobs", "100000", "--data-dir", exact_dir],
        input=f"{START_3X3}\n{START_3X3}\n",
    )
    assert r.exit_code == 0 and r.stdout.count("31 moves") == 2
    assert r.stderr.count("--jobs 100000") == 1


@pytest.mark.parametrize("partition", ["1,2,3,4,5,6,7,8,9,10,11,12,13,14,15"])
def test_a_build_that_cannot_fit_is_refused_before_it_starts(tmp_path, partition):
    t0 = time.perf_counter()
    r = CliRunner().invoke(
        build_main, ["--shape", "4x4", "--partition", partition, "--data-dir", str(tmp_path)]
    )
    assert_one_line_error(r, 2)
    assert "memory" in r.stderr and time.perf_counter() - t0 < 5
    assert list(tmp_path.iterdir()) == []


def test_generate_streams_a_huge_count_in_flat_memory(exact_dir):
    p = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "solver",
            "generate",
            "--count",
            str(10**9),
            "--data-dir",
            str(exact_dir),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=ENV,
    )
    try:
        t0 = time.perf_counter()
        first = p.stdout.readline()
        assert first.count(b"\t") == 1 and time.perf_counter() - t0 < 30
        for _ in range(50_000):
            p.stdout.readline()
        rss = int(Path(f"/proc/{p.pid}/status").read_text().split("VmRSS:")[1].split()[0])
        assert rss < 200 * 1024, f"{rss} KiB"
    finally:
        p.kill()
        p.wait()


def test_a_closed_pipe_ends_quietly(exact_dir):
    cmd = (
        f"{shlex.quote(sys.executable)} -m solver generate --count 1000000 --data-dir "
        f'{shlex.quote(str(exact_dir))} | head -1; echo "${{PIPESTATUS[0]}}" >&2'
    )
    p = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, env=ENV, timeout=120)
    assert p.stdout.count("\n") == 1 and p.stderr.strip() == "141", p.stderr


def test_library_messages_over_several_lines_become_one(run_cli, tmp_path):
    from solver.cli.errors import classify

    code, message = classify(OSError(28, "No space left\non device", "/data/x.h5"))
    assert code == 2 and message == "error: No space left on device (/data/x.h5)"


# --- signals ------------------------------------------------------------------------------


def _run_and_signal(args, sig, delay, **kw):
    p = subprocess.Popen(
        [sys.executable, "-m", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=ENV,
        **kw,
    )
    time.sleep(delay)
    p.send_signal(sig)
    err = p.communicate(timeout=60)[1].decode()
    return p.returncode, err


@pytest.mark.parametrize("delay", [0.15, 0.3, 0.6, 1.5])
def test_sigint_at_any_moment_is_130_and_one_line(exact_dir, delay):
    rc, err = _run_and_signal(
        ["solver", "generate", "--count", str(10**9), "--data-dir", str(exact_dir)],
        signal.SIGINT,
        delay,
    )
    assert "Traceback" not in err and rc in (130, -signal.SIGINT), (rc, err)
    if rc == 130:
        assert err.strip().splitlines()[-1] == "npuzzle: interrupted"


def _build_over_an_old_file(tmp_path):
    """A 6-6-3 build (a second or two: a signal lands mid-build) over an existing file, once
    its temporary file exists: ``(process, the old file)``."""
    old = tmp_path / "apdb-4x4-6-6-3.h5"
    old.write_bytes(b"the previous file")
    p = subprocess.Popen(
        [sys.executable, "-m", "pdb_builder", "--shape", "4x4", "--partition", "6-6-3"]
        + ["--force", "-q", "--data-dir", str(tmp_path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=ENV,
    )
    deadline = time.time() + 60
    while not list(tmp_path.glob("*.tmp-*")) and p.poll() is None and time.time() < deadline:
        time.sleep(0.01)
    return p, old


def test_sigterm_during_a_build_removes_the_temporary_file(tmp_path):
    p, old = _build_over_an_old_file(tmp_path)
    p.send_signal(signal.SIGTERM)
    err = p.communicate(timeout=60)[1].decode()
    assert p.returncode == 143 and err.strip().endswith("build-pdb: terminated"), err
    assert list(tmp_path.glob("*.tmp-*")) == [] and old.read_bytes() == b"the previous file"


def test_sigint_during_a_build_is_130_and_leaves_the_old_file(tmp_path):
    p, old = _build_over_an_old_file(tmp_path)
    time.sleep(0.2)
    p.send_signal(signal.SIGINT)
    err = p.communicate(timeout=60)[1].decode()
    assert p.returncode == 130 and "Traceback" not in err, err
    assert err.strip().splitlines()[-1] == (
        "build-pdb: interrupted; no partial file was left behind"
    )
    assert list(tmp_path.glob("*.tmp-*")) == [] and old.read_bytes() == b"the previous file"


def test_a_signal_swallowed_on_the_way_is_still_reported(monkeypatch):
    """A signal whose exception a finaliser ate is remembered: check() raises it."""
    monkeypatch.setitem(interrupts._state, "pending", signal.SIGINT)
    with pytest.raises(interrupts.Interrupted) as info:
        interrupts.check()
    assert info.value.code == 130


def test_a_signal_in_a_callback_from_the_import_system_waits():
    """Raised inside importlib's module-lock weakref callback, the exception would be printed
    ("Exception ignored in ...") and lost: such frames are not safe, ordinary ones are."""
    import sys

    ns = {"sys": sys}
    exec(
        compile("def cb():\n    return sys._getframe()\n", "<frozen importlib._bootstrap>", "exec"),
        ns,
    )
    assert not interrupts._safe(ns["cb"]())
    assert interrupts._safe(sys._getframe())
