"""Bounded-suboptimal IDA* (``--weight W``, solver.search.weights).

The promise: a solution at most W times the optimal length, labelled ``optimal: false`` with
``bound: W``.  Truth comes from the exact 3x3 tables (the ``exact_dir`` fixture) and, on 4x4,
from the optimal IDA*; the cost rule is checked against the two properties the proof in
solver/search/weights.py rests on.
"""

from __future__ import annotations

import json
import random
from fractions import Fraction

import pytest
from conftest import assert_one_line_error
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solver import api
from solver.core.board import Board, BoardError, Shape, goal_board
from solver.search.weights import RULE, Weighting, parse_weight

SHAPE3, SHAPE4 = Shape(3, 3), Shape(4, 4)
WEIGHTS = ["1.2", "1.5", "2", "3", "1.25"]
SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@given(
    g=st.integers(0, 300),
    h=st.integers(0, 300),
    dh=st.integers(0, 50),
    w=st.sampled_from(WEIGHTS),
)
@settings(max_examples=300, deadline=None)
def test_cost_rule_keeps_the_bound(g, h, dh, w):
    wt = Weighting.of(w)
    s = wt.scale
    assert wt.cost(g, 0) == s * g  # at the goal the cost is the length
    assert wt.cost(g, h) <= s * Fraction(w) * (g + h)  # never above W (g + h)
    assert wt.cost(g, h + dh) >= wt.cost(g, h)  # h counts, never against
    table = wt.table(g, h)
    assert table[g, h] == wt.cost(g, h)


def test_weight_one_is_the_optimal_search():
    assert Weighting.of(1) is None and Weighting.of("1.0") is None
    assert parse_weight("1.5") == Fraction(3, 2)
    for bad in ("0.5", "abc", "-2"):
        with pytest.raises(BoardError):
            parse_weight(bad)
    with pytest.raises(BoardError, match="IDA"):
        api.SearchOptions(algorithm="bfs", weight=2)


def random_state(rng: random.Random, shape: Shape) -> Board:
    tiles = list(range(shape.size))
    while True:
        rng.shuffle(tiles)
        b = Board(shape, tuple(tiles))
        from solver.core.board import is_solvable

        if is_solvable(b, goal_board(shape)):
            return b


@SETTINGS
@given(
    seed=st.integers(0, 10**6),
    w=st.sampled_from(WEIGHTS),
    heuristic=st.sampled_from(["manhattan", "linear-conflict", "pdb"]),
)
def test_3x3_within_w_times_the_exact_distance(exact_dir, pdb_dir, seed, w, heuristic):
    board = random_state(random.Random(seed), SHAPE3)
    exact = api.distance(board, data_dir=exact_dir)
    data = pdb_dir if heuristic == "pdb" else None
    sol = api.solve(board, algorithm="idastar", heuristic=heuristic, weight=w, data_dir=data)
    assert sol.length <= Fraction(w) * exact  # api.solve replayed the moves to the goal
    assert sol.length % 2 == exact % 2
    assert sol.optimal is False and sol.extra["bound"] == float(Fraction(w))
    assert sol.extra["weighting"] == RULE
    assert sol.root_h <= sol.lower_bound <= exact


@SETTINGS
@given(
    seed=st.integers(0, 10**6),
    steps=st.integers(0, 40),
    w=st.sampled_from(WEIGHTS),
    jobs=st.sampled_from([1, 2]),
)
def test_4x4_within_w_times_the_optimal_length(pdb_dir, seed, steps, w, jobs):
    goal = goal_board(SHAPE4)
    rng = random.Random(seed)
    board = goal
    for _ in range(steps):
        board = board.move(rng.choice(board.legal_moves()))
    opts = api.SearchOptions(algorithm="idastar", partition="5-5-5", data_dir=pdb_dir)
    best = api.solve(board, options=opts).length
    sol = api.solve(
        board, options=api.SearchOptions(**{**opts.__dict__, "weight": w, "jobs": jobs})
    )
    assert sol.length <= Fraction(w) * best
    assert sol.lower_bound <= best


def test_weighted_search_is_faster_on_a_hard_board(pdb_dir):
    hard = "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3"  # Korf #1: 57 moves
    opts = dict(algorithm="idastar", partition="5-5-5", data_dir=pdb_dir)
    best = api.solve(hard, "blank-first", **opts)
    quick = api.solve(hard, "blank-first", weight=1.5, **opts)
    assert best.length == 57 and 57 <= quick.length <= 85
    assert quick.nodes_generated * 10 < best.nodes_generated


def test_cli_weight(run_cli, pdb_dir):
    board = "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3"
    r = run_cli(
        [
            "solve",
            board,
            "--goal",
            "blank-first",
            "--weight",
            "1.5",
            "--json",
            "--data-dir",
            pdb_dir,
        ]
    )
    assert r.exit_code == 0, r.output
    rec = json.loads(r.stdout)
    assert rec["optimal"] is False and rec["bound"] == 1.5 and rec["length"] <= 85
    r = run_cli(["solve", board, "--goal", "blank-first", "-w", "1.5", "--data-dir", pdb_dir])
    assert "at most 1.5 x optimal" in r.stdout
    r = run_cli(["solve", board, "--goal", "blank-first", "--json", "--data-dir", pdb_dir])
    rec = json.loads(r.stdout)
    assert rec["optimal"] is True and "bound" not in rec and rec["length"] == 57
    assert_one_line_error(run_cli(["solve", board, "-w", "0.9"]), 2)
    assert_one_line_error(run_cli(["solve", "1 2 3/4 0 5/6 7 8", "-w", "2", "-a", "bfs"]), 2)
