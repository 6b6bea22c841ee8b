/*
 * flbench: the top level. Options (options.c) -> machine and context (context.c) -> the
 * sweep (run.c), whose results the reporters write. See --help, and flbench.h for the file
 * map.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flbench.h"

static void list_and_exit(const fb_machine *m, fb_options *o) {
    printf("filters:");
    for (int v = FL_VARIANT_MIN; v <= FL_VARIANT_MAX; v++)
        printf(" %s", fl_variant_name((fl_variant)v));
    printf("\nkernels (active: %s, %s):\n", fl_kernel_active(), fl_kernel_reason());
    for (size_t i = 0; i < fl_kernel_count(); i++) {
        fl_kernel_desc d;
        if (fl_kernel_describe(i, &d) == FL_OK)
            printf("  %-8s %s%s  requires %s\n", d.name, d.supported ? "supported" : "unsupported",
                   d.emulated ? " (emulated)" : "", d.requires ? d.requires : "-");
    }
    printf("caches:\n");
    char b[32];
    for (int i = 0; i < m->ncaches; i++)
        printf("  L%d %-11s %8s %2d-way %d B lines\n", m->caches[i].level, m->caches[i].type,
               fb_fmt_bytes(m->caches[i].size, b, sizeof b), m->caches[i].ways,
               m->caches[i].line);
    fb_default_sizes(o, m);
    printf("default sweep (bytes):");
    for (size_t i = 0; i < o->nsizes; i++)
        printf(" %s", fb_fmt_bytes(o->sizes[i], b, sizeof b));
    printf("\n");
    exit(0);
}

int main(int argc, char **argv) {
    fb_options o;
    fb_cli cli;
    fb_options_parse(&o, &cli, argc, argv);
    fb_machine m;
    fb_machine_read(&m);
    if (cli.list)
        list_and_exit(&m, &o);
    fb_options_sizes(&o, &cli, &m);
    if (o.plan_only) {
        int prc = fb_print_plan(&o);
        free(o.sizes);
        return prc ? 2 : 0;
    }

    if (o.cg_child)
        return fb_cg_child_main(&o);
    /* Every output path before anything is measured: a run can take many minutes. */
    if ((o.json_path && fb_output_check("--json", o.json_path)) ||
        (o.csv_path && fb_output_check("--csv", o.csv_path))) {
        free(o.sizes);
        return 2;
    }
    fb_progress_init(o.quiet);
    o.console = (o.json_path && !strcmp(o.json_path, "-")) || (o.csv_path && !strcmp(o.csv_path, "-"))
                    ? stderr
                    : stdout;

    if (o.pin_cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(o.pin_cpu, &set);
        if (sched_setaffinity(0, sizeof set, &set) != 0) {
            /* The value is what is wrong (a CPU this process may not run on): a usage error. */
            fprintf(stderr, "flbench: --pin %d: cannot run on that CPU: %s (see 'flbench --list')\n",
                    o.pin_cpu, strerror(errno));
            return 1;
        }
    }
    fb_tsc_info tsc;
    fb_tsc_calibrate(&tsc);
    json_t *ctx = fb_context_build(&o, &m, &tsc);
    if (o.pin_cpu < 0)
        fb_note(ctx, "not pinned (--pin CPU pins the process)");
    double la[1];
    if (getloadavg(la, 1) == 1 && m.ncpus > 0 && la[0] > 0.5 * m.ncpus)
        fb_warn(ctx, "system busy: load average %.2f on %d CPUs; expect noisy timings "
                     "(results mark descheduled repetitions with preempted_reps)", la[0], m.ncpus);

    fb_results rs;
    memset(&rs, 0, sizeof rs);
    fb_console con;
    fb_console_init(&con, o.console);
    fb_listener table = fb_console_listener(&con);
    int rc = fb_run(&o, &m, ctx, &rs, &table);
    fb_progress_clear();
    if (rc == 0 && o.json_path && fb_report_json(o.json_path, ctx, &rs))
        rc = 2;
    if (rc == 0 && o.csv_path && fb_report_csv(o.csv_path, &rs))
        rc = 2;
    if (rc == 0 && (o.json_path || o.csv_path) && !o.quiet)
        fprintf(stderr, "flbench: wrote%s%s%s%s\n", o.json_path ? " " : "",
                o.json_path ? o.json_path : "", o.csv_path ? " " : "", o.csv_path ? o.csv_path : "");
    fb_results_free(&rs);
    json_decref(ctx);
    free(o.sizes);
    return rc;
}
