/*
 * Counting Bloom filters (Fan, Cao, Almeida, Broder, "Summary Cache", IEEE/ACM ToN 2000):
 *
 * - memory: payload bytes of counting against classic and counting512 against block512 for
 *   the same n and FPR (000: "4x more memory").
 * - fill: measured FPR against fill (keys / the n it was sized for), with the model's
 *   prediction and the saturated counters (fl_info.saturated).
 * - overflow: how often a 4-bit counter saturates (reaches 15, where the library stops
 *   counting) per filter, against Fan et al.'s bound on any counter reaching 16
 *   (fl_counting_overflow_bound) and the expected count of counters at 15 or more
 *   (computed by the report from the binomial/Poisson load per counter).
 */
#include <stdio.h>
#include <stdlib.h>

#include "accuracy.h"
#include "fb_rng.h"

#define FPR 0.01
#define BATCH 65536

static int insert_keys(fl_filter *f, uint64_t base, uint64_t from, uint64_t to, uint64_t *buf) {
    while (from < to) {
        size_t n = (size_t)(to - from < BATCH ? to - from : BATCH);
        for (size_t i = 0; i < n; i++) buf[i] = fl_mix64(base + from + i);
        if (acc_check(fl_insert_hashes(f, buf, n, NULL), "fl_insert_hashes")) return 1;
        from += n;
    }
    return 0;
}

static int measure_fpr(const fl_filter *f, uint64_t queries, uint64_t stream, uint64_t *buf,
                       uint8_t *out, uint64_t *fp) {
    *fp = 0;
    for (uint64_t done = 0; done < queries;) {
        size_t n = (size_t)(queries - done < BATCH ? queries - done : BATCH);
        acc_query_hashes(buf, n, stream * 1000003 + done);
        size_t pos;
        if (acc_check(fl_contains_hashes(f, buf, n, out, &pos), "fl_contains_hashes")) return 1;
        *fp += pos;
        done += n;
    }
    return 0;
}

int acc_counting(const acc_opts *o, json_t *doc) {
    uint64_t *buf;
    uint8_t *out;
    json_t *sec = acc_section(doc, "counting", BATCH, &buf, &out);
    if (!sec)
        return 1;
    int rc = 1;
    fl_filter *f = NULL;

    /* memory at equal n and FPR */
    json_t *mem = json_array();
    json_object_set_new(sec, "memory", mem);
    static const fl_variant vs[] = {FL_CLASSIC, FL_COUNTING, FL_BLOCK512, FL_COUNTING512};
    for (size_t i = 0; i < 4; i++) {
        fl_params p;
        if (acc_check(fl_params_for(vs[i], o->counting_n, FPR, &p), "fl_params_for")) goto done;
        json_array_append_new(mem, json_pack("{s:s, s:I, s:f, s:I, s:i, s:I, s:f, s:f}", "variant",
                                             fl_variant_name(vs[i]), "n", (json_int_t)o->counting_n,
                                             "fpr", FPR, "bytes", (json_int_t)p.bytes, "k",
                                             (int)p.geometry.k, "units",
                                             (json_int_t)p.geometry.units, "bits_per_key",
                                             p.bits_per_key, "predicted_fpr", p.predicted_fpr));
    }

    /* FPR against fill */
    json_t *fill = json_array();
    json_object_set_new(sec, "fill", fill);
    static const double fills[] = {0.25, 0.5, 1.0, 1.5, 2.0, 3.0};
    static const fl_variant fv[] = {FL_COUNTING, FL_COUNTING512, FL_CLASSIC, FL_BLOCK512};
    for (size_t v = 0; v < 4; v++) {
        if (acc_check(fl_create_for(fv[v], o->counting_n, FPR, &f), "fl_create_for")) goto done;
        uint64_t have = 0;
        for (size_t i = 0; i < sizeof fills / sizeof *fills; i++) {
            uint64_t want = (uint64_t)(fills[i] * (double)o->counting_n), fp;
            if (insert_keys(f, o->seed << 40, have, want, buf)) goto done;
            have = want;
            if (measure_fpr(f, o->counting_queries, o->seed * 10 + v, buf, out, &fp)) goto done;
            fl_info info;
            fl_get_info(f, &info);
            json_array_append_new(fill, json_pack(
                "{s:s, s:f, s:I, s:I, s:i, s:f, s:f, s:I, s:I, s:I}", "variant",
                fl_variant_name(fv[v]), "fill", fills[i], "keys", (json_int_t)have, "bytes",
                (json_int_t)info.bytes, "k", (int)info.geometry.k, "predicted_fpr",
                info.predicted_fpr, "measured_fpr", (double)fp / (double)o->counting_queries,
                "false_positives", (json_int_t)fp, "queries", (json_int_t)o->counting_queries,
                "saturated", (json_int_t)info.saturated));
        }
        fl_free(f);
        f = NULL;
        acc_progress("counting fill sweep %s done", fl_variant_name(fv[v]));
    }

    /* counter overflow against Fan et al.'s bound */
    json_t *ov = json_array();
    json_object_set_new(sec, "overflow", ov);
    static const double ofills[] = {1, 2, 4, 6, 8, 10, 12, 16};
    for (size_t v = 0; v < 2; v++) {
        for (size_t i = 0; i < sizeof ofills / sizeof *ofills; i++) {
            uint64_t n = (uint64_t)(ofills[i] * (double)o->overflow_n), sat_sum = 0, any = 0;
            uint64_t sat_max = 0, counters = 0;
            uint32_t k = 0;
            for (uint32_t t = 0; t < o->overflow_trials; t++) {
                if (acc_check(fl_create_for(fv[v], o->overflow_n, FPR, &f), "fl_create_for") ||
                    insert_keys(f, ((o->seed * 1000 + t + 1) << 40) | (i << 36), 0, n, buf))
                    goto done;
                fl_info info;
                fl_get_info(f, &info);
                counters = (uint64_t)info.bytes * 2; /* 4-bit counters */
                k = info.geometry.k;
                sat_sum += info.saturated;
                any += info.saturated > 0;
                if (info.saturated > sat_max) sat_max = info.saturated;
                fl_free(f);
                f = NULL;
            }
            json_array_append_new(ov, json_pack(
                "{s:s, s:f, s:I, s:I, s:i, s:i, s:f, s:I, s:I, s:f}", "variant",
                fl_variant_name(fv[v]), "fill", ofills[i], "keys", (json_int_t)n, "counters",
                (json_int_t)counters, "k", (int)k, "trials", (int)o->overflow_trials,
                "mean_saturated", (double)sat_sum / (double)(o->overflow_trials ? o->overflow_trials : 1),
                "max_saturated", (json_int_t)sat_max, "trials_with_saturation", (json_int_t)any,
                "fan_bound", fl_counting_overflow_bound((double)counters, (double)n, (double)k)));
        }
        acc_progress("counting overflow %s done", fl_variant_name(fv[v]));
    }
    rc = 0;
done:
    fl_free(f);
    free(buf);
    free(out);
    return rc;
}
