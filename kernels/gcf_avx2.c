/*
 * The gcf module's AVX2 kernel (-mavx2 -mbmi2 -mfma): 4 keys per iteration, a key per qword
 * lane, as kernels/gcf_avx512.c does with 8: the two bucket indices of
 * include/filterlab_gcf.h in the lanes, two gathers, the header's SWAR slot test
 * (fl_gcf_match) on the 4 words at once. Tables past PF_MIN_BYTES get both words of the keys
 * PF_DIST ahead prefetched; the tail runs kernels/gcf_loop.h's key loop. Checked against
 * scalar by tests/checkkernels/check_gcf.c.
 */
#if !defined(__AVX2__) || !defined(__BMI2__)
#error "kernels/gcf_avx2.c needs -mavx2 -mbmi2"
#endif

#include "kernels.h"
#include "probe.h"
#include "x86_common.h"
#include "avx2_common.h"
#include "gcf_loop.h"

#define V(x) _mm256_set1_epi64x((long long)(x))

FL_INLINE void gcf_index4(__m256i h, const gcf_shape *s, __m256i *i1, __m256i *i2,
                          __m256i *pat) {
    const __m256i kmask = V(s->kmask), c = V(s->c);
    __m256i tag = _mm256_and_si256(h, V(0xff));
    tag = _mm256_sub_epi64(tag, _mm256_cmpeq_epi64(tag, _mm256_setzero_si256())); /* 0 -> 1 */
    __m256i stripe = _mm256_and_si256(_mm256_srli_epi64(h, 8), kmask);
    __m256i col = _mm256_srli_epi64(_mm256_mul_epu32(_mm256_srli_epi64(h, 48), c), 16);
    __m256i alt = _mm256_srl_epi32(_mm256_mullo_epi32(tag, V(FL_GCF_ALT_MUL)),
                                   _mm_cvtsi32_si128((int)(32 - s->w)));
    alt = _mm256_or_si256(alt, V(1));
    __m256i lo2 = _mm256_and_si256(_mm256_xor_si256(stripe, alt), kmask);
    *i1 = _mm256_add_epi64(_mm256_mul_epu32(stripe, c), col);
    *i2 = _mm256_add_epi64(_mm256_mul_epu32(lo2, c), col);
    __m256i q = _mm256_and_si256(_mm256_srl_epi64(h, _mm_cvtsi32_si128((int)(8 + s->kbits))), V(0x7f));
    __m256i p = _mm256_or_si256(tag, _mm256_slli_epi64(q, 8));
    p = _mm256_or_si256(p, _mm256_slli_epi64(p, 16));
    *pat = _mm256_or_si256(p, _mm256_slli_epi64(p, 32));
}

FL_INLINE __m256i gcf_match4(__m256i x, __m256i pat) {
    __m256i e = _mm256_and_si256(_mm256_srli_epi64(x, 8), V(FL_GCF_LANE_LO8));
    __m256i m = _mm256_or_si256(e, _mm256_srli_epi64(e, 1));
    m = _mm256_or_si256(m, _mm256_srli_epi64(m, 2));
    m = _mm256_or_si256(m, _mm256_srli_epi64(m, 4));
    __m256i care = _mm256_or_si256(
        _mm256_slli_epi64(_mm256_and_si256(_mm256_srli_epi64(m, 1), V(FL_GCF_LANE_LO7)), 8),
        V(FL_GCF_LANE_LO8));
    __m256i d = _mm256_and_si256(_mm256_xor_si256(x, pat), care);
    __m256i nz = _mm256_or_si256(
        _mm256_add_epi64(_mm256_and_si256(d, V(FL_GCF_LANE_LO15)), V(FL_GCF_LANE_LO15)), d);
    return _mm256_andnot_si256(nz, V(FL_GCF_LANE_TOP));
}

FL_INLINE size_t gcf_contains_loop(const fl_kview *f, const uint64_t *hashes, size_t n,
                                   uint8_t *out, const int prefetch) {
    gcf_shape s = gcf_shape_of(f);
    const long long *base = (const long long *)(const void *)s.b;
    size_t i = 0, pos = 0;
    for (; i + 4 <= n; i += 4) {
        if (prefetch && i + PF_DIST + 4 <= n) {
            __m256i a1, a2, ap;
            uint64_t ia[8];
            gcf_index4(load4(hashes, i + PF_DIST), &s, &a1, &a2, &ap);
            _mm256_storeu_si256((__m256i *)(void *)ia, a1);
            _mm256_storeu_si256((__m256i *)(void *)(ia + 4), a2);
            __asm__ volatile("" ::: "memory");
            for (int j = 0; j < 8; j++) pf_read(s.b + ia[j]);
        }
        __m256i i1, i2, pat;
        gcf_index4(load4(hashes, i), &s, &i1, &i2, &pat);
        __m256i w1 = _mm256_i64gather_epi64(base, i1, 8);
        __m256i w2 = _mm256_i64gather_epi64(base, i2, 8);
        __m256i hit = _mm256_or_si256(gcf_match4(w1, pat), gcf_match4(w2, pat));
        /* a lane with a hit is nonzero: its qword's compare with 0 is false */
        unsigned z = (unsigned)_mm256_movemask_pd(
            _mm256_castsi256_pd(_mm256_cmpeq_epi64(hit, _mm256_setzero_si256())));
        unsigned hits = ~z & 0xfu;
        uint32_t b = (uint32_t)_pdep_u32(hits, 0x01010101u);
        memcpy(out + i, &b, 4);
        pos += (size_t)__builtin_popcount(hits);
    }
    return pos + gcf_contains_keys(&s, hashes, i, n, out, prefetch);
}

FL_LOOKUP_BY_SIZE(gcf_contains, 8, gcf_contains_loop)

void fl_gcf_kernels_init_avx2(fl_kernel_table *t) {
    t->gcf.contains = gcf_contains;
}
