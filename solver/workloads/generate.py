"""Random solvable positions with their exact optimal distance (layer 5: workloads).

Two ways to make a position, both for any goal:

* ``shuffle`` — a uniformly random arrangement of the tiles; when it has the wrong parity for
  the goal, the tiles on the first two non-blank cells are swapped.  That swap changes the
  inversion count by one and leaves the blank alone, so it pairs every unsolvable arrangement
  with exactly one solvable one: the result is uniform over the ``N!/2`` solvable positions.
* ``walk`` — a random walk of the blank from the goal that never undoes its previous move.

Every position comes with its exact optimal distance: a table lookup on boards that have
exact tables (2x3, 3x3, 3x4, ...), an optimal solve (:func:`solver.api.distance`) otherwise.

Asking for a distance (or a range ``min..max``):

* with exact tables, ``shuffle`` samples uniformly among the positions at that level of the
  table: listed from the table (``np.flatnonzero`` over a full table; the rare levels a
  compact 3x4 table keeps a list of) or, for levels common enough, by rejection from uniform
  shuffles looked up in batches; ``walk`` walks from the goal until it first stands at a
  wanted distance;
* otherwise (4x4) positions are drawn by the method and kept when their solved distance fits
  — rejection sampling, so ``shuffle`` stays uniform over the wanted level.  Cheap filters
  come first: the distance has the parity of the Manhattan distance, and is at least it.  A
  ``walk`` adapts its length (longer while it lands too close, shorter when too far).  For a
  ``shuffle`` whose level holds too small a share of all positions (known from the published
  4x4 counts) the walk is used instead, when it can do better.

The same ``seed`` gives the same positions (numpy's ``Generator``).

Imports: numpy, the solver core (board, ranking, store, exact; progress_bar, with tqdm, when
generating); :mod:`solver.api` only when a position must be solved.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from ..core.board import BLANK, Board, BoardError, Shape, goal_board, preset_goal, solvability
from ..tables import exact
from .distributions import DistanceCounts, distance_counts, reference_counts, uses_exact_table

METHODS = ("shuffle", "walk")
OPPOSITE_INDEX = np.array([1, 0, 3, 2])  # U<->D, L<->R in the UDLR order of Shape.neighbour_table
# Default walk length: a multiple of the number of cells, long enough for the mean distance
# to reach its plateau (scripts/reproduce_article.py measures the curve): 3x3 walks are there
# by about 90 steps (mean 21.97), 4x4 walks by about 300 (mean 52.59).
WALK_STEPS_PER_CELL = 20
# A walk whose length is adapted to a target distance never grows beyond this many steps per
# cell: by then its end is spread over the positions almost like a shuffle.
MAX_WALK_STEPS_PER_CELL = 40
# The longest walk anyone may ask for: hundreds of times the plateau (about 300 steps on 4x4);
# a longer one would only keep the machine busy (--length 10**21 never ends).
MAX_WALK_LENGTH = 100_000
# Below the mean distance, shuffle rejection gives way to the walk when fewer than this share
# of the positions lie in the wanted range (over ~100 optimal solves per position kept); above
# the mean, where walks do no better, it is refused below the second share (~200 solves).
MIN_SHUFFLE_SHARE = 0.01
MIN_SHARE_ABOVE_MEAN = 0.005
# Give up after this many solved candidates per position asked for.
MAX_TRIES_PER_POSITION = 2000
# Rejection sampling of a level from a compact table (3x4): boards looked up per batch, and
# batches before giving up (levels that rare are listed in the table instead).
REJECTION_BATCH = 1 << 16
MAX_REJECTION_BATCHES = 2000
# Walkers moved together when walking to a distance on a board with exact tables.
WALKERS = 4096
MAX_WALK_BATCH_STEPS = 100_000
# Positions drawn at a time: rows stream out in chunks of this many, so memory stays flat
# however large the count (--count 10**9 prints its first lines at once).
CHUNK = 1 << 14
# Boards with more cells than the 15-puzzle's and no exact table: a random position's optimal
# distance takes minutes to hours (the 24-puzzle's average about 100 moves), so only short
# walks whose length the user chose are solved.
MAX_SEARCHED_CELLS = 16
PROGRESS_DELAY = 0.5  # seconds before a progress bar appears (quick runs show none)


class GenerateError(BoardError):
    """A generation request that cannot be met (distance out of range, nothing found)."""


class GenerateTimeout(GenerateError):
    """The time allowed for a generation that must solve its candidates ran out."""


# --- making positions ------------------------------------------------------------------------


def parity_class(boards: np.ndarray, shape: Shape) -> np.ndarray:
    """The parity invariant of each row of an ``(m, N)`` array: inversions (odd width) or
    inversions + blank row from the bottom (even width), modulo 2.  Two boards reach each
    other exactly when their classes agree (see :func:`solver.core.board.solvability`)."""
    boards = np.asarray(boards)
    n = shape.size
    inv = np.zeros(len(boards), dtype=np.int64)
    for i in range(n - 1):
        a = boards[:, i : i + 1]
        inv += ((a > boards[:, i + 1 :]) & (boards[:, i + 1 :] != BLANK)).sum(axis=1)
    if shape.cols % 2 == 0:
        blank = np.argmax(boards == BLANK, axis=1)
        inv += shape.rows - blank // shape.cols
    return inv % 2


def _goal_class(goal: Board) -> int:
    s = solvability(goal, goal)
    extra = s.goal_blank_row_from_bottom if s.width_even else 0
    return (s.goal_inversions + extra) % 2


def shuffled(goal: Board, count: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` uniformly random positions that can reach ``goal``, as an ``(count, N)``
    array: random permutations, with the first two non-blank cells swapped when the parity is
    wrong (a bijection between the two classes, so the result stays uniform)."""
    n = goal.shape.size
    boards = rng.permuted(np.tile(np.arange(n, dtype=np.int64), (count, 1)), axis=1)
    wrong = parity_class(boards, goal.shape) != _goal_class(goal)
    rows = np.flatnonzero(wrong)
    if rows.size:
        # Cells of the first two tiles that are not the blank: cell 0 and 1 unless one of them
        # holds the blank, in which case cells 0/1 and 2.
        blank = np.argmax(boards[rows] == BLANK, axis=1)
        first = np.where(blank == 0, 1, 0)
        second = np.where(blank <= 1, 2, 1)
        a, b = boards[rows, first].copy(), boards[rows, second].copy()
        boards[rows, first], boards[rows, second] = b, a
    return boards


def _neighbours(shape: Shape) -> np.ndarray:
    return np.array(shape.neighbour_table(), dtype=np.int64)


class _Walkers:
    """Many non-backtracking random walks of the blank from the goal, moved in lockstep."""

    def __init__(self, goal: Board, count: int, rng: np.random.Generator):
        self.goal = np.array(goal.tiles, dtype=np.int64)
        self.nbr = _neighbours(goal.shape)
        self.rng = rng
        self.boards = np.tile(self.goal, (count, 1))
        self.blank = np.full(count, goal.blank, dtype=np.int64)
        self.last = np.full(count, -1, dtype=np.int64)
        self.rows = np.arange(count)

    def step(self) -> None:
        """Every walker slides one tile, never straight back into the cell it just left."""
        cand = self.nbr[self.blank]  # (count, 4) target cells, -1 off the board
        allowed = cand >= 0
        moved = self.last >= 0
        allowed[self.rows[moved], OPPOSITE_INDEX[self.last[moved]]] = False
        k = allowed.sum(axis=1)
        pick = self.rng.integers(0, k)  # which of the allowed moves
        move = np.argmax(np.cumsum(allowed, axis=1) > pick[:, None], axis=1)
        target = cand[self.rows, move]
        self.boards[self.rows, self.blank] = self.boards[self.rows, target]
        self.boards[self.rows, target] = BLANK
        self.blank, self.last = target, move

    def restart(self, which: np.ndarray) -> None:
        """Send the walkers ``which`` back to the goal."""
        self.boards[which] = self.goal
        self.blank[which] = int(np.flatnonzero(self.goal == BLANK)[0])
        self.last[which] = -1


def walked(goal: Board, count: int, length: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` positions at the end of ``length``-step random walks from ``goal`` that never
    undo their previous move, as a ``(count, N)`` array."""
    walkers = _Walkers(goal, count, rng)
    for _ in range(length):
        walkers.step()
    return walkers.boards


def default_walk_length(shape: Shape) -> int:
    """The walk length used when none is given: ``20 * cells`` (180 on 3x3, 320 on 4x4)."""
    return WALK_STEPS_PER_CELL * shape.size


def manhattan_many(boards: np.ndarray, goal: Board) -> np.ndarray:
    """Manhattan distance of each row of ``boards`` to ``goal`` (a lower bound, and of the
    same parity as the optimal distance: every move changes it by exactly one)."""
    boards = np.asarray(boards)
    cols = goal.shape.cols
    home = np.empty(goal.shape.size, dtype=np.int64)
    home[list(goal.tiles)] = np.arange(goal.shape.size)
    cells = np.arange(goal.shape.size)
    h = home[boards]
    d = np.abs(h // cols - cells // cols) + np.abs(h % cols - cells % cols)
    return np.where(boards == BLANK, 0, d).sum(axis=1)


# --- exact-table generation ------------------------------------------------------------------


class _ExactTable:
    """The exact table of ``goal`` (:class:`solver.tables.exact.GoalTable`), as the generator
    uses it: distances of boards, and uniform samples of a level."""

    def __init__(self, goal: Board, data_dir=None):
        self.goal = goal
        self.table = exact.goal_table(goal, data_dir)

    def distances(self, boards: np.ndarray) -> np.ndarray:
        return self.table.distances(boards).astype(np.int64)

    def sample(self, lo, hi, count, rng, unique) -> np.ndarray:
        """``count`` positions drawn uniformly from those at distance ``lo..hi``: from the
        table's list of the level when it has one, else by rejection from uniform shuffles
        (a compact table lists only the rarest levels, so a wanted level holds at least
        ``RARE_SHARE`` of the positions and a few thousand lookups find one)."""
        ids = self.table.level_ids(lo, hi)
        if ids is not None:
            if unique and count > ids.size:
                raise GenerateError(
                    f"only {ids.size:,} positions are at {_span(lo, hi)}, "
                    f"fewer than the {count:,} distinct ones asked for"
                )
            picks = rng.choice(ids.size, size=count, replace=not unique)
            return self.table.boards_of(ids[picks])
        return self._rejection(lo, hi, count, rng, unique)

    def _rejection(self, lo, hi, count, rng, unique) -> np.ndarray:
        out, seen = [], set()
        for _ in range(MAX_REJECTION_BATCHES):
            boards = shuffled(self.goal, REJECTION_BATCH, rng)
            d = self.distances(boards)
            for row in boards[(d >= lo) & (d <= hi)]:
                key = tuple(row.tolist())
                if unique and key in seen:
                    continue
                seen.add(key)
                out.append(row)
                if len(out) == count:
                    return np.array(out)
        raise GenerateError(f"found only {len(out)} of {count} positions at {_span(lo, hi)}")


def _sample_level(tab: _ExactTable, lo, hi, count, rng, unique):
    """Yield ``count`` boards drawn uniformly from the positions at ``lo..hi``, in chunks of
    :data:`CHUNK` (distinct ones, bounded by the level's size, in one draw)."""
    if unique:
        boards = tab.sample(lo, hi, count, rng, unique)
        for i in range(0, count, CHUNK):
            yield boards[i : i + CHUNK]
        return
    left = count
    while left:
        n = min(left, CHUNK)
        yield tab.sample(lo, hi, n, rng, unique)
        left -= n


def _walk_to_level(tab: _ExactTable, goal: Board, lo, hi, count, rng, unique, bar):
    """Walk many walkers from the goal; each one that first stands at a wanted distance is
    yielded and starts again from the goal."""
    walkers = _Walkers(goal, min(WALKERS, max(count, 64)), rng)
    found, seen = 0, set()
    for _ in range(MAX_WALK_BATCH_STEPS):
        d = tab.distances(walkers.boards)
        hit = np.flatnonzero((d >= lo) & (d <= hi))
        for i in hit:
            key = tuple(walkers.boards[i].tolist())
            if unique:
                if key in seen:
                    continue
                seen.add(key)
            yield key, int(d[i])
            found += 1
            bar.update(1)
            if found == count:
                return
        walkers.restart(hit)
        walkers.step()
    raise GenerateError(
        f"random walks found only {found} of {count} positions at "
        f"{_span(lo, hi)}; try --method shuffle"
    )


# --- search generation (no exact table: 4x4) -------------------------------------------------


def _solver(goal: Board, data_dir, timeout: float | None = None):
    """``solve_distance(tiles) -> int``; with ``timeout``, every solve gets the time left of
    the whole generation and :class:`GenerateTimeout` is raised when it runs out."""
    from .. import api
    from ..core.solution import SearchLimitReached

    deadline = None if timeout is None else time.monotonic() + timeout

    def solve_distance(tiles) -> int:
        board = Board(goal.shape, tuple(int(t) for t in tiles))
        if deadline is None:
            return api.distance(board, goal, data_dir=data_dir)
        left = deadline - time.monotonic()
        if left > 0:
            try:
                return api.distance(board, goal, data_dir=data_dir, timeout=left)
            except SearchLimitReached:
                pass
        raise GenerateTimeout(
            f"time limit of {timeout:g} s reached before the positions asked for were found"
        )

    return solve_distance


def search(
    goal: Board,
    count: int,
    lo: int,
    hi: int,
    method: str,
    rng: np.random.Generator,
    solve_distance,
    *,
    unique=False,
    walk_length=None,
    max_tries=None,
    bar=None,
) -> list:
    """Rejection sampling: draw positions by ``method``, solve the ones that pass the cheap
    filters with ``solve_distance(tiles) -> int`` and keep those at distance ``lo..hi``.

    A ``walk`` starts ``max(lo, walk_length or 0)`` steps long (same parity as ``lo`` when one
    distance is asked for) and grows by one step — two to keep the parity — while it lands
    too close, shrinking when it lands too far.  Returns ``[(tiles, distance), ...]``
    (:func:`iter_search` yields them as they are found).
    """
    return list(
        iter_search(
            goal,
            count,
            lo,
            hi,
            method,
            rng,
            solve_distance,
            unique=unique,
            walk_length=walk_length,
            max_tries=max_tries,
            bar=bar,
        )
    )


def iter_search(
    goal: Board,
    count: int,
    lo: int,
    hi: int,
    method: str,
    rng: np.random.Generator,
    solve_distance,
    *,
    unique=False,
    walk_length=None,
    max_tries=None,
    bar=None,
):
    """:func:`search`, yielding each ``(tiles, distance)`` as soon as it is found."""
    shape = goal.shape
    exact_one = lo == hi
    step = 2 if exact_one else 1
    length = max(lo, walk_length or 0)
    if exact_one and (length - lo) % 2:
        length += 1
    longest = max(MAX_WALK_STEPS_PER_CELL * shape.size, lo)
    max_tries = max_tries or MAX_TRIES_PER_POSITION * count
    found, seen, tries = 0, set(), 0
    while found < count:
        if method == "walk":
            tiles = walked(goal, 1, length, rng)[0]
        else:
            tiles = shuffled(goal, 1, rng)[0]
        h = int(manhattan_many(tiles[None, :], goal)[0])
        if h > hi or (exact_one and (h - lo) % 2):
            # Too far (Manhattan is a lower bound) or of the wrong parity: no solve needed.
            if method == "walk" and h > hi:
                length = max(lo, length - step)
            continue
        key = tuple(tiles.tolist())
        if unique and key in seen:
            continue
        tries += 1
        if tries > max_tries:
            raise GenerateError(
                f"gave up after {max_tries:,} optimal solves: found {found} of {count} "
                f"positions at {_span(lo, hi)}"
                + ("" if method == "walk" else "; try --method walk")
            )
        d = solve_distance(tiles)
        if lo <= d <= hi:
            if unique:
                seen.add(key)
            found += 1
            if bar is not None:
                bar.update(1)
                bar.set_postfix(solved=tries, refresh=False)
            yield key, d
            continue
        if method == "walk":
            length = min(longest, length + step) if d < lo else max(lo, length - step)
        if bar is not None:
            bar.set_postfix(solved=tries, refresh=False)


# --- the public entry point ------------------------------------------------------------------


def _span(lo: int, hi: int) -> str:
    return f"distance {lo}" if lo == hi else f"distances {lo}..{hi}"


def _target(distance, min_distance, max_distance) -> tuple[int, int] | None:
    if distance is not None and (min_distance is not None or max_distance is not None):
        raise GenerateError("give either a distance or a min/max range, not both")
    if distance is not None:
        lo = hi = int(distance)
    elif min_distance is None and max_distance is None:
        return None
    else:
        lo = 0 if min_distance is None else int(min_distance)
        hi = 10**9 if max_distance is None else int(max_distance)
    if lo < 0 or hi < 0:
        raise GenerateError("a distance cannot be negative")
    if lo > hi:
        raise GenerateError(f"the minimum distance {lo} is above the maximum {hi}")
    return lo, hi


def _check_reachable(counts: DistanceCounts | None, lo: int, hi: int) -> None:
    if counts is None:
        return
    top = counts.max_distance
    if lo > top:
        what = f"{lo}" if lo == hi else f"{lo} or more"
        raise GenerateError(
            f"no {counts.shape} position is {what} moves from {counts.goal}: the maximum is {top}"
        )
    if counts.share(lo, hi) == 0:
        raise GenerateError(f"no {counts.shape} position is at {_span(lo, hi)} from {counts.goal}")


def _check_solvable_in_time(shape: Shape, has_table: bool, method, walk_length, target) -> None:
    """Refuse, before any work, positions whose optimal distance would take hours each."""
    if has_table or shape.size <= MAX_SEARCHED_CELLS:
        return
    if method == "walk" and walk_length is not None and target is None:
        return
    raise GenerateError(
        f"the optimal distance of a random {shape} position takes minutes to hours to find; "
        f"ask for easier positions with --method walk --length L (e.g. --length {4 * shape.size}), "
        f"or use 'npuzzle solve --fast' on positions you shuffle yourself"
    )


def _note(progress: bool, message: str) -> None:
    if progress:
        print(f"npuzzle: {message}", file=sys.stderr)


def generate(shape, count: int, **options) -> list[tuple[Board, int]]:
    """``count`` random positions that can reach ``goal``, each with its optimal distance
    (a list; :func:`iter_generate`, whose keyword options these are, yields them one by one
    in flat memory).

    ``method`` is ``"shuffle"`` (uniform over the solvable positions) or ``"walk"`` (random
    walks from the goal that never undo a move; ``walk_length`` steps, default
    :func:`default_walk_length`).  ``distance``, or ``min_distance``/``max_distance``,
    restricts the optimal distance (see the module docstring for how).  Positions are drawn
    independently, so a small level may repeat one; ``unique=True`` returns distinct ones.
    ``progress`` shows a bar (and notes) on stderr.  ``timeout`` bounds the seconds spent
    solving candidates on boards without exact tables (:class:`GenerateTimeout` when it runs
    out).

    >>> import tempfile; from pdb_builder.build import build_exact
    >>> d = tempfile.mkdtemp(); _ = build_exact(Shape(3, 3), d, progress=False)
    >>> [(str(b), n) for b, n in generate("3x3", 2, distance=31, seed=1, data_dir=d)]
    [('6 4 7/8 5 0/3 2 1', 31), ('8 6 7/2 5 4/3 0 1', 31)]

    Raises :class:`GenerateError` (a ``ValueError``) for requests that cannot be met, e.g. a
    distance beyond the largest one, and :class:`~solver.tables.store.DatabaseMissing` when a table
    or database must be built first.
    """
    return list(iter_generate(shape, count, **options))


def iter_generate(shape: Shape | str, count: int, *, goal=None, **options):
    """:func:`generate`, yielding ``(Board, distance)`` rows as they are made: positions are
    drawn :data:`CHUNK` at a time, so the first rows come at once and memory does not grow
    with ``count`` (except for ``unique``, which remembers what it gave).  The request is
    checked on the first ``next()``, before any row.

    The entry for scripts and tests: ``shape`` and ``goal`` may be text, read here once
    (:func:`~solver.core.board.goal_board`); :func:`iter_generate_rows` takes them typed."""
    g = goal_board(shape, goal)
    for board, d, _method in iter_generate_rows(g.shape, count, goal=g, **options):
        yield board, d


def iter_generate_rows(
    shape: Shape,
    count: int,
    *,
    distance=None,
    min_distance=None,
    max_distance=None,
    goal: Board | None = None,
    method: str = "shuffle",
    seed=None,
    data_dir=None,
    progress: bool = False,
    walk_length: int | None = None,
    unique: bool = False,
    max_tries: int | None = None,
    timeout: float | None = None,
):
    """:func:`iter_generate` with the method that made each row: ``(Board, distance,
    method)``, where the method is the one asked for unless it was replaced (a ``shuffle``
    for a 4x4 level too rare to hit is searched by random walks: ``"walk"``), so a record
    says what was done.  ``goal`` is a :class:`Board` of ``shape`` (default: blank-last)."""
    g = goal if goal is not None else preset_goal(shape)
    if method not in METHODS:
        raise GenerateError(f"unknown method '{method}': use {' or '.join(METHODS)}")
    if int(count) < 0:
        raise GenerateError("the count cannot be negative")
    count = int(count)
    if seed is not None and int(seed) < 0:
        raise GenerateError("the seed cannot be negative")
    if walk_length is not None and int(walk_length) < 0:
        raise GenerateError("the walk length cannot be negative")
    if walk_length is not None and int(walk_length) > MAX_WALK_LENGTH:
        raise GenerateError(
            f"a walk of {int(walk_length):,} steps is longer than the "
            f"{MAX_WALK_LENGTH:,} allowed (the distance stops growing after "
            f"about {WALK_STEPS_PER_CELL} steps per cell)"
        )
    target = _target(distance, min_distance, max_distance)
    rng = np.random.default_rng(seed)
    from ..core.progress_bar import ProgressBar  # tqdm: imported only when generating

    has_table = uses_exact_table(shape, data_dir)
    if target is not None and not has_table and shape.size > MAX_SEARCHED_CELLS:
        # A shuffled 5x5 position takes hours to solve; walks lengthened until they land at
        # the distance take seconds, whichever method was asked for.
        yield from _walk_rows(g, count, target, timeout, seed, data_dir, unique)
        return
    _check_solvable_in_time(shape, has_table, method, walk_length, target)
    counts = None
    if has_table:
        counts = distance_counts(shape, g, data_dir)
    elif target is not None:
        counts = reference_counts(shape, g, data_dir)
    if target is not None:
        _check_reachable(counts, *target)
        if counts is not None:
            target = (target[0], min(target[1], counts.max_distance))
    if unique and has_table and target is None and count > counts.total:
        raise GenerateError(
            f"only {counts.total:,} {shape} positions can reach the goal, "
            f"fewer than the {count:,} distinct ones asked for"
        )
    if count == 0:
        return
    if target is not None and not has_table:
        method = _method_for_level(shape, method, *target, counts, progress)
    desc = f"generate {shape}" + (f" at {_span(*target)}" if target else "")
    # The bar only on a terminal: in a log its redraws would bury the rows' one-line errors.
    with ProgressBar(
        total=count,
        desc=desc,
        unit="pos",
        file=sys.stderr,
        disable=None if progress else True,
        leave=False,
        delay=PROGRESS_DELAY,
    ) as bar:
        for tiles, d in _generate_rows(
            g,
            count,
            target,
            method,
            rng,
            data_dir,
            has_table,
            counts,
            walk_length,
            unique,
            max_tries,
            progress,
            bar,
            timeout,
        ):
            yield Board(shape, tuple(int(t) for t in tiles)), int(d), method


def _walk_rows(g: Board, count: int, target, timeout, seed, data_dir, unique):
    """Positions at ``target`` = ``(lo, hi)`` optimal moves from ``g`` on boards too large to
    shuffle and solve (5x5 and up): random walks from the goal, lengthened while they land
    too close, each end solved optimally (IDA* with the strongest database built, else
    linear conflict), all within ``timeout`` seconds (:class:`GenerateTimeout` after; None:
    no limit).  With the 5x5 6-6-6-6 databases, distances up to about 60 take seconds.
    Yields ``(Board, distance, "walk")`` like :func:`iter_generate_rows`."""
    rows = iter_search(
        g,
        count,
        *target,
        "walk",
        np.random.default_rng(seed),
        _solver(g, data_dir, timeout),
        unique=unique,
    )
    for tiles, d in rows:
        yield Board(g.shape, tuple(int(t) for t in tiles)), int(d), "walk"


def _generate_rows(
    g,
    count,
    target,
    method,
    rng,
    data_dir,
    has_table,
    counts,
    walk_length,
    unique,
    max_tries,
    progress,
    bar,
    timeout=None,
):
    if has_table:
        tab = _ExactTable(g, data_dir)
        if target is not None and method == "shuffle":
            for boards in _sample_level(tab, *target, count, rng, unique):
                bar.update(len(boards))
                yield from zip(boards.tolist(), tab.distances(boards).tolist())
            return
        if target is not None:
            yield from _walk_to_level(tab, g, *target, count, rng, unique, bar)
            return
        yield from _draw_with_table(tab, g, count, method, rng, walk_length, unique, bar)
        return
    solve_distance = _solver(g, data_dir, timeout)
    if target is None:
        yield from _draw_and_solve(g, count, method, rng, walk_length, unique, solve_distance, bar)
        return
    lo, hi = target
    yield from iter_search(
        g,
        count,
        lo,
        hi,
        method,
        rng,
        solve_distance,
        unique=unique,
        walk_length=walk_length,
        max_tries=max_tries,
        bar=bar,
    )


def _method_for_level(shape: Shape, method: str, lo: int, hi: int, counts, progress: bool) -> str:
    """The method that searches for positions at ``lo..hi`` on a board without exact tables:
    ``method``, or ``"walk"`` for a ``shuffle`` whose level holds too small a share of the
    positions (below the mean, where walks do better; said on stderr).  A level too rare
    above the mean, where walks do no better, is refused (:class:`GenerateError`)."""
    share = counts.share(lo, hi) if counts is not None else 1.0
    if share < MIN_SHARE_ABOVE_MEAN and lo >= counts.mean:
        raise GenerateError(
            f"only {share:.2g} of the {shape} positions are at {_span(lo, hi)}: about "
            f"{1 / share:,.0f} optimal solves per position, and random walks do no better "
            f"above the mean ({counts.mean:.2f}); ask for a distance nearer the mean"
        )
    if method == "shuffle" and share < MIN_SHUFFLE_SHARE and lo < counts.mean:
        _note(
            progress,
            f"only {share:.2g} of the {shape} positions are at {_span(lo, hi)}; "
            f"searching random walks instead",
        )
        return "walk"
    return method


def _draw(g, count, method, rng, walk_length) -> np.ndarray:
    if method == "walk":
        length = default_walk_length(g.shape) if walk_length is None else int(walk_length)
        return walked(g, count, length, rng)
    return shuffled(g, count, rng)


def _draw_with_table(tab, g, count, method, rng, walk_length, unique, bar):
    """Draw up to :data:`CHUNK` positions at a time and look their distances up; with
    ``unique``, give up after :data:`MAX_TRIES_PER_POSITION` draws in a row bring nothing
    new."""
    found, seen, stale = 0, set(), 0
    while found < count:
        boards = _draw(g, min(CHUNK, count - found), method, rng, walk_length)
        before = found
        for tiles, d in zip(boards.tolist(), tab.distances(boards).tolist()):
            key = tuple(tiles)
            if unique:
                if key in seen:
                    continue
                seen.add(key)
            found += 1
            bar.update(1)
            yield key, d
        stale = stale + 1 if found == before else 0
        if stale >= MAX_TRIES_PER_POSITION:
            raise GenerateError(f"found only {found} distinct positions of the {count} asked for")


def _draw_and_solve(g, count, method, rng, walk_length, unique, solve_distance, bar):
    found, seen, repeats = 0, set(), 0
    while found < count:
        tiles = _draw(g, 1, method, rng, walk_length)[0]
        key = tuple(tiles.tolist())
        if unique:
            if key in seen:
                repeats += 1
                if repeats > MAX_TRIES_PER_POSITION * count:
                    raise GenerateError(
                        f"found only {found} distinct positions of the {count} asked for"
                    )
                continue
            seen.add(key)
        found += 1
        bar.update(1)
        yield key, solve_distance(tiles)


__all__ = [
    "METHODS",
    "GenerateError",
    "GenerateTimeout",
    "generate",
    "iter_generate",
    "iter_generate_rows",
    "search",
    "iter_search",
    "shuffled",
    "walked",
    "default_walk_length",
    "parity_class",
    "manhattan_many",
]
