"""Exact tables: distances against an independent BFS, optimal walks, vectorised lookups,
the published 8-puzzle distribution, and damaged files."""

from __future__ import annotations

import itertools
import math
import random

import h5py
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naive_bfs import distances_from

from solver import api
from solver.core.board import Board, Shape, goal_board
from solver.core.solution import Unsolvable
from solver.tables import exact, store

# Reinefeld (1993) and every later BFS: 8-puzzle states at each distance from a corner goal.
PUBLISHED_3X3 = [
    1,
    2,
    4,
    8,
    16,
    20,
    39,
    62,
    116,
    152,
    286,
    396,
    748,
    1024,
    1893,
    2512,
    4485,
    5638,
    9529,
    10878,
    16993,
    17110,
    23952,
    20224,
    24047,
    15578,
    14560,
    6274,
    3910,
    760,
    221,
    2,
]
SHAPE3 = Shape(3, 3)


def test_3x3_distribution_is_the_published_one(exact_dir):
    assert exact.count_at_distances(SHAPE3, None, exact_dir) == PUBLISHED_3X3
    assert (
        exact.count_at_distances(SHAPE3, goal_board(SHAPE3, "blank-first"), exact_dir)
        == PUBLISHED_3X3
    )


@pytest.mark.parametrize(
    "goal", ["blank-last", "blank-first", "snake", "spiral", "5 1 2/3 0 4/6 7 8"]
)
def test_every_3x3_distance_matches_an_independent_bfs(exact_dir, goal):
    g = goal_board(SHAPE3, goal)
    truth = distances_from(g.tiles, 3, 3)
    starts = np.array(list(itertools.permutations(range(9))))
    got = exact.distances(starts, g, exact_dir)
    want = np.array([truth.get(tuple(s), -1) for s in starts])
    assert (got == want).all()


def test_every_2x3_distance_for_every_goal_matches_bfs(exact_dir):
    shape = Shape(2, 3)
    perms = list(itertools.permutations(range(6)))
    starts = np.array(perms)
    for goal_tiles in random.Random(1).sample(perms, 40):
        goal = Board(shape, goal_tiles)
        truth = distances_from(goal_tiles, 2, 3)
        got = exact.distances(starts, goal, exact_dir)
        assert got.tolist() == [truth.get(p, -1) for p in perms]


def test_leetcode_773_examples(exact_dir):
    assert api.distance("1 2 3/4 0 5", data_dir=exact_dir) == 1
    assert api.distance("4 1 2/5 0 3", data_dir=exact_dir) == 5
    with pytest.raises(Unsolvable):
        api.distance("1 2 3/5 4 0", data_dir=exact_dir)


def test_hdu_x_input_and_the_31_move_positions(exact_dir):
    assert api.distance("8 6 7 2 5 4 3 x 1", data_dir=exact_dir) == 31
    assert api.distance("6 4 7 8 5 0 3 2 1", data_dir=exact_dir) == 31


@st.composite
def walks(draw, shape=SHAPE3, goal="blank-last"):
    board = goal_board(shape, goal)
    moves = ""
    for _ in range(draw(st.integers(0, 40))):
        m = draw(st.sampled_from(board.legal_moves()))
        board = board.move(m)
        moves += m
    return board, moves


@settings(max_examples=200, deadline=None)
@given(walks(), st.sampled_from(["blank-last", "blank-first", "spiral"]))
def test_random_walk_bounds_distance_and_keeps_parity(exact_dir, walk, goal):
    board, moves = walk
    d = api.distance(board, data_dir=exact_dir)
    assert d <= len(moves) and (len(moves) - d) % 2 == 0


@settings(max_examples=200, deadline=None)
@given(st.permutations(range(9)), st.permutations(range(9)))
def test_solutions_replay_in_exactly_distance_moves(exact_dir, start, goal):
    s, g = Board(SHAPE3, tuple(start)), Board(SHAPE3, tuple(goal))
    d = exact.lookup(s, g, exact_dir)
    if d is None:
        with pytest.raises(Unsolvable):
            api.solve(s, g, data_dir=exact_dir)
        return
    sol = api.solve(s, g, data_dir=exact_dir)
    assert sol.length == d and s.apply(sol.moves) == g and sol.optimal


def test_vectorised_and_scalar_lookups_agree(exact_dir):
    rng = np.random.default_rng(3)
    boards = np.array([rng.permutation(9) for _ in range(500)])
    g = goal_board(SHAPE3, "snake")
    vec = exact.distances(boards, g, exact_dir)
    for row, d in zip(boards, vec):
        one = exact.lookup(Board(SHAPE3, tuple(int(t) for t in row)), g, exact_dir)
        assert (one if one is not None else -1) == d


def test_validate_many_flags_bad_rows():
    rows = np.array([[0, 1, 2, 3], [0, 0, 2, 3], [0, 1, 2, 4]])
    assert exact.validate_many(rows, 4).tolist() == [True, False, False]


def test_missing_table_names_the_fix(tmp_path):
    with pytest.raises(store.DatabaseMissing) as e:
        exact.tables(SHAPE3, tmp_path)
    assert "build-pdb --shape 3x3" in str(e.value)


def test_wrong_or_damaged_files_are_refused(exact_dir, tmp_path):
    import shutil

    path = tmp_path / "exact-3x3.h5"
    shutil.copy(exact_dir / "exact-3x3.h5", path)
    with h5py.File(path, "r+") as f:
        f.attrs["shape"] = "2x3"
    with pytest.raises(store.DatabaseCorrupt, match="does not match its digest|header says"):
        exact.tables(SHAPE3, tmp_path)
    store._seal(path)  # a sound file whose metadata says another shape
    with pytest.raises(store.DatabaseCorrupt, match="shape"):
        exact.tables(SHAPE3, tmp_path)
    path.write_bytes(b"not an hdf5 file")
    with pytest.raises(store.DatabaseCorrupt, match="no npuzzle digest header"):
        exact.tables(SHAPE3, tmp_path)


def test_verify_detects_a_flipped_byte(exact_dir, tmp_path):
    import shutil

    path = tmp_path / "exact-2x3.h5"
    shutil.copy(exact_dir / "exact-2x3.h5", path)
    assert store.verify(path) == []
    with h5py.File(path, "r+") as f:
        f["blank_0"][0] = 7
    assert any("does not match its digest" in p for p in store.verify(path))
    store._seal(path)  # the digest alone now agrees: the table's own checksum still tells
    assert any("checksum mismatch" in p for p in store.verify(path))


def test_package_level_api(exact_dir):
    import numpy as np

    import solver

    assert solver.distance("1 2 3/4 0 5", data_dir=exact_dir) == 1
    with pytest.raises(solver.Unsolvable):
        solver.distance("1 2 3/5 4 0", data_dir=exact_dir)
    got = solver.distances(
        np.array([[1, 2, 3, 4, 0, 5], [1, 2, 3, 5, 4, 0]]), solver.goal_board("2x3"), exact_dir
    )
    assert got.tolist() == [1, -1]


# --- the compiled search (solver/engine/exact_bfs.c) against the naive BFS -------------------


@st.composite
def small_goals(draw):
    """Any goal of a board small enough for the naive BFS to reach all its states at once."""
    shape = Shape.parse(draw(st.sampled_from(["2x2", "2x3", "3x2", "2x4", "4x2"])))
    return Board(shape, tuple(draw(st.permutations(range(shape.size)))))


def naive_table(goal: Board) -> np.ndarray:
    """The full table of ``goal`` from tests/naive_bfs.py: distance by rank, 255 elsewhere."""
    from solver.core.ranking import rank_many

    n = goal.shape.size
    truth = distances_from(goal.tiles, goal.shape.rows, goal.shape.cols)
    table = np.full(math.factorial(n), 255, dtype=np.uint8)
    table[rank_many(np.array(list(truth)), n)] = list(truth.values())
    return table


@settings(max_examples=40, deadline=None)
@given(small_goals())
def test_the_compiled_search_matches_the_naive_bfs_for_any_goal(goal):
    from solver.tables.exact_bfs import bfs_exact

    table, counts = bfs_exact(goal)
    want = naive_table(goal)
    assert table.dtype == np.uint8 and np.array_equal(table, want)
    assert counts.tolist() == np.bincount(want[want != 255]).tolist()


def test_the_compiled_search_of_3x3_matches_the_naive_bfs():
    from solver.tables.exact_bfs import bfs_exact

    for goal in (goal_board(SHAPE3, "3 1 2/4 8 6/0 5 7"), goal_board(SHAPE3, "5 1 2/3 0 4/6 7 8")):
        table, counts = bfs_exact(goal)
        want = naive_table(goal)
        assert np.array_equal(table, want)
        assert counts.tolist() == np.bincount(want[want != 255]).tolist()
    assert bfs_exact(goal_board(SHAPE3, "blank-first"))[1].tolist() == PUBLISHED_3X3


def test_the_compiled_search_refuses_arrays_it_cannot_use():
    from solver.engine import engine

    bfs = engine().exact_bfs
    goal = np.array([1, 2, 3, 4, 5, 0], dtype=np.int64)
    nbr = np.array(Shape(2, 3).neighbour_table(), dtype=np.int64)
    table, counts = np.empty(720, np.uint8), np.empty(256, np.int64)
    assert bfs(goal, nbr, table, counts) == 21
    cases = [
        (TypeError, "goal: expected int64", (goal.astype(np.int32), nbr, table, counts)),
        (TypeError, "table: expected a writable", (goal, nbr, bytes(720), counts)),
        (TypeError, "table: expected uint8", (goal, nbr, table.astype(np.int16), counts)),
        (TypeError, "counts: expected a writable int64 array", (goal, nbr, table, None)),
        (ValueError, "table: expected 720 items, got 719", (goal, nbr, table[:-1], counts)),
        (ValueError, "counts: expected 256", (goal, nbr, table, counts[:10])),
        (ValueError, "neighbours: expected 24", (goal, nbr[:5], table, counts)),
        (ValueError, "neighbours: a cell out of", (goal, nbr + 6, table, counts)),
        (ValueError, "goal: expected a permutation", (goal * 0, nbr, table, counts)),
        (ValueError, "goal: expected 2 to 12 tiles", (np.arange(13), nbr, table, counts)),
        (ValueError, "C-contiguous", (goal, nbr, np.empty(1440, np.uint8)[::2], counts)),
    ]
    for error, message, args in cases:
        with pytest.raises(error, match=message):
            bfs(*args)


class Stop(Exception):
    """What the test's signal handler raises."""


def test_a_signal_stops_the_compiled_search_part_way():
    """A signal whose handler raises stops the search between two stretches of states: the
    handler's exception comes out of the C, and the table is left part-filled (the caller drops
    it; build-pdb writes no file).  A signal may land before the C is entered (the exception is
    then raised in Python, the table untouched): the call is tried again."""
    import signal

    from solver.engine import engine
    from solver.tables.exact_bfs import table_size

    if not hasattr(signal, "setitimer"):
        pytest.skip("needs setitimer")
    shape = Shape(2, 5)
    goal = np.array(goal_board(shape).tiles, dtype=np.int64)
    nbr = np.array(shape.neighbour_table(), dtype=np.int64)
    counts = np.empty(256, np.int64)
    fired = []

    def stop(signum, frame):
        if not fired:  # once a call: the timer's later ticks find nothing to stop
            fired.append(signum)
            raise Stop

    old = signal.signal(signal.SIGALRM, stop)
    try:
        for _ in range(20):
            table = np.full(table_size(shape), 7, dtype=np.uint8)  # 7: the C never started
            fired.clear()
            signal.setitimer(signal.ITIMER_REAL, 0.001, 0.001)
            try:
                with pytest.raises(Stop):
                    engine().exact_bfs(goal, nbr, table, counts)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            if table[0] != 7:
                break
        reached = int((table != 255).sum())
        assert table[0] != 7 and 0 < reached < table_size(shape) // 2
    finally:
        signal.signal(signal.SIGALRM, old)
