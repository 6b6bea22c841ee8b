/*
 * Count-Min sketch (Cormode and Muthukrishnan 2005): lifecycle, sizing, updates, queries,
 * merge, info and kernel binding. The per-key math is kernels/cms_probe.h; the candidates of
 * the heavy hitters and top-k list are src/cms/topk.c; files are src/cms/codec_cms.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cms/cms_internal.h"

/* Keys hashed per chunk on the batch paths (a stack buffer, no allocation). */
#define CHUNK 256

fl_status fl_cms_dims(double epsilon, double delta, uint32_t *width, uint32_t *depth) {
    if (!width || !depth) return FL_ERR_INVALID_ARG;
    if (!(epsilon > 0.0 && epsilon < 1.0) || !(delta > 0.0 && delta < 1.0))
        return FL_ERR_BAD_ACCURACY;
    /* Cormode and Muthukrishnan 2005, Theorem 1: w = ceil(e / epsilon) makes a row's expected
     * overcount at most epsilon * N / e, so by Markov's inequality a row exceeds epsilon * N
     * with probability at most 1/e, and all d = ceil(ln(1 / delta)) rows with at most
     * e^-d <= delta. Seed 003 sizes its sketch exactly so. */
    double w = ceil(M_E / epsilon), d = ceil(log(1.0 / delta));
    if (w >= 4294967296.0 || d > FL_CMS_DEPTH_MAX) return FL_ERR_TOO_LARGE;
    *width = (uint32_t)w;
    *depth = d < 1.0 ? 1u : (uint32_t)d;
    return FL_OK;
}

fl_status fl_cms_check_shape(uint32_t width, uint32_t depth, uint32_t topk) {
    if (width == 0 || depth == 0 || depth > FL_CMS_DEPTH_MAX) return FL_ERR_BAD_GEOMETRY;
    if ((uint64_t)width * depth * 4u > FL_CMS_BYTES_MAX ||
        (uint64_t)width * depth * 4u > (uint64_t)SIZE_MAX - 64)
        return FL_ERR_TOO_LARGE;
    if (topk > FL_CMS_TOPK_MAX) return FL_ERR_BAD_K;
    return FL_OK;
}

fl_status fl_cms_new(uint32_t width, uint32_t depth, uint64_t seed, int conservative,
                     uint32_t topk, fl_cms **out) {
    fl_status st = fl_cms_check_shape(width, depth, topk);
    if (st != FL_OK) return st;
    fl_cms *c = calloc(1, sizeof *c);
    if (!c) return FL_ERR_NO_MEMORY;
    c->w = width;
    c->d = depth;
    c->seed = seed;
    c->cons = conservative ? 1 : 0;
    c->bytes = (size_t)width * depth * 4u;
    size_t alloc = (c->bytes + 63) & ~(size_t)63;
    c->counters = aligned_alloc(64, alloc);
    if (!c->counters || fl_topk_init(&c->top, topk) != FL_OK) {
        fl_cms_free(c);
        return FL_ERR_NO_MEMORY;
    }
    memset(c->counters, 0, alloc);
    *out = c;
    return FL_OK;
}

fl_status fl_cms_create(const fl_cms_config *cfg, fl_cms **out) {
    if (out) *out = NULL;
    if (!cfg || !out) return FL_ERR_INVALID_ARG;
    uint32_t w = cfg->width, d = cfg->depth;
    if (w == 0 && d == 0) {
        fl_status st = fl_cms_dims(cfg->epsilon, cfg->delta, &w, &d);
        if (st != FL_OK) return st;
    }
    return fl_cms_new(w, d, cfg->seed, cfg->conservative, cfg->topk, out);
}

void fl_cms_free(fl_cms *c) {
    if (!c) return;
    free(c->counters);
    fl_topk_free(&c->top);
    free(c);
}

fl_status fl_cms_clear(fl_cms *c) {
    if (!c) return FL_ERR_INVALID_ARG;
    memset(c->counters, 0, c->bytes);
    c->total = 0;
    c->total_sat = 0;
    fl_topk_clear(&c->top);
    return FL_OK;
}

uint64_t fl_cms_hash_bytes(const fl_cms *c, const void *key, size_t len) {
    if (!c || (!key && len)) return 0;
    return fl_cms_key_hash_bytes(c, key, len);
}

uint64_t fl_cms_hash_u64(const fl_cms *c, uint64_t key) {
    return c ? fl_cms_key_hash_u64(c, key) : 0;
}

static void add_total(fl_cms *c, uint64_t inc) {
    uint64_t s = c->total + inc;
    if (s < c->total) {
        s = UINT64_MAX;
        c->total_sat = 1;
    }
    c->total = s;
}

/* The counters of one hash (plain or conservative, as the sketch was made) and N. */
static void update_one(fl_cms *c, uint64_t h, uint32_t inc) {
    if (c->cons)
        fl_cms_update1_cons(c->counters, c->w, c->d, h, inc);
    else
        fl_cms_update1(c->counters, c->w, c->d, h, inc);
    add_total(c, inc);
}

/* One key, in stream order: the candidates first (the only step that can fail), then the
 * counters, then N. */
static fl_status add_one(fl_cms *c, uint64_t h, uint32_t kind, const void *key, size_t len,
                         uint32_t inc, void *expelled, size_t *expelled_len) {
    if (c->top.cap) {
        /* The key's positions once, for the estimate and the update (a top-k sketch is
         * usually conservative: RedisBloom's TOPK). */
        size_t idx[FL_CMS_ROWS_MAX];
        fl_cms_positions(h, c->w, c->d, idx);
        uint32_t m = UINT32_MAX;
        for (uint32_t r = 0; r < c->d; r++) m = c->counters[idx[r]] < m ? c->counters[idx[r]] : m;
        /* The estimate after this update, plain or conservative alike: every counter of the
         * key ends at or above old minimum + inc, and the minimum ones exactly there. */
        fl_status st = fl_topk_offer(&c->top, h, kind, key, len, fl_cms_sat_add(m, inc), expelled,
                                     expelled_len);
        if (st != FL_OK) return st;
        if (c->cons) {
            fl_cms_update_cons_at(c->counters, c->d, idx, inc);
        } else {
            for (uint32_t r = 0; r < c->d; r++)
                c->counters[idx[r]] = fl_cms_sat_add(c->counters[idx[r]], inc);
        }
        add_total(c, inc);
        return FL_OK;
    } else if (expelled_len) {
        *expelled_len = SIZE_MAX;
    }
    update_one(c, h, inc);
    return FL_OK;
}

fl_status fl_cms_add_bytes(fl_cms *c, const void *key, size_t len, uint32_t inc) {
    if (!c || (!key && len)) return FL_ERR_INVALID_ARG;
    return add_one(c, fl_cms_hash_bytes(c, key, len), FL_CMS_KEY_BYTES, key, len, inc, NULL,
                   NULL);
}

fl_status fl_cms_add_bytes_expel(fl_cms *c, const void *key, size_t len, uint32_t inc,
                                 void *expelled, size_t *expelled_len) {
    if (expelled_len) *expelled_len = SIZE_MAX;
    if (!c || (!key && len) || !expelled || !expelled_len) return FL_ERR_INVALID_ARG;
    return add_one(c, fl_cms_hash_bytes(c, key, len), FL_CMS_KEY_BYTES, key, len, inc, expelled,
                   expelled_len);
}

static void u64_bytes(uint64_t key, uint8_t b[8]) {
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(key >> (8 * i));
}

fl_status fl_cms_add_u64(fl_cms *c, uint64_t key, uint32_t inc) {
    if (!c) return FL_ERR_INVALID_ARG;
    uint8_t b[8];
    u64_bytes(key, b);
    return add_one(c, fl_hash_u64_inline(key, c->seed), FL_CMS_KEY_U64, b, 8, inc, NULL, NULL);
}

fl_status fl_cms_add_hash(fl_cms *c, uint64_t hash, uint32_t inc) {
    if (!c) return FL_ERR_INVALID_ARG;
    update_one(c, hash, inc);
    return FL_OK;
}

/* 1 if no counter can pass UINT32_MAX in a batch of n keys with these increments: no
 * counter exceeds N (each row sums to at most N: updates add to one counter per row what
 * they add to N, merges add rows and totals, conservative updates raise less, and the
 * loader rejects a row summing past N), so N + the batch's sum <= UINT32_MAX suffices. */
static int batch_cannot_saturate(const fl_cms *c, size_t n, const uint32_t *incs) {
    if (c->total_sat || c->total > UINT32_MAX) return 0;
    uint64_t room = UINT32_MAX - c->total;
    if (!incs) return n <= room;
    for (size_t i = 0; i < n; i++) {
        if (incs[i] > room) return 0;
        room -= incs[i];
    }
    return 1;
}

/* A batch of hashes through the kernel; N gets the sum of the increments. */
static void update_hashes(fl_cms *c, const fl_kernel_table *t, const uint64_t *h, size_t n,
                          const uint32_t *incs) {
    fl_cms_update_fn fn = c->cons ? t->cms.update_cons
                          : batch_cannot_saturate(c, n, incs) ? t->cms.update_nosat
                                                              : t->cms.update;
    fn(c->counters, c->w, c->d, h, incs, n);
    if (!incs) {
        add_total(c, n);
        return;
    }
    for (size_t i = 0; i < n; i++) add_total(c, incs[i]);
}

fl_status fl_cms_add_hashes(fl_cms *c, const uint64_t *hashes, size_t n, const uint32_t *incs) {
    if (!c || (!hashes && n)) return FL_ERR_INVALID_ARG;
    if (n) update_hashes(c, fl_cms_kernels_of(c), hashes, n, incs);
    return FL_OK;
}

/* A batch of keys as the API takes them: 64-bit keys (u64s), or byte strings (keys, lens). */
typedef struct key_batch {
    const uint64_t *u64s;
    const void *const *keys;
    const size_t *lens;
} key_batch;

static fl_status add_key(fl_cms *c, const key_batch *b, size_t i, uint32_t inc) {
    if (b->u64s) return fl_cms_add_u64(c, fl_hash_at(b->u64s, i), inc);
    return fl_cms_add_bytes(c, b->keys[i], b->lens[i], inc);
}

/* The hashes of keys i .. i + m - 1: 64-bit keys through the hash kernel. */
static void hash_keys(const fl_cms *c, const fl_kernel_table *t, const key_batch *b, size_t i,
                      size_t m, uint64_t *h) {
    if (b->u64s) {
        t->hash.u64(b->u64s + i, m, c->seed, h);
        return;
    }
    for (size_t j = 0; j < m; j++) h[j] = fl_cms_hash_bytes(c, b->keys[i + j], b->lens[i + j]);
}

/* With candidates, every key must be offered in stream order before its counters change,
 * so tracked batches go key by key; without, keys are hashed a chunk at a time and the
 * chunk goes through the update kernel. */
static fl_status add_keys(fl_cms *c, const key_batch *b, size_t n, const uint32_t *incs) {
    if (c->top.cap) {
        for (size_t i = 0; i < n; i++) {
            fl_status st = add_key(c, b, i, incs ? incs[i] : 1);
            if (st != FL_OK) return st;
        }
        return FL_OK;
    }
    const fl_kernel_table *t = fl_cms_kernels_of(c);
    uint64_t h[CHUNK];
    for (size_t i = 0; i < n; i += CHUNK) {
        size_t m = n - i < CHUNK ? n - i : CHUNK;
        hash_keys(c, t, b, i, m, h);
        update_hashes(c, t, h, m, incs ? incs + i : NULL);
    }
    return FL_OK;
}

fl_status fl_cms_add_u64s(fl_cms *c, const uint64_t *keys, size_t n, const uint32_t *incs) {
    if (!c || (!keys && n)) return FL_ERR_INVALID_ARG;
    key_batch b = {.u64s = keys};
    return add_keys(c, &b, n, incs);
}

fl_status fl_cms_add_strings(fl_cms *c, const void *const *keys, const size_t *lens, size_t n,
                             const uint32_t *incs) {
    if (!c || ((!keys || !lens) && n)) return FL_ERR_INVALID_ARG;
    for (size_t i = 0; i < n; i++)
        if (!keys[i] && lens[i]) return FL_ERR_INVALID_ARG;
    key_batch b = {.keys = keys, .lens = lens};
    return add_keys(c, &b, n, incs);
}

uint32_t fl_cms_query_hash(const fl_cms *c, uint64_t hash) {
    return c ? fl_cms_query1(c->counters, c->w, c->d, hash) : 0;
}

uint32_t fl_cms_query_bytes(const fl_cms *c, const void *key, size_t len) {
    if (!c || (!key && len)) return 0;
    return fl_cms_query_hash(c, fl_cms_hash_bytes(c, key, len));
}

uint32_t fl_cms_query_u64(const fl_cms *c, uint64_t key) {
    return c ? fl_cms_query_hash(c, fl_hash_u64_inline(key, c->seed)) : 0;
}

fl_status fl_cms_query_hashes(const fl_cms *c, const uint64_t *hashes, size_t n,
                              uint32_t *out) {
    if (!c || ((!hashes || !out) && n)) return FL_ERR_INVALID_ARG;
    if (n) fl_cms_kernels_of(c)->cms.query(c->counters, c->w, c->d, hashes, n, out);
    return FL_OK;
}

fl_status fl_cms_query_u64s(const fl_cms *c, const uint64_t *keys, size_t n, uint32_t *out) {
    if (!c || ((!keys || !out) && n)) return FL_ERR_INVALID_ARG;
    const fl_kernel_table *t = fl_cms_kernels_of(c);
    uint64_t h[CHUNK];
    for (size_t i = 0; i < n; i += CHUNK) {
        size_t m = n - i < CHUNK ? n - i : CHUNK;
        t->hash.u64(keys + i, m, c->seed, h);
        t->cms.query(c->counters, c->w, c->d, h, m, out + i);
    }
    return FL_OK;
}

uint64_t fl_cms_total(const fl_cms *c) {
    return c ? c->total : 0;
}

fl_status fl_cms_merge(fl_cms *dst, const fl_cms *src) {
    if (!dst || !src) return FL_ERR_INVALID_ARG;
    if (dst->w != src->w || dst->d != src->d || dst->seed != src->seed)
        return FL_ERR_INCOMPATIBLE;
    size_t n = dst->bytes / 4;
    /* Counters are linear in the stream, so the sketch of the union is the sum (Cormode and
     * Muthukrishnan 2005, section 3); saturation keeps it an upper bound. */
    for (size_t i = 0; i < n; i++)
        dst->counters[i] = fl_cms_sat_add(dst->counters[i], src->counters[i]);
    int sat = src->total_sat;
    add_total(dst, src->total);
    dst->total_sat |= sat;
    fl_topk_refresh(&dst->top, dst);
    return FL_OK;
}

/* Exact a * b + acc in 64 bits; 0 on overflow. */
static int mul_add_i64(int64_t a, int64_t b, int64_t *acc) {
    int64_t m;
    return !__builtin_mul_overflow(a, b, &m) && !__builtin_add_overflow(*acc, m, acc);
}

fl_status fl_cms_merge_weighted(fl_cms *dst, const fl_cms *const *srcs, const int64_t *weights,
                                size_t n) {
    if (!dst || (n && (!srcs || !weights))) return FL_ERR_INVALID_ARG;
    for (size_t k = 0; k < n; k++) {
        if (!srcs[k]) return FL_ERR_INVALID_ARG;
        if (srcs[k]->w != dst->w || srcs[k]->d != dst->d || srcs[k]->seed != dst->seed)
            return FL_ERR_INCOMPATIBLE;
    }
    size_t cells = dst->bytes / 4;
    /* A first pass checks every cell and N, so a refused merge leaves dst unchanged. A
     * negative weight subtracts a sketch: the sum is the sketch of the difference of the
     * streams only if that difference has no negative count, so a cell below zero is
     * refused rather than clamped. */
    int64_t total = 0;
    for (size_t k = 0; k < n; k++)
        if (srcs[k]->total > INT64_MAX || !mul_add_i64((int64_t)srcs[k]->total, weights[k], &total))
            return FL_ERR_TOO_LARGE;
    if (total < 0) return FL_ERR_TOO_LARGE;
    for (size_t i = 0; i < cells; i++) {
        int64_t v = 0;
        for (size_t k = 0; k < n; k++)
            if (!mul_add_i64(srcs[k]->counters[i], weights[k], &v)) return FL_ERR_TOO_LARGE;
        if (v < 0 || v > UINT32_MAX) return FL_ERR_TOO_LARGE;
    }
    /* Cell i of the result reads only cell i of the sources, so dst may be a source. */
    for (size_t i = 0; i < cells; i++) {
        int64_t v = 0;
        for (size_t k = 0; k < n; k++) mul_add_i64(srcs[k]->counters[i], weights[k], &v);
        dst->counters[i] = (uint32_t)v;
    }
    dst->total = (uint64_t)total;
    dst->total_sat = 0;
    fl_topk_refresh(&dst->top, dst);
    return FL_OK;
}

fl_status fl_cms_info_get(const fl_cms *c, fl_cms_info *out) {
    if (!c || !out) return FL_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    out->width = c->w;
    out->depth = c->d;
    out->seed = c->seed;
    out->conservative = c->cons;
    out->bytes = c->bytes;
    out->total = c->total;
    out->total_saturated = c->total_sat;
    size_t n = c->bytes / 4;
    uint64_t sat = 0;
    for (size_t i = 0; i < n; i++) sat += c->counters[i] == UINT32_MAX;
    out->saturated = sat;
    /* The bounds this shape gives (Theorem 1 read backwards): epsilon = e / w,
     * delta = e^-d. */
    out->epsilon = M_E / (double)c->w;
    out->delta = exp(-(double)c->d);
    out->topk = c->top.cap;
    out->candidates = c->top.n;
    return FL_OK;
}

fl_status fl_cms_bind_kernel(fl_cms *c, const char *name) {
    if (!c) return FL_ERR_INVALID_ARG;
    return fl_kernel_bind(&c->bound, name);
}

const char *fl_cms_kernel(const fl_cms *c) {
    if (!c) return NULL;
    return fl_kernel_table_name(fl_cms_kernels_of(c));
}
