"""Random solvable positions with their exact optimal distance (layer 5: workloads).

Two ways to make a position, both for any goal (:mod:`solver.workloads.positions`):

* ``shuffle`` — a uniformly random arrangement of the tiles, uniform over the ``N!/2``
  positions that can reach the goal;
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

This module is the entry point: it checks the request, picks the way and streams the rows;
drawing positions at a distance is :mod:`solver.workloads.sampling`'s.

Imports: numpy, the solver core (board; progress_bar, with tqdm, when generating),
:mod:`solver.workloads` (distributions, positions, sampling).
"""

from __future__ import annotations

import sys

import numpy as np

from ..core.board import Board, Shape, goal_board, preset_goal
from .distributions import DistanceCounts, distance_counts, reference_counts, uses_exact_table
from .positions import (  # noqa: F401 - part of this module's interface
    WALK_STEPS_PER_CELL,
    default_walk_length,
    manhattan_many,
    parity_class,
    shuffled,
    walked,
)
from .sampling import (  # noqa: F401 - part of this module's interface
    CHUNK,
    MAX_TRIES_PER_POSITION,
    ExactTable,
    GenerateError,
    GenerateTimeout,
    distance_solver,
    iter_search,
    sample_level,
    search,
    span,
    walk_to_level,
)

METHODS = ("shuffle", "walk")
# The longest walk anyone may ask for: hundreds of times the plateau (about 300 steps on 4x4);
# a longer one would only keep the machine busy (--length 10**21 never ends).
MAX_WALK_LENGTH = 100_000
# Below the mean distance, shuffle rejection gives way to the walk when fewer than this share
# of the positions lie in the wanted range (over ~100 optimal solves per position kept); above
# the mean, where walks do no better, it is refused below the second share (~200 solves).
MIN_SHUFFLE_SHARE = 0.01
MIN_SHARE_ABOVE_MEAN = 0.005
# Boards with more cells than the 15-puzzle's and no exact table: a random position's optimal
# distance takes minutes to hours (the 24-puzzle's average about 100 moves), so only short
# walks whose length the user chose are solved.
MAX_SEARCHED_CELLS = 16
PROGRESS_DELAY = 0.5  # seconds before a progress bar appears (quick runs show none)


# --- the public entry point ------------------------------------------------------------------


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
        raise GenerateError(f"no {counts.shape} position is at {span(lo, hi)} from {counts.goal}")


def _check_solvable_in_time(shape: Shape, has_table: bool, method, walk_length, target) -> None:
    """Refuse, before any work, positions whose optimal distance would take hours each."""
    if has_table or shape.size <= MAX_SEARCHED_CELLS:
        return
    if method == "walk" and walk_length is not None and target is None:
        return
    raise GenerateError(
        f"the optimal distance of a random {shape} position takes minutes to hours to find; "
        f"ask for easier positions with --method walk --length L (e.g. --length {4 * shape.size}), "
        f"or use 'npuzzle solve -a fast' on positions you shuffle yourself"
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


def _check_request(method: str, count, seed, walk_length) -> int:
    """The count asked for, once the method, count, seed and walk length are found sound
    (:class:`GenerateError` otherwise)."""
    if method not in METHODS:
        raise GenerateError(f"unknown method '{method}': use {' or '.join(METHODS)}")
    if int(count) < 0:
        raise GenerateError("the count cannot be negative")
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
    return int(count)


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
    count = _check_request(method, count, seed, walk_length)
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
    desc = f"generate {shape}" + (f" at {span(*target)}" if target else "")
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
        distance_solver(g, data_dir, timeout),
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
        tab = ExactTable(g, data_dir)
        if target is not None and method == "shuffle":
            for boards in sample_level(tab, *target, count, rng, unique):
                bar.update(len(boards))
                yield from zip(boards.tolist(), tab.distances(boards).tolist())
            return
        if target is not None:
            yield from walk_to_level(tab, g, *target, count, rng, unique, bar)
            return
        yield from _draw_with_table(tab, g, count, method, rng, walk_length, unique, bar)
        return
    solve_distance = distance_solver(g, data_dir, timeout)
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
            f"only {share:.2g} of the {shape} positions are at {span(lo, hi)}: about "
            f"{1 / share:,.0f} optimal solves per position, and random walks do no better "
            f"above the mean ({counts.mean:.2f}); ask for a distance nearer the mean"
        )
    if method == "shuffle" and share < MIN_SHUFFLE_SHARE and lo < counts.mean:
        _note(
            progress,
            f"only {share:.2g} of the {shape} positions are at {span(lo, hi)}; "
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
