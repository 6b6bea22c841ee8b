/*
 * The fuse module's AVX2 kernels: 8 keys per step, as two groups of four 64-bit hashes.
 * AVX2 has no 64-bit multiply: SplitMix64's products are built from three vpmuludq each
 * (lo*lo + (hi*lo + lo*hi) << 32, the low 64 bits of the product). The hashes' halves are
 * split into 32-bit lanes once, the positions computed there, and the cells read with one
 * 8-lane gather per position (vpgatherdd) or,
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

/* The even (low, imm HALVES_LO) or odd (high, HALVES_HI) 32-bit halves of a's and b's four
 * 64-bit lanes as eight 32-bit lanes, in one shufps: it works within 128-bit lanes, so the
 * keys come out in the order 0 1 4 5 2 3 6 7 (a holds keys 0-3, b keys 4-7). Every vector of
 * the probe is in that order; KEY_ORDER puts the result back. A cross-lane pack (two vpermd
 * and a vinserti128, all port 5) per vector cost five times as many shuffles. */
#define HALVES_LO _MM_SHUFFLE(2, 0, 2, 0)
#define HALVES_HI _MM_SHUFFLE(3, 1, 3, 1)
#define HALVES(a, b, imm)                                                                    \
    _mm256_castps_si256(_mm256_shuffle_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b), (imm)))
/* 64-bit pairs (0 1)(4 5)(2 3)(6 7) -> (0 1)(2 3)(4 5)(6 7) */
#define KEY_ORDER(x) _mm256_permute4x64_epi64((x), _MM_SHUFFLE(3, 1, 2, 0))

/* fl_fuse_reduce's t = (h >> 32) * range + ((h & 0xffffffff) * range >> 32) per 64-bit lane:
 * p0 is its high half. */
FL_INLINE __m256i reduce_t(__m256i h, __m256i range) {
    return _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(h, 32), range),
                            _mm256_srli_epi64(_mm256_mul_epu32(h, range), 32));
}

/* 8 keys: the XOR of their cells and words, masked to the cell width, in key order. With
 * lo = (uint32_t)h and hi = h >> 32 per key: h >> 18 = lo >> 18 | hi << 14 and h >> 36 =
 * hi >> 4 in the 32 bits the mask keeps (seg_mask < 2^18), and the word is lo ^ hi. */
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
    __m256i lo = HALVES(ha, hb, HALVES_LO), hi = HALVES(ha, hb, HALVES_HI);
    __m256i p[4];
    p[0] = HALVES(reduce_t(ha, range), reduce_t(hb, range), HALVES_HI);
    __m256i len2 = _mm256_add_epi32(len, len);
    __m256i x1 = _mm256_or_si256(_mm256_srli_epi32(lo, 18), _mm256_slli_epi32(hi, 14));
    p[1] = _mm256_xor_si256(_mm256_add_epi32(p[0], len), _mm256_and_si256(x1, mask));
    p[2] = _mm256_xor_si256(_mm256_add_epi32(p[0], len2), _mm256_and_si256(lo, mask));
    if (arity == 4)
        p[3] = _mm256_xor_si256(_mm256_add_epi32(p[0], _mm256_add_epi32(len2, len)),
                                _mm256_and_si256(_mm256_srli_epi32(hi, 4), mask));
    __m256i x = _mm256_xor_si256(lo, hi);
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
    return KEY_ORDER(_mm256_and_si256(x, cmask));
}

/* One byte (0/1) per bit of an 8-bit mask. */
FL_INLINE uint64_t mask_bytes(uint32_t m) {
    return _pdep_u64(m, 0x0101010101010101ull);
}

FL_INLINE size_t contains_impl(const fl_fuse_view *v, const uint64_t *keys, size_t n,
                               uint8_t *out, int arity, int bits, int gather,
                               fl_fuse_contains_fn tail) {
    size_t i = 0, hits = 0;
    /* A copy the out stores cannot alias: the compiler keeps its fields in registers
     * across the loop instead of reloading and rebroadcasting them for every step. */
    const fl_fuse_view view = *v;
    if (gather && !gather_reaches(v, arity)) return tail(v, keys, n, out);
    for (; i + 8 <= n; i += 8) {
        __m256i x = probe8(&view, keys + i, arity, bits, gather);
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
    const fl_fuse_view view = *v;
    if (gather && !gather_reaches(v, arity)) return tail(v, keys, n, values, found);
    const __m128i vbits = _mm_cvtsi32_si128((int)v->value_bits);
    for (; i + 8 <= n; i += 8) {
        __m256i x = probe8(&view, keys + i, arity, bits, gather);
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
FL_FUSE_X86_KERNELS(avx2)
