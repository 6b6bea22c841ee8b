/*
 * Growing cuckoo filter suite (include/filterlab_gcf.h): per size n, a filter created for
 * n / --gcf-growth keys (default 8: three doublings) takes the keys fb_key_u64 of ids
 * [0, n), growing as they come, and is measured as family_keyed.h says: insert (each
 * repetition into a filter made again at its first size, so the doublings are timed),
 * lookup per kernel and hit rate and lookup_inline (fl_gcf_lookup_u64) on the grown filter,
 * delete. --sizes are key counts with --sizes-in keys, else bytes (the keys a 16-bit cuckoo
 * filter of that many bytes holds at its sizing load, 17 bits per key). Beside the common
 * fields every result carries initial_keys, doublings, load and buckets.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family_keyed.h"

static uint64_t size_keys(const fb_options *o, uint64_t target) {
    if (o->sizes_in_keys) return target;
    return (uint64_t)floor((double)target * 8.0 / 17.0);
}

static uint64_t first_keys(uint64_t n, const fb_options *o) {
    uint64_t f = n / (o->gcf_growth ? o->gcf_growth : 1);
    return f ? f : 1;
}

/* ---- the filter's calls as family_keyed.h's table ------------------------------------- */

static uint32_t growth; /* --gcf-growth of the running suite */

static fl_status reset(void **obj, uint64_t n, uint64_t seed) {
    fl_gcf *g = NULL;
    uint64_t f = n / growth;
    fl_status st = fl_gcf_create(f ? f : 1, seed, &g);
    if (st != FL_OK) return st;
    fl_gcf_free(*obj);
    *obj = g;
    return FL_OK;
}
static fl_status insert_u64s(void *obj, const uint64_t *keys, size_t n) {
    return fl_gcf_insert_u64s(obj, keys, n, NULL);
}
static fl_status delete_u64s(void *obj, const uint64_t *keys, size_t n) {
    return fl_gcf_delete_u64s(obj, keys, n, NULL);
}
static size_t contains_u64s(const void *obj, const uint64_t *keys, size_t n, uint8_t *out) {
    size_t pos = 0;
    fl_gcf_contains_u64s(obj, keys, n, out, &pos);
    return pos;
}
static int contains_u64(const void *obj, uint64_t key) {
    return fl_gcf_contains_u64(obj, key);
}
static size_t inline_lookups(const void *obj, const uint64_t *keys, size_t n) {
    fl_gcf_lookup l = fl_gcf_lookup_of(obj);
    size_t pos = 0;
    for (size_t i = 0; i < n; i++) pos += (size_t)fl_gcf_lookup_u64(&l, keys[i]);
    return pos;
}
static fl_status bind(void *obj, const char *kernel) {
    return fl_gcf_bind_kernel(obj, kernel);
}
static const char *kernel(const void *obj) {
    return fl_gcf_kernel(obj);
}
static fl_gcf_info info_of(const void *obj) {
    fl_gcf_info in;
    fl_gcf_info_get(obj, &in);
    return in;
}
static size_t bytes(const void *obj) {
    return info_of(obj).bytes;
}
static double fpr_expected(const void *obj) {
    return info_of(obj).fpr;
}
static void fields(fb_result *r, const void *obj) {
    fl_gcf_info in = info_of(obj);
    fb_result_int(r, "growth", growth);
    fb_result_int(r, "doublings", in.doublings);
    fb_result_int(r, "buckets", (int64_t)in.buckets);
    fb_result_num(r, "load", in.load);
}

static const fb_keyed_ops GCF = {"gcf", reset, insert_u64s, delete_u64s, contains_u64s,
                                 contains_u64, inline_lookups, bind, kernel, bytes,
                                 fpr_expected, fields};

size_t fb_family_gcf_planned(const fb_options *o, const uint64_t *probed, size_t nprobed) {
    (void)probed, (void)nprobed;
    size_t n = 0;
    for (size_t si = 0; si < o->nsizes; si++)
        if (size_keys(o, o->sizes[si])) n += fb_keyed_planned_per_size(o);
    return n;
}

void fb_family_gcf(fb_env *e) {
    const fb_options *o = e->o;
    uint64_t budget = fb_fam_budget(e);
    growth = o->gcf_growth ? o->gcf_growth : 1;
    for (size_t si = 0; si < o->nsizes; si++) {
        uint64_t n = size_keys(o, o->sizes[si]);
        fl_gcf *g = NULL;
        /* the grown table: about 16 bits per slot at a load from 0.45 to 0.9 */
        if (n == 0 || (double)n * 2.0 * 16.0 / 8.0 / 0.9 > (double)budget ||
            fl_gcf_create(first_keys(n, o), o->seed, &g) != FL_OK) {
            fb_warn(e->ctx, "gcf %llu keys: none, or too large for the memory budget; skipped",
                    (unsigned long long)n);
            continue;
        }
        char size[48];
        snprintf(size, sizeof size, "nkeys:%llu", (unsigned long long)n);
        void *obj = g;
        fb_keyed_run_size(e, &GCF, &obj, n, size);
        fl_gcf_free(obj);
    }
}
