"""Reading a board as written: flat numbers, rows, several lines or JSON, with the blank as
``0 x X _ .`` (layer 0: core).  The layout only -- the shape and the numbers; whether the
numbers are a permutation is :class:`solver.core.board.Board`'s to check.

Imports: the standard library, :mod:`solver.core.messages`, :mod:`solver.core.shape`.
"""

from __future__ import annotations

import json
import re

from .messages import option
from .shape import (
    BLANK,
    BLANK_SYMBOLS,
    BLANK_WORDS,
    DIGITS,
    INFERRED_SHAPES,
    MAX_BOARD_CHARS,
    MAX_SIDE,
    MAX_TILE_DIGITS,
    MIN_SIDE,
    BoardError,
    Shape,
    clip,
)


def _token_to_tile(token: str) -> int:
    if token in BLANK_SYMBOLS:
        return BLANK
    if token[:1] == "-" and DIGITS.fullmatch(token[1:]):
        raise BoardError(
            f"tile {clip(token)} is negative: the tiles are numbered from 1 up, and the blank "
            f"is {BLANK_WORDS}"
        )
    if not DIGITS.fullmatch(token):
        raise BoardError(f"'{clip(token)}' is not a tile number (the blank is {BLANK_WORDS})")
    if len(token) > MAX_TILE_DIGITS:  # int() of a 4,301-digit number raises ValueError
        raise BoardError(
            f"tile {clip(token)} is out of range (a board has at most {MAX_SIDE * MAX_SIDE} cells)"
        )
    return int(token)


def one_row(text, shape: Shape | str | None = None) -> bool:
    """Whether ``text`` reads as one row of a board rather than a whole board: a single line of
    2 to 16 tiles, fewer than a board of ``shape`` holds (without a shape: a count that names
    no shape).  A batch reads one board a line, so a board's rows written on lines of their
    own are each one of these.

    >>> one_row("8 6 7"), one_row("8 6 7/2 5 4/3 0 1"), one_row("1 2 3 4", "4x4")
    (True, False, True)
    """
    if isinstance(text, (list, tuple)):
        return False
    try:
        want = Shape.parse(shape) if shape is not None else None
        rows = _rows_from_text(str(text))
    except BoardError:
        return False
    if len(rows) != 1 or not MIN_SIDE <= len(rows[0]) <= MAX_SIDE:
        return False
    count = len(rows[0])
    return count < want.size if want is not None else count not in INFERRED_SHAPES


def _split_row(text: str) -> list[int]:
    return [_token_to_tile(t) for t in re.split(r"[\s,;]+", text.strip()) if t]


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
        raise BoardError(f"the rows give a {found} board but {option('shape')} says {want}")
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
    raise BoardError(f"'{clip(repr(t))}' is not a tile number")


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
                f"or give {option('shape', 'ROWSxCOLS')}"
            )
        want = Shape(*INFERRED_SHAPES[len(tiles)])
    check_count(tiles, want)
    return want


def check_count(tiles, shape: Shape) -> None:
    """Raise :class:`BoardError` unless ``tiles`` are as many as ``shape`` has cells: a count
    is the layout's, so :func:`board_layout` refuses a wrong one before any tile is read."""
    if len(tiles) != shape.size:
        raise BoardError(
            f"a {shape} board needs {shape.size} tiles, got {len(tiles)} in {quoted(tiles)}"
        )


def quoted(tiles) -> str:
    """``tiles`` as a message quotes them: the first ones, between quotes."""
    text = " ".join(clip(t, 12) for t in tiles[:40])
    return f"'{text[:60]}…'" if len(text) > 60 else f"'{text}'"
