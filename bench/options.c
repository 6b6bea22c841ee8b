/*
 * flbench's options: one table (name, value kind, where it is stored, accepted range, --help
 * text) that getopt_long, the one parser and --help all read; --version; the checks between
 * options. A bad option or value exits 1 with one "flbench: ..." line, as filterlab does.
 * The values themselves (sizes, lists, filters, kernels, structures) are option_values.c's.
 */
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fb_git.h"
#include "option_values.h"

/* Defaults: the parser and --help both read these, so the help cannot drift from them. */
enum { FB_REPS_DEFAULT = 9, FB_REPS_QUICK = 3 };
#define FB_LOOKUPS_DEFAULT (UINT64_C(1) << 20)
#define FB_LOOKUPS_URL (UINT64_C(1) << 19) /* URL keys are hashed in the timed loop: slower */
#define FB_LOOKUPS_QUICK (UINT64_C(1) << 18)
static const double default_hits[] = {0, 0.5, 1};
#define NDEFAULT_HITS (sizeof default_hits / sizeof default_hits[0])

/* The "Time" paragraph of --help: the default sweep's counts come from the tables the sweep
 * is built from (every variant of "--filter all", this machine's default sizes, the default
 * hit rates and repetitions), so they are this machine's and cannot go stale. */
static void help_time(FILE *f) {
    fb_options d;
    memset(&d, 0, sizeof d);
    fb_parse_filters(&d, "all");
    fb_machine m;
    fb_machine_read(&m);
    fb_default_sizes(&d, &m);
    size_t nsizes = d.nsizes;
    char lo[32], hi[32];
    fb_fmt_bytes(d.sizes[0], lo, sizeof lo);
    fb_fmt_bytes(d.sizes[d.nsizes - 1], hi, sizeof hi);
    d.quick = 1;
    fb_default_sizes(&d, &m);
    size_t quick_sizes = d.nsizes;
    free(d.sizes);
    fprintf(f,
            "\n"
            "Time: the default sweep on this machine is %zu variants x %zu sizes (%s to %s) x\n"
            "%zu hit rates = %zu lookup configurations of %d repetitions each, plus %zu filter\n"
            "builds, with one kernel (--plan prints the sizing; --quick: %zu sizes, %d\n"
            "repetitions). Measured on a 2-vCPU Sapphire Rapids VM, the classic, block512,\n"
            "split256, reg64 and cuckoo variants at the 9 sizes 16 KiB to 1 GiB took 8 minutes,\n"
            "6 of them building the filters (the 1 GiB classic and cuckoo builds take about 2\n"
            "minutes each), and --quick about 1.5 minutes. --kernel all multiplies the lookup\n"
            "time by the number of kernels, and the insert time only for filters small enough\n"
            "for several builds. --counters callgrind reruns each configuration under valgrind\n"
            "(~50x slower): use it with small sizes. Scripts should pass explicit options.\n",
            d.nvariants, nsizes, lo, hi, NDEFAULT_HITS, d.nvariants * nsizes * NDEFAULT_HITS,
            FB_REPS_DEFAULT, d.nvariants * nsizes, quick_sizes, FB_REPS_QUICK);
}

/* --version: one line, in the "program (package) version" form help2man reads. */
static void version(void) {
    printf("flbench (filterlab) %d.%d.%d", FL_VERSION_MAJOR, FL_VERSION_MINOR, FL_VERSION_PATCH);
    const char *commit = FB_GIT_COMMIT; /* a literal: clang warns on one in a condition */
    if (commit[0] && strcmp(commit, "unknown") != 0) printf(" (git %s)", commit);
    printf("\n");
}

/* How an option's value is read and stored. */
enum opt_kind {
    K_FLAG,    /* no value: the int is set to 1 */
    K_STR,     /* the argument itself (const char *) */
    K_INT,     /* K_INT, K_U32, K_U64, K_SIZE: a number into an int, uint32_t, uint64_t or */
    K_U32,     /* size_t, checked against lo..hi as the field holds it */
    K_U64,
    K_SIZE,
    K_DOUBLE,  /* checked against lo, hi (open ends: lo_open, hi_open) */
    K_CHOICE,  /* one of names[] into an int: values[] */
    K_U32LIST, /* integers in lo..hi into a uint32_t array, the count into a size_t at count */
    K_CALL,    /* call(o, arg) */
    K_ACTION,  /* no value: call(o, NULL) (--help, --version) */
};
/* --help's sections, in their order. */
enum { S_WHAT, S_STRUCT, S_ENV, S_COUNTERS, S_OUTPUT, NSECTIONS };
static const char *const section_titles[NSECTIONS] = {
    "What is measured",
    "Structures (the family beyond filters; bench/README.md describes each suite)",
    "Environment", "Counters", "Output"};

typedef struct fb_opt {
    const char *name;   /* --name */
    char shortopt;      /* -c, or 0 */
    char in_cli;        /* stored in fb_cli (resolved after parsing), not fb_options */
    char section;       /* --help's section (the table's order inside it) */
    char lo_open, hi_open;
    enum opt_kind kind;
    size_t off, count;  /* where the value goes; a list's count */
    double lo, hi;      /* accepted values (hi = 0: no upper bound); lo = hi = 0, no range: any */
    const char *range;  /* the range as an error message says it, when not "in lo..hi" */
    size_t set;         /* in the same struct, an int set to 1 when given (0: none) */
    const char *names[4];
    int values[4];
    void (*call)(fb_options *o, const char *arg);
    const char *metavar; /* --help: "--name METAVAR" */
    /* --help: the text beside the option, lines after the first indented under it, and a
     * leading newline for a text that starts on the next line. Its %s is the default, from
     * dflt or else from the value set_defaults stores. NULL: not listed. */
    const char *help;
    void (*dflt)(char *buf, size_t cap, const fb_options *d);
} fb_opt;

static void usage(void);
static void help_and_exit(fb_options *o, const char *arg) {
    (void)o, (void)arg;
    usage();
    exit(0);
}
static void version_and_exit(fb_options *o, const char *arg) {
    (void)o, (void)arg;
    version();
    exit(0);
}
static void bandwidth_bytes(fb_options *o, const char *arg) {
    if (fb_parse_size(arg, &o->bandwidth_bytes) || o->bandwidth_bytes < 4096)
        fb_usage_error("bad --bandwidth-bytes '%s' (at least 4K)", arg);
}

/* Defaults --help shows that are not one stored value. */
static void hits_default(char *buf, size_t cap, const fb_options *d) {
    buf[0] = 0;
    for (size_t i = 0; i < d->nhits; i++)
        snprintf(buf + strlen(buf), cap - strlen(buf), "%s%g", i ? "," : "", d->hits[i]);
}
static void lookups_default(char *buf, size_t cap, const fb_options *d) {
    (void)d;
    snprintf(buf, cap, "%llu; url %llu", (unsigned long long)FB_LOOKUPS_DEFAULT,
             (unsigned long long)FB_LOOKUPS_URL);
}
static void reps_default(char *buf, size_t cap, const fb_options *d) {
    (void)d;
    snprintf(buf, cap, "%d", FB_REPS_DEFAULT);
}
static void quick_default(char *buf, size_t cap, const fb_options *d) {
    (void)d;
    snprintf(buf, cap, "%d repetitions,\n%llu lookups", FB_REPS_QUICK,
             (unsigned long long)FB_LOOKUPS_QUICK);
}
static void hll_default(char *buf, size_t cap, const fb_options *d) {
    int n = snprintf(buf, cap, "%u..%u [", (unsigned)FL_HLL_P_MIN, (unsigned)FL_HLL_P_MAX);
    for (size_t i = 0; i < d->nhll_precisions && n > 0 && (size_t)n < cap; i++)
        n += snprintf(buf + n, cap - (size_t)n, "%s%u", i ? "," : "", d->hll_precisions[i]);
    snprintf(buf + strlen(buf), cap - strlen(buf), "]");
}
static void structures_default(char *buf, size_t cap, const fb_options *d) {
    fb_structures_help(buf, cap, d->structures);
}

#define O(field) .off = offsetof(fb_options, field)
#define C(field) .in_cli = 1, .off = offsetof(fb_cli, field)
#define CHOICE(...) .kind = K_CHOICE, .names = {__VA_ARGS__}
/* getopt_long's order (an ambiguous abbreviation lists its matches in it). */
static const fb_opt opts[] = {
    {"filter", 'f', C(filters), .kind = K_STR, .metavar = "LIST",
     .help = "variants: classic,block512,split256,reg64,cuckoo,counting,\n"
             "counting512 or all [%s] (see --list)"},
    {"kernel", 'k', C(kernels), .kind = K_STR, .metavar = "LIST",
     .help = "scalar,avx2,avx512,neon, auto (the one dispatch picks) or all\n"
             "(every kernel this CPU runs natively; an emulated one, e.g.\n"
             "neon through SIMDe on x86, only when named) [%s]"},
    {"fpr", O(fpr), .kind = K_DOUBLE, .lo = 0, .hi = 1, .lo_open = 1, .hi_open = 1,
     .set = offsetof(fb_options, fpr_given), .metavar = "P",
     .help = "target false-positive rate for sizing [%s]"},
    {"bits-per-key", O(bits_per_key), .kind = K_DOUBLE, .lo = 0, .hi = 64, .lo_open = 1,
     .set = offsetof(fb_options, use_bpk), .metavar = "B",
     .help = "size by bits per key instead of --fpr"},
    {"sizes", 's', C(sizes), .kind = K_STR, .metavar = "SPEC",
     .help = "filter sizes: a list (16K,1M,256M) or a log2 range: 14..30 (2^14\n"
             "to 2^30), 16K..1G, with :STEP in powers of two (14..30:2)\n"
             "[default: L1d/2 to ~3x the last-level cache every 4x, capped at\n"
             "a quarter of free memory; on a 48K/2M/260M-cache VM: 16K..1G]"},
    {"sizes-in", O(sizes_in_keys), CHOICE("bytes", "keys"), .values = {0, 1},
     .metavar = "bytes|keys", .help = "unit of --sizes [%s]"},
    {"hit-rate", .kind = K_CALL, .call = fb_parse_hits, .metavar = "LIST",
     .help = "fractions of looked-up keys that were inserted [%s]", .dflt = hits_default},
    {"batch", O(batch), .kind = K_SIZE, .lo = 1, .hi = 1 << 20, .metavar = "N",
     .help = "keys per fl_contains_hashes call [%s]"},
    {"keys", O(keys), CHOICE("u64", "url"), .values = {FB_KEYS_U64, FB_KEYS_URL},
     .metavar = "u64|url",
     .help = "u64: random 64-bit keys, hashed with fl_hash_u64 before timing;\n"
             "url: synthetic URLs (~80 bytes) hashed with fl_hash_bytes (XXH3)\n"
             "inside the timed region [%s]"},
    {"lookups", C(lookups), .kind = K_U64, .lo = 1, .hi = 1 << 28, .range = "in 1..2^28",
     .metavar = "N", .help = "timed lookups per repetition [%s]", .dflt = lookups_default},
    {"reps", 'r', O(reps), .kind = K_INT, .lo = 1, .hi = 1000, .metavar = "N",
     .help = "timed repetitions per configuration [%s]", .dflt = reps_default},
    {"warmup", O(warmup), .kind = K_INT, .lo = 0, .hi = 100, .metavar = "N",
     .help = "untimed repetitions before them [%s]"},
    {"interleave", O(interleave), .kind = K_FLAG,
     .help = "run the configurations in a new random order in every\n"
             "repetition (all filters stay resident if memory allows)"},
    {"insert-budget", O(insert_budget), .kind = K_U64, .metavar = "N",
     .help = "keys inserted per (filter, kernel) over the insert repetitions;\n"
             "big filters get fewer repetitions [%s]. A filter that\n"
             "gets one build is built once for all kernels, each timed on\n"
             "its share of the insert chunks (insert_method in the results)"},
    {"pin", O(pin_cpu), .kind = K_INT, .section = S_ENV, .metavar = "CPU",
     .help = "pin the process to one CPU"},
    {"huge-pages", O(huge_pages), CHOICE("on", "off"), .values = {1, 0}, .section = S_ENV,
     .metavar = "on|off", .help = "MADV_HUGEPAGE for filters and probe buffers >= 2 MiB [%s]"},
    {"counters", O(counters), CHOICE("auto", "perf", "callgrind", "none"),
     .values = {FB_CNT_AUTO, FB_CNT_PERF, FB_CNT_CALLGRIND, FB_CNT_NONE},
     .section = S_COUNTERS, .metavar = "auto|perf|callgrind|none",
     .help = "\nauto/perf: perf_event_open group (user space only); without a\n"
             "PMU every hardware counter is null in JSON, its column is left\n"
             "out of the table, one warning says why, and the run continues.\n"
             "callgrind: re-run each lookup configuration under\n"
             "valgrind's cache simulator (slow; use small sizes) [%s]"},
    {"events", O(events), .kind = K_STR, .section = S_COUNTERS, .metavar = "LIST",
     .help = "libpfm4 event names for the group [perf::PERF_COUNT_HW_CPU_CYCLES,\n"
             "INSTRUCTIONS, CACHE_L1D:READ:MISS, CACHE_LL:READ:MISS,\n"
             "CACHE_DTLB:READ:MISS, BRANCH_MISSES]"},
    {"json", O(json_path), .kind = K_STR, .section = S_OUTPUT, .metavar = "FILE",
     .help = "Google-Benchmark-shaped JSON (repetitions and aggregates);\n"
             "- writes it to stdout and the table to stderr"},
    {"csv", O(csv_path), .kind = K_STR, .section = S_OUTPUT, .metavar = "FILE",
     .help = "one row per configuration, units in the column names"},
    /* --help lists --D1 and --LL on one line */
    {"D1", O(cg_d1), .kind = K_STR, .section = S_COUNTERS, .metavar = "S,A,L --LL S,A,L",
     .help = "simulated cache geometry (bytes,ways,line) passed to callgrind\n"
             "[from /sys/devices/system/cpu/cpu0/cache]"},
    {"LL", O(cg_ll), .kind = K_STR},
    {"callgrind-lookups", O(cg_lookups), .kind = K_U64, .lo = 1, .range = "positive",
     .section = S_COUNTERS, .metavar = "N",
     .help = "lookups simulated per configuration [%s]"},
    {"probe", O(probe_memory), CHOICE("memory", "none"), .values = {1, 0},
     .section = S_COUNTERS, .metavar = "memory|none",
     .help = "measure the physical bound (pointer chasing and prefetched\n"
             "random lines) at every filter footprint [%s]"},
    {"probe-distance", O(probe_distance), .kind = K_INT, .lo = 0, .hi = 4096,
     .section = S_COUNTERS, .metavar = "N",
     .help = "prefetch distance of the random-line probe, in lines [%s]"},
    {"quick", O(quick), .kind = K_FLAG,
     .help = "fewer sizes (every 16x, at most 256 MiB), %s", .dflt = quick_default},
    {"probe-only", O(probe_only), .kind = K_FLAG, .section = S_COUNTERS,
     .help = "only the memory probe, at --sizes (bytes); no filters"},
    {"seed", O(seed), .kind = K_U64, .metavar = "N", .help = "key and hash seed [%s]"},
    {"cg-child", O(cg_child), .kind = K_FLAG}, /* internal: the callgrind child */
    {"list", C(list), .kind = K_FLAG, .section = S_OUTPUT,
     .help = "print variants, kernels, caches and the default sweep; exit"},
    {"structure", .kind = K_CALL, .call = fb_parse_structures, .section = S_STRUCT,
     .metavar = "LIST", .dflt = structures_default,
     .help = "%s.\n"
             "filter: the sweep above over --filter (the counting variants\n"
             "counting,counting512 included, with a timed delete for every\n"
             "variant that deletes: counting, counting512, cuckoo); sbf:\n"
             "scalable Bloom insert and batch\n"
             "lookup at equal total size per chain length; cms: Count-Min\n"
             "update and query (d from --cms-depth, w from the size, plus the\n"
             "seeds' d=5 w=2719) and a top-k update; hll: HyperLogLog add,\n"
             "estimate, merge per precision, and the sequential read bandwidth;\n"
             "static: binary fuse fuse8, fuse16, fuse4w8, fuse4w16 and the\n"
             "Bloomier map (8-bit values): build ns/key, batch lookup per\n"
             "kernel and the one-key inline lookup, FPR, bits/key against\n"
             "the bound (takes --sizes in bytes or, with --sizes-in keys, key\n"
             "counts); vqf: the vector quotient filter's inserts, batch\n"
             "lookups per kernel and hit rate, the one-key inline lookup and\n"
             "deletes, with bits/key and FPR (sizes as static's); gcf: the\n"
             "growing cuckoo filter, as vqf, grown --gcf-growth times from its\n"
             "first table (inserts include the doublings)"},
    {"sbf-filters", O(sbf_filters), .count = offsetof(fb_options, nsbf_filters),
     .kind = K_U32LIST, .lo = 1, .hi = FL_SBF_FILTERS_MAX, .section = S_STRUCT,
     .metavar = "LIST",
     .help = "sub-filters of the measured chains, each sized so the whole\n"
             "chain takes the --sizes bytes [%s]"},
    {"sbf-growth", O(sbf_growth), .kind = K_DOUBLE, .lo = 1, .hi = 64, .section = S_STRUCT,
     .metavar = "G", .help = "the chains' growth factor (EXPANSION), >= 1 [%s]"},
    {"gcf-growth", O(gcf_growth), .kind = K_U32, .lo = 1, .hi = 128, .section = S_STRUCT,
     .metavar = "G",
     .help = "the gcf suite's filters start at 1/G of the keys and grow [%s]"},
    {"cms-depth", O(cms_depth), .kind = K_U32, .lo = 1, .hi = FL_CMS_DEPTH_MAX,
     .section = S_STRUCT, .metavar = "D",
     .help = "rows of the Count-Min sizes (width = size / (4 D)) [%s]"},
    {"cms-topk", O(cms_topk), .kind = K_U32, .lo = 0, .hi = FL_CMS_TOPK_MAX,
     .range = "at most 65536", .section = S_STRUCT, .metavar = "K",
     .help = "candidates of the top-k update run (0: none) [%s]"},
    {"hll-precisions", O(hll_precisions), .count = offsetof(fb_options, nhll_precisions),
     .kind = K_U32LIST, .lo = FL_HLL_P_MIN, .hi = FL_HLL_P_MAX, .section = S_STRUCT,
     .metavar = "LIST", .help = "HyperLogLog precisions p (2^p registers), %s",
     .dflt = hll_default},
    {"bandwidth-bytes", .kind = K_CALL, .call = bandwidth_bytes, .section = S_STRUCT,
     .metavar = "SIZE",
     .help = "buffer of the sequential-read bandwidth probe (hll) [4x the\n"
             "last-level cache, at least 256M, at most 1/4 of free memory]"},
    {"plan", O(plan_only), .kind = K_FLAG, .section = S_STRUCT,
     .help = "print the filter sweep's sizing (variant, bytes, keys, k) and\n"
             "exit without measuring"},
    {"quiet", 'q', O(quiet), .kind = K_FLAG, .section = S_OUTPUT,
     .help = "no progress and no status lines on stderr (warnings and\n"
             "errors still appear); progress is shown only when stderr is\n"
             "a terminal"},
    {"help", 'h', .kind = K_ACTION, .call = help_and_exit, .section = S_OUTPUT,
     .help = "this text"},
    {"version", 'V', .kind = K_ACTION, .call = version_and_exit, .section = S_OUTPUT,
     .help = "one line: program, library version, git commit"},
};
#define NOPTS (sizeof opts / sizeof opts[0])
/* getopt_long's '?' or ':' as one line: which option, and what is wrong with it. With
 * opterr = 0 getopt prints nothing; a long option is then argv[optind - 1] (getopt has moved
 * past it), a short one is optopt. */
static _Noreturn void option_error(int c, char **argv, const struct option *longopts) {
    char name[128];
    int is_long = optopt == 0 || optopt > 255;
    if (is_long) {
        snprintf(name, sizeof name, "%s", argv[optind - 1]);
        name[strcspn(name, "=")] = 0;
    } else {
        snprintf(name, sizeof name, "-%c", optopt);
    }
    if (c == ':') {
        for (const struct option *lo = longopts; is_long && lo->name; lo++)
            if (lo->val == optopt) /* an abbreviation: name the option in full */
                snprintf(name, sizeof name, "--%s", lo->name);
        fb_usage_error("option '%s' needs a value", name);
    }
    if (is_long && strncmp(name, "--", 2) == 0) {
        const char *n = name + 2;
        size_t len = strlen(n), matches = 0;
        char list[512] = "";
        for (const struct option *lo = longopts; lo->name; lo++) {
            if (!strcmp(lo->name, n) && lo->has_arg == no_argument)
                fb_usage_error("option '%s' takes no value", name);
            if (!strncmp(lo->name, n, len) && strcmp(lo->name, "cg-child")) {
                matches++;
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s--%s",
                         matches > 1 ? ", " : "", lo->name);
            }
        }
        if (matches > 1) {
            char msg[700];
            snprintf(msg, sizeof msg, "ambiguous option '%%s' (%s)", list);
            fb_usage_error(msg, name);
        }
    }
    fb_usage_error("unknown option '%s'", name);
}
/* Every default of the options (--help prints them from here). reps and lookups stay unset
 * (-1, 0): they depend on --quick and --keys, resolved after parsing. */
static void set_defaults(fb_options *o, fb_cli *cli) {
    memset(o, 0, sizeof *o);
    memset(cli, 0, sizeof *cli);
    cli->filters = "all";
    cli->kernels = "auto";
    o->fpr = 0.01;
    o->batch = 1024;
    o->reps = -1;
    o->warmup = 1;
    o->pin_cpu = -1;
    o->huge_pages = 1;
    o->counters = FB_CNT_AUTO;
    o->probe_memory = 1;
    o->probe_distance = 32;
    o->insert_budget = UINT64_C(1) << 26;
    o->seed = 1;
    o->cg_lookups = 65536;
    memcpy(o->hits, default_hits, sizeof default_hits);
    o->nhits = NDEFAULT_HITS;
    o->structures = FB_ST_FILTER;
    static const uint32_t sbf_default[] = {1, 2, 4, 8}, hll_default[] = {10, 12, 14, 16};
    memcpy(o->sbf_filters, sbf_default, sizeof sbf_default);
    o->nsbf_filters = sizeof sbf_default / sizeof sbf_default[0];
    o->sbf_growth = 2.0;
    o->cms_depth = 5;
    o->gcf_growth = 8;
    o->cms_topk = 100;
    memcpy(o->hll_precisions, hll_default, sizeof hll_default);
    o->nhll_precisions = sizeof hll_default / sizeof hll_default[0];
}

static void *field(const fb_opt *p, fb_options *o, fb_cli *cli, size_t off) {
    return (char *)(p->in_cli ? (void *)cli : (void *)o) + off;
}

/* The default --help shows in an option's %s: dflt's, or the value set_defaults stores. */
static void default_text(const fb_opt *p, char *buf, size_t cap) {
    fb_options d;
    fb_cli dc;
    set_defaults(&d, &dc);
    const void *v = field(p, &d, &dc, p->off);
    buf[0] = 0;
    if (p->dflt)
        p->dflt(buf, cap, &d);
    else if (p->kind == K_STR && *(const char *const *)v)
        snprintf(buf, cap, "%s", *(const char *const *)v);
    else if (p->kind == K_INT)
        snprintf(buf, cap, "%d", *(const int *)v);
    else if (p->kind == K_U32)
        snprintf(buf, cap, "%u", *(const uint32_t *)v);
    else if (p->kind == K_U64)
        snprintf(buf, cap, "%llu", (unsigned long long)*(const uint64_t *)v);
    else if (p->kind == K_SIZE)
        snprintf(buf, cap, "%zu", *(const size_t *)v);
    else if (p->kind == K_DOUBLE)
        snprintf(buf, cap, "%g", *(const double *)v);
    else if (p->kind == K_CHOICE) {
        for (size_t i = 0; i < 4 && p->names[i]; i++)
            if (p->values[i] == *(const int *)v)
                snprintf(buf, cap, "%s", p->names[i]);
    } else if (p->kind == K_U32LIST) {
        for (size_t i = 0; i < *(const size_t *)field(p, &d, &dc, p->count); i++)
            snprintf(buf + strlen(buf), cap - strlen(buf), "%s%u", i ? "," : "",
                     ((const uint32_t *)v)[i]);
    }
}

/* One option of --help: "  -f, --filter LIST" in a column of 27, then its text. */
static void help_option(FILE *f, const fb_opt *p) {
    char left[64], dflt[256], text[2048];
    snprintf(left, sizeof left, "%s%c%s--%s%s%s", p->shortopt ? "  -" : "    ",
             p->shortopt ? p->shortopt : ' ', p->shortopt ? ", " : " ", p->name,
             p->metavar ? " " : "", p->metavar ? p->metavar : "");
    default_text(p, dflt, sizeof dflt);
    snprintf(text, sizeof text, p->help, dflt);
    int pad = text[0] == '\n' ? 0 : strlen(left) < 25 ? 27 - (int)strlen(left) : 2;
    fprintf(f, "%s%*s", left, pad, "");
    for (const char *t = text; *t;) {
        size_t n = strcspn(t, "\n");
        if (t != text)
            fprintf(f, "%27s", "");
        fprintf(f, "%.*s\n", (int)n, t);
        t += n + (t[n] == '\n');
    }
}

/* --help: the options in their sections from the table, every default read from
 * set_defaults or the constants above, not written twice. */
static void usage(void) {
    FILE *f = stdout;
    fprintf(f,
"usage: flbench [options]\n"
"       flbench --help | --version\n"
"\n"
"Measures filterlab through its public API: lookup time per key (batched\n"
"fl_contains_hashes), insert (build) throughput, bits per key and measured FPR, with\n"
"hardware counters when the machine has a PMU, simulated misses under callgrind, and the\n"
"physical bound of random memory access at the same footprints.\n");
    for (int s = 0; s < NSECTIONS; s++) {
        fprintf(f, "\n%s\n", section_titles[s]);
        for (size_t i = 0; i < NOPTS; i++)
            if (opts[i].section == s && opts[i].help)
                help_option(f, &opts[i]);
    }
    help_time(f);
    fprintf(f,
"\n"
"Exit status: 0 success, 1 usage error (a bad option or value; one line on stderr),\n"
"2 data or I/O error (an output path that cannot be written, a size that cannot be\n"
"sized, valgrind missing for --counters callgrind, out of memory), as for filterlab.\n"
"\n"
"Examples\n"
"  flbench --quick --json out.json\n"
"  flbench --filter split256,block512 --kernel all --sizes 14..26:2 --json r.json --csv r.csv\n"
"  flbench --counters callgrind --filter split256 --sizes 16K,4M --LL 131072,8,64\n");
}

/* "--NAME must be RANGE, not ARG": the table's range, or "in lo..hi", "(lo, hi]", ... */
static _Noreturn void out_of_range(const fb_opt *p, const char *arg) {
    char range[64], msg[160];
    if (p->range)
        snprintf(range, sizeof range, "%s", p->range);
    else if (p->kind == K_DOUBLE)
        snprintf(range, sizeof range, "in %c%g, %g%c", p->lo_open ? '(' : '[', p->lo, p->hi,
                 p->hi_open ? ')' : ']');
    else
        snprintf(range, sizeof range, "in %.0f..%.0f", p->lo, p->hi);
    snprintf(msg, sizeof msg, "--%s must be %s, not %%s", p->name, range);
    fb_usage_error(msg, arg);
}

/* One option's value into its field, by its kind. */
static void store(const fb_opt *p, fb_options *o, fb_cli *cli, const char *arg) {
    void *v = field(p, o, cli, p->off);
    char what[64];
    snprintf(what, sizeof what, "--%s", p->name);
    int ranged = p->lo != 0 || p->hi != 0 || p->range;
    double x = 0;
    switch (p->kind) {
    case K_FLAG: *(int *)v = 1; return;
    case K_STR: *(const char **)v = arg; return;
    case K_CALL:
    case K_ACTION: p->call(o, arg); return;
    case K_U32LIST:
        *(size_t *)field(p, o, cli, p->count) =
            fb_parse_u32_list(arg, what, (uint32_t)p->lo, (uint32_t)p->hi, v);
        return;
    case K_CHOICE: {
        char msg[160];
        int n = snprintf(msg, sizeof msg, "%s takes ", what);
        for (size_t i = 0; i < 4 && p->names[i]; i++) {
            if (!strcmp(arg, p->names[i])) {
                *(int *)v = p->values[i];
                return;
            }
            int last = i == 3 || !p->names[i + 1];
            n += snprintf(msg + n, sizeof msg - (size_t)n, "%s%s", !i ? "" : last ? " or " : ", ",
                          p->names[i]);
        }
        snprintf(msg + n, sizeof msg - (size_t)n, ", not %%s");
        fb_usage_error(msg, arg);
    }
    case K_DOUBLE:
        x = *(double *)v = fb_parse_double(arg, what);
        if (ranged && !((p->lo_open ? x > p->lo : x >= p->lo) &&
                        (p->hi_open ? x < p->hi : x <= p->hi)))
            out_of_range(p, arg);
        break;
    default: {
        /* The range is checked on the stored value, as the field holds it. */
        uint64_t u = fb_parse_u64(arg, what);
        if (p->kind == K_INT)
            x = *(int *)v = (int)u;
        else if (p->kind == K_U32)
            x = *(uint32_t *)v = (uint32_t)u;
        else if (p->kind == K_SIZE)
            x = (double)(*(size_t *)v = (size_t)u);
        else
            x = (double)(*(uint64_t *)v = u);
        if (ranged && (x < p->lo || (p->hi && x > p->hi)))
            out_of_range(p, arg);
    }
    }
    if (p->set)
        *(int *)field(p, o, cli, p->set) = 1;
}


void fb_options_parse(fb_options *o, fb_cli *cli, int argc, char **argv) {
    set_defaults(o, cli);
    o->argc = argc;
    o->argv = argv;

    /* getopt_long's view of the table: val is the entry's index + 256, or its short letter. */
    static struct option longopts[NOPTS + 1];
    char shortopts[2 * NOPTS + 2] = ":";
    for (size_t i = 0; i < NOPTS; i++) {
        int has_arg =
            opts[i].kind == K_FLAG || opts[i].kind == K_ACTION ? no_argument : required_argument;
        longopts[i] = (struct option){opts[i].name, has_arg, 0,
                                      opts[i].shortopt ? opts[i].shortopt : 256 + (int)i};
        if (opts[i].shortopt)
            snprintf(shortopts + strlen(shortopts), 3, "%c%s", opts[i].shortopt,
                     has_arg == required_argument ? ":" : "");
    }
    int c;
    opterr = 0; /* bad options get one line from option_error, not getopt's two */
    while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        const fb_opt *p = NULL;
        for (size_t i = 0; i < NOPTS && !p; i++)
            if (longopts[i].val == c)
                p = &opts[i];
        if (!p)
            option_error(c, argv, longopts);
        store(p, o, cli, optarg);
    }
    if (optind < argc)
        fb_usage_error("unexpected argument '%s'", argv[optind]);
    if (o->fpr_given && o->use_bpk)
        fb_usage_error("%s", "give --fpr or --bits-per-key, not both");
    if (o->events && o->counters != FB_CNT_AUTO && o->counters != FB_CNT_PERF)
        fb_usage_error("%s", "--events needs --counters auto or perf");
    const char *geometry[][2] = {{"--D1", o->cg_d1}, {"--LL", o->cg_ll}};
    for (size_t i = 0; i < 2; i++) {
        unsigned long a, b, cc;
        if (geometry[i][1] && sscanf(geometry[i][1], "%lu,%lu,%lu", &a, &b, &cc) != 3) {
            char msg[64];
            snprintf(msg, sizeof msg, "%s takes size,assoc,line, not %%s", geometry[i][0]);
            fb_usage_error(msg, geometry[i][1]);
        }
    }

    fl_status env_st = fl_kernel_env_status();
    if (env_st != FL_OK && !o->cg_child) {
        fprintf(stderr, "flbench: FILTERLAB_KERNEL=%s: %s\n", getenv("FILTERLAB_KERNEL"),
                fl_strerror(env_st));
        exit(1);
    }
    fb_parse_filters(o, cli->filters);
    fb_parse_kernels(o, cli->kernels);
    if (o->reps < 0)
        o->reps = o->quick ? FB_REPS_QUICK : FB_REPS_DEFAULT;
    o->lookups = cli->lookups ? cli->lookups
                 : o->quick   ? FB_LOOKUPS_QUICK
                 : o->keys == FB_KEYS_URL ? FB_LOOKUPS_URL
                                          : FB_LOOKUPS_DEFAULT;
    if (o->json_path && o->csv_path && !strcmp(o->json_path, o->csv_path))
        fb_usage_error("%s", !strcmp(o->json_path, "-")
                                 ? "--json and --csv cannot both write to stdout"
                                 : "--json and --csv name the same file");
    if (o->sizes_in_keys && (o->structures & (FB_ST_SBF | FB_ST_CMS)))
        fb_usage_error("%s",
                       "--sizes-in keys applies to the filter sweep only (sbf and cms take bytes)");
    if (o->probe_only && (!o->probe_memory || o->sizes_in_keys))
        fb_usage_error("%s", "--probe-only measures --sizes in bytes and needs --probe memory");
}
