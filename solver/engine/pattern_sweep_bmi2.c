/* The pattern BFS's layer sweeps (pattern_sweep.h) compiled for x86's BMI2 and popcnt: pext
 * and pdep turn a free-cell mask into a cell mask and back in one instruction each, and the
 * sweeps do that for every placement they touch.  This file alone is compiled for those
 * instructions; npz_has_fast_bmi2 says at run time whether the CPU has them, and fast (AMD's
 * Zen 1 and Zen 2 run pext / pdep in microcode, slower than the portable loops).  Elsewhere
 * than x86 the table holds the portable sweeps again, never chosen. */
#include "pattern_bfs.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

int npz_has_fast_bmi2(void) {
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("bmi2") || !__builtin_cpu_supports("popcnt")) return 0;
    return !__builtin_cpu_is("znver1") && !__builtin_cpu_is("znver2");
}

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("popcnt,bmi,bmi2"))), apply_to = function)
#else
#pragma GCC target("popcnt,bmi,bmi2")
#endif

static inline int popcount64(uint64_t x) { return __builtin_popcountll(x); }
static inline int lowest_bit(uint64_t x) { return x ? __builtin_ctzll(x) : 64; }
static inline uint64_t pext32(uint64_t x, uint64_t mask) {
    return __builtin_ia32_pext_si((unsigned)x, (unsigned)mask);
}
static inline uint64_t pdep32(uint64_t x, uint64_t mask) {
    return __builtin_ia32_pdep_si((unsigned)x, (unsigned)mask);
}

#define SWEEPS_NAME npz_sweeps_bmi2
#define SWEEPS_LABEL "bmi2"
#include "pattern_sweep.h"

#if defined(__clang__)
#pragma clang attribute pop
#endif

#else /* not x86: the portable operations under this table's name, never chosen */

int npz_has_fast_bmi2(void) { return 0; }

static inline int popcount64(uint64_t x) { return __builtin_popcountll(x); }
static inline int lowest_bit(uint64_t x) { return x ? __builtin_ctzll(x) : 64; }
static inline uint64_t pext32(uint64_t x, uint64_t mask) {
    uint64_t out = 0;
    for (uint64_t bit = 1; mask != 0; bit <<= 1, mask &= mask - 1)
        if (x & mask & (~mask + 1)) out |= bit;
    return out;
}
static inline uint64_t pdep32(uint64_t x, uint64_t mask) {
    uint64_t out = 0;
    for (; mask != 0; x >>= 1, mask &= mask - 1)
        if (x & 1) out |= mask & (~mask + 1);
    return out;
}

#define SWEEPS_NAME npz_sweeps_bmi2
#define SWEEPS_LABEL "portable"
#include "pattern_sweep.h"

#endif
