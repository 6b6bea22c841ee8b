/*
 * AVX2 kernels of the cuckoo module: batch lookups of every fingerprint width, 8 keys per
 * iteration, a key per qword lane, buckets gathered or (the loads form, the avx2-loads
 * candidate's entries) read by scalar loads. Built only with the AVX2 library's flags
 * (kernels/meson.build) and reached only through the kernel table once dispatch has seen the
 * CPU and OS support them. Every kernel computes exactly the buckets of probe.h; the tails
 * run the scalar lookups (kernels/cuckoo_scalar.c). Filters larger than L2 also get software
 * prefetching PF_DIST keys ahead; each lookup is instantiated twice and picks by payload
 * size (simd_common.h). Measured with checkkernels --bench.
 */
#if !defined(__AVX2__) || !defined(__BMI2__) || !defined(__FMA__)
#error "kernels/cuckoo_avx2.c needs -mavx2 -mbmi2 -mfma"
#endif

#include <immintrin.h>
#include <string.h>

#include "kernels.h"
#include "probe.h"
#include "simd_common.h"
#include "avx2_common.h"
#include "cuckoo_u64s.h"

/* Two buckets a key: kernels.h's FL_PF_MIN_BYTES_BUCKETS, not the L2 size alone. */
#undef PF_MIN_BYTES
#define PF_MIN_BYTES FL_PF_MIN_BYTES_BUCKETS

/* ---- cuckoo ------------------------------------------------------------------------------ */

/* fp, i1, i2 of probe.h for 4 keys in qword lanes (all values < 2^32, so signed 64-bit
 * compares are exact). */
FL_INLINE void cuckoo_index(__m256i h, __m256i units, __m256i fpmax, __m256i *fp, __m256i *i1,
                            __m256i *i2) {
    *i1 = unit_index(h, units);
    *fp = _mm256_add_epi64(reduce_lo(h, fpmax), _mm256_set1_epi64x(1));
    /* fp * 0x5bd1e995 mod 2^32 in the low dword; vpmuludq ignores the high one. */
    __m256i hf = reduce_lo(_mm256_mullo_epi32(*fp, _mm256_set1_epi64x(0x5bd1e995)), units);
    __m256i wrap = _mm256_and_si256(_mm256_cmpgt_epi64(*i1, hf), units);
    *i2 = _mm256_add_epi64(_mm256_sub_epi64(hf, *i1), wrap);
}

/* Per 64-bit lane, nonzero iff a 12-bit slot of bucket word w equals the lane's fingerprint
 * copied into all 4 slots (r): filterlab_inline.h's fl_cuckoo12_has, 4 keys at a time (the
 * gathered 8 bytes' top 2, the next bucket's, only reach bits the HI mask drops). */
FL_INLINE __m256i cuckoo12_has(__m256i w, __m256i r) {
    const __m256i lo = _mm256_set1_epi64x((long long)FL_CUCKOO12_LO);
    const __m256i hi = _mm256_set1_epi64x((long long)FL_CUCKOO12_HI);
    __m256i x = _mm256_xor_si256(w, r);
    return _mm256_and_si256(_mm256_andnot_si256(x, _mm256_sub_epi64(x, lo)), hi);
}

/* The nibble words of the semi-sorted table (fl_cuckoo_ss_table) for the 12-bit ranks that
 * lead the 4 bucket words w, gathered. */
FL_INLINE __m256i cuckoo_ss_nibbles(__m256i w, const int bits) {
    __m256i rank = _mm256_and_si256(w, _mm256_set1_epi64x(0xfff));
    return _mm256_cvtepu32_epi64(_mm256_i64gather_epi32(
        (const int *)(const void *)fl_cuckoo_ss_table((uint32_t)bits), rank, 4));
}

/* Per 64-bit lane, nonzero iff a slot of semi-sorted bucket word w (fingerprints of `bits`
 * bits, 11 or 13; t: its rank's nibble word) holds the lane's fingerprint, whose low bits
 * (rlo) and nibble (rnib) are copied into all 4 lanes of bits - 4 bits: filterlab_inline.h's
 * fl_cuckoo_ss_has, 4 keys at a time. */
FL_INLINE __m256i cuckoo_ss_has(__m256i w, __m256i t, __m256i rlo, __m256i rnib, const int bits) {
    const __m256i lo = _mm256_set1_epi64x((long long)FL_CUCKOO_SS_LO(bits - 4));
    const __m256i hi = _mm256_set1_epi64x((long long)FL_CUCKOO_SS_HI(bits - 4));
    __m256i y = _mm256_or_si256(_mm256_xor_si256(_mm256_srli_epi64(w, 12), rlo),
                                _mm256_xor_si256(t, rnib));
    return _mm256_and_si256(_mm256_andnot_si256(y, _mm256_sub_epi64(y, lo)), hi);
}

/* The loads form's bucket words: the 8-byte words at byte offsets o1 and o2 (4 keys each), read
 * by scalar loads from the offsets stored, into *b1 and *b2; for the semi-sorted widths also
 * their ranks' nibble words into *t1 and *t2, read the same way (where the gathers' form
 * gathers them too). Zen 3 runs these 8 or 16 loads and the lane inserts faster than its
 * 256-bit gathers; Emerald Rapids ran them slower in cache (README's cuckoo section). Hence
 * a candidate of its own, which src/cpu/kernel_rules.c picks per CPU. */
FL_INLINE void cuckoo_load_words(const uint8_t *base, __m256i o1, __m256i o2, const int bits,
                                 __m256i *b1, __m256i *b2, __m256i *t1, __m256i *t2) {
    uint64_t off[8], w[8];
    _mm256_storeu_si256((__m256i *)(void *)off, o1);
    _mm256_storeu_si256((__m256i *)(void *)(off + 4), o2);
    for (int j = 0; j < 8; j++) memcpy(&w[j], base + off[j], 8);
    *b1 = _mm256_setr_epi64x((long long)w[0], (long long)w[1], (long long)w[2], (long long)w[3]);
    *b2 = _mm256_setr_epi64x((long long)w[4], (long long)w[5], (long long)w[6], (long long)w[7]);
    if (bits == 11 || bits == 13) {
        const uint32_t *tab = fl_cuckoo_ss_table((uint32_t)bits);
        *t1 = _mm256_setr_epi64x(tab[w[0] & 0xfff], tab[w[1] & 0xfff], tab[w[2] & 0xfff],
                                 tab[w[3] & 0xfff]);
        *t2 = _mm256_setr_epi64x(tab[w[4] & 0xfff], tab[w[5] & 0xfff], tab[w[6] & 0xfff],
                                 tab[w[7] & 0xfff]);
    }
}

/* 4 hit bits for 4 keys; gather = 0: the loads form (cuckoo_load_words). */
FL_INLINE unsigned cuckoo_probe4(const uint8_t *base, __m256i h, __m256i units, __m256i fpmax,
                                 const int bits, const int gather) {
    __m256i fp, i1, i2;
    cuckoo_index(h, units, fpmax, &fp, &i1, &i2);
    if (bits == 11 || bits == 12 || bits == 13) {
        /* Bucket b at byte 6b = 2 * 3b: gather with scale 2 from index 3b; at byte 5b (11
         * bits), scale 1 from index 4b + b. */
        __m256i x1 = bits == 11 ? _mm256_add_epi64(_mm256_slli_epi64(i1, 2), i1)
                                : _mm256_add_epi64(_mm256_add_epi64(i1, i1), i1);
        __m256i x2 = bits == 11 ? _mm256_add_epi64(_mm256_slli_epi64(i2, 2), i2)
                                : _mm256_add_epi64(_mm256_add_epi64(i2, i2), i2);
        __m256i b1, b2, t1 = _mm256_setzero_si256(), t2 = t1;
        if (gather) {
            b1 = bits == 11 ? _mm256_i64gather_epi64((const long long *)base, x1, 1)
                            : _mm256_i64gather_epi64((const long long *)base, x1, 2);
            b2 = bits == 11 ? _mm256_i64gather_epi64((const long long *)base, x2, 1)
                            : _mm256_i64gather_epi64((const long long *)base, x2, 2);
            if (bits != 12) {
                t1 = cuckoo_ss_nibbles(b1, bits);
                t2 = cuckoo_ss_nibbles(b2, bits);
            }
        } else if (bits == 11) {
            cuckoo_load_words(base, x1, x2, bits, &b1, &b2, &t1, &t2);
        } else {
            cuckoo_load_words(base, _mm256_add_epi64(x1, x1), _mm256_add_epi64(x2, x2), bits,
                              &b1, &b2, &t1, &t2);
        }
        __m256i any;
        if (bits != 12) {
            /* The products fit: fp < 2^13 and LO < 2^28. */
            const __m256i one = _mm256_set1_epi64x((long long)FL_CUCKOO_SS_LO(bits - 4));
            __m256i rlo = _mm256_mul_epu32(
                _mm256_and_si256(fp, _mm256_set1_epi64x((1 << (bits - 4)) - 1)), one);
            __m256i rnib = _mm256_mul_epu32(_mm256_srli_epi64(fp, bits - 4), one);
            any = _mm256_or_si256(cuckoo_ss_has(b1, t1, rlo, rnib, bits),
                                  cuckoo_ss_has(b2, t2, rlo, rnib, bits));
        } else {
            __m256i r = _mm256_or_si256(fp, _mm256_slli_epi64(fp, 12));
            r = _mm256_or_si256(r, _mm256_slli_epi64(r, 24));
            any = _mm256_or_si256(cuckoo12_has(b1, r), cuckoo12_has(b2, r));
        }
        return ~(unsigned)_mm256_movemask_pd(
                   _mm256_castsi256_pd(_mm256_cmpeq_epi64(any, _mm256_setzero_si256()))) & 0xfu;
    }
    if (bits == 16) {
        /* Copy each lane's fingerprint into its 4 16-bit slots. */
        const __m256i rep = _mm256_setr_epi8(0, 1, 0, 1, 0, 1, 0, 1, 8, 9, 8, 9, 8, 9, 8, 9,
                                             0, 1, 0, 1, 0, 1, 0, 1, 8, 9, 8, 9, 8, 9, 8, 9);
        __m256i b1, b2, t1, t2;
        if (gather) {
            b1 = _mm256_i64gather_epi64((const long long *)base, i1, 8);
            b2 = _mm256_i64gather_epi64((const long long *)base, i2, 8);
        } else {
            cuckoo_load_words(base, _mm256_slli_epi64(i1, 3), _mm256_slli_epi64(i2, 3), bits,
                              &b1, &b2, &t1, &t2);
        }
        __m256i r = _mm256_shuffle_epi8(fp, rep);
        __m256i eq = _mm256_or_si256(_mm256_cmpeq_epi16(b1, r), _mm256_cmpeq_epi16(b2, r));
        return ~(unsigned)_mm256_movemask_pd(
                   _mm256_castsi256_pd(_mm256_cmpeq_epi64(eq, _mm256_setzero_si256()))) & 0xfu;
    }
    const __m128i rep = _mm_setr_epi8(0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8, 12, 12, 12, 12);
    __m128i b1, b2;
    if (gather) {
        b1 = _mm256_i64gather_epi32((const int *)base, i1, 4);
        b2 = _mm256_i64gather_epi32((const int *)base, i2, 4);
    } else {
        /* 4-byte buckets: the 32-bit words at 4 * i, read the same way. */
        uint64_t ix[8];
        uint32_t w[8];
        _mm256_storeu_si256((__m256i *)(void *)ix, i1);
        _mm256_storeu_si256((__m256i *)(void *)(ix + 4), i2);
        for (int j = 0; j < 8; j++) memcpy(&w[j], base + 4 * ix[j], 4);
        b1 = _mm_setr_epi32((int)w[0], (int)w[1], (int)w[2], (int)w[3]);
        b2 = _mm_setr_epi32((int)w[4], (int)w[5], (int)w[6], (int)w[7]);
    }
    __m128i fp32 = _mm256_castsi256_si128(
        _mm256_permutevar8x32_epi32(fp, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6)));
    __m128i r = _mm_shuffle_epi8(fp32, rep);
    __m128i eq = _mm_or_si128(_mm_cmpeq_epi8(b1, r), _mm_cmpeq_epi8(b2, r));
    return ~(unsigned)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(eq, _mm_setzero_si128()))) &
           0xfu;
}

FL_INLINE size_t cuckoo_contains(const fl_kview *f, const uint64_t *hashes, size_t n,
                                 uint8_t *out, const int prefetch, const int bits,
                                 const int gather) {
    const uint8_t *base = (const uint8_t *)f->data;
    const __m256i units = _mm256_set1_epi64x(f->units);
    const __m256i fpmax = _mm256_set1_epi64x((1u << f->k) - 1u);
    const size_t bb = fl_cuckoo_bucket_bytes((uint32_t)bits);
    size_t i = 0, pos = 0;
    for (; i + 8 <= n; i += 8) {
        if (prefetch && i + PF_DIST + 8 <= n) {
            for (int g = 0; g < 2; g++) {
                __m256i fa, a1, a2;
                uint64_t ia[8];
                cuckoo_index(load4(hashes, i + PF_DIST + 4 * (size_t)g), units, fpmax, &fa, &a1, &a2);
                _mm256_storeu_si256((__m256i *)ia, a1);
                _mm256_storeu_si256((__m256i *)(ia + 4), a2);
                /* Make GCC really store and reload instead of extracting lane by lane. */
                __asm__ volatile("" ::: "memory");
                for (int j = 0; j < 8; j++) pf_read(base + bb * ia[j]);
            }
        }
        unsigned hits = cuckoo_probe4(base, load4(hashes, i), units, fpmax, bits, gather) |
                        cuckoo_probe4(base, load4(hashes, i + 4), units, fpmax, bits, gather) << 4;
        if (f->stash_count && hits != 0xff) hits |= fl_cuckoo_stash_lanes(f, hashes, i, ~hits & 0xffu);
        pos += emit8(out + i, hits);
    }
    pos += cuckoo_scalar(bits)(f, hashes + i, n - i, out + i);
    return pos;
}

/* Each width's lookups of hashes and of integer keys, with gathers (the avx2 table's) and in
 * the loads form (fl_cuckoo_kernels_loads_avx2, the avx2-loads candidate's). */
#define CUCKOO_WIDTH(bits, unit_bytes)                                                         \
    FL_LOOKUP_BY_SIZE(fl_contains_cuckoo##bits##_avx2, unit_bytes, cuckoo_contains, bits, 1)   \
    FL_LOOKUP_BY_SIZE(fl_contains_cuckoo##bits##_loads_avx2, unit_bytes, cuckoo_contains,     \
                      bits, 0)                                                                 \
    FL_CUCKOO_U64S_BY_BLOCKS(fl_contains_u64s_cuckoo##bits##_avx2,                             \
                             fl_contains_cuckoo##bits##_avx2)                                  \
    FL_CUCKOO_U64S_BY_BLOCKS(fl_contains_u64s_cuckoo##bits##_loads_avx2,                       \
                             fl_contains_cuckoo##bits##_loads_avx2)
CUCKOO_WIDTH(8, 4)
CUCKOO_WIDTH(11, 5)
CUCKOO_WIDTH(12, 6)
CUCKOO_WIDTH(13, 6)
CUCKOO_WIDTH(16, 8)

#define CUCKOO_LOADS(bits) [FL_CUCKOO_FP##bits] = fl_contains_cuckoo##bits##_loads_avx2
#define CUCKOO_U64S_LOADS(bits) [FL_CUCKOO_FP##bits] = fl_contains_u64s_cuckoo##bits##_loads_avx2
const fl_cuckoo_kernels fl_cuckoo_kernels_loads_avx2 = {
    .contains = {CUCKOO_LOADS(8), CUCKOO_LOADS(11), CUCKOO_LOADS(12), CUCKOO_LOADS(13),
                 CUCKOO_LOADS(16)},
    .contains_u64s = {CUCKOO_U64S_LOADS(8), CUCKOO_U64S_LOADS(11), CUCKOO_U64S_LOADS(12),
                      CUCKOO_U64S_LOADS(13), CUCKOO_U64S_LOADS(16)},
};

void fl_cuckoo_kernels_init_avx2(fl_kernel_table *t) {
    t->cuckoo.contains[FL_CUCKOO_FP8] = fl_contains_cuckoo8_avx2;
    t->cuckoo.contains[FL_CUCKOO_FP11] = fl_contains_cuckoo11_avx2;
    t->cuckoo.contains[FL_CUCKOO_FP12] = fl_contains_cuckoo12_avx2;
    t->cuckoo.contains[FL_CUCKOO_FP13] = fl_contains_cuckoo13_avx2;
    t->cuckoo.contains[FL_CUCKOO_FP16] = fl_contains_cuckoo16_avx2;
    t->cuckoo.contains_u64s[FL_CUCKOO_FP8] = fl_contains_u64s_cuckoo8_avx2;
    t->cuckoo.contains_u64s[FL_CUCKOO_FP11] = fl_contains_u64s_cuckoo11_avx2;
    t->cuckoo.contains_u64s[FL_CUCKOO_FP12] = fl_contains_u64s_cuckoo12_avx2;
    t->cuckoo.contains_u64s[FL_CUCKOO_FP13] = fl_contains_u64s_cuckoo13_avx2;
    t->cuckoo.contains_u64s[FL_CUCKOO_FP16] = fl_contains_u64s_cuckoo16_avx2;
}
