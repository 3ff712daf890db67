"""Breadth-first search over pattern placements with zero-cost blank moves (builder layer).

One additive pattern database = one table over the placements of the pattern's k tiles (the
cells they stand on, in sorted tile order), indexed by the k-permutation rank of
:func:`solver.ranking.rank` (``n!/(n-k)!`` entries, uint8).  The entry is the fewest moves **of
the pattern's own tiles** that bring them home, the other tiles being indistinguishable and
moving for free.  Only such tables may be summed over a partition: every real move slides one
tile, so it is charged to at most one table.  (A table counting every move would be charged by
all tables at once and the sum would overestimate: this module does not build one.)

The search.  Because moving a non-pattern tile is free, the blank roams its whole connected
region of free cells at no cost, so a search state is (placement, blank region) and the region
is a bit mask of cells.  Sliding a pattern tile from cell c into a cell b of the region costs 1;
afterwards the blank stands on c and its new region is the component of c.  The search runs
backwards from the goal (moves are reversible) and a placement's value is the depth at which
any of its regions is first reached.

Data, per placement p (``words[p]``): two bits per cell, code 0 = not reached, code
``depth % 3 + 1`` = the region holding that cell was reached at that depth.  At layer d only
depths d-1, d, d+1 can meet, so three codes tell "older", "frontier" and "new" apart and no
array is swapped or cleared between layers.  Both bits live in one word so a reader never sees
half an update.  ``dist[p]`` is the result (255 until reached).  Per block of placements that
share all but the last two tiles (``blk``): bit 0 = every region of the block is reached, bits
1/2 = the block holds states of even/odd depth reached in the previous/current layer; blocks
with nothing to do are skipped without being decoded.

Each layer sweeps the placements in rank order, split by the cell of tile 0 (a contiguous slice
of the table per cell) over a few threads; numba has no atomics, so every thread writes only
entries of its own slice:

* ``mixed`` (early and middle layers): frontier states *push* the moves of tiles 1..k-1 (which
  keep tile 0, hence stay in the slice); moves of tile 0 are *pulled*: an unreached region gets
  depth d+1 if moving tile 0 into it leads to a frontier state;
* ``pull`` (late layers, few unreached states): every unreached region checks all its
  neighbours.  In an undirected unit-cost graph an unreached state next to a reached one is next
  to a frontier state, and frontier codes never change during a layer, so reads of other threads'
  slices are safe.

Imports: numpy, numba, tqdm, :mod:`solver.board`, :mod:`solver.ranking`.
"""
from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field

import numba
import numpy as np
from tqdm import tqdm

from solver.core import ranking
from solver.core.board import Board, Shape

UNREACHED = 255  # dist value of a placement no search reached (e.g. the other parity class)
MAX_DEPTH = 254
BLOCK_COMPLETE = 1  # blk bit 0; bits 1 and 2 mark frontier blocks by depth parity
THREADS_ENV = "NPUZZLE_THREADS"
MAX_CELLS = 31  # two bits per cell in one 64-bit word


def _depth_bit(depth):
    return 2 << (depth & 1)


# --- bit-mask helpers (inlined into the kernels) ---------------------------------------------


@numba.njit(cache=True, inline="always")
def _flood(seed, free, cols, keep_l, keep_r):
    """The connected component of ``free`` cells containing ``seed`` (a mask within free)."""
    r = seed
    while True:
        e = r | ((r & keep_l) >> 1) | ((r & keep_r) << 1) | (r >> cols) | (r << cols)
        e &= free
        if e == r:
            return r
        r = e


@numba.njit(cache=True, inline="always")
def _code_mask(w, code, shift, low):
    """Cells whose two-bit code in word ``w`` equals ``code`` (1, 2 or 3)."""
    a = w & low
    b = (w >> shift) & low
    if code == 1:
        return a & ~b
    if code == 2:
        return b & ~a
    return a & b


@numba.njit(cache=True, inline="always")
def _code_at(w, c, shift):
    return ((w >> c) & 1) | (((w >> (shift + c)) & 1) << 1)


@numba.njit(cache=True, inline="always")
def _code_bits(region, code, shift):
    bits = 0
    if code & 1:
        bits |= region
    if code & 2:
        bits |= region << shift
    return bits


# --- one slice of one layer ------------------------------------------------------------------
# Everything below runs inside one function on purpose: numba reference-counts every array passed
# to a helper (an atomic increment and decrement per call), which in these loops costs more than
# the search itself.  Helpers take scalars only.

PUSH_REST, PULL, TRACE, PUSH_FIRST, PUSH_ALL = 0, 1, 2, 3, 4
DEAD = 63  # target of a move off the board: no mask ever has bit 63
# Index of the lowest set bit: multiply the isolated bit by a de Bruijn constant, look up the
# top six bits.
_DEBRUIJN = 0x03F79D71B4CB0A89
_CTZ = np.zeros(64, np.int64)
for _i in range(64):
    _CTZ[(((1 << _i) * _DEBRUIJN) % (1 << 64)) >> 58] = _i


@numba.njit(cache=True, nogil=True)
def _sweep(x, y, d, mode, words, dist, blk, geo, nbr, moves, weights, out, trace_cells,
           trace_moves):
    """Run layer ``d`` over the placements with tile 0 on cell ``x`` and, if ``y >= 0``, tile 1
    on cell ``y`` (a contiguous run of whole blocks when k >= 4).

    Modes: PUSH_REST -- frontier regions push the moves of tiles 1..k-1 (they keep tile 0, so
    writes stay in slice x); PUSH_FIRST -- frontier regions push the moves of tile 0 (they keep
    tile 1, so writes stay among the placements with tile 1 on y); PUSH_ALL -- both (one
    thread only); PULL -- unreached regions look for a frontier neighbour through every move and
    write only their own entry; TRACE (tests) -- record each placement's cells and the rank of
    each move in ``trace_cells[p]`` / ``trace_moves[p, 4*i + direction]``.  Reads of entries
    other threads own look only at frontier codes, which nobody changes during a layer.

    ``moves[4*c + t]`` = (cell reached from c in direction t or DEAD, mask of the cells passed
    over, +1/-1 as the move goes up or down the cell order).
    """
    n, k, cols, shift, full = geo[0], geo[1], geo[2], geo[3], geo[4]
    keep_l, keep_r, inner, bs = geo[5], geo[6], geo[7], geo[8]
    prefix = k - inner  # tiles decoded once per block; the last `inner` tiles vary inside it
    w1 = weights[prefix] if inner >= 1 else 0
    w2 = weights[prefix + 1] if inner == 2 else 0
    cur = d % 3 + 1
    new = (d + 1) % 3 + 1
    curbit = 2 << (d & 1)
    newbit = 2 << ((d + 1) & 1)
    cells = np.zeros(k, np.int64)
    order = np.full(n, k, np.int64)  # tile index on each cell, k when empty
    wat = np.zeros(n, np.int64)  # rank weight of the tile on each cell, 0 when empty
    ok = np.zeros(k, np.int64)
    free_list = np.zeros(n, np.int64)
    p_to = np.zeros(4 * prefix, np.int64)  # per move of a decoded tile: target cell or DEAD,
    p_dq = np.zeros(4 * prefix, np.int64)  # rank change from the decoded tiles alone,
    p_bm = np.zeros(4 * prefix, np.int64)  # cells passed over,
    p_sg = np.zeros(4 * prefix, np.int64)  # and direction in the cell order
    n_passed = np.zeros(4 * n, np.int64)  # decoded tiles passed over by a move from a free cell
    busy_e = np.zeros(bs, np.int64)  # per placement of the block with work: its offset,
    busy_c1 = np.zeros(bs, np.int64)  # the cells of the inner tiles (DEAD when absent),
    busy_c2 = np.zeros(bs, np.int64)
    busy_w = np.zeros(bs, np.int64)  # its word,
    busy_tm = np.zeros(bs, np.int64)  # the cells its moves may go to,
    busy_hit = np.zeros(bs, np.int64)  # and (pull) the cells reached from the frontier
    cand_q = np.zeros(4 * k * bs, np.int64)  # per candidate move: the placement it leads to,
    cand_c = np.zeros(4 * k * bs, np.int64)  # the cell the tile leaves,
    cand_b = np.zeros(4 * k * bs, np.int64)  # the cell it enters,
    cand_jb = np.zeros(4 * k * bs, np.int64)  # whose move it is,
    cand_slot = np.zeros(4 * k * bs, np.int64)  # 4 * tile + direction (for tracing),
    cand_w = np.zeros(4 * k * bs, np.int64)  # and the word of the placement it leads to
    fresh_j = np.zeros(4 * k * bs, np.int64)
    new_states = 0
    new_placements = 0
    cells[0] = x
    order[x] = 0
    wat[x] = weights[0]
    used = np.int64(1) << x
    first_free_tile = 1
    nblocks = weights[0] // bs  # blocks in slice x
    first_block = x * nblocks
    if y >= 0:
        cells[1] = y
        order[y] = 1
        wat[y] = weights[1]
        used |= np.int64(1) << y
        first_free_tile = 2
        nblocks //= n - 1
        first_block += (y - 1 if y > x else y) * nblocks
    nxt = 0
    for j in range(first_free_tile, prefix):
        while (used >> nxt) & 1:
            nxt += 1
        cells[j] = nxt
        order[nxt] = j
        wat[nxt] = weights[j]
        used |= np.int64(1) << nxt
    # Tiles whose moves this mode looks at.
    i_lo = 1 if mode == PUSH_REST else 0
    i_hi = 1 if mode == PUSH_FIRST else k
    n_free = n - prefix
    n1 = n_free if inner >= 1 else 1
    n2 = n_free - 1 if inner == 2 else 1
    for bi in range(nblocks):
        if bi > 0:
            # Next placement of the decoded tiles in rank (lexicographic) order.
            j = prefix - 1
            while j >= first_free_tile:
                c = cells[j]
                used &= ~(np.int64(1) << c)
                order[c] = k
                wat[c] = 0
                nc = c + 1
                while nc < n and (used >> nc) & 1:
                    nc += 1
                if nc < n:
                    cells[j] = nc
                    order[nc] = j
                    wat[nc] = weights[j]
                    used |= np.int64(1) << nc
                    nxt = 0
                    for jj in range(j + 1, prefix):
                        while (used >> nxt) & 1:
                            nxt += 1
                        cells[jj] = nxt
                        order[nxt] = jj
                        wat[nxt] = weights[jj]
                        used |= np.int64(1) << nxt
                    break
                j -= 1
        bidx = first_block + bi
        flags = blk[bidx]
        own_front = (flags & curbit) != 0
        if mode == PULL and flags & 1:
            continue  # every region of the block is reached
        if mode != PULL and mode != TRACE and not own_front:
            continue
        # Moves of the decoded tiles.  Rank digit j is cell_j - #{m < j : cell_m < cell_j}, so
        # when tile i slides from c to b its digit changes by b - c less the earlier tiles it
        # passes over (a vertical move passes the cols-1 cells between c and b), and every
        # later tile it passes shifts its own digit by one.  The decoded tiles' share is worked
        # out here once per block; the inner tiles' share is added per placement below.
        any_ok = own_front
        for i in range(0 if mode == PULL else i_lo, prefix if mode == PULL else min(i_hi, prefix)):
            c = cells[i]
            m = 0
            for t in range(4):
                j = 4 * i + t
                b = moves[4 * c + t, 0]
                if b == DEAD or ((used >> b) & 1) != 0:
                    p_to[j] = DEAD
                    p_dq[j] = 0
                    p_bm[j] = 0
                    p_sg[j] = 0
                    continue
                bm = moves[4 * c + t, 1]
                s = moves[4 * c + t, 2]
                dd = b - c
                r = 0
                rest = bm & used
                while rest != 0:
                    low = rest & -rest
                    rest ^= low
                    xx = _CTZ[((low * _DEBRUIJN) >> 58) & 63]
                    earlier = np.int64(order[xx] < i)
                    dd -= s * earlier
                    r += s * (1 - earlier) * wat[xx]
                p_to[j] = b
                p_dq[j] = dd * weights[i] + r
                p_bm[j] = bm
                p_sg[j] = s
                if mode == PULL and blk[bidx + p_dq[j] // bs] & curbit:
                    m |= np.int64(1) << b
            ok[i] = m
            if m != 0:
                any_ok = True
        if mode == PULL:
            if not any_ok:
                continue  # no move leads into a block holding frontier states
            for i in range(prefix, k):
                ok[i] = full if own_front else 0
        nf = 0
        for c in range(n):
            if ((used >> c) & 1) == 0:
                free_list[nf] = c
                nf += 1
                if inner >= 1 and i_hi > prefix:
                    for t in range(4):
                        rest = moves[4 * c + t, 1] & used
                        cnt = 0
                        while rest != 0:
                            rest &= rest - 1
                            cnt += 1
                        n_passed[4 * c + t] = cnt
        base = bidx * bs
        # Pass 1 over the block: which placements have work (branch-free compaction).
        nbusy = 0
        left = False
        e = 0
        for d1 in range(n1):
            c1 = free_list[d1] if inner >= 1 else DEAD
            o1 = used | (np.int64(1) << c1) if inner >= 1 else used
            for d2 in range(n2):
                c2 = free_list[d2 + 1 if d2 >= d1 else d2] if inner == 2 else DEAD
                occ = o1 | (np.int64(1) << c2) if inner == 2 else o1
                free = full & ~occ
                w = np.int64(words[base + e])
                unv = free & ~((w | (w >> shift)) & full)
                if mode == PULL:
                    work = unv
                elif mode == TRACE:
                    work = 1
                else:
                    work = _code_mask(w, cur, shift, full)
                left |= unv != 0
                busy_e[nbusy] = e
                busy_c1[nbusy] = c1
                busy_c2[nbusy] = c2
                busy_w[nbusy] = w
                nbusy += work != 0
                e += 1
        if nbusy == 0:
            if not left and mode != TRACE:
                blk[bidx] |= 1
            continue
        # Pass 2: every candidate move of the busy placements and the placement it leads to,
        # move by move across the block (the decoded tiles' part of the rank change is the
        # same for all of them) and without branches: each candidate is written, the count
        # advances only for real ones.
        nc = 0
        for jb in range(nbusy):
            c1 = busy_c1[jb]
            c2 = busy_c2[jb]
            w = busy_w[jb]
            free = full & ~(used | (np.int64(1) << c1) | (np.int64(1) << c2))
            unv = free & ~((w | (w >> shift)) & full)
            if mode == PULL:
                busy_tm[jb] = unv
            elif mode == TRACE:
                busy_tm[jb] = free
            else:
                busy_tm[jb] = _code_mask(w, cur, shift, full)
            busy_hit[jb] = 0
        for i in range(i_lo, min(i_hi, prefix)):
            c = cells[i]
            for t in range(4):
                j = 4 * i + t
                b = p_to[j]
                if b == DEAD or (mode == PULL and ((ok[i] >> b) & 1) == 0):
                    continue
                dq = p_dq[j]
                bm = p_bm[j]
                sg = p_sg[j]
                for jb in range(nbusy):
                    cand_q[nc] = (base + busy_e[jb] + dq
                                  + sg * (w1 * ((bm >> busy_c1[jb]) & 1)
                                          + w2 * ((bm >> busy_c2[jb]) & 1)))
                    cand_c[nc] = c
                    cand_b[nc] = b
                    cand_jb[nc] = jb
                    cand_slot[nc] = j
                    nc += (busy_tm[jb] >> b) & 1
        if inner >= 1 and i_lo <= prefix < i_hi and (mode != PULL or own_front):
            for jb in range(nbusy):
                c1 = busy_c1[jb]
                c2 = busy_c2[jb]
                tm = busy_tm[jb]
                for t in range(4):
                    j = 4 * c1 + t
                    b = moves[j, 0]
                    s = moves[j, 2]
                    cand_q[nc] = (base + busy_e[jb] + ((b - c1) - s * n_passed[j]) * w1
                                  + s * w2 * ((moves[j, 1] >> c2) & 1))
                    cand_c[nc] = c1
                    cand_b[nc] = b
                    cand_jb[nc] = jb
                    cand_slot[nc] = 4 * prefix + t
                    nc += (tm >> b) & 1
        if inner == 2 and i_hi == k and (mode != PULL or own_front):
            for jb in range(nbusy):
                c1 = busy_c1[jb]
                c2 = busy_c2[jb]
                tm = busy_tm[jb]
                for t in range(4):
                    j = 4 * c2 + t
                    b = moves[j, 0]
                    s = moves[j, 2]
                    cand_q[nc] = (base + busy_e[jb]
                                  + ((b - c2) - s * (n_passed[j] + ((moves[j, 1] >> c1) & 1))) * w2)
                    cand_c[nc] = c2
                    cand_b[nc] = b
                    cand_jb[nc] = jb
                    cand_slot[nc] = 4 * (k - 1) + t
                    nc += (tm >> b) & 1
        if mode == TRACE:
            for jc in range(nc):
                p = base + busy_e[cand_jb[jc]]
                trace_moves[p, cand_slot[jc]] = cand_q[jc]
            for jb in range(nbusy):
                c1 = busy_c1[jb]
                c2 = busy_c2[jb]
                p = base + busy_e[jb]
                for i in range(prefix):
                    trace_cells[p, i] = cells[i]
                if inner >= 1:
                    trace_cells[p, prefix] = c1
                if inner == 2:
                    trace_cells[p, prefix + 1] = c2
            continue
        # Independent loads, so the memory system can overlap them.
        for jc in range(nc):
            cand_w[jc] = words[cand_q[jc]]
        if mode == PULL:
            for jc in range(nc):
                hit = np.int64(_code_at(cand_w[jc], cand_c[jc], shift) == cur)
                busy_hit[cand_jb[jc]] |= hit << cand_b[jc]
            for jb in range(nbusy):
                hit = busy_hit[jb]
                if hit == 0:
                    continue
                free = full & ~(used | (np.int64(1) << busy_c1[jb])
                                | (np.int64(1) << busy_c2[jb]))
                mark = 0
                while hit != 0:
                    region = _flood(hit & -hit, free, cols, keep_l, keep_r)
                    mark |= region
                    hit &= ~region
                    new_states += 1
                p = base + busy_e[jb]
                words[p] = busy_w[jb] | _code_bits(mark, new, shift)
                if dist[p] == 255:
                    dist[p] = d + 1
                    new_placements += 1
                blk[bidx] |= newbit
        else:
            nfresh = 0
            for jc in range(nc):
                c = cand_c[jc]
                wq = cand_w[jc]
                fresh_j[nfresh] = jc
                nfresh += (((wq >> c) | (wq >> (shift + c))) & 1) ^ 1
            for jf in range(nfresh):
                jc = fresh_j[jf]
                q = cand_q[jc]
                wq = np.int64(words[q])  # re-read: an earlier push may have reached q
                c = cand_c[jc]
                if ((wq >> c) | (wq >> (shift + c))) & 1:
                    continue
                jb = cand_jb[jc]
                free = full & ~(used | (np.int64(1) << busy_c1[jb])
                                | (np.int64(1) << busy_c2[jb]))
                one_b = np.int64(1) << cand_b[jc]
                one_c = np.int64(1) << c
                region = _flood(one_c, free ^ one_b ^ one_c, cols, keep_l, keep_r)
                words[q] = wq | _code_bits(region, new, shift)
                if dist[q] == 255:
                    dist[q] = d + 1
                    new_placements += 1
                new_states += 1
                blk[q // bs] |= newbit
        if not left and mode != TRACE:
            blk[bidx] |= 1
    out[0] += new_states
    out[1] += new_placements


# --- the same code path, traced, for tests --------------------------------------------------


def trace_ranks(shape: Shape | str, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Run the sweep in trace mode over all placements of k tiles on ``shape``: return
    ``cells`` (row p = the placement the sweep treats as rank p) and ``moves`` (entry
    ``[p, 4*i + direction]`` = the rank the sweep computes after tile i moves in direction
    U, D, L, R; -1 when the move is impossible).  Tests compare both with
    :func:`solver.ranking.rank`."""
    shape = Shape.parse(shape)
    geo, nbr, moves, weights = geometry(shape, k)
    total = ranking.count_placements(shape.size, k)
    seen_cells = np.full((total, k), -1, np.int64)
    seen_moves = np.full((total, 4 * k), -1, np.int64)
    words = np.zeros(total, np.uint32 if geo[3] == 16 else np.uint64)
    dist = np.zeros(total, np.uint8)
    blk = np.zeros(total // int(geo[8]), np.uint8)
    out = np.zeros(2, np.int64)
    for x in range(shape.size):
        ys = [-1] if k < 4 else [y for y in range(shape.size) if y != x]
        for y in ys:
            _sweep(x, y, 0, TRACE, words, dist, blk, geo, nbr, moves, weights, out, seen_cells,
                   seen_moves)
    return seen_cells, seen_moves


# --- the driver ------------------------------------------------------------------------------


@dataclass
class PatternResult:
    """A pattern's table and how the search went."""

    tiles: tuple[int, ...]
    table: np.ndarray  # uint8, indexed by the k-permutation rank of the tiles' cells
    counts: np.ndarray  # placements at each h value 0..max
    unreached: int  # placements never reached (left at 255)
    states: int  # (placement, region) states reached
    seconds: float
    layers: list = field(default_factory=list)  # (depth, mode, new states, seconds)


def thread_count() -> int:
    """Worker threads for the sweeps: ``$NPUZZLE_THREADS`` or the CPUs this process may use."""
    env = os.environ.get(THREADS_ENV)
    if env and env.isdigit() and int(env) > 0:
        return int(env)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def geometry(shape: Shape, k: int):
    """The integer constants and tables the kernel takes, for ``k`` tiles on ``shape``:
    ``geo`` (n, k, cols, shift, full mask, not-first-column mask, not-last-column mask, inner
    tiles per block, block size), the neighbour table, the move table (see :func:`_sweep`) and
    the rank digit weights."""
    n, cols = shape.size, shape.cols
    if n > MAX_CELLS:
        raise ValueError(f"pattern databases support boards of up to {MAX_CELLS} cells, "
                         f"{shape} has {n}")
    if not 1 <= k < n:
        raise ValueError(f"a pattern needs 1..{n - 1} tiles on {shape}, got {k}")
    inner = min(2, k - 1)
    weights = np.ones(k, np.int64)
    for j in range(k - 2, -1, -1):
        weights[j] = weights[j + 1] * (n - j - 1)
    bs = int(weights[k - inner - 1])  # placements per block (the inner tiles' choices)
    full = (1 << n) - 1
    col0 = sum(1 << c for c in range(0, n, cols))
    last = sum(1 << c for c in range(cols - 1, n, cols))
    shift = 16 if n <= 16 else 32
    geo = np.array([n, k, cols, shift, full, full & ~col0, full & ~last, inner, bs], np.int64)
    nbr = np.array(shape.neighbour_table(), np.int64)
    moves = np.zeros((4 * n, 3), np.int64)
    for c in range(n):
        for t in range(4):
            b = int(nbr[c, t])
            if b < 0:
                moves[4 * c + t] = (DEAD, 0, 0)
            else:
                lo, hi = min(b, c), max(b, c)
                passed = sum(1 << xx for xx in range(lo + 1, hi))
                moves[4 * c + t] = (b, passed, 1 if b > c else -1)
    return geo, nbr, moves, weights


def _region(cell: int, free: int, shape: Shape) -> int:
    """Plain-Python flood fill (used once, for the goal)."""
    seen, stack = 0, [cell]
    nbr = shape.neighbour_table()
    while stack:
        c = stack.pop()
        if (seen >> c) & 1 or not (free >> c) & 1:
            continue
        seen |= 1 << c
        stack.extend(b for b in nbr[c] if b >= 0)
    return seen


def _run(items, mode, args, threads) -> np.ndarray:
    """Run the kernel over ``items`` (each a list of (x, y) runs) on up to ``threads`` threads,
    handing items out one at a time; return the summed (new states, new placements).

    Ctrl-C reaches the main thread within a fraction of a second (it waits in short joins);
    the workers then stop taking items and the interrupt is re-raised."""
    out = np.zeros((len(items), 2), np.int64)
    no_trace = np.zeros((1, 1), np.int64)
    d, words, dist, blk, geo, nbr, moves, weights = args

    def run_item(i):
        for x, y in items[i]:
            _sweep(x, y, d, mode, words, dist, blk, geo, nbr, moves, weights, out[i],
                   no_trace, no_trace)

    if threads <= 1 or len(items) == 1:
        for i in range(len(items)):
            run_item(i)
        return out.sum(axis=0)
    lock = threading.Lock()
    state = {"next": 0}
    stop = threading.Event()
    errors = []

    def worker():
        while not stop.is_set():
            with lock:
                i = state["next"]
                state["next"] += 1
            if i >= len(items):
                return
            try:
                run_item(i)
            except BaseException as e:  # noqa: BLE001 - handed to the main thread
                errors.append(e)
                stop.set()
                return

    pool = [threading.Thread(target=worker, daemon=True) for _ in range(min(threads, len(items)))]
    for t in pool:
        t.start()
    try:
        for t in pool:
            while t.is_alive():
                t.join(0.2)
    except BaseException:
        stop.set()
        for t in pool:
            t.join()
        raise
    if errors:
        raise errors[0]
    return out.sum(axis=0)


def _layer(d, pull, n, k, args, threads) -> tuple[int, int]:
    """One BFS layer: (new states, new placements)."""
    slices = [[(x, -1)] for x in range(n)]
    if pull:
        return tuple(int(v) for v in _run(slices, PULL, (d,) + args, threads))
    if threads <= 1 or k < 4:
        return tuple(int(v) for v in _run(slices, PUSH_ALL, (d,) + args, 1))
    a = _run(slices, PUSH_REST, (d,) + args, threads)
    by_tile1 = [[(x, y) for x in range(n) if x != y] for y in range(n)]
    b = _run(by_tile1, PUSH_FIRST, (d,) + args, threads)
    return int(a[0] + b[0]), int(a[1] + b[1])


def bfs_pattern(shape: Shape | str, tiles, goal: Board | None = None, progress: bool = True,
                label: str | None = None, threads: int | None = None,
                pull_when: float = 1.0) -> PatternResult:
    """Build the table of one pattern: for every placement of ``tiles`` (sorted), the fewest
    moves of those tiles that bring them to their cells in ``goal`` (default: blank-last),
    other tiles moving for free.

    A layer pulls (instead of pushing) once the placements not yet reached number fewer than
    ``pull_when`` times the frontier states.

    >>> r = bfs_pattern("2x2", (1, 2, 3), progress=False)   # the whole 3-puzzle
    >>> r.table.tolist()[:8], r.unreached, r.counts.tolist()
    ([0, 1, 255, 255, 255, 1, 255, 255], 12, [1, 2, 2, 2, 2, 2, 1])
    """
    from solver.core.board import goal_board

    shape = Shape.parse(shape)
    goal = goal if goal is not None else goal_board(shape)
    tiles = tuple(sorted(int(t) for t in tiles))
    k = len(tiles)
    if len(set(tiles)) != k or not all(1 <= t < shape.size for t in tiles):
        raise ValueError(f"pattern {tiles} is not a set of tiles of a {shape} board "
                         f"(1..{shape.size - 1})")
    geo, nbr, moves, weights = geometry(shape, k)
    n, bs = shape.size, int(geo[8])
    total = ranking.count_placements(n, k)
    words = np.zeros(total, np.uint32 if geo[3] == 16 else np.uint64)
    dist = np.full(total, UNREACHED, np.uint8)
    blk = np.zeros(total // bs, np.uint8)

    home = [goal.tiles.index(t) for t in tiles]
    p0 = int(ranking.rank(np.array(home, np.int64), n))
    free = ((1 << n) - 1) & ~sum(1 << c for c in home)
    words[p0] = _region(goal.blank, free, shape)  # code 1 = depth 0
    dist[p0] = 0
    blk[p0 // bs] |= _depth_bit(0)

    threads = threads or thread_count()
    args = (words, dist, blk, geo, nbr, moves, weights)
    t0 = time.perf_counter()
    reached, states, frontier = 1, 1, 1
    counts = [1]  # placements first reached at each depth: the table's histogram
    layers = []
    bar = tqdm(total=total, desc=label or f"pattern {','.join(map(str, tiles))}",
               unit="pl", unit_scale=True, disable=not progress, leave=True, smoothing=0.1,
               mininterval=0.5)
    bar.update(1)
    d = 0
    try:
        while True:
            if d >= MAX_DEPTH:
                raise ValueError(f"pattern {tiles} needs more than {MAX_DEPTH} moves: too many "
                                 f"for a uint8 table")
            np.bitwise_and(blk, np.uint8(0xFF ^ _depth_bit(d + 1)), out=blk)
            pull = total - reached < pull_when * frontier
            t1 = time.perf_counter()
            new_states, new_placements = _layer(d, pull, n, k, args, threads)
            layers.append((d + 1, "pull" if pull else "push", new_states,
                           time.perf_counter() - t1))
            if new_states == 0:
                break
            d += 1
            counts.append(new_placements)
            reached += new_placements
            states += new_states
            frontier = new_states
            bar.update(new_placements)
            bar.set_postfix_str(f"depth {d}, {new_states:,} states", refresh=False)
    finally:
        bar.close()
    del words, blk
    while len(counts) > 1 and counts[-1] == 0:  # last layers may add regions, not placements
        counts.pop()
    return PatternResult(tiles, dist, np.array(counts, np.int64), total - reached, states,
                         time.perf_counter() - t0, layers)
