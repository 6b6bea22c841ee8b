/*
 * The vqf metadata shifts (kernels/vqf_md.h): the BMI2 forms (one pdep or pext a word) and
 * the portable masks' form against a reference on the 128-bit string, for every p from 0 to
 * 128, on random, sparse, dense, filter-like and extreme words. checkkernels compares whole
 * blocks after inserts and deletes; this compares the shifts themselves on inputs no
 * sequence of inserts makes, so a form that differs anywhere fails here first.
 *
 * Built at baseline flags; the forms come from tests/vqf_md_checks.c (-mbmi2), called only
 * when this CPU has BMI2 (exit 77, meson's skip, otherwise).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "filterlab.h"

#define SKIP 77

void vqf_md_both_forms(uint64_t lo, uint64_t hi, uint32_t p, uint64_t out[8]);

typedef unsigned __int128 u128;

/* SplitMix64's sequence (fl_mix64 is its finalizer). */
static uint64_t splitmix(uint64_t *s) {
    return fl_mix64(*s += 0x9e3779b97f4a7c15ull);
}

/* The reference: the metadata as one 128-bit integer. p = 128 acts on bit 64 (both forms take
 * p's position in hi mod 64: kernels/vqf_md.h, reached only on a block no filter holds). */
static u128 ref_shift(u128 x, uint32_t p, int insert) {
    uint32_t q = p == 128 ? 64 : p;
    u128 below = ((u128)1 << q) - 1;
    return insert ? (x & below) | ((x & ~below) << 1) : (x & below) | ((x >> 1) & ~below);
}

/* Metadata a filter could hold: 80 ones and c zeros (c <= 48) in a random order from bit 0,
 * zeros above. */
static void filter_like(uint64_t *s, uint64_t *lo, uint64_t *hi) {
    uint32_t c = (uint32_t)(splitmix(s) % 49), ones = 80, zeros = c;
    u128 x = 0;
    for (uint32_t bit = 0; ones + zeros; bit++) {
        int one = splitmix(s) % (ones + zeros) < ones;
        if (one) x |= (u128)1 << bit;
        ones -= (uint32_t)one;
        zeros -= (uint32_t)!one;
    }
    *lo = (uint64_t)x;
    *hi = (uint64_t)(x >> 64);
}

static int check(uint64_t lo, uint64_t hi, const char *kind) {
    u128 x = ((u128)hi << 64) | lo;
    for (uint32_t p = 0; p <= 128; p++) {
        uint64_t o[8];
        vqf_md_both_forms(lo, hi, p, o);
        u128 ins = ref_shift(x, p, 1), rem = ref_shift(x, p, 0);
        const char *bad = NULL;
        if (o[0] != (uint64_t)ins || o[1] != (uint64_t)(ins >> 64)) bad = "masks insert";
        else if (o[2] != (uint64_t)ins || o[3] != (uint64_t)(ins >> 64)) bad = "pdep insert";
        else if (o[4] != (uint64_t)rem || o[5] != (uint64_t)(rem >> 64)) bad = "masks remove";
        else if (o[6] != (uint64_t)rem || o[7] != (uint64_t)(rem >> 64)) bad = "pext remove";
        if (bad) {
            fprintf(stderr, "%s differs from the reference: %s lo %016" PRIx64 " hi %016" PRIx64
                            " p %u\n", bad, kind, lo, hi, p);
            return 1;
        }
    }
    return 0;
}

int main(void) {
    fl_host h;
    if (fl_host_describe(&h) != FL_OK || !(h.features & FL_CPU_BMI2)) {
        printf("skipped: this CPU has no BMI2, which the forms under test need\n");
        return SKIP;
    }
    static const uint64_t extreme[] = {0, ~0ull, 1, 1ull << 63, 0x5555555555555555ull,
                                       0xaaaaaaaaaaaaaaaaull, 0xffffffff00000000ull,
                                       0x00000000ffffffffull};
    const size_t ne = sizeof extreme / sizeof extreme[0];
    int fails = 0;
    for (size_t i = 0; i < ne * ne && !fails; i++)
        fails += check(extreme[i / ne], extreme[i % ne], "extreme");
    uint64_t s = 0x76716d64ull;
    for (int n = 0; n < 20000 && !fails; n++) {
        uint64_t a = splitmix(&s), b = splitmix(&s), c = splitmix(&s), d = splitmix(&s);
        uint64_t e = splitmix(&s), f = splitmix(&s), lo, hi;
        fails += check(a, b, "random");
        fails += check(a & c & e, b & d & f, "sparse");
        fails += check(a | c | e, b | d | f, "dense");
        filter_like(&s, &lo, &hi);
        fails += check(lo, hi, "filter-like");
    }
    if (fails) return 1;
    printf("vqf metadata shifts: masks, pdep and pext forms equal the reference on every p\n");
    return 0;
}
