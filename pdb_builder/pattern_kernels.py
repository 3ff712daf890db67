"""The numba kernels of the pattern BFS: one layer pushed, one layer pulled, and a trace of the
ranks they compute (builder layer).  :mod:`pdb_builder.pattern_bfs` drives them.

A search state is (placement, blank region): the cells of the pattern's k tiles, and the
connected region of free cells the blank can roam for free.  The tables, per placement p (its
k-permutation rank):

* ``words[p]`` holds a 2-bit code per *free cell* of p -- free cells numbered 0..n-k-1 in cell
  order, low code bits in bits 0.., high code bits from bit ``shift`` on (half the word).  Code
  0 = the cell's region is not reached yet, ``depth % 3 + 1`` = reached at that depth.  At
  layer d only depths d-1, d, d+1 can meet, so three codes tell "older", "frontier" and "new"
  apart and nothing is swapped or cleared between layers.  Numbering free cells rather than
  board cells halves the word for the 4x4 7-8 partition (8 free cells: 16 bits);
  :func:`bitops.pdep` turns a free-cell mask into a cell mask, :func:`bitops.pext` back.
* ``dist[p]``: the depth at which p was first reached (255 until then): the result.
* ``blk[b]`` for the *block* b of placements that share all but the last two tiles ("inner"
  tiles; ``bs`` placements): bit 0 (DONE) = every state of the block is reached, bits 1 and 2
  = the block holds states reached at an even / odd depth -- the frontier of the layer or the
  layer after.  Blocks with nothing to do are skipped without being decoded.

Work is handed out as ranges of blocks.  A block's first tiles are decoded once; the rank change
of each move of those tiles is the same for every placement of the block, and the inner tiles'
share is a few multiply-adds (:func:`_candidates`).  Then every move of every busy placement is
written to a candidate list, the words of all candidates are loaded in one loop (independent
loads the memory system can overlap), and only then are the candidates decided.

* :func:`push_layer`: frontier states write the states they reach.  Many threads may push into
  one word, so the write is an atomic OR whose old value tells who came first.
* :func:`pull_layer`: unreached states look for a frontier neighbour and write only their own
  word.  The frontier codes they read are not changed by anyone during the layer.
* :func:`trace_moves`: the same decoding and candidate code for every move of every placement,
  recorded for the tests (which compare them with :func:`solver.ranking.rank`).

Helpers are ``inline="always"``: numba reference-counts every array passed to a function it
calls, an atomic increment and decrement per call, which in these loops costs more than the
search itself.

Imports: numpy, numba, :mod:`pdb_builder.bitops`.
"""
from __future__ import annotations

import numba
import numpy as np

from .bitops import atomic_or, lowest_bit_index, pdep, pext, popcount

# geo: the integer constants of a (board, k) pair, see pattern_bfs.geometry.
N, K, COLS, SHIFT, FULL, KEEP_L, KEEP_R, INNER, BS, NEAR = range(10)
DEAD = 63  # target of a move off the board: no cell mask has bit 63
DONE = 1  # blk bit 0

# Rows of the scratch arrays.  Per move of a decoded tile (4 * tile + direction):
M_FROM, M_TO, M_DB, M_BM, M_SG = range(5)  # tile's cell, target cell or DEAD, block change,
# cells passed over, +1/-1 as the move goes up or down the cell order
# Per placement of the block that has work:
B_E, B_C1, B_C2, B_FREE, B_WORD, B_TARGET, B_HIT, B_MARK = range(8)  # offset, inner cells, free
# cells, word, cells its moves may enter; (pull) target cells found next to the frontier, and
# the regions they belong to
# Per candidate move:
C_Q, C_MOVE, C_WORD, C_FRESH = range(4)  # placement reached, the move (see _pack_move), word of
# the placement reached; and the list of candidates that reach an uncoded cell (push)

WANT_FRONTIER, WANT_UNREACHED, WANT_ALL = 0, 1, 2  # what _scan_block collects


def depth_bit(depth: int) -> int:
    """The blk bit of blocks holding states of this depth."""
    return 2 << (depth & 1)


# --- scalar helpers ----------------------------------------------------------------------------


@numba.njit(cache=True, inline="always")
def _flood(seed, free, cols, keep_l, keep_r):
    """The connected component of the cell mask ``free`` that contains the cells ``seed``."""
    r = seed
    while True:
        e = (r | ((r & keep_l) >> 1) | ((r & keep_r) << 1) | (r >> cols) | (r << cols)) & free
        if e == r:
            return r
        r = e


@numba.njit(cache=True, inline="always")
def _with_code(w, code, shift):
    """Free cells (a free-cell mask) whose code in word ``w`` is ``code`` (1, 2 or 3)."""
    low = w & ((np.int64(1) << shift) - 1)
    high = w >> shift
    if code == 1:
        return low & ~high
    if code == 2:
        return high & ~low
    return low & high


@numba.njit(cache=True, inline="always")
def _code_of(w, i, shift):
    """The code of free cell ``i`` in word ``w``."""
    return ((w >> i) & 1) | (((w >> (shift + i)) & 1) << 1)


@numba.njit(cache=True, inline="always")
def _code_bits(m, code, shift):
    """The word bits giving the free cells ``m`` the code ``code``."""
    return (m if code & 1 else 0) | (m << shift if code & 2 else 0)


JB_AT = 20  # where _pack_move's busy index starts (cells < 32, slots < 4 * 31)


@numba.njit(cache=True, inline="always")
def _pack_move(c, b, slot):
    """One int for a candidate move: the cell the tile leaves, the cell it enters and its slot
    (4 * tile + direction); the busy index is ORed in from bit JB_AT."""
    return c | (b << 6) | (slot << 12)


@numba.njit(cache=True, inline="always")
def _unpack_move(m):
    """(cell left, cell entered, busy index, slot) of a packed candidate move."""
    return m & 31, (m >> 6) & 31, m >> JB_AT, (m >> 12) & 255


@numba.njit(cache=True, inline="always")
def _index_among(free, c):
    """Number of cell c among the free cells (how many free cells lie below it)."""
    return popcount(free & ((np.int64(1) << c) - 1))


# --- per block ---------------------------------------------------------------------------------


@numba.njit(cache=True, inline="always")
def _first_digits(block, geo, weights, digits):
    """Rank digits of the decoded tiles of the block's placements (``digits[j]`` = how many
    cells not taken by tiles 0..j-1 lie below tile j's cell)."""
    first = block * geo[BS]
    for j in range(geo[K] - geo[INNER]):
        digits[j] = (first // weights[j]) % (geo[N] - j)


@numba.njit(cache=True, inline="always")
def _next_digits(geo, digits):
    """Step the digits to the next block: a counter whose digit j counts up to n - j."""
    j = geo[K] - geo[INNER] - 1
    while j >= 0:
        digits[j] += 1
        if digits[j] < geo[N] - j:
            return
        digits[j] = 0
        j -= 1


@numba.njit(cache=True, inline="always")
def _decode_prefix(digits, geo, bw, cells, order, wat):
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
def _prefix_moves(used, geo, bw, moves, cells, order, wat, pm):
    """For every move of a decoded tile i (slot 4*i + direction): its target cell (DEAD when off
    the board or onto a decoded tile), the change it makes to the block number (the rank
    change is that times the block size), the cells it passes over and its direction in the
    cell order.

    Rank digit j is cell_j less the earlier tiles on lower cells, so when tile i slides from c
    to b its digit changes by b - c less the earlier tiles it passes over (a vertical move
    passes the cols-1 cells between c and b), and every later tile it passes moves its own digit
    by one.  The inner tiles' share is added per placement in :func:`_candidates`."""
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
                c, b, dd * bw[i] + db, bm, s)


@numba.njit(cache=True, inline="always")
def _scan_block(words, block, used, want, cur, geo, inner_at, busy):
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
            m = _with_code(w, cur, shift)
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
        c2 = lowest_bit_index(pdep(np.int64(1) << inner_at[1, e], open_cells)) if inner == 2 \
            else DEAD
        free = open_cells & ~(np.int64(1) << c1) & ~(np.int64(1) << c2)
        busy[B_C1, jb] = c1
        busy[B_C2, jb] = c2
        busy[B_FREE, jb] = free
        busy[B_TARGET, jb] = pdep(busy[B_TARGET, jb], free)
        busy[B_HIT, jb] = 0
        busy[B_MARK, jb] = 0
    return nbusy, left


@numba.njit(cache=True, inline="always")
def _candidates(block, used, nbusy, busy, pm, tile_lo, tile_hi, inner_moves, geo, weights,
                moves, cand):
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
        move = _pack_move(pm[M_FROM, j], b, j)
        for jb in range(nbusy):  # the inner tiles it passes over are later tiles
            cand[C_Q, nc] = (base + busy[B_E, jb] + dq
                             + sg * (w1 * ((bm >> busy[B_C1, jb]) & 1)
                                     + w2 * ((bm >> busy[B_C2, jb]) & 1)))
            cand[C_MOVE, nc] = move | (jb << JB_AT)
            nc += (busy[B_TARGET, jb] >> b) & 1
    if not inner_moves or inner == 0:
        return nc
    for jb in range(nbusy):
        c1, c2, target = busy[B_C1, jb], busy[B_C2, jb], busy[B_TARGET, jb]
        q0 = base + busy[B_E, jb]
        for t in range(4):  # tile k-inner: the decoded tiles are earlier, tile k-1 later
            b, bm, s = moves[4 * c1 + t, 0], moves[4 * c1 + t, 1], moves[4 * c1 + t, 2]
            cand[C_Q, nc] = (q0 + (b - c1 - s * popcount(bm & used)) * w1
                             + s * w2 * ((bm >> c2) & 1))
            cand[C_MOVE, nc] = _pack_move(c1, b, 4 * prefix + t) | (jb << JB_AT)
            nc += (target >> b) & 1
        if inner == 2:
            for t in range(4):  # tile k-1: every other tile is earlier
                b, bm, s = moves[4 * c2 + t, 0], moves[4 * c2 + t, 1], moves[4 * c2 + t, 2]
                earlier = popcount(bm & used) + ((bm >> c1) & 1)
                cand[C_Q, nc] = q0 + (b - c2 - s * earlier) * w2
                cand[C_MOVE, nc] = _pack_move(c2, b, 4 * (prefix + 1) + t) | (jb << JB_AT)
                nc += (target >> b) & 1
    return nc


@numba.njit(cache=True, inline="always")
def _scratch(geo, weights):
    """Working arrays of one kernel call: digits, cells, order, wat (see
    :func:`_decode_prefix`), the decoded tiles' moves, the busy placements and the candidate
    moves of one block; the decoded tiles' rank weights in blocks, and where the inner tiles
    stand at each offset of a block (see :func:`_scan_block`)."""
    n, k, bs, inner = geo[N], geo[K], geo[BS], geo[INNER]
    bw = weights // bs
    inner_at = np.zeros((2, bs), np.int64)
    for e in range(bs):
        if inner == 2:
            d1, d2 = e // (n - k + 1), e % (n - k + 1)
            inner_at[0, e], inner_at[1, e] = d1, d2 + (d2 >= d1)
        elif inner == 1:
            inner_at[0, e] = e
    return (np.zeros(k, np.int64), np.zeros(k, np.int64), np.zeros(n, np.int64),
            np.zeros(n, np.int64), np.zeros((5, 4 * k), np.int64), np.zeros((8, bs), np.int64),
            np.zeros((4, 4 * k * bs), np.int64), bw, inner_at)


# --- the kernels -------------------------------------------------------------------------------


@numba.njit(cache=True, nogil=True)
def push_layer(d, first, last, words, dist, blk, geo, moves, weights, out):
    """Expand the frontier (depth ``d``) of blocks ``first..last-1``: every move of a pattern tile
    into a frontier region reaches a state of depth d+1 unless that state was reached before.

    The candidates' words are loaded first; a candidate whose target cell (the one the tile
    left, where the blank now stands) is already coded is dropped.  For the others the new
    region is flooded from that cell and claimed with an atomic OR: only the thread that finds
    the region still uncoded counts the state, and only the one that finds the whole word zero
    counts the placement and writes ``dist``.  Adds (new states, new placements) to ``out``."""
    shift, cols, keep_l, keep_r, bs = geo[SHIFT], geo[COLS], geo[KEEP_L], geo[KEEP_R], geo[BS]
    prefix = geo[K] - geo[INNER]
    cur, new = d % 3 + 1, (d + 1) % 3 + 1
    curbit, newbit = 2 << (d & 1), 2 << ((d + 1) & 1)
    digits, cells, order, wat, pm, busy, cand, bw, inner_at = _scratch(geo, weights)
    _first_digits(first, geo, weights, digits)
    states = placements = 0
    for block in range(first, last):
        if block > first:
            _next_digits(geo, digits)
        if not blk[block] & curbit:
            continue
        used = _decode_prefix(digits, geo, bw, cells, order, wat)
        nbusy, left = _scan_block(words, block, used, WANT_FRONTIER, cur, geo, inner_at, busy)
        if not left:
            atomic_or(blk, block, DONE)
        if nbusy == 0:
            continue
        _prefix_moves(used, geo, bw, moves, cells, order, wat, pm)
        nc = _candidates(block, used, nbusy, busy, pm, 0, geo[K] - geo[INNER], True, geo,
                         weights, moves, cand)
        for jc in range(nc):  # independent loads first
            cand[C_WORD, jc] = words[cand[C_Q, jc]]
        nfresh = 0
        for jc in range(nc):  # keep the candidates whose blank cell is uncoded
            c, b, jb, _ = _unpack_move(cand[C_MOVE, jc])
            free_q = busy[B_FREE, jb] ^ (np.int64(1) << b) ^ (np.int64(1) << c)
            i = _index_among(free_q, c)
            cand[C_FRESH, nfresh] = jc
            nfresh += np.int64(_code_of(cand[C_WORD, jc], i, shift) == 0)
        for jf in range(nfresh):
            jc = cand[C_FRESH, jf]
            q = cand[C_Q, jc]
            c, b, jb, slot = _unpack_move(cand[C_MOVE, jc])
            free_q = busy[B_FREE, jb] ^ (np.int64(1) << b) ^ (np.int64(1) << c)
            region = _flood(np.int64(1) << c, free_q, cols, keep_l, keep_r)
            old = atomic_or(words, q, _code_bits(pext(region, free_q), new, shift))
            if _code_of(old, _index_among(free_q, c), shift) != 0:
                continue  # another push got there first
            states += 1
            if old == 0:
                dist[q] = d + 1
                placements += 1
            qb = block + pm[M_DB, slot] if slot < 4 * prefix else block
            if not blk[qb] & newbit:
                atomic_or(blk, qb, newbit)
    out[0] += states
    out[1] += placements


@numba.njit(cache=True, inline="always")
def _find_frontier(nc, words, cand, busy, cur, shift):
    """Load the words of the candidates (independent loads, overlapped) and set, in the busy
    placement's B_HIT, the target cell of every candidate that leads to a frontier state."""
    for jc in range(nc):
        cand[C_WORD, jc] = words[cand[C_Q, jc]]
    for jc in range(nc):
        c, b, jb, _ = _unpack_move(cand[C_MOVE, jc])
        free_q = busy[B_FREE, jb] ^ (np.int64(1) << b) ^ (np.int64(1) << c)
        hit = _code_of(cand[C_WORD, jc], _index_among(free_q, c), shift) == cur
        busy[B_HIT, jb] |= np.int64(hit) << b


@numba.njit(cache=True, inline="always")
def _mark_regions(nbusy, busy, geo):
    """Turn the hit cells of each busy placement into whole regions: add them to B_MARK, take
    them out of B_TARGET (no more moves need checking there); return the regions marked."""
    cols, keep_l, keep_r = geo[COLS], geo[KEEP_L], geo[KEEP_R]
    found = 0
    for jb in range(nbusy):
        hit, free = busy[B_HIT, jb], busy[B_FREE, jb]
        busy[B_HIT, jb] = 0
        while hit != 0:
            region = _flood(hit & -hit, free, cols, keep_l, keep_r)
            busy[B_MARK, jb] |= region
            busy[B_TARGET, jb] &= ~region
            hit &= ~region
            found += 1
    return found


@numba.njit(cache=True, nogil=True)
def pull_layer(d, first, last, words, dist, blk, geo, moves, weights, out):
    """Reach depth ``d + 1`` from the unreached side, for blocks ``first..last-1``: an unreached
    region gets depth d+1 when one of the pattern's tiles next to it can slide into it and lead
    to a frontier state.  (In an undirected graph with unit costs an unreached state next to a
    reached one is next to the frontier.)

    Moves of a decoded tile into a block that holds no frontier state are skipped, and so are
    blocks where no move can reach one.  The moves whose targets lie near in the table (the
    last tiles') are looked at first; the far ones only for regions still unresolved.  Each
    thread writes only the words of its own blocks; the frontier codes it reads elsewhere do
    not change during the layer.  Adds (new states, new placements) to ``out``."""
    shift, bs, near = geo[SHIFT], geo[BS], geo[NEAR]
    prefix = geo[K] - geo[INNER]
    cur, new = d % 3 + 1, (d + 1) % 3 + 1
    curbit, newbit = 2 << (d & 1), 2 << ((d + 1) & 1)
    digits, cells, order, wat, pm, busy, cand, bw, inner_at = _scratch(geo, weights)
    _first_digits(first, geo, weights, digits)
    states = placements = 0
    for block in range(first, last):
        if block > first:
            _next_digits(geo, digits)
        flags = blk[block]
        if flags & DONE:
            continue
        used = _decode_prefix(digits, geo, bw, cells, order, wat)
        _prefix_moves(used, geo, bw, moves, cells, order, wat, pm)
        own_front = (flags & curbit) != 0
        live = own_front
        for j in range(4 * prefix):
            if pm[M_TO, j] != DEAD:
                if blk[block + pm[M_DB, j]] & curbit:
                    live = True
                else:
                    pm[M_TO, j] = DEAD
        if not live:
            continue  # no move leads into a block holding frontier states
        nbusy, _ = _scan_block(words, block, used, WANT_UNREACHED, cur, geo, inner_at, busy)
        nc = _candidates(block, used, nbusy, busy, pm, near, prefix, own_front, geo, weights,
                         moves, cand)
        _find_frontier(nc, words, cand, busy, cur, shift)
        states += _mark_regions(nbusy, busy, geo)
        nc = _candidates(block, used, nbusy, busy, pm, 0, near, False, geo, weights, moves, cand)
        _find_frontier(nc, words, cand, busy, cur, shift)
        states += _mark_regions(nbusy, busy, geo)
        left = False
        for jb in range(nbusy):
            left |= busy[B_TARGET, jb] != 0
            mark, w = busy[B_MARK, jb], busy[B_WORD, jb]
            if mark == 0:
                continue
            p = block * bs + busy[B_E, jb]
            words[p] = w | _code_bits(pext(mark, busy[B_FREE, jb]), new, shift)
            if w == 0:
                dist[p] = d + 1
                placements += 1
            blk[block] |= newbit
        if not left:
            blk[block] |= DONE
    out[0] += states
    out[1] += placements


@numba.njit(cache=True, nogil=True)
def trace_moves(first, last, geo, moves, weights, trace_cells, trace_q):
    """For the tests: for every placement p of blocks ``first..last-1``, its cells as the
    kernels decode them (``trace_cells[p]``) and the rank they compute after tile i moves in
    direction t (``trace_q[p, 4*i + t]``; impossible moves are left alone)."""
    k, inner, bs = geo[K], geo[INNER], geo[BS]
    prefix = k - inner
    digits, cells, order, wat, pm, busy, cand, bw, inner_at = _scratch(geo, weights)
    _first_digits(first, geo, weights, digits)
    words = np.zeros(bs * last, np.uint64)  # contents unused: WANT_ALL lists every placement
    for block in range(first, last):
        if block > first:
            _next_digits(geo, digits)
        used = _decode_prefix(digits, geo, bw, cells, order, wat)
        _prefix_moves(used, geo, bw, moves, cells, order, wat, pm)
        nbusy, _ = _scan_block(words, block, used, WANT_ALL, 0, geo, inner_at, busy)
        nc = _candidates(block, used, nbusy, busy, pm, 0, geo[K] - geo[INNER], True, geo,
                         weights, moves, cand)
        for jc in range(nc):
            _, _, jb, slot = _unpack_move(cand[C_MOVE, jc])
            trace_q[block * bs + busy[B_E, jb], slot] = cand[C_Q, jc]
        for jb in range(nbusy):
            p = block * bs + busy[B_E, jb]
            trace_cells[p, :prefix] = cells[:prefix]
            if inner >= 1:
                trace_cells[p, prefix] = busy[B_C1, jb]
            if inner == 2:
                trace_cells[p, prefix + 1] = busy[B_C2, jb]
