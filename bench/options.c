/*
 * flbench's options: getopt_long, --help, --version, validation (a bad option or value exits
 * 1 with one "flbench: ..." line, as filterlab does), and the default size sweep derived
 * from the caches.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fb_git.h"
#include "flbench.h"

/* Defaults: the parser and --help both read these, so the help cannot drift from them. */
enum { FB_REPS_DEFAULT = 9, FB_REPS_QUICK = 3 };
#define FB_LOOKUPS_DEFAULT (UINT64_C(1) << 20)
#define FB_LOOKUPS_URL (UINT64_C(1) << 19) /* URL keys are hashed in the timed loop: slower */
#define FB_LOOKUPS_QUICK (UINT64_C(1) << 18)
static const double default_hits[] = {0, 0.5, 1};
#define NDEFAULT_HITS (sizeof default_hits / sizeof default_hits[0])

static void parse_filters(fb_options *o, const char *spec);

/* The "Time" paragraph of --help: the default sweep's counts come from the tables the sweep
 * is built from (every variant of "--filter all", this machine's default sizes, the default
 * hit rates and repetitions), so they are this machine's and cannot go stale. */
static void help_time(FILE *f) {
    fb_options d;
    memset(&d, 0, sizeof d);
    parse_filters(&d, "all");
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

static void set_defaults(fb_options *o);

/* A list of defaults as --help shows it: "1,2,4,8". */
static void u32_list(char *buf, size_t cap, const uint32_t *v, size_t n) {
    buf[0] = 0;
    for (size_t i = 0; i < n; i++)
        snprintf(buf + strlen(buf), cap - strlen(buf), "%s%u", i ? "," : "", v[i]);
}

/* --help: every default in brackets is read from set_defaults, not written twice. */
static void usage(void) {
    fb_options d;
    set_defaults(&d);
    char hits[128] = "", sbf[128], hll[128];
    for (size_t i = 0; i < d.nhits; i++)
        snprintf(hits + strlen(hits), sizeof hits - strlen(hits), "%s%g", i ? "," : "", d.hits[i]);
    u32_list(sbf, sizeof sbf, d.sbf_filters, d.nsbf_filters);
    u32_list(hll, sizeof hll, d.hll_precisions, d.nhll_precisions);
    FILE *f = stdout;
    fprintf(f,
"usage: flbench [options]\n"
"       flbench --help | --version\n"
"\n"
"Measures filterlab through its public API: lookup time per key (batched\n"
"fl_contains_hashes), insert (build) throughput, bits per key and measured FPR, with\n"
"hardware counters when the machine has a PMU, simulated misses under callgrind, and the\n"
"physical bound of random memory access at the same footprints.\n"
"\n"
"What is measured\n"
"  -f, --filter LIST        variants: classic,block512,split256,reg64,cuckoo,counting,\n"
"                           counting512 or all [all] (see --list)\n"
"  -k, --kernel LIST        scalar,avx2,avx512,neon, auto (the one dispatch picks) or all\n"
"                           (every kernel this CPU runs natively; an emulated one, e.g.\n"
"                           neon through SIMDe on x86, only when named) [auto]\n"
"      --fpr P              target false-positive rate for sizing [%g]\n"
"      --bits-per-key B     size by bits per key instead of --fpr\n"
"  -s, --sizes SPEC         filter sizes: a list (16K,1M,256M) or a log2 range: 14..30 (2^14\n"
"                           to 2^30), 16K..1G, with :STEP in powers of two (14..30:2)\n"
"                           [default: L1d/2 to ~3x the last-level cache every 4x, capped at\n"
"                           a quarter of free memory; on a 48K/2M/260M-cache VM: 16K..1G]\n"
"      --sizes-in bytes|keys  unit of --sizes [bytes]\n"
"      --hit-rate LIST      fractions of looked-up keys that were inserted [%s]\n"
"      --batch N            keys per fl_contains_hashes call [%zu]\n"
"      --keys u64|url       u64: random 64-bit keys, hashed with fl_hash_u64 before timing;\n"
"                           url: synthetic URLs (~80 bytes) hashed with fl_hash_bytes (XXH3)\n"
"                           inside the timed region [u64]\n"
"      --lookups N          timed lookups per repetition [%llu; url %llu]\n"
"  -r, --reps N             timed repetitions per configuration [%d]\n"
"      --warmup N           untimed repetitions before them [%d]\n"
"      --interleave         run the configurations in a new random order in every\n"
"                           repetition (all filters stay resident if memory allows)\n"
"      --insert-budget N    keys inserted per (filter, kernel) over the insert repetitions;\n"
"                           big filters get fewer repetitions [%llu]. A filter that\n"
"                           gets one build is built once for all kernels, each timed on\n"
"                           its share of the insert chunks (insert_method in the results)\n"
"      --quick              fewer sizes (every 16x, at most 256 MiB), %d repetitions,\n"
"                           %llu lookups\n"
"      --seed N             key and hash seed [%llu]\n"
"\n"
"Structures (the family beyond filters; bench/README.md describes each suite)\n"
"      --structure LIST     filter,sbf,cms,hll,static, family (= sbf,cms,hll) or all\n"
"                           [filter].\n"
"                           filter: the sweep above over --filter (the counting variants\n"
"                           counting,counting512 included, with a timed delete for every\n"
"                           variant that deletes: counting, counting512, cuckoo); sbf:\n"
"                           scalable Bloom insert and batch\n"
"                           lookup at equal total size per chain length; cms: Count-Min\n"
"                           update and query (d from --cms-depth, w from the size, plus the\n"
"                           seeds' d=5 w=2719) and a top-k update; hll: HyperLogLog add,\n"
"                           estimate, merge per precision, and the sequential read bandwidth;\n"
"                           static: binary fuse fuse8, fuse16, fuse4w8, fuse4w16 and the\n"
"                           Bloomier map (8-bit values): build ns/key, batch lookup per\n"
"                           kernel and the one-key inline lookup, FPR, bits/key against\n"
"                           the bound (takes --sizes in bytes or, with --sizes-in keys, key\n"
"                           counts)\n"
"      --sbf-filters LIST   sub-filters of the measured chains, each sized so the whole\n"
"                           chain takes the --sizes bytes [%s]\n"
"      --sbf-growth G       the chains' growth factor (EXPANSION), >= 1 [%g]\n"
"      --cms-depth D        rows of the Count-Min sizes (width = size / (4 D)) [%u]\n"
"      --cms-topk K         candidates of the top-k update run (0: none) [%u]\n"
"      --hll-precisions LIST  HyperLogLog precisions p (2^p registers), %u..%u [%s]\n"
"      --bandwidth-bytes SIZE  buffer of the sequential-read bandwidth probe (hll) [4x the\n"
"                           last-level cache, at least 256M, at most 1/4 of free memory]\n"
"      --plan               print the filter sweep's sizing (variant, bytes, keys, k) and\n"
"                           exit without measuring\n"
"\n"
"Environment\n"
"      --pin CPU            pin the process to one CPU\n"
"      --huge-pages on|off  MADV_HUGEPAGE for filters and probe buffers >= 2 MiB [on]\n"
"\n"
"Counters\n"
"      --counters auto|perf|callgrind|none\n"
"                           auto/perf: perf_event_open group (user space only); without a\n"
"                           PMU every hardware counter is null in JSON, its column is left\n"
"                           out of the table, one warning says why, and the run continues.\n"
"                           callgrind: re-run each lookup configuration under\n"
"                           valgrind's cache simulator (slow; use small sizes) [auto]\n"
"      --events LIST        libpfm4 event names for the group [perf::PERF_COUNT_HW_CPU_CYCLES,\n"
"                           INSTRUCTIONS, CACHE_L1D:READ:MISS, CACHE_LL:READ:MISS,\n"
"                           CACHE_DTLB:READ:MISS, BRANCH_MISSES]\n"
"      --D1 S,A,L --LL S,A,L  simulated cache geometry (bytes,ways,line) passed to callgrind\n"
"                           [from /sys/devices/system/cpu/cpu0/cache]\n"
"      --callgrind-lookups N  lookups simulated per configuration [%llu]\n"
"      --probe memory|none  measure the physical bound (pointer chasing and prefetched\n"
"                           random lines) at every filter footprint [memory]\n"
"      --probe-distance N   prefetch distance of the random-line probe, in lines [%d]\n"
"      --probe-only         only the memory probe, at --sizes (bytes); no filters\n"
"\n"
"Output\n"
"      --json FILE          Google-Benchmark-shaped JSON (repetitions and aggregates);\n"
"                           - writes it to stdout and the table to stderr\n"
"      --csv FILE           one row per configuration, units in the column names\n"
"      --list               print variants, kernels, caches and the default sweep; exit\n"
"  -q, --quiet              no progress and no status lines on stderr (warnings and\n"
"                           errors still appear); progress is shown only when stderr is\n"
"                           a terminal\n"
"  -h, --help               this text\n"
"  -V, --version            one line: program, library version, git commit\n",
            /* in the order of the text above */
            d.fpr, hits, d.batch, (unsigned long long)FB_LOOKUPS_DEFAULT,
            (unsigned long long)FB_LOOKUPS_URL, FB_REPS_DEFAULT, d.warmup,
            (unsigned long long)d.insert_budget, FB_REPS_QUICK,
            (unsigned long long)FB_LOOKUPS_QUICK, (unsigned long long)d.seed, sbf, d.sbf_growth,
            d.cms_depth, d.cms_topk, (unsigned)FL_HLL_P_MIN, (unsigned)FL_HLL_P_MAX, hll,
            (unsigned long long)d.cg_lookups, d.probe_distance);
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

enum {
    OPT_FPR = 256, OPT_BPK, OPT_SIZES_IN, OPT_HIT, OPT_BATCH, OPT_KEYS, OPT_LOOKUPS, OPT_WARMUP,
    OPT_INTERLEAVE, OPT_PIN, OPT_HUGE, OPT_COUNTERS, OPT_EVENTS, OPT_JSON, OPT_CSV, OPT_PROBE,
    OPT_PROBE_DIST, OPT_QUICK, OPT_SEED, OPT_D1, OPT_LL, OPT_CG_LOOKUPS, OPT_CG_CHILD,
    OPT_INSERT_BUDGET, OPT_LIST, OPT_PROBE_ONLY, OPT_STRUCTURE, OPT_SBF_FILTERS, OPT_SBF_GROWTH,
    OPT_CMS_DEPTH, OPT_CMS_TOPK, OPT_HLL_P, OPT_BANDWIDTH_BYTES, OPT_PLAN
};

/* A usage error: one line, exit 1. */
static _Noreturn void die(const char *fmt, const char *arg) {
    fprintf(stderr, "flbench: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (see 'flbench --help')\n");
    exit(1);
}

static uint64_t parse_u64(const char *s, const char *what) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s || *end || s[0] == '-')
        die("bad number for %s", what);
    return v;
}

static double parse_double(const char *s, const char *what) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v))
        die("bad number for %s", what);
    return v;
}

/* "64K", "1MiB", "2G", "4096", "2^20". */
static int parse_size(const char *s, uint64_t *out) {
    char *end;
    if (!strncmp(s, "2^", 2)) {
        unsigned long e = strtoul(s + 2, &end, 10);
        if (*end || e > 62)
            return -1;
        *out = UINT64_C(1) << e;
        return 0;
    }
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || v < 0)
        return -1;
    uint64_t mul = 1;
    if (*end) {
        char u = (char)(*end | 0x20);
        mul = u == 'k' ? UINT64_C(1) << 10 : u == 'm' ? UINT64_C(1) << 20
            : u == 'g' ? UINT64_C(1) << 30 : u == 't' ? UINT64_C(1) << 40 : 0;
        if (!mul)
            return -1;
        end++;
        if (!strcasecmp(end, "ib") || !strcasecmp(end, "b"))
            end += strlen(end);
        if (*end)
            return -1;
    }
    *out = (uint64_t)(v * (double)mul + 0.5);
    return *out ? 0 : -1;
}

static void add_size(fb_options *o, uint64_t v) {
    uint64_t *n = realloc(o->sizes, (o->nsizes + 1) * sizeof *n);
    if (!n) {
        fprintf(stderr, "flbench: out of memory\n");
        exit(2);
    }
    o->sizes = n;
    o->sizes[o->nsizes++] = v;
}

static void parse_sizes(fb_options *o, const char *spec) {
    o->nsizes = 0;
    const char *dots = strstr(spec, "..");
    if (dots) {
        char a[64], b[64];
        size_t la = (size_t)(dots - spec);
        if (la >= sizeof a)
            die("bad --sizes range '%s'", spec);
        memcpy(a, spec, la);
        a[la] = 0;
        snprintf(b, sizeof b, "%s", dots + 2);
        unsigned step = 1;
        char *colon = strchr(b, ':');
        if (colon) {
            *colon = 0;
            step = (unsigned)parse_u64(colon + 1, "--sizes step");
            if (step == 0 || step > 16)
                die("bad --sizes step in '%s'", spec);
        }
        uint64_t lo = 0, hi = 0;
        char *end;
        unsigned long ea = strtoul(a, &end, 10);
        int exps = *end == 0 && ea < 63;
        unsigned long eb = strtoul(b, &end, 10);
        exps = exps && *end == 0 && eb < 63;
        if (exps) {
            lo = UINT64_C(1) << ea;
            hi = UINT64_C(1) << eb;
        } else if (parse_size(a, &lo) || parse_size(b, &hi)) {
            die("bad --sizes range '%s'", spec);
        }
        if (lo > hi)
            die("empty --sizes range '%s'", spec);
        for (uint64_t v = lo; v <= hi; v <<= step) {
            add_size(o, v);
            if (v > (UINT64_MAX >> step))
                break;
        }
        return;
    }
    char *copy = strdup(spec), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        uint64_t v;
        if (parse_size(t, &v))
            die("bad size '%s' in --sizes", t);
        add_size(o, v);
    }
    free(copy);
    if (!o->nsizes)
        die("empty --sizes '%s'", spec);
}

static void parse_filters(fb_options *o, const char *spec) {
    o->nvariants = 0;
    if (!strcmp(spec, "all")) {
        for (int v = FL_VARIANT_MIN; v <= FL_VARIANT_MAX; v++)
            o->variants[o->nvariants++] = (fl_variant)v;
        return;
    }
    char *copy = strdup(spec), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        fl_variant v;
        if (fl_variant_parse(t, &v) != FL_OK)
            die("unknown filter '%s' (see --list; or all)", t);
        if (o->nvariants == FB_MAX_VARIANTS)
            die("too many filters in '%s'", spec);
        o->variants[o->nvariants++] = v;
    }
    free(copy);
}

static void parse_kernels(fb_options *o, const char *spec) {
    o->nkernels = 0;
    size_t nk = fl_kernel_count();
    if (!strcmp(spec, "all")) {
        for (size_t i = 0; i < nk && o->nkernels < FB_MAX_KERNELS; i++) {
            fl_kernel_desc d;
            /* Emulated kernels (NEON through SIMDe on x86) are correct but not fast: only
             * benchmarked when named. */
            if (fl_kernel_describe(i, &d) == FL_OK && d.supported && !d.emulated)
                snprintf(o->kernels[o->nkernels++], sizeof o->kernels[0], "%s", d.name);
        }
        if (!o->nkernels)
            die("no supported kernel (%s)", spec);
        return;
    }
    char *copy = strdup(spec), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        const char *name = t;
        /* "auto": the library's choice per module entry and payload size (binding "auto"
         * leaves an object on it), not one ISA. */
        int found = !strcmp(t, "auto");
        for (size_t i = 0; i < nk; i++) {
            fl_kernel_desc d;
            if (fl_kernel_describe(i, &d) != FL_OK || strcmp(d.name, name))
                continue;
            found = 1;
            /* Under valgrind (the callgrind child) the synthetic CPU may lack the kernel's
             * ISA: the child reports that itself instead of failing here. */
            if (!d.supported && !o->cg_child)
                die("kernel '%s' is compiled in but this CPU cannot run it", name);
        }
        if (!found)
            die("unknown kernel '%s' (see --list)", name);
        if (o->nkernels == FB_MAX_KERNELS)
            die("too many kernels in '%s'", spec);
        snprintf(o->kernels[o->nkernels++], sizeof o->kernels[0], "%s", name);
    }
    free(copy);
}

static void parse_hits(fb_options *o, const char *spec) {
    o->nhits = 0;
    char *copy = strdup(spec), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        double h = parse_double(t, "--hit-rate");
        if (h < 0 || h > 1)
            die("--hit-rate values must be in [0, 1], not %s", t);
        if (o->nhits == FB_MAX_HITS)
            die("too many hit rates in '%s'", spec);
        o->hits[o->nhits++] = h;
    }
    free(copy);
    if (!o->nhits)
        die("empty --hit-rate '%s'", spec);
}

static void parse_structures(fb_options *o, const char *spec) {
    o->structures = 0;
    char *copy = strdup(spec), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (!strcmp(t, "filter")) o->structures |= FB_ST_FILTER;
        else if (!strcmp(t, "sbf")) o->structures |= FB_ST_SBF;
        else if (!strcmp(t, "cms")) o->structures |= FB_ST_CMS;
        else if (!strcmp(t, "hll")) o->structures |= FB_ST_HLL;
        else if (!strcmp(t, "static")) o->structures |= FB_ST_STATIC;
        else if (!strcmp(t, "family")) o->structures |= FB_ST_SBF | FB_ST_CMS | FB_ST_HLL;
        else if (!strcmp(t, "all"))
            o->structures |= FB_ST_FILTER | FB_ST_SBF | FB_ST_CMS | FB_ST_HLL | FB_ST_STATIC;
        else
            die("unknown structure '%s' (filter, sbf, cms, hll, static, family, all)", t);
    }
    free(copy);
    if (!o->structures)
        die("empty --structure '%s'", spec);
}

/* A comma-separated list of integers in [lo, hi] into v (at most FB_MAX_PARAMS). */
static size_t parse_u32_list(const char *spec, const char *what, uint32_t lo, uint32_t hi,
                             uint32_t *v) {
    size_t n = 0;
    char *copy = strdup(spec), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        uint64_t x = parse_u64(t, what);
        if (x < lo || x > hi) {
            char msg[96];
            snprintf(msg, sizeof msg, "%s values must be in %u..%u, not %%s", what, lo, hi);
            die(msg, t);
        }
        if (n == FB_MAX_PARAMS)
            die("too many values in %s", what);
        v[n++] = (uint32_t)x;
    }
    free(copy);
    if (!n)
        die("empty %s", what);
    return n;
}

static uint64_t pow2_floor(uint64_t x) {
    uint64_t p = 1;
    while (p <= x / 2)
        p *= 2;
    return p;
}

static uint64_t pow2_ceil(uint64_t x) {
    uint64_t p = 1;
    while (p < x)
        p *= 2;
    return p;
}

/* L1d/2 up to ~3x the last-level cache (rounded up to a power of two), every 4x, never above
 * a quarter of the available memory. --quick: every 16x and at most 256 MiB, because
 * building GiB-sized filters dominates the run time (about a minute each for classic and
 * cuckoo on a 2-vCPU VM). */
void fb_default_sizes(fb_options *o, const fb_machine *m) {
    uint64_t lo = m->l1d ? pow2_floor(m->l1d / 2) : (UINT64_C(1) << 14);
    uint64_t hi = m->llc ? pow2_ceil(3 * m->llc) : (UINT64_C(1) << 28);
    if (o->quick && hi > (UINT64_C(1) << 28))
        hi = UINT64_C(1) << 28;
    if (m->mem_available && hi > pow2_floor(m->mem_available / 4))
        hi = pow2_floor(m->mem_available / 4);
    if (hi < lo)
        hi = lo;
    unsigned step = o->quick ? 4 : 2;
    o->nsizes = 0;
    uint64_t v = lo;
    for (; v <= hi; v <<= step)
        add_size(o, v);
    if (o->sizes[o->nsizes - 1] != hi)
        add_size(o, hi);
    o->sizes_default = 1;
}

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
        die("option '%s' needs a value", name);
    }
    if (is_long && strncmp(name, "--", 2) == 0) {
        const char *n = name + 2;
        size_t len = strlen(n), matches = 0;
        char list[512] = "";
        for (const struct option *lo = longopts; lo->name; lo++) {
            if (!strcmp(lo->name, n) && lo->has_arg == no_argument)
                die("option '%s' takes no value", name);
            if (!strncmp(lo->name, n, len) && strcmp(lo->name, "cg-child")) {
                matches++;
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s--%s",
                         matches > 1 ? ", " : "", lo->name);
            }
        }
        if (matches > 1) {
            char msg[700];
            snprintf(msg, sizeof msg, "ambiguous option '%%s' (%s)", list);
            die(msg, name);
        }
    }
    die("unknown option '%s'", name);
}

/* Every default of the options (--help prints them from here). reps and lookups stay unset
 * (-1, 0): they depend on --quick and --keys, resolved after parsing. */
static void set_defaults(fb_options *o) {
    memset(o, 0, sizeof *o);
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
    o->cms_topk = 100;
    memcpy(o->hll_precisions, hll_default, sizeof hll_default);
    o->nhll_precisions = sizeof hll_default / sizeof hll_default[0];
}

void fb_options_parse(fb_options *o, fb_cli *cli, int argc, char **argv) {
    set_defaults(o);
    memset(cli, 0, sizeof *cli);
    o->argc = argc;
    o->argv = argv;
    const char *filters = "all", *kernels = "auto";
    int have_fpr = 0;
    uint64_t lookups = 0;

    static const struct option longopts[] = {
        {"filter", required_argument, 0, 'f'},
        {"kernel", required_argument, 0, 'k'},
        {"fpr", required_argument, 0, OPT_FPR},
        {"bits-per-key", required_argument, 0, OPT_BPK},
        {"sizes", required_argument, 0, 's'},
        {"sizes-in", required_argument, 0, OPT_SIZES_IN},
        {"hit-rate", required_argument, 0, OPT_HIT},
        {"batch", required_argument, 0, OPT_BATCH},
        {"keys", required_argument, 0, OPT_KEYS},
        {"lookups", required_argument, 0, OPT_LOOKUPS},
        {"reps", required_argument, 0, 'r'},
        {"warmup", required_argument, 0, OPT_WARMUP},
        {"interleave", no_argument, 0, OPT_INTERLEAVE},
        {"insert-budget", required_argument, 0, OPT_INSERT_BUDGET},
        {"pin", required_argument, 0, OPT_PIN},
        {"huge-pages", required_argument, 0, OPT_HUGE},
        {"counters", required_argument, 0, OPT_COUNTERS},
        {"events", required_argument, 0, OPT_EVENTS},
        {"json", required_argument, 0, OPT_JSON},
        {"csv", required_argument, 0, OPT_CSV},
        {"probe", required_argument, 0, OPT_PROBE},
        {"probe-distance", required_argument, 0, OPT_PROBE_DIST},
        {"quick", no_argument, 0, OPT_QUICK},
        {"probe-only", no_argument, 0, OPT_PROBE_ONLY},
        {"seed", required_argument, 0, OPT_SEED},
        {"D1", required_argument, 0, OPT_D1},
        {"LL", required_argument, 0, OPT_LL},
        {"callgrind-lookups", required_argument, 0, OPT_CG_LOOKUPS},
        {"cg-child", no_argument, 0, OPT_CG_CHILD},
        {"list", no_argument, 0, OPT_LIST},
        {"structure", required_argument, 0, OPT_STRUCTURE},
        {"sbf-filters", required_argument, 0, OPT_SBF_FILTERS},
        {"sbf-growth", required_argument, 0, OPT_SBF_GROWTH},
        {"cms-depth", required_argument, 0, OPT_CMS_DEPTH},
        {"cms-topk", required_argument, 0, OPT_CMS_TOPK},
        {"hll-precisions", required_argument, 0, OPT_HLL_P},
        {"bandwidth-bytes", required_argument, 0, OPT_BANDWIDTH_BYTES},
        {"plan", no_argument, 0, OPT_PLAN},
        {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'},
        {0, 0, 0, 0}};
    int c;
    opterr = 0; /* bad options get one line from option_error, not getopt's two */
    while ((c = getopt_long(argc, argv, ":f:k:s:r:qhV", longopts, NULL)) != -1) {
        switch (c) {
        case 'f': filters = optarg; break;
        case 'k': kernels = optarg; break;
        case 's': cli->sizes = optarg; break;
        case 'r':
            o->reps = (int)parse_u64(optarg, "--reps");
            if (o->reps < 1 || o->reps > 1000)
                die("--reps must be in 1..1000, not %s", optarg);
            break;
        case OPT_FPR:
            o->fpr = parse_double(optarg, "--fpr");
            if (!(o->fpr > 0 && o->fpr < 1))
                die("--fpr must be in (0, 1), not %s", optarg);
            have_fpr = 1;
            break;
        case OPT_BPK:
            o->bits_per_key = parse_double(optarg, "--bits-per-key");
            if (!(o->bits_per_key > 0 && o->bits_per_key <= 64))
                die("--bits-per-key must be in (0, 64], not %s", optarg);
            o->use_bpk = 1;
            break;
        case OPT_SIZES_IN:
            if (!strcmp(optarg, "keys")) o->sizes_in_keys = 1;
            else if (!strcmp(optarg, "bytes")) o->sizes_in_keys = 0;
            else die("--sizes-in takes bytes or keys, not %s", optarg);
            break;
        case OPT_HIT: parse_hits(o, optarg); break;
        case OPT_BATCH:
            o->batch = (size_t)parse_u64(optarg, "--batch");
            if (o->batch < 1 || o->batch > (1u << 20))
                die("--batch must be in 1..1048576, not %s", optarg);
            break;
        case OPT_KEYS:
            if (!strcmp(optarg, "u64")) o->keys = FB_KEYS_U64;
            else if (!strcmp(optarg, "url")) o->keys = FB_KEYS_URL;
            else die("--keys takes u64 or url, not %s", optarg);
            break;
        case OPT_LOOKUPS:
            lookups = parse_u64(optarg, "--lookups");
            if (lookups < 1 || lookups > (UINT64_C(1) << 28))
                die("--lookups must be in 1..2^28, not %s", optarg);
            break;
        case OPT_WARMUP:
            o->warmup = (int)parse_u64(optarg, "--warmup");
            if (o->warmup > 100)
                die("--warmup must be in 0..100, not %s", optarg);
            break;
        case OPT_INTERLEAVE: o->interleave = 1; break;
        case OPT_INSERT_BUDGET: o->insert_budget = parse_u64(optarg, "--insert-budget"); break;
        case OPT_PIN: o->pin_cpu = (int)parse_u64(optarg, "--pin"); break;
        case OPT_HUGE:
            if (!strcmp(optarg, "on")) o->huge_pages = 1;
            else if (!strcmp(optarg, "off")) o->huge_pages = 0;
            else die("--huge-pages takes on or off, not %s", optarg);
            break;
        case OPT_COUNTERS:
            if (!strcmp(optarg, "auto")) o->counters = FB_CNT_AUTO;
            else if (!strcmp(optarg, "perf")) o->counters = FB_CNT_PERF;
            else if (!strcmp(optarg, "callgrind")) o->counters = FB_CNT_CALLGRIND;
            else if (!strcmp(optarg, "none")) o->counters = FB_CNT_NONE;
            else die("--counters takes auto, perf, callgrind or none, not %s", optarg);
            break;
        case OPT_EVENTS: o->events = optarg; break;
        case OPT_JSON: o->json_path = optarg; break;
        case OPT_CSV: o->csv_path = optarg; break;
        case OPT_PROBE:
            if (!strcmp(optarg, "memory")) o->probe_memory = 1;
            else if (!strcmp(optarg, "none")) o->probe_memory = 0;
            else die("--probe takes memory or none, not %s", optarg);
            break;
        case OPT_PROBE_DIST:
            o->probe_distance = (int)parse_u64(optarg, "--probe-distance");
            if (o->probe_distance > 4096)
                die("--probe-distance must be in 0..4096, not %s", optarg);
            break;
        case OPT_QUICK: o->quick = 1; break;
        case OPT_PROBE_ONLY: o->probe_only = 1; break;
        case OPT_SEED: o->seed = parse_u64(optarg, "--seed"); break;
        case OPT_D1: o->cg_d1 = optarg; break;
        case OPT_LL: o->cg_ll = optarg; break;
        case OPT_CG_LOOKUPS:
            o->cg_lookups = parse_u64(optarg, "--callgrind-lookups");
            if (o->cg_lookups < 1)
                die("--callgrind-lookups must be positive, not %s", optarg);
            break;
        case OPT_CG_CHILD: o->cg_child = 1; break;
        case OPT_LIST: cli->list = 1; break;
        case OPT_STRUCTURE: parse_structures(o, optarg); break;
        case OPT_SBF_FILTERS:
            o->nsbf_filters = parse_u32_list(optarg, "--sbf-filters", 1, FL_SBF_FILTERS_MAX,
                                             o->sbf_filters);
            break;
        case OPT_SBF_GROWTH:
            o->sbf_growth = parse_double(optarg, "--sbf-growth");
            if (!(o->sbf_growth >= 1 && o->sbf_growth <= 64))
                die("--sbf-growth must be in [1, 64], not %s", optarg);
            break;
        case OPT_CMS_DEPTH:
            o->cms_depth = (uint32_t)parse_u64(optarg, "--cms-depth");
            if (o->cms_depth < 1 || o->cms_depth > FL_CMS_DEPTH_MAX)
                die("--cms-depth must be in 1..32, not %s", optarg);
            break;
        case OPT_CMS_TOPK:
            o->cms_topk = (uint32_t)parse_u64(optarg, "--cms-topk");
            if (o->cms_topk > FL_CMS_TOPK_MAX)
                die("--cms-topk must be at most 65536, not %s", optarg);
            break;
        case OPT_HLL_P:
            o->nhll_precisions = parse_u32_list(optarg, "--hll-precisions", FL_HLL_P_MIN,
                                                FL_HLL_P_MAX, o->hll_precisions);
            break;
        case OPT_BANDWIDTH_BYTES:
            if (parse_size(optarg, &o->bandwidth_bytes) || o->bandwidth_bytes < 4096)
                die("bad --bandwidth-bytes '%s' (at least 4K)", optarg);
            break;
        case OPT_PLAN: o->plan_only = 1; break;
        case 'q': o->quiet = 1; break;
        case 'h': usage(); exit(0);
        case 'V': version(); exit(0);
        default: option_error(c, argv, longopts);
        }
    }
    if (optind < argc)
        die("unexpected argument '%s'", argv[optind]);
    if (have_fpr && o->use_bpk)
        die("%s", "give --fpr or --bits-per-key, not both");
    if (o->events && o->counters != FB_CNT_AUTO && o->counters != FB_CNT_PERF)
        die("%s", "--events needs --counters auto or perf");
    for (const char *g = o->cg_d1; g; g = NULL) {
        unsigned long a, b, cc;
        if (sscanf(g, "%lu,%lu,%lu", &a, &b, &cc) != 3)
            die("--D1 takes size,assoc,line, not %s", g);
    }
    for (const char *g = o->cg_ll; g; g = NULL) {
        unsigned long a, b, cc;
        if (sscanf(g, "%lu,%lu,%lu", &a, &b, &cc) != 3)
            die("--LL takes size,assoc,line, not %s", g);
    }

    fl_status env_st = fl_kernel_env_status();
    if (env_st != FL_OK && !o->cg_child) {
        fprintf(stderr, "flbench: FILTERLAB_KERNEL=%s: %s\n", getenv("FILTERLAB_KERNEL"),
                fl_strerror(env_st));
        exit(1);
    }
    parse_filters(o, filters);
    parse_kernels(o, kernels);
    if (o->reps < 0)
        o->reps = o->quick ? FB_REPS_QUICK : FB_REPS_DEFAULT;
    o->lookups = lookups ? lookups
                        : o->quick ? FB_LOOKUPS_QUICK
                                  : o->keys == FB_KEYS_URL ? FB_LOOKUPS_URL : FB_LOOKUPS_DEFAULT;
    if (o->json_path && o->csv_path && !strcmp(o->json_path, o->csv_path))
        die("%s", !strcmp(o->json_path, "-") ? "--json and --csv cannot both write to stdout"
                                             : "--json and --csv name the same file");
    if (o->sizes_in_keys && (o->structures & (FB_ST_SBF | FB_ST_CMS)))
        die("%s", "--sizes-in keys applies to the filter sweep only (sbf and cms take bytes)");
    if (o->probe_only && (!o->probe_memory || o->sizes_in_keys))
        die("%s", "--probe-only measures --sizes in bytes and needs --probe memory");
}

void fb_options_sizes(fb_options *o, const fb_cli *cli, const fb_machine *m) {
    if (cli->sizes)
        parse_sizes(o, cli->sizes);
    else
        fb_default_sizes(o, m);
}
