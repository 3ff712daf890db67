/* The zero-aware twin of a pattern database (pdb_builder.zero_aware): after each layer of
 * the pattern BFS, the classes of the regions it reached; at the end, the two-class table
 * packed into one byte a placement.
 *
 * A twin keeps two distances a placement (pairs[2p] with the blank in the main region of
 * the free cells, pairs[2p + 1] with it elsewhere; solver.core.regions defines the main
 * region, and hands it over as one cell mask per set of occupied cells, by the set's colex
 * rank).  The BFS's words say which regions were reached at which depth (pattern_bfs.h), so
 * a layer's classes are read from them: a class takes the first depth at which any of its
 * regions is reached.  The byte's format is solver.core.packing's; its constants arrive as
 * arguments, defined there once. */
#include "pattern_bfs.h"

/* C(a, b) for a, b <= NPZ_MAX_CELLS: the colex rank of a cell set sums C(cell, its count). */
typedef struct {
    int64_t c[NPZ_MAX_CELLS + 1][NPZ_MAX_CELLS + 2];
} Binomials;

static void binomials_init(Binomials *bn) {
    for (int a = 0; a <= NPZ_MAX_CELLS; a++) {
        for (int b = 0; b <= NPZ_MAX_CELLS + 1; b++) {
            if (b > a)
                bn->c[a][b] = 0;
            else if (b == 0 || b == a)
                bn->c[a][b] = 1;
            else
                bn->c[a][b] = bn->c[a - 1][b - 1] + bn->c[a - 1][b];
        }
    }
}

/* The colex rank of the cell set `mask` among the sets of its size (solver.core.regions). */
static int64_t set_rank(uint64_t mask, int n, const Binomials *bn) {
    int64_t r = 0;
    int i = 0;
    for (int c = 0; c < n; c++)
        if ((mask >> c) & 1) r += bn->c[c][++i];
    return r;
}

/* The cells placement p's tiles stand on, as a mask (the inverse of the k-permutation rank:
 * mixed-radix digits, each the how-many-th cell not yet taken). */
static uint64_t occupied_cells(int64_t p, const npz_geometry *g) {
    int digit[NPZ_MAX_CELLS];
    for (int i = g->k - 1; i >= 0; i--) {
        int radix = g->n - i;
        digit[i] = (int)(p % radix);
        p /= radix;
    }
    uint64_t used = 0;
    for (int i = 0; i < g->k; i++) {
        int v = 0;
        for (int d = digit[i];; v++) {
            if ((used >> v) & 1) continue;
            if (d-- == 0) break;
        }
        used |= UINT64_C(1) << v;
    }
    return used;
}

/* The bits of x that mask selects, gathered into the low bits in order. */
static uint64_t gather_bits(uint64_t x, uint64_t mask) {
    uint64_t out = 0;
    for (uint64_t bit = 1; mask != 0; bit <<= 1, mask &= mask - 1)
        if (x & mask & (~mask + 1)) out |= bit;
    return out;
}

static uint64_t word_at(const void *words, int bytes, int64_t p) {
    switch (bytes) {
    case 2: return ((const uint16_t *)words)[p];
    case 4: return ((const uint32_t *)words)[p];
    default: return ((const uint64_t *)words)[p];
    }
}

/* For the placements of blocks first..last-1 that hold states of `depth` (the block's flag
 * of that depth: the BFS sets it on every block it writes a new state into, and a block
 * without it has nothing to classify): where the word shows regions reached at `depth`
 * (code depth % 3 + 1; older regions may share the code, but their class was written when
 * they were reached), write depth into the classes of those regions that have none yet.  A
 * placement whose free cells form one region gets its second class with its first: the pair
 * compares equal and a search never looks further. */
static void classify(const npz_geometry *g, int64_t depth, int64_t first, int64_t last,
                     const void *words, const uint8_t *blk, uint8_t *pairs,
                     const uint32_t *main) {
    const int code = (int)(depth % 3) + 1, shift = g->shift, depth_bit = npz_depth_bit(depth);
    const uint64_t lowmask = (UINT64_C(1) << (g->n - g->k)) - 1;
    Binomials bn;
    binomials_init(&bn);
    for (int64_t block = first; block < last; block++) {
        if (!(blk[block] & depth_bit)) continue;
        for (int64_t p = block * g->bs; p < (block + 1) * g->bs; p++) {
            uint8_t a = pairs[2 * p], b = pairs[2 * p + 1];
            if (a != NPZ_UNREACHED && b != NPZ_UNREACHED) continue;
            uint64_t w = word_at(words, g->word_bytes, p);
            uint64_t low = w & lowmask, high = (w >> shift) & lowmask;
            uint64_t hit = code == 1 ? low & ~high : code == 2 ? ~low & high : low & high;
            if (hit == 0) continue;
            uint64_t occupied = occupied_cells(p, g);
            uint64_t in_main =
                gather_bits(main[set_rank(occupied, g->n, &bn)], g->full & ~occupied);
            if (a == NPZ_UNREACHED && (hit & in_main)) {
                a = (uint8_t)depth;
                pairs[2 * p] = a;
            }
            if (b == NPZ_UNREACHED && (hit & ~in_main & lowmask))
                pairs[2 * p + 1] = (uint8_t)depth;
            else if (b == NPZ_UNREACHED && a != NPZ_UNREACHED && (lowmask & ~in_main) == 0)
                pairs[2 * p + 1] = a; /* one region: no other class */
        }
    }
}

/* Number of k-subsets of n cells: the sets the main-region masks are given for. */
static int64_t subsets(int n, int k) {
    Binomials bn;
    binomials_init(&bn);
    return bn.c[n][k];
}

/* pattern_classify(depth, first, last, words, blk, pairs, rows, cols, k, main): blocks
 * first..last-1 (the BFS's tables as pattern_layer takes them). */
PyObject *npz_twin_classify(PyObject *self, PyObject *args) {
    long long depth, first, last;
    long rows, cols, k;
    PyObject *words_obj, *blk_obj, *pairs_obj, *main_obj;
    npz_geometry g;
    if (!PyArg_ParseTuple(args, "LLLOOOlllO:pattern_classify", &depth, &first, &last,
                          &words_obj, &blk_obj, &pairs_obj, &rows, &cols, &k, &main_obj))
        return NULL;
    if (npz_geometry_init(&g, rows, cols, k) < 0) return NULL;
    if (depth < 0 || depth >= NPZ_UNREACHED || first < 0 || first > last || last > g.blocks) {
        PyErr_Format(PyExc_ValueError, "pattern_classify: depth %lld, blocks %lld..%lld out "
                     "of range (0..%lld)", depth, first, last, (long long)g.blocks);
        return NULL;
    }
    npz_views v = {.count = 0};
    Py_buffer *words, *blk, *pairs, *main;
    if (!(words = npz_view(&v, words_obj, "words", npz_word_kind(&g), -1, g.placements, 0)) ||
        !(blk = npz_view(&v, blk_obj, "blk", NPZ_U8, -1, g.blocks, 0)) ||
        !(pairs = npz_view(&v, pairs_obj, "pairs", NPZ_U8, -1, 2 * g.placements, 1)) ||
        !(main = npz_view(&v, main_obj, "main", NPZ_U32, -1, subsets(g.n, g.k), 0))) {
        npz_release(&v);
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    classify(&g, depth, first, last, words->buf, blk->buf, pairs->buf, main->buf);
    Py_END_ALLOW_THREADS
    npz_release(&v);
    Py_RETURN_NONE;
}

/* The packed bytes of `count` pairs: the smaller distance in the low value_bits bits and, in
 * the bits above, 1 + the class whose distance is higher_by above the other's (0: equal, or
 * another gap, kept lower: still a lower bound).  Returns the placements whose classes
 * differ by another amount than 0 or higher_by; *largest the largest distance seen. */
static int64_t pack(const uint8_t *pairs, uint8_t *out, int64_t count, int value_bits,
                    int higher_by, int main_class, int other_class, int *largest) {
    int64_t clipped = 0;
    int top = 0;
    for (int64_t r = 0; r < count; r++) {
        int a = pairs[2 * r], b = pairs[2 * r + 1];
        int gap = a > b ? a - b : b - a, low = a < b ? a : b, high = a < b ? b : a;
        int code = gap < higher_by ? 0 : 1 + (a > b ? main_class : other_class);
        out[r] = (uint8_t)(low | (code << value_bits));
        clipped += gap != 0 && gap != higher_by;
        top = high > top ? high : top;
    }
    *largest = top;
    return clipped;
}

/* pattern_pack(pairs, out, value_bits, higher_by, main_class, other_class) -> clipped. */
PyObject *npz_twin_pack(PyObject *self, PyObject *args) {
    PyObject *pairs_obj, *out_obj;
    int value_bits, higher_by, main_class, other_class;
    if (!PyArg_ParseTuple(args, "OOiiii:pattern_pack", &pairs_obj, &out_obj, &value_bits,
                          &higher_by, &main_class, &other_class))
        return NULL;
    if (value_bits < 1 || value_bits > 6) {
        PyErr_SetString(PyExc_ValueError, "pattern_pack: value_bits must be 1..6");
        return NULL;
    }
    npz_views v = {.count = 0};
    Py_buffer *pairs, *out;
    if (!(pairs = npz_view(&v, pairs_obj, "pairs", NPZ_U8, -1, -1, 0))) goto fail;
    if (pairs->len % 2 != 0) {
        PyErr_SetString(PyExc_ValueError, "a two-class table has an even number of entries");
        goto fail;
    }
    if (!(out = npz_view(&v, out_obj, "out", NPZ_U8, -1, pairs->len / 2, 1))) goto fail;
    int64_t clipped;
    int largest;
    Py_BEGIN_ALLOW_THREADS
    clipped = pack(pairs->buf, out->buf, (int64_t)out->len, value_bits, higher_by, main_class,
                   other_class, &largest);
    Py_END_ALLOW_THREADS
    npz_release(&v);
    int mask = (1 << value_bits) - 1;
    if (largest > mask) {
        PyErr_Format(PyExc_ValueError, "a distance above %d does not fit a packed entry", mask);
        return NULL;
    }
    return PyLong_FromLongLong((long long)clipped);
fail:
    npz_release(&v);
    return NULL;
}
