/*
 * Vector quotient filter suite (include/filterlab_vqf.h): per size, a filter sized for n keys
 * (fl_vqf_create) takes the keys fb_key_u64 of ids [0, n) and is measured as
 * family_keyed.h says (insert into the cleared filter, lookup per kernel and hit rate,
 * lookup_inline through fl_vqf_lookup_u64, delete). --sizes are key counts with --sizes-in
 * keys, else bytes (the keys a filter of that many bytes is sized for). Beside the common
 * fields every result carries blocks and load (n / slots), the space and accuracy
 * targets beside the speeds.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family_keyed.h"

/* The keys a size stands for (0: none). */
static uint64_t size_keys(const fb_options *o, uint64_t target) {
    if (o->sizes_in_keys) return target;
    uint64_t blocks = target / FL_VQF_BLOCK_BYTES;
    return (uint64_t)floor((double)blocks * FL_VQF_SLOTS * FL_VQF_SIZING_LOAD);
}

/* ---- the filter's calls as family_keyed.h's table ------------------------------------- */

FB_KEYED_CALLS(fl_vqf, fl_vqf)

static fl_status reset(void **obj, uint64_t n, uint64_t seed) {
    (void)n, (void)seed;
    return fl_vqf_clear(*obj);
}
static size_t bytes(const void *obj) {
    fl_vqf_info in;
    fl_vqf_info_get(obj, &in);
    return in.bytes;
}
static double fpr_expected(const void *obj) {
    fl_vqf_info in;
    fl_vqf_info_get(obj, &in);
    return in.fpr;
}
static void fields(fb_result *r, const void *obj) {
    fl_vqf_info in;
    fl_vqf_info_get(obj, &in);
    fb_result_int(r, "blocks", in.blocks);
    fb_result_num(r, "load", in.load);
}

static const fb_keyed_ops VQF = FB_KEYED_OPS("vqf", reset, bytes, fpr_expected, fields);

size_t fb_family_vqf_planned(const fb_options *o, const uint64_t *probed, size_t nprobed) {
    (void)probed, (void)nprobed;
    return fb_keyed_planned(o, size_keys);
}

void fb_family_vqf(fb_env *e) {
    const fb_options *o = e->o;
    uint64_t budget = fb_fam_budget(e);
    for (size_t si = 0; si < o->nsizes; si++) {
        uint64_t n = size_keys(o, o->sizes[si]);
        if (n == 0) {
            fb_warn(e->ctx, "vqf size %llu: no key fits; skipped", (unsigned long long)o->sizes[si]);
            continue;
        }
        uint32_t blocks = 0;
        fl_vqf *v = NULL;
        if (fl_vqf_blocks_for(n, &blocks) != FL_OK ||
            (uint64_t)blocks * FL_VQF_BLOCK_BYTES > budget || fl_vqf_create(n, o->seed, &v) != FL_OK) {
            fb_warn(e->ctx, "vqf %llu keys: too large for the memory budget; skipped",
                    (unsigned long long)n);
            continue;
        }
        char size[48];
        snprintf(size, sizeof size, "nkeys:%llu", (unsigned long long)n);
        void *obj = v;
        fb_keyed_run_size(e, &VQF, &obj, n, size);
        fl_vqf_free(obj);
    }
}
