/*
 * fpr_sweep: the false-positive and space experiments of the reproduction (tables 3-6),
 * through the public API only.
 *
 *   fpr_sweep sizing --n N --targets P,P,...   (003 9.3: sizing for n keys at each target)
 *   fpr_sweep fill   --n N --fpr P --fills F,F,... (003 9.17: FPR against fill ratio)
 *   fpr_sweep space  --n N --targets P,P,...   (003 9.9 / 9.11: bits per key at equal FPR)
 *   fpr_sweep cuckoo --buckets B --loads A,A,... (003 9.9: cuckoo FPR against 2b/2^f)
 *   common: --queries Q (never-inserted lookups per measurement), --seed S, --json FILE
 *
 * Keys are the integers 0, 1, 2, ... hashed with fl_hash_u64 (a bijection, so inserted keys
 * never collide before the filter's own reduction); the queries are integers from 2^62 up,
 * never inserted, so every positive among them is a false positive. Everything is seeded:
 * the same build gives the same counts on every run.
 *
 * sizing: for each target and variant, fl_params_for's geometry, built and measured; then
 *   classic with the seed's k = ceil((m/n) ln 2) (the seed rounds k up, the library rounds to
 *   nearest; they differ at 0.01%), and each blocked variant sized (by the library's model)
 *   for the FPR the classic filter really measured, built and measured: the bits per key a
 *   blocked filter needs for the same measured FPR.
 * fill: each variant sized for n at P, filled to F*n keys (cuckoo stops when full).
 * space: each variant sized for n at every target: bits per key and measured FPR, set against
 *   log2(1/FPR), the information-theoretic bits per key (Carter et al. 1978) (label
 *   "library"); then every filter that deletes at every target (label "deletes"): cuckoo at
 *   each fingerprint width on its own (the fewest buckets whose predicted FPR meets the target,
 *   the load capped at the library's sizing load; a width that meets it only below load
 *   WIDTH_MIN_LOAD is reported as unreachable), the vector quotient filter under the same
 *   rules (its fixed 8-bit fingerprints; fpr_sweep_vqf.c) and the counting variants as
 *   fl_params_for sizes them; then the growing cuckoo filter, which has no target to be sized
 *   for, fresh and grown by three doublings to n keys (label "growing"; fpr_sweep_gcf.c).
 * cuckoo: 8-, 12-, 13- (semi-sorted) and 16-bit fingerprints, B buckets of 4, filled to each
 *   load A.
 */
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bl_common.h"
#include "filterlab.h"
#include "fpr_sweep.h"

#define MAXLIST 64

typedef struct built {
    fl_filter *f;
    fl_geometry g;
    uint64_t inserted;
    int full;
    double build_s;
} built;

/* Inserts keys [from, to) (stops at FL_ERR_FULL for cuckoo). */
static fl_status insert_range(built *b, uint64_t from, uint64_t to)
{
    for (uint64_t a = from; a < to; a += CHUNK) {
        size_t m = chunk_at(a, to);
        key_hashes(a, m);
        size_t done = 0;
        fl_status s = fl_insert_hashes(b->f, hbuf, m, &done);
        if (s == FL_ERR_FULL) {
            b->inserted += done;
            b->full = 1;
            return FL_OK;
        }
        if (s != FL_OK)
            return s;
        b->inserted += m;
    }
    return FL_OK;
}

static fl_status build_geometry(const fl_geometry *g, uint64_t n, built *b)
{
    memset(b, 0, sizeof *b);
    fl_config cfg = {.variant = g->variant, .geometry = *g, .hash = FL_HASH_XXH3, .seed = g_seed};
    fl_status s = fl_create(&cfg, &b->f);
    if (s != FL_OK)
        return s;
    b->g = *g;
    double t0 = bl_now_ns();
    s = insert_range(b, 0, n);
    b->build_s = (bl_now_ns() - t0) / 1e9;
    return s;
}

/* Lookups of g_queries never-inserted keys; returns the positives. */
static uint64_t measure_fp(const built *b, uint64_t salt)
{
    uint64_t pos = 0;
    for (uint64_t a = 0; a < g_queries; a += CHUNK) {
        size_t m = chunk_at(a, g_queries);
        query_hashes(salt, a, m);
        size_t p = 0;
        fl_contains_hashes(b->f, hbuf, m, obuf, &p);
        pos += p;
    }
    return pos;
}

/* Common columns of one measured fl_filter. */
static void emit(bl_json *j, const char *experiment, const char *label, const built *b,
                 double target, uint64_t fp)
{
    fl_params p;
    fl_params_for_geometry(&b->g, b->inserted ? b->inserted : 1, &p);
    measured m = {fl_variant_name(b->g.variant), b->g.units, b->g.k, p.bytes, p.bits,
                  b->inserted, b->full, fl_predict_fpr(&b->g, b->inserted), b->build_s, fp};
    emit_measured(j, experiment, label, target, &m);
}

static const fl_variant ALL[] = {FL_CLASSIC, FL_BLOCK512, FL_SPLIT256, FL_REG64, FL_CUCKOO};
#define NALL (sizeof ALL / sizeof ALL[0])

/* The cuckoo fingerprint widths the library accepts (fl_variant_describe's k_set): 11 and 13
 * are the semi-sorted ones (11-bit fingerprints in 5-byte buckets of 4, 13-bit ones in 6-byte
 * buckets as the 12-bit filter's, Fan et al. 2014 section 5.2). */
static const uint32_t CUCKOO_WIDTHS[] = {8, 11, 12, 13, 16};
#define NWIDTHS (sizeof CUCKOO_WIDTHS / sizeof CUCKOO_WIDTHS[0])
/* The counting Bloom variants: with cuckoo, the filters that delete (FL_CAP_DELETE). */
static const fl_variant COUNTING[] = {FL_COUNTING, FL_COUNTING512};
#define NCOUNTING (sizeof COUNTING / sizeof COUNTING[0])

static void progress(const char *exp, const char *what, int i, int total)
{
    fprintf(stderr, "fpr_sweep %s: [%d/%d] %s\n", exp, i, total, what);
}

/* Measures one geometry for n keys and writes one row; returns the measured FPR. */
static double one(bl_json *j, const char *exp, const char *label, const fl_geometry *g,
                  uint64_t n, double target, uint64_t salt, int *failures)
{
    built b;
    fl_status s = build_geometry(g, n, &b);
    bl_json_open(j, NULL, '{');
    double fpr = NAN;
    if (s != FL_OK) {
        bl_json_str(j, "experiment", exp);
        bl_json_str(j, "label", label);
        bl_json_str(j, "variant", fl_variant_name(g->variant));
        bl_json_num(j, "target_fpr", target);
        bl_json_str(j, "error", fl_strerror(s));
        (*failures)++;
    } else {
        uint64_t fp = measure_fp(&b, salt);
        emit(j, exp, label, &b, target, fp);
        bl_json_int(j, "n", (long long)n);
        if (g->variant == FL_CUCKOO) {
            /* the width and the load it was sized to: a fixed width's cost and FPR depend on both */
            fl_info info;
            fl_get_info(b.f, &info);
            bl_json_int(j, "fingerprint_bits", g->k);
            bl_json_num(j, "load", info.fill);
        }
        fpr = (double)fp / (double)g_queries;
    }
    bl_json_close(j, '}');
    fl_free(b.f);
    return fpr;
}

static void unreachable_row(bl_json *j, const char *exp, const char *label, fl_variant v,
                            double target, fl_status s)
{
    error_row(j, exp, label, fl_variant_name(v), target, 0, fl_strerror(s));
}

static int run_sizing(bl_json *j, uint64_t n, const double *targets, int nt)
{
    int failures = 0, step = 0, total = nt * 9;
    for (int t = 0; t < nt; t++) {
        double p = targets[t];
        double classic_measured = NAN;
        fl_params cp = {0};
        for (size_t v = 0; v < NALL; v++) {
            char what[128];
            snprintf(what, sizeof what, "%s for n=%llu at %g", fl_variant_name(ALL[v]),
                     (unsigned long long)n, p);
            progress("sizing", what, ++step, total);
            fl_params pr;
            fl_status s = fl_params_for(ALL[v], n, p, &pr);
            if (s != FL_OK) {
                unreachable_row(j, "sizing", "library", ALL[v], p, s);
                continue;
            }
            double f = one(j, "sizing", "library", &pr.geometry, n, p, (uint64_t)t, &failures);
            if (ALL[v] == FL_CLASSIC) {
                classic_measured = f;
                cp = pr;
            }
        }
        /* classic with the seed's k = ceil((m/n) ln 2) on the same m */
        if (isfinite(classic_measured)) {
            double m = ceil(-(double)n * log(p) / (M_LN2 * M_LN2));
            fl_geometry g = cp.geometry;
            g.k = (uint32_t)ceil(m / (double)n * M_LN2);
            progress("sizing", "classic with the seed's k", ++step, total);
            one(j, "sizing", "seed_k_ceil", &g, n, p, (uint64_t)t, &failures);
        }
        /* blocked variants sized for the FPR classic really measured */
        static const fl_variant blocked[] = {FL_BLOCK512, FL_SPLIT256, FL_REG64};
        for (size_t v = 0; v < 3; v++) {
            char what[128];
            snprintf(what, sizeof what, "%s sized for classic's measured FPR %.3g",
                     fl_variant_name(blocked[v]), classic_measured);
            progress("sizing", what, ++step, total);
            if (!(classic_measured > 0)) {
                unreachable_row(j, "sizing", "match_classic", blocked[v], p, FL_ERR_BAD_FPR);
                continue;
            }
            fl_params pr;
            fl_status s = fl_params_for(blocked[v], n, classic_measured, &pr);
            if (s != FL_OK) {
                unreachable_row(j, "sizing", "match_classic", blocked[v], classic_measured, s);
                continue;
            }
            /* a different query salt: the match is checked on fresh negatives */
            one(j, "sizing", "match_classic", &pr.geometry, n, classic_measured,
                (uint64_t)t + 100, &failures);
        }
    }
    return failures;
}

static int run_fill(bl_json *j, uint64_t n, double p, const double *fills, int nf)
{
    int failures = 0, step = 0;
    for (size_t v = 0; v < NALL; v++) {
        fl_params pr;
        fl_status s = fl_params_for(ALL[v], n, p, &pr);
        if (s != FL_OK) {
            unreachable_row(j, "fill", "library", ALL[v], p, s);
            continue;
        }
        built b;
        memset(&b, 0, sizeof b);
        fl_config cfg = {.variant = ALL[v], .geometry = pr.geometry, .hash = FL_HASH_XXH3,
                         .seed = g_seed};
        if ((s = fl_create(&cfg, &b.f)) != FL_OK) {
            unreachable_row(j, "fill", "library", ALL[v], p, s);
            failures++;
            continue;
        }
        b.g = pr.geometry;
        /* fills in increasing order: keep inserting into the same filter */
        for (int i = 0; i < nf; i++) {
            char what[128];
            snprintf(what, sizeof what, "%s at %.0f%% of n=%llu", fl_variant_name(ALL[v]),
                     fills[i] * 100, (unsigned long long)n);
            progress("fill", what, ++step, (int)NALL * nf);
            uint64_t want = (uint64_t)llround(fills[i] * (double)n);
            if (!b.full && want > b.inserted) {
                double t0 = bl_now_ns();
                if ((s = insert_range(&b, b.inserted, want)) != FL_OK) {
                    failures++;
                    break;
                }
                b.build_s += (bl_now_ns() - t0) / 1e9;
            }
            uint64_t fp = measure_fp(&b, (uint64_t)i);
            bl_json_open(j, NULL, '{');
            emit(j, "fill", "library", &b, p, fp);
            bl_json_int(j, "n", (long long)n);
            bl_json_num(j, "fill", fills[i]);
            bl_json_int(j, "wanted", (long long)want);
            bl_json_close(j, '}');
        }
        fl_free(b.f);
    }
    return failures;
}

/* Cuckoo with f-bit fingerprints for n keys at target p: the fewest buckets whose predicted
 * FPR (fl_predict_fpr, Fan et al. 2014) at n keys is <= p, with the load n / (4 buckets) at
 * most the library's sizing load (vi.max_load) and at least WIDTH_MIN_LOAD. The prediction
 * falls as buckets are added, so the least such count is found by bisection. Returns
 * FL_ERR_BAD_FPR when the width meets p only below WIDTH_MIN_LOAD. */
static fl_status cuckoo_width_geometry(uint32_t f, uint64_t n, double p, fl_geometry *g)
{
    fl_variant_info vi;
    fl_status s = fl_variant_describe(FL_CUCKOO, &vi);
    if (s != FL_OK)
        return s;
    double slots = (double)vi.unit_slots;
    uint64_t lo = (uint64_t)ceil((double)n / (slots * vi.max_load));
    uint64_t hi = (uint64_t)ceil((double)n / (slots * WIDTH_MIN_LOAD));
    if (lo < 1)
        lo = 1;
    if (hi > vi.units_max)
        return FL_ERR_TOO_LARGE;
    fl_geometry t = {FL_CUCKOO, hi, f};
    if (!(fl_predict_fpr(&t, n) <= p))
        return FL_ERR_BAD_FPR;
    while (lo < hi) {
        t.units = lo + (hi - lo) / 2;
        if (fl_predict_fpr(&t, n) <= p)
            hi = t.units;
        else
            lo = t.units + 1;
    }
    *g = (fl_geometry){FL_CUCKOO, lo, f};
    return FL_OK;
}

/* One "space" row per variant of vs at target number t: the library's sizing, or why it has
 * none. */
static void space_variants(bl_json *j, const fl_variant *vs, size_t nv, const char *label,
                           uint64_t n, double target, int t, int *step, int total, int *failures)
{
    for (size_t v = 0; v < nv; v++) {
        char what[128];
        snprintf(what, sizeof what, "%s at %g", fl_variant_name(vs[v]), target);
        progress("space", what, ++*step, total);
        fl_params pr;
        fl_status s = fl_params_for(vs[v], n, target, &pr);
        if (s != FL_OK) {
            unreachable_row(j, "space", label, vs[v], target, s);
            continue;
        }
        one(j, "space", label, &pr.geometry, n, target, (uint64_t)t, failures);
    }
}

static int run_space(bl_json *j, uint64_t n, const double *targets, int nt)
{
    int failures = 0, step = 0;
    int total = nt * (int)(NALL + NWIDTHS + 1 + NCOUNTING);
    for (int t = 0; t < nt; t++) {
        space_variants(j, ALL, NALL, "library", n, targets[t], t, &step, total, &failures);
        /* the filters that delete: cuckoo width by width, the vector quotient filter, then
         * the counting variants */
        for (size_t w = 0; w < NWIDTHS; w++) {
            char what[128];
            snprintf(what, sizeof what, "cuckoo with %u-bit fingerprints at %g", CUCKOO_WIDTHS[w],
                     targets[t]);
            progress("space", what, ++step, total);
            fl_geometry g;
            fl_status s = cuckoo_width_geometry(CUCKOO_WIDTHS[w], n, targets[t], &g);
            if (s != FL_OK) {
                width_error_row(j, fl_variant_name(FL_CUCKOO), targets[t], CUCKOO_WIDTHS[w], s);
                continue;
            }
            one(j, "space", "deletes", &g, n, targets[t], (uint64_t)t, &failures);
        }
        char what[64];
        snprintf(what, sizeof what, "vqf at %g", targets[t]);
        progress("space", what, ++step, total);
        vqf_space_row(j, n, targets[t], (uint64_t)t, &failures);
        space_variants(j, COUNTING, NCOUNTING, "deletes", n, targets[t], t, &step, total,
                       &failures);
    }
    progress("space", "growing cuckoo filter, fresh and grown", total, total);
    gcf_space_rows(j, n, (uint64_t)nt, &failures);
    return failures;
}

static int run_cuckoo(bl_json *j, uint64_t buckets, const double *loads, int nl)
{
    int failures = 0, step = 0;
    for (size_t w = 0; w < NWIDTHS; w++) {
        uint32_t f = CUCKOO_WIDTHS[w];
        fl_geometry g = {FL_CUCKOO, buckets, f};
        built b;
        memset(&b, 0, sizeof b);
        fl_config cfg = {.variant = FL_CUCKOO, .geometry = g, .hash = FL_HASH_XXH3, .seed = g_seed};
        fl_status s = fl_create(&cfg, &b.f);
        if (s != FL_OK) {
            unreachable_row(j, "cuckoo", "fingerprint", FL_CUCKOO, NAN, s);
            failures++;
            continue;
        }
        b.g = g;
        for (int i = 0; i < nl; i++) {
            char what[128];
            snprintf(what, sizeof what, "f=%u at load %.3f of %llu buckets", f, loads[i],
                     (unsigned long long)buckets);
            progress("cuckoo", what, ++step, (int)NWIDTHS * nl);
            uint64_t want = (uint64_t)llround(loads[i] * 4.0 * (double)buckets);
            if (!b.full && want > b.inserted && insert_range(&b, b.inserted, want) != FL_OK) {
                failures++;
                break;
            }
            uint64_t fp = measure_fp(&b, (uint64_t)i);
            fl_info info;
            fl_get_info(b.f, &info);
            bl_json_open(j, NULL, '{');
            emit(j, "cuckoo", "fingerprint", &b, NAN, fp);
            bl_json_int(j, "fingerprint_bits", f);
            bl_json_int(j, "bucket_slots", 4);
            bl_json_num(j, "load_wanted", loads[i]);
            bl_json_num(j, "load", info.fill);
            bl_json_int(j, "stash_used", info.stash_used);
            /* 2b/2^f (Fan et al. 2014, the seed's formula) and 2b*alpha/(2^f - 1) */
            bl_json_num(j, "formula_2b_over_2f", 8.0 / (double)(1u << f));
            bl_json_num(j, "formula_at_load", 8.0 * info.fill / ((double)(1u << f) - 1.0));
            bl_json_close(j, '}');
        }
        fl_free(b.f);
    }
    return failures;
}

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: fpr_sweep sizing --n N --targets P[,P...]   [common options]\n"
            "       fpr_sweep fill   --n N --fpr P --fills F[,F...]\n"
            "       fpr_sweep space  --n N --targets P[,P...]\n"
            "       fpr_sweep cuckoo --buckets B --loads A[,A...]\n"
            "Common: --queries Q (default 1000000)  --seed S (default 0)  --json FILE\n"
            "Measured false positive rates of filters built through the public API (JSON).\n");
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 1 : 0;
    }
    const char *mode = argv[1];
    uint64_t n = 0, buckets = 0;
    double fpr = 0.01, list[MAXLIST];
    int nlist = 0;
    const char *json_path = NULL;
    static const struct option opts[] = {
        {"n", required_argument, NULL, 'n'},       {"targets", required_argument, NULL, 't'},
        {"fills", required_argument, NULL, 't'},   {"loads", required_argument, NULL, 't'},
        {"fpr", required_argument, NULL, 'p'},     {"buckets", required_argument, NULL, 'b'},
        {"queries", required_argument, NULL, 'q'}, {"seed", required_argument, NULL, 's'},
        {"json", required_argument, NULL, 'j'},    {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    optind = 2;
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'n': n = (uint64_t)strtod(optarg, NULL); break;
        case 't':
            if ((nlist = bl_parse_list(optarg, list, MAXLIST)) <= 0) {
                fprintf(stderr, "fpr_sweep: bad list '%s'\n", optarg);
                return 1;
            }
            break;
        case 'p': fpr = strtod(optarg, NULL); break;
        case 'b': buckets = (uint64_t)strtod(optarg, NULL); break;
        case 'q': g_queries = (uint64_t)strtod(optarg, NULL); break;
        case 's': g_seed = strtoull(optarg, NULL, 0); break;
        case 'j': json_path = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 1;
        }
    }
    int is_cuckoo = !strcmp(mode, "cuckoo");
    if ((is_cuckoo ? buckets == 0 : n == 0) || nlist == 0 || g_queries == 0 ||
        !(fpr > 0 && fpr < 1)) {
        usage(stderr);
        return 1;
    }
    bl_json j;
    bl_json_begin(&j, json_path, "fpr_sweep");
    bl_json_str(&j, "mode", mode);
    bl_json_int(&j, "n", (long long)n);
    bl_json_int(&j, "queries", (long long)g_queries);
    bl_json_int(&j, "seed", (long long)g_seed);
    bl_json_open(&j, "rows", '[');
    int failures;
    if (!strcmp(mode, "sizing"))
        failures = run_sizing(&j, n, list, nlist);
    else if (!strcmp(mode, "fill"))
        failures = run_fill(&j, n, fpr, list, nlist);
    else if (!strcmp(mode, "space"))
        failures = run_space(&j, n, list, nlist);
    else if (is_cuckoo)
        failures = run_cuckoo(&j, buckets, list, nlist);
    else {
        fprintf(stderr, "fpr_sweep: unknown mode '%s'\n", mode);
        return 1;
    }
    bl_json_close(&j, ']');
    bl_json_close(&j, '}');
    bl_close_out(j.f);
    return failures ? 2 : 0;
}
