/*
 * Filter lifecycle and the routing of every public insert/lookup call to its kernel.
 *
 * Batches go through the dispatched kernel table once per batch; single-key lookups through
 * the inline lookup of filterlab_inline.h, which probes cuckoo filters in line and the Bloom
 * variants with the table's one-key entries (contains1), which the SIMD ISAs fill where a
 * vector probe of one key beats the scalar one (split256, block512).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <xxhash.h>

#include "core/internal.h"
#include "probe.h"

fl_status fl_filter_new(const fl_geometry *g, fl_hash_id hash, uint64_t seed, uint32_t flags,
                        fl_filter **out) {
    size_t bytes;
    fl_status s = fl_geometry_check(g, &bytes);
    if (s != FL_OK) return s;
    if (hash != FL_HASH_XXH3 && hash != FL_HASH_XXH64) return FL_ERR_INVALID_ARG;
    if (flags & ~(uint32_t)FL_FLAG_NO_HUGE_PAGES) return FL_ERR_INVALID_ARG;
    const fl_variant_desc *desc = fl_variant_desc_of(g->variant);
    fl_filter *f = calloc(1, desc->stash_max ? sizeof *f : FL_FILTER_BASE_BYTES);
    if (!f) return FL_ERR_NO_MEMORY;
    f->g = *g;
    f->desc = desc;
    f->slots = f->desc->kernel_slots(g->k);
    f->hash = hash;
    f->seed = seed;
    f->flags = flags;
    s = fl_payload_alloc(f, bytes);
    if (s != FL_OK) {
        free(f);
        return s;
    }
    if (f->desc->reset) f->desc->reset(f);
    *out = f;
    return FL_OK;
}

fl_status fl_create(const fl_config *cfg, fl_filter **out) {
    if (!cfg || !out) return FL_ERR_INVALID_ARG;
    *out = NULL;
    fl_geometry g;
    if (cfg->geometry.units > 0) {
        g = cfg->geometry;
        if (g.variant == 0) g.variant = cfg->variant;
        if (g.variant != cfg->variant) return FL_ERR_INVALID_ARG;
    } else {
        fl_params p;
        fl_status s = fl_params_for(cfg->variant, cfg->n, cfg->fpr, &p);
        if (s != FL_OK) return s;
        g = p.geometry;
    }
    /* The variant's default hash: XXH64 (seed 0 by default) for split256, the Parquet format,
     * so its filters export to Parquet as they are; XXH3 for everything else. */
    const fl_variant_desc *d = fl_variant_desc_of(g.variant);
    if (!d) return FL_ERR_INVALID_ARG;
    fl_hash_id hash = cfg->hash ? cfg->hash : d->info.default_hash;
    return fl_filter_new(&g, hash, cfg->seed, cfg->flags, out);
}

fl_status fl_create_for(fl_variant variant, uint64_t n, double fpr, fl_filter **out) {
    fl_config cfg = {.variant = variant, .n = n, .fpr = fpr};
    return fl_create(&cfg, out);
}

size_t fl_filter_memory(const fl_filter *f) {
    return (f->desc->stash_max ? sizeof *f : FL_FILTER_BASE_BYTES) + f->bytes + FL_PAYLOAD_SLACK;
}

void fl_free(fl_filter *f) {
    if (!f) return;
    fl_payload_free(f);
    free(f);
}

fl_status fl_chain_variant(fl_variant variant, fl_hash_id hash, fl_variant *v_out,
                           fl_hash_id *hash_out) {
    fl_variant v = variant ? variant : FL_BLOCK512;
    const fl_variant_desc *d = fl_variant_desc_of(v);
    if (!d) return FL_ERR_INVALID_ARG;
    if (d->info.caps & FL_CAP_MAY_FILL) return FL_ERR_UNSUPPORTED;
    if (hash && hash != FL_HASH_XXH3 && hash != FL_HASH_XXH64) return FL_ERR_INVALID_ARG;
    *v_out = v;
    *hash_out = hash ? hash : d->info.default_hash;
    return FL_OK;
}

void fl_free_chain(fl_filter **chain, uint32_t n) {
    if (!chain) return;
    for (uint32_t i = 0; i < n; i++) fl_free(chain[i]);
    free(chain);
}

uint64_t fl_hash_key(fl_hash_id hash, uint64_t seed, const void *key, size_t len) {
    if (!key) key = ""; /* a NULL key of length 0 is the empty key */
    if (hash == FL_HASH_XXH64) return XXH64(key, len, seed);
    return XXH3_64bits_withSeed(key, len, seed);
}

uint64_t fl_hash_bytes(const fl_filter *f, const void *key, size_t len) {
    if (!f || (!key && len)) return 0;
    return fl_hash_key(f->hash, f->seed, key, len);
}

uint64_t fl_hash_u64(uint64_t key, uint64_t seed) {
    return fl_hash_u64_inline(key, seed);
}

/* What a refused cuckoo handle reads: one empty bucket (8 bytes, the 16-bit layout), and a
 * stash count that is never 0, so that every lookup takes the stash branch to its `other`. */
static _Alignas(64) const uint8_t zero_unit[64];
static const uint32_t refused_stash_count = 1;

static int probe_nothing(const void *data, uint32_t units, uint32_t k, uint64_t hash) {
    (void)data, (void)units, (void)k, (void)hash;
    return 0;
}

static int probe_one(const fl_filter *f, uint64_t h);

/* A refused handle's lookup: what fl_contains_hash answers for the filter it was made for
 * (data), whatever its variant; units and k are the handle's, not the filter's. */
static int probe_filter(const void *data, uint32_t units, uint32_t k, uint64_t hash) {
    (void)units, (void)k;
    return probe_one(data, hash);
}

/* The one-variant handles of a filter of another variant (or NULL) go through the generic
 * lookup instead of refusing to answer: a caller who does not check the status gets slow
 * right answers, never false negatives. */
fl_split256_lookup fl_split256_lookup_of(const fl_filter *f, fl_status *status) {
    int ok = f && f->g.variant == FL_SPLIT256;
    if (status) *status = ok ? FL_OK : FL_ERR_INVALID_ARG;
    if (!ok)
        return (fl_split256_lookup){.blocks = f, .units = 0,
                                    .seed_mix = f ? f->seed * FL_SEED_MIX : 0,
                                    .probe = f ? probe_filter : probe_nothing};
    return (fl_split256_lookup){.blocks = f->data, .units = (uint32_t)f->g.units,
                                .seed_mix = f->seed * FL_SEED_MIX,
                                .probe = fl_kernels_of(f)->bloom.contains1[FL_BLOOM_SPLIT256]};
}

fl_cuckoo_lookup fl_cuckoo_lookup_of(const fl_filter *f, fl_status *status) {
    int ok = f && f->g.variant == FL_CUCKOO;
    if (status) *status = ok ? FL_OK : FL_ERR_INVALID_ARG;
    if (!ok)
        return (fl_cuckoo_lookup){.buckets = zero_unit, .units = 1, .fp_bits = 16,
                                  .fp_range = 0xffff,
                                  .seed_mix = f ? f->seed * FL_SEED_MIX : 0,
                                  .stash = NULL, .stash_count = &refused_stash_count,
                                  .other = f ? probe_filter : probe_nothing, .other_data = f};
    return (fl_cuckoo_lookup){.buckets = f->data, .units = (uint32_t)f->g.units,
                              .fp_bits = f->g.k, .fp_range = (1u << f->g.k) - 1u,
                              .tuples = fl_cuckoo_tuples_of(f->g.k),
                              .seed_mix = f->seed * FL_SEED_MIX, .stash = f->stash,
                              .stash_count = &f->stash_count};
}

/* The generic handle of filterlab_inline.h: the filter's live payload and the one-key kernel
 * of the active table, with the one-variant handles it uses for split256 and cuckoo. */
fl_lookup fl_lookup_of(const fl_filter *f) {
    fl_lookup l = {.variant = 0, .data = zero_unit, .units = 1, .probe = probe_nothing,
                   .split256 = fl_split256_lookup_of(f, NULL),
                   .cuckoo = fl_cuckoo_lookup_of(f, NULL)};
    if (!f) return l;
    l.variant = f->g.variant;
    l.data = f->data;
    l.units = (uint32_t)f->g.units;
    l.k = f->g.k;
    l.seed_mix = f->seed * FL_SEED_MIX;
    if (f->slots.contains1 != FL_NO_KERNEL)
        l.probe = FL_KERNEL_AT(fl_kernels_of(f), f->slots.contains1, fl_contains1_fn);
    return l;
}

/* The single-key calls: the variant's own one-key lookup where it has one (cuckoo, probed in
 * line as filterlab_inline.h does), else the one-key kernel of the filter's table. */
static int probe_one(const fl_filter *f, uint64_t h) {
    /* The slot is in the filter itself: the kernel path needs no load of the descriptor. */
    if (f->slots.contains1 != FL_NO_KERNEL)
        return FL_KERNEL_AT(fl_kernels_of(f), f->slots.contains1, fl_contains1_fn)(
            f->data, (uint32_t)f->g.units, f->g.k, h);
    return f->desc->contains_one(f, h);
}

fl_status fl_insert_hash(fl_filter *f, uint64_t hash) {
    if (!f) return FL_ERR_INVALID_ARG;
    if (f->desc->insert_one) return f->desc->insert_one(f, hash);
    fl_kview v = fl_view(f);
    FL_KERNEL_AT(fl_kernels_of(f), f->slots.insert, fl_insert_fn)(&v, &hash, 1);
    f->keys++;
    return FL_OK;
}

fl_status fl_insert_bytes(fl_filter *f, const void *key, size_t len) {
    if (!f || (!key && len)) return FL_ERR_INVALID_ARG;
    return fl_insert_hash(f, fl_hash_bytes(f, key, len));
}

fl_status fl_insert_u64(fl_filter *f, uint64_t key) {
    if (!f) return FL_ERR_INVALID_ARG;
    return fl_insert_hash(f, fl_hash_u64_inline(key, f->seed));
}

int fl_contains_hash(const fl_filter *f, uint64_t hash) {
    return f ? probe_one(f, hash) : 0;
}

int fl_contains_bytes(const fl_filter *f, const void *key, size_t len) {
    if (!f || (!key && len)) return 0;
    return probe_one(f, fl_hash_bytes(f, key, len));
}

int fl_contains_u64(const fl_filter *f, uint64_t key) {
    return f ? probe_one(f, fl_hash_u64_inline(key, f->seed)) : 0;
}

fl_status fl_insert_hashes(fl_filter *f, const uint64_t *hashes, size_t n, size_t *inserted) {
    if (inserted) *inserted = 0;
    if (!f || (!hashes && n)) return FL_ERR_INVALID_ARG;
    if (f->desc->insert_many) { /* inserts that may fail stop at the first that does */
        size_t done = 0;
        fl_status s = f->desc->insert_many(f, hashes, n, &done);
        if (inserted) *inserted = done;
        return s;
    }
    fl_kview v = fl_view(f);
    if (n) FL_KERNEL_AT(fl_kernels_of(f), f->slots.insert, fl_insert_fn)(&v, hashes, n);
    f->keys += n;
    if (inserted) *inserted = n;
    return FL_OK;
}

fl_status fl_contains_hashes(const fl_filter *f, const uint64_t *hashes, size_t n, uint8_t *out,
                             size_t *positives) {
    if (positives) *positives = 0;
    if (!f || ((!hashes || !out) && n)) return FL_ERR_INVALID_ARG;
    if (n == 0) return FL_OK;
    fl_kview v = fl_view(f);
    size_t pos = FL_KERNEL_AT(fl_kernels_of(f), f->slots.contains, fl_contains_fn)(&v, hashes, n, out);
    if (positives) *positives = pos;
    return FL_OK;
}

/* Integer keys go through a stack block of hashes (FL_U64S_BLOCK): the kernels take hashes.
 * A structure whose slots name a kernel of integer keys (the cuckoo filter's
 * cuckoo.contains_u64s, which may hash in its loop) is looked up by that kernel instead. */
#define U64_BLOCK FL_U64S_BLOCK

fl_status fl_insert_u64s(fl_filter *f, const uint64_t *keys, size_t n, size_t *inserted) {
    if (inserted) *inserted = 0;
    if (!f || (!keys && n)) return FL_ERR_INVALID_ARG;
    uint64_t h[U64_BLOCK];
    const fl_kernel_table *t = fl_kernels_of(f);
    for (size_t off = 0; off < n; off += U64_BLOCK) {
        size_t m = n - off < U64_BLOCK ? n - off : U64_BLOCK, done = 0;
        t->hash.u64((const uint64_t *)(const void *)((const unsigned char *)keys + 8 * off), m,
                    f->seed, h);
        fl_status s = fl_insert_hashes(f, h, m, &done);
        if (inserted) *inserted = off + done;
        if (s != FL_OK) return s;
    }
    return FL_OK;
}

fl_status fl_contains_u64s(const fl_filter *f, const uint64_t *keys, size_t n, uint8_t *out,
                           size_t *positives) {
    if (positives) *positives = 0;
    if (!f || ((!keys || !out) && n)) return FL_ERR_INVALID_ARG;
    const fl_kernel_table *t = fl_kernels_of(f);
    if (f->slots.contains_u64s != FL_NO_KERNEL) { /* one kernel hashes and probes */
        fl_kview v = fl_view(f);
        fl_contains_u64s_fn fn = FL_KERNEL_AT(t, f->slots.contains_u64s, fl_contains_u64s_fn);
        size_t pos = n ? fn(&v, keys, n, f->seed, t->hash.u64, out) : 0;
        if (positives) *positives = pos;
        return FL_OK;
    }
    uint64_t h[U64_BLOCK];
    size_t pos = 0;
    for (size_t off = 0; off < n; off += U64_BLOCK) {
        size_t m = n - off < U64_BLOCK ? n - off : U64_BLOCK, p = 0;
        t->hash.u64((const uint64_t *)(const void *)((const unsigned char *)keys + 8 * off), m,
                    f->seed, h);
        fl_contains_hashes(f, h, m, out + off, &p);
        pos += p;
    }
    if (positives) *positives = pos;
    return FL_OK;
}

fl_status fl_insert_hashes_atomic(fl_filter *f, const uint64_t *hashes, size_t n) {
    if (!f || (!hashes && n)) return FL_ERR_INVALID_ARG;
    if (!f->desc->insert_atomic) return FL_ERR_UNSUPPORTED;
    return f->desc->insert_atomic(f, hashes, n);
}

fl_status fl_delete_hash(fl_filter *f, uint64_t hash) {
    if (!f) return FL_ERR_INVALID_ARG;
    if (!f->desc->remove) return FL_ERR_UNSUPPORTED;
    return f->desc->remove(f, hash);
}

fl_status fl_delete_bytes(fl_filter *f, const void *key, size_t len) {
    if (!f || (!key && len)) return FL_ERR_INVALID_ARG;
    return fl_delete_hash(f, fl_hash_bytes(f, key, len));
}

fl_status fl_delete_u64(fl_filter *f, uint64_t key) {
    if (!f) return FL_ERR_INVALID_ARG;
    return fl_delete_hash(f, fl_hash_u64_inline(key, f->seed));
}

fl_status fl_count_hash(const fl_filter *f, uint64_t hash, uint32_t *count) {
    if (count) *count = 0;
    if (!f || !count) return FL_ERR_INVALID_ARG;
    if (!f->desc->count) return FL_ERR_UNSUPPORTED;
    *count = f->desc->count(f, hash);
    return FL_OK;
}

fl_status fl_count_bytes(const fl_filter *f, const void *key, size_t len, uint32_t *count) {
    if (count) *count = 0;
    if (!f || (!key && len)) return FL_ERR_INVALID_ARG;
    return fl_count_hash(f, fl_hash_bytes(f, key, len), count);
}

void fl_clear(fl_filter *f) {
    if (!f) return;
    /* A mapped payload gives its pages back instead of being written: the next touch maps
     * zero pages, and the MADV_HUGEPAGE advice stays on the range. */
    if (!f->mapped || madvise(f->data, f->mapped, MADV_DONTNEED) != 0)
        memset(f->data, 0, f->bytes);
    f->keys = 0;
    f->keys_estimated = 0;
    if (f->desc->reset) f->desc->reset(f);
}

size_t fl_size_bytes(const fl_filter *f) {
    return f ? f->bytes : 0;
}

uint64_t fl_count(const fl_filter *f) {
    return f ? __atomic_load_n(&f->keys, __ATOMIC_RELAXED) : 0;
}

fl_variant fl_get_variant(const fl_filter *f) {
    return f ? f->g.variant : (fl_variant)0;
}

fl_status fl_get_info(const fl_filter *f, fl_info *out) {
    if (!f || !out) return FL_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    out->geometry = f->g;
    out->hash = f->hash;
    out->seed = f->seed;
    out->keys = fl_count(f);
    out->keys_estimated = f->keys_estimated;
    out->bytes = f->bytes;
    out->huge_pages = f->huge_pages;
    double predict_keys = (double)out->keys;
    f->desc->occupancy(f, out);
    if (f->desc->keys_from_fill) {
        out->keys_from_fill = f->desc->keys_from_fill(f->desc, &f->g, out->fill);
        if (out->keys == 0 && out->bits_set > 0) predict_keys = out->keys_from_fill;
    }
    /* A saturated bit array answers yes to everything, whatever the model says. */
    out->predicted_fpr = out->fill >= 1.0 && !f->desc->info.unit_slots
                             ? 1.0
                             : fl_predict_fpr_at(&f->g, predict_keys);
    /* NaN: the blocked model's tables could not be allocated (the geometry is valid). */
    return isnan(out->predicted_fpr) ? FL_ERR_NO_MEMORY : FL_OK;
}

/* Whether no bit (no counter) of the payload is set: a filter that holds no key. Stops at the
 * first nonzero word, so it costs nothing on a filter in use. */
static int payload_is_empty(const fl_filter *f) {
    const uint64_t *w = f->data;
    for (size_t i = 0; i < f->bytes / 8; i++)
        if (w[i]) return 0;
    /* A 12-bit cuckoo payload (6-byte buckets) may end inside a word. */
    for (size_t i = f->bytes & ~(size_t)7; i < f->bytes; i++)
        if (((const uint8_t *)f->data)[i]) return 0;
    return 1;
}

/* The key count of a union of two filters that both held keys. Neither count says how many
 * keys the two sets share (from none, where the counts add, to all, where the union is either
 * filter), so the count is read back from the result: the distinct keys that explain its fill
 * (the variant's keys_from_fill, Swamidass and Baldi 2007 for the classic layout), which the
 * FPR model then turns into the FPR the bit array has. When both counts are counts of inserts
 * (neither an estimate, nor 0 over set bits as after a Parquet import), the union holds at most
 * their sum: the estimate never exceeds it. A saturated array explains any count: the sum. */
static uint64_t union_keys(const fl_filter *dst, uint64_t dst_keys, uint64_t src_keys,
                           int sum_bounds) {
    uint64_t sum = dst_keys + src_keys < dst_keys ? UINT64_MAX : dst_keys + src_keys;
    fl_info occ = {0};
    dst->desc->occupancy(dst, &occ);
    double est = dst->desc->keys_from_fill
                     ? dst->desc->keys_from_fill(dst->desc, &dst->g, occ.fill)
                     : NAN;
    if (!isfinite(est) || est >= 0x1p63) return sum;
    uint64_t keys = (uint64_t)llround(est);
    return sum_bounds && keys > sum ? sum : keys;
}

fl_status fl_union(fl_filter *dst, const fl_filter *src) {
    if (!dst || !src) return FL_ERR_INVALID_ARG;
    if (!dst->desc->merge || !src->desc->merge) return FL_ERR_UNSUPPORTED;
    if (dst->g.variant != src->g.variant || dst->g.units != src->g.units ||
        dst->g.k != src->g.k || dst->hash != src->hash || dst->seed != src->seed)
        return FL_ERR_INCOMPATIBLE;
    /* A bit array OR'ed with itself is unchanged, and so is its exact count. (A counting
     * filter adds its counters to themselves, as it would a copy's: every key deletable
     * twice.) */
    if (dst == src && !dst->desc->info.counter_bits) return FL_OK;
    int dst_empty = payload_is_empty(dst), src_empty = payload_is_empty(src);
    uint64_t dst_keys = fl_count(dst), src_keys = fl_count(src);
    int src_estimated = src->keys_estimated;
    int sum_bounds = !dst->keys_estimated && !src_estimated && dst_keys && src_keys;
    fl_status s = dst->desc->merge(dst, src);
    if (s != FL_OK) return s;
    /* The merge added the counts; replace the sum with what is known (see union_keys). */
    if (src_empty) {
        dst->keys = dst_keys;
    } else if (dst_empty) {
        dst->keys = src_keys;
        dst->keys_estimated = src_estimated;
    } else {
        dst->keys = union_keys(dst, dst_keys, src_keys, sum_bounds);
        dst->keys_estimated = 1;
    }
    return FL_OK;
}

fl_status fl_filter_bind_kernel(fl_filter *f, const char *name) {
    if (!f) return FL_ERR_INVALID_ARG;
    return fl_kernel_bind(&f->bound, name);
}

const char *fl_filter_kernel(const fl_filter *f) {
    return f ? fl_kernel_table_name(fl_kernels_of(f)) : NULL;
}
