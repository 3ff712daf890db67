"""Without tables, the same situation gets the same behaviour: where no exact table is built,
``generate`` and ``stats`` on boards of up to 10 cells (3x3, 2x5, ...) search every position
in memory and say so in a note, as ``distance`` searches with one; larger boards still exit 3
with the command that builds what they need.  Every answer is checked against an independent
source: the plain BFS of ``tests/naive_bfs.py``, or the published 2x5 counts."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from conftest import assert_one_line_error
from naive_bfs import distances_from

from solver import api
from solver.core.board import Board, Shape, goal_board
from solver.workloads.distributions import reference_counts


@pytest.fixture(scope="module")
def naive_3x3():
    """Every solvable 3x3 position and its distance to blank-last, by the plain BFS."""
    return distances_from(goal_board("3x3").tiles, 3, 3)


def ok(result):
    assert result.exit_code == 0, (result.output, result.exception)
    return result


def assert_noted(result, shape, data_dir):
    """One note, naming what is missing and the command that builds it."""
    notes = [ln for ln in result.stderr.splitlines() if ln.startswith("npuzzle: note: ")]
    assert len(notes) == 1, result.stderr
    assert f"no exact table is built for {shape}" in notes[0] and "in memory" in notes[0]
    assert f"build-pdb --shape {shape} --data-dir {data_dir}" in notes[0]


def test_stats_3x3_counts_every_position_in_memory(run_cli, tmp_path, naive_3x3):
    r = ok(run_cli(["stats", "--shape", "3x3", "--data-dir", tmp_path, "--json"]))
    rec = json.loads(r.stdout)
    naive = Counter(naive_3x3.values())
    assert rec["counts"] == [naive[d] for d in range(max(naive) + 1)]
    assert rec["total"] == 181_440 and rec["max_distance"] == 31
    assert "in memory" in rec["source"]
    assert_noted(r, "3x3", tmp_path)
    assert not list(tmp_path.iterdir())  # nothing written


def test_stats_2x5_matches_the_published_counts(run_cli, tmp_path):
    r = ok(run_cli(["stats", "--shape", "2x5", "--data-dir", tmp_path, "--json"]))
    published = reference_counts(Shape(2, 5))  # OEIS A090036, shipped with the package
    assert "published" in published.source
    assert json.loads(r.stdout)["counts"] == list(published.counts)
    assert_noted(r, "2x5", tmp_path)


def test_generate_3x3_draws_and_levels_at_their_true_distance(run_cli, tmp_path, naive_3x3):
    for i, extra in enumerate(([], ["--distance", "31"], ["--method", "walk", "--max", "12"])):
        empty = tmp_path / str(i)  # a note is said once a process: a directory of its own
        empty.mkdir()
        r = ok(run_cli(["generate", "-n", "20", "--seed", "3", "--data-dir", empty, *extra]))
        rows = [line.split("\t") for line in r.stdout.splitlines()]
        assert len(rows) == 20
        for text, d in rows:
            assert naive_3x3[Board.parse(text).tiles] == int(d), text
        if extra[:1] == ["--distance"]:
            assert {int(d) for _, d in rows} == {31}
        assert_noted(r, "3x3", empty)


def test_generate_2x5_answers_at_the_searched_distance(run_cli, tmp_path):
    r = ok(run_cli(["generate", "--shape", "2x5", "-n", "3", "--seed", "1", "--max", "16",
                    "--json", "--data-dir", tmp_path]))  # fmt: skip
    for line in r.stdout.splitlines():
        rec = json.loads(line)
        board = Board.parse(rec["rows"])
        assert api.distance(board, data_dir=tmp_path) == rec["distance"] <= 16
    assert_noted(r, "2x5", tmp_path)


def test_quiet_silences_the_note(run_cli, tmp_path):
    r = ok(run_cli(["--quiet", "stats", "--shape", "2x3", "--data-dir", tmp_path]))
    assert r.stderr == "" and "360" in r.stdout


@pytest.mark.parametrize("command", [["generate"], ["generate", "--distance", "52"]])
def test_a_larger_board_still_needs_its_database(run_cli, tmp_path, command):
    r = run_cli([*command, "--shape", "4x4", "--data-dir", tmp_path])
    assert_one_line_error(r, 3)
    assert "build-pdb --shape 4x4" in r.stderr
