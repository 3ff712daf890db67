/* The region BFS's loops (region_bfs.h): one layer over a range of maps, pushed or pulled,
 * and the fold of the finished search into the per-placement tables.  Each runs with the
 * GIL released, on ranges that Python's threads take in turn.
 *
 * Sharing the entries between threads.  A push writes into other threads' blocks, but only
 * ever turns RG_UNSEEN into d + 1, and a layer reads only the bytes holding d: no thread can
 * change what another reads.  The entries are still read and written through relaxed
 * atomics, so that the sharing is defined C, and a push claims a byte with a compare-and-
 * swap so that each new state is counted once, by the thread that set it.  A pull writes only
 * into its own blocks. */
#include "region_bfs.h"

#include <stdlib.h>

typedef uint64_t __attribute__((may_alias)) rg_word; /* eight entries read at once */

#define ONES UINT64_C(0x0101010101010101)

static inline uint8_t load(const uint8_t *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }

static inline void store(uint8_t *p, uint8_t v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }

/* Whether the entry still unseen was set to v by this thread (not by another first). */
static inline int claim(uint8_t *p, uint8_t v) {
    uint8_t expected = RG_UNSEEN;
    return __atomic_compare_exchange_n(p, &expected, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

/* The permutations p of the block whose entry is `want`, into list; their count.  Most
 * blocks hold none of a layer's depth, so eight entries are compared at once (a word with a
 * byte equal to want has a zero byte once xored with want in every byte). */
static int collect(const uint8_t *block, int64_t perms, uint8_t want, uint16_t *list) {
    int count = 0;
    int64_t p = 0;
    if (((uintptr_t)block & 7) == 0) {
        const uint64_t pattern = ONES * want;
        for (; p + 8 <= perms; p += 8) {
            uint64_t w = __atomic_load_n((const rg_word *)(block + p), __ATOMIC_RELAXED) ^ pattern;
            if (((w - ONES) & ~w & (ONES << 7)) == 0) continue;
            for (int j = 0; j < 8; j++)
                if (load(block + p + j) == want) list[count++] = (uint16_t)(p + j);
        }
    }
    for (; p < perms; p++)
        if (load(block + p) == want) list[count++] = (uint16_t)p;
    return count;
}

/* A move out of a block: the block it lands in and how it renumbers the permutations. */
typedef struct {
    int64_t target;
    const uint16_t *shift;
} rg_move;

/* The moves of map m's region r: every tile next to a cell of the region slides into it. */
static int block_moves(const rg_plan *pl, int64_t m, int r, rg_move *out) {
    const uint64_t mask = pl->mask[m];
    const uint8_t *lab = pl->label + m * pl->n;
    int count = 0, i = 0;
    for (uint64_t t = mask; t != 0; t &= t - 1, i++) {
        int c = __builtin_ctzll(t);
        for (int dir = 0; dir < 4; dir++) {
            int b = pl->nbr[c][dir];
            if (b < 0 || lab[b] != r) continue; /* off the board, a tile, another region */
            uint64_t moved = mask ^ (UINT64_C(1) << c) ^ (UINT64_C(1) << b);
            int64_t m2 = rg_colex(pl, moved);
            int r2 = pl->label[m2 * pl->n + c];
            int i2 = __builtin_popcountll(moved & ((UINT64_C(1) << b) - 1));
            out[count].target = (pl->offset[m2] + r2) * pl->perms;
            out[count].shift = pl->shift + (int64_t)(i * pl->k + i2) * pl->perms;
            count++;
        }
    }
    return count;
}

/* Push: every state at depth d marks its unseen neighbours d + 1. */
int64_t rg_layer_push(const rg_plan *pl, uint8_t *entries, int d, int64_t first, int64_t last) {
    uint16_t *list = malloc((size_t)pl->perms * sizeof *list);
    if (list == NULL) return -1;
    rg_move moves[4 * RG_MAX_TILES];
    const uint8_t next = (uint8_t)(d + 1);
    int64_t written = 0;
    for (int64_t m = first; m < last; m++) {
        for (int r = 0; r < pl->offset[m + 1] - pl->offset[m]; r++) {
            int count = collect(entries + (pl->offset[m] + r) * pl->perms, pl->perms,
                                (uint8_t)d, list);
            if (count == 0) continue;
            int nm = block_moves(pl, m, r, moves);
            for (int x = 0; x < nm; x++) {
                uint8_t *target = entries + moves[x].target;
                const uint16_t *shift = moves[x].shift;
                for (int q = 0; q < count; q++) {
                    uint8_t *e = target + shift[list[q]];
                    if (load(e) == RG_UNSEEN && claim(e, next)) written++;
                }
            }
        }
    }
    free(list);
    return written;
}

/* Pull: every unseen state with a neighbour at depth d becomes d + 1 (moves are reversible,
 * so a state's neighbours are also the states it is reached from). */
int64_t rg_layer_pull(const rg_plan *pl, uint8_t *entries, int d, int64_t first, int64_t last) {
    uint16_t *list = malloc((size_t)pl->perms * sizeof *list);
    if (list == NULL) return -1;
    rg_move moves[4 * RG_MAX_TILES];
    const uint8_t next = (uint8_t)(d + 1);
    int64_t written = 0;
    for (int64_t m = first; m < last; m++) {
        for (int r = 0; r < pl->offset[m + 1] - pl->offset[m]; r++) {
            uint8_t *block = entries + (pl->offset[m] + r) * pl->perms;
            int count = collect(block, pl->perms, RG_UNSEEN, list);
            if (count == 0) continue;
            int nm = block_moves(pl, m, r, moves);
            for (int x = 0; x < nm && count > 0; x++) {
                const uint8_t *target = entries + moves[x].target;
                const uint16_t *shift = moves[x].shift;
                int kept = 0;
                for (int q = 0; q < count; q++) {
                    if (load(target + shift[list[q]]) == d) {
                        store(block + list[q], next);
                        written++;
                    } else {
                        list[kept++] = list[q];
                    }
                }
                count = kept;
            }
        }
    }
    free(list);
    return written;
}

/* One placement's two classes packed as solver.core.packing says (and the engine's
 * pattern_pack does): the smaller distance in the low value_bits bits, above them 1 + the
 * class that is higher_by or more above the other (0: nearer), kept lower: a lower bound. */
static uint8_t pack_pair(int a, int b, const rg_fold_out *out, rg_fold_counts *counts) {
    int gap = a > b ? a - b : b - a, low = a < b ? a : b, high = a < b ? b : a;
    int code = gap < out->higher_by ? 0 : 1 + (a > b ? out->main_class : out->other_class);
    counts->clipped += gap != 0 && gap != out->higher_by;
    if (high > counts->largest) counts->largest = high;
    return (uint8_t)(low | (code << out->value_bits));
}

/* The classes of map m's permutation p: the main region's depth and the others' smallest
 * (the main one's again where there is no other region). */
static uint8_t twin_entry(const rg_plan *pl, const uint8_t *entries, int64_t m, int64_t p,
                          uint64_t mask, const rg_fold_out *out, rg_fold_counts *counts) {
    const int64_t base = pl->offset[m], nreg = pl->offset[m + 1] - base;
    uint64_t main = out->main[m];
    if (main == 0 || (main & mask) != 0) { /* no region of this map: the masks are wrong */
        counts->bad_main++;
        return 0;
    }
    int mr = pl->label[m * pl->n + __builtin_ctzll(main)];
    int a = entries[(base + mr) * pl->perms + p], b = nreg == 1 ? a : RG_UNSEEN;
    for (int r = 0; r < nreg; r++) {
        int e = entries[(base + r) * pl->perms + p];
        if (r != mr && e < b) b = e;
    }
    return pack_pair(a, b, out, counts);
}

/* Where one placement's states lie: its map and its permutation's rank there. */
typedef struct {
    int64_t m, p;
    uint64_t mask;
} rg_spot;

/* The runs of n-k+1 placements a fold locates before it reads any: their entries are asked
 * for from memory first (the placements' states lie anywhere in the entries), so that many
 * reads are under way at once instead of one after another. */
#define RG_RUNS_AHEAD 8

/* The spots of prefix b's run (the last tile on each free cell in increasing order: the
 * run's ranks b * (n-k+1) on), their entries asked for; how many (n-k+1). */
static int locate_run(const rg_plan *pl, const uint8_t *entries, int64_t b, rg_spot *spots) {
    const int n = pl->n, k = pl->k;
    int cells[RG_MAX_TILES], pos[RG_MAX_TILES], digit[RG_MAX_TILES];
    for (int i = k - 2; i >= 0; i--) {
        digit[i] = (int)(b % (n - i));
        b /= n - i;
    }
    uint64_t prefix = 0;
    for (int i = 0; i < k - 1; i++) {
        int v = 0;
        for (int left = digit[i];; v++) {
            if ((prefix >> v) & 1) continue;
            if (left-- == 0) break;
        }
        cells[i] = v;
        prefix |= UINT64_C(1) << v;
    }
    int count = 0;
    for (int v = 0; v < n; v++) {
        if ((prefix >> v) & 1) continue;
        uint64_t mask = prefix | (UINT64_C(1) << v);
        cells[k - 1] = v;
        rg_positions(mask, cells, k, pos);
        rg_spot *s = &spots[count++];
        s->m = rg_colex(pl, mask);
        s->p = rg_perm_rank(pos, k);
        s->mask = mask;
        for (int64_t r = pl->offset[s->m]; r < pl->offset[s->m + 1]; r++)
            __builtin_prefetch(entries + r * pl->perms + s->p);
    }
    return count;
}

/* One placement's tables from its states. */
static void fold_spot(const rg_plan *pl, const uint8_t *entries, const rg_spot *s,
                      int64_t rank, const rg_fold_out *out, rg_fold_counts *counts) {
    int low = RG_UNSEEN;
    for (int64_t r = pl->offset[s->m]; r < pl->offset[s->m + 1]; r++) {
        int e = entries[r * pl->perms + s->p];
        if (e < low) low = e;
    }
    counts->hist[low]++;
    counts->unreached += low == RG_UNSEEN;
    if (out->additive != NULL) out->additive[rank] = (uint8_t)low;
    if (out->twin != NULL) out->twin[rank] = twin_entry(pl, entries, s->m, s->p, s->mask, out, counts);
}

/* The placements' tables over the prefixes first..last-1, written from the tables' item 0
 * (the rank first * (n-k+1)) on.  The placements are walked in rank order, so the tables
 * are written in sequence and only the entries are read at random: a prefix fixes the cells
 * of the first k-1 tiles (the rank's leading digits), and the last tile's n-k+1 choices are
 * its n-k+1 ranks. */
void rg_fold(const rg_plan *pl, const uint8_t *entries, int64_t first, int64_t last,
             const rg_fold_out *out, rg_fold_counts *counts) {
    const int run = pl->n - pl->k + 1;
    rg_spot spots[RG_RUNS_AHEAD * RG_MAX_CELLS];
    for (int64_t b = first; b < last; b += RG_RUNS_AHEAD) {
        int64_t end = b + RG_RUNS_AHEAD < last ? b + RG_RUNS_AHEAD : last;
        int count = 0;
        for (int64_t x = b; x < end; x++) count += locate_run(pl, entries, x, spots + count);
        for (int i = 0; i < count; i++)
            fold_spot(pl, entries, &spots[i], (b - first) * run + i, out, counts);
    }
}
