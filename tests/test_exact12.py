"""Compact exact tables (10 to 12 cells): the encoding, the builder against an independent BFS,
every reader (distance, solve, distances, generate, stats) and the catalog's choice of table.

The 2x4 and 2x5 tables are built here (seconds) and compared state by state with
tests/naive_bfs.py; the 3x4 table (a minute) is built only with ``--slow``
(``scripts/bench_exact12.py`` builds it too and checks its counts against OEIS A090166).
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest
from conftest import assert_one_line_error
from hypothesis import given, settings
from hypothesis import strategies as st
from naive_bfs import distances_from

from pdb_builder.build import build_exact
from pdb_builder.compact_bfs import bfs_compact
from solver import api
from solver.core.board import Board, Shape, goal_board
from solver.tables import compact, exact, names, store
from solver.workloads.distributions import distance_counts, reference_counts
from solver.workloads.generate import generate, shuffled, walked

SHAPE24, SHAPE25, SHAPE34 = Shape(2, 4), Shape(2, 5), Shape(3, 4)


@functools.cache
def naive(goal: Board) -> dict:
    """The naive BFS from ``goal`` (a 2x5 one takes seconds: each is run once)."""
    return distances_from(goal.tiles, goal.shape.rows, goal.shape.cols)


@functools.cache
def every_state(goal: Board) -> tuple[np.ndarray, np.ndarray]:
    """All states that reach ``goal`` and their distances, from the naive BFS."""
    ref = naive(goal)
    return np.array(list(ref)), np.array(list(ref.values()))


@pytest.fixture(scope="module")
def compact_dir(tmp_path_factory):
    """2x4 compact tables for every blank-cell class (forced compact: 2x4 is full by default)
    and the default 2x5 table (compact by default)."""
    d = tmp_path_factory.mktemp("compact")
    for cell in range(SHAPE24.size):
        build_exact(
            SHAPE24,
            d,
            progress=False,
            layout=names.COMPACT,
            goal=names.canonical_goal(SHAPE24, cell).flat(),
        )
    build_exact(SHAPE25, d, progress=False)
    return d


# --- the encoding ------------------------------------------------------------------------


@given(st.lists(st.integers(0, 15), min_size=0, max_size=64))
def test_pack_and_unpack_are_inverse(values):
    packed = compact.pack(values)
    assert compact.nibbles_at(packed, np.arange(len(values))).tolist() == values


@pytest.mark.parametrize("shape", ["2x3", "2x4", "4x2", "3x3"])
def test_index_is_a_bijection_onto_one_parity_class(shape):
    shape = Shape.parse(shape)
    for cell in range(shape.size) if shape.size < 9 else (4, 8):
        goal = names.canonical_goal(shape, cell)
        boards, _ = every_state(goal)
        table = compact.CompactTable(goal, np.zeros(1, np.uint8), np.zeros(1, np.uint8), [], [])
        index, reachable = compact.index_many(boards, table.geo)
        assert reachable.all()
        assert sorted(index.tolist()) == list(range(compact.entries(shape)))
        assert np.array_equal(table.boards(index), boards)
        # Swapping two tiles leaves the class: the index cannot tell, the parity must.
        swapped = np.where(boards == 1, 2, np.where(boards == 2, 1, boards))
        assert not compact.index_many(swapped, table.geo)[1].any()


@pytest.mark.parametrize("shape", ["3x4", "4x3", "2x6", "6x2"])
def test_index_round_trips_on_12_cells(shape):
    """The 12-cell index (ranks up to 239,500,799) without building the table."""
    shape = Shape.parse(shape)
    rng = np.random.default_rng(12)
    for cell in (shape.size - 1, 1, shape.cols + 1):
        goal = names.canonical_goal(shape, cell)
        boards = shuffled(goal, 2000, rng)
        table = compact.CompactTable(goal, np.zeros(1, np.uint8), np.zeros(1, np.uint8), [], [])
        index, reachable = compact.index_many(boards, table.geo)
        assert reachable.all() and index.min() >= 0 and index.max() < compact.entries(shape)
        assert np.array_equal(table.boards(index), boards)


# --- built tables against the naive BFS ----------------------------------------------------


@pytest.mark.parametrize(
    "goal",
    [
        "blank-last",
        "blank-first",
        "snake",
        "spiral",
        "1 2 3 4/5 0 6 7",
        "7 6 5 4/0 3 2 1",
        "3 1 0 2/4 5 6 7",
    ],
)
def test_every_2x4_distance_matches_the_naive_bfs(compact_dir, goal):
    g = goal_board(SHAPE24, goal)
    boards, want = every_state(g)
    got = exact.distances(boards, g, compact_dir)
    assert np.array_equal(got, want)
    assert exact.goal_table(g, compact_dir).entry.layout == names.COMPACT
    # The scalar path agrees with the vectorised one.
    rng = np.random.default_rng(1)
    for i in rng.choice(len(boards), 200, replace=False):
        assert exact.lookup(Board(SHAPE24, tuple(boards[i].tolist())), g, compact_dir) == want[i]


def test_every_2x5_distance_matches_the_naive_bfs(compact_dir):
    """2x5 has hundreds of states in the overflow list, so the exhaustive check reads it too
    (other goals and their symmetries are checked exhaustively on 2x4, where the naive BFS
    is cheap)."""
    g = goal_board(SHAPE25)
    boards, want = every_state(g)
    assert np.array_equal(exact.distances(boards, g, compact_dir), want)
    table = exact.goal_table(g, compact_dir)
    assert table.entry.path.name == "exact-2x5-blank9.h5"
    assert len(table.compact.overflow_index) > 0
    over = np.asarray(table.compact.overflow_index)[:50]
    assert np.array_equal(
        exact.distances(table.compact.boards(over), g, compact_dir),
        [naive(g)[tuple(b)] for b in table.compact.boards(over).tolist()],
    )


def test_other_parity_is_unreachable(compact_dir):
    g = goal_board(SHAPE25)
    boards, _ = every_state(g)
    swapped = np.where(boards == 1, 2, np.where(boards == 2, 1, boards))[:5000]
    assert (exact.distances(swapped, g, compact_dir) == -1).all()
    with pytest.raises(api.Unsolvable):
        api.distance("2 1 3 4 5/6 7 8 9 0", data_dir=compact_dir)


def test_counts_are_the_published_ones(compact_dir):
    assert distance_counts(SHAPE25, None, compact_dir).counts == reference_counts(SHAPE25).counts
    counts = distance_counts(SHAPE25, None, compact_dir)
    assert counts.max_distance == 55 and counts.total == 1_814_400
    full = tuple(exact.count_at_distances(SHAPE24, None, compact_dir))
    assert full == reference_counts(SHAPE24).counts


# --- the compiled compact search (solver/engine/exact_compact.c) against the naive BFS -------


def assert_compact_is_the_naive_bfs(result, goal: Board) -> None:
    """Every state's distance read back from ``result`` (a :class:`CompactResult` for
    ``goal``) is the naive BFS's, and so are the counts, the rare layers' lists (each
    distance's indices, ascending) and the overflow list (ascending, with its distances)."""
    boards, want = every_state(goal)
    table = compact.CompactTable(
        goal, result.packed, result.base, result.overflow_index, result.overflow_distance
    )
    assert np.array_equal(table.distances(boards), want)
    assert result.counts.tolist() == np.bincount(want).tolist()
    index, _ = compact.index_many(boards, table.geo)
    by_index = np.empty(len(index), dtype=np.int64)
    by_index[index] = want
    for i, d in enumerate(result.rare_distances):
        listed = result.rare_index[result.rare_offsets[i] : result.rare_offsets[i + 1]]
        assert listed.tolist() == np.flatnonzero(by_index == d).tolist()
    assert (np.diff(result.overflow_index) > 0).all()
    assert np.array_equal(result.overflow_distance, by_index[result.overflow_index])
    over = compact.nibbles_at(result.packed, np.arange(len(index))) == compact.OVERFLOW
    assert np.flatnonzero(over).tolist() == result.overflow_index.tolist()


@st.composite
def small_goals(draw):
    """Any goal of a board of 4 to 8 cells (the compact index needs 4 at least)."""
    shape = Shape.parse(draw(st.sampled_from(["2x2", "2x3", "3x2", "2x4", "4x2"])))
    return Board(shape, tuple(draw(st.permutations(range(shape.size)))))


@settings(max_examples=30, deadline=None)
@given(small_goals(), st.integers(1, 3))
def test_the_compiled_compact_search_matches_the_naive_bfs_for_any_goal(goal, threads):
    assert_compact_is_the_naive_bfs(bfs_compact(goal, threads=threads), goal)


def test_the_compiled_compact_search_of_a_random_2x5_goal():
    """A 2x5 goal with the blank on an edge: the overflow list and the rare layers filled."""
    goal = Board(SHAPE25, tuple(np.random.default_rng(25).permutation(10).tolist()))
    result = bfs_compact(goal)
    assert len(result.overflow_index) > 0 and len(result.rare_distances) > 2
    assert_compact_is_the_naive_bfs(result, goal)


def test_threads_on_small_slices_give_the_same_table(monkeypatch):
    """Four threads on slices of 720 states (2,520 on 2x5, each layer's neighbours written
    across slices) build the table one thread builds, and it is the naive BFS's."""
    from pdb_builder import compact_bfs

    goal = goal_board(SHAPE25)
    one = bfs_compact(goal, threads=1)
    monkeypatch.setattr(compact_bfs, "SLICE", 720)
    four = bfs_compact(goal, threads=4)
    for name in ("packed", "base", "overflow_index", "overflow_distance", "rare_index", "counts"):
        assert np.array_equal(getattr(one, name), getattr(four, name)), name
    assert one.rare_offsets == four.rare_offsets
    assert_compact_is_the_naive_bfs(four, goal)


def test_the_compiled_sweeps_refuse_arrays_they_cannot_use():
    from solver.engine import engine

    e = engine()
    geo = compact.Geometry.of(goal_board(Shape(2, 3)))
    need, md = geo.need.astype(np.int64), geo.md.astype(np.int64)
    nbr = np.array(Shape(2, 3).neighbour_table(), dtype=np.int64)
    work = np.full(360, 255, np.uint8)
    packed, base = np.zeros(180, np.uint8), np.zeros(6, np.uint8)
    assert e.compact_expand(work, 0, 360, 0, need, nbr) == 0
    cases = [
        (
            ValueError,
            "work: expected 360 items",
            e.compact_expand,
            (work[:-1], 0, 360, 0, need, nbr),
        ),
        (ValueError, "slice \\[0, 13\\)", e.compact_expand, (work, 0, 13, 0, need, nbr)),
        (ValueError, "slice \\[0, 372\\)", e.compact_expand, (work, 0, 372, 0, need, nbr)),
        (ValueError, "depth 254", e.compact_expand, (work, 0, 360, 254, need, nbr)),
        (ValueError, "need: expected parities", e.compact_expand, (work, 0, 12, 0, need * 2, nbr)),
        (ValueError, "need: expected 4 to 12", e.compact_expand, (work, 0, 12, 0, need[:3], nbr)),
        (
            ValueError,
            "neighbours: a cell out of",
            e.compact_expand,
            (work, 0, 12, 0, need, nbr * 9),
        ),
        (
            TypeError,
            "work: expected a writable",
            e.compact_expand,
            (bytes(360), 0, 12, 0, need, nbr),
        ),
        (TypeError, "need: expected int64", e.compact_expand, (work, 0, 12, 0, need * 1.0, nbr)),
        (
            ValueError,
            "slice \\[12, 72\\)",
            e.compact_encode,
            (work, 12, 72, packed, base, need, md),
        ),
        (
            ValueError,
            "packed: expected 180",
            e.compact_encode,
            (work, 0, 60, packed[1:], base, need, md),
        ),
        (
            ValueError,
            "md: expected 36",
            e.compact_encode,
            (work, 0, 60, packed, base, need, md[1:]),
        ),
    ]
    for error, message, kernel, args in cases:
        with pytest.raises(error, match=message):
            kernel(*args)
    rare, offsets = np.zeros(256, np.uint8), np.zeros(257, np.int64)
    none_i, none_u = np.empty(0, np.int64), np.empty(0, np.uint8)
    packed[:] = 0xFF  # every nibble OVERFLOW, and no room listed for any
    with pytest.raises(ValueError, match="not as counted"):
        e.compact_gather(work, packed, rare, offsets, none_i, none_u, none_i)
    with pytest.raises(ValueError, match="offsets: expected 257 nondecreasing"):
        e.compact_gather(work, packed, rare, offsets + 1, none_i, none_u, none_i)


def test_ctrl_c_stops_a_compact_build_and_leaves_nothing(tmp_path):
    """SIGINT once the 3x4 search has reported a layer: build-pdb says it was interrupted, in
    one line, exits 130 and leaves nothing in the data directory."""
    import os
    import signal
    import sys

    from conftest import watched

    root = Path(__file__).resolve().parents[1]
    data = tmp_path / "data"
    args = [sys.executable, "-m", "pdb_builder", "--shape", "3x4", "--data-dir", str(data)]
    run = watched(args, env=dict(os.environ, PYTHONPATH=str(root)), cwd=root)
    try:
        run.wait_for(b"depth")  # the search has run a layer and goes on
        run.proc.send_signal(signal.SIGINT)
        assert run.proc.wait(timeout=120) == 130
    finally:
        if run.proc.poll() is None:
            run.proc.kill()
            run.proc.wait()
    last = run.output().decode().replace("\r", "\n").strip().splitlines()[-1]
    assert last == "build-pdb: interrupted; no partial file was left behind", last
    assert not data.exists() or list(data.iterdir()) == []


# --- solving down the table ----------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.sampled_from(["blank-last", "blank-first", "snake", "1 2 3 4/5 0 6 7"]),
)
def test_solutions_replay_and_are_optimal(compact_dir, seed, goal):
    g = goal_board(SHAPE24, goal)
    start = Board(SHAPE24, tuple(shuffled(g, 1, np.random.default_rng(seed))[0].tolist()))
    want = distances_from(g.tiles, 2, 4)[start.tiles]
    sol = api.solve(start, g, data_dir=compact_dir)
    assert sol.length == want and start.apply(sol.moves) == g and sol.optimal


def test_2x5_solution_through_a_symmetry(compact_dir):
    """blank-first is read from the blank-last table turned by 180 degrees: the same
    distance as the start turned, tiles renamed, towards blank-last."""
    g = goal_board(SHAPE25, "blank-first")
    start = Board.parse("9 8 7 6 5/4 3 2 1 0")
    sol = api.solve(start, g, data_dir=compact_dir)
    assert start.apply(sol.moves) == g
    turned = Board(SHAPE25, tuple((10 - t) % 10 for t in reversed(start.tiles)))
    assert sol.length == naive(goal_board(SHAPE25))[turned.tiles]
    assert sol.database == "exact-2x5-blank9.h5"


# --- missing and damaged tables ---------------------------------------------------------


def test_an_edge_goal_needs_its_own_table(tmp_path, run_cli):
    build_exact(SHAPE25, tmp_path, progress=False)
    g = goal_board(SHAPE25, "1 2 0 3 4/5 6 7 8 9")
    with pytest.raises(store.DatabaseMissing) as e:
        exact.distance(Board.parse("1 0 2 3 4/5 6 7 8 9"), g, tmp_path)
    assert "--goal" in e.value.fix and "blank on cell 2" in str(e.value)
    r = run_cli(
        ["distance", "1 0 2 3 4/5 6 7 8 9", "--goal", "1 2 0 3 4/5 6 7 8 9", "--data-dir", tmp_path]
    )
    assert_one_line_error(r, 3)
    assert "build-pdb --shape 2x5 --goal" in r.stderr
    # The command it names builds the table, after which the goal is answered.
    build_exact(SHAPE25, tmp_path, progress=False, goal=g.flat())
    assert (tmp_path / "exact-2x5-blank7.h5").exists()
    assert exact.distance(Board.parse("1 0 2 3 4/5 6 7 8 9"), g, tmp_path) == 1


def test_a_damaged_compact_file_is_refused(compact_dir, tmp_path):
    import shutil

    import h5py

    path = tmp_path / "exact-2x5-blank9.h5"
    shutil.copy(compact_dir / path.name, path)
    with h5py.File(path, "r+") as f:
        del f[compact.BLOCK_BASE]
        f.create_dataset(compact.BLOCK_BASE, data=np.zeros(3, np.uint8))
    store._seal(path)  # a well-sealed file whose contents are wrong
    with pytest.raises(store.DatabaseCorrupt):
        exact.distance(Board.parse("1 2 3 4 5/6 7 8 0 9"), goal_board(SHAPE25), tmp_path)


# --- the catalog ------------------------------------------------------------------------


def test_names_and_table_cells():
    assert names.exact_layout(Shape(3, 3)) == names.FULL
    assert names.exact_layout(SHAPE34) == names.COMPACT
    with pytest.raises(ValueError):
        names.exact_layout(Shape(4, 4))
    assert names.exact_file_name(SHAPE34) == "exact-3x4-blank11.h5"
    assert (
        names.exact_file_name(SHAPE34, goal_board(SHAPE34, "blank-first")) == "exact-3x4-blank11.h5"
    )
    entry = names.parse_name(Path("exact-3x4-blank10.h5"))
    assert entry.layout == names.COMPACT and entry.goal == names.canonical_goal(SHAPE34, 10)
    assert names.parse_name(Path("exact-3x4-blank12.h5")) is None
    # Four classes of blank cells on 3x4: corners, top/bottom edges, side edges, centre.
    assert len({names.table_cell(SHAPE34, c) for c in range(12)}) == 4


def test_build_commands_name_the_goal_only_when_needed():
    corner = goal_board(SHAPE34, "blank-first")
    assert names.build_command(SHAPE34, goal=corner, kind=names.EXACT) == "build-pdb --shape 3x4"
    edge = Board.parse("1 0 2 3/4 5 6 7/8 9 10 11")
    assert (
        names.build_command(SHAPE34, goal=edge, kind=names.EXACT)
        == "build-pdb --shape 3x4 --goal '1 0 2 3 4 5 6 7 8 9 10 11'"
    )


# --- generate and stats -----------------------------------------------------------------


def test_generate_at_rare_and_common_levels(compact_dir):
    g = goal_board(SHAPE25)
    truth = naive(g)
    rows = generate("2x5", 4, distance=55, seed=1, data_dir=compact_dir)  # listed: 2 states
    assert {d for _, d in rows} == {55} and all(truth[b.tiles] == 55 for b, _ in rows)
    both = generate("2x5", 2, distance=55, unique=True, seed=2, data_dir=compact_dir)
    assert len({b for b, _ in both}) == 2
    rows = generate("2x5", 20, distance=36, seed=3, data_dir=compact_dir)  # by rejection
    assert all(d == 36 == truth[b.tiles] for b, d in rows)
    rows = generate(
        "2x5", 20, min_distance=3, max_distance=5, method="walk", seed=4, data_dir=compact_dir
    )
    assert all(3 <= d <= 5 and truth[b.tiles] == d for b, d in rows)


def test_stats_cli_on_a_compact_table(run_cli, compact_dir):
    import json

    r = run_cli(["stats", "--shape", "2x5", "--json", "--data-dir", compact_dir])
    assert r.exit_code == 0, r.output
    rec = json.loads(r.stdout)
    assert rec["total"] == 1_814_400 and rec["max_distance"] == 55
    assert "exact-2x5-blank9.h5" in rec["source"]


# --- 3x4 (built only with --slow: about a minute on two cores) ---------------------------


def test_3x4_counts_are_known_without_a_table():
    counts = distance_counts(SHAPE34)  # the packaged OEIS A090166 file
    assert counts.total == 239_500_800 and counts.max_distance == 53 and counts.counts[-1] == 18
    assert distance_counts(Shape(4, 3)).counts == counts.counts  # the transpose reads it too
    assert distance_counts(Shape(2, 6)).max_distance == 80


@pytest.mark.slow
def test_3x4_table(tmp_path_factory):
    d = tmp_path_factory.mktemp("exact34")
    build_exact(SHAPE34, d, progress=False)
    assert tuple(exact.count_at_distances(SHAPE34, None, d)) == reference_counts(SHAPE34).counts
    rng = np.random.default_rng(34)
    for goal in ("blank-last", "blank-first", "snake"):
        g = goal_board(SHAPE34, goal)
        for length in (0, 1, 5, 12, 30):
            boards = walked(g, 200, length, rng)
            got = exact.distances(boards, g, d)
            assert (got <= length).all() and ((got - length) % 2 == 0).all()
        for b in walked(g, 5, 80, rng):
            start = Board(SHAPE34, tuple(b.tolist()))
            sol = api.solve(start, g, data_dir=d)
            assert start.apply(sol.moves) == g and sol.length == exact.lookup(start, g, d)
