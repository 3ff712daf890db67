"""The solvability rule against reachability, and ``npuzzle check``.

The reference is the independent breadth-first search of ``tests/naive_bfs.py``, used to split
every arrangement of a small board into the classes that can reach each other.  The parity rule
(:func:`solver.core.board.solvability`) must say "solvable" exactly when start and goal fall in the
same class — for every goal, including goals with the blank in the middle.
"""

from __future__ import annotations

import functools
import itertools
import json
import math

import pytest
from conftest import assert_one_line_error
from hypothesis import given, settings
from hypothesis import strategies as st
from naive_bfs import distances_from

from solver.core.board import GOAL_PRESETS, Board, Shape, goal_board, is_solvable, solvability

SHAPES = [(2, 3), (3, 2), (2, 4), (3, 3)]
WORKED = "12 13 11 2/4 5 3 14/1 9 15 6/8 7 0 10"


@functools.cache
def reachability_classes(rows: int, cols: int) -> dict:
    """arrangement (tuple) -> class number, by the reference BFS (tests/naive_bfs.py) from one
    unlabelled arrangement after another; arrangements with the same number reach each other."""
    label, classes = {}, 0
    for seed in itertools.permutations(range(rows * cols)):
        if len(label) == math.factorial(rows * cols):
            break
        if seed not in label:
            label.update(dict.fromkeys(distances_from(seed, rows, cols), classes))
            classes += 1
    return label


@pytest.mark.parametrize("rows,cols", SHAPES)
def test_bfs_finds_two_equal_classes(rows, cols):
    label = reachability_classes(rows, cols)
    sizes = [list(label.values()).count(k) for k in (0, 1)]
    assert set(label.values()) == {0, 1}
    assert sizes == [math.factorial(rows * cols) // 2] * 2


@pytest.mark.parametrize("rows,cols", [(2, 3), (3, 2)])
def test_rule_matches_bfs_for_every_start_and_many_goals(rows, cols):
    label = reachability_classes(rows, cols)
    shape = Shape(rows, cols)
    states = sorted(label)
    # Every goal blank cell (corners and edges), two labellings of each.
    by_cell = {}
    for g in states:
        by_cell.setdefault(g.index(0), []).append(g)
    goals = [gs[i] for gs in by_cell.values() for i in (0, len(gs) // 2)]
    for g in goals:
        goal = Board(shape, g)
        for s in states:
            assert is_solvable(Board(shape, s), goal) == (label[s] == label[g]), (s, g)


@st.composite
def start_and_goal(draw):
    rows, cols = draw(st.sampled_from(SHAPES))
    n = rows * cols
    start = draw(st.permutations(range(n)))
    if draw(st.booleans()):
        goal = draw(st.permutations(range(n)))
    else:  # a goal with the blank off the corners and edges where the shape has such cells
        inner = [
            r * cols + c
            for r in range(rows)
            for c in range(cols)
            if 0 < r < rows - 1 or 0 < c < cols - 1
        ]
        cell = draw(st.sampled_from(inner))
        tiles = list(draw(st.permutations(range(1, n))))
        tiles.insert(cell, 0)
        goal = tiles
    return Shape(rows, cols), tuple(start), tuple(goal)


@settings(max_examples=300, deadline=None)
@given(start_and_goal())
def test_rule_matches_bfs_for_random_goals(case):
    shape, start, goal = case
    label = reachability_classes(shape.rows, shape.cols)
    verdict = solvability(Board(shape, start), Board(shape, goal))
    assert verdict.solvable == (label[start] == label[goal])
    assert verdict.reason.startswith("solvable" if verdict.solvable else "unsolvable")


@pytest.mark.parametrize("rows,cols", SHAPES)
@pytest.mark.parametrize("preset", GOAL_PRESETS)
def test_rule_matches_bfs_for_presets(rows, cols, preset):
    label = reachability_classes(rows, cols)
    shape = Shape(rows, cols)
    goal = goal_board(shape, preset)
    for s in itertools.islice(label, 0, None, max(1, len(label) // 500)):
        assert is_solvable(Board(shape, s), goal) == (label[s] == label[goal.tiles])


def test_blank_in_the_middle_of_3x3():
    label = reachability_classes(3, 3)
    goal = Board.parse("1 2 3/4 0 5/6 7 8")
    for s in ["1 2 3/4 5 0/6 7 8", "1 2 3/4 8 5/6 7 0", "2 1 3/4 0 5/6 7 8", "0 1 2/3 4 5/6 7 8"]:
        b = Board.parse(s)
        assert is_solvable(b, goal) == (label[b.tiles] == label[goal.tiles]), s


# --- the CLI ---------------------------------------------------------------------------------


def test_worked_example(run_cli):
    r = run_cli(["check", WORKED])
    assert r.exit_code == 0, r.output
    first, *working = r.stdout.splitlines()
    assert first == "solvable"
    start_line = working[0]
    assert "52 inversions" in start_line
    assert "first row from the bottom" in start_line and "(row 1)" in start_line
    assert "width 4 is even" in r.stdout
    assert "52 + 1 = 53 (odd)" in r.stdout and "0 + 1 = 1 (odd)" in r.stdout


def test_worked_example_json(run_cli):
    r = run_cli(["check", WORKED, "--json"])
    assert r.exit_code == 0
    rec = json.loads(r.stdout)
    assert rec["solvable"] is True
    assert rec["start_inversions"] == 52
    assert rec["start_blank_row_from_bottom"] == 1
    assert rec["goal_inversions"] == 0 and rec["width_even"] is True


def test_unsolvable_exit_1_with_the_working(run_cli):
    r = run_cli(["check", "1 2 3/4 5 6/8 7 0"])
    assert r.exit_code == 1
    assert r.stdout.startswith("unsolvable")
    assert "1 inversion (odd)" in r.stdout and "different parities" in r.stdout


@pytest.mark.parametrize(
    "board,goal,code",
    [
        ("1 2 3/4 5 6/8 7 0", "spiral", 0),  # 1 inversion, spiral goal has 7: both odd
        ("1 2 3/4 5 6/7 8 0", "spiral", 1),
        ("1 2 3/4 5 6/7 8 0", "snake", 1),  # the 3x3 snake has 3 inversions
        ("0 1 2/3 4 5/6 7 8", "blank-first", 0),
        ("1 2 3/4 5 6/7 8 0", "blank-first", 0),
        ("1 2 3/4 0 5/6 7 8", "1 2 3/4 0 5/6 8 7", 1),  # blank in the middle, explicit goal
        ("2 1 3/4 0 5/6 8 7", "1 2 3/4 0 5/6 7 8", 0),
        ("1 2 3 4/5 6 7 8/9 10 11 12/13 15 14 0", None, 1),
        ("1 2 3 4/5 6 7 8/9 10 11 12/13 14 15 0", "blank-first", 1),  # 0 + 1 odd, 0 + 4 even
        ("1 2 3 4/5 6 7 0", None, 0),
        ("[[1,2],[3,0],[4,5]]", "2 1/3 0/4 5", 1),
    ],
)
def test_exit_codes_any_goal(run_cli, board, goal, code):
    args = ["check", board] + (["--goal", goal] if goal else [])
    r = run_cli(args)
    assert r.exit_code == code, r.output
    b = Board.parse(board)
    assert is_solvable(b, goal_board(b.shape, goal)) == (code == 0)


@pytest.mark.parametrize(
    "args",
    [
        ["check", "1 2 3 4 5"],  # cannot tell the shape
        ["check", "1 2 3/4 4 0"],  # duplicate tile
        ["check", "1 2 3/4 5 0", "--goal", "sideways"],
        ["check", "1 2 3/4 5 0", "--goal", "1 2 3 4/5 6 7 0"],  # goal of another shape
    ],
)
def test_bad_input_exit_2(run_cli, args):
    assert_one_line_error(run_cli(args), 2)


def test_shape_option(run_cli):
    r = run_cli(["check", "1 2 3 4 0 5", "--shape", "3x2"])
    assert r.exit_code == 0
    assert "width 2 is even" in r.stdout


def test_stdin_line_by_line(run_cli):
    lines = ["1 2 3 4 5 6 7 8 0", "", "# a comment", "1 2 3 4 5 6 8 7 0", WORKED]
    r = run_cli(["check", "-"], input="\n".join(lines) + "\n")
    out = r.stdout.splitlines()
    assert len(out) == len(lines)
    assert out[0].startswith("solvable") and out[1] == "" and out[2] == ""
    assert out[3].startswith("unsolvable") and out[4].startswith("solvable")
    assert r.exit_code == 1  # one board was unsolvable


def test_stdin_json_and_bad_lines(run_cli):
    r = run_cli(["check", "-", "--json"], input="1 2 3 4 5 6 7 8 0\n1 2 3\n")
    first, second = (json.loads(x) for x in r.stdout.splitlines())
    assert first["solvable"] is True and first["board"] == "1 2 3 4 5 6 7 8 0"
    assert "error" in second
    assert r.exit_code == 2


def test_stdin_all_solvable_exit_0(run_cli):
    r = run_cli(["check", "-", "--goal", "blank-first"], input="0 1 2 3 4 5 6 7 8\n")
    assert r.exit_code == 0
