/*
 * The gcf module's AVX2 kernel (-mavx2 -mbmi2 -mfma): 4 keys per iteration, a key per qword
 * lane: the two bucket indices of include/filterlab_gcf.h in the lanes (the AVX-512 file's
 * lane forms, which say why), two gathers, and the header's slot test in the 16 16-bit
 * lanes of each gathered vector (fl_gcf_lane_match: subtract, XOR, XOR, AND-NOT), the two
 * results' word-wise minimum compared with zero, then one qword compare per key. Tables past
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

/* Two buckets a key: kernels.h's FL_PF_MIN_BYTES_BUCKETS, not the L2 size alone. */
#undef PF_MIN_BYTES
#define PF_MIN_BYTES FL_PF_MIN_BYTES_BUCKETS

#define V(x) _mm256_set1_epi64x((long long)(x))

/* fl_gcf_buckets of 4 hashes in qword lanes, as the AVX-512 file's gcf_index8 (h1: h with
 * its low byte raised to at least 1, the tag). */
FL_INLINE void gcf_index4(__m256i h, __m256i h1, const __m256i *k, __m256i *i1,
                          __m256i *i2) {
    __m256i col = _mm256_sllv_epi64(_mm256_mulhi_epu16(_mm256_srli_epi64(h, 8), k[GCF_COL_MUL]),
                                    k[GCF_KBITS]);
    __m256i y = _mm256_and_si256(_mm256_srlv_epi64(h, k[GCF_YSHIFT]), k[GCF_RMASK]);
    *i1 = _mm256_or_si256(_mm256_or_si256(col, y), _mm256_srlv_epi64(h, k[GCF_YTOP]));
    __m256i tag = _mm256_and_si256(h1, V(0xff));
    __m256i alt = _mm256_srlv_epi64(_mm256_mullo_epi32(tag, V(FL_GCF_ALT_MUL)), k[GCF_ALTSH]);
    *i2 = _mm256_xor_si256(*i1, _mm256_or_si256(alt, k[GCF_ALT_OR]));
}

/* fl_gcf_pattern of 4 hashes in the 4 words of each key's qword, as gcf_pattern8: the tag
 * and byte 7 of h * 2^K (dwords 1 and 3 taken from it by one blend). */
FL_INLINE __m256i gcf_pattern4(__m256i h1, const __m256i *k) {
    __m256i b = _mm256_blend_epi32(h1, _mm256_sllv_epi64(h1, k[GCF_KBITS]), 0xaa);
    const __m256i rep = _mm256_broadcastsi128_si256(
        _mm_setr_epi8(0, 7, 0, 7, 0, 7, 0, 7, 8, 15, 8, 15, 8, 15, 8, 15));
    return _mm256_shuffle_epi8(b, rep);
}

/* Per word, 0 where the slot matches its key's pattern (fl_gcf_lane_match):
 * (x ^ pat) & ~(x ^ (x - 0x100)). */
FL_INLINE __m256i gcf_miss4(__m256i x, __m256i pat) {
    __m256i m = _mm256_xor_si256(x, _mm256_sub_epi16(x, _mm256_set1_epi16(0x100)));
    return _mm256_andnot_si256(m, _mm256_xor_si256(x, pat));
}

FL_INLINE size_t gcf_contains_loop(const fl_kview *f, const uint64_t *hashes, size_t n,
                                   uint8_t *out, const int prefetch) {
    gcf_shape s = gcf_shape_of(f);
    uint64_t c[GCF_NCONSTS];
    __m256i k[GCF_NCONSTS];
    gcf_lane_consts(&s, c);
    for (int j = 0; j < GCF_NCONSTS; j++) k[j] = V(c[j]);
    const __m256i tag_floor = V(1); /* vpmaxub: the low byte at least 1 */
    const long long *base = (const long long *)(const void *)s.b;
    size_t i = 0, pos = 0;
    for (; i + 4 <= n; i += 4) {
        if (prefetch && i + PF_DIST + 4 <= n) {
            __m256i ha = load4(hashes, i + PF_DIST), a1, a2;
            uint64_t ia[8];
            gcf_index4(ha, _mm256_max_epu8(ha, tag_floor), k, &a1, &a2);
            _mm256_storeu_si256((__m256i *)(void *)ia, a1);
            _mm256_storeu_si256((__m256i *)(void *)(ia + 4), a2);
            __asm__ volatile("" ::: "memory");
            for (int j = 0; j < 8; j++) pf_read(s.b + ia[j]);
        }
        __m256i h = load4(hashes, i), h1 = _mm256_max_epu8(h, tag_floor), i1, i2;
        gcf_index4(h, h1, k, &i1, &i2);
        __m256i w1 = _mm256_i64gather_epi64(base, i1, 8);
        __m256i w2 = _mm256_i64gather_epi64(base, i2, 8);
        __m256i pat = gcf_pattern4(h1, k);
        /* a zero word in either bucket's result is a zero word of their minimum */
        __m256i hit = _mm256_cmpeq_epi16(_mm256_min_epu16(gcf_miss4(w1, pat), gcf_miss4(w2, pat)),
                                         _mm256_setzero_si256());
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
