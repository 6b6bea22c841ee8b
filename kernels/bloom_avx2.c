/*
 * AVX2 kernels of the bloom module (plus BMI2 for pdep, FMA only because every AVX2 CPU we
 * dispatch to has it). Built only with this file's flags (kernels/meson.build) and reached
 * only through the kernel table once dispatch has seen the CPU and OS support them.
 *
 * Every kernel computes exactly the positions of probe.h; the tails (n not a multiple of the
 * group) run the scalar kernels of kernels/bloom_scalar.c.
 *
 * Lookups take 8 keys per iteration. split256 and block512 probe one key per ymm (8 salt
 * products in one vpmulld) with the unit index computed in scalar code on the otherwise idle
 * ports; reg64 and classic keep a key per qword lane and gather (as cuckoo_avx2.c does).
 * Filters larger than L2 also get software prefetching PF_DIST keys ahead so many cache
 * misses are in flight at once (memory-level parallelism); on L2-sized filters that work
 * only costs issue slots, so each lookup is instantiated twice and picks by payload size.
 * Measured with checkkernels --bench.
 */
#if !defined(__AVX2__) || !defined(__BMI2__) || !defined(__FMA__)
#error "kernels/bloom_avx2.c needs -mavx2 -mbmi2 -mfma"
#endif

#include <immintrin.h>
#include <string.h>

#include "kernels.h"
#include "probe.h"
#include "simd_common.h"
#include "avx2_common.h"

/* ---- split256 --------------------------------------------------------------------------- */

/* One key per ymm: the 8 salt products, >> 27, as a one-bit-per-word mask; vptest's carry
 * flag says whether every mask bit is in the block. */
FL_INLINE __m256i split256_bits(uint32_t lo, __m256i salts) {
    __m256i t = _mm256_mullo_epi32(_mm256_set1_epi32((int)lo), salts);
    return _mm256_sllv_epi32(_mm256_set1_epi32(1), _mm256_srli_epi32(t, 27));
}

FL_INLINE size_t split256_contains(const fl_kview *f, const uint64_t *hashes, size_t n,
                                   uint8_t *out, const int prefetch) {
    const uint8_t *base = (const uint8_t *)f->data;
    const __m256i salts = _mm256_loadu_si256((const __m256i *)FL_SALT);
    size_t i = 0, pos = 0;
    for (; i + 8 <= n; i += 8) {
        if (prefetch && i + PF_DIST + 8 <= n)
            prefetch8(base, 32, hashes, i + PF_DIST, f->units, 0);
        unsigned hits = 0;
        for (size_t j = 0; j < 8; j++) {
            __m256i blk = _mm256_load_si256((const __m256i *)(base + 32 * unit_at(hashes, i + j, f->units)));
            hits |= (unsigned)_mm256_testc_si256(blk, split256_bits(low_at(hashes, i + j), salts)) << j;
        }
        pos += emit8(out + i, hits);
    }
    pos += fl_contains_split256_scalar(f, hashes + i, n - i, out + i);
    return pos;
}

FL_LOOKUP_BY_SIZE(fl_contains_split256_avx2, 32, split256_contains)

static void fl_insert_split256_avx2(const fl_kview *f, const uint64_t *hashes, size_t n) {
    uint8_t *base = (uint8_t *)f->data;
    const __m256i salts = _mm256_loadu_si256((const __m256i *)FL_SALT);
    const int prefetch = (size_t)f->units * 32 >= PF_MIN_BYTES;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        if (prefetch && i + PF_DIST + 8 <= n)
            prefetch8(base, 32, hashes, i + PF_DIST, f->units, 1);
        /* One read-modify-write per key, in order: keys of a group may share a block. */
        for (size_t j = 0; j < 8; j++) {
            __m256i *b = (__m256i *)(base + 32 * unit_at(hashes, i + j, f->units));
            _mm256_store_si256(b, _mm256_or_si256(_mm256_load_si256(b), split256_bits(low_at(hashes, i + j), salts)));
        }
    }
    fl_insert_split256_scalar(f, hashes + i, n - i);
}

/* ---- block512 --------------------------------------------------------------------------- */

/* avx2_common.h's blocked-layout loop testing bits. */
#define block512_narrow(...) \
    block512_layout_contains(__VA_ARGS__, 0, 0, fl_contains_block512_scalar)
#define block512_wide(...) \
    block512_layout_contains(__VA_ARGS__, 1, 0, fl_contains_block512_scalar)
FL_LOOKUP_BY_SIZE_AND_K(fl_contains_block512_avx2, block512_narrow, block512_wide)

/* Insert: positions from two vector multiplies, each bit ORed straight into its block word
 * (a mask assembled in memory and reloaded as vectors cannot be store-forwarded). Inserts
 * prefetch for write at every size: committing stores to lines not yet in L1 limits them. */
static void fl_insert_block512_avx2(const fl_kview *f, const uint64_t *hashes, size_t n) {
    uint8_t *base = (uint8_t *)f->data;
    const __m256i s0 = _mm256_loadu_si256((const __m256i *)FL_SALT);
    const __m256i s1 = _mm256_loadu_si256((const __m256i *)(FL_SALT + 8));
    const uint32_t k = f->k;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        if (i + PF_DIST + 8 <= n) prefetch8(base, 64, hashes, i + PF_DIST, f->units, 1);
        for (size_t j = 0; j < 8; j++) {
            uint32_t p[16];
            __m256i x = _mm256_set1_epi32((int)low_at(hashes, i + j));
            _mm256_storeu_si256((__m256i *)p, _mm256_srli_epi32(_mm256_mullo_epi32(x, s0), 23));
            _mm256_storeu_si256((__m256i *)(p + 8), _mm256_srli_epi32(_mm256_mullo_epi32(x, s1), 23));
            uint64_t *b = (uint64_t *)(void *)(base + 64 * unit_at(hashes, i + j, f->units));
            for (uint32_t s = 0; s < k; s++) b[p[s] >> 6] |= 1ull << (p[s] & 63);
        }
    }
    fl_insert_block512_scalar(f, hashes + i, n - i);
}

/* ---- reg64 ------------------------------------------------------------------------------- */

/* Masks of 8 keys. Positions p = (h32 * salt) >> 26 in 0..63 are built as two dword halves:
 * vpsllvd gives 0 for counts >= 32, so 1 << p fills the low half and 1 << (p - 32) (huge
 * unsigned when p < 32) the high half. The dword lanes hold keys in order 0,1,4,5,2,3,6,7
 * (vshufps of two hash vectors), which vpunpck{l,h}dq turns back into keys 0..3 and 4..7. */
FL_INLINE void reg64_masks(__m256i h0, __m256i h1, uint32_t k, __m256i *m0, __m256i *m1) {
    const __m256i one = _mm256_set1_epi32(1), c32 = _mm256_set1_epi32(32);
    __m256i lo = _mm256_castps_si256(_mm256_shuffle_ps(_mm256_castsi256_ps(h0),
                                                       _mm256_castsi256_ps(h1), 0x88));
    __m256i ml = _mm256_setzero_si256(), mh = _mm256_setzero_si256();
    for (uint32_t s = 0; s < k; s++) {
        __m256i p = _mm256_srli_epi32(_mm256_mullo_epi32(lo, _mm256_set1_epi32((int)FL_SALT[s])), 26);
        ml = _mm256_or_si256(ml, _mm256_sllv_epi32(one, p));
        mh = _mm256_or_si256(mh, _mm256_sllv_epi32(one, _mm256_sub_epi32(p, c32)));
    }
    *m0 = _mm256_unpacklo_epi32(ml, mh);
    *m1 = _mm256_unpackhi_epi32(ml, mh);
}

/* 4 bits: (w & m) == m per qword lane. */
FL_INLINE unsigned covers4(__m256i w, __m256i m) {
    __m256i miss = _mm256_andnot_si256(w, m);
    return (unsigned)_mm256_movemask_pd(
        _mm256_castsi256_pd(_mm256_cmpeq_epi64(miss, _mm256_setzero_si256())));
}

FL_INLINE size_t reg64_contains(const fl_kview *f, const uint64_t *hashes, size_t n,
                                uint8_t *out, const int prefetch) {
    const long long *words = (const long long *)f->data;
    const __m256i units = _mm256_set1_epi64x(f->units);
    const uint32_t k = f->k;
    size_t i = 0, pos = 0;
    for (; i + 8 <= n; i += 8) {
        if (prefetch && i + PF_DIST + 8 <= n)
            prefetch8((const uint8_t *)words, 8, hashes, i + PF_DIST, f->units, 0);
        __m256i h0 = load4(hashes, i), h1 = load4(hashes, i + 4), m0, m1;
        reg64_masks(h0, h1, k, &m0, &m1);
        __m256i w0 = _mm256_i64gather_epi64(words, unit_index(h0, units), 8);
        __m256i w1 = _mm256_i64gather_epi64(words, unit_index(h1, units), 8);
        pos += emit8(out + i, covers4(w0, m0) | covers4(w1, m1) << 4);
    }
    pos += fl_contains_reg64_scalar(f, hashes + i, n - i, out + i);
    return pos;
}

FL_LOOKUP_BY_SIZE(fl_contains_reg64_avx2, 8, reg64_contains)

static void fl_insert_reg64_avx2(const fl_kview *f, const uint64_t *hashes, size_t n) {
    uint64_t *words = (uint64_t *)f->data;
    const int prefetch = (size_t)f->units * 8 >= PF_MIN_BYTES;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        if (prefetch && i + PF_DIST + 8 <= n)
            prefetch8((const uint8_t *)words, 8, hashes, i + PF_DIST, f->units, 1);
        __m256i h0 = load4(hashes, i), h1 = load4(hashes, i + 4), m0, m1;
        uint64_t m[8];
        reg64_masks(h0, h1, f->k, &m0, &m1);
        _mm256_storeu_si256((__m256i *)m, m0);
        _mm256_storeu_si256((__m256i *)(m + 4), m1);
        /* Scalar ORs, in order: keys of one group may share a word. */
        for (size_t j = 0; j < 8; j++) words[unit_at(hashes, i + j, f->units)] |= m[j];
    }
    fl_insert_reg64_scalar(f, hashes + i, n - i);
}

/* ---- classic ----------------------------------------------------------------------------- */

/* The classic layout's loop of avx2_common.h, with a bit test (counters = 0). */
FL_LOOKUP_BY_SIZE(fl_contains_classic_avx2, 8, classic_layout_contains, 0,
                  fl_contains_classic_scalar)

/* No classic insert kernel: the scalar one is kept (the reason is in bloom_avx512.c). */

/* One key (the single-key API calls, fl_lookup.probe): the header-inline AVX2 probe of
 * filterlab_inline.h, so callers compiled with or without AVX2 run the same code. */
static int fl_contains1_split256_avx2(const void *data, uint32_t units, uint32_t k, uint64_t h) {
    (void)k; /* always 8 */
    return fl_split256_probe_avx2(data, units, h);
}

void fl_bloom_kernels_init_avx2(fl_kernel_table *t) {
    t->bloom.contains[FL_BLOOM_CLASSIC] = fl_contains_classic_avx2;
    t->bloom.contains[FL_BLOOM_BLOCK512] = fl_contains_block512_avx2;
    t->bloom.contains[FL_BLOOM_SPLIT256] = fl_contains_split256_avx2;
    t->bloom.contains[FL_BLOOM_REG64] = fl_contains_reg64_avx2;
    t->bloom.insert[FL_BLOOM_BLOCK512] = fl_insert_block512_avx2;
    t->bloom.insert[FL_BLOOM_SPLIT256] = fl_insert_split256_avx2;
    t->bloom.insert[FL_BLOOM_REG64] = fl_insert_reg64_avx2;
    t->bloom.contains1[FL_BLOOM_SPLIT256] = fl_contains1_split256_avx2;
}
