/* The exact tables' part of the engine: the breadth-first search of a full exact table
 * (solver.tables.exact_bfs: every arrangement of a board of up to 10 cells, a byte each), and
 * the method table that also lists the compact search's sweeps (exact_compact.c).
 *
 * The search runs backwards from the goal: every move is reversible, so a state's BFS layer
 * is its fewest moves to the goal.  A state is the rank of its tiles read cell by cell (the
 * full permutation, n! entries); the half of the ranks in the other parity class is never
 * reached and keeps NPZ_EXACT_UNREACHED.  The queue holds ranks (with their distances) in the
 * order found, so each layer follows the last and a state's distance is final when it is first
 * written.  The table is a few megabytes read at random: the neighbours of the next few states
 * are asked for from memory before they are looked at (see take_next).
 *
 * The loop runs with the GIL released, in stretches: between two, it takes the GIL back to let
 * a pending Ctrl-C (or SIGTERM) raise, so a search of 10 cells stops within milliseconds and
 * the caller's table is simply dropped. */
#include "exact_common.h"

#define DEPTHS 256         /* counts[d] for every byte of distance */
#define STRETCH (1L << 18) /* states expanded between two looks for a signal */
#define AHEAD 8            /* states whose neighbours are asked for before they are looked at */
#define RANK_BITS 40       /* a queue entry: the rank, and the distance above it */

/* The neighbours of a state taken off the queue: ranked and asked for from memory, not looked
 * at yet. */
typedef struct {
    int64_t next[4];
    int count, d;
} Pending;

typedef struct {
    int n;
    const int64_t *nbr; /* nbr[4 * cell + m]: the cell the blank reaches by move m, or -1 */
    uint8_t *table;
    uint64_t *queue; /* states found and not yet taken off lie in [head, tail) */
    int64_t head, tail, capacity;
    Pending ring[AHEAD]; /* states taken off whose neighbours wait: `waiting` from `oldest` */
    int oldest, waiting;
    int64_t *counts;
    int failed; /* the queue or a distance ran out of room: neighbours that no board has */
} FullSearch;

/* The kernels take the board's size n as a parameter and are inlined into one instance per
 * size (INSTANCES): with n a constant, unranking divides by constants (multiplications). */
#define KERNEL static inline __attribute__((always_inline))

/* Take the next state off the queue: count it at its distance, rank the arrangements its
 * blank's slides reach and ask memory for their bytes; they are looked at AHEAD states later,
 * so the table's random reads overlap instead of waiting one after another. */
KERNEL void take_next(FullSearch *s, const int n) {
    int tiles[NPZ_EXACT_MAX_CELLS];
    uint64_t entry = s->queue[s->head++];
    Pending *p = &s->ring[(s->oldest + s->waiting++) % AHEAD];
    p->d = (int)(entry >> RANK_BITS);
    p->count = 0;
    s->counts[p->d]++;
    npz_exact_unrank((int64_t)(entry & ((1ULL << RANK_BITS) - 1)), n, n, tiles);
    int blank = 0;
    while (tiles[blank] != 0) blank++;
    for (int m = 0; m < 4; m++) {
        int c = (int)s->nbr[4 * blank + m];
        if (c < 0) continue;
        tiles[blank] = tiles[c];
        tiles[c] = 0;
        int64_t r = npz_exact_rank(tiles, n, n);
        __builtin_prefetch(&s->table[r], 1);
        p->next[p->count++] = r;
        tiles[c] = tiles[blank];
        tiles[blank] = 0;
    }
}

/* Look at the neighbours of the oldest state waiting: each not reached yet gets its distance
 * plus one and joins the queue.  States are looked at in the order they were taken off, so
 * the queue, and the table, are those of a search that looked at once. */
static void look_oldest(FullSearch *s) {
    Pending *p = &s->ring[s->oldest];
    s->oldest = (s->oldest + 1) % AHEAD;
    s->waiting--;
    for (int i = 0; i < p->count; i++) {
        int64_t r = p->next[i];
        if (s->table[r] != NPZ_EXACT_UNREACHED) continue;
        if (s->tail == s->capacity || p->d + 1 >= NPZ_EXACT_UNREACHED) {
            s->failed = 1;
            return;
        }
        s->table[r] = (uint8_t)(p->d + 1);
        s->queue[s->tail++] = (uint64_t)r | (uint64_t)(p->d + 1) << RANK_BITS;
    }
}

/* Take up to `budget` states off the queue; whether the search is over (nothing queued or
 * waiting, or failed). */
KERNEL int expand_some(FullSearch *s, const int n, int64_t budget) {
    while (!s->failed && (s->head < s->tail || s->waiting > 0)) {
        if (s->head < s->tail && s->waiting < AHEAD) {
            if (budget-- == 0) return 0;
            take_next(s, n);
        } else {
            look_oldest(s);
        }
    }
    return 1;
}

#define INSTANCES(X) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12)

static int expand_any(FullSearch *s, int64_t budget) {
#define EXPAND_CASE(N) \
    case N: return expand_some(s, N, budget);
    switch (s->n) { INSTANCES(EXPAND_CASE) }
    return 1;
}

/* Run the whole search, letting signals in between stretches: 0, or -1 with the exception the
 * signal's handler raised. */
static int search_all(FullSearch *s) {
    int over = 0, stopped = 0;
    Py_BEGIN_ALLOW_THREADS
    while (!over && !stopped) {
        over = expand_any(s, STRETCH);
        Py_BLOCK_THREADS
        stopped = PyErr_CheckSignals() < 0;
        Py_UNBLOCK_THREADS
    }
    Py_END_ALLOW_THREADS
    return stopped ? -1 : 0;
}

static int64_t deepest(const int64_t *counts) {
    int64_t d = DEPTHS - 1;
    while (d > 0 && counts[d] == 0) d--;
    return d;
}

/* exact_bfs(goal, neighbours, table, counts) -> the largest distance.
 *
 * goal: int64[n], the goal's tiles by cell (0 the blank), n <= 12; neighbours: int64[n, 4];
 * table: writable uint8[n!], overwritten with each arrangement's distance by rank (255: not
 * reachable); counts: writable int64[256], overwritten with the states at each distance. */
static PyObject *exact_bfs(PyObject *self, PyObject *args) {
    PyObject *goal_o, *nbr_o, *table_o, *counts_o;
    if (!PyArg_ParseTuple(args, "OOOO:exact_bfs", &goal_o, &nbr_o, &table_o, &counts_o))
        return NULL;
    npz_views v = {.count = 0};
    PyObject *result = NULL;
    FullSearch s = {0};
    Py_buffer *b;
    if (!(b = npz_view(&v, goal_o, "goal", NPZ_I64, -1, -1, 0))) goto done;
    const int64_t *goal = b->buf;
    Py_ssize_t n = npz_items(b);
    if (n < 2 || n > NPZ_EXACT_MAX_CELLS) {
        PyErr_Format(PyExc_ValueError, "goal: expected 2 to %d tiles, got %zd",
                     NPZ_EXACT_MAX_CELLS, n);
        goto done;
    }
    s.n = (int)n;
    int64_t size = npz_exact_factorial(s.n);
    if (npz_exact_check_permutation(goal, s.n, "goal") < 0) goto done;
    if (!(b = npz_view(&v, nbr_o, "neighbours", NPZ_I64, -1, 4 * n, 0))) goto done;
    s.nbr = b->buf;
    if (!(b = npz_view(&v, table_o, "table", NPZ_U8, -1, size, 1))) goto done;
    s.table = b->buf;
    if (!(b = npz_view(&v, counts_o, "counts", NPZ_I64, -1, DEPTHS, 1))) goto done;
    s.counts = b->buf;
    if (npz_exact_check_neighbours(s.nbr, s.n) < 0) goto done;
    s.capacity = size / 2 + 1; /* one parity class, and the goal's own */
    s.queue = PyMem_RawMalloc((size_t)s.capacity * sizeof *s.queue);
    if (s.queue == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    memset(s.table, NPZ_EXACT_UNREACHED, (size_t)size);
    memset(s.counts, 0, DEPTHS * sizeof *s.counts);
    int tiles[NPZ_EXACT_MAX_CELLS];
    for (int i = 0; i < s.n; i++) tiles[i] = (int)goal[i];
    int64_t start = npz_exact_rank(tiles, s.n, s.n);
    s.table[start] = 0;
    s.queue[s.tail++] = (uint64_t)start; /* at distance 0 */
    if (search_all(&s) < 0) goto done;
    if (s.failed) {
        PyErr_SetString(PyExc_ValueError,
                        "neighbours: more states or distances than any board's (not a grid?)");
        goto done;
    }
    result = PyLong_FromLongLong(deepest(s.counts));
done:
    PyMem_RawFree(s.queue);
    npz_release(&v);
    return result;
}

PyMethodDef npz_exact_methods[] = {
    {"exact_bfs", exact_bfs, METH_VARARGS,
     "exact_bfs(goal, neighbours, table, counts) -> the largest distance: a full exact table."},
    {"compact_expand", npz_exact_compact_expand, METH_VARARGS,
     "compact_expand(work, lo, hi, d, need, neighbours) -> the states of depth d expanded."},
    {"compact_encode", npz_exact_compact_encode, METH_VARARGS,
     "compact_encode(work, lo, hi, packed, base, need, md) -> the states that overflow."},
    {"compact_gather", npz_exact_compact_gather, METH_VARARGS,
     "compact_gather(work, packed, rare, offsets, overflow_index, overflow_distance, "
     "rare_index): the overflow list and the rare layers' states."},
    {NULL, NULL, 0, NULL}};
