/*
 * flaccuracy: accuracy of HyperLogLog, Count-Min, counting Bloom and scalable Bloom filters
 * measured through the public API, written as one JSON document.
 *
 *   flaccuracy [--sections hll,cms,counting,sbf] [--hll-max-card 1e8] ... --json PATH
 *
 * The defaults are scripts/reproduce's --quick sizes; --help lists every option. Numbers of
 * keys accept exponent notation (1e9). Exit status as filterlab's and flbench's: 1 for a
 * usage error (one line), 2 for a data or I/O error; the --json path is checked before
 * anything is measured and written atomically (output.c).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "accuracy.h"
#include "flbench.h"

static void usage(FILE *f) {
    fprintf(f,
            "usage: flaccuracy [options] --json PATH\n"
            "  --sections LIST        hll,cms,counting,sbf (default: all)\n"
            "  --seed S               base seed of every stream (default 1)\n"
            "  --hll-max-card N       cardinality sweep 1e3, 1e4, ... up to N (default 1e8)\n"
            "  --hll-precisions LIST  precisions of the sweep (default 11,14)\n"
            "  --hll-runs R           streams per precision (default 4)\n"
            "  --hll-std-card N       cardinality of the standard error check (default 1e5)\n"
            "  --hll-std-runs R       independent sketches there (default 100)\n"
            "  --hll-demo-runs R      runs of seed 003's demo (default 30)\n"
            "  --cms-updates N        updates of the uniform and Zipf streams (default 1e6)\n"
            "  --cms-keys K           distinct keys they draw from (default 1e5)\n"
            "  --cms-zipf-s S         Zipf exponent (default 1.1)\n"
            "  --cms-runs R           sketches (seeds) per stream (default 4)\n"
            "  --cms-example-runs R   runs of seed 003's Zipf example (default 200)\n"
            "  --counting-n N         keys at fill 1 of the FPR sweep (default 1e6)\n"
            "  --counting-queries Q   non-member lookups per point (default 1e6)\n"
            "  --overflow-n N         keys at fill 1 of the overflow trials (default 1e5)\n"
            "  --overflow-trials T    filters per overflow point (default 10)\n"
            "  --sbf-capacity N       first sub-filter's capacity (default 1e5)\n"
            "  --sbf-queries Q        non-member lookups per point (default 1e6)\n"
            "  --json PATH            where the document goes (required)\n"
            "  --help                 this text\n"
            "Exit status: 0 success, 1 usage error, 2 data or I/O error (e.g. --json cannot\n"
            "be written: checked before anything is measured).\n");
}

/* A usage error: one line, exit 1. */
static int usage_error(const char *fmt, const char *arg) {
    fprintf(stderr, "flaccuracy: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (see 'flaccuracy --help')\n");
    return 1;
}

static int parse_count(const char *s, uint64_t *out) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= 0) || v > 1e15 || v != floor(v)) return -1;
    *out = (uint64_t)v;
    return 0;
}

static int parse_u32(const char *s, uint32_t *out) {
    uint64_t v;
    if (parse_count(s, &v) || v > UINT32_MAX) return -1;
    *out = (uint32_t)v;
    return 0;
}

int main(int argc, char **argv) {
    acc_opts o = {
        .seed = 1, .hll_max_card = 100000000ull, .hll_precisions = {11, 14},
        .n_hll_precisions = 2, .hll_runs = 4, .hll_std_card = 100000, .hll_std_runs = 100,
        .hll_demo_runs = 30, .cms_updates = 1000000, .cms_keys = 100000, .cms_zipf_s = 1.1,
        .cms_runs = 4, .cms_example_runs = 200, .counting_n = 1000000,
        .counting_queries = 1000000, .overflow_n = 100000, .overflow_trials = 10,
        .sbf_capacity = 100000, .sbf_queries = 1000000,
    };
    const char *sections = "hll,cms,counting,sbf", *json_path = NULL;
    enum { O_SECTIONS = 256, O_SEED, O_HMAX, O_HP, O_HRUNS, O_HSC, O_HSR, O_HDR, O_CU, O_CK,
           O_CS, O_CR, O_CER, O_KN, O_KQ, O_ON, O_OT, O_SC, O_SQ, O_JSON, O_HELP };
    static const struct option longs[] = {
        {"sections", 1, 0, O_SECTIONS}, {"seed", 1, 0, O_SEED}, {"hll-max-card", 1, 0, O_HMAX},
        {"hll-precisions", 1, 0, O_HP}, {"hll-runs", 1, 0, O_HRUNS},
        {"hll-std-card", 1, 0, O_HSC}, {"hll-std-runs", 1, 0, O_HSR},
        {"hll-demo-runs", 1, 0, O_HDR}, {"cms-updates", 1, 0, O_CU}, {"cms-keys", 1, 0, O_CK},
        {"cms-zipf-s", 1, 0, O_CS}, {"cms-runs", 1, 0, O_CR}, {"cms-example-runs", 1, 0, O_CER},
        {"counting-n", 1, 0, O_KN}, {"counting-queries", 1, 0, O_KQ},
        {"overflow-n", 1, 0, O_ON}, {"overflow-trials", 1, 0, O_OT},
        {"sbf-capacity", 1, 0, O_SC}, {"sbf-queries", 1, 0, O_SQ}, {"json", 1, 0, O_JSON},
        {"help", 0, 0, O_HELP}, {0, 0, 0, 0}};
    int c, bad = 0;
    opterr = 0; /* one line of ours instead of getopt's message */
    while ((c = getopt_long(argc, argv, ":", longs, NULL)) != -1) {
        switch (c) {
        case O_SECTIONS: sections = optarg; break;
        case O_SEED: bad |= parse_count(optarg, &o.seed); break;
        case O_HMAX: bad |= parse_count(optarg, &o.hll_max_card); break;
        case O_HP: {
            o.n_hll_precisions = 0;
            char *copy = strdup(optarg), *save = NULL;
            if (!copy) return 2;
            for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                uint32_t p;
                if (o.n_hll_precisions == 8 || parse_u32(t, &p) || p < FL_HLL_P_MIN ||
                    p > FL_HLL_P_MAX) {
                    bad = 1;
                    break;
                }
                o.hll_precisions[o.n_hll_precisions++] = p;
            }
            free(copy);
            break;
        }
        case O_HRUNS: bad |= parse_u32(optarg, &o.hll_runs); break;
        case O_HSC: bad |= parse_count(optarg, &o.hll_std_card); break;
        case O_HSR: bad |= parse_u32(optarg, &o.hll_std_runs); break;
        case O_HDR: bad |= parse_u32(optarg, &o.hll_demo_runs); break;
        case O_CU: bad |= parse_count(optarg, &o.cms_updates); break;
        case O_CK: bad |= parse_count(optarg, &o.cms_keys); break;
        case O_CS: {
            char *end;
            o.cms_zipf_s = strtod(optarg, &end);
            bad |= (*end || !(o.cms_zipf_s > 0 && o.cms_zipf_s < 10)) ? 1 : 0;
            break;
        }
        case O_CR: bad |= parse_u32(optarg, &o.cms_runs); break;
        case O_CER: bad |= parse_u32(optarg, &o.cms_example_runs); break;
        case O_KN: bad |= parse_count(optarg, &o.counting_n); break;
        case O_KQ: bad |= parse_count(optarg, &o.counting_queries); break;
        case O_ON: bad |= parse_count(optarg, &o.overflow_n); break;
        case O_OT: bad |= parse_u32(optarg, &o.overflow_trials); break;
        case O_SC: bad |= parse_count(optarg, &o.sbf_capacity); break;
        case O_SQ: bad |= parse_count(optarg, &o.sbf_queries); break;
        case O_JSON: json_path = optarg; break;
        case O_HELP: usage(stdout); return 0;
        case ':': return usage_error("option '%s' needs a value", argv[optind - 1]);
        default: return usage_error("unknown option '%s'", argv[optind - 1]);
        }
        if (bad) {
            char msg[160];
            snprintf(msg, sizeof msg, "bad value for --%s: %%s", longs[c - O_SECTIONS].name);
            return usage_error(msg, optarg);
        }
    }
    if (optind != argc)
        return usage_error("unexpected argument '%s'", argv[optind]);
    if (!json_path)
        return usage_error("%s", "--json PATH is required");
    if (!o.n_hll_precisions || !o.hll_runs || !o.cms_keys || !o.cms_updates || !o.counting_n ||
        !o.overflow_n || !o.sbf_capacity)
        return usage_error("%s", "counts and runs must be positive");
    if (o.hll_max_card < 1000 || o.hll_max_card > (1ull << 40))
        return usage_error("%s", "--hll-max-card must be in 1e3..2^40");
    static const struct { const char *name; int (*run)(const acc_opts *, json_t *); } all[] = {
        {"hll", acc_hll}, {"cms", acc_cms}, {"counting", acc_counting}, {"sbf", acc_sbf}};
    int want[4] = {0};
    char *copy = strdup(sections), *save = NULL;
    if (!copy) return 2;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        size_t i;
        for (i = 0; i < 4 && strcmp(t, all[i].name); i++) {}
        if (i == 4) {
            int rc = usage_error("unknown section '%s' (hll, cms, counting, sbf)", t);
            free(copy);
            return rc;
        }
        want[i] = 1;
    }
    free(copy);
    if (fb_output_check("--json", json_path))
        return 2;

    json_t *doc = json_object();
    json_object_set_new(doc, "program", json_string("flaccuracy"));
    json_object_set_new(doc, "seed", json_integer((json_int_t)o.seed));
    int rc = 0;
    for (size_t i = 0; i < 4 && !rc; i++) {
        if (!want[i]) continue;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        rc = all[i].run(&o, doc);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        acc_progress("%s done in %.1f s", all[i].name, secs);
        json_t *sec = json_object_get(doc, all[i].name);
        if (sec) json_object_set_new(sec, "seconds", json_real(secs));
    }
    if (rc) {
        rc = 2; /* a section failed (the library refused a call): a data error */
    } else {
        char tmp[4200];
        FILE *f = fb_output_open(json_path, tmp, sizeof tmp);
        if (!f) {
            rc = 2;
        } else if (json_dumpf(doc, f, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) != 0) {
            fprintf(stderr, "flaccuracy: cannot write %s: JSON encoding failed\n", json_path);
            fb_output_abort(f, tmp);
            rc = 2;
        } else {
            fputc('\n', f);
            rc = fb_output_commit(f, json_path, tmp) ? 2 : 0;
        }
    }
    json_decref(doc);
    return rc;
}
