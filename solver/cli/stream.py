"""The batch mode of every command (``BOARD`` = ``-``): read stdin in chunks, answer the lines
numpy can read in bulk all at once and the others one by one, write the answers in input
order (layer 7: cli).

A command describes itself as a :class:`Batch`: how to answer one problem (``one``), how that
answer reads as text and as JSON, and optionally how to answer a whole :class:`~solver.workloads.bulk.Group` of boards
at once (``bulk``).  Both ways give the same bytes, line for line (the ``seconds`` a JSON
answer reports is a measurement and differs); ``NPUZZLE_BULK=0`` turns the bulk way off.

Per line: a blank line, a ``#`` comment or a header gets an empty line in text, so that the
answers stay line for line with the input, and nothing in JSON, where every line is a record
and each names its input ``line``; a line that cannot be answered gets ``error: ...``
(``unsolvable`` for an unsolvable start) or, with ``--json``, its error record -- and the batch
goes on, whatever the line held.  Only a missing or damaged
database ends the batch (exit 3): it would fail every line.

Imports: click, numpy, :mod:`solver.workloads`, :mod:`.errors`, :mod:`.io`, :mod:`.piece_input`
and :mod:`solver.client.pieces`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np

from ..answers import error_record, other_goal_text
from ..client.pieces import first_with_content
from ..core import config, heap
from ..core.board import Board, BoardError, Solvability, solvable_for
from ..core.board_text import one_row
from ..core.messages import ERROR, prefixed
from ..core.notes import NotedOnceWriter
from ..core.solution import Unsolvable
from ..tables import loading
from ..tables.store import DatabaseError
from ..workloads import bulk, lines
from . import batch_progress, errors, io, piece_input


@dataclass
class BulkAnswers:
    """A group's answers, row by row: ``unsolvable`` rows are answered as the one-board path
    answers an unsolvable start (as an error: ``unsolvable``, or the record with the parity
    working); the others as ``ints`` (text answers that are numbers), ``words`` (``(codes,
    strings)``: row k's answer is ``strings[codes[k]]``, for answers with few distinct
    values), ``texts`` or, with ``--json``, ``record(i)``.  ``codes`` feeds the exit status
    (e.g. 1 for ``check``)."""

    unsolvable: np.ndarray | None = None
    ints: np.ndarray | None = None
    words: tuple | None = None
    texts: list | None = None
    record: Callable[[int], dict] | None = None
    codes: np.ndarray | None = None
    parity: object = None  # bulk_answers.Parity of the group, when computed


# The exit status of a batch is the largest of its lines' (docs/faults.md#a-batchs-exit-status):
# 4 a search limit, then 2 a bad line, then 1 an unsolvable one.  A missing database (3) ends
# the batch where it is met.
LINE_STATUSES = (errors.EXIT_UNSOLVABLE, errors.EXIT_USAGE, errors.EXIT_LIMIT)


@dataclass
class Batch:
    """What a command answers in batch mode.

    ``one(start, goal)`` answers one problem (raising the library's errors); ``text`` and
    ``record`` render its result; ``code`` is the exit status it stands for; ``bulk(group,
    as_json)`` answers a whole group or returns None (then its lines go one by one);
    ``many(problems)`` answers problems in order (default: ``one`` on each; ``solve`` uses a
    pool of processes).  ``counted``: the exit statuses of lines that make the batch's
    (:data:`LINE_STATUSES`, for every command: ``stats -`` counts the unsolvable as
    unanswered); ``searches``: whether its lines run searches rather than lookups."""

    one: Callable
    text: Callable
    record: Callable
    code: Callable = lambda result: errors.EXIT_OK
    bulk: Callable | None = None
    many: Callable | None = None
    counted: tuple = LINE_STATUSES
    goal: object = None
    shape: object = None
    as_json: bool = False
    searches: bool = False  # whether a line runs a search (how tables are loaded: loading.py)
    worst: int = field(default=errors.EXIT_OK, init=False)
    told_rows: bool = field(default=False, init=False)  # ROWS_HINT said

    def note(self, code: int) -> None:
        """Count a line's exit status towards the batch's: the largest counted one."""
        if code in self.counted and code > self.worst:
            self.worst = code


def run(batch: Batch, stream=None, out=None, chunks=None) -> int:
    """Answer every line of ``stream`` (default stdin; or the :class:`~solver.workloads.lines.Chunk` s of
    ``chunks``, or the piece of a batch this thread answers for a client: :mod:`.piece_input`) on
    ``out`` (default stdout); return the exit status."""
    out = out if out is not None else sys.stdout.buffer
    if batch.as_json:
        out = NotedOnceWriter(out)  # each note in the first record printed that carries it
    loading.prefer(batch=True, searches=batch.searches)  # many lookups ahead: see loading
    heap.keep_freed_memory()  # each chunk reuses the last one's pages (solver.core.heap)
    reader = lines.Reader()
    chunks, progress = _input(reader, stream, chunks)
    out = progress.beside(out)
    use_bulk = os.environ.get(config.ENV_BULK, "1") != "0"
    try:
        for chunk in chunks:
            if not reader.started:
                head = first_with_content(chunk)
                if head is not None:
                    reader.start(*head)
            _answer_chunk(batch, chunk, reader, use_bulk and reader.started, out, progress)
    finally:
        progress.close()
    out.flush()
    return batch.worst


def _input(reader, stream, chunks):
    """``(chunks, progress)``: the chunks a batch answers -- ``chunks`` as given, ``stream``
    read in chunks, the piece of a client's batch this thread answers (:mod:`.piece_input`),
    else stdin read in chunks -- and what shows how far it has got (only stdin's batch may:
    :mod:`.batch_progress`)."""
    if chunks is not None or stream is not None:
        chunks = chunks if chunks is not None else lines.chunks(stream)
        return chunks, batch_progress.NoProgress()
    piece = piece_input.current()
    if piece is not None:
        if piece.head is not None:
            reader.start(*piece.head)  # the batch's header may be in an earlier piece
        return [piece.chunk], batch_progress.NoProgress()
    progress = batch_progress.start(batch_progress.shown())
    return progress.chunks(lines.chunks(sys.stdin.buffer), sys.stdin.buffer), progress


class _RawLines:
    """The lines of a chunk, split only when one is asked for."""

    def __init__(self, chunk: lines.Chunk):
        self.chunk = chunk
        self.split = None

    def __getitem__(self, i: int) -> bytes:
        if self.split is None:
            self.split = self.chunk.lines()
        return self.split[i]


def _answer_chunk(batch: Batch, chunk: lines.Chunk, reader, use_bulk: bool, out, progress) -> None:
    raw_lines = _RawLines(chunk)
    n = chunk.data.count(b"\n")
    answers = _Answers()
    if use_bulk:
        slow, in_bulk = _answer_in_bulk(batch, chunk, reader, raw_lines, answers)
    else:
        slow, in_bulk = list(range(n)), 0
    fast = answers.render(n, slow, batch.as_json)
    outcomes, problems = _read_one_by_one(batch, reader, chunk, raw_lines, slow)
    progress.expect(in_bulk + sum(item is not None for item in outcomes))
    progress.done(in_bulk)
    done = 0
    one_by_one = _slow_answers(batch, outcomes, problems, progress)
    for i in slow:
        out.write(fast.between(done, i))  # before the answer: it may end the batch (exit 3)
        text = next(one_by_one)
        if text or not batch.as_json:  # in JSON a line that asks nothing prints nothing
            out.write(text.encode() + b"\n")
        done = i + 1
        if len(slow) < 64:
            out.flush()  # a few lines at a time: someone may be waiting for each
    out.write(fast.between(done, n))


def _answer_in_bulk(batch: Batch, chunk, reader, raw_lines, answers: _Answers) -> tuple:
    """``(slow, count)``: the rows of ``chunk`` left to answer one by one, sorted, and how many
    were answered in bulk (into ``answers``)."""
    parsed = bulk.parse(chunk, reader, batch.goal, batch.shape)
    slow = set(parsed.slow.tolist())
    count = 0
    for g in parsed.groups:
        try:
            answered = batch.bulk(g, batch.as_json) if batch.bulk else None
        except DatabaseError:
            answered = None  # one by one, so the lines before the failing one are answered
        if answered is None:
            slow.update(g.rows.tolist())
            continue
        _render_group(batch, reader, chunk, raw_lines, g, answered, answers)
        count += g.rows.size
    return sorted(slow), count


class _Answers:
    """The answers of the lines answered in bulk, gathered group by group: numbers, words
    from a short list, or texts."""

    def __init__(self):
        self.int_rows, self.int_values = [], []
        self.word_rows, self.word_codes, self.word_list = [], [], []
        self.texts: dict = {}

    def ints(self, rows: np.ndarray, values: np.ndarray) -> None:
        self.int_rows.append(rows)
        self.int_values.append(np.asarray(values, dtype=np.int64))

    def words(self, rows: np.ndarray, codes: np.ndarray, words: list) -> None:
        self.word_rows.append(rows)
        self.word_codes.append(np.asarray(codes, dtype=np.int64) + len(self.word_list))
        self.word_list.extend(w.encode() for w in words)

    def text(self, row: int, text: str) -> None:
        self.texts[row] = text

    def render(self, n: int, slow: list, as_json: bool) -> _FastLines:
        cat = lambda parts: np.concatenate(parts) if parts else np.zeros(0, np.int64)  # noqa
        return _FastLines(
            n,
            slow,
            as_json,
            cat(self.int_rows),
            cat(self.int_values),
            cat(self.word_rows),
            cat(self.word_codes),
            self.word_list,
            self.texts,
        )


class _FastLines:
    """The answers of the lines answered in bulk, rendered into one byte array; ``between(a,
    b)`` is the bytes of lines a..b-1 (the lines answered one by one are empty here)."""

    def __init__(self, n, slow, as_json, at, vals, word_at, word_code, word_list, texts):
        # An empty answer (a line that asks nothing) is just its newline in text, to keep
        # line for line with the input, and nothing in JSON, where each record names its line.
        width = np.full(n, 0 if as_json else 1, dtype=np.int64)
        width[np.asarray(slow, dtype=np.int64)] = 0
        digits = np.ones(at.size, dtype=np.int64)
        for p in range(1, 20):
            more = vals >= 10**p
            if not more.any():
                break
            digits += more
        width[at] = digits + 1
        sizes = np.array([len(w) for w in word_list], dtype=np.int64)
        if word_at.size:
            width[word_at] = sizes[word_code] + 1
        text_at = np.fromiter(texts.keys(), dtype=np.int64, count=len(texts))
        encoded = [t.encode() for t in texts.values()]
        text_len = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))
        width[text_at] = text_len + 1
        self.offset = np.concatenate(([0], np.cumsum(width)))
        buf = np.full(int(self.offset[-1]), 10, dtype=np.uint8)  # newlines everywhere first
        end = self.offset[at] + digits  # one past each number's last digit
        v = vals.copy()
        for p in range(int(digits.max(initial=0))):
            live = digits > p
            buf[end[live] - 1 - p] = 48 + v[live] % 10
            v //= 10
        for code in sorted(set(word_code.tolist())):  # np.unique would import numpy.ma
            rows = word_at[word_code == code]
            word = np.frombuffer(word_list[code], dtype=np.uint8)
            buf[self.offset[rows][:, None] + np.arange(word.size)] = word
        view = memoryview(buf)
        for at_, b in zip(self.offset[text_at].tolist(), encoded):
            view[at_ : at_ + len(b)] = b
        view.release()
        self.buf = buf

    def between(self, a: int, b: int) -> bytes:
        return self.buf[self.offset[a] : self.offset[b]].tobytes() if b > a else b""


def _render_group(
    batch, reader, chunk, raw_lines, g: bulk.Group, ans: BulkAnswers, answers: _Answers
) -> None:
    rows = g.rows
    bad = ans.unsolvable if ans.unsolvable is not None else np.zeros(rows.size, dtype=bool)
    if ans.codes is not None:
        for code in np.unique(ans.codes).tolist():
            batch.note(code)
    if bad.any():
        batch.note(errors.EXIT_UNSOLVABLE)
    if not batch.as_json:
        if bad.any():  # every unsolvable start of a group reaches the same other goal, if any
            k = int(np.flatnonzero(bad)[0])
            word = unsolvable_text(Board(g.shape, tuple(g.tiles[k].tolist())), g.goal)
            answers.words(rows[bad], np.zeros(int(bad.sum()), np.int64), [word])
        if ans.ints is not None:
            answers.ints(rows[~bad], np.asarray(ans.ints)[~bad])
        elif ans.words is not None:
            codes, words = ans.words
            answers.words(rows[~bad], np.asarray(codes)[~bad], words)
        else:
            for k in np.flatnonzero(~bad).tolist():
                answers.text(int(rows[k]), ans.texts[k])
        return
    parity = ans.parity
    if parity is None and bad.any():
        from ..workloads.bulk_answers import parity_many

        parity = parity_many(g.tiles, g.goal)
    for k, i in enumerate(rows.tolist()):
        line = chunk.first + i
        req = reader.read(raw_lines[i], line) if g.meta or bad[k] else None
        head = lines.answer_fields(req, line)
        if bad[k]:
            s = Solvability(
                False,
                int(parity.start_inversions[k]),
                parity.goal_inversions,
                int(parity.start_blank_row[k]),
                parity.goal_blank_row,
                parity.width_even,
            )
            start = Board(g.shape, tuple(g.tiles[k].tolist()))
            rec = error_record(req.text, Unsolvable(s), start, g.goal)
        else:
            rec = ans.record(k)
        answers.text(i, io.json_line(lines.merged(head, rec, req)))


def _read_one_by_one(batch: Batch, reader, chunk, raw_lines, slow: list) -> tuple:
    """``(outcomes, problems)`` of the lines read one by one: per line ``(line, req, start,
    goal)``, ``(line, req, exc, raw)`` or None (it asks nothing), and the problems to answer."""
    outcomes, problems = [], []
    for i in slow:
        line = chunk.first + i
        if i in chunk.long:
            err = lines.LineError(
                f"line {line} is longer than {lines.MAX_LINE_BYTES:,} bytes, the limit for one line"
            )
            outcomes.append((line, None, err, b""))
            continue
        raw = raw_lines[i]
        req = None
        try:
            req = reader.read(raw, line)
            if req is None:
                outcomes.append(None)
                continue
            start, goal = lines.problem(req, batch.goal, batch.shape)
        except Exception as e:  # noqa: BLE001 - whatever a line holds, it is that line's error
            outcomes.append((line, req, e, raw))
            continue
        outcomes.append((line, req, start, goal))
        problems.append((start, goal))
    return outcomes, problems


def _slow_answers(batch: Batch, outcomes: list, problems: list, progress) -> Iterator[str]:
    """The answers of the lines read one by one, in order (each question counted done on
    ``progress`` once answered)."""
    results = iter((batch.many or _each(batch.one))(problems))
    for item in outcomes:
        if item is None:
            yield ""
            continue
        text = _answer_of(batch, item, results)
        progress.done()
        yield text


def _answer_of(batch: Batch, item: tuple, results: Iterator) -> str:
    """The answer of one line read one by one: its error, or the next of ``results``."""
    line, req, a, b = item
    if isinstance(a, BaseException):
        return _error(batch, line, req, a, None, None, lines.input_text(b))
    result = next(results)
    if isinstance(result, BaseException):
        return _error(batch, line, req, result, a, b, req.text)
    batch.note(batch.code(result))
    if batch.as_json:
        return io.json_line(lines.merged(lines.answer_fields(req, line), batch.record(result), req))
    return batch.text(result)


def _each(one):
    def answer_all(problems):
        for start, goal in problems:
            try:
                yield one(start, goal)
            except Exception as e:  # noqa: BLE001 - classified by the caller
                yield e

    return answer_all


# Said on the first line of a batch that holds one row of a board, not a board: whoever wrote
# a board's rows on lines of their own gets an error a row, and this once.
ROWS_HINT = (
    " (a batch reads one board per line: write a board's rows on one line, separated by '/', "
    "as in '1 2 3/4 5 6/7 8 0')"
)


def _told_rows(batch: Batch, req, exc: BaseException) -> BaseException:
    """``exc``, with :data:`ROWS_HINT` after its message when the line is the batch's first to
    hold a board's row."""
    if batch.told_rows or req is None or not isinstance(exc, BoardError) or not req.boards:
        return exc
    if not one_row(req.boards[0], batch.shape if batch.shape is not None else req.shape):
        return exc
    batch.told_rows = True
    return BoardError(f"{exc}{ROWS_HINT}")


def _error(batch, line, req, exc, start, goal, text) -> str:
    exc = _told_rows(batch, req, exc)
    code, message = line_error(exc)
    if code == errors.EXIT_DATABASE:
        raise exc
    batch.note(code)
    if batch.as_json:
        rec = error_record(text, exc, start, goal)
        return io.json_line(lines.merged(lines.answer_fields(req, line), rec, req))
    return message if not isinstance(exc, Unsolvable) else unsolvable_text(exc.start, exc.goal)


def unsolvable_text(start: Board | None, goal: Board | None) -> str:
    """A batch's text line for an unsolvable start: ``unsolvable``, with the preset goal it
    reaches instead, if any (``unsolvable (solvable for --goal blank-first)``)."""
    other = solvable_for(start, goal) if start is not None and goal is not None else None
    return f"unsolvable ({other_goal_text(other)})" if other else "unsolvable"


def line_error(exc: BaseException) -> tuple[int, str]:
    """(exit status, message) for what one line raised; anything unforeseen is still only
    that line's error."""
    try:
        return errors.classify(exc)
    except Exception:  # noqa: BLE001 - classify re-raises what it does not know
        text = " ".join(f"{type(exc).__name__}: {exc}".split())
        return errors.EXIT_USAGE, prefixed(ERROR, f"internal error on this line ({text[:300]})")


__all__ = ["Batch", "BulkAnswers", "run", "line_error"]
