/*
 * Vector helpers every AVX2 kernel file shares (<module>_avx2.c), built with
 * -mavx2 -mbmi2 -mfma. Scalar-side helpers both x86 ISAs use are in x86_common.h.
 */
#ifndef FL_AVX2_COMMON_H
#define FL_AVX2_COMMON_H

#if !defined(__AVX2__)
#error "avx2_common.h is for the AVX2 kernel files"
#endif

#include <immintrin.h>

#include "kernels.h"
#include "x86_common.h"

/* 4 hashes from an array the API lets be unaligned. */
FL_INLINE __m256i load4(const uint64_t *h, size_t i) {
    return _mm256_loadu_si256((const __m256i *)(const void *)((const unsigned char *)h + 8 * i));
}

/* a * M mod 2^64 per qword lane for a constant M = (mh:ml), which AVX2 has no instruction for
 * (vpmullq is AVX-512 DQ): ml*al + ((ml*ah + mh*al) << 32), the mh*ah term lying past bit 63.
 * m holds M per lane and mswap (ml:mh) (mul64_const_swapped), so one vpmulld gives both cross
 * products. The hll module's MurmurHash64A and the hash module's SplitMix64 finalizer use it. */
FL_INLINE __m256i mul64_const(__m256i a, __m256i m, __m256i mswap) {
    __m256i lo = _mm256_mul_epu32(a, m);
    __m256i cross = _mm256_mullo_epi32(a, mswap);
    __m256i sum = _mm256_add_epi32(cross, _mm256_srli_epi64(cross, 32));
    return _mm256_add_epi64(lo, _mm256_slli_epi64(sum, 32));
}
FL_INLINE __m256i mul64_const_swapped(uint64_t m) {
    return _mm256_set1_epi64x((long long)((m << 32) | (m >> 32)));
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

/* The classic layouts' batch lookup (probe.h's double hashing over the whole array), shared
 * by the bit array (classic: bit g & 63 of the word) and the 4-bit counters (counting: counter
 * g & 15, its nibble 0xf << 4 (g & 15)). Two groups of 4 keys in lockstep, probe round r for
 * the keys still alive: a masked gather of their r-th words (dead lanes load nothing), the
 * test, and the group stops once all 8 keys have missed. 8 independent loads per round replace
 * the scalar loop's per-key chain. `counters` and `tail` are constants at every call, so each
 * instance compiles to its own loop. */
FL_INLINE __m256i classic_layout_round(__m256i g, __m256i alive, const long long *words,
                                       __m256i units, const int counters) {
    const __m256i zero = _mm256_setzero_si256();
    __m256i w = _mm256_mask_i64gather_epi64(zero, words, unit_index(g, units), alive, 8);
    __m256i probe = counters
        ? _mm256_sllv_epi64(_mm256_set1_epi64x(0xf),
                            _mm256_and_si256(_mm256_slli_epi64(g, 2), _mm256_set1_epi64x(60)))
        : _mm256_sllv_epi64(_mm256_set1_epi64x(1), _mm256_and_si256(g, _mm256_set1_epi64x(63)));
    return _mm256_andnot_si256(_mm256_cmpeq_epi64(_mm256_and_si256(w, probe), zero), alive);
}

FL_INLINE size_t classic_layout_contains(const fl_kview *f, const uint64_t *hashes, size_t n,
                                         uint8_t *out, const int prefetch, const int counters,
                                         fl_contains_fn tail) {
    const long long *words = (const long long *)f->data;
    const __m256i units = _mm256_set1_epi64x(f->units);
    const uint32_t k = f->k;
    size_t i = 0, pos = 0;
    for (; i + 8 <= n; i += 8) {
        if (prefetch && i + PF_DIST + 8 <= n)
            prefetch8((const uint8_t *)words, 8, hashes, i + PF_DIST, f->units, 0);
        __m256i g0 = load4(hashes, i), g1 = load4(hashes, i + 4);
        __m256i st0 = classic_step(g0), st1 = classic_step(g1);
        __m256i a0 = _mm256_set1_epi64x(-1), a1 = a0;
        for (uint32_t r = 0; r < k; r++) {
            a0 = classic_layout_round(g0, a0, words, units, counters);
            a1 = classic_layout_round(g1, a1, words, units, counters);
            if (_mm256_testz_si256(_mm256_or_si256(a0, a1), _mm256_set1_epi64x(-1))) break;
            g0 = _mm256_add_epi64(g0, st0);
            g1 = _mm256_add_epi64(g1, st1);
        }
        unsigned hits = (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(a0)) |
                        (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(a1)) << 4;
        pos += emit8(out + i, hits);
    }
    pos += tail(f, hashes + i, n - i, out + i);
    return pos;
}

/* ---- the 64-byte blocked layouts (block512: bits, counting512: 4-bit counters) ---------- */

/* Whether the block (a0, a1) lacks what each of 8 salt products t names (nonzero lanes: it
 * does). Bits (counters = 0): bit p = t >> 23 is in dword t >> 28 at bit p & 31. Counters
 * (counters = 1): counter p = t >> 25 is in dword t >> 28, nibble (t >> 25) & 7. vpermd picks
 * a dword within one 256-bit half (index & 7); the sign bit of t is bit 3 of the dword index,
 * so blendvps on t chooses the half. */
FL_INLINE __m256i block512_missing(__m256i t, __m256i a0, __m256i a1, const int counters) {
    __m256i idx = _mm256_srli_epi32(t, 28);
    __m256 w0 = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(a0, idx));
    __m256 w1 = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(a1, idx));
    __m256i w = _mm256_castps_si256(_mm256_blendv_ps(w0, w1, _mm256_castsi256_ps(t)));
    if (counters) {
        __m256i nib = _mm256_sllv_epi32(
            _mm256_set1_epi32(0xf), _mm256_and_si256(_mm256_srli_epi32(t, 23), _mm256_set1_epi32(0x1c)));
        return _mm256_cmpeq_epi32(_mm256_and_si256(w, nib), _mm256_setzero_si256());
    }
    __m256i bit = _mm256_sllv_epi32(
        _mm256_set1_epi32(1), _mm256_and_si256(_mm256_srli_epi32(t, 23), _mm256_set1_epi32(31)));
    return _mm256_andnot_si256(w, bit);
}

/* The blocked layouts' lookup: one key per ymm pair, its block loaded once, the first 8 salts
 * tested, and with `wide` (k > 8) the other 8. `wide`, `counters` and `tail` are constants at
 * every call. */
FL_INLINE size_t block512_layout_contains(const fl_kview *f, const uint64_t *hashes, size_t n,
                                          uint8_t *out, const int prefetch, const int wide,
                                          const int counters, fl_contains_fn tail) {
    const uint8_t *base = (const uint8_t *)f->data;
    const __m256i s0 = _mm256_loadu_si256((const __m256i *)FL_SALT);
    const __m256i s1 = _mm256_loadu_si256((const __m256i *)(FL_SALT + 8));
    const __m256i m0 = lanes_below((int)f->k), m1 = lanes_below((int)f->k - 8);
    size_t i = 0, pos = 0;
    for (; i + 8 <= n; i += 8) {
        if (prefetch && i + PF_DIST + 8 <= n)
            prefetch8(base, 64, hashes, i + PF_DIST, f->units, 0);
        unsigned hits = 0;
        for (size_t j = 0; j < 8; j++) {
            const __m256i *b = (const __m256i *)(base + 64 * unit_at(hashes, i + j, f->units));
            __m256i a0 = _mm256_load_si256(b), a1 = _mm256_load_si256(b + 1);
            __m256i x = _mm256_set1_epi32((int)low_at(hashes, i + j));
            __m256i t0 = _mm256_mullo_epi32(x, s0);
            int ok = _mm256_testz_si256(block512_missing(t0, a0, a1, counters), m0);
            if (wide) {
                __m256i t1 = _mm256_mullo_epi32(x, s1);
                ok &= _mm256_testz_si256(block512_missing(t1, a0, a1, counters), m1);
            }
            hits |= (unsigned)ok << j;
        }
        pos += emit8(out + i, hits);
    }
    pos += tail(f, hashes + i, n - i, out + i);
    return pos;
}

#endif /* FL_AVX2_COMMON_H */
