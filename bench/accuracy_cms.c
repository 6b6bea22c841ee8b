/*
 * Count-Min accuracy (Cormode and Muthukrishnan 2005, Theorem 1: with w = ceil(e / epsilon),
 * d = ceil(ln 1/delta), P[estimate > f(x) + epsilon N] <= delta per item).
 *
 * - shape: the seeds' sketch (epsilon 0.001, delta 0.01): width, depth, counters, bytes.
 * - streams: uniform and Zipf streams of --cms-updates u64 keys over --cms-keys keys, plain
 *   and conservative update; per sketch the error of every key seen (estimate - true count):
 *   underestimates (must be 0), the fraction above epsilon N (compare with delta), quantiles
 *   of error / (epsilon N).
 * - example: seed 003's example (100 IPs "192.168.1.i", i + 1 appearing 10000 / (i + 1)
 *   times, shuffled) with 003's HeavyHitterDetector(phi = 0.01, epsilon = 0.001, delta =
 *   0.01): the three printed IPs' errors, and the heavy hitters reported (fl_cms_heavy_hitters
 *   with the top-k candidates) against the true ones.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accuracy.h"
#include "fb_rng.h"

#define SEED_EPSILON 0.001
#define SEED_DELTA 0.01

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double quantile(const double *sorted, size_t n, double q) {
    if (!n) return 0;
    size_t i = (size_t)ceil(q * (double)n);
    return sorted[i ? i - 1 : 0];
}

/* Zipf(s) over [0, keys): the cumulative weights, sampled by binary search. */
static double *zipf_cdf(uint64_t keys, double s) {
    double *cdf = malloc(keys * sizeof *cdf), acc = 0;
    if (!cdf) return NULL;
    for (uint64_t i = 0; i < keys; i++) cdf[i] = acc += pow((double)(i + 1), -s);
    for (uint64_t i = 0; i < keys; i++) cdf[i] /= acc;
    return cdf;
}

static uint64_t zipf_draw(const double *cdf, uint64_t keys, fb_rng *r) {
    double u = fb_rng_unit(r);
    uint64_t lo = 0, hi = keys - 1;
    while (lo < hi) {
        uint64_t mid = (lo + hi) / 2;
        if (cdf[mid] < u) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static int one_stream(const acc_opts *o, const char *dist, const double *cdf, int conservative,
                      uint32_t run, json_t *out) {
    uint64_t keys = o->cms_keys, n = o->cms_updates;
    uint32_t *truth = calloc(keys, sizeof *truth);
    uint64_t *stream = malloc(n * sizeof *stream);
    uint64_t *ids = malloc(keys * sizeof *ids);
    uint32_t *est = malloc(keys * sizeof *est);
    double *err = malloc(keys * sizeof *err);
    fl_cms *c = NULL;
    int rc = 1;
    if (!truth || !stream || !ids || !est || !err) goto done;
    fb_rng r = {o->seed * 1000003 + run * 31 + (cdf ? 7 : 0)};
    for (uint64_t i = 0; i < n; i++) {
        uint64_t k = cdf ? zipf_draw(cdf, keys, &r) : fb_rng_below(&r, keys);
        truth[k]++;
        stream[i] = k;
    }
    fl_cms_config cfg = {.epsilon = SEED_EPSILON, .delta = SEED_DELTA,
                         .seed = o->seed * 101 + run, .conservative = conservative};
    if (acc_check(fl_cms_create(&cfg, &c), "fl_cms_create") ||
        acc_check(fl_cms_add_u64s(c, stream, n, NULL), "fl_cms_add_u64s"))
        goto done;
    size_t seen = 0;
    for (uint64_t k = 0; k < keys; k++)
        if (truth[k]) ids[seen++] = k;
    if (acc_check(fl_cms_query_u64s(c, ids, seen, est), "fl_cms_query_u64s")) goto done;
    fl_cms_info info;
    fl_cms_info_get(c, &info);
    double bound = SEED_EPSILON * (double)info.total, bound_shape = info.epsilon * (double)info.total;
    uint64_t under = 0, above = 0, above_shape = 0, exact = 0;
    double sum = 0;
    for (size_t i = 0; i < seen; i++) {
        double e = (double)est[i] - (double)truth[ids[i]];
        under += e < 0;
        above += e > bound;
        above_shape += e > bound_shape;
        exact += e == 0;
        sum += e;
        err[i] = e / bound;
    }
    qsort(err, seen, sizeof *err, cmp_double);
    json_t *q = json_object();
    static const double qs[] = {0.5, 0.9, 0.99, 0.999, 1.0};
    static const char *qn[] = {"p50", "p90", "p99", "p999", "max"};
    for (size_t i = 0; i < 5; i++) json_object_set_new(q, qn[i], json_real(quantile(err, seen, qs[i])));
    /* the error distribution for the plot: 50 points of its CDF */
    json_t *cdf_pts = json_array();
    for (int i = 1; i <= 50; i++)
        json_array_append_new(cdf_pts, json_real(quantile(err, seen, i / 50.0)));
    json_array_append_new(out, json_pack(
        "{s:s, s:b, s:i, s:i, s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:f, s:f, s:o, s:o}",
        "stream", dist, "conservative", conservative, "run", (int)run, "width", (int)info.width,
        "depth", (int)info.depth, "total", (json_int_t)info.total, "keys", (json_int_t)seen,
        "underestimates", (json_int_t)under, "above_eps_n", (json_int_t)above,
        "above_shape_eps_n", (json_int_t)above_shape, "exact", (json_int_t)exact,
        "mean_error", seen ? sum / (double)seen : 0.0, "eps_n", bound, "error_over_eps_n", q,
        "error_cdf", cdf_pts));
    rc = 0;
done:
    fl_cms_free(c);
    free(truth);
    free(stream);
    free(ids);
    free(est);
    free(err);
    return rc;
}

/* Seed 003's example, run `runs` times with different sketch seeds and shuffles. */
static int example(const acc_opts *o, json_t *sec) {
    enum { IPS = 100 };
    static const int printed[] = {0, 9, 99};
    char keys[IPS][24];
    size_t lens[IPS];
    uint32_t freq[IPS];
    uint64_t total = 0;
    for (int i = 0; i < IPS; i++) {
        lens[i] = (size_t)snprintf(keys[i], sizeof keys[i], "192.168.1.%d", i);
        freq[i] = (uint32_t)(10000 / (i + 1));
        total += freq[i];
    }
    uint8_t *stream = malloc(total);
    if (!stream) return 1;
    size_t at = 0;
    for (int i = 0; i < IPS; i++)
        for (uint32_t j = 0; j < freq[i]; j++) stream[at++] = (uint8_t)i;
    double phi = 0.01;
    /* 003's detector keeps every item that ever reached phi N; a top-k list of
     * ceil(1 / (phi - epsilon)) candidates is enough for the same guarantee (filterlab_cms.h) */
    uint32_t topk = (uint32_t)ceil(1.0 / (phi - SEED_EPSILON));
    uint64_t true_heavy = 0;
    for (int i = 0; i < IPS; i++) true_heavy += (double)freq[i] > phi * (double)total;
    json_t *runs = json_array();
    uint64_t missed = 0, false_pos = 0, reported = 0, above_total = 0, max_err = 0;
    uint64_t printed_max[3] = {0, 0, 0};
    double printed_sum[3] = {0, 0, 0};
    fl_cms_item items[IPS];
    for (uint32_t run = 0; run < o->cms_example_runs; run++) {
        fb_rng r = {o->seed * 7777 + run};
        for (size_t i = total - 1; i > 0; i--) { /* Fisher-Yates, as random.shuffle */
            size_t j = (size_t)fb_rng_below(&r, i + 1);
            uint8_t t = stream[i];
            stream[i] = stream[j];
            stream[j] = t;
        }
        fl_cms_config cfg = {.epsilon = SEED_EPSILON, .delta = SEED_DELTA,
                             .seed = o->seed * 977 + run, .topk = topk};
        fl_cms *c;
        if (acc_check(fl_cms_create(&cfg, &c), "fl_cms_create")) {
            free(stream);
            return 1;
        }
        for (size_t i = 0; i < total; i++)
            if (acc_check(fl_cms_add_bytes(c, keys[stream[i]], lens[stream[i]], 1), "fl_cms_add_bytes")) {
                fl_cms_free(c);
                free(stream);
                return 1;
            }
        uint64_t above = 0, worst = 0;
        for (int i = 0; i < IPS; i++) {
            uint32_t e = fl_cms_query_bytes(c, keys[i], lens[i]);
            uint64_t err = e - freq[i]; /* never negative: checked by the tests */
            if (e < freq[i]) {
                fprintf(stderr, "flaccuracy: Count-Min underestimated %s\n", keys[i]);
                fl_cms_free(c);
                free(stream);
                return 1;
            }
            above += (double)err > SEED_EPSILON * (double)total;
            if (err > worst) worst = err;
            for (int p = 0; p < 3; p++)
                if (printed[p] == i) {
                    printed_sum[p] += (double)err;
                    if (err > printed_max[p]) printed_max[p] = err;
                }
        }
        size_t count = 0;
        if (acc_check(fl_cms_heavy_hitters(c, phi, items, IPS, &count), "fl_cms_heavy_hitters")) {
            fl_cms_free(c);
            free(stream);
            return 1;
        }
        uint64_t tp = 0;
        for (size_t i = 0; i < count; i++) {
            int ip = -1;
            for (int j = 0; j < IPS; j++)
                if (items[i].len == lens[j] && !memcmp(items[i].key, keys[j], lens[j])) ip = j;
            if (ip >= 0 && (double)freq[ip] > phi * (double)total) tp++;
            else false_pos++;
        }
        missed += true_heavy - tp;
        reported += count;
        above_total += above;
        if (worst > max_err) max_err = worst;
        if (run < 3)
            json_array_append_new(runs, json_pack("{s:i, s:I, s:I, s:I, s:I}", "run", (int)run,
                                                  "err_ip0", (json_int_t)(fl_cms_query_bytes(c, keys[0], lens[0]) - freq[0]),
                                                  "err_ip9", (json_int_t)(fl_cms_query_bytes(c, keys[9], lens[9]) - freq[9]),
                                                  "err_ip99", (json_int_t)(fl_cms_query_bytes(c, keys[99], lens[99]) - freq[99]),
                                                  "heavy_reported", (json_int_t)count));
        fl_cms_free(c);
    }
    free(stream);
    double runs_d = o->cms_example_runs ? (double)o->cms_example_runs : 1;
    json_object_set_new(sec, "example", json_pack(
        "{s:I, s:f, s:f, s:f, s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:[I,I,I], s:[f,f,f], s:o}",
        "total", (json_int_t)total, "epsilon", SEED_EPSILON, "delta", SEED_DELTA, "phi", phi,
        "topk", (int)topk, "runs", (json_int_t)o->cms_example_runs, "true_heavy",
        (json_int_t)true_heavy, "heavy_missed", (json_int_t)missed, "heavy_false_positives",
        (json_int_t)false_pos, "heavy_reported", (json_int_t)reported, "items_above_eps_n",
        (json_int_t)above_total, "printed_max_error", (json_int_t)printed_max[0],
        (json_int_t)printed_max[1], (json_int_t)printed_max[2], "printed_mean_error",
        printed_sum[0] / runs_d, printed_sum[1] / runs_d, printed_sum[2] / runs_d, "first_runs",
        runs));
    json_object_set_new(json_object_get(sec, "example"), "max_error", json_integer((json_int_t)max_err));
    return 0;
}

int acc_cms(const acc_opts *o, json_t *doc) {
    json_t *sec = json_object();
    json_object_set_new(doc, "cms", sec);
    uint32_t w, d;
    if (acc_check(fl_cms_dims(SEED_EPSILON, SEED_DELTA, &w, &d), "fl_cms_dims")) return 1;
    fl_cms_config cfg = {.epsilon = SEED_EPSILON, .delta = SEED_DELTA};
    fl_cms *c;
    if (acc_check(fl_cms_create(&cfg, &c), "fl_cms_create")) return 1;
    fl_cms_info info;
    fl_cms_info_get(c, &info);
    fl_cms_free(c);
    json_object_set_new(sec, "shape", json_pack("{s:f, s:f, s:i, s:i, s:I, s:I, s:f, s:f}",
                                                "epsilon", SEED_EPSILON, "delta", SEED_DELTA,
                                                "width", (int)w, "depth", (int)d, "counters",
                                                (json_int_t)w * d, "bytes", (json_int_t)info.bytes,
                                                "epsilon_shape", info.epsilon, "delta_shape",
                                                info.delta));
    json_t *streams = json_array();
    json_object_set_new(sec, "streams", streams);
    json_object_set_new(sec, "zipf_s", json_real(o->cms_zipf_s));
    double *cdf = zipf_cdf(o->cms_keys, o->cms_zipf_s);
    if (!cdf) return 1;
    for (int z = 0; z < 2; z++)
        for (int cons = 0; cons < 2; cons++)
            for (uint32_t run = 0; run < o->cms_runs; run++)
                if (one_stream(o, z ? "zipf" : "uniform", z ? cdf : NULL, cons, run, streams)) {
                    free(cdf);
                    return 1;
                }
    free(cdf);
    acc_progress("cms streams done; seed 003's example, %u runs", o->cms_example_runs);
    return example(o, sec);
}
