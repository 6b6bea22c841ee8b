/*
 * HyperLogLog kernels for AVX2 (+ BMI2, FMA): the hll module's entries of the avx2 table.
 *
 * add: fl_hll_add_windowed (hll_probe.h). AVX2 cannot rank a 64-bit hash in a vector (no
 * 64-bit lzcnt/tzcnt, no u64 -> double conversion), so both of its ways are scalar: a
 * branch-free load-max-store per key while the sketch is young, a test-then-store while
 * raises are rare; the registers equal the scalar loop's (max is order-free).
 * max: vpmaxub, 32 registers per step (m = 2^p >= 16 is a multiple of 16; a 16-register
 * tail takes one xmm step).
 * murmur8: MurmurHash64A of 8-byte keys, 4 per ymm, its 64-bit multiplies built from 32-bit
 * ones (avx2_common.h's mul64_const).
 * histo stays scalar (the four-table histogram; see hll_avx512.c).
 */
#if !defined(__AVX2__) || !defined(__BMI2__) || !defined(__FMA__)
#error "kernels/hll_avx2.c needs -mavx2 -mbmi2 -mfma"
#endif

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "hll_probe.h"
#include "kernels.h"
#include "avx2_common.h"

static int fl_hll_add_avx2(uint8_t *regs, uint32_t p, const uint64_t *hashes, size_t n) {
    return fl_hll_add_windowed(regs, p, hashes, n);
}

static void fl_hll_max_avx2(uint8_t *dst, const uint8_t *src, size_t m) {
    size_t i = 0;
    for (; i + 32 <= m; i += 32) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(dst + i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(src + i));
        _mm256_storeu_si256((__m256i *)(void *)(dst + i), _mm256_max_epu8(a, b));
    }
    for (; i + 16 <= m; i += 16) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(dst + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(src + i));
        _mm_storeu_si128((__m128i *)(void *)(dst + i), _mm_max_epu8(a, b));
    }
    for (; i < m; i++)
        if (src[i] > dst[i]) dst[i] = src[i];
}

static void fl_hll_murmur8_avx2(const uint64_t *keys, size_t n, uint64_t seed, uint64_t *out) {
    const __m256i m = _mm256_set1_epi64x((long long)FL_MURMUR_M);
    const __m256i mswap = mul64_const_swapped(FL_MURMUR_M);
    const __m256i h0 = _mm256_set1_epi64x((long long)(seed ^ (8 * FL_MURMUR_M)));
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        __m256i k = mul64_const(load4(keys, i), m, mswap);
        k = mul64_const(_mm256_xor_si256(k, _mm256_srli_epi64(k, FL_MURMUR_R)), m, mswap);
        __m256i h = mul64_const(_mm256_xor_si256(h0, k), m, mswap);
        h = mul64_const(_mm256_xor_si256(h, _mm256_srli_epi64(h, FL_MURMUR_R)), m, mswap);
        h = _mm256_xor_si256(h, _mm256_srli_epi64(h, FL_MURMUR_R));
        _mm256_storeu_si256((__m256i *)(void *)((unsigned char *)out + 8 * i), h);
    }
    for (; i < n; i++) {
        uint64_t h = fl_murmur64a_u64(fl_hll_load64((const unsigned char *)keys + 8 * i), seed);
        memcpy((unsigned char *)out + 8 * i, &h, 8);
    }
}

void fl_hll_kernels_init_avx2(fl_kernel_table *t) {
    t->hll.add = fl_hll_add_avx2;
    t->hll.max = fl_hll_max_avx2;
    t->hll.murmur8 = fl_hll_murmur8_avx2;
}
