"""numba-compiled twins of :mod:`solver.core.regions`' functions that compiled code calls, and
the packing of a two-class table, for the builder and numba's search kernels (layer 0: core).

The functions are :mod:`solver.core.regions`' own, compiled: one definition of each.  A search
on the kernels compiled ahead of time imports none of this.

Imports: numpy, numba.
"""

from __future__ import annotations

import numpy as np

from . import regions
from .numba_start import import_numba
from .packing import HIGHER_BY, MAIN, OTHER, VALUE_BITS, VALUE_MASK

import_numba()  # without scipy (see solver.core.numba_start)
import numba  # noqa: E402

set_rank = numba.njit(cache=True, inline="always")(regions.set_rank)
class_value = numba.njit(cache=True, inline="always")(regions.class_value)


@numba.njit(cache=True, parallel=True)
def _pack(pairs, out):
    clipped = 0
    for r in numba.prange(out.size):
        a = np.int64(pairs[2 * r])
        b = np.int64(pairs[2 * r + 1])
        gap = abs(a - b)
        code = 0 if gap < HIGHER_BY else (1 + MAIN if a > b else 1 + OTHER)
        out[r] = min(a, b) | (code << VALUE_BITS)
        clipped += gap != 0 and gap != HIGHER_BY
    return clipped


def pack_classes(pairs: np.ndarray) -> tuple[np.ndarray, int]:
    """A two-class table (uint8, ``2 * r + class``) as one byte a placement: the smaller of
    the two distances in the low :data:`VALUE_BITS` bits, in the top two ``1 + class`` of
    the class whose distance is :data:`HIGHER_BY` higher (0: equal).  Returns the packed
    table and how many placements differed by another amount (kept lower: still a lower
    bound).  Raises ValueError for a distance too large to pack."""
    pairs = np.ascontiguousarray(pairs, dtype=np.uint8)
    if pairs.size % 2:
        raise ValueError("a two-class table has an even number of entries")
    if pairs.size and int(pairs.max()) > VALUE_MASK:
        raise ValueError(f"a distance above {VALUE_MASK} does not fit a packed entry")
    out = np.empty(pairs.size // 2, np.uint8)
    return out, int(_pack(pairs, out))
