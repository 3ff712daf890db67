"""The compact exact table: one parity class, half a byte a state (layer 1: tables).

Boards of 10 to 12 cells (2x5, 3x4, 2x6 and their transposes) have too many states for a byte
per full permutation (12! = 479 M).  A compact table holds the distance of every state that can
reach *one* goal, in two steps:

**Index.**  Let ``p[t]`` be the cell of tile ``t`` (``p[0]`` the blank's).  The index of a state
is the lexicographic k-permutation rank of ``p[0..N-3]`` (:func:`solver.core.ranking.rank` with
``k = N-2``): ``N!/2`` entries, with the blank's cell as the first digit.  Tiles ``N-2`` and
``N-1`` stand on the two cells left over, and only one of the two ways round can reach the goal
(sliding the blank swaps two cells and moves the blank one step, so the permutation's parity
*plus* the blank's taxicab distance to the goal's blank cell never changes).  The parity of a
permutation is the parity of the sum of its Lehmer digits -- the digits of the rank itself --
so the leftover pair's order follows from the rank: no second half is stored and no work is
wasted on the other class.

**Value.**  A state's distance ``d`` and its Manhattan distance ``md`` have the same parity
(every move changes both by one), and ``d >= md``; call ``g = (d - md) / 2`` its gap.  Gaps
range over 0..26 on 3x4 and 0..40 on 2x6, too wide for four bits, but states with nearby
indices share most tile cells and have close gaps.  So each run of :data:`BASE_BLOCK`
consecutive indices stores its smallest gap in a byte (``block_base``) and each state stores
``v = g - base`` in four bits when ``v <= 14``; ``v = 15`` means "in the overflow list", a
sorted array of indices with their distances (133 states of 3x4, 13,917 of 2x6: tens of
kilobytes).  That is 4.13 bits a state (:func:`table_bytes`).

Reading a distance is a rank, a Manhattan sum, a nibble and a base byte: no search, and every
board of a batch costs the same, so the numpy lookup keeps millions of boards a second.  The
alternatives measured: ``g`` alone in the nibble overflows on 10 % of the 2x6 states (a 240 MB
file); two bits of ``d mod 3`` (60 MB) give the distance only after walking all the way down
to the goal, ``d`` lookups per board, hundreds of times slower in a batch.

The builder (:mod:`pdb_builder.compact_bfs`) writes these tables; this module reads them with
numpy only (a lookup must stay instant) and owns the encoding both share.

Imports: numpy and :mod:`solver.core.board`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..core.board import Board, Shape, manhattan_table

ENCODING = "nibble-manhattan-block60-1"  # the file attribute naming this encoding
INDEX = "kperm-prefix-parity"  # rank of the cells of tiles 0..N-3; parity fixes the last two
OVERFLOW = 15  # nibble value: the distance is in the overflow list
MAX_STEP = OVERFLOW - 1  # largest (d - md) / 2 stored in the nibble itself
NIBBLES = "nibbles"  # dataset names in a compact file
BLOCK_BASE = "block_base"
BASE_BLOCK = 60  # states sharing one base byte (measured: 13,917 overflows on 2x6 at 60,
#                  322 at 12 for 16 MB more, 123,101 at 360)
OVERFLOW_INDEX = "overflow_index"
OVERFLOW_DISTANCE = "overflow_distance"
RARE_INDEX = "rare_index"


def entries(shape: Shape) -> int:
    """States in one parity class of ``shape``: ``N!/2`` (239,500,800 on 3x4).

    >>> entries(Shape(3, 4)), entries(Shape(2, 3))
    (239500800, 360)
    """
    return math.factorial(shape.size) // 2


def packed_bytes(shape: Shape) -> int:
    """Bytes of the nibble array: two entries a byte (119,750,400 on 3x4)."""
    return (entries(shape) + 1) // 2


def base_entries(shape: Shape) -> int:
    """Bytes of the block bases: one per :data:`BASE_BLOCK` states (3,991,680 on 3x4)."""
    return -(-entries(shape) // BASE_BLOCK)


def table_bytes(shape: Shape) -> int:
    """Bytes of a compact table of ``shape``: its nibbles and block bases (the overflow list
    adds kilobytes).  The one figure of a table's size that help and docs quote.

    >>> table_bytes(Shape(3, 4)), table_bytes(Shape(2, 6)), round(table_bytes(Shape(3, 4)) / 1e6)
    (123742080, 123742080, 124)
    >>> round(8 * table_bytes(Shape(3, 4)) / entries(Shape(3, 4)), 2)  # bits a state
    4.13
    """
    return packed_bytes(shape) + base_entries(shape)


@dataclass(frozen=True)
class Geometry:
    """What the encoding needs to know about a goal: the home cell of every tile, the
    Manhattan distance of tile ``t`` on cell ``c`` (``md[t, c]``) and the parity every
    reachable state's cells-of-tiles permutation must have with the blank on cell ``c``
    (``need[c]``)."""

    shape: Shape
    goal: Board
    md: np.ndarray  # (N, N) int64; row 0 (the blank) is zero
    need: np.ndarray  # (N,) int64, 0 or 1

    @cached_property
    def md16(self) -> np.ndarray:
        """:attr:`md` as int16 (the vectorised lookup sums it in int16)."""
        return self.md.astype(np.int16)

    @classmethod
    def of(cls, goal: Board) -> Geometry:
        """The geometry of ``goal`` (any goal; the tables are built for canonical ones)."""
        shape, n = goal.shape, goal.shape.size
        home = np.empty(n, dtype=np.int64)
        home[list(goal.tiles)] = np.arange(n)
        cells = np.arange(n)
        rows, cols = cells // shape.cols, cells % shape.cols
        md = np.array(manhattan_table(goal), dtype=np.int64)
        blank_row, blank_col = divmod(goal.blank, shape.cols)
        taxicab = np.abs(rows - blank_row) + np.abs(cols - blank_col)
        need = (permutation_parity(home[None, :])[0] + taxicab) % 2
        return cls(shape, goal, md, need.astype(np.int64))


def permutation_parity(perms: np.ndarray) -> np.ndarray:
    """Parity (0 even, 1 odd) of each row of an ``(m, N)`` array of permutations.

    >>> permutation_parity(np.array([[0, 1, 2], [1, 0, 2], [1, 2, 0]])).tolist()
    [0, 1, 0]
    """
    perms = np.asarray(perms)
    n = perms.shape[1]
    inv = np.zeros(perms.shape[0], dtype=np.int64)
    for i in range(n - 1):
        inv += (perms[:, i : i + 1] > perms[:, i + 1 :]).sum(axis=1)
    return inv & 1


def cells_of_tiles(boards: np.ndarray) -> np.ndarray:
    """``p`` with ``p[:, t]`` the cell of tile t, for an ``(m, N)`` array of boards."""
    boards = np.asarray(boards, dtype=np.int64)
    m, n = boards.shape
    p = np.empty_like(boards)
    p[np.arange(m)[:, None], boards] = np.arange(n)
    return p


def _tile_cells_by_row(boards: np.ndarray) -> np.ndarray:
    """``q`` with ``q[t]`` the cells of tile t on every board: the transpose of
    :func:`cells_of_tiles` in int8, so the loops below read contiguous rows of bytes (four
    times faster on a million boards than columns of int64)."""
    boards_t = np.ascontiguousarray(np.asarray(boards).T)
    n, m = boards_t.shape
    q = np.empty((n, m), dtype=np.int8)
    everyone = np.arange(m)
    for cell in range(n):
        q[boards_t[cell], everyone] = cell
    return q


def _index_by_row(q: np.ndarray, geo: Geometry) -> tuple[np.ndarray, np.ndarray]:
    n, m = q.shape
    k = n - 2
    r = np.zeros(m, dtype=np.int64)
    digit_sum = np.zeros(m, dtype=np.int16)
    for i in range(k):
        row = q[i]
        digit = row.astype(np.int16)
        for j in range(i):
            digit -= q[j] < row
        r *= n - i
        r += digit
        digit_sum += digit
    parity = (digit_sum + (q[k] > q[k + 1])) & 1
    return r, parity == geo.need[q[0]]


def _manhattan_by_row(q: np.ndarray, geo: Geometry) -> np.ndarray:
    md = np.zeros(q.shape[1], dtype=np.int16)
    for t in range(1, q.shape[0]):
        md += geo.md16[t][q[t]]
    return md


def index_many(boards: np.ndarray, geo: Geometry) -> tuple[np.ndarray, np.ndarray]:
    """``(index, reachable)`` of each row of ``boards`` (tiles by cell, canonical labels).

    The index is the rank of the cells of tiles ``0..N-3`` among all such sequences; the
    Lehmer digits summed on the way give the permutation's parity, which says whether the
    board lies in the goal's class.
    """
    return _index_by_row(_tile_cells_by_row(boards), geo)


def manhattan_many(boards: np.ndarray, geo: Geometry) -> np.ndarray:
    """Manhattan distance of each row of ``boards`` to the geometry's goal."""
    return _manhattan_by_row(_tile_cells_by_row(boards), geo).astype(np.int64)


def nibbles_at(packed: np.ndarray, index: np.ndarray) -> np.ndarray:
    """The 4-bit values at ``index`` of a packed array (entry i in byte i//2, low half for
    even i).

    >>> nibbles_at(np.array([0x21, 0xF3], dtype=np.uint8), np.arange(4)).tolist()
    [1, 2, 3, 15]
    """
    index = np.asarray(index, dtype=np.int64)
    return (np.asarray(packed[index >> 1]) >> ((index & 1) << 2).astype(np.uint8)) & 0xF


def pack(values: np.ndarray) -> np.ndarray:
    """Two 4-bit values a byte, in the layout :func:`nibbles_at` reads (for tests and tools;
    the builder packs in its kernel).

    >>> pack(np.array([1, 2, 3, 15])).tolist()
    [33, 243]
    """
    values = np.asarray(values, dtype=np.uint8)
    if values.size % 2:
        values = np.append(values, np.uint8(0))
    return (values[0::2] | (values[1::2] << 4)).astype(np.uint8)


class CompactTable:
    """The distances of every state that can reach one goal, read from a compact file.

    ``packed`` (the nibbles), ``base`` (the block bases), ``overflow_index`` (sorted) and
    ``overflow_distance`` are arrays (memory-mapped by :mod:`solver.tables.store`); ``goal`` is
    the canonical goal the table was built for.
    """

    def __init__(self, goal: Board, packed, base, overflow_index, overflow_distance):
        self.goal = goal
        self.geo = Geometry.of(goal)
        self.packed = packed
        self.base = base
        self.overflow_index = np.asarray(overflow_index, dtype=np.int64)
        self.overflow_distance = np.asarray(overflow_distance, dtype=np.int16)
        self._md = self.geo.md.tolist()  # the scalar path reads Python lists, not arrays
        self._need = self.geo.need.tolist()

    def distance_of(self, tiles) -> int | None:
        """Distance of one board (a sequence of tiles by cell, canonical labels), or None
        when it cannot reach the goal: the scalar twin of :meth:`distances`, in plain Python
        because one numpy call costs more than the whole rank."""
        n = len(tiles)
        p = [0] * n
        for cell, t in enumerate(tiles):
            p[t] = cell
        k = n - 2
        used = r = digit_sum = 0
        for i in range(k):
            v = p[i]
            digit = v - (used & ((1 << v) - 1)).bit_count()
            r = r * (n - i) + digit
            digit_sum += digit
            used |= 1 << v
        if (digit_sum + (p[k] > p[k + 1])) & 1 != self._need[p[0]]:
            return None
        v = (int(self.packed[r >> 1]) >> ((r & 1) << 2)) & 0xF
        if v == OVERFLOW:
            return int(self._overflow(np.array([r], dtype=np.int64))[0])
        md = self._md
        return sum(md[t][p[t]] for t in range(1, n)) + 2 * (int(self.base[r // BASE_BLOCK]) + v)

    def distances(self, boards: np.ndarray) -> np.ndarray:
        """int16 distances of the rows of ``boards`` (canonical labels), -1 for a board that
        cannot reach the goal."""
        q = _tile_cells_by_row(boards)
        index, reachable = _index_by_row(q, self.geo)
        v = nibbles_at(self.packed, index).astype(np.int16)
        base = np.asarray(self.base[index // BASE_BLOCK]).astype(np.int16)
        d = _manhattan_by_row(q, self.geo) + 2 * (base + v)
        far = np.flatnonzero(v == OVERFLOW)
        if far.size:
            d[far] = self._overflow(index[far])
        d[~reachable] = -1
        return d

    def _overflow(self, index: np.ndarray) -> np.ndarray:
        at = np.searchsorted(self.overflow_index, index)
        at = np.minimum(at, max(self.overflow_index.size - 1, 0))
        if self.overflow_index.size == 0 or (self.overflow_index[at] != index).any():
            raise LookupError("a state marked as overflowing is not in the overflow list")
        return self.overflow_distance[at]

    def boards(self, index: np.ndarray) -> np.ndarray:
        """The boards (canonical labels) at ``index``: the inverse of :func:`index_many`
        within the goal's class."""
        from ..core.ranking import unrank_many

        index = np.asarray(index, dtype=np.int64)
        n = self.geo.shape.size
        k = n - 2
        prefix = unrank_many(index, n, k)
        m = index.size
        # Lehmer digits: the mixed-radix digits of the rank.
        digit_sum = np.zeros(m, dtype=np.int64)
        r = index.copy()
        for i in range(k - 1, -1, -1):
            digit_sum += r % (n - i)
            r //= n - i
        free = np.ones((m, n), dtype=bool)
        free[np.arange(m)[:, None], prefix] = False
        rest = np.nonzero(free)[1].reshape(m, 2)  # the two free cells, ascending
        swap = (digit_sum & 1) != self.geo.need[prefix[:, 0]]
        p = np.empty((m, n), dtype=np.int64)
        p[:, :k] = prefix
        p[:, k] = np.where(swap, rest[:, 1], rest[:, 0])
        p[:, k + 1] = np.where(swap, rest[:, 0], rest[:, 1])
        return cells_of_tiles(p)  # the inverse permutation: tiles by cell


__all__ = [
    "ENCODING",
    "INDEX",
    "OVERFLOW",
    "MAX_STEP",
    "BASE_BLOCK",
    "Geometry",
    "CompactTable",
    "entries",
    "packed_bytes",
    "base_entries",
    "table_bytes",
    "index_many",
    "manhattan_many",
    "nibbles_at",
    "pack",
    "permutation_parity",
    "cells_of_tiles",
]
