"""The two policies of the teaching searches, and the compact states they work on.

* **Frontier policies** decide which generated-but-unexpanded node comes out next: a FIFO queue
  (breadth-first), a LIFO stack (depth-first) or a priority queue on ``f = g + h`` (A*).
* **Cycle-check policies** decide which children are thrown away because their state was seen:
  ``parent`` (never undo the last move), ``path`` (no state twice on the path from the root) or
  ``visited`` (remember every state generated).

States are packed into one int (``bits`` per cell, cell 0 in the low bits) with the blank's
cell carried beside it, so a move is two shifts and an add, and a visited set is a set of ints.
:func:`solver.search.blind_loop.search` runs any frontier with any cycle check.

Imports: :mod:`solver.core.board` only.
"""

from __future__ import annotations

import functools
import heapq
from collections import deque
from collections.abc import Callable

from ..core.board import MOVES, BoardError, Shape

# --- compact states ----------------------------------------------------------------------


class Encoding:
    """A shape's states packed into ints, and its move table.

    ``moves[blank]`` lists ``(letter, target cell, shift of the target cell)`` for each move
    the blank can make from cell ``blank``, in ``UDLR`` order.

    >>> enc = encoding(Shape(2, 3))
    >>> s = enc.encode((1, 2, 3, 4, 0, 5))
    >>> enc.decode(s)
    (1, 2, 3, 4, 0, 5)
    >>> [m for m, _, _ in enc.moves[4]]
    ['U', 'L', 'R']
    """

    def __init__(self, shape: Shape):
        self.shape = shape
        self.bits = max(1, (shape.size - 1).bit_length())  # 4 bits per cell up to 4x4
        self.mask = (1 << self.bits) - 1
        self.shifts = tuple(cell * self.bits for cell in range(shape.size))
        table = shape.neighbour_table()  # per cell: the cell reached by U, D, L, R or -1
        self.moves = tuple(
            tuple(
                (letter, target, self.shifts[target])
                for letter, target in zip(MOVES, table[cell])
                if target >= 0
            )
            for cell in range(shape.size)
        )

    def encode(self, tiles) -> int:
        """Pack a tile tuple into an int."""
        return sum(t << s for t, s in zip(tiles, self.shifts))

    def decode(self, state: int) -> tuple[int, ...]:
        """Unpack an int into the tile tuple."""
        mask = self.mask
        return tuple((state >> s) & mask for s in self.shifts)


@functools.cache
def encoding(shape: Shape) -> Encoding:
    """The (cached) :class:`Encoding` of ``shape``."""
    return Encoding(shape)


class Node:
    """One node of the search tree: a state, how it was reached, and from which node.

    The parent link is what lets a search read the solution back once the goal is found;
    it is also why every ancestor of a frontier node stays in memory.
    """

    __slots__ = ("state", "blank", "g", "move", "parent")

    def __init__(self, state: int, blank: int, g: int, move: str, parent: Node | None):
        self.state = state
        self.blank = blank
        self.g = g  # moves from the root
        self.move = move  # the move that led here ('' at the root)
        self.parent = parent

    def path(self) -> str:
        """The moves from the root to this node."""
        moves = []
        node = self
        while node.parent is not None:
            moves.append(node.move)
            node = node.parent
        return "".join(reversed(moves))


# --- frontier policies -------------------------------------------------------------------


class FifoFrontier:
    """A queue: the oldest node is expanded first, so the tree grows layer by layer (BFS)."""

    name = "fifo"
    depth_first = False

    def __init__(self):
        self._queue = deque()

    def push_children(self, children: list[Node]) -> None:
        self._queue.extend(children)

    def pop(self) -> Node:
        return self._queue.popleft()

    def bound(self, node: Node) -> int:
        """A lower bound on the distance once ``node`` is popped: every shallower node
        has been tested."""
        return node.g

    def __len__(self) -> int:
        return len(self._queue)


class LifoFrontier:
    """A stack: the newest node is expanded first, so the search dives (DFS, DLS, IDDFS).

    Children are pushed in reverse so the first move in ``UDLR`` order is tried first.
    """

    name = "lifo"
    depth_first = True

    def __init__(self):
        self._stack = []

    def push_children(self, children: list[Node]) -> None:
        self._stack.extend(reversed(children))

    def pop(self) -> Node:
        return self._stack.pop()

    def bound(self, node: Node) -> None:
        """Depth-first order proves no bound (iterative deepening sets its own)."""
        return None

    def __len__(self) -> int:
        return len(self._stack)


class PriorityFrontier:
    """A heap on ``f = g + h``: the node that looks cheapest overall comes first (A*).

    Ties on ``f`` go to the smaller ``h`` (the deeper node, nearer the goal), then to the
    older node, so runs are reproducible.
    """

    name = "priority"
    depth_first = False

    def __init__(self, h: Callable[[int], int]):
        self._heap = []
        self._h = h
        self._count = 0

    def push_children(self, children: list[Node]) -> None:
        for node in children:
            h = self._h(node.state)
            self._count += 1
            heapq.heappush(self._heap, (node.g + h, h, self._count, node))

    def pop(self) -> Node:
        return heapq.heappop(self._heap)[-1]

    def bound(self, node: Node) -> int:
        """``f`` of the node just popped: with a consistent ``h`` no solution is shorter."""
        return node.g + self._h(node.state)

    def __len__(self) -> int:
        return len(self._heap)


# --- cycle-check policies ----------------------------------------------------------------


class ParentCheck:
    """Never return to the parent: drop the child that undoes the move just made.

    Costs no memory, but on a graph longer cycles survive — the shortest is 12 moves, the
    blank circling a 2x2 block three times until its three tiles are home again — so an
    unbounded DFS can loop forever.
    """

    name = "parent"

    def start(self, root: Node) -> None:
        pass

    def enter(self, node: Node) -> None:
        pass

    def admit(self, node: Node, child_state: int, child_g: int) -> bool:
        return node.parent is None or child_state != node.parent.state

    def fresh(self, node: Node) -> bool:
        return True

    def remembered(self) -> int:
        return 0


class PathCheck:
    """No state twice on the current path from the root: no cycles of any length.

    With a stack the path is kept as a list plus a set (O(1) checks): when a node at depth
    ``g`` is popped, the first ``g`` entries of the path are exactly its ancestors, because
    everything deeper was pushed later and has been finished.  With a queue or a heap the
    ancestors are walked through the parent links instead (O(depth) per check).
    """

    name = "path"

    def __init__(self, depth_first: bool):
        self.depth_first = depth_first
        self._path: list[int] = []
        self._on_path: set[int] = set()

    def start(self, root: Node) -> None:
        self._path.clear()
        self._on_path.clear()

    def enter(self, node: Node) -> None:
        if self.depth_first:
            path, on_path = self._path, self._on_path
            while len(path) > node.g:  # back up to the popped node's parent
                on_path.discard(path.pop())
            path.append(node.state)
            on_path.add(node.state)

    def admit(self, node: Node, child_state: int, child_g: int) -> bool:
        if self.depth_first:
            return child_state not in self._on_path
        ancestor = node
        while ancestor is not None:
            if ancestor.state == child_state:
                return False
            ancestor = ancestor.parent
        return True

    def fresh(self, node: Node) -> bool:
        return True

    def remembered(self) -> int:
        return 0  # the path is counted with the tree the search keeps (see search())


class VisitedCheck:
    """Remember every state generated and never generate it again.

    Memory grows with every distinct state reached (up to the whole space: 181,440 for the
    8-puzzle).  With ``reopen`` (A*), a state is admitted again when it is reached by a
    shorter path, and the older, costlier copy left in the heap is skipped when popped.
    Without it (BFS, DFS), the first path found to a state is the only one ever tried —
    harmless for BFS, which meets every state first at its least depth, but it is why DFS
    with this check returns long detours and why DLS with it can miss solutions within the
    limit (a state first met deep is not tried again when it is met shallower).
    """

    name = "visited"

    def __init__(self, reopen: bool = False):
        self.reopen = reopen
        self._best_g: dict[int, int] = {}

    def start(self, root: Node) -> None:
        self._best_g.clear()
        self._best_g[root.state] = 0

    def enter(self, node: Node) -> None:
        pass

    def admit(self, node: Node, child_state: int, child_g: int) -> bool:
        best = self._best_g.get(child_state)
        if best is not None and (not self.reopen or best <= child_g):
            return False
        self._best_g[child_state] = child_g
        return True

    def fresh(self, node: Node) -> bool:
        return not self.reopen or self._best_g[node.state] == node.g

    def remembered(self) -> int:
        return len(self._best_g)


def cycle_check(name: str, depth_first: bool, reopen: bool = False):
    """The cycle-check policy called ``name`` (``parent``, ``path`` or ``visited``)."""
    if name == "parent":
        return ParentCheck()
    if name == "path":
        return PathCheck(depth_first)
    if name == "visited":
        return VisitedCheck(reopen)
    raise BoardError(f"unknown cycle check '{name}': use parent, path or visited")
