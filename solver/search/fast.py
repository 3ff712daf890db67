"""A quick, non-optimal solution for any board of any shape: peel it line by line (layer 3:
search).

The way people solve sliding puzzles by hand.  The unsolved part of the board is a rectangle,
at first the whole board.  While it is larger than 2x3, one of its outer lines (a row or a
column) is put in place tile by tile and *locked* -- never touched again -- and the rectangle
shrinks by that line.  The last few cells (2x2 or 2x3) are finished by a breadth-first search
over their few hundred arrangements.

* **Any goal.**  The method only needs to know which cell each tile belongs on (the goal's tile
  positions), never a fixed layout.  A line may be peeled only if the goal's blank is not on it,
  so the final small rectangle always holds the goal's blank cell -- a goal with the blank in
  the middle of the board is solved the same way as one with the blank in a corner.
* **Placing a tile** walks it along a shortest path through the unlocked cells; for each step
  the blank is routed (breadth-first, around the tile and the locked cells) to the cell ahead of
  the tile and then slides into the tile's cell.  Among the steps that bring the tile nearer,
  the one the blank reaches soonest is taken.  With at least two unlocked lines behind the line
  being built, the unlocked cells have no cut cell, so the blank can always get round.
* **The last two tiles of a line** cannot be placed one after the other (the second would have
  to pass through the first).  The second-to-last cell's neighbour pair and the two cells behind
  them form a 3x2 *window*: the far tile is parked on the near cell, the near tile and the blank
  are brought into the window, and a breadth-first search over the window's 120 arrangements of
  (near tile, far tile, blank) -- the other three tiles are interchangeable -- finishes both.
  With three interchangeable tiles there is no parity obstacle inside the window.

The answer is labelled ``optimal: false, bound: null`` (DESIGN section 2): it is typically
several times longer than optimal, but any solvable board up to the largest shape is answered
in well under a second.  Imports: :mod:`solver.core` only (no numpy).
"""

from __future__ import annotations

import time
from collections import deque

from ..core.board import BLANK, OPPOSITE, Board, solvability
from ..core.solution import Solution, Unsolvable

LAST_REGION_CELLS = 6  # finish the last 2x3 (or smaller) rectangle by a search of it
OTHER = -1  # a tile the window search need not track (interchangeable with its peers)


class _Peeler:
    """The board being solved: tiles, where each tile is, the goal's tiles, locked cells,
    and the moves made so far."""

    def __init__(self, start: Board, goal: Board):
        shape = start.shape
        self.rows, self.cols, n = shape.rows, shape.cols, shape.size
        self.tiles = list(start.tiles)
        self.pos = [0] * n
        for c, t in enumerate(self.tiles):
            self.pos[t] = c
        self.goal_tiles = list(goal.tiles)
        self.goal_blank = goal.blank
        self.locked = [False] * n
        self.moves: list[str] = []
        # nbr[c]: (neighbour cell, the letter of the blank's move from c to it)
        self.nbr = [
            [(shape.neighbour(c, m), m) for m in "UDLR" if shape.neighbour(c, m) is not None]
            for c in range(n)
        ]

    # --- moving -------------------------------------------------------------------------

    def slide(self, cell: int, letter: str) -> None:
        """Move the blank to the neighbouring ``cell`` (its tile takes the blank's place)."""
        b = self.pos[BLANK]
        t = self.tiles[cell]
        self.tiles[b], self.tiles[cell] = t, BLANK
        self.pos[t], self.pos[BLANK] = b, cell
        self.moves.append(letter)

    def _blank_paths(self, avoid: int, targets) -> tuple[dict, int | None]:
        """Breadth-first from the blank over unlocked cells other than ``avoid`` until a cell
        of ``targets`` is reached: (parent links, the target reached first or None)."""
        start = self.pos[BLANK]
        parent = {start: None}
        if start in targets:
            return parent, start
        queue = deque([start])
        while queue:
            c = queue.popleft()
            for d, letter in self.nbr[c]:
                if d in parent or d == avoid or self.locked[d]:
                    continue
                parent[d] = (c, letter)
                if d in targets:
                    return parent, d
                queue.append(d)
        return parent, None

    def _walk(self, parent: dict, end: int) -> None:
        letters = []
        while parent[end] is not None:
            end, letter = parent[end]
            letters.append(letter)
        for letter in reversed(letters):
            self.slide(self._step(self.pos[BLANK], letter), letter)

    def _step(self, cell: int, letter: str) -> int:
        for d, m in self.nbr[cell]:
            if m == letter:
                return d
        raise AssertionError("no such move")  # pragma: no cover - parent links are moves

    def route_blank(self, targets, avoid: int = -1) -> None:
        """Bring the blank to the nearest cell of ``targets`` without crossing ``avoid`` or a
        locked cell."""
        parent, end = self._blank_paths(avoid, set(targets))
        if end is None:
            raise AssertionError("internal error: the blank cannot reach its target")
        self._walk(parent, end)

    def _distances_to(self, target: int) -> dict:
        """Grid distances to ``target`` through unlocked cells."""
        dist = {target: 0}
        queue = deque([target])
        while queue:
            c = queue.popleft()
            for d, _ in self.nbr[c]:
                if d not in dist and not self.locked[d]:
                    dist[d] = dist[c] + 1
                    queue.append(d)
        return dist

    def move_tile(self, tile: int, target: int, until=()) -> None:
        """Walk ``tile`` to ``target`` (or until it stands on a cell of ``until``)."""
        dist = self._distances_to(target)
        while self.pos[tile] != target and self.pos[tile] not in until:
            here = self.pos[tile]
            ahead = {d for d, _ in self.nbr[here] if dist.get(d, -1) == dist[here] - 1}
            parent, end = self._blank_paths(here, ahead)
            if end is None:
                raise AssertionError("internal error: the blank cannot get round the tile")
            self._walk(parent, end)
            self.slide(here, _letter_between(self.cols, end, here))

    # --- small searches -----------------------------------------------------------------

    def search_window(self, cells: list[int], wanted: dict) -> bool:
        """Finish ``wanted`` (tile -> cell) by moving the blank inside ``cells`` only: a
        breadth-first search over the window's arrangements, with every tile not in
        ``wanted`` interchangeable.  False when no arrangement of the window reaches it."""
        index = {c: i for i, c in enumerate(cells)}
        links = [[(index[d], m) for d, m in self.nbr[c] if d in index] for c in cells]
        first = tuple(
            t if t in wanted or t == BLANK else OTHER for t in (self.tiles[c] for c in cells)
        )
        want = [(index[c], t) for t, c in wanted.items()]
        parent = {first: None}
        queue = deque([first])
        found = None
        while queue:
            s = queue.popleft()
            if all(s[i] == t for i, t in want):
                found = s
                break
            b = s.index(BLANK)
            for j, letter in links[b]:
                nxt = list(s)
                nxt[b], nxt[j] = nxt[j], BLANK
                nxt = tuple(nxt)
                if nxt not in parent:
                    parent[nxt] = (s, letter)
                    queue.append(nxt)
        if found is None:
            return False
        letters = []
        while parent[found] is not None:
            found, letter = parent[found]
            letters.append(letter)
        for letter in reversed(letters):
            self.slide(self._step(self.pos[BLANK], letter), letter)
        return True

    # --- lines --------------------------------------------------------------------------

    def place_line(self, line: list[int], inner: list[int], inner2: list[int]) -> None:
        """Put the goal's tiles on the cells of ``line`` and lock them; ``inner`` and
        ``inner2`` are the two lines behind it, cell for cell."""
        for cell in line[:-2]:
            self.move_tile(self.tiles_for(cell), cell)
            self.locked[cell] = True
        a, b = line[-2], line[-1]
        ta, tb = self.tiles_for(a), self.tiles_for(b)
        if self.pos[ta] != a or self.pos[tb] != b:
            window = [a, b, inner[-2], inner[-1], inner2[-2], inner2[-1]]
            self.move_tile(tb, a)  # park the far tile on the near cell
            self.locked[a] = True
            if self.pos[ta] not in window:
                self.move_tile(ta, inner[-2], until=set(window))
            if self.pos[BLANK] not in window:
                self.route_blank(
                    [c for c in window if not self.locked[c] and c != self.pos[ta]],
                    avoid=self.pos[ta],
                )
            self.locked[a] = False
            if not self.search_window(window, {ta: a, tb: b}):
                raise AssertionError("internal error: the line's window has no solution")
        self.locked[a] = self.locked[b] = True

    def tiles_for(self, cell: int) -> int:
        """The tile the goal puts on ``cell``."""
        return self.goal_tiles[cell]


def _letter_between(cols: int, frm: int, to: int) -> str:
    """The move letter that takes the blank from cell ``frm`` to the adjacent cell ``to``."""
    diff = to - frm
    if diff == -cols:
        return "U"
    if diff == cols:
        return "D"
    return "L" if diff == -1 else "R"


def _next_line(top, bottom, left, right, goal_row, goal_col):
    """Which side of the rectangle to peel next: ``"top"``, ``"bottom"``, ``"left"`` or
    ``"right"``.  A row needs three rows to peel from (two stay behind it for the blank to get
    round), a column three columns; the goal's blank must not be on it.  Rows are peeled from
    a rectangle at least as tall as wide, columns from a wider one, so it stays square-ish;
    of two opposite sides the one farther from the goal's blank goes first."""
    h, w = bottom - top + 1, right - left + 1
    rows_ok = [s for s, r in (("top", top), ("bottom", bottom)) if h >= 3 and r != goal_row]
    cols_ok = [s for s, c in (("left", left), ("right", right)) if w >= 3 and c != goal_col]
    rows_ok.sort(key=lambda s: -abs((top if s == "top" else bottom) - goal_row))
    cols_ok.sort(key=lambda s: -abs((left if s == "left" else right) - goal_col))
    order = rows_ok + cols_ok if (h >= w or not cols_ok) else cols_ok + rows_ok
    return order[0]


def _lines(side, top, bottom, left, right, cols):
    """The cells of the side being peeled and of the two lines behind it."""

    def row(r):
        return [r * cols + c for c in range(left, right + 1)]

    def col(c):
        return [r * cols + c for r in range(top, bottom + 1)]

    if side == "top":
        return row(top), row(top + 1), row(top + 2)
    if side == "bottom":
        return row(bottom), row(bottom - 1), row(bottom - 2)
    if side == "left":
        return col(left), col(left + 1), col(left + 2)
    return col(right), col(right - 1), col(right - 2)


def peel(start: Board, goal: Board) -> str:
    """The moves of the line-by-line method from ``start`` to ``goal``; raises
    :class:`Unsolvable` when the goal cannot be reached."""
    p = _Peeler(start, goal)
    top, bottom, left, right = 0, p.rows - 1, 0, p.cols - 1
    goal_row, goal_col = divmod(p.goal_blank, p.cols)
    while (bottom - top + 1) * (right - left + 1) > LAST_REGION_CELLS:
        side = _next_line(top, bottom, left, right, goal_row, goal_col)
        p.place_line(*_lines(side, top, bottom, left, right, p.cols))
        if side == "top":
            top += 1
        elif side == "bottom":
            bottom -= 1
        elif side == "left":
            left += 1
        else:
            right -= 1
    rest = [r * p.cols + c for r in range(top, bottom + 1) for c in range(left, right + 1)]
    if not p.search_window(rest, {p.tiles_for(c): c for c in rest if p.tiles_for(c)}):
        raise Unsolvable(solvability(start, goal))
    return _cancel_pairs(p.moves)


def _cancel_pairs(moves: list[str]) -> str:
    """Drop every move that is immediately undone (``UD``, ``LR``...), repeatedly: the joints
    between placements often step back and forth."""
    out: list[str] = []
    for m in moves:
        if out and out[-1] == OPPOSITE[m]:
            out.pop()
        else:
            out.append(m)
    return "".join(out)


def solve(start: Board, goal: Board, opts=None) -> Solution:
    """A quick solution by :func:`peel`, labelled not optimal and with no bound."""
    t0 = time.perf_counter()
    moves = peel(start, goal)
    sol = Solution(
        start,
        goal,
        moves,
        "fast",
        optimal=False,
        heuristic=None,
        seconds=time.perf_counter() - t0,
        extra={"bound": None},
    )
    return sol


__all__ = ["peel", "solve"]
