"""Perfect hashes for placements: k-permutation ranks (layer 0: core).

A *placement* is a sequence of k distinct cells out of n (the cells of k tiles, or the whole
board read as a sequence of n tiles).  Its rank is its index in lexicographic order among all
``n! / (n-k)!`` such sequences, so a table indexed by rank is dense and has no holes:

* a full board of n cells is ranked with ``k = n`` (``n!`` entries; exact tables);
* a pattern of k tiles is ranked by the cells its tiles stand on (pattern databases).

The rank is a mixed-radix number: digit i is the number of *unused* values below ``seq[i]``,
in radix ``n - i``.  The scalar functions below are plain Python on integer arrays;
``rank_many`` / ``unrank_many`` are the vectorised numpy twins.  The compiled engine's
breadth-first searches rank the same way in C (``solver/engine/exact_common.h`` for the exact
tables), and their tests compare the tables they write with what these functions index.

Imports: numpy only.
"""

from __future__ import annotations

import math

import numpy as np


def count_placements(n: int, k: int) -> int:
    """Number of ordered placements of k distinct items on n cells: ``n! / (n-k)!``.

    >>> count_placements(16, 8)   # the 8-tile pattern of the 7-8 partition
    518918400
    >>> count_placements(9, 9)    # every arrangement of the 8-puzzle
    362880
    """
    if not 0 <= k <= n:
        raise ValueError(f"cannot place {k} items on {n} cells")
    return math.perm(n, k)


def rank(seq, n):
    """Rank of the sequence of distinct values ``seq`` (each in ``0..n-1``) among all
    ``n!/(n-k)!`` sequences of its length ``k``.

    >>> import numpy as np
    >>> int(rank(np.array([0, 1, 2]), 3)), int(rank(np.array([2, 1, 0]), 3))
    (0, 5)
    """
    k = len(seq)
    used = 0
    r = 0
    for i in range(k):
        v = seq[i]
        below = used & ((1 << v) - 1)
        smaller_used = 0
        while below:  # popcount of the used values below v
            below &= below - 1
            smaller_used += 1
        r = r * (n - i) + (v - smaller_used)
        used |= 1 << v
    return r


def unrank(r, n, k, out):
    """Write into ``out[:k]`` the sequence whose rank is ``r`` (inverse of :func:`rank`).

    >>> import numpy as np
    >>> out = np.zeros(3, dtype=np.int64)
    >>> unrank(5, 3, 3, out); out.tolist()
    [2, 1, 0]
    """
    # Peel the mixed-radix digits off from the last (radix n-k+1) to the first (radix n).
    for i in range(k - 1, -1, -1):
        radix = n - i
        out[i] = r % radix
        r //= radix
    used = 0
    for i in range(k):
        d = out[i]
        v = 0
        while True:  # the d-th value (from 0) not used yet
            if not (used >> v) & 1:
                if d == 0:
                    break
                d -= 1
            v += 1
        out[i] = v
        used |= 1 << v


_RANK_ROWS = 1 << 16  # rows ranked at a time: their columns stay in the CPU caches


def rank_many(seqs: np.ndarray, n: int) -> np.ndarray:
    """Vectorised :func:`rank` over the rows of an ``(m, k)`` integer array.

    >>> import numpy as np
    >>> rank_many(np.array([[0, 1, 2], [2, 1, 0]]), 3).tolist()
    [0, 5]
    """
    seqs = np.asarray(seqs)
    m, k = seqs.shape
    # Small unsigned columns (one byte per value where n allows), column-major, a slice of rows
    # at a time: the comparisons then stream through the caches (15x faster than int64 rows).
    small = np.asfortranarray(seqs, dtype=np.uint8 if n <= 256 else np.int64)
    out = np.empty(m, dtype=np.int64)
    for s in range(0, m, _RANK_ROWS):
        out[s : s + _RANK_ROWS] = _rank_slice(small[s : s + _RANK_ROWS], n)
    return out


def _rank_slice(small: np.ndarray, n: int) -> np.ndarray:
    m, k = small.shape
    r = np.zeros(m, dtype=np.int64)
    below = np.empty(m, dtype=small.dtype)  # values before position i that are smaller
    less = np.empty(m, dtype=bool)
    for i in range(k):
        col = small[:, i]
        below[:] = 0
        for j in range(i):
            np.less(small[:, j], col, out=less)
            below += less
        r *= n - i
        r += col
        r -= below
    return r


def unrank_many(ranks: np.ndarray, n: int, k: int) -> np.ndarray:
    """Vectorised :func:`unrank`: an ``(m, k)`` array of the sequences with these ranks.

    >>> import numpy as np
    >>> unrank_many(np.array([0, 5]), 3, 3).tolist()
    [[0, 1, 2], [2, 1, 0]]
    """
    r = np.asarray(ranks, dtype=np.int64).copy()
    m = r.shape[0]
    digits = np.empty((m, k), dtype=np.int64)
    for i in range(k - 1, -1, -1):
        digits[:, i] = r % (n - i)
        r //= n - i
    out = np.empty((m, k), dtype=np.int64)
    free = np.ones((m, n), dtype=bool)
    rows = np.arange(m)
    for i in range(k):
        # Index of the (digit+1)-th free value in each row.
        cum = np.cumsum(free, axis=1)
        v = np.argmax(cum > digits[:, i : i + 1], axis=1)
        out[:, i] = v
        free[rows, v] = False
    return out
