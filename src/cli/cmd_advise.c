/*
 * filterlab advise: which variant and lookup kernel to use for N keys at FPR P on this
 * machine, from the benchmark results scripts/reproduce wrote (results/<host-id>/advise.csv).
 * This file is the command: options, and the answer printed. The pick is the fastest
 * (variant, kernel) this CPU runs natively; the runner-up is the fastest of another variant.
 * Reading the results is advise_results.c; sizing and the expected times, advise_model.c.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise.h"

static const char *const CMD = "advise";

#define MAX_ROWS 8192

static void help(void)
{
    cli_outf(
        "Usage: filterlab advise --n N --fpr P [--results DIR] [--hit-rate H] [--static]\n"
        "\n"
        "Name the filter variant and lookup kernel that are fastest on this machine for N\n"
        "keys at a false positive rate of at most P, with the memory it takes and the\n"
        "expected time per lookup, and the runner-up. Sizes come from the library\n"
        "(fl_params_for); times come from this machine's benchmark results, written by\n"
        "scripts/reproduce as DIR/<host-id>/advise.csv.\n"
        "\n"
        "Options:\n");
    cli_help_options();
    cli_outf(
        "\n"
        "Without result files it prints how to produce them and exits with status 2.\n");
}

static void print_sizing_only(uint64_t n, double fpr)
{
    cli_outf("\nMeanwhile, the library's sizing for n = %llu at FPR <= %g (no timings):\n",
             (unsigned long long)n, fpr);
    for (int v = FL_VARIANT_MIN; v <= FL_VARIANT_MAX; v++) {
        fl_params p;
        char hb[32];
        if (fl_params_for((fl_variant)v, n, fpr, &p) != FL_OK)
            continue;
        cli_human_bytes(p.bytes, hb, sizeof hb);
        cli_outf("  %-9s %10s  %6.2f bits/key\n", fl_variant_name((fl_variant)v), hb, p.bits_per_key);
    }
}

/* --static: the binary fuse filter of the fewest bytes that meets fpr (3-wise: 4-wise saves
 * ~4% more space but its probes read four cells), against the dynamic pick. */
static void print_static_option(uint64_t n, double fpr, const advise_cand *pick)
{
    uint32_t bits = fpr >= 1.0 / 256 ? 8 : fpr >= 1.0 / 65536 ? 16 : 0;
    cli_outf("\nstatic (--static: the set never changes after the build):\n");
    if (!bits) {
        cli_outf("  no binary fuse filter reaches FPR %g (16-bit fingerprints give 2^-16 = %.3g)\n",
                 fpr, 1.0 / 65536);
        return;
    }
    for (uint32_t arity = 3; arity <= 4; arity++) {
        size_t bytes = 0;
        if (fl_fuse_bytes_for(arity, bits, n, &bytes) != FL_OK)
            continue;
        char hb[32];
        cli_human_bytes(bytes, hb, sizeof hb);
        cli_outf("  %s binary fuse %u-wise, %u-bit: %s (%.2f bits/key, FPR %.3g), %.0f%% of the pick's size\n",
                 arity == 3 ? "pick     " : "smallest ", arity, bits, hb,
                 n ? (double)bytes * 8 / (double)n : 0.0, 1.0 / (double)(1u << bits),
                 pick->p.bytes ? 100.0 * (double)bytes / (double)pick->p.bytes : 0.0);
    }
    cli_outf("  use it:    filterlab build-static --type fuse --bits %u ...\n"
             "  (lookup times: scripts/bench-static, results/<host-id>/static/flbench/)\n",
             bits);
}

/* --hit-rate H: a fraction in [0, 1]. */
static int parse_hit_rate(const char *cmd, const char *opt, const char *value, void *dest)
{
    (void)opt;
    char *end;
    double hit = strtod(value, &end);
    if (end == value || *end || !(hit >= 0 && hit <= 1))
        return cli_usage_error(cmd, "--hit-rate must be a number in [0, 1], not '%s'", value), -1;
    *(double *)dest = hit;
    return 0;
}

int cmd_advise(int argc, char **argv, const cli_globals *g)
{
    (void)g;
    cli_n_fpr size = {0};
    double hit = 0.5;
    int allow_static = 0;
    const char *dir = "results";
    const cli_opt opts[] = {
        CLI_OPTS_N_FPR(&size, "number of keys (1e6 style is accepted)",
                       "largest acceptable false positive rate, 0 < P < 1"),
        {"results", 0, CLI_ARG_STRING, &dir, NULL, NULL, "--results DIR",
         "a results folder: DIR/advise.csv, or DIR/*/advise.csv where the\n"
         "one whose CPU matches this machine is used (default: results)"},
        {"hit-rate", 0, CLI_ARG_CUSTOM, &hit, NULL, parse_hit_rate, "--hit-rate H",
         "fraction of lookups whose key is present (default 0.5; the nearest measured hit "
         "rate is used)"},
        {"static", 0, CLI_ARG_NONE, &allow_static, NULL, NULL, "--static",
         "the key set does not change after it is built: also offer a\n"
         "static filter (binary fuse, 'filterlab build-static'), which\n"
         "cannot take keys later but needs ~1.13 x log2(1/FPR) bits\n"
         "per key"},
    };
    int rc = cli_parse_n_fpr(CMD, argc, argv, opts, CLI_NOPTS(opts), help, &size);
    if (rc >= 0)
        return rc;
    const uint64_t n = size.n;
    const double fpr = size.fpr;

    /* This CPU's signature: the same string scripts/repro/hostinfo.py writes into
     * advise.csv, since both come from fl_host_describe. */
    static fl_host self;
    fl_host_describe(&self);
    const char *sig = self.signature;
    advise_host h;
    memset(&h, 0, sizeof h);
    int foreign = 0;
    int found = advise_find_results(dir, sig, &h, &foreign);
    if (found != 0) {
        if (found == 1) { /* nothing at all: say how to produce it */
            cli_outf("No benchmark results for this machine in '%s' (looked for %s/advise.csv and\n"
                     "%s/<host-id>/advise.csv).\n"
                     "\n"
                     "Produce them on this machine (under 10 minutes on a 2-vCPU VM):\n"
                     "  scripts/reproduce --quick\n"
                     "which writes results/<host-id>/advise.csv (and REPORT.md); then run:\n"
                     "  filterlab advise --n %llu --fpr %g --results results\n",
                     dir, dir, dir, (unsigned long long)n, fpr);
            print_sizing_only(n, fpr);
            return cli_fail(EXIT_DATA, "advise: no results (advise.csv) under '%s'", dir);
        }
        return EXIT_DATA;
    }

    static advise_row rows[MAX_ROWS];
    long nr = advise_read_rows(h.path, rows, MAX_ROWS);
    if (nr < 0)
        return EXIT_DATA;
    if (nr == 0)
        return cli_fail(EXIT_DATA, "advise: %s has no measurements", h.path);

    advise_cand cands[64];
    char unreachable[512];
    int nc = advise_candidates(rows, nr, n, fpr, hit, cands, 64, unreachable, sizeof unreachable);
    if (nc == 0)
        return cli_fail(EXIT_DATA, "advise: %s has no measurement this CPU can use", h.path);
    const advise_cand *first = &cands[0], *second = NULL;
    for (int i = 1; i < nc && !second; i++)
        if (cands[i].v != first->v)
            second = &cands[i];

    char hb[32], l2[32], llc[32];
    cli_outf("filterlab advise: n = %llu keys, FPR <= %g, hit rate %g\n", (unsigned long long)n, fpr, hit);
    cli_outf("results: %s (%s, %s, commit %.12s, %s run)\n", h.path, h.host_id, h.date, h.commit,
             h.mode[0] ? h.mode : "?");
    if (foreign)
        cli_outf("warning: these results are from another CPU (%s; this one is %s): run\n"
                 "         scripts/reproduce --quick here for advice that fits this machine\n",
                 h.signature, sig);
    cli_human_bytes((uint64_t)h.l2, l2, sizeof l2);
    cli_human_bytes((uint64_t)h.llc, llc, sizeof llc);
    cli_human_bytes(first->p.bytes, hb, sizeof hb);
    const char *cls = advise_size_class(&h, (double)first->p.bytes);
    cli_outf("size class: %s (a %s filter; L2 %s, last-level cache %s)\n", cls, hb, l2, llc);
    if (h.memory_like > 0 && (double)first->p.bytes >= h.memory_like && strcmp(cls, "DRAM") != 0) {
        char ml[32];
        cli_human_bytes((uint64_t)h.memory_like, ml, sizeof ml);
        cli_outf("            but memory latency measured here is DRAM-like from %s on: expect DRAM behaviour\n", ml);
    }
    cli_outf("\n");

    const advise_cand *show[2] = {first, second};
    const char *label[2] = {"pick", "runner-up"};
    for (int i = 0; i < 2; i++) {
        const advise_cand *cd = show[i];
        if (!cd)
            continue;
        cli_human_bytes(cd->p.bytes, hb, sizeof hb);
        cli_outf("%-10s %s + %s: %s (%.2f bits/key, k = %u, predicted FPR %.3g), ~%.3g ns per lookup\n",
                 label[i], fl_variant_name(cd->v), cd->kernel, hb, cd->p.bits_per_key,
                 cd->p.geometry.k, cd->p.predicted_fpr, cd->ns);
    }
    /* The kernel a filter of the pick's geometry runs by default here (per entry and size
     * class), not the process's name for its choice ("auto"). */
    const char *chosen = NULL, *why = NULL;
    int is_default = fl_kernel_choice_for(&first->p.geometry, &chosen, &why) == FL_OK &&
                     strcmp(first->kernel, chosen) == 0;
    cli_outf("\nuse it:    filterlab build --type %s --n %llu --fpr %g ...%s%s%s\n",
             fl_variant_name(first->v), (unsigned long long)n, fpr,
             is_default ? "   (" : "   (set FILTERLAB_KERNEL=", first->kernel,
             is_default ? " is the kernel picked here by default)" : ")");

    if (allow_static)
        print_static_option(n, fpr, first);

    cli_outf("\nall candidates (ns per lookup read from the sweep at FPR %g, hit rate %g):\n",
             first->fpr_used, first->hit_used);
    cli_table *t = cli_table_new(7, "llrrrrl");
    if (!t)
        return cli_fail(EXIT_DATA, "out of memory");
    const char *head[] = {"variant", "kernel", "size", "bits/key", "predicted FPR", "ns/lookup", "basis"};
    cli_table_row(t, head);
    for (int i = 0; i < nc; i++) {
        char bpk[32], pf[32], ns[32];
        cli_human_bytes(cands[i].p.bytes, hb, sizeof hb);
        snprintf(bpk, sizeof bpk, "%.2f", cands[i].p.bits_per_key);
        snprintf(pf, sizeof pf, "%.3g", cands[i].p.predicted_fpr);
        snprintf(ns, sizeof ns, "%.3g", cands[i].ns);
        const char *cells[] = {fl_variant_name(cands[i].v), cands[i].kernel, hb, bpk, pf, ns,
                               cands[i].basis};
        cli_table_row(t, cells);
    }
    cli_table_print(t);
    cli_table_free(t);
    if (unreachable[0])
        cli_outf("cannot meet FPR %g: %s\n", fpr, unreachable);
    if (fabs(log(first->fpr_used / fpr)) > log(3.0))
        cli_outf("note: the sweep measured FPR %g; at %g the variants set more bits per key (k above),\n"
                 "      so lookups may be a little slower than shown (scripts/reproduce --full sweeps\n"
                 "      a second FPR)\n", first->fpr_used, fpr);
    return EXIT_OK;
}
