/*
 * Layered Bloom filters (seed 004, 4.11.3; Zhiwang, Jungang, Jian 2010): R layers of one
 * Bloom variant that count a key's adds up to R. Semantics, error bounds and the meaning of
 * delete are in include/filterlab_layered.h; the file codec is src/layered/codec_layered.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "layered/layered_internal.h"

/* Batch counts work on chunks of this many keys with their scratch on the stack, so a count
 * allocates nothing and may run on many threads at once. */
#define CHUNK 1024u

/* The per-layer remix (see the header): a bijection of the key's hash, different for every
 * layer, so the layers behave as Bloom filters with independent hash functions. */
static inline uint64_t layer_hash(const fl_lbf *l, uint32_t i, uint64_t h) {
    return fl_hash_u64_inline(h, l->p.seed + i + 1);
}

uint64_t fl_lbf_layer_hash(const fl_lbf *l, uint32_t i, uint64_t hash) {
    return l ? layer_hash(l, i, hash) : 0;
}

fl_status fl_lbf_params_unsized(const fl_lbf_config *cfg, fl_lbf *l) {
    if (!cfg) return FL_ERR_INVALID_ARG;
    if (cfg->layers == 0 || cfg->layers > FL_LBF_LAYERS_MAX) return FL_ERR_INVALID_ARG;
    if (cfg->capacity == 0) return FL_ERR_BAD_N;
    if (!(cfg->fpr > 0 && cfg->fpr < 1)) return FL_ERR_BAD_FPR;
    /* A table of slots may refuse a key: an add could then not move a count up. */
    fl_variant v;
    fl_hash_id hash;
    fl_status st = fl_chain_variant(cfg->variant, cfg->hash, &v, &hash);
    if (st != FL_OK) return st;
    memset(l, 0, sizeof *l);
    l->p.layers = cfg->layers;
    l->p.capacity = cfg->capacity;
    l->p.fpr = cfg->fpr;
    l->p.variant = v;
    l->p.hash = hash;
    l->p.seed = cfg->seed;
    return FL_OK;
}

fl_status fl_lbf_set_geometry(fl_lbf *l, const fl_geometry *g) {
    size_t bytes = 0;
    if (g->variant != l->p.variant) return FL_ERR_INVALID_ARG;
    fl_status st = fl_geometry_check(g, &bytes);
    if (st != FL_OK) return st;
    if (bytes > SIZE_MAX / l->p.layers) return FL_ERR_TOO_LARGE;
    l->p.geometry = *g;
    return FL_OK;
}

fl_status fl_lbf_params(const fl_lbf_config *cfg, fl_lbf *l) {
    fl_status st = fl_lbf_params_unsized(cfg, l);
    if (st != FL_OK) return st;
    fl_params pr;
    st = fl_params_for(l->p.variant, l->p.capacity, l->p.fpr, &pr);
    if (st != FL_OK) return st;
    return fl_lbf_set_geometry(l, &pr.geometry);
}

fl_status fl_lbf_alloc(const fl_lbf *params, fl_lbf **out) {
    fl_lbf *l = malloc(sizeof *l);
    if (!l) return FL_ERR_NO_MEMORY;
    *l = *params;
    l->p.adds = l->p.deletes = 0;
    l->layer = calloc(l->p.layers, sizeof *l->layer);
    if (!l->layer) {
        free(l);
        return FL_ERR_NO_MEMORY;
    }
    *out = l;
    return FL_OK;
}

fl_status fl_lbf_create(const fl_lbf_config *cfg, fl_lbf **out) {
    if (!out) return FL_ERR_INVALID_ARG;
    *out = NULL;
    fl_lbf params;
    fl_status st = fl_lbf_params(cfg, &params);
    if (st != FL_OK) return st;
    fl_lbf *l = NULL;
    st = fl_lbf_alloc(&params, &l);
    if (st != FL_OK) return st;
    fl_config c = {.variant = l->p.variant, .geometry = l->p.geometry, .hash = l->p.hash,
                   .seed = l->p.seed};
    for (uint32_t i = 0; i < l->p.layers && st == FL_OK; i++) st = fl_create(&c, &l->layer[i]);
    if (st != FL_OK) {
        fl_lbf_free(l);
        return st;
    }
    *out = l;
    return FL_OK;
}

void fl_lbf_free(fl_lbf *l) {
    if (!l) return;
    fl_free_chain(l->layer, l->p.layers);
    free(l);
}

void fl_lbf_clear(fl_lbf *l) {
    if (!l) return;
    for (uint32_t i = 0; i < l->p.layers; i++) fl_clear(l->layer[i]);
    l->p.adds = l->p.deletes = 0;
}

uint64_t fl_lbf_hash_bytes(const fl_lbf *l, const void *key, size_t len) {
    return l ? fl_hash_bytes(l->layer[0], key, len) : 0;
}

/* ---- counts ----------------------------------------------------------------------------- */

/* Layers [from, R) for a key known to be in layers [0, from). */
static uint32_t count_from(const fl_lbf *l, uint32_t from, uint64_t h) {
    uint32_t c = from;
    while (c < l->p.layers && fl_contains_hash(l->layer[c], layer_hash(l, c, h))) c++;
    return c;
}

uint32_t fl_lbf_count_hash(const fl_lbf *l, uint64_t hash) {
    return l ? count_from(l, 0, hash) : 0;
}

uint32_t fl_lbf_count_bytes(const fl_lbf *l, const void *key, size_t len) {
    return key || !len ? fl_lbf_count_hash(l, fl_lbf_hash_bytes(l, key, len)) : 0;
}

/* One chunk (n <= CHUNK): layer i's batch kernel runs over the keys every earlier layer
 * reported, gathered densely with their positions, so a key costs one lookup per layer it
 * reaches plus one (most keys stop at layer 0 or 1). */
static void count_chunk(const fl_lbf *l, const uint64_t *hashes, size_t n, uint8_t *counts) {
    uint64_t probe[CHUNK];
    uint16_t where[CHUNK];
    uint8_t hit[CHUNK];
    memset(counts, 0, n);
    for (size_t j = 0; j < n; j++) where[j] = (uint16_t)j;
    size_t m = n;
    for (uint32_t i = 0; i < l->p.layers && m > 0; i++) {
        for (size_t j = 0; j < m; j++) probe[j] = layer_hash(l, i, hashes[where[j]]);
        size_t found = 0;
        fl_contains_hashes(l->layer[i], probe, m, hit, &found);
        size_t keep = 0;
        for (size_t j = 0; j < m; j++) {
            where[keep] = where[j];
            keep += hit[j];
        }
        m = keep;
        for (size_t j = 0; j < m; j++) counts[where[j]] = (uint8_t)(i + 1);
    }
}

fl_status fl_lbf_count_hashes(const fl_lbf *l, const uint64_t *hashes, size_t n,
                              uint8_t *counts) {
    if (!l || (n && (!hashes || !counts))) return FL_ERR_INVALID_ARG;
    for (size_t at = 0; at < n; at += CHUNK) {
        size_t len = n - at < CHUNK ? n - at : CHUNK;
        count_chunk(l, hashes + at, len, counts + at);
    }
    return FL_OK;
}

/* ---- adds and deletes -------------------------------------------------------------------- */

/* Adds one occurrence of a key whose count is at least `from` (inserts only set bits, so a
 * count read earlier is a lower bound). */
static fl_status add_from(fl_lbf *l, uint32_t from, uint64_t h, uint32_t *count) {
    uint32_t c = count_from(l, from, h);
    if (c < l->p.layers) {
        fl_status st = fl_insert_hash(l->layer[c], layer_hash(l, c, h));
        if (st != FL_OK) return st;
        l->p.adds++;
        c++;
    }
    if (count) *count = c;
    return FL_OK;
}

fl_status fl_lbf_add_hash(fl_lbf *l, uint64_t hash, uint32_t *count) {
    if (count) *count = 0;
    if (!l) return FL_ERR_INVALID_ARG;
    return add_from(l, 0, hash, count);
}

fl_status fl_lbf_add_bytes(fl_lbf *l, const void *key, size_t len, uint32_t *count) {
    if (count) *count = 0;
    if (!l || (!key && len)) return FL_ERR_INVALID_ARG;
    return add_from(l, 0, fl_lbf_hash_bytes(l, key, len), count);
}

/* Each chunk is counted with the kernels first; then the keys are added in order, each
 * continuing from its batch count, which earlier adds of the chunk can only have raised
 * (a key repeated in the chunk then finds its own earlier add). */
fl_status fl_lbf_add_hashes(fl_lbf *l, const uint64_t *hashes, size_t n, size_t *saturated) {
    if (saturated) *saturated = 0;
    if (!l || (n && !hashes)) return FL_ERR_INVALID_ARG;
    uint8_t counts[CHUNK];
    size_t full = 0;
    for (size_t at = 0; at < n; at += CHUNK) {
        size_t len = n - at < CHUNK ? n - at : CHUNK;
        count_chunk(l, hashes + at, len, counts);
        for (size_t j = 0; j < len; j++) {
            uint64_t before = l->p.adds;
            fl_status st = add_from(l, counts[j], hashes[at + j], NULL);
            if (st != FL_OK) {
                if (saturated) *saturated = full;
                return st;
            }
            full += l->p.adds == before;
        }
    }
    if (saturated) *saturated = full;
    return FL_OK;
}

fl_status fl_lbf_delete_hash(fl_lbf *l, uint64_t hash, uint32_t *count) {
    if (count) *count = 0;
    if (!l) return FL_ERR_INVALID_ARG;
    if (!(l->layer[0]->desc->info.caps & FL_CAP_DELETE)) return FL_ERR_UNSUPPORTED;
    uint32_t c = count_from(l, 0, hash);
    if (c == 0) return FL_ERR_NOT_FOUND;
    fl_status st = fl_delete_hash(l->layer[c - 1], layer_hash(l, c - 1, hash));
    if (st != FL_OK) {
        if (count) *count = c;
        return st;
    }
    l->p.deletes++;
    if (count) *count = c - 1;
    return FL_OK;
}

fl_status fl_lbf_delete_bytes(fl_lbf *l, const void *key, size_t len, uint32_t *count) {
    if (count) *count = 0;
    if (!l || (!key && len)) return FL_ERR_INVALID_ARG;
    return fl_lbf_delete_hash(l, fl_lbf_hash_bytes(l, key, len), count);
}

/* ---- info and kernels ------------------------------------------------------------------- */

fl_status fl_lbf_get_info(const fl_lbf *l, fl_lbf_info *out) {
    if (!l || !out) return FL_ERR_INVALID_ARG;
    *out = l->p;
    out->bytes = 0;
    for (uint32_t i = 0; i < l->p.layers; i++) out->bytes += l->layer[i]->bytes;
    out->can_delete = (l->layer[0]->desc->info.caps & FL_CAP_DELETE) != 0;
    return FL_OK;
}

uint64_t fl_lbf_layer_keys(const fl_lbf *l, uint32_t i) {
    return l && i < l->p.layers ? l->layer[i]->keys : 0;
}

const fl_filter *fl_lbf_layer_at(const fl_lbf *l, uint32_t i) {
    return l && i < l->p.layers ? l->layer[i] : NULL;
}

/* All or nothing: a name that fails on the first layer fails on every one (the layers share
 * a variant), so no layer is left bound differently from the others. */
fl_status fl_lbf_bind_kernel(fl_lbf *l, const char *name) {
    if (!l) return FL_ERR_INVALID_ARG;
    for (uint32_t i = 0; i < l->p.layers; i++) {
        fl_status st = fl_filter_bind_kernel(l->layer[i], name);
        if (st != FL_OK) return st;
    }
    return FL_OK;
}
