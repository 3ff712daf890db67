"""Reading a chunk of batch lines all at once with numpy (layer 5: workloads).

A million lines read one by one cost a million trips through the Python parser; read as one
array they cost a few passes over the bytes.  The trick that keeps the vectorised reading
*exactly* the line-by-line reading of :mod:`.lines`:

1. Every run of ASCII digits in a line is replaced by a single ``0``: the line's **skeleton**.
   ``8 6 7 2 5 4 3 0 1`` and ``14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3`` become
   ``0 0 0 0 0 0 0 0 0`` and ``0 0 ... 0``; a line of ``generate --json`` keeps its keys and
   punctuation.  Lines with the same skeleton are laid out the same way.
2. For each distinct skeleton, one **probe** line -- the skeleton with the k-th run written as
   the number k -- is read by the line-by-line reader itself (:class:`.lines.Reader`,
   :func:`solver.core.board.board_layout`).  Where the probe's board holds the number k, every
   line of the group holds its own k-th run.  Everything the reader decides from the layout
   (JSON or columns, which key or column is the board, the shape, header or comment) is
   decided once per group and is the same for all its lines, because no decision of the
   reader depends on the value of a digit run.  The goal and shape a line names are digit
   runs too; lines are grouped by their values and each subgroup's goal is read from its
   first line.
3. Only the values are checked line by line, vectorised: tiles in range and each once.  A
   line that fails -- and every line this module is not sure of (a digit run of more than 18
   digits, a number with a leading zero, a backslash, a line too long, a rare skeleton) -- is
   left to the line-by-line reader, which gives its exact answer or error.

So a line answered here is a line the line-by-line path accepts with the same board, shape and
goal; everything else goes that path.

Imports: numpy, the solver core, :mod:`.lines`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..core.board import Board, BoardError, Shape, board_layout, goal_board
from .lines import MISSING, Chunk, LineError, Reader

MAX_TEMPLATES = 24  # distinct skeletons read per chunk; lines of rarer ones go one by one
MAX_RUN_DIGITS = 18  # longer digit runs (int64 overflow, 4,301-digit numbers) go one by one
_NEWLINE, _ZERO, _BACKSLASH, _DOT = 10, 48, 92, 46
_LABELS = re.compile(r"[0-9]+")


@dataclass
class Group:
    """Lines of one layout, goal and shape: ``rows`` (indices in the chunk) and their boards
    as an ``(m, N)`` array of tiles, row-major."""

    rows: np.ndarray
    tiles: np.ndarray
    shape: Shape
    goal: Board
    meta: bool  # the lines carry an id or keys to pass on (a --json answer reads them)


@dataclass
class Parsed:
    """A chunk read in bulk: the lines that ask nothing (``skip``), the groups answered in
    bulk, and the lines left to the line-by-line reader (``slow``, sorted)."""

    n: int
    skip: np.ndarray
    groups: list
    slow: np.ndarray


def _digits(buf: np.ndarray) -> np.ndarray:
    """Where the bytes are ASCII digits (one subtraction that wraps and one comparison: five
    times faster than a lookup table)."""
    return (buf - np.uint8(_ZERO)) < 10


class _Lines:
    """Byte-level facts about a chunk: line starts, digit runs and skeletons."""

    def __init__(self, chunk: Chunk):
        data = chunk.data if chunk.data.endswith(b"\n") else chunk.data + b"\n"
        self.buf = buf = np.frombuffer(data, dtype=np.uint8)
        self.nl = nl = np.flatnonzero(buf == _NEWLINE)
        self.n = n = len(nl)
        self.start = np.concatenate(([0], nl[:-1] + 1)).astype(np.int64)
        self.unsure = np.zeros(n, dtype=bool)  # lines this module leaves to the line reader
        for i in chunk.long:
            self.unsure[i] = True
        if b"\\" in data:
            self._mark(np.flatnonzero(buf == _BACKSLASH))
        isd = _digits(buf)
        # Where digit-ness changes: run starts and run ends alternate (the chunk ends with a
        # newline, so every run ends).
        edges = np.flatnonzero(isd[1:] != isd[:-1]) + 1
        if isd[0]:
            edges = np.concatenate(([0], edges))
        self.rstart = rstart = edges[0::2]
        self.rlen = edges[1::2] - rstart
        self.first_run = np.searchsorted(rstart, self.start)  # index of each line's first run
        self._mark(rstart[self.rlen > MAX_RUN_DIGITS])
        self._mark(rstart[self._bad_leading_zero()])
        # The skeleton: each run becomes one '0'.
        keep = ~isd
        keep[rstart] = True
        skel = buf[keep]
        skel[_digits(skel)] = _ZERO
        self.skel = skel
        snl = np.flatnonzero(self.skel == _NEWLINE)
        self.sstart = np.concatenate(([0], snl[:-1] + 1)).astype(np.int64)
        self.slen = snl - self.sstart

    def _mark(self, positions: np.ndarray) -> None:
        if positions.size:
            self.unsure[np.searchsorted(self.nl, positions)] = True

    def _bad_leading_zero(self) -> np.ndarray:
        """Runs such as ``07`` outside a fraction or exponent: JSON refuses them where Python's
        int() reads them, so such lines go one by one."""
        buf, rstart = self.buf, self.rstart
        cand = (self.rlen > 1) & (buf[rstart] == _ZERO)
        if not cand.any():
            return cand
        before = np.where(rstart > 0, buf[np.maximum(rstart - 1, 0)], 0)
        before2 = np.where(rstart > 1, buf[np.maximum(rstart - 2, 0)], 0)
        exponent = np.isin(before, (ord("e"), ord("E"))) | (
            np.isin(before, (ord("+"), ord("-"))) & np.isin(before2, (ord("e"), ord("E")))
        )
        return cand & ~((before == _DOT) | exponent)

    def skeleton(self, i: int) -> bytes:
        s = self.sstart[i]
        return self.skel[s : s + self.slen[i]].tobytes()

    def probe(self, i: int, real: set | frozenset = frozenset()) -> bytes:
        """Line i's skeleton with its k-th run written as k (from 1), or as the line's own
        digits for k in ``real``."""
        parts = self.skeleton(i).split(b"0")
        out = [parts[0]]
        for k, tail in enumerate(parts[1:], 1):
            out.append(self.run_text(i, k) if k in real else str(k).encode())
            out.append(tail)
        return b"".join(out)

    def run_text(self, i: int, k: int) -> bytes:
        r = self.first_run[i] + k - 1
        return self.buf[self.rstart[r] : self.rstart[r] + self.rlen[r]].tobytes()

    def values(self, runs: np.ndarray) -> np.ndarray:
        """The integer value of each run index in ``runs`` (any shape)."""
        flat = runs.reshape(-1)
        starts, lens = self.rstart[flat], self.rlen[flat]
        longest = int(lens.max(initial=0))
        if longest <= 2:  # tiles below 100: two gathers, no loop
            first = self.buf[starts].astype(np.int64) - _ZERO
            if longest == 2:
                two = lens == 2
                second = self.buf[np.minimum(starts + 1, self.buf.size - 1)].astype(np.int64)
                first = np.where(two, first * 10 + second - _ZERO, first)
            return first.reshape(runs.shape)
        v = np.zeros(flat.size, dtype=np.int64)
        for j in range(longest):
            has = lens > j
            v[has] = v[has] * 10 + (self.buf[starts[has] + j] - _ZERO)
        return v.reshape(runs.shape)


def _templates(lines: _Lines, rows: np.ndarray):
    """Split ``rows`` into groups of equal skeleton, most common first; yield (rep, members)
    for at most MAX_TEMPLATES of them and return the rest."""
    left = rows
    found = 0
    while left.size and found < MAX_TEMPLATES:
        rep = left[0]
        length = lines.slen[rep]
        same = left[lines.slen[left] == length]
        if length:
            ref = lines.skel[lines.sstart[rep] : lines.sstart[rep] + length]
            if same.size == lines.n and lines.skel.size == lines.n * (length + 1):
                cells = lines.skel.reshape(lines.n, length + 1)[:, :length]  # no gather
            else:
                cells = lines.skel[lines.sstart[same][:, None] + np.arange(length)]
            same = same[(cells == ref).all(axis=1)]
        found += 1
        yield rep, same
        left = left[~np.isin(left, same, assume_unique=True)]
    yield None, left


def parse(chunk: Chunk, reader: Reader, goal=None, shape=None) -> Parsed:
    """Read ``chunk`` in bulk (see the module's docstring).  ``goal`` / ``shape`` are the
    command line's (they win over the lines' own).  ``reader`` must have been started."""
    lines = _Lines(chunk)
    skip, groups = [], []
    if reader.header_line is not None and 0 <= reader.header_line - chunk.first < lines.n:
        lines.unsure[reader.header_line - chunk.first] = True
    slow = [np.flatnonzero(lines.unsure)]
    for rep, members in _templates(lines, np.flatnonzero(~lines.unsure)):
        if rep is None:
            slow.append(members)
            continue
        outcome = _read_template(lines, rep, members, reader, goal, shape)
        if outcome is None:
            skip.append(members)
            continue
        for part in outcome:
            if isinstance(part, Group):
                groups.append(part)
            else:
                slow.append(part)
    return Parsed(lines.n, _cat(skip), groups, np.sort(_cat(slow)))


def _cat(arrays: list) -> np.ndarray:
    return np.concatenate(arrays).astype(np.int64) if arrays else np.zeros(0, np.int64)


def _read_template(lines: _Lines, rep: int, members: np.ndarray, reader: Reader, goal, shape):
    """None when the layout asks nothing (blank, comment); else a list of Groups and arrays of
    rows left to the line reader."""
    req = _read_probe(lines.probe(rep), reader)
    if req is _FAILED:
        return [members]
    if req is None:
        return None
    params = set()
    if goal is None:
        params |= _labels(req.goal)
    if shape is None:
        params |= _labels(req.shape)
    if not params:
        return _group(lines, members, req, goal, shape)
    runs = lines.first_run[members][:, None] + np.array(sorted(params)) - 1
    key = np.concatenate([lines.values(runs), lines.rlen[runs]], axis=1)
    _, which = np.unique(key, axis=0, return_inverse=True)
    out = []
    for g in range(int(which.max()) + 1):
        sub = members[which.reshape(-1) == g]
        sub_req = _read_probe(lines.probe(sub[0], params), reader)
        out.extend(
            [sub]
            if sub_req is _FAILED or sub_req is None
            else _group(lines, sub, sub_req, goal, shape)
        )
    return out


_FAILED = object()


def _read_probe(probe: bytes, reader: Reader):
    try:
        return reader.read(probe, -1)
    except (LineError, BoardError, ValueError):
        return _FAILED


def _labels(spec) -> set:
    """The run labels a goal or shape specification of a probe holds."""
    if spec is None:
        return set()
    if isinstance(spec, str):
        return {int(x) for x in _LABELS.findall(spec)}
    return {int(x) for x in _LABELS.findall(str(spec))}


def _group(lines: _Lines, members: np.ndarray, req, goal, shape) -> list:
    """The Group of ``members`` read as ``req`` (a probe) says, and the rows whose values do
    not make a board (left to the line reader)."""
    req = req.for_goal(goal)  # under a header: the board column for the goal asked
    goal = goal if goal is not None else req.goal
    shape = shape if shape is not None else req.shape
    for spec in req.boards:
        try:
            found, labels = board_layout(spec, shape)
        except BoardError:
            continue
        break
    else:
        return [members]
    try:
        goal_b = goal_board(found, goal)
    except BoardError:
        return [members]
    labels = np.asarray(labels, dtype=np.int64)
    # Lines of one skeleton hold the same number of runs: the first one's tells.
    rep = int(members[0])
    nruns = (
        lines.first_run[rep + 1] if rep + 1 < lines.n else lines.rstart.size
    ) - lines.first_run[rep]
    if labels.min() < 0 or labels.max() > nruns:
        return [members]
    if labels.max() == 0:  # blanks only (x x x ...): no digit to read
        runs = None
    elif members.size == lines.n and lines.rstart.size == lines.n * nruns:
        # Every line of the chunk has this layout: its runs are simply nruns per line.
        runs = np.arange(lines.rstart.size).reshape(lines.n, nruns)[:, np.maximum(labels, 1) - 1]
    else:
        runs = lines.first_run[members][:, None] + np.maximum(labels, 1) - 1
    tiles = (
        lines.values(runs)
        if runs is not None
        else np.zeros((members.size, labels.size), dtype=np.int64)
    )
    if (labels == 0).any():
        tiles[:, labels == 0] = 0  # a blank written x, _ or .
    ok = is_permutation(tiles)
    meta = req.id is not MISSING or bool(req.extra)
    out = [Group(members[ok], tiles[ok], found, goal_b, meta)]
    if not ok.all():
        out.append(members[~ok])
    return out


def is_permutation(tiles: np.ndarray) -> np.ndarray:
    """Boolean mask of the rows of an ``(m, N)`` array that hold each of ``0..N-1`` once."""
    m, n = tiles.shape
    in_range = ((tiles >= 0) & (tiles < n)).all(axis=1)
    if n <= 64:
        kind = np.uint16 if n <= 16 else np.uint32 if n <= 32 else np.uint64
        acc = np.zeros(m, dtype=kind)
        one = kind(1)
        safe = np.where(in_range[:, None], tiles, 0).astype(kind)
        for j in range(n):
            acc |= one << safe[:, j]
        full = kind((1 << n) - 1)
        return in_range & (acc == full)
    safe = np.where(in_range[:, None], tiles, 0)
    return in_range & (np.sort(safe, axis=1) == np.arange(n)).all(axis=1)


__all__ = ["parse", "Parsed", "Group", "is_permutation"]
