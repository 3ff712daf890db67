"""What a walk of IDA* shares with its kernels: what a kernel call returns, the slots of its
state vector, the :class:`Node` and :class:`Stack` it walks on, and the line conflicts of one
row or column (layer 3: search).

The compiled kernels (:mod:`solver.engine`, whose C states the same constants) read
these, and :mod:`solver.search.walk` drives them with them.  :func:`line_conflicts` counts a
line's conflicts at a walk's start (once per search); the kernel updates them move by move.

Imports: numpy, :mod:`solver.core.board`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..core.board import BLANK

# What a kernel call returns.
FOUND, ITERATION_DONE, BUDGET_SPENT, FRONTIER = 1, 2, 3, 4
# Slots of the int64 state vector a kernel shares with its caller across calls.
S_DEPTH, S_BLANK, S_BOUND, S_NEXT, S_GEN, S_EXP, S_ROOT, S_CUT, S_PARITY, S_ITER = range(10)
S_LEAST_H = 10  # the least h of a node entered since the walk was placed (units.promising_first)
STATE_SLOTS = 11
NO_PARITY = -1  # S_PARITY of a walk that stops at the end of every iteration
NO_MOVE = 4  # "previous direction" at the search's start: nothing to avoid undoing
INFINITE_F = 1 << 40
NO_CUT = -1  # S_CUT when the walk is not splitting

# Fields of the k-th child of the node at depth d, ``kid[d, k]``: move id, the pruning
# machine's state, the largest h of its lookups so far, then per lookup f its pattern's rank
# (:func:`_stored`: of an eager two-class table 2 * rank + class) and value and the
# lookup's sum (fields FRAME_BASE + 3f, + 1, + 2).  ``kid[d, i, C_SEL]`` is
# another list: the children within the bound, in the order they are to be entered.
C_MOVE, C_SEL, C_FSM, C_BEST = range(4)
FRAME_BASE = 4


class Node(NamedTuple):
    """The board at the top of the stack: ``tiles[cell]``, and per lookup f (see
    :class:`solver.search.kernel_data.Plan`) and pattern p the table index ``ranks[f, p]`` (offset
    included), its value ``vals[f, p]`` and the pattern's cells ``masks[f, p]`` (read only
    with zero-aware tables)."""

    tiles: np.ndarray
    ranks: np.ndarray
    vals: np.ndarray
    masks: np.ndarray


class Stack(NamedTuple):
    """Per depth d of the walk: ``path[d]`` the move id taken at d, ``kid[d, :nkid[d]]`` the
    children (nkid -1: not expanded yet; the linear-conflict kernel generates children one by
    one and uses ``kidx[d]`` alone), ``kidx[d]`` the next one to enter, ``h[d, f]`` lookup f's
    sum, ``saved[d]`` the values the move at d overwrote (for the undo), ``fsm[d]`` the
    pruning machine's state at the node of depth d (:mod:`solver.search.fsm`)."""

    path: np.ndarray
    kid: np.ndarray
    nkid: np.ndarray
    kidx: np.ndarray
    h: np.ndarray
    saved: np.ndarray
    fsm: np.ndarray


def new_stack(depth: int, lookups: int = 1) -> Stack:
    """Zeroed stack arrays for walks up to ``depth`` moves deep with ``lookups`` lookups."""
    z = depth + 2
    return Stack(
        np.zeros(z, np.int64),
        np.zeros((z, 4, FRAME_BASE + 3 * lookups), np.int64),
        np.zeros(z, np.int64),
        np.zeros(z, np.int64),
        np.zeros((z, lookups), np.int64),
        np.zeros((z, max(2, 2 * lookups)), np.int64),
        np.zeros(z, np.int64),
    )


# --- linear conflict -------------------------------------------------------------------------


def line_conflicts(tiles, first, stride, count, line, goal_line, goal_pos, scratch):
    """Tiles to lift out of one line so the rest stand in goal order: the number of tiles
    of the line that belong to it, minus the longest increasing run of their goal positions
    (the compiled kernel's ``line_conflicts``, which updates it on every move)."""
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
