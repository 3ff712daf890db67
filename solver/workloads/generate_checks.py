"""What a request for random positions may ask, checked before any work (layer 5: workloads).

:mod:`solver.workloads.generate` calls these first: the method, count, seed and walk length
must be sound; the distances asked for must be readable and reachable; a board too large to
solve must be asked only for walks of a chosen length; and a level too rare for rejection
from shuffles is searched by walks (below the mean) or refused (above it).  Each refusal is
one :class:`~solver.workloads.sampling.GenerateError` whose message says what to ask instead.

Imports: the solver core (board shapes) and :mod:`solver.workloads` (distributions,
positions, sampling).
"""

from __future__ import annotations

import sys

from ..core.board import Shape
from .distributions import DistanceCounts
from .positions import WALK_STEPS_PER_CELL
from .sampling import GenerateError, span

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


def check_request(method: str, count, seed, walk_length) -> int:
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


def read_target(distance, min_distance, max_distance) -> tuple[int, int] | None:
    """The distances asked for as ``(lo, hi)``, or None when any will do (a missing
    ``max_distance`` is no bound); :class:`GenerateError` for a range that cannot be read."""
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


def check_reachable(counts: DistanceCounts | None, lo: int, hi: int) -> None:
    """Refuse a range ``lo..hi`` that no position lies in, as far as ``counts`` (the level
    sizes, None where unknown) tell."""
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


def check_solvable_in_time(shape: Shape, has_table: bool, method, walk_length, target) -> None:
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
    """Say ``message`` on stderr when the user asked to see progress."""
    if progress:
        print(f"npuzzle: {message}", file=sys.stderr)


def check_unique_count(shape: Shape, count: int, counts: DistanceCounts) -> None:
    """Refuse more distinct positions than ``counts`` (a whole exact table) holds: the draws
    would never end."""
    if count > counts.total:
        raise GenerateError(
            f"only {counts.total:,} {shape} positions can reach the goal, "
            f"fewer than the {count:,} distinct ones asked for"
        )


def method_for_level(shape: Shape, method: str, lo: int, hi: int, counts, progress: bool) -> str:
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


__all__ = [
    "MAX_SEARCHED_CELLS",
    "MAX_WALK_LENGTH",
    "METHODS",
    "check_reachable",
    "check_request",
    "check_solvable_in_time",
    "check_unique_count",
    "method_for_level",
    "read_target",
]
