/* The pattern databases' breadth-first search: the engine's entry points for
 * pdb_builder.pattern_bfs (and, through pattern_twin.c, pdb_builder.zero_aware).
 *
 * Python drives the search: it lays out the tables (pattern_bfs.h), runs one layer after
 * another and hands each layer to its threads as ranges of blocks; each thread calls
 * pattern_layer on its range, which runs with the GIL released, so the threads share the
 * tables.  The geometry of the pattern (its ranks' weights, the moves of the board) is worked
 * out here from the board's rows and columns and the pattern's size, once per call: the
 * caller hands over no constants that could disagree with the tables.
 *
 * Arrays arrive through the buffer protocol (no numpy C API); each is checked on entry
 * (buffers.c) for its item type (TypeError) and its size against the pattern's (ValueError). */
#include "pattern_bfs.h"

#include <string.h>

/* --- geometry ----------------------------------------------------------------------------- */

/* The cell a move in direction t (U, D, L, R) reaches from cell c, or -1 off the board. */
static int neighbour(int c, int t, int rows, int cols) {
    int r = c / cols, col = c % cols;
    switch (t) {
    case 0: return r > 0 ? c - cols : -1;
    case 1: return r < rows - 1 ? c + cols : -1;
    case 2: return col > 0 ? c - 1 : -1;
    default: return col < cols - 1 ? c + 1 : -1;
    }
}

static void init_moves(npz_geometry *g, int rows) {
    for (int c = 0; c < g->n; c++) {
        for (int t = 0; t < 4; t++) {
            int b = neighbour(c, t, rows, g->cols), m = 4 * c + t;
            g->to[m] = b < 0 ? NPZ_DEAD : b;
            g->passed[m] = 0;
            g->sign[m] = b > c ? 1 : -1;
            if (b < 0) continue;
            int lo = b < c ? b : c, hi = b < c ? c : b;
            for (int x = lo + 1; x < hi; x++) g->passed[m] |= UINT64_C(1) << x;
        }
    }
}

int npz_geometry_init(npz_geometry *g, long rows, long cols, long k) {
    if (rows < 1 || cols < 1 || rows * cols > NPZ_MAX_CELLS) {
        PyErr_Format(PyExc_ValueError, "pattern databases support boards of up to %d cells, "
                     "not %ldx%ld", NPZ_MAX_CELLS, rows, cols);
        return -1;
    }
    int n = (int)(rows * cols);
    if (k < 1 || k >= n) {
        PyErr_Format(PyExc_ValueError, "a pattern needs 1..%d tiles on %ldx%ld, got %ld", n - 1,
                     rows, cols, k);
        return -1;
    }
    memset(g, 0, sizeof *g);
    g->n = n;
    g->k = (int)k;
    g->cols = (int)cols;
    g->inner = k - 1 < 2 ? (int)k - 1 : 2;
    g->prefix = g->k - g->inner;
    g->weights[k - 1] = 1;
    for (int j = (int)k - 2; j >= 0; j--) g->weights[j] = g->weights[j + 1] * (n - j - 1);
    g->placements = g->weights[0] * n;
    g->bs = g->weights[g->prefix - 1];
    g->blocks = g->placements / g->bs;
    for (int j = 0; j < k; j++) g->bw[j] = g->weights[j] / g->bs;
    int free_cells = n - (int)k;
    g->word_bytes = free_cells <= 8 ? 2 : free_cells <= 16 ? 4 : 8;
    g->shift = 4 * g->word_bytes; /* high code bits start half-way up the word */
    g->full = (UINT64_C(1) << n) - 1;
    for (int c = 0; c < n; c++) {
        if (c % cols != 0) g->keep_l |= UINT64_C(1) << c;
        if (c % cols != cols - 1) g->keep_r |= UINT64_C(1) << c;
    }
    g->near = g->prefix;
    for (int i = 0; i < g->prefix; i++) {
        if (g->weights[i] <= NPZ_NEAR_WEIGHT) {
            g->near = i;
            break;
        }
    }
    init_moves(g, (int)rows);
    return 0;
}

/* --- which sweeps run --------------------------------------------------------------------- */

static const npz_sweeps *active; /* chosen on first use, under the GIL */

static const npz_sweeps *sweeps(void) {
    if (active == NULL) active = npz_has_fast_bmi2() ? &npz_sweeps_bmi2 : &npz_sweeps_portable;
    return active;
}

/* pattern_bit_ops([name]): the bit operations the sweeps use, "bmi2" or "portable"; with a
 * name, use those from now on (the tests build with both) and return the previous ones. */
static PyObject *bit_ops(PyObject *self, PyObject *args) {
    const char *name = NULL;
    if (!PyArg_ParseTuple(args, "|s:pattern_bit_ops", &name)) return NULL;
    const char *before = sweeps()->name;
    if (name != NULL) {
        if (strcmp(name, "portable") == 0) {
            active = &npz_sweeps_portable;
        } else if (strcmp(name, "bmi2") == 0 && npz_has_fast_bmi2()) {
            active = &npz_sweeps_bmi2;
        } else {
            PyErr_Format(PyExc_ValueError, "bit operations '%s' are not available here "
                         "(portable%s)", name, npz_has_fast_bmi2() ? ", bmi2" : "");
            return NULL;
        }
    }
    return PyUnicode_FromString(before);
}

/* --- entry points ------------------------------------------------------------------------- */

/* pattern_geometry(rows, cols, k) -> (word bytes, shift, placements per block, placements). */
static PyObject *geometry(PyObject *self, PyObject *args) {
    long rows, cols, k;
    npz_geometry g;
    if (!PyArg_ParseTuple(args, "lll:pattern_geometry", &rows, &cols, &k)) return NULL;
    if (npz_geometry_init(&g, rows, cols, k) < 0) return NULL;
    return Py_BuildValue("iiLL", g.word_bytes, g.shift, (long long)g.bs,
                         (long long)g.placements);
}

/* pattern_layer(pull, d, first, last, words, dist, blk, rows, cols, k) -> (new states, new
 * placements): depth d+1 reached from depth d over blocks first..last-1, pushed or pulled. */
static PyObject *layer(PyObject *self, PyObject *args) {
    int pull;
    long long d, first, last;
    long rows, cols, k;
    PyObject *words_obj, *dist_obj, *blk_obj;
    npz_geometry g;
    if (!PyArg_ParseTuple(args, "pLLLOOOlll:pattern_layer", &pull, &d, &first, &last,
                          &words_obj, &dist_obj, &blk_obj, &rows, &cols, &k))
        return NULL;
    if (npz_geometry_init(&g, rows, cols, k) < 0) return NULL;
    if (d < 0 || d >= NPZ_UNREACHED - 1 || first < 0 || first > last || last > g.blocks) {
        PyErr_Format(PyExc_ValueError, "pattern_layer: depth %lld, blocks %lld..%lld out of "
                     "range (0..%lld)", d, first, last, (long long)g.blocks);
        return NULL;
    }
    npz_views v = {.count = 0};
    Py_buffer *words, *dist, *blk;
    if (!(words = npz_view(&v, words_obj, "words", npz_word_kind(&g), -1, g.placements, 1)) ||
        !(dist = npz_view(&v, dist_obj, "dist", NPZ_U8, -1, g.placements, 1)) ||
        !(blk = npz_view(&v, blk_obj, "blk", NPZ_U8, -1, g.blocks, 1))) {
        npz_release(&v);
        return NULL;
    }
    npz_tables t = {words->buf, dist->buf, blk->buf};
    npz_counts out = {0, 0};
    const npz_sweeps *sw = sweeps();
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = sw->layer(&g, pull ? NPZ_PULL : NPZ_PUSH, d, first, last, t, &out);
    Py_END_ALLOW_THREADS
    npz_release(&v);
    if (rc < 0) return PyErr_NoMemory();
    return Py_BuildValue("LL", (long long)out.states, (long long)out.placements);
}

/* pattern_trace(rows, cols, k, cells, moves): for the tests, every placement's cells as the
 * sweeps decode them (cells[p, i]) and the rank they compute when tile i moves in direction
 * t (moves[p, 4i + t]; impossible moves left as they are). */
static PyObject *trace(PyObject *self, PyObject *args) {
    long rows, cols, k;
    PyObject *cells_obj, *moves_obj;
    npz_geometry g;
    if (!PyArg_ParseTuple(args, "lllOO:pattern_trace", &rows, &cols, &k, &cells_obj, &moves_obj))
        return NULL;
    if (npz_geometry_init(&g, rows, cols, k) < 0) return NULL;
    npz_views v = {.count = 0};
    Py_buffer *cells, *moves;
    if (!(cells = npz_view(&v, cells_obj, "cells", NPZ_I64, -1, g.placements * k, 1)) ||
        !(moves = npz_view(&v, moves_obj, "moves", NPZ_I64, -1, g.placements * 4 * k, 1))) {
        npz_release(&v);
        return NULL;
    }
    const npz_sweeps *sw = sweeps();
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = sw->trace(&g, 0, g.blocks, cells->buf, moves->buf);
    Py_END_ALLOW_THREADS
    npz_release(&v);
    if (rc < 0) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

/* Over every set of k occupied cells, the regions its free cells split into: times k! (the
 * orders of the tiles on those cells) the (placement, region) states.  The k-subsets of the
 * n cells are walked in increasing order (Gosper's next-subset step). */
static int64_t count_regions(const npz_geometry *g) {
    int64_t total = 0;
    for (uint64_t s = (UINT64_C(1) << g->k) - 1; s <= g->full;) {
        uint64_t open = g->full & ~s, todo = open;
        while (todo != 0) {
            todo &= ~npz_flood(todo & (~todo + 1), open, g);
            total++;
        }
        uint64_t low = s & (~s + 1), r = s + low;
        s = r | (((s ^ r) >> 2) / low);
    }
    return total;
}

/* pattern_count_regions(rows, cols, k) -> the regions of every set of k occupied cells. */
static PyObject *regions(PyObject *self, PyObject *args) {
    long rows, cols, k;
    npz_geometry g;
    if (!PyArg_ParseTuple(args, "lll:pattern_count_regions", &rows, &cols, &k)) return NULL;
    if (npz_geometry_init(&g, rows, cols, k) < 0) return NULL;
    int64_t total;
    Py_BEGIN_ALLOW_THREADS
    total = count_regions(&g);
    Py_END_ALLOW_THREADS
    return PyLong_FromLongLong((long long)total);
}

PyMethodDef npz_pattern_methods[] = {
    {"pattern_geometry", geometry, METH_VARARGS,
     "pattern_geometry(rows, cols, k) -> (word bytes, shift, placements per block, placements)"},
    {"pattern_layer", layer, METH_VARARGS,
     "pattern_layer(pull, d, first, last, words, dist, blk, rows, cols, k) -> (new states, "
     "new placements): one layer of the pattern BFS over blocks first..last-1"},
    {"pattern_trace", trace, METH_VARARGS,
     "pattern_trace(rows, cols, k, cells, moves): the sweeps' decoding and ranks, for tests"},
    {"pattern_count_regions", regions, METH_VARARGS,
     "pattern_count_regions(rows, cols, k) -> regions over every set of k occupied cells"},
    {"pattern_bit_ops", bit_ops, METH_VARARGS,
     "pattern_bit_ops([name]) -> the bit operations in use ('bmi2' or 'portable'); with a "
     "name, switch to them"},
    {"pattern_classify", npz_twin_classify, METH_VARARGS,
     "pattern_classify(depth, first, last, words, blk, pairs, rows, cols, k, main): the "
     "zero-aware classes of the regions reached at depth, in blocks first..last-1"},
    {"pattern_pack", npz_twin_pack, METH_VARARGS,
     "pattern_pack(pairs, out, value_bits, higher_by) -> clipped: a two-class table packed "
     "into a byte a placement"},
    {NULL, NULL, 0, NULL}};
