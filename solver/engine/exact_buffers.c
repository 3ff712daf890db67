/* The values in the arrays the exact tables' searches receive, checked before any loop runs
 * (their types and sizes are checked by buffers.c): a table indexed by rank is written at
 * addresses computed from the goal's tiles and the board's neighbours, so a value out of range
 * must stop at the door with a ValueError rather than write out of bounds.  Also the table of
 * bit counts the ranks read. */
#include "exact_common.h"

/* Bit counts of 0..4095, built from halves: the count of 2m and 2m+1 is the count of m, plus 1
 * for the odd one. */
#define NPZ_B2(x) x, x + 1, x + 1, x + 2
#define NPZ_B4(x) NPZ_B2(x), NPZ_B2(x + 1), NPZ_B2(x + 1), NPZ_B2(x + 2)
#define NPZ_B6(x) NPZ_B4(x), NPZ_B4(x + 1), NPZ_B4(x + 1), NPZ_B4(x + 2)
#define NPZ_B8(x) NPZ_B6(x), NPZ_B6(x + 1), NPZ_B6(x + 1), NPZ_B6(x + 2)
#define NPZ_B10(x) NPZ_B8(x), NPZ_B8(x + 1), NPZ_B8(x + 1), NPZ_B8(x + 2)
#define NPZ_B12(x) NPZ_B10(x), NPZ_B10(x + 1), NPZ_B10(x + 1), NPZ_B10(x + 2)

const uint8_t npz_exact_popcount[1 << NPZ_EXACT_MAX_CELLS] = {NPZ_B12(0)};

int npz_exact_check_permutation(const int64_t *seq, int n, const char *what) {
    unsigned seen = 0;
    for (int i = 0; i < n; i++) {
        if (seq[i] < 0 || seq[i] >= n || (seen >> seq[i]) & 1) {
            PyErr_Format(PyExc_ValueError, "%s: expected a permutation of 0..%d", what, n - 1);
            return -1;
        }
        seen |= 1u << seq[i];
    }
    return 0;
}

int npz_exact_check_neighbours(const int64_t *nbr, int n) {
    for (int i = 0; i < 4 * n; i++)
        if (nbr[i] < -1 || nbr[i] >= n) {
            PyErr_Format(PyExc_ValueError, "neighbours: a cell out of 0..%d (or -1)", n - 1);
            return -1;
        }
    return 0;
}

int64_t npz_exact_factorial(int n) {
    int64_t f = 1;
    for (int i = 2; i <= n; i++) f *= i;
    return f;
}
