/*
 * The family's speed targets (scripts/bench-family lists them), measured through the public API with
 * whatever kernel dispatch picks (FILTERLAB_KERNEL chooses another):
 *   hll_add_young / hll_add_warm  fl_hll_add_u64s, p = 14, batches of 1024 integer keys
 *                                 (murmur8 + add), into a dense sketch holding 0 / all of
 *                                 the keys (a young sketch raises a register on ~1 key in
 *                                 10, a warm one on almost none)
 *   hll_estimate / hll_merge      fl_hll_estimate of a dense p = 14 sketch, fl_hll_merge of
 *                                 two: ns per register (5 us per estimate = 0.305)
 *   cms_update / cms_query        fl_cms_add_u64s / fl_cms_query_u64s, d = 5, w = 2719
 *                                 (epsilon 0.001, delta 0.01), batches of 4096 integer keys
 *   counting512_1mib / block512_same_n
 *                                 batch lookup (half present keys) of a counting512 filter
 *                                 of about 1 MiB and of a block512 filter for the same keys
 *                                 and FPR
 *   sbf4_<size> / one_<size>      batch lookup (no / half present keys) of a scalable Bloom
 *                                 filter with 4 sub-filters and of one block512 filter of
 *                                 the same payload bytes holding the same keys
 * Times are thread CPU time (CLOCK_THREAD_CPUTIME_ID), so another process taking the core
 * does not count, though its cache traffic still does; each rep is one timed pass after an
 * untimed one, the reps of all cases interleaved (A B C .. A B C ..). Prints one JSON object per line:
 *   {"case": ..., "ns_per_key": [rep, ...], "kernel": ..., "bytes": ...}
 * scripts/family-speed runs this against one or two builds and writes the result files.
 *
 *   family_targets [REPS]
 *   family_targets --one CASE     sets up only CASE and runs one pass of it, printing
 *                                 nothing: for valgrind --tool=callgrind
 *   family_targets --setup CASE   sets up only CASE (the count to subtract)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "filterlab.h"
#include "filterlab_cms.h"
#include "filterlab_hll.h"
#include "filterlab_sbf.h"

#define MAX_CASES 32
#define MAX_REPS 64

static double cpu_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void die(const char *what, fl_status st) {
    fprintf(stderr, "family_targets: %s: %s\n", what, fl_strerror(st));
    exit(1);
}
#define CHECK(what, call)                                                                        \
    do {                                                                                         \
        fl_status st_ = (call);                                                                  \
        if (st_ != FL_OK) die(what, st_);                                                        \
    } while (0)

typedef struct bench_case {
    char name[48];
    size_t bytes;
    double (*run)(struct bench_case *); /* one rep: ns per key */
    double reps[MAX_REPS];
    /* state */
    fl_hll *hll, *hll2;
    int hll_warm;
    fl_cms *cms;
    int cms_query;
    fl_filter *filter;
    fl_sbf *sbf;
    uint64_t *keys;
    size_t nkeys;
    uint8_t *out8;
    uint32_t *out32;
} bench_case;

static volatile size_t sink;

/* ---- HyperLogLog ------------------------------------------------------------------------- */

#define HLL_KEYS ((size_t)1 << 18)
static double run_hll(bench_case *c) {
    if (!c->hll_warm) {
        fl_hll_free(c->hll);
        CHECK("hll create", fl_hll_create(14, &c->hll));
        CHECK("hll dense", fl_hll_to_dense(c->hll));
    }
    double t0 = cpu_ns();
    for (size_t i = 0; i < c->nkeys; i += 1024) {
        int changed = 0;
        fl_hll_add_u64s(c->hll, c->keys + i, 1024, &changed);
        sink += (size_t)changed;
    }
    return (cpu_ns() - t0) / (double)c->nkeys;
}

#define HLL_OPS 64
static double run_hll_whole(bench_case *c) {
    double t0 = cpu_ns();
    for (int i = 0; i < HLL_OPS; i++) {
        if (c->hll_warm) { /* merge */
            fl_hll_merge(c->hll, c->hll2);
        } else {
            uint64_t est = 0;
            fl_hll_estimate(c->hll, &est);
            sink += (size_t)est;
        }
    }
    return (cpu_ns() - t0) / (double)(HLL_OPS * 16384);
}

/* ---- Count-Min ----------------------------------------------------------------------------- */

#define CMS_KEYS ((size_t)1 << 18)
static double run_cms(bench_case *c) {
    double t0 = cpu_ns();
    for (size_t i = 0; i < c->nkeys; i += 4096) {
        if (c->cms_query) {
            fl_cms_query_u64s(c->cms, c->keys + i, 4096, c->out32);
            sink += c->out32[7];
        } else {
            fl_cms_add_u64s(c->cms, c->keys + i, 4096, NULL);
        }
    }
    return (cpu_ns() - t0) / (double)c->nkeys;
}

/* ---- filters and chains: batch lookups of pre-hashed keys --------------------------------- */

#define LOOKUP_KEYS ((size_t)1 << 17)
static double run_filter(bench_case *c) {
    double t0 = cpu_ns();
    for (size_t i = 0; i < c->nkeys; i += 1024) {
        size_t pos = 0;
        if (c->sbf)
            fl_sbf_contains_hashes(c->sbf, c->keys + i, 1024, c->out8, &pos);
        else
            fl_contains_hashes(c->filter, c->keys + i, 1024, c->out8, &pos);
        sink += pos;
    }
    return (cpu_ns() - t0) / (double)c->nkeys;
}

/* Lookup keys: `present_pct` % drawn from the inserted ones, the rest fresh. */
static uint64_t *lookup_keys(const uint64_t *in, size_t nin, int present_pct, uint64_t *seed) {
    uint64_t *q = malloc(LOOKUP_KEYS * 8);
    if (!q) die("malloc", FL_ERR_NO_MEMORY);
    for (size_t i = 0; i < LOOKUP_KEYS; i++)
        q[i] = (int)(splitmix(seed) % 100) < present_pct ? in[splitmix(seed) % nin] : splitmix(seed);
    return q;
}

static uint64_t *random_keys(size_t n, uint64_t *seed) {
    uint64_t *k = malloc(n * 8);
    if (!k) die("malloc", FL_ERR_NO_MEMORY);
    for (size_t i = 0; i < n; i++) k[i] = splitmix(seed);
    return k;
}

static bench_case *add_case(bench_case *cs, size_t *nc, const char *name) {
    if (*nc >= MAX_CASES) die("too many cases", FL_ERR_INVALID_ARG);
    bench_case *c = &cs[(*nc)++];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", name);
    c->out8 = malloc(4096);
    c->out32 = malloc(4096 * 4);
    if (!c->out8 || !c->out32) die("malloc", FL_ERR_NO_MEMORY);
    return c;
}

static const char *only; /* --one / --setup CASE */
static int setup_only;

/* Whether a case group whose names start with `prefix` is set up. */
static int wanted(const char *prefix) {
    return !only || strncmp(only, prefix, strlen(prefix)) == 0;
}

int main(int argc, char **argv) {
    int reps = 9;
    if (argc == 3 && (strcmp(argv[1], "--one") == 0 || strcmp(argv[1], "--setup") == 0)) {
        only = argv[2];
        setup_only = argv[1][2] == 's';
    }
    else if (argc > 1)
        reps = atoi(argv[1]);
    if (argc > 3 || reps < 1 || reps > MAX_REPS) {
        fprintf(stderr, "usage: family_targets [REPS (1..%d)] | --one CASE | --setup CASE\n",
                MAX_REPS);
        return 2;
    }
    static bench_case cs[MAX_CASES];
    size_t nc = 0;
    uint64_t seed = 11;

    bench_case *c;
    if (wanted("hll_add")) {
        uint64_t *hkeys = random_keys(HLL_KEYS, &seed);
        if (wanted("hll_add_young")) {
            c = add_case(cs, &nc, "hll_add_young");
            c->run = run_hll, c->keys = hkeys, c->nkeys = HLL_KEYS, c->bytes = 16384;
        }
        if (wanted("hll_add_warm")) {
            c = add_case(cs, &nc, "hll_add_warm");
            c->run = run_hll, c->keys = hkeys, c->nkeys = HLL_KEYS, c->bytes = 16384;
            c->hll_warm = 1;
            CHECK("hll create", fl_hll_create(14, &c->hll));
            CHECK("hll warm", fl_hll_add_u64s(c->hll, hkeys, HLL_KEYS, NULL));
        }
    }
    if (wanted("hll_estimate") || wanted("hll_merge")) {
        uint64_t *k = random_keys(HLL_KEYS, &seed);
        for (int merge = 0; merge < 2; merge++) {
            if (!wanted(merge ? "hll_merge" : "hll_estimate")) continue;
            c = add_case(cs, &nc, merge ? "hll_merge" : "hll_estimate");
            c->run = run_hll_whole, c->bytes = 16384, c->hll_warm = merge;
            CHECK("hll create", fl_hll_create(14, &c->hll));
            CHECK("hll create", fl_hll_create(14, &c->hll2));
            CHECK("hll add", fl_hll_add_u64s(c->hll, k, HLL_KEYS / 2, NULL));
            CHECK("hll add", fl_hll_add_u64s(c->hll2, k + HLL_KEYS / 2, HLL_KEYS / 2, NULL));
        }
        free(k);
    }

    uint64_t *ckeys = wanted("cms") ? random_keys(CMS_KEYS, &seed) : NULL;
    for (int q = 0; q < 2 && ckeys; q++) {
        if (!wanted(q ? "cms_query" : "cms_update")) continue;
        c = add_case(cs, &nc, q ? "cms_query" : "cms_update");
        fl_cms_config cfg = {.width = 2719, .depth = 5};
        CHECK("cms create", fl_cms_create(&cfg, &c->cms));
        c->run = run_cms, c->keys = ckeys, c->nkeys = CMS_KEYS, c->cms_query = q;
        c->bytes = 2719 * 5 * 4;
        if (q) CHECK("cms fill", fl_cms_add_u64s(c->cms, ckeys, CMS_KEYS, NULL));
    }

    /* Counting512 of about 1 MiB at 1% FPR, and block512 for the same keys and FPR. */
    if (wanted("counting512") || wanted("block512")) {
        fl_params pr;
        size_t n = 1u << 20;
        CHECK("params", fl_params_for(FL_COUNTING512, n, 0.01, &pr));
        n = (size_t)((double)n * (1048576.0 / (double)pr.bytes)); /* scale to ~1 MiB */
        uint64_t *in = random_keys(n, &seed);
        uint64_t *q = lookup_keys(in, n, 50, &seed);
        const fl_variant vs[2] = {FL_COUNTING512, FL_BLOCK512};
        const char *names[2] = {"counting512_1mib", "block512_same_n"};
        for (int v = 0; v < 2; v++) {
            c = add_case(cs, &nc, names[v]);
            CHECK("filter", fl_create_for(vs[v], n, 0.01, &c->filter));
            CHECK("insert", fl_insert_hashes(c->filter, in, n, NULL));
            fl_info fi;
            CHECK("info", fl_get_info(c->filter, &fi));
            c->run = run_filter, c->keys = q, c->nkeys = LOOKUP_KEYS, c->bytes = fi.bytes;
        }
    }

    /* Scalable Bloom, 4 sub-filters (capacities C, 2C, 4C, 8C; the last half full), against
     * one block512 filter of the same payload holding the same keys. */
    static const uint64_t caps[] = {10000, 100000, 1000000};
    for (size_t ci = 0; ci < sizeof caps / sizeof caps[0] && (wanted("sbf4") || wanted("one_")); ci++) {
        fl_sbf_config cfg = {.capacity = caps[ci], .error_rate = 0.01};
        fl_sbf *s;
        CHECK("sbf", fl_sbf_create(&cfg, &s));
        size_t nadd = (size_t)caps[ci] * 11;
        uint64_t *in = random_keys(nadd, &seed);
        CHECK("sbf add", fl_sbf_add_hashes(s, in, nadd, NULL, NULL));
        size_t total = 0;
        fl_sbf_info si;
        CHECK("info", fl_sbf_get_info(s, &si));
        if (si.filters != 4) die("not 4 sub-filters", FL_ERR_INVALID_ARG);
        total = si.bytes;
        fl_params pr;
        CHECK("params", fl_params_for_bytes(FL_BLOCK512, nadd, total, &pr));
        fl_config one_cfg = {.variant = FL_BLOCK512, .geometry = pr.geometry};
        fl_filter *one;
        CHECK("one", fl_create(&one_cfg, &one));
        CHECK("one insert", fl_insert_hashes(one, in, nadd, NULL));
        for (int pct = 0; pct <= 50; pct += 50) {
            uint64_t *q = lookup_keys(in, nadd, pct, &seed);
            char name[48];
            snprintf(name, sizeof name, "sbf4_%zukib_%dpct", total >> 10, pct);
            c = add_case(cs, &nc, name);
            c->sbf = s, c->run = run_filter, c->keys = q, c->nkeys = LOOKUP_KEYS, c->bytes = total;
            snprintf(name, sizeof name, "one_%zukib_%dpct", total >> 10, pct);
            c = add_case(cs, &nc, name);
            c->filter = one, c->run = run_filter, c->keys = q, c->nkeys = LOOKUP_KEYS, c->bytes = total;
        }
    }

    if (only) {
        for (size_t i = 0; i < nc && !setup_only; i++)
            if (strcmp(cs[i].name, only) == 0) cs[i].run(&cs[i]);
        return 0;
    }

    /* Reps interleaved across the cases, each timed pass right after an untimed one of the
     * same case (the cases before it evicted its payload: the timed pass measures a warm
     * structure, as the targets mean). */
    for (int r = 0; r < reps; r++)
        for (size_t i = 0; i < nc; i++) {
            cs[i].run(&cs[i]);
            cs[i].reps[r] = cs[i].run(&cs[i]);
        }

    const char *kernel = fl_kernel_active();
    for (size_t i = 0; i < nc; i++) {
        printf("{\"case\": \"%s\", \"kernel\": \"%s\", \"bytes\": %zu, \"ns_per_key\": [", cs[i].name,
               kernel, cs[i].bytes);
        for (int r = 0; r < reps; r++) printf("%s%.4f", r ? ", " : "", cs[i].reps[r]);
        printf("]}\n");
    }
    return 0;
}
