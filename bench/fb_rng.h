/*
 * The harness's one random generator: SplitMix64 (Steele, Lea, Flood, "Fast splittable
 * pseudorandom number generators", OOPSLA 2014), shared by flbench and bench/baselines.
 * Its output function is the library's fl_mix64 and its increment FL_SEED_MIX (the golden
 * ratio constant), so the sequence is the one urlgen.py and earlier results used.
 */
#ifndef FB_RNG_H
#define FB_RNG_H

#include <stdint.h>

#include "filterlab.h"

typedef struct fb_rng {
    uint64_t s;
} fb_rng;

static inline uint64_t fb_rng_next(fb_rng *r) { return fl_mix64(r->s += FL_SEED_MIX); }

/* [0, 1) from the top 53 bits. */
static inline double fb_rng_unit(fb_rng *r) { return (double)(fb_rng_next(r) >> 11) * 0x1.0p-53; }

/* [0, n): Lemire's multiply-shift; the bias (< n / 2^64) is irrelevant here. */
static inline uint64_t fb_rng_below(fb_rng *r, uint64_t n) {
    return (uint64_t)(((unsigned __int128)fb_rng_next(r) * n) >> 64);
}

#endif /* FB_RNG_H */
