/* The arrays the exact tables' searches receive, checked before any loop runs: Python hands in
 * numpy arrays through the buffer protocol (no numpy C API, so no numpy ABI to go stale), and
 * a table indexed by rank is written at addresses computed from the other arrays' contents, so
 * a wrong type, size or value must stop at the door with a TypeError or a ValueError rather
 * than write out of bounds.  Also the table of bit counts the ranks read. */
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

/* Whether a buffer's format is one integer type: `letters` are the struct-module codes that may
 * stand for it, with or without a native or little-endian prefix. */
static int format_is(const char *fmt, const char *letters) {
    if (fmt == NULL) return strchr(letters, 'B') != NULL; /* plain bytes */
    if (*fmt == '@' || *fmt == '=' || *fmt == '<') fmt++;
    return fmt[0] != '\0' && fmt[1] == '\0' && strchr(letters, fmt[0]) != NULL;
}

static int kind_ok(const Py_buffer *b, NpzExactKind kind) {
    if (kind == NPZ_U8) return b->itemsize == 1 && format_is(b->format, "B");
    return b->itemsize == 8 && format_is(b->format, "ql");
}

static const char *kind_name(NpzExactKind kind) { return kind == NPZ_U8 ? "uint8" : "int64"; }

void *npz_exact_view(NpzExactViews *v, PyObject *obj, const char *what, NpzExactKind kind,
                     Py_ssize_t items, int writable) {
    if (v->count >= NPZ_EXACT_MAX_VIEWS) {
        PyErr_SetString(PyExc_RuntimeError, "too many arrays");
        return NULL;
    }
    Py_buffer *b = &v->views[v->count];
    int flags = PyBUF_STRIDES | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, b, flags) < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s: expected a%s %s array, got %.100s", what,
                     writable ? " writable" : "n", kind_name(kind), Py_TYPE(obj)->tp_name);
        return NULL;
    }
    v->count++;
    if (!kind_ok(b, kind)) {
        PyErr_Format(PyExc_TypeError, "%s: expected %s items, got format '%s' of %zd bytes", what,
                     kind_name(kind), b->format ? b->format : "B", b->itemsize);
        return NULL;
    }
    if (!PyBuffer_IsContiguous(b, 'C')) {
        PyErr_Format(PyExc_ValueError, "%s: expected a C-contiguous array", what);
        return NULL;
    }
    if (items >= 0 && b->len / b->itemsize != items) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd items, got %zd", what, items,
                     b->len / b->itemsize);
        return NULL;
    }
    return b->buf;
}

Py_ssize_t npz_exact_items(const NpzExactViews *v) {
    const Py_buffer *b = &v->views[v->count - 1];
    return b->len / b->itemsize;
}

void npz_exact_release(NpzExactViews *v) {
    for (int i = 0; i < v->count; i++) PyBuffer_Release(&v->views[i]);
    v->count = 0;
}

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
