/*
 * Scalable Bloom filters (Almeida, Baquero, Preguica, Hutchison 2007) with RedisBloom's
 * defaults (fl_sbf_create with growth and tightening 0: EXPANSION 2, ratio 0.5):
 *
 * - chain: the chain's measured FPR as keys grow past the first capacity, with the number of
 *   sub-filters, bytes and the model's prediction; then each sub-filter's own measured FPR at
 *   its capacity (the 0.5 tightening, 004's "smaller false positives ratio").
 * - planning: 003's "use 2x peak data volume estimate as capacity": a fixed Bloom filter sized
 *   for 2x an estimate, filled to multiples of the estimate, against the chain started at the
 *   estimate.
 */
#include <stdio.h>
#include <stdlib.h>

#include "accuracy.h"

#define P 0.01
#define BATCH 65536

static int chain_fpr(const fl_sbf *s, const fl_filter *one, uint64_t queries, uint64_t stream,
                     uint64_t *buf, uint8_t *out, uint64_t *fp) {
    *fp = 0;
    for (uint64_t done = 0; done < queries;) {
        size_t n = (size_t)(queries - done < BATCH ? queries - done : BATCH), pos;
        acc_query_hashes(buf, n, stream * 1000003 + done);
        fl_status st = s ? fl_sbf_contains_hashes(s, buf, n, out, &pos)
                         : fl_contains_hashes(one, buf, n, out, &pos);
        if (acc_check(st, "contains_hashes")) return 1;
        *fp += pos;
        done += n;
    }
    return 0;
}

static void key_batch(uint64_t *buf, size_t n, uint64_t base, uint64_t from) {
    for (size_t i = 0; i < n; i++) buf[i] = fl_mix64(base + from + i);
}

/* Fills the chain s, or else the filter f, to `times` the capacity estimate with the keys of
 * the stream at base (*have of them are in already), then counts its false positives over
 * o->sbf_queries fresh hashes of query stream `stream` into *fp; 1 on a failure. */
static int fill_and_measure(const acc_opts *o, fl_sbf *s, fl_filter *f, double times,
                            uint64_t base, uint64_t *have, uint64_t stream, uint64_t *buf,
                            uint8_t *out, uint64_t *fp) {
    uint64_t want = (uint64_t)(times * (double)o->sbf_capacity);
    while (*have < want) {
        size_t n = (size_t)(want - *have < BATCH ? want - *have : BATCH);
        key_batch(buf, n, base, *have);
        if (s ? acc_check(fl_sbf_add_hashes(s, buf, n, NULL, NULL), "fl_sbf_add_hashes")
              : acc_check(fl_insert_hashes(f, buf, n, NULL), "fl_insert_hashes"))
            return 1;
        *have += n;
    }
    return chain_fpr(s, f, o->sbf_queries, stream, buf, out, fp);
}

static int run_chain(const acc_opts *o, fl_variant variant, json_t *arr, json_t *subs,
                     uint64_t *buf, uint8_t *out) {
    fl_sbf_config cfg = {.capacity = o->sbf_capacity, .error_rate = P, .variant = variant,
                         .seed = o->seed};
    fl_sbf *s;
    if (acc_check(fl_sbf_create(&cfg, &s), "fl_sbf_create")) return 1;
    static const double fills[] = {0.5, 1, 2, 3, 5, 7, 10, 15};
    uint64_t have = 0, base = (o->seed + 77) << 40;
    for (size_t i = 0; i < sizeof fills / sizeof *fills; i++) {
        uint64_t fp;
        if (fill_and_measure(o, s, NULL, fills[i], base, &have, 500 + i, buf, out, &fp)) {
            fl_sbf_free(s);
            return 1;
        }
        fl_sbf_info info;
        fl_sbf_get_info(s, &info);
        json_array_append_new(arr, json_pack(
            "{s:s, s:f, s:I, s:i, s:I, s:I, s:f, s:f, s:I, s:I, s:f, s:f}", "variant",
            fl_variant_name(variant), "fill", fills[i], "keys", (json_int_t)have, "filters",
            (int)info.filters, "bytes", (json_int_t)info.bytes, "total_capacity",
            (json_int_t)info.total_capacity, "predicted_fpr", info.predicted_fpr, "measured_fpr",
            (double)fp / (double)o->sbf_queries, "false_positives", (json_int_t)fp, "queries",
            (json_int_t)o->sbf_queries, "growth", info.growth, "tightening", info.tightening));
    }
    /* each sub-filter alone: all but the newest are at their capacity */
    fl_sbf_info info;
    fl_sbf_get_info(s, &info);
    for (uint32_t i = 0; i < info.filters; i++) {
        fl_sbf_filter_info fi;
        uint64_t fp;
        fl_sbf_filter_info_at(s, i, &fi);
        fl_filter *sub = NULL;
        if (fl_sbf_filter_copy(s, i, &sub) != FL_OK ||
            chain_fpr(NULL, sub, o->sbf_queries, 900 + i, buf, out, &fp)) {
            fl_free(sub);
            fl_sbf_free(s);
            return 1;
        }
        fl_free(sub);
        json_array_append_new(subs, json_pack(
            "{s:s, s:i, s:I, s:I, s:f, s:f, s:f, s:I, s:i}", "variant", fl_variant_name(variant),
            "index", (int)i, "capacity", (json_int_t)fi.capacity, "items", (json_int_t)fi.items,
            "target_fpr", fi.target_fpr, "predicted_fpr", fi.predicted_fpr, "measured_fpr",
            (double)fp / (double)o->sbf_queries, "bytes", (json_int_t)fi.bytes, "k",
            (int)fi.geometry.k));
    }
    fl_sbf_free(s);
    return 0;
}

int acc_sbf(const acc_opts *o, json_t *doc) {
    uint64_t *buf;
    uint8_t *out;
    json_t *sec = acc_section(doc, "sbf", BATCH, &buf, &out);
    if (!sec)
        return 1;
    int rc = 1;
    /* RedisBloom's defaults as the library applies them to a zeroed config */
    fl_sbf_config dcfg = {.capacity = o->sbf_capacity, .error_rate = P};
    fl_sbf *s;
    if (acc_check(fl_sbf_create(&dcfg, &s), "fl_sbf_create")) goto done;
    fl_sbf_info di;
    fl_sbf_get_info(s, &di);
    fl_sbf_free(s);
    json_object_set_new(sec, "defaults", json_pack("{s:f, s:f, s:s, s:f}", "growth", di.growth,
                                                   "tightening", di.tightening, "variant",
                                                   fl_variant_name(di.variant), "error_rate",
                                                   di.error_rate));
    json_t *chain = json_array(), *subs = json_array();
    json_object_set_new(sec, "chain", chain);
    json_object_set_new(sec, "subfilters", subs);
    static const fl_variant vs[] = {FL_BLOCK512, FL_CLASSIC};
    for (size_t v = 0; v < 2; v++) {
        if (run_chain(o, vs[v], chain, subs, buf, out)) goto done;
        acc_progress("sbf chain %s done", fl_variant_name(vs[v]));
    }
    /* capacity planning: a fixed classic filter (RedisBloom's layout) sized for 2x the
     * estimate, filled to multiples of the estimate */
    json_t *plan = json_array();
    json_object_set_new(sec, "planning", plan);
    fl_filter *f;
    if (acc_check(fl_create_for(FL_CLASSIC, 2 * o->sbf_capacity, P, &f), "fl_create_for")) goto done;
    static const double peaks[] = {0.5, 1, 1.5, 2, 2.5, 3, 4};
    uint64_t have = 0, base = (o->seed + 99) << 40;
    for (size_t i = 0; i < sizeof peaks / sizeof *peaks; i++) {
        uint64_t fp;
        if (fill_and_measure(o, NULL, f, peaks[i], base, &have, 700 + i, buf, out, &fp)) {
            fl_free(f);
            goto done;
        }
        fl_info info;
        fl_get_info(f, &info);
        json_array_append_new(plan, json_pack("{s:f, s:I, s:I, s:f, s:f}", "keys_over_estimate",
                                              peaks[i], "keys", (json_int_t)have, "bytes",
                                              (json_int_t)info.bytes, "measured_fpr",
                                              (double)fp / (double)o->sbf_queries,
                                              "predicted_fpr", info.predicted_fpr));
    }
    fl_free(f);
    json_object_set_new(sec, "estimate", json_integer((json_int_t)o->sbf_capacity));
    json_object_set_new(sec, "error_rate", json_real(P));
    rc = 0;
done:
    free(buf);
    free(out);
    return rc;
}
