/* The pattern BFS's layer sweeps (pattern_sweep.h) with bit operations any CPU runs: loops
 * over a mask's set bits for pext / pdep, and a shift-and-add popcount.  The engine runs
 * these where the CPU lacks fast BMI2 (pattern_sweep_bmi2.c says which). */
#include "pattern_bfs.h"

/* The set bits of x, counted in parallel within the word (no popcnt instruction needed). */
static inline int popcount64(uint64_t x) {
    x = x - ((x >> 1) & UINT64_C(0x5555555555555555));
    x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
    x = (x + (x >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
    return (int)((x * UINT64_C(0x0101010101010101)) >> 56);
}

/* The index of x's lowest set bit (64 for none). */
static inline int lowest_bit(uint64_t x) { return x ? __builtin_ctzll(x) : 64; }

/* The bits of x that mask selects, gathered into the low bits in order. */
static inline uint64_t pext32(uint64_t x, uint64_t mask) {
    uint64_t out = 0;
    for (uint64_t bit = 1; mask != 0; bit <<= 1) {
        uint64_t low = mask & (~mask + 1);
        if (x & low) out |= bit;
        mask ^= low;
    }
    return out;
}

/* The low bits of x handed out, in order, to the set bits of mask (pext's inverse). */
static inline uint64_t pdep32(uint64_t x, uint64_t mask) {
    uint64_t out = 0;
    for (; mask != 0; x >>= 1) {
        uint64_t low = mask & (~mask + 1);
        if (x & 1) out |= low;
        mask ^= low;
    }
    return out;
}

#define SWEEPS_NAME npz_sweeps_portable
#define SWEEPS_LABEL "portable"
#include "pattern_sweep.h"
