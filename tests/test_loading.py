"""How tables reach memory (solver.tables.loading): every way gives the same tables, the same
heuristic values and the same search results; the rule and its overrides; layouts remembered
so that a warm start needs no h5py."""

from __future__ import annotations

import os

import numpy as np
import pytest

from solver import api
from solver.core.board import goal_board
from solver.search import plans
from solver.tables import layouts, loading, names, pattern_db, store

MODES = ("map", "populate", "read")


@pytest.fixture(autouse=True)
def _fresh_rule():
    yield
    loading.prefer("auto", batch=False, searches=False)
    pattern_db.clear_cache()
    plans.clear_cache()


def opened(path, mode):
    store.clear_cache()
    return store.open_tables(path, {}, "fix", load=mode)


@pytest.mark.parametrize("name", ["exact-3x3.h5", "apdb-4x4-5-5-5.h5"])
def test_every_mode_gives_the_same_tables(tables_dir, name):
    path = tables_dir / name
    ref = opened(path, "map")
    for mode in MODES:
        tf = opened(path, mode)
        assert tf.load == mode and sorted(tf.tables) == sorted(ref.tables)
        for ds, table in tf.tables.items():
            assert not table.flags.writeable
            assert np.array_equal(table, ref.tables[ds])
            assert table.dtype == ref.tables[ds].dtype
        whole, offsets = store.joined(tf.tables.values())
        for table, off in zip(tf.tables.values(), offsets):
            assert np.array_equal(whole[off : off + table.nbytes], table.view(np.uint8).ravel())


@pytest.mark.parametrize("cores", [1, 2, 3])
def test_a_read_in_slices_on_threads_is_the_file(tmp_path, monkeypatch, cores):
    """A file read on one thread a core, in steps smaller than each thread's part, is byte for
    byte the file; one that ends early is a clear OSError (never a BufferError)."""
    data = np.random.default_rng(cores).integers(0, 256, 10_007, dtype=np.uint8).tobytes()
    path = tmp_path / "table.bin"
    path.write_bytes(data)
    monkeypatch.setattr(loading, "_READ_STEP", 1000)
    monkeypatch.setattr(loading.config, "usable_cores", lambda: cores)
    assert loading.load(path, len(data), "read").tobytes() == data
    assert loading.load(path, 5_000, "read").tobytes() == data[:5_000]
    with pytest.raises(OSError, match="ended after"):
        loading.load(path, len(data) + 3_000, "read")


def _populate_read_works(path) -> bool:
    """Whether this kernel faults a file mapping's pages in on request (Linux 5.14+)."""
    import mmap

    with open(path, "rb") as fh:
        mm = mmap.mmap(fh.fileno(), 0, prot=mmap.PROT_READ)
    try:
        mm.madvise(loading.MADV_POPULATE_READ)
        return True
    except OSError:
        return False
    finally:
        mm.close()


@pytest.mark.parametrize("mapped_kb", ["all", "a quarter", "unknown"])
def test_a_read_maps_the_file_where_the_page_cache_holds_it_in_huge_pages(
    tmp_path, monkeypatch, mapped_kb
):
    """``read`` keeps the file mapped where (as the system says) the mapping takes 2 MB pages
    of the page cache for half of it or more; else -- a quarter of it, or nothing said -- it
    reads the file into memory.  Either way the bytes are the file's, read-only."""
    data = np.random.default_rng(7).integers(0, 256, 64 * 4096 + 11, dtype=np.uint8).tobytes()
    path = tmp_path / "table.bin"
    path.write_bytes(data)
    if not _populate_read_works(path):
        pytest.skip("this kernel cannot fault a mapping in on request (Linux 5.14+)")
    monkeypatch.setattr(loading, "_HUGE_PAGE", 4096)  # pages of a size the test's file has
    said = {"all": len(data) >> 10, "a quarter": len(data) >> 12, "unknown": None}[mapped_kb]
    calls = iter([0, said, said] if said is not None else [None])
    monkeypatch.setattr(loading, "_pmd_mapped_kb", lambda: next(calls))
    read_in = []
    real_read = loading._read_anonymous
    monkeypatch.setattr(loading, "_read_anonymous", lambda *a: read_in.append(a) or real_read(*a))
    table = loading.load(path, len(data), "read")
    assert table.tobytes() == data and not table.flags.writeable
    assert bool(read_in) == (mapped_kb != "all")


def test_searches_agree_whatever_the_mode(tables_dir):
    boards = ["1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0"]
    rng = np.random.default_rng(4)
    start = np.array(goal_board("4x4").tiles)
    for _ in range(4):  # random walks: solvable, a few seconds at most with 5-5-5
        b = api.read_problem(" ".join(map(str, start)))[0]
        for _ in range(30):
            b = b.move(b.legal_moves()[rng.integers(len(b.legal_moves()))])
        boards.append(b.flat())
    answers = {}
    for mode in MODES:
        loading.prefer(mode)
        store.clear_cache()
        pattern_db.clear_cache()
        plans.clear_cache()
        answers[mode] = [
            (s.length, s.nodes_generated)
            for s in (api.solve(b, data_dir=tables_dir) for b in boards)
        ]
    assert answers["map"] == answers["populate"] == answers["read"]


def test_the_rule_and_its_overrides(monkeypatch):
    big, small = 1 << 30, 1 << 20
    monkeypatch.delenv("NPUZZLE_LOAD", raising=False)
    assert loading.choose(small) == loading.choose(big) == "map"  # one board: map
    loading.prefer(batch=True)
    assert loading.choose(small) == "read"  # a batch: small files are read
    assert loading.choose(big) == loading.BATCH_MODE == "populate"  # a batch of lookups
    loading.prefer(searches=True)
    assert loading.choose(big) == loading.SEARCH_BATCH_MODE == "read"  # a batch of searches
    loading.prefer(searches=False)
    monkeypatch.setenv("NPUZZLE_LOAD", "map")
    assert loading.choose(big) == "map" and loading.choose(small) == "map"
    monkeypatch.setenv("NPUZZLE_LOAD", "nonsense")
    assert loading.choose(big) == loading.BATCH_MODE  # an unknown value means auto
    loading.prefer("read")
    assert loading.choose(big) == "read"
    assert loading.choose(big, "populate") == "populate"  # the caller's word wins
    with pytest.raises(ValueError):
        loading.prefer("everything")


def test_the_cli_option_sets_the_rule(run_cli, tables_dir, monkeypatch):
    seen = []
    real = loading.load
    monkeypatch.setattr(loading, "load", lambda p, n, mode: seen.append(mode) or real(p, n, mode))
    store.clear_cache()
    r = run_cli(["distance", "8 6 7 2 5 4 3 0 1", "--load", "populate", "--data-dir", tables_dir])
    assert r.stdout == "31\n" and seen == ["populate"]


def test_a_batch_of_searches_reads_and_a_batch_of_lookups_populates(
    run_cli, tables_dir, monkeypatch
):
    """The auto rule as the commands apply it, every file taken for a big one: one board maps,
    ``heuristic -`` populates, ``solve -`` reads (huge pages pay for searches only)."""
    seen = []
    real = loading.load
    monkeypatch.setattr(loading, "load", lambda p, n, mode: seen.append(mode) or real(p, n, mode))
    monkeypatch.setattr(loading, "SMALL_FILE", 0)
    monkeypatch.delenv("NPUZZLE_LOAD", raising=False)
    board = "8 6 7 2 5 4 3 0 1"
    for args, mode in (
        (["solve", board], "map"),
        (["heuristic", "-"], "populate"),
        (["solve", "-"], "read"),
    ):
        store.clear_cache()
        pattern_db.clear_cache()
        plans.clear_cache()
        loading.prefer("auto", batch=False, searches=False)
        seen.clear()
        r = run_cli([*args, "--data-dir", tables_dir], input=board + "\n")
        assert r.exit_code == 0, r.output
        assert seen and set(seen) == {mode}, (args, seen)


def test_a_warm_start_reads_the_layout_without_h5py(tables_dir, monkeypatch, tmp_path):
    path = tables_dir / "exact-3x3.h5"
    first = opened(path, "map")
    import h5py

    def refuse(*a, **k):
        raise AssertionError("h5py was asked although the layout is known")

    monkeypatch.setattr(h5py, "File", refuse)
    store.clear_cache()  # forgets this process's memory: the layout comes from the cache file
    again = store.open_tables(path, {"kind": "exact"}, "fix", load="map")
    assert again.attrs == first.attrs and again.table_attrs == first.table_attrs
    for name in first.tables:
        assert np.array_equal(again.tables[name], first.tables[name])


def test_a_changed_file_has_its_layout_read_again(tables_dir, tmp_path, monkeypatch):
    import shutil

    copy = tmp_path / "exact-2x3.h5"
    shutil.copy(tables_dir / "exact-2x3.h5", copy)
    opened(copy, "map")
    cache = store._TRUSTED.record_path().parent
    key = str(copy.absolute())
    assert layouts.recall(cache, key, store.file_stamp(copy)) is not None
    os.utime(copy, ns=(1, 1))  # a new identity: the digest is checked again, the layout reread
    layouts.forget()
    assert layouts.recall(cache, key, store.file_stamp(copy)) is None
    assert opened(copy, "map").attrs["shape"] == "2x3"


def test_a_damaged_layout_record_is_ignored(tables_dir, monkeypatch):
    cache = store._TRUSTED.record_path().parent
    cache.mkdir(parents=True, exist_ok=True)
    (cache / layouts.FILE_NAME).write_text("[not a dict")
    layouts.forget()
    assert opened(tables_dir / "exact-3x3.h5", "read").attrs["kind"] == names.EXACT
