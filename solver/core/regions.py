"""The regions a pattern's tiles cut the free cells into, for zero-aware pattern databases
(layer 0: core; compiled by numba).

A pattern's tiles stand on a set of k cells; the other cells fall apart into *regions* of
cells joined through free neighbours.  The blank crosses its own region without moving a
pattern tile (its moves there slide other patterns' tiles), but a pattern tile can only slide
into the region that holds the blank.  A zero-aware table (Clausecker & Reinefeld) therefore
knows the blank's region besides the placement; npuzzle's keep two *classes* a placement:
the blank in the **main** region (the largest; of equal ones the one holding the lowest
cell) or elsewhere.  This module is the one definition of both, shared by the builder
(:mod:`pdb_builder.zero_aware`) and the search (which finds a class from a cell mask).

Cell sets are bit masks (bit c: cell c) and are numbered by their *colex rank* among the sets
of their size, ``sum over the set's cells c_0 < c_1 < ... of C(c_i, i + 1)``: dense, so a
table over every k-set has ``C(n, k)`` entries (177,100 for 6 of 25 cells).

Imports: numpy, numba.
"""

from __future__ import annotations

import functools

import numpy as np

from .numba_start import import_numba
from .packing import HIGHER_BY, MAIN, OTHER, VALUE_BITS, VALUE_MASK  # noqa: F401 - shared names

import_numba()
import numba  # noqa: E402

MAX_SET = 8  # the most tiles of a pattern whose cell sets are ranked here
CHUNKS = 4  # cell masks of up to 32 cells, ranked a byte at a time


@functools.cache
def binomials(n: int) -> np.ndarray:
    """``out[a, b] = C(a, b)`` for ``a <= max(n, 32)`` and ``b <= MAX_SET + 1`` (read-only)."""
    out = np.zeros((max(n, 8 * CHUNKS) + 1, MAX_SET + 2), np.int64)
    for a in range(out.shape[0]):
        for b in range(min(a, MAX_SET + 1) + 1):
            out[a, b] = 1 if b in (0, a) else out[a - 1, b - 1] + out[a - 1, b]
    out.setflags(write=False)
    return out


@numba.njit(cache=True, inline="always")
def set_rank(mask, n, binom):
    """The colex rank of the cell set ``mask`` among the sets of its size (a cell at a time;
    the search uses :func:`colex_tables` instead)."""
    r = 0
    i = 0
    for c in range(n):
        if (mask >> c) & 1:
            i += 1
            r += binom[c, i]
    return r


def colex_tables() -> tuple[np.ndarray, np.ndarray]:
    """``(part, ones)``: a set's colex rank a byte at a time, ``sum over bytes j of
    part[j, s, byte_j]`` where ``s`` counts the set's cells in the bytes before
    (``ones[byte]`` per byte).  Read-only; 36 KB.

    >>> part, ones = colex_tables()
    >>> int(part[0, 0, 0b101] + part[1, 2, 0b1])  # cells 0, 2 and 8: C(0,1) + C(2,2) + C(8,3)
    57
    """
    binom = binomials(8 * CHUNKS)
    bits = (np.arange(256)[:, None] >> np.arange(8)) & 1  # [byte, bit]
    # The cell on bit b of byte j is the set's (s + cells up to b)-th: C(8j + b, that).
    nth = np.arange(MAX_SET + 1)[:, None, None] + np.cumsum(bits, axis=1)  # [s, byte, bit]
    counted = bits.astype(bool) & (nth <= MAX_SET + 1)  # cells past the MAX_SET-th add nothing
    cells = 8 * np.arange(CHUNKS)[:, None, None, None] + np.arange(8)  # [j, 1, 1, bit]
    terms = binom[cells, np.minimum(nth, MAX_SET + 1)] * counted
    part = terms.sum(axis=3).astype(np.int32)  # C(32, 8) < 2^31
    ones = bits.sum(axis=1).astype(np.int32)
    for a in (part, ones):
        a.setflags(write=False)
    return part, ones


def neighbour_cells(rows: int, cols: int) -> np.ndarray:
    """``out[c]``: the cells up, down, left and right of cell c (-1 off the board)."""
    cell = np.arange(rows * cols)
    r, q = np.divmod(cell, cols)
    out = np.stack([cell - cols, cell + cols, cell - 1, cell + 1], axis=1)
    off = np.stack([r == 0, r == rows - 1, q == 0, q == cols - 1], axis=1)
    out[off] = -1
    return out


@numba.njit(cache=True)
def _label(mask, n, nb, labels, stack):
    """Label the free cells of the set ``mask`` by region into ``labels`` (-1 on the set's
    cells), regions numbered from their lowest cell up; return (how many, the main one's
    label): the largest, of equal ones the first."""
    for c in range(n):  # a loop, not a slice: see _main_by_mask_into
        labels[c] = -1
    lab = 0
    best = -1
    main = 0
    for s in range(n):
        if (mask >> s) & 1 or labels[s] >= 0:
            continue
        labels[s] = lab
        top = 1
        stack[0] = s
        size = 0
        while top:
            top -= 1
            c = stack[top]
            size += 1
            for j in range(4):
                y = nb[c, j]
                if y >= 0 and not (mask >> y) & 1 and labels[y] < 0:
                    labels[y] = lab
                    stack[top] = y
                    top += 1
        if size > best:  # strictly larger: of equal regions the first (lowest cell) wins
            best = size
            main = lab
        lab += 1
    return lab, main


@numba.njit(cache=True)
def _label_all(rows, cols, k, binom, nb):
    n = rows * cols
    count = binom[n, k]
    labels = np.full((count, n), -1, np.int8)
    nreg = np.zeros(count, np.int8)
    main = np.zeros(count, np.int8)
    stack = np.zeros(n, np.int64)
    mask = (1 << k) - 1
    while mask < (1 << n):
        mr = set_rank(mask, n, binom)
        nreg[mr], main[mr] = _label(mask, n, nb, labels[mr], stack)
        # Gosper's hack: the next larger number with k bits set.
        low = mask & -mask
        ripple = mask + low
        mask = (((ripple ^ mask) >> 2) // low) | ripple
    return labels, nreg, main


@numba.njit(cache=True)
def _main_by_mask_into(out, n, nb, labels, stack):
    # Allocates nothing: a kernel that allocates or fills arrays links numba's array
    # implementation, whose loading imports numba's array and string modules (about 40 ms of
    # a one-board solve's start; docs/research/end-to-end.md, "What a cold start is made of").
    for mask in range(out.size):
        _, main = _label(mask, n, nb, labels, stack)
        m = 0
        for c in range(n):
            if labels[c] == main:
                m |= 1 << c
        out[mask] = m


def main_by_mask(rows: int, cols: int) -> np.ndarray:
    """For boards of up to 16 cells: the main region's cells of every cell set, indexed by
    the set's mask itself (128 KB for 4x4; no rank to compute).  Read-only."""
    n = rows * cols
    if n > 16:
        raise ValueError("a table over every cell set is made for boards of up to 16 cells")
    out = np.zeros(1 << n, np.uint16)
    _main_by_mask_into(
        out, n, neighbour_cells(rows, cols), np.zeros(n, np.int8), np.zeros(n, np.int64)
    )
    out.setflags(write=False)
    return out


def label_regions(rows: int, cols: int, k: int):
    """For every set of k cells on a rows x cols board, by colex rank: ``labels[set, cell]``
    the region of each free cell (-1 on the set's cells), ``nreg[set]`` how many regions and
    ``main[set]`` the main region's label."""
    if not 0 < k <= MAX_SET or k >= rows * cols:
        raise ValueError(f"cell sets of {k} cells are not ranked here (1 to {MAX_SET})")
    return _label_all(rows, cols, k, binomials(rows * cols), neighbour_cells(rows, cols))


@numba.njit(cache=True)
def _main_masks(labels, main):
    out = np.zeros(labels.shape[0], np.uint32)  # boards of up to 32 cells; 708 KB on 5x5
    for s in range(labels.shape[0]):
        m = 0
        for c in range(labels.shape[1]):
            if labels[s, c] == main[s]:
                m |= 1 << c
        out[s] = np.uint32(m)
    return out


def main_region_masks(rows: int, cols: int, k: int) -> np.ndarray:
    """Per set of k cells (colex rank) the mask of its main region's cells: the blank on
    cell b is in the main region when bit b is set.  Read-only."""
    labels, _, main = label_regions(rows, cols, k)
    out = _main_masks(labels, main)
    out.setflags(write=False)
    return out


# --- one byte a placement (the format: solver.core.packing) ------------------------------------


@numba.njit(cache=True, parallel=True)
def _pack(pairs, out):
    clipped = 0
    for r in numba.prange(out.size):
        a = np.int64(pairs[2 * r])
        b = np.int64(pairs[2 * r + 1])
        gap = abs(a - b)
        code = 0 if gap < HIGHER_BY else (1 + MAIN if a > b else 1 + OTHER)
        out[r] = min(a, b) | (code << VALUE_BITS)
        clipped += gap != 0 and gap != HIGHER_BY
    return clipped


def pack_classes(pairs: np.ndarray) -> tuple[np.ndarray, int]:
    """A two-class table (uint8, ``2 * r + class``) as one byte a placement: the smaller of
    the two distances in the low :data:`VALUE_BITS` bits, in the top two ``1 + class`` of
    the class whose distance is :data:`HIGHER_BY` higher (0: equal).  Returns the packed
    table and how many placements differed by another amount (kept lower: still a lower
    bound).  Raises ValueError for a distance too large to pack."""
    pairs = np.ascontiguousarray(pairs, dtype=np.uint8)
    if pairs.size % 2:
        raise ValueError("a two-class table has an even number of entries")
    if pairs.size and int(pairs.max()) > VALUE_MASK:
        raise ValueError(f"a distance above {VALUE_MASK} does not fit a packed entry")
    out = np.empty(pairs.size // 2, np.uint8)
    return out, int(_pack(pairs, out))


@numba.njit(cache=True, inline="always")
def class_value(entry, cls):
    """The distance a packed entry (:func:`pack_classes`) gives the blank's class ``cls``."""
    return (entry & VALUE_MASK) + HIGHER_BY * ((entry >> VALUE_BITS) == 1 + cls)
