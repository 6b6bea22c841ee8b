/*
 * The fuse module's AVX-512 kernels: 16 keys per step. The hash (SplitMix64's finalizer,
 * vpmullq), the range reduction of p0 (two vpmuludq on the hash's halves, exactly
 * fl_fuse_reduce) and the other positions are vector math; the cells are read either with
 * one 16-lane gather per position (vpgatherdd at the cell width's scale, then masked) or,
 * in the "loads" form, by scalar loads from positions stored to the stack. Both compute
 * include/filterlab_static.h's answer exactly; tails run the scalar kernels.
 *
 * Which is faster: tests/checkkernels --bench --family fuse times both forms on the same
 * filters (the loads form is the table fl_fuse_kernels_loads_avx512, checked like the
 * table's entries). The table's lookups take the loads for 3-wise arrays up to 2 MiB and the
 * gathers otherwise (use_gather below); its Bloomier retrievals take the gathers.
 *
 * No software prefetch: the cells of a key are 3-4 random lines, and each 16-lane gather
 * already puts 16 independent misses in flight, which is what the core's line fill buffers
 * hold. Prefetching the cells 16, 32 or 64 keys ahead (hint T0 or T1) made fuse8 lookups at
 * 10M keys (11 MiB of cells) slower on Emerald Rapids, never faster
 * (results/emeraldrapids-kvm-2c-5bce/against/fastfilter_cpp/fuse-onekey/
 * fuse8-10M-prefetch-ab.txt).
 */
#include <immintrin.h>

#include "kernels.h"

#define FL_INLINE static inline __attribute__((always_inline))

#include "fuse_simd.h"

FL_INLINE __m512i mix64(__m512i z) {
    z = _mm512_xor_si512(z, _mm512_srli_epi64(z, 30));
    z = _mm512_mullo_epi64(z, _mm512_set1_epi64((long long)0xbf58476d1ce4e5b9ull));
    z = _mm512_xor_si512(z, _mm512_srli_epi64(z, 27));
    z = _mm512_mullo_epi64(z, _mm512_set1_epi64((long long)0x94d049bb133111ebull));
    return _mm512_xor_si512(z, _mm512_srli_epi64(z, 31));
}

/* 8 keys: their hashes, and fl_fuse_reduce's t, whose high half is p0. */
FL_INLINE __m512i hash8(const uint64_t *keys, __m512i seed_mix) {
    return mix64(_mm512_add_epi64(_mm512_loadu_si512((const void *)keys), seed_mix));
}
FL_INLINE __m512i reduce8(__m512i h, __m512i range) {
    /* ((h >> 32) * range + ((h & 0xffffffff) * range >> 32)); p0 is its high half */
    return _mm512_add_epi64(_mm512_mul_epu32(_mm512_srli_epi64(h, 32), range),
                            _mm512_srli_epi64(_mm512_mul_epu32(h, range), 32));
}

/* 16 keys: the XOR of their cells and words, masked to the cell width (0 for a fuse key,
 * the value for a Bloomier key). Two 8-lane hash vectors a, b become 16-lane 32-bit halves
 * lo = (uint32_t)h and hi = h >> 32 with one two-source permute each; then
 * h >> 18 = lo >> 18 | hi << 14, h >> 36 = hi >> 4 and the word lo ^ hi are 32-bit math. */
FL_INLINE __m512i probe16(const fl_fuse_view *v, const uint64_t *keys, int arity, int bits,
                          int gather) {
    const __m512i seed_mix = _mm512_set1_epi64((long long)v->seed_mix);
    const __m512i range = _mm512_set1_epi64((long long)v->seg_count_len);
    const __m512i mask = _mm512_set1_epi32((int)v->seg_mask);
    const __m512i len = _mm512_set1_epi32((int)v->seg_len);
    const __m512i cmask = _mm512_set1_epi32(bits == 32 ? -1 : (int)((1u << bits) - 1));
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    __m512i a = hash8(keys, seed_mix), b = hash8(keys + 8, seed_mix);
    __m512i lo = _mm512_permutex2var_epi32(a, even, b);
    __m512i hi = _mm512_permutex2var_epi32(a, odd, b);
    __m512i p[4];
    p[0] = _mm512_permutex2var_epi32(reduce8(a, range), odd, reduce8(b, range));
    __m512i len2 = _mm512_add_epi32(len, len);
    __m512i x1 = _mm512_or_si512(_mm512_srli_epi32(lo, 18), _mm512_slli_epi32(hi, 14));
    p[1] = _mm512_xor_si512(_mm512_add_epi32(p[0], len), _mm512_and_si512(x1, mask));
    p[2] = _mm512_xor_si512(_mm512_add_epi32(p[0], len2), _mm512_and_si512(lo, mask));
    if (arity == 4)
        p[3] = _mm512_xor_si512(_mm512_add_epi32(p[0], _mm512_add_epi32(len2, len)),
                                _mm512_and_si512(_mm512_srli_epi32(hi, 4), mask));
    __m512i x = _mm512_xor_si512(lo, hi);
    if (gather) {
        /* scale = cell bytes: a 4-byte read at each cell's address; the cells are padded by
         * 64 bytes, so the last cell's read stays inside the allocation. */
        for (int j = 0; j < arity; j++) {
            __m512i g = bits == 8    ? _mm512_i32gather_epi32(p[j], v->cells, 1)
                        : bits == 16 ? _mm512_i32gather_epi32(p[j], v->cells, 2)
                                     : _mm512_i32gather_epi32(p[j], v->cells, 4);
            x = _mm512_xor_si512(x, g);
        }
    } else {
        uint32_t pos[4][16], cell[16];
        for (int j = 0; j < arity; j++) _mm512_storeu_si512((void *)pos[j], p[j]);
        FL_FUSE_XOR_CELLS(v, pos, 16, arity, bits, cell);
        x = _mm512_xor_si512(x, _mm512_loadu_si512((const void *)cell));
    }
    return _mm512_and_si512(x, cmask);
}

/* The table's kernels (gather = 2) read the cells of a 3-wise array of at most
 * LOADS_MAX_BYTES with scalar loads and gather otherwise: checkkernels --bench --min --family
 * fuse on zen5, in alternation (results/zen5-kvm-2c-5bce/static/avx512_gather_vs_loads_ab.txt),
 * measured the loads ahead for 3-wise arrays up to 1-2 MiB, the gathers ahead for 4-wise ones
 * and at 10M keys (HACKING.md, "Binary fuse", says how to redo the A/B). */
#define LOADS_MAX_BYTES ((uint64_t)2 << 20)
FL_INLINE int use_gather(const fl_fuse_view *v, int arity, int bits, int gather) {
    if (gather != 2) return gather;
    uint64_t bytes = ((uint64_t)v->seg_count_len + (uint64_t)(arity - 1) * v->seg_len) * (bits / 8);
    return arity == 4 || bytes > LOADS_MAX_BYTES;
}

FL_INLINE size_t contains_impl(const fl_fuse_view *v, const uint64_t *keys, size_t n,
                               uint8_t *out, int arity, int bits, int gather,
                               fl_fuse_contains_fn tail) {
    size_t i = 0, hits = 0;
    /* A copy the out stores cannot alias: the compiler keeps its fields in registers
     * across the loop instead of reloading and rebroadcasting them for every step. */
    const fl_fuse_view view = *v;
    if (use_gather(v, arity, bits, gather) == 0) {
        for (; i + 16 <= n; i += 16) {
            __mmask16 m = _mm512_testn_epi32_mask(probe16(&view, keys + i, arity, bits, 0),
                                                  _mm512_set1_epi32(-1));
            _mm_storeu_si128((__m128i *)(void *)(out + i), _mm_maskz_set1_epi8(m, 1));
            hits += (size_t)__builtin_popcount(m);
        }
        if (i < n) hits += tail(v, keys + i, n - i, out + i);
        return hits;
    }
    if (!gather_reaches(v, arity)) return tail(v, keys, n, out);
    for (; i + 16 <= n; i += 16) {
        __mmask16 m = _mm512_testn_epi32_mask(probe16(&view, keys + i, arity, bits, 1),
                                              _mm512_set1_epi32(-1));
        _mm_storeu_si128((__m128i *)(void *)(out + i), _mm_maskz_set1_epi8(m, 1));
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
    const __m128i vbits = _mm_cvtsi32_si128(v->value_bits);
    for (; i + 16 <= n; i += 16) {
        __m512i x = probe16(&view, keys + i, arity, bits, gather);
        __mmask16 m = _mm512_testn_epi32_mask(_mm512_srl_epi32(x, vbits), _mm512_set1_epi32(-1));
        __m256i val = _mm512_cvtepi32_epi16(_mm512_maskz_mov_epi32(m, x));
        _mm256_storeu_si256((__m256i *)(void *)(values + i), val);
        _mm_storeu_si128((__m128i *)(void *)(found + i), _mm_maskz_set1_epi8(m, 1));
        hits += (size_t)__builtin_popcount(m);
    }
    if (i < n) hits += tail(v, keys + i, n - i, values + i, found + i);
    return hits;
}

/* contains3_8 ... get4_32, fl_fuse_kernels_loads_avx512 and fl_fuse_kernels_init_avx512() */
FL_FUSE_X86_KERNELS(avx512, 2)
