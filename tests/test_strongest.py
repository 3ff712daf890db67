"""The strongest set: ``build-pdb --strongest`` plans, estimates and skips what exists; a search
that the set would make much faster says so once, before it starts.

No 7-8 or 5x5 table is built here: small files stand in for them where only their names
matter, and the build itself is replaced where a test is about what comes before it.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import assert_one_line_error, reference_file

from pdb_builder import build
from pdb_builder import cli as build_cli
from pdb_builder import strongest as plan_set
from pdb_builder.pattern_bfs import partition_cost
from solver import answers, api
from solver.core.board import Shape, preset_goal
from solver.tables import strongest

FIVE = Shape(5, 5)
FOUR = Shape(4, 4)
FIVE_SET = ("6-6-6-6", "6-6-6-6c", "6-6-6-6d", "6-6-6-6e")


def _stand_in(directory, *files):
    """Small files under the names of databases (only their names are read here)."""
    for name in files:
        (directory / name).write_bytes(b"stand-in")


def _build_pdb(args):
    return CliRunner().invoke(build_cli.main, [str(a) for a in args], catch_exceptions=True)


# --- what the set is and what a build of it would do ----------------------------------------


def test_the_sets_are_the_measured_fastest():
    assert [m.partition.name for m in strongest.members(FIVE)] == list(FIVE_SET)
    assert [m.partition.name for m in strongest.members(FOUR)] == ["7-8"]
    first = strongest.members(FIVE)[0]
    assert (first.additive, first.twin) == ("apdb-5x5-6-6-6-6.h5", "zpdb-5x5-6-6-6-6.h5")
    blank_first = strongest.members(FOUR, preset_goal(FOUR, "blank-first"))[0]
    assert blank_first.twin == "zpdb-4x4-7-8-blank-first.h5"
    assert not strongest.has_set(Shape(3, 3)) and strongest.members(Shape(3, 3)) == []


def test_plan_skips_what_is_built_and_estimates_the_rest(tmp_path):
    _stand_in(tmp_path, "apdb-5x5-6-6-6-6.h5", "zpdb-5x5-6-6-6-6.h5", "apdb-5x5-6-6-6-6c.h5")
    steps = plan_set.plan(FIVE, preset_goal(FIVE), tmp_path)
    assert [(s.member.partition.name, s.additive, s.twin) for s in steps] == [
        ("6-6-6-6", False, False),
        ("6-6-6-6c", False, True),
        ("6-6-6-6d", True, True),
        ("6-6-6-6e", True, True),
    ]
    est = plan_set.estimate(FIVE, steps, cores=2)
    per_file = 4 * 127_512_000  # 25!/19! placements of each of four 6-tile patterns, a byte each
    assert est.disk == 5 * (per_file + 2**20)  # and a MiB of HDF5 metadata a file, at most
    # Three searches: a twin alone, then two that write both files (one search each).
    twin, both = plan_set.MEASURED[("5x5", "twin")], plan_set.MEASURED[("5x5", "both")]
    assert est.seconds == pytest.approx(twin.two_cores + 2 * both.two_cores)
    on_16 = plan_set.estimate(FIVE, steps, cores=16).seconds
    assert 199.4 / 4 + 2 * both.two_cores / 8 < on_16 < est.seconds
    assert twin.peak is None and both.peak is None  # not measured: the builder's model stands in
    assert est.memory == partition_cost(FIVE, [6] * 4, 2)[0] > 0
    lines = plan_set.describe(FIVE, steps, est)
    assert (
        "already built, kept: apdb-5x5-6-6-6-6.h5, zpdb-5x5-6-6-6-6.h5, apdb-5x5-6-6-6-6c.h5"
        in lines
    )
    assert "to build: zpdb-5x5-6-6-6-6c.h5" in lines
    assert "to build: apdb-5x5-6-6-6-6d.h5 and zpdb-5x5-6-6-6-6d.h5 (one search for both)" in lines
    assert lines[-1].startswith("estimate: about 3 min on 2 core(s), 2.6 GB of disk")
    assert "an estimate" in lines[-1]
    forced = plan_set.plan(FIVE, preset_goal(FIVE), tmp_path, force=True)
    assert all(s.additive and s.twin for s in forced)


def test_strongest_says_the_plan_before_it_builds(tmp_path, monkeypatch):
    """The estimate comes before the first build, the budget is checked before either, and
    only what is missing is built."""
    _stand_in(tmp_path, "apdb-5x5-6-6-6-6.h5", "zpdb-5x5-6-6-6-6.h5")
    events = []
    monkeypatch.setattr(build.budget, "check", lambda what, cost, where: events.append(what))

    def fake_step(shape, step, goal, data_dir, progress):
        import sys

        print("BUILD " + step.member.partition.name, file=sys.stderr)
        events.append(step.member.partition.name)
        return [{"file": step.member.additive, "skipped": False}]

    monkeypatch.setattr(build, "build_step", fake_step)
    r = _build_pdb(["--shape", "5x5", "--strongest", "--data-dir", tmp_path, "-q"])
    assert r.exit_code == 0, r.output
    err = r.stderr
    assert err.index("estimate: about") < err.index("BUILD 6-6-6-6c")
    assert "already built, kept: apdb-5x5-6-6-6-6.h5, zpdb-5x5-6-6-6-6.h5" in err
    built = [e for e in events if e in FIVE_SET]
    assert built == ["6-6-6-6", "6-6-6-6c", "6-6-6-6d", "6-6-6-6e"]  # every step is handed over
    checks = [e for e in events if e not in FIVE_SET]
    assert events.index(checks[-1]) < events.index("6-6-6-6")  # all fits checked first
    assert checks == [  # the three missing pairs, then the disk of them all
        "partition 6-6-6-6c of 5x5 (zero-aware)",
        "partition 6-6-6-6d of 5x5 (zero-aware)",
        "partition 6-6-6-6e of 5x5 (zero-aware)",
        "the strongest 5x5 set",
    ]


def test_strongest_with_everything_built_builds_nothing(tmp_path):
    _stand_in(tmp_path, "apdb-4x4-7-8-blank-first.h5", "zpdb-4x4-7-8-blank-first.h5")
    r = _build_pdb(
        ["--shape", "4x4", "--strongest", "--goal", "blank-first", "--data-dir", tmp_path]
    )
    assert r.exit_code == 0, r.output
    assert "nothing to build" in r.stderr and "building into" not in r.stderr
    assert r.stdout.count("exists, kept") == 2


def test_the_shared_search_writes_the_files_of_two_builds(tmp_path):
    """One search per pattern makes the additive database and its twin, the same tables as
    the two builds made apart."""
    import h5py

    from pdb_builder.build_apdb import build_apdb
    from pdb_builder.zero_aware import build_with_twin, build_zero_aware

    together, apart = tmp_path / "together", tmp_path / "apart"
    rows = build_with_twin("3x3", "4-4", None, together, progress=False)
    assert [r["file"] for r in rows] == ["apdb-3x3-4-4.h5", "zpdb-3x3-4-4.h5"]
    build_apdb("3x3", "4-4", None, apart, progress=False)
    build_zero_aware("3x3", "4-4", None, apart, progress=False)
    for name in ("apdb-3x3-4-4.h5", "zpdb-3x3-4-4.h5"):
        with h5py.File(together / name) as a, h5py.File(apart / name) as b:
            assert sorted(a) == sorted(b)
            for table in a:
                assert np.array_equal(a[table][()], b[table][()])
                assert a[table].attrs["checksum"] == b[table].attrs["checksum"]
    assert build.verify_all(together)[1] == []


@pytest.mark.parametrize(
    "args",
    [
        ["--strongest"],
        ["--shape", "3x3", "--strongest"],
        ["--shape", "6x6", "--strongest"],
        ["--shape", "4x4", "--shape", "5x5", "--strongest"],
        ["--shape", "4x4", "--strongest", "--partition", "7-8"],
        ["--shape", "4x4", "--strongest", "--goal", "sideways"],
    ],
)
def test_bad_uses_of_strongest_are_one_line(args, tmp_path):
    r = _build_pdb([*args, "--data-dir", tmp_path])
    assert_one_line_error(r, 2)
    assert not list(tmp_path.iterdir())


# --- the suggestion before a search ---------------------------------------------------------


@pytest.fixture(scope="module")
def six_six_three(tmp_path_factory):
    """A data directory with the 4x4 6-6-3 database alone (seconds)."""
    from pdb_builder.build_apdb import build_apdb

    d = tmp_path_factory.mktemp("six-six-three")
    build_apdb("4x4", "6-6-3", None, d, progress=False)
    return d


def _korf(i: int) -> str:
    """Korf's board ``i`` (from 0), blank-first."""
    text = reference_file("korf100.txt").read_text().splitlines()
    return [line.split("\t")[1] for line in text if line.strip() and line[0] != "#"][i]


def _forget_notes():
    """The next in-process command says its notes afresh, as each process does."""
    from solver.cli import errors

    errors.forget_notices()


@pytest.fixture(autouse=True)
def _fresh_notes():
    _forget_notes()


NOTE = "npuzzle: note: 2 of the 2 databases of the strongest 4x4 set are not built"


def test_suggestion_once_before_the_answer(run_cli, six_six_three):
    board = _korf(0)
    r = run_cli(["solve", board, "--goal", "blank-first", "--data-dir", six_six_three])
    assert r.exit_code == 0, r.output
    assert r.stderr.count("npuzzle: note:") == 1
    assert NOTE in r.stderr and "build-pdb --shape 4x4 --strongest --data-dir" in r.stderr
    assert "21 ms a board with 6-6-3, 1.3 ms with the set" in r.stderr  # the gain over 6-6-3
    assert r.output.index(NOTE) < r.output.index(" moves: ")


def test_suggestion_with_timeout_and_json(run_cli, six_six_three):
    board = _korf(0)
    common = ["--goal", "blank-first", "--data-dir", six_six_three, "--timeout", "0.0001"]
    r = run_cli(["solve", board, *common])
    assert r.exit_code == 4 and r.stderr.count(NOTE) == 1
    assert r.stderr.index(NOTE) < r.stderr.index("limit:")
    _forget_notes()
    r = run_cli(["solve", board, "--goal", "blank-first", "--data-dir", six_six_three, "--json"])
    assert r.exit_code == 0 and r.stderr.count(NOTE) == 1
    assert r.output.index(NOTE) < r.output.index("{")
    assert "--strongest" in json.loads(r.stdout)["notice"]


def test_suggestion_once_per_batch(run_cli, six_six_three):
    boards = "\n".join(_korf(i) for i in range(3)) + "\n"
    r = run_cli(
        ["solve", "-", "--goal", "blank-first", "--data-dir", six_six_three, "--json"],
        input=boards,
    )
    assert r.exit_code == 0, r.output
    assert r.stderr.count("npuzzle: note:") == 1
    assert r.output.index(NOTE) < r.output.index("{")
    assert len(r.stdout.splitlines()) == 3


@pytest.mark.parametrize("command", ["distance", "hint"])
def test_distance_and_hint_say_it_before_the_search(run_cli, six_six_three, command):
    board = _korf(0)
    common = ["--goal", "blank-first", "--data-dir", six_six_three]
    r = run_cli([command, board, *common, "--max-nodes", "10"])
    assert r.exit_code == 4 and r.stderr.count(NOTE) == 1, r.output
    assert r.stderr.index(NOTE) < r.stderr.index("limit:")
    _forget_notes()
    boards = "\n".join(_korf(i) for i in range(3)) + "\n"
    r = run_cli([command, "-", *common, "--json"], input=boards)
    assert r.exit_code == 0 and r.stderr.count("npuzzle: note:") == 1, r.output
    assert r.output.index(NOTE) < r.output.index("{")
    assert len(r.stdout.splitlines()) == 3


def test_no_suggestion_where_the_set_is_built_or_a_partition_is_named(
    run_cli, six_six_three, tmp_path
):
    board = _korf(0)
    r = run_cli(
        ["solve", board, "-p", "6-6-3", "--goal", "blank-first", "--data-dir", six_six_three]
    )
    assert r.exit_code == 0 and "note" not in r.stderr, r.output
    goal = preset_goal(FOUR, "blank-first")
    spec = api.heuristic_spec(goal, api.SearchOptions(data_dir=six_six_three))
    from solver.search import sources

    assert sources.advice(goal, spec) is not None
    assert strongest.advice(FOUR, goal, six_six_three) is not None
    # The set built for the goal the search's database serves (blank-last, carried onto
    # blank-first by a symmetry) is no reason to say anything.
    built = tmp_path / "built"
    built.mkdir()
    _stand_in(built, "apdb-4x4-7-8.h5", "zpdb-4x4-7-8.h5")
    assert strongest.advice(FOUR, goal, built, served_by=preset_goal(FOUR)) is None
    assert strongest.advice(FOUR, preset_goal(FOUR), built) is None
    assert "--goal blank-first" in strongest.advice(FOUR, goal, built)
    # With --no-zero-aware only the additive file counts.
    assert strongest.not_built(FOUR, preset_goal(FOUR), six_six_three, False) == ["apdb-4x4-7-8.h5"]


def test_the_answer_carries_the_suggestion(six_six_three):
    """What the service answers (the record of a Solution) names the command too."""
    sol = api.solve(_korf(0), "blank-first", data_dir=six_six_three)
    assert "build-pdb --shape 4x4 --strongest" in answers.solution_record(sol)["notice"]


def test_no_database_at_all_is_said_before_the_search(run_cli, tmp_path):
    board = "2 1 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 24 23 0"
    r = run_cli(["solve", board, "--data-dir", tmp_path, "--timeout", "0.5"])
    assert r.exit_code == 4
    assert r.stderr.count("npuzzle: note:") == 1
    assert "build-pdb --shape 5x5 --strongest" in r.stderr
    assert r.stderr.index("note:") < r.stderr.index("limit:")


def test_a_set_the_disk_cannot_hold_is_refused_before_anything(tmp_path, monkeypatch):
    """Each file fits the disk alone, all eight do not: one line, exit 2, nothing written."""
    from collections import namedtuple

    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(build.budget, "available_memory", lambda: None)
    monkeypatch.setattr(build.budget.shutil, "disk_usage", lambda _: usage(0, 0, 10**9))
    r = _build_pdb(["--shape", "5x5", "--strongest", "--data-dir", tmp_path])
    assert_one_line_error(r, 2)
    assert "the strongest 5x5 set needs about 4.1 GB of disk" in r.stderr
    assert "estimate" not in r.stderr and not list(tmp_path.iterdir())
