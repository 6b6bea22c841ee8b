/*
 * AVX-512 kernels of the bloom module (F, BW, VL, DQ, plus BMI2 for pdep/pext). Built only
 * with this file's flags (kernels/meson.build) and reached only through the kernel table
 * once dispatch has seen the CPU and OS support them.
 *
 * Every kernel computes exactly the positions of probe.h; the tails (n not a multiple of the
 * group) run the scalar kernels of kernels/bloom_scalar.c.
 *
 * Shape shared by the lookups: 8 keys per iteration (one zmm of hashes). split256 and
 * block512 (k <= 8) probe two keys per zmm; reg64 and classic keep a key per qword lane and
 * gather (as cuckoo_avx512.c does). Their limit on L2-sized filters is ports 0 and 5
 * (vpmulld is two port-0 uops), so whatever can run as scalar code on the other ports does:
 * unit indices of the bit-test kernels, mask-to-byte conversion. Filters larger than L2 also get software
 * prefetching PF_DIST keys ahead so tens of cache misses are in flight at once (memory-level
 * parallelism); on L2-sized filters that work only costs issue slots, so each lookup is
 * instantiated twice and picks by payload size. Measured with checkkernels --bench.
 */
#if !defined(__AVX512F__) || !defined(__AVX512BW__) || !defined(__AVX512VL__) ||               \
    !defined(__AVX512DQ__) || !defined(__BMI2__)
#error "kernels/bloom_avx512.c needs -mavx512f -mavx512bw -mavx512vl -mavx512dq -mbmi2"
#endif

#include <immintrin.h>
#include <string.h>

#include "filterlab.h"
#include "kernels.h"
#include "probe.h"
#include "simd_common.h"
#include "avx512_common.h"

/* Vector -> array for scalar code that reads it right back, as two 32-byte stores: reloading
 * 8-byte words from one 64-byte store does not store-forward well on this core (a classic
 * insert prototype ran 2x slower with 64-byte stores). */
FL_INLINE void spill8(void *dst, __m512i v) {
    _mm256_storeu_si256((__m256i *)dst, _mm512_castsi512_si256(v));
    _mm256_storeu_si256((__m256i *)((uint8_t *)dst + 32), _mm512_extracti64x4_epi64(v, 1));
}


/* ---- split256 --------------------------------------------------------------------------- */

/* Bit masks of two keys: lanes 0..7 for the first, 8..15 for the second. */
FL_INLINE __m512i split256_bits(__m512i h, __m512i sel, __m512i salts) {
    __m512i lo = _mm512_permutexvar_epi32(sel, h);
    return _mm512_sllv_epi32(_mm512_set1_epi32(1),
                             _mm512_srli_epi32(_mm512_mullo_epi32(lo, salts), 27));
}

/* Byte offset of hashes[i]'s block: unit_at's ((hi * units) >> 32) * 32 as one shift and an
 * AND ((x >> 32) << 5 == (x >> 27) & ~31), so the scalar side adds one shift a key to port
 * 0 or 6, not two: with the vector multiplies and shifts on port 0, port 6 takes them. */
FL_INLINE size_t block_offset(const uint64_t *hashes, size_t i, uint32_t units) {
    uint32_t hi;
    memcpy(&hi, (const unsigned char *)hashes + 8 * i + 4, 4);
    return (size_t)((((uint64_t)hi * units) >> 27) & ~(uint64_t)31);
}

/* The lookups' bit masks of keys 2p and 2p + 1 (lanes 0..7, 8..15), built to spare port 0,
 * which runs every 512-bit multiply and shift (Golden Cove fuses port 1's vector unit into
 * port 0 while 512-bit micro-ops are in flight): the low halves are broadcast by loads (the
 * second a merge-masked one, which may run on port 0 or 5) instead of a port-5 permute, and
 * 1 << s comes from a two-table vpermi2d of the 32 powers of two (port 5) instead of vpsllvd
 * (port 0). Together with block_offset and zero_bytes_gpr: 1.06x faster split256 batch
 * lookups at 100K keys on Emerald Rapids (results/emeraldrapids-kvm-2c-5bce/against/
 * fastfilter_cpp/fuse-onekey/split256-batch-ports-ab.md). */
FL_INLINE __m512i split256_pair_bits(const uint64_t *hashes, size_t i, __m512i salts,
                                     __m512i pow_lo, __m512i pow_hi) {
    __m512i x = _mm512_mask_set1_epi32(_mm512_set1_epi32((int)low_at(hashes, i)), 0xff00,
                                       (int)low_at(hashes, i + 1));
    __m512i s = _mm512_srli_epi32(_mm512_mullo_epi32(x, salts), 27);
    return _mm512_permutex2var_epi32(pow_lo, s, pow_hi);
}

FL_INLINE size_t split256_contains(const fl_kview *f, const uint64_t *hashes, size_t n,
                                   uint8_t *out, const int prefetch) {
    const uint8_t *base = (const uint8_t *)f->data;
    const __m512i salts = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)FL_SALT));
    const __m512i pow_lo = _mm512_setr_epi32(1 << 0, 1 << 1, 1 << 2, 1 << 3, 1 << 4, 1 << 5,
                                             1 << 6, 1 << 7, 1 << 8, 1 << 9, 1 << 10, 1 << 11,
                                             1 << 12, 1 << 13, 1 << 14, 1 << 15);
    const __m512i pow_hi = _mm512_slli_epi32(pow_lo, 16);
    size_t i = 0, pos = 0;
    for (; i + 8 <= n; i += 8) {
        if (prefetch && i + PF_DIST + 8 <= n)
            prefetch8(base, 32, hashes, i + PF_DIST, f->units, 0);
        __mmask16 miss[4];
        for (int p = 0; p < 4; p++) {
            const uint8_t *b0 = base + block_offset(hashes, i + 2 * (size_t)p, f->units);
            const uint8_t *b1 = base + block_offset(hashes, i + 2 * (size_t)p + 1, f->units);
            __m512i bit = split256_pair_bits(hashes, i + 2 * (size_t)p, salts, pow_lo, pow_hi);
            __m512i blk = _mm512_inserti64x4(
                _mm512_castsi256_si512(_mm256_load_si256((const __m256i *)b0)),
                _mm256_load_si256((const __m256i *)b1), 1);
            /* bit has one bit per lane, so "blk & bit == 0" is exactly "bit missing". */
            miss[p] = _mm512_testn_epi32_mask(blk, bit);
        }
        uint64_t hit = zero_bytes_gpr(join4(miss));
        memcpy(out + i, &hit, 8);
        pos += (size_t)__builtin_popcountll(hit);
    }
    pos += fl_contains_split256_scalar(f, hashes + i, n - i, out + i);
    return pos;
}

FL_LOOKUP_BY_SIZE(fl_contains_split256_avx512, 32, split256_contains)

static void fl_insert_split256_avx512(const fl_kview *f, const uint64_t *hashes, size_t n) {
    uint8_t *base = (uint8_t *)f->data;
    const __m512i salts = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)FL_SALT));
    const __m512i sel[4] = {PAIR_SEL(0), PAIR_SEL(1), PAIR_SEL(2), PAIR_SEL(3)};
    const int prefetch = (size_t)f->units * 32 >= PF_MIN_BYTES;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        if (prefetch && i + PF_DIST + 8 <= n)
            prefetch8(base, 32, hashes, i + PF_DIST, f->units, 1);
        __m512i h = load8(hashes, i);
        for (int p = 0; p < 4; p++) {
            __m512i bit = split256_bits(h, sel[p], salts);
            /* One read-modify-write per key, in order, so two keys of a group hitting the
             * same block both land. */
            __m256i *b0 = (__m256i *)(base + 32 * unit_at(hashes, i + 2 * (size_t)p, f->units));
            _mm256_store_si256(b0, _mm256_or_si256(_mm256_load_si256(b0),
                                                   _mm512_castsi512_si256(bit)));
            __m256i *b1 = (__m256i *)(base + 32 * unit_at(hashes, i + 2 * (size_t)p + 1, f->units));
            _mm256_store_si256(b1, _mm256_or_si256(_mm256_load_si256(b1),
                                                   _mm512_extracti64x4_epi64(bit, 1)));
        }
    }
    fl_insert_split256_scalar(f, hashes + i, n - i);
}

/* ---- block512 --------------------------------------------------------------------------- */

/* k <= 8: two keys per zmm, avx512_common.h's loop testing bits. */
#define block512_contains_pair(...) \
    block512_pair_layout_contains(__VA_ARGS__, 0, fl_contains_block512_scalar)

/* k > 8: one key per zmm, all 16 salts. */
FL_INLINE size_t block512_contains_one(const fl_kview *f, const uint64_t *hashes, size_t n,
                                       uint8_t *out, const int prefetch) {
    const uint8_t *base = (const uint8_t *)f->data;
    const __m512i salts = _mm512_loadu_si512((const void *)FL_SALT);
    const __m512i ones = _mm512_set1_epi32(1);
    const __mmask16 kk = (__mmask16)((1u << f->k) - 1);
    size_t i = 0, pos = 0;
    for (; i + 8 <= n; i += 8) {
        if (prefetch && i + PF_DIST + 8 <= n)
            prefetch8(base, 64, hashes, i + PF_DIST, f->units, 0);
        unsigned hits = 0;
        for (size_t j = 0; j < 8; j++) {
            __m512i t = _mm512_mullo_epi32(_mm512_set1_epi32((int)low_at(hashes, i + j)), salts);
            __m512i bit = _mm512_rolv_epi32(ones, _mm512_srli_epi32(t, 23));
            __m512i a = _mm512_load_si512((const void *)(base + 64 * unit_at(hashes, i + j, f->units)));
            __m512i w = _mm512_permutexvar_epi32(_mm512_srli_epi32(t, 28), a);
            hits |= (unsigned)(_mm512_mask_testn_epi32_mask(kk, w, bit) == 0) << j;
        }
        pos += emit8(out + i, hits);
    }
    pos += fl_contains_block512_scalar(f, hashes + i, n - i, out + i);
    return pos;
}

FL_LOOKUP_BY_SIZE_AND_K(fl_contains_block512_avx512, block512_contains_pair, block512_contains_one)

/* Insert: the k positions come from one vector multiply and each bit is ORed straight into
 * its block word. Assembling the 512-bit mask first is slower both ways it can be done here:
 * eight scalar stores then one vector load cannot be store-forwarded (the load stalls until
 * the stores commit), and building it in a register costs a shift per position and word
 * (no OR-scatter in AVX-512). Inserts also prefetch for write at every size: committing
 * stores to lines not yet in L1 is what limits them, even on L2-sized filters. */
static void fl_insert_block512_avx512(const fl_kview *f, const uint64_t *hashes, size_t n) {
    uint8_t *base = (uint8_t *)f->data;
    const __m512i salts = _mm512_loadu_si512((const void *)FL_SALT);
    const uint32_t k = f->k;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        if (i + PF_DIST + 8 <= n) prefetch8(base, 64, hashes, i + PF_DIST, f->units, 1);
        for (size_t j = 0; j < 8; j++) {
            uint32_t p[16];
            spill8(p, _mm512_srli_epi32(_mm512_mullo_epi32(_mm512_set1_epi32((int)low_at(hashes, i + j)), salts), 23));
            uint64_t *b = (uint64_t *)(void *)(base + 64 * unit_at(hashes, i + j, f->units));
            for (uint32_t s = 0; s < k; s++) b[p[s] >> 6] |= 1ull << (p[s] & 63);
        }
    }
    fl_insert_block512_scalar(f, hashes + i, n - i);
}

/* ---- reg64 ------------------------------------------------------------------------------- */

/* Masks of 8 keys in qword lanes: bit (h32 * salt) >> 26 is bits 26..31 of the 64-bit
 * product, and vprolq rotates by the count mod 64, so one rotate of 1 sets it. */
FL_INLINE __m512i reg64_masks(__m512i h, uint32_t k) {
    const __m512i one = _mm512_set1_epi64(1);
    __m512i m = _mm512_setzero_si512();
    for (uint32_t s = 0; s < k; s++) {
        __m512i t = _mm512_mul_epu32(h, _mm512_set1_epi64(FL_SALT[s]));
        m = _mm512_or_si512(m, _mm512_rolv_epi64(one, _mm512_srli_epi64(t, 26)));
    }
    return m;
}

FL_INLINE size_t reg64_contains(const fl_kview *f, const uint64_t *hashes, size_t n,
                                uint8_t *out, const int prefetch) {
    const uint64_t *words = (const uint64_t *)f->data;
    const __m512i units = _mm512_set1_epi64(f->units);
    const uint32_t k = f->k;
    size_t i = 0, pos = 0;
    for (; i + 8 <= n; i += 8) {
        if (prefetch && i + PF_DIST + 8 <= n)
            prefetch8((const uint8_t *)words, 8, hashes, i + PF_DIST, f->units, 0);
        __m512i h = load8(hashes, i);
        __m512i m = reg64_masks(h, k);
        __m512i w = _mm512_i64gather_epi64(unit_index(h, units), (const void *)words, 8);
        __mmask8 ok = _mm512_cmpeq_epi64_mask(_mm512_and_si512(w, m), m);
        pos += emit8(out + i, ok);
    }
    pos += fl_contains_reg64_scalar(f, hashes + i, n - i, out + i);
    return pos;
}

FL_LOOKUP_BY_SIZE(fl_contains_reg64_avx512, 8, reg64_contains)

static void fl_insert_reg64_avx512(const fl_kview *f, const uint64_t *hashes, size_t n) {
    uint64_t *words = (uint64_t *)f->data;
    const int prefetch = (size_t)f->units * 8 >= PF_MIN_BYTES;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        if (prefetch && i + PF_DIST + 8 <= n)
            prefetch8((const uint8_t *)words, 8, hashes, i + PF_DIST, f->units, 1);
        __m512i h = load8(hashes, i);
        uint64_t m[8];
        spill8(m, reg64_masks(h, f->k));
        /* Scalar ORs, in order: keys of one group may share a word. */
        for (size_t j = 0; j < 8; j++) words[unit_at(hashes, i + j, f->units)] |= m[j];
    }
    fl_insert_reg64_scalar(f, hashes + i, n - i);
}

/* ---- classic ----------------------------------------------------------------------------- */

/* The classic layout's loop of avx512_common.h, with a bit test (counters = 0). */
FL_LOOKUP_BY_SIZE(fl_contains_classic_avx512, 8, classic_layout_contains, 0,
                  fl_contains_classic_scalar)

/* No classic insert kernel: a batch insert that prefetches all k words of keys ahead for
 * write measured 0.9x scalar at 1 MiB and 1.1-1.2x at 64 MiB. With k random lines per key,
 * each read for ownership and later written back, inserts are bound by memory traffic, not
 * by the few instructions a vector unit could save. The table keeps the scalar insert. */

/* One key (the single-key API calls): the per-key step of block512_contains_one. */
static int fl_contains1_block512_avx512(const void *data, uint32_t units, uint32_t k,
                                        uint64_t h) {
    const __m512i salts = _mm512_loadu_si512((const void *)FL_SALT);
    __m512i t = _mm512_mullo_epi32(_mm512_set1_epi32((int)(uint32_t)h), salts);
    __m512i bit = _mm512_rolv_epi32(_mm512_set1_epi32(1), _mm512_srli_epi32(t, 23));
    fl_kview v = fl_bloom_view(data, units, k);
    __m512i a = _mm512_load_si512((const void *)fl_block512_at(&v, h));
    __m512i w = _mm512_permutexvar_epi32(_mm512_srli_epi32(t, 28), a);
    return _mm512_mask_testn_epi32_mask((__mmask16)((1u << k) - 1), w, bit) == 0;
}

void fl_bloom_kernels_init_avx512(fl_kernel_table *t) {
    t->bloom.contains[FL_BLOOM_CLASSIC] = fl_contains_classic_avx512;
    t->bloom.contains[FL_BLOOM_BLOCK512] = fl_contains_block512_avx512;
    t->bloom.contains[FL_BLOOM_SPLIT256] = fl_contains_split256_avx512;
    t->bloom.contains[FL_BLOOM_REG64] = fl_contains_reg64_avx512;
    t->bloom.insert[FL_BLOOM_BLOCK512] = fl_insert_block512_avx512;
    t->bloom.insert[FL_BLOOM_SPLIT256] = fl_insert_split256_avx512;
    t->bloom.insert[FL_BLOOM_REG64] = fl_insert_reg64_avx512;
    t->bloom.contains1[FL_BLOOM_BLOCK512] = fl_contains1_block512_avx512;
}
