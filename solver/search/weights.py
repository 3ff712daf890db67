"""Bounded-suboptimal IDA*: the cost ``f(g, h)`` that a weighted search compares with its bound,
as an integer table the kernels read (layer 3: search).

An optimal search prunes a node when ``g + h`` exceeds the bound.  A weighted search gives h
more say, so the walk dives towards the goal and visits far fewer nodes, at the price of a
solution that may be longer -- but never longer than ``W`` times the optimal length.  Every
rule here is a function ``F(g, h)`` (scaled by an integer ``S`` and rounded down) with

* ``F(g, 0) = S * g`` -- at the goal the cost is the path length;
* ``F(g, h) <= S * W * (g + h)`` and F never decreasing in h.

Why that suffices: on an optimal path every node has ``g + h <= C*`` (h is admissible), so
``F <= S * W * C*`` all along it.  Each iteration's bound is the smallest F that the previous
one pruned, so while no solution is found some node of that path is pruned and the bound never
passes ``S * W * C*``; the solution finally found has ``S * length = F <= bound``.  Hence
``length <= W * C*``.

The rules (Chen & Sturtevant 2019 for the last two; W = 1 is the optimal search):

* ``wida`` -- weighted IDA*, ``g + W * h``: the same weight everywhere;
* ``xdp`` -- ``(g + (2W-1) h + sqrt((g-h)^2 + 4 W g h)) / 2``: near-optimal near the start,
  suboptimality spent near the goal;
* ``xup`` -- ``(g + h + sqrt((g+h)^2 + 4 W (W-1) h^2)) / 2``: the other way round.

``NPUZZLE_WEIGHTING`` picks the rule (default ``wida``, the fastest in
``scripts/bench_weighted.py``).  Imports: numpy, :mod:`solver.core`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ..core import config
from ..core.board import BoardError

RULES = ("wida", "xdp", "xup")
DEFAULT_RULE = "wida"
MAX_DENOMINATOR = 100  # weights are read as fractions p/q with q <= 100 (1.5 -> 3/2)
IRRATIONAL_SCALE = 16  # extra resolution of the square-root rules


def parse_weight(weight) -> Fraction:
    """``weight`` as an exact fraction, refusing anything below 1."""
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
    """A bounded-suboptimal cost rule with its weight; :meth:`table` gives the kernels' array."""

    weight: Fraction
    rule: str = DEFAULT_RULE
    _table: np.ndarray = field(default=None, repr=False)

    @classmethod
    def of(cls, weight, rule: str | None = None) -> Weighting | None:
        """The weighting for ``weight`` (None for 1: the optimal search); ``rule`` defaults to
        ``$NPUZZLE_WEIGHTING`` or :data:`DEFAULT_RULE`."""
        if weight is None or (isinstance(weight, (int, float)) and weight == 1):
            return None  # the optimal search: no fraction to read (every solve asks)
        w = parse_weight(weight)
        if w == 1:
            return None
        rule = rule or config.env_choice(config.ENV_WEIGHTING, RULES, DEFAULT_RULE)
        if rule not in RULES:
            raise BoardError(f"unknown weighting '{rule}': use {', '.join(RULES)}")
        return cls(w, rule)

    @property
    def scale(self) -> int:
        """S: the cost of a path of g moves at the goal is ``S * g``."""
        q = self.weight.denominator
        return q if self.rule == "wida" else q * IRRATIONAL_SCALE

    def cost(self, g, h):
        """``F(g, h)``, the scaled cost of a node (ints or integer numpy arrays)."""
        w, s = self.weight, self.scale
        if self.rule == "wida":
            return s * g + int(s * w) * h  # exact: s * w is an integer
        g = np.asarray(g, dtype=np.float64)
        h = np.asarray(h, dtype=np.float64)
        wf = float(w)
        if self.rule == "xdp":
            x = (g + (2 * wf - 1) * h + np.sqrt((g - h) ** 2 + 4 * wf * g * h)) / 2
        else:
            x = (g + h + np.sqrt((g + h) ** 2 + 4 * wf * (wf - 1) * h * h)) / 2
        # The tiny tolerance keeps F(g, 0) == S * g exact despite rounding in the square root;
        # rounding down keeps F <= S * W * (g + h).
        f = np.floor(s * x + 1e-9).astype(np.int64)
        return int(f) if f.ndim == 0 else f

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
        return math.ceil(Fraction(bound) / (self.scale * self.weight))

    def moves(self, bound: int) -> float:
        """A bound in moves (``bound / S``), for people."""
        return bound / self.scale


NO_WEIGHTING = None  # the kernels' "f = g + h" (a kernel compiled for it tests nothing)
