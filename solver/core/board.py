"""Boards: validation, rendering, moves, goals and solvability (layer 0: core).

Everything else in npuzzle speaks this vocabulary.  A :class:`Shape` is ``rows x cols``
(:mod:`solver.core.shape`, with the blank, the moves and :class:`BoardError`, all importable
from here); a :class:`Board` is an immutable tuple of ``rows*cols`` tiles in row-major cell
order with the blank written ``0``.  A move is the direction the *blank* travels
(``U D L R``).  Reading a board as written is :mod:`solver.core.board_text`'s.

Imports: the standard library only (no numpy), so parsing is cheap everywhere.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .board_text import board_layout, check_count, quoted
from .shape import (  # noqa: F401 - every board speaks this vocabulary: importers find it here
    BLANK,
    BLANK_WORDS,
    GOAL_PRESETS,
    MAX_BOARD_CHARS,
    MOVES,
    OPPOSITE,
    BoardError,
    Shape,
    clip,
)


@dataclass(frozen=True)
class Board:
    """An arrangement of tiles on a shape; ``tiles[cell]`` is the tile there, 0 the blank.

    Boards round-trip through their text form:

    >>> b = Board.parse("1 2 3/4 0 5")
    >>> b
    Board.parse('1 2 3/4 0 5')
    >>> Board.parse(str(b)) == b, b.shape
    (True, Shape(rows=2, cols=3))
    """

    shape: Shape
    tiles: tuple[int, ...]

    def __post_init__(self):
        validate_tiles(self.tiles, self.shape)

    @classmethod
    def parse(cls, text, shape: Shape | str | None = None) -> Board:
        """Read a board in any accepted format (see :func:`parse_board`)."""
        return parse_board(text, shape)

    @classmethod
    def from_tiles(cls, tiles: Iterable[int], shape: Shape | str) -> Board:
        """Build a board from a flat sequence of ints (validated)."""
        return cls(Shape.parse(shape), tuple(int(t) for t in tiles))

    @property
    def blank(self) -> int:
        """The cell of the blank."""
        return self.tiles.index(BLANK)

    def __str__(self) -> str:
        c = self.shape.cols
        return "/".join(
            " ".join(str(t) for t in self.tiles[i : i + c]) for i in range(0, len(self.tiles), c)
        )

    def __repr__(self) -> str:
        return f"Board.parse('{self}')"

    def flat(self) -> str:
        """The tiles as one line of space-separated numbers."""
        return " ".join(map(str, self.tiles))

    def grid(self) -> str:
        """A multi-line rendering with aligned columns and the blank shown as ``.``."""
        width = len(str(self.shape.size - 1))
        c = self.shape.cols
        lines = []
        for i in range(0, self.shape.size, c):
            row = self.tiles[i : i + c]
            lines.append(" ".join(("." if t == BLANK else str(t)).rjust(width) for t in row))
        return "\n".join(lines)

    def legal_moves(self) -> str:
        """The moves the blank can make here, in ``UDLR`` order."""
        return "".join(m for m in MOVES if self.shape.neighbour(self.blank, m) is not None)

    def move(self, move: str) -> Board:
        """The board after the blank travels one step in direction ``move``."""
        m = move.upper()
        b = self.blank
        target = self.shape.neighbour(b, m)
        if target is None:
            raise BoardError(f"move {m} takes the blank off the board")
        tiles = list(self.tiles)
        tiles[b], tiles[target] = tiles[target], BLANK
        return Board(self.shape, tuple(tiles))

    def apply(self, moves: str) -> Board:
        """The board after a whole move string such as ``"ULDR"``.

        Works on one list and validates once at the end, so replaying the thousands of moves
        of a quick solution on a large board costs microseconds per move, not a new board."""
        tiles = list(self.tiles)
        done = 0
        try:
            for _ in self._slides(tiles, moves):
                done += 1
        except BoardError as e:
            raise BoardError(f"move {done + 1} of '{moves}': {e}") from None
        return Board(self.shape, tuple(tiles))

    def tiles_moved(self, moves: str) -> list[int]:
        """The tile that slides at each step of ``moves`` (the tile the blank swaps with)."""
        return list(self._slides(list(self.tiles), moves))

    def _slides(self, tiles: list, moves: str):
        """Play ``moves`` on ``tiles`` (this board's tiles as a list, changed in place),
        yielding the tile each move slides; raises :class:`BoardError` at a move off the board.
        One list for the whole string: a new validated board per move cost a batch of Korf's
        100 a tenth of a millisecond per board."""
        steps = _steps(self.shape)
        b = self.blank
        for m in moves:
            reached = steps.get(m)
            if reached is None:
                raise BoardError(f"'{clip(m)}' is not a move: use U, D, L or R")
            target = reached[b]
            if target < 0:
                raise BoardError(f"move {m.upper()} takes the blank off the board")
            yield tiles[target]
            tiles[b], tiles[target] = tiles[target], BLANK
            b = target

    def relabel(self, mapping: Sequence[int]) -> Board:
        """The board with every tile t replaced by ``mapping[t]`` (mapping[0] must be 0)."""
        return Board(self.shape, tuple(mapping[t] for t in self.tiles))


@functools.cache
def _steps(shape: Shape) -> dict[str, list[int]]:
    """For each move letter (either case), the cell the blank reaches from each cell (-1 off
    the board): a replay looks each move up instead of working it out."""
    by_cell = shape.neighbour_table()
    steps = {m: [row[i] for row in by_cell] for i, m in enumerate(MOVES)}
    return steps | {m.lower(): cells for m, cells in steps.items()}


def validate_tiles(tiles: Sequence[int], shape: Shape) -> None:
    """Raise :class:`BoardError` naming the first fault if ``tiles`` is not a permutation of
    ``0..N-1`` for ``shape``.  Tiles numbered 1..N, each once, are a board without its blank:
    that is said, not that tile N is out of range, which is only where the fault shows."""
    n = shape.size
    check_count(tiles, shape)
    if BLANK not in tiles and sorted(tiles) == list(range(1, n + 1)):
        raise BoardError(
            f"the board {quoted(tiles)} has no blank (write it as {BLANK_WORDS}): a {shape} "
            f"board holds 0 (the blank) to {n - 1}, each once"
        )
    seen = set()
    for t in tiles:
        if not 0 <= t < n:
            raise BoardError(
                f"tile {clip(t)} is out of range 0..{n - 1} for {shape} in {quoted(tiles)}"
            )
        if t in seen:
            raise BoardError(f"tile {t} appears twice in {quoted(tiles)}")
        seen.add(t)


def parse_board(text, shape: Shape | str | None = None) -> Board:
    """Read a board from text (or a Board, or a sequence of ints / of rows).

    Accepted: flat numbers (``"1 2 3 4 0 5"``, ``"1,2,3,4,0,5"``), rows (``"1 2 3/4 0 5"`` or
    several lines), JSON (``[[1,2,3],[4,0,5]]`` or a flat JSON list); the blank as ``0 x X _ .``.
    A flat list of 6, 9, 16 or 25 tiles infers 2x3, 3x3, 4x4, 5x5; other counts need ``shape``.

    >>> parse_board("1 2 3 x 4 5 6 7 8").tiles
    (1, 2, 3, 0, 4, 5, 6, 7, 8)
    >>> parse_board("[[1,2],[3,0],[4,5]]").shape
    Shape(rows=3, cols=2)
    """
    if isinstance(text, Board):
        want = Shape.parse(shape) if shape is not None else None
        if want is not None and text.shape != want:
            raise BoardError(f"board {text} is {text.shape}, not {want}")
        return text
    return Board(*board_layout(text, shape))


# --- goals -----------------------------------------------------------------------------------


def _snake_order(shape: Shape) -> list[int]:
    cells = []
    for r in range(shape.rows):
        row = [r * shape.cols + c for c in range(shape.cols)]
        cells.extend(row if r % 2 == 0 else row[::-1])
    return cells


def _spiral_order(shape: Shape) -> list[int]:
    top, bottom, left, right = 0, shape.rows - 1, 0, shape.cols - 1
    cells = []
    while top <= bottom and left <= right:
        cells += [top * shape.cols + c for c in range(left, right + 1)]
        cells += [r * shape.cols + right for r in range(top + 1, bottom + 1)]
        if top < bottom:
            cells += [bottom * shape.cols + c for c in range(right - 1, left - 1, -1)]
        if left < right:
            cells += [r * shape.cols + left for r in range(bottom - 1, top, -1)]
        top, bottom, left, right = top + 1, bottom - 1, left + 1, right - 1
    return cells


def _board_along(shape: Shape, order: list[int]) -> Board:
    """Tiles 1..N-1 laid along ``order`` (a path through all cells); the blank ends it."""
    tiles = [0] * shape.size
    for i, cell in enumerate(order[:-1]):
        tiles[cell] = i + 1
    return Board(shape, tuple(tiles))


def preset_goal(shape: Shape, name: str = "blank-last") -> Board:
    """The goal preset ``name`` (one of :data:`GOAL_PRESETS`, as written there) on ``shape``:
    the typed constructor the inner layers call; text from users goes through
    :func:`goal_board`.

    >>> str(preset_goal(Shape(3, 3))), str(preset_goal(Shape(3, 3), "spiral"))
    ('1 2 3/4 5 6/7 8 0', '1 2 3/8 0 4/7 6 5')
    """
    if name == "blank-last":
        return Board(shape, tuple(range(1, shape.size)) + (BLANK,))
    if name == "blank-first":
        return Board(shape, tuple(range(shape.size)))
    if name == "snake":
        return _board_along(shape, _snake_order(shape))
    if name == "spiral":
        return _board_along(shape, _spiral_order(shape))
    raise BoardError(f"unknown goal '{clip(name)}': use one of {', '.join(GOAL_PRESETS)}")


def goal_board(shape: Shape | str, goal=None) -> Board:
    """Parse a goal for ``shape`` (text or a :class:`Shape`): a preset name or an explicit
    board (default ``blank-last``).  The edges (API, CLI, service) call this once; the inner
    layers take the :class:`Board` it returns (or build a preset with :func:`preset_goal`).

    >>> str(goal_board("3x3")), str(goal_board("3x3", "blank-first"))
    ('1 2 3/4 5 6/7 8 0', '0 1 2/3 4 5/6 7 8')
    >>> str(goal_board("3x3", "snake")), str(goal_board("3x3", "spiral"))
    ('1 2 3/6 5 4/7 8 0', '1 2 3/8 0 4/7 6 5')
    """
    shape = Shape.parse(shape)
    if goal is None or goal == "blank-last" or goal == "default":
        return preset_goal(shape)
    if isinstance(goal, str) and goal.strip().lower() in GOAL_PRESETS:
        return preset_goal(shape, goal.strip().lower())
    if isinstance(goal, str) and re.fullmatch(r"[a-zA-Z-]+", goal.strip()):
        raise BoardError(
            f"unknown goal '{clip(goal)}': use one of {', '.join(GOAL_PRESETS)} or a board"
        )
    try:
        return parse_board(goal, shape)
    except BoardError as e:
        raise BoardError(f"the goal: {e}") from None


# --- solvability -----------------------------------------------------------------------------


def inversions(board: Board) -> int:
    """Pairs of tiles (blank excluded) that stand in the wrong order, reading row-major.

    >>> inversions(Board.parse("12 13 11 2/4 5 3 14/1 9 15 6/8 7 0 10"))
    52
    """
    # From the last tile back: each tile stands before the smaller tiles already seen.
    count, seen = 0, 0
    for t in reversed(board.tiles):
        if t != BLANK:
            count += (seen & ((1 << t) - 1)).bit_count()
            seen |= 1 << t
    return count


@dataclass(frozen=True)
class Solvability:
    """Whether ``start`` can reach ``goal``, with the working of the parity rule."""

    solvable: bool
    start_inversions: int
    goal_inversions: int
    start_blank_row_from_bottom: int  # 1 = bottom row
    goal_blank_row_from_bottom: int
    width_even: bool

    @property
    def reason(self) -> str:
        """One or two sentences explaining the verdict."""
        si, gi = self.start_inversions, self.goal_inversions
        if not self.width_even:
            rule = (
                f"the width is odd, so a move never changes the parity of the inversion count: "
                f"the start has {si} ({_parity(si)}), the goal {gi} ({_parity(gi)})"
            )
        else:
            sr, gr = self.start_blank_row_from_bottom, self.goal_blank_row_from_bottom
            rule = (
                f"the width is even, so inversions + blank row (counted from the bottom) keeps "
                f"its parity: the start has {si} + {sr} = {si + sr} ({_parity(si + sr)}), "
                f"the goal {gi} + {gr} = {gi + gr} ({_parity(gi + gr)})"
            )
        verdict = "solvable" if self.solvable else "unsolvable"
        return f"{verdict}: {rule}"

    def as_dict(self) -> dict:
        """JSON-ready fields."""
        return {
            "solvable": self.solvable,
            "start_inversions": self.start_inversions,
            "goal_inversions": self.goal_inversions,
            "start_blank_row_from_bottom": self.start_blank_row_from_bottom,
            "goal_blank_row_from_bottom": self.goal_blank_row_from_bottom,
            "width_even": self.width_even,
            "reason": self.reason,
        }


def _parity(x: int) -> str:
    return "even" if x % 2 == 0 else "odd"


def solvability(start: Board, goal: Board) -> Solvability:
    """Apply the parity rule for any shape and any goal.

    A horizontal move leaves the row-major tile sequence unchanged; a vertical move lifts one
    tile over ``cols - 1`` others, changing the inversion count by an odd amount exactly when
    the width is even, while the blank changes row.  So ``inversions`` (odd width) or
    ``inversions + blank row`` (even width) keeps its parity, and on boards of at least 2x2 any
    two positions that agree on it are reachable from each other.

    >>> s = solvability(Board.parse("1 2 3/4 5 6/8 7 0"), goal_board("3x3"))
    >>> s.solvable, s.start_inversions
    (False, 1)
    """
    if start.shape != goal.shape:
        raise BoardError(f"start is {start.shape} but goal is {goal.shape}")
    rows, cols = start.shape.rows, start.shape.cols
    si, gi = inversions(start), inversions(goal)
    sr = rows - start.blank // cols
    gr = rows - goal.blank // cols
    even = cols % 2 == 0
    if even:
        ok = (si + sr) % 2 == (gi + gr) % 2
    else:
        ok = si % 2 == gi % 2
    return Solvability(ok, si, gi, sr, gr, even)


# The goals a user most often means; the reference sets use blank-first, the CLI blank-last.
EVERYDAY_GOALS = ("blank-last", "blank-first")


def solvable_for(start: Board, goal: Board) -> str | None:
    """The everyday preset goal (blank-last or blank-first) that ``start`` reaches when it
    cannot reach ``goal``: a board from a set that uses the other convention.  None when
    ``start`` reaches ``goal``, or neither preset serves (on odd widths both presets have the
    same parity).

    >>> start = Board.parse("14 13 15 7/11 12 9 5/6 0 2 1/4 8 10 3")
    >>> solvable_for(start, goal_board("4x4")), solvable_for(start, goal_board("4x4", "blank-first"))
    ('blank-first', None)
    >>> solvable_for(Board.parse("1 2 3/4 5 6/8 7 0"), goal_board("3x3")) is None
    True
    """
    if is_solvable(start, goal):
        return None
    for name in EVERYDAY_GOALS:
        other = preset_goal(start.shape, name)
        if other != goal and is_solvable(start, other):
            return name
    return None


def is_solvable(start: Board, goal: Board) -> bool:
    """True if ``start`` can be slid to ``goal``."""
    return solvability(start, goal).solvable


@functools.lru_cache(maxsize=64)
def manhattan_table(goal: Board) -> tuple[tuple[int, ...], ...]:
    """``md[t][c]``: the grid distance from cell ``c`` to the cell of tile ``t`` in ``goal``
    (the blank's row, ``md[0]``, is zeros: the blank is not counted).  The one definition of
    Manhattan distance: every other form of it (the sum below, numpy's over many boards, the
    searches' tables) reads this table.

    >>> manhattan_table(Board.parse("1 2/3 0"))[1]   # tile 1 belongs on cell 0
    (0, 1, 1, 2)
    """
    cols = goal.shape.cols
    home = {t: c for c, t in enumerate(goal.tiles)}
    return tuple(
        tuple(
            0 if t == BLANK else abs(c // cols - home[t] // cols) + abs(c % cols - home[t] % cols)
            for c in range(goal.shape.size)
        )
        for t in range(goal.shape.size)
    )


def manhattan(board: Board, goal: Board) -> int:
    """Sum over tiles of the grid distance from their cell to their goal cell
    (:func:`manhattan_table`)."""
    md = manhattan_table(goal)
    return sum(md[t][cell] for cell, t in enumerate(board.tiles))
