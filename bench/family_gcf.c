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

FB_KEYED_CALLS(fl_gcf, fl_gcf)

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

static const fb_keyed_ops GCF = FB_KEYED_OPS("gcf", reset, bytes, fpr_expected, fields);

size_t fb_family_gcf_planned(const fb_options *o, const uint64_t *probed, size_t nprobed) {
    (void)probed, (void)nprobed;
    return fb_keyed_planned(o, size_keys);
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
