"""Slow, obviously-right reference: breadth-first search over board tuples with a dict.

Independent of the table code on purpose (no ranking); tests compare against it.
"""

from __future__ import annotations

from collections import deque


def neighbours(tiles: tuple, rows: int, cols: int):
    """Yield (move, next_tiles) for every move of the blank."""
    b = tiles.index(0)
    r, c = divmod(b, cols)
    for move, dr, dc in (("U", -1, 0), ("D", 1, 0), ("L", 0, -1), ("R", 0, 1)):
        rr, cc = r + dr, c + dc
        if 0 <= rr < rows and 0 <= cc < cols:
            t = list(tiles)
            n = rr * cols + cc
            t[b], t[n] = t[n], 0
            yield move, tuple(t)


def distances_from(goal: tuple, rows: int, cols: int) -> dict:
    """Distance of every state reachable from ``goal`` (moves are reversible)."""
    dist = {goal: 0}
    queue = deque([goal])
    while queue:
        s = queue.popleft()
        d = dist[s] + 1
        for _, t in neighbours(s, rows, cols):
            if t not in dist:
                dist[t] = d
                queue.append(t)
    return dist
