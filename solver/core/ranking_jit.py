"""numba-compiled twins of the ranking functions, for the builder and the search kernels.

The definitions live, once, as plain Python in :mod:`solver.core.ranking`; this module compiles
them.  Importing it imports numba, so exact-table lookups never import it.
"""

from __future__ import annotations

from . import ranking
from .numba_start import import_numba

import_numba()  # without scipy (see solver.core.numba_start)
import numba  # noqa: E402

rank = numba.njit(cache=True, inline="always")(ranking.rank)
unrank = numba.njit(cache=True, inline="always")(ranking.unrank)
