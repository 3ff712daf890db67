"""Arrays kept in the cache directory (solver.tables.kept_arrays): read back as written, made
again when damaged, and the zero-aware search's region tables kept are the ones numpy makes."""

from __future__ import annotations

import numpy as np
import pytest

from solver.core import regions
from solver.core.board import Shape
from solver.search import kernel_data
from solver.tables import kept_arrays


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("NPUZZLE_CACHE", str(tmp_path))


@pytest.mark.parametrize("dtype", [np.uint16, np.int32, np.int64, np.uint8])
def test_an_array_is_read_back_as_it_was_made(dtype):
    made = np.arange(60, dtype=dtype).reshape(3, 4, 5)
    calls = []

    def make():
        calls.append(1)
        return made

    first = kept_arrays.kept(f"t-{np.dtype(dtype).name}", make)
    again = kept_arrays.kept(f"t-{np.dtype(dtype).name}", make)
    assert calls == [1]  # made once, then read
    for got in (first, again):
        assert got.dtype == made.dtype and np.array_equal(got, made)
        assert not got.flags.writeable


def test_a_damaged_or_cut_array_is_made_again():
    made = np.arange(1000, dtype=np.int64)
    kept_arrays.kept("d", lambda: made)
    path = kept_arrays.path_of("d")
    whole = path.read_bytes()
    for damaged in (whole[:-1] + bytes([whole[-1] ^ 4]), whole[:-8], b"", b"npuzzle-array x"):
        path.write_bytes(damaged)
        assert kept_arrays.read(path) is None
        assert np.array_equal(kept_arrays.kept("d", lambda: made), made)
        assert path.read_bytes() == whole  # and kept again


def test_the_region_tables_read_back_are_the_ones_numpy_makes(tmp_path):
    made = regions.main_by_mask(4, 4)
    for _ in range(2):  # made and kept, then read
        got = kernel_data._kept_regions("4x4", lambda: regions.main_by_mask(4, 4))
        assert got.dtype == made.dtype and np.array_equal(got, made)
    assert len(list(tmp_path.glob("regions-4x4-*.arr"))) == 1


def test_a_changed_way_of_making_region_tables_is_another_name(tmp_path, monkeypatch):
    kernel_data._kept_regions("4x4", lambda: regions.main_by_mask(4, 4))
    source = tmp_path / "regions.py"
    source.write_text("# another way of making them\n")
    monkeypatch.setattr(regions, "__file__", str(source))
    other = np.zeros(4, np.uint16)
    assert np.array_equal(kernel_data._kept_regions("4x4", lambda: other), other)
    assert len(list(tmp_path.glob("regions-4x4-*.arr"))) == 2


def test_a_zero_aware_plan_reads_its_kept_tables():
    shape = Shape(5, 5)
    main, _, _ = kernel_data._main_tables(shape, [_Lookup([[0, 1, 2, 3, 4, 5]])])
    assert np.array_equal(main, regions.main_region_masks(5, 5, 6))
    again, _, _ = kernel_data._main_tables(shape, [_Lookup([[0, 1, 2, 3, 4, 5]])])
    assert np.array_equal(again, main)


class _Lookup:
    """What _main_tables reads of a lookup: its patterns."""

    def __init__(self, patterns):
        self.patterns = patterns
