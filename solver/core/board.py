"""Boards: shapes, goals, parsing, validation, rendering, moves and solvability (layer 0: core).

Everything else in npuzzle speaks this vocabulary.  A :class:`Shape` is ``rows x cols``; a
:class:`Board` is an immutable tuple of ``rows*cols`` tiles in row-major cell order with the
blank written ``0``.  A move is the direction the *blank* travels (``U D L R``).

Imports: the standard library only (no numpy), so parsing is cheap everywhere.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

BLANK = 0
BLANK_SYMBOLS = {"0", "x", "X", "_", "."}
MIN_SIDE = 2
MAX_SIDE = 16
MAX_TILE_DIGITS = 6  # tiles are below MAX_SIDE**2 = 256; longer digit strings are refused early
# The longest board text read (characters): a 16x16 board written as JSON rows is about 1.5 k;
# anything longer is refused before it is split or decoded (DESIGN §1, "one bad line").
MAX_BOARD_CHARS = 1 << 16
_DIGITS = re.compile(r"[0-9]+")  # ASCII digits only: str.isdigit() and \d accept other scripts
# Square shapes inferred from a flat list of numbers; 6 is LeetCode 773's 2x3.
INFERRED_SHAPES = {6: (2, 3), 9: (3, 3), 16: (4, 4), 25: (5, 5)}
GOAL_PRESETS = ("blank-last", "blank-first", "snake", "spiral")
MOVES = "UDLR"
OPPOSITE = {"U": "D", "D": "U", "L": "R", "R": "L"}


class BoardError(ValueError):
    """A board, shape, goal or move sequence that cannot be read; the message is one line."""


@dataclass(frozen=True)
class Shape:
    """A board shape: ``rows`` x ``cols`` cells, numbered row-major from 0.

    >>> Shape.parse("3x4")
    Shape(rows=3, cols=4)
    >>> str(Shape(2, 3)), Shape(2, 3).size
    ('2x3', 6)
    """

    rows: int
    cols: int

    def __post_init__(self):
        for side in (self.rows, self.cols):
            if not MIN_SIDE <= side <= MAX_SIDE:
                raise BoardError(
                    f"shape {self.rows}x{self.cols} is not supported: each side must be "
                    f"{MIN_SIDE} to {MAX_SIDE}"
                )

    @classmethod
    def parse(cls, text: str | Shape) -> Shape:
        """Read ``"3x3"`` (also ``3X3``, ``3*3``, ``3,3``)."""
        if isinstance(text, Shape):
            return text
        m = re.fullmatch(r"\s*([0-9]{1,6})\s*[xX*,]\s*([0-9]{1,6})\s*", str(text))
        if not m:
            raise BoardError(f"shape '{_clip(text)}' is not of the form ROWSxCOLS, e.g. 3x3")
        return cls(int(m.group(1)), int(m.group(2)))

    def __str__(self) -> str:
        return f"{self.rows}x{self.cols}"

    @property
    def size(self) -> int:
        """Number of cells, ``rows * cols``."""
        return self.rows * self.cols

    def neighbour(self, cell: int, move: str) -> int | None:
        """The cell the blank reaches from ``cell`` by ``move``, or None off the board."""
        r, c = divmod(cell, self.cols)
        if move == "U":
            r -= 1
        elif move == "D":
            r += 1
        elif move == "L":
            c -= 1
        elif move == "R":
            c += 1
        else:
            raise BoardError(f"'{move}' is not a move: use U, D, L or R")
        if 0 <= r < self.rows and 0 <= c < self.cols:
            return r * self.cols + c
        return None

    def neighbour_table(self) -> list[list[int]]:
        """For each cell, the cell reached by U, D, L, R in that order (-1 off the board)."""
        table = []
        for cell in range(self.size):
            row = []
            for m in MOVES:
                n = self.neighbour(cell, m)
                row.append(-1 if n is None else n)
            table.append(row)
        return table


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
        b = self.blank
        for m in moves:
            target = self.shape.neighbour(b, m.upper())
            if target is None:
                raise BoardError(f"move {m.upper()} takes the blank off the board")
            yield tiles[target]
            tiles[b], tiles[target] = tiles[target], BLANK
            b = target

    def relabel(self, mapping: Sequence[int]) -> Board:
        """The board with every tile t replaced by ``mapping[t]`` (mapping[0] must be 0)."""
        return Board(self.shape, tuple(mapping[t] for t in self.tiles))


def validate_tiles(tiles: Sequence[int], shape: Shape) -> None:
    """Raise :class:`BoardError` naming the first fault if ``tiles`` is not a permutation of
    ``0..N-1`` for ``shape``."""
    n = shape.size
    if len(tiles) != n:
        raise BoardError(f"a {shape} board needs {n} tiles, got {len(tiles)} in {_quote(tiles)}")
    seen = set()
    for t in tiles:
        if not 0 <= t < n:
            raise BoardError(
                f"tile {_clip(t)} is out of range 0..{n - 1} for {shape} in {_quote(tiles)}"
            )
        if t in seen:
            raise BoardError(f"tile {t} appears twice in {_quote(tiles)}")
        seen.add(t)


def _quote(tiles: Sequence[int]) -> str:
    text = " ".join(_clip(t, 12) for t in tiles[:40])
    return f"'{text[:60]}…'" if len(text) > 60 else f"'{text}'"


def _token_to_tile(token: str) -> int:
    if token in BLANK_SYMBOLS:
        return BLANK
    if not _DIGITS.fullmatch(token):
        raise BoardError(f"'{_clip(token)}' is not a tile number (the blank is 0, x, _ or .)")
    if len(token) > MAX_TILE_DIGITS:  # int() of a 4,301-digit number raises ValueError
        raise BoardError(
            f"tile {_clip(token)} is out of range (a board has at most {MAX_SIDE * MAX_SIDE} cells)"
        )
    return int(token)


def _clip(text: str, limit: int = 40) -> str:
    """``text`` cut to ``limit`` characters for an error message."""
    text = "".join(
        c if c.isprintable() else f"\\x{ord(c):02x}" if ord(c) < 256 else "?"
        for c in str(text)[: limit + 1]
    )
    return text if len(text) <= limit else text[:limit] + "…"


def _split_row(text: str) -> list[int]:
    return [_token_to_tile(t) for t in re.split(r"[\s,;]+", text.strip()) if t]


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


def board_layout(text, shape: Shape | str | None = None) -> tuple[Shape, tuple[int, ...]]:
    """The shape and the numbers of a board as written, before the numbers are checked to be
    a permutation: the part of :func:`parse_board` that depends only on how the board is laid
    out (rows, separators, counts), never on which numbers it holds.  Raises
    :class:`BoardError` for a layout that is not a board.

    >>> board_layout("7 7 7/7 7 7")
    (Shape(rows=2, cols=3), (7, 7, 7, 7, 7, 7))
    """
    want = Shape.parse(shape) if shape is not None else None
    if isinstance(text, (list, tuple)):
        rows = _rows_from_sequence(text)
    else:
        rows = _rows_from_text(str(text))
    if len(rows) == 1:
        return _flat_shape(rows[0], want), tuple(rows[0])
    lengths = [len(r) for r in rows]
    if len(set(lengths)) != 1:
        shown = lengths if len(lengths) <= 8 else lengths[:8] + ["…"]
        raise BoardError(f"rows have different lengths ({', '.join(map(str, shown))})")
    found = Shape(len(rows), lengths[0]) if lengths[0] >= MIN_SIDE else None
    if found is None:
        raise BoardError(f"rows must have at least {MIN_SIDE} tiles each")
    if want is not None and want != found:
        raise BoardError(f"the rows give a {found} board but --shape says {want}")
    return found, tuple(t for r in rows for t in r)


def _rows_from_sequence(seq) -> list[list[int]]:
    if len(seq) > MAX_BOARD_CHARS:
        raise BoardError(f"a board of {len(seq):,} items is too large")
    if seq and all(isinstance(r, (list, tuple)) for r in seq):
        return [[_as_tile(t) for t in r] for r in seq]
    return [[_as_tile(t) for t in seq]]


def _as_tile(t) -> int:
    if isinstance(t, bool):
        raise BoardError(f"'{t}' is not a tile number")
    if isinstance(t, int):
        return t
    if isinstance(t, str):
        return _token_to_tile(t.strip())
    raise BoardError(f"'{_clip(repr(t))}' is not a tile number")


def _rows_from_text(text: str) -> list[list[int]]:
    stripped = text.strip()
    if not stripped:
        raise BoardError("empty board: give the tiles, e.g. '1 2 3/4 0 5'")
    if len(stripped) > MAX_BOARD_CHARS:
        raise BoardError(
            f"a board of {len(stripped):,} characters is too long (the limit is "
            f"{MAX_BOARD_CHARS:,})"
        )
    if stripped.startswith("["):
        try:
            data = json.loads(stripped)
        except json.JSONDecodeError as e:
            raise BoardError(f"board looks like JSON but is not valid JSON ({e.msg})") from None
        except (RecursionError, ValueError):  # nested too deeply, or a number too long
            raise BoardError(
                "board looks like JSON but cannot be read (nested too deeply or a number too long)"
            ) from None
        if not isinstance(data, list):
            raise BoardError("a JSON board must be a list of rows or of tiles")
        return _rows_from_sequence(data)
    parts = [p for p in re.split(r"[/\n|]", stripped) if p.strip()]
    return [_split_row(p) for p in parts]


def _flat_shape(tiles: list[int], want: Shape | None) -> Shape:
    if want is None:
        if len(tiles) not in INFERRED_SHAPES:
            raise BoardError(
                f"cannot tell the shape of {len(tiles)} tiles: write rows ('1 2 3/4 0 5') "
                f"or give --shape ROWSxCOLS"
            )
        want = Shape(*INFERRED_SHAPES[len(tiles)])
    return want


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
    raise BoardError(f"unknown goal '{_clip(name)}': use one of {', '.join(GOAL_PRESETS)}")


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
            f"unknown goal '{_clip(goal)}': use one of {', '.join(GOAL_PRESETS)} or a board"
        )
    try:
        return parse_board(goal, shape)
    except BoardError as e:
        raise BoardError(f"the goal: {e}") from None


def parse_moves(text: str) -> str:
    """Normalise a move string (either case, optional spaces/commas) to upper-case ``UDLR``."""
    cleaned = re.sub(r"[\s,]+", "", text).upper()
    bad = set(cleaned) - set(MOVES)
    if bad:
        raise BoardError(f"'{sorted(bad)[0]}' is not a move: use U, D, L or R")
    return cleaned


# --- solvability -----------------------------------------------------------------------------


def inversions(board: Board) -> int:
    """Pairs of tiles (blank excluded) that stand in the wrong order, reading row-major.

    >>> inversions(Board.parse("12 13 11 2/4 5 3 14/1 9 15 6/8 7 0 10"))
    52
    """
    seq = [t for t in board.tiles if t != BLANK]
    return sum(1 for i in range(len(seq)) for j in range(i + 1, len(seq)) if seq[i] > seq[j])


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


def is_solvable(start: Board, goal: Board) -> bool:
    """True if ``start`` can be slid to ``goal``."""
    return solvability(start, goal).solvable


def manhattan(board: Board, goal: Board) -> int:
    """Sum over tiles of the grid distance from their cell to their goal cell."""
    cols = board.shape.cols
    home = {t: c for c, t in enumerate(goal.tiles)}
    total = 0
    for cell, t in enumerate(board.tiles):
        if t != BLANK:
            g = home[t]
            total += abs(cell // cols - g // cols) + abs(cell % cols - g % cols)
    return total
