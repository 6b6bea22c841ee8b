/*
 * What the family suites (family_*.c) share: result names and fields, fresh keys, recording
 * a timed repetition, the memory budget. Below the suites: it calls none of them (family.c
 * dispatches them).
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

uint64_t fb_fam_budget(const fb_env *e) {
    (void)e;
    uint64_t avail = fb_mem_available();
    return avail ? avail / 10 * 6 : UINT64_MAX;
}
