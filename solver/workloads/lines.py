"""Reading batch input: one question per line, in every format the tools write
(layer 5: workloads).

Every batch command (``distance -``, ``heuristic -``, ``check -``, ``solve -``, ``stats -``)
reads its input through this module, so they all accept the same lines:

* a board in any format :func:`solver.core.board.parse_board` reads (``8 6 7 2 5 4 3 0 1``,
  ``1,2,3,4,0,5``, ``1 2 3/4 0 5``, ``[[1,2,3],[4,0,5]]``);
* a JSON object with ``board`` (or ``start``, as ``solve --json`` writes it, or ``input``, as
  an error record carries it), optional ``goal``, ``shape`` and ``id``; its other keys are
  carried through to the ``--json`` answer;
* tab- or comma-separated columns whose first column is the board (``generate`` writes
  ``board<TAB>distance``).  A line that reads as a board as a whole is one (``1,2,3,4,0,5``);
  otherwise its first column is.  A first line of column names (``id,board,goal``) is a
  header, and so is a ``#`` comment before it that is only tab-separated names
  (``# id<TAB>tiles<TAB>optimal_length``, as the reference sets in ``data/`` write it, so that
  readers that skip comments read them too).  Under a header the board is the column called
  ``board`` or ``tiles`` (or ``start``, ``input``), and the columns ``goal``, ``shape`` and
  ``id`` are used; the other named columns are carried through.  A board column may name the
  goal its boards are written for, ``tiles:blank-first``: a file with a board for each of two
  goals has one column per goal, the goal asked on the command line picks its column, and
  without one the first board column is read with its own goal.

Blank lines, ``#`` comments and the header get an empty answer line.  A goal or shape given on
the command line wins over one on the line.

**Limits.**  A line longer than :data:`MAX_LINE_BYTES` is refused with one error record and
never held in memory whole (the reader keeps at most that much of it); a board is at most
:data:`~solver.core.board.MAX_BOARD_CHARS` characters.  A line that is not UTF-8, not valid
JSON, nested too deeply or holds a 4,301-digit number is that line's error, never the
batch's.

Imports: the solver core (board) and the standard library.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import BinaryIO

from ..core.board import Board, BoardError, goal_board, parse_board

MAX_LINE_BYTES = 1 << 20  # 1 MiB: a teaching search's --json answer (37,000 moves) fits
CHUNK_BYTES = 1 << 20  # how much is read at once (a pipe answers with what it has)
BOARD_KEYS = ("board", "start", "input")  # JSON keys that hold the board, in order of preference
BOARD_COLUMNS = ("board", "tiles", "start", "input")  # the header names of a board column
MISSING = object()  # a line without an id
# A column name starts with a letter and has no digit after a space (so a board written with
# an x for the blank, "x 1 2", is never one): "id", "optimal length", "tiles:blank-first".
_HEADER_CELL = re.compile(r"\s*[A-Za-z_](?:[A-Za-z_ .:-]|(?<! )[0-9])*\s*")
_TOKENS = re.compile(r"[\s,;/|]+")


class LineError(BoardError):
    """A line that cannot be read as a question (not UTF-8, too long, JSON without a board);
    answered as that line's error, exit status 2."""


# --- chunks of whole lines, with bounded memory ------------------------------------------------


@dataclass
class Chunk:
    """Whole lines read from a stream: ``data`` holds them, each ending in a newline;
    ``first`` is the number of the first line (from 1); ``long`` maps the index (in this
    chunk) of each line refused for its length to the bytes of it that were seen (more than
    the limit) -- they were dropped and the line stands in ``data`` as an empty line."""

    data: bytes
    first: int
    long: dict = field(default_factory=dict)

    def lines(self) -> list[bytes]:
        """The lines, without their newlines."""
        return self.data.split(b"\n")[:-1]


def chunks(
    stream: BinaryIO, max_line: int = MAX_LINE_BYTES, size: int = CHUNK_BYTES
) -> Iterator[Chunk]:
    """Read ``stream`` as :class:`Chunk` s of whole lines, as fast as it delivers them (an
    interactive user's line is answered when it is typed).  Never holds more than
    ``max_line + size`` bytes of a line."""
    read = getattr(stream, "read1", stream.read)
    pending = b""
    first = 1
    skipping = 0  # > 0: inside a line refused for its length; counts its bytes
    while True:
        block = read(size)
        if not block:
            break
        if skipping:
            cut = block.find(b"\n")
            if cut < 0:
                skipping += len(block)
                continue
            skipping = 0
            block = block[cut + 1 :]
        data = pending + block
        cut = data.rfind(b"\n")
        if cut < 0:
            pending = data
        else:
            pending = data[cut + 1 :]
            out = _refuse_long(data[: cut + 1], first, max_line)
            first += out.data.count(b"\n")
            yield out
        if len(pending) > max_line:  # a line too long to keep: drop it, remember it
            yield Chunk(b"\n", first, {0: len(pending)})
            first += 1
            skipping = len(pending)
            pending = b""
    if pending:
        out = _refuse_long(pending + b"\n", first, max_line)
        yield out


def _refuse_long(data: bytes, first: int, max_line: int) -> Chunk:
    """Replace the complete lines of ``data`` longer than ``max_line`` by empty lines."""
    if len(data) <= max_line + 1 or not _has_long_line(data, max_line):
        return Chunk(data, first)
    parts = data.split(b"\n")[:-1]
    long = {i: len(p) for i, p in enumerate(parts) if len(p) > max_line}
    if not long:
        return Chunk(data, first)
    for i in long:
        parts[i] = b""
    return Chunk(b"\n".join(parts) + b"\n", first, long)


def _has_long_line(data: bytes, max_line: int) -> bool:
    pos = 0
    while pos < len(data):
        end = data.find(b"\n", pos, pos + max_line + 1)
        if end < 0:
            return True
        # Jump ahead: the next line starts after `end`; look for a newline within reach.
        pos = data.rfind(b"\n", end, end + max_line + 1) + 1
    return False


# --- one line: what question it asks -------------------------------------------------------------


@dataclass
class Request:
    """What one input line asks: the board (candidates tried in order: the whole line, then
    its first column), the goal and shape it names, its id and the keys to carry through."""

    line: int
    text: str  # the line as read (for the "input" of an error record)
    boards: tuple
    goal: object = None
    shape: object = None
    id: object = MISSING
    extra: dict = field(default_factory=dict)
    columns: tuple = ()  # under a header: the column each of ``boards`` was read from
    column_goals: tuple = ()  # the goal each of those columns names (None: none)

    def for_goal(self, goal) -> Request:
        """This request with the one board read for ``goal`` (the command line's; None: none
        asked).  Under a header with several board columns that is the column named for the
        goal, else the first; the line's goal is then that column's unless the line names one
        in a ``goal`` column."""
        if not self.columns:
            return self
        asked = goal.strip().lower() if isinstance(goal, str) else None
        pick = next((i for i, g in enumerate(self.column_goals) if g and g == asked), 0)
        return replace(
            self,
            boards=(self.boards[pick],),
            goal=self.goal if self.goal is not None else self.column_goals[pick],
            columns=(self.columns[pick],),
            column_goals=(self.column_goals[pick],),
        )


def input_text(raw: bytes, limit: int = 200) -> str:
    """What an error record quotes of a line it could not read: the line decoded leniently,
    cut to ``limit`` characters."""
    text = raw.decode("utf-8", "replace").rstrip("\r\n").strip()
    return text if len(text) <= limit else text[:limit] + "…"


class Reader:
    """Turns lines into :class:`Request` s.  Its only state is the header: whether the first
    line with content named the columns.  Call :meth:`start` with the first line that has
    content (once), then :meth:`read` for every line, in any order."""

    def __init__(self):
        self.started = False
        self.header_line: int | None = None
        self.delimiter: str | None = None
        self.columns: list[str] | None = None

    def start(self, raw: bytes, line: int) -> None:
        """Look at the first line with content, or the header comment before it
        (:func:`first_with_content`): a header names the columns."""
        self.started = True
        try:
            text = raw.decode("utf-8").rstrip("\r\n").strip()
        except UnicodeDecodeError:
            return
        if text.startswith("#"):
            cells = comment_header(text)
            if cells:
                self._named(cells, "\t", line)
            return
        if text.startswith(("{", "[")):
            return
        for delimiter in ("\t", ","):
            if delimiter in text:
                cells = _split(text, delimiter)
                if all(_HEADER_CELL.fullmatch(c) for c in cells):
                    self._named(cells, delimiter, line)
                return

    def _named(self, cells: list[str], delimiter: str, line: int) -> None:
        self.header_line = line
        self.delimiter = delimiter
        self.columns = [c.strip().lower() for c in cells]

    def read(self, raw: bytes, line: int) -> Request | None:
        """The request of one line (without its newline), or None for a line that asks
        nothing (blank, ``#`` comment, the header).  Raises :class:`LineError`."""
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise LineError(
                f"line {line} is not UTF-8 text (byte 0x{raw[e.start]:02x} at position {e.start})"
            ) from None
        return self.read_text(text.rstrip("\r\n"), line)

    def read_text(self, text: str, line: int) -> Request | None:
        """:meth:`read` for a line already decoded."""
        s = text.strip()
        if not s or s.startswith("#") or line == self.header_line:
            return None
        if s.startswith("{"):
            return _json_request(s, line)
        if self.columns is not None:
            return self._columns_request(s, line)
        boards = [s]
        for delimiter in ("\t", ","):
            if delimiter in s:
                cell = _split(s, delimiter)[0].strip()
                if cell and cell != s:
                    boards.append(cell)
                break
        return Request(line, s, tuple(boards))

    def _columns_request(self, s: str, line: int) -> Request:
        cells = [c.strip() for c in _split(s, self.delimiter)]
        named = dict(zip(self.columns, cells))
        boards = [(name, goal) for name, goal in map(_board_column, self.columns) if name]
        if boards:
            columns = tuple(f"{n}:{g}" if g else n for n, g in boards)
            texts = tuple(named.get(c, "") for c in columns)
            goals = tuple(g for _, g in boards)
        else:
            raise LineError(
                f"line {line}: no column is called {' or '.join(BOARD_COLUMNS[:2])}, where a"
                f" board is read (the header on line {self.header_line} names"
                f" {', '.join(self.columns)})"
            )
        used = {*columns, "goal", "shape", "id"}
        extra = {k: v for k, v in named.items() if k not in used}
        return Request(
            line,
            s,
            texts,
            goal=named.get("goal") or None,
            shape=named.get("shape") or None,
            id=named.get("id", MISSING),
            extra=extra,
            columns=columns,
            column_goals=goals,
        )


def _board_column(name: str) -> tuple[str | None, str | None]:
    """``(board column name, the goal it names)`` for a header name (``tiles``,
    ``tiles:blank-first``), ``(None, None)`` for another column."""
    base, _, goal = name.partition(":")
    if base.strip() not in BOARD_COLUMNS:
        return None, None
    return base.strip(), goal.strip() or None


def comment_header(text: str) -> list[str] | None:
    """The column names of a ``#`` comment that is a header (``# id<TAB>tiles<TAB>...``: two or
    more tab-separated names), else None.  Only tabs: a comma in a comment is prose."""
    body = text.lstrip("#")
    if "\t" not in body:
        return None
    cells = body.strip().split("\t")
    if len(cells) < 2 or not all(_HEADER_CELL.fullmatch(c) for c in cells):
        return None
    return cells


def _split(text: str, delimiter: str) -> list[str]:
    if delimiter == ",":
        try:
            return next(csv.reader([text]), [""])
        except csv.Error:  # e.g. a field over csv's size limit: the plain split will do
            pass
    return text.split(delimiter)


def _json_request(s: str, line: int) -> Request:
    try:
        obj = json.loads(s)
    except json.JSONDecodeError as e:
        raise LineError(f"line {line} is not valid JSON ({e.msg} at column {e.colno})") from None
    except (RecursionError, ValueError):
        raise LineError(
            f"line {line} is not JSON that can be read (nested too deeply or a number too long)"
        ) from None
    if not isinstance(obj, dict):
        raise LineError(f'line {line} is a JSON {type(obj).__name__}, not an object with a "board"')
    key = next((k for k in BOARD_KEYS if k in obj), None)
    if key is None:
        raise LineError(f'line {line} is a JSON object without a "board"')
    board = obj[key]
    if not isinstance(board, (str, list)):
        raise LineError(f'line {line}: "{key}" must be a string or a list')
    goal, shape = obj.get("goal"), obj.get("shape")
    if goal is not None and not isinstance(goal, (str, list)):
        raise LineError(f'line {line}: "goal" must be a string or a list')
    if shape is not None and not isinstance(shape, str):
        raise LineError(f'line {line}: "shape" must be a string such as "3x3"')
    extra = {k: v for k, v in obj.items() if k not in (key, "id")}
    return Request(
        line, s, (board,), goal=goal, shape=shape, id=obj.get("id", MISSING), extra=extra
    )


def problem(req: Request, goal=None, shape=None) -> tuple[Board, Board]:
    """The start and goal a request asks about.  ``goal`` / ``shape`` from the command line
    win over the line's own.  Under a header the board is its column's (see
    :meth:`Request.for_goal`), and an error names that column.  Otherwise the board is the
    first candidate that reads as a board; when none does, the error is the first column's
    if it holds several numbers (it was meant as a board), else the whole line's."""
    req = req.for_goal(goal)
    goal = goal if goal is not None else req.goal
    shape = shape if shape is not None else req.shape
    if req.columns:
        try:
            start = parse_board(req.boards[0], shape)
        except BoardError as e:
            raise BoardError(f"column {req.columns[0]!r} is not a board: {e}") from None
        return start, goal_board(start.shape, goal)
    errors = []
    for spec in req.boards:
        try:
            start = parse_board(spec, shape)
        except BoardError as e:
            errors.append(e)
            continue
        return start, goal_board(start.shape, goal)
    if len(errors) > 1 and len([t for t in _TOKENS.split(str(req.boards[1])) if t]) > 1:
        raise errors[1]
    raise errors[0]


def answer_fields(req: Request | None, line: int) -> dict:
    """The fields every ``--json`` answer of a batch starts with: the line number and the id
    the line gave."""
    head = {"line": line}
    if req is not None and req.id is not MISSING:
        head["id"] = req.id
    return head


def merged(head: dict, record: dict, req: Request | None) -> dict:
    """``head`` + the answer ``record`` + the line's own keys the answer does not have."""
    out = {**head, **record}
    if req is not None:
        for k, v in req.extra.items():
            out.setdefault(k, v)
    return out


__all__ = [
    "Chunk",
    "chunks",
    "Reader",
    "Request",
    "comment_header",
    "LineError",
    "problem",
    "answer_fields",
    "merged",
    "input_text",
    "MAX_LINE_BYTES",
    "MISSING",
]
