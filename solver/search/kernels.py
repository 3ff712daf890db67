"""The numba kernels of IDA*: a resumable depth-first walk of one iteration below one node
(layer 3: search -- the innermost loop; :mod:`solver.search.walk` drives it).

A kernel call searches every path below the node at the stack's floor (``st[S_ROOT]``, depth 0
for a whole iteration, deeper for a work unit) whose cost ``f`` stays within ``st[S_BOUND]``,
skipping the moves the pruning machine forbids (:mod:`solver.search.fsm`: at least undoing the
previous move), for about ``budget`` generated nodes; it returns

* ``FOUND`` -- the node at the top of the stack is the goal (``h == 0``);
* ``ITERATION_DONE`` -- everything below the floor was searched; ``st[S_NEXT]`` holds the
  smallest ``f`` that went over the bound (the next iteration's bound).  A whole-iteration
  walk given ``st[S_PARITY]`` (the parity of every solution's length) instead goes on with
  the next iteration itself while the budget lasts, and counts it in ``st[S_ITER]``: a short
  search is then one call instead of one per iteration (the calls' set-up was a tenth of
  Korf's 100);
* ``BUDGET_SPENT`` -- call again to go on exactly where it stopped;
* ``FRONTIER`` -- it reached depth ``st[S_CUT]`` (used to split an iteration into work units);
  calling again skips that node's subtree.

``f`` is ``g + h`` for an optimal search (``fcost`` None: numba compiles that kernel without
any test) and ``fcost[g, h]`` for a bounded-suboptimal one (see :mod:`solver.search.weights`).

Heuristics, each updated in O(1)-ish per move because a move slides exactly one tile:

* **additive pattern databases** (:func:`ida_pdb`) -- each tile belongs to one pattern whose
  table is indexed by the lexicographic rank of its tiles' cells.  Sliding a tile changes its
  own digit of that mixed-radix number by the step and, for a vertical step, the digits of the
  pattern tiles on the ``cols - 1`` cells it jumps over (:func:`_rank_after`, with the tables of
  :func:`solver.search.kernel_data.rank_delta_tables`).  The reflection lookup ranks the mirrored
  state the same way in a second frame, and each further database (the maximum of several
  partitions) in two more.  Every lookup's index is computed and prefetched for every child
  first (:mod:`solver.search.prefetch`: the cache misses overlap, as in the C reference); each
  lookup is then read only for the children the ones before did not prune.  Manhattan
  distance is the database of one-tile patterns.  *Zero-aware* tables hold two distances a
  placement, by the blank's region, packed into one byte
  (:class:`solver.search.kernel_data.ZeroAware`); the blank's class comes from a per-lookup cell
  mask, found for every child as it is generated on small boards and only where a
  placement's two distances differ on larger ones (:func:`_eager`);
* **linear conflict** (:func:`ida_lc`) -- Manhattan plus two moves for every tile that must
  leave its goal row (column) to let others pass; a move re-counts only the two lines it changes.

Everything is a plain numpy array, grouped in named tuples that numba compiles field by field:
the grouping costs nothing inside the loop and about 10 us to unpack per call, which the driver
makes once per slice of 10^5-10^7 nodes.  Why one long loop rather than more helpers: numba
increfs and decrefs the arrays an inlined helper receives wherever its body branches, and the
refcount traffic of ``_push``/``_pop``/``_expand`` helpers made the loop 3-7 times slower
(measured); ``_rank_after`` is straight-line code and costs nothing, ``_f`` is chosen by type.  Imports: numpy, numba, :mod:`solver.core.board`.
"""

from __future__ import annotations

import numpy as np

from ..core.numba_start import import_numba

import_numba()  # without scipy: numba imports it only to check its version
from numba import njit, types  # noqa: E402
from numba.extending import overload  # noqa: E402

from ..core.board import BLANK  # noqa: E402
from ..core.packing import VALUE_MASK  # noqa: E402
from ..core.regions_jit import class_value  # noqa: E402
from .kernel_data import Frames, Lines, Moves  # noqa: F401,E402 - the kernels' argument types
from .prefetch import prefetch, prefetch_at, read_at  # noqa: E402
from .walk_state import (  # noqa: F401,E402 - the statuses and slots the kernels share
    BUDGET_SPENT,
    C_BEST,
    C_FSM,
    C_MOVE,
    C_SEL,
    FOUND,
    FRAME_BASE,
    FRONTIER,
    INFINITE_F,
    ITERATION_DONE,
    NO_CUT,
    NO_MOVE,
    NO_PARITY,
    S_BLANK,
    S_BOUND,
    S_CUT,
    S_DEPTH,
    S_EXP,
    S_GEN,
    S_ITER,
    S_LEAST_H,
    S_NEXT,
    S_PARITY,
    S_ROOT,
    STATE_SLOTS,
)
from .walk_state import line_conflicts as _line_conflicts  # noqa: E402
from .walk_state import unsigned as _u  # noqa: E402

# --- pieces shared by the kernels ------------------------------------------------------------


@overload(_u, inline="always")
def _u_typed(i):
    # ``i`` as an unsigned index.  numba lets a signed index count from the end of the array,
    # which costs a compare and a select per subscript; every index in the kernels is known
    # not to be negative, and subscripting with ``_u(i)`` drops that test (10-15 % of the
    # kernel time on Korf's 100, measured in-process against the same kernel without it).
    return lambda i: np.uint64(i)


def _f(g, h, fcost):
    """The cost that is compared with the bound: ``g + h`` for an optimal search (``fcost``
    None), ``fcost[g, h]`` for a bounded-suboptimal one (h beyond the table's last column reads
    that column, which only prunes less)."""
    if fcost is None:
        return g + h
    return fcost[g, min(h, fcost.shape[1] - 1)]


@overload(_f, inline="always")
def _f_typed(g, h, fcost):
    # Chosen by the type of fcost when the kernel is compiled: the optimal kernel is plain
    # `g + h`, with no test in the loop.
    if isinstance(fcost, types.NoneType):
        return lambda g, h, fcost: g + h
    return lambda g, h, fcost: fcost[g, min(h, fcost.shape[1] - 1)]


def _read(first, deltas, tab, r):
    """Entry ``r`` of database ``tab``: the ``first`` one's table, or the one that starts
    ``deltas[tab]`` bytes from it (``deltas`` None: there is only one)."""
    if deltas is None:
        return first[r]
    return read_at(first, deltas[tab], r)


@overload(_read, inline="always")
def _read_typed(first, deltas, tab, r):
    # Chosen by the type of deltas when the kernel is compiled: with one database the lookup
    # is a plain subscript; with several, one array is read at an offset (a branch between
    # arrays costs a reference count per lookup: see solver.search.prefetch).
    if isinstance(deltas, types.NoneType):
        return lambda first, deltas, tab, r: first[r]
    return lambda first, deltas, tab, r: read_at(first, deltas[tab], r)


def _hint(first, deltas, tab, r):
    """Start loading the entry :func:`_read` reads."""


@overload(_hint, inline="always")
def _hint_typed(first, deltas, tab, r):
    if isinstance(deltas, types.NoneType):
        return lambda first, deltas, tab, r: prefetch(first, r)
    return lambda first, deltas, tab, r: prefetch_at(first, deltas[tab], r)


def _blank_class(zero, masks, f, p, m, blank):
    """Which of a two-class table's distances lookup f reads for its pattern p after move m
    (the blank now on board cell ``blank``): 0 (MAIN) with the blank in the main region of
    the pattern's free cells, 1 (OTHER) elsewhere; always 0 for other tables."""


@overload(_blank_class, inline="always")
def _blank_class_typed(zero, masks, f, p, m, blank):
    if isinstance(zero, types.NoneType):
        return lambda zero, masks, f, p, m, blank: 0

    def blank_class(zero, masks, f, p, m, blank):
        cells = masks[_u(f), _u(p)] ^ zero.xmask[_u(f), _u(m)]
        c = cells if len(zero.chunks) == 0 else 0  # small boards: the set is the index
        seen = 0
        for j in range(len(zero.chunks)):  # the colex rank of the cell set, a byte at a time
            byte = (cells >> (8 * j)) & 255
            c += zero.part[j, _u(seen), _u(byte)]
            seen += zero.ones[_u(byte)]
        main = zero.main[_u(zero.moff[_u(f), _u(p)] + c)]
        return 1 - ((main >> zero.bcell[_u(f), _u(blank)]) & 1)

    return blank_class


def _eager(zero) -> bool:
    """Whether a kernel over the two-class tables ``zero`` (a numba type) finds the blank's
    class for every child and lookup as it generates them -- where the class is one table
    read away (boards of up to 16 cells: ``ZeroAware.chunks`` is empty) -- or only where a
    placement's two distances differ (larger boards, where it takes a rank; most children are
    pruned before their later lookups are read, and a maximum of several databases has up
    to eight lookups a child).  Measured both ways: on the 80-move 15-puzzles eager took
    6.75-6.98 s against lazy's 8.03-8.07 s; on Korf & Felner's #37, where the race picks a
    maximum of two cuts, eager took 63.2 s for 1.49 G nodes (research table, section 8)."""
    return len(zero.types[zero.fields.index("chunks")]) == 0


def _stored(r, zero, masks, f, p, m, blank):
    """What a child keeps of lookup f's placement ``r`` of its pattern p after move m (the
    blank now on board cell ``blank``): ``r``, or with an eager two-class table the placement
    and its class, ``2 * r + class``."""


@overload(_stored, inline="always")
def _stored_typed(r, zero, masks, f, p, m, blank):
    if isinstance(zero, types.NoneType) or not _eager(zero):
        return lambda r, zero, masks, f, p, m, blank: r
    return lambda r, zero, masks, f, p, m, blank: 2 * r + _blank_class(zero, masks, f, p, m, blank)


def _placement(kept, zero):
    """The placement a child's :func:`_stored` value stands for."""


@overload(_placement, inline="always")
def _placement_typed(kept, zero):
    if isinstance(zero, types.NoneType) or not _eager(zero):
        return lambda kept, zero: kept
    return lambda kept, zero: kept >> 1


def _entry(first, deltas, tab, kept, zero, masks, f, p, m, blank):
    """Lookup f's value for a child's :func:`_stored` ``kept`` (its pattern p, after move m,
    the blank on board cell ``blank``): the table's entry; of a two-class table (one packed
    byte a placement: :func:`solver.core.regions_jit.pack_classes`) the distance of the blank's
    class, looked for on larger boards only where the placement's two classes differ."""


@overload(_entry, inline="always")
def _entry_typed(first, deltas, tab, kept, zero, masks, f, p, m, blank):
    if isinstance(zero, types.NoneType):
        return lambda first, deltas, tab, kept, zero, masks, f, p, m, blank: _read(
            first, deltas, tab, _u(kept)
        )
    if _eager(zero):

        def eager(first, deltas, tab, kept, zero, masks, f, p, m, blank):
            return class_value(_read(first, deltas, tab, _u(kept >> 1)), kept & 1)

        return eager

    def lazy(first, deltas, tab, kept, zero, masks, f, p, m, blank):
        e = _read(first, deltas, tab, _u(kept))
        if e <= VALUE_MASK:  # both classes at the same distance
            return e
        return class_value(e, _blank_class(zero, masks, f, p, m, blank))

    return lazy


def _flip(masks, f, p, m, zero):
    """Move m's tile leaves one cell of its pattern's set and enters the other (the same
    XOR undoes it); nothing without zero-aware tables."""


@overload(_flip, inline="always")
def _flip_typed(masks, f, p, m, zero):
    if isinstance(zero, types.NoneType):
        return lambda masks, f, p, m, zero: None

    def flip(masks, f, p, m, zero):
        masks[_u(f), _u(p)] ^= zero.xmask[_u(f), _u(m)]

    return flip


@njit(cache=True, inline="always")
def _rank_after(frames, f, tiles, t, m, rank):
    """The rank of tile t's pattern in lookup f after move m slides t, given the rank before:
    it moves by ``sgn * (wt[t] * step + sum of contrib[t, u] over the jumped cells)``."""
    delta = frames.wt[_u(f), _u(t)] * frames.step[_u(f), _u(m)]
    for j in range(len(frames.over)):  # a constant: the loop unrolls
        delta += frames.contrib[_u(f), _u(t), _u(tiles[_u(frames.btw[_u(f), _u(m), _u(j)])])]
    return rank + frames.sgn[_u(f), _u(m)] * delta


# --- additive pattern databases --------------------------------------------------------------


@njit(cache=True, nogil=True)
def ida_pdb(node, stack, st, first, deltas, frames, moves, fsm, fcost, order, zero, budget):
    """Resume an IDA* walk over additive pattern databases for about ``budget`` generated
    nodes; return FOUND, ITERATION_DONE, BUDGET_SPENT or FRONTIER (see the module docstring).

    ``node``/``stack``/``st`` are the walk's state, ``first`` the first database (one array
    of its pattern tables joined), ``deltas`` None for one database, else where each
    database's array starts in bytes from ``first`` (:attr:`solver.search.kernel_data.Plan.deltas`:
    an array of arrays, or a tuple indexed at run time, would cost a reference count per
    lookup), ``frames`` the lookups
    (:class:`Frames`; the heuristic is the largest of their sums), ``fsm`` the pruning
    machine's transitions, ``order`` enters children smallest h first, ``zero`` None or the
    :class:`solver.search.kernel_data.ZeroAware` arrays of two-class tables."""
    tiles, ranks, vals, masks = node
    path, kid, nkid, kidx, hs, saved, fstate = stack
    nf = len(frames.ids)  # a constant of the compiled kernel: the loops over lookups unroll
    d = st[S_DEPTH]
    blank = st[S_BLANK]
    bound = st[S_BOUND]
    nxt = st[S_NEXT]
    root = st[S_ROOT]
    cut = st[S_CUT]
    parity = st[S_PARITY]  # NO_PARITY but for a walk of whole iterations (Walk.enter says)
    least = st[S_LEAST_H]
    gen = 0
    exp = 0
    status = ITERATION_DONE
    if d == cut and d > root:  # resuming on a frontier node: skip its subtree
        nkid[_u(d)] = 0
    expand = nkid[_u(d)] < 0
    while True:
        if expand:
            # Generate every child of the node at depth d and keep those within the bound.
            # First every lookup's table index for every child, each hinted to the cache, so
            # that their misses overlap; then the lookups in turn, each only for the children
            # the ones before did not prune.
            expand = False
            prev = NO_MOVE if d == 0 else (path[_u(d - 1)] & 3)
            row = blank * 5 + prev
            here = fstate[_u(d)]
            n = 0
            for j in range(moves.succ_n[_u(row)]):
                m = moves.succ[_u(row), _u(j)]
                s = fsm[_u(here), _u(m & 3)]
                if s < 0:  # the move completes a duplicate string: an equal path is searched
                    continue
                t = tiles[_u(moves.nb[_u(m)])]  # the tile that slides onto the blank's cell
                kid[_u(d), _u(n), C_MOVE] = m
                kid[_u(d), _u(n), C_FSM] = s
                kid[_u(d), _u(n), C_BEST] = 0
                kid[_u(d), _u(n), C_SEL] = n
                for fr in range(nf):
                    p = frames.pat[_u(fr), _u(t)]
                    r = _rank_after(frames, fr, tiles, t, m, ranks[_u(fr), _u(p)])
                    _hint(first, deltas, frames.tab[_u(fr)], _u(r))
                    kept = _stored(r, zero, masks, fr, p, m, moves.nb[_u(m)])
                    kid[_u(d), _u(n), _u(FRAME_BASE + 3 * fr)] = kept
                n += 1
            cnt = n
            g1 = d + 1
            for fr in range(nf):
                if cnt == 0:
                    break
                base = FRAME_BASE + 3 * fr
                keep = 0
                for i in range(cnt):
                    k = kid[_u(d), _u(i), C_SEL]
                    m = kid[_u(d), _u(k), C_MOVE]
                    nb = moves.nb[_u(m)]
                    p = frames.pat[_u(fr), _u(tiles[_u(nb)])]
                    kept = kid[_u(d), _u(k), _u(base)]
                    v = np.int64(
                        _entry(first, deltas, frames.tab[_u(fr)], kept, zero, masks, fr, p, m, nb)
                    )
                    hc = hs[_u(d), _u(fr)] - vals[_u(fr), _u(p)] + v
                    kid[_u(d), _u(k), _u(base + 1)] = v
                    kid[_u(d), _u(k), _u(base + 2)] = hc
                    if hc > kid[_u(d), _u(k), C_BEST]:
                        kid[_u(d), _u(k), C_BEST] = hc
                    kid[_u(d), _u(keep), C_SEL] = k
                    f = _f(g1, hc, fcost)
                    over = f > bound
                    keep += 1 - over
                    if over and f < nxt:
                        nxt = f
                cnt = keep
            if order and cnt > 1:
                # Enter the most promising child first (smallest h): in the last iteration the
                # goal tends to be reached sooner.
                for i in range(1, cnt):
                    k = kid[_u(d), _u(i), C_SEL]
                    key = kid[_u(d), _u(k), C_BEST]
                    j = i
                    while j > 0:
                        k2 = kid[_u(d), _u(j - 1), C_SEL]
                        if kid[_u(d), _u(k2), C_BEST] <= key:
                            break
                        kid[_u(d), _u(j), C_SEL] = k2
                        j -= 1
                    kid[_u(d), _u(j), C_SEL] = k
            nkid[_u(d)] = cnt
            kidx[_u(d)] = 0
            gen += n
            exp += 1
            if gen >= budget:
                status = BUDGET_SPENT
                break
        i = kidx[_u(d)]
        if i >= nkid[_u(d)]:
            # Every child entered: undo the move that led here.
            if d == root:
                again = nxt + ((nxt ^ parity) & 1)
                if parity < 0 or gen >= budget or again + 2 > path.shape[0]:
                    status = ITERATION_DONE  # (or a deeper stack is needed: the caller's)
                    break
                # The next iteration, as the walk would be entered for it.
                bound = again
                nxt = INFINITE_F
                st[S_ITER] += 1
                expand = True
                continue
            d -= 1
            e = path[_u(d)] >> 2
            t = tiles[_u(e)]
            tiles[_u(blank)] = t
            tiles[_u(e)] = BLANK
            blank = e
            for fr in range(nf):
                p = frames.pat[_u(fr), _u(t)]
                ranks[_u(fr), _u(p)] = saved[_u(d), _u(2 * fr)]
                vals[_u(fr), _u(p)] = saved[_u(d), _u(2 * fr + 1)]
                _flip(masks, fr, p, path[_u(d)], zero)
            continue
        # Enter the next child.
        kidx[_u(d)] = i + 1
        k = kid[_u(d), _u(i), C_SEL]
        m = kid[_u(d), _u(k), C_MOVE]
        nb = moves.nb[_u(m)]
        t = tiles[_u(nb)]
        for fr in range(nf):
            p = frames.pat[_u(fr), _u(t)]
            base = FRAME_BASE + 3 * fr
            saved[_u(d), _u(2 * fr)] = ranks[_u(fr), _u(p)]
            saved[_u(d), _u(2 * fr + 1)] = vals[_u(fr), _u(p)]
            ranks[_u(fr), _u(p)] = _placement(kid[_u(d), _u(k), _u(base)], zero)
            vals[_u(fr), _u(p)] = kid[_u(d), _u(k), _u(base + 1)]
            _flip(masks, fr, p, m, zero)
            hs[_u(d + 1), _u(fr)] = kid[_u(d), _u(k), _u(base + 2)]
        tiles[_u(blank)] = t
        tiles[_u(nb)] = BLANK
        path[_u(d)] = m
        blank = nb
        fstate[_u(d + 1)] = kid[_u(d), _u(k), C_FSM]
        h = kid[_u(d), _u(k), C_BEST]
        if h < least:
            least = h
        d += 1
        if hs[_u(d), 0] == 0:  # every pattern home: the goal
            status = FOUND
            break
        if d == cut:
            status = FRONTIER
            break
        expand = True
    st[S_DEPTH] = d
    st[S_BLANK] = blank
    st[S_BOUND] = bound
    st[S_NEXT] = nxt
    st[S_LEAST_H] = least
    st[S_GEN] += gen
    st[S_EXP] += exp
    return status


# --- linear conflict -------------------------------------------------------------------------

line_conflicts = njit(cache=True, inline="always")(_line_conflicts)


@njit(cache=True, nogil=True)
def ida_lc(tiles, conflicts, stack, st, lines, moves, fsm, fcost, use_lc, scratch, budget):
    """Resume an IDA* walk with Manhattan distance (+ linear conflict when ``use_lc``) for
    about ``budget`` generated nodes; same protocol as :func:`ida_pdb`.

    ``conflicts[0, r]`` / ``conflicts[1, c]`` hold the conflicts of row r / column c;
    children are generated one at a time (``stack.kidx[d]`` indexes the successor list), and
    ``stack.saved[d]`` keeps the two line values the move at depth d replaced."""
    path, _, _, kidx, hs, saved, fstate = stack
    md, grow, gcol, rows, cols = lines
    rowc = conflicts[0]
    colc = conflicts[1]
    d = st[S_DEPTH]
    blank = st[S_BLANK]
    bound = st[S_BOUND]
    nxt = st[S_NEXT]
    root = st[S_ROOT]
    cut = st[S_CUT]
    gen = 0
    exp = 0
    h = hs[_u(d), 0]
    status = ITERATION_DONE
    if d == cut and d > root:  # resuming on a frontier node: skip its subtree
        kidx[_u(d)] = 4
    while True:
        prev = NO_MOVE if d == 0 else (path[_u(d - 1)] & 3)
        row = blank * 5 + prev
        k = kidx[_u(d)]
        if k >= moves.succ_n[_u(row)]:
            if d == root:
                status = ITERATION_DONE
                break
            d -= 1
            m = path[_u(d)]
            e = m >> 2
            t = tiles[_u(e)]
            tiles[_u(blank)] = t
            tiles[_u(e)] = BLANK
            if use_lc:
                if (m & 3) < 2:  # vertical: the tile changed rows
                    rowc[_u(blank // cols)] = saved[_u(d), 0]
                    rowc[_u(e // cols)] = saved[_u(d), 1]
                else:
                    colc[_u(blank % cols)] = saved[_u(d), 0]
                    colc[_u(e % cols)] = saved[_u(d), 1]
            blank = e
            h = hs[_u(d), 0]
            continue
        kidx[_u(d)] = k + 1
        m = moves.succ[_u(row), _u(k)]
        s = fsm[_u(fstate[_u(d)]), _u(m & 3)]
        if s < 0:  # a duplicate string (see ida_pdb)
            continue
        nb = moves.nb[_u(m)]
        t = tiles[_u(nb)]
        hc = h + md[_u(t), _u(blank)] - md[_u(t), _u(nb)]
        gen += 1
        if use_lc:
            # Slide the tile, then re-count the two lines it left and entered.
            tiles[_u(blank)] = t
            tiles[_u(nb)] = BLANK
            if (m & 3) < 2:
                a, b = nb // cols, blank // cols
                oa, ob = rowc[_u(a)], rowc[_u(b)]
                na = line_conflicts(tiles, a * cols, 1, cols, a, grow, gcol, scratch)
                nb2 = line_conflicts(tiles, b * cols, 1, cols, b, grow, gcol, scratch)
            else:
                a, b = nb % cols, blank % cols
                oa, ob = colc[_u(a)], colc[_u(b)]
                na = line_conflicts(tiles, a, cols, rows, a, gcol, grow, scratch)
                nb2 = line_conflicts(tiles, b, cols, rows, b, gcol, grow, scratch)
            hc += 2 * (na + nb2 - oa - ob)
            f = _f(d + 1, hc, fcost)
            if f > bound:
                tiles[_u(nb)] = t
                tiles[_u(blank)] = BLANK
                if f < nxt:
                    nxt = f
                continue
            saved[_u(d), 0] = oa
            saved[_u(d), 1] = ob
            if (m & 3) < 2:
                rowc[_u(a)] = na
                rowc[_u(b)] = nb2
            else:
                colc[_u(a)] = na
                colc[_u(b)] = nb2
        else:
            f = _f(d + 1, hc, fcost)
            if f > bound:
                if f < nxt:
                    nxt = f
                continue
            tiles[_u(blank)] = t
            tiles[_u(nb)] = BLANK
        path[_u(d)] = m
        blank = nb
        fstate[_u(d + 1)] = s
        d += 1
        h = hc
        hs[_u(d), 0] = h
        kidx[_u(d)] = 0
        if h == 0:
            status = FOUND
            break
        if d == cut:
            status = FRONTIER
            break
        exp += 1
        if gen >= budget:
            status = BUDGET_SPENT
            break
    st[S_DEPTH] = d
    st[S_BLANK] = blank
    st[S_NEXT] = nxt
    st[S_GEN] += gen
    st[S_EXP] += exp
    return status
