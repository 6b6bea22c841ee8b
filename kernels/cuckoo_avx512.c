/*
 * AVX-512 kernels of the cuckoo module: batch lookups of every fingerprint width, 8 keys per
 * iteration (one zmm of hashes), a key per qword lane, buckets gathered. Built only with the
 * AVX-512 library's flags (kernels/meson.build) and reached only through the kernel table
 * once dispatch has seen the CPU and OS support them. Every kernel computes exactly the
 * buckets of probe.h; the tails run the scalar lookups (kernels/cuckoo_scalar.c). Filters
 * larger than L2 also get software prefetching PF_DIST keys ahead; each lookup is
 * instantiated twice and picks by payload size (simd_common.h). Measured with
 * checkkernels --bench.
 */
#if !defined(__AVX512F__) || !defined(__AVX512BW__) || !defined(__AVX512VL__) ||               \
    !defined(__AVX512DQ__) || !defined(__BMI2__)
#error "kernels/cuckoo_avx512.c needs -mavx512f -mavx512bw -mavx512vl -mavx512dq -mbmi2"
#endif

#include <immintrin.h>
#include <string.h>

#include "kernels.h"
#include "probe.h"
#include "simd_common.h"
#include "avx512_common.h"

/* ---- cuckoo ------------------------------------------------------------------------------ */

/* fp, i1, i2 of probe.h for 8 keys in qword lanes (all values < 2^32). */
FL_INLINE void cuckoo_index(__m512i h, __m512i units, __m512i fpmax, __m512i *fp, __m512i *i1,
                            __m512i *i2) {
    *i1 = unit_index(h, units);
    *fp = _mm512_add_epi64(reduce_lo(h, fpmax), _mm512_set1_epi64(1));
    /* fp * 0x5bd1e995 mod 2^32 in the low dword; vpmuludq ignores the high one. */
    __m512i hf = reduce_lo(_mm512_mullo_epi32(*fp, _mm512_set1_epi64(0x5bd1e995)), units);
    __m512i d = _mm512_sub_epi64(hf, *i1);
    *i2 = _mm512_mask_add_epi64(d, _mm512_cmplt_epu64_mask(hf, *i1), d, units);
}

/* 32 compare bits (4 per key) -> one bit per key: set if any of its 4 slots matched. */
FL_INLINE unsigned nibbles_any(uint32_t m) {
    m |= m >> 1;
    m |= m >> 2;
    return _pext_u32(m, 0x11111111u);
}

/* Per key, whether a 12-bit slot of bucket word w equals the key's fingerprint copied into
 * all 4 slots (r): filterlab_inline.h's fl_cuckoo12_has, 8 keys at a time (the gathered 8
 * bytes' top 2, the next bucket's, only reach bits the HI mask drops). */
FL_INLINE __mmask8 cuckoo12_has(__m512i w, __m512i r) {
    __m512i x = _mm512_xor_si512(w, r);
    __m512i z = _mm512_andnot_si512(x, _mm512_sub_epi64(x, _mm512_set1_epi64((long long)FL_CUCKOO12_LO)));
    return _mm512_test_epi64_mask(z, _mm512_set1_epi64((long long)FL_CUCKOO12_HI));
}

FL_INLINE size_t cuckoo_contains(const fl_kview *f, const uint64_t *hashes, size_t n,
                                 uint8_t *out, const int prefetch, const int bits) {
    const uint8_t *base = (const uint8_t *)f->data;
    const __m512i units = _mm512_set1_epi64(f->units);
    const __m512i fpmax = _mm512_set1_epi64((1u << f->k) - 1u);
    const size_t bb = (size_t)bits / 2; /* bucket bytes: 4 slots */
    /* Byte shuffles copying a lane's fingerprint into all 4 slots of a bucket. */
    const __m512i rep16 = _mm512_broadcast_i32x4(
        _mm_setr_epi8(0, 1, 0, 1, 0, 1, 0, 1, 8, 9, 8, 9, 8, 9, 8, 9));
    const __m256i rep8 = _mm256_broadcastsi128_si256(
        _mm_setr_epi8(0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8, 12, 12, 12, 12));
    size_t i = 0, pos = 0;
    for (; i + 8 <= n; i += 8) {
        if (prefetch && i + PF_DIST + 8 <= n) {
            __m512i fa, a1, a2;
            uint64_t ia[16];
            cuckoo_index(load8(hashes, i + PF_DIST), units, fpmax, &fa, &a1, &a2);
            _mm512_storeu_si512(ia, a1);
            _mm512_storeu_si512(ia + 8, a2);
            /* Make GCC really store and reload: left alone it extracts the 16 indices with
             * a chain of port-5 shuffles, which makes 64 MiB lookups 1.5x slower. (Here the
             * 64-byte stores measured faster than spill8's halves: 7.3 vs 10.3 ns/key.) */
            __asm__ volatile("" ::: "memory");
            for (int j = 0; j < 16; j++) pf_read(base + bb * ia[j]);
        }
        __m512i fp, i1, i2;
        cuckoo_index(load8(hashes, i), units, fpmax, &fp, &i1, &i2);
        unsigned hits;
        if (bits == 12) {
            /* Bucket b at byte 6b = 2 * 3b: gather with scale 2 from index 3b. */
            __m512i b1 = _mm512_i64gather_epi64(_mm512_add_epi64(_mm512_add_epi64(i1, i1), i1),
                                                (const void *)base, 2);
            __m512i b2 = _mm512_i64gather_epi64(_mm512_add_epi64(_mm512_add_epi64(i2, i2), i2),
                                                (const void *)base, 2);
            __m512i r = _mm512_or_si512(fp, _mm512_slli_epi64(fp, 12));
            r = _mm512_or_si512(r, _mm512_slli_epi64(r, 24));
            hits = (unsigned)(cuckoo12_has(b1, r) | cuckoo12_has(b2, r));
        } else if (bits == 16) {
            __m512i b1 = _mm512_i64gather_epi64(i1, (const void *)base, 8);
            __m512i b2 = _mm512_i64gather_epi64(i2, (const void *)base, 8);
            __m512i r = _mm512_shuffle_epi8(fp, rep16);
            hits = nibbles_any((uint32_t)(_mm512_cmpeq_epi16_mask(b1, r) | _mm512_cmpeq_epi16_mask(b2, r)));
        } else {
            __m256i b1 = _mm512_i64gather_epi32(i1, (const void *)base, 4);
            __m256i b2 = _mm512_i64gather_epi32(i2, (const void *)base, 4);
            __m256i r = _mm256_shuffle_epi8(_mm512_cvtepi64_epi32(fp), rep8);
            hits = nibbles_any((uint32_t)(_mm256_cmpeq_epi8_mask(b1, r) | _mm256_cmpeq_epi8_mask(b2, r)));
        }
        if (f->stash_count && hits != 0xff) hits |= fl_cuckoo_stash_lanes(f, hashes, i, ~hits & 0xffu);
        pos += emit8(out + i, hits);
    }
    pos += cuckoo_scalar(bits)(f, hashes + i, n - i, out + i);
    return pos;
}

FL_LOOKUP_BY_SIZE(fl_contains_cuckoo8_avx512, 4, cuckoo_contains, 8)

FL_LOOKUP_BY_SIZE(fl_contains_cuckoo12_avx512, 6, cuckoo_contains, 12)

FL_LOOKUP_BY_SIZE(fl_contains_cuckoo16_avx512, 8, cuckoo_contains, 16)

void fl_cuckoo_kernels_init_avx512(fl_kernel_table *t) {
    t->cuckoo.contains[FL_CUCKOO_FP8] = fl_contains_cuckoo8_avx512;
    t->cuckoo.contains[FL_CUCKOO_FP12] = fl_contains_cuckoo12_avx512;
    t->cuckoo.contains[FL_CUCKOO_FP16] = fl_contains_cuckoo16_avx512;
}
