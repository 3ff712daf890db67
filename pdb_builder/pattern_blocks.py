"""Decoding a block of placements and listing its moves, for the pattern BFS kernels (builder
layer).  :mod:`pdb_builder.pattern_kernels` describes the tables and runs the layers.

A *block* is the placements that share the cells of all but the last ``inner`` = min(2, k-1)
tiles ("decoded" tiles vs "inner" tiles; ``bs`` placements, consecutive ranks).  Per block:

1. :func:`first_digits` / :func:`next_digits` keep the decoded tiles' rank digits, block by
   block, and :func:`decode_prefix` turns them into cells;
2. :func:`scan_block` lists the placements with work ("busy") and the cells their moves may
   enter (frontier cells for a push, unreached cells for a pull);
3. :func:`prefix_moves` works out, once per block, what each move of a decoded tile does to the
   rank -- the same for every placement of the block;
4. :func:`candidates` lists every move of a busy placement into one of its target cells, with
   the rank it leads to: the decoded tiles' share from step 3 plus a few multiply-adds for the
   inner tiles.

Rank digit j of a placement is tile j's cell less the number of earlier tiles on lower cells
(:func:`solver.core.ranking.rank`); rank = sum(digit_j * weights[j]).

All helpers are ``inline="always"``: numba reference-counts every array passed to a function it
calls, an atomic increment and decrement per call, which in these loops costs more than the
search itself.

Imports: numpy, numba, :mod:`pdb_builder.bitops`.
"""

from __future__ import annotations

import numba
import numpy as np

from .bitops import lowest_bit_index, pdep, popcount

# geo, the integer constants of one (board, k) pair (pattern_bfs.geometry): cells, tiles,
# columns, where a word's high code bits start, the mask of every cell, the cells with a
# neighbour on the left / on the right, inner tiles, placements per block, and the first tile
# whose moves land near in the table.
N, K, COLS, SHIFT, FULL, KEEP_L, KEEP_R, INNER, BS, NEAR = range(10)
DEAD = 63  # target of a move off the board: no cell mask has bit 63
DONE = 1  # blk bit 0: every state of the block is reached

# Rows of the scratch arrays.  Per move of a decoded tile (4 * tile + direction):
M_FROM, M_TO, M_DB, M_BM, M_SG = range(5)  # tile's cell, target cell or DEAD, block change,
# cells passed over, +1/-1 as the move goes up or down the cell order
# Per placement of the block that has work:
B_E, B_C1, B_C2, B_FREE, B_WORD, B_TARGET, B_HIT, B_MARK = range(8)  # offset, inner cells, free
# cells, word, cells its moves may enter; (pull) target cells found next to the frontier, and
# the regions they belong to
# Per candidate move:
C_Q, C_MOVE, C_WORD, C_FRESH = range(4)  # placement reached, the move (see pack_move), word of
# the placement reached; and the list of candidates that reach an uncoded cell (push)

WANT_FRONTIER, WANT_UNREACHED, WANT_ALL = 0, 1, 2  # what scan_block collects


# --- scalar helpers ----------------------------------------------------------------------------


@numba.njit(cache=True, inline="always")
def flood(seed, free, cols, keep_l, keep_r):
    """The connected component of the cell mask ``free`` that contains the cells ``seed``."""
    r = seed
    while True:
        e = (r | ((r & keep_l) >> 1) | ((r & keep_r) << 1) | (r >> cols) | (r << cols)) & free
        if e == r:
            return r
        r = e


@numba.njit(cache=True, inline="always")
def with_code(w, code, shift):
    """Free cells (a free-cell mask) whose code in word ``w`` is ``code`` (1, 2 or 3)."""
    low = w & ((np.int64(1) << shift) - 1)
    high = w >> shift
    if code == 1:
        return low & ~high
    if code == 2:
        return high & ~low
    return low & high


@numba.njit(cache=True, inline="always")
def code_of(w, i, shift):
    """The code of free cell ``i`` in word ``w``."""
    return ((w >> i) & 1) | (((w >> (shift + i)) & 1) << 1)


@numba.njit(cache=True, inline="always")
def code_bits(m, code, shift):
    """The word bits giving the free cells ``m`` the code ``code``."""
    return (m if code & 1 else 0) | (m << shift if code & 2 else 0)


JB_AT = 20  # where pack_move's busy index starts (cells < 32, slots < 4 * 31)


@numba.njit(cache=True, inline="always")
def pack_move(c, b, slot):
    """One int for a candidate move: the cell the tile leaves, the cell it enters and its slot
    (4 * tile + direction); the busy index is ORed in from bit JB_AT."""
    return c | (b << 6) | (slot << 12)


@numba.njit(cache=True, inline="always")
def unpack_move(m):
    """(cell left, cell entered, busy index, slot) of a packed candidate move."""
    return m & 63, (m >> 6) & 63, m >> JB_AT, (m >> 12) & 255


@numba.njit(cache=True, inline="always")
def index_among(free, c):
    """Number of cell c among the free cells (how many free cells lie below it)."""
    return popcount(free & ((np.int64(1) << c) - 1))


# --- per block ---------------------------------------------------------------------------------


@numba.njit(cache=True, inline="always")
def first_digits(block, geo, weights, digits):
    """Rank digits of the decoded tiles of the block's placements (``digits[j]`` = how many
    cells not taken by tiles 0..j-1 lie below tile j's cell)."""
    first = block * geo[BS]
    for j in range(geo[K] - geo[INNER]):
        digits[j] = (first // weights[j]) % (geo[N] - j)


@numba.njit(cache=True, inline="always")
def next_digits(geo, digits):
    """Step the digits to the next block: a counter whose digit j counts up to n - j."""
    j = geo[K] - geo[INNER] - 1
    while j >= 0:
        digits[j] += 1
        if digits[j] < geo[N] - j:
            return
        digits[j] = 0
        j -= 1


@numba.njit(cache=True, inline="always")
def decode_prefix(digits, geo, bw, cells, order, wat):
    """Cells of the decoded tiles (``cells``), the tile on each cell (``order``, k if none) and
    its rank weight in blocks (``wat``, 0 if none); returns the mask of those cells."""
    n, k, full = geo[N], geo[K], geo[FULL]
    for c in range(n):
        order[c] = k
        wat[c] = 0
    used = np.int64(0)
    for j in range(k - geo[INNER]):
        c = lowest_bit_index(pdep(np.int64(1) << digits[j], full & ~used))
        cells[j] = c
        order[c] = j
        wat[c] = bw[j]
        used |= np.int64(1) << c
    return used


@numba.njit(cache=True, inline="always")
def prefix_moves(used, geo, bw, moves, cells, order, wat, pm):
    """For every move of a decoded tile i (slot 4*i + direction): its target cell (DEAD when off
    the board or onto a decoded tile), the change it makes to the block number (the rank
    change is that times the block size), the cells it passes over and its direction in the
    cell order.

    Rank digit j is cell_j less the earlier tiles on lower cells, so when tile i slides from c
    to b its digit changes by b - c less the earlier tiles it passes over (a vertical move
    passes the cols-1 cells between c and b), and every later tile it passes moves its own digit
    by one.  The inner tiles' share is added per placement in :func:`candidates`."""
    for i in range(geo[K] - geo[INNER]):
        c = cells[i]
        for t in range(4):
            j = 4 * i + t
            b = moves[4 * c + t, 0]
            pm[M_TO, j] = DEAD
            if b == DEAD or (used >> b) & 1:
                continue
            bm, s = moves[4 * c + t, 1], moves[4 * c + t, 2]
            dd, db = b - c, 0
            rest = bm & used
            while rest != 0:
                x = lowest_bit_index(rest)
                rest &= rest - 1
                if order[x] < i:
                    dd -= s
                else:
                    db += s * wat[x]
            pm[M_FROM, j], pm[M_TO, j], pm[M_DB, j], pm[M_BM, j], pm[M_SG, j] = (
                c,
                b,
                dd * bw[i] + db,
                bm,
                s,
            )


@numba.njit(cache=True, inline="always")
def scan_block(words, block, used, want, cur, geo, inner_at, busy):
    """List in ``busy`` the block's placements with work: with frontier cells
    (``WANT_FRONTIER``), unreached cells (``WANT_UNREACHED``) or all of them (``WANT_ALL``);
    their target mask is those cells.  Returns (number listed, whether any cell of the block is
    unreached).

    The block's words are read in one straight pass; cells are worked out for the busy
    placements only: offset e puts the inner tiles on the ``inner_at[0, e]``-th and
    ``inner_at[1, e]``-th cells not taken by the decoded tiles."""
    n, shift, full, bs, inner = geo[N], geo[SHIFT], geo[FULL], geo[BS], geo[INNER]
    all_free = (np.int64(1) << (n - geo[K])) - 1  # a free-cell mask of every free cell
    base = block * bs
    nbusy, left = 0, False
    for e in range(bs):
        w = np.int64(words[base + e])
        unreached = all_free & ~(w | (w >> shift))
        left |= unreached != 0
        if want == WANT_FRONTIER:
            m = with_code(w, cur, shift)
        elif want == WANT_UNREACHED:
            m = unreached
        else:
            m = all_free
        busy[B_E, nbusy] = e
        busy[B_WORD, nbusy] = w
        busy[B_TARGET, nbusy] = m
        nbusy += m != 0
    open_cells = full & ~used
    for jb in range(nbusy):
        e = busy[B_E, jb]
        c1 = lowest_bit_index(pdep(np.int64(1) << inner_at[0, e], open_cells)) if inner else DEAD
        c2 = (
            lowest_bit_index(pdep(np.int64(1) << inner_at[1, e], open_cells))
            if inner == 2
            else DEAD
        )
        free = open_cells & ~(np.int64(1) << c1) & ~(np.int64(1) << c2)
        busy[B_C1, jb] = c1
        busy[B_C2, jb] = c2
        busy[B_FREE, jb] = free
        busy[B_TARGET, jb] = pdep(busy[B_TARGET, jb], free)
        busy[B_HIT, jb] = 0
        busy[B_MARK, jb] = 0
    return nbusy, left


@numba.njit(cache=True, inline="always")
def candidates(
    block, used, nbusy, busy, pm, tile_lo, tile_hi, inner_moves, geo, weights, moves, cand
):
    """Write to ``cand`` every move of a busy placement whose tile enters one of the
    placement's target cells: the placement it leads to, the cells the tile leaves and enters,
    the busy index and the slot (4 * tile + direction).  Only moves of the decoded tiles
    ``tile_lo..tile_hi-1`` whose slot in ``pm`` is not DEAD, and of the inner tiles if
    ``inner_moves``.  Branch-free: each move is written and the count advances only for real
    ones.  Returns the count."""
    k, inner = geo[K], geo[INNER]
    prefix = k - inner
    w1 = weights[prefix] if inner >= 1 else 0
    w2 = weights[prefix + 1] if inner == 2 else 0
    base = block * geo[BS]
    nc = 0
    for j in range(4 * tile_lo, 4 * tile_hi):  # one decoded tile's move, across the block
        b = pm[M_TO, j]
        if b == DEAD:
            continue
        bm, sg = pm[M_BM, j], pm[M_SG, j]
        dq = pm[M_DB, j] * geo[BS]
        move = pack_move(pm[M_FROM, j], b, j)
        for jb in range(nbusy):  # the inner tiles it passes over are later tiles
            cand[C_Q, nc] = (
                base
                + busy[B_E, jb]
                + dq
                + sg * (w1 * ((bm >> busy[B_C1, jb]) & 1) + w2 * ((bm >> busy[B_C2, jb]) & 1))
            )
            cand[C_MOVE, nc] = move | (jb << JB_AT)
            nc += (busy[B_TARGET, jb] >> b) & 1
    if not inner_moves or inner == 0:
        return nc
    for jb in range(nbusy):
        c1, c2, target = busy[B_C1, jb], busy[B_C2, jb], busy[B_TARGET, jb]
        q0 = base + busy[B_E, jb]
        for t in range(4):  # tile k-inner: the decoded tiles are earlier, tile k-1 later
            b, bm, s = moves[4 * c1 + t, 0], moves[4 * c1 + t, 1], moves[4 * c1 + t, 2]
            cand[C_Q, nc] = q0 + (b - c1 - s * popcount(bm & used)) * w1 + s * w2 * ((bm >> c2) & 1)
            cand[C_MOVE, nc] = pack_move(c1, b, 4 * prefix + t) | (jb << JB_AT)
            nc += (target >> b) & 1
        if inner == 2:
            for t in range(4):  # tile k-1: every other tile is earlier
                b, bm, s = moves[4 * c2 + t, 0], moves[4 * c2 + t, 1], moves[4 * c2 + t, 2]
                earlier = popcount(bm & used) + ((bm >> c1) & 1)
                cand[C_Q, nc] = q0 + (b - c2 - s * earlier) * w2
                cand[C_MOVE, nc] = pack_move(c2, b, 4 * (prefix + 1) + t) | (jb << JB_AT)
                nc += (target >> b) & 1
    return nc


@numba.njit(cache=True, inline="always")
def scratch(geo, weights):
    """Working arrays of one kernel call: digits, cells, order, wat (see
    :func:`decode_prefix`), the decoded tiles' moves, the busy placements and the candidate
    moves of one block; the decoded tiles' rank weights in blocks, and where the inner tiles
    stand at each offset of a block (see :func:`scan_block`)."""
    n, k, bs, inner = geo[N], geo[K], geo[BS], geo[INNER]
    bw = weights // bs
    inner_at = np.zeros((2, bs), np.int64)
    for e in range(bs):
        if inner == 2:
            d1, d2 = e // (n - k + 1), e % (n - k + 1)
            inner_at[0, e], inner_at[1, e] = d1, d2 + (d2 >= d1)
        elif inner == 1:
            inner_at[0, e] = e
    return (
        np.zeros(k, np.int64),
        np.zeros(k, np.int64),
        np.zeros(n, np.int64),
        np.zeros(n, np.int64),
        np.zeros((5, 4 * k), np.int64),
        np.zeros((8, bs), np.int64),
        np.zeros((4, 4 * k * bs), np.int64),
        bw,
        inner_at,
    )
