/*
 * Counting Bloom lookups, AVX2 (+ BMI2): the counting module's entries of the avx2 table.
 * Same shapes as bloom_avx2.c's block512 and classic lookups with a 4-bit counter test where those
 * test a bit (the positions are probe.h's; kernels/counting_avx512.c explains the counter
 * mask). Inserts keep the scalar kernel for the reason given there.
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

/* Lanes whose counter is zero, for 8 salt products t: counter p = t >> 25 is in dword t >> 28,
 * nibble (t >> 25) & 7. vpermd picks a dword within one 256-bit half (index & 7); the sign
 * bit of t is bit 3 of the dword index, so blendvps on t chooses the half (bloom_avx2.c's
 * block512_missing). */
FL_INLINE __m256i counting512_zero(__m256i t, __m256i a0, __m256i a1) {
    __m256i idx = _mm256_srli_epi32(t, 28);
    __m256 w0 = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(a0, idx));
    __m256 w1 = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(a1, idx));
    __m256i w = _mm256_castps_si256(_mm256_blendv_ps(w0, w1, _mm256_castsi256_ps(t)));
    __m256i nib = _mm256_sllv_epi32(_mm256_set1_epi32(0xf),
                                    _mm256_and_si256(_mm256_srli_epi32(t, 23), _mm256_set1_epi32(0x1c)));
    return _mm256_cmpeq_epi32(_mm256_and_si256(w, nib), _mm256_setzero_si256());
}

FL_INLINE int counting512_one(const uint8_t *line, uint32_t lo, __m256i s0, __m256i s1,
                              __m256i m0, __m256i m1, const int wide) {
    const __m256i *b = (const __m256i *)(const void *)line;
    __m256i a0 = _mm256_load_si256(b), a1 = _mm256_load_si256(b + 1);
    __m256i x = _mm256_set1_epi32((int)lo);
    int ok = _mm256_testz_si256(counting512_zero(_mm256_mullo_epi32(x, s0), a0, a1), m0);
    if (wide) ok &= _mm256_testz_si256(counting512_zero(_mm256_mullo_epi32(x, s1), a0, a1), m1);
    return ok;
}

FL_INLINE size_t counting512_contains(const fl_kview *f, const uint64_t *hashes, size_t n,
                                      uint8_t *out, const int prefetch, const int wide) {
    const uint8_t *base = (const uint8_t *)f->data;
    const __m256i s0 = _mm256_loadu_si256((const __m256i *)FL_SALT);
    const __m256i s1 = _mm256_loadu_si256((const __m256i *)(FL_SALT + 8));
    const __m256i m0 = lanes_below((int)f->k), m1 = lanes_below((int)f->k - 8);
    size_t i = 0, pos = 0;
    for (; i + 8 <= n; i += 8) {
        if (prefetch && i + PF_DIST + 8 <= n)
            prefetch8(base, 64, hashes, i + PF_DIST, f->units, 0);
        unsigned hits = 0;
        for (size_t j = 0; j < 8; j++)
            hits |= (unsigned)counting512_one(base + 64 * unit_at(hashes, i + j, f->units),
                                              low_at(hashes, i + j), s0, s1, m0, m1, wide) << j;
        pos += emit8(out + i, hits);
    }
    pos += fl_contains_counting512_scalar(f, hashes + i, n - i, out + i);
    return pos;
}

#define counting512_narrow(...) counting512_contains(__VA_ARGS__, 0)
#define counting512_wide(...) counting512_contains(__VA_ARGS__, 1)
FL_LOOKUP_BY_SIZE_AND_K(fl_contains_counting512_avx2, counting512_narrow, counting512_wide)

/* ---- counting (classic layout) ---------------------------------------------------------- */

/* The classic layout's loop of avx2_common.h, with a counter test (counters = 1). */
FL_LOOKUP_BY_SIZE(fl_contains_counting_avx2, 8, classic_layout_contains, 1,
                  fl_contains_counting_scalar)

void fl_counting_kernels_init_avx2(fl_kernel_table *t) {
    t->counting.contains[FL_COUNTING_CLASSIC] = fl_contains_counting_avx2;
    t->counting.contains[FL_COUNTING_BLOCKED] = fl_contains_counting512_avx2;
}
