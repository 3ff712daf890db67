"""The maximum of several databases (``--partition A+B``, ``A+B+C``, ``--combine``): the same
optimal lengths as the exact tables, never more nodes than any database alone, and the
catalog's choice."""

from __future__ import annotations

import json
import random

import pytest

from solver import api
from solver.core.board import Shape, goal_board
from solver.search import plans
from solver.tables import exact, pattern_db
from solver.tables.partitions import parse_partition

SECOND = "1,2,4,5/3,6,7,8"  # as strong as 4-4 (two 4-tile patterns), cut differently
THIRD = "1,4,7,8/2,3,5,6"  # and a third cut


@pytest.fixture(scope="module")
def two_cuts(tmp_path_factory):
    """The 3x3 4-4 database and two more as strong, cut differently (about a second)."""
    from pdb_builder.build_apdb import build_apdb

    d = tmp_path_factory.mktemp("two-cuts")
    build_apdb("3x3", "4-4", None, d, progress=False)
    build_apdb("3x3", SECOND, None, d, progress=False)
    build_apdb("3x3", THIRD, None, d, progress=False)
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


def _iterations(start, goal, partition, reflect, data_dir) -> tuple:
    """The solution and the nodes of each iteration searched to its end (bound -> nodes):
    every one but the last, which stops at its first solution."""
    done = []

    def hear(p):
        if p.done:
            done.append((int(p.bound), p.nodes))

    sol = api.solve(
        start,
        goal,
        algorithm="idastar",
        partition=partition,
        reflect=reflect,
        data_dir=data_dir,
        progress=hear,
    )
    totals = [0] + [n for _, n in done]
    return sol, {b: totals[i + 1] - totals[i] for i, (b, _) in enumerate(done[:-1])}


@pytest.mark.parametrize("reflect", [False, True])
def test_the_maximum_of_three_databases_is_optimal_and_never_costs_nodes(
    two_cuts, exact_dir, reflect
):
    # Three tables are read through the first one's array at their distances from it
    # (solver.search.prefetch.read_at): a wrong distance would read another table's entry.
    # A larger heuristic never generates more nodes in an iteration searched to its end; the
    # last one stops at its first solution, which the order of the children decides.
    goal = goal_board(Shape(3, 3))
    for start in _boards(15, 6):
        three, most = _iterations(start, goal, f"4-4+{SECOND}+{THIRD}", reflect, two_cuts)
        assert three.heuristic.count(" & ") == 2 and three.database.count(".h5") == 3
        assert start.apply(three.moves).tiles == goal.tiles
        assert three.length == exact.distance(start, goal, data_dir=exact_dir)
        for partition in (f"4-4+{SECOND}", "4-4", SECOND, THIRD):
            fewer = _iterations(start, goal, partition, reflect, two_cuts)[1]
            assert all(n <= fewer[b] for b, n in most.items() if b in fewer)


def test_the_heuristic_is_the_largest_of_the_lookups(two_cuts):
    goal = goal_board(Shape(3, 3))
    asked = [parse_partition(p, goal.shape, goal) for p in ("4-4", SECOND, THIRD)]
    pdbs = [pattern_db.database_for(goal.shape, goal, p, two_cuts)[0] for p in asked]
    plan = plans.pdb_plan_from(pdbs, reflect=True)
    assert len(plan.lookups) == 6  # each database and its reflection
    for start in _boards(30, 9):
        assert plan.h(start.tiles) == max(p.value(start, reflect=True) for p in pdbs)


def test_combine_takes_the_equally_strong_database_only_when_asked(two_cuts, run_cli):
    board = "8 6 7 2 5 4 3 0 1"
    # One thread: the command's default, a thread per core, takes an iteration on the pool
    # once the one before took 5 ms of wall time (solver.search.driver.PARALLEL_AFTER), as it
    # may on a busy machine, and the pool counts what every thread searched before it heard
    # of the solution; the serial search's counts are the same on every run.
    args = ["solve", board, "--algorithm", "idastar", "--data-dir", two_cuts, "--json"]
    args += ["--jobs", "1"]
    alone = json.loads(run_cli(args).stdout)
    both = json.loads(run_cli([*args, "--combine"]).stdout)
    assert " & " not in alone["heuristic"] and " & " in both["heuristic"]
    assert both["length"] == alone["length"] == 31
    assert both["nodes_generated"] <= alone["nodes_generated"]


def test_five_databases_are_refused_with_one_line(two_cuts, run_cli):
    from conftest import assert_one_line_error

    result = run_cli(
        ["solve", "8 6 7 2 5 4 3 0 1", "-a", "idastar", "--data-dir", two_cuts]
        + ["--partition", f"4-4+{SECOND}+{THIRD}+4-4+{SECOND}"]
    )
    assert_one_line_error(result, 2)
