/*
 * Measurement plumbing: the counter group a run reads, and a timed region (wall clock,
 * thread CPU time, TSC, every counter of the group) turned into per-item values of one
 * repetition of a result.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sweep.h"

/* One warning when no hardware counter can be read: which ones, why, and the way to get
 * (simulated) cache misses anyway. */
static void warn_no_counters(fb_env *e) {
    char which[512] = "", ver[128];
    for (int i = 0; i < e->perf.n; i++)
        snprintf(which + strlen(which), sizeof which - strlen(which), "%s%s", i ? ", " : "",
                 e->perf.keys[i]);
    int have_valgrind = fb_cg_valgrind_version(ver, sizeof ver) == 0;
    fb_warn(e->ctx,
            "hardware counters unavailable (%s): %s; their columns are left out of the table "
            "and are null in JSON. %s",
            which, e->perf.hw_reason,
            have_valgrind ? "--counters callgrind simulates instructions and cache misses "
                            "under valgrind (slow: use small --sizes)"
                          : "--counters callgrind would simulate instructions and cache "
                            "misses under valgrind (not installed: apt-get install valgrind)");
}

void fb_counters_setup(fb_env *e) {
    const fb_options *o = e->o;
    json_t *ctx = e->ctx;
    const char *backend = "none";
    e->info.missing_counter = "-";
    if (o->counters == FB_CNT_AUTO || o->counters == FB_CNT_PERF) {
        fb_perf_open(&e->perf, o->events);
        e->perf_on = e->perf.opened > 0;
        if (e->perf_on)
            backend = "perf"; /* the group opened (hardware, or software events only) */
        if (!e->perf.pmu_available && e->perf.hw_reason[0])
            warn_no_counters(e);
        else if (e->perf.note[0])
            fb_warn(ctx, "%s", e->perf.note);
        e->info.counter_warned = e->perf.note[0] != 0;
        if (!e->perf.pmu_available)
            e->info.missing_counter = "<not supported>";
        json_object_set_new(ctx, "counter_note", json_string(e->perf.note));
    } else {
        /* Keep the key set so every result lists the counters, as null. */
        fb_perf_open(&e->perf, NULL);
        fb_perf_close(&e->perf);
        e->perf_on = 0;
        e->perf.pmu_available = 0;
        backend = o->counters == FB_CNT_CALLGRIND ? "callgrind" : "none";
        json_object_set_new(ctx, "counter_note",
                            json_string(o->counters == FB_CNT_CALLGRIND
                                            ? "hardware counters not read: --counters callgrind "
                                              "reports simulated misses instead"
                                            : "hardware counters disabled (--counters none)"));
    }
    json_object_set_new(ctx, "pmu_available", json_boolean(e->perf.pmu_available));
    json_object_set_new(ctx, "counter_backend", json_string(backend));
    json_t *ev = json_array();
    for (int i = 0; i < e->perf.n; i++) {
        json_t *x = json_object();
        json_object_set_new(x, "name", json_string(e->perf.names[i]));
        json_object_set_new(x, "key", json_string(e->perf.keys[i]));
        json_object_set_new(x, "counted", json_boolean(e->perf_on && e->perf.fd[i] >= 0));
        json_array_append_new(ev, x);
    }
    json_object_set_new(ctx, "events", ev);
    for (int i = 0; i < e->perf.n && e->perf_on; i++)
        if (e->perf.fd[i] >= 0) {
            /* A bounded copy, not snprintf: gcc -O1 cannot tell the two members of *e apart
             * and warns that snprintf's source may overlap its destination (-Wrestrict). */
            char *dst = e->info.counted[e->info.ncounted++];
            size_t len = strnlen(e->perf.keys[i], sizeof e->info.counted[0] - 1);
            memcpy(dst, e->perf.keys[i], len);
            dst[len] = '\0';
        }
    e->info.tsc = FB_TSC_AVAILABLE;
    e->info.bound = o->probe_memory;
    e->info.fpr = !o->probe_only && (o->structures & FB_ST_FILTER);
    /* Kept in the context for readers of the JSON; the console gets it from fb_run_info. */
    json_object_set_new(ctx, "console_missing_counter", json_string(e->info.missing_counter));
}

void fb_meas_reset(fb_meas *m) { memset(m, 0, sizeof *m); }

void fb_meas_begin(fb_env *e, fb_meas *m) {
    if (e->perf_on)
        fb_perf_read(&e->perf, &m->p0);
    fb_stamp_begin(&m->t0);
}

void fb_meas_end(fb_env *e, fb_meas *m) {
    fb_stamp_end(&m->t1);
    if (e->perf_on)
        fb_perf_read(&e->perf, &m->p1);
    m->wall += m->t1.wall_ns - m->t0.wall_ns;
    m->cpu += m->t1.cpu_ns - m->t0.cpu_ns;
    m->tsc += (double)(m->t1.tsc - m->t0.tsc);
    if (e->perf_on) {
        for (int i = 0; i < e->perf.n; i++)
            m->ev[i] += fb_perf_delta(&e->perf, &m->p0, &m->p1, i); /* NaN sticks */
        if (m->p0.ok && m->p1.ok) {
            m->run_en += (double)(m->p1.enabled - m->p0.enabled);
            m->run_on += (double)(m->p1.running - m->p0.running);
        }
    }
}

/* Writes one repetition of a measurement into r as per-item values. */
void fb_meas_record(fb_env *e, fb_result *r, int rep, const fb_meas *m, double items) {
    char key[96];
    r->real_ns[rep] = m->wall / items;
    r->cpu_ns[rep] = m->cpu / items;
    snprintf(key, sizeof key, "tsc_cycles_per_%s", r->item);
    fb_result_series(r, key)[rep] = FB_TSC_AVAILABLE ? m->tsc / items : NAN;
    int ic = -1, ii = -1;
    for (int i = 0; i < e->perf.n; i++) {
        snprintf(key, sizeof key, "%s_per_%s", e->perf.keys[i], r->item);
        fb_result_series(r, key)[rep] = e->perf_on ? m->ev[i] / items : NAN;
        if (!strcmp(e->perf.keys[i], "cycles"))
            ic = i;
        if (!strcmp(e->perf.keys[i], "instructions"))
            ii = i;
    }
    if (ic >= 0 && ii >= 0)
        fb_result_series(r, "ipc")[rep] = e->perf_on ? m->ev[ii] / m->ev[ic] : NAN;
    fb_result_series(r, "counters_running_pct")[rep] =
        e->perf_on && m->run_en > 0 ? 100.0 * m->run_on / m->run_en : NAN;
}

/* Marks repetitions whose wall time exceeds CPU time by >20%: the thread was descheduled
 * (another process, a hypervisor) and the wall-clock number is inflated. */
void fb_note_preemption(fb_result *r, int rep) {
    if (r->real_ns[rep] > 1.2 * r->cpu_ns[rep]) {
        const fb_field *f = fb_result_field(r, "preempted_reps");
        fb_result_int(r, "preempted_reps", (f ? f->i : 0) + 1);
    } else if (!fb_result_field(r, "preempted_reps")) {
        fb_result_int(r, "preempted_reps", 0);
    }
}
