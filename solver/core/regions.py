"""The regions a pattern's tiles cut the free cells into, for zero-aware pattern databases
(layer 0: core; numpy only -- the engine's C has its own of what its loops call).

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

Why numpy: a search over a zero-aware table makes its region tables when it starts, in
Python's hands.  The regions of every set are found at once,
a flood fill of bit masks over all the sets together (:func:`main_regions`): 4x4's table of
every cell set in about 20 ms, 5x5's of every 6-set in about 60 ms.

Imports: numpy.
"""

from __future__ import annotations

import functools

import numpy as np

from .packing import HIGHER_BY, MAIN, OTHER, VALUE_BITS, VALUE_MASK  # noqa: F401 - shared names

MAX_SET = 8  # the most tiles of a pattern whose cell sets are ranked here
CHUNKS = 4  # cell masks of up to 32 cells, ranked a byte at a time
_ONES = np.array([bin(b).count("1") for b in range(256)], np.int64)  # set bits of each byte


@functools.cache
def binomials(n: int) -> np.ndarray:
    """``out[a, b] = C(a, b)`` for ``a <= max(n, 32)`` and ``b <= MAX_SET + 1`` (read-only)."""
    out = np.zeros((max(n, 8 * CHUNKS) + 1, MAX_SET + 2), np.int64)
    for a in range(out.shape[0]):
        for b in range(min(a, MAX_SET + 1) + 1):
            out[a, b] = 1 if b in (0, a) else out[a - 1, b - 1] + out[a - 1, b]
    out.setflags(write=False)
    return out


def set_rank(mask, n, binom):
    """The colex rank of the cell set ``mask`` among the sets of its size (a cell at a time;
    the search uses :func:`colex_tables` instead, the builder the engine's own in
    ``solver/engine/pattern_twin.c``)."""
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


def cell_sets(n: int, k: int) -> np.ndarray:
    """Every set of ``k`` of ``n`` cells as a mask, in colex order (the set of colex rank r at
    ``r``)."""
    return np.array(_cell_sets(n, k))


@functools.cache
def _cell_sets(n: int, k: int) -> np.ndarray:
    # Colex order: the sets whose highest cell is c, for c from k - 1 up, each the (k-1)-sets
    # of the cells below c (in colex order) with c added.
    if k == 0:
        return np.zeros(1, np.int64)
    return np.concatenate([_cell_sets(c, k - 1) | (1 << c) for c in range(k - 1, n)])


def popcount(masks: np.ndarray) -> np.ndarray:
    """How many cells each mask (of up to 32 cells) holds."""
    return sum(_ONES[(masks >> (8 * j)) & 255] for j in range(CHUNKS))


def _fill(seed: np.ndarray, free: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """Each ``seed`` grown into the region of ``free`` cells that holds it (masks, one per
    set): a step to every neighbour at a time, a set leaving the loop once it stops growing."""
    first_col = sum(1 << (r * cols) for r in range(rows))
    last_col = first_col << (cols - 1)
    region = seed.copy()
    active = np.arange(len(seed))
    now, room = region, free
    while active.size:
        grown = now | (now << 1) & ~first_col | (now >> 1) & ~last_col | now << cols | now >> cols
        grown &= room
        moving = grown != now
        region[active] = grown
        active, now, room = active[moving], grown[moving], room[moving]
    return region


def main_regions(sets: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """The main region's cells of each cell set in ``sets`` (masks): the largest region of
    the free cells, of equal ones the first found -- regions are found from their lowest cell
    up -- and 0 for a set with no free cell."""
    sets = np.asarray(sets, np.int64)
    free = ~sets & ((1 << (rows * cols)) - 1)
    best = np.zeros(sets.shape, np.int64)
    size = np.zeros(sets.shape, np.int64)
    left = free.copy()
    todo = np.flatnonzero(left)
    while todo.size:
        rest = left[todo]
        region = _fill(rest & -rest, free[todo], rows, cols)  # from the lowest cell left
        count = popcount(region)
        larger = count > size[todo]  # strictly: of equal regions the first wins
        best[todo[larger]] = region[larger]
        size[todo[larger]] = count[larger]
        rest &= ~region
        left[todo] = rest
        todo = todo[popcount(rest) > size[todo]]  # decided once no region left can be larger
    return best


def main_by_mask(rows: int, cols: int) -> np.ndarray:
    """For boards of up to 16 cells: the main region's cells of every cell set, indexed by
    the set's mask itself (128 KB for 4x4; no rank to compute).  Read-only."""
    n = rows * cols
    if n > 16:
        raise ValueError("a table over every cell set is made for boards of up to 16 cells")
    out = main_regions(np.arange(1 << n, dtype=np.int64), rows, cols).astype(np.uint16)
    out.setflags(write=False)
    return out


def label_regions(rows: int, cols: int, k: int):
    """For every set of k cells on a rows x cols board, by colex rank: ``labels[set, cell]``
    the region of each free cell (-1 on the set's cells), ``nreg[set]`` how many regions and
    ``main[set]`` the main region's label; regions are numbered from their lowest cell up."""
    if not 0 < k <= MAX_SET or k >= rows * cols:
        raise ValueError(f"cell sets of {k} cells are not ranked here (1 to {MAX_SET})")
    n = rows * cols
    sets = cell_sets(n, k)
    free = ~sets & ((1 << n) - 1)
    labels = np.full((len(sets), n), -1, np.int8)
    nreg = np.zeros(len(sets), np.int8)
    left = free.copy()
    todo = np.flatnonzero(left)
    while todo.size:
        rest = left[todo]
        region = _fill(rest & -rest, free[todo], rows, cols)
        for c in range(n):
            inside = todo[(region >> c) & 1 == 1]
            labels[inside, c] = nreg[inside]
        nreg[todo] += 1
        left[todo] = rest & ~region
        todo = todo[left[todo] != 0]
    mains = main_regions(sets, rows, cols)
    first_cell = popcount((mains & -mains) - 1)  # the main region's lowest cell
    main = labels[np.arange(len(sets)), first_cell].astype(np.int8)
    return labels, nreg, main


def main_region_masks(rows: int, cols: int, k: int) -> np.ndarray:
    """Per set of k cells (colex rank) the mask of its main region's cells: the blank on
    cell b is in the main region when bit b is set.  Read-only."""
    if not 0 < k <= MAX_SET or k >= rows * cols:
        raise ValueError(f"cell sets of {k} cells are not ranked here (1 to {MAX_SET})")
    out = main_regions(cell_sets(rows * cols, k), rows, cols).astype(np.uint32)
    out.setflags(write=False)
    return out


# --- one byte a placement (the format: solver.core.packing) ------------------------------------


def class_value(entry, cls):
    """The distance a packed entry (:func:`pdb_builder.zero_aware.pack_classes`) gives the
    blank's class ``cls`` (the search kernel's ``class_value`` in ``solver/engine/search_walk.h``
    reads it the same way)."""
    return (entry & VALUE_MASK) + HIGHER_BY * ((entry >> VALUE_BITS) == 1 + cls)
