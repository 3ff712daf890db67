/* The exact tables' part of the engine: the breadth-first search of a full exact table
 * (solver.tables.exact_bfs: every arrangement of a board of up to 10 cells, a byte each), and
 * the method table that also lists the compact search's sweeps (exact_compact.c).
 *
 * The search runs backwards from the goal: every move is reversible, so a state's BFS layer
 * is its fewest moves to the goal.  A state is the rank of its tiles read cell by cell (the
 * full permutation, n! entries); the half of the ranks in the other parity class is never
 * reached and keeps NPZ_EXACT_UNREACHED.  The queue holds ranks in the order found, so each
 * layer follows the last and a state's distance is final when it is first written.
 *
 * The loop runs with the GIL released, in stretches: between two, it takes the GIL back to let
 * a pending Ctrl-C (or SIGTERM) raise, so a search of 10 cells stops within milliseconds and
 * the caller's table is simply dropped. */
#include "exact_common.h"

#define DEPTHS 256           /* counts[d] for every byte of distance */
#define STRETCH (1L << 18)   /* states expanded between two looks for a signal */

typedef struct {
    int n;
    const int64_t *nbr; /* nbr[4 * cell + m]: the cell the blank reaches by move m, or -1 */
    uint8_t *table;
    uint32_t *queue; /* ranks found and not yet expanded lie in [head, tail) */
    int64_t head, tail, capacity;
    int64_t *counts;
    int failed; /* the queue or a distance ran out of room: neighbours that no board has */
} FullSearch;

/* Slide the blank of `tiles` (on `blank`) to each neighbour cell in turn; give each arrangement
 * not reached yet distance d+1 and queue it. */
static void visit_neighbours(FullSearch *s, int *tiles, int blank, int d) {
    for (int m = 0; m < 4; m++) {
        int c = (int)s->nbr[4 * blank + m];
        if (c < 0) continue;
        tiles[blank] = tiles[c];
        tiles[c] = 0;
        int64_t r = npz_exact_rank(tiles, s->n, s->n);
        if (s->table[r] == NPZ_EXACT_UNREACHED) {
            if (s->tail == s->capacity || d + 1 >= NPZ_EXACT_UNREACHED) {
                s->failed = 1;
            } else {
                s->table[r] = (uint8_t)(d + 1);
                s->queue[s->tail++] = (uint32_t)r;
            }
        }
        tiles[c] = tiles[blank];
        tiles[blank] = 0;
    }
}

/* Expand up to `budget` queued states; whether the search is over (queue empty, or failed). */
static int expand_some(FullSearch *s, int64_t budget) {
    int tiles[NPZ_EXACT_MAX_CELLS];
    for (; budget > 0 && s->head < s->tail && !s->failed; budget--) {
        int64_t r = s->queue[s->head++];
        int d = s->table[r];
        s->counts[d]++;
        npz_exact_unrank(r, s->n, s->n, tiles);
        int blank = 0;
        while (tiles[blank] != 0) blank++;
        visit_neighbours(s, tiles, blank, d);
    }
    return s->head == s->tail || s->failed;
}

/* Run the whole search, letting signals in between stretches: 0, or -1 with the exception the
 * signal's handler raised. */
static int search_all(FullSearch *s) {
    int over = 0, stopped = 0;
    Py_BEGIN_ALLOW_THREADS
    while (!over && !stopped) {
        over = expand_some(s, STRETCH);
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
    NpzExactViews v = {.count = 0};
    PyObject *result = NULL;
    FullSearch s = {0};
    const int64_t *goal = npz_exact_view(&v, goal_o, "goal", NPZ_I64, -1, 0);
    if (goal == NULL) goto done;
    Py_ssize_t n = npz_exact_items(&v);
    if (n < 2 || n > NPZ_EXACT_MAX_CELLS) {
        PyErr_Format(PyExc_ValueError, "goal: expected 2 to %d tiles, got %zd",
                     NPZ_EXACT_MAX_CELLS, n);
        goto done;
    }
    s.n = (int)n;
    int64_t size = npz_exact_factorial(s.n);
    if (npz_exact_check_permutation(goal, s.n, "goal") < 0) goto done;
    if ((s.nbr = npz_exact_view(&v, nbr_o, "neighbours", NPZ_I64, 4 * n, 0)) == NULL ||
        (s.table = npz_exact_view(&v, table_o, "table", NPZ_U8, size, 1)) == NULL ||
        (s.counts = npz_exact_view(&v, counts_o, "counts", NPZ_I64, DEPTHS, 1)) == NULL ||
        npz_exact_check_neighbours(s.nbr, s.n) < 0)
        goto done;
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
    s.queue[s.tail++] = (uint32_t)start;
    if (search_all(&s) < 0) goto done;
    if (s.failed) {
        PyErr_SetString(PyExc_ValueError,
                        "neighbours: more states or distances than any board's (not a grid?)");
        goto done;
    }
    result = PyLong_FromLongLong(deepest(s.counts));
done:
    PyMem_RawFree(s.queue);
    npz_exact_release(&v);
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
