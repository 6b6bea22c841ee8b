/*
 * Vector quotient filter (Pandey et al., SIGMOD 2021): lifecycle, sizing, inserts, deletes,
 * lookups, info and kernel binding. The block layout and probe math are
 * include/filterlab_vqf.h's; batch lookups are the vqf kernel module (kernels/vqf_*.c);
 * files are src/vqf/codec_vqf.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "vqf/vqf_internal.h"

/* Keys hashed per chunk on the u64 batch paths (a stack buffer, no allocation). */
#define CHUNK 256

fl_status fl_vqf_blocks_for(uint64_t capacity, uint32_t *blocks) {
    if (!blocks) return FL_ERR_INVALID_ARG;
    if (capacity == 0) return FL_ERR_BAD_N;
    double b = ceil((double)capacity / (FL_VQF_SLOTS * FL_VQF_SIZING_LOAD));
    if (b > (double)FL_VQF_BLOCKS_MAX) return FL_ERR_TOO_LARGE;
    *blocks = (uint32_t)b;
    return FL_OK;
}

static void init_blocks(uint8_t *blocks, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        uint8_t *blk = blocks + (size_t)i * FL_VQF_BLOCK_BYTES;
        uint64_t lo = FL_VQF_EMPTY_LO, hi = FL_VQF_EMPTY_HI;
        memcpy(blk, &lo, 8);
        memcpy(blk + 8, &hi, 8);
        memset(blk + 16, 0, FL_VQF_SLOTS);
    }
}

fl_status fl_vqf_new(uint32_t blocks, uint64_t seed, fl_vqf **out) {
    if (blocks == 0) return FL_ERR_BAD_GEOMETRY;
    if ((uint64_t)blocks * FL_VQF_BLOCK_BYTES > SIZE_MAX / 2) return FL_ERR_TOO_LARGE;
    /* 2 MiB pages for large tables (src/core/memory.c): a lookup probes two random blocks */
    size_t bytes = (size_t)blocks * FL_VQF_BLOCK_BYTES, mapped = 0;
    void *mem = NULL;
    fl_vqf *v = calloc(1, sizeof *v);
    if (!v || fl_payload_get(bytes, &mem, &mapped) != FL_OK) {
        free(v);
        return FL_ERR_NO_MEMORY;
    }
    *v = (fl_vqf){.blocks = mem, .nblocks = blocks, .bytes = bytes, .mapped = mapped,
                  .seed = seed};
    init_blocks(v->blocks, blocks);
    *out = v;
    return FL_OK;
}

fl_status fl_vqf_create_blocks(uint32_t blocks, uint64_t seed, fl_vqf **out) {
    if (out) *out = NULL;
    if (!out) return FL_ERR_INVALID_ARG;
    return fl_vqf_new(blocks, seed, out);
}

fl_status fl_vqf_create(uint64_t capacity, uint64_t seed, fl_vqf **out) {
    if (out) *out = NULL;
    if (!out) return FL_ERR_INVALID_ARG;
    uint32_t blocks;
    fl_status st = fl_vqf_blocks_for(capacity, &blocks);
    if (st != FL_OK) return st;
    return fl_vqf_new(blocks, seed, out);
}

void fl_vqf_free(fl_vqf *v) {
    if (!v) return;
    fl_payload_release(v->blocks, v->mapped);
    free(v);
}

fl_status fl_vqf_clear(fl_vqf *v) {
    if (!v) return FL_ERR_INVALID_ARG;
    init_blocks(v->blocks, v->nblocks);
    v->items = 0;
    return FL_OK;
}

uint64_t fl_vqf_hash_bytes(const fl_vqf *v, const void *key, size_t len) {
    if (!v || (!key && len)) return 0;
    return XXH3_64bits_withSeed(key ? key : "", len, v->seed);
}

uint64_t fl_vqf_hash_u64(const fl_vqf *v, uint64_t key) {
    return v ? fl_hash_u64_inline(key, v->seed) : 0;
}

fl_vqf_lookup fl_vqf_lookup_of(const fl_vqf *v) {
    fl_vqf_lookup l = {NULL, 0, 0};
    if (v) {
        l.blocks = v->blocks;
        l.nblocks = v->nblocks;
        l.seed_mix = v->seed * FL_SEED_MIX;
    }
    return l;
}

/* ---- the metadata as a 128-bit string (lo: bits 0..63) ----------------------------------
 * The shifts below (metadata bits, slots) take no branch and call nothing: the bucket, the
 * slot and which metadata word it falls in are random, so a branch on them mispredicts on
 * a good share of the keys, and the libc memmove of 0..47 bytes that shifted the slots
 * branched on its length. Against that form (memmove, a branch on the metadata word, the
 * emptier block picked by a branch), inserts took 0.91x its time at 100K and 1M keys and
 * deletes 0.85x and 0.88x (medians of 9 paired rounds on a busy 2-core host):
 * results/emeraldrapids-kvm-2c-5bce/vqf/insert_delete.md. Two other deletes measured
 * slower than block_remove's loop there: one looking at both blocks' buckets and picking
 * the block with a mask (1.2-1.35x: two bucket masks, four portable selects, every time),
 * and one finding bucket b - 1's closing one as the highest set bit below bucket b's
 * instead of by a second select (1.07x: the second select runs beside the first; the
 * highest-bit search has to wait for it). */

static void md_get(const uint8_t *blk, uint64_t *lo, uint64_t *hi) {
    *lo = fl_vqf_md_lo(blk);
    *hi = fl_vqf_md_hi(blk);
}

static void md_put(uint8_t *blk, uint64_t lo, uint64_t hi) {
    memcpy(blk, &lo, 8);
    memcpy(blk + 8, &hi, 8);
}

/* The bits below p (0..127) as two masks. min(p, 64) and p - 64 are picked with a mask (GCC
 * compiles a conditional here into a branch); shifting twice by half of 64 gives 0, so no
 * shift reaches 64. */
static inline void md_below(uint32_t p, uint64_t *blo, uint64_t *bhi) {
    uint32_t ge = (uint32_t)0 - (uint32_t)(p >= 64);
    uint32_t plo = (p & ~ge) | (64u & ge), phi = (p - 64u) & ge & 63u;
    *blo = ~((~0ull << (plo >> 1)) << (plo - (plo >> 1)));
    *bhi = (1ull << phi) - 1;
}

/* A 0 inserted at bit p: the bits from p up move up by one (bit 127, a 0 while the block has
 * room, falls off): (x & below) | ((x & ~below) << 1) on the 128-bit string. */
static inline void md_insert_zero(uint64_t *lo, uint64_t *hi, uint32_t p) {
    uint64_t blo, bhi;
    md_below(p, &blo, &bhi);
    uint64_t alo = *lo & ~blo, ahi = *hi & ~bhi;
    *hi = (*hi & bhi) | (ahi << 1) | (alo >> 63);
    *lo = (*lo & blo) | (alo << 1);
}

/* Bit p removed: the bits above it move down by one, a 0 enters at bit 127:
 * (x & below) | ((x >> 1) & ~below). */
static inline void md_remove_bit(uint64_t *lo, uint64_t *hi, uint32_t p) {
    uint64_t blo, bhi;
    md_below(p, &blo, &bhi);
    *lo = (*lo & blo) | (((*lo >> 1) | (*hi << 63)) & ~blo);
    *hi = (*hi & bhi) | ((*hi >> 1) & ~bhi);
}

/* ---- the 48 slots as six words (slot 8i + k is byte k of word i, little-endian) ---------- */

#define SLOT_WORDS (FL_VQF_SLOTS / 8)

static inline uint64_t load_le64(const uint8_t *p) {
    uint64_t x;
    memcpy(&x, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    x = __builtin_bswap64(x);
#endif
    return x;
}

static inline void store_le64(uint8_t *p, uint64_t x) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    x = __builtin_bswap64(x);
#endif
    memcpy(p, &x, 8);
}

/* 0xff in the bytes of word i that hold slot s or a later one, 0 in the others: each byte
 * of (its slot index + 128) - s keeps its high bit exactly when index >= s (indices and s
 * are below 128, so no borrow crosses a byte), and h | (h - (h >> 7)) widens each high bit to
 * its byte. No branch and no shift by a variable amount. */
static inline uint64_t slots_from(uint64_t s_bytes, uint32_t i) {
    const uint64_t index = 0x0706050403020100ull + 0x0808080808080808ull * i;
    uint64_t h = ((index | 0x8080808080808080ull) - s_bytes) & 0x8080808080808080ull;
    return h | (h - (h >> 7));
}

#define BYTES_OF(x) ((uint64_t)(x) * 0x0101010101010101ull)

/* Slots s..46 move up to s + 1..47 (slot 47, free while the block has room, falls off) and
 * fp goes into slot s. */
static inline void slots_insert(uint8_t *slots, uint32_t s, uint32_t fp) {
    uint64_t carry = 0, sb = BYTES_OF(s);
    for (uint32_t i = 0; i < SLOT_WORDS; i++) {
        uint64_t w = load_le64(slots + 8 * i), m = slots_from(sb, i);
        uint64_t up = (w << 8) | carry;
        carry = w >> 56;
        store_le64(slots + 8 * i, (w & ~m) | (up & m));
    }
    slots[s] = (uint8_t)fp;
}

/* Slot s removed: slots s + 1..47 move down to s..46 and slot 47 becomes 0. */
static inline void slots_remove(uint8_t *slots, uint32_t s) {
    uint64_t w[SLOT_WORDS + 1], sb = BYTES_OF(s);
    for (uint32_t i = 0; i < SLOT_WORDS; i++) w[i] = load_le64(slots + 8 * i);
    w[SLOT_WORDS] = 0;
    for (uint32_t i = 0; i < SLOT_WORDS; i++) {
        uint64_t down = (w[i] >> 8) | (w[i + 1] << 56), m = slots_from(sb, i);
        store_le64(slots + 8 * i, (w[i] & ~m) | (down & m));
    }
}

/* ---- one block ---------------------------------------------------------------------------- */

/* fp appended to bucket b's run (the block has room): the bucket's closing one is at bit e,
 * its next slot is e - b; later slots and metadata bits move up by one. One select: the word
 * holding the rank-b one is picked with a mask (as fl_vqf_end_onehot does), which is
 * fl_vqf_select128's answer on metadata of 80 ones. */
static void block_insert(uint8_t *blk, uint32_t b, uint32_t fp) {
    uint64_t lo, hi;
    md_get(blk, &lo, &hi);
    uint32_t c = fl_vqf_popcount(lo);
    uint64_t in_lo = (uint64_t)0 - (uint64_t)(b < c);
    uint64_t w = (lo & in_lo) | (hi & ~in_lo);
    uint32_t in_hi = (uint32_t)~in_lo; /* all ones when the one is in hi */
    uint32_t e = fl_vqf_select64(w, b - (c & in_hi)) + (64u & in_hi);
    slots_insert(blk + 16, e - b, fp);
    md_insert_zero(&lo, &hi, e);
    md_put(blk, lo, hi);
}

/* One copy of fp removed from bucket b; 0 if the bucket has none. Slot j's zero is at bit
 * j + b (b ones before it). */
static int block_remove(uint8_t *blk, uint32_t b, uint32_t fp) {
    uint64_t lo, hi;
    md_get(blk, &lo, &hi);
    uint8_t *slots = blk + 16;
    for (uint64_t m = fl_vqf_bucket_mask(lo, hi, b); m; m &= m - 1) {
        uint32_t j = (uint32_t)__builtin_ctzll(m);
        if (slots[j] != fp) continue;
        slots_remove(slots, j);
        md_remove_bit(&lo, &hi, j + b);
        md_put(blk, lo, hi);
        return 1;
    }
    return 0;
}

static uint8_t *block_at(const fl_vqf *v, uint32_t i) {
    return v->blocks + (size_t)i * FL_VQF_BLOCK_BYTES;
}

/* ---- inserts, deletes, lookups ------------------------------------------------------------ */

fl_status fl_vqf_insert_hash(fl_vqf *v, uint64_t h) {
    if (!v) return FL_ERR_INVALID_ARG;
    uint8_t *b1 = block_at(v, fl_vqf_block1(h, v->nblocks));
    uint8_t *b2 = block_at(v, fl_vqf_block2(h, v->nblocks));
    /* The power of two choices: the emptier block (ties: block1). */
    uint32_t n1 = fl_vqf_block_items(b1), n2 = fl_vqf_block_items(b2);
    /* picked with a mask: which block is emptier is random, a branch mispredicts */
    uintptr_t pick2 = (uintptr_t)0 - (uintptr_t)(n2 < n1);
    uint8_t *t = (uint8_t *)(((uintptr_t)b1 & ~pick2) | ((uintptr_t)b2 & pick2));
    if ((n1 < n2 ? n1 : n2) == FL_VQF_SLOTS) return FL_ERR_FULL;
    block_insert(t, fl_vqf_bucket(h), fl_vqf_fp(h));
    v->items++;
    return FL_OK;
}

fl_status fl_vqf_insert_bytes(fl_vqf *v, const void *key, size_t len) {
    if (!v || (!key && len)) return FL_ERR_INVALID_ARG;
    return fl_vqf_insert_hash(v, fl_vqf_hash_bytes(v, key, len));
}

fl_status fl_vqf_insert_u64(fl_vqf *v, uint64_t key) {
    if (!v) return FL_ERR_INVALID_ARG;
    return fl_vqf_insert_hash(v, fl_hash_u64_inline(key, v->seed));
}

fl_status fl_vqf_delete_hash(fl_vqf *v, uint64_t h) {
    if (!v) return FL_ERR_INVALID_ARG;
    uint32_t b = fl_vqf_bucket(h), fp = fl_vqf_fp(h);
    if (!block_remove(block_at(v, fl_vqf_block1(h, v->nblocks)), b, fp) &&
        !block_remove(block_at(v, fl_vqf_block2(h, v->nblocks)), b, fp))
        return FL_ERR_NOT_FOUND;
    v->items--;
    return FL_OK;
}

fl_status fl_vqf_delete_bytes(fl_vqf *v, const void *key, size_t len) {
    if (!v || (!key && len)) return FL_ERR_INVALID_ARG;
    return fl_vqf_delete_hash(v, fl_vqf_hash_bytes(v, key, len));
}

fl_status fl_vqf_delete_u64(fl_vqf *v, uint64_t key) {
    if (!v) return FL_ERR_INVALID_ARG;
    return fl_vqf_delete_hash(v, fl_hash_u64_inline(key, v->seed));
}

/* ---- batches of inserts and deletes -------------------------------------------------------
 * One loop for both (op: fl_vqf_insert_hash or fl_vqf_delete_hash, a constant at each call,
 * so the always-inline loop calls it directly): keys in order, stopping at the first that
 * fails, *done the keys done before it. Both blocks of the key AHEAD keys on are prefetched:
 * on a filter past the caches each key otherwise waits for two misses in turn (its
 * metadata decides where it goes). */
#define AHEAD 16
typedef fl_status (*key_op)(fl_vqf *v, uint64_t h);

static inline __attribute__((always_inline)) fl_status
each_hash(fl_vqf *v, const uint64_t *hashes, size_t n, size_t *done, key_op op) {
    if (done) *done = 0;
    if (!v || (!hashes && n)) return FL_ERR_INVALID_ARG;
    for (size_t i = 0; i < n; i++) {
        if (i + AHEAD < n) {
            uint64_t p = fl_hash_at(hashes, i + AHEAD);
            __builtin_prefetch(block_at(v, fl_vqf_block1(p, v->nblocks)), 1, 3);
            __builtin_prefetch(block_at(v, fl_vqf_block2(p, v->nblocks)), 1, 3);
        }
        fl_status st = op(v, fl_hash_at(hashes, i));
        if (st != FL_OK) return st;
        if (done) *done = i + 1;
    }
    return FL_OK;
}

/* u64 keys hashed a chunk at a time by the hash kernel, then each_hash. */
static inline __attribute__((always_inline)) fl_status
each_u64(fl_vqf *v, const uint64_t *keys, size_t n, size_t *done, key_op op) {
    if (done) *done = 0;
    if (!v || (!keys && n)) return FL_ERR_INVALID_ARG;
    const fl_kernel_table *t = fl_kernels_bound(&v->bound, v->bytes);
    uint64_t h[CHUNK];
    for (size_t i = 0; i < n; i += CHUNK) {
        size_t m = n - i < CHUNK ? n - i : CHUNK, d = 0;
        t->hash.u64(keys + i, m, v->seed, h);
        fl_status st = each_hash(v, h, m, &d, op);
        if (done) *done = i + d;
        if (st != FL_OK) return st;
    }
    return FL_OK;
}

fl_status fl_vqf_insert_hashes(fl_vqf *v, const uint64_t *hashes, size_t n, size_t *inserted) {
    return each_hash(v, hashes, n, inserted, fl_vqf_insert_hash);
}
fl_status fl_vqf_insert_u64s(fl_vqf *v, const uint64_t *keys, size_t n, size_t *inserted) {
    return each_u64(v, keys, n, inserted, fl_vqf_insert_hash);
}
fl_status fl_vqf_delete_hashes(fl_vqf *v, const uint64_t *hashes, size_t n, size_t *deleted) {
    return each_hash(v, hashes, n, deleted, fl_vqf_delete_hash);
}
fl_status fl_vqf_delete_u64s(fl_vqf *v, const uint64_t *keys, size_t n, size_t *deleted) {
    return each_u64(v, keys, n, deleted, fl_vqf_delete_hash);
}

static size_t contains_with(const fl_vqf *v, const fl_kernel_table *t, const uint64_t *h,
                            size_t n, uint8_t *out) {
    fl_kview view = {v->blocks, v->nblocks, 8, NULL, 0};
    return t->vqf.contains(&view, h, n, out);
}

/* One key through the dispatched kernel: this file is built at baseline flags, where the
 * probe's select is the portable one, several times the pdep form's cost. */
int fl_vqf_contains_hash(const fl_vqf *v, uint64_t h) {
    uint8_t out;
    return v ? (int)contains_with(v, fl_kernels_bound(&v->bound, v->bytes), &h, 1, &out) : 0;
}

int fl_vqf_contains_bytes(const fl_vqf *v, const void *key, size_t len) {
    if (!v || (!key && len)) return 0;
    return fl_vqf_contains_hash(v, fl_vqf_hash_bytes(v, key, len));
}

int fl_vqf_contains_u64(const fl_vqf *v, uint64_t key) {
    return v ? fl_vqf_contains_hash(v, fl_hash_u64_inline(key, v->seed)) : 0;
}

fl_status fl_vqf_contains_hashes(const fl_vqf *v, const uint64_t *hashes, size_t n,
                                 uint8_t *out, size_t *positives) {
    if (positives) *positives = 0;
    if (!v || ((!hashes || !out) && n)) return FL_ERR_INVALID_ARG;
    size_t pos = n ? contains_with(v, fl_kernels_bound(&v->bound, v->bytes), hashes, n, out) : 0;
    if (positives) *positives = pos;
    return FL_OK;
}

fl_status fl_vqf_contains_u64s(const fl_vqf *v, const uint64_t *keys, size_t n, uint8_t *out,
                               size_t *positives) {
    if (positives) *positives = 0;
    if (!v || ((!keys || !out) && n)) return FL_ERR_INVALID_ARG;
    const fl_kernel_table *t = fl_kernels_bound(&v->bound, v->bytes);
    uint64_t h[CHUNK];
    size_t pos = 0;
    for (size_t i = 0; i < n; i += CHUNK) {
        size_t m = n - i < CHUNK ? n - i : CHUNK;
        t->hash.u64(keys + i, m, v->seed, h);
        pos += contains_with(v, t, h, m, out + i);
    }
    if (positives) *positives = pos;
    return FL_OK;
}

fl_status fl_vqf_info_get(const fl_vqf *v, fl_vqf_info *out) {
    if (!v || !out) return FL_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    out->blocks = v->nblocks;
    out->bytes = v->bytes;
    out->seed = v->seed;
    out->items = v->items;
    out->slots = (uint64_t)v->nblocks * FL_VQF_SLOTS;
    out->capacity = (uint64_t)floor((double)out->slots * FL_VQF_SIZING_LOAD);
    out->load = (double)v->items / (double)out->slots;
    out->bits_per_key = out->capacity ? (double)v->bytes * 8.0 / (double)out->capacity : 0.0;
    /* A non-member meets the fingerprints of its bucket in two blocks, items / blocks / 80
     * each on average; each matches with probability 1/256. */
    double per_bucket = (double)v->items / (double)v->nblocks / FL_VQF_BUCKETS;
    out->fpr = 1.0 - pow(1.0 - 1.0 / 256.0, 2.0 * per_bucket);
    uint32_t full = 0;
    for (uint32_t i = 0; i < v->nblocks; i++)
        full += fl_vqf_block_items(block_at(v, i)) == FL_VQF_SLOTS;
    out->full_blocks = full;
    return FL_OK;
}

fl_status fl_vqf_bind_kernel(fl_vqf *v, const char *name) {
    if (!v) return FL_ERR_INVALID_ARG;
    return fl_kernel_bind(&v->bound, name);
}

const char *fl_vqf_kernel(const fl_vqf *v) {
    if (!v) return NULL;
    return fl_kernel_table_name(fl_kernels_bound(&v->bound, v->bytes));
}
