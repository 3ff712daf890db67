/* The IDA* kernels, the search's part of the engine: `ida_pdb` (pattern databases, and
 * Manhattan distance as the database of one-tile patterns) and `ida_lc` (linear conflict).
 * Each call walks one iteration of one walk (solver/search/walk.py) for a budget of nodes and
 * leaves its state in the caller's arrays, so Python can cut an iteration into work units,
 * stop it for a limit, and resume it.
 *
 * Arrays arrive through Python's buffer protocol only -- no numpy C API, so no numpy ABI to go
 * stale -- and the walk runs with the GIL released, so the threads of `-j` run at once.  The
 * pattern-database walk is one inline template (`pdb_walk`) whose constant parameters are the
 * number of lookups (their loops unroll), the cells a vertical slide jumps over, and the
 * zero-aware mode: a parameter of 0 is read at run time, so the generic instance serves every
 * other shape of plan.  The template and the list of instances are search_walk.h; the
 * instances are compiled in search_pdb_plain.c and search_pdb_zero.c, so that setup.py
 * compiles them at once on as many cores.
 *
 * Every buffer's format, item size, dimensions and contiguity are checked on entry by
 * buffers.c (TypeError or ValueError), and their shapes against each other here.  The
 * indices stored in the arrays (tiles, move ids, patterns) are trusted: the plans make them.
 * tests/test_search_kernels.py compares the nodes of whole iterations with a plain IDA*
 * (tests/naive_ida.py). */

#include "engine.h"
#include "search_walk.h"


/* --- arguments ------------------------------------------------------------------------------- */

static Py_ssize_t dim(const Py_buffer *b, int i) { return b->ndim > i ? b->shape[i] : 1; }

static int shape_error(const char *what, const char *rule) {
    PyErr_Format(PyExc_ValueError, "%s: %s", what, rule);
    return -1;
}

/* Item `i` of a named tuple (or any tuple) of `size` fields. */
static PyObject *field(PyObject *tuple, const char *what, Py_ssize_t size, Py_ssize_t i) {
    if (!PyTuple_Check(tuple) || PyTuple_GET_SIZE(tuple) != size) {
        PyErr_Format(PyExc_TypeError, "%s: expected a tuple of %zd fields", what, size);
        return NULL;
    }
    return PyTuple_GET_ITEM(tuple, i);
}

#define PICK_NF(nover, zero, nch)                                                             \
    switch (a->nf) {                                                                          \
    case 1: return pdb_1_##nover##_##zero##_##nch##_0;                                        \
    case 2: return pdb_2_##nover##_##zero##_##nch##_0;                                        \
    case 3: return pdb_3_##nover##_##zero##_##nch##_0;                                        \
    case 4: return pdb_4_##nover##_##zero##_##nch##_0;                                        \
    case 6: return pdb_6_##nover##_##zero##_##nch##_0;                                        \
    case 8: return pdb_8_##nover##_##zero##_##nch##_0;                                        \
    default: return pdb_0_##nover##_##zero##_##nch##_0;                                      \
    }

static PdbFn pick_pdb(const Pdb *a, int zero) {
    if (a->fcost != NULL) {
        return zero == ZERO_NONE ? pdb_0_0_0_0_1 : zero == ZERO_EAGER ? pdb_0_0_1_0_1 : pdb_0_0_2_0_1;
    }
    if (zero == ZERO_EAGER) {
        if (a->nover == 3) PICK_NF(3, 1, 0)
        PICK_NF(0, 1, 0)
    }
    if (zero == ZERO_LAZY) {
        if (a->nover == 4 && a->nchunks == 4) PICK_NF(4, 2, 4)
        PICK_NF(0, 2, 0)
    }
    switch (a->nover) {
    case 1: PICK_NF(1, 0, 0)
    case 2: PICK_NF(2, 0, 0)
    case 3: PICK_NF(3, 0, 0)
    case 4: PICK_NF(4, 0, 0)
    default: PICK_NF(0, 0, 0)
    }
}

static Py_ssize_t tuple_len(PyObject *obj, const char *what) {
    if (!PyTuple_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s: expected a tuple", what);
        return -1;
    }
    return PyTuple_GET_SIZE(obj);
}

static int64_t as_int64(PyObject *obj, const char *what, int *bad) {
    long long v = PyLong_AsLongLong(obj);
    if (v == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s: expected an integer", what);
        *bad = 1;
    }
    return (int64_t)v;
}

/* The machine's transitions: int16 or int32, (states, 4). */
static int take_trans(npz_views *v, PyObject *obj, const int16_t **t16, const int32_t **t32) {
    Py_buffer *b = npz_view(v, obj, "fsm", NPZ_I16_OR_I32, 2, -1, 0);
    if (!b) return -1;
    if (dim(b, 1) != 4) return shape_error("fsm", "expected 4 directions a state");
    *t16 = b->itemsize == 2 ? (const int16_t *)b->buf : NULL;
    *t32 = b->itemsize == 4 ? (const int32_t *)b->buf : NULL;
    return 0;
}

/* The moves (nb, succ, succ_n) of a board of n cells. */
static int take_moves(npz_views *v, PyObject *moves, Py_ssize_t *n, const int64_t **nb,
                      const int64_t **succ, const int64_t **succ_n) {
    PyObject *o;
    Py_buffer *b;
    if (!(o = field(moves, "moves", 3, 0)) || !(b = npz_view(v, o, "moves.nb", NPZ_I64, 1, -1, 0)))
        return -1;
    *nb = b->buf;
    if (dim(b, 0) % 4) return shape_error("moves.nb", "expected 4 moves a cell");
    *n = dim(b, 0) / 4;
    if (!(b = npz_view(v, PyTuple_GET_ITEM(moves, 1), "moves.succ", NPZ_I64, 2, -1, 0)))
        return -1;
    if (dim(b, 0) != 5 * *n || dim(b, 1) != 4)
        return shape_error("moves.succ", "expected (5 * cells, 4)");
    *succ = b->buf;
    if (!(b = npz_view(v, PyTuple_GET_ITEM(moves, 2), "moves.succ_n", NPZ_I64, 1, -1, 0)))
        return -1;
    if (dim(b, 0) != 5 * *n) return shape_error("moves.succ_n", "expected 5 * cells");
    *succ_n = b->buf;
    return 0;
}

/* fcost: None or an int64 (g, h) table (Problem.fcost: a row for every depth the walk reaches). */
static int take_fcost(npz_views *v, PyObject *obj, const int64_t **fcost, Py_ssize_t *fcols) {
    *fcost = NULL;
    *fcols = 0;
    if (obj == Py_None) return 0;
    Py_buffer *b = npz_view(v, obj, "fcost", NPZ_I64, 2, -1, 0);
    if (!b) return -1;
    if (dim(b, 1) < 1 || dim(b, 0) < 1) return shape_error("fcost", "expected a non-empty table");
    *fcost = b->buf;
    *fcols = dim(b, 1);
    return 0;
}

/* The stack's seven arrays; `lookups` its width per depth (1 for linear conflict). */
static int take_stack(npz_views *v, PyObject *stack, Py_ssize_t lookups, int64_t **p) {
    static const char *names[7] = {"stack.path", "stack.kid", "stack.nkid", "stack.kidx",
                                   "stack.h", "stack.saved", "stack.fsm"};
    static const int ndims[7] = {1, 3, 1, 1, 2, 2, 1};
    Py_buffer *b[7];
    for (int i = 0; i < 7; i++) {
        PyObject *o = field(stack, "stack", 7, i);
        if (!o || !(b[i] = npz_view(v, o, names[i], NPZ_I64, ndims[i], -1, 1))) return -1;
        p[i] = b[i]->buf;
    }
    Py_ssize_t z = dim(b[0], 0);
    for (int i = 1; i < 7; i++)
        if (dim(b[i], 0) != z) return shape_error(names[i], "expected a row for every depth");
    if (z < 2) return shape_error("stack.path", "expected at least 2 depths");
    if (dim(b[1], 1) != 4 || dim(b[1], 2) < FRAME_BASE + 3 * lookups)
        return shape_error("stack.kid", "expected (depths, 4, 4 + 3 * lookups)");
    if (dim(b[4], 1) < lookups) return shape_error("stack.h", "expected a column a lookup");
    if (dim(b[5], 1) < 2 * lookups || dim(b[5], 1) < 2)
        return shape_error("stack.saved", "expected two columns a lookup");
    return 0;
}

static int64_t *state_vector(npz_views *v, PyObject *obj) {
    Py_buffer *b = npz_view(v, obj, "st", NPZ_I64, 1, -1, 1);
    if (!b) return NULL;
    if (dim(b, 0) < STATE_SLOTS) {
        shape_error("st", "expected the kernels' state slots");
        return NULL;
    }
    return b->buf;
}

/* Check a walk's state against the stack: the depth, its floor and the blank within range. */
static int state_in_range(const int64_t *st, Py_ssize_t z, Py_ssize_t n) {
    if (st[S_DEPTH] < 0 || st[S_DEPTH] + 1 >= z || st[S_ROOT] < 0 || st[S_ROOT] > st[S_DEPTH] ||
        st[S_BLANK] < 0 || st[S_BLANK] >= n)
        return shape_error("st", "depth, floor or blank out of range");
    return 0;
}

static PyObject *ida_pdb(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *node, *stack, *st_o, *first_o, *deltas_o, *frames, *moves, *fsm_o, *fcost_o, *zero;
    int order;
    long long budget;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOpOL:ida_pdb", &node, &stack, &st_o, &first_o,
                          &deltas_o, &frames, &moves, &fsm_o, &fcost_o, &order, &zero, &budget))
        return NULL;
    npz_views v = {.count = 0};
    Pdb a;
    memset(&a, 0, sizeof a);
    a.order = order;
    a.budget = budget;
    Py_buffer *b;
    PyObject *o;
    int zmode = ZERO_NONE;
    int status = -1;

    /* frames: pat, wt, contrib, sgn, step, btw, tab, ids, over */
    Py_ssize_t nf, nover;
    if (!(o = field(frames, "frames", 9, 7)) || (nf = tuple_len(o, "frames.ids")) < 0) goto done;
    if ((nover = tuple_len(PyTuple_GET_ITEM(frames, 8), "frames.over")) < 0) goto done;
    if (nf < 1 || nf > MAX_LOOKUPS) {
        PyErr_Format(PyExc_ValueError, "frames: 1 to %d lookups, got %zd", MAX_LOOKUPS, nf);
        goto done;
    }
    a.nf = (int)nf;
    a.nover = nover;
    if (take_moves(&v, moves, &a.n, &a.nb, &a.succ, &a.succ_n) < 0) goto done;
    a.nm = 4 * a.n;
    {
        static const char *names[6] = {"frames.pat", "frames.wt", "frames.contrib",
                                       "frames.sgn", "frames.step", "frames.btw"};
        static const int ndims[6] = {2, 2, 3, 2, 2, 3};
        const int64_t **dst[6] = {&a.pat, &a.wt, &a.contrib, &a.sgn, &a.step, &a.btw};
        for (int i = 0; i < 6; i++) {
            if (!(b = npz_view(&v, PyTuple_GET_ITEM(frames, i), names[i], NPZ_I64, ndims[i], -1,
                               0)))
                goto done;
            Py_ssize_t width = i < 3 ? a.n : a.nm;
            if (dim(b, 0) != nf || dim(b, 1) != width || (i == 2 && dim(b, 2) != a.n) ||
                (i == 5 && dim(b, 2) != nover)) {
                shape_error(names[i], "expected (lookups, cells or moves[, cells or jumped])");
                goto done;
            }
            *dst[i] = b->buf;
        }
    }
    if (!(b = npz_view(&v, PyTuple_GET_ITEM(frames, 6), "frames.tab", NPZ_I64, 1, -1, 0)))
        goto done;
    if (dim(b, 0) != nf) {
        shape_error("frames.tab", "expected a table a lookup");
        goto done;
    }
    const int64_t *tab = b->buf;

    /* node: tiles, ranks, vals, masks */
    const char *node_names[4] = {"node.tiles", "node.ranks", "node.vals", "node.masks"};
    Py_buffer *nv[4];
    for (int i = 0; i < 4; i++) {
        if (!(o = field(node, "node", 4, i)) ||
            !(nv[i] = npz_view(&v, o, node_names[i], NPZ_I64, i ? 2 : 1, -1, 1)))
            goto done;
    }
    if (dim(nv[0], 0) != a.n) {
        shape_error("node.tiles", "expected a tile a cell");
        goto done;
    }
    for (int i = 1; i < 4; i++) {
        if (dim(nv[i], 0) < nf || dim(nv[i], 1) < 1) {
            shape_error(node_names[i], "expected a row a lookup");
            goto done;
        }
    }
    a.tiles = nv[0]->buf;
    a.ranks = nv[1]->buf;
    a.vals = nv[2]->buf;
    a.masks = nv[3]->buf;
    a.rw = dim(nv[1], 1);
    if (dim(nv[2], 1) != a.rw) {
        shape_error("node.vals", "expected the shape of node.ranks");
        goto done;
    }
    a.mw = dim(nv[3], 1);

    int64_t *sp[7];
    if (take_stack(&v, stack, nf, sp) < 0) goto done;
    a.path = sp[0], a.kid = sp[1], a.nkid = sp[2], a.kidx = sp[3], a.hs = sp[4];
    a.saved = sp[5], a.fstate = sp[6];
    a.depth_slots = v.views[v.count - 7].shape[0];
    a.kw = v.views[v.count - 6].shape[2];
    a.hw = v.views[v.count - 3].shape[1];
    a.sw = v.views[v.count - 2].shape[1];
    if (!(a.st = state_vector(&v, st_o)) || state_in_range(a.st, a.depth_slots, a.n) < 0)
        goto done;

    /* the tables: lookup f reads `first`, or the table `deltas[tab[f]]` bytes from it */
    if (!(b = npz_view(&v, first_o, "first", NPZ_U8, 1, -1, 0))) goto done;
    const uint8_t *first = b->buf;
    const int64_t *deltas = NULL;
    Py_ssize_t ndeltas = 0;
    if (deltas_o != Py_None) {
        if (!(b = npz_view(&v, deltas_o, "deltas", NPZ_I64, 1, -1, 0))) goto done;
        deltas = b->buf;
        ndeltas = dim(b, 0);
    }
    for (Py_ssize_t f = 0; f < nf; f++) {
        if (tab[f] < 0 || (deltas ? tab[f] >= ndeltas : tab[f] != 0)) {
            shape_error("frames.tab", "names a table the plan does not have");
            goto done;
        }
        a.tb[f] = deltas ? first + deltas[tab[f]] : first;
    }

    if (take_trans(&v, fsm_o, &a.trans16, &a.trans32) < 0) goto done;
    if (take_fcost(&v, fcost_o, &a.fcost, &a.fcols) < 0) goto done;

    /* zero: None or ZeroAware (xmask, bcell, main, moff, part, ones, chunks) */
    if (zero != Py_None) {
        Py_ssize_t nch;
        if (!(o = field(zero, "zero", 7, 6)) || (nch = tuple_len(o, "zero.chunks")) < 0) goto done;
        zmode = nch == 0 ? ZERO_EAGER : ZERO_LAZY;
        a.nchunks = (int)nch;
        if (!(b = npz_view(&v, PyTuple_GET_ITEM(zero, 0), "zero.xmask", NPZ_I64, 2, -1, 0)))
            goto done;
        if (dim(b, 0) < nf || dim(b, 1) != a.nm) {
            shape_error("zero.xmask", "expected (lookups, moves)");
            goto done;
        }
        a.xmask = b->buf;
        if (!(b = npz_view(&v, PyTuple_GET_ITEM(zero, 1), "zero.bcell", NPZ_I64, 2, -1, 0)))
            goto done;
        if (dim(b, 0) < nf || dim(b, 1) != a.n) {
            shape_error("zero.bcell", "expected (lookups, cells)");
            goto done;
        }
        a.bcell = b->buf;
        if (zmode == ZERO_EAGER) {
            if (!(b = npz_view(&v, PyTuple_GET_ITEM(zero, 2), "zero.main", NPZ_U16, 1, -1, 0)))
                goto done;
            if (a.n > 16 || dim(b, 0) < ((Py_ssize_t)1 << a.n)) {
                shape_error("zero.main", "expected an entry for every cell set");
                goto done;
            }
            a.main16 = b->buf;
        } else {
            if (!(b = npz_view(&v, PyTuple_GET_ITEM(zero, 2), "zero.main", NPZ_U32, 1, -1, 0)))
                goto done;
            a.main32 = b->buf;
            if (nch > 8 || nch * 8 < a.n) {
                shape_error("zero.chunks", "expected a byte for every 8 cells");
                goto done;
            }
        }
        if (!(b = npz_view(&v, PyTuple_GET_ITEM(zero, 3), "zero.moff", NPZ_I64, 2, -1, 0)))
            goto done;
        if (dim(b, 0) < nf) {
            shape_error("zero.moff", "expected a row a lookup");
            goto done;
        }
        a.moff = b->buf;
        a.moffw = dim(b, 1);
        if (!(b = npz_view(&v, PyTuple_GET_ITEM(zero, 4), "zero.part", NPZ_I32, 3, -1, 0)))
            goto done;
        if (dim(b, 0) < nch || dim(b, 2) != 256) {
            shape_error("zero.part", "expected (bytes, cells + 1, 256)");
            goto done;
        }
        a.part = b->buf;
        a.part_j = dim(b, 1) * 256;
        a.part_s = 256;
        if (!(b = npz_view(&v, PyTuple_GET_ITEM(zero, 5), "zero.ones", NPZ_I32, 1, -1, 0)))
            goto done;
        if (dim(b, 0) != 256) {
            shape_error("zero.ones", "expected 256 entries");
            goto done;
        }
        a.ones = b->buf;
    }

    PdbFn fn = pick_pdb(&a, zmode);
    Py_BEGIN_ALLOW_THREADS
    status = fn(&a);
    Py_END_ALLOW_THREADS
done:
    npz_release(&v);
    if (status < 0) return NULL;
    return PyLong_FromLong(status);
}

/* --- linear conflict ------------------------------------------------------------------------- */

/* kernels.line_conflicts: tiles to lift out of one line so the rest stand in goal order. */
INLINE int64_t line_conflicts(const int64_t *tiles, int64_t first, int64_t stride, int64_t count,
                              int64_t line, const int64_t *goal_line, const int64_t *goal_pos,
                              int64_t *scratch) {
    int64_t n = 0;
    for (int64_t i = 0; i < count; i++) {
        const int64_t u = tiles[first + i * stride];
        if (u != BLANK && goal_line[u] == line) scratch[n++] = goal_pos[u];
    }
    if (n < 2) return 0;
    int64_t best = 0;
    for (int64_t i = 0; i < n; i++) { /* the longest increasing run, by the O(n^2) recurrence */
        int64_t run = 1;
        for (int64_t j = 0; j < i; j++)
            if (scratch[j] < scratch[i] && scratch[count + j] + 1 > run) run = scratch[count + j] + 1;
        scratch[count + i] = run;
        if (run > best) best = run;
    }
    return n - best;
}

typedef struct {
    int64_t *tiles, *rowc, *colc;
    int64_t *path, *kidx, *hs, *saved, *fstate;
    Py_ssize_t hw, sw;
    int64_t *st;
    const int64_t *md, *grow, *gcol;
    int64_t rows, cols, n;
    const int64_t *nb, *succ, *succ_n;
    const int16_t *trans16;
    const int32_t *trans32;
    const int64_t *fcost;
    Py_ssize_t fcols;
    int use_lc;
    int64_t *scratch;
    int64_t budget;
} Lc;

/* The walk of ida_lc: one child generated at a time, its h updated from the tile that slid. */
INLINE int lc_walk(Lc *a, const int WEIGHTED) {
    int64_t *const tiles = a->tiles, *const rowc = a->rowc, *const colc = a->colc;
    int64_t *const path = a->path, *const kidx = a->kidx, *const hs = a->hs;
    int64_t *const saved = a->saved, *const fstate = a->fstate, *const st = a->st;
    const int64_t *const md = a->md, *const nbt = a->nb;
    const int64_t cols = a->cols, rows = a->rows, n = a->n;
    const Py_ssize_t hw = a->hw, sw = a->sw;
    const int use_lc = a->use_lc;
    const int64_t budget = a->budget;
#define COST(g, h)                                                                            \
    (WEIGHTED ? a->fcost[(g) * a->fcols + ((h) < a->fcols - 1 ? (h) : a->fcols - 1)] : (g) + (h))
#define FSM(s, dir) (a->trans16 ? (int64_t)a->trans16[(s) * 4 + (dir)] : (int64_t)a->trans32[(s) * 4 + (dir)])
    int64_t d = st[S_DEPTH];
    int64_t blank = st[S_BLANK];
    const int64_t bound = st[S_BOUND];
    int64_t nxt = st[S_NEXT];
    const int64_t root = st[S_ROOT];
    const int64_t cut = st[S_CUT];
    int64_t gen = 0, exp = 0;
    int64_t h = hs[d * hw];
    int status = ITERATION_DONE;
    if (d == cut && d > root) kidx[d] = 4; /* resuming on a frontier node: skip its subtree */
    for (;;) {
        const int64_t prev = d == 0 ? NO_MOVE : (path[d - 1] & 3);
        const int64_t row = blank * 5 + prev;
        const int64_t k = kidx[d];
        if (k >= a->succ_n[row]) {
            if (d == root) {
                status = ITERATION_DONE;
                break;
            }
            d -= 1;
            const int64_t m = path[d];
            const int64_t e = m >> 2;
            const int64_t t = tiles[e];
            tiles[blank] = t;
            tiles[e] = BLANK;
            if (use_lc) {
                if ((m & 3) < 2) { /* vertical: the tile changed rows */
                    rowc[blank / cols] = saved[d * sw];
                    rowc[e / cols] = saved[d * sw + 1];
                } else {
                    colc[blank % cols] = saved[d * sw];
                    colc[e % cols] = saved[d * sw + 1];
                }
            }
            blank = e;
            h = hs[d * hw];
            continue;
        }
        kidx[d] = k + 1;
        const int64_t m = a->succ[row * 4 + k];
        const int64_t s = FSM(fstate[d], m & 3);
        if (s < 0) continue; /* a duplicate string */
        const int64_t nb = nbt[m];
        const int64_t t = tiles[nb];
        int64_t hc = h + md[t * n + blank] - md[t * n + nb];
        gen += 1;
        if (use_lc) {
            /* Slide the tile, then re-count the two lines it left and entered. */
            tiles[blank] = t;
            tiles[nb] = BLANK;
            int64_t la, lb, oa, ob, na, nb2;
            if ((m & 3) < 2) {
                la = nb / cols, lb = blank / cols;
                oa = rowc[la], ob = rowc[lb];
                na = line_conflicts(tiles, la * cols, 1, cols, la, a->grow, a->gcol, a->scratch);
                nb2 = line_conflicts(tiles, lb * cols, 1, cols, lb, a->grow, a->gcol, a->scratch);
            } else {
                la = nb % cols, lb = blank % cols;
                oa = colc[la], ob = colc[lb];
                na = line_conflicts(tiles, la, cols, rows, la, a->gcol, a->grow, a->scratch);
                nb2 = line_conflicts(tiles, lb, cols, rows, lb, a->gcol, a->grow, a->scratch);
            }
            hc += 2 * (na + nb2 - oa - ob);
            const int64_t f = COST(d + 1, hc);
            if (f > bound) {
                tiles[nb] = t;
                tiles[blank] = BLANK;
                if (f < nxt) nxt = f;
                continue;
            }
            saved[d * sw] = oa;
            saved[d * sw + 1] = ob;
            if ((m & 3) < 2) {
                rowc[la] = na;
                rowc[lb] = nb2;
            } else {
                colc[la] = na;
                colc[lb] = nb2;
            }
        } else {
            const int64_t f = COST(d + 1, hc);
            if (f > bound) {
                if (f < nxt) nxt = f;
                continue;
            }
            tiles[blank] = t;
            tiles[nb] = BLANK;
        }
        path[d] = m;
        blank = nb;
        fstate[d + 1] = s;
        d += 1;
        h = hc;
        hs[d * hw] = h;
        kidx[d] = 0;
        if (h == 0) {
            status = FOUND;
            break;
        }
        if (d == cut) {
            status = FRONTIER;
            break;
        }
        exp += 1;
        if (gen >= budget) {
            status = BUDGET_SPENT;
            break;
        }
    }
#undef COST
#undef FSM
    st[S_DEPTH] = d;
    st[S_BLANK] = blank;
    st[S_NEXT] = nxt;
    st[S_GEN] += gen;
    st[S_EXP] += exp;
    return status;
}

static int lc_optimal(Lc *a) { return lc_walk(a, 0); }
static int lc_weighted(Lc *a) { return lc_walk(a, 1); }

static PyObject *ida_lc(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *tiles_o, *conflicts_o, *stack, *st_o, *lines, *moves, *fsm_o, *fcost_o, *scratch_o;
    int use_lc;
    long long budget;
    if (!PyArg_ParseTuple(args, "OOOOOOOOpOL:ida_lc", &tiles_o, &conflicts_o, &stack, &st_o,
                          &lines, &moves, &fsm_o, &fcost_o, &use_lc, &scratch_o, &budget))
        return NULL;
    npz_views v = {.count = 0};
    Lc a;
    memset(&a, 0, sizeof a);
    a.use_lc = use_lc;
    a.budget = budget;
    Py_buffer *b;
    PyObject *o;
    int status = -1;
    int bad = 0;
    Py_ssize_t n;

    if (take_moves(&v, moves, &n, &a.nb, &a.succ, &a.succ_n) < 0) goto done;
    a.n = n;
    /* lines: md, grow, gcol, rows, cols */
    if (!(o = field(lines, "lines", 5, 0)) ||
        !(b = npz_view(&v, o, "lines.md", NPZ_I64, 2, -1, 0)))
        goto done;
    if (dim(b, 0) != n || dim(b, 1) != n) {
        shape_error("lines.md", "expected (cells, cells)");
        goto done;
    }
    a.md = b->buf;
    if (!(b = npz_view(&v, PyTuple_GET_ITEM(lines, 1), "lines.grow", NPZ_I64, 1, -1, 0))) goto done;
    if (dim(b, 0) != n) {
        shape_error("lines.grow", "expected a row a tile");
        goto done;
    }
    a.grow = b->buf;
    if (!(b = npz_view(&v, PyTuple_GET_ITEM(lines, 2), "lines.gcol", NPZ_I64, 1, -1, 0))) goto done;
    if (dim(b, 0) != n) {
        shape_error("lines.gcol", "expected a column a tile");
        goto done;
    }
    a.gcol = b->buf;
    a.rows = as_int64(PyTuple_GET_ITEM(lines, 3), "lines.rows", &bad);
    a.cols = as_int64(PyTuple_GET_ITEM(lines, 4), "lines.cols", &bad);
    if (bad) goto done;
    if (a.rows < 1 || a.cols < 1 || a.rows * a.cols != n) {
        shape_error("lines", "rows * cols is not the board's cells");
        goto done;
    }
    const int64_t side = a.rows > a.cols ? a.rows : a.cols;

    if (!(b = npz_view(&v, tiles_o, "tiles", NPZ_I64, 1, -1, 1))) goto done;
    if (dim(b, 0) != n) {
        shape_error("tiles", "expected a tile a cell");
        goto done;
    }
    a.tiles = b->buf;
    if (!(b = npz_view(&v, conflicts_o, "conflicts", NPZ_I64, 2, -1, 1))) goto done;
    if (dim(b, 0) != 2 || dim(b, 1) < side) {
        shape_error("conflicts", "expected (2, longest side)");
        goto done;
    }
    a.rowc = b->buf;
    a.colc = (int64_t *)b->buf + dim(b, 1);
    if (!(b = npz_view(&v, scratch_o, "scratch", NPZ_I64, 1, -1, 1))) goto done;
    if (dim(b, 0) < 2 * side) {
        shape_error("scratch", "expected twice the longest side");
        goto done;
    }
    a.scratch = b->buf;

    int64_t *sp[7];
    if (take_stack(&v, stack, 1, sp) < 0) goto done;
    a.path = sp[0], a.kidx = sp[3], a.hs = sp[4], a.saved = sp[5], a.fstate = sp[6];
    Py_ssize_t z = v.views[v.count - 7].shape[0];
    a.hw = v.views[v.count - 3].shape[1];
    a.sw = v.views[v.count - 2].shape[1];
    if (!(a.st = state_vector(&v, st_o)) || state_in_range(a.st, z, n) < 0) goto done;
    if (take_trans(&v, fsm_o, &a.trans16, &a.trans32) < 0) goto done;
    if (take_fcost(&v, fcost_o, &a.fcost, &a.fcols) < 0) goto done;

    int (*fn)(Lc *) = a.fcost ? lc_weighted : lc_optimal;
    Py_BEGIN_ALLOW_THREADS
    status = fn(&a);
    Py_END_ALLOW_THREADS
done:
    npz_release(&v);
    if (status < 0) return NULL;
    return PyLong_FromLong(status);
}

/* --- the part's table ------------------------------------------------------------------- */

PyMethodDef npz_search_methods[] = {
    {"ida_pdb", ida_pdb, METH_VARARGS,
     "ida_pdb(node, stack, st, first, deltas, frames, moves, fsm, fcost, order, zero, budget)\n"
     "--\n\nOne walk of IDA* over pattern databases for about `budget` nodes (the GIL "
     "released)."},
    {"ida_lc", ida_lc, METH_VARARGS,
     "ida_lc(tiles, conflicts, stack, st, lines, moves, fsm, fcost, use_lc, scratch, budget)\n"
     "--\n\nOne walk of IDA* over Manhattan distance and linear conflict for about `budget` "
     "nodes (the GIL released)."},
    {NULL, NULL, 0, NULL},
};

/* What a call returns and the state vector's length, for solver.search.walk_state to check. */
int npz_search_constants(PyObject *m) {
    if (PyModule_AddIntConstant(m, "FOUND", FOUND) < 0 ||
        PyModule_AddIntConstant(m, "ITERATION_DONE", ITERATION_DONE) < 0 ||
        PyModule_AddIntConstant(m, "BUDGET_SPENT", BUDGET_SPENT) < 0 ||
        PyModule_AddIntConstant(m, "FRONTIER", FRONTIER) < 0 ||
        PyModule_AddIntConstant(m, "STATE_SLOTS", STATE_SLOTS) < 0)
        return -1;
    return 0;
}
