"""Partitions: the presets, custom partitions, validation and normalisation."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.core.board import Board, Shape, goal_board
from solver.core.symmetry import reduction
from solver.tables.partitions import (
    PRESET_SHAPES,
    Partition,
    Pattern,
    make_partition,
    parse_partition,
    presets,
    strongest_preset,
)

# The tile sets Korf & Felner drew for the blank-first goal (tile t on cell t, blank on 0).
PUBLISHED_BLANK_FIRST = {
    "7-8": [[1, 2, 3, 4, 5, 6, 7], [8, 9, 10, 11, 12, 13, 14, 15]],
    "6-6-3": [[3, 6, 7], [1, 2, 4, 5, 8, 12], [9, 10, 11, 13, 14, 15]],
    "5-5-5": [[1, 2, 3, 6, 7], [4, 5, 8, 9, 12], [10, 11, 13, 14, 15]],
}


# The 24-puzzle's 6-6-6-6 (Korf & Felner 2002), as the tile sets of Korf's own program; its
# mirror image across the main diagonal is the set other solvers list (Sewell's, for one).
PUBLISHED_5X5 = [
    [1, 2, 5, 6, 7, 12],
    [3, 4, 8, 9, 13, 14],
    [10, 11, 15, 16, 20, 21],
    [17, 18, 19, 22, 23, 24],
]
MIRRORED_5X5 = [
    [1, 5, 6, 10, 11, 12],
    [2, 3, 4, 7, 8, 9],
    [13, 14, 18, 19, 23, 24],
    [15, 16, 17, 20, 21, 22],
]


def test_presets_are_the_published_sets_rotated_onto_the_blank_last_goal():
    # Rotating by 180 degrees sends cell c to N-1 - c; on the goals that is tile t -> N - t.
    published = [("4x4", name, groups) for name, groups in PUBLISHED_BLANK_FIRST.items()]
    for shape, name, groups in published + [("5x5", "6-6-6-6", PUBLISHED_5X5)]:
        n = 16 if shape == "4x4" else 25
        rotated = sorted(sorted(n - t for t in g) for g in groups)
        assert [list(p) for p in presets(Shape.parse(shape))[name].patterns] == rotated


def test_the_6_6_6_6_preset_for_blank_first_is_the_published_sets():
    p = parse_partition("6-6-6-6", Shape(5, 5), goal_board("5x5", "blank-first"))
    assert [list(x) for x in p.patterns] == PUBLISHED_5X5
    assert p.sizes == "6-6-6-6" and strongest_preset(Shape(5, 5)).name == "6-6-6-6"


def test_the_6_6_6_6_mirror_image_is_the_other_published_partition():
    # The reflection lookup is worth its cost only because the partition is not its own
    # mirror image: the mirrored board is looked up in tables of *different* tile groups.
    goal = goal_board("5x5", "blank-first")
    mirror = reduction(goal, goal, "transpose").relabel
    groups = parse_partition("6-6-6-6", Shape(5, 5), goal).patterns
    assert sorted(sorted(mirror[t] for t in g) for g in groups) == MIRRORED_5X5
    assert MIRRORED_5X5 != PUBLISHED_5X5


def test_the_7_8_preset_for_blank_last_is_9_to_15_and_1_to_8():
    p = parse_partition("7-8", Shape(4, 4))
    assert p.patterns == (Pattern(range(1, 9)), Pattern(range(9, 16)))
    assert p.name == "7-8" and str(p) == "1,2,3,4,5,6,7,8/9,10,11,12,13,14,15"


@pytest.mark.parametrize("shape", sorted(set(PRESET_SHAPES.values())))
@pytest.mark.parametrize("goal", ["blank-last", "blank-first", "snake", "spiral", "middle-blank"])
def test_every_preset_is_a_valid_partition_for_every_goal(shape, goal):
    g = goal_board(shape, goal) if goal != "middle-blank" else _middle_blank(shape)
    for name, part in presets(g.shape, g).items():
        assert make_partition(part.patterns, g.shape, goal=g).name == name
        assert part.tiles == tuple(range(1, len(part.tiles) + 1))


def _middle_blank(shape: str) -> Board:
    g = goal_board(shape)
    tiles = list(g.tiles)
    mid = len(tiles) // 2
    tiles[mid], tiles[-1] = tiles[-1], tiles[mid]
    return Board(g.shape, tuple(tiles))


@pytest.mark.parametrize("goal", ["blank-first", "snake"])  # 4x4 spiral: the blank is central
def test_presets_are_regions_carried_by_the_goal_reduction(goal):
    # The preset for a goal, seen through the reduction the catalog uses to answer that goal
    # from the default goal's database, is the default goal's preset: one table serves both.
    g = goal_board("4x4", goal)
    red = reduction(g, goal_board("4x4"))
    for name, part in presets(Shape(4, 4), g).items():
        mapped = sorted(sorted(red.relabel[t] for t in p) for p in part.patterns)
        assert mapped == [list(p) for p in presets(Shape(4, 4))[name].patterns]


def test_the_7_8_preset_for_blank_first_is_the_published_sets():
    p = parse_partition("7-8", Shape(4, 4), goal_board("4x4", "blank-first"))
    assert [list(x) for x in p.patterns] == PUBLISHED_BLANK_FIRST["7-8"]


def test_sizes_and_strongest():
    assert parse_partition("6-6-3", Shape(4, 4)).sizes == "6-6-3"
    assert strongest_preset(Shape(4, 4)).name == "7-8"
    assert strongest_preset(Shape(3, 3)).name == "4-4"
    assert strongest_preset(Shape(3, 4)) is None


def test_custom_partitions_are_normalised_and_named():
    p = parse_partition("8,7,6,5 / 4,3 ,2,1", Shape(3, 3))
    assert p.patterns == (Pattern([1, 2, 3, 4]), Pattern([5, 6, 7, 8]))
    assert p.name == "4-4"  # the same tile sets as the preset
    q = parse_partition("3,6|1,4,7;2,5,8", Shape(3, 3))
    assert q.name == "1.4.7-2.5.8-3.6" and str(q) == "1,4,7/2,5,8/3,6"
    assert parse_partition(q.name, Shape(3, 3)) == q
    assert parse_partition(q, Shape(3, 3)) == q


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("1,2,3/3,4,5,6,7,8", "tile 3 appears in two patterns"),
        ("1,2,2,3/4,5,6,7,8", "tile 2 appears twice in one pattern"),
        ("1,2,3", "tiles 4,5,6,7,8 are in no pattern"),
        ("1,2,9/3,4,5,6,7,8", "tile 9 does not exist on a 3x3 board"),
        ("0,1,2,3,4/5,6,7,8", "the blank (0) cannot be in a pattern"),
        ("1,2,3,4//5,6,7,8", "empty pattern"),
        ("7-8", "neither a preset for 3x3"),
        ("abc", "neither a preset"),
        ("", "neither a preset"),
    ],
)
def test_invalid_partitions_are_one_line_value_errors(text, fragment):
    with pytest.raises(ValueError) as info:
        parse_partition(text, Shape(3, 3))
    message = str(info.value)
    assert fragment in message and "\n" not in message


def test_boards_too_large_are_refused():
    with pytest.raises(ValueError, match="up to 31 cells"):
        parse_partition("1/2", Shape(6, 6))


@st.composite
def partitions(draw):
    rows, cols = draw(st.sampled_from([(2, 2), (2, 3), (3, 3), (3, 4), (4, 4)]))
    tiles = draw(st.permutations(list(range(1, rows * cols))))
    cuts = sorted(draw(st.sets(st.integers(1, len(tiles) - 1), max_size=4)))
    groups = [tiles[a:b] for a, b in zip([0, *cuts], [*cuts, len(tiles)])]
    return Shape(rows, cols), groups


@settings(max_examples=60, deadline=None)
@given(partitions())
def test_any_partition_round_trips_through_its_text_and_its_name(case):
    shape, groups = case
    p = make_partition(groups, shape)
    assert isinstance(p, Partition)
    assert sorted(t for g in groups for t in g) == list(p.tiles)
    assert all(list(pat) == sorted(pat) for pat in p.patterns)
    assert parse_partition(str(p), shape) == p
    assert parse_partition(p.name, shape) == p
