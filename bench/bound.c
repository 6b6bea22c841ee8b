/*
 * The physical bound at each filter footprint: dependent-load latency (pointer chasing) and
 * the time per random line with software prefetch (probe_memory.c), measured before any
 * filter is built, while memory is free. Every lookup result then carries its ratio to the
 * random-line bound at its own footprint.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "sweep.h"

void fb_probe_footprint(fb_env *e, uint64_t bytes) {
    const fb_options *o = e->o;
    fb_probe_buf b;
    if (fb_probe_alloc(&b, bytes, o->huge_pages) != 0) {
        fb_warn(e->ctx, "probe: cannot map %llu bytes", (unsigned long long)bytes);
        return;
    }
    fb_rng rng = {o->seed ^ bytes};
    fb_probe_chain(&b, &rng);
    uint64_t loads = o->lookups;
    char name[128];
    snprintf(name, sizeof name, "probe/latency/bytes:%llu", (unsigned long long)bytes);
    fb_result *lat = fb_result_add(e->rs, FB_OP_PROBE_LATENCY, name, o->reps, loads);
    snprintf(name, sizeof name, "probe/random_line/bytes:%llu", (unsigned long long)bytes);
    fb_result *lines = fb_result_add(e->rs, FB_OP_PROBE_LINES, name, o->reps, loads);
    fb_result *both[2] = {lat, lines};
    for (int i = 0; i < 2; i++) {
        fb_result_str(both[i], "op", i ? "probe_random_line" : "probe_latency");
        fb_result_int(both[i], "footprint_bytes", (int64_t)b.bytes);
        fb_result_int(both[i], "huge_pages", b.huge);
        if (i)
            fb_result_int(both[i], "prefetch_distance_lines", o->probe_distance);
    }
    volatile uint64_t sink = 0;
    sink += fb_probe_chase(&b, loads < b.bytes / 64 ? b.bytes / 64 : loads); /* warm */
    for (int rep = 0; rep < o->reps; rep++) {
        fb_meas m;
        fb_meas_reset(&m);
        fb_meas_begin(e, &m);
        sink += fb_probe_chase(&b, loads);
        fb_meas_end(e, &m);
        fb_meas_record(e, lat, rep, &m, (double)loads);
        fb_note_preemption(lat, rep);
        lat->reps_done = rep + 1;
    }
    uint64_t nidx = loads + (uint64_t)o->probe_distance + 16;
    uint32_t *idx = malloc(nidx * sizeof *idx);
    if (idx) {
        for (int rep = -1; rep < o->reps; rep++) {
            for (uint64_t i = 0; i < nidx; i++)
                idx[i] = (uint32_t)fb_rng_next(&rng);
            fb_meas m;
            fb_meas_reset(&m);
            fb_meas_begin(e, &m);
            sink += fb_probe_lines(&b, idx, loads, o->probe_distance);
            fb_meas_end(e, &m);
            if (rep >= 0) {
                fb_meas_record(e, lines, rep, &m, (double)loads);
                fb_note_preemption(lines, rep);
                lines->reps_done = rep + 1;
            }
        }
        free(idx);
    }
    (void)sink;
    fb_probe_free(&b);
    if (e->nbound < sizeof e->bound_bytes / sizeof e->bound_bytes[0]) {
        e->bound_bytes[e->nbound] = bytes;
        /* A bound is a best case: the fastest repetition. */
        e->bound_ns[e->nbound] = fb_stats_of(lines->real_ns, (size_t)lines->reps).min;
        e->latency_ns[e->nbound] = fb_stats_of(lat->real_ns, (size_t)lat->reps).min;
        e->nbound++;
    }
}

double fb_bound_ns(const fb_env *e, uint64_t bytes) {
    for (size_t j = 0; j < e->nbound; j++)
        if (e->bound_bytes[j] == bytes)
            return e->bound_ns[j];
    return NAN;
}

void fb_attach_bounds(fb_env *e) {
    for (size_t i = 0; i < e->rs->n; i++) {
        fb_result *r = e->rs->v[i];
        if (r->op != FB_OP_LOOKUP)
            continue;
        const fb_field *fb = fb_result_field(r, "filter_bytes");
        double bound = NAN, lat = NAN;
        for (size_t j = 0; fb && j < e->nbound; j++)
            if ((int64_t)e->bound_bytes[j] == fb->i) {
                bound = e->bound_ns[j];
                lat = e->latency_ns[j];
            }
        fb_result_num(r, "bound_ns_per_line", bound);
        fb_result_num(r, "latency_ns_per_load", lat);
        double *ratio = fb_result_series(r, "ratio_to_bound"); /* NaN when no probe ran */
        for (int k = 0; k < r->reps; k++)
            ratio[k] = r->real_ns[k] / bound;
    }
}
