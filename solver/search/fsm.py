"""Duplicate pruning by a finite-state machine over the blank's move strings (Taylor & Korf
1993) (layer 3: search; the kernels step it once per generated child).

Many strings of blank moves have the same *effect* -- the same displacement of the blank and
the same permutation of the tiles it passes -- wherever on the board they start: ``UD`` undoes
itself, and going three times round a 2x2 square (``RDLURDLURDLU``) is the identity, so one
and a half turns one way (``RDLURD``) equal one and a half turns the other way (``DRULDR``).
IDA* explores every such string separately, so it visits the same node many times; an
automaton that rejects the larger string of each equal pair makes the tree smaller without
losing a single position.

Which string is kept.  Order strings by length, then lexicographically (``U < D < L < R``).  A
string ``s`` is *forbidden* when an earlier string ``t`` has the same effect and stays inside
``s``'s bounding box (the cells the blank visits, relative to its start): then ``t`` can be
played wherever ``s`` can, on any rectangular board.  Replacing ``s`` by ``t`` inside any path
gives a path that is no longer, ends on the same node and comes earlier in the order; so the
earliest of the optimal paths to the goal contains no forbidden string, and IDA* with the
automaton still finds an optimal solution (``tests/test_fsm.py`` checks it by replay).

The strings are found by a breadth-first search over move strings up to ``depth`` moves that
extends only strings with no forbidden part; the automaton is the Aho-Corasick machine of the
forbidden strings: ``trans[state, direction]`` is the next state, or :data:`PRUNED` when the
move would complete a forbidden string.  State 0 is the start.  Depth 2 gives exactly "never
undo the previous move"; deeper machines prune more and have more states (see
:data:`DEFAULT_DEPTH` and ``docs/research/search.md``, sections 1 and 6).  Machines are made
once per process: the strings of up to :data:`SHIPPED_DEPTH` moves ship with the package
(:data:`SHIPPED`; the BFS that finds them takes six minutes), so a machine of any depth up to
that one is made from them in 0.1-0.4 s; deeper ones are made from scratch (minutes).  Machines
from depth :data:`CACHED_FROM` on are kept in the cache directory, checked against their digest
when read (:mod:`solver.tables.kept_arrays`).

Imports: numpy, :mod:`solver.core` (board), :mod:`solver.tables.kept_arrays`.
"""

from __future__ import annotations

from collections import deque
from itertools import groupby
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ..core import config
from ..core.board import MOVES, Shape
from ..tables import kept_arrays

PRUNED = -1  # trans[...] of a move that completes a forbidden string
# The blank's step per direction, in MOVES order (U, D, L, R), as (row, column).
STEPS = ((-1, 0), (1, 0), (0, -1), (0, 1))
_STEP_ARRAY = np.array(STEPS, dtype=np.int8)
DEFAULT_DEPTH = config.DEFAULT_FSM_DEPTH
# "Never undo the previous move": the machine of depth 2.
UNDO_ONLY_DEPTH = 2
# Machines this deep take a second or more to make: they are kept in the cache directory.
CACHED_FROM = 9
# The strings of up to this many moves ship with the package (18,700 strings, 54 KB gzipped),
# so no process runs the BFS for the default machine or a shallower one.
SHIPPED_DEPTH = 14
SHIPPED = Path(__file__).with_name(f"fsm-strings-{SHIPPED_DEPTH}.txt.gz")
FORMAT = 1  # of the cached files; a new one when what a machine holds changes


class Automaton(NamedTuple):
    """A pruning machine: ``trans[state, direction]`` the next state or :data:`PRUNED`;
    ``depth`` the length of the longest move string it was generated from."""

    trans: np.ndarray
    depth: int

    @property
    def states(self) -> int:
        """How many states the machine has."""
        return int(self.trans.shape[0])

    @property
    def name(self) -> str:
        """The machine as reported: ``fsm 14 (26,153 states)``, or ``undo`` for the machine that
        only forbids undoing the previous move."""
        if self.depth <= UNDO_ONLY_DEPTH:
            return "undo"
        return f"fsm {self.depth} ({self.states:,} states)"

    def allows(self, moves: str) -> bool:
        """Whether the move string ``moves`` (letters) passes the machine."""
        return self.state_after(MOVES.index(letter.upper()) for letter in moves) != PRUNED

    def state_after(self, directions) -> int:
        """The machine's state after ``directions`` (0-3 each), or :data:`PRUNED`."""
        state = 0
        for d in directions:
            state = int(self.trans[state, int(d)])
            if state == PRUNED:
                return PRUNED
        return state


class _String(NamedTuple):
    """A move string being explored: its moves (direction numbers), the blank's place and the
    displaced tiles (cell -> the cell it came from), and the bounding box of the visited cells
    ``(top, bottom, left, right)`` relative to the start."""

    moves: tuple
    blank: tuple
    moved: dict
    box: tuple


def _extend(s: _String, d: int) -> _String:
    """``s`` followed by the blank's move ``d``: the tile on the target cell slides back onto
    the blank's old cell."""
    (r, c), (dr, dc) = s.blank, STEPS[d]
    target = (r + dr, c + dc)
    moved = dict(s.moved)
    origin = moved.pop(target, target)
    if origin != s.blank:
        moved[s.blank] = origin
    else:
        moved.pop(s.blank, None)
    top, bottom, left, right = s.box
    box = (min(top, target[0]), max(bottom, target[0]), min(left, target[1]), max(right, target[1]))
    return _String(s.moves + (d,), target, moved, box)


def _effect(s: _String):
    return s.blank, frozenset(s.moved.items())


def _inside(inner: tuple, outer: tuple) -> bool:
    return (
        inner[0] >= outer[0]
        and inner[1] <= outer[1]
        and inner[2] >= outer[2]
        and inner[3] <= outer[3]
    )


def forbidden_strings(depth: int, rows: int = 0, cols: int = 0) -> list[tuple[int, ...]]:
    """The minimal forbidden move strings of up to ``depth`` moves (see the module
    docstring), in order.  With ``rows``/``cols`` strings that need a larger board than that
    are not explored (they can never be played there)."""
    start = _String((), (0, 0), {}, (0, 0, 0, 0))
    kept: dict = {_effect(start): [start.box]}
    forbidden: set = set()
    sizes: set = set()  # the lengths of the forbidden strings found so far
    out: list = []
    level = [start]
    for length in range(1, depth + 1):
        following = []
        for s in level:
            for d in range(4):
                moves = s.moves + (d,)
                # A string with a forbidden part is never entered: only its minimal forbidden
                # parts belong to the machine.  (Its prefix passed, so the part is a suffix.)
                if any(moves[length - n :] in forbidden for n in sizes if n < length):
                    continue
                t = _extend(s, d)
                top, bottom, left, right = t.box
                if (rows and bottom - top >= rows) or (cols and right - left >= cols):
                    continue
                key = _effect(t)
                boxes = kept.setdefault(key, [])
                if any(_inside(b, t.box) for b in boxes):
                    forbidden.add(moves)
                    sizes.add(length)
                    out.append(moves)
                    continue
                boxes.append(t.box)
                following.append(t)
        level = following
    return out


def automaton(strings: list[tuple[int, ...]], depth: int) -> Automaton:
    """The Aho-Corasick machine that rejects every string containing one of ``strings``
    (which contain one another nowhere but as themselves)."""
    children: list[dict] = [{}]
    final = [False]
    for s in strings:
        node = 0
        for d in s:
            nxt = children[node].get(d)
            if nxt is None:
                children.append({})
                final.append(False)
                nxt = children[node][d] = len(children) - 1
            node = nxt
        final[node] = True
    # Breadth-first over the trie: each node's failure link is the longest proper suffix of its
    # string that is a trie node; a move from a node goes to its child, else where its failure
    # link's move goes.
    n = len(children)
    trans = np.full((n, 4), PRUNED, dtype=np.int64)
    fail = [0] * n
    queue = deque()
    for d in range(4):
        child = children[0].get(d)
        if child is None:
            trans[0, d] = 0
        else:
            trans[0, d] = child
            queue.append(child)
    while queue:
        node = queue.popleft()
        final[node] = final[node] or final[fail[node]]
        for d in range(4):
            child = children[node].get(d)
            if child is None:
                trans[node, d] = trans[fail[node], d]
            else:
                fail[child] = int(trans[fail[node], d])
                trans[node, d] = child
                queue.append(child)
    # The forbidden nodes become PRUNED, and the machine is renumbered without them.
    alive = [i for i in range(n) if not final[i]]
    number = np.full(n + 1, PRUNED, dtype=np.int64)  # number[PRUNED] stays PRUNED
    number[alive] = np.arange(len(alive))
    trans = _compact(number[trans[alive]])
    trans.setflags(write=False)
    return Automaton(trans, depth)


def _compact(trans: np.ndarray) -> np.ndarray:
    """The transitions in the smallest signed type that holds them: the kernels read one per
    child, and a machine of thousands of states then stays in the core's nearest caches."""
    kind = np.int16 if trans.shape[0] < np.iinfo(np.int16).max else np.int32
    return np.ascontiguousarray(trans, dtype=kind)


_MACHINES: dict[tuple, Automaton] = {}


def pruning_machine(depth: int, rows: int = 0, cols: int = 0) -> Automaton:
    """The machine of the forbidden strings of up to ``depth`` moves for boards of ``rows`` x
    ``cols`` (0: any size), made once per process and, from depth :data:`CACHED_FROM` on,
    kept in npuzzle's cache directory (it takes a second or more to make)."""
    key = (depth, rows, cols)
    hit = _MACHINES.get(key)
    if hit is not None:
        return hit
    if depth < CACHED_FROM:
        trans = automaton(forbidden_strings(depth, rows, cols), depth).trans
    else:
        # Read in a millisecond; made from the shipped strings in 0.1-0.4 s, or from scratch
        # in minutes.
        trans = kept_arrays.kept(cache_name(depth, rows, cols), lambda: _made(depth, rows, cols))
    trans.setflags(write=False)
    machine = _MACHINES[key] = Automaton(trans, depth)
    return machine


def shipped_strings(
    rows: int = 0, cols: int = 0, depth: int = SHIPPED_DEPTH
) -> list[tuple[int, ...]]:
    """The forbidden strings of up to ``depth`` (at most :data:`SHIPPED_DEPTH`) moves
    (:data:`SHIPPED`, made by :func:`write_shipped`), those that fit a board of ``rows`` x
    ``cols`` (0: any): each one's replacement stays in its bounding box, so it fits too, and
    the machine of these is valid.  The strings of one depth are those of a deeper search no
    longer than it (the BFS finds them level by level).  Why shipped: making them takes
    minutes of Python, and the default search needs them on a fresh machine's first search."""
    import gzip  # only where the machine is made anew: a kept one is read as it is

    text = gzip.decompress(SHIPPED.read_bytes())
    as_directions = bytes.maketrans(MOVES.encode("ascii"), bytes(range(len(MOVES))))
    out = []
    # The file is in the BFS's order, shortest first: one array per length, whose bounding
    # boxes numpy finds at once (a Python loop over the 18,700 strings took half a second).
    for length, group in groupby(text.split(), len):
        if length > depth:
            break
        group = list(group)
        moves = np.frombuffer(b"".join(group).translate(as_directions), np.uint8)
        moves = moves.reshape(len(group), length)
        fits = np.ones(len(group), bool)
        for axis, cells in ((0, rows), (1, cols)):
            if cells:
                where = np.cumsum(_STEP_ARRAY[moves, axis], axis=1)
                extent = np.maximum(where.max(axis=1), 0) - np.minimum(where.min(axis=1), 0)
                fits &= extent < cells
        out += [tuple(int(d) for d in m) for m in moves[fits]]
    return out


def write_shipped() -> None:
    """Make :data:`SHIPPED` again (``python -m solver.search.fsm``)."""
    import gzip

    lines = ["".join(MOVES[d] for d in s) for s in forbidden_strings(SHIPPED_DEPTH)]
    data = ("\n".join(lines) + "\n").encode("ascii")
    SHIPPED.write_bytes(gzip.compress(data, compresslevel=9, mtime=0))  # the same bytes each time


def cache_name(depth: int, rows: int = 0, cols: int = 0) -> str:
    """The name the machine of ``depth`` for ``rows`` x ``cols`` boards is kept under
    (:mod:`solver.tables.kept_arrays`)."""
    return f"fsm-v{FORMAT}-d{depth}-{rows}x{cols}"


def _made(depth: int, rows: int, cols: int) -> np.ndarray:
    """The transitions of a deep machine, made from the shipped strings where they reach."""
    if depth <= SHIPPED_DEPTH:
        strings = shipped_strings(rows, cols, depth)
    else:
        strings = forbidden_strings(depth, rows, cols)
    return automaton(strings, depth).trans


def machine_for(shape: Shape, depth: int | None = DEFAULT_DEPTH) -> Automaton:
    """The pruning machine of ``depth`` on ``shape`` (None or 2 or less: only "never undo the
    previous move")."""
    depth = UNDO_ONLY_DEPTH if depth is None or depth <= UNDO_ONLY_DEPTH else depth
    # Strings wider or taller than the board are never played on it; leaving the bound out
    # where no string of that length reaches it keeps one machine for all such boards.
    rows = shape.rows if shape.rows <= depth else 0
    cols = shape.cols if shape.cols <= depth else 0
    return pruning_machine(depth, rows, cols)


if __name__ == "__main__":
    write_shipped()
