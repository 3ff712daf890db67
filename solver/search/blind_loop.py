"""The one loop every teaching search runs (layer 3: search; :mod:`solver.search.blind`
names the algorithms): pop a node from the frontier, test it, expand it, push the children
the cycle check admits -- with the counts a teacher compares.

The loop keeps its counters in local variables and reads the clock only every
:data:`CLOCK_EVERY` nodes: it runs in Python, a node costs about a microsecond, and each
attribute write or clock read in it would show.

Imports: :mod:`solver.core.board`, :mod:`solver.core.solution`, :mod:`solver.search.policies`.
"""

from __future__ import annotations

import time
from typing import NamedTuple

from ..core.board import Board
from ..core.solution import Solution
from .policies import Node, VisitedCheck, encoding

# How many nodes to generate between two looks at the clock (a clock read costs ~50 ns, a
# node ~1 us, so this keeps the cost of --timeout invisible and its reaction time ~ms).
CLOCK_EVERY = 1 << 12


class Stats:
    """Counters of one run; an iterative-deepening run adds its iterations together.

    ``peak_states`` is the most states held at once: the frontier, plus what the cycle check
    remembers (the visited set), plus the tree kept through parent links -- for a stack, the
    path from the root to the current node; for a queue or heap without a visited set, every
    node expanded so far (an upper bound: a subtree whose nodes were all pruned is freed)."""

    def __init__(self):
        """All counts zero, the clock started."""
        self.generated = 0
        self.expanded = 0
        self.max_frontier = 0
        self.peak_states = 0
        self.depth_reached = 0
        self.iterations = 0
        self.lower_bound: int | None = None
        self.started = time.perf_counter()

    def fill(self, sol: Solution) -> Solution:
        """Copy the counts and the seconds since the start into ``sol``; return it."""
        sol.nodes_generated = self.generated
        sol.nodes_expanded = self.expanded
        sol.max_frontier = self.max_frontier
        sol.peak_states = self.peak_states
        sol.depth_reached = self.depth_reached
        sol.iterations = self.iterations
        sol.lower_bound = self.lower_bound
        sol.seconds = time.perf_counter() - self.started
        return sol


class Heard(NamedTuple):
    """What a blind search's progress callback hears: the nodes generated so far."""

    nodes: int


class Limit(Exception):  # noqa: N818 - a signal between two modules, not an error
    """Raised inside :func:`search` when a cap is hit; the algorithms turn it into
    :class:`~solver.core.solution.SearchLimitReached`."""


def search(
    start: Board,
    goal: Board,
    frontier,
    check,
    *,
    depth_limit: int | None = None,
    stats: Stats | None = None,
    max_nodes: int | None = None,
    deadline: float | None = None,
    progress=None,
) -> tuple[str | None, bool, Stats]:
    """Search from ``start`` for ``goal``, expanding nodes in ``frontier`` order and pruning
    children with ``check``; return ``(moves or None, cut_off, stats)``.

    The goal test is made when a node is *expanded* (popped), not when it is generated: that
    is what keeps A* optimal, and it costs BFS one extra layer.  Nodes at ``depth_limit`` are
    tested but not expanded; ``cut_off`` tells whether that happened (if not, the space
    reachable under the cycle check was exhausted and no deeper limit can help).

    ``stats`` (:class:`Stats`) carries the counts of earlier iterations; :class:`Limit` is
    raised when ``max_nodes`` (counted over them) or ``deadline`` (a ``time.perf_counter()``
    value) is passed.  ``progress`` hears a :class:`Heard` every ``CLOCK_EVERY`` nodes.
    """
    stats = stats or Stats()
    enc, goal_state = _plant(start, goal, frontier, check, stats)
    moves, mask, shifts = enc.moves, enc.mask, enc.shifts
    generated, expanded, max_frontier, peak, deepest = _counters(stats)
    # One comparison in the loop serves the clock and the node cap, whichever comes first.
    node_cap = max_nodes if max_nodes is not None else float("inf")
    next_clock = min(generated + CLOCK_EVERY, node_cap)
    keeps_tree = not isinstance(check, VisitedCheck)  # else the visited set counts the tree
    cut_off, found, node = False, None, None
    try:
        while frontier:
            node = frontier.pop()
            if not check.fresh(node):  # a stale heap entry: a shorter path was found later
                continue
            check.enter(node)
            if node.state == goal_state:
                found = node
                break
            if depth_limit is not None and node.g >= depth_limit:
                cut_off = True
                continue

            # Expand: slide each neighbouring tile into the blank's cell.
            expanded += 1
            state, blank, g = node.state, node.blank, node.g + 1
            blank_shift = shifts[blank]
            children = []
            for letter, target, target_shift in moves[blank]:
                tile = (state >> target_shift) & mask
                child = state + (tile << blank_shift) - (tile << target_shift)
                generated += 1
                if check.admit(node, child, g):
                    children.append(Node(child, target, g, letter, node))
            frontier.push_children(children)

            if g > deepest and children:
                deepest = g
            size = len(frontier)
            if size > max_frontier:
                max_frontier = size
            if keeps_tree:
                held = size + (node.g + 1 if frontier.depth_first else expanded)
            else:
                held = size + check.remembered()
            if held > peak:
                peak = held
            if generated >= next_clock:
                _look_at_clock(generated, max_nodes, progress, deadline, stats.started)
                next_clock = min(generated + CLOCK_EVERY, node_cap)
    except Limit:  # the node last popped may bound the distance from below
        stats.lower_bound = frontier.bound(node) if node is not None else stats.lower_bound
        raise
    finally:
        _store(stats, found, generated, expanded, max_frontier, peak, deepest)
    return (found.path() if found else None), cut_off, stats


def _plant(start: Board, goal: Board, frontier, check, stats: Stats):
    """Put the root in ``frontier`` and ``check`` and count it in ``stats``; return the
    board's encoding and the goal's state in it."""
    enc = encoding(start.shape)
    root = Node(enc.encode(start.tiles), start.blank, 0, "", None)
    check.start(root)
    frontier.push_children([root])
    stats.max_frontier = max(stats.max_frontier, len(frontier))  # the root alone
    stats.peak_states = max(stats.peak_states, len(frontier) + check.remembered())
    return enc, enc.encode(goal.tiles)


def _counters(stats: Stats) -> tuple[int, int, int, int, int]:
    """The counts the loop keeps in locals: generated, expanded, max frontier, peak states,
    depth reached."""
    return (
        stats.generated,
        stats.expanded,
        stats.max_frontier,
        stats.peak_states,
        stats.depth_reached,
    )


def _look_at_clock(generated: int, max_nodes, progress, deadline, started: float) -> None:
    """Every :data:`CLOCK_EVERY` nodes, and at the node cap: raise :class:`Limit` at
    ``max_nodes``, tell ``progress`` the count, raise :class:`Limit` once ``deadline`` has
    passed (out of the loop: it runs once in thousands of nodes)."""
    if max_nodes is not None and generated >= max_nodes:
        raise Limit(f"node limit of {max_nodes:,} generated nodes reached")
    if progress is not None:
        progress(Heard(generated))
    if deadline is not None and time.perf_counter() > deadline:
        raise Limit(f"time limit reached after {time.perf_counter() - started:.1f} s")


def _store(stats: Stats, found, generated, expanded, max_frontier, peak, deepest) -> None:
    """Write the loop's local counters back into ``stats`` (also when a cap ended the loop);
    the depth reached counts the goal's node ``found``, which is tested but not expanded."""
    stats.generated, stats.expanded = generated, expanded
    stats.max_frontier, stats.peak_states = max_frontier, peak
    stats.depth_reached = max(deepest, found.g if found else 0)
