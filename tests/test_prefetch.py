"""The kernels' cache hint (solver/search/prefetch.py): it compiles to a real prefetch
instruction and changes nothing a function computes."""

from __future__ import annotations

import platform

import numpy as np
import pytest
from numba import njit

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
