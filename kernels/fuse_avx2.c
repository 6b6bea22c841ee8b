/*
 * The fuse module's AVX2 kernels: 8 keys per step, as two groups of four 64-bit hashes.
 * AVX2 has no 64-bit multiply: SplitMix64's products are built from three vpmuludq each
 * (lo*lo + (hi*lo + lo*hi) << 32, the low 64 bits of the product). The positions are packed
 * to 32-bit lanes and the cells read with one 8-lane gather per position (vpgatherdd) or,
 * in the "loads" form (fl_fuse_kernels_loads_avx2, checked and timed by checkkernels beside
 * the table's), by scalar loads. Exactly include/filterlab_static.h's answer; tails scalar.
 */
#include <immintrin.h>

#include "kernels.h"

#define FL_INLINE static inline __attribute__((always_inline))

#include "fuse_simd.h"

FL_INLINE __m256i mul64(__m256i a, __m256i b) {
    __m256i lo = _mm256_mul_epu32(a, b);
    __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), b),
                                     _mm256_mul_epu32(a, _mm256_srli_epi64(b, 32)));
    return _mm256_add_epi64(lo, _mm256_slli_epi64(cross, 32));
}

FL_INLINE __m256i mix64(__m256i z) {
    z = _mm256_xor_si256(z, _mm256_srli_epi64(z, 30));
    z = mul64(z, _mm256_set1_epi64x((long long)0xbf58476d1ce4e5b9ull));
    z = _mm256_xor_si256(z, _mm256_srli_epi64(z, 27));
    z = mul64(z, _mm256_set1_epi64x((long long)0x94d049bb133111ebull));
    return _mm256_xor_si256(z, _mm256_srli_epi64(z, 31));
}

/* The low 32 bits of each of a's and b's four 64-bit lanes, a's first. */
FL_INLINE __m256i pack_lo32(__m256i a, __m256i b) {
    const __m256i idx = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
    __m128i lo = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(a, idx));
    __m128i hi = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(b, idx));
    return _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
}

FL_INLINE __m256i reduce(__m256i h, __m256i range) {
    return _mm256_srli_epi64(
        _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(h, 32), range),
                         _mm256_srli_epi64(_mm256_mul_epu32(h, range), 32)),
        32);
}

FL_INLINE __m256i probe8(const fl_fuse_view *v, const uint64_t *keys, int arity, int bits,
                         int gather) {
    const __m256i seed_mix = _mm256_set1_epi64x((long long)v->seed_mix);
    const __m256i range = _mm256_set1_epi64x((long long)v->seg_count_len);
    const __m256i mask = _mm256_set1_epi32((int)v->seg_mask);
    const __m256i len = _mm256_set1_epi32((int)v->seg_len);
    const __m256i cmask = _mm256_set1_epi32(bits == 32 ? -1 : (int)((1u << bits) - 1));
    __m256i ha = mix64(_mm256_add_epi64(_mm256_loadu_si256((const __m256i *)(const void *)keys),
                                        seed_mix));
    __m256i hb = mix64(_mm256_add_epi64(
        _mm256_loadu_si256((const __m256i *)(const void *)(keys + 4)), seed_mix));
    __m256i p[4];
    p[0] = pack_lo32(reduce(ha, range), reduce(hb, range));
    __m256i len2 = _mm256_add_epi32(len, len);
    p[1] = _mm256_xor_si256(
        _mm256_add_epi32(p[0], len),
        _mm256_and_si256(pack_lo32(_mm256_srli_epi64(ha, 18), _mm256_srli_epi64(hb, 18)), mask));
    p[2] = _mm256_xor_si256(_mm256_add_epi32(p[0], len2),
                            _mm256_and_si256(pack_lo32(ha, hb), mask));
    if (arity == 4)
        p[3] = _mm256_xor_si256(
            _mm256_add_epi32(p[0], _mm256_add_epi32(len2, len)),
            _mm256_and_si256(pack_lo32(_mm256_srli_epi64(ha, 36), _mm256_srli_epi64(hb, 36)),
                             mask));
    __m256i x = pack_lo32(_mm256_xor_si256(ha, _mm256_srli_epi64(ha, 32)),
                          _mm256_xor_si256(hb, _mm256_srli_epi64(hb, 32)));
    if (gather) {
        /* 4-byte reads at cell addresses; the cells' 64-byte padding covers the last one */
        const int *base = (const int *)v->cells;
        for (int j = 0; j < arity; j++) {
            __m256i g = bits == 8    ? _mm256_i32gather_epi32(base, p[j], 1)
                        : bits == 16 ? _mm256_i32gather_epi32(base, p[j], 2)
                                     : _mm256_i32gather_epi32(base, p[j], 4);
            x = _mm256_xor_si256(x, g);
        }
    } else {
        uint32_t pos[4][8], cell[8];
        for (int j = 0; j < arity; j++) _mm256_storeu_si256((__m256i *)(void *)pos[j], p[j]);
        FL_FUSE_XOR_CELLS(v, pos, 8, arity, bits, cell);
        x = _mm256_xor_si256(x, _mm256_loadu_si256((const __m256i *)(const void *)cell));
    }
    return _mm256_and_si256(x, cmask);
}

/* One byte (0/1) per bit of an 8-bit mask. */
FL_INLINE uint64_t mask_bytes(uint32_t m) {
    return _pdep_u64(m, 0x0101010101010101ull);
}

FL_INLINE size_t contains_impl(const fl_fuse_view *v, const uint64_t *keys, size_t n,
                               uint8_t *out, int arity, int bits, int gather,
                               fl_fuse_contains_fn tail) {
    size_t i = 0, hits = 0;
    if (gather && !gather_reaches(v, arity)) return tail(v, keys, n, out);
    for (; i + 8 <= n; i += 8) {
        __m256i x = probe8(v, keys + i, arity, bits, gather);
        uint32_t m = (uint32_t)_mm256_movemask_ps(
            _mm256_castsi256_ps(_mm256_cmpeq_epi32(x, _mm256_setzero_si256())));
        uint64_t b = mask_bytes(m);
        memcpy(out + i, &b, 8);
        hits += (size_t)__builtin_popcount(m);
    }
    if (i < n) hits += tail(v, keys + i, n - i, out + i);
    return hits;
}

FL_INLINE size_t get_impl(const fl_fuse_view *v, const uint64_t *keys, size_t n,
                          uint16_t *values, uint8_t *found, int arity, int bits, int gather,
                          fl_bloomier_get_fn tail) {
    size_t i = 0, hits = 0;
    if (gather && !gather_reaches(v, arity)) return tail(v, keys, n, values, found);
    const __m128i vbits = _mm_cvtsi32_si128((int)v->value_bits);
    for (; i + 8 <= n; i += 8) {
        __m256i x = probe8(v, keys + i, arity, bits, gather);
        __m256i ok = _mm256_cmpeq_epi32(_mm256_srl_epi32(x, vbits), _mm256_setzero_si256());
        /* found lanes hold values below 2^16: packus keeps them exactly */
        __m256i val = _mm256_and_si256(x, ok);
        __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(val, val), 0x08);
        _mm_storeu_si128((__m128i *)(void *)(values + i), _mm256_castsi256_si128(packed));
        uint32_t m = (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(ok));
        uint64_t b = mask_bytes(m);
        memcpy(found + i, &b, 8);
        hits += (size_t)__builtin_popcount(m);
    }
    if (i < n) hits += tail(v, keys + i, n - i, values + i, found + i);
    return hits;
}

/* contains3_8 ... get4_32, fl_fuse_kernels_loads_avx2 and fl_fuse_kernels_init_avx2() */
FL_FUSE_X86_KERNELS(avx2, 1)
