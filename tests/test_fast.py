"""The quick non-optimal mode (``--algorithm fast``): every answer replays to the goal, on boards of
every shape up to 10x10, for preset goals, random goals and goals with the blank anywhere."""

from __future__ import annotations

import json
import random

import pytest
from conftest import assert_one_line_error
from hypothesis import given, settings
from hypothesis import strategies as st

from solver import api
from solver.core.board import Board, Shape, goal_board, solvability
from solver.core.solution import Unsolvable
from solver.search import fast


def random_problem(rows: int, cols: int, goal_kind: str, seed: int) -> tuple[Board, Board]:
    """A uniformly random start that can reach the goal (a random goal for ``random``)."""
    rng = random.Random(seed)
    shape = Shape(rows, cols)
    if goal_kind == "random":
        cells = list(range(shape.size))
        rng.shuffle(cells)
        goal = Board(shape, tuple(cells))
    else:
        goal = goal_board(shape, goal_kind)
    tiles = list(range(shape.size))
    rng.shuffle(tiles)
    if not solvability(Board(shape, tuple(tiles)), goal).solvable:
        a, b = [i for i, t in enumerate(tiles) if t][:2]  # one swap flips the parity
        tiles[a], tiles[b] = tiles[b], tiles[a]
    return Board(shape, tuple(tiles)), goal


@settings(max_examples=120, deadline=None)
@given(
    rows=st.integers(2, 10),
    cols=st.integers(2, 10),
    goal_kind=st.sampled_from(["blank-last", "blank-first", "snake", "spiral", "random"]),
    seed=st.integers(0, 2**32),
)
def test_fast_answers_replay_to_the_goal(rows, cols, goal_kind, seed):
    start, goal = random_problem(rows, cols, goal_kind, seed)
    sol = api.solve(start.flat(), goal.flat(), shape=start.shape, algorithm="fast")
    assert start.apply(sol.moves) == goal
    assert sol.optimal is False and sol.as_dict()["bound"] is None


@pytest.mark.parametrize("shape", ["3x3", "3x4", "4x3", "5x5", "2x5"])
def test_the_goals_blank_may_stand_on_any_cell(shape):
    # The line-by-line method keeps the goal's blank inside the part still unsolved, so a
    # blank in the middle of the board (no corner to peel towards) works like a corner one.
    s = Shape.parse(shape)
    base = goal_board(s)
    for cell in range(s.size):
        tiles = list(base.tiles)
        tiles[cell], tiles[-1] = tiles[-1], tiles[cell]
        goal = Board(s, tuple(tiles))
        for seed in range(3):
            start, _ = random_problem(s.rows, s.cols, "blank-last", seed)
            if not solvability(start, goal).solvable:
                start = start.relabel([0, 2, 1] + list(range(3, s.size)))
            assert start.apply(fast.peel(start, goal)) == goal


def test_already_solved_and_one_move_away():
    goal = goal_board("4x4")
    assert fast.peel(goal, goal) == ""
    assert fast.peel(goal.move("U"), goal) == "D"


def test_an_unsolvable_start_is_an_answer_not_a_crash():
    start = Board.parse("2 1 3/4 5 6/7 8 0")
    with pytest.raises(Unsolvable):
        fast.peel(start, goal_board("3x3"))


def test_the_cli_says_not_optimal_and_no_bound(run_cli):
    start, goal = random_problem(7, 7, "blank-last", 5)
    r = run_cli(["solve", "-a", "fast", "--shape", "7x7", start.flat(), "--json"])
    assert r.exit_code == 0, r.output
    rec = json.loads(r.stdout)
    assert rec["optimal"] is False and rec["bound"] is None and rec["algorithm"] == "fast"
    assert start.apply(rec["moves"]) == goal
    r = run_cli(["solve", "--algorithm", "fast", str(start), "--json"])
    assert r.exit_code == 0 and json.loads(r.stdout)["moves"] == rec["moves"]


def test_the_fast_mode_is_an_algorithm_not_a_flag_of_its_own(run_cli):
    assert_one_line_error(run_cli(["solve", "--fast", "1 2 3/4 0 5"]), 2)


def test_fast_does_not_give_an_optimal_distance():
    with pytest.raises(ValueError, match="optimal"):
        api.distance("1 2 3/4 0 5", algorithm="fast")
