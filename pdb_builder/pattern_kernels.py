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

Work is handed out as ranges of blocks.  Per block with work, the kernels list every move of
every busy placement into its target cells with the rank it leads to
(:mod:`pdb_builder.pattern_blocks`), load the words of all those candidates in one loop
(independent loads the memory system can overlap), and only then decide them:

* :func:`push_layer`: frontier states write the states they reach.  Many threads may push into
  one word, so the write is an atomic OR whose old value tells who came first.
* :func:`pull_layer`: unreached states look for a frontier neighbour and write only their own
  word.  The frontier codes they read are not changed by anyone during the layer.
* :func:`trace_moves`: the same decoding and candidate code for every move of every placement,
  recorded for the tests (which compare them with :func:`solver.core.ranking.rank`).
* :func:`count_regions`: how many states there are, so that the driver knows how many are
  still unreached (it pulls once they are few).

Imports: numpy, numba, :mod:`pdb_builder` (bitops, pattern_blocks).
"""

from __future__ import annotations

import numba
import numpy as np

from .bitops import atomic_or, pext
from .pattern_blocks import (
    B_C1,
    B_C2,
    B_E,
    B_FREE,
    B_HIT,
    B_MARK,
    B_TARGET,
    B_WORD,
    BS,
    C_FRESH,
    C_MOVE,
    C_Q,
    C_WORD,
    COLS,
    DEAD,
    DONE,
    FULL,
    INNER,
    KEEP_L,
    KEEP_R,
    M_DB,
    M_TO,
    NEAR,
    SHIFT,
    WANT_ALL,
    WANT_FRONTIER,
    WANT_UNREACHED,
    K,
    candidates,
    code_bits,
    code_of,
    decode_prefix,
    first_digits,
    flood,
    index_among,
    next_digits,
    prefix_moves,
    scan_block,
    scratch,
    unpack_move,
)


def depth_bit(depth: int) -> int:
    """The blk bit of blocks holding states of this depth."""
    return 2 << (depth & 1)


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
    shift, cols, keep_l, keep_r = geo[SHIFT], geo[COLS], geo[KEEP_L], geo[KEEP_R]
    prefix = geo[K] - geo[INNER]
    cur, new = d % 3 + 1, (d + 1) % 3 + 1
    curbit, newbit = 2 << (d & 1), 2 << ((d + 1) & 1)
    digits, cells, order, wat, pm, busy, cand, bw, inner_at = scratch(geo, weights)
    first_digits(first, geo, weights, digits)
    states = placements = 0
    for block in range(first, last):
        if block > first:
            next_digits(geo, digits)
        if not blk[block] & curbit:
            continue
        used = decode_prefix(digits, geo, bw, cells, order, wat)
        nbusy, left = scan_block(words, block, used, WANT_FRONTIER, cur, geo, inner_at, busy)
        if not left:
            atomic_or(blk, block, DONE)
        if nbusy == 0:
            continue
        prefix_moves(used, geo, bw, moves, cells, order, wat, pm)
        nc = candidates(
            block, used, nbusy, busy, pm, 0, geo[K] - geo[INNER], True, geo, weights, moves, cand
        )
        for jc in range(nc):  # independent loads first
            cand[C_WORD, jc] = words[cand[C_Q, jc]]
        nfresh = 0
        for jc in range(nc):  # keep the candidates whose blank cell is uncoded
            c, b, jb, _ = unpack_move(cand[C_MOVE, jc])
            free_q = busy[B_FREE, jb] ^ (np.int64(1) << b) ^ (np.int64(1) << c)
            i = index_among(free_q, c)
            cand[C_FRESH, nfresh] = jc
            nfresh += np.int64(code_of(cand[C_WORD, jc], i, shift) == 0)
        for jf in range(nfresh):
            jc = cand[C_FRESH, jf]
            q = cand[C_Q, jc]
            c, b, jb, slot = unpack_move(cand[C_MOVE, jc])
            free_q = busy[B_FREE, jb] ^ (np.int64(1) << b) ^ (np.int64(1) << c)
            region = flood(np.int64(1) << c, free_q, cols, keep_l, keep_r)
            old = atomic_or(words, q, code_bits(pext(region, free_q), new, shift))
            if code_of(old, index_among(free_q, c), shift) != 0:
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
def find_frontier(nc, words, cand, busy, cur, shift):
    """Load the words of the candidates (independent loads, overlapped) and set, in the busy
    placement's B_HIT, the target cell of every candidate that leads to a frontier state."""
    for jc in range(nc):
        cand[C_WORD, jc] = words[cand[C_Q, jc]]
    for jc in range(nc):
        c, b, jb, _ = unpack_move(cand[C_MOVE, jc])
        free_q = busy[B_FREE, jb] ^ (np.int64(1) << b) ^ (np.int64(1) << c)
        hit = code_of(cand[C_WORD, jc], index_among(free_q, c), shift) == cur
        busy[B_HIT, jb] |= np.int64(hit) << b


@numba.njit(cache=True, inline="always")
def mark_regions(nbusy, busy, geo):
    """Turn the hit cells of each busy placement into whole regions: add them to B_MARK, take
    them out of B_TARGET (no more moves need checking there); return the regions marked."""
    cols, keep_l, keep_r = geo[COLS], geo[KEEP_L], geo[KEEP_R]
    found = 0
    for jb in range(nbusy):
        hit, free = busy[B_HIT, jb], busy[B_FREE, jb]
        busy[B_HIT, jb] = 0
        while hit != 0:
            region = flood(hit & -hit, free, cols, keep_l, keep_r)
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
    digits, cells, order, wat, pm, busy, cand, bw, inner_at = scratch(geo, weights)
    first_digits(first, geo, weights, digits)
    states = placements = 0
    for block in range(first, last):
        if block > first:
            next_digits(geo, digits)
        flags = blk[block]
        if flags & DONE:
            continue
        used = decode_prefix(digits, geo, bw, cells, order, wat)
        prefix_moves(used, geo, bw, moves, cells, order, wat, pm)
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
        nbusy, _ = scan_block(words, block, used, WANT_UNREACHED, cur, geo, inner_at, busy)
        nc = candidates(
            block, used, nbusy, busy, pm, near, prefix, own_front, geo, weights, moves, cand
        )
        find_frontier(nc, words, cand, busy, cur, shift)
        states += mark_regions(nbusy, busy, geo)
        nc = candidates(block, used, nbusy, busy, pm, 0, near, False, geo, weights, moves, cand)
        find_frontier(nc, words, cand, busy, cur, shift)
        states += mark_regions(nbusy, busy, geo)
        left = False
        for jb in range(nbusy):
            left |= busy[B_TARGET, jb] != 0
            mark, w = busy[B_MARK, jb], busy[B_WORD, jb]
            if mark == 0:
                continue
            p = block * bs + busy[B_E, jb]
            words[p] = w | code_bits(pext(mark, busy[B_FREE, jb]), new, shift)
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
    digits, cells, order, wat, pm, busy, cand, bw, inner_at = scratch(geo, weights)
    first_digits(first, geo, weights, digits)
    words = np.zeros(bs * last, np.uint64)  # contents unused: WANT_ALL lists every placement
    for block in range(first, last):
        if block > first:
            next_digits(geo, digits)
        used = decode_prefix(digits, geo, bw, cells, order, wat)
        prefix_moves(used, geo, bw, moves, cells, order, wat, pm)
        nbusy, _ = scan_block(words, block, used, WANT_ALL, 0, geo, inner_at, busy)
        nc = candidates(
            block, used, nbusy, busy, pm, 0, geo[K] - geo[INNER], True, geo, weights, moves, cand
        )
        for jc in range(nc):
            _, _, jb, slot = unpack_move(cand[C_MOVE, jc])
            trace_q[block * bs + busy[B_E, jb], slot] = cand[C_Q, jc]
        for jb in range(nbusy):
            p = block * bs + busy[B_E, jb]
            trace_cells[p, :prefix] = cells[:prefix]
            if inner >= 1:
                trace_cells[p, prefix] = busy[B_C1, jb]
            if inner == 2:
                trace_cells[p, prefix + 1] = busy[B_C2, jb]


@numba.njit(cache=True)
def count_regions(geo):
    """Sum over every set of k occupied cells of the regions its free cells split into: times
    k! (the orders of the tiles on those cells) the number of (placement, region) states.
    Walks the k-subsets of the n cells in increasing order (Gosper's next-subset step)."""
    k, cols, keep_l, keep_r, full = geo[K], geo[COLS], geo[KEEP_L], geo[KEEP_R], geo[FULL]
    total = 0
    s = (np.int64(1) << k) - 1
    while s <= full:
        todo = full & ~s
        while todo != 0:
            todo &= ~flood(todo & -todo, full & ~s, cols, keep_l, keep_r)
            total += 1
        low = s & -s
        r = s + low
        s = r | (((s ^ r) >> 2) // low)
    return total
