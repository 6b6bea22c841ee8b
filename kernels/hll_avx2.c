/*
 * HyperLogLog kernels for AVX2 (+ BMI2, FMA): the hll module's entries of the avx2 table.
 *
 * add: fl_hll_add_windowed (hll_probe.h). AVX2 cannot rank a 64-bit hash in a vector (no
 * 64-bit lzcnt/tzcnt, no u64 -> double conversion), so both of its ways are scalar: a
 * branch-free load-max-store per key while the sketch is young, a test-then-store while
 * raises are rare; the registers equal the scalar loop's (max is order-free).
 * max: vpmaxub, 32 registers per step (m = 2^p >= 16 is a multiple of 16; a 16-register
 * tail takes one xmm step).
 * murmur8: MurmurHash64A of 8-byte keys, 4 per ymm. AVX2 has no 64-bit multiply: each
 * 64 x 64 -> low 64 product is lo*lo (vpmuludq) plus the two cross products (one vpmulld
 * against the constant with its halves swapped) shifted up 32 bits.
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

/* a * M mod 2^64 per qword lane, for the constant M = (mh:ml): ml*al + ((ml*ah + mh*al) << 32).
 * mswap holds (ml:mh) per lane, so one vpmulld gives both cross products. */
FL_INLINE __m256i mul_m(__m256i a, __m256i m, __m256i mswap) {
    __m256i lo = _mm256_mul_epu32(a, m);
    __m256i cross = _mm256_mullo_epi32(a, mswap);
    __m256i sum = _mm256_add_epi32(cross, _mm256_srli_epi64(cross, 32));
    return _mm256_add_epi64(lo, _mm256_slli_epi64(sum, 32));
}

static void fl_hll_murmur8_avx2(const uint64_t *keys, size_t n, uint64_t seed, uint64_t *out) {
    const __m256i m = _mm256_set1_epi64x((long long)FL_MURMUR_M);
    const __m256i mswap = _mm256_set1_epi64x((long long)((FL_MURMUR_M << 32) | (FL_MURMUR_M >> 32)));
    const __m256i h0 = _mm256_set1_epi64x((long long)(seed ^ (8 * FL_MURMUR_M)));
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        __m256i k = mul_m(load4(keys, i), m, mswap);
        k = mul_m(_mm256_xor_si256(k, _mm256_srli_epi64(k, FL_MURMUR_R)), m, mswap);
        __m256i h = mul_m(_mm256_xor_si256(h0, k), m, mswap);
        h = mul_m(_mm256_xor_si256(h, _mm256_srli_epi64(h, FL_MURMUR_R)), m, mswap);
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
