"""numba-compiled twins of :mod:`solver.core.regions`' functions that compiled code calls
(layer 0: core): ``set_rank`` (for ``scripts/bench_zero_aware.py``'s own searches) and
``class_value``.

The functions are :mod:`solver.core.regions`' own, compiled: one definition of each.  The
builder and the search import none of this: their loops are the compiled engine's.

Imports: numba.
"""

from __future__ import annotations

from . import regions
from .numba_start import import_numba

import_numba()  # without scipy (see solver.core.numba_start)
import numba  # noqa: E402

set_rank = numba.njit(cache=True, inline="always")(regions.set_rank)
class_value = numba.njit(cache=True, inline="always")(regions.class_value)
