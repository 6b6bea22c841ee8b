/*
 * AVX-512 kernels of the cuckoo module: batch lookups of every fingerprint width, of hashes
 * (contains) and of integer keys hashed in the loop (contains_u64s), 8 keys per group (one
 * zmm of hashes), a key per qword lane, buckets gathered. Built only with the AVX-512
 * library's flags (kernels/meson.build) and reached only through the kernel table once
 * dispatch has seen the CPU and OS support them. Every kernel computes exactly the buckets
 * of probe.h; the tails run the scalar lookups (kernels/cuckoo_scalar.c). Filters larger
 * than L2 also get software prefetching PF_DIST keys ahead; each lookup is instantiated
 * twice and picks by payload size (simd_common.h). Measured with checkkernels --bench.
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
#include "hash_avx512.h"

/* Two buckets a key: kernels.h's FL_PF_MIN_BYTES_BUCKETS, not the L2 size alone. */
#undef PF_MIN_BYTES
#define PF_MIN_BYTES FL_PF_MIN_BYTES_BUCKETS

/* ---- cuckoo ------------------------------------------------------------------------------ */

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
    __m512i lo = _mm512_set1_epi64((long long)FL_CUCKOO12_LO);
    __m512i z = _mm512_andnot_si512(x, _mm512_sub_epi64(x, lo));
    return _mm512_test_epi64_mask(z, _mm512_set1_epi64((long long)FL_CUCKOO12_HI));
}

/* Per key, whether a slot of semi-sorted bucket word w (fingerprints of `bits` bits, 11 or
 * 13) holds the key's fingerprint, whose low bits (rlo) and nibble (rnib) are copied into all
 * 4 lanes: filterlab_inline.h's fl_cuckoo_ss_has, 8 keys at a time, the table's words
 * gathered. */
FL_INLINE __mmask8 cuckoo_ss_has(__m512i w, __m512i rlo, __m512i rnib, const int bits) {
    __m512i rank = _mm512_and_si512(w, _mm512_set1_epi64(0xfff));
    __m512i t = _mm512_cvtepu32_epi64(
        _mm512_i64gather_epi32(rank, (const void *)fl_cuckoo_ss_table((uint32_t)bits), 4));
    __m512i y = _mm512_or_si512(_mm512_xor_si512(_mm512_srli_epi64(w, 12), rlo),
                                _mm512_xor_si512(t, rnib));
    __m512i lo = _mm512_set1_epi64((long long)FL_CUCKOO_SS_LO(bits - 4));
    __m512i z = _mm512_andnot_si512(y, _mm512_sub_epi64(y, lo));
    return _mm512_test_epi64_mask(z, _mm512_set1_epi64((long long)FL_CUCKOO_SS_HI(bits - 4)));
}

/* The lookup of a group of 8 keys runs in three stages, software-pipelined by the loops
 * below: the buckets (from the hashes), the buckets' loads, the compares. */
typedef struct cuckoo_group { /* stage 1 */
    __m512i h, fp, i1, i2;
} cuckoo_group;
typedef struct cuckoo_words { /* stage 2: the two buckets of each key, the fingerprint */
    __m512i h, b1, b2, r;
    __m512i rnib; /* semi-sorted: r is the low bits' copies, rnib the nibble's */
} cuckoo_words;

/* fp, i1, i2 of probe.h for 8 keys in qword lanes (all values < 2^32). */
FL_INLINE cuckoo_group cuckoo_prep(__m512i h, __m512i units, __m512i fpmax) {
    cuckoo_group g = {.h = h, .i1 = unit_index(h, units)};
    g.fp = _mm512_add_epi64(reduce_lo(h, fpmax), _mm512_set1_epi64(1));
    /* fp * 0x5bd1e995 mod 2^32 is the low dword of the 64-bit product, and reduce_lo's
     * vpmuludq reads only that dword: one vpmuludq where vpmulld is two uops on Intel. */
    __m512i hf = reduce_lo(_mm512_mul_epu32(g.fp, _mm512_set1_epi64(0x5bd1e995)), units);
    __m512i d = _mm512_sub_epi64(hf, g.i1);
    g.i2 = _mm512_mask_add_epi64(d, _mm512_cmplt_epu64_mask(hf, g.i1), d, units);
    return g;
}

/* A semi-sorted width's fingerprint copies: its low bits (r) and its nibble (rnib) in each of
 * the 4 lanes of bits - 4 bits (the products fit: fp < 2^13 and LO < 2^28). */
FL_INLINE void ss_copies(cuckoo_words *w, __m512i fp, const int bits) {
    const __m512i one = _mm512_set1_epi64((long long)FL_CUCKOO_SS_LO(bits - 4));
    w->r = _mm512_mul_epu32(_mm512_and_si512(fp, _mm512_set1_epi64((1 << (bits - 4)) - 1)), one);
    w->rnib = _mm512_mul_epu32(_mm512_srli_epi64(fp, bits - 4), one);
}

/* The buckets' words and the fingerprint copied into each slot of a bucket, for
 * fingerprints of `bits` bits (a constant at every call). 8-bit buckets are dwords: in the
 * low half of b1 and b2. */
FL_INLINE cuckoo_words cuckoo_gather(const uint8_t *base, cuckoo_group g, const int bits) {
    cuckoo_words w = {.h = g.h};
    if (bits == 11) {
        /* Bucket b at byte 5b: gather with scale 1 from index 4b + b. */
        w.b1 = _mm512_i64gather_epi64(_mm512_add_epi64(_mm512_slli_epi64(g.i1, 2), g.i1),
                                      (const void *)base, 1);
        w.b2 = _mm512_i64gather_epi64(_mm512_add_epi64(_mm512_slli_epi64(g.i2, 2), g.i2),
                                      (const void *)base, 1);
        ss_copies(&w, g.fp, bits);
    } else if (bits == 12 || bits == 13) {
        /* Bucket b at byte 6b = 2 * 3b: gather with scale 2 from index 3b. */
        w.b1 = _mm512_i64gather_epi64(_mm512_add_epi64(_mm512_add_epi64(g.i1, g.i1), g.i1),
                                      (const void *)base, 2);
        w.b2 = _mm512_i64gather_epi64(_mm512_add_epi64(_mm512_add_epi64(g.i2, g.i2), g.i2),
                                      (const void *)base, 2);
        if (bits == 13) {
            ss_copies(&w, g.fp, bits);
        } else {
            __m512i r = _mm512_or_si512(g.fp, _mm512_slli_epi64(g.fp, 12));
            w.r = _mm512_or_si512(r, _mm512_slli_epi64(r, 24));
        }
    } else if (bits == 16) {
        w.b1 = _mm512_i64gather_epi64(g.i1, (const void *)base, 8);
        w.b2 = _mm512_i64gather_epi64(g.i2, (const void *)base, 8);
        w.r = _mm512_shuffle_epi8(g.fp, _mm512_broadcast_i32x4(_mm_setr_epi8(
                                            0, 1, 0, 1, 0, 1, 0, 1, 8, 9, 8, 9, 8, 9, 8, 9)));
    } else {
        w.b1 = _mm512_castsi256_si512(_mm512_i64gather_epi32(g.i1, (const void *)base, 4));
        w.b2 = _mm512_castsi256_si512(_mm512_i64gather_epi32(g.i2, (const void *)base, 4));
        w.r = _mm512_castsi256_si512(_mm256_shuffle_epi8(
            _mm512_cvtepi64_epi32(g.fp),
            _mm256_broadcastsi128_si256(
                _mm_setr_epi8(0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8, 12, 12, 12, 12))));
    }
    return w;
}

/* Bit j set if key j is in one of its two buckets: probe.h's fl_cuckoo_probe without the
 * stash. */
FL_INLINE unsigned cuckoo_match(cuckoo_words w, const int bits) {
    if (bits == 12) return (unsigned)(cuckoo12_has(w.b1, w.r) | cuckoo12_has(w.b2, w.r));
    if (bits == 11 || bits == 13)
        return (unsigned)(cuckoo_ss_has(w.b1, w.r, w.rnib, bits) |
                          cuckoo_ss_has(w.b2, w.r, w.rnib, bits));
    if (bits == 16)
        return nibbles_any((uint32_t)(_mm512_cmpeq_epi16_mask(w.b1, w.r) |
                                      _mm512_cmpeq_epi16_mask(w.b2, w.r)));
    __m256i r = _mm512_castsi512_si256(w.r);
    return nibbles_any((uint32_t)(_mm256_cmpeq_epi8_mask(_mm512_castsi512_si256(w.b1), r) |
                                  _mm256_cmpeq_epi8_mask(_mm512_castsi512_si256(w.b2), r)));
}

/* Stage 3: the answers of a group, the stash included; returns its positives. */
FL_INLINE size_t cuckoo_emit(const fl_kview *f, cuckoo_words w, uint8_t *out, const int bits) {
    unsigned hits = cuckoo_match(w, bits);
    if (f->stash_count && hits != 0xff) {
        uint64_t h[8];
        _mm512_storeu_si512(h, w.h);
        hits |= fl_cuckoo_stash_lanes(f, h, 0, ~hits & 0xffu);
    }
    return emit8(out, hits);
}

/* The hashes of group i: read (keyed = 0: src holds hashes), or computed from the keys
 * (keyed = 1, hash_avx512.h; add is hash_seed_add(seed)). */
FL_INLINE __m512i group_hashes(const uint64_t *src, size_t i, const int keyed, __m512i add) {
    return keyed ? hash8_u64(load8(src, i), add) : load8(src, i);
}

/* Prefetches the buckets of the 8 hashes at hashes[i] (filters beyond L2). */
FL_INLINE void cuckoo_prefetch8(const uint8_t *base, const uint64_t *hashes, size_t i,
                                __m512i units, __m512i fpmax, size_t bucket_bytes) {
    uint64_t ia[16];
    cuckoo_group g = cuckoo_prep(load8(hashes, i), units, fpmax);
    _mm512_storeu_si512(ia, g.i1);
    _mm512_storeu_si512(ia + 8, g.i2);
    /* Make GCC really store and reload: left alone it extracts the 16 indices with a chain
     * of port-5 shuffles, which makes 64 MiB lookups 1.5x slower. (Here the 64-byte stores
     * measured faster than spill8's halves: 7.3 vs 10.3 ns/key.) */
    __asm__ volatile("" ::: "memory");
    for (int j = 0; j < 16; j++) pf_read(base + bucket_bytes * ia[j]);
}

/* The lookup loop, over hashes (keyed = 0) or integer keys (keyed = 1, seed's add). While
 * group i's words are compared, group i + 8's loads are issued and group i + 16's buckets
 * computed: the gathers then issue as soon as they are allocated instead of waiting behind
 * their own group's hash and index chain (two vpmullq of 15 cycles' latency each, then the
 * index math's multiplies), and more groups' loads are in flight. Against main 0d63e39 (a
 * separate hash pass, then a one-stage lookup), at 100K / 1M / 10M keys: batch_u64s 1.24x /
 * 1.12x / 1.03x (the hashing in the loop and the stages together: no A/B has the stages
 * alone for integer keys), lookups of hashes (the stages alone) 1.00x / 1.08x / 1.03x
 * (deletable/cuckoo12-batch-u64s-ab-single-key-main-0d63e39.md); a fourth stage did not
 * help (deletable/cuckoo12-batch-u64s-ab-four-stages-not-kept.md). Keyed loops never
 * prefetch (see cuckoo_contains_u64s). Groups of a batch of fewer than 24 keys go one by
 * one. */
FL_INLINE size_t cuckoo_lookup(const fl_kview *f, const uint64_t *src, size_t n, uint8_t *out,
                               const int prefetch, const int bits, const int keyed, __m512i add) {
    const uint8_t *base = (const uint8_t *)f->data;
    const __m512i units = _mm512_set1_epi64(f->units);
    const __m512i fpmax = _mm512_set1_epi64((1u << f->k) - 1u);
    const size_t bb = fl_cuckoo_bucket_bytes((uint32_t)bits);
    size_t i = 0, pos = 0;
    if (n >= 24) {
        cuckoo_group g0 = cuckoo_prep(group_hashes(src, 0, keyed, add), units, fpmax);
        cuckoo_words w = cuckoo_gather(base, g0, bits);
        cuckoo_group g = cuckoo_prep(group_hashes(src, 8, keyed, add), units, fpmax);
        for (; i + 24 <= n; i += 8) {
            if (prefetch && !keyed && i + PF_DIST + 8 <= n)
                cuckoo_prefetch8(base, src, i + PF_DIST, units, fpmax, bb);
            cuckoo_group gn = cuckoo_prep(group_hashes(src, i + 16, keyed, add), units, fpmax);
            cuckoo_words wn = cuckoo_gather(base, g, bits);
            pos += cuckoo_emit(f, w, out + i, bits);
            w = wn;
            g = gn;
        }
        pos += cuckoo_emit(f, w, out + i, bits);
        pos += cuckoo_emit(f, cuckoo_gather(base, g, bits), out + i + 8, bits);
        i += 16;
    }
    for (; i + 8 <= n; i += 8) {
        cuckoo_group g = cuckoo_prep(group_hashes(src, i, keyed, add), units, fpmax);
        pos += cuckoo_emit(f, cuckoo_gather(base, g, bits), out + i, bits);
    }
    /* The last n % 8 keys: the caller's (keyed), or the scalar lookup's. */
    if (!keyed) pos += cuckoo_scalar(bits)(f, src + i, n - i, out + i);
    return pos;
}

FL_INLINE size_t cuckoo_contains(const fl_kview *f, const uint64_t *hashes, size_t n,
                                 uint8_t *out, const int prefetch, const int bits) {
    return cuckoo_lookup(f, hashes, n, out, prefetch, bits, 0, _mm512_setzero_si512());
}

FL_LOOKUP_BY_SIZE(fl_contains_cuckoo8_avx512, 4, cuckoo_contains, 8)

FL_LOOKUP_BY_SIZE(fl_contains_cuckoo11_avx512, 5, cuckoo_contains, 11)

FL_LOOKUP_BY_SIZE(fl_contains_cuckoo12_avx512, 6, cuckoo_contains, 12)

FL_LOOKUP_BY_SIZE(fl_contains_cuckoo13_avx512, 6, cuckoo_contains, 13)

FL_LOOKUP_BY_SIZE(fl_contains_cuckoo16_avx512, 8, cuckoo_contains, 16)

/* Integer keys hashed in the lookup loop: no block of hashes is written and read back, and
 * the hash's multiplies (vpmullq, three uops each) issue while the gathers wait on L2, where
 * a hash pass of its own runs alone. Filters beyond L2 wait on DRAM instead and prefetch,
 * which needs the hashes PF_DIST keys ahead: they hash a block first and look it up with the
 * prefetching loop, as the two passes through hash.u64 and contains did. */
FL_INLINE size_t cuckoo_contains_u64s(const fl_kview *f, const uint64_t *keys, size_t n,
                                      uint64_t seed, uint8_t *out, const int bits) {
    const __m512i add = hash_seed_add(seed);
    size_t pos = 0;
    if ((size_t)f->units * fl_cuckoo_bucket_bytes((uint32_t)bits) >= PF_MIN_BYTES) {
        uint64_t h[FL_U64S_BLOCK];
        for (size_t off = 0; off < n; off += FL_U64S_BLOCK) {
            size_t m = n - off < FL_U64S_BLOCK ? n - off : FL_U64S_BLOCK, j = 0;
            for (; j + 8 <= m; j += 8)
                _mm512_storeu_si512(h + j, hash8_u64(load8(keys, off + j), add));
            for (; j < m; j++) h[j] = fl_hash_u64_inline(fl_hash_at(keys, off + j), seed);
            pos += cuckoo_lookup(f, h, m, out + off, 1, bits, 0, add);
        }
        return pos;
    }
    pos = cuckoo_lookup(f, keys, n, out, 0, bits, 1, add);
    size_t i = n & ~(size_t)7;
    uint64_t h[8];
    for (size_t j = i; j < n; j++) h[j - i] = fl_hash_u64_inline(fl_hash_at(keys, j), seed);
    return pos + cuckoo_scalar(bits)(f, h, n - i, out + i);
}

#define CUCKOO_U64S(name, bits)                                                               \
    static size_t name(const fl_kview *f, const uint64_t *keys, size_t n, uint64_t seed,      \
                       fl_hash_u64_fn hash, uint8_t *out) {                                    \
        (void)hash; /* hashed in the loop, with hash_avx512.h's lanes */                       \
        return cuckoo_contains_u64s(f, keys, n, seed, out, bits);                              \
    }
CUCKOO_U64S(fl_contains_u64s_cuckoo8_avx512, 8)
CUCKOO_U64S(fl_contains_u64s_cuckoo11_avx512, 11)
CUCKOO_U64S(fl_contains_u64s_cuckoo12_avx512, 12)
CUCKOO_U64S(fl_contains_u64s_cuckoo13_avx512, 13)
CUCKOO_U64S(fl_contains_u64s_cuckoo16_avx512, 16)

void fl_cuckoo_kernels_init_avx512(fl_kernel_table *t) {
    t->cuckoo.contains[FL_CUCKOO_FP8] = fl_contains_cuckoo8_avx512;
    t->cuckoo.contains[FL_CUCKOO_FP11] = fl_contains_cuckoo11_avx512;
    t->cuckoo.contains[FL_CUCKOO_FP12] = fl_contains_cuckoo12_avx512;
    t->cuckoo.contains[FL_CUCKOO_FP13] = fl_contains_cuckoo13_avx512;
    t->cuckoo.contains[FL_CUCKOO_FP16] = fl_contains_cuckoo16_avx512;
    t->cuckoo.contains_u64s[FL_CUCKOO_FP8] = fl_contains_u64s_cuckoo8_avx512;
    t->cuckoo.contains_u64s[FL_CUCKOO_FP11] = fl_contains_u64s_cuckoo11_avx512;
    t->cuckoo.contains_u64s[FL_CUCKOO_FP12] = fl_contains_u64s_cuckoo12_avx512;
    t->cuckoo.contains_u64s[FL_CUCKOO_FP13] = fl_contains_u64s_cuckoo13_avx512;
    t->cuckoo.contains_u64s[FL_CUCKOO_FP16] = fl_contains_u64s_cuckoo16_avx512;
}
