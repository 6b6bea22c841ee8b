/*
 * Counting Bloom lookups, AVX2 (+ BMI2): the counting module's entries of the avx2 table.
 * The blocked and classic lookups are avx2_common.h's loops, shared with bloom_avx2.c's
 * block512 and classic lookups, with a 4-bit counter test where those test a bit (the
 * positions are probe.h's; kernels/counting_avx512.c explains the counter mask). Inserts keep the scalar kernel for the reason given there.
 */
#if !defined(__AVX2__) || !defined(__BMI2__) || !defined(__FMA__)
#error "kernels/counting_avx2.c needs -mavx2 -mbmi2 -mfma"
#endif

#include <immintrin.h>
#include <string.h>

#include "kernels.h"
#include "probe.h"
#include "simd_common.h"
#include "avx2_common.h"

/* ---- counting512 ----------------------------------------------------------------------- */

/* avx2_common.h's blocked-layout loop testing counters. */
#define counting512_narrow(...) \
    block512_layout_contains(__VA_ARGS__, 0, 1, fl_contains_counting512_scalar)
#define counting512_wide(...) \
    block512_layout_contains(__VA_ARGS__, 1, 1, fl_contains_counting512_scalar)
FL_LOOKUP_BY_SIZE_AND_K(fl_contains_counting512_avx2, counting512_narrow, counting512_wide)

/* ---- counting (classic layout) ---------------------------------------------------------- */

/* The classic layout's loop of avx2_common.h, with a counter test (counters = 1). */
FL_LOOKUP_BY_SIZE(fl_contains_counting_avx2, 8, classic_layout_contains, 1,
                  fl_contains_counting_scalar)

void fl_counting_kernels_init_avx2(fl_kernel_table *t) {
    t->counting.contains[FL_COUNTING_CLASSIC] = fl_contains_counting_avx2;
    t->counting.contains[FL_COUNTING_BLOCKED] = fl_contains_counting512_avx2;
}
