"""Slow, obviously-right references for the pattern-database tests (no ranking tricks).

* :func:`pattern_states` -- a 0-1 breadth-first search over (cells of the pattern tiles, blank
  cell): the blank moving onto a pattern tile costs 1 (that tile slides), onto any other cell 0.
* :func:`pattern_table` -- its value of a placement: the minimum over blank cells, keyed by the
  tuple of cells.
* :func:`zero_aware_pairs` -- its two values of a placement: the minimum over blank cells in the
  main region of the free cells (the largest; of equal ones the one holding the lowest cell),
  and over the others (the main one's again where there are no others).
* :func:`manhattan` / :func:`linear_conflict` -- by brute force over subsets of each line.
"""

from __future__ import annotations

from collections import deque
from itertools import combinations


def _neighbours(cell, rows, cols):
    r, c = divmod(cell, cols)
    for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
        if 0 <= rr < rows and 0 <= cc < cols:
            yield rr * cols + cc


def pattern_states(goal: tuple, rows: int, cols: int, tiles) -> dict:
    """{(cells of ``tiles`` in sorted tile order, blank cell): fewest pattern-tile moves to the
    goal}, for every state reached."""
    tiles = sorted(tiles)
    start = (tuple(goal.index(t) for t in tiles), goal.index(0))
    dist = {start: 0}
    dq = deque([start])
    while dq:
        state = dq.popleft()
        cells, blank = state
        d = dist[state]
        for b in _neighbours(blank, rows, cols):
            if b in cells:
                i = cells.index(b)
                nxt = (cells[:i] + (blank,) + cells[i + 1 :], b)
                cost = 1
            else:
                nxt = (cells, b)
                cost = 0
            if nxt not in dist or dist[nxt] > d + cost:
                dist[nxt] = d + cost
                if cost:
                    dq.append(nxt)
                else:
                    dq.appendleft(nxt)
    return dist


def pattern_table(goal: tuple, rows: int, cols: int, tiles) -> dict:
    """{cells of ``tiles`` (sorted tile order): fewest pattern-tile moves to the goal}."""
    table: dict = {}
    for (cells, _), d in pattern_states(goal, rows, cols, tiles).items():
        if cells not in table or d < table[cells]:
            table[cells] = d
    return table


def region_of(cell: int, cells: tuple, rows: int, cols: int) -> set:
    """The cells the blank on ``cell`` reaches without moving a tile on ``cells``."""
    seen, todo = {cell}, [cell]
    while todo:
        for b in _neighbours(todo.pop(), rows, cols):
            if b not in seen and b not in cells:
                seen.add(b)
                todo.append(b)
    return seen


def main_region(cells: tuple, rows: int, cols: int) -> set:
    """The largest region of the cells not in ``cells``; of equal ones, the one holding the
    lowest cell."""
    regions = []
    for c in range(rows * cols):
        if c not in cells and not any(c in r for r in regions):
            regions.append(region_of(c, cells, rows, cols))
    return max(regions, key=lambda r: (len(r), -min(r)))


def zero_aware_pairs(goal: tuple, rows: int, cols: int, tiles) -> dict:
    """{cells of ``tiles``: (fewest moves with the blank in the main region, with it
    elsewhere)}; where the free cells are one region the second is the first, and a class
    no state reaches is None (with all but one tile in the pattern, the parity of the two
    cells left decides which of them the blank can be on)."""
    best: dict = {}
    for (cells, blank), d in pattern_states(goal, rows, cols, tiles).items():
        main = main_region(cells, rows, cols)
        pair = best.setdefault(cells, [None, None, len(main) == rows * cols - len(cells)])
        i = 0 if blank in main else 1
        pair[i] = d if pair[i] is None else min(pair[i], d)
    return {cells: (main, main if alone else other) for cells, (main, other, alone) in best.items()}


def manhattan(tiles: tuple, goal: tuple, cols: int) -> int:
    """Sum of the grid distances of the tiles from their goal cells."""
    home = {t: c for c, t in enumerate(goal)}
    return sum(
        abs(c // cols - home[t] // cols) + abs(c % cols - home[t] % cols)
        for c, t in enumerate(tiles)
        if t
    )


def _min_removals(seq) -> int:
    """Fewest items to delete from ``seq`` so the rest is increasing (brute force)."""
    for keep in range(len(seq), -1, -1):
        for sub in combinations(seq, keep):
            if all(a < b for a, b in zip(sub, sub[1:])):
                return len(seq) - keep
    return len(seq)


def linear_conflict(tiles: tuple, goal: tuple, rows: int, cols: int) -> int:
    """Manhattan + 2 x (per row and column, the fewest tiles to remove so that the tiles whose
    goal is in that line stand in goal order)."""
    home = {t: c for c, t in enumerate(goal)}
    extra = 0
    for r in range(rows):
        line = [
            home[tiles[r * cols + c]] % cols
            for c in range(cols)
            if tiles[r * cols + c] and home[tiles[r * cols + c]] // cols == r
        ]
        extra += _min_removals(line)
    for c in range(cols):
        line = [
            home[tiles[r * cols + c]] // cols
            for r in range(rows)
            if tiles[r * cols + c] and home[tiles[r * cols + c]] % cols == c
        ]
        extra += _min_removals(line)
    return manhattan(tiles, goal, cols) + 2 * extra
