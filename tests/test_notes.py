"""Notes that help: said once, only where a search runs and is not trivial, about what the
user has built, and silenced by one switch (--quiet or NPUZZLE_QUIET=1)."""

from __future__ import annotations

import json

import pytest

from solver.cli import errors

KORF_1 = "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3"
KORF_2 = "13 5 4 10 9 12 8 14 2 3 7 1 0 15 11 6"


@pytest.fixture(autouse=True)
def _fresh_notes():
    """Each in-process command says its notes afresh, as each process does."""
    errors.forget_notices()
    yield
    errors.forget_notices()


@pytest.mark.parametrize(
    "args",
    [
        ["solve", "1 2/0 3"],  # 2x2: 12 states, instant whatever is built
        ["solve", "1 2 3 4/5 6 7 8/9 10 11 0"],  # 3x4 already at the goal
        ["distance", "1 2 3 4/5 6 7 8/9 10 11 0", "--json"],
    ],
)
def test_no_note_for_a_trivial_search(run_cli, tmp_path, args):
    r = run_cli([*args, "--data-dir", tmp_path])
    assert r.exit_code == 0, r.output
    assert "note:" not in r.stderr
    if "--json" in args:
        assert json.loads(r.stdout)["notice"] is None  # the key stays: one shape a record


def test_no_note_where_no_search_runs(run_cli, pdb_dir):
    # Korf's first board is unsolvable for blank-last: the batch searches nothing.
    r = run_cli(["solve", "-", "--data-dir", pdb_dir], input=KORF_1 + "\n")
    assert r.stdout.strip() == "unsolvable (solvable for --goal blank-first)"
    assert "note:" not in r.stderr


def test_a_note_goes_in_the_first_record_only(run_cli, pdb_dir):
    batch = f"{KORF_1}\n{KORF_2}\n"
    r = run_cli(
        ["solve", "-", "--goal", "blank-first", "--json", "--data-dir", pdb_dir], input=batch
    )
    assert r.exit_code == 0, r.output
    records = [json.loads(x) for x in r.stdout.splitlines()]
    assert [rec["notice"] is not None for rec in records] == [True, False]
    assert r.stderr.count("note:") == 1


def test_the_gain_is_over_what_is_built(run_cli, pdb_dir):
    r = run_cli(["solve", KORF_2, "--goal", "blank-first", "--data-dir", pdb_dir])
    assert r.exit_code == 0, r.output
    assert "Korf's 100: 258 ms a board with 5-5-5, 1.3 ms with the set" in r.stderr


@pytest.mark.parametrize("how", ["option", "environment"])
def test_quiet_silences_notes_not_errors(run_cli, pdb_dir, how):
    words = ["--quiet"] if how == "option" else []
    env = {"NPUZZLE_QUIET": "1"} if how == "environment" else None
    batch = f"{KORF_2}\nnot a board\n"
    args = [*words, "solve", "-", "--goal", "blank-first", "--data-dir", pdb_dir]
    r = run_cli(args, input=batch, env=env)
    assert r.exit_code == 2 and r.stdout.startswith("55 moves: ")
    assert "note:" not in r.stderr and "error: " in r.stdout


def test_the_exact_distance_note_is_json_only(run_cli, exact_dir):
    r = run_cli(["heuristic", "8 6 7 2 5 4 3 0 1", "--data-dir", exact_dir])
    assert r.exit_code == 0 and r.stdout.strip() == "31" and "note:" not in r.stderr
    r = run_cli(["heuristic", "8 6 7 2 5 4 3 0 1", "--json", "--data-dir", exact_dir])
    assert "h is the exact distance" in json.loads(r.stdout)["notice"]


def test_the_help_names_every_blank(run_cli):
    r = run_cli(["--help"])
    assert "the blank is 0, x, X, _ or ." in " ".join(r.stdout.split())
