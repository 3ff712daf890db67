"""5x5 pattern databases: a small partition built in the test (seconds; the real 6-6-6-6 is
never built here) is found by the catalog for its goal and for symmetric goals, and its values
never exceed the true distance, which an independent IDA* (linear conflict) measures."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pdb_builder.build_apdb import build_apdb
from solver import api, heuristics
from solver.core.board import Board, goal_board
from solver.tables import catalog, names, store
from solver.tables.partitions import parse_partition

# One three-tile pattern, pairs and a single: every table is tiny (25*24*23 entries at most).
SMALL = "1,2,3/4,5/6,7/8,9/10,11/12,13/14,15/16,17/18,19/20,21/22,23/24"
FILE = names.apdb_file_name(
    goal_board("5x5").shape, parse_partition(SMALL, goal_board("5x5").shape)
)
GOALS = ["blank-last", "blank-first"]  # blank-first is served by a 180-degree rotation


@pytest.fixture(scope="module")
def small_dir(tmp_path_factory):
    """A data directory holding the small 5x5 partition for the default goal only."""
    d = tmp_path_factory.mktemp("pdb-5x5")
    build_apdb("5x5", SMALL, None, d, progress=False)
    return d


def walk(goal: Board, steps: int, seed: int) -> Board:
    rng = random.Random(seed)
    board = goal
    for _ in range(steps):
        board = board.move(rng.choice(board.legal_moves()))
    return board


def test_the_catalog_serves_the_default_goal_and_symmetric_goals(small_dir):
    blank_top_right = "4 1 2 3 0/5 6 7 8 9/10 11 12 13 14/15 16 17 18 19/20 21 22 23 24"
    for goal in ("blank-last", "blank-first", blank_top_right):  # rotation, reflection
        g = goal_board("5x5", goal)
        entry, red = catalog.resolve(g.shape, g, None, small_dir)
        assert entry.path.name == FILE
        assert red.board(g) == goal_board("5x5")


def test_a_goal_with_a_central_blank_names_the_command_that_builds_its_own(small_dir):
    spiral = goal_board("5x5", "spiral")  # the blank ends the spiral in the centre
    with pytest.raises(store.DatabaseMissing) as e:
        catalog.resolve(spiral.shape, spiral, None, small_dir)
    assert "--goal spiral" in e.value.fix


@settings(max_examples=15, deadline=None)
@given(goal=st.sampled_from(GOALS), steps=st.integers(0, 30), seed=st.integers(0, 2**32))
def test_the_heuristic_never_exceeds_the_distance_on_random_walks(small_dir, goal, steps, seed):
    g = goal_board("5x5", goal)
    board = walk(g, steps, seed)
    with_pdb = api.solve(
        board.flat(), goal, algorithm="idastar", heuristic="pdb", data_dir=small_dir
    )
    independent = api.solve(board.flat(), goal, algorithm="idastar", heuristic="linear-conflict")
    h = heuristics.evaluate(board, g, data_dir=small_dir)
    assert with_pdb.database == FILE
    assert with_pdb.length == independent.length <= steps
    assert h["plain"] <= independent.length and h["h"] <= independent.length
    assert h["reflected"] is not None and h["reflected"] <= independent.length
    assert board.apply(with_pdb.moves) == g
