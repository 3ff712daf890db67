"""The one choice of databases (solver.search.sources) for IDA*, A* and a heuristic question,
and the one table of Manhattan distance (solver.core.board.manhattan_table)."""

from __future__ import annotations

import pytest

from solver import api
from solver.core.board import Board, Shape, manhattan, manhattan_table, preset_goal
from solver.search import sources
from solver.search.sources import ASTAR, HEURISTIC, IDASTAR, HeuristicSpec
from solver.tables.partitions import parse_partition
from solver.tables.store import DatabaseMissing

THREE, FOUR = Shape.parse("3x3"), Shape.parse("4x4")


def test_without_databases_each_asker_falls_back_or_refuses_by_its_own_rule(tmp_path):
    goal3, goal4 = preset_goal(THREE), preset_goal(FOUR)
    auto = HeuristicSpec(data_dir=tmp_path)
    ida = sources.choose(goal3, auto, IDASTAR)
    assert ida.kind == sources.LINEAR_CONFLICT and ida.databases == ()
    assert "searching with linear conflict" in ida.notice
    asked = sources.choose(goal3, auto, HEURISTIC)
    assert asked.kind == sources.LINEAR_CONFLICT and "h is linear conflict" in asked.notice
    # IDA* on the 15-puzzle needs a database; A* falls back.
    with pytest.raises(DatabaseMissing):
        sources.choose(goal4, auto, IDASTAR)
    assert sources.choose(goal4, auto, ASTAR).kind == sources.LINEAR_CONFLICT
    # "pdb" asks for a database, whoever asks.
    for asker in (IDASTAR, ASTAR, HEURISTIC):
        with pytest.raises(DatabaseMissing):
            sources.choose(goal3, HeuristicSpec(name="pdb", data_dir=tmp_path), asker)


def test_the_three_askers_read_the_same_database(pdb_dir):
    goal = preset_goal(THREE)
    spec = HeuristicSpec(data_dir=pdb_dir, combine=False)
    chosen = {sources.choose(goal, spec, asker).databases[0][0] for asker in (IDASTAR, ASTAR)}
    chosen.add(sources.heuristic_source(goal, None, pdb_dir).databases[0][0])
    assert len(chosen) == 1 and next(iter(chosen)).partition_name == "4-4"
    halves = parse_partition("1,4,7/2,5,8/3,6", THREE, goal)
    asked = sources.heuristic_source(goal, halves, pdb_dir, "1,4,7/2,5,8/3,6")
    assert asked.kind == sources.PDB and asked.databases[0][0].partition_name != "4-4"


def test_a_heuristic_question_reads_the_exact_table_first(exact_dir):
    source = sources.heuristic_source(preset_goal(THREE), None, exact_dir)
    assert source.kind == sources.EXACT and "exact distance" in source.notice


def test_astar_answers_as_before_from_the_choice(pdb_dir, tmp_path):
    board = "8 6 7 2 5 4 3 0 1"
    with_db = api.solve(board, algorithm="astar", data_dir=pdb_dir)
    without = api.solve(board, algorithm="astar", data_dir=tmp_path)
    assert with_db.length == without.length == 31
    assert with_db.heuristic == "pdb" and without.heuristic == "linear-conflict"
    assert without.notice and "searching with linear conflict" in without.notice


@pytest.mark.parametrize("shape", ["2x2", "2x3", "3x3", "3x4", "4x4", "5x5"])
def test_the_manhattan_table_is_the_grid_distance_to_each_home(shape):
    sh = Shape.parse(shape)
    for goal in (preset_goal(sh), preset_goal(sh, "blank-first")):
        md = manhattan_table(goal)
        home = {t: c for c, t in enumerate(goal.tiles)}
        for t in range(1, sh.size):
            for c in range(sh.size):
                r0, c0 = divmod(c, sh.cols)
                r1, c1 = divmod(home[t], sh.cols)
                assert md[t][c] == abs(r0 - r1) + abs(c0 - c1)
        assert md[0] == (0,) * sh.size
    assert manhattan(Board.parse("1 2 3/4 5 6/0 7 8"), preset_goal(THREE)) == 2


def test_a_search_chooses_again_when_what_it_read_changes(pdb_dir, tmp_path):
    # A long-lived process (a batch, the service) chooses once and asks the catalog again
    # only when the data directory or a file a plan reads has changed.
    import os
    import shutil

    goal = preset_goal(THREE)
    opts = api.SearchOptions(data_dir=tmp_path, combine=False)
    [source] = [p for p in pdb_dir.iterdir() if p.name.startswith("apdb-3x3-4-4")]
    copy = tmp_path / source.name
    shutil.copy(source, copy)

    def plan():
        return api.search_request(goal, goal, opts).plans[0][0]

    first = plan()
    assert first.kind == "pdb" and copy in first.files and plan() is first
    # Rewritten in place under the same name: chosen again, from the file as it is now.
    stamp = copy.stat().st_mtime_ns + 10**9
    os.utime(copy, ns=(stamp, stamp))
    again = plan()
    assert again is not first and again.kind == "pdb" and plan() is again
    # Removed: linear conflict, with the notice naming the command that builds it; and back.
    copy.unlink()
    assert plan().kind == "lc" and "build-pdb" in plan().notice
    shutil.copy(source, copy)
    assert plan().kind == "pdb"
