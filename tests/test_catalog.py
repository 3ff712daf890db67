"""The catalog decides which database serves a goal, and every command obeys it.

For each goal preset and a custom goal, on 3x3 and 4x4: a database built for the goal is the
one ``solve`` (IDA*), A*, ``heuristic`` and the batch use (the JSON names the file); a database
built for the default goal serves the goal through a board symmetry when one exists; otherwise
the answer is exit 3 with the command that builds the goal's own database -- and that command,
pasted into a shell, works.
"""

from __future__ import annotations

import json
import os
import random
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import assert_one_line_error
from naive_bfs import distances_from

from pdb_builder.build_apdb import build_apdb
from solver.core.board import Board, goal_board
from solver.tables import catalog, names
from solver.tables.partitions import parse_partition

ROOT = Path(__file__).resolve().parent.parent
GOALS_3X3 = {
    "blank-first": "blank-first",
    "snake": "snake",
    "spiral": "spiral",
    "custom": "8 7 6/5 4 3/2 1 0",
}
GOALS_4X4 = {
    "blank-first": "blank-first",
    "snake": "snake",
    "spiral": "spiral",
    "custom": "15 14 13 12/11 10 9 8/7 6 5 4/3 2 1 0",
}
PRESET = {"3x3": "4-4", "4x4": "5-5-5"}


def walk(goal: Board, steps: int, seed: int) -> Board:
    rng = random.Random(seed)
    board = goal
    for _ in range(steps):
        board = board.move(rng.choice(board.legal_moves()))
    return board


@pytest.fixture(scope="session")
def own_dirs(tmp_path_factory):
    """Per shape and goal, a data directory holding only that goal's own database."""
    dirs = {}
    for shape, goals in (("3x3", GOALS_3X3), ("4x4", GOALS_4X4)):
        for key, goal in goals.items():
            d = tmp_path_factory.mktemp(f"own-{shape}-{key}")
            build_apdb(shape, PRESET[shape], goal_board(shape, goal), d, progress=False)
            dirs[shape, key] = d
    return dirs


@pytest.fixture(scope="session")
def default_dir(tmp_path_factory):
    """A data directory holding the default goal's 3x3 and 4x4 databases only."""
    d = tmp_path_factory.mktemp("default-goal")
    build_apdb("3x3", "4-4", None, d, progress=False)
    build_apdb("4x4", "5-5-5", None, d, progress=False)
    return d


def answers_of(run_cli, shape, goal, data_dir, board):
    """The database each command reports for ``board`` (and the lengths found)."""
    common = ["--goal", goal, "--data-dir", data_dir, "--json"]
    out = {}
    for name, args in (
        ("idastar", ["solve", str(board), "--algorithm", "idastar"]),
        ("astar", ["solve", str(board), "--algorithm", "astar"]),
        ("heuristic", ["heuristic", str(board)]),
    ):
        r = run_cli([*args, *common])
        assert r.exit_code == 0, (name, r.output, r.stderr)
        out[name] = json.loads(r.stdout)
    r = run_cli(
        ["solve", "-", "--algorithm", "idastar", "--jobs", "1", *common], input=f"{board}\n"
    )
    assert r.exit_code == 0, r.output
    out["batch"] = json.loads(r.stdout)
    return out


@pytest.mark.parametrize(
    "shape,key", [(s, k) for s, g in (("3x3", GOALS_3X3), ("4x4", GOALS_4X4)) for k in g]
)
def test_a_goals_own_database_serves_every_command(run_cli, own_dirs, shape, key):
    goal = (GOALS_3X3 if shape == "3x3" else GOALS_4X4)[key]
    goal_b = goal_board(shape, goal)
    want = names.apdb_file_name(goal_b.shape, PRESET[shape], goal_b)
    board = walk(goal_b, 14, seed=len(key))
    out = answers_of(run_cli, shape, goal, own_dirs[shape, key], board)
    assert {k: v["database"] for k, v in out.items()} == dict.fromkeys(out, want)
    lengths = {out[k]["length"] for k in ("idastar", "astar", "batch")}
    assert len(lengths) == 1 and out["heuristic"]["h"] <= lengths.pop() <= 14
    for k in ("idastar", "astar", "batch"):
        assert board.apply(out[k]["moves"]) == goal_b


@pytest.mark.parametrize(
    "shape,key", [(s, k) for s, g in (("3x3", GOALS_3X3), ("4x4", GOALS_4X4)) for k in g]
)
def test_the_default_goals_database_serves_by_symmetry_or_names_the_fix(
    run_cli, default_dir, shape, key
):
    goal = (GOALS_3X3 if shape == "3x3" else GOALS_4X4)[key]
    goal_b = goal_board(shape, goal)
    board = walk(goal_b, 12, seed=3)
    reducible = catalog.reduction(goal_b, goal_board(shape)) is not None
    if reducible:
        out = answers_of(run_cli, shape, goal, default_dir, board)
        want = names.apdb_file_name(goal_b.shape, PRESET[shape])
        assert {k: v["database"] for k, v in out.items()} == dict.fromkeys(out, want)
        for k in ("idastar", "astar", "batch"):
            assert board.apply(out[k]["moves"]) == goal_b
        return
    fix = names.build_command(goal_b.shape, None, goal_b, default_dir)
    base = [
        "solve",
        str(board),
        "--algorithm",
        "idastar",
        "--goal",
        goal,
        "--data-dir",
        default_dir,
    ]
    r = run_cli([*base, "--heuristic", "pdb"])
    assert_one_line_error(r, 3)
    assert r.stderr.strip().endswith(f"fix: {fix}")
    r = run_cli(base)  # auto: 4x4 refuses (hours without one), smaller boards fall back
    if shape == "4x4":
        assert_one_line_error(r, 3)
        assert r.stderr.strip().endswith(f"fix: {fix}")
    else:
        assert r.exit_code == 0 and board.apply(r.stdout.split()[2]) == goal_b
        note = r.stderr.strip()
        assert f"to build one: {fix}" in note  # then, with no exact table, the exact one's
        assert note.endswith(f"to build one: {fix}") or note.endswith(
            f"for instant exact answers: build-pdb --shape {shape} --data-dir {default_dir})"
        )


def test_own_database_beats_a_symmetric_one(run_cli, tmp_path):
    build_apdb("3x3", "4-4", None, tmp_path, progress=False)
    build_apdb("3x3", "1,2/3,4/5,6/7,8", goal_board("3x3", "blank-first"), tmp_path, progress=False)
    goal_b = goal_board("3x3", "blank-first")
    entry, red = catalog.resolve(goal_b.shape, goal_b, None, tmp_path)
    assert entry.goal == goal_b and red.is_identity
    # Asking for the 4-4 partition: only the default goal's file has it.
    halves = parse_partition("4-4", goal_b.shape, goal_b)
    entry, red = catalog.resolve(goal_b.shape, goal_b, halves, tmp_path)
    assert entry.goal == goal_board("3x3") and red.symmetry.name == "rotate-180"


def test_a_pasted_fix_command_builds_what_was_missing(tmp_path):
    data = tmp_path / "data dir with spaces"
    data.mkdir()  # empty: a --data-dir that does not exist is refused
    env = dict(os.environ, PYTHONPATH=str(ROOT), NPUZZLE_DATA="")
    board = str(walk(goal_board("3x3", "spiral"), 11, seed=1))
    cmd = [
        sys.executable,
        "-m",
        "solver",
        "solve",
        board,
        "--goal",
        "spiral",
        "--algorithm",
        "idastar",
        "--heuristic",
        "pdb",
        "--data-dir",
        str(data),
        "--json",
    ]
    first = subprocess.run(cmd, capture_output=True, text=True, env=env)
    assert first.returncode == 3, first.stderr
    fix = first.stderr.strip().split("fix: ", 1)[1]
    argv = shlex.split(fix)
    assert argv[0] == "build-pdb"
    built = subprocess.run(
        [sys.executable, "-m", "pdb_builder", *argv[1:], "--quiet"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert built.returncode == 0, built.stderr
    second = subprocess.run(cmd, capture_output=True, text=True, env=env)
    assert second.returncode == 0, second.stderr
    answer = json.loads(second.stdout)
    assert answer["database"] == "apdb-3x3-4-4-spiral.h5" and answer["length"] <= 10


def test_search_without_a_database_falls_back_and_says_so_once(run_cli, tmp_path):
    goal_b = goal_board("3x3")
    truth = distances_from(goal_b.tiles, 3, 3)
    boards = [walk(goal_b, n, seed=n) for n in (8, 9, 10)]
    r = run_cli(
        ["solve", "-", "--algorithm", "idastar", "--jobs", "1", "--data-dir", tmp_path],
        input="".join(f"{b}\n" for b in boards),
    )
    assert r.exit_code == 0, r.output
    lengths = [int(line.split()[0]) for line in r.stdout.splitlines()]
    assert lengths == [truth[b.tiles] for b in boards]
    notes = [line for line in r.stderr.splitlines() if "note:" in line]
    assert len(notes) == 1 and "linear conflict" in notes[0]
    assert "build-pdb --shape 3x3 --partition 4-4" in notes[0]


def test_file_names_round_trip_through_the_catalog():
    for shape, goals in (("3x3", GOALS_3X3), ("4x4", GOALS_4X4)):
        for goal in [None, *goals.values()]:
            g = goal_board(shape, goal)
            for part in (
                PRESET[shape],
                "1.2-3.4.5.6.7.8" if shape == "3x3" else "1.2.3.4.5.6.7-8.9.10.11.12.13.14.15",
            ):
                name = names.apdb_file_name(g.shape, part, g)
                entry = names.parse_name(Path(name))
                assert (entry.kind, entry.shape, entry.goal, entry.partition_name) == (
                    names.ADDITIVE,
                    g.shape,
                    g,
                    part,
                )
    assert names.parse_name(Path("exact-3x3.h5")).kind == names.EXACT
    for other in ("apdb-3x3.h5", "notes.txt", "apdb-3x3-4-4-goal-1.2.h5", "exact-9x9x9.h5"):
        assert names.parse_name(Path(other)) is None


@pytest.mark.parametrize("shape", ["3x4", "2x6", "3x5", "4x5", "5x6"])
def test_shapes_without_a_preset_get_a_partition_that_can_be_pasted(shape):
    import math

    from solver.core.board import Shape
    from solver.tables import partitions

    s = Shape.parse(shape)
    argv = shlex.split(names.build_command(s))
    spec = argv[argv.index("--partition") + 1]
    groups = partitions.parse_partition(spec, s)  # covers every tile once, or raises
    assert all(math.perm(s.size, len(g)) <= partitions.SUGGESTED_MAX_ENTRIES for g in groups)


def test_the_fallback_note_says_what_can_be_built(run_cli, tmp_path):
    small = run_cli(
        ["solve", "1 2 3 4 5 6 7 8 9 10 0 11", "--shape", "3x4", "--data-dir", tmp_path]
    )
    assert small.exit_code == 0 and small.stdout == "1 move: R\n", small.output
    assert "build-pdb --shape 3x4 --partition 1,2,3,4,5,6,7/8,9,10,11" in small.stderr
    assert "for instant exact answers: build-pdb --shape 3x4 --data-dir" in small.stderr
    big = "1 2 3 4 5 6/7 8 9 10 11 12/13 14 15 16 17 18/19 20 21 22 23 24/25 26 27 28 29 30/31 32 33 34 0 35"
    large = run_cli(["solve", big, "--data-dir", tmp_path])
    assert large.exit_code == 0 and large.stdout == "1 move: R\n", large.output
    assert "up to 31 cells" in large.stderr and "build-pdb" not in large.stderr


def test_a_preset_ending_in_a_letter_is_read_back_from_its_file_name():
    for name, partition, goal in [
        ("apdb-4x4-7-8b.h5", "7-8b", "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0"),
        ("apdb-4x4-7-8b-blank-first.h5", "7-8b", "0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15"),
        ("apdb-4x4-7-8-blank-first.h5", "7-8", "0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15"),
    ]:
        entry = names.parse_name(Path(name))
        assert (entry.partition_name, entry.goal.flat()) == (partition, goal), name


def test_the_directory_is_read_once_until_it_changes(tmp_path, monkeypatch):
    catalog.clear_cache()
    reads = []
    real = os.scandir
    monkeypatch.setattr(os, "scandir", lambda p: reads.append(p) or real(p))
    (tmp_path / "apdb-3x3-4-4.h5").write_bytes(b"")
    first = catalog.scan(tmp_path)
    assert catalog.scan(tmp_path) is first and len(reads) == 1
    (tmp_path / "exact-3x3.h5").write_bytes(b"")  # the directory changes: read again
    later = tmp_path.stat().st_mtime_ns + 10**9  # whatever the file system's clock resolution
    os.utime(tmp_path, ns=(later, later))
    assert len(catalog.scan(tmp_path)) == 2 and len(reads) == 2


def test_a_search_asks_the_catalog_once_with_its_partition_parsed(tmp_path, monkeypatch):
    from solver import api
    from solver.tables.partitions import Partition

    build_apdb("3x3", "4-4", None, tmp_path, progress=False)
    asked = []
    choose = catalog.choose
    monkeypatch.setattr(catalog, "choose", lambda *a, **k: asked.append(a) or choose(*a, **k))
    sol = api.solve("8 6 7/2 5 4/3 0 1", algorithm="idastar", partition="4-4", data_dir=tmp_path)
    assert sol.length == 31 and len(asked) == 1
    wanted = asked[0][2]
    assert len(wanted) == 1 and isinstance(wanted[0], Partition) and wanted[0].name == "4-4"
