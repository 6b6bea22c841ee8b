/*
 * Operations on the Bloom variants that are not kernels: union, bit counting, and the
 * concurrent (atomic OR) insert path.
 */
#include <string.h>

#include "internal.h"
#include "probe.h"

fl_status fl_union(fl_filter *dst, const fl_filter *src) {
    if (!dst || !src) return FL_ERR_INVALID_ARG;
    if (dst->g.variant == FL_CUCKOO || src->g.variant == FL_CUCKOO) return FL_ERR_UNSUPPORTED;
    if (dst->g.variant != src->g.variant || dst->g.units != src->g.units ||
        dst->g.k != src->g.k || dst->hash != src->hash || dst->seed != src->seed)
        return FL_ERR_INCOMPATIBLE;
    /* Every variant's payload is a bit array whose bits are set independently per key, so
     * the union of the key sets is the OR of the payloads (bit for bit). */
    uint64_t *d = dst->data;
    const uint64_t *s = src->data;
    size_t words = dst->bytes / 8;
    for (size_t i = 0; i < words; i++) d[i] |= s[i];
    dst->keys += src->keys;
    return FL_OK;
}

uint64_t fl_bloom_bits_set(const fl_filter *f) {
    const uint64_t *w = f->data;
    size_t words = f->bytes / 8;
    uint64_t n = 0;
    for (size_t i = 0; i < words; i++) n += (uint64_t)__builtin_popcountll(w[i]);
    return n;
}

/* Relaxed ordering is enough: bits are only ever set, each OR is atomic on its word, and a
 * reader either sees a bit or not; publication of a whole batch to other threads is the
 * caller's synchronisation (a join or a release/acquire pair). */
static inline void or64(uint64_t *w, uint64_t m) {
    __atomic_fetch_or(w, m, __ATOMIC_RELAXED);
}

fl_status fl_bloom_insert_atomic(fl_filter *f, const uint64_t *hashes, size_t n) {
    fl_kview v = fl_view(f);
    for (size_t i = 0; i < n; i++) {
        uint64_t h = fl_hash_at(hashes, i);
        switch (f->family) {
        case FL_K_CLASSIC: {
            uint64_t g = h, step = fl_classic_step(h);
            uint64_t *w = f->data;
            for (uint32_t j = 0; j < f->g.k; j++, g += step)
                or64(&w[fl_reduce32((uint32_t)(g >> 32), v.units)], 1ull << (g & 63));
            break;
        }
        case FL_K_BLOCK512: {
            uint64_t mask[8];
            uint64_t *b = (uint64_t *)fl_block512_at(&v, h);
            fl_block512_mask(h, v.k, mask);
            for (int w = 0; w < 8; w++)
                if (mask[w]) or64(&b[w], mask[w]);
            break;
        }
        case FL_K_SPLIT256: {
            uint32_t *b = (uint32_t *)fl_split256_at(&v, h);
            for (int w = 0; w < 8; w++)
                __atomic_fetch_or(&b[w], 1u << (((uint32_t)h * FL_SALT[w]) >> 27),
                                  __ATOMIC_RELAXED);
            break;
        }
        case FL_K_REG64: {
            uint64_t *w = f->data;
            or64(&w[fl_reduce32((uint32_t)(h >> 32), v.units)], fl_reg64_mask(h, v.k));
            break;
        }
        default: return FL_ERR_UNSUPPORTED;
        }
    }
    __atomic_fetch_add(&f->keys, (uint64_t)n, __ATOMIC_RELAXED);
    return FL_OK;
}
