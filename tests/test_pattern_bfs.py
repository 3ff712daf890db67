"""The pattern BFS (the engine's layers, solver/engine/pattern_sweep.h, driven by
pdb_builder.pattern_bfs): its ranks agree with solver.core.ranking, its tables with a naive 0-1
BFS, with the CPU's BMI2 bit instructions and with the portable loops alike; its entry points
refuse arrays of the wrong type or size.  Every search here is the placement BFS, forced
(``region=False``): left to choose, bfs_pattern hands these patterns to the region BFS
(tests/test_region_bfs.py, tests/test_bfs_choice.py)."""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naive_pdb import pattern_table

from pdb_builder import pattern_bfs
from pdb_builder.pattern_bfs import (
    UNREACHED,
    geometry,
    state_count,
    trace_ranks,
    work_items,
)
from solver.core import ranking
from solver.core.board import Board, Shape, goal_board
from solver.engine import engine

bfs_pattern = functools.partial(pattern_bfs.bfs_pattern, region=False)  # this module's own BFS
BIT_OPS = ["portable"] + (["bmi2"] if engine().pattern_bit_ops() == "bmi2" else [])


@pytest.fixture(params=BIT_OPS)
def bit_ops(request):
    """Each set of bit operations the engine can sweep with on this CPU, in turn."""
    before = engine().pattern_bit_ops(request.param)
    yield request.param
    engine().pattern_bit_ops(before)


def expected_table(shape: Shape, goal: Board, tiles) -> np.ndarray:
    """The naive table laid out by solver.core.ranking.rank (255 where unreachable)."""
    table = np.full(ranking.count_placements(shape.size, len(tiles)), UNREACHED, np.uint8)
    for cells, d in pattern_table(goal.tiles, shape.rows, shape.cols, tiles).items():
        table[ranking.rank(np.array(cells), shape.size)] = d
    return table


@pytest.mark.parametrize(
    "shape, k",
    [
        ("2x2", 3),
        ("2x3", 1),
        ("2x3", 5),
        ("3x3", 2),
        ("3x3", 3),
        ("3x3", 4),
        ("3x4", 5),
        ("4x4", 4),
        ("5x5", 3),
    ],
)
def test_kernel_ranks_agree_with_solver_ranking(shape, k, bit_ops):
    """The sweep's own decoding of placements and its incremental rank after every move are
    exactly solver.core.ranking.rank (the index the heuristics look up)."""
    s = Shape.parse(shape)
    cells, moves = trace_ranks(s, k)
    total = ranking.count_placements(s.size, k)
    placements = ranking.unrank_many(np.arange(total), s.size, k)
    assert np.array_equal(cells, placements)
    nbr = s.neighbour_table()
    for i in range(k):
        for t in range(4):
            target = np.array([nbr[c][t] for c in placements[:, i]])
            legal = (target >= 0) & ~(placements == target[:, None]).any(axis=1)
            moved = placements.copy()
            moved[:, i] = np.where(legal, target, placements[:, i])
            want = np.where(legal, ranking.rank_many(moved, s.size), -1)
            assert np.array_equal(moves[:, 4 * i + t], want), (i, t)


CASES = [
    ("2x2", (1, 2, 3)),
    ("2x3", (1, 2, 3)),
    ("2x3", (4, 5)),
    ("2x3", (1, 2, 3, 4, 5)),
    ("3x3", (1, 2, 3, 4)),
    ("3x3", (5, 6, 7, 8)),
    ("3x3", (2,)),
    ("3x3", (1, 3, 5, 7, 8)),
    ("3x4", (1, 2, 3)),
    ("4x3", (3, 6, 9)),
    ("4x4", (1, 2)),
    ("4x4", (13, 14, 15)),
    ("5x5", (1, 7)),
    ("2x4", (2, 3, 5, 7)),
]


@pytest.mark.parametrize("goal", [None, "blank-first", "spiral"])
@pytest.mark.parametrize("shape, tiles", CASES)
def test_tables_equal_a_naive_zero_one_bfs(shape, tiles, goal, bit_ops):
    s = Shape.parse(shape)
    g = goal_board(s, goal)
    result = bfs_pattern(s, tiles, g, progress=False)
    expected = expected_table(s, g, tiles)
    assert np.array_equal(result.table, expected)
    reached = result.table[result.table != UNREACHED]
    assert np.array_equal(np.bincount(reached, minlength=len(result.counts)), result.counts)
    assert result.unreached == int((result.table == UNREACHED).sum())
    assert (
        result.counts[-1] > 0
        and result.table[ranking.rank(np.array([g.tiles.index(t) for t in sorted(tiles)]), s.size)]
        == 0
    )


@pytest.mark.parametrize("threads", [1, 2, 3, 8])
@pytest.mark.parametrize("pull_when", [0.0, 2.0, 1e9])
def test_threads_and_push_pull_switch_do_not_change_the_table(threads, pull_when):
    """Push only, pull from the first layer on, a switch in between; 1 to 8 threads racing for
    the same words (pushes claim them with an atomic OR)."""
    s, tiles = Shape.parse("3x4"), (2, 5, 7, 11)
    expected = expected_table(s, goal_board(s), tiles)
    result = bfs_pattern(s, tiles, progress=False, threads=threads, pull_when=pull_when)
    assert np.array_equal(result.table, expected)
    # every state counted once however the threads raced (all are reachable with 4 of 11 tiles)
    assert result.states == state_count(s, len(tiles))
    assert result.counts.tolist() == np.bincount(expected).tolist()


def test_all_tiles_as_one_pattern_give_the_exact_distances():
    """With every tile in the pattern, the table is the exact distance table of the puzzle."""
    from naive_bfs import distances_from

    goal = goal_board("3x3")
    result = bfs_pattern("3x3", range(1, 9), goal, progress=False)
    exact = distances_from(goal.tiles, 3, 3)
    cells = np.array([[tiles.index(t) for t in range(1, 9)] for tiles in exact])
    assert np.array_equal(result.table[ranking.rank_many(cells, 9)], list(exact.values()))
    assert result.unreached == 181440 and len(result.counts) - 1 == 31


def test_the_whole_puzzle_as_one_pattern_reaches_exactly_one_parity_class():
    r = bfs_pattern("2x3", (1, 2, 3, 4, 5), progress=False)
    assert r.unreached == 360 and int(r.counts.sum()) == 360  # 6!/2 placements of 5 tiles
    assert len(r.counts) - 1 == 21  # the 2x3 puzzle's diameter


def test_impossible_patterns_are_refused():
    with pytest.raises(ValueError, match="not a set of tiles"):
        bfs_pattern("2x4", (2, 8), progress=False)
    with pytest.raises(ValueError, match="not a set of tiles"):
        bfs_pattern("2x4", (2, 2), progress=False)
    with pytest.raises(ValueError, match="1..8 tiles"):
        geometry(Shape.parse("3x3"), 9)
    with pytest.raises(ValueError, match="up to 31 cells"):
        geometry(Shape.parse("4x8"), 3)


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_random_patterns_and_goals_match_the_naive_search(data):
    rows, cols = data.draw(st.sampled_from([(2, 3), (3, 2), (3, 3), (2, 4)]))
    s = Shape(rows, cols)
    goal = Board(s, tuple(data.draw(st.permutations(range(s.size)))))
    k = data.draw(st.integers(1, min(4, s.size - 1)))
    tiles = data.draw(st.lists(st.integers(1, s.size - 1), min_size=k, max_size=k, unique=True))
    threads = data.draw(st.sampled_from([1, 2]))
    before = engine().pattern_bit_ops(data.draw(st.sampled_from(BIT_OPS)))
    try:
        result = bfs_pattern(s, tiles, goal, progress=False, threads=threads)
    finally:
        engine().pattern_bit_ops(before)
    assert np.array_equal(result.table, expected_table(s, goal, tiles))


@pytest.mark.parametrize(
    "shape, tiles",
    [
        ("3x3", (1, 2, 3, 4)),
        ("3x3", (2, 4, 6, 8)),
        ("3x3", (1, 5, 8)),
        ("2x4", (1, 2, 3, 4, 5)),
        ("2x4", (3, 6, 7)),
    ],
)
def test_push_only_pull_only_and_mixed_layers_agree(shape, tiles, bit_ops):
    """Every layer pushed, every layer pulled, and the default switch: the same table, the same
    states, the same histogram (and the naive table)."""
    s = Shape.parse(shape)
    runs = [
        bfs_pattern(s, tiles, progress=False, threads=2, pull_when=pw) for pw in (0.0, 1e9, 1.0)
    ]
    assert [r.layers[0][1] for r in runs[:2]] == ["push", "pull"]
    assert {mode for _, mode, _, _ in runs[0].layers} == {"push"}
    assert {mode for _, mode, _, _ in runs[1].layers} == {"pull"}
    expected = expected_table(s, goal_board(s), tiles)
    for r in runs:
        assert np.array_equal(r.table, expected)
        assert r.states == runs[0].states and r.counts.tolist() == runs[0].counts.tolist()


@pytest.mark.parametrize(
    "shape, k, word",
    [
        ("4x4", 8, np.uint16),
        ("4x4", 7, np.uint32),
        ("4x4", 6, np.uint32),
        ("3x3", 4, np.uint16),
        ("5x5", 3, np.uint64),
        ("4x4", 15, np.uint16),
    ],
)
def test_words_hold_two_bits_per_free_cell(shape, k, word):
    g = geometry(Shape.parse(shape), k)
    free = Shape.parse(shape).size - k
    assert g.word_type is word and free <= g.shift == np.dtype(word).itemsize * 4


def test_work_items_cover_the_blocks_once():
    for nblocks, threads in [(1, 1), (7, 3), (100, 16), (5_765_760, 2), (52_416, 16)]:
        items = work_items(nblocks, threads)
        assert items[0][0] == 0 and items[-1][1] == nblocks
        assert all(a < b for a, b in items) and all(
            b == a2 for (_, b), (a2, _) in itertools.pairwise(items)
        )
        assert len(items) >= min(nblocks, 8 * threads) or threads == 1


def test_the_states_counted_are_the_naive_searchs_states():
    """state_count (the engine's count of regions over every set of occupied cells) is the
    number of (placement, blank region) states the naive search reaches, where every state is
    reachable (fewer tiles than the board's tiles: both parity classes)."""
    for shape, tiles in [("2x3", (1, 2)), ("3x3", (1, 2, 3)), ("2x4", (1, 4, 6)), ("3x3", (5,))]:
        s = Shape.parse(shape)
        goal = goal_board(s)
        regions = {
            (cells, frozenset(region))
            for cells, region in region_states(goal.tiles, s.rows, s.cols, tiles)
        }
        assert state_count(s, len(tiles)) == len(regions), shape


def region_states(goal: tuple, rows: int, cols: int, tiles):
    """(cells, blank region) of every state the naive search reaches."""
    from naive_pdb import pattern_states, region_of

    for cells, blank in pattern_states(goal, rows, cols, tiles):
        yield cells, region_of(blank, cells, rows, cols)


def _tables(shape: Shape, k: int):
    """Fresh (words, dist, blk) of the engine's layout for k tiles on ``shape``."""
    g = geometry(shape, k)
    return (
        np.zeros(g.placements, g.word_type),
        np.full(g.placements, UNREACHED, np.uint8),
        np.zeros(g.blocks, np.uint8),
    )


def test_the_engine_refuses_arrays_of_the_wrong_type_or_size():
    s, k = Shape.parse("3x3"), 4
    layer = engine().pattern_layer
    words, dist, blk = _tables(s, k)
    assert layer(False, 0, 0, len(blk), words, dist, blk, 3, 3, k) == (0, 0)  # nothing reached
    with pytest.raises(TypeError, match="words: expected uint16 items"):
        layer(False, 0, 0, 1, words.astype(np.uint32), dist, blk, 3, 3, k)
    with pytest.raises(TypeError, match="dist: expected uint8 items"):
        layer(False, 0, 0, 1, words, dist.astype(np.int8), blk, 3, 3, k)
    with pytest.raises(ValueError, match="blk: expected 72 items, got 71"):
        layer(False, 0, 0, 1, words, dist, blk[:-1], 3, 3, k)
    with pytest.raises(TypeError, match="writable"):
        layer(False, 0, 0, 1, words, bytes(len(dist)), blk, 3, 3, k)
    with pytest.raises(ValueError, match="words: expected a C-contiguous array"):
        layer(False, 0, 0, 1, np.zeros(2 * len(words), np.uint16)[::2], dist, blk, 3, 3, k)
    with pytest.raises(ValueError, match="out of range"):
        layer(True, 0, 0, len(blk) + 1, words, dist, blk, 3, 3, k)
    with pytest.raises(ValueError, match="up to 31 cells"):
        layer(True, 0, 0, 1, words, dist, blk, 4, 8, k)
    with pytest.raises(ValueError, match="1..8 tiles"):
        engine().pattern_geometry(3, 3, 9)
    cells = np.zeros((3024, 4), np.int64)
    with pytest.raises(ValueError, match="moves: expected 48384 items, got 45360"):
        engine().pattern_trace(3, 3, 4, cells, np.zeros((3024, 15), np.int64))
    with pytest.raises(TypeError, match="cells: expected int64 items"):
        engine().pattern_trace(3, 3, 4, cells.astype(np.float64), np.zeros((3024, 16), np.int64))


def test_an_unknown_set_of_bit_operations_is_refused():
    before = engine().pattern_bit_ops()
    with pytest.raises(ValueError, match="not available"):
        engine().pattern_bit_ops("sse9")
    assert engine().pattern_bit_ops() == before
