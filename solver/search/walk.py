"""One IDA* search in Python's hands: the :class:`Problem` every walk of a search shares (plan,
start, cost rule, the iteration bounds) and a :class:`Walk` -- the depth-first walk of one
iteration below one node, run in kernel slices, that can hand part of its remaining work to
another walk (layer 3: search; drives the compiled kernels of :mod:`solver.engine`).

A node is named by its *path*: the move ids (``blank cell * 4 + direction``) from the start.
A walk entered at the empty path searches a whole iteration; entered deeper it searches one
work unit (:mod:`solver.search.units`).

Imports: numpy, :mod:`solver.core`, the kernels' shared state (:mod:`solver.search.walk_state`),
plans and weights.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..core import config
from ..core.board import BLANK, MOVES
from ..core.solution import LC_HEURISTIC
from ..engine import engine
from ..tables.catalog import damaged
from . import walk_state
from .fsm import PRUNED, machine_for
from .kernel_data import Plan, move_tables
from .weights import NO_WEIGHTING, Weighting

# Enter children smallest h first (7-13% fewer nodes on Korf's 100); NPUZZLE_ORDER=0 turns it
# off, for experiments.
ORDER_CHILDREN = config.env_flag(config.ENV_ORDER, True)
READY = 0  # what Walk.enter returns when the walk has work to do


@dataclass
class Problem:
    """What every walk of one search shares: the ``plan`` (its tables are read, never copied),
    the ``start`` board (cell -> tile) in the plan's frame, the cost rule (None: optimal) and
    the depth of the duplicate-pruning machine (:mod:`solver.search.fsm`; None: only "never
    undo the previous move")."""

    plan: Plan
    start: tuple[int, ...]
    weighting: Weighting | None = None
    fsm_depth: int | None = None
    root_h: int = field(init=False)
    parity: int = field(init=False)  # the parity every solution's length has

    def __post_init__(self):
        self.start = tuple(int(t) for t in self.start)
        self.moves = move_tables(self.plan.shape)
        # Made once per process, read from the cache directory, or made and kept there (a
        # second the first time): never chosen by timing, so a search always gives the same
        # answer, in any process.
        self.machine = machine_for(self.plan.shape, self.fsm_depth)
        self.root = self.lookups(np.array(self.start, dtype=np.int64))  # every iteration's
        self.root_h = self.root[-1]
        cols, b, g = self.plan.shape.cols, self.start.index(BLANK), self.plan.target.blank
        self.parity = (abs(b // cols - g // cols) + abs(b % cols - g % cols)) & 1

    def lookups(self, tiles: np.ndarray) -> tuple:
        """What a walk needs to start at the board ``tiles``, the heuristic value last:
        ``(ranks, vals, masks, h)`` for pattern databases, ``(conflicts, h)`` for linear conflict."""
        if self.plan.kind == "pdb":
            ranks, vals, masks = self.plan.ranks(tiles)
            return ranks, vals, masks, int(vals.sum(axis=1).max())
        return line_values(self.plan, tiles)

    # --- bounds ------------------------------------------------------------------------------

    def cost(self, g: int, h: int) -> int:
        """What the kernels compare with the bound: ``g + h``, or the weighted ``F(g, h)``."""
        return g + h if self.weighting is None else int(self.weighting.cost(g, h))

    def first_bound(self) -> int:
        """The bound of the first iteration."""
        return self.next_bound(self.cost(0, self.root_h))

    def next_bound(self, f: int) -> int:
        """The bound of the iteration after one whose smallest pruned cost was ``f``: an
        optimal search rounds up to the parity of every solution's length."""
        if self.weighting is None:
            return f + ((f ^ self.parity) & 1)
        return f

    def depth_limit(self, bound: int) -> int:
        """The deepest a walk within ``bound`` goes."""
        return bound if self.weighting is None else self.weighting.depth_limit(bound)

    def lower_bound(self, bound: int) -> int:
        """The optimal length proven once an iteration with ``bound`` is under way."""
        if self.weighting is None:
            return bound
        return max(self.root_h, self.weighting.lower_bound(bound))

    def in_moves(self, bound: int) -> float:
        """A bound in moves, for people."""
        return bound if self.weighting is None else self.weighting.moves(bound)

    def fcost(self, bound: int) -> np.ndarray:
        """The kernels' cost table for walks within ``bound``."""
        if self.weighting is None:
            return NO_WEIGHTING
        depth = self.depth_limit(bound)
        return self.weighting.table(depth, self.root_h + depth + 1)  # h moves by <= 1 per move

    def exhausted(self):
        """Raise: every iteration ran out of nodes on a solvable puzzle, which only a wrong
        table can make happen (the one place that says so)."""
        raise damaged(self.plan.database or self.plan.name, "gave IDA* no path to the goal")

    # --- paths -------------------------------------------------------------------------------

    def path_of(self, moves: str) -> tuple[int, ...]:
        """The move ids of the blank's ``moves`` (letters) from the start."""
        blank, out = self.start.index(BLANK), []
        for letter in moves:
            m = blank * 4 + MOVES.index(letter)
            blank = int(self.moves.nb[m])
            if blank < 0:
                raise ValueError(f"move {letter} leaves the board in {moves!r}")
            out.append(m)
        return tuple(out)

    @staticmethod
    def letters(path) -> str:
        """The moves (letters) of a path of move ids."""
        return "".join(MOVES[int(m) & 3] for m in path)


def line_values(plan: Plan, tiles: np.ndarray) -> tuple[np.ndarray, int]:
    """``(conflicts, h)`` of linear conflict: ``conflicts[0, r]`` / ``[1, c]`` the conflicts of
    each row / column and the heuristic value (Manhattan + 2 per conflict)."""
    md, grow, gcol, rows, cols = plan.lines
    scratch = np.zeros(2 * max(rows, cols), dtype=np.int64)
    conflicts = np.zeros((2, max(rows, cols)), dtype=np.int64)
    for r in range(rows):
        conflicts[0, r] = walk_state.line_conflicts(
            tiles, r * cols, 1, cols, r, grow, gcol, scratch
        )
    for c in range(cols):
        conflicts[1, c] = walk_state.line_conflicts(tiles, c, cols, rows, c, gcol, grow, scratch)
    h = int(sum(md[t, c] for c, t in enumerate(tiles) if t)) + 2 * int(conflicts.sum())
    return conflicts, h


class Walk:
    """A resumable depth-first walk of one IDA* iteration below one node (its *root*).

    ``enter(path, bound)`` places it; ``run(budget)`` goes on for about ``budget`` generated
    nodes and returns the kernel's status; ``give_away()`` cuts off the untried children of
    the shallowest node on its path and returns their paths, for other walks.  Each walk owns
    its board and stack; the tables are the plan's, shared."""

    def __init__(self, problem: Problem):
        self.problem = problem
        self.plan = problem.plan
        self.st = np.zeros(walk_state.STATE_SLOTS, dtype=np.int64)
        self.lookup_count = max(1, len(self.plan.lookups))  # "lc" plans have none
        self.stack = walk_state.new_stack(64, self.lookup_count)
        self.tiles = np.array(problem.start, dtype=np.int64)
        self.node = None  # pdb: walk_state.Node
        self.conflicts = None  # lc: the line conflicts
        self.scratch = np.zeros(2 * max(self.plan.shape.rows, self.plan.shape.cols), np.int64)
        self.fcost = NO_WEIGHTING

    def enter(self, path, bound: int, cut: int = walk_state.NO_CUT, go_on: bool = False) -> int:
        """Place the walk on the node ``path`` (move ids from the start) for an iteration with
        ``bound``; with ``cut``, the walk stops at every node of that depth (FRONTIER).  With
        ``go_on`` a walk of whole iterations of an optimal search goes on to the next
        iteration by itself while a call's budget lasts (:attr:`iterations`, :attr:`bound`).

        Returns READY, FOUND (the node is the goal) or ITERATION_DONE (its cost is over the
        bound: :attr:`next_f` holds it)."""
        pb, plan = self.problem, self.plan
        tiles = np.array(pb.start, dtype=np.int64)
        blank = pb.start.index(BLANK)
        for m in path:
            nb = int(pb.moves.nb[m])
            tiles[blank], tiles[nb] = tiles[nb], BLANK
            blank = nb
        self.tiles = tiles
        g = len(path)
        depth = pb.depth_limit(bound)
        if self.stack.path.shape[0] < max(depth, g) + 2:
            self.stack = walk_state.new_stack(
                max(depth, g, 2 * (self.stack.path.shape[0] - 2)), self.lookup_count
            )
        self.fcost = pb.fcost(bound)
        s = self.stack
        s.path[:g] = path
        s.nkid[g] = -1
        s.kidx[g] = 0
        st = self.st
        go_on = go_on and not path and cut == walk_state.NO_CUT and pb.weighting is None
        parity = pb.parity if go_on else walk_state.NO_PARITY
        st[:] = (
            g,
            blank,
            bound,
            walk_state.INFINITE_F,
            0,
            0,
            g,
            cut,
            parity,
            1,
            walk_state.INFINITE_F,
        )
        state = pb.machine.state_after(int(m) & 3 for m in path)
        if state == PRUNED:  # a duplicate path: its nodes are searched along another one
            return walk_state.ITERATION_DONE
        s.fsm[g] = state
        # The start's lookups are made once per search (and copied: the kernel updates them in
        # place); a deeper node's when a walk enters it.
        *arrays, h = pb.lookups(tiles) if path else pb.root
        arrays = [np.copy(a) for a in arrays]
        if plan.kind == "pdb":
            ranks, vals, masks = arrays
            self.node = walk_state.Node(tiles, ranks, vals, masks)
            s.h[g] = vals.sum(axis=1)
            done = s.h[g, 0] == 0
        else:
            self.conflicts = arrays[0]
            s.h[g] = h
            done = h == 0
            st[walk_state.S_EXP] = (
                1  # the lc kernel counts a node when it enters it: the root is entered
            )
        if done:
            return walk_state.FOUND
        f = pb.cost(g, h)
        if f > bound:
            st[walk_state.S_NEXT] = f
            st[walk_state.S_EXP] = 0
            return walk_state.ITERATION_DONE
        return READY

    def end_with_iteration(self) -> None:
        """Stop going on to further iterations: the iteration under way is the call's last."""
        self.st[walk_state.S_PARITY] = walk_state.NO_PARITY

    def run(self, budget: int) -> int:
        """Go on for about ``budget`` generated nodes; FOUND, ITERATION_DONE, BUDGET_SPENT or
        FRONTIER."""
        plan = self.plan
        run = engine()
        if plan.kind == "pdb":
            return run.ida_pdb(
                self.node,
                self.stack,
                self.st,
                plan.tables[0],
                plan.deltas,
                plan.frames,
                self.problem.moves,
                self.problem.machine.trans,
                self.fcost,
                ORDER_CHILDREN,
                plan.zero,
                budget,
            )
        return run.ida_lc(
            self.tiles,
            self.conflicts,
            self.stack,
            self.st,
            plan.lines,
            self.problem.moves,
            self.problem.machine.trans,
            self.fcost,
            plan.name == LC_HEURISTIC,
            self.scratch,
            budget,
        )

    @property
    def path(self) -> tuple[int, ...]:
        """The move ids from the start to the node the walk stands on."""
        return tuple(self.stack.path[: self.st[walk_state.S_DEPTH]].tolist())

    @property
    def generated(self) -> int:
        """Nodes generated since :meth:`enter`."""
        return int(self.st[walk_state.S_GEN])

    @property
    def expanded(self) -> int:
        """Nodes expanded since :meth:`enter`."""
        return int(self.st[walk_state.S_EXP])

    @property
    def least_h(self) -> int:
        """The smallest heuristic value of a node entered since :meth:`enter` (pattern
        databases; :data:`~solver.search.walk_state.INFINITE_F` for linear conflict)."""
        return int(self.st[walk_state.S_LEAST_H])

    @property
    def iterations(self) -> int:
        """Iterations searched since :meth:`enter` (more than one with ``go_on``)."""
        return int(self.st[walk_state.S_ITER])

    @property
    def bound(self) -> int:
        """The bound of the iteration under way."""
        return int(self.st[walk_state.S_BOUND])

    @property
    def next_f(self) -> int:
        """The smallest cost over the bound met so far."""
        return int(self.st[walk_state.S_NEXT])

    def give_away(self) -> list[tuple[int, ...]]:
        """Cut off the untried children of the shallowest node on the walk's path that has
        some, and return their paths (in the order the walk would have taken them).  The node
        the walk stands on keeps its first untried child (with pattern databases; linear
        conflict's walk gives them all, having generated none yet).  Empty when there is
        nothing to give."""
        s, st = self.stack, self.st
        root, d = int(st[walk_state.S_ROOT]), int(st[walk_state.S_DEPTH])
        for level in range(root, d + 1):
            keep = 1 if level == d else 0  # the walk is inside a child of every level above d
            if self.plan.kind == "pdb":
                if s.nkid[level] < 0:
                    continue
                lo, hi = int(s.kidx[level]) + keep, int(s.nkid[level])
                if lo >= hi:
                    continue
                moves = [
                    int(s.kid[level, s.kid[level, i, walk_state.C_SEL], walk_state.C_MOVE])
                    for i in range(lo, hi)
                ]
                s.nkid[level] = lo
            else:
                blank = int(st[walk_state.S_BLANK]) if level == d else int(s.path[level]) >> 2
                prev = walk_state.NO_MOVE if level == 0 else int(s.path[level - 1]) & 3
                row = blank * 5 + prev
                lo, hi = int(s.kidx[level]), int(self.problem.moves.succ_n[row])
                if lo >= hi:
                    continue
                trans = self.problem.machine.trans
                moves = [
                    int(m)
                    for m in self.problem.moves.succ[row, lo:hi]
                    if trans[s.fsm[level], m & 3] != PRUNED
                ]
                s.kidx[level] = hi
                if not moves:
                    continue
                st[walk_state.S_GEN] += len(
                    moves
                )  # generated here; their bound is checked on entry
            prefix = tuple(int(m) for m in s.path[:level])
            return [prefix + (m,) for m in moves]
        return []


@dataclass
class Limits:
    """The user's caps on a search: a ``deadline`` (perf_counter seconds) for ``timeout`` and
    a node cap ``max_nodes``."""

    timeout: float | None = None
    max_nodes: int | None = None
    deadline: float | None = None

    def reason(self, nodes: int, now: float) -> str | None:
        """Why the search must stop after ``nodes`` nodes at time ``now``, or None."""
        if self.max_nodes is not None and nodes >= self.max_nodes:
            return f"node limit of {self.max_nodes:,} reached"
        if self.deadline is not None and now >= self.deadline:
            return f"time limit of {self.timeout:g} s reached"
        return None

    def budget(self, nodes: int, want: int, share: int = 1) -> int:
        """Nodes the next kernel call may generate (``want`` at most) when ``nodes`` are
        spent and ``share`` walks draw on the cap at once."""
        if self.max_nodes is None:
            return want
        return min(want, (self.max_nodes - nodes + share - 1) // share)


@dataclass
class Outcome:
    """How one iteration ended: the solution's ``path`` (move ids) or None, the smallest cost
    over the bound, its nodes, why a limit stopped it (or None), the work units it ran; a
    serial walk that went on by itself (``Walk.enter``'s ``go_on``) reports the
    ``iterations`` it searched and the ``bound`` of the last."""

    path: tuple | None
    next_f: int
    generated: int
    expanded: int
    stopped: str | None = None
    units: int = 0
    iterations: int = 1
    bound: int | None = None
