/*
 * Per-key probe math of every variant: the single definition of where a hash lands.
 *
 * The scalar kernels, the single-key calls in src/ and the cuckoo insert path all use these
 * inline functions, and every SIMD kernel must compute exactly the same positions (the
 * kernel checker compares them byte for byte). Change a formula here and the file format
 * version must change too: saved filters would no longer answer the same.
 *
 * The primitives the header-inline lookups need too (Lemire's range reduction, the salts, the
 * cuckoo fingerprint, buckets and bucket test) live in include/filterlab_inline.h, which this
 * file includes, so each formula has one definition.
 */
#ifndef FL_PROBE_H
#define FL_PROBE_H

#include <stdint.h>
#include <string.h>

#include "filterlab_inline.h"
#include "kernels.h"

/* Little-endian loads of payload words: the payload is little-endian on every host, as the
 * Parquet format and our file format require. FL_FROM_LE turns such a word into the host's. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define FL_FROM_LE(bits, v) __builtin_bswap##bits(v)
#else
#define FL_FROM_LE(bits, v) (v)
#endif
static inline uint32_t fl_load_le32(const void *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return FL_FROM_LE(32, v);
}
static inline uint64_t fl_load_le64(const void *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return FL_FROM_LE(64, v);
}

/* Reads of Bloom payload words in the probes below. fl_insert_hashes_atomic may OR bits
 * into these words on another thread while lookups run (the documented concurrent
 * pattern): a relaxed atomic load makes that race defined for C11 and visible as such to
 * TSan, and for an aligned word it is the same plain mov/ldr on x86-64 and AArch64. */
static inline uint64_t fl_peek64(const uint64_t *p) {
    return __atomic_load_n(p, __ATOMIC_RELAXED);
}
static inline uint32_t fl_peek_le32(const uint32_t *p) {
    return FL_FROM_LE(32, __atomic_load_n(p, __ATOMIC_RELAXED));
}

/* The kernel view of a Bloom payload, for the one-key entries (fl_contains1_fn), which get
 * the handle's fields by value. */
static inline fl_kview fl_bloom_view(const void *data, uint32_t units, uint32_t k) {
    fl_kview v = {(void *)(uintptr_t)data, units, k, NULL, 0};
    return v;
}

/* hashes[i] of a caller's array, which the API lets be unaligned. */
static inline uint64_t fl_hash_at(const uint64_t *hashes, size_t i) {
    uint64_t v;
    memcpy(&v, (const unsigned char *)hashes + 8 * i, 8);
    return v;
}

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
        uint64_t word = fl_peek64(&w[fl_reduce32((uint32_t)(g >> 32), f->units)]);
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
    /* GCC peels plain loads over the 16 salts by itself, not atomic ones: ask for it. */
#pragma GCC unroll 16
    for (uint32_t i = 0; i < f->k; i++) {
        uint32_t p = (lo * FL_SALT[i]) >> 23;
        if (!((fl_peek64(&b[p >> 6]) >> (p & 63)) & 1)) return 0;
    }
    return 1;
}

/* ---- split256: Apache Parquet split block Bloom filter --------------------------------------
 * parquet-format BloomFilter.md: block reduce32(h >> 32, blocks); in word i of the 8-word
 * block, bit (h32 * SALT[i]) >> 27. Words are 32-bit little-endian. */
static inline uint32_t fl_split256_bit(uint32_t h32, int word) {
    return 1u << ((h32 * FL_SALT[word]) >> 27);
}
static inline const uint32_t *fl_split256_at(const fl_kview *f, uint64_t h) {
    return (const uint32_t *)f->data + 8 * (size_t)fl_reduce32((uint32_t)(h >> 32), f->units);
}
static inline int fl_split256_probe(const fl_kview *f, uint64_t h) {
    const uint32_t *b = fl_split256_at(f, h);
    uint32_t lo = (uint32_t)h;
    int ok = 1;
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++) ok &= (fl_peek_le32(&b[i]) & fl_split256_bit(lo, i)) != 0;
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
    uint64_t w = fl_peek64(&((const uint64_t *)f->data)[fl_reduce32((uint32_t)(h >> 32), f->units)]);
    return (w & m) == m;
}

/* ---- cuckoo: fingerprints, buckets and their alternates are in filterlab_inline.h ------- */
#define FL_CUCKOO_SLOTS 4

/* Bucket bytes of each fingerprint width (filterlab_inline.h gives the layouts). */
static inline size_t fl_cuckoo_bucket_bytes(uint32_t fp_bits) {
    return fp_bits == 8 ? 4 : fp_bits == 11 ? 5 : fp_bits == 12 || fp_bits == 13 ? 6 : 8;
}

/* ---- semi-sorted buckets, 11 and 13 bits (layout: filterlab_inline.h's fl_cuckoo_ss_has) ---
 * The decoding tables, filled once when the library is loaded (src/cuckoo/semisort.c): every
 * kernel and every handle reads these. Row 0 is the 11-bit width's (7-bit lanes), row 1 the
 * 13-bit width's (9-bit lanes). */
extern __attribute__((visibility("hidden"))) uint32_t fl_cuckoo_tuples[2][4096];

/* The decoding table of semi-sorted width fp_bits (11 or 13). */
static inline const uint32_t *fl_cuckoo_ss_table(uint32_t fp_bits) {
    return fl_cuckoo_tuples[fp_bits == 13];
}

/* A lookup handle's table (fl_cuckoo_lookup.tuples): the width's, NULL for the widths that
 * are not semi-sorted. */
static inline const uint32_t *fl_cuckoo_tuples_of(uint32_t fp_bits) {
    return fl_cuckoo_semisorted(fp_bits) ? fl_cuckoo_ss_table(fp_bits) : NULL;
}

/* The 12-bit rank of the nibbles n0 <= n1 <= n2 <= n3 (each < 16): in 0..3875. */
static inline uint32_t fl_cuckoo_ss_rank(uint32_t n0, uint32_t n1, uint32_t n2, uint32_t n3) {
    uint32_t a = n1 + 1, b = n2 + 2, c = n3 + 3;
    return n0 + a * (a - 1) / 2 + b * (b - 1) * (b - 2) / 6 + c * (c - 1) * (c - 2) * (c - 3) / 24;
}

/* The fingerprints of semi-sorted bucket b, ascending (0s, the empty slots, first). */
static inline void fl_cuckoo_ss_decode(const void *data, uint32_t fp_bits, uint32_t b,
                                       uint32_t fp[4]) {
    const uint32_t low = fp_bits - 4;
    uint64_t x = fl_cuckoo_ss_word(data, fp_bits, b);
    uint32_t t = fl_cuckoo_ss_table(fp_bits)[x & 0xfffu];
    for (uint32_t s = 0; s < 4; s++)
        fp[s] = ((uint32_t)(x >> (12 + low * s)) & ((1u << low) - 1u)) |
                (((t >> (low * s)) & 0xfu) << low);
}

/* Bucket b set to the fingerprints fp[0..3] (each < 2^fp_bits, in any order; fp is sorted in
 * place): the bucket's (fp_bits - 1) / 2 bytes and nothing past them. Sorting whole
 * fingerprints, not only their nibbles, makes a bucket's bytes a function of the multiset it
 * holds. */
static inline void fl_cuckoo_ss_encode(void *data, uint32_t fp_bits, uint32_t b, uint32_t fp[4]) {
    static const int net[5][2] = {{0, 1}, {2, 3}, {0, 2}, {1, 3}, {1, 2}};
    const uint32_t low = fp_bits - 4, bytes = (fp_bits - 1) / 2;
    for (int i = 0; i < 5; i++) {
        uint32_t lo = fp[net[i][0]], hi = fp[net[i][1]];
        fp[net[i][0]] = lo < hi ? lo : hi;
        fp[net[i][1]] = lo < hi ? hi : lo;
    }
    uint64_t x = fl_cuckoo_ss_rank(fp[0] >> low, fp[1] >> low, fp[2] >> low, fp[3] >> low);
    for (uint32_t s = 0; s < 4; s++) x |= (uint64_t)(fp[s] & ((1u << low) - 1u)) << (12 + low * s);
    memcpy((uint8_t *)data + bytes * (size_t)b, &x, bytes);
}

/* fl_cuckoo_ss_has with the library's table of the width. */
static inline uint64_t fl_cuckoo_ss_bucket_has(const void *data, uint32_t fp_bits, uint32_t b,
                                               uint32_t fp) {
    return fl_cuckoo_ss_has(fl_cuckoo_ss_word(data, fp_bits, b), fp, fp_bits,
                            fl_cuckoo_ss_table(fp_bits));
}

/* Slot s of bucket b: 8-bit fingerprints are 4 bytes per bucket, 16-bit ones 4 little-endian
 * 16-bit words (8 bytes) per bucket, 12-bit ones bits 12s..12s+11 of a 6-byte little-endian
 * bucket. A 12-bit slot spans two bytes (byte 3s/2 on, from bit 0 or 4 of it), read and
 * written as a 16-bit pair so that no access leaves the bucket's 6 bytes. */
static inline uint32_t fl_cuckoo_get(const void *data, uint32_t fp_bits, uint32_t b, int s) {
    if (fp_bits == 8) return ((const uint8_t *)data)[4 * (size_t)b + s];
    if (fl_cuckoo_semisorted(fp_bits)) {
        uint32_t fp[4];
        fl_cuckoo_ss_decode(data, fp_bits, b, fp);
        return fp[s];
    }
    if (fp_bits == 12) {
        const uint8_t *p = (const uint8_t *)data + 6 * (size_t)b + ((12 * s) >> 3);
        return (((uint32_t)p[0] | ((uint32_t)p[1] << 8)) >> ((12 * s) & 7)) & 0xfffu;
    }
    const uint8_t *p = (const uint8_t *)data + 8 * (size_t)b + 2 * s;
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8);
}
static inline void fl_cuckoo_set(void *data, uint32_t fp_bits, uint32_t b, int s, uint32_t fp) {
    if (fp_bits == 8) {
        ((uint8_t *)data)[4 * (size_t)b + s] = (uint8_t)fp;
    } else if (fl_cuckoo_semisorted(fp_bits)) {
        /* The slots are re-sorted: slot s of the bucket need not hold fp afterwards. */
        uint32_t v[4];
        fl_cuckoo_ss_decode(data, fp_bits, b, v);
        v[s] = fp;
        fl_cuckoo_ss_encode(data, fp_bits, b, v);
    } else if (fp_bits == 12) {
        uint8_t *p = (uint8_t *)data + 6 * (size_t)b + ((12 * s) >> 3);
        int shift = (12 * s) & 7;
        uint32_t v = (uint32_t)p[0] | ((uint32_t)p[1] << 8);
        v = (v & ~(0xfffu << shift)) | ((fp & 0xfffu) << shift);
        p[0] = (uint8_t)v;
        p[1] = (uint8_t)(v >> 8);
    } else {
        uint8_t *p = (uint8_t *)data + 8 * (size_t)b + 2 * s;
        p[0] = (uint8_t)fp;
        p[1] = (uint8_t)(fp >> 8);
    }
}

/* Slot `lane` (its lowest bit; fl_cuckoo_bucket_has's flag for it is its top bit) of bucket b
 * set to v, a slot that held 0 or is emptied (v = 0): one load and one store of the bucket's
 * bytes (its 6 for 12-bit slots: nothing outside the bucket is written). */
static inline void fl_cuckoo_lane_put(void *data, uint32_t fp_bits, uint32_t b, uint64_t flag,
                                      uint32_t v) {
    uint8_t *p = (uint8_t *)data + fl_cuckoo_bucket_bytes(fp_bits) * (size_t)b;
    unsigned lane = (unsigned)__builtin_ctzll(flag) + 1u - fp_bits;
    uint64_t x = 0, slot = (((uint64_t)1 << fp_bits) - 1) << lane;
    memcpy(&x, p, fp_bits == 8 ? 4 : 8);
    x = (x & ~slot) | ((uint64_t)v << lane);
    memcpy(p, &x, fl_cuckoo_bucket_bytes(fp_bits));
}

/* Puts fp in bucket b's first empty slot (the lowest-numbered slot holding 0) and returns 1;
 * returns 0 if the bucket has none. One load of the bucket and fl_cuckoo_bucket_has's
 * zero-lane test for fingerprint 0 (empty slots are exactly those holding 0) in place of a
 * read per slot: Mycroft's test flags the lowest zero lane exactly (below it no lane
 * borrows; lanes above it may be flagged falsely), so the lowest set bit is that lane's top
 * bit, fp_bits * s + fp_bits - 1, and fp goes in with one store of the bucket's bytes. The
 * same slot as a slot-by-slot scan for a 0 picks (tests/test_cuckoo.c compares the tables the
 * two build). A constant fp_bits folds the width tests away. */
static inline int fl_cuckoo_put_first_empty(void *data, uint32_t fp_bits, uint32_t b,
                                            uint32_t fp) {
    if (fl_cuckoo_semisorted(fp_bits)) { /* the empty slots sort first */
        uint32_t v[4];
        fl_cuckoo_ss_decode(data, fp_bits, b, v);
        if (v[0]) return 0;
        v[0] = fp;
        fl_cuckoo_ss_encode(data, fp_bits, b, v);
        return 1;
    }
    uint64_t empty = fl_cuckoo_bucket_has(data, fp_bits, b, 0);
    if (!empty) return 0;
    fl_cuckoo_lane_put(data, fp_bits, b, empty, fp);
    return 1;
}

/* Takes one copy of fp (>= 1) out of bucket b: the lowest-numbered slot holding fp becomes
 * 0 and 1 is returned; 0 if no slot holds fp. The lowest lane fl_cuckoo_bucket_has flags is
 * exactly the lowest matching slot (as in fl_cuckoo_put_first_empty), so this empties the
 * slot a slot-by-slot scan would, with one load and one store of the bucket's bytes and no
 * branch per slot (tests/test_cuckoo.c compares it with that scan). */
static inline int fl_cuckoo_take_first(void *data, uint32_t fp_bits, uint32_t b, uint32_t fp) {
    if (fl_cuckoo_semisorted(fp_bits)) { /* any copy: the bytes depend only on the multiset */
        uint32_t v[4];
        fl_cuckoo_ss_decode(data, fp_bits, b, v);
        for (int s = 0; s < 4; s++)
            if (v[s] == fp) {
                v[s] = 0;
                fl_cuckoo_ss_encode(data, fp_bits, b, v);
                return 1;
            }
        return 0;
    }
    uint64_t hit = fl_cuckoo_bucket_has(data, fp_bits, b, fp);
    if (!hit) return 0;
    fl_cuckoo_lane_put(data, fp_bits, b, hit, 0);
    return 1;
}

static inline int fl_cuckoo_stash_has(const fl_kview *f, uint32_t i1, uint32_t i2, uint32_t fp) {
    return fl_cuckoo_stash_match(f->stash, f->stash_count, i1, i2, fp);
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

static inline int fl_cuckoo_probe(const fl_kview *f, uint64_t h) {
    uint32_t fp = fl_cuckoo_fp(h, f->k);
    uint32_t i1 = fl_cuckoo_bucket(h, f->units);
    uint32_t i2 = fl_cuckoo_alt(i1, fp, f->units);
    int hit = fl_cuckoo_semisorted(f->k)
                  ? fl_cuckoo_ss_buckets_have(f->data, f->k, fl_cuckoo_ss_table(f->k), i1, i2, fp)
                  : (fl_cuckoo_bucket_has(f->data, f->k, i1, fp) |
                     fl_cuckoo_bucket_has(f->data, f->k, i2, fp)) != 0;
    if (f->stash_count) hit |= fl_cuckoo_stash_has(f, i1, i2, fp); /* almost always 0 */
    return hit;
}

/* ---- counting, counting512: 4-bit counters --------------------------------------------------
 * The payload is an array of 4-bit counters packed into little-endian 64-bit words: counter c
 * is bits 4 (c & 15) .. 4 (c & 15) + 3 of word c >> 4 (so byte c >> 1, low nibble for even
 * c). Four bits per counter follow Fan, Cao, Almeida, Broder ("Summary Cache", 2000), whose
 * overflow bound is fl_counting_overflow_bound. A counter saturates at FL_COUNTER_MAX. */
#define FL_COUNTER_MAX 15u

static inline uint32_t fl_counter_get(const uint64_t *w, size_t c) {
    /* fl_peek64: atomic inserts may change the word on another thread (src/counting/counting.c). */
    return (uint32_t)(fl_peek64(&w[c >> 4]) >> (4 * (c & 15))) & 0xf;
}
/* +1 unless saturated (the key-by-key insert every counting insert kernel must equal). */
static inline void fl_counter_inc(uint64_t *w, size_t c) {
    uint64_t one = 1ull << (4 * (c & 15));
    if (fl_counter_get(w, c) != FL_COUNTER_MAX) w[c >> 4] += one;
}

/* counting (classic layout): classic's double hashing g_i = h + i * step, with word
 * reduce32(g_i >> 32, words) and counter g_i & 15 inside it: the same split of g_i into
 * disjoint bits as classic's word and bit, with 16 counters per word instead of 64 bits. */
static inline size_t fl_counting_cell(uint64_t g, uint32_t units) {
    return 16 * (size_t)fl_reduce32((uint32_t)(g >> 32), units) + (size_t)(g & 15);
}
/* The k counters of h, in probe order (k <= 32; a counter may repeat). */
static inline void fl_counting_cells(const fl_kview *f, uint64_t h, size_t *cells) {
    uint64_t g = h, step = fl_classic_step(h);
    for (uint32_t i = 0; i < f->k; i++, g += step) cells[i] = fl_counting_cell(g, f->units);
}
static inline int fl_counting_probe(const fl_kview *f, uint64_t h) {
    const uint64_t *w = (const uint64_t *)f->data;
    uint64_t g = h, step = fl_classic_step(h);
    for (uint32_t i = 0; i < f->k; i++, g += step)
        if (!fl_counter_get(w, fl_counting_cell(g, f->units))) return 0;
    return 1;
}

/* counting512 (blocked layout): block512's line, reduce32(h >> 32, blocks), holding 128
 * counters; counter i of the key at (h32 * SALT[i]) >> 25 in 0..127, with replacement like
 * block512 (Putze, Sanders, Singler 2007, with 128 cells per block). k <= 16. */
static inline uint32_t fl_counting512_slot(uint32_t lo, uint32_t i) {
    return (lo * FL_SALT[i]) >> 25;
}
static inline void fl_counting512_cells(const fl_kview *f, uint64_t h, size_t *cells) {
    size_t base = 128 * (size_t)fl_reduce32((uint32_t)(h >> 32), f->units);
    for (uint32_t i = 0; i < f->k; i++) cells[i] = base + fl_counting512_slot((uint32_t)h, i);
}
static inline int fl_counting512_probe(const fl_kview *f, uint64_t h) {
    const uint64_t *b = fl_block512_at(f, h);
    uint32_t lo = (uint32_t)h;
#pragma GCC unroll 16
    for (uint32_t i = 0; i < f->k; i++)
        if (!fl_counter_get(b, fl_counting512_slot(lo, i))) return 0;
    return 1;
}

#endif /* FL_PROBE_H */
