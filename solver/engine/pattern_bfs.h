/* The pattern BFS's shared declarations: the geometry of k tiles on a board, the layer
 * sweeps (pattern_sweep.h, compiled twice by pattern_sweep.c: with the CPU's BMI2 bit
 * instructions and without) and the zero-aware twin's functions (pattern_twin.c).
 *
 * The tables the sweeps share, per placement p of the pattern's k tiles (p is the
 * k-permutation rank of their cells, solver.core.ranking.rank):
 *
 *   words[p]  a 2-bit code per *free cell* of p (the n-k cells no pattern tile stands on,
 *             numbered in cell order): low code bits from bit 0, high code bits from bit
 *             `shift` (half the word).  0 = the cell's blank region is not reached yet,
 *             depth % 3 + 1 = reached at that depth.  A layer at depth d only meets depths
 *             d-1, d and d+1, so three codes tell "older", "frontier" and "new" apart and
 *             nothing is cleared between layers.  16, 32 or 64 bits by the free cells.
 *   dist[p]   the depth at which p was first reached, 255 until then: the table built.
 *   blk[b]    per block b (the placements sharing all but the last `inner` tiles): bit 0
 *             DONE = every state of the block is reached; bit 1 / bit 2 = the block holds
 *             states of an even / odd depth (the frontier of this layer or of the next).
 */
#ifndef NPUZZLE_PATTERN_BFS_H
#define NPUZZLE_PATTERN_BFS_H

#include "engine.h"

#define NPZ_MAX_CELLS 31 /* cell masks fit 32 bits; a word holds two bits per free cell */
#define NPZ_DEAD 63      /* the target of a move off the board: no cell mask has bit 63 */
#define NPZ_DONE 1       /* blk bit 0: every state of the block is reached */
#define NPZ_NEAR_WEIGHT (1 << 14) /* a pull looks first at moves landing this near in the table */
#define NPZ_UNREACHED 255

/* A depth's bit in blk: bits 1 and 2 alternate with the depth's parity. */
static inline int npz_depth_bit(int64_t depth) { return 2 << (depth & 1); }

/* The constants of k tiles on a rows x cols board, worked out once per call. */
typedef struct {
    int n, k, cols;
    int inner;  /* tiles decoded per placement, not per block: min(2, k-1) */
    int prefix; /* tiles decoded once per block: k - inner */
    int near;   /* the first decoded tile whose moves stay within NPZ_NEAR_WEIGHT ranks */
    int shift;  /* where a word's high code bits start */
    int word_bytes;
    int64_t bs;         /* placements per block */
    int64_t placements; /* n!/(n-k)! */
    int64_t blocks;
    uint64_t full, keep_l, keep_r; /* every cell; cells with a neighbour left / right */
    int64_t weights[NPZ_MAX_CELLS]; /* rank = sum of digit_j * weights[j] */
    int64_t bw[NPZ_MAX_CELLS];      /* the decoded tiles' weights in blocks */
    /* per move 4 * cell + direction (U, D, L, R): the cell reached (or NPZ_DEAD), the cells
     * passed over on the way (a vertical slide jumps cols - 1 of them), +1 / -1 as the move
     * goes up or down the cell order */
    int to[4 * NPZ_MAX_CELLS];
    uint64_t passed[4 * NPZ_MAX_CELLS];
    int sign[4 * NPZ_MAX_CELLS];
} npz_geometry;

/* The item type of the words of `g`: 16, 32 or 64 bits by its free cells. */
static inline npz_kind npz_word_kind(const npz_geometry *g) {
    return g->word_bytes == 2 ? NPZ_U16 : g->word_bytes == 4 ? NPZ_U32 : NPZ_U64;
}

/* Fill `g` for k tiles on rows x cols; 0, or -1 with a ValueError set. */
int npz_geometry_init(npz_geometry *g, long rows, long cols, long k);

/* The connected part of the cell mask `free` that holds the cells `seed`. */
static inline uint64_t npz_flood(uint64_t seed, uint64_t free, const npz_geometry *g) {
    uint64_t r = seed;
    for (;;) {
        uint64_t e = (r | ((r & g->keep_l) >> 1) | ((r & g->keep_r) << 1) | (r >> g->cols) |
                      (r << g->cols)) &
                     free;
        if (e == r) return r;
        r = e;
    }
}

/* What one sweep over a range of blocks found. */
typedef struct {
    int64_t states, placements;
} npz_counts;

/* The tables of one layer's sweep, borrowed from the caller's buffers. */
typedef struct {
    void *words;
    uint8_t *dist, *blk;
} npz_tables;

typedef enum { NPZ_PUSH, NPZ_PULL } npz_mode;

/* One family of sweeps, compiled for one set of bit instructions (pattern_sweep.h).  Each
 * returns 0, or -1 when its scratch memory could not be allocated. */
typedef struct {
    const char *name;
    int (*layer)(const npz_geometry *g, npz_mode mode, int64_t d, int64_t first, int64_t last,
                 npz_tables t, npz_counts *out);
    int (*trace)(const npz_geometry *g, int64_t first, int64_t last, int64_t *cells,
                 int64_t *moves);
} npz_sweeps;

extern const npz_sweeps npz_sweeps_portable; /* shift-and-mask loops: any CPU */
extern const npz_sweeps npz_sweeps_bmi2;     /* pext / pdep / popcnt, where the CPU has them */
int npz_has_fast_bmi2(void);                 /* whether npz_sweeps_bmi2 may run, and pays */

/* The pattern part's entry points in other files (pattern_twin.c). */
PyObject *npz_twin_classify(PyObject *self, PyObject *args);
PyObject *npz_twin_pack(PyObject *self, PyObject *args);

#endif
