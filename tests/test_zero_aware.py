"""Zero-aware tables.  The builder's (pdb_builder.zero_aware: the engine's classes read from
the pattern BFS's layers) must be a naive search's two values a placement, on small boards
and random goals, and the engine must refuse arrays it cannot use."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))

from naive_pdb import zero_aware_pairs  # noqa: E402

from pdb_builder.zero_aware import classify_layer, zero_aware_tables  # noqa: E402
from solver.core import ranking  # noqa: E402
from solver.core import regions as cellsets  # noqa: E402
from solver.core.board import Board, Shape, goal_board  # noqa: E402
from solver.engine import engine  # noqa: E402

UNREACHED = 255


def naive_twin(shape: Shape, goal: Board, tiles) -> np.ndarray:
    """The naive two values of every placement, laid out as the builder's (``2 * rank +
    class``; 255 where unreached)."""
    pairs = np.full(2 * ranking.count_placements(shape.size, len(tiles)), UNREACHED, np.uint8)
    for cells, (main, other) in zero_aware_pairs(goal.tiles, shape.rows, shape.cols, tiles).items():
        r = ranking.rank(np.array(cells), shape.size)
        pairs[2 * r : 2 * r + 2] = [UNREACHED if d is None else d for d in (main, other)]
    return pairs


@pytest.mark.parametrize("threads", ["1", "3"])
@pytest.mark.parametrize(
    "shape, tiles, goal",
    [
        ("3x3", (1, 2, 3, 4), None),
        ("3x3", (5, 6, 7, 8), "blank-first"),
        ("3x3", (2, 4, 6, 8), "spiral"),
        ("2x4", (1, 2, 5, 6), None),
        ("2x3", (1, 2, 3), None),
        ("3x4", (1, 5, 9), None),
        ("4x3", (4, 5, 6), "spiral"),
    ],
)
def test_the_builders_twin_is_the_naive_searchs(shape, tiles, goal, threads, monkeypatch):
    """Both classes of every placement, on one thread and on three racing for the words."""
    monkeypatch.setenv("NPUZZLE_THREADS", threads)
    s = Shape.parse(shape)
    g = goal_board(s, goal)
    pairs, result = zero_aware_tables(s, tiles, g, progress=False)
    assert np.array_equal(pairs, naive_twin(s, g, tiles))
    assert np.array_equal(pairs.reshape(-1, 2).min(axis=1), result.table)


@settings(max_examples=20, deadline=None)
@given(st.data())
def test_random_goals_give_the_naive_twin(data):
    rows, cols = data.draw(st.sampled_from([(2, 3), (3, 2), (3, 3), (2, 4)]))
    s = Shape(rows, cols)
    goal = Board(s, tuple(data.draw(st.permutations(range(s.size)))))
    k = data.draw(st.integers(1, 4))
    tiles = data.draw(st.lists(st.integers(1, s.size - 1), min_size=k, max_size=k, unique=True))
    pairs, _ = zero_aware_tables(s, tiles, goal, progress=False)
    assert np.array_equal(pairs, naive_twin(s, goal, sorted(tiles)))


def test_the_engine_refuses_twin_arrays_it_cannot_use():
    s, k = Shape.parse("3x3"), 4
    total, blocks = ranking.count_placements(9, k), 72
    words, blk = np.zeros(total, np.uint16), np.full(blocks, 0xFF, np.uint8)
    pairs = np.full(2 * total, UNREACHED, np.uint8)
    main = cellsets.main_region_masks(3, 3, k)
    tables = (words, blk)
    classify_layer(0, 0, blocks, tables, pairs, s, k, main)  # no region reached: no class
    assert (pairs == UNREACHED).all()
    with pytest.raises(ValueError, match="main: expected 126 items, got 125"):
        classify_layer(0, 0, blocks, tables, pairs, s, k, main[:-1])
    with pytest.raises(TypeError, match="main: expected uint32 items"):
        classify_layer(0, 0, blocks, tables, pairs, s, k, main.astype(np.int64))
    with pytest.raises(ValueError, match="pairs: expected 6048 items"):
        classify_layer(0, 0, blocks, tables, pairs[:-2], s, k, main)
    with pytest.raises(TypeError, match="words: expected uint16 items"):
        classify_layer(0, 0, blocks, (words.astype(np.uint32), blk), pairs, s, k, main)
    with pytest.raises(ValueError, match="blk: expected 72 items"):
        classify_layer(0, 0, blocks, (words, blk[:-1]), pairs, s, k, main)
    with pytest.raises(ValueError, match="out of range"):
        classify_layer(0, 0, blocks + 1, tables, pairs, s, k, main)
    out = np.zeros(2, np.uint8)
    with pytest.raises(TypeError, match="pairs: expected uint8 items"):
        engine().pattern_pack(np.zeros(4, np.uint16), out, 6, 2, 0, 1)
    with pytest.raises(ValueError, match="out: expected 2 items, got 3"):
        engine().pattern_pack(np.zeros(4, np.uint8), np.zeros(3, np.uint8), 6, 2, 0, 1)
    with pytest.raises(ValueError, match="even number"):
        engine().pattern_pack(np.zeros(3, np.uint8), out, 6, 2, 0, 1)


def test_regions_are_the_free_cells_connected_parts():
    binom = cellsets.binomials(9)
    labels, nreg, main = cellsets.label_regions(3, 3, 2)
    # Tiles on cells 1 and 3 wall the corner 0 off from the other six free cells.
    mask = (1 << 1) | (1 << 3)
    mr = cellsets.set_rank(mask, 9, binom)
    assert nreg[mr] == 2
    assert labels[mr, 0] != labels[mr, 4] and labels[mr, 1] == -1
    assert main[mr] == labels[mr, 4]  # the largest region holds the centre
