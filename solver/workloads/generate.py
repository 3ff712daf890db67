"""Random solvable positions with their exact optimal distance (layer 5: workloads).

Two ways to make a position, both for any goal (:mod:`solver.workloads.positions`):

* ``shuffle`` — a uniformly random arrangement of the tiles, uniform over the ``N!/2``
  positions that can reach the goal;
* ``walk`` — a random walk of the blank from the goal that never undoes its previous move.

Every position comes with its exact optimal distance: a table lookup on boards that have
exact tables (2x3, 3x3, 3x4, ...; on boards of up to 10 cells a table searched in memory where
none is built, :func:`solver.tables.exact.table_for`), an optimal solve
(:func:`solver.api.distance`) otherwise.

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

This module is the entry point: it picks the way and streams the rows; the checks a request
must pass first (and the choice of walks for a rare level) are
:mod:`solver.workloads.generate_checks`'s, drawing positions at a distance is
:mod:`solver.workloads.sampling`'s.

Imports: numpy, the solver core (board; progress_bar, with tqdm, when generating),
:mod:`solver.workloads` (distributions, generate_checks, positions, sampling).
"""

from __future__ import annotations

import sys

import numpy as np

from ..core.board import Board, Shape, goal_board, preset_goal
from .distributions import distance_counts, reference_counts, uses_exact_table
from .generate_checks import (  # noqa: F401 - part of this module's interface
    MAX_SEARCHED_CELLS,
    MAX_WALK_LENGTH,
    METHODS,
    check_reachable,
    check_request,
    check_solvable_in_time,
    check_unique_count,
    method_for_level,
    read_target,
)
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

PROGRESS_DELAY = 0.5  # seconds before a progress bar appears (quick runs show none)


# --- the public entry point ------------------------------------------------------------------


# --- the public entry point ------------------------------------------------------------------


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
    notice=None,
):
    """:func:`iter_generate` with the method that made each row: ``(Board, distance,
    method)``, where the method is the one asked for unless it was replaced (a ``shuffle``
    for a 4x4 level too rare to hit is searched by random walks: ``"walk"``), so a record
    says what was done.  ``goal`` is a :class:`Board` of ``shape`` (default: blank-last).
    ``notice``, a function of one text (the command line's note), hears that the exact
    table was searched in memory, before the first row."""
    g = goal if goal is not None else preset_goal(shape)
    count = check_request(method, count, seed, walk_length)
    target = read_target(distance, min_distance, max_distance)
    rng = np.random.default_rng(seed)
    has_table = uses_exact_table(shape, data_dir)
    if target is not None and not has_table and shape.size > MAX_SEARCHED_CELLS:
        # A shuffled 5x5 position takes hours to solve; walks lengthened until they land at
        # the distance take seconds, whichever method was asked for.
        yield from _walk_rows(g, count, target, timeout, seed, data_dir, unique)
        return
    check_solvable_in_time(shape, has_table, method, walk_length, target)
    counts, target = _level_counts(g, has_table, target, data_dir)
    if notice is not None and counts is not None and counts.notice:
        notice(counts.notice)
    if unique and has_table and target is None:
        check_unique_count(shape, count, counts)
    if count == 0:
        return
    if target is not None and not has_table:
        method = method_for_level(shape, method, *target, counts, progress)
    with _progress_bar(shape, count, target, progress) as bar:
        draws = (g, count, target, method, rng, walk_length, unique, max_tries)
        for tiles, d in _generate_rows(*draws, data_dir, has_table, bar, timeout):
            yield Board(shape, tuple(int(t) for t in tiles)), int(d), method


def _level_counts(g: Board, has_table: bool, target, data_dir):
    """``(counts, target)``: how many positions lie at each distance from ``g`` (the exact
    table's levels; else the published counts when a distance is asked for; else None), and
    ``target`` checked against them, its top cut to the largest distance there is."""
    counts = None
    if has_table:
        counts = distance_counts(g.shape, g, data_dir)
    elif target is not None:
        counts = reference_counts(g.shape, g, data_dir)
    if target is not None:
        check_reachable(counts, *target)
        if counts is not None:
            target = (target[0], min(target[1], counts.max_distance))
    return counts, target


def _progress_bar(shape: Shape, count: int, target, progress: bool):
    """The bar that counts the rows made, on stderr (a context manager)."""
    from ..core.progress_bar import ProgressBar  # tqdm: imported only when generating

    desc = f"generate {shape}" + (f" at {span(*target)}" if target else "")
    # The bar only on a terminal: in a log its redraws would bury the rows' one-line errors.
    return ProgressBar(
        total=count,
        desc=desc,
        unit="pos",
        file=sys.stderr,
        disable=None if progress else True,
        leave=False,
        delay=PROGRESS_DELAY,
    )


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
    g, count, target, method, rng, walk_length, unique, max_tries, data_dir, has_table, bar, timeout
):
    """``(tiles, distance)`` rows by the way that fits: from the exact table where one is
    built (sampled at a level, walked to it, or drawn and looked up), else drawn and solved
    (kept when they land in ``target``).  ``bar`` counts the rows."""
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


def _draw(g, count, method, rng, walk_length) -> np.ndarray:
    """``count`` positions made by ``method`` (walks of ``walk_length`` steps, default
    :func:`default_walk_length`), one row of tiles each."""
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
    """Draw one position at a time and solve it (each solve costs more than a draw); with
    ``unique``, give up after :data:`MAX_TRIES_PER_POSITION` repeats per position asked."""
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
