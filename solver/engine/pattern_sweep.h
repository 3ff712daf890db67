/* The pattern BFS's layer sweeps, as a template compiled once per set of bit instructions:
 * pattern_sweep_portable.c and pattern_sweep_bmi2.c each define the bit operations
 * (popcount64, lowest_bit, pext32, pdep32) and SWEEPS_NAME / SWEEPS_LABEL, then include this
 * file, which defines the table of sweeps `SWEEPS_NAME` (pattern_bfs.h).
 *
 * A search state is (placement, blank region): where the pattern's k tiles stand, and the
 * connected region of free cells the blank roams at no cost (other tiles move for free).
 * Sliding a pattern tile from cell c into a cell b of the blank's region costs 1; the blank
 * then stands on c, in the region of c.  The tables are described in pattern_bfs.h.
 *
 * Work is a range of blocks: a block is the placements that share the cells of all but the
 * last `inner` tiles ("decoded" tiles, decoded once per block, vs "inner" tiles, per
 * placement).  Per block with work, a sweep lists every move of every busy placement into one
 * of its target cells with the rank it leads to, loads the words of all those candidates in
 * one loop (independent loads the memory system overlaps), and only then decides them:
 *
 *   push: frontier states write the states they reach.  Several threads may push into one
 *         word, so the write is an atomic OR whose old value says who came first.
 *   pull: unreached states look for a frontier neighbour and write only their own word; the
 *         frontier codes they read elsewhere do not change during the layer.
 *   trace: the same decoding and ranks for every move of every placement, for the tests.
 *
 * Rank digit j of a placement is tile j's cell less the number of earlier tiles on lower
 * cells (solver.core.ranking.rank); rank = sum of digit_j * weights[j].
 */
#include "pattern_bfs.h"

#include <stdlib.h>

/* The words are 16, 32 or 64 bits wide; every access goes through these, relaxed atomics
 * (plain moves on x86) since other threads read and write the same words in a layer. */
static inline uint64_t word_load(const void *words, int bytes, int64_t p) {
    switch (bytes) {
    case 2: return __atomic_load_n((const uint16_t *)words + p, __ATOMIC_RELAXED);
    case 4: return __atomic_load_n((const uint32_t *)words + p, __ATOMIC_RELAXED);
    default: return __atomic_load_n((const uint64_t *)words + p, __ATOMIC_RELAXED);
    }
}

static inline void word_store(void *words, int bytes, int64_t p, uint64_t w) {
    switch (bytes) {
    case 2: __atomic_store_n((uint16_t *)words + p, (uint16_t)w, __ATOMIC_RELAXED); break;
    case 4: __atomic_store_n((uint32_t *)words + p, (uint32_t)w, __ATOMIC_RELAXED); break;
    default: __atomic_store_n((uint64_t *)words + p, w, __ATOMIC_RELAXED); break;
    }
}

/* words[p] |= bits as one indivisible step; returns the word before. */
static inline uint64_t word_or(void *words, int bytes, int64_t p, uint64_t bits) {
    switch (bytes) {
    case 2: return __atomic_fetch_or((uint16_t *)words + p, (uint16_t)bits, __ATOMIC_RELAXED);
    case 4: return __atomic_fetch_or((uint32_t *)words + p, (uint32_t)bits, __ATOMIC_RELAXED);
    default: return __atomic_fetch_or((uint64_t *)words + p, bits, __ATOMIC_RELAXED);
    }
}

static inline uint8_t blk_load(const uint8_t *blk, int64_t b) {
    return __atomic_load_n(blk + b, __ATOMIC_RELAXED);
}

static inline void blk_or(uint8_t *blk, int64_t b, uint8_t bits) {
    __atomic_fetch_or(blk + b, bits, __ATOMIC_RELAXED);
}

/* --- the codes of a word ------------------------------------------------------------------ */

/* The free cells (a free-cell mask) whose code in word w is `code` (1, 2 or 3). */
static inline uint64_t with_code(uint64_t w, int code, int shift) {
    uint64_t low = w & ((UINT64_C(1) << shift) - 1), high = w >> shift;
    return code == 1 ? low & ~high : code == 2 ? high & ~low : low & high;
}

/* The code of free cell i in word w. */
static inline int code_of(uint64_t w, int i, int shift) {
    return (int)(((w >> i) & 1) | (((w >> (shift + i)) & 1) << 1));
}

/* The word bits that give the free cells m the code `code`. */
static inline uint64_t code_bits(uint64_t m, int code, int shift) {
    return ((code & 1) ? m : 0) | ((code & 2) ? m << shift : 0);
}

/* How many free cells lie below cell c: its number among them. */
static inline int index_among(uint64_t free, int c) {
    return popcount64(free & ((UINT64_C(1) << c) - 1));
}

/* The cell of the i-th (from 0) set bit of mask. */
static inline int nth_cell(int64_t i, uint64_t mask) {
    return lowest_bit(pdep32(UINT64_C(1) << i, mask));
}

/* --- one candidate move, packed: cell left, cell entered, slot (4 * tile + direction) and
 * the busy placement it belongs to (cells < 64, slots < 4 * 31, placements per block < 2^11) */

#define JB_AT 20

static inline uint32_t pack_move(int c, int b, int slot) {
    return (uint32_t)c | ((uint32_t)b << 6) | ((uint32_t)slot << 12);
}
static inline int move_from(uint32_t m) { return (int)(m & 63); }
static inline int move_to(uint32_t m) { return (int)((m >> 6) & 63); }
static inline int move_slot(uint32_t m) { return (int)((m >> 12) & 255); }
static inline int move_busy(uint32_t m) { return (int)(m >> JB_AT); }

/* --- scratch: one sweep's working memory --------------------------------------------------- */

typedef struct {
    int64_t e;      /* offset in the block */
    int c1, c2;     /* the inner tiles' cells (NPZ_DEAD where there is none) */
    uint64_t free;  /* free cells (a cell mask) */
    uint64_t word;  /* its word when listed */
    uint64_t target; /* cells its moves may enter: frontier cells (push), unreached (pull) */
    uint64_t hit;   /* (pull) target cells found next to the frontier */
    uint64_t mark;  /* (pull) the regions they belong to */
} Busy;

typedef struct {
    int64_t q;     /* the placement reached */
    uint64_t word; /* its word */
    uint32_t move; /* pack_move | busy index */
} Candidate;

enum { WANT_FRONTIER, WANT_UNREACHED, WANT_ALL }; /* what scan_block lists */

typedef struct {
    const npz_geometry *g;
    int64_t digits[NPZ_MAX_CELLS]; /* the decoded tiles' rank digits, block by block */
    int cells[NPZ_MAX_CELLS];      /* their cells */
    int order[NPZ_MAX_CELLS + 1];  /* the decoded tile on each cell (k: none) */
    int64_t wat[NPZ_MAX_CELLS + 1]; /* its weight in blocks (0: none) */
    /* per move of a decoded tile (slot 4 * tile + direction), the same for the whole block:
     * cell left, cell entered (NPZ_DEAD: impossible), block change, cells passed, sign */
    int pm_from[4 * NPZ_MAX_CELLS], pm_to[4 * NPZ_MAX_CELLS], pm_sg[4 * NPZ_MAX_CELLS];
    int64_t pm_db[4 * NPZ_MAX_CELLS];
    uint64_t pm_bm[4 * NPZ_MAX_CELLS];
    Busy *busy;       /* [bs] */
    Candidate *cand;  /* [4 * k * bs + 1] */
    int32_t *fresh;   /* [4 * k * bs] (push) the candidates reaching an uncoded cell */
    int16_t *inner_at; /* [2 * bs] offset e puts the inner tiles on the inner_at[2e]-th and
                        * inner_at[2e+1]-th cells the decoded tiles leave free */
} Scratch;

static void scratch_free(Scratch *s) {
    free(s->busy);
    free(s->cand);
    free(s->fresh);
    free(s->inner_at);
}

static int scratch_init(Scratch *s, const npz_geometry *g) {
    size_t bs = (size_t)g->bs, moves = 4 * (size_t)g->k * bs;
    s->g = g;
    s->busy = malloc(bs * sizeof *s->busy);
    s->cand = malloc((moves + 1) * sizeof *s->cand);
    s->fresh = malloc((moves + 1) * sizeof *s->fresh);
    s->inner_at = malloc(2 * bs * sizeof *s->inner_at);
    if (!s->busy || !s->cand || !s->fresh || !s->inner_at) {
        scratch_free(s);
        return -1;
    }
    /* the last tile's rank digit runs over the n-k+1 cells the other tiles leave */
    const int last_choices = g->n - g->k + 1;
    for (int64_t e = 0; e < g->bs; e++) {
        int a = 0, b = 0;
        if (g->inner == 2) {
            a = (int)(e / last_choices);
            b = (int)(e % last_choices);
            b += b >= a; /* the second inner tile's digit skips the first's cell */
        } else if (g->inner == 1) {
            a = (int)e;
        }
        s->inner_at[2 * e] = (int16_t)a;
        s->inner_at[2 * e + 1] = (int16_t)b;
    }
    return 0;
}

/* --- per block ----------------------------------------------------------------------------- */

/* The decoded tiles' rank digits of block `block`: digits[j] = how many cells not taken by
 * tiles 0..j-1 lie below tile j's cell. */
static void first_digits(Scratch *s, int64_t block) {
    const npz_geometry *g = s->g;
    int64_t first = block * g->bs;
    for (int j = 0; j < g->prefix; j++) s->digits[j] = (first / g->weights[j]) % (g->n - j);
}

/* The digits of the next block: a counter whose digit j counts up to n - j. */
static void next_digits(Scratch *s) {
    const npz_geometry *g = s->g;
    for (int j = g->prefix - 1; j >= 0; j--) {
        if (++s->digits[j] < g->n - j) return;
        s->digits[j] = 0;
    }
}

/* The decoded tiles' cells, the tile on each cell and its weight; returns their cell mask. */
static uint64_t decode_prefix(Scratch *s) {
    const npz_geometry *g = s->g;
    for (int c = 0; c < g->n; c++) {
        s->order[c] = g->k;
        s->wat[c] = 0;
    }
    uint64_t used = 0;
    for (int j = 0; j < g->prefix; j++) {
        int c = nth_cell(s->digits[j], g->full & ~used);
        s->cells[j] = c;
        s->order[c] = j;
        s->wat[c] = g->bw[j];
        used |= UINT64_C(1) << c;
    }
    return used;
}

/* What each move of a decoded tile does to the rank, the same for every placement of the
 * block.  When tile i slides from c to b its digit changes by b - c less the earlier tiles
 * it passes over, and every later decoded tile it passes moves its own digit by one (a
 * block's worth of rank each); the inner tiles' share is added per placement. */
static void prefix_moves(Scratch *s, uint64_t used) {
    const npz_geometry *g = s->g;
    for (int i = 0; i < g->prefix; i++) {
        int c = s->cells[i];
        for (int t = 0; t < 4; t++) {
            int j = 4 * i + t, b = g->to[4 * c + t];
            s->pm_to[j] = NPZ_DEAD;
            if (b == NPZ_DEAD || ((used >> b) & 1)) continue;
            uint64_t bm = g->passed[4 * c + t];
            int sg = g->sign[4 * c + t];
            int64_t dd = b - c, db = 0;
            for (uint64_t rest = bm & used; rest != 0; rest &= rest - 1) {
                int x = lowest_bit(rest);
                if (s->order[x] < i)
                    dd -= sg;
                else
                    db += sg * s->wat[x];
            }
            s->pm_from[j] = c;
            s->pm_to[j] = b;
            s->pm_db[j] = dd * g->bw[i] + db;
            s->pm_bm[j] = bm;
            s->pm_sg[j] = sg;
        }
    }
}

/* List in s->busy the block's placements with work: those with frontier cells, unreached
 * cells or all of them (`want`), their targets those cells.  The block's words are read in
 * one straight pass; cells are worked out for the busy placements only.  *left says whether
 * any state of the block is unreached.  Returns how many are listed. */
static int scan_block(Scratch *s, const void *words, int64_t block, uint64_t used, int want,
                      int cur, int *left) {
    const npz_geometry *g = s->g;
    const int shift = g->shift, bytes = g->word_bytes;
    const uint64_t all_free = (UINT64_C(1) << (g->n - g->k)) - 1; /* a free-cell mask */
    const int64_t base = block * g->bs;
    Busy *busy = s->busy;
    int nbusy = 0, any_left = 0;
    for (int64_t e = 0; e < g->bs; e++) {
        uint64_t w = want == WANT_ALL ? 0 : word_load(words, bytes, base + e);
        uint64_t unreached = all_free & ~(w | (w >> shift));
        any_left |= unreached != 0;
        uint64_t m = want == WANT_FRONTIER ? with_code(w, cur, shift)
                     : want == WANT_UNREACHED ? unreached
                                              : all_free;
        busy[nbusy].e = e;
        busy[nbusy].word = w;
        busy[nbusy].target = m;
        nbusy += m != 0;
    }
    const uint64_t open = g->full & ~used;
    for (int jb = 0; jb < nbusy; jb++) {
        Busy *p = &busy[jb];
        const int16_t *at = s->inner_at + 2 * p->e;
        p->c1 = g->inner >= 1 ? nth_cell(at[0], open) : NPZ_DEAD;
        p->c2 = g->inner == 2 ? nth_cell(at[1], open) : NPZ_DEAD;
        p->free = open & ~(UINT64_C(1) << p->c1) & ~(UINT64_C(1) << p->c2);
        p->target = pdep32(p->target, p->free);
        p->hit = 0;
        p->mark = 0;
    }
    *left = any_left;
    return nbusy;
}

/* Write to s->cand every move of a busy placement whose tile enters one of the placement's
 * target cells, with the placement it leads to: moves of the decoded tiles tile_lo..tile_hi-1
 * whose slot is not NPZ_DEAD, and of the inner tiles when `inner_moves`.  Every move is
 * written and the count advances only for real ones (no branch to mispredict).  Returns the
 * count. */
static int candidates(Scratch *s, int64_t block, uint64_t used, int nbusy, int tile_lo,
                      int tile_hi, int inner_moves) {
    const npz_geometry *g = s->g;
    const int prefix = g->prefix, inner = g->inner;
    const int64_t w1 = inner >= 1 ? g->weights[prefix] : 0;
    const int64_t w2 = inner == 2 ? g->weights[prefix + 1] : 0;
    const int64_t base = block * g->bs;
    const Busy *busy = s->busy;
    Candidate *cand = s->cand;
    int nc = 0;
    for (int j = 4 * tile_lo; j < 4 * tile_hi; j++) { /* one decoded tile's move, block-wide */
        int b = s->pm_to[j];
        if (b == NPZ_DEAD) continue;
        uint64_t bm = s->pm_bm[j];
        int64_t sg = s->pm_sg[j], dq = s->pm_db[j] * g->bs;
        uint32_t move = pack_move(s->pm_from[j], b, j);
        for (int jb = 0; jb < nbusy; jb++) { /* the inner tiles it passes are later tiles */
            const Busy *p = &busy[jb];
            int64_t passed = w1 * (int64_t)((bm >> p->c1) & 1) + w2 * (int64_t)((bm >> p->c2) & 1);
            cand[nc].q = base + p->e + dq + sg * passed;
            cand[nc].move = move | ((uint32_t)jb << JB_AT);
            nc += (int)((p->target >> b) & 1);
        }
    }
    if (!inner_moves || inner == 0) return nc;
    for (int jb = 0; jb < nbusy; jb++) {
        const Busy *p = &busy[jb];
        int c1 = p->c1, c2 = p->c2;
        int64_t q0 = base + p->e;
        for (int t = 0; t < 4; t++) { /* tile k-inner: the decoded tiles are earlier, k-1 later */
            int b = g->to[4 * c1 + t];
            uint64_t bm = g->passed[4 * c1 + t];
            int64_t sg = g->sign[4 * c1 + t];
            int64_t later = inner == 2 ? (int64_t)((bm >> c2) & 1) : 0;
            cand[nc].q = q0 + (b - c1 - sg * popcount64(bm & used)) * w1 + sg * w2 * later;
            cand[nc].move = pack_move(c1, b, 4 * prefix + t) | ((uint32_t)jb << JB_AT);
            nc += (int)((p->target >> b) & 1);
        }
        if (inner < 2) continue;
        for (int t = 0; t < 4; t++) { /* tile k-1: every other tile is earlier */
            int b = g->to[4 * c2 + t];
            uint64_t bm = g->passed[4 * c2 + t];
            int64_t sg = g->sign[4 * c2 + t];
            int64_t earlier = popcount64(bm & used) + (int64_t)((bm >> c1) & 1);
            cand[nc].q = q0 + (b - c2 - sg * earlier) * w2;
            cand[nc].move = pack_move(c2, b, 4 * (prefix + 1) + t) | ((uint32_t)jb << JB_AT);
            nc += (int)((p->target >> b) & 1);
        }
    }
    return nc;
}

/* The free cells of the placement a candidate reaches: its tile now on b, the blank on c. */
static inline uint64_t free_after(const Scratch *s, uint32_t m) {
    return s->busy[move_busy(m)].free ^ (UINT64_C(1) << move_to(m)) ^
           (UINT64_C(1) << move_from(m));
}

/* The candidates' words, loaded in one loop: independent loads the memory system overlaps. */
static void load_candidates(Scratch *s, const void *words, int nc) {
    const int bytes = s->g->word_bytes;
    for (int jc = 0; jc < nc; jc++) s->cand[jc].word = word_load(words, bytes, s->cand[jc].q);
}

/* --- push --------------------------------------------------------------------------------- */

/* Expand block `block`'s frontier states (depth d): a move into a frontier region reaches
 * the state (q, region of the cell the tile left) at depth d+1 unless it was reached before.
 * The new region is flooded and claimed with an atomic OR: only the thread that finds the
 * region uncoded counts the state, only the one that finds the whole word zero counts the
 * placement and writes dist. */
static void push_block(Scratch *s, npz_tables t, int64_t block, int64_t d, npz_counts *out) {
    const npz_geometry *g = s->g;
    const int shift = g->shift, cur = (int)(d % 3) + 1, nxt = (int)((d + 1) % 3) + 1;
    const uint8_t newbit = (uint8_t)npz_depth_bit(d + 1);
    uint64_t used = decode_prefix(s);
    int left;
    int nbusy = scan_block(s, t.words, block, used, WANT_FRONTIER, cur, &left);
    if (!left) blk_or(t.blk, block, NPZ_DONE);
    if (nbusy == 0) return;
    prefix_moves(s, used);
    int nc = candidates(s, block, used, nbusy, 0, g->prefix, 1);
    load_candidates(s, t.words, nc);
    int nfresh = 0;
    for (int jc = 0; jc < nc; jc++) { /* keep those whose blank cell is still uncoded */
        uint32_t m = s->cand[jc].move;
        int i = index_among(free_after(s, m), move_from(m));
        s->fresh[nfresh] = jc;
        nfresh += code_of(s->cand[jc].word, i, shift) == 0;
    }
    for (int jf = 0; jf < nfresh; jf++) {
        const Candidate *cd = &s->cand[s->fresh[jf]];
        uint32_t m = cd->move;
        int c = move_from(m), slot = move_slot(m);
        uint64_t free_q = free_after(s, m);
        uint64_t region = npz_flood(UINT64_C(1) << c, free_q, g);
        uint64_t old = word_or(t.words, g->word_bytes, cd->q,
                               code_bits(pext32(region, free_q), nxt, shift));
        if (code_of(old, index_among(free_q, c), shift) != 0) continue; /* another came first */
        out->states++;
        if (old == 0) {
            t.dist[cd->q] = (uint8_t)(d + 1);
            out->placements++;
        }
        int64_t qb = slot < 4 * g->prefix ? block + s->pm_db[slot] : block;
        if (!(blk_load(t.blk, qb) & newbit)) blk_or(t.blk, qb, newbit);
    }
}

/* --- pull --------------------------------------------------------------------------------- */

/* Set, in each busy placement's `hit`, the target cells of the candidates that lead to a
 * frontier state. */
static void find_frontier(Scratch *s, const void *words, int nc, int cur) {
    load_candidates(s, words, nc);
    for (int jc = 0; jc < nc; jc++) {
        uint32_t m = s->cand[jc].move;
        int hit = code_of(s->cand[jc].word, index_among(free_after(s, m), move_from(m)),
                          s->g->shift) == cur;
        s->busy[move_busy(m)].hit |= (uint64_t)hit << move_to(m);
    }
}

/* Turn each busy placement's hit cells into whole regions: mark them, take them out of the
 * targets (no more moves need checking there); returns the regions marked. */
static int64_t mark_regions(Scratch *s, int nbusy) {
    int64_t found = 0;
    for (int jb = 0; jb < nbusy; jb++) {
        Busy *p = &s->busy[jb];
        uint64_t hit = p->hit;
        p->hit = 0;
        while (hit != 0) {
            uint64_t region = npz_flood(hit & (~hit + 1), p->free, s->g);
            p->mark |= region;
            p->target &= ~region;
            hit &= ~region;
            found++;
        }
    }
    return found;
}

/* Whether any move of a decoded tile leads into a block holding frontier states; the moves
 * that cannot are struck out (NPZ_DEAD) for the block. */
static int prune_prefix_moves(Scratch *s, const uint8_t *blk, int64_t block, int own_front,
                              uint8_t curbit) {
    int live = own_front;
    for (int j = 0; j < 4 * s->g->prefix; j++) {
        if (s->pm_to[j] == NPZ_DEAD) continue;
        if (blk_load(blk, block + s->pm_db[j]) & curbit)
            live = 1;
        else
            s->pm_to[j] = NPZ_DEAD;
    }
    return live;
}

/* Reach depth d+1 from block `block`'s unreached side: an unreached region gets depth d+1
 * when a pattern tile next to it can slide into it and lead to a frontier state (in an
 * undirected graph of unit costs, an unreached state next to a reached one is next to the
 * frontier).  The moves landing near in the table (the last tiles') are looked at first,
 * the far ones only for regions still unresolved.  Only this block's words are written. */
static void pull_block(Scratch *s, npz_tables t, int64_t block, int64_t d, npz_counts *out) {
    const npz_geometry *g = s->g;
    const int shift = g->shift, cur = (int)(d % 3) + 1, nxt = (int)((d + 1) % 3) + 1;
    const uint8_t curbit = (uint8_t)npz_depth_bit(d), newbit = (uint8_t)npz_depth_bit(d + 1);
    uint8_t flags = blk_load(t.blk, block);
    if (flags & NPZ_DONE) return;
    uint64_t used = decode_prefix(s);
    prefix_moves(s, used);
    int own_front = (flags & curbit) != 0;
    if (!prune_prefix_moves(s, t.blk, block, own_front, curbit)) return;
    int left;
    int nbusy = scan_block(s, t.words, block, used, WANT_UNREACHED, cur, &left);
    int nc = candidates(s, block, used, nbusy, g->near, g->prefix, own_front);
    find_frontier(s, t.words, nc, cur);
    out->states += mark_regions(s, nbusy);
    nc = candidates(s, block, used, nbusy, 0, g->near, 0);
    find_frontier(s, t.words, nc, cur);
    out->states += mark_regions(s, nbusy);
    int any_left = 0;
    uint8_t bits = 0;
    for (int jb = 0; jb < nbusy; jb++) {
        const Busy *p = &s->busy[jb];
        any_left |= p->target != 0;
        if (p->mark == 0) continue;
        int64_t q = block * g->bs + p->e;
        word_store(t.words, g->word_bytes, q, p->word | code_bits(pext32(p->mark, p->free), nxt, shift));
        if (p->word == 0) {
            t.dist[q] = (uint8_t)(d + 1);
            out->placements++;
        }
        bits |= newbit;
    }
    if (!any_left) bits |= NPZ_DONE;
    if (bits) blk_or(t.blk, block, bits);
}

/* --- the sweeps ---------------------------------------------------------------------------- */

/* One layer (push or pull from depth d) over blocks first..last-1, its counts added to *out. */
static int sweep_layer(const npz_geometry *g, npz_mode mode, int64_t d, int64_t first,
                       int64_t last, npz_tables t, npz_counts *out) {
    Scratch s;
    if (scratch_init(&s, g) < 0) return -1;
    const uint8_t curbit = (uint8_t)npz_depth_bit(d);
    first_digits(&s, first);
    for (int64_t block = first; block < last; block++) {
        if (block > first) next_digits(&s);
        if (mode == NPZ_PULL)
            pull_block(&s, t, block, d, out);
        else if (blk_load(t.blk, block) & curbit)
            push_block(&s, t, block, d, out);
    }
    scratch_free(&s);
    return 0;
}

/* For every placement p of blocks first..last-1: its cells as decoded (cells[p * k + i]) and
 * the rank reached when tile i moves in direction t (moves[p * 4k + 4i + t]; impossible
 * moves are left as they are). */
static int sweep_trace(const npz_geometry *g, int64_t first, int64_t last, int64_t *cells,
                       int64_t *moves) {
    Scratch s;
    if (scratch_init(&s, g) < 0) return -1;
    const int k = g->k, prefix = g->prefix;
    first_digits(&s, first);
    for (int64_t block = first; block < last; block++) {
        if (block > first) next_digits(&s);
        uint64_t used = decode_prefix(&s);
        prefix_moves(&s, used);
        int left;
        int nbusy = scan_block(&s, NULL, block, used, WANT_ALL, 0, &left);
        int nc = candidates(&s, block, used, nbusy, 0, prefix, 1);
        for (int jc = 0; jc < nc; jc++) {
            uint32_t m = s.cand[jc].move;
            int64_t p = block * g->bs + s.busy[move_busy(m)].e;
            moves[p * 4 * k + move_slot(m)] = s.cand[jc].q;
        }
        for (int jb = 0; jb < nbusy; jb++) {
            int64_t p = block * g->bs + s.busy[jb].e;
            for (int i = 0; i < prefix; i++) cells[p * k + i] = s.cells[i];
            if (g->inner >= 1) cells[p * k + prefix] = s.busy[jb].c1;
            if (g->inner == 2) cells[p * k + prefix + 1] = s.busy[jb].c2;
        }
    }
    scratch_free(&s);
    return 0;
}

const npz_sweeps SWEEPS_NAME = {SWEEPS_LABEL, sweep_layer, sweep_trace};
