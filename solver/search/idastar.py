"""IDA* with an incrementally updated heuristic: the numba kernels and the ``solve`` wrapper
(layer 5: search).

The kernels take plain numpy arrays and ints.  A search is a depth-first walk with an explicit
stack (so it can stop after a node budget and be resumed exactly where it stopped); each
iteration searches every path whose ``f = g + h`` stays within a threshold, never undoing the
previous move, and the next threshold is the smallest ``f`` that went over it.

Heuristics, all updated in O(1)-ish per move because a move slides exactly one tile:

* **additive pattern databases** -- each tile belongs to one pattern; the pattern's table is
  indexed by the lexicographic rank of its tiles' cells (:func:`solver.ranking.rank`).  The rank
  is a mixed-radix number whose digit for tile i counts the free cells below it, so sliding a
  tile changes its own digit by the step and, for a vertical step, the digits of the pattern
  tiles standing on the ``cols - 1`` cells it jumps over: a few table lookups (see
  :func:`solver.idastar_plans.rank_delta_tables`).  With the reflection lookup the mirrored state (transposed,
  tiles relabelled so the goal maps to itself) is ranked the same way, and its lookup is done
  only for children that the normal sum did not already prune;
* **Manhattan distance** -- exactly a pattern database of one-tile patterns, so it runs on the
  same kernel with tables of grid distances;
* **linear conflict** -- Manhattan plus two moves for every tile that must leave its goal row
  (column) to let others pass; a move re-evaluates only the two lines it changes.

The arrays the kernels read (move tables, rank-update tables, the joined pattern tables) are
prepared as *plans* by :mod:`solver.idastar_plans`, which also chooses the database for a goal.

Imports: numpy, numba, :mod:`solver.idastar_plans` and the solver core.
"""
from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass

import numpy as np

from ..core.numba_start import import_numba

import_numba()  # without scipy: numba imports it only to check its version
from numba import njit  # noqa: E402

from ..core.board import BLANK, MOVES, Board, BoardError
from .plans import (  # noqa: F401 - the plans are part of this module's interface
    Plan, clear_cache, lc_plan, manhattan_plan, move_tables, pdb_plan, pdb_plan_from, plan_for,
)
from ..core.solution import STATUS_LIMIT, SearchLimitReached, Solution
from ..tables.catalog import damaged

# Kernel status codes.
FOUND, ITERATION_DONE, BUDGET_SPENT = 1, 2, 3
# Slots of the int64 state vector shared by the kernel and its caller across slices.
S_DEPTH, S_BLANK, S_BOUND, S_NEXT, S_GEN, S_EXP = range(6)
STATE_SLOTS = 6
NO_MOVE = 4  # "previous direction" at the root: nothing to avoid undoing
INFINITE_F = 1 << 30
# Nodes per kernel call between clock checks: the first slice is small so easy puzzles pay
# nothing; later slices aim at about SLICE_SECONDS of search each.
FIRST_SLICE = 1 << 18
MAX_SLICE = 1 << 26
SLICE_SECONDS = 0.05
# Enter children smallest h first (7-13% fewer nodes on Korf's 100); NPUZZLE_ORDER=0 turns it
# off, for experiments.
ORDER_CHILDREN = os.environ.get("NPUZZLE_ORDER", "1") == "1"


# --- kernels ---------------------------------------------------------------------------------


# Fields of the k-th child of the node at depth d, ``kid[d, k]``: move id, normal rank and value,
# mirrored rank and value, normal and mirrored h.  ``kid[d, i, C_SEL]`` is another list: the
# children within the bound, in the order they are to be entered.
C_MOVE, C_RANK, C_VAL, C_RANKM, C_VALM, C_H, C_HM, C_SEL = range(8)
CHILD_FIELDS = 8


@njit(cache=True)
def _ida_pdb(tiles, st, path, kid, nkid, kidx, hst, hmst, sv, ranks, vals, ranksm, valsm,
             table, pat, wt, contrib, patm, wtm, contribm,
             mv_nb, mv_sgn, mv_sgnm, mv_step, mv_stepm, mv_btw, mv_btwm, succ, succ_n,
             reflect, budget, order):
    """Resume an IDA* iteration over additive pattern databases for about ``budget``
    generated nodes; return FOUND, ITERATION_DONE or BUDGET_SPENT.

    ``tiles`` is the board at the top of the stack (depth ``st[S_DEPTH]``); ``ranks[p]`` /
    ``vals[p]`` the table index (offset included) and value of pattern p there, ``ranksm`` /
    ``valsm`` the same for the mirrored state.  Per depth d: ``path[d]`` the move id (blank
    cell * 4 + direction) taken, ``kid[d, :nkid[d]]`` the children within the bound (nkid -1:
    not expanded yet) and ``kidx[d]`` the next one to enter, ``hst``/``hmst`` the normal and
    mirrored h, ``sv[d]`` the four values the move at depth d overwrote.
    """
    d = st[S_DEPTH]
    blank = st[S_BLANK]
    bound = st[S_BOUND]
    nxt = st[S_NEXT]
    nbtw = mv_btw.shape[1]
    gen = 0
    exp = 0
    status = ITERATION_DONE
    expand = nkid[d] < 0
    while True:
        if expand:
            # Generate every child of the node at depth d and keep those within the bound.
            # The siblings' table lookups do not depend on each other, so their cache misses
            # overlap.
            expand = False
            prev = NO_MOVE if d == 0 else (path[d - 1] & 3)
            row = blank * 5 + prev
            n = succ_n[row]
            h = hst[d]
            g1 = d + 1
            cnt = 0
            for k in range(n):
                m = succ[row, k]
                t = tiles[mv_nb[m]]  # the tile that slides onto the blank's cell
                p = pat[t]
                # Branch-free: a horizontal slide jumps over no cell, its list points at the
                # blank (tile 0 contributes nothing).
                dl = wt[t] * mv_step[m]
                for j in range(nbtw):
                    dl += contrib[t, tiles[mv_btw[m, j]]]
                r2 = ranks[p] + mv_sgn[m] * dl
                v2 = np.int64(table[r2])
                hc = h - vals[p] + v2
                kid[d, k, C_MOVE] = m
                kid[d, k, C_RANK] = r2
                kid[d, k, C_VAL] = v2
                kid[d, k, C_H] = hc
                kid[d, k, C_HM] = hc
                kid[d, cnt, C_SEL] = k
                f = g1 + hc
                over = f > bound
                cnt += 1 - over
                if over and f < nxt:
                    nxt = f
            if reflect and cnt > 0:
                # The mirrored lookup only for the children the normal sum did not prune.
                hm = hmst[d]
                keep = 0
                for i in range(cnt):
                    k = kid[d, i, C_SEL]
                    m = kid[d, k, C_MOVE]
                    t = tiles[mv_nb[m]]
                    q = patm[t]
                    dm = wtm[t] * mv_stepm[m]
                    for j in range(nbtw):
                        dm += contribm[t, tiles[mv_btwm[m, j]]]
                    rm2 = ranksm[q] + mv_sgnm[m] * dm
                    vm2 = np.int64(table[rm2])
                    hcm = hm - valsm[q] + vm2
                    kid[d, k, C_RANKM] = rm2
                    kid[d, k, C_VALM] = vm2
                    kid[d, k, C_HM] = hcm
                    kid[d, keep, C_SEL] = k
                    f = g1 + hcm
                    over = f > bound
                    keep += 1 - over
                    if over and f < nxt:
                        nxt = f
                cnt = keep
            if order and cnt > 1:
                # Enter the most promising child first (smallest h): in the last iteration the
                # goal tends to be reached sooner.
                for i in range(1, cnt):
                    k = kid[d, i, C_SEL]
                    key = max(kid[d, k, C_H], kid[d, k, C_HM])
                    j = i
                    while j > 0:
                        k2 = kid[d, j - 1, C_SEL]
                        if max(kid[d, k2, C_H], kid[d, k2, C_HM]) <= key:
                            break
                        kid[d, j, C_SEL] = k2
                        j -= 1
                    kid[d, j, C_SEL] = k
            nkid[d] = cnt
            kidx[d] = 0
            gen += n
            exp += 1
            if gen >= budget:
                status = BUDGET_SPENT
                break
        i = kidx[d]
        if i >= nkid[d]:
            # Every child entered: undo the move that led here.
            if d == 0:
                status = ITERATION_DONE
                break
            d -= 1
            m = path[d]
            e = m >> 2
            t = tiles[e]
            tiles[blank] = t
            tiles[e] = BLANK
            blank = e
            ranks[pat[t]] = sv[d, 0]
            vals[pat[t]] = sv[d, 1]
            if reflect:
                ranksm[patm[t]] = sv[d, 2]
                valsm[patm[t]] = sv[d, 3]
            continue
        kidx[d] = i + 1
        k = kid[d, i, C_SEL]
        m = kid[d, k, C_MOVE]
        nb = mv_nb[m]
        t = tiles[nb]
        p = pat[t]
        sv[d, 0] = ranks[p]
        sv[d, 1] = vals[p]
        ranks[p] = kid[d, k, C_RANK]
        vals[p] = kid[d, k, C_VAL]
        if reflect:
            q = patm[t]
            sv[d, 2] = ranksm[q]
            sv[d, 3] = valsm[q]
            ranksm[q] = kid[d, k, C_RANKM]
            valsm[q] = kid[d, k, C_VALM]
        tiles[blank] = t
        tiles[nb] = BLANK
        path[d] = m
        blank = nb
        hst[d + 1] = kid[d, k, C_H]
        hmst[d + 1] = kid[d, k, C_HM]
        d += 1
        if hst[d] == 0:  # every pattern home: the goal
            status = FOUND
            break
        expand = True
    st[S_DEPTH] = d
    st[S_BLANK] = blank
    st[S_NEXT] = nxt
    st[S_GEN] += gen
    st[S_EXP] += exp
    return status


@njit(cache=True, inline="always")
def _line_conflicts(tiles, first, stride, count, line, goal_line, goal_pos, scratch):
    """Tiles to lift out of one line so the rest stand in goal order: the number of tiles
    of the line that belong to it, minus the longest increasing run of their goal positions."""
    n = 0
    for i in range(count):
        u = tiles[first + i * stride]
        if u != BLANK and goal_line[u] == line:
            scratch[n] = goal_pos[u]
            n += 1
    if n < 2:
        return 0
    best = 0
    # Longest increasing subsequence by the O(n^2) recurrence; n is a board side.
    for i in range(n):
        run = 1
        for j in range(i):
            if scratch[j] < scratch[i] and scratch[count + j] + 1 > run:
                run = scratch[count + j] + 1
        scratch[count + i] = run
        if run > best:
            best = run
    return n - best


@njit(cache=True)
def _ida_lc(tiles, st, path, kidx, hst, sv, rowc, colc, md, grow, gcol, rows, cols,
            mv_nb, succ, succ_n, use_lc, scratch, budget):
    """Resume an IDA* iteration with Manhattan distance (+ linear conflict when ``use_lc``)
    for at most ``budget`` generated nodes; same protocol as :func:`_ida_pdb`.

    ``rowc[r]``/``colc[c]`` hold the conflicts of each row/column; ``sv[d]`` the two line
    values the move at depth d replaced."""
    d = st[S_DEPTH]
    blank = st[S_BLANK]
    bound = st[S_BOUND]
    nxt = st[S_NEXT]
    gen = 0
    exp = 0
    h = hst[d]
    status = ITERATION_DONE
    while True:
        prev = NO_MOVE if d == 0 else (path[d - 1] & 3)
        row = blank * 5 + prev
        k = kidx[d]
        if k >= succ_n[row]:
            if d == 0:
                status = ITERATION_DONE
                break
            d -= 1
            m = path[d]
            e = m >> 2
            t = tiles[e]
            tiles[blank] = t
            tiles[e] = BLANK
            if use_lc:
                if (m & 3) < 2:  # vertical: the tile changed rows
                    rowc[blank // cols] = sv[d, 0]
                    rowc[e // cols] = sv[d, 1]
                else:
                    colc[blank % cols] = sv[d, 0]
                    colc[e % cols] = sv[d, 1]
            blank = e
            h = hst[d]
            continue
        kidx[d] = k + 1
        m = succ[row, k]
        nb = mv_nb[m]
        t = tiles[nb]
        hc = h + md[t, blank] - md[t, nb]
        gen += 1
        if use_lc:
            # Slide the tile, then re-count the two lines it left and entered.
            tiles[blank] = t
            tiles[nb] = BLANK
            if (m & 3) < 2:
                a, b = nb // cols, blank // cols
                oa, ob = rowc[a], rowc[b]
                na = _line_conflicts(tiles, a * cols, 1, cols, a, grow, gcol, scratch)
                nb2 = _line_conflicts(tiles, b * cols, 1, cols, b, grow, gcol, scratch)
            else:
                a, b = nb % cols, blank % cols
                oa, ob = colc[a], colc[b]
                na = _line_conflicts(tiles, a, cols, rows, a, gcol, grow, scratch)
                nb2 = _line_conflicts(tiles, b, cols, rows, b, gcol, grow, scratch)
            hc += 2 * (na + nb2 - oa - ob)
            f = d + 1 + hc
            if f > bound:
                tiles[nb] = t
                tiles[blank] = BLANK
                if f < nxt:
                    nxt = f
                continue
            sv[d, 0] = oa
            sv[d, 1] = ob
            if (m & 3) < 2:
                rowc[a] = na
                rowc[b] = nb2
            else:
                colc[a] = na
                colc[b] = nb2
        else:
            f = d + 1 + hc
            if f > bound:
                if f < nxt:
                    nxt = f
                continue
            tiles[blank] = t
            tiles[nb] = BLANK
        path[d] = m
        blank = nb
        d += 1
        h = hc
        hst[d] = h
        kidx[d] = 0
        if h == 0:
            status = FOUND
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


def _numba_ready() -> None:
    """Load numba's CPU target without what the kernels never use (scipy, cffi, extension
    scans): see :mod:`solver.core.numba_start`."""
    from ..core.numba_start import load_cpu_target

    load_cpu_target()


def _line_values(plan: Plan, tiles: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    md, grow, gcol = plan.static
    rows, cols = plan.shape.rows, plan.shape.cols
    scratch = np.zeros(2 * max(rows, cols), dtype=np.int64)
    rowc = np.array([_line_conflicts(tiles, r * cols, 1, cols, r, grow, gcol, scratch)
                     for r in range(rows)], dtype=np.int64)
    colc = np.array([_line_conflicts(tiles, c, cols, rows, c, gcol, grow, scratch)
                     for c in range(cols)], dtype=np.int64)
    h = int(sum(md[t, c] for c, t in enumerate(tiles) if t)) + 2 * int(rowc.sum() + colc.sum())
    return rowc, colc, h


# --- the search driver -----------------------------------------------------------------------


@dataclass
class SearchResult:
    """What a finished (or stopped) search reports, in the plan's target frame."""

    moves: str | None
    root_h: int
    lower_bound: int
    generated: int
    expanded: int
    iterations: int
    seconds: float
    stopped: str | None = None  # why a limit stopped it


def _blank_parity(tiles, target: Board, cols: int) -> int:
    b = int(np.flatnonzero(tiles == BLANK)[0])
    g = target.blank
    return (abs(b // cols - g // cols) + abs(b % cols - g % cols)) & 1


def search(plan: Plan, tiles, *, timeout: float | None = None, max_nodes: int | None = None
           ) -> SearchResult:
    """Run IDA* from ``tiles`` (cell -> tile) to ``plan.target`` in kernel slices, checking the
    clock and the node cap between slices.  A KeyboardInterrupt arrives between slices."""
    _numba_ready()
    t0 = time.perf_counter()
    deadline = None if timeout is None else t0 + timeout
    tiles = np.array(tiles, dtype=np.int64)
    mt = move_tables(plan.shape)
    cols = plan.shape.cols
    parity = _blank_parity(tiles, plan.target, cols)
    if plan.kind == "pdb":
        ranks, vals, ranksm, valsm, h0, hm0 = plan.root(tiles)
        root_h = max(h0, hm0)
    else:
        rowc, colc, h0 = _line_values(plan, tiles)
        hm0 = h0
        root_h = h0
    bound = root_h + ((root_h ^ parity) & 1)  # a solution's length has the blank's parity
    cap = 64
    st = np.zeros(STATE_SLOTS, dtype=np.int64)
    iterations = 0
    slice_nodes = FIRST_SLICE
    stopped = None
    moves = None

    def fresh(cap):
        z = cap + 2
        return (np.zeros(z, dtype=np.int64), np.zeros(z, dtype=np.int64),
                np.zeros(z, dtype=np.int64), np.zeros(z, dtype=np.int64),
                np.zeros((z, 4), dtype=np.int64), np.zeros((z, 4, CHILD_FIELDS), dtype=np.int64),
                np.zeros(z, dtype=np.int64))

    path, kidx, hst, hmst, sv, kid, nkid = fresh(cap)
    if root_h == 0 and bound == 0:
        return SearchResult("", 0, 0, 0, 0, 0, time.perf_counter() - t0)
    new_iteration = True
    while True:
        if new_iteration:
            if bound > cap:
                cap = max(bound, 2 * cap)
                path, kidx, hst, hmst, sv, kid, nkid = fresh(cap)
            iterations += 1
            st[S_DEPTH], st[S_BLANK], st[S_BOUND], st[S_NEXT] = (
                0, int(np.flatnonzero(tiles == BLANK)[0]), bound, INFINITE_F)
            kidx[0] = 0
            nkid[0] = -1  # the root is expanded by the kernel
            hst[0], hmst[0] = h0, hm0
            new_iteration = False
        budget = slice_nodes
        if max_nodes is not None:
            budget = min(budget, max_nodes - int(st[S_GEN]))
            if budget <= 0:
                stopped = f"node limit of {max_nodes:,} reached"
                break
        ts = time.perf_counter()
        if plan.kind == "pdb":
            pat, wt, contrib, patm, wtm, contribm, sgn, sgnm, stp, stpm, btw, btwm = plan.static
            status = _ida_pdb(tiles, st, path, kid, nkid, kidx, hst, hmst, sv, ranks, vals,
                              ranksm, valsm,
                              plan.table, pat, wt, contrib, patm, wtm, contribm,
                              mt.nb, sgn, sgnm, stp, stpm, btw, btwm, mt.succ, mt.succ_n,
                              plan.reflect, budget, ORDER_CHILDREN)
        else:
            md, grow, gcol = plan.static
            scratch = np.zeros(2 * max(plan.shape.rows, cols), dtype=np.int64)
            status = _ida_lc(tiles, st, path, kidx, hst, sv, rowc, colc, md, grow, gcol,
                             plan.shape.rows, cols, mt.nb, mt.succ, mt.succ_n,
                             plan.name == "linear-conflict", scratch, budget)
        now = time.perf_counter()
        if status == FOUND:
            d = int(st[S_DEPTH])
            moves = "".join(MOVES[int(m) & 3] for m in path[:d])
            break
        if status == ITERATION_DONE:
            nxt = int(st[S_NEXT])
            if nxt >= INFINITE_F:
                raise damaged(plan.database or plan.name, "gave IDA* no path to the goal")
            bound = nxt + ((nxt ^ parity) & 1)
            new_iteration = True
        else:
            spent = now - ts
            if spent < SLICE_SECONDS / 2 and slice_nodes < MAX_SLICE:
                slice_nodes *= 2
        if deadline is not None and now >= deadline:
            stopped = f"time limit of {timeout:g} s reached"
            break
    lower = len(moves) if moves is not None else bound
    expanded = int(st[S_EXP]) + (iterations if plan.kind == "lc" else 0)
    return SearchResult(moves, root_h, lower, int(st[S_GEN]), expanded,
                        iterations, time.perf_counter() - t0, stopped)


def warm_up(goal: Board, opts) -> Plan:
    """Map the tables and load the compiled kernel that solving towards ``goal`` with
    ``opts`` needs (a one-move search), so that processes forked afterwards share both."""
    plan, _ = plan_for(goal, opts)
    target = plan.target
    search(plan, target.move(target.legal_moves()[0]).tiles)
    return plan


# --- the public wrapper ----------------------------------------------------------------------


def solve(start: Board, goal: Board, opts) -> Solution:
    """Solve ``start`` -> ``goal`` optimally with IDA* (algorithm ``"idastar"``).

    The heuristic follows ``opts.heuristic`` / ``opts.partition`` / ``opts.reflect``; goals other
    than the database's are reduced to it by relabelling and board symmetry, and the moves are
    mapped back.  ``opts.timeout`` / ``opts.max_nodes`` raise
    :class:`~solver.solution.SearchLimitReached` whose ``partial.lower_bound`` is the threshold
    of the iteration under way (every shorter length was ruled out).  Missing databases raise
    :class:`~solver.store.DatabaseMissing` with the command that builds them.
    """
    if start.shape != goal.shape:
        raise BoardError(f"start is {start.shape} but goal is {goal.shape}")
    t0 = time.perf_counter()
    plan, red = plan_for(goal, opts)
    res = search(plan, red.board(start).tiles, timeout=opts.timeout, max_nodes=opts.max_nodes)
    moves = res.moves
    if moves is not None:
        moves = red.moves_back(moves)
    sol = Solution(
        start=start,
        goal=goal,
        moves=moves,
        algorithm="idastar",
        optimal=moves is not None,
        heuristic=plan.name,
        database=plan.database,
        root_h=res.root_h,
        lower_bound=res.lower_bound,
        nodes_generated=res.generated,
        nodes_expanded=res.expanded,
        iterations=res.iterations,
        depth_reached=res.lower_bound,
        seconds=time.perf_counter() - t0,
        notice=plan.notice,
        extra={"search_seconds": round(res.seconds, 6)},
    )
    if res.stopped:
        sol.status = STATUS_LIMIT
        sol.optimal = None
        raise SearchLimitReached(sol, res.stopped)  # the CLI adds the proven lower bound
    return sol

