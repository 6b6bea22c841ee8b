/*
 * The gcf module's AVX2 kernel (-mavx2 -mbmi2 -mfma): 4 keys per iteration, a key per qword
 * lane: the two bucket indices of include/filterlab_gcf.h in the lanes, two gathers, and
 * the header's slot test in the 16 16-bit lanes of each gathered vector (fl_gcf_lane_match:
 * subtract, XOR, XOR, AND-NOT, compare with zero), then one qword compare per key. Tables past
 * PF_MIN_BYTES get both words of the keys PF_DIST ahead prefetched; the tail runs
 * kernels/gcf_loop.h's key loop. Checked against scalar by tests/checkkernels/check_gcf.c.
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
#define COUNT(n) _mm_cvtsi32_si128((int)(n))

/* fl_gcf_buckets and fl_gcf_pattern of 4 hashes in qword lanes, as the AVX-512 file's. */
FL_INLINE void gcf_index4(__m256i h, const gcf_shape *s, __m256i *i1, __m256i *i2,
                          __m256i *pat) {
    const uint32_t k = s->kbits, ww = s->w < k ? s->w : k;
    __m256i tag = _mm256_and_si256(h, V(0xff));
    tag = _mm256_sub_epi64(tag, _mm256_cmpeq_epi64(tag, _mm256_setzero_si256())); /* 0 -> 1 */
    __m256i col = _mm256_mul_epu32(_mm256_and_si256(_mm256_srli_epi64(h, 8), V(0xffff)), V(s->c));
    col = _mm256_sll_epi64(_mm256_srli_epi64(col, 16), COUNT(k));
    __m256i stripe = _mm256_srli_epi64(_mm256_srl_epi64(h, COUNT(63 - k)), 1);
    /* rotated left by W within K bits: the stripe's top W bits at the bottom */
    __m256i rot = _mm256_or_si256(_mm256_and_si256(_mm256_sll_epi64(stripe, COUNT(ww)), V((1ull << k) - 1)),
                                  _mm256_srl_epi64(stripe, COUNT(k - ww)));
    __m256i alt = _mm256_srl_epi64(_mm256_mullo_epi32(tag, V(FL_GCF_ALT_MUL)), COUNT(32 - ww));
    alt = _mm256_or_si256(alt, V(ww != 0));
    *i1 = _mm256_or_si256(col, rot);
    *i2 = _mm256_xor_si256(*i1, alt);
    __m256i ext = _mm256_and_si256(_mm256_srl_epi64(h, COUNT(56 - k)), V(0xfe));
    __m256i p = _mm256_or_si256(tag, _mm256_slli_epi64(ext, 8));
    const __m256i rep16 = _mm256_broadcastsi128_si256(
        _mm_setr_epi8(0, 1, 0, 1, 0, 1, 0, 1, 8, 9, 8, 9, 8, 9, 8, 9));
    *pat = _mm256_shuffle_epi8(p, rep16);
}

/* All ones in each 16-bit lane whose slot matches its key's pattern. */
FL_INLINE __m256i gcf_match4(__m256i x, __m256i pat) {
    /* fl_gcf_lane_match: (x ^ pat) & ~(x ^ (x - 0x100)) */
    __m256i m = _mm256_xor_si256(x, _mm256_sub_epi16(x, _mm256_set1_epi16(0x100)));
    __m256i d = _mm256_andnot_si256(m, _mm256_xor_si256(x, pat));
    return _mm256_cmpeq_epi16(d, _mm256_setzero_si256());
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
        /* a key with a match has a nonzero qword: its compare with 0 is false */
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
