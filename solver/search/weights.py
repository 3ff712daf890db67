"""Bounded-suboptimal IDA*: the cost ``f(g, h)`` that a weighted search compares with its bound,
as an integer table the kernels read (layer 3: search).

An optimal search prunes a node when ``g + h`` exceeds the bound.  A weighted search gives h
more say, so the walk dives towards the goal and visits far fewer nodes, at the price of a
solution that may be longer -- but never longer than ``W`` times the optimal length.  The
cost is a function ``F(g, h)``, scaled by an integer ``S``, with

* ``F(g, 0) = S * g`` -- at the goal the cost is the path length;
* ``F(g, h) <= S * W * (g + h)`` and F never decreasing in h.

Why that suffices: on an optimal path every node has ``g + h <= C*`` (h is admissible), so
``F <= S * W * C*`` all along it.  Each iteration's bound is the smallest F that the previous
one pruned, so while no solution is found some node of that path is pruned and the bound never
passes ``S * W * C*``; the solution finally found has ``S * length = F <= bound``.  Hence
``length <= W * C*``.

The rule is weighted IDA*, ``F = S * (g + W * h)``: the same weight everywhere.  (Chen &
Sturtevant's 2019 rules, which spend the suboptimality near the start or near the goal, were
measured slower on the 15-puzzle.)

Imports: numpy, :mod:`solver.core`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..core.board import BoardError

if TYPE_CHECKING:  # fractions (and decimal) are imported where a weight is read
    from fractions import Fraction

RULE = "wida"  # weighted IDA*: the name an answer gives its cost rule
MAX_DENOMINATOR = 100  # weights are read as fractions p/q with q <= 100 (1.5 -> 3/2)


def parse_weight(weight) -> Fraction | int:
    """``weight`` as an exact fraction, refusing anything below 1; the optimal search's number
    1 is 1, read without importing ``fractions`` (every solve asks)."""
    if type(weight) in (int, float) and weight == 1:
        return 1
    from fractions import Fraction

    try:
        w = Fraction(str(weight)).limit_denominator(MAX_DENOMINATOR)
    except (ValueError, ZeroDivisionError):
        raise BoardError(f"weight '{weight}' is not a number") from None
    if w < 1:
        raise BoardError(
            f"weight {weight} is below 1: use 1 for an optimal solution, more for a "
            f"faster one at most that many times longer"
        )
    return w


@dataclass
class Weighting:
    """Weighted IDA*'s cost rule with its weight; :meth:`table` gives the kernels' array."""

    weight: Fraction
    _table: np.ndarray = field(default=None, repr=False)
    rule = RULE

    @classmethod
    def of(cls, weight) -> Weighting | None:
        """The weighting for ``weight`` (None for 1: the optimal search).

        >>> Weighting.of(1) is None, Weighting.of("1.5").weight
        (True, Fraction(3, 2))
        """
        if weight is None:
            return None  # the optimal search
        w = parse_weight(weight)
        return None if w == 1 else cls(w)

    @property
    def scale(self) -> int:
        """S: the cost of a path of g moves at the goal is ``S * g``."""
        return self.weight.denominator

    def cost(self, g, h):
        """``F(g, h) = S * g + S * W * h``, the scaled cost of a node (ints or integer numpy
        arrays); exact, since ``S * W`` is an integer."""
        s = self.scale
        return s * g + int(s * self.weight) * h

    def table(self, depth: int, hmax: int) -> np.ndarray:
        """``F[g, h]`` for ``g <= depth + 1`` and ``h <= hmax`` (grown and kept as needed; a
        kernel reads h beyond the last column as the last column, which only prunes less)."""
        t = self._table
        if t is None or t.shape[0] < depth + 2 or t.shape[1] < hmax + 1:
            rows = max(depth + 2, 0 if t is None else t.shape[0])
            cols = max(hmax + 1, 0 if t is None else t.shape[1])
            g, h = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
            t = np.ascontiguousarray(self.cost(g, h), dtype=np.int64)
            t.setflags(write=False)
            self._table = t
        return t

    def depth_limit(self, bound: int) -> int:
        """The deepest a walk within ``bound`` can go (``F >= S * g``)."""
        return bound // self.scale

    def lower_bound(self, bound: int) -> int:
        """The optimal length proven by an iteration with this ``bound`` under way: the previous
        one pruned a node of every optimal path with ``F >= bound``, and ``F <= S W C*``."""
        return math.ceil(bound / self.weight / self.scale)  # exact: Fraction / int

    def moves(self, bound: int) -> float:
        """A bound in moves (``bound / S``), for people."""
        return bound / self.scale


NO_WEIGHTING = None  # the kernels' "f = g + h" (a kernel compiled for it tests nothing)
