"""The region BFS (pdb_builder.region_bfs: the search by map, blank region and permutation,
one byte a state) must build byte for byte the tables of the existing pattern BFS
(pdb_builder.pattern_bfs) and of its zero-aware twin (pdb_builder.zero_aware, packed), layer
by layer the same states, on every pattern small enough for both: 5x5 4- and 5-tile
patterns, 4x4 5-5-5 and 6-tile patterns, random goals, 3x4, whole boards; a naive search's on
3x3 and 2x4; and the engine must refuse what it cannot use."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))

from naive_pdb import pattern_table, zero_aware_pairs  # noqa: E402

from pdb_builder import region_bfs as rb  # noqa: E402
from pdb_builder import threads  # noqa: E402
from pdb_builder.pattern_bfs import bfs_pattern, state_count  # noqa: E402
from pdb_builder.zero_aware import pack_classes, zero_aware_tables  # noqa: E402
from solver.core import packing, ranking  # noqa: E402
from solver.core.board import Board, Shape, goal_board  # noqa: E402
from solver.engine import engine  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CASES = [
    ("5x5", "blank-last", (1, 2, 6, 7)),
    ("5x5", "blank-first", (1, 2, 5, 6, 7)),
    ("4x4", "blank-last", (1, 2, 3, 5, 6)),  # the 5-5-5 preset's three patterns
    ("4x4", "blank-last", (4, 7, 8, 11, 12)),
    ("4x4", "blank-last", (9, 10, 13, 14, 15)),
    ("4x4", "blank-last", (1, 2, 3, 5, 6, 7)),
    ("4x4", "5 1 2 3/0 9 6 4/13 10 7 8/14 15 11 12", (2, 3, 6, 7, 10)),  # a random goal
    ("3x4", "blank-last", (1, 2, 3, 4, 5)),
    ("3x4", "3 7 0 1/2 10 9 8/6 4 5 11", (1, 4, 6, 9)),
    ("2x5", "blank-first", (1, 2, 3, 4, 5, 6, 7, 8)),  # two free cells, distances above 63
    ("2x5", "blank-first", (1, 2, 3, 6, 7, 8)),
]
WHOLE = [("2x2", (1, 2, 3)), ("3x3", (1, 2, 3, 4, 5, 6, 7, 8)), ("2x4", (1, 2, 3, 4, 5, 6, 7))]


def _goal(shape: Shape, goal: str) -> Board:
    return goal_board(shape, goal)


@pytest.fixture(scope="module")
def existing():
    """The existing builders' additive tables and twins, built once per case."""
    cache = {}

    def get(shape, goal, tiles):
        key = (str(shape), str(goal), tiles)
        if key not in cache:
            pairs, result = zero_aware_tables(shape, tiles, goal, progress=False)
            try:
                cache[key] = (result, *pack_classes(pairs))
            except ValueError as e:  # distances above a packed byte's
                cache[key] = (result, None, str(e))
        return cache[key]

    return get


def assert_same(new, old):
    """The region BFS's result is the pattern BFS's: table, histogram, states, layers."""
    assert new.tiles == old.tiles
    assert new.table.dtype == np.uint8 and new.table.shape == old.table.shape
    assert np.array_equal(new.table, old.table)
    assert new.counts.tolist() == old.counts.tolist()
    assert new.unreached == old.unreached
    assert new.states == old.states
    assert [layer[2] for layer in new.layers] == [layer[2] for layer in old.layers]


@pytest.mark.parametrize("shape, goal, tiles", CASES)
def test_additive_and_twin_match_the_pattern_bfs(existing, shape, goal, tiles):
    shape = Shape.parse(shape)
    goal = _goal(shape, goal)
    old, packed, clipped = existing(shape, goal, tiles)
    assert_same(rb.region_bfs(shape, tiles, goal, progress=False), old)
    if packed is None:  # the packing refuses it: so must the region BFS's twin
        with pytest.raises(ValueError, match="does not fit a packed entry"):
            rb.region_bfs(shape, tiles, goal, twin=True, progress=False)
        return
    twin = rb.region_bfs(shape, tiles, goal, twin=True, progress=False)
    assert_same(twin, old)
    assert np.array_equal(twin.twin, packed)
    assert twin.clipped == clipped


@pytest.mark.parametrize("shape, tiles", WHOLE)
def test_whole_boards_reach_one_parity_class(shape, tiles):
    shape = Shape.parse(shape)
    old = bfs_pattern(shape, tiles, progress=False)
    new = rb.region_bfs(shape, tiles, progress=False)
    assert_same(new, old)
    assert new.unreached == new.table.size // 2
    assert new.states == state_count(shape, len(tiles))
    with pytest.raises(ValueError, match="does not fit a packed entry"):
        rb.region_bfs(shape, tiles, twin=True, progress=False)  # as pattern_pack refuses


@pytest.mark.parametrize(
    "shape, goal, tiles",
    [
        ("3x3", "blank-last", (1, 2, 3, 5)),
        ("3x3", "8 1 3/4 0 2/7 6 5", (2, 4, 6, 8)),
        ("2x4", "blank-first", (1, 2, 5, 6)),
        ("2x4", "blank-last", (3, 4, 7)),
    ],
)
def test_naive_search(shape, goal, tiles):
    shape = Shape.parse(shape)
    goal = _goal(shape, goal)
    n = shape.size
    r = rb.region_bfs(shape, tiles, goal, twin=True, progress=False)
    table = pattern_table(goal.tiles, shape.rows, shape.cols, tiles)
    pairs = zero_aware_pairs(goal.tiles, shape.rows, shape.cols, tiles)
    assert len(table) == r.table.size == len(pairs)  # every placement is reached
    naive = np.zeros(2 * r.table.size, np.uint8)
    for cells, value in table.items():
        rank = int(ranking.rank(np.array(cells), n))
        assert r.table[rank] == value
        naive[2 * rank : 2 * rank + 2] = pairs[cells]
    packed, clipped = pack_classes(naive)
    assert np.array_equal(r.twin, packed)
    assert r.clipped == clipped


@settings(max_examples=20, deadline=None)
@given(st.randoms(use_true_random=False), st.sampled_from(["3x3", "2x4", "2x3", "3x4"]))
def test_random_goals_and_patterns(rnd: random.Random, shape):
    shape = Shape.parse(shape)
    tiles = list(range(shape.size))
    rnd.shuffle(tiles)
    goal = Board(shape, tuple(tiles))
    pattern = tuple(
        sorted(rnd.sample(range(1, shape.size), rnd.randint(1, min(5, shape.size - 2))))
    )
    old = bfs_pattern(shape, pattern, goal, progress=False)
    assert_same(rb.region_bfs(shape, pattern, goal, progress=False, threads=2), old)


def test_push_pull_and_threads_agree():
    shape, tiles = Shape.parse("4x4"), (1, 2, 5, 6, 9)
    tables = [
        rb.region_bfs(shape, tiles, progress=False, pull_when=when, threads=threads)
        for when, threads in [(0.0, 1), (1e9, 1), (2.0, 3), (0.0, 4)]
    ]
    assert {how for _, how, _, _ in tables[0].layers} == {"push"}
    assert {how for _, how, _, _ in tables[1].layers} == {"pull"}
    for other in tables[1:]:
        assert np.array_equal(other.table, tables[0].table)
        assert [x[2] for x in other.layers] == [x[2] for x in tables[0].layers]


def test_plan_sizes():
    p = rb.make_plan("5x5", 7)
    assert (p.maps, p.regions, p.entries, p.perms) == (480700, 806876, 4066655040, 5040)
    assert p.placements == ranking.count_placements(25, 7)
    assert rb.entry_count("5x5", 7) == p.entries
    offsets = np.empty(p.maps + 1, np.int64)
    engine().region_offsets(p.capsule, offsets)
    assert offsets[0] == 0 and offsets[-1] == p.regions and np.all(np.diff(offsets) >= 1)
    items = rb.map_items(p, 2)
    assert items[0][0] == 0 and items[-1][1] == p.maps
    assert all(a < b == c for (a, b), (c, _) in zip(items, items[1:] + [(items[-1][1], 0)]))
    assert rb.memory_bytes("5x5", 7) < 7 * 10**9


def test_engine_refuses_what_it_cannot_use():
    e = engine()
    p = rb.make_plan("3x3", 3)
    entries = np.full(p.entries, 255, np.uint8)
    with pytest.raises(TypeError, match="plan"):
        e.region_layer(object(), entries, False, 0, 0, 1)
    with pytest.raises(TypeError, match="uint8"):
        e.region_layer(p.capsule, entries.view(np.uint16), False, 0, 0, 1)
    with pytest.raises(TypeError, match="writable"):
        e.region_layer(p.capsule, bytes(p.entries), False, 0, 0, 1)
    with pytest.raises(ValueError, match="items"):
        e.region_layer(p.capsule, entries[:-1], False, 0, 0, 1)
    with pytest.raises(ValueError, match="out of range"):
        e.region_layer(p.capsule, entries, False, 0, 0, p.maps + 1)
    with pytest.raises(ValueError, match="out of range"):
        e.region_layer(p.capsule, entries, False, 254, 0, 1)
    with pytest.raises(ValueError, match="distinct"):
        e.region_index(p.capsule, [0, 0, 1], 2)
    with pytest.raises(ValueError, match="distinct"):
        e.region_index(p.capsule, [0, 1, 2], 2)
    hist = np.zeros(256, np.int64)
    table = np.empty(p.placements, np.uint8)
    args = (packing.VALUE_BITS, packing.HIGHER_BY, packing.MAIN, packing.OTHER)
    with pytest.raises(ValueError, match="items"):
        e.region_fold(p.capsule, entries, 0, p.prefixes, table[:-1], None, None, hist, *args)
    with pytest.raises(TypeError, match="uint32"):
        e.region_fold(p.capsule, entries, 0, 1, None, table[:7], hist, hist, *args)
    with pytest.raises(ValueError, match="out of range"):
        e.region_fold(p.capsule, entries, 0, p.prefixes + 1, table, None, None, hist, *args)
    bad_main = np.zeros(p.maps, np.uint32)
    with pytest.raises(ValueError, match="no region"):
        e.region_fold(p.capsule, entries, 0, 1, None, table[:7], bad_main, hist, *args)
    with pytest.raises(ValueError, match="tiles"):
        e.region_plan(3, 3, 9)
    with pytest.raises(ValueError, match="cells"):
        e.region_plan(4, 8, 2)


def test_worker_errors_reach_the_caller():
    def task(i):
        if i == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        threads.run_items(task, 10, 3)


def test_ctrl_c_stops_a_build():
    """SIGINT during a 5x5 6-tile build (181 M states) ends it with KeyboardInterrupt."""
    # A child starts with SIGINT ignored where the suite's process ignores it (a shell's
    # background job; a command run in-process ignores signals once it is over), and Python
    # leaves it so: the child asks for the usual KeyboardInterrupt itself.
    code = (
        "import signal, sys\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "from pdb_builder.region_bfs import region_bfs\n"
        "def said(d, new, s):\n"
        "    if d == 12: print('layer', flush=True)\n"
        "region_bfs('5x5', (1, 2, 5, 6, 7, 10), progress=False, on_layer=said)\n"
        "print('finished', flush=True)\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout.readline().strip() == "layer"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert "finished" not in out
    assert proc.returncode != 0 and "KeyboardInterrupt" in err


def test_fold_in_parts_is_the_whole_table():
    shape, tiles = Shape.parse("4x4"), (2, 3, 6, 7, 11)
    whole = rb.region_bfs(shape, tiles, twin=True, progress=False)
    found = rb.search(shape, tiles, progress=False, threads=2)
    parts = list(rb.fold_chunks(found, twin=True, placements=100_003))
    assert len(parts) > 5 and parts[0][0] == 0
    assert np.array_equal(np.concatenate([p[1] for p in parts]), whole.table)
    assert np.array_equal(np.concatenate([p[2] for p in parts]), whole.twin)
    assert sum(p[3].clipped for p in parts) == whole.clipped
    hist = sum(p[3].hist for p in parts)
    assert hist[: len(whole.counts)].tolist() == whole.counts.tolist()
