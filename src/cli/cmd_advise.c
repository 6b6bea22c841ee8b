/*
 * filterlab advise: which variant and lookup kernel to use for N keys at FPR P on this
 * machine, from the benchmark results scripts/reproduce wrote (results/<host-id>/advise.csv).
 *
 * Each variant is sized with the library (fl_params_for), so its memory and predicted FPR
 * are exact; its expected lookup time is read from this machine's kernel sweep at that
 * filter size (log-linear interpolation between the measured sizes on each side, the end
 * value outside them), at the sweep FPR nearest to P and the hit rate nearest to --hit-rate.
 * The pick is the fastest (variant, kernel) this CPU runs natively; the runner-up is the
 * fastest of another variant.
 *
 * advise.csv: '#' lines "key=value" (host_id, cpu_signature, l1d_bytes, l2_bytes, llc_bytes,
 * date, commit, kernel_selected, mode), then a header row and one row per measured
 * configuration (see scripts/repro/advise_data.py).
 */
#include <dirent.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *const CMD = "advise";

#define MAX_HOSTS 64
#define MAX_ROWS 8192

static void help(void)
{
    cli_outf(
        "Usage: filterlab advise --n N --fpr P [--results DIR] [--hit-rate H]\n"
        "\n"
        "Name the filter variant and lookup kernel that are fastest on this machine for N\n"
        "keys at a false positive rate of at most P, with the memory it takes and the\n"
        "expected time per lookup, and the runner-up. Sizes come from the library\n"
        "(fl_params_for); times come from this machine's benchmark results, written by\n"
        "scripts/reproduce as DIR/<host-id>/advise.csv.\n"
        "\n"
        "Options:\n"
        "  --n N          number of keys (1e6 style is accepted)\n"
        "  --fpr P        largest acceptable false positive rate, 0 < P < 1\n"
        "  --results DIR  a results folder: DIR/advise.csv, or DIR/*/advise.csv where the\n"
        "                 one whose CPU matches this machine is used (default: results)\n"
        "  --hit-rate H   fraction of lookups whose key is present (default 0.5; the\n"
        "                 nearest measured hit rate is used)\n"
        "  -h, --help     show this help\n"
        "\n"
        "Without result files it prints how to produce them and exits with status 2.\n");
}

/* ---- this CPU: the same signature string scripts/repro/hostinfo.py writes ---- */
static void cpu_signature(char *out, size_t cap)
{
    char vendor[64] = "", family[32] = "", model[32] = "", stepping[32] = "";
    char impl[32] = "", arch[32] = "", part[32] = "", rev[32] = "";
    int have_vendor = 0;
    out[0] = '\0';
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    int seen = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '\n') {
            if (seen)
                break;
            continue;
        }
        seen = 1;
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        char *key = line, *val = colon + 1;
        char *e = colon;
        while (e > key && (e[-1] == ' ' || e[-1] == '\t'))
            e--;
        *e = '\0';
        while (*val == ' ' || *val == '\t')
            val++;
        val[strcspn(val, "\n")] = '\0';
        struct {
            const char *k;
            char *dst;
        } map[] = {{"vendor_id", vendor}, {"cpu family", family}, {"model", model},
                   {"stepping", stepping}, {"CPU implementer", impl}, {"CPU architecture", arch},
                   {"CPU part", part}, {"CPU revision", rev}};
        for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
            if (strcmp(key, map[i].k) == 0 && map[i].dst[0] == '\0') {
                snprintf(map[i].dst, 32, "%.31s", val);
                if (map[i].dst == vendor)
                    have_vendor = 1;
            }
    }
    fclose(f);
    if (have_vendor)
        snprintf(out, cap, "%s-%s-%s-%s", vendor, family, model, stepping);
    else
        snprintf(out, cap, "%s-%s-%s-%s", impl, arch, part, rev);
}

/* ---- advise.csv ---- */
typedef struct row {
    char variant[16], kernel[16];
    int emulated;
    double target_fpr, bytes, hit_rate, ns;
} row;

typedef struct host {
    char path[4096];
    char host_id[128], signature[128], date[64], commit[64], kernel_selected[32], mode[16];
    double l1d, l2, llc;
    double memory_like; /* measured: from this footprint on, latency is DRAM-like (0: unknown) */
} host;

static void meta_value(host *h, const char *key, const char *val)
{
    struct {
        const char *k;
        char *dst;
        size_t cap;
    } s[] = {{"host_id", h->host_id, sizeof h->host_id},
             {"cpu_signature", h->signature, sizeof h->signature},
             {"date", h->date, sizeof h->date},
             {"commit", h->commit, sizeof h->commit},
             {"kernel_selected", h->kernel_selected, sizeof h->kernel_selected},
             {"mode", h->mode, sizeof h->mode}};
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
        if (strcmp(key, s[i].k) == 0)
            snprintf(s[i].dst, s[i].cap, "%s", val);
    if (strcmp(key, "l1d_bytes") == 0)
        h->l1d = atof(val);
    else if (strcmp(key, "l2_bytes") == 0)
        h->l2 = atof(val);
    else if (strcmp(key, "llc_bytes") == 0)
        h->llc = atof(val);
    else if (strcmp(key, "memory_like_from_bytes") == 0)
        h->memory_like = atof(val);
}

/* Reads the '#' header of an advise.csv; 0 if it is one. */
static int read_meta(const char *path, host *h)
{
    memset(h, 0, sizeof *h);
    snprintf(h->path, sizeof h->path, "%s", path);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[1024];
    int any = 0;
    while (fgets(line, sizeof line, f) && line[0] == '#') {
        line[strcspn(line, "\r\n")] = '\0';
        char *eq = strchr(line, '=');
        if (!eq)
            continue;
        *eq = '\0';
        char *key = line + 1;
        while (*key == ' ')
            key++;
        meta_value(h, key, eq + 1);
        any = 1;
    }
    fclose(f);
    return any ? 0 : -1;
}

/* Splits a CSV line (no quoting: advise.csv never needs it) into at most max fields. */
static int split(char *s, char **f, int max)
{
    int n = 0;
    f[n++] = s;
    for (char *p = s; *p && n < max; p++)
        if (*p == ',') {
            *p = '\0';
            f[n++] = p + 1;
        }
    return n;
}

static int col(char **names, int n, const char *want)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], want) == 0)
            return i;
    return -1;
}

/* Loads the measured rows; returns the count or -1 (message printed). */
static long read_rows(const char *path, row *rows, long cap)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        cli_fail(EXIT_DATA, "advise: %s: cannot open", path);
        return -1;
    }
    char line[2048], head[2048] = "";
    char *names[32];
    int nn = 0, iv = -1, ik = -1, ie = -1, it = -1, ib = -1, ih = -1, is = -1;
    long n = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;
        if (!head[0]) {
            snprintf(head, sizeof head, "%s", line);
            nn = split(head, names, 32);
            iv = col(names, nn, "variant");
            ik = col(names, nn, "kernel");
            ie = col(names, nn, "emulated");
            it = col(names, nn, "target_fpr");
            ib = col(names, nn, "filter_bytes");
            ih = col(names, nn, "hit_rate");
            is = col(names, nn, "ns_per_lookup");
            if (iv < 0 || ik < 0 || it < 0 || ib < 0 || ih < 0 || is < 0) {
                fclose(f);
                cli_fail(EXIT_DATA, "advise: %s: not an advise.csv (missing columns)", path);
                return -1;
            }
            continue;
        }
        char *fld[32];
        int nf = split(line, fld, 32);
        if (nf < nn || n >= cap)
            continue;
        row *r = &rows[n];
        snprintf(r->variant, sizeof r->variant, "%s", fld[iv]);
        snprintf(r->kernel, sizeof r->kernel, "%s", fld[ik]);
        r->emulated = ie >= 0 ? atoi(fld[ie]) : 0;
        r->target_fpr = atof(fld[it]);
        r->bytes = atof(fld[ib]);
        r->hit_rate = atof(fld[ih]);
        r->ns = fld[is][0] ? atof(fld[is]) : NAN;
        if (r->bytes > 0 && r->target_fpr > 0 && isfinite(r->ns))
            n++;
    }
    fclose(f);
    return n;
}

/* ---- choosing ---- */
typedef struct cand {
    fl_variant v;
    char kernel[16];
    fl_params p;
    double ns;
    double fpr_used, hit_used;
    const char *basis;
} cand;

static int kernel_native(const char *name)
{
    size_t n = fl_kernel_count();
    for (size_t i = 0; i < n; i++) {
        fl_kernel_desc d;
        if (fl_kernel_describe(i, &d) == FL_OK && strcmp(d.name, name) == 0)
            return d.supported && !d.emulated;
    }
    return 0;
}

/* Expected ns for (variant, kernel) at `bytes`; NAN if nothing was measured. */
static double estimate(const row *rows, long n, const char *variant, const char *kernel, double fpr,
                       double hit, double bytes, double *fpr_used, double *hit_used,
                       const char **basis)
{
    /* nearest sweep FPR (log distance), then nearest hit rate */
    double bf = NAN, bh = NAN;
    for (long i = 0; i < n; i++) {
        if (strcmp(rows[i].variant, variant) || strcmp(rows[i].kernel, kernel))
            continue;
        if (isnan(bf) || fabs(log(rows[i].target_fpr / fpr)) < fabs(log(bf / fpr)))
            bf = rows[i].target_fpr;
    }
    if (isnan(bf))
        return NAN;
    for (long i = 0; i < n; i++) {
        if (strcmp(rows[i].variant, variant) || strcmp(rows[i].kernel, kernel) ||
            rows[i].target_fpr != bf)
            continue;
        if (isnan(bh) || fabs(rows[i].hit_rate - hit) < fabs(bh - hit))
            bh = rows[i].hit_rate;
    }
    *fpr_used = bf;
    *hit_used = bh;
    /* the measured sizes just below and above `bytes` */
    const row *lo = NULL, *hi = NULL;
    for (long i = 0; i < n; i++) {
        const row *r = &rows[i];
        if (strcmp(r->variant, variant) || strcmp(r->kernel, kernel) || r->target_fpr != bf ||
            r->hit_rate != bh)
            continue;
        if (r->bytes <= bytes && (!lo || r->bytes > lo->bytes))
            lo = r;
        if (r->bytes >= bytes && (!hi || r->bytes < hi->bytes))
            hi = r;
    }
    if (lo && hi) {
        if (hi->bytes == lo->bytes) {
            *basis = "measured at this size";
            return lo->ns;
        }
        double t = log(bytes / lo->bytes) / log(hi->bytes / lo->bytes);
        *basis = "interpolated";
        return exp(log(lo->ns) + t * (log(hi->ns) - log(lo->ns)));
    }
    if (lo) {
        *basis = "beyond the largest size measured";
        return lo->ns;
    }
    if (hi) {
        *basis = "below the smallest size measured";
        return hi->ns;
    }
    return NAN;
}

static const char *size_class(const host *h, double bytes)
{
    if (h->l1d > 0 && bytes <= h->l1d)
        return "L1";
    if (h->l2 > 0 && bytes <= h->l2)
        return "L2";
    if (h->llc > 0 && bytes <= h->llc)
        return "LLC";
    return h->llc > 0 ? "DRAM" : "unknown";
}

static int cand_cmp(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    return (x->ns > y->ns) - (x->ns < y->ns);
}

/* Finds the advise.csv to use: DIR/advise.csv, else the DIR/<x>/advise.csv whose CPU matches
 * (the newest if several), else the only one there is. Returns 0 when found, 1 when there is
 * none at all, 2 after printing why none of several fits. */
static int find_results(const char *dir, const char *sig, host *out, int *foreign)
{
    char path[4096];
    *foreign = 0;
    snprintf(path, sizeof path, "%s/advise.csv", dir);
    if (read_meta(path, out) == 0) {
        *foreign = strcmp(out->signature, sig) != 0;
        return 0;
    }
    static host hosts[MAX_HOSTS];
    int nh = 0;
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL && nh < MAX_HOSTS) {
            if (e->d_name[0] == '.')
                continue;
            snprintf(path, sizeof path, "%s/%s/advise.csv", dir, e->d_name);
            if (read_meta(path, &hosts[nh]) == 0)
                nh++;
        }
        closedir(d);
    }
    int best = -1;
    for (int i = 0; i < nh; i++)
        if (strcmp(hosts[i].signature, sig) == 0 &&
            (best < 0 || strcmp(hosts[i].date, hosts[best].date) > 0))
            best = i;
    if (best < 0 && nh == 1) {
        best = 0;
        *foreign = 1;
    }
    if (best < 0 && nh > 1) {
        cli_outf("No results in '%s' are from this CPU (%s). Results there:\n", dir, sig);
        for (int i = 0; i < nh; i++)
            cli_outf("  %s  (%s)\n", hosts[i].path, hosts[i].signature);
        cli_outf("Pick one with --results DIR/<host-id>, or measure this machine:\n"
                 "  scripts/reproduce --quick\n");
        cli_fail(EXIT_DATA, "advise: no results for this CPU under '%s'", dir);
        return 2;
    }
    if (best < 0)
        return 1;
    *out = hosts[best];
    return 0;
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

int cmd_advise(int argc, char **argv, const cli_globals *g)
{
    (void)g;
    enum { O_N = 256, O_FPR, O_RESULTS, O_HIT };
    static const struct option opts[] = {
        {"n", required_argument, NULL, O_N},
        {"fpr", required_argument, NULL, O_FPR},
        {"results", required_argument, NULL, O_RESULTS},
        {"hit-rate", required_argument, NULL, O_HIT},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    uint64_t n = 0;
    double fpr = 0, hit = 0.5;
    int have_n = 0, have_fpr = 0;
    const char *dir = "results";
    int c;
    cli_getopt_reset();
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case O_N:
            if (cli_parse_count(CMD, "--n", optarg, &n) < 0)
                return EXIT_USAGE;
            have_n = 1;
            break;
        case O_FPR:
            if (cli_parse_fpr(CMD, "--fpr", optarg, &fpr) < 0)
                return EXIT_USAGE;
            have_fpr = 1;
            break;
        case O_RESULTS:
            dir = optarg;
            break;
        case O_HIT: {
            char *end;
            hit = strtod(optarg, &end);
            if (end == optarg || *end || !(hit >= 0 && hit <= 1))
                return cli_usage_error(CMD, "--hit-rate must be a number in [0, 1], not '%s'", optarg);
            break;
        }
        case 'h':
            help();
            return EXIT_OK;
        default:
            return cli_getopt_error(CMD, c, argv);
        }
    }
    if (optind < argc)
        return cli_usage_error(CMD, "unexpected argument '%s'", argv[optind]);
    if (!have_n || !have_fpr)
        return cli_usage_error(CMD, "--n and --fpr are required");
    if (n == 0)
        return cli_usage_error(CMD, "--n must be at least 1");

    char sig[160];
    cpu_signature(sig, sizeof sig);
    host h;
    memset(&h, 0, sizeof h);
    int foreign = 0;
    int found = find_results(dir, sig, &h, &foreign);
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

    static row rows[MAX_ROWS];
    long nr = read_rows(h.path, rows, MAX_ROWS);
    if (nr < 0)
        return EXIT_DATA;
    if (nr == 0)
        return cli_fail(EXIT_DATA, "advise: %s has no measurements", h.path);

    cand cands[64];
    int nc = 0;
    char unreachable[512] = "";
    for (int v = FL_VARIANT_MIN; v <= FL_VARIANT_MAX; v++) {
        const char *vname = fl_variant_name((fl_variant)v);
        if (!vname)
            continue;
        fl_params p;
        fl_status s = fl_params_for((fl_variant)v, n, fpr, &p);
        if (s != FL_OK) {
            size_t len = strlen(unreachable);
            snprintf(unreachable + len, sizeof unreachable - len, "%s%s (%s)", len ? ", " : "",
                     vname, fl_strerror(s));
            continue;
        }
        /* each kernel measured for this variant, once */
        for (long i = 0; i < nr && nc < 64; i++) {
            if (strcmp(rows[i].variant, vname) || rows[i].emulated || !kernel_native(rows[i].kernel))
                continue;
            int dup = 0;
            for (int j = 0; j < nc; j++)
                if (cands[j].v == (fl_variant)v && !strcmp(cands[j].kernel, rows[i].kernel))
                    dup = 1;
            if (dup)
                continue;
            cand *cd = &cands[nc];
            memset(cd, 0, sizeof *cd);
            cd->v = (fl_variant)v;
            snprintf(cd->kernel, sizeof cd->kernel, "%s", rows[i].kernel);
            cd->p = p;
            cd->ns = estimate(rows, nr, vname, rows[i].kernel, fpr, hit, (double)p.bytes, &cd->fpr_used,
                              &cd->hit_used, &cd->basis);
            if (isfinite(cd->ns))
                nc++;
        }
    }
    if (nc == 0)
        return cli_fail(EXIT_DATA, "advise: %s has no measurement this CPU can use", h.path);
    qsort(cands, (size_t)nc, sizeof cands[0], cand_cmp);
    const cand *first = &cands[0], *second = NULL;
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
    const char *cls = size_class(&h, (double)first->p.bytes);
    cli_outf("size class: %s (a %s filter; L2 %s, last-level cache %s)\n", cls, hb, l2, llc);
    if (h.memory_like > 0 && (double)first->p.bytes >= h.memory_like && strcmp(cls, "DRAM") != 0) {
        char ml[32];
        cli_human_bytes((uint64_t)h.memory_like, ml, sizeof ml);
        cli_outf("            but memory latency measured here is DRAM-like from %s on: expect DRAM behaviour\n", ml);
    }
    cli_outf("\n");

    const cand *show[2] = {first, second};
    const char *label[2] = {"pick", "runner-up"};
    for (int i = 0; i < 2; i++) {
        const cand *cd = show[i];
        if (!cd)
            continue;
        cli_human_bytes(cd->p.bytes, hb, sizeof hb);
        cli_outf("%-10s %s + %s: %s (%.2f bits/key, k = %u, predicted FPR %.3g), ~%.3g ns per lookup\n",
                 label[i], fl_variant_name(cd->v), cd->kernel, hb, cd->p.bits_per_key,
                 cd->p.geometry.k, cd->p.predicted_fpr, cd->ns);
    }
    int is_default = strcmp(first->kernel, fl_kernel_active()) == 0;
    cli_outf("\nuse it:    filterlab build --type %s --n %llu --fpr %g ...%s%s%s\n",
             fl_variant_name(first->v), (unsigned long long)n, fpr,
             is_default ? "   (" : "   (set FILTERLAB_KERNEL=", first->kernel,
             is_default ? " is the kernel picked here by default)" : ")");

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
