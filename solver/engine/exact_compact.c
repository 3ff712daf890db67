/* The compact exact table's sweeps (pdb_builder.compact_bfs; the format is
 * solver/tables/compact.py): the breadth-first search over the N!/2 states of one parity class
 * of a 4- to 12-cell board, a byte a state, and the encoding of each distance as a nibble
 * beside its Manhattan distance.
 *
 * A state's index is the rank of p[0..n-3], p[t] the cell of tile t (p[0] the blank's); the
 * last two tiles take the two cells left, in the one order whose parity reaches the goal.
 * Consecutive runs of BLOCK = 12 indices share the cells of tiles 0..n-5 and differ in where
 * tiles n-4 and n-3 go among the 4 cells left (4 x 3 ordered places: the last two digits of
 * the rank, in radix 4 and 3), so a sweep decodes the shared cells once a block.
 *
 * Python threads call a sweep on slices of the index range, the GIL released, and share the
 * work array.  A search sweep only ever writes d+1 over UNSEEN and only reads the bytes holding
 * d (which nobody writes during the sweep) to pick the states to expand: two threads reaching
 * one state write the same byte, so the table is the same whatever the threads' order.  The
 * neighbours' bytes are read and written as relaxed atomics (plain moves on every target); the
 * look for a block holding d reads words, whose bytes another thread may change only from
 * UNSEEN to d+1, neither of which is d.  The encoding's slices are whole base blocks: no two
 * threads share a byte. */
#include "exact_common.h"

#define BLOCK 12       /* indices sharing the cells of tiles 0..n-5 */
#define BASE_BLOCK 60  /* states sharing one base byte (solver.tables.compact.BASE_BLOCK) */
#define OVERFLOW 15    /* nibble: the distance is in the overflow list */
#define MAX_STEP 14    /* largest gap above the block's base a nibble holds */
#define UNSEEN NPZ_EXACT_UNREACHED
#define DEPTHS 256
#define STRETCH (1L << 22) /* indices gathered between two looks for a signal */

/* What every sweep knows of the board and the goal. */
typedef struct {
    int n;
    int64_t total;        /* n!/2 states */
    uint8_t *work;        /* distance by index, UNSEEN until reached */
    const int64_t *need;  /* need[c]: the parity of the goal's class with the blank on c */
    const int64_t *nbr;   /* nbr[4 * cell + m], -1 off the board */
    const int64_t *md;    /* md[n * t + c]: Manhattan distance of tile t on cell c */
} Board;

/* The kernels below take the board's size n as a parameter and are inlined into one instance
 * per size (INSTANCES): with n a constant, the divisions by the rank's radices n - i become
 * multiplications and the loops over tiles unroll.  Decoding a block's shared cells, eight
 * divisions and eight searches for a free cell on 12 cells, was a quarter of the search's time
 * with n read at run time. */
#define KERNEL static inline __attribute__((always_inline))

/* The cells of tiles 0..n-5 that the `block`-th run of BLOCK indices shares, into p, and the
 * 4 cells left, ascending, into free; returns the sum of the rank's Lehmer digits so far (its
 * parity is the permutation's, up to the last four tiles). */
KERNEL int decode_block(uint32_t block, const int n, int *p, int *free) {
    int digit[NPZ_EXACT_MAX_CELLS], digit_sum = 0;
    for (int i = n - 5; i >= 0; i--) { /* block < 12!/24: 32 bits; radix n - i */
        digit[i] = (int)(block % (uint32_t)(n - i));
        block /= (uint32_t)(n - i);
        digit_sum += digit[i];
    }
    unsigned used = 0;
    for (int i = 0; i < n - 4; i++) {
        p[i] = npz_exact_nth_free(used, digit[i]);
        used |= 1u << p[i];
    }
    unsigned left = ~used & ((1u << n) - 1);
    for (int f = 0; f < 4; f++, left &= left - 1) free[f] = __builtin_ctz(left);
    return digit_sum;
}

/* Complete p for the `inner`-th index of its block: tiles n-4 and n-3 take their ranked places
 * among free; tiles n-2 and n-1 the two cells left, in the order whose parity reaches the goal
 * (the permutation's parity plus the blank's taxicab distance to its goal cell never changes). */
KERNEL void place_last(int inner, int digit_sum, const int n, const int64_t *need, int *p,
                       const int *free) {
    int a = inner / 3, b = inner % 3; /* b: the b-th of the three cells other than free[a] */
    int x = b != 0 ? 0 : 1, y = b != 2 ? 2 : 1; /* the other two of those three, ascending */
    p[n - 4] = free[a];
    p[n - 3] = free[b < a ? b : b + 1];
    int lo = free[x < a ? x : x + 1], hi = free[y < a ? y : y + 1];
    int in_order = ((digit_sum + a + b) & 1) == need[p[0]];
    p[n - 2] = in_order ? lo : hi;
    p[n - 1] = in_order ? hi : lo;
}

/* Whether any of the BLOCK bytes at `at` holds d: a word at a time, each byte xor d is zero
 * where it held d, and a zero byte is one whose subtraction borrows into its top bit. */
static inline int block_holds(const uint8_t *at, int d) {
    const uint64_t ones = 0x0101010101010101ULL, tops = 0x8080808080808080ULL;
    uint64_t head;
    uint32_t tail;
    memcpy(&head, at, 8);
    memcpy(&tail, at + 8, 4);
    uint64_t x = head ^ (ones * (uint64_t)d);
    uint32_t y = tail ^ (uint32_t)(ones * (uint64_t)d);
    return ((x - ones) & ~x & tops) != 0 || ((y - (uint32_t)ones) & ~y & (uint32_t)tops) != 0;
}

/* Slide the blank of the state p (at[c]: the tile on cell c) to each neighbour: the indices
 * of the states so reached, into next; returns how many. */
KERNEL int neighbour_ranks(const Board *g, const int n, int *p, const int *at, int64_t *next) {
    int blank = p[0], count = 0;
    for (int m = 0; m < 4; m++) {
        int c = (int)g->nbr[4 * blank + m];
        if (c < 0) continue;
        int t = at[c];
        p[0] = c;
        p[t] = blank;
        next[count++] = npz_exact_rank(p, n - 2, n);
        p[0] = blank;
        p[t] = c;
    }
    return count;
}

/* Expand the states of depth d among the blocks [first, last); returns how many there were.
 * The neighbours of a whole block are ranked first and their bytes asked for ahead (they lie
 * anywhere in the array: on 12 cells, far outside every cache), then each still unseen one
 * gets d+1, so the reads of a block wait for memory together rather than one by one. */
KERNEL int64_t expand_blocks(const Board *g, const int n, int64_t first, int64_t last, int d) {
    int p[NPZ_EXACT_MAX_CELLS], at[NPZ_EXACT_MAX_CELLS], free[4];
    int64_t found = 0, next[4 * BLOCK];
    for (int64_t block = first; block < last; block++) {
        const uint8_t *w = g->work + block * BLOCK;
        if (!block_holds(w, d)) continue;
        int digit_sum = decode_block((uint32_t)block, n, p, free), count = 0;
        for (int inner = 0; inner < BLOCK; inner++) {
            if (__atomic_load_n(&w[inner], __ATOMIC_RELAXED) != d) continue;
            found++;
            place_last(inner, digit_sum, n, g->need, p, free);
            for (int t = 0; t < n; t++) at[p[t]] = t;
            int more = neighbour_ranks(g, n, p, at, next + count);
            for (int i = count; i < count + more; i++) __builtin_prefetch(&g->work[next[i]], 1);
            count += more;
        }
        for (int i = 0; i < count; i++)
            if (__atomic_load_n(&g->work[next[i]], __ATOMIC_RELAXED) == UNSEEN)
                __atomic_store_n(&g->work[next[i]], (uint8_t)(d + 1), __ATOMIC_RELAXED);
    }
    return found;
}

/* The gaps (distance - manhattan) / 2 of the states [start, stop) of one base block. */
KERNEL void block_gaps(const Board *g, const int n, int64_t start, int64_t stop, int64_t *gap) {
    int p[NPZ_EXACT_MAX_CELLS], free[4];
    const int64_t *md = g->md;
    for (int64_t block = start / BLOCK; block * BLOCK < stop; block++) {
        int digit_sum = decode_block((uint32_t)block, n, p, free);
        int64_t shared = 0; /* the Manhattan distance of tiles 1..n-5, the block's own */
        for (int t = 1; t < n - 4; t++) shared += md[n * t + p[t]];
        for (int inner = 0; inner < BLOCK; inner++) {
            int64_t idx = block * BLOCK + inner;
            if (idx >= stop) break;
            place_last(inner, digit_sum, n, g->need, p, free);
            int64_t h = shared;
            for (int t = n - 4 > 1 ? n - 4 : 1; t < n; t++) h += md[n * t + p[t]];
            gap[idx - start] = ((int64_t)g->work[idx] - h) >> 1;
        }
    }
}

/* Write the base bytes and the nibbles of the states [lo, hi), base block by base block;
 * returns how many overflow (their gap above their block's smallest is more than a nibble
 * holds). */
KERNEL int64_t encode_blocks(const Board *g, const int n, int64_t lo, int64_t hi, uint8_t *packed,
                             uint8_t *base) {
    int64_t over = 0;
    for (int64_t start = lo; start < hi; start += BASE_BLOCK) {
        int64_t stop = start + BASE_BLOCK < hi ? start + BASE_BLOCK : hi, gap[BASE_BLOCK];
        block_gaps(g, n, start, stop, gap);
        int64_t low = gap[0];
        for (int64_t i = 1; i < stop - start; i++) low = gap[i] < low ? gap[i] : low;
        base[start / BASE_BLOCK] = (uint8_t)low;
        for (int64_t idx = start; idx < stop; idx++) {
            int64_t v = gap[idx - start] - low;
            if (v > MAX_STEP) {
                v = OVERFLOW;
                over++;
            }
            if (idx & 1)
                packed[idx >> 1] |= (uint8_t)(v << 4);
            else
                packed[idx >> 1] = (uint8_t)v;
        }
    }
    return over;
}

/* One instance of each sweep per board size, 4 to NPZ_EXACT_MAX_CELLS cells. */
#define INSTANCES(X) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12)

static int64_t expand_any(const Board *g, int64_t first, int64_t last, int d) {
#define EXPAND_CASE(N) \
    case N: return expand_blocks(g, N, first, last, d);
    switch (g->n) { INSTANCES(EXPAND_CASE) }
    return 0;
}

static int64_t encode_any(const Board *g, int64_t lo, int64_t hi, uint8_t *packed,
                          uint8_t *base) {
#define ENCODE_CASE(N) \
    case N: return encode_blocks(g, N, lo, hi, packed, base);
    switch (g->n) { INSTANCES(ENCODE_CASE) }
    return 0;
}

/* The board's arrays, checked: work (n!/2 bytes, writable when `writable_work`), need and the
 * neighbours; n is need's length.  0, or -1 with the exception set. */
static int take_board(npz_views *v, Board *g, PyObject *work_o, int writable_work,
                      PyObject *need_o, PyObject *nbr_o) {
    Py_buffer *b;
    if (!(b = npz_view(v, need_o, "need", NPZ_I64, -1, -1, 0))) return -1;
    g->need = b->buf;
    Py_ssize_t n = npz_items(b);
    if (n < 4 || n > NPZ_EXACT_MAX_CELLS) {
        PyErr_Format(PyExc_ValueError, "need: expected 4 to %d cells, got %zd",
                     NPZ_EXACT_MAX_CELLS, n);
        return -1;
    }
    g->n = (int)n;
    for (int c = 0; c < g->n; c++)
        if (g->need[c] != 0 && g->need[c] != 1) {
            PyErr_SetString(PyExc_ValueError, "need: expected parities (0 or 1)");
            return -1;
        }
    g->total = npz_exact_factorial(g->n) / 2;
    if (!(b = npz_view(v, work_o, "work", NPZ_U8, -1, g->total, writable_work))) return -1;
    g->work = b->buf;
    if (nbr_o == NULL) return 0;
    if (!(b = npz_view(v, nbr_o, "neighbours", NPZ_I64, -1, 4 * n, 0))) return -1;
    g->nbr = b->buf;
    return npz_exact_check_neighbours(g->nbr, g->n);
}

/* lo and hi bound a slice of the index range whose ends are multiples of `step` (or hi the
 * end of the range). */
static int check_slice(int64_t lo, int64_t hi, int64_t total, int64_t step) {
    if (lo < 0 || lo > hi || hi > total || lo % step != 0 || (hi % step != 0 && hi != total)) {
        PyErr_Format(PyExc_ValueError,
                     "slice [%lld, %lld): expected ends within [0, %lld], multiples of %lld",
                     (long long)lo, (long long)hi, (long long)total, (long long)step);
        return -1;
    }
    return 0;
}

/* compact_expand(work, lo, hi, d, need, neighbours) -> how many states of depth d lie in
 * work[lo:hi] (lo, hi multiples of BLOCK); each state next to one of them still UNSEEN, in the
 * whole array, gets d+1. */
PyObject *npz_exact_compact_expand(PyObject *self, PyObject *args) {
    PyObject *work_o, *need_o, *nbr_o;
    long long lo, hi;
    int d;
    if (!PyArg_ParseTuple(args, "OLLiOO:compact_expand", &work_o, &lo, &hi, &d, &need_o, &nbr_o))
        return NULL;
    npz_views v = {.count = 0};
    Board g = {0};
    PyObject *result = NULL;
    if (take_board(&v, &g, work_o, 1, need_o, nbr_o) < 0 || check_slice(lo, hi, g.total, BLOCK) < 0)
        goto done;
    if (d < 0 || d >= UNSEEN - 1) {
        PyErr_Format(PyExc_ValueError, "depth %d: expected 0 to %d", d, UNSEEN - 2);
        goto done;
    }
    int64_t found;
    Py_BEGIN_ALLOW_THREADS
    found = expand_any(&g, lo / BLOCK, hi / BLOCK, d);
    Py_END_ALLOW_THREADS
    result = PyLong_FromLongLong(found);
done:
    npz_release(&v);
    return result;
}

/* compact_encode(work, lo, hi, packed, base, need, md) -> how many states of work[lo:hi]
 * overflow; writes their nibbles ((n+1)/2 bytes in all) and block bases (one a BASE_BLOCK).
 * lo, hi: multiples of BASE_BLOCK (hi: or the end). */
PyObject *npz_exact_compact_encode(PyObject *self, PyObject *args) {
    PyObject *work_o, *packed_o, *base_o, *need_o, *md_o;
    long long lo, hi;
    if (!PyArg_ParseTuple(args, "OLLOOOO:compact_encode", &work_o, &lo, &hi, &packed_o, &base_o,
                          &need_o, &md_o))
        return NULL;
    npz_views v = {.count = 0};
    Board g = {0};
    PyObject *result = NULL;
    Py_buffer *packed, *base, *md;
    if (take_board(&v, &g, work_o, 0, need_o, NULL) < 0 ||
        check_slice(lo, hi, g.total, BASE_BLOCK) < 0 ||
        !(packed = npz_view(&v, packed_o, "packed", NPZ_U8, -1, (g.total + 1) / 2, 1)) ||
        !(base = npz_view(&v, base_o, "base", NPZ_U8, -1,
                          (g.total + BASE_BLOCK - 1) / BASE_BLOCK, 1)) ||
        !(md = npz_view(&v, md_o, "md", NPZ_I64, -1, (Py_ssize_t)g.n * g.n, 0)))
        goto done;
    g.md = md->buf;
    int64_t over;
    Py_BEGIN_ALLOW_THREADS
    over = encode_any(&g, lo, hi, packed->buf, base->buf);
    Py_END_ALLOW_THREADS
    result = PyLong_FromLongLong(over);
done:
    npz_release(&v);
    return result;
}

/* What the gather fills: the overflow list and the indices of the rare layers, grouped by
 * distance. */
typedef struct {
    const uint8_t *work, *packed, *rare;
    int64_t total;
    int64_t cursor[DEPTHS], end[DEPTHS]; /* rare_index[cursor[d]:end[d]] is still to fill */
    int64_t *o_index, *r_index;
    uint8_t *o_dist;
    int64_t o_count, o_at; /* the overflow list's length, and how much of it is filled */
    int failed;            /* more states than counted: the arrays do not belong together */
} Gather;

static void gather_range(Gather *s, int64_t lo, int64_t hi) {
    for (int64_t idx = lo; idx < hi && !s->failed; idx++) {
        int d = s->work[idx];
        if (s->rare[d]) {
            if (s->cursor[d] == s->end[d]) s->failed = 1;
            else s->r_index[s->cursor[d]++] = idx;
        }
        if (((s->packed[idx >> 1] >> ((idx & 1) << 2)) & 0xF) == OVERFLOW) {
            if (s->o_at == s->o_count) {
                s->failed = 1;
            } else {
                s->o_index[s->o_at] = idx;
                s->o_dist[s->o_at++] = (uint8_t)d;
            }
        }
    }
}

/* Whether every list came out exactly as long as counted. */
static int gather_complete(const Gather *s) {
    if (s->failed || s->o_at != s->o_count) return 0;
    for (int d = 0; d < DEPTHS; d++)
        if (s->cursor[d] != s->end[d]) return 0;
    return 1;
}

/* The offsets of the rare layers' groups, checked: nondecreasing from 0 to the list's end. */
static int take_offsets(Gather *s, const int64_t *offsets, Py_ssize_t rare_items) {
    int ok = offsets[0] == 0 && offsets[DEPTHS] == rare_items;
    for (int d = 0; d < DEPTHS; d++) {
        s->cursor[d] = offsets[d];
        s->end[d] = offsets[d + 1];
        ok = ok && offsets[d + 1] >= offsets[d];
    }
    if (ok) return 0;
    PyErr_SetString(PyExc_ValueError,
                    "offsets: expected 257 nondecreasing offsets from 0 to rare_index's length");
    return -1;
}

/* compact_gather(work, packed, rare, offsets, overflow_index, overflow_distance, rare_index):
 * the indices whose nibble is OVERFLOW, in order, with their distances (the lengths of
 * overflow_index, int64, and overflow_distance, uint8, are the count the encoding returned),
 * and the indices of each distance d with rare[d] (uint8[256]) into
 * rare_index[offsets[d]:offsets[d+1]] (offsets: int64[257]), in order. */
PyObject *npz_exact_compact_gather(PyObject *self, PyObject *args) {
    PyObject *work_o, *packed_o, *rare_o, *offsets_o, *oi_o, *od_o, *ri_o;
    if (!PyArg_ParseTuple(args, "OOOOOOO:compact_gather", &work_o, &packed_o, &rare_o,
                          &offsets_o, &oi_o, &od_o, &ri_o))
        return NULL;
    npz_views v = {.count = 0};
    Gather s = {0};
    Py_buffer *work, *packed, *rare, *offsets, *o_index, *o_dist, *r_index;
    PyObject *result = NULL;
    if (!(work = npz_view(&v, work_o, "work", NPZ_U8, -1, -1, 0))) goto done;
    s.total = npz_items(work);
    if (!(packed = npz_view(&v, packed_o, "packed", NPZ_U8, -1, (s.total + 1) / 2, 0)) ||
        !(rare = npz_view(&v, rare_o, "rare", NPZ_U8, -1, DEPTHS, 0)) ||
        !(offsets = npz_view(&v, offsets_o, "offsets", NPZ_I64, -1, DEPTHS + 1, 0)) ||
        !(o_index = npz_view(&v, oi_o, "overflow_index", NPZ_I64, -1, -1, 1)))
        goto done;
    s.o_count = npz_items(o_index);
    if (!(o_dist = npz_view(&v, od_o, "overflow_distance", NPZ_U8, -1, s.o_count, 1)) ||
        !(r_index = npz_view(&v, ri_o, "rare_index", NPZ_I64, -1, -1, 1)))
        goto done;
    s.work = work->buf, s.packed = packed->buf, s.rare = rare->buf;
    s.o_index = o_index->buf, s.o_dist = o_dist->buf, s.r_index = r_index->buf;
    if (take_offsets(&s, offsets->buf, npz_items(r_index)) < 0) goto done;
    int stopped = 0;
    Py_BEGIN_ALLOW_THREADS
    for (int64_t lo = 0; lo < s.total && !stopped; lo += STRETCH) {
        gather_range(&s, lo, lo + STRETCH < s.total ? lo + STRETCH : s.total);
        Py_BLOCK_THREADS
        stopped = PyErr_CheckSignals() < 0;
        Py_UNBLOCK_THREADS
    }
    Py_END_ALLOW_THREADS
    if (stopped) goto done;
    if (!gather_complete(&s)) {
        PyErr_SetString(PyExc_ValueError,
                        "work, packed: the overflow list or a rare layer is not as counted");
        goto done;
    }
    Py_INCREF(Py_None);
    result = Py_None;
done:
    npz_release(&v);
    return result;
}
