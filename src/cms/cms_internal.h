/*
 * Count-Min internals shared by src/cms/cms.c, src/cms/topk.c and src/cms/codec_cms.c. Not
 * installed.
 */
#ifndef FL_CMS_INTERNAL_H
#define FL_CMS_INTERNAL_H

#include <xxhash.h>

#include "core/internal.h"

#include "cms_probe.h"

#pragma GCC visibility push(hidden)

/* How a candidate's hash was computed from its key bytes (stored in files: append only). */
enum { FL_CMS_KEY_BYTES = 0, FL_CMS_KEY_U64 = 1 };

/* One heavy-hitter candidate: a copy of its key and the estimate it had when last refreshed
 * (estimates never fall between merges, so it is a lower bound of the current one). */
typedef struct fl_cms_cand {
    uint64_t hash;
    uint32_t est;
    uint32_t len;
    uint32_t kind;   /* FL_CMS_KEY_* */
    uint32_t islot;  /* its slot in fl_topk.index */
    uint8_t *key;    /* len bytes (cap allocated; kept across evictions and clears) */
    size_t cap;
} fl_cms_cand;

/* The candidates (src/cms/topk.c): a binary min-heap on est, plus an open-addressing index
 * (linear probing, power-of-two size at least twice cap) from hash to heap position + 1, so
 * an update finds its key's candidate in O(1) expected time. */
typedef struct fl_topk {
    uint32_t cap, n, mask;
    fl_cms_cand *heap;   /* cap entries */
    uint32_t *index;     /* mask + 1 slots; 0 = empty */
} fl_topk;

struct fl_cms {
    uint32_t w, d;
    uint64_t seed;
    int cons;
    uint32_t *counters;  /* d * w, row-major, 64-byte aligned */
    size_t bytes;        /* d * w * 4 */
    uint64_t total;      /* N, saturating */
    int total_sat;
    const fl_kernel_table *bound; /* fl_cms_bind_kernel's table or NULL (atomic access) */
    fl_topk top;
};

static inline const fl_kernel_table *fl_cms_kernels_of(const fl_cms *c) {
    return fl_kernels_bound(&c->bound, c->bytes);
}

/* A key's hash under the sketch's seed, for bytes and for integers: the public
 * fl_cms_hash_bytes/fl_cms_hash_u64 are these behind their argument checks. Inline so that
 * the candidate list (topk.c) and the codec hash keys without calling back into cms.c. */
static inline uint64_t fl_cms_key_hash_bytes(const fl_cms *c, const void *key, size_t len) {
    return XXH3_64bits_withSeed(key ? key : "", len, c->seed);
}
static inline uint64_t fl_cms_key_hash_u64(const fl_cms *c, uint64_t key) {
    return fl_hash_u64_inline(key, c->seed);
}

/* cms.c: a sketch of this shape with zeroed counters and an empty candidate set; the shape
 * is checked (BAD_GEOMETRY, TOO_LARGE, BAD_K) before anything is allocated. */
fl_status fl_cms_new(uint32_t width, uint32_t depth, uint64_t seed, int conservative,
                     uint32_t topk, fl_cms **out);
/* The shape check alone. */
fl_status fl_cms_check_shape(uint32_t width, uint32_t depth, uint32_t topk);

/* topk.c */
fl_status fl_topk_init(fl_topk *t, uint32_t cap);
void fl_topk_free(fl_topk *t);
void fl_topk_clear(fl_topk *t);
/* Heap position of the candidate (hash, kind, key), or UINT32_MAX. */
uint32_t fl_topk_find(const fl_topk *t, uint64_t hash, uint32_t kind, const void *key,
                      size_t len);
/* Offers a key whose estimate is about to become est (called before the counters change, so
 * a failed key copy leaves everything as it was): a candidate takes est; a new key enters
 * while there is room, or replaces the candidate of the smallest stored estimate if est is
 * larger. FL_ERR_NO_MEMORY (nothing changed) if a key copy cannot be allocated. Keys longer
 * than FL_CMS_KEY_MAX never enter. With expelled_len, a replaced candidate's key is copied to
 * expelled (FL_CMS_KEY_MAX bytes of room) and *expelled_len is its length, else SIZE_MAX. */
fl_status fl_topk_offer(fl_topk *t, uint64_t hash, uint32_t kind, const void *key, size_t len,
                        uint32_t est, void *expelled, size_t *expelled_len);
/* Appends a candidate without comparing (the loader; the caller checks n < cap and that the
 * key is not there yet), then fl_topk_refresh orders them. */
fl_status fl_topk_append(fl_topk *t, uint64_t hash, uint32_t kind, const void *key,
                         size_t len, uint32_t est);
/* Re-reads every candidate's estimate from the counters and restores the heap order. */
void fl_topk_refresh(fl_topk *t, const fl_cms *c);

#pragma GCC visibility pop

#endif /* FL_CMS_INTERNAL_H */
