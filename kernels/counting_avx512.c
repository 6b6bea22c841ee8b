/*
 * Counting Bloom lookups, AVX-512 (F, BW, VL, DQ, plus BMI2): the counting module's entries
 * of the avx512 table. The k <= 8 blocked lookup and the classic one are avx512_common.h's
 * loops, shared with bloom_avx512.c's block512 and classic lookups, with a 4-bit counter test
 * where those test a bit: counter p of a 128-counter line (p = t >> 25, t the
 * salt product) is bits 4 (p & 7) .. +3 of dword p >> 3 = t >> 28, so one vprold of 0xf by
 * (t >> 23) & 0x1c gives its mask, and "counter is zero" is a vptestnmd on that mask.
 * Inserts keep the scalar kernel: their increments must apply key by key in batch order
 * (keys of one batch share counters, and saturation at 15 makes the order visible), and a
 * read-modify-write of k counters per key is bound by the dependent loads, not by the few
 * multiplies a vector unit could save.
 */
#if !defined(__AVX512F__) || !defined(__AVX512BW__) || !defined(__AVX512VL__) ||               \
    !defined(__AVX512DQ__) || !defined(__BMI2__)
#error "kernels/counting_avx512.c needs -mavx512f -mavx512bw -mavx512vl -mavx512dq -mbmi2"
#endif

#include <immintrin.h>
#include <string.h>

#include "kernels.h"
#include "probe.h"
#include "simd_common.h"
#include "avx512_common.h"

/* ---- counting512 ----------------------------------------------------------------------- */

/* k <= 8: two keys per zmm, avx512_common.h's loop testing counters. */
#define counting512_pair(...) \
    block512_pair_layout_contains(__VA_ARGS__, 1, fl_contains_counting512_scalar)

/* k > 8: one key per zmm, all 16 salts. */
FL_INLINE int counting512_one(const uint8_t *line, uint32_t lo, __m512i salts, __mmask16 kk) {
    __m512i t = _mm512_mullo_epi32(_mm512_set1_epi32((int)lo), salts);
    __m512i w = _mm512_permutexvar_epi32(_mm512_srli_epi32(t, 28),
                                         _mm512_load_si512((const void *)line));
    return _mm512_mask_testn_epi32_mask(kk, w, nibble_mask(t)) == 0;
}

FL_INLINE size_t counting512_wide(const fl_kview *f, const uint64_t *hashes, size_t n,
                                  uint8_t *out, const int prefetch) {
    const uint8_t *base = (const uint8_t *)f->data;
    const __m512i salts = _mm512_loadu_si512((const void *)FL_SALT);
    const __mmask16 kk = (__mmask16)((1u << f->k) - 1);
    size_t i = 0, pos = 0;
    for (; i + 8 <= n; i += 8) {
        if (prefetch && i + PF_DIST + 8 <= n)
            prefetch8(base, 64, hashes, i + PF_DIST, f->units, 0);
        unsigned hits = 0;
        for (size_t j = 0; j < 8; j++)
            hits |= (unsigned)counting512_one(base + 64 * unit_at(hashes, i + j, f->units),
                                              low_at(hashes, i + j), salts, kk) << j;
        pos += emit8(out + i, hits);
    }
    pos += fl_contains_counting512_scalar(f, hashes + i, n - i, out + i);
    return pos;
}

FL_LOOKUP_BY_SIZE_AND_K(fl_contains_counting512_avx512, counting512_pair, counting512_wide)

static int fl_contains1_counting512_avx512(const void *data, uint32_t units, uint32_t k,
                                           uint64_t h) {
    fl_kview v = fl_bloom_view(data, units, k);
    return counting512_one((const uint8_t *)fl_block512_at(&v, h), (uint32_t)h,
                           _mm512_loadu_si512((const void *)FL_SALT),
                           (__mmask16)((1u << k) - 1));
}

/* ---- counting (classic layout) ---------------------------------------------------------- */

/* The classic layout's loop of avx512_common.h, with a counter test (counters = 1). */
FL_LOOKUP_BY_SIZE(fl_contains_counting_avx512, 8, classic_layout_contains, 1,
                  fl_contains_counting_scalar)

void fl_counting_kernels_init_avx512(fl_kernel_table *t) {
    t->counting.contains[FL_COUNTING_CLASSIC] = fl_contains_counting_avx512;
    t->counting.contains[FL_COUNTING_BLOCKED] = fl_contains_counting512_avx512;
    t->counting.contains1[FL_COUNTING_BLOCKED] = fl_contains1_counting512_avx512;
}
