/*
 * The console: a short context header, then one row per configuration as it completes.
 * Medians over repetitions; cv is stddev/mean. Only the columns the run can fill are shown
 * (cols[] below): a hardware counter's column only when its event opened; a cell of such a
 * column without a value prints `<not supported>`, never 0.
 *
 * A listener of the sweep (fb_console_listener): it reads the context and the results it is
 * handed, and keeps its own state in an fb_console.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flbench.h"

static void choose_columns(fb_console *con, const fb_run_info *info);

static void console_begin(void *arg, json_t *ctx, const fb_run_info *info) {
    fb_console *con = arg;
    FILE *out = con->out;
    con->missing = info->missing_counter ? info->missing_counter : "-";
    con->simulated = info->simulated;
    choose_columns(con, info);
    if (con->clears_progress)
        fb_progress_clear();
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
    if (note && *note && !info->counter_warned) /* else among the warnings */
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
        if (!con->warned_here) /* else fb_warn showed it on this very file already */
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

/* The table's columns after the name. A column is printed only when the run can give it a
 * value (fb_run_info): a machine without a PMU gets no hardware columns at all rather than a
 * wall of "<not supported>" (the warning says why once; JSON keeps the keys, as null). */
enum { C_NS, C_CV, C_MIN, C_TSC, C_CYCLES, C_IPC, C_L1D, C_LLC, C_DTLB, C_BR, C_BOUND, C_FPR,
       C_SIM_D1, C_SIM_LL, C_N };
static const struct {
    const char *title;
    int width;
    const char *counter; /* the per-item counter stem it shows, if a hardware counter */
} cols[C_N] = {
    [C_NS] = {"ns/op", 9, NULL},          [C_CV] = {"cv%", 6, NULL},
    [C_MIN] = {"min ns", 9, NULL},        [C_TSC] = {"TSC cyc", 8, NULL},
    [C_CYCLES] = {"cycles", 15, "cycles"}, [C_IPC] = {"IPC", 15, NULL},
    [C_L1D] = {"L1D miss", 15, "l1d_load_misses"}, [C_LLC] = {"LLC miss", 15, "llc_load_misses"},
    [C_DTLB] = {"dTLB miss", 15, "dtlb_load_misses"}, [C_BR] = {"br miss", 15, "branch_misses"},
    [C_BOUND] = {"x bound", 8, NULL},     [C_FPR] = {"FPR", 10, NULL},
    [C_SIM_D1] = {"sim D1 miss", 12, NULL}, [C_SIM_LL] = {"sim LL miss", 12, NULL},
};

_Static_assert(C_N <= FB_CONSOLE_COLS, "fb_console.show is too small for the columns");

static int counted(const fb_run_info *info, const char *key) {
    for (int i = 0; i < info->ncounted; i++)
        if (!strcmp(info->counted[i], key))
            return 1;
    return 0;
}

static void choose_columns(fb_console *con, const fb_run_info *info) {
    for (int c = 0; c < C_N; c++)
        con->show[c] = 1;
    con->show[C_TSC] = info->tsc;
    for (int c = C_CYCLES; c <= C_BR; c++)
        con->show[c] = c == C_IPC ? counted(info, "cycles") && counted(info, "instructions")
                                  : counted(info, cols[c].counter);
    con->show[C_BOUND] = info->bound;
    con->show[C_FPR] = info->fpr;
    con->show[C_SIM_D1] = con->show[C_SIM_LL] = info->simulated;
}

static void header(fb_console *con) {
    FILE *out = con->out;
    fprintf(out, "\n%-60s", "benchmark (ns and counters per op: lookup, inserted key, probe load/line)");
    for (int c = 0; c < C_N; c++)
        if (con->show[c])
            fprintf(out, " %*s", cols[c].width, cols[c].title);
    fputc('\n', out);
}

/* A cell: the value, or `missing` when there is none. */
static void cell(FILE *out, const char *missing, double v, int width, int prec) {
    if (isfinite(v))
        fprintf(out, " %*.*f", width, prec, v);
    else
        fprintf(out, " %*s", width, missing);
}

static void console_result(void *arg, const fb_result *r) {
    fb_console *con = arg;
    FILE *out = con->out;
    if (r->reps_done <= 0)
        return;
    if (con->clears_progress)
        fb_progress_clear();
    if (con->header_due) {
        header(con);
        con->header_due = 0;
    }
    char k[96];
    fb_stats st = fb_stats_of(r->real_ns, (size_t)r->reps_done);
    fprintf(out, "%-60s", r->name);
    for (int c = 0; c < C_N; c++) {
        if (!con->show[c])
            continue;
        int w = cols[c].width;
        switch (c) {
        case C_NS: cell(out, "-", st.median, w, st.median < 100 ? 3 : 1); break;
        case C_CV: {
            /* '!' marks a result where some repetition ran >20% longer in wall time than on
             * the CPU (the thread was descheduled): the min is then the better estimate. */
            const fb_field *pre = fb_result_field(r, "preempted_reps");
            if (isfinite(st.cv))
                fprintf(out, " %5.1f%c", st.cv * 100, pre && pre->i > 0 ? '!' : ' ');
            else
                fprintf(out, " %*s", w, "-");
            break;
        }
        case C_MIN: cell(out, "-", st.min, w, st.min < 100 ? 3 : 1); break;
        case C_TSC:
            snprintf(k, sizeof k, "tsc_cycles_per_%s", r->item);
            cell(out, "-", med(r, k), w, 2);
            break;
        case C_IPC: cell(out, con->missing, med(r, "ipc"), w, 3); break;
        case C_CYCLES: case C_L1D: case C_LLC: case C_DTLB: case C_BR:
            snprintf(k, sizeof k, "%s_per_%s", cols[c].counter, r->item);
            cell(out, con->missing, med(r, k), w, 3);
            break;
        case C_BOUND: cell(out, "-", med(r, "ratio_to_bound"), w, 2); break;
        case C_FPR: {
            double fpr = r->op == FB_OP_LOOKUP ? field(r, "fpr_measured") : NAN;
            if (isfinite(fpr))
                fprintf(out, " %*.3e", w, fpr);
            else
                fprintf(out, " %*s", w, "-");
            break;
        }
        case C_SIM_D1: cell(out, "-", field(r, "sim_d1_misses_per_lookup"), w, 3); break;
        case C_SIM_LL: cell(out, "-", field(r, "sim_ll_misses_per_lookup"), w, 3); break;
        }
    }
    fputc('\n', out);
    fflush(out);
}

/* Do two streams reach the same file (both on one terminal, or "> log 2>&1")? Then a warning
 * already printed on stderr is not printed again in the table's header. */
static int same_file(FILE *a, FILE *b) {
    struct stat sa, sb;
    return fstat(fileno(a), &sa) == 0 && fstat(fileno(b), &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

void fb_console_init(fb_console *c, FILE *out) {
    memset(c, 0, sizeof *c);
    c->out = out;
    c->warned_here = same_file(out, stderr);
    c->clears_progress = out == stderr || isatty(fileno(out));
    c->missing = "-";
    c->header_due = 1;
}

fb_listener fb_console_listener(fb_console *c) {
    fb_listener l = {c, console_begin, console_section, console_result};
    return l;
}
