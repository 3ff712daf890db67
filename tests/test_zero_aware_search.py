"""Zero-aware databases in the product: ``build-pdb --zero-aware`` writes a partition's
two-class twin (:mod:`pdb_builder.zero_aware`), which a search reads where it is built.

They must be admissible, never below the additive database, and IDA* with them must stay optimal: on every 8-puzzle board's value,
against the exact distances on random boards of three shapes and two goals, and on Korf's
instances with one and two threads."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import assert_one_line_error
from naive_bfs import distances_from

from pdb_builder.build_apdb import build_apdb
from pdb_builder.cli import main as build_main
from pdb_builder.zero_aware import build_zero_aware, pack_classes
from solver import api
from solver.core.board import Board, Shape, goal_board
from solver.core.regions import (
    HIGHER_BY,
    MAIN,
    OTHER,
    VALUE_MASK,
    binomials,
    class_value,
    colex_tables,
    label_regions,
    main_by_mask,
    main_region_masks,
    set_rank,
)
from solver.search import plans
from solver.tables import pattern_db, store

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

SHAPE3 = Shape.parse("3x3")
HALVES = "1,2,3,4/5,6,7,8"


def _data(tmp_path_factory, shape: str, partition: str, goal=None) -> Path:
    d = tmp_path_factory.mktemp("zpdb")
    build_apdb(shape, partition, goal, d, progress=False)
    build_zero_aware(shape, partition, goal, d, progress=False)
    return d


@pytest.fixture(scope="module")
def eight(tmp_path_factory):
    return _data(tmp_path_factory, "3x3", HALVES)


def test_a_packed_byte_gives_each_class_its_distance_or_a_lower_bound():
    """Every pair of distances of up to 63: the packed byte gives each class its own distance
    where the two are equal or differ by HIGHER_BY, else at most its distance and at least
    the pair's minimum; the pairs kept lower are counted."""
    a, b = np.divmod(np.arange(64 * 64), 64)
    pairs = np.stack([a, b], axis=1).astype(np.uint8).ravel()
    packed, clipped = pack_classes(pairs)
    exact_pairs = (a == b) | (np.abs(a - b) == HIGHER_BY)
    assert clipped == int(np.count_nonzero(~exact_pairs))
    for e, main, other in zip(packed.tolist(), a.tolist(), b.tolist()):
        assert e & VALUE_MASK == min(main, other)
        for cls, exact in ((MAIN, main), (OTHER, other)):
            got = int(class_value(e, cls))
            if main == other or abs(main - other) == HIGHER_BY:
                assert got == exact
            assert min(main, other) <= got <= exact
    with pytest.raises(ValueError):
        pack_classes(np.array([64, 3], np.uint8))


def _plans(data: Path, goal: Board) -> tuple[plans.Plan, plans.Plan]:
    pdb = pattern_db.database_for(goal.shape, goal, None, data)[0]
    return plans.pdb_plan_from([pdb], True), plans.pdb_plan_from([pdb], True, zero_aware=True)


def test_main_region_masks_follow_the_labels():
    labels, nreg, main = label_regions(3, 3, 2)
    masks = main_region_masks(3, 3, 2)
    for s in range(len(masks)):
        cells = [c for c in range(9) if labels[s, c] == main[s]]
        assert masks[s] == sum(1 << c for c in cells)
        sizes = [int((labels[s] == r).sum()) for r in range(nreg[s])]
        assert len(cells) == max(sizes)


@pytest.mark.parametrize(("rows", "cols"), [(3, 3), (2, 4), (4, 4)])
def test_the_table_by_mask_agrees_with_the_tables_by_rank(rows, cols):
    """Small boards find the main region by the cell set's mask, larger ones by its rank:
    one definition, two layouts."""
    n = rows * cols
    direct = main_by_mask(rows, cols)
    binom = binomials(n)
    for k in range(1, min(8, n - 1) + 1):
        ranked = main_region_masks(rows, cols, k)
        for mask in range(1 << n):
            if bin(mask).count("1") == k:
                assert direct[mask] == ranked[set_rank(mask, n, binom)], (k, mask)


def test_the_byte_tables_rank_cell_sets_as_set_rank_does():
    """The kernel ranks a cell set of a board over 16 cells a byte at a time."""
    part, ones = colex_tables()
    binom = binomials(32)
    rng = random.Random(5)
    for _ in range(3000):
        k = rng.randint(1, 8)
        mask = sum(1 << c for c in rng.sample(range(32), k))
        rank, seen = 0, 0
        for j in range(4):
            byte = (mask >> (8 * j)) & 255
            rank += int(part[j, seen, byte])
            seen += int(ones[byte])
        assert rank == set_rank(mask, 32, binom), mask


def test_a_board_over_16_cells_searches_by_rank(tmp_path_factory):
    """3x6 (18 cells): the class comes from the cell set's rank; the answers stay those of
    the additive search, and the heuristic between the additive one and the length."""
    partition = "1,2,3/4,5,6/7,8,9/10,11,12/13,14,15/16,17"
    data = _data(tmp_path_factory, "3x6", partition)
    goal = goal_board(Shape.parse("3x6"))
    plain, zero = _plans(data, goal)
    assert zero.zero.chunks == (0, 1, 2)
    rng = random.Random(18)
    for _ in range(12):
        board = goal
        for _ in range(26):
            board = board.move(rng.choice(board.legal_moves()))
        runs = [
            api.solve(board, algorithm="idastar", partition=partition, zero_aware=z, data_dir=data)
            for z in (False, True)
        ]
        assert runs[0].length == runs[1].length and "zero-aware" in runs[1].heuristic
        assert plain.h(board.tiles) <= zero.h(board.tiles) <= runs[0].length


def test_on_every_8_puzzle_board_the_value_is_admissible_and_never_lower(eight):
    truth = distances_from(goal_board(SHAPE3).tiles, 3, 3)
    plain, zero = _plans(eight, goal_board(SHAPE3))
    assert zero.zero is not None and "zero-aware" in zero.name
    higher = 0
    for state, dist in truth.items():
        a, b = plain.h(state), zero.h(state)
        assert a <= b <= dist, (state, a, b, dist)
        higher += b > a
    assert higher > 10_000, higher  # the blank's region matters, or nothing was tested


@pytest.mark.parametrize(
    ("shape", "partition", "goal"),
    [
        ("3x3", HALVES, None),
        ("3x3", "1,2,3/4,5,6,7,8", "blank-first"),
        ("2x4", "1,2,3/4,5,6,7", None),
        ("4x2", "1,2,3,4/5,6,7", "blank-first"),
    ],
)
def test_idastar_with_zero_aware_tables_is_optimal(tmp_path_factory, shape, partition, goal):
    data = _data(tmp_path_factory, shape, partition, goal)
    goal_b = goal_board(Shape.parse(shape), goal)
    truth = distances_from(goal_b.tiles, goal_b.shape.rows, goal_b.shape.cols)
    rng = random.Random(len(partition))
    for state in rng.sample(sorted(truth), 60):
        sol = api.solve(
            Board(goal_b.shape, state),
            goal,
            algorithm="idastar",
            partition=partition,
            zero_aware=True,
            data_dir=data,
        )  # api.solve replays the moves onto the goal
        assert sol.length == truth[state], (state, sol.moves)
        assert "zero-aware" in sol.heuristic


@pytest.fixture(scope="module")
def fifteen(twin_dir):
    return twin_dir


@pytest.mark.parametrize("jobs", [1, 2])
def test_korf_instances_with_fewer_nodes(fifteen, jobs):
    from test_idastar import korf_instances

    more = fewer = 0
    for _, tiles, length in korf_instances(4):
        runs = [
            api.solve(
                tiles,
                "blank-first",
                algorithm="idastar",
                partition="5-5-5",
                zero_aware=zero,
                jobs=jobs,
                data_dir=fifteen,
            )
            for zero in (False, True)
        ]
        assert [r.length for r in runs] == [length, length]
        fewer += runs[1].nodes_generated < runs[0].nodes_generated
        more += runs[1].nodes_generated
    assert fewer >= 3, "zero-aware tables should save nodes on nearly every board"


def test_a_missing_twin_is_passed_over_in_silence(pdb_dir):
    """``zero_aware`` reads the twins where they are built; where one is not, the search
    reads the additive file and says nothing about it."""
    sol = api.solve(
        "1 2 3 4 5 6 0 7 8", algorithm="idastar", partition="4-4", zero_aware=True, data_dir=pdb_dir
    )
    assert sol.length == 2 and "zero-aware" not in sol.heuristic
    assert sol.notice is None


def test_the_cli_builds_and_solves_with_the_twin(tmp_path, run_cli):
    runner = CliRunner()
    args = ["--shape", "3x3", "--partition", HALVES, "--data-dir", tmp_path, "-q"]
    assert runner.invoke(build_main, [str(a) for a in args]).exit_code == 0
    r = runner.invoke(build_main, [str(a) for a in [*args, "--zero-aware"]])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "zpdb-3x3-4-4.h5").exists()  # the partition's preset name
    board = "8 6 7 2 5 4 3 0 1"
    r = run_cli(
        ["solve", board, "--algorithm", "idastar", "--partition", HALVES,
         "--json", "--data-dir", tmp_path]
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["length"] == 31 and out["optimal"]
    assert out["heuristic"] == "pdb 4-4 zero-aware + reflection"
    assert out["database"] == "zpdb-3x3-4-4.h5"


def test_build_pdb_zero_aware_needs_a_partition(tmp_path):
    r = CliRunner().invoke(
        build_main, ["--shape", "3x3", "--zero-aware", "--data-dir", str(tmp_path)]
    )
    assert_one_line_error(r, 2)
    assert not list(tmp_path.iterdir())


def test_list_and_verify_show_and_audit_a_twin(tmp_path):
    """``build-pdb --list`` shows a twin, ``--verify`` audits it: a twin whose lower distances
    are no longer the additive table -- written anew, so its digest is sound -- is exit 3 with the
    command that rebuilds it."""
    import h5py

    from solver.tables import audit

    build_apdb("3x3", HALVES, None, tmp_path, progress=False)
    build_zero_aware("3x3", HALVES, None, tmp_path, progress=False)
    runner = CliRunner()
    twin = tmp_path / "zpdb-3x3-4-4.h5"
    r = runner.invoke(build_main, ["--list", "--data-dir", str(tmp_path)])
    assert twin.name in r.stdout and "zero-aware-pdb" in r.stdout
    assert runner.invoke(build_main, ["--verify", "--data-dir", str(tmp_path)]).exit_code == 0
    with h5py.File(twin, "r") as f:
        attrs = {k: store._decode(v) for k, v in f.attrs.items()}
        tables = {k: (np.array(f[k]), dict(f[k].attrs)) for k in f}
    packed, ds_attrs = tables["pattern_0"]
    i = int(np.flatnonzero(packed & VALUE_MASK)[0])
    packed[i] += 1  # the lower distance one more: no longer the additive entry
    twin.unlink()
    keep = {k: attrs[k] for k in ("kind", "shape", "goal", "partition", "patterns", "classes")}
    with store.atomic_h5(twin, keep) as f:
        for name, (table, a) in tables.items():
            store.write_table(f, name, table, tiles=a["tiles"], classes=2)
    assert any("lower distances are not" in p for p in audit.audit(twin))
    r = runner.invoke(build_main, ["--verify", "--data-dir", str(tmp_path)])
    assert r.exit_code == 3 and "lower distances are not" in r.stdout
    assert "--partition 4-4 --zero-aware --data-dir" in r.output  # the command rebuilding it


def test_a_twin_of_the_wrong_size_is_refused_with_its_command(tmp_path):
    """E.g. a twin of the first format (two bytes a placement, no longer read)."""

    build_apdb("3x3", HALVES, None, tmp_path, progress=False)
    attrs = {"kind": "zero-aware-pdb", "shape": "3x3", "goal": goal_board(SHAPE3).flat()}
    with store.atomic_h5(tmp_path / "zpdb-3x3-4-4.h5", {**attrs, "partition": "4-4"}) as f:
        for i, tiles in enumerate(((1, 2, 3, 4), (5, 6, 7, 8))):
            store.write_table(f, f"pattern_{i}", np.zeros(6048, np.uint8), tiles=np.array(tiles))
    with pytest.raises(store.DatabaseCorrupt) as info:
        api.solve("8 6 7 2 5 4 3 0 1", partition=HALVES, zero_aware=True, data_dir=tmp_path)
    assert "3024 uint8 entries" in str(info.value)
    assert "--partition 4-4 --zero-aware" in info.value.fix and "--force" in info.value.fix
    assert f"--data-dir {tmp_path}" in info.value.fix  # the directory it was found in


def test_a_search_over_a_twin_maps_its_additive_file_and_reads_only_the_twin(eight, monkeypatch):
    """A batch of searches reads its tables into memory; with a twin built, the additive
    file's bytes are never needed, so it is only mapped (not read as well); without the
    twin (``zero_aware=False``) the additive file is read."""
    from solver.tables import loading

    seen = []
    real = loading.load
    monkeypatch.setattr(
        loading, "load", lambda p, n, mode: seen.append((p.name[:4], mode)) or real(p, n, mode)
    )
    monkeypatch.setattr(loading, "SMALL_FILE", 0)
    monkeypatch.delenv("NPUZZLE_LOAD", raising=False)
    try:
        for zero, want in (
            (True, {("apdb", "map"), ("zpdb", "read")}),
            (False, {("apdb", "read")}),
        ):
            store.clear_cache()
            pattern_db.clear_cache()
            plans.clear_cache()
            loading.prefer("auto", batch=True, searches=True)
            seen.clear()
            s = api.solve("8 6 7 2 5 4 3 0 1", partition=HALVES, zero_aware=zero, data_dir=eight)
            assert s.length == 31 and set(seen) == want, (zero, seen)
    finally:
        loading.prefer("auto", batch=False, searches=False)
        store.clear_cache()
        pattern_db.clear_cache()
        plans.clear_cache()
