"""Positions at a wanted distance, by rejection (layer 5: workloads; the entry point is
:mod:`solver.workloads.generate`).

* With an exact table: a uniform sample of the table's level (listed from the table, or by
  rejection from uniform shuffles looked up in batches), or walkers that stop when they first
  stand at a wanted distance.
* Without one (4x4): positions drawn by a method and kept when their solved distance fits.
  Cheap filters come first: the distance has the parity of the Manhattan distance, and is at
  least it.  A walk adapts its length (longer while it lands too close, shorter when too far).

Imports: numpy, the solver core and tables (exact), :mod:`solver.api` only when a position
must be solved, :mod:`solver.workloads.positions`.
"""

from __future__ import annotations

import time

import numpy as np

from ..core.board import Board, BoardError
from ..tables import exact
from .positions import Walkers, manhattan_many, shuffled, walked

# A walk whose length is adapted to a target distance never grows beyond this many steps per
# cell: by then its end is spread over the positions almost like a shuffle.
MAX_WALK_STEPS_PER_CELL = 40
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


class GenerateError(BoardError):
    """A generation request that cannot be met (distance out of range, nothing found)."""


class GenerateTimeout(GenerateError):
    """The time allowed for a generation that must solve its candidates ran out."""


def span(lo: int, hi: int) -> str:
    return f"distance {lo}" if lo == hi else f"distances {lo}..{hi}"


# --- with an exact table ----------------------------------------------------------------------


class ExactTable:
    """The exact table of ``goal`` (:class:`solver.tables.exact.GoalTable`: the built one, or
    one searched in memory, :func:`solver.tables.exact.table_for`), as the generator uses it:
    distances of boards, and uniform samples of a level."""

    def __init__(self, goal: Board, data_dir=None):
        self.goal = goal
        self.table = exact.table_for(goal, data_dir)

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
                    f"only {ids.size:,} positions are at {span(lo, hi)}, "
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
        raise GenerateError(f"found only {len(out)} of {count} positions at {span(lo, hi)}")


def sample_level(tab: ExactTable, lo, hi, count, rng, unique):
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


def walk_to_level(tab: ExactTable, goal: Board, lo, hi, count, rng, unique, bar):
    """Walk many walkers from the goal; each one that first stands at a wanted distance is
    yielded and starts again from the goal."""
    walkers = Walkers(goal, min(WALKERS, max(count, 64)), rng)
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
        f"{span(lo, hi)}; try --method shuffle"
    )


# --- without one: solved candidates (4x4) -----------------------------------------------------


def distance_solver(goal: Board, data_dir, timeout: float | None = None):
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
                f"positions at {span(lo, hi)}" + ("" if method == "walk" else "; try --method walk")
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
