/*
 * The gcf module's AVX-512 kernel (-mavx512f/bw/vl/dq -mbmi2): 8 keys per iteration, a key
 * per qword lane. The lanes compute include/filterlab_gcf.h's two buckets (vpmuludq for
 * stripe * c and the column; vpmulld for the tag's alternate), gather the two bucket words,
 * and run the header's SWAR slot test (fl_gcf_match) on all 8 words at once: the same
 * shifts, masks and carry-free add in 64-bit lanes. Tables past PF_MIN_BYTES get both
 * words of the keys PF_DIST ahead prefetched; the tail runs kernels/gcf_loop.h's key loop.
 * Checked against scalar by tests/checkkernels/check_gcf.c.
 */
#if !defined(__AVX512F__) || !defined(__AVX512BW__) || !defined(__AVX512DQ__) || !defined(__BMI2__)
#error "kernels/gcf_avx512.c needs -mavx512f -mavx512bw -mavx512dq -mbmi2"
#endif

#include "kernels.h"
#include "probe.h"
#include "x86_common.h"
#include "avx512_common.h"
#include "gcf_loop.h"

#define V(x) _mm512_set1_epi64((long long)(x))

/* The two bucket indices and the slot pattern of 8 hashes. */
FL_INLINE void gcf_index8(__m512i h, const gcf_shape *s, __m512i *i1, __m512i *i2,
                          __m512i *pat) {
    const __m512i kmask = V(s->kmask), c = V(s->c);
    __m512i tag = _mm512_and_si512(h, V(0xff));
    tag = _mm512_sub_epi64(tag, _mm512_movm_epi64(_mm512_cmpeq_epi64_mask(tag, _mm512_setzero_si512())));
    __m512i stripe = _mm512_and_si512(_mm512_srli_epi64(h, 8), kmask);
    __m512i col = _mm512_srli_epi64(_mm512_mul_epu32(_mm512_srli_epi64(h, 48), c), 16);
    /* (tag * mul mod 2^32) >> (32 - w) | 1: vpmulld keeps the low dword, whose high
     * neighbour is 0 * mul = 0 */
    __m512i alt = _mm512_srl_epi32(_mm512_mullo_epi32(tag, V(FL_GCF_ALT_MUL)),
                                   _mm_cvtsi32_si128((int)(32 - s->w)));
    alt = _mm512_or_si512(alt, V(1));
    __m512i lo2 = _mm512_and_si512(_mm512_xor_si512(stripe, alt), kmask);
    *i1 = _mm512_add_epi64(_mm512_mul_epu32(stripe, c), col);
    *i2 = _mm512_add_epi64(_mm512_mul_epu32(lo2, c), col);
    __m512i q = _mm512_and_si512(_mm512_srl_epi64(h, _mm_cvtsi32_si128((int)(8 + s->kbits))), V(0x7f));
    __m512i p = _mm512_or_si512(tag, _mm512_slli_epi64(q, 8));
    p = _mm512_or_si512(p, _mm512_slli_epi64(p, 16));
    *pat = _mm512_or_si512(p, _mm512_slli_epi64(p, 32));
}

/* fl_gcf_match in 8 lanes: the top bit of each 16-bit lane whose slot matches. */
FL_INLINE __m512i gcf_match8(__m512i x, __m512i pat) {
    __m512i e = _mm512_and_si512(_mm512_srli_epi64(x, 8), V(FL_GCF_LANE_LO8));
    __m512i m = _mm512_or_si512(e, _mm512_srli_epi64(e, 1));
    m = _mm512_or_si512(m, _mm512_srli_epi64(m, 2));
    m = _mm512_or_si512(m, _mm512_srli_epi64(m, 4));
    __m512i care = _mm512_or_si512(
        _mm512_slli_epi64(_mm512_and_si512(_mm512_srli_epi64(m, 1), V(FL_GCF_LANE_LO7)), 8),
        V(FL_GCF_LANE_LO8));
    __m512i d = _mm512_and_si512(_mm512_xor_si512(x, pat), care);
    __m512i nz = _mm512_or_si512(
        _mm512_add_epi64(_mm512_and_si512(d, V(FL_GCF_LANE_LO15)), V(FL_GCF_LANE_LO15)), d);
    return _mm512_andnot_si512(nz, V(FL_GCF_LANE_TOP));
}

FL_INLINE size_t gcf_contains_loop(const fl_kview *f, const uint64_t *hashes, size_t n,
                                   uint8_t *out, const int prefetch) {
    gcf_shape s = gcf_shape_of(f);
    const long long *base = (const long long *)(const void *)s.b;
    size_t i = 0, pos = 0;
    for (; i + 8 <= n; i += 8) {
        if (prefetch && i + PF_DIST + 8 <= n) {
            __m512i a1, a2, ap;
            uint64_t ia[16];
            gcf_index8(load8(hashes, i + PF_DIST), &s, &a1, &a2, &ap);
            _mm512_storeu_si512(ia, a1);
            _mm512_storeu_si512(ia + 8, a2);
            /* stored and reloaded, as kernels/cuckoo_avx512.c does: not 16 extractions */
            __asm__ volatile("" ::: "memory");
            for (int j = 0; j < 16; j++) pf_read(s.b + ia[j]);
        }
        __m512i i1, i2, pat;
        gcf_index8(load8(hashes, i), &s, &i1, &i2, &pat);
        __m512i w1 = _mm512_i64gather_epi64(i1, base, 8);
        __m512i w2 = _mm512_i64gather_epi64(i2, base, 8);
        __m512i hit = _mm512_or_si512(gcf_match8(w1, pat), gcf_match8(w2, pat));
        pos += emit8(out + i, (unsigned)_mm512_test_epi64_mask(hit, hit));
    }
    return pos + gcf_contains_keys(&s, hashes, i, n, out, prefetch);
}

FL_LOOKUP_BY_SIZE(gcf_contains, 8, gcf_contains_loop)

void fl_gcf_kernels_init_avx512(fl_kernel_table *t) {
    t->gcf.contains = gcf_contains;
}
