"""``npuzzle heuristic`` gives the best estimate that is built and names it:
the exact table where one is built for the shape, else the pattern database, else linear
conflict -- like ``solve`` -- on one board and in batches, text and --json."""

from __future__ import annotations

import json

import pytest
from conftest import assert_one_line_error

from solver.cli import errors
from solver.core.board import goal_board, parse_board
from solver.heuristics import linear_conflict
from solver.tables import exact

FAR_3X3 = "8 6 7 2 5 4 3 0 1"  # 31 moves; Manhattan 21, linear conflict 23
BATCH = "8 6 7 2 5 4 3 0 1\n1 2 3 4 5 6 8 7 0\n1 2 3/4 5 6/0 7 8\n"


@pytest.fixture(autouse=True)
def _notes_said_afresh(monkeypatch):
    """Each note is said once per process: every test starts with none said."""
    errors.forget_notices()


def _json(run_cli, data_dir, *args, input=None):
    r = run_cli(["heuristic", *args, "--json", "--data-dir", data_dir], input=input)
    return r, [json.loads(line) for line in r.stdout.splitlines()]


def test_the_exact_table_answers_where_it_is_built(run_cli, exact_dir, tables_dir):
    for data_dir in (exact_dir, tables_dir):  # with and without a 3x3 pattern database
        errors.forget_notices()
        r = run_cli(["heuristic", *FAR_3X3.split(), "--data-dir", data_dir])
        assert r.exit_code == 0 and r.stdout == "31\n", (r.output, r.stderr)
        assert "note:" not in r.stderr  # the text is the answer; --json says where it is from
        errors.forget_notices()
        r, [rec] = _json(run_cli, data_dir, FAR_3X3)
        assert rec["heuristic"] == "exact" and rec["h"] == 31
        assert "exact distance" in rec["notice"] and "exact-3x3.h5" in rec["notice"]
        assert rec["database"] == "exact-3x3.h5" and rec["manhattan"] == 21
        assert rec["linear_conflict"] == 23


def test_a_named_partition_asks_for_that_database(run_cli, tables_dir):
    r, [rec] = _json(run_cli, tables_dir, FAR_3X3, "--partition", "4-4")
    assert r.exit_code == 0 and rec["heuristic"] == "pdb" and rec["partition"] == "4-4"
    assert 23 <= rec["h"] <= 31 and rec["database"] == "apdb-3x3-4-4.h5"


def test_a_partition_is_read_where_the_question_arrives(run_cli, pdb_dir):
    """The words of ``--partition`` (a preset, tiles in any order) ask for that database: the
    value is the database's own, one board or a batch; ``A+B`` is one line, exit 2 (the
    maximum of several databases is IDA*'s); a partition not built, exit 3."""
    from solver.core.board import Shape
    from solver.tables import pattern_db
    from solver.tables.partitions import parse_partition

    board, shape = parse_board(FAR_3X3), Shape(3, 3)
    for words in ("4-4", "3,6/7,4,1/8,5,2"):
        pdb = pattern_db.load_apdb(shape, parse_partition(words, shape), data_dir=pdb_dir)
        r, [rec] = _json(run_cli, pdb_dir, FAR_3X3, "--partition", words)
        assert r.exit_code == 0 and rec["heuristic"] == "pdb"
        assert rec["partition"] == pdb.name and rec["h"] == pdb.value(board)
        r, recs = _json(run_cli, pdb_dir, "-", "--partition", words, input=BATCH)
        assert r.exit_code == 1  # BATCH's second start is unsolvable
        assert recs[0]["h"] == rec["h"] and recs[0]["partition"] == pdb.name
    r = run_cli(["heuristic", FAR_3X3, "-p", "4-4+1,4,7/2,5,8/3,6", "--data-dir", pdb_dir])
    assert_one_line_error(r, 2)
    assert "one pattern database" in r.stderr and "IDA*" in r.stderr
    r = run_cli(["heuristic", FAR_3X3, "-p", "1,2/3,4/5,6/7,8", "--data-dir", pdb_dir])
    assert_one_line_error(r, 3)
    assert "no partition 1,2/3,4/5,6/7,8 is built" in r.stderr


def test_the_pattern_database_where_no_exact_table_is_built(run_cli, pdb_dir):
    r, [rec] = _json(run_cli, pdb_dir, FAR_3X3)
    assert r.exit_code == 0 and rec["heuristic"] == "pdb" and rec["partition"] == "4-4"
    assert "notice" not in rec and "note" not in r.stderr


def test_linear_conflict_when_nothing_is_built(run_cli, tmp_path):
    r = run_cli(["heuristic", *FAR_3X3.split(), "--data-dir", tmp_path])
    assert r.exit_code == 0 and r.stdout == "23\n", (r.output, r.stderr)
    assert "linear conflict" in r.stderr and "build-pdb --shape 3x3" in r.stderr
    r, [rec] = _json(run_cli, tmp_path, FAR_3X3)
    assert rec["heuristic"] == "linear-conflict" and rec["h"] == 23
    assert rec["database"] is None and "build-pdb" in rec["notice"]


def test_batches_choose_the_same_estimate(run_cli, exact_dir, pdb_dir, tmp_path):
    boards = [parse_board(line) for line in BATCH.splitlines()]
    goal = goal_board("3x3")
    for data_dir, kind in ((exact_dir, "exact"), (pdb_dir, "pdb"), (tmp_path, "linear-conflict")):
        r, recs = _json(run_cli, data_dir, "-", input=BATCH)
        assert r.exit_code == 1, (r.output, r.stderr)  # the second start is unsolvable
        far, unsolvable, near = recs
        assert unsolvable["solvable"] is False
        for rec, board in ((far, boards[0]), (near, boards[2])):
            assert rec["heuristic"] == kind, rec
            if kind == "exact":
                assert rec["h"] == exact.distance(board, goal, data_dir=exact_dir)
            elif kind == "linear-conflict":
                assert rec["h"] == linear_conflict(board, goal) == rec["linear_conflict"]
            else:
                assert rec["linear_conflict"] <= rec["h"] <= 31
        text = run_cli(["heuristic", "-", "--data-dir", data_dir], input=BATCH)
        assert text.stdout.splitlines() == [str(far["h"]), "unsolvable", str(near["h"])]
