/*
 * HyperLogLog accuracy (Flajolet, Fusy, Gandouet, Meunier 2007; standard error 1.04/sqrt(m)).
 *
 * - sweep: per precision and stream, distinct u64 keys (a bijective mix of a counter) added in
 *   batches (fl_hll_add_u64s),
 *   the estimate read at 1e3, 1e4, ... up to --hll-max-card; beside filterlab's (Redis's)
 *   estimator, the same registers give the seeds' estimators: 000's raw harmonic mean
 *   (alpha_m m^2 / sum 2^-M, no correction), the 2007 paper's (raw, linear counting below
 *   2.5 m) and 003's (the paper's plus the 2^32 large-range correction meant for 32-bit
 *   hashes, which the 64-bit hash here does not need).
 * - std: many independent sketches at one cardinality, for the standard error itself.
 * - demo: seed 003's demonstration (keys "user_i", cardinalities 1e3 ... 1e6 at p = 14),
 *   then the same with other key prefixes.
 * - promotion: where a p = 14 sketch leaves Redis's sparse encoding (3000 bytes, or a
 *   register above 32).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "accuracy.h"

#define BATCH 65536

typedef struct estimates {
    double raw, paper2007, seed003;
} estimates;

/* The seeds' estimators over the sketch's registers. alpha_m as 003 writes it (its table for
 * m <= 64, else 0.7213 / (1 + 1.079 / m), which 000 uses for every m). */
static int seed_estimates(const fl_hll *h, uint32_t p, estimates *out) {
    uint32_t m = 1u << p, zeros = 0;
    double sum = 0;
    for (uint32_t i = 0; i < m; i++) {
        uint8_t r;
        if (acc_check(fl_hll_register(h, i, &r), "fl_hll_register")) return 1;
        sum += ldexp(1.0, -(int)r);
        zeros += r == 0;
    }
    double alpha = m == 16 ? 0.673 : m == 32 ? 0.697 : m == 64 ? 0.709 : 0.7213 / (1 + 1.079 / m);
    double raw = alpha * m * (double)m / sum;
    out->raw = raw;
    out->paper2007 = (raw <= 2.5 * m && zeros) ? m * log((double)m / zeros) : raw;
    double two32 = 4294967296.0;
    if (raw <= 2.5 * m) out->seed003 = zeros ? m * log((double)m / zeros) : raw;
    else if (raw > two32 / 30.0) out->seed003 = raw < two32 ? -two32 * log(1 - raw / two32) : NAN;
    else out->seed003 = raw;
    return 0;
}

static json_t *num_or_null(double v) { return isfinite(v) ? json_real(v) : json_null(); }

static int add_range(fl_hll *h, uint64_t base, uint64_t from, uint64_t to, uint64_t *buf) {
    while (from < to) {
        size_t n = (size_t)(to - from < BATCH ? to - from : BATCH);
        /* fl_mix64 is a bijection: distinct keys stay distinct, and the bytes Redis's hash
         * reads carry no structure shared between streams */
        for (size_t i = 0; i < n; i++) buf[i] = fl_mix64(base | (from + i));
        if (acc_check(fl_hll_add_u64s(h, buf, n, NULL), "fl_hll_add_u64s")) return 1;
        from += n;
    }
    return 0;
}

static json_t *point(uint32_t p, uint32_t run, uint64_t card, fl_hll *h, int *err) {
    uint64_t est;
    estimates s;
    if (acc_check(fl_hll_estimate(h, &est), "fl_hll_estimate") || seed_estimates(h, p, &s)) {
        *err = 1;
        return NULL;
    }
    fl_hll_info info;
    fl_hll_info_get(h, &info);
    return json_pack("{s:i, s:i, s:I, s:I, s:o, s:o, s:o, s:s}", "p", (int)p, "run", (int)run,
                     "card", (json_int_t)card, "estimate", (json_int_t)est, "raw",
                     num_or_null(s.raw), "paper2007", num_or_null(s.paper2007), "seed003",
                     num_or_null(s.seed003), "encoding",
                     info.encoding == FL_HLL_SPARSE ? "sparse" : "dense");
}

/* Key streams never overlap: the stream id sits above bit 40 (cardinalities stay below). */
static uint64_t stream_base(const acc_opts *o, uint64_t kind, uint64_t run) {
    return ((o->seed * 7919 + kind * 1000003 + run) & 0x7fffff) << 40;
}

static int sweep(const acc_opts *o, json_t *sec, uint64_t *buf) {
    json_t *pts = json_array(), *precs = json_array();
    json_object_set_new(sec, "sweep", pts);
    json_object_set_new(sec, "precisions", precs);
    for (size_t pi = 0; pi < o->n_hll_precisions; pi++) {
        uint32_t p = o->hll_precisions[pi];
        fl_hll *h;
        if (acc_check(fl_hll_create(p, &h), "fl_hll_create")) return 1;
        fl_hll_info info;
        fl_hll_info_get(h, &info);
        json_array_append_new(precs, json_pack("{s:i, s:i, s:I, s:f}", "p", (int)p, "registers",
                                               (int)info.registers, "register_bytes",
                                               (json_int_t)((info.registers * 6 + 7) / 8),
                                               "std_error", info.std_error));
        for (uint32_t run = 0; run < o->hll_runs; run++) {
            fl_hll_clear(h);
            uint64_t base = stream_base(o, 1 + p, run), have = 0;
            for (uint64_t card = 1000; card <= o->hll_max_card; card *= 10) {
                if (add_range(h, base, have, card, buf)) goto fail;
                have = card;
                int err = 0;
                json_t *pt = point(p, run, card, h, &err);
                if (err) goto fail;
                json_array_append_new(pts, pt);
            }
            acc_progress("hll sweep p=%u run %u/%u up to %llu", p, run + 1, o->hll_runs,
                         (unsigned long long)have);
        }
        fl_hll_free(h);
        continue;
    fail:
        fl_hll_free(h);
        return 1;
    }
    return 0;
}

static int std_runs(const acc_opts *o, json_t *sec, uint64_t *buf) {
    json_t *arr = json_array();
    json_object_set_new(sec, "std", arr);
    for (size_t pi = 0; pi < o->n_hll_precisions; pi++) {
        uint32_t p = o->hll_precisions[pi];
        fl_hll *h;
        if (acc_check(fl_hll_create(p, &h), "fl_hll_create")) return 1;
        json_t *ests = json_array(), *paper = json_array();
        for (uint32_t run = 0; run < o->hll_std_runs; run++) {
            fl_hll_clear(h);
            uint64_t est;
            estimates s;
            if (add_range(h, stream_base(o, 100 + p, run), 0, o->hll_std_card, buf) ||
                acc_check(fl_hll_estimate(h, &est), "fl_hll_estimate") ||
                seed_estimates(h, p, &s)) {
                fl_hll_free(h);
                return 1;
            }
            json_array_append_new(ests, json_integer((json_int_t)est));
            json_array_append_new(paper, num_or_null(s.paper2007));
        }
        json_array_append_new(arr, json_pack("{s:i, s:I, s:o, s:o}", "p", (int)p, "card",
                                             (json_int_t)o->hll_std_card, "estimates", ests,
                                             "paper2007", paper));
        fl_hll_free(h);
    }
    return 0;
}

/* Seed 003's demonstration: a fresh p = 14 sketch per cardinality with keys user_0 ...; the
 * keys of one cardinality are a prefix of the next, so one sketch read at each is the same. */
static int demo(const acc_opts *o, json_t *sec) {
    json_t *pts = json_array();
    json_object_set_new(sec, "demo", pts);
    static const uint64_t cards[] = {1000, 10000, 100000, 1000000};
    fl_hll *h;
    if (acc_check(fl_hll_create(FL_HLL_REDIS_P, &h), "fl_hll_create")) return 1;
    char key[64];
    for (uint32_t run = 0; run < o->hll_demo_runs; run++) {
        fl_hll_clear(h);
        uint64_t have = 0;
        for (size_t c = 0; c < sizeof cards / sizeof *cards; c++) {
            for (; have < cards[c]; have++) {
                int len = run == 0 ? snprintf(key, sizeof key, "user_%llu", (unsigned long long)have)
                                   : snprintf(key, sizeof key, "r%u_user_%llu", run,
                                              (unsigned long long)have);
                if (acc_check(fl_hll_add_bytes(h, key, (size_t)len, NULL), "fl_hll_add_bytes")) {
                    fl_hll_free(h);
                    return 1;
                }
            }
            int err = 0;
            json_t *pt = point(FL_HLL_REDIS_P, run, cards[c], h, &err);
            if (err) {
                fl_hll_free(h);
                return 1;
            }
            json_array_append_new(pts, pt);
        }
    }
    fl_hll_free(h);
    return 0;
}

/* Redis's promotion rule, observed: the longest sparse string before the sketch turns dense
 * (adds of distinct keys), and a single register value of 32 (stays sparse) or 33 (dense). */
static int promotion(json_t *sec) {
    fl_hll *h;
    if (acc_check(fl_hll_create(FL_HLL_REDIS_P, &h), "fl_hll_create")) return 1;
    fl_hll_info info;
    fl_hll_info_get(h, &info);
    size_t longest = info.redis_bytes, limit = info.sparse_max_bytes;
    uint64_t keys = 0;
    char key[32];
    while (info.encoding == FL_HLL_SPARSE && keys < 100000) {
        int len = snprintf(key, sizeof key, "promo_%llu", (unsigned long long)keys++);
        if (acc_check(fl_hll_add_bytes(h, key, (size_t)len, NULL), "fl_hll_add_bytes")) {
            fl_hll_free(h);
            return 1;
        }
        fl_hll_info_get(h, &info);
        if (info.encoding == FL_HLL_SPARSE && info.redis_bytes > longest) longest = info.redis_bytes;
    }
    int value_dense[2];
    /* Redis's register value: 1 + trailing zeros of (hash >> p) with bit 50 forced (64 - p):
     * a hash of 1 << (p + v - 1) gives value v in register 0. */
    for (int i = 0; i < 2; i++) {
        uint32_t v = 32 + (uint32_t)i;
        uint64_t hash = 1ull << (FL_HLL_REDIS_P + v - 1);
        fl_hll_clear(h);
        if (acc_check(fl_hll_add_hashes(h, &hash, 1, NULL), "fl_hll_add_hashes")) {
            fl_hll_free(h);
            return 1;
        }
        fl_hll_info_get(h, &info);
        value_dense[i] = info.encoding == FL_HLL_DENSE;
    }
    fl_hll_info_get(h, &info);
    json_object_set_new(sec, "promotion",
                        json_pack("{s:I, s:I, s:I, s:b, s:b, s:I}", "sparse_max_bytes",
                                  (json_int_t)limit, "longest_sparse_bytes", (json_int_t)longest,
                                  "keys_at_promotion", (json_int_t)keys, "value32_dense",
                                  value_dense[0], "value33_dense", value_dense[1],
                                  "dense_redis_bytes", (json_int_t)info.redis_bytes));
    fl_hll_free(h);
    return 0;
}

int acc_hll(const acc_opts *o, json_t *doc) {
    uint64_t *buf = malloc(BATCH * sizeof *buf);
    if (!buf) return 1;
    json_t *sec = json_object();
    json_object_set_new(doc, "hll", sec);
    int rc = promotion(sec) || sweep(o, sec, buf) || std_runs(o, sec, buf) || demo(o, sec);
    free(buf);
    return rc;
}
