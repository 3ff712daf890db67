/* The region BFS's shared declarations: the breadth-first search of a large pattern over
 * (placement, blank region) states, indexed by map, region and permutation.
 *
 * Why this layout.  The regions the free cells split into depend only on the *set* of cells
 * the pattern's k tiles stand on (the map), not on which tile stands where.  So a state is
 *
 *   entry = (offset[m] + r) * k! + p
 *
 * with m the colex rank of the map among the k-sets of the n cells (solver.core.regions'
 * order), r the region of the blank among the map's regions (numbered from their lowest cell
 * up), and p the rank of the permutation that puts tile j (in sorted tile order) on the
 * pos_j-th cell of the map (cells in increasing order; p = the k-permutation rank of
 * pos_0..pos_{k-1} over k values, as solver.core.ranking.rank).  offset[m] is the number of
 * regions of the maps before m.  One byte an entry holds the depth at which the state was
 * reached (RG_UNSEEN before): k! x (the regions of every map) bytes, nothing else per state.
 * The states of one (map, region) are one contiguous block of k! bytes, and every move from
 * a block lands in one other block, so a layer's writes stay within a few kilobytes at a time.
 *
 * A move: a pattern tile on cell c (the i-th cell of the map) next to a cell b of the
 * blank's region slides into b.  The new map is m - c + b, the blank's new region the one
 * holding c there, and the tile becomes the map's i2-th cell; the permutation's new rank
 * depends only on (i, i2, p), so it is read from a table (shift[(i * k + i2) * k! + p]).
 */
#ifndef NPUZZLE_REGION_BFS_H
#define NPUZZLE_REGION_BFS_H

#include "engine.h"

#define RG_MAX_CELLS 31 /* cell masks are 64-bit words; the pattern tables' limit */
#define RG_MAX_TILES 8  /* 8! = 40320 permutations: a permutation rank fits 16 bits */
#define RG_UNSEEN 255
#define RG_CAPSULE "npuzzle.region_plan"

/* The tables of k tiles on a rows x cols board, made once (region_plan.c) and read-only
 * afterwards, so any number of threads share them. */
typedef struct {
    int rows, cols, n, k;
    int64_t perms;    /* k! */
    int64_t maps;     /* C(n, k) */
    int64_t regions;  /* the regions of every map */
    int64_t entries;  /* regions * perms */
    int64_t prefixes; /* n!/(n-k+1)!: the placements' ranks in runs of n-k+1 (fold) */
    uint64_t *mask;   /* [maps] each map's cells */
    int64_t *offset;  /* [maps + 1] the regions of the maps before each map */
    uint8_t *label;   /* [maps * n] the region of each free cell, RG_UNSEEN on the map's */
    uint16_t *shift;  /* [k * k * perms] the new rank of p when position i moves to i2 */
    int64_t binom[RG_MAX_CELLS + 1][RG_MAX_TILES + 2]; /* C(a, b), for colex ranks */
    int nbr[RG_MAX_CELLS][4];                          /* neighbours, -1 off the board */
} rg_plan;

/* A new plan, or NULL with a Python exception set (ValueError / MemoryError). */
rg_plan *rg_plan_new(long rows, long cols, long k);
void rg_plan_free(rg_plan *plan);

/* The colex rank of the k-set `mask` (its cells c_1 < c_2 < ...: the sum of C(c_i, i)). */
static inline int64_t rg_colex(const rg_plan *pl, uint64_t mask) {
    int64_t r = 0;
    for (int i = 1; mask != 0; i++, mask &= mask - 1) r += pl->binom[__builtin_ctzll(mask)][i];
    return r;
}

/* The cells of each 8-bit set: the engine is compiled for any x86-64, where
 * __builtin_popcount is a library call, and permutation ranks count sets of < 8 positions. */
extern const uint8_t rg_ones8[256];

/* The permutation rank of positions pos[0..k-1] (distinct, each < k). */
static inline int64_t rg_perm_rank(const int *pos, int k) {
    int64_t r = 0;
    unsigned used = 0;
    for (int i = 0; i < k; i++) {
        r = r * (k - i) + (pos[i] - rg_ones8[used & ((1u << pos[i]) - 1)]);
        used |= 1u << pos[i];
    }
    return r;
}

/* pos[j] = the place of cells[j] among the cells of `mask` in increasing order. */
static inline void rg_positions(uint64_t mask, const int *cells, int k, int *pos) {
    int place[RG_MAX_CELLS];
    for (int i = 0; mask != 0; i++, mask &= mask - 1) place[__builtin_ctzll(mask)] = i;
    for (int j = 0; j < k; j++) pos[j] = place[cells[j]];
}

/* The entry of the state with tile j (sorted order) on cells[j] and the blank on `blank`;
 * -1 when that is no state (cells repeated, or the blank on a tile). */
int64_t rg_state_index(const rg_plan *pl, const int *cells, int blank);

/* What a layer over maps first..last-1 did: states set to depth d + 1. */
int64_t rg_layer_push(const rg_plan *pl, uint8_t *entries, int d, int64_t first, int64_t last);
int64_t rg_layer_pull(const rg_plan *pl, uint8_t *entries, int d, int64_t first, int64_t last);

/* The fold of the finished search into per-placement tables, over the placements whose
 * ranks run from first * (n-k+1) to last * (n-k+1) - 1, the tables' items 0 on (a slice
 * of the whole table, or a part of it written out before the next; region_sweep.c). */
typedef struct {
    uint8_t *additive;    /* the smallest depth over every region, or NULL */
    uint8_t *twin;        /* the two classes packed in a byte (solver.core.packing), or NULL */
    const uint32_t *main; /* [maps] each map's main region (solver.core.regions); with twin */
    int value_bits, higher_by, main_class, other_class;
} rg_fold_out;

typedef struct {
    int64_t unreached, clipped, bad_main;
    int largest;
    int64_t hist[256]; /* placements by their smallest depth */
} rg_fold_counts;

void rg_fold(const rg_plan *pl, const uint8_t *entries, int64_t first, int64_t last,
             const rg_fold_out *out, rg_fold_counts *counts);

#endif
