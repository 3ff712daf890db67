"""The maximum of two databases (``--partition A+B``, ``--combine``): the same optimal lengths as
the exact tables, never more nodes than either database alone, and the catalog's choice."""

from __future__ import annotations

import json
import random

import pytest

from solver import api
from solver.core.board import Shape, goal_board
from solver.search import plans
from solver.tables import exact, pattern_db

SECOND = "1,2,4,5/3,6,7,8"  # as strong as 4-4 (two 4-tile patterns), cut differently


@pytest.fixture(scope="module")
def two_cuts(tmp_path_factory):
    """The 3x3 4-4 database and a second one as strong, cut differently (about a second)."""
    from pdb_builder.build_apdb import build_apdb

    d = tmp_path_factory.mktemp("two-cuts")
    build_apdb("3x3", "4-4", None, d, progress=False)
    build_apdb("3x3", SECOND, None, d, progress=False)
    pattern_db.clear_cache()
    plans.clear_cache()
    return d


def _boards(n: int, seed: int):
    rng = random.Random(seed)
    board = goal_board(Shape(3, 3))
    for _ in range(n):
        for _ in range(60):
            board = board.move(rng.choice(board.legal_moves()))
        yield board


@pytest.mark.parametrize("reflect", [False, True])
def test_the_maximum_of_two_databases_is_optimal_and_never_costs_nodes(
    two_cuts, exact_dir, reflect
):
    goal = goal_board(Shape(3, 3))
    for start in _boards(15, 5):
        both, first, second = (
            api.solve(
                start,
                goal,
                algorithm="idastar",
                partition=partition,
                reflect=reflect,
                data_dir=two_cuts,
            )
            for partition in (f"4-4+{SECOND}", "4-4", SECOND)
        )
        assert " & " in both.heuristic and both.database.count(".h5") == 2
        assert start.apply(both.moves).tiles == goal.tiles
        assert both.length == exact.distance(start, goal, data_dir=exact_dir) == first.length
        assert both.nodes_generated <= min(first.nodes_generated, second.nodes_generated)


def test_the_heuristic_is_the_larger_of_the_lookups(two_cuts):
    goal = goal_board(Shape(3, 3))
    first, _ = pattern_db.resolve(Shape(3, 3), goal, "4-4", two_cuts)
    second, _ = pattern_db.resolve(Shape(3, 3), goal, SECOND, two_cuts)
    plan = plans.pdb_plan_from([first, second], reflect=True)
    assert len(plan.lookups) == 4  # each database and its reflection
    for start in _boards(30, 9):
        want = max(first.value(start, reflect=True), second.value(start, reflect=True))
        assert plan.h(start.tiles) == want


def test_combine_takes_the_equally_strong_database_only_when_asked(two_cuts, run_cli):
    board = "8 6 7 2 5 4 3 0 1"
    args = ["solve", board, "--algorithm", "idastar", "--data-dir", two_cuts, "--json"]
    alone = json.loads(run_cli(args).stdout)
    both = json.loads(run_cli([*args, "--combine"]).stdout)
    assert " & " not in alone["heuristic_name"] and " & " in both["heuristic_name"]
    assert both["length"] == alone["length"] == 31
    assert both["nodes_generated"] <= alone["nodes_generated"]


def test_three_databases_are_refused_with_one_line(two_cuts, run_cli):
    from conftest import assert_one_line_error

    result = run_cli(
        ["solve", "8 6 7 2 5 4 3 0 1", "-a", "idastar", "--data-dir", two_cuts]
        + ["--partition", f"4-4+{SECOND}+4-4"]
    )
    assert_one_line_error(result, 2)
