/*
 * The gcf module's AVX-512 kernel (-mavx512f/bw/vl/dq -mbmi2): 8 keys per iteration, a key
 * per qword lane. The lanes compute include/filterlab_gcf.h's two buckets and slot pattern
 * with the shape's shift counts and masks made once per call (kernels/gcf_loop.h's
 * gcf_lane_consts, from the view's fl_gcf_geom), gather the two bucket words, and run the
 * header's slot test in the 32 16-bit lanes of each gathered vector (fl_gcf_lane_match: a subtract and one ternary each; the two
 * results' word-wise minimum has a zero word where either had one, so one test into a mask
 * register, 4 bits per key). Tables past PF_MIN_BYTES get both words of the keys PF_DIST
 * ahead prefetched; the tail runs kernels/gcf_loop.h's key loop. Checked against scalar by
 * tests/checkkernels/check_gcf.c.
 *
 * Why the lane forms below and not the header's in qword lanes: in a table that fits L2 the
 * loop's cost is its micro-ops on ports 0 and 5 (the only ones that run 512-bit integer
 * work on Intel cores), and a shift by a count in an xmm register (vpsrlq zmm, zmm, xmm)
 * takes two of them where vpsrlvq with the count in every lane takes one. So every shape
 * count is a vector, the column's 16 x 16-bit multiply-high is one vpmulhuw, the tag's
 * 0 -> 1 is one vpmaxub, and the pattern's two bytes come from one blend and one byte
 * shuffle: about 22 vector micro-ops per 8 keys besides the gathers, where the forms
 * computed from c, K and W at every key took about 40 (batch lookups of the filter grown to
 * 800K keys: 1.31x a cuckoo16 filter's time where those forms, run right after, took 1.44x,
 * results/emeraldrapids-kvm-2c-5bce/gcf/lookups-gcfbatch.md and lookups-base154aba3.md;
 * 1.07x against 2.29x at load 5, lookups-batch-kernel-loaded*.md).
 */
#if !defined(__AVX512F__) || !defined(__AVX512BW__) || !defined(__AVX512DQ__) || !defined(__BMI2__)
#error "kernels/gcf_avx512.c needs -mavx512f -mavx512bw -mavx512dq -mbmi2"
#endif

#include "kernels.h"
#include "probe.h"
#include "x86_common.h"
#include "avx512_common.h"
#include "gcf_loop.h"

/* Two buckets a key: kernels.h's FL_PF_MIN_BYTES_BUCKETS, not the L2 size alone. */
#undef PF_MIN_BYTES
#define PF_MIN_BYTES FL_PF_MIN_BYTES_BUCKETS

#define V(x) _mm512_set1_epi64((long long)(x))

/* fl_gcf_buckets of 8 hashes in qword lanes; h1 is h with its low byte raised to at least
 * 1 (the tag in the low byte). */
FL_INLINE void gcf_index8(__m512i h, __m512i h1, const __m512i *k, __m512i *i1,
                          __m512i *i2) {
    /* the column: (h bits [8, 24) * c) >> 16 in the low word, the other words 0 * x */
    __m512i col = _mm512_sllv_epi64(_mm512_mulhi_epu16(_mm512_srli_epi64(h, 8), k[GCF_COL_MUL]),
                                    k[GCF_KBITS]);
    __m512i y = _mm512_srlv_epi64(h, k[GCF_YSHIFT]);
    /* col | (y & rmask) | (h >> (64 - W')): the stripe rotated, in its column */
    __m512i i = _mm512_ternarylogic_epi64(col, y, k[GCF_RMASK], 0xf8); /* A | (B & C) */
    *i1 = _mm512_or_si512(i, _mm512_srlv_epi64(h, k[GCF_YTOP]));
    /* a(tag): (tag * mul mod 2^32) >> (32 - W') | alt_or; vpmulld keeps the low dword (the
     * high one is 0 * mul) */
    __m512i tag = _mm512_and_si512(h1, V(0xff));
    __m512i alt = _mm512_srlv_epi64(_mm512_mullo_epi32(tag, V(FL_GCF_ALT_MUL)), k[GCF_ALTSH]);
    *i2 = _mm512_ternarylogic_epi64(*i1, alt, k[GCF_ALT_OR], 0x1e); /* A ^ (B | C) */
}

/* fl_gcf_pattern of 8 hashes, in the 4 words of each key's qword: the tag (h1's low byte)
 * and byte 7 of h * 2^K, whose top 7 bits are the key's extension bits (its bit 0, the
 * pattern's bit 8, is never compared: fl_gcf_lane_match's mask always holds bit 8). */
FL_INLINE __m512i gcf_pattern8(__m512i h1, const __m512i *k) {
    __m512i e = _mm512_sllv_epi64(h1, k[GCF_KBITS]);
    /* byte 7 from e, the rest from h1 */
    __m512i b = _mm512_ternarylogic_epi64(e, h1, V(0xff00000000000000ull), 0xe4); /* C ? A : B */
    const __m512i rep = _mm512_broadcast_i32x4(
        _mm_setr_epi8(0, 7, 0, 7, 0, 7, 0, 7, 8, 15, 8, 15, 8, 15, 8, 15));
    return _mm512_shuffle_epi8(b, rep);
}

/* Per word, 0 where the slot matches its key's pattern (fl_gcf_lane_match): (x ^ pat) &
 * ~(x ^ (x - 0x100)), one ternary of A = x, B = pat, C = x - 0x100, true where A != B and
 * A == C: (A,B,C) = (0,1,0) and (1,0,1), bits 2 and 5 of the truth table. */
FL_INLINE __m512i gcf_miss8(__m512i x, __m512i pat) {
    return _mm512_ternarylogic_epi64(x, pat, _mm512_sub_epi16(x, _mm512_set1_epi16(0x100)), 0x24);
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
    uint64_t c[GCF_NCONSTS];
    __m512i k[GCF_NCONSTS];
    gcf_lane_consts(&s, c);
    for (int j = 0; j < GCF_NCONSTS; j++) k[j] = V(c[j]);
    const __m512i tag_floor = V(1); /* vpmaxub: the low byte at least 1, the others as they are */
    const long long *base = (const long long *)(const void *)s.b;
    size_t i = 0, pos = 0;
    for (; i + 8 <= n; i += 8) {
        if (prefetch && i + PF_DIST + 8 <= n) {
            __m512i ha = load8(hashes, i + PF_DIST), a1, a2;
            uint64_t ia[16];
            gcf_index8(ha, _mm512_max_epu8(ha, tag_floor), k, &a1, &a2);
            _mm512_storeu_si512(ia, a1);
            _mm512_storeu_si512(ia + 8, a2);
            /* stored and reloaded, as kernels/cuckoo_avx512.c does: not 16 extractions */
            __asm__ volatile("" ::: "memory");
            for (int j = 0; j < 16; j++) pf_read(s.b + ia[j]);
        }
        __m512i h = load8(hashes, i), h1 = _mm512_max_epu8(h, tag_floor), i1, i2;
        gcf_index8(h, h1, k, &i1, &i2);
        __m512i w1 = _mm512_i64gather_epi64(i1, base, 8);
        __m512i w2 = _mm512_i64gather_epi64(i2, base, 8);
        __m512i pat = gcf_pattern8(h1, k);
        __m512i miss = _mm512_min_epu16(gcf_miss8(w1, pat), gcf_miss8(w2, pat));
        pos += emit8(out + i, any_of_4((uint32_t)_mm512_testn_epi16_mask(miss, miss)));
    }
    return pos + gcf_contains_keys(&s, hashes, i, n, out, prefetch);
}

FL_LOOKUP_BY_SIZE(gcf_contains, 8, gcf_contains_loop)

void fl_gcf_kernels_init_avx512(fl_kernel_table *t) {
    t->gcf.contains = gcf_contains;
}
