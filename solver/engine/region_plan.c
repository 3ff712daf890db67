/* The region BFS's plan (region_bfs.h): for k tiles on a board, every map (set of k cells)
 * with its regions and their offsets, and the permutations' move table.  Made once per
 * search, under the GIL, then only read.
 *
 * The maps are walked in increasing order of their masks (Gosper's next-subset step), which
 * is their colex order: the order solver.core.regions ranks cell sets in, so the twin's
 * main-region masks (handed over by colex rank) line up with the maps. */
#include "region_bfs.h"

#include <stdlib.h>
#include <string.h>

const uint8_t rg_ones8[256] = {
#define RG_B2(n) n, n + 1, n + 1, n + 2
#define RG_B4(n) RG_B2(n), RG_B2(n + 1), RG_B2(n + 1), RG_B2(n + 2)
#define RG_B6(n) RG_B4(n), RG_B4(n + 1), RG_B4(n + 1), RG_B4(n + 2)
    RG_B6(0), RG_B6(1), RG_B6(1), RG_B6(2)};

/* The cells of the free mask `free` joined to `seed` through free neighbours. */
static uint64_t flood(uint64_t seed, uint64_t free, const rg_plan *pl) {
    uint64_t r = seed;
    for (;;) {
        uint64_t e = r;
        for (uint64_t todo = r; todo != 0; todo &= todo - 1) {
            const int *nb = pl->nbr[__builtin_ctzll(todo)];
            for (int t = 0; t < 4; t++)
                if (nb[t] >= 0) e |= UINT64_C(1) << nb[t];
        }
        e &= free;
        if (e == r) return r;
        r = e;
    }
}

static void init_geometry(rg_plan *pl) {
    for (int a = 0; a <= RG_MAX_CELLS; a++)
        for (int b = 0; b <= RG_MAX_TILES + 1; b++)
            pl->binom[a][b] = b == 0 ? 1 : a == 0 ? 0 : pl->binom[a - 1][b - 1] + pl->binom[a - 1][b];
    for (int c = 0; c < pl->n; c++) {
        int r = c / pl->cols, q = c % pl->cols;
        pl->nbr[c][0] = r > 0 ? c - pl->cols : -1;
        pl->nbr[c][1] = r < pl->rows - 1 ? c + pl->cols : -1;
        pl->nbr[c][2] = q > 0 ? c - 1 : -1;
        pl->nbr[c][3] = q < pl->cols - 1 ? c + 1 : -1;
    }
}

/* Every map's mask, the labels of its free cells (regions numbered from their lowest cell
 * up) and the running count of regions before it. */
static void init_maps(rg_plan *pl) {
    const uint64_t full = (UINT64_C(1) << pl->n) - 1;
    int64_t m = 0, regions = 0;
    for (uint64_t s = (UINT64_C(1) << pl->k) - 1; s <= full; m++) {
        pl->mask[m] = s;
        pl->offset[m] = regions;
        uint8_t *lab = pl->label + m * pl->n;
        memset(lab, RG_UNSEEN, (size_t)pl->n);
        uint64_t open = full & ~s, todo = open;
        for (int r = 0; todo != 0; r++, regions++) {
            uint64_t region = flood(todo & (~todo + 1), open, pl);
            for (uint64_t c = region; c != 0; c &= c - 1) lab[__builtin_ctzll(c)] = (uint8_t)r;
            todo &= ~region;
        }
        uint64_t low = s & (~s + 1), next = s + low;
        s = next | (((s ^ next) >> 2) / low);
    }
    pl->offset[m] = regions;
    pl->regions = regions;
}

/* pos[0..k-1] of permutation rank p (the inverse of rg_perm_rank). */
static void perm_unrank(int64_t p, int k, int *pos) {
    int digit[RG_MAX_TILES];
    for (int i = k - 1; i >= 0; i--) {
        digit[i] = (int)(p % (k - i));
        p /= k - i;
    }
    unsigned used = 0;
    for (int i = 0; i < k; i++) {
        int v = 0;
        for (int d = digit[i];; v++) {
            if (used & (1u << v)) continue;
            if (d-- == 0) break;
        }
        pos[i] = v;
        used |= 1u << v;
    }
}

/* The move table: the tile on the map's i-th cell leaves it for a cell that is the new
 * map's i2-th; the others keep their order, so their positions close the gap at i and open
 * one at i2. */
static void init_shift(rg_plan *pl) {
    const int k = pl->k;
    int pos[RG_MAX_TILES], moved[RG_MAX_TILES];
    for (int64_t p = 0; p < pl->perms; p++) {
        perm_unrank(p, k, pos);
        for (int i = 0; i < k; i++) {
            for (int i2 = 0; i2 < k; i2++) {
                for (int j = 0; j < k; j++) {
                    int v = pos[j];
                    if (v == i) {
                        moved[j] = i2;
                    } else {
                        v -= v > i;
                        moved[j] = v + (v >= i2);
                    }
                }
                pl->shift[(int64_t)(i * k + i2) * pl->perms + p] = (uint16_t)rg_perm_rank(moved, k);
            }
        }
    }
}

void rg_plan_free(rg_plan *pl) {
    if (pl == NULL) return;
    free(pl->mask);
    free(pl->offset);
    free(pl->label);
    free(pl->shift);
    free(pl);
}

rg_plan *rg_plan_new(long rows, long cols, long k) {
    if (rows < 1 || cols < 1 || rows * cols > RG_MAX_CELLS) {
        PyErr_Format(PyExc_ValueError, "region BFS: boards of up to %d cells, not %ldx%ld",
                     RG_MAX_CELLS, rows, cols);
        return NULL;
    }
    if (k < 1 || k >= rows * cols || k > RG_MAX_TILES) {
        PyErr_Format(PyExc_ValueError, "region BFS: a pattern of 1..%ld tiles on %ldx%ld, got "
                     "%ld", rows * cols - 1 < RG_MAX_TILES ? rows * cols - 1 : RG_MAX_TILES,
                     rows, cols, k);
        return NULL;
    }
    rg_plan *pl = calloc(1, sizeof *pl);
    if (pl == NULL) return (rg_plan *)PyErr_NoMemory();
    pl->rows = (int)rows;
    pl->cols = (int)cols;
    pl->n = (int)(rows * cols);
    pl->k = (int)k;
    init_geometry(pl);
    pl->maps = pl->binom[pl->n][pl->k];
    pl->perms = 1;
    for (int i = 2; i <= pl->k; i++) pl->perms *= i;
    pl->prefixes = 1;
    for (int i = 0; i < pl->k - 1; i++) pl->prefixes *= pl->n - i;
    pl->mask = malloc((size_t)pl->maps * sizeof *pl->mask);
    pl->offset = malloc((size_t)(pl->maps + 1) * sizeof *pl->offset);
    pl->label = malloc((size_t)pl->maps * (size_t)pl->n);
    pl->shift = malloc((size_t)(pl->k * pl->k) * (size_t)pl->perms * sizeof *pl->shift);
    if (!pl->mask || !pl->offset || !pl->label || !pl->shift) {
        rg_plan_free(pl);
        return (rg_plan *)PyErr_NoMemory();
    }
    Py_BEGIN_ALLOW_THREADS
    init_maps(pl);
    init_shift(pl);
    Py_END_ALLOW_THREADS
    pl->entries = pl->regions * pl->perms;
    return pl;
}

int64_t rg_state_index(const rg_plan *pl, const int *cells, int blank) {
    uint64_t mask = 0;
    for (int j = 0; j < pl->k; j++) {
        if (cells[j] < 0 || cells[j] >= pl->n || (mask >> cells[j]) & 1) return -1;
        mask |= UINT64_C(1) << cells[j];
    }
    if (blank < 0 || blank >= pl->n || (mask >> blank) & 1) return -1;
    int64_t m = rg_colex(pl, mask);
    int pos[RG_MAX_TILES];
    rg_positions(mask, cells, pl->k, pos);
    return (pl->offset[m] + pl->label[m * pl->n + blank]) * pl->perms + rg_perm_rank(pos, pl->k);
}
