/*
 * Operations on the Bloom variants that are not kernels: union, bit counting, the
 * concurrent (atomic OR) insert path, and the one-key test-and-set (add_one) that scalable
 * chains add with.
 */
#include <string.h>

#include "core/internal.h"
#include "probe.h"

/* dst |= src; fl_union has checked that the two are alike. */
fl_status fl_bloom_union(fl_filter *dst, const fl_filter *src) {
    /* Every variant's payload is a bit array whose bits are set independently per key, so
     * the union of the key sets is the OR of the payloads (bit for bit). */
    uint64_t *d = dst->data;
    const uint64_t *s = src->data;
    size_t words = dst->bytes / 8;
    for (size_t i = 0; i < words; i++) d[i] |= s[i];
    dst->keys += src->keys; /* fl_union replaces the sum with what it knows of the count */
    return FL_OK;
}

void fl_bloom_occupancy(const fl_filter *f, fl_info *out) {
    const uint64_t *w = f->data;
    size_t words = f->bytes / 8;
    uint64_t n = 0;
    for (size_t i = 0; i < words; i++) n += (uint64_t)__builtin_popcountll(w[i]);
    out->bits_set = n;
    out->fill = (double)n / (8.0 * (double)f->bytes);
}

/* Relaxed ordering is enough: bits are only ever set, each OR is atomic on its word, and a
 * reader either sees a bit or not; publication of a whole batch to other threads is the
 * caller's synchronisation (a join or a release/acquire pair). */
static inline void or64(uint64_t *w, uint64_t m) {
    __atomic_fetch_or(w, m, __ATOMIC_RELAXED);
}

/* One atomic insert per family: the same bits as the insert kernels (kernels/probe.h), set
 * with atomic ORs. */
static void atomic_classic(const fl_kview *v, uint64_t h) {
    uint64_t g = h, step = fl_classic_step(h);
    uint64_t *w = v->data;
    for (uint32_t j = 0; j < v->k; j++, g += step)
        or64(&w[fl_reduce32((uint32_t)(g >> 32), v->units)], 1ull << (g & 63));
}

static void atomic_block512(const fl_kview *v, uint64_t h) {
    uint64_t mask[8];
    uint64_t *b = (uint64_t *)fl_block512_at(v, h);
    fl_block512_mask(h, v->k, mask);
    for (int w = 0; w < 8; w++)
        if (mask[w]) or64(&b[w], mask[w]);
}

static void atomic_split256(const fl_kview *v, uint64_t h) {
    uint32_t *b = (uint32_t *)fl_split256_at(v, h);
    for (int w = 0; w < 8; w++)
        __atomic_fetch_or(&b[w], fl_split256_bit((uint32_t)h, w), __ATOMIC_RELAXED);
}

static void atomic_reg64(const fl_kview *v, uint64_t h) {
    uint64_t *w = v->data;
    or64(&w[fl_reduce32((uint32_t)(h >> 32), v->units)], fl_reg64_mask(h, v->k));
}

/* One key's bits set, answering whether any of them was clear: the test and the insert of
 * an add that must say whether the key was new (BF.ADD, fl_sbf_add_*) in one pass over the
 * words, where a one-key lookup then an insert would read them twice. The same bits as the
 * insert kernels; 0 exactly when a lookup before the insert would have answered "present". */
int fl_bloom_add_one_classic(const fl_kview *v, uint64_t h) {
    uint64_t g = h, step = fl_classic_step(h), clear = 0;
    uint64_t *w = v->data;
    for (uint32_t j = 0; j < v->k; j++, g += step) {
        uint64_t *x = &w[fl_reduce32((uint32_t)(g >> 32), v->units)], m = 1ull << (g & 63);
        clear |= m & ~*x;
        *x |= m;
    }
    return clear != 0;
}

/* The key's 8 mask words first, then one test-and-set pass over the block's words: fewer
 * instructions than a load, test and store per bit (the 8-word pass is two or four vector
 * operations even at baseline x86-64's SSE2; BF.MADD's module code under callgrind went
 * from 306 to 283 instructions an item with it, results/<host>/redis/redis-callgrind.md
 * before and after). */
int fl_bloom_add_one_block512(const fl_kview *v, uint64_t h) {
    uint64_t *b = (uint64_t *)fl_block512_at(v, h), mask[8], clear = 0;
    fl_block512_mask(h, v->k, mask);
    for (int w = 0; w < 8; w++) {
        clear |= mask[w] & ~b[w];
        b[w] |= mask[w];
    }
    return clear != 0;
}

int fl_bloom_add_one_split256(const fl_kview *v, uint64_t h) {
    uint32_t *b = (uint32_t *)fl_split256_at(v, h), clear = 0;
    for (int w = 0; w < 8; w++) {
        uint32_t m = fl_split256_bit((uint32_t)h, w);
        clear |= m & ~b[w];
        b[w] |= m;
    }
    return clear != 0;
}

int fl_bloom_add_one_reg64(const fl_kview *v, uint64_t h) {
    uint64_t *w = (uint64_t *)v->data + fl_reduce32((uint32_t)(h >> 32), v->units);
    uint64_t m = fl_reg64_mask(h, v->k), clear = m & ~*w;
    *w |= m;
    return clear != 0;
}

/* The batch entries the descriptors of src/core/variants.c name. */
#define ATOMIC_BATCH(fam)                                                                    \
    fl_status fl_bloom_insert_atomic_##fam(fl_filter *f, const uint64_t *hashes, size_t n) {  \
        fl_kview v = fl_view(f);                                                             \
        for (size_t i = 0; i < n; i++) atomic_##fam(&v, fl_hash_at(hashes, i));              \
        __atomic_fetch_add(&f->keys, (uint64_t)n, __ATOMIC_RELAXED);                         \
        return FL_OK;                                                                        \
    }
ATOMIC_BATCH(classic)
ATOMIC_BATCH(block512)
ATOMIC_BATCH(split256)
ATOMIC_BATCH(reg64)
