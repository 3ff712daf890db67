/* The walk of ida_pdb as an inline template (`pdb_walk`), its constants and its helpers,
 * shared by search_kernels.c and the files of its instances (search_pdb_plain.c,
 * search_pdb_zero.c).  The instances are most of the compile, so they are
 * split between two files that setup.py compiles at once.  The lists at the end name every
 * instance once: each of the two files defines its list, and the module picks among them. */

#ifndef NPUZZLE_SEARCH_WALK_H
#define NPUZZLE_SEARCH_WALK_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#if defined(__GNUC__)
#define INLINE static inline __attribute__((always_inline))
#define PREFETCH(p) __builtin_prefetch((p), 0, 3)
#define LIKELY(x) __builtin_expect(!!(x), 1)
#else
#define INLINE static inline
#define PREFETCH(p) ((void)(p))
#define LIKELY(x) (x)
#endif

/* solver/search/walk_state.py's constants (tests/test_search_kernels.py compares them). */
enum { FOUND = 1, ITERATION_DONE = 2, BUDGET_SPENT = 3, FRONTIER = 4 };
enum { S_DEPTH, S_BLANK, S_BOUND, S_NEXT, S_GEN, S_EXP, S_ROOT, S_CUT, S_PARITY, S_ITER,
       S_LEAST_H, STATE_SLOTS };
enum { C_MOVE, C_SEL, C_FSM, C_BEST, FRAME_BASE };
#define NO_MOVE 4
#define INFINITE_F ((int64_t)1 << 40)
#define BLANK 0
#define VALUE_BITS 6
#define VALUE_MASK ((1 << VALUE_BITS) - 1)
#define HIGHER_BY 2
#define MAX_LOOKUPS 8 /* catalog.MAX_COMBINED databases, each with its reflection */

enum { ZERO_NONE = 0, ZERO_EAGER = 1, ZERO_LAZY = 2 };

/* --- pattern databases ----------------------------------------------------------------------- */

typedef struct {
    /* the node */
    int64_t *tiles, *ranks, *vals, *masks;
    Py_ssize_t rw, mw; /* row widths of ranks/vals and masks */
    /* the stack */
    int64_t *path, *kid, *nkid, *kidx, *hs, *saved, *fstate;
    Py_ssize_t depth_slots, kw, hw, sw; /* path's length; row widths of kid[d, k], h, saved */
    int64_t *st;
    /* tables: lookup f reads tb[f][r] (first, or `deltas[tab[f]]` bytes from it) */
    const uint8_t *tb[MAX_LOOKUPS];
    /* frames */
    const int64_t *pat, *wt, *contrib, *sgn, *step, *btw;
    Py_ssize_t n, nm, nover; /* cells, move ids, cells jumped */
    int nf;
    /* moves and the pruning machine */
    const int64_t *nb, *succ, *succ_n;
    const int16_t *trans16;
    const int32_t *trans32;
    /* the cost rule: fcost[g, min(h, fcols - 1)] (NULL: g + h) */
    const int64_t *fcost;
    Py_ssize_t fcols;
    int order;
    /* zero-aware tables */
    const int64_t *xmask, *bcell, *moff;
    const uint16_t *main16;
    const uint32_t *main32;
    const int32_t *part, *ones;
    Py_ssize_t part_j, part_s, moffw; /* strides of part[j, s, byte]; moff's row width */
    int nchunks;
    int64_t budget;
} Pdb;

INLINE int64_t fsm_next(const Pdb *a, int64_t state, int64_t dir) {
    return a->trans16 ? (int64_t)a->trans16[state * 4 + dir] : (int64_t)a->trans32[state * 4 + dir];
}

INLINE int64_t class_value(int64_t entry, int64_t cls) {
    return (entry & VALUE_MASK) + HIGHER_BY * ((entry >> VALUE_BITS) == 1 + cls);
}

/* kernels._blank_class: 0 with the blank (on board cell `blank`) in the main region of the
 * free cells of lookup f's pattern p after move m, 1 elsewhere. */
INLINE int64_t blank_class(const Pdb *a, const int ZERO, const int NCH, int64_t f, int64_t p,
                           int64_t m, int64_t blank) {
    uint64_t cells = (uint64_t)(a->masks[f * a->mw + p] ^ a->xmask[f * a->nm + m]);
    uint64_t main;
    if (ZERO == ZERO_EAGER) {
        main = a->main16[cells];
    } else {
        const int nch = NCH ? NCH : a->nchunks;
        int64_t c = 0, seen = 0;
        for (int j = 0; j < nch; j++) { /* the colex rank of the cell set, a byte at a time */
            uint64_t byte = (cells >> (8 * j)) & 255;
            c += a->part[j * a->part_j + seen * a->part_s + byte];
            seen += a->ones[byte];
        }
        main = a->main32[a->moff[f * a->moffw + p] + c];
    }
    return 1 - (int64_t)((main >> a->bcell[f * a->n + blank]) & 1);
}

/* kernels._rank_after: the rank of tile t's pattern in lookup f after move m slides t. */
INLINE int64_t rank_after(const Pdb *a, const int NOVER, int64_t f, int64_t t, int64_t m,
                          int64_t rank) {
    const Py_ssize_t nover = NOVER ? NOVER : a->nover;
    const int64_t *contrib = a->contrib + (f * a->n + t) * a->n;
    const int64_t *btw = a->btw + (f * a->nm + m) * nover;
    int64_t delta = a->wt[f * a->n + t] * a->step[f * a->nm + m];
    for (Py_ssize_t j = 0; j < nover; j++) delta += contrib[a->tiles[btw[j]]];
    return rank + a->sgn[f * a->nm + m] * delta;
}

/* The walk of ida_pdb.  NF lookups and NOVER jumped cells (0: read at
 * run time), ZERO the zero-aware mode, NCH the lazy mode's bytes of cells (0: at run time),
 * WEIGHTED whether f is fcost[g, h]. */
INLINE int pdb_walk(Pdb *a, const int NF, const int NOVER, const int ZERO, const int NCH,
                    const int WEIGHTED) {
    const int nf = NF ? NF : a->nf;
    int64_t *const tiles = a->tiles, *const ranks = a->ranks, *const vals = a->vals;
    int64_t *const masks = a->masks;
    int64_t *const path = a->path, *const kid = a->kid, *const nkid = a->nkid;
    int64_t *const kidx = a->kidx, *const hs = a->hs, *const saved = a->saved;
    int64_t *const fstate = a->fstate, *const st = a->st;
    const int64_t *const pat = a->pat, *const nbt = a->nb;
    const Py_ssize_t n = a->n, nm = a->nm, rw = a->rw, mw = a->mw, kw = a->kw, hw = a->hw;
    const Py_ssize_t sw = a->sw;
    const int64_t budget = a->budget;
#define KID(d, k, c) kid[((d) * 4 + (k)) * kw + (c)]
#define COST(g, h)                                                                            \
    (WEIGHTED ? a->fcost[(g) * a->fcols + ((h) < a->fcols - 1 ? (h) : a->fcols - 1)] : (g) + (h))
    int64_t d = st[S_DEPTH];
    int64_t blank = st[S_BLANK];
    int64_t bound = st[S_BOUND];
    int64_t nxt = st[S_NEXT];
    const int64_t root = st[S_ROOT];
    const int64_t cut = st[S_CUT];
    const int64_t parity = st[S_PARITY];
    int64_t least = st[S_LEAST_H];
    int64_t gen = 0, exp = 0;
    int status = ITERATION_DONE;
    if (d == cut && d > root) nkid[d] = 0; /* resuming on a frontier node: skip its subtree */
    int expand = nkid[d] < 0;
    for (;;) {
        if (expand) {
            /* Every child's table index for every lookup, hinted to the cache; then the
             * lookups in turn, each only for the children the ones before did not prune. */
            expand = 0;
            const int64_t prev = d == 0 ? NO_MOVE : (path[d - 1] & 3);
            const int64_t row = blank * 5 + prev;
            const int64_t here = fstate[d];
            int64_t cnt = 0;
            const int64_t succ_n = a->succ_n[row];
            for (int64_t j = 0; j < succ_n; j++) {
                const int64_t m = a->succ[row * 4 + j];
                const int64_t s = fsm_next(a, here, m & 3);
                if (s < 0) continue; /* the move completes a duplicate string */
                const int64_t t = tiles[nbt[m]];
                KID(d, cnt, C_MOVE) = m;
                KID(d, cnt, C_FSM) = s;
                KID(d, cnt, C_BEST) = 0;
                KID(d, cnt, C_SEL) = cnt;
                for (int f = 0; f < nf; f++) {
                    const int64_t p = pat[f * n + t];
                    const int64_t r = rank_after(a, NOVER, f, t, m, ranks[f * rw + p]);
                    PREFETCH(a->tb[f] + r);
                    int64_t kept = r;
                    if (ZERO == ZERO_EAGER) kept = 2 * r + blank_class(a, ZERO, NCH, f, p, m, nbt[m]);
                    KID(d, cnt, FRAME_BASE + 3 * f) = kept;
                }
                cnt++;
            }
            const int64_t generated = cnt;
            const int64_t g1 = d + 1;
            for (int f = 0; f < nf; f++) {
                if (cnt == 0) break;
                const Py_ssize_t base = FRAME_BASE + 3 * f;
                const uint8_t *const tb = a->tb[f];
                const int64_t hd = hs[d * hw + f];
                int64_t keep = 0;
                for (int64_t i = 0; i < cnt; i++) {
                    const int64_t k = KID(d, i, C_SEL);
                    const int64_t m = KID(d, k, C_MOVE);
                    const int64_t nb = nbt[m];
                    const int64_t p = pat[f * n + tiles[nb]];
                    const int64_t kept = KID(d, k, base);
                    int64_t v;
                    if (ZERO == ZERO_NONE) {
                        v = tb[kept];
                    } else if (ZERO == ZERO_EAGER) {
                        v = class_value(tb[kept >> 1], kept & 1);
                    } else {
                        v = tb[kept];
                        if (v > VALUE_MASK) /* the placement's two classes differ */
                            v = class_value(v, blank_class(a, ZERO, NCH, f, p, m, nb));
                    }
                    const int64_t hc = hd - vals[f * rw + p] + v;
                    KID(d, k, base + 1) = v;
                    KID(d, k, base + 2) = hc;
                    if (hc > KID(d, k, C_BEST)) KID(d, k, C_BEST) = hc;
                    KID(d, keep, C_SEL) = k;
                    const int64_t fc = COST(g1, hc);
                    const int64_t over = fc > bound;
                    keep += 1 - over;
                    if (over && fc < nxt) nxt = fc;
                }
                cnt = keep;
            }
            if (a->order && cnt > 1) {
                /* Enter the most promising child first (smallest h). */
                for (int64_t i = 1; i < cnt; i++) {
                    const int64_t k = KID(d, i, C_SEL);
                    const int64_t key = KID(d, k, C_BEST);
                    int64_t j = i;
                    while (j > 0) {
                        const int64_t k2 = KID(d, j - 1, C_SEL);
                        if (KID(d, k2, C_BEST) <= key) break;
                        KID(d, j, C_SEL) = k2;
                        j--;
                    }
                    KID(d, j, C_SEL) = k;
                }
            }
            nkid[d] = cnt;
            kidx[d] = 0;
            gen += generated;
            exp += 1;
            if (gen >= budget) {
                status = BUDGET_SPENT;
                break;
            }
        }
        const int64_t i = kidx[d];
        if (i >= nkid[d]) {
            /* Every child entered: undo the move that led here. */
            if (d == root) {
                const int64_t again = nxt + ((nxt ^ parity) & 1);
                if (parity < 0 || gen >= budget || again + 2 > (int64_t)a->depth_slots) {
                    status = ITERATION_DONE;
                    break;
                }
                bound = again; /* the next iteration, as the walk would be entered for it */
                nxt = INFINITE_F;
                st[S_ITER] += 1;
                expand = 1;
                continue;
            }
            d -= 1;
            const int64_t e = path[d] >> 2;
            const int64_t t = tiles[e];
            tiles[blank] = t;
            tiles[e] = BLANK;
            blank = e;
            for (int f = 0; f < nf; f++) {
                const int64_t p = pat[f * n + t];
                ranks[f * rw + p] = saved[d * sw + 2 * f];
                vals[f * rw + p] = saved[d * sw + 2 * f + 1];
                if (ZERO != ZERO_NONE) masks[f * mw + p] ^= a->xmask[f * nm + path[d]];
            }
            continue;
        }
        /* Enter the next child. */
        kidx[d] = i + 1;
        const int64_t k = KID(d, i, C_SEL);
        const int64_t m = KID(d, k, C_MOVE);
        const int64_t nb = nbt[m];
        const int64_t t = tiles[nb];
        for (int f = 0; f < nf; f++) {
            const int64_t p = pat[f * n + t];
            const Py_ssize_t base = FRAME_BASE + 3 * f;
            saved[d * sw + 2 * f] = ranks[f * rw + p];
            saved[d * sw + 2 * f + 1] = vals[f * rw + p];
            const int64_t kept = KID(d, k, base);
            ranks[f * rw + p] = ZERO == ZERO_EAGER ? kept >> 1 : kept;
            vals[f * rw + p] = KID(d, k, base + 1);
            if (ZERO != ZERO_NONE) masks[f * mw + p] ^= a->xmask[f * nm + m];
            hs[(d + 1) * hw + f] = KID(d, k, base + 2);
        }
        tiles[blank] = t;
        tiles[nb] = BLANK;
        path[d] = m;
        blank = nb;
        fstate[d + 1] = KID(d, k, C_FSM);
        const int64_t h = KID(d, k, C_BEST);
        if (h < least) least = h;
        d += 1;
        if (hs[d * hw] == 0) { /* every pattern home: the goal */
            status = FOUND;
            break;
        }
        if (d == cut) {
            status = FRONTIER;
            break;
        }
        expand = 1;
    }
#undef KID
#undef COST
    st[S_DEPTH] = d;
    st[S_BLANK] = blank;
    st[S_BOUND] = bound;
    st[S_NEXT] = nxt;
    st[S_LEAST_H] = least;
    st[S_GEN] += gen;
    st[S_EXP] += exp;
    return status;
}

/* The instances: NF lookups x NOVER jumped cells x zero-aware mode (NCH bytes of cells) x
 * WEIGHTED, each named pdb_NF_NOVER_ZERO_NCH_WEIGHTED.  X is applied to each. */
#define PDB_NFS(X, nover, zero, nch)                                                          \
    X(1, nover, zero, nch, 0)                                                                 \
    X(2, nover, zero, nch, 0)                                                                 \
    X(3, nover, zero, nch, 0)                                                                 \
    X(4, nover, zero, nch, 0)                                                                 \
    X(6, nover, zero, nch, 0)                                                                 \
    X(8, nover, zero, nch, 0)                                                                 \
    X(0, nover, zero, nch, 0)

/* Plain tables on boards of 2, 3, 4 and 5 columns (and any other, generic). */
#define PDB_PLAIN(X)                                                                          \
    PDB_NFS(X, 1, 0, 0)                                                                       \
    PDB_NFS(X, 2, 0, 0)                                                                       \
    PDB_NFS(X, 3, 0, 0)                                                                       \
    PDB_NFS(X, 4, 0, 0)                                                                       \
    PDB_NFS(X, 0, 0, 0)

/* Zero-aware twins: eager on 4x4, lazy on 5x5 (four bytes of cells), generic elsewhere; and
 * the bounded-suboptimal searches, one generic instance per zero-aware mode. */
#define PDB_ZERO(X)                                                                           \
    PDB_NFS(X, 3, 1, 0)                                                                       \
    PDB_NFS(X, 0, 1, 0)                                                                       \
    PDB_NFS(X, 4, 2, 4)                                                                       \
    PDB_NFS(X, 0, 2, 0)                                                                       \
    X(0, 0, 0, 0, 1)                                                                          \
    X(0, 0, 1, 0, 1)                                                                          \
    X(0, 0, 2, 0, 1)

#if defined(__GNUC__)
#define HIDDEN __attribute__((visibility("hidden"))) /* not exported from the module */
#else
#define HIDDEN
#endif
#define PDB_NAME(nf, nover, zero, nch, w) pdb_##nf##_##nover##_##zero##_##nch##_##w
#define PDB_DECLARE(nf, nover, zero, nch, w) HIDDEN int PDB_NAME(nf, nover, zero, nch, w)(Pdb *a);
#define PDB_DEFINE(nf, nover, zero, nch, w)                                                   \
    int PDB_NAME(nf, nover, zero, nch, w)(Pdb *a) { return pdb_walk(a, nf, nover, zero, nch, w); }

PDB_PLAIN(PDB_DECLARE)
PDB_ZERO(PDB_DECLARE)

typedef int (*PdbFn)(Pdb *);

#endif
