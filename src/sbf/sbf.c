/*
 * Scalable Bloom filters (Almeida, Baquero, Preguica, Hutchison 2007) with RedisBloom's
 * semantics: the chain, its growth, adds and lookups. The bound on the chain's FPR and the
 * meaning of every parameter are in include/filterlab_sbf.h; the file codec is
 * src/sbf/codec_sbf.c, one sub-filter's info and copy src/sbf/sbf_filters.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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
    double r = fl_sbf_tightening(s);
    /* pow(r, 0) is 1, but libm's pow costs a few hundred instructions even then, and every
     * chain's creation asks for sub-filter 0. */
    return s->error_rate * (1.0 - r) * (i == 0 ? 1.0 : pow(r, (double)i));
}

/* layout_slack in the chain's thousandths, rounded up so that the fallback never comes
 * earlier than asked; above what 32 bits hold, a slack of millions, it stays as large as
 * they allow (the fallback then only where the variant cannot reach the target). */
static uint32_t slack_to_milli(double slack) {
    if (isinf(slack)) return FL_SBF_SLACK_NEVER;
    double m = ceil(slack * 1000.0 - 1e-6); /* 1.1 * 1000 is 1100.0000000000002 */
    return m >= (double)(FL_SBF_SLACK_NEVER - 1) ? FL_SBF_SLACK_NEVER - 1 : (uint32_t)m;
}

static double slack_of(const fl_sbf *s) {
    return s->slack_milli == FL_SBF_SLACK_NEVER ? INFINITY : s->slack_milli / 1000.0;
}

fl_status fl_sbf_params(const fl_sbf_config *cfg, fl_sbf_setup *p) {
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
    memset(p, 0, sizeof *p);
    p->capacity = cfg->capacity;
    p->error_rate = cfg->error_rate;
    p->growth = growth;
    p->tightening = r;
    p->variant = v;
    p->hash = hash;
    p->seed = cfg->seed;
    p->flags = cfg->flags;
    p->max_filters = cfg->max_filters ? cfg->max_filters : FL_SBF_FILTERS_MAX;
    p->max_bytes = cfg->max_bytes;
    p->layout_slack = cfg->layout_slack == 0 ? FL_SBF_LAYOUT_SLACK_DEFAULT : cfg->layout_slack;
    return FL_OK;
}

/* Entries of more->links for n sub-filters: none for one, else the power of two at or
 * above n less the first, at most max_filters - 1. A function of n alone, so that a chain
 * grown one sub-filter at a time, the same chain loaded from its file, and a cleared one
 * hold the same memory (the Redis module's MEMORY USAGE and BF.INFO Size must not change
 * across a save and a load). */
static uint32_t slots_for(uint32_t max_filters, uint32_t n) {
    uint32_t slots = 1;
    while (slots < n) slots *= 2;
    if (slots > max_filters) slots = max_filters;
    return slots - 1;
}

static size_t more_size(uint32_t slots) {
    return sizeof(fl_sbf_more) + (size_t)slots * sizeof(fl_sbf_link);
}

/* Whether a chain of these parameters and n sub-filters needs its fl_sbf_more. */
static int more_needed(double tightening, uint64_t seed, const fl_kernel_table *bound,
                       uint32_t max_filters, uint32_t n) {
    return tightening != FL_SBF_TIGHTENING_DEFAULT || seed != 0 || bound ||
           max_filters != FL_SBF_FILTERS_MAX || n > 1;
}

/* Makes s->more what a chain of n sub-filters (n >= count) with these parameters holds:
 * allocated or not, links for n. On FL_ERR_NO_MEMORY the chain is unchanged. */
static fl_status reshape_more(fl_sbf *s, double tightening, uint64_t seed,
                              const fl_kernel_table *bound, uint32_t max_filters, uint32_t n) {
    if (!more_needed(tightening, seed, bound, max_filters, n)) {
        free(s->more);
        s->more = NULL;
        return FL_OK;
    }
    uint32_t slots = slots_for(max_filters, n);
    if (!s->more || s->more->slots != slots) {
        fl_sbf_more *m = realloc(s->more, more_size(slots));
        if (!m) return FL_ERR_NO_MEMORY;
        if (!s->more) memset(m, 0, sizeof *m);
        s->more = m;
    }
    s->more->tightening = tightening;
    s->more->seed = seed;
    __atomic_store_n(&s->more->bound, bound, __ATOMIC_RELEASE);
    s->more->max_filters = max_filters;
    s->more->slots = slots;
    return FL_OK;
}

fl_status fl_sbf_alloc(const fl_sbf_setup *p, uint32_t filters, fl_sbf **out) {
    fl_sbf *s = calloc(1, sizeof *s);
    if (!s) return FL_ERR_NO_MEMORY;
    s->error_rate = p->error_rate;
    s->growth = p->growth;
    s->max_bytes = p->max_bytes;
    s->slack_milli = slack_to_milli(p->layout_slack);
    s->variant = (uint8_t)p->variant;
    s->hash = (uint8_t)p->hash;
    s->flags = (uint8_t)p->flags;
    s->first.cap = p->capacity;
    if (reshape_more(s, p->tightening, p->seed, NULL, p->max_filters, filters) != FL_OK) {
        free(s);
        return FL_ERR_NO_MEMORY;
    }
    *out = s;
    return FL_OK;
}

void fl_sbf_adopt(fl_sbf *s, const fl_sbf_link *l) {
    fl_sbf_link *dst = fl_sbf_link_at(s, s->count);
    *dst = *l;
    size_t bytes = fl_sbf_link_bytes(dst);
    dst->size_class = fl_size_class_settled(bytes);
    s->count++;
}

size_t fl_sbf_link_bytes(const fl_sbf_link *l) {
    return fl_variant_desc_of((fl_variant)l->variant)->unit_bytes(l->k) * (size_t)l->units;
}

void fl_sbf_link_view(const fl_sbf *s, uint32_t i, fl_filter *v) {
    const fl_sbf_link *l = fl_sbf_link_at(s, i);
    memset(v, 0, sizeof *v);
    v->g = (fl_geometry){.variant = (fl_variant)l->variant, .units = l->units, .k = l->k};
    v->desc = fl_variant_desc_of(v->g.variant);
    v->slots = v->desc->kernel_slots(l->k);
    v->bound = fl_sbf_bound(s);
    v->data = l->data;
    v->bytes = fl_sbf_link_bytes(l);
    v->hash = (fl_hash_id)s->hash;
    v->seed = fl_sbf_seed(s);
    v->keys = l->keys;
}

static void link_free(fl_sbf_link *l) {
    if (l->data) fl_payload_release(l->data, fl_payload_mapped(fl_sbf_link_bytes(l)));
    l->data = NULL;
}

/* Payload bytes of all sub-filters. */
static size_t chain_bytes(const fl_sbf *s) {
    size_t n = 0;
    for (uint32_t i = 0; i < s->count; i++) n += fl_sbf_link_bytes(fl_sbf_link_at(s, i));
    return n;
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
    uint32_t max_filters = fl_sbf_max_filters(s);
    if (s->count >= max_filters) return FL_ERR_TOO_LARGE;
    fl_geometry g;
    fl_status st = fl_sbf_layout(s, s->count, cap, &g);
    if (st != FL_OK) return st;
    size_t bytes = 0;
    st = fl_geometry_check(&g, &bytes);
    if (st != FL_OK) return st;
    uint64_t limit = growth_limit(s);
    if (limit && (bytes > limit || chain_bytes(s) > limit - bytes)) return FL_ERR_TOO_LARGE;
    /* Only now the links: a refused growth leaves the chain's memory as it was. (More
     * room left behind by a failed payload is harmless: the next growth uses it, and it
     * is what a chain of count + 1 sub-filters holds.) */
    if (s->count > 0) {
        st = reshape_more(s, fl_sbf_tightening(s), fl_sbf_seed(s), fl_sbf_bound(s),
                          max_filters, s->count + 1);
        if (st != FL_OK) return st;
    }
    fl_sbf_link l = {.cap = cap, .units = (uint32_t)g.units, .k = (uint16_t)g.k,
                     .variant = (uint8_t)g.variant};
    size_t mapped;
    st = fl_payload_get(bytes, &l.data, &mapped);
    if (st != FL_OK) return st;
    fl_sbf_adopt(s, &l);
    return FL_OK;
}

fl_status fl_sbf_create(const fl_sbf_config *cfg, fl_sbf **out) {
    if (!out) return FL_ERR_INVALID_ARG;
    *out = NULL;
    fl_sbf_setup p;
    fl_status st = fl_sbf_params(cfg, &p);
    if (st != FL_OK) return st;
    fl_sbf *s = NULL;
    st = fl_sbf_alloc(&p, 1, &s);
    if (st != FL_OK) return st;
    st = grow(s, p.capacity);
    if (st != FL_OK) {
        fl_sbf_free(s);
        return st;
    }
    *out = s;
    return FL_OK;
}

void fl_sbf_free(fl_sbf *s) {
    if (!s) return;
    for (uint32_t i = 0; i < s->count; i++) link_free(fl_sbf_link_at(s, i));
    free(s->more);
    free(s);
}

void fl_sbf_clear(fl_sbf *s) {
    if (!s) return;
    for (uint32_t i = 1; i < s->count; i++) link_free(fl_sbf_link_at(s, i));
    s->count = 1;
    /* Shrinking: if realloc refuses, the larger links array serves (and is counted). */
    reshape_more(s, fl_sbf_tightening(s), fl_sbf_seed(s), fl_sbf_bound(s),
                 fl_sbf_max_filters(s), 1);
    fl_sbf_link *l = &s->first;
    size_t bytes = fl_sbf_link_bytes(l), mapped = fl_payload_mapped(bytes);
    /* A mapped payload gives its pages back instead of being written, as fl_clear does. */
    if (!mapped || madvise(l->data, mapped, MADV_DONTNEED) != 0) memset(l->data, 0, bytes);
    l->keys = 0;
}

uint64_t fl_sbf_hash_bytes(const fl_sbf *s, const void *key, size_t len) {
    if (!s || (!key && len)) return 0;
    /* What each sub-filter saved as a filter of its own hashes the key to. */
    return fl_hash_key((fl_hash_id)s->hash, fl_sbf_seed(s), key, len);
}

uint64_t fl_sbf_count(const fl_sbf *s) {
    uint64_t n = 0;
    for (uint32_t i = 0; s && i < s->count; i++) n += fl_sbf_link_at(s, i)->keys;
    return n;
}

/* ---- kernels --------------------------------------------------------------------------- */

/* What a link's kernel calls need: its view, its slots in the table, the table (the chain's
 * bound one, else the process's for the payload's size class, as for a filter). */
typedef struct link_kernels {
    fl_kview v;
    fl_kernel_slots slots;
    const fl_kernel_table *t;
    int (*add_one)(const fl_kview *v, uint64_t h); /* the variant's test-and-set */
} link_kernels;

static inline const fl_kernel_table *link_table(const fl_sbf *s, const fl_sbf_link *l) {
    return fl_kernels_in_class(fl_sbf_bound(s), l->size_class);
}

static inline __attribute__((always_inline)) link_kernels kernels_of(const fl_sbf *s,
                                                                     uint32_t i) {
    const fl_sbf_link *l = fl_sbf_link_at(s, i);
    const fl_variant_desc *d = fl_variant_desc_of((fl_variant)l->variant);
    link_kernels k = {.v = {l->data, l->units, l->k, NULL, 0},
                      .slots = d->kernel_slots(l->k),
                      .t = link_table(s, l),
                      .add_one = d->add_one};
    return k;
}

/* One key against a link whose kernels are resolved: the add paths resolve the newest
 * link's once and use them for its duplicate check and its insert (per key, resolving
 * costs about as much as the probe: the variant's descriptor, its slots, the table). */
static int probe(const link_kernels *k, uint64_t h) {
    if (k->slots.contains1 != FL_NO_KERNEL)
        return FL_KERNEL_AT(k->t, k->slots.contains1, fl_contains1_fn)(k->v.data, k->v.units,
                                                                      k->v.k, h);
    uint8_t out;
    return (int)FL_KERNEL_AT(k->t, k->slots.contains, fl_contains_fn)(&k->v, &h, 1, &out);
}

/* A lookup of one key in link i: its one-key kernel straight from the link's fields (no
 * view built on the stack: this is BF.EXISTS's whole library path). */
static int link_contains(const fl_sbf *s, uint32_t i, uint64_t h) {
    const fl_sbf_link *l = fl_sbf_link_at(s, i);
    uint32_t slot = fl_variant_desc_of((fl_variant)l->variant)->kernel_slots(l->k).contains1;
    if (slot == FL_NO_KERNEL) {
        link_kernels k = kernels_of(s, i);
        return probe(&k, h);
    }
    return FL_KERNEL_AT(link_table(s, l), slot, fl_contains1_fn)(l->data, l->units, l->k, h);
}

static size_t link_contains_many(const fl_sbf *s, uint32_t i, const uint64_t *h, size_t n,
                                 uint8_t *out) {
    if (n == 0) return 0;
    link_kernels k = kernels_of(s, i);
    return FL_KERNEL_AT(k.t, k.slots.contains, fl_contains_fn)(&k.v, h, n, out);
}


/* ---- lookups --------------------------------------------------------------------------- */

/* Sub-filters [from, to) newest first, one key. */
static int contains_range(const fl_sbf *s, uint32_t from, uint32_t to, uint64_t h) {
    for (uint32_t i = to; i-- > from;)
        if (link_contains(s, i, h)) return 1;
    return 0;
}

static int contains_from(const fl_sbf *s, uint32_t from, uint64_t h) {
    return contains_range(s, from, s->count, h);
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
    pos = link_contains_many(s, s->count - 1, hashes, n, out);
    if (s->count == 1 || pos == n) return pos;
    uint8_t hit[CHUNK];
    if (pos < n / 4) {
        for (uint32_t i = s->count - 1; i-- > 0;) {
            link_contains_many(s, i, hashes, n, hit);
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
        found = link_contains_many(s, i, left, m, hit);
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

/* Inserts a key the chain does not report into the newest sub-filter, whose kernels *k
 * holds, growing first if it is at capacity (RedisBloom grows when the last filter's count
 * reaches its capacity); *k then holds the new sub-filter's. */
static fl_status insert_new(fl_sbf *s, link_kernels *k, uint64_t h) {
    uint32_t last = s->count - 1;
    const fl_sbf_link *l = fl_sbf_link_at(s, last);
    if (l->keys >= l->cap) {
        if (s->flags & FL_SBF_NONSCALING) return FL_ERR_FULL;
        uint64_t cap = 0;
        fl_status st = fl_sbf_next_capacity(l->cap, s->growth, &cap);
        if (st == FL_OK) st = grow(s, cap);
        if (st != FL_OK) return st;
        *k = kernels_of(s, ++last);
    }
    FL_KERNEL_AT(k->t, k->slots.insert, fl_insert_fn)(&k->v, &h, 1);
    fl_sbf_link_at(s, last)->keys++;
    return FL_OK;
}

/* Adds a key unless sub-filters [from, newest] report it: 1 if it was new (inserted in the
 * newest, grown first if that was at capacity), 0 if present, or an error (a negative
 * fl_status). While the newest has room, its test-and-set is the lookup and the
 * insert in one pass (a key whose bits are all set is present and changes nothing); a full
 * newest is probed first, so that a present key does not make the chain grow. */
static int add_new(fl_sbf *s, link_kernels *k, uint32_t from, uint64_t h) {
    if (contains_range(s, from, s->count - 1, h)) return 0;
    fl_sbf_link *l = fl_sbf_link_at(s, s->count - 1);
    if (k->add_one && l->keys < l->cap) {
        if (!k->add_one(&k->v, h)) return 0;
        l->keys++;
        return 1;
    }
    if (probe(k, h)) return 0;
    fl_status st = insert_new(s, k, h);
    return st == FL_OK ? 1 : -(int)st;
}

fl_status fl_sbf_add_hash(fl_sbf *s, uint64_t hash, int *added) {
    if (added) *added = 0;
    if (!s) return FL_ERR_INVALID_ARG;
    link_kernels k = kernels_of(s, s->count - 1);
    int r = add_new(s, &k, 0, hash);
    if (r < 0) return (fl_status)-r;
    if (added) *added = r;
    return FL_OK;
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
        link_kernels k = kernels_of(s, from); /* the newest's, kept by insert_new */
        for (size_t j = 0; j < len; j++) {
            if (seen[j]) continue;
            /* Sub-filters grown during this chunk, older than the newest now, may hold an
             * earlier copy of the key from this chunk: add_new looks there too. */
            int r = add_new(s, &k, from, hashes[at + j]);
            if (r < 0) {
                if (count) *count = done;
                return (fl_status)-r;
            }
            if (!r) continue;
            if (added) added[at + j] = 1;
            done++;
        }
    }
    if (count) *count = done;
    return FL_OK;
}

/* ---- info, kernels and settings (one sub-filter's info and copy: sbf_filters.c) ------- */

const char *fl_sbf_kernel(const fl_sbf *s, uint32_t i) {
    if (!s || i >= s->count) return NULL;
    return fl_kernel_table_name(kernels_of(s, i).t);
}

fl_status fl_sbf_get_info(const fl_sbf *s, fl_sbf_info *out) {
    if (!s || !out) return FL_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    out->capacity = s->first.cap;
    out->items = fl_sbf_count(s);
    out->error_rate = s->error_rate;
    out->growth = s->growth;
    out->tightening = fl_sbf_tightening(s);
    out->variant = (fl_variant)s->variant;
    out->hash = (fl_hash_id)s->hash;
    out->seed = fl_sbf_seed(s);
    out->flags = s->flags;
    out->max_filters = fl_sbf_max_filters(s);
    out->max_bytes = s->max_bytes;
    out->byte_limit = s->byte_limit;
    out->layout_slack = slack_of(s);
    out->filters = s->count;
    out->bytes = chain_bytes(s);
    /* Independent sub-filters (each holds other keys): the chance that none reports a
     * never-added key is the product of their true-negative rates. */
    double none = 1.0;
    for (uint32_t i = 0; i < s->count; i++) {
        const fl_sbf_link *l = fl_sbf_link_at(s, i);
        fl_geometry g = {.variant = (fl_variant)l->variant, .units = l->units, .k = l->k};
        out->total_capacity += l->cap;
        out->classic_filters += s->variant != FL_CLASSIC && l->variant == FL_CLASSIC;
        none *= 1.0 - fl_predict_fpr(&g, l->keys);
    }
    out->predicted_fpr = 1.0 - none;
    return isnan(none) ? FL_ERR_NO_MEMORY : FL_OK; /* the blocked model's tables */
}

fl_status fl_sbf_set_layout_slack(fl_sbf *s, double slack) {
    if (!s || !(slack == 0 || slack >= 1)) return FL_ERR_INVALID_ARG;
    s->slack_milli = slack_to_milli(slack == 0 ? FL_SBF_LAYOUT_SLACK_DEFAULT : slack);
    return FL_OK;
}

size_t fl_sbf_memory(const fl_sbf *s) {
    if (!s) return 0;
    size_t n = sizeof *s + (s->more ? more_size(s->more->slots) : 0);
    for (uint32_t i = 0; i < s->count; i++)
        n += fl_sbf_link_bytes(fl_sbf_link_at(s, i)) + FL_PAYLOAD_SLACK;
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
    /* The binding is the chain's: kept in its fl_sbf_more, which an unbound chain of one
     * sub-filter with the default parameters does without. */
    return reshape_more(s, fl_sbf_tightening(s), fl_sbf_seed(s), t, fl_sbf_max_filters(s),
                        s->count);
}
