"""The kernels' raw table access (solver/search/prefetch.py): the cache hint compiles to a
real prefetch instruction and changes nothing a function computes; the read from one of
several tables reads the right one and takes no reference to any."""

from __future__ import annotations

import platform

import numpy as np
import pytest
from numba import njit

from solver.search.kernels import _hint, _read
from solver.search.prefetch import prefetch


@njit(cache=False)
def _hinted_sum(table, where):
    total = 0
    for i in range(where.shape[0]):
        prefetch(table, where[i])
    for i in range(where.shape[0]):
        total += table[where[i]]
    return total


def test_a_hint_changes_no_result():
    rng = np.random.default_rng(7)
    table = rng.integers(0, 255, 1 << 20, dtype=np.uint8)
    where = rng.integers(0, table.size, 5000)
    where[:2] = (0, table.size - 1)  # the first and the last entry too
    assert _hinted_sum(table, where) == int(table[where].astype(np.int64).sum())


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="x86 assembly")
def test_the_hint_is_a_prefetch_instruction():
    table = np.zeros(64, np.uint8)
    _hinted_sum(table, np.arange(3))
    asm = _hinted_sum.inspect_asm(_hinted_sum.signatures[0])
    assert "prefetch" in asm


@njit(cache=False)
def _lookup_sum(first, deltas, tabs, where):
    total = 0
    for i in range(where.shape[0]):
        _hint(first, deltas, tabs[i], np.uint64(where[i]))
    for i in range(where.shape[0]):
        total += _read(first, deltas, tabs[i], np.uint64(where[i]))
    return total


def _deltas(*tables):
    return np.array([t.ctypes.data - tables[0].ctypes.data for t in tables], dtype=np.int64)


def test_a_lookup_reads_the_table_named():
    rng = np.random.default_rng(11)
    # Tables of other sizes, anywhere in memory: an index past the one named is a bug.
    tables = [rng.integers(0, 255, size, dtype=np.uint8) for size in (1 << 16, 1 << 12, 99, 5000)]
    tabs = rng.integers(0, len(tables), 4000)
    where = np.array([rng.integers(0, tables[t].size) for t in tabs])
    expect = sum(int(tables[t][w]) for t, w in zip(tabs, where))
    assert _lookup_sum(tables[0], _deltas(*tables), tabs, where) == expect


def test_a_lookup_takes_no_reference():
    # The kernels' lookup of one of several tables, as they compile it.  A branch between the
    # arrays there took a reference to the chosen one per read: the kernel with two databases
    # ran 5-7 times slower per node.
    first, second = np.zeros(8, np.uint8), np.ones(8, np.uint8)
    _lookup_sum(first, _deltas(first, second), np.array([0, 1]), np.array([3, 4]))
    body = _lookup_sum.inspect_llvm(_lookup_sum.signatures[0])
    assert "NRT_incref" not in body
