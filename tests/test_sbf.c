/*
 * Scalable Bloom filters (src/sbf/sbf.c, src/sbf/codec_sbf.c): parameter errors, no false negative
 * across growth, the chain's FPR against its target at several fills (measured and
 * modelled), batch calls against single-key ones, RedisBloom's add semantics, non-scaling
 * and capped chains, kernel binding, and the file codec (round trips, kinds, every
 * truncation and bit flip, crafted files with valid checksums).
 */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "format/container.h"
#include "sbf/sbf_internal.h"

static fl_sbf *new_sbf(uint64_t cap, double p, double growth, fl_variant v) {
    fl_sbf_config c = {.capacity = cap, .error_rate = p, .growth = growth, .variant = v};
    fl_sbf *s = NULL;
    assert_int_equal(fl_sbf_create(&c, &s), FL_OK);
    return s;
}

/* Adds hashes[0..n) one batch at a time; returns how many were newly added. */
static size_t add_all(fl_sbf *s, const uint64_t *h, size_t n) {
    size_t total = 0;
    for (size_t at = 0; at < n; at += 1000) {
        size_t len = n - at < 1000 ? n - at : 1000, got = 0;
        assert_int_equal(fl_sbf_add_hashes(s, h + at, len, NULL, &got), FL_OK);
        total += got;
    }
    return total;
}

static size_t positives(const fl_sbf *s, const uint64_t *h, size_t n) {
    uint8_t *out = malloc(n ? n : 1);
    assert_non_null(out);
    size_t pos = 0;
    assert_int_equal(fl_sbf_contains_hashes(s, h, n, out, &pos), FL_OK);
    free(out);
    return pos;
}

static void test_bad_parameters(void **state) {
    (void)state;
    fl_sbf *s = (fl_sbf *)1;
    fl_sbf_config ok = {.capacity = 100, .error_rate = 0.01};
    fl_sbf_config c = ok;
    assert_int_equal(fl_sbf_create(NULL, &s), FL_ERR_INVALID_ARG);
    assert_null(s);
    assert_int_equal(fl_sbf_create(&c, NULL), FL_ERR_INVALID_ARG);
    c.capacity = 0;
    assert_int_equal(fl_sbf_create(&c, &s), FL_ERR_BAD_N);
    const double bad_p[] = {0, 1, -0.5, 2, NAN};
    for (size_t i = 0; i < sizeof bad_p / sizeof *bad_p; i++) {
        c = ok;
        c.error_rate = bad_p[i];
        assert_int_equal(fl_sbf_create(&c, &s), FL_ERR_BAD_FPR);
    }
    const double bad_g[] = {0.5, 0.999, -2, NAN, INFINITY};
    for (size_t i = 0; i < sizeof bad_g / sizeof *bad_g; i++) {
        c = ok;
        c.growth = bad_g[i];
        assert_int_equal(fl_sbf_create(&c, &s), FL_ERR_BAD_GROWTH);
    }
    const double bad_r[] = {1, 1.5, -0.1, NAN};
    for (size_t i = 0; i < sizeof bad_r / sizeof *bad_r; i++) {
        c = ok;
        c.tightening = bad_r[i];
        assert_int_equal(fl_sbf_create(&c, &s), FL_ERR_BAD_TIGHTENING);
    }
    c = ok;
    c.variant = FL_CUCKOO;
    assert_int_equal(fl_sbf_create(&c, &s), FL_ERR_UNSUPPORTED);
    c = ok;
    c.variant = (fl_variant)99;
    assert_int_equal(fl_sbf_create(&c, &s), FL_ERR_INVALID_ARG);
    c = ok;
    c.flags = 1u << 7;
    assert_int_equal(fl_sbf_create(&c, &s), FL_ERR_INVALID_ARG);
    c = ok;
    c.max_filters = FL_SBF_FILTERS_MAX + 1;
    assert_int_equal(fl_sbf_create(&c, &s), FL_ERR_INVALID_ARG);
    c = ok;
    c.max_bytes = 8; /* the first sub-filter alone is larger */
    assert_int_equal(fl_sbf_create(&c, &s), FL_ERR_TOO_LARGE);
    c = ok;
    c.capacity = UINT64_MAX; /* refused before any allocation */
    assert_int_equal(fl_sbf_create(&c, &s), FL_ERR_TOO_LARGE);
    assert_null(s);
    /* growth exactly 1 is allowed (equal sub-filters) */
    c = ok;
    c.growth = 1;
    assert_int_equal(fl_sbf_create(&c, &s), FL_OK);
    fl_sbf_free(s);
    /* NULL handles */
    assert_int_equal(fl_sbf_contains_hash(NULL, 1), 0);
    assert_int_equal(fl_sbf_count(NULL), 0);
    assert_int_equal(fl_sbf_add_hash(NULL, 1, NULL), FL_ERR_INVALID_ARG);
    fl_sbf_free(NULL);
}

/* The chain's invariants: capacities by the growth rule, p_i by the tightening rule, older
 * sub-filters full, counts adding up, every model at or under its target. */
static void check_chain(const fl_sbf *s) {
    fl_sbf_info in;
    assert_int_equal(fl_sbf_get_info(s, &in), FL_OK);
    uint64_t cap = in.capacity, items = 0, total = 0;
    size_t bytes = 0;
    double none = 1, sum = 0;
    uint32_t classic = 0;
    for (uint32_t i = 0; i < in.filters; i++) {
        fl_sbf_filter_info fi;
        assert_int_equal(fl_sbf_filter_info_at(s, i, &fi), FL_OK);
        if (i > 0) cap = (uint64_t)ceil((double)cap * in.growth);
        assert_int_equal(fi.capacity, cap);
        double want = in.flags & FL_SBF_NONSCALING
                          ? in.error_rate
                          : in.error_rate * (1 - in.tightening) * pow(in.tightening, i);
        assert_true(fabs(fi.target_fpr - want) <= 1e-12 * want);
        assert_true(fi.items <= fi.capacity);
        if (i + 1 < in.filters) assert_int_equal(fi.items, fi.capacity);
        assert_true(fl_predict_fpr(&fi.geometry, fi.capacity) <= fi.target_fpr);
        assert_true(fi.predicted_fpr <= fi.target_fpr);
        /* the chain's layout, or classic from the first fallback on */
        if (fi.geometry.variant != in.variant) {
            assert_int_equal(fi.geometry.variant, FL_CLASSIC);
            classic++;
        } else {
            assert_int_equal(classic, 0);
        }
        items += fi.items;
        total += fi.capacity;
        bytes += fi.bytes;
        none *= 1 - fi.predicted_fpr;
        sum += fi.predicted_fpr;
    }
    assert_int_equal(classic, in.classic_filters);
    assert_int_equal(items, in.items);
    assert_int_equal(in.items, fl_sbf_count(s));
    assert_int_equal(total, in.total_capacity);
    assert_int_equal(bytes, in.bytes);
    assert_true(fabs(in.predicted_fpr - (1 - none)) < 1e-12);
    assert_true(in.predicted_fpr <= sum + 1e-15);
    assert_true(in.predicted_fpr < in.error_rate);
    assert_int_equal(fl_sbf_filter_info_at(s, in.filters, &(fl_sbf_filter_info){0}),
                     FL_ERR_INVALID_ARG);
    fl_filter *nothing = NULL;
    assert_int_equal(fl_sbf_filter_copy(s, in.filters, &nothing), FL_ERR_INVALID_ARG);
    assert_null(nothing);
    assert_null(fl_sbf_kernel(s, in.filters));
}

/* No false negative across growth, for several growth factors and variants: every key
 * handed to an add is reported afterwards (added, or already reported present). */
static void test_no_false_negatives_across_growth(void **state) {
    (void)state;
    const struct {
        fl_variant v;
        double growth;
        uint64_t cap;
        size_t n;
    } cases[] = {
        {FL_BLOCK512, 2, 1000, 100000}, {FL_CLASSIC, 2, 500, 40000},
        {FL_SPLIT256, 4, 300, 50000},   {FL_REG64, 1.5, 700, 30000},
        {FL_BLOCK512, 1, 400, 8000},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        fl_sbf *s = new_sbf(cases[c].cap, 0.01, cases[c].growth, cases[c].v);
        uint64_t *h = test_hashes(cases[c].n, 10 + c);
        size_t added = add_all(s, h, cases[c].n);
        fl_sbf_info in;
        assert_int_equal(fl_sbf_get_info(s, &in), FL_OK);
        assert_true(in.filters >= 4);
        /* distinct keys: only a false positive at add time is skipped, and the chain's
         * FPR stays under 1%; the batch and the count agree */
        assert_int_equal(added, in.items);
        assert_true(added >= cases[c].n - cases[c].n / 50);
        assert_int_equal(positives(s, h, cases[c].n), cases[c].n);
        for (size_t i = 0; i < cases[c].n; i += 97) assert_int_equal(fl_sbf_contains_hash(s, h[i]), 1);
        check_chain(s);
        free(h);
        fl_sbf_free(s);
    }
}

/* A long chain (growth 1, RedisBloom's EXPANSION 1: 100 sub-filters of 1000 keys at 1%)
 * must grow linearly: its tightened targets reach 1e-32, where block512 alone would need
 * gigabytes, so sub-filters fall back to classic. Memory is compared with the classic
 * optimum RedisBloom sizes by, m_i = capacity ln(1/p_i) / ln(2)^2 bits. The mixed chain
 * keeps every key, meets its FPR bound, and survives a save and load. */
static void test_layout_fallback(void **state) {
    (void)state;
    const size_t n = 100000, q = 200000;
    fl_sbf *s = new_sbf(1000, 0.01, 1, FL_BLOCK512);
    uint64_t *h = test_hashes(n + q, 77);
    size_t added = add_all(s, h, n);
    fl_sbf_info in;
    assert_int_equal(fl_sbf_get_info(s, &in), FL_OK);
    assert_true(in.filters >= 99);
    assert_true(in.classic_filters > 0 && in.classic_filters < in.filters);
    assert_true(in.layout_slack == FL_SBF_LAYOUT_SLACK_DEFAULT);
    check_chain(s);
    double optimum = 0;
    for (uint32_t i = 0; i < in.filters; i++)
        optimum += 1000 * -log(fl_sbf_target_fpr(s, i)) / (M_LN2 * M_LN2) / 8;
    print_message("layout fallback: %u of %u sub-filters classic, %zu bytes, %.2fx the classic "
                  "optimum\n", in.classic_filters, in.filters, in.bytes, in.bytes / optimum);
    assert_true((double)in.bytes <= 2 * optimum);
    assert_int_equal(positives(s, h, n), n);
    size_t fp = positives(s, h + n, q);
    assert_true((double)fp <= 0.01 * (double)q); /* the bound, with ~20 sigma to spare */
    (void)added;
    /* save and load: the same sub-filters, the same answers, the same bytes again */
    size_t len = fl_sbf_serialized_size(s);
    uint8_t *buf = malloc(len), *again = malloc(len);
    assert_int_equal(fl_sbf_save_mem(s, buf, len, NULL), FL_OK);
    fl_sbf *l = NULL;
    assert_int_equal(fl_sbf_load_mem(buf, len, 0, &l), FL_OK);
    check_chain(l);
    assert_int_equal(positives(l, h, n), n);
    assert_int_equal(positives(l, h + n, q), fp);
    assert_int_equal(fl_sbf_save_mem(l, again, len, NULL), FL_OK);
    assert_memory_equal(buf, again, len);
    fl_sbf_free(l);
    free(again);
    free(buf);
    free(h);
    fl_sbf_free(s);
    /* one key at 1e-30: classic's size, not the blocked layout's megabytes */
    fl_sbf_config c = {.capacity = 1, .error_rate = 1e-30, .variant = FL_BLOCK512};
    assert_int_equal(fl_sbf_create(&c, &s), FL_OK);
    assert_int_equal(fl_sbf_get_info(s, &in), FL_OK);
    assert_int_equal(in.classic_filters, 1);
    assert_true(in.bytes <= 1024);
    fl_sbf_free(s);
    /* INFINITY keeps the variant; slack below 1 is refused */
    c = (fl_sbf_config){.capacity = 1000, .error_rate = 1e-6, .layout_slack = INFINITY};
    assert_int_equal(fl_sbf_create(&c, &s), FL_OK);
    assert_int_equal(fl_sbf_get_info(s, &in), FL_OK);
    assert_int_equal(in.classic_filters, 0);
    assert_int_equal(fl_sbf_set_layout_slack(s, 0.5), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_sbf_set_layout_slack(s, 1.0), FL_OK);
    assert_int_equal(fl_sbf_set_layout_slack(NULL, 1.0), FL_ERR_INVALID_ARG);
    fl_sbf_free(s);
    c.layout_slack = 0.99;
    assert_int_equal(fl_sbf_create(&c, &s), FL_ERR_INVALID_ARG);
    c.layout_slack = NAN;
    assert_int_equal(fl_sbf_create(&c, &s), FL_ERR_INVALID_ARG);
}

/* The chain's FPR on never-added keys at several fills (before and just after growths, and
 * far past the initial capacity): the model's prediction is at most the target, and the
 * measurement agrees with the model within 4 standard deviations and stays within 4 of
 * them of the target. Fixed keys: the outcome is the same on every run. */
static void test_fpr_bound_by_measurement(void **state) {
    (void)state;
    const double p = 0.01;
    const size_t probes = 200000;
    const fl_variant vs[] = {FL_BLOCK512, FL_CLASSIC};
    for (size_t vi = 0; vi < 2; vi++) {
        fl_sbf *s = new_sbf(1000, p, 2, vs[vi]);
        const size_t fills[] = {500, 1000, 1001, 3000, 7000, 15000, 40000, 63000};
        size_t n = fills[sizeof fills / sizeof *fills - 1];
        uint64_t *h = test_hashes(n, 1);
        uint64_t *neg = test_hashes(probes, 2);
        size_t done = 0;
        for (size_t f = 0; f < sizeof fills / sizeof *fills; f++) {
            add_all(s, h + done, fills[f] - done);
            done = fills[f];
            fl_sbf_info in;
            assert_int_equal(fl_sbf_get_info(s, &in), FL_OK);
            double measured = (double)positives(s, neg, probes) / (double)probes;
            double q = in.predicted_fpr;
            assert_true(q <= p);
            assert_true(measured <= q + 4 * sqrt(q * (1 - q) / probes) + 1.0 / probes);
            assert_true(measured <= p + 4 * sqrt(p * (1 - p) / probes));
        }
        fl_sbf_info in;
        assert_int_equal(fl_sbf_get_info(s, &in), FL_OK);
        assert_true(in.filters >= 6); /* several growths happened */
        free(h);
        free(neg);
        fl_sbf_free(s);
    }
}

/* Batch adds and lookups against key-by-key ones: same answers, same resulting chain (same
 * file bytes); a key repeated inside a batch is added once; the lookup across the chain
 * equals an OR of the sub-filters' own answers. */
static void test_batch_matches_single(void **state) {
    (void)state;
    const size_t n = 20000;
    uint64_t *h = test_hashes(n, 3);
    for (size_t i = 0; i < n; i += 7) h[i] = h[i / 2]; /* repeats, some within a batch */
    fl_sbf *a = new_sbf(600, 0.02, 2, FL_BLOCK512), *b = new_sbf(600, 0.02, 2, FL_BLOCK512);
    uint8_t *added = malloc(n);
    assert_non_null(added);
    size_t count = 0;
    assert_int_equal(fl_sbf_add_hashes(a, h, n, added, &count), FL_OK);
    size_t ones = 0;
    for (size_t i = 0; i < n; i++) {
        int one = -1;
        assert_int_equal(fl_sbf_add_hash(b, h[i], &one), FL_OK);
        assert_int_equal(one, added[i]);
        ones += added[i];
    }
    assert_int_equal(ones, count);
    assert_int_equal(count, fl_sbf_count(a));
    size_t la = fl_sbf_serialized_size(a), lb = fl_sbf_serialized_size(b);
    assert_int_equal(la, lb);
    uint8_t *fa = malloc(la), *fb = malloc(lb);
    assert_int_equal(fl_sbf_save_mem(a, fa, la, NULL), FL_OK);
    assert_int_equal(fl_sbf_save_mem(b, fb, lb, NULL), FL_OK);
    assert_memory_equal(fa, fb, la);
    free(fa);
    free(fb);

    /* lookups: half present (most chunks gather the keys still negative) or a tenth
     * present (most chunks OR every sub-filter's answers); lengths around the chunk */
    uint64_t *q = test_hashes(n, 4);
    uint8_t *out = malloc(n), *sub = malloc(n);
    fl_sbf_info in;
    assert_int_equal(fl_sbf_get_info(a, &in), FL_OK);
    assert_true(in.filters >= 4);
    /* each sub-filter as a filter of its own (fl_sbf_filter_copy): the chain answers as
     * their union */
    fl_filter **copies = calloc(in.filters, sizeof *copies);
    for (uint32_t f = 0; f < in.filters; f++) {
        assert_int_equal(fl_sbf_filter_copy(a, f, &copies[f]), FL_OK);
        fl_sbf_filter_info fi;
        assert_int_equal(fl_sbf_filter_info_at(a, f, &fi), FL_OK);
        assert_int_equal(fl_count(copies[f]), fi.items);
        assert_int_equal(fl_size_bytes(copies[f]), fi.bytes);
        fl_info ci;
        assert_int_equal(fl_get_info(copies[f], &ci), FL_OK);
        assert_int_equal(ci.bits_set, fi.bits_set);
        assert_true(fi.bits_set > 0);
    }
    const size_t lens[] = {0, 1, 511, 1023, 1024, 1025, 1777, n};
    for (size_t l = 0; l < 2 * sizeof lens / sizeof *lens; l++) {
        if (l % (sizeof lens / sizeof *lens) == 0) {
            free(q);
            q = test_hashes(n, 4);
            for (size_t i = 0; i < n; i += l ? 10 : 2) q[i] = h[i];
        }
        size_t pos = 0, want = 0;
        memset(out, 0xee, n);
        size_t len = lens[l % (sizeof lens / sizeof *lens)];
        assert_int_equal(fl_sbf_contains_hashes(a, q, len, out, &pos), FL_OK);
        for (size_t i = 0; i < len; i++) {
            int any = 0;
            for (uint32_t f = 0; f < in.filters; f++)
                any |= fl_contains_hash(copies[f], q[i]);
            assert_int_equal(out[i], any);
            assert_int_equal(out[i], fl_sbf_contains_hash(a, q[i]));
            want += out[i];
        }
        assert_int_equal(pos, want);
    }
    /* byte keys */
    int one = -1;
    assert_int_equal(fl_sbf_add_bytes(a, "hello", 5, &one), FL_OK);
    assert_int_equal(fl_sbf_contains_bytes(a, "hello", 5), 1);
    assert_int_equal(fl_sbf_contains_hash(a, fl_sbf_hash_bytes(a, "hello", 5)), 1);
    assert_int_equal(fl_sbf_add_bytes(a, "hello", 5, &one), FL_OK);
    assert_int_equal(one, 0);
    assert_int_equal(fl_sbf_add_bytes(a, NULL, 3, &one), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_sbf_contains_hashes(a, NULL, 3, out, NULL), FL_ERR_INVALID_ARG);
    for (uint32_t f = 0; f < in.filters; f++) fl_free(copies[f]);
    free(copies);
    free(out);
    free(sub);
    free(q);
    free(added);
    free(h);
    fl_sbf_free(a);
    fl_sbf_free(b);
}

/* NONSCALING: FULL past the capacity, nothing changed, present keys still answer 0 added;
 * max_filters and max_bytes: TOO_LARGE where growth would pass them; batches stop at the
 * failing key with added[] and the count saying what went in. */
static void test_full_and_caps(void **state) {
    (void)state;
    const size_t n = 5000;
    uint64_t *h = test_hashes(n, 5);
    fl_sbf_config c = {.capacity = 100, .error_rate = 0.01, .flags = FL_SBF_NONSCALING};
    fl_sbf *s = NULL;
    assert_int_equal(fl_sbf_create(&c, &s), FL_OK);
    fl_sbf_filter_info fi0;
    assert_int_equal(fl_sbf_filter_info_at(s, 0, &fi0), FL_OK);
    assert_true(fi0.target_fpr == 0.01); /* the whole budget: it never gets a sibling */
    size_t i = 0;
    while (fl_sbf_count(s) < 100) assert_int_equal(fl_sbf_add_hash(s, h[i++], NULL), FL_OK);
    int one = -1;
    size_t j = i;
    while (fl_sbf_contains_hash(s, h[j])) j++; /* a key the chain does not report */
    assert_int_equal(fl_sbf_add_hash(s, h[j], &one), FL_ERR_FULL);
    assert_int_equal(one, 0);
    assert_int_equal(fl_sbf_count(s), 100);
    assert_int_equal(fl_sbf_contains_hash(s, h[j]), 0);
    assert_int_equal(fl_sbf_add_hash(s, h[0], &one), FL_OK); /* present: BF.ADD's 0 */
    assert_int_equal(one, 0);
    uint8_t added[3] = {9, 9, 9};
    size_t count = 99;
    uint64_t batch[3] = {h[1], h[j], h[2]};
    assert_int_equal(fl_sbf_add_hashes(s, batch, 3, added, &count), FL_ERR_FULL);
    assert_int_equal(count, 0);
    assert_int_equal(added[0] | added[1] | added[2], 0);
    check_chain(s);
    fl_sbf_free(s);

    /* at most two sub-filters: 100 + 200 keys, then TOO_LARGE */
    fl_sbf_config m = {.capacity = 100, .error_rate = 0.01, .max_filters = 2};
    assert_int_equal(fl_sbf_create(&m, &s), FL_OK);
    fl_status st = FL_OK;
    for (i = 0; i < n && st == FL_OK; i++) st = fl_sbf_add_hash(s, h[i], NULL);
    assert_int_equal(st, FL_ERR_TOO_LARGE);
    assert_int_equal(fl_sbf_count(s), 300);
    fl_sbf_info in;
    assert_int_equal(fl_sbf_get_info(s, &in), FL_OK);
    assert_int_equal(in.filters, 2);
    /* a batch stopping half way */
    fl_sbf_clear(s);
    uint8_t *ad = malloc(n);
    assert_int_equal(fl_sbf_add_hashes(s, h, n, ad, &count), FL_ERR_TOO_LARGE);
    assert_int_equal(count, 300);
    size_t ones = 0, last = 0;
    for (i = 0; i < n; i++)
        if (ad[i]) ones++, last = i;
    assert_int_equal(ones, 300);
    for (i = last + 1; i < n; i++) assert_int_equal(ad[i], 0);
    check_chain(s);
    fl_sbf_free(s);

    /* a byte cap: the first sub-filter fits, the chain stops where the next would not */
    fl_sbf_config b = {.capacity = 1000, .error_rate = 0.01};
    assert_int_equal(fl_sbf_create(&b, &s), FL_OK);
    fl_sbf_filter_info f0;
    assert_int_equal(fl_sbf_filter_info_at(s, 0, &f0), FL_OK);
    size_t first = f0.bytes;
    fl_sbf_free(s);
    b.max_bytes = 4 * first;
    assert_int_equal(fl_sbf_create(&b, &s), FL_OK);
    assert_int_equal(fl_sbf_add_hashes(s, h, n, NULL, &count), FL_ERR_TOO_LARGE);
    assert_int_equal(fl_sbf_get_info(s, &in), FL_OK);
    assert_true(in.bytes <= b.max_bytes);
    assert_int_equal(in.filters, 2); /* 1000 + 2000 keys; the third needs > 2x more */
    check_chain(s);
    free(ad);
    free(h);
    fl_sbf_free(s);
}

static void test_clear_and_info(void **state) {
    (void)state;
    fl_sbf_config c = {.capacity = 200, .error_rate = 0.05, .growth = 3, .tightening = 0.8,
                       .variant = FL_SPLIT256, .seed = 42};
    fl_sbf *s = NULL;
    assert_int_equal(fl_sbf_create(&c, &s), FL_OK);
    fl_sbf_info in;
    assert_int_equal(fl_sbf_get_info(s, &in), FL_OK);
    assert_int_equal(in.capacity, 200);
    assert_int_equal(in.items, 0);
    assert_int_equal(in.filters, 1);
    assert_true(in.growth == 3 && in.tightening == 0.8 && in.error_rate == 0.05);
    assert_int_equal(in.hash, FL_HASH_XXH64); /* split256's default */
    assert_int_equal(in.seed, 42);
    assert_int_equal(in.max_filters, FL_SBF_FILTERS_MAX);
    assert_true(in.predicted_fpr == 0);
    uint64_t *h = test_hashes(10000, 6);
    add_all(s, h, 10000);
    check_chain(s);
    assert_int_equal(fl_sbf_get_info(s, &in), FL_OK);
    assert_true(in.filters >= 3);
    fl_sbf_clear(s);
    assert_int_equal(fl_sbf_get_info(s, &in), FL_OK);
    assert_int_equal(in.filters, 1);
    assert_int_equal(in.items, 0);
    assert_int_equal(positives(s, h, 10000), 0);
    check_chain(s);
    free(h);
    fl_sbf_free(s);
}

/* Binding reaches every sub-filter, also those created after it; answers do not change. */
static void test_bind_kernel(void **state) {
    (void)state;
    fl_sbf *s = new_sbf(300, 0.01, 2, FL_BLOCK512), *t = new_sbf(300, 0.01, 2, FL_BLOCK512);
    assert_int_equal(fl_sbf_bind_kernel(s, "no-such-kernel"), FL_ERR_UNKNOWN_KERNEL);
    assert_int_equal(fl_sbf_bind_kernel(s, "scalar"), FL_OK);
    uint64_t *h = test_hashes(5000, 7), *q = test_hashes(5000, 8);
    add_all(s, h, 5000);
    add_all(t, h, 5000);
    fl_sbf_info in;
    assert_int_equal(fl_sbf_get_info(s, &in), FL_OK);
    assert_true(in.filters >= 4);
    for (uint32_t i = 0; i < in.filters; i++)
        assert_string_equal(fl_sbf_kernel(s, i), "scalar");
    uint8_t *o1 = malloc(5000), *o2 = malloc(5000);
    assert_int_equal(fl_sbf_contains_hashes(s, q, 5000, o1, NULL), FL_OK);
    assert_int_equal(fl_sbf_contains_hashes(t, q, 5000, o2, NULL), FL_OK);
    assert_memory_equal(o1, o2, 5000);
    assert_int_equal(fl_sbf_bind_kernel(s, "auto"), FL_OK);
    assert_string_equal(fl_sbf_kernel(s, 0), fl_kernel_active());
    free(o1);
    free(o2);
    free(h);
    free(q);
    fl_sbf_free(s);
    fl_sbf_free(t);
}

/* A small saved chain of three sub-filters (the codec tests flip every bit of it). */
static uint8_t *saved_chain(size_t *len, fl_sbf **chain) {
    fl_sbf_config c = {.capacity = 40, .error_rate = 0.05, .variant = FL_REG64, .seed = 7};
    fl_sbf *s = NULL;
    assert_int_equal(fl_sbf_create(&c, &s), FL_OK);
    uint64_t *h = test_hashes(200, 9);
    add_all(s, h, 200);
    free(h);
    *len = fl_sbf_serialized_size(s);
    uint8_t *buf = malloc(*len);
    assert_int_equal(fl_sbf_save_mem(s, buf, *len, NULL), FL_OK);
    if (chain)
        *chain = s;
    else
        fl_sbf_free(s);
    return buf;
}

static void test_round_trip_and_kinds(void **state) {
    (void)state;
    size_t len = 0;
    fl_sbf *s = NULL;
    uint8_t *buf = saved_chain(&len, &s);
    fl_sbf_info in;
    assert_int_equal(fl_sbf_get_info(s, &in), FL_OK);
    assert_int_equal(in.filters, 3);
    size_t written = 0;
    assert_int_equal(fl_sbf_save_mem(s, buf, len - 1, &written), FL_ERR_BUFFER_TOO_SMALL);
    assert_int_equal(fl_sbf_save_mem(s, buf, len, &written), FL_OK);
    assert_int_equal(written, len);

    fl_sbf *l = NULL;
    assert_int_equal(fl_sbf_load_mem(buf, len, 0, &l), FL_OK);
    uint8_t *again = malloc(len);
    assert_int_equal(fl_sbf_save_mem(l, again, len, NULL), FL_OK);
    assert_memory_equal(buf, again, len);
    uint64_t *q = test_hashes(3000, 9); /* the first 200 were added */
    assert_int_equal(positives(l, q, 3000), positives(s, q, 3000));
    assert_int_equal(positives(l, q, 200), 200);
    /* the loaded chain keeps growing by the same rules */
    uint64_t *more = test_hashes(2000, 10);
    add_all(l, more, 2000);
    add_all(s, more, 2000);
    check_chain(l);
    assert_int_equal(fl_sbf_count(l), fl_sbf_count(s));
    fl_sbf_free(l);

    /* the cap counts every sub-filter's payload */
    assert_int_equal(fl_sbf_load_mem(buf, len, in.bytes - 1, &l), FL_ERR_TOO_LARGE);
    assert_null(l);
    assert_int_equal(fl_sbf_load_mem(buf, len, in.bytes, &l), FL_OK);
    fl_sbf_free(l);

    /* kinds, both ways */
    uint32_t kind = 0;
    assert_int_equal(fl_file_kind_mem(buf, len, &kind), FL_OK);
    assert_int_equal(kind, FL_FILE_SCALABLE_BLOOM);
    fl_filter *f = NULL;
    assert_int_equal(fl_load_mem(buf, len, 0, &f), FL_ERR_WRONG_KIND);
    fl_filter *plain = test_filter(FL_BLOCK512, 4, 6);
    size_t flen = fl_serialized_size(plain);
    uint8_t *fbuf = malloc(flen);
    assert_int_equal(fl_save_mem(plain, fbuf, flen, NULL), FL_OK);
    assert_int_equal(fl_file_kind_mem(fbuf, flen, &kind), FL_OK);
    assert_int_equal(kind, FL_FILE_FILTER);
    assert_int_equal(fl_sbf_load_mem(fbuf, flen, 0, &l), FL_ERR_WRONG_KIND);
    assert_int_equal(fl_file_kind_mem("nope", 4, &kind), FL_ERR_BAD_MAGIC);
    assert_int_equal(fl_sbf_load_mem("nope", 4, 0, &l), FL_ERR_BAD_MAGIC);

    /* files */
    char path[] = "/tmp/test_sbf_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(fl_sbf_save_file(s, path), FL_OK);
    assert_int_equal(fl_file_kind_file(path, &kind), FL_OK);
    assert_int_equal(kind, FL_FILE_SCALABLE_BLOOM);
    assert_int_equal(fl_sbf_load_file(path, 0, &l), FL_OK);
    assert_int_equal(fl_sbf_count(l), fl_sbf_count(s));
    assert_int_equal(positives(l, q, 3000), positives(s, q, 3000));
    fl_sbf_free(l);
    assert_int_equal(fl_load_file(path, 0, &f), FL_ERR_WRONG_KIND);
    assert_int_equal(fl_save_file(plain, path), FL_OK);
    assert_int_equal(fl_file_kind_file(path, &kind), FL_OK);
    assert_int_equal(kind, FL_FILE_FILTER);
    assert_int_equal(fl_sbf_load_file(path, 0, &l), FL_ERR_WRONG_KIND);
    unlink(path);
    assert_int_equal(fl_sbf_load_file(path, 0, &l), FL_ERR_IO);
    assert_int_equal(fl_file_kind_file(path, &kind), FL_ERR_IO);

    free(fbuf);
    fl_free(plain);
    free(more);
    free(q);
    free(again);
    free(buf);
    fl_sbf_free(s);
}

/* Every prefix is TRUNCATED (a prefix cut inside the magic too), a trailing byte is
 * TRAILING_DATA, and every single-bit flip is refused (checksums, zero padding, fields). */
static void test_truncations_and_flips(void **state) {
    (void)state;
    size_t len = 0;
    uint8_t *buf = saved_chain(&len, NULL);
    fl_sbf *l = NULL;
    for (size_t cut = 0; cut < len; cut++) {
        assert_int_equal(fl_sbf_load_mem(buf, cut, 0, &l), FL_ERR_TRUNCATED);
        assert_null(l);
    }
    uint8_t *longer = malloc(len + 1);
    memcpy(longer, buf, len);
    longer[len] = 0;
    assert_int_equal(fl_sbf_load_mem(longer, len + 1, 0, &l), FL_ERR_TRAILING_DATA);
    free(longer);
    for (size_t bit = 0; bit < 8 * len; bit++) {
        buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        fl_status st = fl_sbf_load_mem(buf, len, 0, &l);
        if (st == FL_OK) fprintf(stderr, "bit %zu accepted\n", bit);
        assert_int_not_equal(st, FL_OK);
        assert_null(l);
        buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    }
    free(buf);
}

/* ---- crafted files: valid checksums, inconsistent fields -------------------------------- */

typedef struct sec {
    uint32_t tag;
    uint8_t *bytes;
    uint64_t len;
} sec;

/* The sections of a saved chain, copied out. */
static uint32_t split(const uint8_t *buf, size_t len, sec *out) {
    fl_in in;
    fl_in_mem(&in, buf, len);
    assert_int_equal(fl_in_need(&in, 10), FL_OK);
    fl_ct_reader r;
    assert_int_equal(fl_ct_open(&r, &in), FL_OK);
    for (uint32_t i = 0; i < r.count; i++) {
        fl_ct_section s = fl_ct_section_at(&r, i);
        const uint8_t *p;
        assert_int_equal(fl_ct_view(&r, &s, &p), FL_OK);
        out[i].tag = s.tag;
        out[i].len = s.length;
        out[i].bytes = malloc(s.length ? s.length : 1);
        memcpy(out[i].bytes, p, s.length);
    }
    return r.count;
}

/* Writes the sections as a container of `kind` and loads it as a chain. */
static fl_status load_sections(uint16_t kind, const sec *s, uint32_t n, size_t max_bytes) {
    uint32_t tags[FL_CT_SECTIONS_MAX] = {0};
    uint64_t lens[FL_CT_SECTIONS_MAX] = {0};
    for (uint32_t i = 0; i < n; i++) tags[i] = s[i].tag, lens[i] = s[i].len;
    size_t size = fl_ct_size(n, lens);
    uint8_t *buf = malloc(size);
    fl_mem_sink m;
    fl_sink sink = fl_mem_sink_init(&m, buf, size);
    fl_ct_writer w;
    assert_int_equal(fl_ct_write_begin(&w, &sink, (fl_kind)kind, n, tags, lens), FL_OK);
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(fl_ct_write_section(&w, s[i].bytes, s[i].len), FL_OK);
    fl_sbf *l = NULL;
    fl_status st = fl_sbf_load_mem(buf, size, max_bytes, &l);
    if (st == FL_OK)
        fl_sbf_free(l);
    else
        assert_null(l);
    free(buf);
    return st;
}

static void put_double(uint8_t *p, double d) {
    uint64_t u;
    memcpy(&u, &d, 8);
    fl_put64(p, u);
}

static void test_crafted(void **state) {
    (void)state;
    size_t len = 0;
    uint8_t *buf = saved_chain(&len, NULL);
    sec orig[16] = {{0}}, s[16] = {{0}};
    uint32_t n = split(buf, len, orig);
    assert_int_equal(n, 7); /* SBFH + 3 x (SUBH, DATA) */
#define RESET() for (uint32_t i_ = 0; i_ < n; i_++) s[i_] = orig[i_], \
    s[i_].bytes = memcpy(malloc(orig[i_].len), orig[i_].bytes, orig[i_].len)
#define FREE() for (uint32_t i_ = 0; i_ < n; i_++) free(s[i_].bytes)
#define EXPECT(want, kind, count, cap) do { \
        assert_int_equal(load_sections(kind, s, count, cap), want); FREE(); RESET(); } while (0)
    RESET();
    EXPECT(FL_OK, FL_KIND_SCALABLE_BLOOM, n, 0);
    EXPECT(FL_ERR_WRONG_KIND, FL_KIND_FILTER, n, 0);
    EXPECT(FL_ERR_WRONG_KIND, 77, n, 0);
    /* the section list */
    EXPECT(FL_ERR_CORRUPT, FL_KIND_SCALABLE_BLOOM, n - 1, 0); /* a SUBH without DATA */
    EXPECT(FL_ERR_CORRUPT, FL_KIND_SCALABLE_BLOOM, 1, 0);     /* no sub-filter */
    s[1].tag = FL_CT_TAG('D', 'A', 'T', 'A');
    EXPECT(FL_ERR_CORRUPT, FL_KIND_SCALABLE_BLOOM, n, 0);
    s[0].len = 56;
    EXPECT(FL_ERR_CORRUPT, FL_KIND_SCALABLE_BLOOM, n, 0);
    /* SBFH fields */
    put_double(s[0].bytes + 24, 0.5); /* growth < 1 */
    EXPECT(FL_ERR_CORRUPT, FL_KIND_SCALABLE_BLOOM, n, 0);
    put_double(s[0].bytes + 32, 1.0); /* tightening */
    EXPECT(FL_ERR_CORRUPT, FL_KIND_SCALABLE_BLOOM, n, 0);
    put_double(s[0].bytes + 16, NAN); /* error rate */
    EXPECT(FL_ERR_CORRUPT, FL_KIND_SCALABLE_BLOOM, n, 0);
    s[0].bytes[0] = FL_CUCKOO;
    EXPECT(FL_ERR_CORRUPT, FL_KIND_SCALABLE_BLOOM, n, 0);
    fl_put16(s[0].bytes + 2, FL_SBF_NONSCALING); /* non-scaling with three sub-filters */
    EXPECT(FL_ERR_CORRUPT, FL_KIND_SCALABLE_BLOOM, n, 0);
    fl_put16(s[0].bytes + 4, 2); /* count disagrees with the sections */
    EXPECT(FL_ERR_CORRUPT, FL_KIND_SCALABLE_BLOOM, n, 0);
    fl_put16(s[0].bytes + 6, 2); /* more sub-filters than the stored maximum */
    EXPECT(FL_ERR_CORRUPT, FL_KIND_SCALABLE_BLOOM, n, 0);
    fl_put64(s[0].bytes + 48, fl_get64(s[0].bytes + 48) + 1); /* items */
    EXPECT(FL_ERR_CORRUPT, FL_KIND_SCALABLE_BLOOM, n, 0);
    fl_put64(s[0].bytes + 56, 64); /* payload above the chain's own cap */
    EXPECT(FL_ERR_CORRUPT, FL_KIND_SCALABLE_BLOOM, n, 0);
    fl_put64(s[0].bytes + 8, 0); /* capacity 0 */
    EXPECT(FL_ERR_CORRUPT, FL_KIND_SCALABLE_BLOOM, n, 0);
    /* SUBH fields */
    fl_put64(s[3].bytes + 32, fl_get64(s[3].bytes + 32) + 1); /* capacity off the rule */
    EXPECT(FL_ERR_CORRUPT, FL_KIND_SCALABLE_BLOOM, n, 0);
    fl_put64(s[1].bytes + 24, fl_get64(s[1].bytes + 24) - 1); /* older sub-filter not full */
    fl_put64(s[0].bytes + 48, fl_get64(s[0].bytes + 48) - 1);
    EXPECT(FL_ERR_CORRUPT, FL_KIND_SCALABLE_BLOOM, n, 0);
    fl_put64(s[5].bytes + 24, 1u << 20); /* more keys than its capacity */
    EXPECT(FL_ERR_CORRUPT, FL_KIND_SCALABLE_BLOOM, n, 0);
    fl_put64(s[3].bytes + 16, 8); /* another seed */
    EXPECT(FL_ERR_CORRUPT, FL_KIND_SCALABLE_BLOOM, n, 0);
    s[3].bytes[1] = s[3].bytes[1] == FL_HASH_XXH3 ? FL_HASH_XXH64 : FL_HASH_XXH3;
    EXPECT(FL_ERR_CORRUPT, FL_KIND_SCALABLE_BLOOM, n, 0);
    s[5].bytes[0] = FL_BLOCK512; /* another variant */
    EXPECT(FL_ERR_CORRUPT, FL_KIND_SCALABLE_BLOOM, n, 0);
    fl_put64(s[3].bytes + 8, fl_get64(s[3].bytes + 8) + 1); /* units vs DATA length */
    EXPECT(FL_ERR_CORRUPT, FL_KIND_SCALABLE_BLOOM, n, 0);
    /* the caller's cap */
    EXPECT(FL_ERR_TOO_LARGE, FL_KIND_SCALABLE_BLOOM, n, 64);
    FREE();
    for (uint32_t i = 0; i < n; i++) free(orig[i].bytes);
    free(buf);
#undef RESET
#undef FREE
#undef EXPECT
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_parameters),
        cmocka_unit_test(test_no_false_negatives_across_growth),
        cmocka_unit_test(test_layout_fallback),
        cmocka_unit_test(test_fpr_bound_by_measurement),
        cmocka_unit_test(test_batch_matches_single),
        cmocka_unit_test(test_full_and_caps),
        cmocka_unit_test(test_clear_and_info),
        cmocka_unit_test(test_bind_kernel),
        cmocka_unit_test(test_round_trip_and_kinds),
        cmocka_unit_test(test_truncations_and_flips),
        cmocka_unit_test(test_crafted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
