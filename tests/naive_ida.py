"""A slow, plainly right IDA* for the kernels' tests: whole iterations, never undoing the
previous move, over any heuristic given as a function of the board.

An iteration that finds no solution enters every node whose path stays within its bound,
whatever order the children are entered in: its counts are a property of the heuristic and
the bound alone, so the compiled kernels must count the same (tests/test_search_kernels.py).
*Generated* is every child of an entered node, the previous move's undo left out; *expanded*
every node entered, the start included.
"""

from __future__ import annotations

import sys


def _moves(rows: int, cols: int) -> list[list[tuple[int, int]]]:
    """Per blank cell, ``(direction, cell the blank moves to)``: up, down, left, right."""
    out = []
    for cell in range(rows * cols):
        r, c = divmod(cell, cols)
        here = []
        for d, (rr, cc) in enumerate(((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))):
            if 0 <= rr < rows and 0 <= cc < cols:
                here.append((d, rr * cols + cc))
        out.append(here)
    return out


UNDO = {0: 1, 1: 0, 2: 3, 3: 2}


def iterations(start: tuple, goal: tuple, cols: int, h, stop_bound: int) -> list[tuple]:
    """``(bound, generated, expanded)`` of each iteration of IDA* from ``start`` to ``goal``
    whose bound is at most ``stop_bound`` (bounds rounded up to the parity every solution has,
    as an optimal IDA* may); ``h(tiles)`` is the heuristic, 0 only at the goal.  Fails where an
    iteration finds the goal: ``stop_bound`` must be below the optimal length."""
    moves = _moves(len(start) // cols, cols)
    blank, goal_blank = start.index(0), goal.index(0)
    parity = (abs(blank // cols - goal_blank // cols) + abs(blank % cols - goal_blank % cols)) & 1
    sys.setrecursionlimit(max(1000, 4 * stop_bound + 100))
    out = []
    bound = _round(h(start), parity)
    while bound <= stop_bound:
        generated, expanded, least = _iteration(list(start), blank, moves, h, bound)
        out.append((bound, generated, expanded))
        bound = _round(least, parity)
    return out


def _iteration(tiles: list, blank: int, moves, h, bound: int) -> tuple[int, int, int]:
    """One iteration with ``bound``: its generated and expanded nodes, and the least f of a
    child over the bound."""
    counts = [0, 0, 1 << 40]

    def enter(blank: int, g: int, came: int | None) -> None:
        counts[1] += 1
        for d, cell in moves[blank]:
            if came is not None and d == UNDO[came]:
                continue
            counts[0] += 1
            tiles[blank], tiles[cell] = tiles[cell], 0
            hc = h(tuple(tiles))
            f = g + 1 + hc
            if f > bound:
                counts[2] = min(counts[2], f)
            else:
                assert hc > 0, "the goal is within the bound: stop_bound is too high"
                enter(cell, g + 1, d)
            tiles[cell], tiles[blank] = tiles[blank], 0

    enter(blank, 0, None)
    return counts[0], counts[1], counts[2]


def _round(f: int, parity: int) -> int:
    """``f`` rounded up to ``parity``."""
    return f + ((f ^ parity) & 1)
