/*
 * Vector helpers every AVX2 kernel file shares (avx2.c, counting_avx2.c, cms_avx2.c), built
 * with -mavx2 -mbmi2 -mfma. Scalar-side helpers both x86 ISAs use are in x86_common.h.
 */
#ifndef FL_AVX2_COMMON_H
#define FL_AVX2_COMMON_H

#if !defined(__AVX2__)
#error "avx2_common.h is for the AVX2 kernel files"
#endif

#include <immintrin.h>

#include "x86_common.h"

/* 4 hashes from an array the API lets be unaligned. */
FL_INLINE __m256i load4(const uint64_t *h, size_t i) {
    return _mm256_loadu_si256((const __m256i *)(const void *)((const unsigned char *)h + 8 * i));
}

/* reduce32 of the low dword of each qword lane: (x32 * n) >> 32, as a qword. */
FL_INLINE __m256i reduce_lo(__m256i x, __m256i n) {
    return _mm256_srli_epi64(_mm256_mul_epu32(x, n), 32);
}
/* reduce32(h >> 32, units) for 4 hashes. */
FL_INLINE __m256i unit_index(__m256i h, __m256i units) {
    return reduce_lo(_mm256_srli_epi64(h, 32), units);
}

/* Lanes j < k of 8 as all-ones, for the first (k) or second (k - 8) group of salts. */
FL_INLINE __m256i lanes_below(int k) {
    const __m256i j = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(k), j);
}

/* The double-hashing step of probe.h's classic layouts for 4 hashes: rotl(h, 32) | 1. */
FL_INLINE __m256i classic_step(__m256i h) {
    return _mm256_or_si256(_mm256_or_si256(_mm256_slli_epi64(h, 32), _mm256_srli_epi64(h, 32)),
                           _mm256_set1_epi64x(1));
}

#endif /* FL_AVX2_COMMON_H */
