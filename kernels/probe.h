/*
 * Per-key probe math of every variant: the single definition of where a hash lands.
 *
 * The scalar kernels, the single-key calls in src/ and the cuckoo insert path all use these
 * inline functions, and every SIMD kernel must compute exactly the same positions (the
 * kernel checker compares them byte for byte). Change a formula here and the file format
 * version must change too: saved filters would no longer answer the same.
 *
 * Range reduction everywhere is Lemire's multiply-shift, (x32 * n) >> 32 ("Fast Random
 * Integer Generation in an Interval", 2019), which is what the Parquet split block filter
 * specifies for its block index; it keeps unit counts free of power-of-two rounding.
 */
#ifndef FL_PROBE_H
#define FL_PROBE_H

#include <stdint.h>
#include <string.h>

#include "kernels.h"

static inline uint32_t fl_reduce32(uint32_t x, uint32_t n) {
    return (uint32_t)(((uint64_t)x * n) >> 32);
}

/* Little-endian loads/stores of payload words: the payload is little-endian on every host,
 * as the Parquet format and our file format require. */
static inline uint32_t fl_load_le32(const void *p) {
    uint32_t v;
    memcpy(&v, p, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap32(v);
#endif
    return v;
}
static inline uint64_t fl_load_le64(const void *p) {
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

/* hashes[i] of a caller's array, which the API lets be unaligned. */
static inline uint64_t fl_hash_at(const uint64_t *hashes, size_t i) {
    uint64_t v;
    memcpy(&v, (const unsigned char *)hashes + 8 * i, 8);
    return v;
}

/* Salts for the in-block bit positions. The first eight are the Apache Parquet split block
 * salts (parquet-format BloomFilter.md); the other eight are xxHash's and MurmurHash3's odd
 * 32-bit multipliers. A position is the top bits of (h32 * salt). */
static const uint32_t FL_SALT[16] = {
    0x47b6137bu, 0x44974d91u, 0x8824ad5bu, 0xa2b7289du, 0x705495c7u, 0x2df1424bu,
    0x9efc4947u, 0x5c6bfb31u, 0x9e3779b1u, 0x85ebca77u, 0xc2b2ae3du, 0x27d4eb2fu,
    0x165667b1u, 0xcc9e2d51u, 0x1b873593u, 0xe6546b65u,
};

#define FL_K_MAX 16 /* most bits per key for block512 and reg64 (one salt per bit) */

/* ---- classic: k positions over the whole array by double hashing -------------------------
 * Kirsch and Mitzenmacher ("Less Hashing, Same Performance", 2006): g_i = h1 + i*h2 keeps the
 * asymptotic FPR of k independent hashes. Here h1 = h and h2 = rotl(h, 32) | 1 (odd, so the
 * k steps are distinct), both 64-bit; position i is word reduce32(g_i >> 32, words), bit
 * g_i & 63, so word and bit come from disjoint bits of g_i. */
static inline uint64_t fl_classic_step(uint64_t h) {
    return ((h << 32) | (h >> 32)) | 1u;
}

static inline int fl_classic_probe(const fl_kview *f, uint64_t h) {
    const uint64_t *w = (const uint64_t *)f->data;
    uint64_t g = h, step = fl_classic_step(h);
    for (uint32_t i = 0; i < f->k; i++, g += step) {
        uint64_t word = w[fl_reduce32((uint32_t)(g >> 32), f->units)];
        if (!((word >> (g & 63)) & 1)) return 0;
    }
    return 1;
}

/* ---- block512: one 64-byte block, k bits inside it ----------------------------------------
 * Block reduce32(h >> 32, blocks); bit i at (h32 * SALT[i]) >> 23 in 0..511, bit p in 64-bit
 * little-endian word p >> 6. Positions may repeat (chosen with replacement), which the
 * Putze-Sanders-Singler model assumes. */
static inline void fl_block512_mask(uint64_t h, uint32_t k, uint64_t mask[8]) {
    uint32_t lo = (uint32_t)h;
    for (int w = 0; w < 8; w++) mask[w] = 0;
    for (uint32_t i = 0; i < k; i++) {
        uint32_t p = (lo * FL_SALT[i]) >> 23;
        mask[p >> 6] |= 1ull << (p & 63);
    }
}
static inline const uint64_t *fl_block512_at(const fl_kview *f, uint64_t h) {
    return (const uint64_t *)f->data + 8 * (size_t)fl_reduce32((uint32_t)(h >> 32), f->units);
}
static inline int fl_block512_probe(const fl_kview *f, uint64_t h) {
    const uint64_t *b = fl_block512_at(f, h);
    uint32_t lo = (uint32_t)h;
    for (uint32_t i = 0; i < f->k; i++) {
        uint32_t p = (lo * FL_SALT[i]) >> 23;
        if (!((b[p >> 6] >> (p & 63)) & 1)) return 0;
    }
    return 1;
}

/* ---- split256: Apache Parquet split block Bloom filter --------------------------------------
 * parquet-format BloomFilter.md: block reduce32(h >> 32, blocks); in word i of the 8-word
 * block, bit (h32 * SALT[i]) >> 27. Words are 32-bit little-endian. */
static inline const uint32_t *fl_split256_at(const fl_kview *f, uint64_t h) {
    return (const uint32_t *)f->data + 8 * (size_t)fl_reduce32((uint32_t)(h >> 32), f->units);
}
static inline int fl_split256_probe(const fl_kview *f, uint64_t h) {
    const uint32_t *b = fl_split256_at(f, h);
    uint32_t lo = (uint32_t)h;
    int ok = 1;
    for (int i = 0; i < 8; i++) {
        uint32_t bit = 1u << ((lo * FL_SALT[i]) >> 27);
        ok &= (fl_load_le32(&b[i]) & bit) != 0;
    }
    return ok;
}

/* ---- reg64: one 64-bit word, k bits inside it ----------------------------------------------
 * Word reduce32(h >> 32, words); bit i at (h32 * SALT[i]) >> 26. */
static inline uint64_t fl_reg64_mask(uint64_t h, uint32_t k) {
    uint32_t lo = (uint32_t)h;
    uint64_t m = 0;
    for (uint32_t i = 0; i < k; i++) m |= 1ull << ((lo * FL_SALT[i]) >> 26);
    return m;
}
static inline int fl_reg64_probe(const fl_kview *f, uint64_t h) {
    uint64_t m = fl_reg64_mask(h, f->k);
    uint64_t w = ((const uint64_t *)f->data)[fl_reduce32((uint32_t)(h >> 32), f->units)];
    return (w & m) == m;
}

/* ---- cuckoo: partial-key cuckoo hashing (Fan, Andersen, Kaminsky, Mitzenmacher 2014) -------
 * Primary bucket reduce32(h >> 32, buckets). Fingerprint uniform in [1, 2^f - 1] (0 marks an
 * empty slot): reduce32(h32, 2^f - 1) + 1. The alternate bucket must be computable from
 * (bucket, fingerprint) alone and be an involution for any bucket count, not only powers of
 * two where XOR works: alt(i) = (H(fp) - i) mod buckets satisfies alt(alt(i)) = i. H(fp) is
 * reduce32(fp * 0x5bd1e995, buckets) (MurmurHash2's multiplier). */
#define FL_CUCKOO_SLOTS 4

static inline uint32_t fl_cuckoo_fp(uint64_t h, uint32_t fp_bits) {
    return fl_reduce32((uint32_t)h, (1u << fp_bits) - 1u) + 1u;
}
static inline uint32_t fl_cuckoo_bucket(uint64_t h, uint32_t buckets) {
    return fl_reduce32((uint32_t)(h >> 32), buckets);
}
static inline uint32_t fl_cuckoo_alt(uint32_t i, uint32_t fp, uint32_t buckets) {
    uint32_t hf = fl_reduce32(fp * 0x5bd1e995u, buckets);
    return hf >= i ? hf - i : hf + (buckets - i);
}

/* Slot s of bucket b: 8-bit fingerprints are 4 bytes per bucket, 16-bit ones 4 little-endian
 * 16-bit words (8 bytes) per bucket. */
static inline uint32_t fl_cuckoo_get(const void *data, uint32_t fp_bits, uint32_t b, int s) {
    if (fp_bits == 8) return ((const uint8_t *)data)[4 * (size_t)b + s];
    const uint8_t *p = (const uint8_t *)data + 8 * (size_t)b + 2 * s;
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8);
}
static inline void fl_cuckoo_set(void *data, uint32_t fp_bits, uint32_t b, int s, uint32_t fp) {
    if (fp_bits == 8) {
        ((uint8_t *)data)[4 * (size_t)b + s] = (uint8_t)fp;
    } else {
        uint8_t *p = (uint8_t *)data + 8 * (size_t)b + 2 * s;
        p[0] = (uint8_t)fp;
        p[1] = (uint8_t)(fp >> 8);
    }
}

static inline int fl_cuckoo_stash_has(const fl_kview *f, uint32_t i1, uint32_t i2, uint32_t fp) {
    for (uint32_t s = 0; s < f->stash_count; s++) {
        const fl_stash_entry *e = &f->stash[s];
        if (e->fp == fp && (e->bucket == i1 || e->bucket == i2)) return 1;
    }
    return 0;
}

/* For SIMD cuckoo kernels: of the lanes in `miss` (bit j = hashes[i + j] missed both
 * buckets), those whose fingerprint is in the victim stash. Called only when the stash is
 * non-empty, which is rare and tiny, so it need not be vectorized. */
static inline unsigned fl_cuckoo_stash_lanes(const fl_kview *f, const uint64_t *hashes, size_t i,
                                             unsigned miss) {
    unsigned found = 0;
    for (; miss; miss &= miss - 1) {
        int j = __builtin_ctz(miss);
        uint64_t h = fl_hash_at(hashes, i + (size_t)j);
        uint32_t fp = fl_cuckoo_fp(h, f->k), b1 = fl_cuckoo_bucket(h, f->units);
        if (fl_cuckoo_stash_has(f, b1, fl_cuckoo_alt(b1, fp, f->units), fp)) found |= 1u << j;
    }
    return found;
}

/* Whether any lane of the bucket equals fp, without a branch per slot (a lookup that
 * misses half the time would mispredict one). x = bucket ^ (fp in every lane) has a zero
 * lane exactly where a slot matches; (x - 0x..0101) & ~x & 0x..8080 is nonzero iff some
 * lane of x is zero (Mycroft's test, "Bit Twiddling Hacks", haszero). Empty slots are 0 and
 * fp >= 1, so they never match. */
static inline uint64_t fl_cuckoo_bucket_has(const void *data, uint32_t fp_bits, uint32_t b,
                                            uint32_t fp) {
    if (fp_bits == 8) {
        uint32_t x = fl_load_le32((const uint8_t *)data + 4 * (size_t)b) ^ (fp * 0x01010101u);
        return (x - 0x01010101u) & ~x & 0x80808080u;
    }
    uint64_t x = fl_load_le64((const uint8_t *)data + 8 * (size_t)b) ^ (fp * 0x0001000100010001ull);
    return (x - 0x0001000100010001ull) & ~x & 0x8000800080008000ull;
}

static inline int fl_cuckoo_probe(const fl_kview *f, uint64_t h) {
    uint32_t fp = fl_cuckoo_fp(h, f->k);
    uint32_t i1 = fl_cuckoo_bucket(h, f->units);
    uint32_t i2 = fl_cuckoo_alt(i1, fp, f->units);
    int hit = (fl_cuckoo_bucket_has(f->data, f->k, i1, fp) |
               fl_cuckoo_bucket_has(f->data, f->k, i2, fp)) != 0;
    if (f->stash_count) hit |= fl_cuckoo_stash_has(f, i1, i2, fp); /* almost always 0 */
    return hit;
}

#endif /* FL_PROBE_H */
