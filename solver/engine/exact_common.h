/* What the exact tables' breadth-first searches share (exact_bfs.c, exact_compact.c,
 * exact_buffers.c): the checks of the values in the arrays Python hands in (their types and
 * sizes are buffers.c's), the ranks of placements, and the look for a pending Ctrl-C between
 * stretches of a long loop.
 *
 * A placement is a sequence of distinct cells (or tiles) out of n; its rank is its index in
 * lexicographic order, a mixed-radix number whose digit i counts the values not used before
 * position i that are smaller than seq[i] (radix n - i).  These are the ranks of
 * solver.core.ranking, which the tables' readers compute in numpy: a table written here is read
 * there, so the two must agree to the bit (tests/test_exact.py, tests/test_exact12.py). */
#ifndef NPUZZLE_EXACT_COMMON_H
#define NPUZZLE_EXACT_COMMON_H

#include "engine.h"

#define NPZ_EXACT_MAX_CELLS 12 /* 12! fits a 32-bit rank; a set of used cells fits 12 bits */
#define NPZ_EXACT_UNREACHED 255 /* a byte of distance nobody has written yet */

/* --- checked values (exact_buffers.c) -------------------------------------------------------- */

/* A permutation of 0..n-1 (a goal's tiles by cell), else ValueError. */
int npz_exact_check_permutation(const int64_t *seq, int n, const char *what);

/* Each cell's four neighbours (up, down, left, right), -1 off the board, else ValueError. */
int npz_exact_check_neighbours(const int64_t *nbr, int n);

/* n! for n <= NPZ_EXACT_MAX_CELLS. */
int64_t npz_exact_factorial(int n);

/* --- ranks ----------------------------------------------------------------------------------- */

/* How many of the values below v a set of used values holds: the correction from a value to
 * its Lehmer digit.  A table of the 4,096 sets of 12 cells stays in the first-level cache,
 * which the engine's portable flags (no -mpopcnt) cannot count on for __builtin_popcount. */
extern const uint8_t npz_exact_popcount[1 << NPZ_EXACT_MAX_CELLS];

static inline int64_t npz_exact_rank(const int *seq, int k, int n) {
    unsigned used = 0;
    int64_t r = 0;
    for (int i = 0; i < k; i++) {
        unsigned v = (unsigned)seq[i];
        r = r * (n - i) + v - npz_exact_popcount[used & ((1u << v) - 1)];
        used |= 1u << v;
    }
    return r;
}

/* The value of Lehmer digit `digit` given the values used so far: the digit-th unused one,
 * found by dropping the lowest unused values one by one (no branch a bit). */
static inline int npz_exact_nth_free(unsigned used, int digit) {
    unsigned unused = ~used;
    while (digit-- > 0) unused &= unused - 1;
    return __builtin_ctz(unused);
}

/* Writes into out[:k] the placement of rank r (the inverse of npz_exact_rank). */
static inline void npz_exact_unrank(int64_t r, int n, int k, int *out) {
    for (int i = k - 1; i >= 0; i--) { /* digits from the last, of radix n - k + 1, up */
        out[i] = (int)(r % (n - i));
        r /= n - i;
    }
    unsigned used = 0;
    for (int i = 0; i < k; i++) {
        int v = npz_exact_nth_free(used, out[i]);
        out[i] = v;
        used |= 1u << v;
    }
}

/* --- the compact search's entry points (exact_compact.c), listed in exact_bfs.c ------------- */

PyObject *npz_exact_compact_expand(PyObject *self, PyObject *args);
PyObject *npz_exact_compact_encode(PyObject *self, PyObject *args);
PyObject *npz_exact_compact_gather(PyObject *self, PyObject *args);

#endif
