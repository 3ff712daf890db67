"""The kernels' bit operations against plain-Python twins: pext/pdep (BMI2 and fallback),
popcount, lowest set bit and the atomic OR."""

from __future__ import annotations

import functools
import threading

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pdb_builder import bitops


def naive_pext(x: int, mask: int) -> int:
    """The bits of x at the mask's positions, packed into the low bits in order."""
    out, i = 0, 0
    for c in range(32):
        if (mask >> c) & 1:
            out |= ((x >> c) & 1) << i
            i += 1
    return out


def naive_pdep(x: int, mask: int) -> int:
    """The low bits of x, spread onto the mask's positions in order."""
    out, i = 0, 0
    for c in range(32):
        if (mask >> c) & 1:
            out |= ((x >> i) & 1) << c
            i += 1
    return out


@functools.cache
def _table(pext, pdep):
    """A compiled loop applying pext and pdep to every (x, mask) pair."""

    @numba.njit
    def every_pair(xs, masks):
        out = np.zeros((2, len(xs), len(masks)), np.int64)
        for i in range(len(xs)):
            for j in range(len(masks)):
                out[0, i, j] = pext(xs[i], masks[j])
                out[1, i, j] = pdep(xs[i], masks[j])
        return out

    return every_pair


IMPLEMENTATIONS = [pytest.param(bitops.pext_loop, bitops.pdep_loop, id="loop")]
if bitops.HAS_BMI2:
    IMPLEMENTATIONS.append(pytest.param(bitops.pext_bmi2, bitops.pdep_bmi2, id="bmi2"))


@pytest.mark.parametrize("pext, pdep", IMPLEMENTATIONS)
def test_pext_pdep_on_every_8_bit_pair(pext, pdep):
    values = np.arange(256, dtype=np.int64)
    got = _table(pext, pdep)(values, values)
    want_ext = np.array([[naive_pext(x, m) for m in range(256)] for x in range(256)])
    want_dep = np.array([[naive_pdep(x, m) for m in range(256)] for x in range(256)])
    assert np.array_equal(got[0], want_ext)
    assert np.array_equal(got[1], want_dep)


@pytest.mark.parametrize("pext, pdep", IMPLEMENTATIONS)
@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 2**31 - 1))
def test_pext_pdep_on_board_masks(pext, pdep, x, mask):
    """Masks of up to 31 cells (the largest board): both ways, and pdep undoes pext."""
    got = _table(pext, pdep)(np.array([x], np.int64), np.array([mask], np.int64))
    assert got[0, 0, 0] == naive_pext(x, mask)
    assert got[1, 0, 0] == naive_pdep(x, mask)
    assert naive_pdep(naive_pext(x, mask), mask) == x & mask


@numba.njit
def _counts(xs):
    out = np.zeros((2, len(xs)), np.int64)
    for i in range(len(xs)):
        out[0, i] = bitops.popcount(xs[i])
        out[1, i] = bitops.lowest_bit_index(xs[i])
    return out


def test_popcount_and_lowest_bit():
    xs = [1, 2, 3, 0b1011000, 2**31, 2**62 + 2**40, -1]
    got = _counts(np.array(xs, np.int64))
    assert got[0].tolist() == [(x & (2**64 - 1)).bit_count() for x in xs]
    assert got[1].tolist() == [(x & -x).bit_length() - 1 for x in xs]


@numba.njit(nogil=True)
def _or_bits(words, bit, rounds):
    """OR one bit into every word, ``rounds`` times; count the times this thread set it."""
    first = 0
    for _ in range(rounds):
        for i in range(len(words)):
            old = bitops.atomic_or(words, i, np.int64(1) << bit)
            first += ((old >> bit) & 1) ^ 1
    return first


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32, np.uint64])
def test_atomic_or_returns_the_old_value_and_loses_no_bit(dtype):
    words = np.zeros(1000, dtype)
    width = np.dtype(dtype).itemsize * 8
    bits = [0, 1, width // 2, width - 1, 2, 3]
    counts = [0] * len(bits)

    def run(i):
        counts[i] = _or_bits(words, bits[i], 20)

    _or_bits(np.zeros(1, dtype), 0, 1)  # compile before the threads start
    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(bits))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert (words == sum(1 << b for b in bits)).all()
    assert counts == [len(words)] * len(bits)  # each thread set its bit once per word


def test_fallback_is_chosen_for_a_cpu_without_bmi2(monkeypatch):
    monkeypatch.setattr(bitops.config, "CPU_FEATURES", "+64bit,+sse2,-bmi2")
    assert not bitops.target_has_bmi2()
    monkeypatch.setattr(bitops.config, "CPU_FEATURES", "+64bit,+bmi2")
    assert bitops.target_has_bmi2()


def test_fallback_is_chosen_where_bmi2_is_microcoded(monkeypatch):
    monkeypatch.setattr(bitops.config, "CPU_FEATURES", "+64bit,+bmi2")
    monkeypatch.setattr(bitops.config, "CPU_NAME", "znver2")
    assert not bitops.target_has_bmi2()  # Zen 2: pext/pdep in microcode
    monkeypatch.setattr(bitops.config, "CPU_NAME", "znver4")
    assert bitops.target_has_bmi2()
