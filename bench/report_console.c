/*
 * The console: a short context header, then one row per configuration as it completes.
 * Medians over repetitions; cv is stddev/mean. A hardware counter that cannot be read
 * prints `<not supported>` (no PMU or not permitted) or `-` (not requested), never 0.
 *
 * A listener of the sweep (fb_console_listener): it reads the context and the results it is
 * handed, and keeps its own state in an fb_console.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "flbench.h"

static void console_begin(void *arg, json_t *ctx, const fb_run_info *info) {
    fb_console *con = arg;
    FILE *out = con->out;
    con->missing = info->missing_counter ? info->missing_counter : "-";
    con->simulated = info->simulated;
    json_t *cpu = json_object_get(ctx, "cpu");
    fprintf(out, "flbench %s  (filterlab %s, git %s, %s build)\n",
            json_string_value(json_object_get(ctx, "date")),
            json_string_value(json_object_get(ctx, "filterlab_version")),
            json_string_value(json_object_get(ctx, "git_commit")),
            json_string_value(json_object_get(ctx, "library_build_type")));
    fprintf(out, "cpu      %s, %lld cpus",
            cpu && json_is_string(json_object_get(cpu, "model"))
                ? json_string_value(json_object_get(cpu, "model"))
                : "unknown",
            (long long)json_integer_value(json_object_get(ctx, "num_cpus")));
    json_t *tsc = json_object_get(ctx, "tsc");
    if (tsc && json_is_real(json_object_get(tsc, "hz")))
        fprintf(out, ", TSC %.3f GHz (measured)", json_real_value(json_object_get(tsc, "hz")) / 1e9);
    fputc('\n', out);
    fprintf(out, "caches  ");
    json_t *caches = json_object_get(ctx, "caches");
    size_t i;
    json_t *c;
    json_array_foreach(caches, i, c) {
        long long sz = (long long)json_integer_value(json_object_get(c, "size"));
        char b[32];
        fprintf(out, " L%lld%s %s", (long long)json_integer_value(json_object_get(c, "level")),
                !strcmp(json_string_value(json_object_get(c, "type")), "Data")          ? "d"
                : !strcmp(json_string_value(json_object_get(c, "type")), "Instruction") ? "i"
                                                                                       : "",
                fb_fmt_bytes((uint64_t)sz, b, sizeof b));
    }
    fputc('\n', out);
    fprintf(out, "kernel   %s (%s)\n", json_string_value(json_object_get(ctx, "selected_kernel")),
            json_string_value(json_object_get(ctx, "selected_kernel_reason")));
    json_t *thp = json_object_get(ctx, "thp");
    fprintf(out, "memory   THP %s, huge pages %s\n",
            thp && json_is_string(json_object_get(thp, "enabled"))
                ? json_string_value(json_object_get(thp, "enabled"))
                : "unknown",
            json_string_value(json_object_get(ctx, "huge_pages")));
    fprintf(out, "counters %s (pmu_available=%s, perf_event_paranoid=%lld)",
            json_string_value(json_object_get(ctx, "counter_backend")),
            json_is_true(json_object_get(ctx, "pmu_available")) ? "true" : "false",
            (long long)json_integer_value(json_object_get(ctx, "perf_event_paranoid")));
    const char *note = json_string_value(json_object_get(ctx, "counter_note"));
    if (note && *note)
        fprintf(out, "\n         note: %s", note);
    fputc('\n', out);
    json_t *cg = json_object_get(ctx, "callgrind");
    if (cg && con->simulated) {
        fprintf(out, "callgrind simulated D1=%s LL=%s (%s)%s%s\n",
                json_string_value(json_object_get(cg, "D1")),
                json_string_value(json_object_get(cg, "LL")),
                json_string_value(json_object_get(cg, "geometry_source")),
                *json_string_value(json_object_get(cg, "geometry_note")) ? "; " : "",
                json_string_value(json_object_get(cg, "geometry_note")));
    }
    json_t *w;
    json_array_foreach(json_object_get(ctx, "warnings"), i, w)
        fprintf(out, "warning  %s\n", json_string_value(w));
    fflush(out);
}

static void console_section(void *arg) {
    fb_console *con = arg;
    con->header_due = 1;
}

static double med(const fb_result *r, const char *key) {
    const double *v = fb_result_find_series(r, key);
    return v ? fb_stats_of(v, (size_t)r->reps_done).median : NAN;
}

static double field(const fb_result *r, const char *key) {
    const fb_field *f = fb_result_field(r, key);
    return f && (f->type == FB_F_NUM || f->type == FB_F_INT) ? f->num : NAN;
}

/* A counter cell: the value or the reason it is missing. */
static void cell(FILE *out, const char *missing, double v, int width, int prec) {
    if (isfinite(v))
        fprintf(out, " %*.*f", width, prec, v);
    else
        fprintf(out, " %*s", width, missing);
}

static void plain(FILE *out, double v, int width, int prec) {
    if (isfinite(v))
        fprintf(out, " %*.*f", width, prec, v);
    else
        fprintf(out, " %*s", width, "-");
}

static void header(FILE *out, int sim_columns) {
    fprintf(out, "\n%-60s %9s %6s %9s %8s %15s %15s %15s %15s %15s %15s %8s %10s",
            "benchmark (ns and counters per op: lookup, inserted key, probe load/line)",
            "ns/op", "cv%", "min ns", "TSC cyc", "cycles", "IPC", "L1D miss", "LLC miss",
            "dTLB miss", "br miss", "x bound", "FPR");
    if (sim_columns)
        fprintf(out, " %12s %12s", "sim D1 miss", "sim LL miss");
    fputc('\n', out);
}

static void console_result(void *arg, const fb_result *r) {
    fb_console *con = arg;
    FILE *out = con->out;
    if (r->reps_done <= 0)
        return;
    if (con->header_due) {
        header(out, con->simulated);
        con->header_due = 0;
    }
    char k[96];
    fb_stats st = fb_stats_of(r->real_ns, (size_t)r->reps_done);
    fprintf(out, "%-60s", r->name);
    plain(out, st.median, 9, st.median < 100 ? 3 : 1);
    /* '!' marks a result where some repetition ran >20% longer in wall time than on the CPU
     * (the thread was descheduled): the min is then the better estimate. */
    const fb_field *pre = fb_result_field(r, "preempted_reps");
    if (isfinite(st.cv))
        fprintf(out, " %5.1f%c", st.cv * 100, pre && pre->i > 0 ? '!' : ' ');
    else
        fprintf(out, " %6s", "-");
    plain(out, st.min, 9, st.min < 100 ? 3 : 1);
    snprintf(k, sizeof k, "tsc_cycles_per_%s", r->item);
    plain(out, med(r, k), 8, 2);
    static const char *hw[] = {"cycles", "ipc", "l1d_load_misses", "llc_load_misses",
                               "dtlb_load_misses", "branch_misses"};
    for (size_t i = 0; i < sizeof hw / sizeof hw[0]; i++) {
        if (!strcmp(hw[i], "ipc"))
            snprintf(k, sizeof k, "ipc");
        else
            snprintf(k, sizeof k, "%s_per_%s", hw[i], r->item);
        cell(out, con->missing, med(r, k), 15, 3);
    }
    plain(out, med(r, "ratio_to_bound"), 8, 2);
    double fpr = r->op == FB_OP_LOOKUP ? field(r, "fpr_measured") : NAN;
    if (isfinite(fpr))
        fprintf(out, " %10.3e", fpr);
    else
        fprintf(out, " %10s", "-");
    if (con->simulated) {
        plain(out, field(r, "sim_d1_misses_per_lookup"), 12, 3);
        plain(out, field(r, "sim_ll_misses_per_lookup"), 12, 3);
    }
    fputc('\n', out);
    fflush(out);
}

void fb_console_init(fb_console *c, FILE *out) {
    memset(c, 0, sizeof *c);
    c->out = out;
    c->missing = "-";
    c->header_due = 1;
}

fb_listener fb_console_listener(fb_console *c) {
    fb_listener l = {c, console_begin, console_section, console_result};
    return l;
}
