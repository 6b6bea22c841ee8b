/*
 * The fuse module's AVX-512 kernels. The table's lookups and Bloomier retrievals gather:
 * 8 keys per group in 256-bit vectors (AVX-512VL/DQ instructions: vpmullq, vpermt2d,
 * vpternlogd, vptestnmd; positions8 and cells8 below), two groups per step. The "loads"
 * form (fl_fuse_kernels_loads_avx512, its own candidate of the kernel choice) takes 16 keys
 * per step in 512-bit vectors and reads the cells by scalar loads from positions stored to
 * the stack. Both compute include/filterlab_static.h's answer exactly (the hash is
 * SplitMix64's finalizer, p0 is fl_fuse_reduce from two vpmuludq on the hash's halves);
 * tails run the scalar kernels. tests/checkkernels --bench --family fuse times both forms
 * on the same filters; src/cpu/kernel_rules.c says which one each measured CPU takes.
 *
 * No software prefetch: the cells of a key are 3-4 random lines and the gathers of two
 * groups put 48 or 64 independent reads in flight, more than the core's line fill buffers
 * hold. Prefetching the cells 16, 32 or 64 keys ahead (hint T0 or T1) made fuse8 lookups at
 * 10M keys (11 MiB of cells) slower on Emerald Rapids, never faster
 * (results/emeraldrapids-kvm-2c-5bce/against/fastfilter_cpp/fuse-onekey/
 * fuse8-10M-prefetch-ab.txt, measured on the earlier 16-lane gathers).
 */
#include <immintrin.h>

#include "kernels.h"

#define FL_INLINE static inline __attribute__((always_inline))

#include "fuse_simd.h"

/* SplitMix64's finalizer (vpmullq) and fl_fuse_reduce's t = (h >> 32) * range +
 * ((h & 0xffffffff) * range >> 32), whose high half is p0, per 64-bit lane, in W-bit vectors:
 * mix64_512 / reduce_512 for the loads form, mix64_256 / reduce_256 for the gathers. */
#define FUSE_HASH_AT_WIDTH(W, set1)                                                          \
    FL_INLINE __m##W##i mix64_##W(__m##W##i z) {                                             \
        z = _mm##W##_xor_si##W(z, _mm##W##_srli_epi64(z, 30));                               \
        z = _mm##W##_mullo_epi64(z, set1((long long)0xbf58476d1ce4e5b9ull));                 \
        z = _mm##W##_xor_si##W(z, _mm##W##_srli_epi64(z, 27));                               \
        z = _mm##W##_mullo_epi64(z, set1((long long)0x94d049bb133111ebull));                 \
        return _mm##W##_xor_si##W(z, _mm##W##_srli_epi64(z, 31));                            \
    }                                                                                        \
    FL_INLINE __m##W##i reduce_##W(__m##W##i h, __m##W##i range) {                           \
        return _mm##W##_add_epi64(_mm##W##_mul_epu32(_mm##W##_srli_epi64(h, 32), range),     \
                                  _mm##W##_srli_epi64(_mm##W##_mul_epu32(h, range), 32));    \
    }
FUSE_HASH_AT_WIDTH(512, _mm512_set1_epi64)
FUSE_HASH_AT_WIDTH(256, _mm256_set1_epi64x)

/* 8 keys: their hashes. */
FL_INLINE __m512i hash8(const uint64_t *keys, __m512i seed_mix) {
    return mix64_512(_mm512_add_epi64(_mm512_loadu_si512((const void *)keys), seed_mix));
}

/* The loads form, 16 keys: the XOR of their cells and words, masked to the cell width (0
 * for a fuse key, the value for a Bloomier key). Two 8-lane hash vectors a, b become 16-lane
 * 32-bit halves lo = (uint32_t)h and hi = h >> 32 with one two-source permute each; then
 * h >> 18 = lo >> 18 | hi << 14, h >> 36 = hi >> 4 and the word lo ^ hi are 32-bit math, and
 * the cells are read by scalar loads at positions stored to the stack. */
FL_INLINE __m512i probe16_loads(const fl_fuse_view *v, const uint64_t *keys, int arity,
                                int bits) {
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
    p[0] = _mm512_permutex2var_epi32(reduce_512(a, range), odd, reduce_512(b, range));
    __m512i len2 = _mm512_add_epi32(len, len);
    __m512i x1 = _mm512_or_si512(_mm512_srli_epi32(lo, 18), _mm512_slli_epi32(hi, 14));
    p[1] = _mm512_xor_si512(_mm512_add_epi32(p[0], len), _mm512_and_si512(x1, mask));
    p[2] = _mm512_xor_si512(_mm512_add_epi32(p[0], len2), _mm512_and_si512(lo, mask));
    if (arity == 4)
        p[3] = _mm512_xor_si512(_mm512_add_epi32(p[0], _mm512_add_epi32(len2, len)),
                                _mm512_and_si512(_mm512_srli_epi32(hi, 4), mask));
    __m512i x = _mm512_xor_si512(lo, hi);
    uint32_t pos[4][16], cell[16];
    for (int j = 0; j < arity; j++) _mm512_storeu_si512((void *)pos[j], p[j]);
    FL_FUSE_XOR_CELLS(v, pos, 16, arity, bits, cell);
    x = _mm512_xor_si512(x, _mm512_loadu_si512((const void *)cell));
    return _mm512_and_si512(x, cmask);
}

/* The gathers' form, 8 keys a group. Against the AVX2 kernel's probe: vpmullq does each
 * SplitMix64 product (AVX2 builds it from three vpmuludq, two shifts and two adds), vpermt2d
 * splits the hashes into 32-bit halves already in key order (no final permute), vpternlogd
 * does each "(a & mask) ^ b" and three-way XOR in one instruction, and vptestnmd gives the hit
 * mask. 256-bit, not 512: on Golden Cove (Intel's optimization manual) a 512-bit micro-op in
 * flight takes port 1's vector unit away, leaving the multiplies and shifts port 0 alone.
 * positions8 computes a group's positions and word, cells8 gathers and XORs its cells; the
 * loops compute STAGE groups' positions before gathering their cells, so the gathers of one
 * group do not wait behind the next group's hash (vpmullq's latency is 15 cycles). The
 * measurements behind these choices: results/emeraldrapids-kvm-2c-5bce/against/
 * fastfilter_cpp/fuse-onekey/fuse8-batch-avx512-ymm-ab.md. */
#define TERN_XOR3 0x96       /* a ^ b ^ c */
#define TERN_AND_XOR 0x78    /* a ^ (b & c) */
#define TERN_XOR_AND 0x28    /* (a ^ b) & c */
/* The positions (p[0..arity)) and the word of 8 keys. */
typedef struct pos8 {
    __m256i p[4], word;
} pos8;
FL_INLINE void positions8(const fl_fuse_view *v, const uint64_t *keys, int arity, pos8 *o) {
    const __m256i seed_mix = _mm256_set1_epi64x((long long)v->seed_mix);
    const __m256i range = _mm256_set1_epi64x((long long)v->seg_count_len);
    const __m256i mask = _mm256_set1_epi32((int)v->seg_mask);
    const __m256i len = _mm256_set1_epi32((int)v->seg_len);
    const __m256i even = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);
    const __m256i odd = _mm256_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15);
    __m256i a = mix64_256(_mm256_add_epi64(
        _mm256_loadu_si256((const __m256i *)(const void *)keys), seed_mix));
    __m256i b = mix64_256(_mm256_add_epi64(
        _mm256_loadu_si256((const __m256i *)(const void *)(keys + 4)), seed_mix));
    __m256i lo = _mm256_permutex2var_epi32(a, even, b);
    __m256i hi = _mm256_permutex2var_epi32(a, odd, b);
    __m256i p0 = _mm256_permutex2var_epi32(reduce_256(a, range), odd, reduce_256(b, range));
    __m256i len2 = _mm256_add_epi32(len, len);
    /* h >> 18 = lo >> 18 | hi << 14 in the bits seg_mask (< 2^18) keeps */
    __m256i x1 = _mm256_or_si256(_mm256_srli_epi32(lo, 18), _mm256_slli_epi32(hi, 14));
    o->p[0] = p0;
    o->p[1] = _mm256_ternarylogic_epi32(_mm256_add_epi32(p0, len), x1, mask, TERN_AND_XOR);
    o->p[2] = _mm256_ternarylogic_epi32(_mm256_add_epi32(p0, len2), lo, mask, TERN_AND_XOR);
    if (arity == 4)
        o->p[3] = _mm256_ternarylogic_epi32(_mm256_add_epi32(p0, _mm256_add_epi32(len2, len)),
                                            _mm256_srli_epi32(hi, 4), mask, TERN_AND_XOR);
    o->word = _mm256_xor_si256(lo, hi);
}
FL_INLINE __m256i cells8(const fl_fuse_view *v, const pos8 *q, int arity, int bits) {
    const __m256i cmask = _mm256_set1_epi32(bits == 32 ? -1 : (int)((1u << bits) - 1));
    /* 4-byte reads at cell addresses; the cells' 64-byte padding covers the last one */
    const int *base = (const int *)v->cells;
    __m256i g[4];
    for (int j = 0; j < arity; j++)
        g[j] = bits == 8    ? _mm256_i32gather_epi32(base, q->p[j], 1)
               : bits == 16 ? _mm256_i32gather_epi32(base, q->p[j], 2)
                            : _mm256_i32gather_epi32(base, q->p[j], 4);
    __m256i x = _mm256_ternarylogic_epi32(q->word, g[0], g[1], TERN_XOR3);
    if (arity == 4) x = _mm256_xor_si256(x, g[3]);
    return _mm256_ternarylogic_epi32(x, g[2], cmask, TERN_XOR_AND);
}
#define STAGE 2 /* groups of 8 keys whose positions are computed before their cells are read */

/* The table's lookups and retrievals (gather = 1) gather; the loads form (gather = 0,
 * fl_fuse_kernels_loads_avx512) is its own candidate of the kernel choice: the rules of
 * src/cpu/kernel_rules.c or a `filterlab tune` wisdom file pick between the two per CPU and
 * size class (on AMD Zen 5 the 16-lane loads led 3-wise arrays up to 2 MiB against the
 * earlier 16-lane gathers: results/zen5-kvm-2c-5bce/static/avx512_gather_vs_loads_ab.txt;
 * the 256-bit gathers here have been measured on Emerald Rapids only, so only its rule
 * takes them: on AMD the Zen 4 rule keeps avx2, other CPUs the loads form). */
FL_INLINE size_t contains_impl(const fl_fuse_view *v, const uint64_t *keys, size_t n,
                               uint8_t *out, int arity, int bits, int gather,
                               fl_fuse_contains_fn tail) {
    size_t i = 0, hits = 0;
    /* A copy the out stores cannot alias: the compiler keeps its fields in registers
     * across the loop instead of reloading and rebroadcasting them for every step. */
    const fl_fuse_view view = *v;
    if (!gather) {
        for (; i + 16 <= n; i += 16) {
            __mmask16 m = _mm512_testn_epi32_mask(probe16_loads(&view, keys + i, arity, bits),
                                                  _mm512_set1_epi32(-1));
            _mm_storeu_si128((__m128i *)(void *)(out + i), _mm_maskz_set1_epi8(m, 1));
            hits += (size_t)__builtin_popcount(m);
        }
        if (i < n) hits += tail(v, keys + i, n - i, out + i);
        return hits;
    }
    if (!gather_reaches(v, arity)) return tail(v, keys, n, out);
    for (; i + 8 * STAGE <= n; i += 8 * STAGE) {
        pos8 q[STAGE];
        for (int g = 0; g < STAGE; g++) positions8(&view, keys + i + 8 * g, arity, &q[g]);
        for (int g = 0; g < STAGE; g++) {
            __m256i x = cells8(&view, &q[g], arity, bits);
            __mmask8 m = _mm256_testn_epi32_mask(x, x);
            _mm_storel_epi64((__m128i *)(void *)(out + i + 8 * g), _mm_maskz_set1_epi8(m, 1));
            hits += (size_t)__builtin_popcount(m);
        }
    }
    if (i < n) hits += tail(v, keys + i, n - i, out + i);
    return hits;
}

FL_INLINE size_t get_impl(const fl_fuse_view *v, const uint64_t *keys, size_t n,
                          uint16_t *values, uint8_t *found, int arity, int bits, int gather,
                          fl_bloomier_get_fn tail) {
    size_t i = 0, hits = 0;
    const fl_fuse_view view = *v;
    const __m128i vbits = _mm_cvtsi32_si128(v->value_bits);
    if (!gather) {
        for (; i + 16 <= n; i += 16) {
            __m512i x = probe16_loads(&view, keys + i, arity, bits);
            __mmask16 m = _mm512_testn_epi32_mask(_mm512_srl_epi32(x, vbits), _mm512_set1_epi32(-1));
            __m256i val = _mm512_cvtepi32_epi16(_mm512_maskz_mov_epi32(m, x));
            _mm256_storeu_si256((__m256i *)(void *)(values + i), val);
            _mm_storeu_si128((__m128i *)(void *)(found + i), _mm_maskz_set1_epi8(m, 1));
            hits += (size_t)__builtin_popcount(m);
        }
        if (i < n) hits += tail(v, keys + i, n - i, values + i, found + i);
        return hits;
    }
    if (!gather_reaches(v, arity)) return tail(v, keys, n, values, found);
    for (; i + 8 * STAGE <= n; i += 8 * STAGE) {
        pos8 q[STAGE];
        for (int g = 0; g < STAGE; g++) positions8(&view, keys + i + 8 * g, arity, &q[g]);
        for (int g = 0; g < STAGE; g++) {
            __m256i x = cells8(&view, &q[g], arity, bits);
            __mmask8 m =
                _mm256_testn_epi32_mask(_mm256_srl_epi32(x, vbits), _mm256_set1_epi32(-1));
            __m128i val = _mm256_cvtepi32_epi16(_mm256_maskz_mov_epi32(m, x));
            _mm_storeu_si128((__m128i *)(void *)(values + i + 8 * g), val);
            _mm_storel_epi64((__m128i *)(void *)(found + i + 8 * g), _mm_maskz_set1_epi8(m, 1));
            hits += (size_t)__builtin_popcount(m);
        }
    }
    if (i < n) hits += tail(v, keys + i, n - i, values + i, found + i);
    return hits;
}

/* contains3_8 ... get4_32, fl_fuse_kernels_loads_avx512 and fl_fuse_kernels_init_avx512() */
FL_FUSE_X86_KERNELS(avx512)
