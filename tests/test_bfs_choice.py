"""Which BFS a pattern gets, and the budget check that prices that search.

``pattern_bfs.uses_region`` decides once: the region BFS for every pattern it can take (up to
8 tiles), the placement BFS beyond.  The budget check must use the same arithmetic, so a
5x5 partition with a 7-tile pattern (about 27.5 GB by the placement BFS's model) is accepted
on a 24 GiB machine; and the files built through ``build_apdb``, ``build_with_twin`` and
``build-pdb`` must hold the bytes the placement BFS gives (and, on small patterns, those of
the naive reference)."""

from __future__ import annotations

import h5py
import numpy as np
import pytest
from click.testing import CliRunner
from naive_pdb import pattern_table

from pdb_builder import budget, build, region_bfs
from pdb_builder import cli as build_cli
from pdb_builder import pattern_bfs as pb
from pdb_builder.build_apdb import build_apdb
from pdb_builder.zero_aware import build_with_twin, pack_classes, zero_aware_tables
from solver.core import ranking
from solver.core.board import Shape, goal_board
from solver.tables.partitions import parse_partition

SEVEN = "1,2,5,6,7,10,11/3,4,8,9,13,14/12,15,16,17,20,21/18,19,22,23,24"
GIB24 = 24 * 2**30


def test_the_region_bfs_takes_every_pattern_it_can():
    assert pb.uses_region("5x5", 7) and pb.uses_region("5x5", 6) and pb.uses_region("4x4", 8)
    assert pb.uses_region("3x3", 2) and pb.uses_region("3x3", 8)  # small and full patterns too
    assert not pb.uses_region("4x4", 9)  # beyond region_bfs.MAX_TILES: the placement BFS


def test_the_budget_prices_the_chosen_search():
    shape = Shape.parse("5x5")
    entries = region_bfs.entry_count(shape, 7)
    assert pb.pattern_bytes(shape, 7) == budget.region_bytes(25, 7, entries)
    assert pb.pattern_bytes(shape, 7) == region_bfs.memory_bytes(shape, 7)  # one model
    assert pb.pattern_bytes("4x4", 9) == budget.placement_bytes(16, 9)
    memory, disk = pb.partition_cost(shape, [7, 6, 6, 5])
    assert memory <= 12 * 10**9 and memory == pb.partition_cost(shape, [7, 6, 6, 5], 2)[0]
    assert disk == sum(ranking.count_placements(25, k) for k in (7, 6, 6, 5)) + (1 << 20)
    assert budget.pattern_cost(25, [7, 6, 6, 5])[0] > GIB24  # the placement BFS's: refused


@pytest.mark.parametrize("zero_aware", [False, True])
def test_the_seven_tile_partition_fits_24_gib(tmp_path, monkeypatch, zero_aware):
    monkeypatch.setattr(budget, "available_memory", lambda: GIB24)
    shape = Shape.parse("5x5")
    goal = goal_board(shape, "blank-first")
    parsed = parse_partition(SEVEN, shape, goal)
    assert [len(p) for p in parsed] == [7, 6, 6, 5]
    assert all(pb.uses_region(shape, len(p)) for p in parsed)
    line = build.preflight(shape, SEVEN, goal, tmp_path, zero_aware=zero_aware)
    assert "needs about 8.3 GB of memory (25.8 GB available)" in line, line
    assert "and 2.7 GB of disk" in line


def test_build_pdb_says_what_it_needs_before_building(tmp_path, monkeypatch):
    """The line comes before any work: here the build stops at its first search."""
    monkeypatch.setattr(budget, "available_memory", lambda: GIB24)

    def stop(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(region_bfs, "search", stop)
    args = ["--shape", "5x5", "--partition", SEVEN, "--goal", "blank-first"]
    r = CliRunner().invoke(build_cli.main, [*args, "--data-dir", str(tmp_path)])
    lines = r.stderr.splitlines()
    assert lines[0].startswith("partition ") and "needs about 8.3 GB of memory" in lines[0]
    assert lines[1] == f"building into {tmp_path}" and r.exit_code != 0


def test_bfs_pattern_goes_where_uses_region_says(monkeypatch):
    calls = []
    real = region_bfs.region_bfs
    monkeypatch.setattr(region_bfs, "region_bfs", lambda *a, **k: calls.append(a) or real(*a, **k))
    forced = pb.bfs_pattern("3x3", (1, 2, 3, 4), progress=False, region=False)
    assert not calls
    chosen = pb.bfs_pattern("3x3", (1, 2, 3, 4), progress=False)
    assert len(calls) == 1
    assert np.array_equal(chosen.table, forced.table)
    assert chosen.counts.tolist() == forced.counts.tolist()
    assert (chosen.unreached, chosen.states) == (forced.unreached, forced.states)
    assert [x[:3] for x in chosen.layers] == [x[:3] for x in forced.layers]
    with pytest.raises(ValueError, match="after_layer"):
        pb.bfs_pattern("3x3", (1, 2), progress=False, after_layer=print, region=True)


@pytest.mark.parametrize(
    "shape, partition, goal",
    [
        ("3x3", "4-4", None),
        ("2x4", "1,2,3/4,5,6,7", "blank-first"),
        ("3x3", "1,5,8/2,3,4,6,7", None),
    ],
)
def test_builds_hold_the_placement_bfs_bytes(tmp_path, shape, partition, goal):
    """build_apdb, build_with_twin and build-pdb (all through the region BFS here) write the
    tables the placement BFS and its zero-aware twin give, and the naive reference's."""
    s = Shape.parse(shape)
    g = goal_board(s, goal)
    parsed = parse_partition(partition, s, g)
    assert all(pb.uses_region(s, len(p)) for p in parsed)
    apdb = build_apdb(s, partition, g, tmp_path / "a", progress=False)
    additive, twin = build_with_twin(s, partition, g, tmp_path / "b", progress=False)
    args = ["--shape", shape, "--partition", partition, "--quiet", "--zero-aware"]
    args += ["--goal", goal] if goal else []
    r = CliRunner().invoke(build_cli.main, [*args, "--data-dir", str(tmp_path / "c")])
    assert r.exit_code == 0, r.output
    cli_twin = tmp_path / "c" / twin["file"]
    for i, pattern in enumerate(parsed):
        old = pb.bfs_pattern(s, pattern, g, progress=False, region=False)
        pairs, _ = zero_aware_tables(s, pattern, g, progress=False)
        packed, clipped = pack_classes(pairs)
        naive = pattern_table(g.tiles, s.rows, s.cols, tuple(pattern))
        for path in (apdb["path"], additive["path"]):
            with h5py.File(path, "r") as f:
                table = f[f"pattern_{i}"][...]
                assert np.array_equal(table, old.table)
                assert f[f"pattern_{i}"].attrs["counts"].tolist() == old.counts.tolist()
                assert int(f[f"pattern_{i}"].attrs["states"]) == old.states
        for path in (twin["path"], cli_twin):
            with h5py.File(path, "r") as f:
                assert np.array_equal(f[f"pattern_{i}"][...], packed)
                assert int(f[f"pattern_{i}"].attrs["clipped"]) == clipped
        for cells, h in naive.items():
            assert old.table[ranking.rank(np.array(cells, np.int64), s.size)] == h


def test_both_searches_build_the_same_files(tmp_path, monkeypatch):
    """The same build with every pattern sent to the placement BFS instead: the same bytes,
    the same twin means (each read from the packed bytes, as a search reads them)."""
    from pdb_builder import zero_aware

    region = build_with_twin("3x3", "1,2,3,4/5,6,7,8", None, tmp_path / "r", progress=False)
    monkeypatch.setattr(pb, "uses_region", lambda shape, k: False)
    monkeypatch.setattr(zero_aware, "uses_region", lambda shape, k: False)
    placement = build_with_twin("3x3", "1,2,3,4/5,6,7,8", None, tmp_path / "p", progress=False)
    for a, b in zip(region, placement, strict=True):
        assert a["mean_h"] == pytest.approx(b["mean_h"])
        with h5py.File(a["path"], "r") as fa, h5py.File(b["path"], "r") as fb:
            for name in ("pattern_0", "pattern_1"):
                assert np.array_equal(fa[name][...], fb[name][...])
                ka, kb = dict(fa[name].attrs), dict(fb[name].attrs)
                assert ka.keys() == kb.keys()
                assert all(np.array_equal(ka[key], kb[key]) for key in ka)
