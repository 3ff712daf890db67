"""Boards: every input format, every error path, goals, moves and the solvability rule."""

from __future__ import annotations

import itertools
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naive_bfs import distances_from

from solver.core.board import (
    Board,
    BoardError,
    Shape,
    goal_board,
    inversions,
    parse_board,
    solvability,
)

B23 = (1, 2, 3, 4, 0, 5)


@pytest.mark.parametrize(
    "text",
    [
        "1 2 3 4 0 5",
        "1,2,3,4,0,5",
        "1 2 3/4 0 5",
        "1 2 3\n4 0 5",
        "[[1,2,3],[4,0,5]]",
        "[1,2,3,4,0,5]",
        "1 2 3 4 x 5",
        "1 2 3 4 X 5",
        "1 2 3 4 _ 5",
        "1 2 3 4 . 5",
        " 1, 2, 3 / 4 x 5 ",
    ],
)
def test_every_format_reads_the_same_board(text):
    b = parse_board(text)
    assert b.tiles == B23 and b.shape == Shape(2, 3)


@pytest.mark.parametrize(
    "text,shape,message",
    [
        ("1 2 3 4 5 6 7 7 0", None, "tile 7 appears twice"),
        ("1 2 3 4 5 6 7 8", None, "cannot tell the shape of 8 tiles"),
        ("1 2 3/4 5", None, "rows have different lengths"),
        ("1 2 3 4 5 a", None, "'a' is not a tile number"),
        ("1 2 3 4 5 9", None, "tile 9 is out of range"),
        ("1 2 3 4 5 6", None, "'1 2 3 4 5 6' has no blank"),  # numbered from 1, as a person counts
        ("1 2 3 4 5 -1", None, "tile -1 is negative"),
        ("[1, 2, 3, 4, 0, -1]", None, "tile -1 is out of range"),
        ("", None, "empty board"),
        ("[[1,2],[3,", None, "not valid JSON"),
        ("1 2 3 4 0 5", "3x3", "needs 9 tiles, got 6"),
        ("1 2 3/4 0 5", "3x2", "the rows give a 2x3 board"),
        ("1 0 2", "1x3", "not supported"),
        ("1 2 3 4 0 5", "2by3", "not of the form"),
        ("1 2 3 4 0 " + "9" * 5000, None, "is out of range"),  # past Python's int() limit
        ("[1, 2, 3, 4, 0, " + "9" * 5000 + "]", None, "cannot be read"),
        ("[" * 20_000 + "]" * 20_000, None, "nested too deeply"),
    ],
)
def test_bad_boards_get_one_line_naming_the_fault(text, shape, message):
    with pytest.raises(BoardError) as e:
        parse_board(text, shape)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_non_square_shape_needs_shape_or_rows():
    assert parse_board("1 2 0 3 4 5", "3x2").shape == Shape(3, 2)
    assert parse_board("1 2/0 3/4 5").shape == Shape(3, 2)


@pytest.mark.parametrize(
    "board,shape,api_words,cli_words",
    [
        ("1 2 3 4 5 6 7", None, "or give shape='ROWSxCOLS'", "or give --shape ROWSxCOLS"),
        ("1 2 3/4 0 5", "3x2", "but the shape argument says 3x2", "but --shape says 3x2"),
    ],
)
def test_a_message_names_the_shape_as_the_caller_gives_it(
    run_cli, board, shape, api_words, cli_words
):
    """The Python API is told of its ``shape=`` argument, the command line of ``--shape``:
    the same parser, worded by the front end the board came through."""
    import solver

    with pytest.raises(BoardError) as e:
        solver.distance(board, shape=shape)
    assert api_words in str(e.value) and "--shape" not in str(e.value), str(e.value)
    with pytest.raises(BoardError) as e:
        solver.solve(board, shape=shape)
    assert api_words in str(e.value)
    r = run_cli(["distance", board] + (["--shape", shape] if shape else []))
    assert r.exit_code == 2 and cli_words in r.stderr, r.stderr
    # The command line's words end with its command: the API's are the same after it.
    with pytest.raises(BoardError) as e:
        solver.distance(board, shape=shape)
    assert api_words in str(e.value)


@st.composite
def boards(draw, max_side=6):
    rows = draw(st.integers(2, max_side))
    cols = draw(st.integers(2, max_side))
    tiles = draw(st.permutations(range(rows * cols)))
    return Board(Shape(rows, cols), tuple(tiles))


@given(boards())
def test_text_forms_round_trip(b):
    assert parse_board(str(b)) == b
    assert parse_board(b.grid().replace(".", "0")) == b
    rows = [list(b.tiles[i : i + b.shape.cols]) for i in range(0, b.shape.size, b.shape.cols)]
    assert parse_board(json.dumps(rows)) == b
    assert parse_board(b.flat(), b.shape) == b
    assert eval(repr(b), {"Board": Board}) == b


@given(boards(), st.data())
def test_a_move_and_its_opposite_cancel(b, data):
    m = data.draw(st.sampled_from(b.legal_moves()))
    back = {"U": "D", "D": "U", "L": "R", "R": "L"}[m]
    assert b.move(m).move(back) == b
    assert b.apply(m + back) == b


def test_moves_are_the_blank_direction():
    b = Board.parse("1 2 3/4 0 5")
    assert b.move("R") == Board.parse("1 2 3/4 5 0")
    assert b.move("u") == Board.parse("1 0 3/4 2 5")
    assert b.tiles_moved("RU") == [5, 3]
    with pytest.raises(BoardError, match="off the board"):
        b.apply("DD")


@pytest.mark.parametrize("shape", ["2x3", "3x3", "4x4", "3x5", "5x4"])
@pytest.mark.parametrize("preset", ["blank-last", "blank-first", "snake", "spiral"])
def test_goal_presets_are_boards(shape, preset):
    g = goal_board(shape, preset)
    assert sorted(g.tiles) == list(range(g.shape.size))


def test_goal_presets_look_right():
    assert str(goal_board("4x4", "spiral")) == "1 2 3 4/12 13 14 5/11 0 15 6/10 9 8 7"
    assert str(goal_board("2x3", "snake")) == "1 2 3/0 5 4"
    with pytest.raises(BoardError, match="unknown goal"):
        goal_board("3x3", "diagonal")


def test_worked_example_of_the_issue():
    s = solvability(Board.parse("12 13 11 2/4 5 3 14/1 9 15 6/8 7 0 10"), goal_board("4x4"))
    assert (s.start_inversions, s.start_blank_row_from_bottom, s.solvable) == (52, 1, True)


@pytest.mark.parametrize("rows,cols", [(2, 3), (3, 2), (2, 2)])
def test_solvability_matches_reachability_for_every_goal(rows, cols):
    shape = Shape(rows, cols)
    everything = [Board(shape, p) for p in itertools.permutations(range(shape.size))]
    for goal in random.Random(rows * cols).sample(everything, 12):
        reachable = distances_from(goal.tiles, rows, cols)
        for start in everything:
            assert solvability(start, goal).solvable == (start.tiles in reachable)


def test_solvability_matches_reachability_on_3x3():
    rng = random.Random(7)
    shape = Shape(3, 3)
    for goal_tiles in ([1, 2, 3, 4, 0, 5, 6, 7, 8], rng.sample(range(9), 9)):
        goal = Board(shape, tuple(goal_tiles))
        reachable = distances_from(goal.tiles, 3, 3)
        assert len(reachable) == 181_440
        for _ in range(3000):
            start = Board(shape, tuple(rng.sample(range(9), 9)))
            assert solvability(start, goal).solvable == (start.tiles in reachable)


def test_inversions_ignore_the_blank():
    assert inversions(Board.parse("1 2 3 4 5 6 8 7 0")) == 1
    assert inversions(Board.parse("0 1 2 3 4 5 6 7 8")) == 0


@settings(max_examples=50)
@given(boards(max_side=5))
def test_unsolvable_reason_names_the_counts(b):
    s = solvability(b, goal_board(b.shape))
    assert str(s.start_inversions) in s.reason
    assert s.reason.startswith("solvable" if s.solvable else "unsolvable")
