/*
 * Scalable Bloom filters (Almeida, Baquero, Preguica, Hutchison 2007) with RedisBloom's
 * semantics: the chain, its growth, adds and lookups. The bound on the chain's FPR and the
 * meaning of every parameter are in include/filterlab_sbf.h; the file codec is
 * src/sbf/codec_sbf.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sbf/sbf_internal.h"

/* Batch lookups work on chunks of this many keys, with their scratch on the stack, so a
 * lookup allocates nothing and may run on many threads at once. */
#define CHUNK 1024u

/* 2^53: above it a double no longer holds every integer. */
#define EXACT_MAX 9007199254740992.0

fl_status fl_sbf_next_capacity(uint64_t prev, double growth, uint64_t *out) {
    double next = ceil((double)prev * growth);
    if (!(next <= EXACT_MAX)) return FL_ERR_TOO_LARGE;
    *out = (uint64_t)next;
    return FL_OK;
}

/* A non-scaling chain is one filter for ever: the whole budget p is its own, as in
 * RedisBloom (its first link gets error_rate * 0.5 when scaling, error_rate when not). */
double fl_sbf_target_fpr(const fl_sbf *s, uint32_t i) {
    if (s->flags & FL_SBF_NONSCALING) return s->error_rate;
    return s->error_rate * (1.0 - s->tightening) * pow(s->tightening, (double)i);
}

fl_status fl_sbf_params(const fl_sbf_config *cfg, fl_sbf *s) {
    if (!cfg) return FL_ERR_INVALID_ARG;
    if (cfg->flags & ~(uint32_t)FL_SBF_NONSCALING) return FL_ERR_INVALID_ARG;
    if (cfg->max_filters > FL_SBF_FILTERS_MAX) return FL_ERR_INVALID_ARG;
    if (cfg->capacity == 0) return FL_ERR_BAD_N;
    if ((double)cfg->capacity > EXACT_MAX) return FL_ERR_TOO_LARGE;
    if (!(cfg->error_rate > 0 && cfg->error_rate < 1)) return FL_ERR_BAD_FPR;
    double growth = cfg->growth == 0 ? FL_SBF_GROWTH_DEFAULT : cfg->growth;
    if (!(growth >= 1) || !isfinite(growth)) return FL_ERR_BAD_GROWTH;
    double r = cfg->tightening == 0 ? FL_SBF_TIGHTENING_DEFAULT : cfg->tightening;
    if (!(r > 0 && r < 1)) return FL_ERR_BAD_TIGHTENING;
    if (!(cfg->layout_slack == 0 || cfg->layout_slack >= 1)) return FL_ERR_INVALID_ARG;
    /* A table of slots may refuse a key before its capacity: the chain would then have to
     * grow early, and its capacity rule (and the bound's n_i <= capacity_i) would not say
     * when. Only bit arrays, which take every key, chain. */
    fl_variant v;
    fl_hash_id hash;
    fl_status st = fl_chain_variant(cfg->variant, cfg->hash, &v, &hash);
    if (st != FL_OK) return st;
    memset(s, 0, sizeof *s);
    s->capacity = cfg->capacity;
    s->error_rate = cfg->error_rate;
    s->growth = growth;
    s->tightening = r;
    s->variant = v;
    s->hash = hash;
    s->seed = cfg->seed;
    s->flags = cfg->flags;
    s->max_filters = cfg->max_filters ? cfg->max_filters : FL_SBF_FILTERS_MAX;
    s->max_bytes = cfg->max_bytes;
    s->layout_slack = cfg->layout_slack == 0 ? FL_SBF_LAYOUT_SLACK_DEFAULT : cfg->layout_slack;
    return FL_OK;
}

fl_status fl_sbf_alloc(const fl_sbf *params, fl_sbf **out) {
    fl_sbf *s = malloc(sizeof *s);
    if (!s) return FL_ERR_NO_MEMORY;
    *s = *params;
    s->count = 0;
    s->kernel = NULL;
    s->slots = 1; /* most chains never grow: fl_sbf_room doubles it when one does */
    s->filters = calloc(s->slots, sizeof *s->filters);
    s->cap = calloc(s->slots, sizeof *s->cap);
    if (!s->filters || !s->cap) {
        free(s->filters);
        free(s->cap);
        free(s);
        return FL_ERR_NO_MEMORY;
    }
    *out = s;
    return FL_OK;
}

/* Resizes both arrays to `slots` entries (at least count). On FL_ERR_NO_MEMORY the slot
 * count is unchanged and the arrays hold the same entries. */
static fl_status resize_arrays(fl_sbf *s, uint32_t slots) {
    fl_filter **filters = realloc(s->filters, slots * sizeof *filters);
    if (!filters) return FL_ERR_NO_MEMORY;
    s->filters = filters; /* holding the same entries: nothing else changed */
    uint64_t *cap = realloc(s->cap, slots * sizeof *cap);
    if (!cap) {
        if (slots < s->slots) s->slots = slots; /* the filters array did shrink */
        return FL_ERR_NO_MEMORY;
    }
    s->cap = cap;
    s->slots = slots;
    return FL_OK;
}

/* The slots for n sub-filters: the power of two at or above n, at most max_filters. A
 * function of n alone, so that a chain grown one sub-filter at a time, the same chain
 * loaded from its file, and a cleared one hold arrays of the same size (the Redis module's
 * MEMORY USAGE and BF.INFO Size must not change across a save and a load). */
static uint32_t slots_for(const fl_sbf *s, uint32_t n) {
    uint32_t slots = 1;
    while (slots < n) slots *= 2;
    return slots < s->max_filters ? slots : s->max_filters;
}

fl_status fl_sbf_room(fl_sbf *s, uint32_t n) {
    if (n <= s->slots) return FL_OK;
    if (n > s->max_filters) return FL_ERR_TOO_LARGE;
    return resize_arrays(s, slots_for(s, n));
}

void fl_sbf_adopt(fl_sbf *s, fl_filter *f, uint64_t cap) {
    s->filters[s->count] = f;
    s->cap[s->count] = cap;
    s->count++;
}

/* Payload bytes of all sub-filters. */
static size_t chain_bytes(const fl_sbf *s) {
    size_t n = 0;
    for (uint32_t i = 0; i < s->count; i++) n += s->filters[i]->bytes;
    return n;
}

/* The geometry of sub-filter i for `cap` keys in variant v: the variant's sizing for p_i,
 * then, where the sizing rounds (classic rounds k, which can leave its prediction a hair
 * above the target), more units until the model's FPR at capacity is <= p_i, which the
 * chain's bound needs. */
static fl_status size_filter(const fl_sbf *s, fl_variant v, uint32_t i, uint64_t cap,
                             fl_geometry *g) {
    double p = fl_sbf_target_fpr(s, i);
    if (!(p > 0)) return FL_ERR_BAD_FPR; /* r^i underflowed: far past any real chain */
    fl_params pr;
    fl_status st = fl_params_for(v, cap, p, &pr);
    if (st != FL_OK) return st;
    *g = pr.geometry;
    double at_cap;
    for (int tries = 0; (at_cap = fl_predict_fpr(g, cap)) > p; tries++) {
        uint64_t more = g->units / 1024 + 1;
        if (tries > 4096 || g->units + more > FL_UNITS_MAX) return FL_ERR_TOO_LARGE;
        g->units += more;
    }
    return isnan(at_cap) ? FL_ERR_NO_MEMORY : FL_OK; /* the blocked model's tables */
}

/* The layout of sub-filter i: the chain's variant, unless it would take more than
 * layout_slack times the bytes of a classic sub-filter for the same capacity and p_i (or
 * cannot reach p_i at all). A blocked filter's bits per key grow faster than classic's as
 * the target falls: k bits confined to one block saturate it, so past a point the units
 * must grow as 1/p instead of log(1/p) (block512 at 1e-9 costs 2.0x classic, at 1e-24
 * 12 MiB for 1000 keys). The tightening p_i = p (1 - r) r^i drives a long chain there
 * (growth 1: sub-filter 30 of a 1% chain is at 5e-12), so without this a chain's memory
 * grows super-linearly with its keys. Once a sub-filter is classic the later ones are too
 * (their targets are smaller still), which also spares sizing the variant where that is
 * slow. */
static fl_status choose_layout(const fl_sbf *s, uint32_t i, uint64_t cap, fl_geometry *g) {
    if (fl_sbf_classic_from(s, i)) return size_filter(s, FL_CLASSIC, i, cap, g);
    fl_status st = size_filter(s, s->variant, i, cap, g);
    if (isinf(s->layout_slack)) return st;
    fl_geometry gc;
    size_t bytes = 0, bytes_c = 0;
    if (size_filter(s, FL_CLASSIC, i, cap, &gc) != FL_OK ||
        fl_geometry_check(&gc, &bytes_c) != FL_OK)
        return st;
    if (st != FL_OK || fl_geometry_check(g, &bytes) != FL_OK ||
        (double)bytes > s->layout_slack * (double)bytes_c)
        *g = gc;
    return FL_OK;
}

/* The payload bytes the chain may hold in all: the tighter of its own max_bytes and the
 * process's byte_limit (0: neither is set). */
static uint64_t growth_limit(const fl_sbf *s) {
    if (!s->max_bytes) return s->byte_limit;
    if (!s->byte_limit) return s->max_bytes;
    return s->max_bytes < s->byte_limit ? s->max_bytes : s->byte_limit;
}

/* Appends sub-filter `count` (capacity `cap`), within the caps. Nothing changes on error. */
static fl_status grow(fl_sbf *s, uint64_t cap) {
    if (s->count >= s->max_filters) return FL_ERR_TOO_LARGE;
    fl_geometry g;
    fl_status st = choose_layout(s, s->count, cap, &g);
    if (st != FL_OK) return st;
    size_t bytes = 0;
    st = fl_geometry_check(&g, &bytes);
    if (st != FL_OK) return st;
    uint64_t limit = growth_limit(s);
    if (limit && (bytes > limit || chain_bytes(s) > limit - bytes)) return FL_ERR_TOO_LARGE;
    /* Only now the arrays: a refused growth leaves the chain's memory as it was. (Larger
     * arrays left behind by a later failure are harmless: the next growth uses them.) */
    st = fl_sbf_room(s, s->count + 1);
    if (st != FL_OK) return st;
    fl_config c = {.variant = g.variant, .geometry = g, .hash = s->hash, .seed = s->seed};
    fl_filter *f = NULL;
    st = fl_create(&c, &f);
    if (st != FL_OK) return st;
    if (s->kernel && (st = fl_filter_bind_kernel(f, s->kernel)) != FL_OK) {
        fl_free(f);
        return st;
    }
    fl_sbf_adopt(s, f, cap);
    return FL_OK;
}

fl_status fl_sbf_create(const fl_sbf_config *cfg, fl_sbf **out) {
    if (!out) return FL_ERR_INVALID_ARG;
    *out = NULL;
    fl_sbf params;
    fl_status st = fl_sbf_params(cfg, &params);
    if (st != FL_OK) return st;
    fl_sbf *s = NULL;
    st = fl_sbf_alloc(&params, &s);
    if (st != FL_OK) return st;
    st = grow(s, s->capacity);
    if (st != FL_OK) {
        fl_sbf_free(s);
        return st;
    }
    *out = s;
    return FL_OK;
}

void fl_sbf_free(fl_sbf *s) {
    if (!s) return;
    fl_free_chain(s->filters, s->count);
    free(s->cap);
    free(s);
}

void fl_sbf_clear(fl_sbf *s) {
    if (!s) return;
    for (uint32_t i = 1; i < s->count; i++) fl_free(s->filters[i]);
    s->count = 1;
    resize_arrays(s, 1); /* shrinking: if realloc refuses, the larger arrays serve */
    fl_clear(s->filters[0]);
}

uint64_t fl_sbf_hash_bytes(const fl_sbf *s, const void *key, size_t len) {
    return s ? fl_hash_bytes(s->filters[0], key, len) : 0;
}

uint64_t fl_sbf_count(const fl_sbf *s) {
    uint64_t n = 0;
    for (uint32_t i = 0; s && i < s->count; i++) n += s->filters[i]->keys;
    return n;
}

/* ---- lookups --------------------------------------------------------------------------- */

/* Sub-filters [from, count) newest first, one key. */
static int contains_from(const fl_sbf *s, uint32_t from, uint64_t h) {
    for (uint32_t i = s->count; i-- > from;)
        if (fl_contains_hash(s->filters[i], h)) return 1;
    return 0;
}

int fl_sbf_contains_hash(const fl_sbf *s, uint64_t hash) {
    return s ? contains_from(s, 0, hash) : 0;
}

int fl_sbf_contains_bytes(const fl_sbf *s, const void *key, size_t len) {
    return key || !len ? fl_sbf_contains_hash(s, fl_sbf_hash_bytes(s, key, len)) : 0;
}

/* One chunk (n <= CHUNK): the newest sub-filter's kernel over all of it (it holds most
 * keys), then the older ones. Two ways to run those were measured (noisy figures on an
 * AVX-512 host, 4 sub-filters, in the commit that chose this): each older kernel over the
 * whole chunk with the answers OR-ed, or over the keys still negative, gathered into a
 * dense array. Gathering costs more than it saves when most keys are negative (the usual
 * lookup: ~30% slower), and saves lookups when most are positive (~30% faster); so the
 * share of positives after the newest sub-filter picks the way. */
static size_t contains_chunk(const fl_sbf *s, const uint64_t *hashes, size_t n, uint8_t *out) {
    size_t pos = 0;
    fl_contains_hashes(s->filters[s->count - 1], hashes, n, out, &pos);
    if (s->count == 1 || pos == n) return pos;
    uint8_t hit[CHUNK];
    if (pos < n / 4) {
        for (uint32_t i = s->count - 1; i-- > 0;) {
            fl_contains_hashes(s->filters[i], hashes, n, hit, NULL);
            for (size_t j = 0; j < n; j++) out[j] |= hit[j];
        }
        pos = 0;
        for (size_t j = 0; j < n; j++) pos += out[j];
        return pos;
    }
    uint64_t left[CHUNK];
    uint16_t where[CHUNK];
    size_t m = 0;
    for (size_t j = 0; j < n; j++) {
        left[m] = hashes[j];
        where[m] = (uint16_t)j;
        m += out[j] == 0;
    }
    for (uint32_t i = s->count - 1; i-- > 0 && m > 0;) {
        size_t found = 0;
        fl_contains_hashes(s->filters[i], left, m, hit, &found);
        if (found == 0) continue;
        pos += found;
        size_t keep = 0;
        for (size_t j = 0; j < m; j++) {
            out[where[j]] = hit[j];
            left[keep] = left[j];
            where[keep] = where[j];
            keep += hit[j] == 0;
        }
        m = keep;
    }
    return pos;
}

fl_status fl_sbf_contains_hashes(const fl_sbf *s, const uint64_t *hashes, size_t n,
                                 uint8_t *out, size_t *positives) {
    if (positives) *positives = 0;
    if (!s || (n && (!hashes || !out))) return FL_ERR_INVALID_ARG;
    size_t pos = 0;
    for (size_t at = 0; at < n; at += CHUNK) {
        size_t len = n - at < CHUNK ? n - at : CHUNK;
        pos += contains_chunk(s, hashes + at, len, out + at);
    }
    if (positives) *positives = pos;
    return FL_OK;
}

/* ---- adds ------------------------------------------------------------------------------ */

/* Inserts a key the chain does not report, into the newest sub-filter, growing first if it
 * is at capacity (RedisBloom grows when the last filter's count reaches its capacity). */
static fl_status insert_new(fl_sbf *s, uint64_t h) {
    uint32_t last = s->count - 1;
    if (s->filters[last]->keys >= s->cap[last]) {
        if (s->flags & FL_SBF_NONSCALING) return FL_ERR_FULL;
        uint64_t cap = 0;
        fl_status st = fl_sbf_next_capacity(s->cap[last], s->growth, &cap);
        if (st == FL_OK) st = grow(s, cap);
        if (st != FL_OK) return st;
        last++;
    }
    return fl_insert_hash(s->filters[last], h);
}

fl_status fl_sbf_add_hash(fl_sbf *s, uint64_t hash, int *added) {
    if (added) *added = 0;
    if (!s) return FL_ERR_INVALID_ARG;
    if (contains_from(s, 0, hash)) return FL_OK;
    fl_status st = insert_new(s, hash);
    if (st == FL_OK && added) *added = 1;
    return st;
}

fl_status fl_sbf_add_bytes(fl_sbf *s, const void *key, size_t len, int *added) {
    if (added) *added = 0;
    if (!s || (!key && len)) return FL_ERR_INVALID_ARG;
    return fl_sbf_add_hash(s, fl_sbf_hash_bytes(s, key, len), added);
}

/* Each chunk is first looked up across the whole chain with the kernels; a key found
 * negative then needs only the sub-filters its own chunk's adds may have changed (the
 * newest at the chunk's start and any grown since), which is how a key repeated within the
 * batch is added once. */
fl_status fl_sbf_add_hashes(fl_sbf *s, const uint64_t *hashes, size_t n, uint8_t *added,
                            size_t *count) {
    if (count) *count = 0;
    if (!s || (n && !hashes)) return FL_ERR_INVALID_ARG;
    if (added && n) memset(added, 0, n);
    size_t done = 0;
    uint8_t seen[CHUNK];
    for (size_t at = 0; at < n; at += CHUNK) {
        size_t len = n - at < CHUNK ? n - at : CHUNK;
        contains_chunk(s, hashes + at, len, seen);
        uint32_t from = s->count - 1;
        for (size_t j = 0; j < len; j++) {
            uint64_t h = hashes[at + j];
            if (seen[j] || contains_from(s, from, h)) continue;
            fl_status st = insert_new(s, h);
            if (st != FL_OK) {
                if (count) *count = done;
                return st;
            }
            if (added) added[at + j] = 1;
            done++;
        }
    }
    if (count) *count = done;
    return FL_OK;
}

/* ---- info and kernels ------------------------------------------------------------------ */

fl_status fl_sbf_filter_info_at(const fl_sbf *s, uint32_t i, fl_sbf_filter_info *out) {
    if (!s || !out || i >= s->count) return FL_ERR_INVALID_ARG;
    const fl_filter *f = s->filters[i];
    memset(out, 0, sizeof *out);
    out->geometry = f->g;
    out->capacity = s->cap[i];
    out->items = f->keys;
    out->target_fpr = fl_sbf_target_fpr(s, i);
    out->predicted_fpr = fl_predict_fpr(&f->g, f->keys);
    out->bytes = f->bytes;
    return isnan(out->predicted_fpr) ? FL_ERR_NO_MEMORY : FL_OK; /* the blocked model's tables */
}

const fl_filter *fl_sbf_filter_at(const fl_sbf *s, uint32_t i) {
    return s && i < s->count ? s->filters[i] : NULL;
}

fl_status fl_sbf_get_info(const fl_sbf *s, fl_sbf_info *out) {
    if (!s || !out) return FL_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    out->capacity = s->capacity;
    out->items = fl_sbf_count(s);
    out->error_rate = s->error_rate;
    out->growth = s->growth;
    out->tightening = s->tightening;
    out->variant = s->variant;
    out->hash = s->hash;
    out->seed = s->seed;
    out->flags = s->flags;
    out->max_filters = s->max_filters;
    out->max_bytes = s->max_bytes;
    out->byte_limit = s->byte_limit;
    out->layout_slack = s->layout_slack;
    out->filters = s->count;
    out->bytes = chain_bytes(s);
    /* Independent sub-filters (each holds other keys): the chance that none reports a
     * never-added key is the product of their true-negative rates. */
    double none = 1.0;
    for (uint32_t i = 0; i < s->count; i++) {
        out->total_capacity += s->cap[i];
        out->classic_filters +=
            s->variant != FL_CLASSIC && s->filters[i]->g.variant == FL_CLASSIC;
        none *= 1.0 - fl_predict_fpr(&s->filters[i]->g, s->filters[i]->keys);
    }
    out->predicted_fpr = 1.0 - none;
    return isnan(none) ? FL_ERR_NO_MEMORY : FL_OK; /* the blocked model's tables */
}

fl_status fl_sbf_set_layout_slack(fl_sbf *s, double slack) {
    if (!s || !(slack == 0 || slack >= 1)) return FL_ERR_INVALID_ARG;
    s->layout_slack = slack == 0 ? FL_SBF_LAYOUT_SLACK_DEFAULT : slack;
    return FL_OK;
}

size_t fl_sbf_memory(const fl_sbf *s) {
    if (!s) return 0;
    size_t n = sizeof *s + (size_t)s->slots * (sizeof *s->filters + sizeof *s->cap);
    for (uint32_t i = 0; i < s->count; i++) n += fl_filter_memory(s->filters[i]);
    return n;
}

fl_status fl_sbf_set_byte_limit(fl_sbf *s, uint64_t bytes) {
    if (!s) return FL_ERR_INVALID_ARG;
    s->byte_limit = bytes;
    return FL_OK;
}

fl_status fl_sbf_bind_kernel(fl_sbf *s, const char *name) {
    if (!s) return FL_ERR_INVALID_ARG;
    const fl_kernel_table *t = NULL;
    if (name) {
        fl_status st = fl_kernel_table_named(name, &t);
        if (st != FL_OK) return st;
    }
    /* Validated above, so binding each sub-filter cannot fail half way. */
    for (uint32_t i = 0; i < s->count; i++) fl_filter_bind_kernel(s->filters[i], name);
    s->kernel = t ? fl_kernel_table_name(t) : NULL;
    return FL_OK;
}
