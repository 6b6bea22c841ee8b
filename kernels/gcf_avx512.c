/*
 * The gcf module's AVX-512 kernel (-mavx512f/bw/vl/dq -mbmi2): 8 keys per iteration, a key
 * per qword lane. The lanes compute include/filterlab_gcf.h's two buckets (shifts and ORs;
 * vpmuludq for the column, vpmulld for the tag's alternate), gather the two bucket words,
 * and run the header's slot test in the 32 16-bit lanes of each gathered vector
 * (fl_gcf_lane_match): a subtract, one ternary and a test into a mask register, 4 bits per
 * key. Tables past PF_MIN_BYTES get both words of the keys PF_DIST ahead
 * prefetched; the tail runs kernels/gcf_loop.h's key loop. Checked against scalar by
 * tests/checkkernels/check_gcf.c.
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
#define COUNT(n) _mm_cvtsi32_si128((int)(n))

/* The two bucket indices and the 16-bit slot pattern (in every lane of its key) of 8 hashes:
 * fl_gcf_buckets and fl_gcf_pattern in qword lanes. */
FL_INLINE void gcf_index8(__m512i h, const gcf_shape *s, __m512i *i1, __m512i *i2,
                          __m512i *pat) {
    const uint32_t k = s->kbits, ww = s->w < k ? s->w : k;
    __m512i tag = _mm512_and_si512(h, V(0xff));
    tag = _mm512_sub_epi64(tag, _mm512_movm_epi64(_mm512_cmpeq_epi64_mask(tag, _mm512_setzero_si512())));
    __m512i col = _mm512_mul_epu32(_mm512_and_si512(_mm512_srli_epi64(h, 8), V(0xffff)), V(s->c));
    col = _mm512_sll_epi64(_mm512_srli_epi64(col, 16), COUNT(k)); /* column-major */
    __m512i stripe = _mm512_srli_epi64(_mm512_srl_epi64(h, COUNT(63 - k)), 1);
    /* rotated left by W within K bits: the stripe's top W bits at the bottom */
    __m512i rot = _mm512_or_si512(_mm512_and_si512(_mm512_sll_epi64(stripe, COUNT(ww)), V((1ull << k) - 1)),
                                  _mm512_srl_epi64(stripe, COUNT(k - ww)));
    /* a(tag) = (tag * mul mod 2^32) >> (32 - w) | 1: vpmulld keeps the low dword, whose high
     * neighbour is 0 * mul = 0; then shifted to the top W stripe bits and masked */
    __m512i alt = _mm512_srl_epi64(_mm512_mullo_epi32(tag, V(FL_GCF_ALT_MUL)), COUNT(32 - ww));
    alt = _mm512_or_si512(alt, V(ww != 0));
    *i1 = _mm512_or_si512(col, rot);
    *i2 = _mm512_xor_si512(*i1, alt);
    __m512i ext = _mm512_and_si512(_mm512_srl_epi64(h, COUNT(56 - k)), V(0xfe));
    __m512i p = _mm512_or_si512(tag, _mm512_slli_epi64(ext, 8));
    /* the pattern's two bytes into the 4 words of its qword */
    const __m512i rep16 = _mm512_broadcast_i32x4(
        _mm_setr_epi8(0, 1, 0, 1, 0, 1, 0, 1, 8, 9, 8, 9, 8, 9, 8, 9));
    *pat = _mm512_shuffle_epi8(p, rep16);
}

/* The slots of 8 bucket words that match their keys' patterns: one bit per 16-bit lane. */
FL_INLINE __mmask32 gcf_match8(__m512i x, __m512i pat) {
    /* fl_gcf_lane_match: (x ^ pat) & ~(x ^ (x - 0x100)), one ternary of A = x, B = pat,
     * C = x - 0x100, true where A != B and A == C: (A,B,C) = (0,1,0) and (1,0,1), bits 2
     * and 5 of the truth table */
    __m512i d = _mm512_ternarylogic_epi64(x, pat, _mm512_sub_epi16(x, _mm512_set1_epi16(0x100)), 0x24);
    return _mm512_testn_epi16_mask(d, d);
}

/* 32 lane bits (4 per key) to one bit per key: set if any of its 4 slots matched. */
FL_INLINE unsigned any_of_4(uint32_t m) {
    m |= m >> 1;
    m |= m >> 2;
    return _pext_u32(m, 0x11111111u);
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
        pos += emit8(out + i, any_of_4((uint32_t)(gcf_match8(w1, pat) | gcf_match8(w2, pat))));
    }
    return pos + gcf_contains_keys(&s, hashes, i, n, out, prefetch);
}

FL_LOOKUP_BY_SIZE(gcf_contains, 8, gcf_contains_loop)

void fl_gcf_kernels_init_avx512(fl_kernel_table *t) {
    t->gcf.contains = gcf_contains;
}
