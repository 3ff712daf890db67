"""Additive pattern databases on disk and their lookups: admissibility against exact distances,
(in)consistency, reflection, Korf's instances, file format, errors, interrupted builds, CLI."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import assert_one_line_error, reference_file
from hypothesis import given, settings
from hypothesis import strategies as st
from naive_bfs import distances_from
from naive_pdb import linear_conflict as naive_lc
from naive_pdb import manhattan as naive_md
from naive_pdb import pattern_table

from pdb_builder.build_apdb import build_apdb
from solver.core import ranking
from solver.core.board import Board, Shape, goal_board, is_solvable
from solver.heuristics import evaluate, linear_conflict, manhattan
from solver.tables import pattern_db, store
from solver.tables.names import apdb_file_name
from solver.tables.partitions import parse_partition
from solver.tables.pattern_db import built_partitions

ROOT = Path(__file__).resolve().parent.parent
PARTITIONS_3X3 = ["4-4", "1,4,7/2,5,8/3,6", "1,2/3,4/5,6/7,8"]


def load_apdb(shape: Shape, partition=None, goal=None, data_dir=None):
    """:func:`solver.tables.pattern_db.load_apdb` with the partition written as a user writes
    it, parsed for the goal as the command line parses it."""
    tiles_of = goal if goal is not None else goal_board(shape)
    asked = parse_partition(partition, shape, tiles_of) if partition else None
    return pattern_db.load_apdb(shape, asked, goal, data_dir)


@pytest.fixture(scope="session")
def apdb_dir(tmp_path_factory):
    """3x3 databases for three partitions (and one for the blank-first goal), the 4x4 5-5-5
    database and a 2x3 one, built once (about two seconds)."""
    d = tmp_path_factory.mktemp("apdb")
    for part in PARTITIONS_3X3:
        build_apdb("3x3", part, None, d, progress=False)
    build_apdb("3x3", "4-4", goal_board("3x3", "blank-first"), d, progress=False)
    build_apdb("4x4", "5-5-5", None, d, progress=False)
    build_apdb("2x3", "3-2", None, d, progress=False)
    return d


@pytest.fixture(scope="session")
def all_3x3():
    """Every solvable 3x3 position with its exact distance, from a plain BFS."""
    dist = distances_from(goal_board("3x3").tiles, 3, 3)
    return np.array(list(dist.keys()), np.int64), np.array(list(dist.values()), np.int64)


def neighbours(boards: np.ndarray, rows: int, cols: int):
    """For each move direction: (legal, the boards after the move)."""
    blank = np.argmax(boards == 0, axis=1)
    idx = np.arange(len(boards))
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        r, c = blank // cols + dr, blank % cols + dc
        legal = (r >= 0) & (r < rows) & (c >= 0) & (c < cols)
        target = np.where(legal, r * cols + c, blank)
        moved = boards.copy()
        moved[idx, blank] = boards[idx, target]
        moved[idx, target] = 0
        yield legal, moved


# --- exhaustive checks on 3x3 -----------------------------------------------------------------


@pytest.mark.parametrize("partition", PARTITIONS_3X3)
def test_every_3x3_state_admissible_and_mean_ratio(apdb_dir, all_3x3, partition, capsys):
    boards, dist = all_3x3
    pdb = load_apdb(Shape(3, 3), partition, data_dir=apdb_dir)
    plain = pdb.values(boards, reflect=False)
    both = pdb.values(boards)
    assert (plain <= dist).all() and (both <= dist).all()
    assert (both >= plain).all() and both[dist == 0].tolist() == [0]
    moving = dist > 0
    ratio, ratio_r = (plain[moving] / dist[moving]).mean(), (both[moving] / dist[moving]).mean()
    with capsys.disabled():
        print(
            f"\n  3x3 {partition}: mean h/distance {ratio:.3f}, with reflection {ratio_r:.3f} "
            f"(mean h {both.mean():.2f}, mean distance {dist.mean():.2f})"
        )
    assert 0.6 < ratio <= ratio_r < 1


def test_vectorised_and_scalar_lookups_agree(apdb_dir, all_3x3):
    boards, _ = all_3x3
    pdb = load_apdb(Shape(3, 3), "4-4", data_dir=apdb_dir)
    sample = boards[::997]
    assert pdb.values(sample).tolist() == [pdb.value(tuple(b)) for b in sample]
    assert pdb.values(sample, reflect=False).tolist() == [
        pdb.value(Board(pdb.shape, tuple(int(t) for t in b)), reflect=False) for b in sample
    ]


def test_tables_are_the_naive_pattern_distances(apdb_dir):
    pdb = load_apdb(Shape(3, 3), "1,4,7/2,5,8/3,6", data_dir=apdb_dir)
    goal = goal_board("3x3")
    for pt in pdb.tables:
        for cells, d in pattern_table(goal.tiles, 3, 3, pt.tiles).items():
            assert pt.table[ranking.rank(np.array(cells), 9)] == d


@pytest.mark.parametrize("partition", PARTITIONS_3X3)
def test_consistency_measured(apdb_dir, all_3x3, partition, capsys):
    """A table indexed by the placement alone stores the minimum over the blank's regions, so
    one move can change it by more than one: the heuristic is admissible but NOT consistent.
    Measured here over every edge of the 3x3 graph (IDA* only needs admissibility; an A* with
    these tables must re-open closed states)."""
    boards, _ = all_3x3
    pdb = load_apdb(Shape(3, 3), partition, data_dir=apdb_dir)
    h = pdb.values(boards, reflect=False)
    edges = jumps = 0
    for legal, moved in neighbours(boards, 3, 3):
        step = np.abs(pdb.values(moved, reflect=False) - h)[legal]
        edges += step.size
        jumps += int((step > 1).sum())
    with capsys.disabled():
        print(
            f"\n  3x3 {partition}: {jumps:,} of {edges:,} edges change h by more than 1 "
            f"({100 * jumps / edges:.1f}%)"
        )
    assert 0 < jumps < 0.1 * edges


def test_an_inconsistent_edge_is_a_true_property_of_the_tables(apdb_dir):
    """1 3 6/4 5 _/7 8 2 -> 1 3 _/4 5 6/7 8 2: tile 6 slides down and pattern 5-8 drops from 5
    to 0, because tiles 5, 6, 7, 8 then wall off the goal's blank cell, whose one-cell region
    is already home -- the naive search says the same."""
    before, after = Board.parse("1 3 6/4 5 0/7 8 2"), Board.parse("1 3 0/4 5 6/7 8 2")
    naive = pattern_table(goal_board("3x3").tiles, 3, 3, (5, 6, 7, 8))
    assert naive[(4, 2, 6, 7)] == 5 and naive[(4, 5, 6, 7)] == 0
    pdb = load_apdb(Shape(3, 3), "4-4", data_dir=apdb_dir)
    assert pdb.value(before, reflect=False) - pdb.value(after, reflect=False) == 5
    dist = distances_from(goal_board("3x3").tiles, 3, 3)
    assert dist[before.tiles] == 9 and dist[after.tiles] == 10


def test_linear_conflict_admissible_and_dominates_manhattan(all_3x3):
    boards, dist = all_3x3
    for b, d in zip(boards[::61], dist[::61]):
        board = Board(Shape(3, 3), tuple(int(t) for t in b))
        md, lc = manhattan(board), linear_conflict(board)
        assert md <= lc <= d


# --- reflection --------------------------------------------------------------------------------


def test_reflection_maps_goal_to_goal_and_is_an_involution(apdb_dir):
    pdb = load_apdb(Shape(4, 4), "5-5-5", data_dir=apdb_dir)
    goal = goal_board("4x4")
    assert pdb.reflectable and pdb.reflected(goal) == goal
    b = Board.parse("14 13 15 7/11 12 9 5/6 0 2 1/4 8 10 3")
    assert pdb.reflected(pdb.reflected(b)) == b
    assert pdb.value(b) == pdb.value(pdb.reflected(b))
    assert load_apdb(
        Shape(3, 3), "4-4", goal_board("3x3", "blank-first"), apdb_dir
    ).reflectable  # blank on cell 0
    assert not load_apdb(Shape(2, 3), "3-2", None, apdb_dir).reflectable  # not square
    with pytest.raises(ValueError, match="reflection"):
        load_apdb(Shape(2, 3), "3-2", None, apdb_dir).reflected(Board.parse("1 2 3/4 0 5"))


def test_reflection_preserves_distance_on_3x3(all_3x3):
    dist = distances_from(goal_board("3x3").tiles, 3, 3)
    boards, _ = all_3x3
    from solver.tables.pattern_db import AdditivePDB

    mirror = AdditivePDB(Shape(3, 3), goal_board("3x3"), "x", Path("x"), (), [])
    for b in boards[::101]:
        t = tuple(int(v) for v in b)
        assert dist[mirror.reflected(t).tiles] == dist[t]


# --- 4x4 with 5-5-5 ----------------------------------------------------------------------------


def blank_first_to_blank_last(tiles: list[int]) -> list[int]:
    """The same position for the goal 1..15 0: rotate 180 degrees (cell c -> 15 - c) and
    rename tile t -> 16 - t (the blank stays 0)."""
    out = [0] * 16
    for c, t in enumerate(tiles):
        out[15 - c] = (16 - t) % 16
    return out


def read_rows(name: str):
    for line in reference_file(name).read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            yield line.split("\t")


def test_conversion_matches_the_two_columns_of_hardest80():
    rows = list(read_rows("hardest80.txt"))
    assert len(rows) == 17
    for _, first, _, last in rows:
        assert blank_first_to_blank_last([int(t) for t in first.split()]) == [
            int(t) for t in last.split()
        ]


def korf100():
    for _, tiles, length, *_ in read_rows("korf100.txt"):
        yield blank_first_to_blank_last([int(t) for t in tiles.split()]), int(length)


def test_555_never_exceeds_korfs_optimal_lengths(apdb_dir, capsys):
    pdb = load_apdb(Shape(4, 4), "5-5-5", data_dir=apdb_dir)
    cases = list(korf100()) + [
        ([int(t) for t in last.split()], int(n)) for _, _, n, last in read_rows("hardest80.txt")
    ]
    assert len(cases) == 117
    goal = goal_board("4x4")
    boards = np.array([c[0] for c in cases])
    lengths = np.array([c[1] for c in cases])
    assert all(is_solvable(Board(goal.shape, tuple(b)), goal) for b in cases[0][:1])
    plain, both = pdb.values(boards, reflect=False), pdb.values(boards)
    mirrored = pdb.values(pdb.reflected_many(boards), reflect=False)
    assert (plain <= lengths).all() and (mirrored <= lengths).all() and (both <= lengths).all()
    assert (both == np.maximum(plain, mirrored)).all()
    assert pdb.value(goal) == 0
    with capsys.disabled():
        r = both[:100] / lengths[:100]
        print(
            f"\n  Korf 100 with 5-5-5: mean h {both[:100].mean():.2f} (without reflection "
            f"{plain[:100].mean():.2f}) vs mean optimal {lengths[:100].mean():.2f}; "
            f"h/optimal {r.mean():.3f}"
        )


def test_555_file_format(apdb_dir):
    path = apdb_dir / "apdb-4x4-5-5-5.h5"
    attrs = store.read_root_attrs(path)
    assert attrs["kind"] == "additive-pdb" and attrs["shape"] == "4x4"
    assert attrs["partition"] == "5-5-5" and attrs["goal"] == goal_board("4x4").flat()
    assert attrs["patterns"] == "1,2,3,5,6/4,7,8,11,12/9,10,13,14,15"
    opened = store.open_tables(path, {"kind": "additive-pdb"}, "fix")
    assert sorted(opened.tables) == ["pattern_0", "pattern_1", "pattern_2"]
    for name, table in opened.tables.items():
        a = opened.table_attrs[name]
        assert table.dtype == np.uint8 and table.size == 524160  # 16!/11!
        assert len(a["tiles"]) == 5 and sum(a["counts"]) == table.size
        assert np.array_equal(np.bincount(table), a["counts"])
        assert not table.flags.writeable  # a view of the loaded file, never written
    assert store.verify(path) == []


def test_random_walks_on_4x4_consistency_rate(apdb_dir, capsys):
    """How often one 4x4 move changes the 5-5-5 value by more than one (random walks)."""
    pdb = load_apdb(Shape(4, 4), "5-5-5", data_dir=apdb_dir)
    rng = np.random.default_rng(7)
    board = np.array(goal_board("4x4").tiles)
    walk = [board.copy()]
    for _ in range(5000):
        legal = [m for m in neighbours(board[None, :], 4, 4) if m[0][0]]
        board = legal[rng.integers(len(legal))][1][0]
        walk.append(board.copy())
    h = pdb.values(np.array(walk))
    jumps = int((np.abs(np.diff(h)) > 1).sum())
    with capsys.disabled():
        print(
            f"\n  4x4 5-5-5 random walk: {jumps} of {len(walk) - 1} moves change h by more than 1"
        )
    assert jumps < 0.05 * len(walk)


# --- lookups by name, cache, errors ------------------------------------------------------------


def test_load_by_name_tiles_or_strongest(apdb_dir):
    a = load_apdb(Shape(3, 3), "1,4,7/2,5,8/3,6", data_dir=apdb_dir)
    assert load_apdb(Shape(3, 3), "3,6 / 7,4,1 / 8,5,2", data_dir=apdb_dir) is a
    assert load_apdb(Shape(3, 3), "1.4.7-2.5.8-3.6", data_dir=apdb_dir) is a
    assert load_apdb(Shape(3, 3), data_dir=apdb_dir).name == "4-4"  # the most entries
    assert built_partitions(Shape(3, 3), apdb_dir) == ["4-4", "1.4.7-2.5.8-3.6", "1.2-3.4-5.6-7.8"]
    assert built_partitions(Shape(3, 3), apdb_dir, goal_board("3x3", "blank-first")) == ["4-4"]
    assert built_partitions(Shape(4, 4), apdb_dir) == ["5-5-5"]
    assert built_partitions(Shape(2, 3), apdb_dir) == ["3-2"]
    assert built_partitions(Shape(3, 4), apdb_dir) == []
    assert (
        load_apdb(Shape(3, 3), "4-4", goal_board("3x3", "blank-first"), apdb_dir).path.name
        == "apdb-3x3-4-4-blank-first.h5"
    )


def test_missing_database_names_the_fix(apdb_dir, tmp_path):
    with pytest.raises(store.DatabaseMissing) as info:
        load_apdb(Shape(4, 4), "7-8", data_dir=apdb_dir)
    assert info.value.fix == f"build-pdb --shape 4x4 --partition 7-8 --data-dir {apdb_dir}"
    with pytest.raises(store.DatabaseMissing) as info:
        load_apdb(Shape(2, 3), data_dir=tmp_path)
    assert "build-pdb --shape 2x3 --partition 3-2" in str(info.value)
    with pytest.raises(store.DatabaseMissing) as info:
        load_apdb(Shape(3, 3), "4-4", goal_board("3x3", "spiral"), tmp_path)
    assert "--goal spiral" in info.value.fix
    with pytest.raises(store.DatabaseMissing) as info:
        load_apdb(Shape(3, 3), "4-4", goal_board("3x3", "1 2 3/4 5 6/7 0 8"), tmp_path)
    assert "--goal '1 2 3 4 5 6 7 0 8'" in info.value.fix


def test_damaged_or_mismatched_files_are_corrupt(apdb_dir, tmp_path):
    pattern_db.clear_cache()
    junk = tmp_path / "apdb-3x3-4-4.h5"
    junk.write_bytes(b"not an hdf5 file" * 100)
    with pytest.raises(store.DatabaseCorrupt) as info:
        load_apdb(Shape(3, 3), "4-4", data_dir=tmp_path)
    assert "--force" in info.value.fix
    # A file for another goal under this goal's name: the metadata check refuses it.
    other = tmp_path / "other"
    other.mkdir()
    (other / "apdb-3x3-4-4.h5").write_bytes((apdb_dir / "apdb-3x3-4-4-blank-first.h5").read_bytes())
    with pytest.raises(store.DatabaseCorrupt, match="goal"):
        load_apdb(Shape(3, 3), "4-4", data_dir=other)


def test_cache_returns_the_same_object_until_cleared(apdb_dir):
    a = load_apdb(Shape(3, 3), "4-4", data_dir=apdb_dir)
    assert load_apdb(Shape(3, 3), "4-4", None, apdb_dir) is a
    pattern_db.clear_cache()
    assert load_apdb(Shape(3, 3), "4-4", data_dir=apdb_dir) is not a


def test_wrong_board_sizes_are_refused(apdb_dir):
    pdb = load_apdb(Shape(3, 3), "4-4", data_dir=apdb_dir)
    with pytest.raises(ValueError):
        pdb.value(goal_board("4x4"))
    with pytest.raises(ValueError):
        pdb.values(np.zeros((2, 16), np.int64))


def test_evaluate_reduces_other_goals_to_the_default_database(apdb_dir, tmp_path):
    only_default = tmp_path / "d"
    build_apdb("3x3", "4-4", None, only_default, progress=False)
    goal = goal_board("3x3", "blank-first")  # a corner blank: a rotation reaches the default
    dist = distances_from(goal.tiles, 3, 3)
    for tiles, d in list(dist.items())[::4001]:
        ans = evaluate(Board(goal.shape, tiles), goal, data_dir=only_default)
        assert ans["h"] <= d and ans["partition"] == "4-4"
        assert ans["database"] == "apdb-3x3-4-4.h5"
        assert ans["manhattan"] <= ans["linear_conflict"] <= d
    with pytest.raises(store.DatabaseMissing, match="goal 1 2 3 8 0 4 7 6 5"):  # centre blank
        spiral = goal_board("3x3", "spiral")
        evaluate(spiral, spiral, data_dir=only_default)


# --- Manhattan and linear conflict against brute force -----------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_manhattan_and_linear_conflict_match_brute_force(data):
    rows, cols = data.draw(st.sampled_from([(2, 2), (2, 3), (3, 3), (3, 4), (4, 4), (5, 5)]))
    shape = Shape(rows, cols)
    board = Board(shape, tuple(data.draw(st.permutations(range(shape.size)))))
    goal = Board(shape, tuple(data.draw(st.permutations(range(shape.size)))))
    assert manhattan(board, goal) == naive_md(board.tiles, goal.tiles, cols)
    assert linear_conflict(board, goal) == naive_lc(board.tiles, goal.tiles, rows, cols)


def test_linear_conflict_counts_fewest_removals_not_pairs():
    # Row 0 holds 3 2 1: three conflicting pairs, but removing two tiles suffices: +4, not +6.
    assert linear_conflict(Board.parse("3 2 1/4 5 6/7 8 0")) == 4 + 4
    assert linear_conflict(goal_board("4x4")) == 0


# --- building ----------------------------------------------------------------------------------


def test_build_skips_existing_files_and_names_goals(tmp_path):
    first = build_apdb("2x3", "3-2", None, tmp_path, progress=False)
    assert not first["skipped"] and first["file"] == "apdb-2x3-3-2.h5"
    assert first["entries"] == 6 * 5 * 4 + 6 * 5 and first["peak_mb"] > 0
    assert build_apdb("2x3", "3-2", None, tmp_path, progress=False)["skipped"]
    assert not build_apdb("2x3", "3-2", None, tmp_path, force=True, progress=False)["skipped"]
    assert (
        apdb_file_name("4x4", "7-8", goal_board("4x4", "blank-first"))
        == "apdb-4x4-7-8-blank-first.h5"
    )
    odd = Board.parse("2 1 3/4 5 6/7 8 0")
    assert apdb_file_name("3x3", "4-4", odd).startswith("apdb-3x3-4-4-goal-")


def test_unwritable_data_dir_is_a_data_dir_error(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    with pytest.raises(store.DataDirError):
        build_apdb("2x3", "3-2", None, blocker / "sub", progress=False)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT])
def test_an_interrupted_build_leaves_the_old_file_and_no_partial_one(tmp_path, sig):
    """build-pdb stopped while it searches its first pattern (it says so on stderr: the
    event waited for) keeps the previous file; Ctrl-C also leaves no temporary behind."""
    from conftest import watched

    final = tmp_path / "apdb-4x4-6-6-3.h5"
    final.write_bytes(b"the previous database")
    args = ["--shape", "4x4", "--partition", "6-6-3", "--force", "--data-dir", str(tmp_path)]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    run = watched([sys.executable, "-m", "pdb_builder", *args], env=env)
    run.wait_for(b"pattern 1/3")
    run.proc.send_signal(sig)
    assert run.proc.wait(timeout=120) != 0
    assert final.read_bytes() == b"the previous database"
    if sig == signal.SIGINT:
        assert run.proc.returncode == 130
        assert list(tmp_path.glob("*.tmp-*")) == []  # cleaned up on the way out
        err = run.output().decode()
        assert err.endswith("build-pdb: interrupted; no partial file was left behind\n"), err
    # A new build clears any stale temporary and replaces the file.
    build_apdb("2x3", "3-2", None, tmp_path, progress=False)
    assert list(tmp_path.glob("*.tmp-*")) == []


# --- the CLI ---------------------------------------------------------------------------------------


def test_cli_prints_the_value(run_cli, apdb_dir):
    board = "8 6 7 2 5 4 3 0 1"
    r = run_cli(["heuristic", *board.split(), "--data-dir", apdb_dir])
    assert r.exit_code == 0, r.output
    pdb = load_apdb(Shape(3, 3), data_dir=apdb_dir)
    assert r.output.strip() == str(pdb.value(tuple(int(t) for t in board.split())))
    r = run_cli(
        [
            "heuristic",
            board,
            "--partition",
            "1,4,7/2,5,8/3,6",
            "--no-reflect",
            "--json",
            "--data-dir",
            apdb_dir,
        ]
    )
    ans = json.loads(r.output)
    assert ans["partition"] == "1.4.7-2.5.8-3.6" and ans["reflect"] is False
    assert ans["h"] == ans["plain"] == sum(p["h"] for p in ans["patterns"])
    assert ans["h"] <= 31 and ans["manhattan"] == 21


def test_cli_batch_and_errors(run_cli, apdb_dir, tmp_path):
    lines = "1 2 3/4 5 6/7 8 0\n\n8 6 7 2 5 4 3 0 1\n1 2 3/4 5 6/8 7 0\nnonsense\n"
    r = run_cli(["heuristic", "-", "--data-dir", apdb_dir], input=lines)
    out = r.output.splitlines()
    assert out[0] == "0" and out[1] == "" and int(out[2]) > 0
    assert out[3] == "unsolvable" and out[4].startswith("error:")
    assert r.exit_code == 2
    r = run_cli(["heuristic", "1 2 3/4 5 6/8 7 0", "--data-dir", apdb_dir])
    assert r.exit_code == 1
    r = run_cli(["heuristic", "1 2 3/4 5 6/7 8 0", "--partition", "6-6-3", "--data-dir", tmp_path])
    assert_one_line_error(r, 2)  # not a partition of the 8-puzzle's tiles
    assert "neither a preset for 3x3 (4-4)" in r.stderr
    r = run_cli(["heuristic", "1 2 3/4 5 6/7 8 0", "--partition", "4-4", "--data-dir", tmp_path])
    assert_one_line_error(r, 3)
    assert "build-pdb --shape 3x3 --partition 4-4" in r.stderr
    r = run_cli(["heuristic", "1 2 3 4 5", "--data-dir", apdb_dir])
    assert_one_line_error(r, 2)
