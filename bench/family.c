/*
 * The family suites: the structures beyond the filter sweep, each measured through its
 * public API with the object bound to each kernel (fl_sbf_bind_kernel, fl_cms_bind_kernel,
 * fl_hll_bind_kernel). This file drives them and holds what they share: result names and
 * fields, fresh keys, recording a timed repetition. One file per structure does the rest:
 *
 *   family_sbf.c   scalable Bloom: insert and batch lookup per chain length at equal size
 *   family_cms.c   Count-Min: batch update and query per size, the seeds' point, top-k update
 *   family_hll.c   HyperLogLog: batch add, estimate, merge per precision; read bandwidth
 *   family_static.c  binary fuse and Bloomier: build, batch and inline lookup
 *
 * Result names follow the filter sweep's, with the structure where the filter was:
 *
 *   <op>/<structure>/<kernel>/<size>[/<params>]/keys:u64
 *
 * and every result carries "structure" and "op" fields, "structure_bytes" (the footprint the
 * plots use as their x) and "kernel_used" (the table the object really ran: a structure with
 * no kernel for an ISA runs the next one down, e.g. HyperLogLog has no AVX2 kernel).
 * Keys are always u64 (--keys url applies to the filter sweep only).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"

fb_result *fb_fam_result(fb_env *e, const char *op, const char *structure, const char *item,
                         size_t ki, const char *size, const char *params, uint64_t items) {
    char name[224];
    snprintf(name, sizeof name, "%s/%s/%s/%s%s%s/keys:u64", op, structure, fb_kname(e, ki), size,
             params && *params ? "/" : "", params ? params : "");
    fb_result *r = fb_result_add(e->rs, FB_OP_FAMILY, name, e->o->reps, items);
    r->item = item;
    fb_result_str(r, "op", op);
    fb_result_str(r, "structure", structure);
    fb_result_str(r, "kernel", fb_kname(e, ki));
    fb_result_str(r, "keys_type", "u64");
    fb_result_int(r, "batch_keys", (int64_t)e->o->batch);
    return r;
}

void fb_fam_fresh_keys(uint64_t *keys, size_t n, uint64_t *cursor, uint64_t seed) {
    for (size_t i = 0; i < n; i++)
        keys[i] = fb_key_u64((*cursor)++, seed);
}

void fb_fam_record(fb_env *e, fb_result *r, int rep, const fb_meas *m, double items) {
    if (rep < 0 || items <= 0)
        return;
    fb_meas_record(e, r, rep, m, items);
    fb_note_preemption(r, rep);
    r->reps_done = rep + 1;
    fb_progress_tick();
}

size_t fb_family_planned(const fb_options *o, const uint64_t *probed, size_t nprobed) {
    if (o->probe_only)
        return 0;
    size_t n = 0;
    if (o->structures & FB_ST_SBF)
        n += fb_family_sbf_planned(o);
    if (o->structures & FB_ST_CMS)
        n += fb_family_cms_planned(o);
    if (o->structures & FB_ST_HLL)
        n += fb_family_hll_planned(o);
    if (o->structures & FB_ST_STATIC)
        n += fb_family_static_planned(o, probed, nprobed);
    return n;
}

uint64_t fb_fam_budget(const fb_env *e) {
    (void)e;
    uint64_t avail = fb_mem_available();
    return avail ? avail / 10 * 6 : UINT64_MAX;
}

void fb_family_run(fb_env *e) {
    const fb_options *o = e->o;
    unsigned fam = o->structures & (FB_ST_SBF | FB_ST_CMS | FB_ST_HLL | FB_ST_STATIC);
    if (!fam)
        return;
    if (o->keys == FB_KEYS_URL)
        fb_note(e->ctx, "family suites (sbf, cms, hll, static) use u64 keys; --keys url applies to "
                        "the filter sweep");
    fb_report_section(e);
    if (fam & FB_ST_SBF)
        fb_family_sbf(e);
    if (fam & FB_ST_CMS)
        fb_family_cms(e);
    if (fam & FB_ST_HLL)
        fb_family_hll(e);
    if (fam & FB_ST_STATIC)
        fb_family_static(e);
    fb_report_done(e);
}
