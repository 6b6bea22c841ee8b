/*
 * Count-Min sketch (src/cms/cms.c, src/cms/topk.c, src/cms/codec_cms.c): the seeds' sizing and every bad
 * parameter; estimates never below the true counts (plain and conservative, through
 * saturation); the (epsilon, delta) guarantee measured with a binomial margin; conservative
 * never above plain; merge = sketch of the union stream, weighted merge with its refusals;
 * heavy hitters and top-k on a Zipf stream; the key an add expels from the candidates, and
 * candidate membership, against the lists around every add; batch calls = single calls
 * under every kernel; files: round trips, every truncation and bit flip, crafted sections
 * with exact statuses, wrong kinds both ways.
 * Every stream is generated from a fixed seed, so each run checks the same numbers.
 */
#include "testutil.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cms/cms_internal.h"
#include "format/container.h"

static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static fl_cms *new_cms(uint32_t w, uint32_t d, int cons, uint32_t topk) {
    fl_cms_config cfg = {.width = w, .depth = d, .seed = 42, .conservative = cons, .topk = topk};
    fl_cms *c = NULL;
    assert_int_equal(fl_cms_create(&cfg, &c), FL_OK);
    return c;
}

/* A Zipf stream over keys 0..distinct-1: key i occurs floor(top / (i + 1)) times, shuffled
 * with a fixed seed (seed 003's access log has this shape with 100 keys and top 10000). */
typedef struct stream {
    uint64_t *keys;
    size_t n;
    uint32_t *truth; /* truth[i]: occurrences of key i */
    size_t distinct;
} stream;

static stream zipf(size_t distinct, uint32_t top, uint64_t seed) {
    stream s = {.distinct = distinct};
    s.truth = calloc(distinct, sizeof *s.truth);
    assert_non_null(s.truth);
    for (size_t i = 0; i < distinct; i++) {
        s.truth[i] = (uint32_t)(top / (i + 1));
        if (s.truth[i] == 0) s.truth[i] = 1;
        s.n += s.truth[i];
    }
    s.keys = malloc(s.n * sizeof *s.keys);
    assert_non_null(s.keys);
    size_t k = 0;
    for (size_t i = 0; i < distinct; i++)
        for (uint32_t j = 0; j < s.truth[i]; j++) s.keys[k++] = i;
    for (size_t i = s.n - 1; i > 0; i--) {
        size_t j = (size_t)(splitmix(&seed) % (i + 1));
        uint64_t t = s.keys[i];
        s.keys[i] = s.keys[j];
        s.keys[j] = t;
    }
    return s;
}

static void stream_free(stream *s) {
    free(s->keys);
    free(s->truth);
}

/* ---- sizing and bad parameters ----------------------------------------------------------- */

static void test_seed_sizing(void **state) {
    (void)state;
    uint32_t w, d;
    /* Seed 003: epsilon 0.001, delta 0.01 -> 5 x 2719 = 13,595 counters, 53.1 KB. */
    assert_int_equal(fl_cms_dims(0.001, 0.01, &w, &d), FL_OK);
    assert_int_equal(w, 2719);
    assert_int_equal(d, 5);
    fl_cms_config cfg = {.epsilon = 0.001, .delta = 0.01};
    fl_cms *c = NULL;
    assert_int_equal(fl_cms_create(&cfg, &c), FL_OK);
    fl_cms_info info;
    assert_int_equal(fl_cms_info_get(c, &info), FL_OK);
    assert_int_equal(info.width, 2719);
    assert_int_equal(info.depth, 5);
    assert_int_equal(info.bytes, 2719 * 5 * 4);
    assert_true(info.epsilon <= 0.001 && info.epsilon > 0.00099);
    assert_true(info.delta <= 0.01 && info.delta > 0.0067);
    assert_int_equal(info.topk, 0);
    fl_cms_free(c);
    /* delta close to 1 still gives one row. */
    assert_int_equal(fl_cms_dims(0.5, 0.9, &w, &d), FL_OK);
    assert_int_equal(w, 6);
    assert_int_equal(d, 1);
}

static void test_bad_parameters(void **state) {
    (void)state;
    uint32_t w, d;
    const double bad[] = {0.0, 1.0, -0.1, 1.5, NAN, INFINITY};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(fl_cms_dims(bad[i], 0.01, &w, &d), FL_ERR_BAD_ACCURACY);
        assert_int_equal(fl_cms_dims(0.01, bad[i], &w, &d), FL_ERR_BAD_ACCURACY);
        fl_cms_config cfg = {.epsilon = bad[i], .delta = 0.01};
        fl_cms *c = (fl_cms *)1;
        assert_int_equal(fl_cms_create(&cfg, &c), FL_ERR_BAD_ACCURACY);
        assert_null(c);
    }
    assert_int_equal(fl_cms_dims(1e-12, 0.01, &w, &d), FL_ERR_TOO_LARGE); /* w >= 2^32 */
    assert_int_equal(fl_cms_dims(0.01, 1e-20, &w, &d), FL_ERR_TOO_LARGE); /* d = 47 */
    assert_int_equal(fl_cms_dims(0.01, 0.01, NULL, &d), FL_ERR_INVALID_ARG);
    const struct {
        uint32_t w, d, topk;
        fl_status want;
    } shapes[] = {
        {0, 5, 0, FL_ERR_BAD_GEOMETRY},
        {100, 0, 0, FL_ERR_BAD_GEOMETRY},
        {100, FL_CMS_DEPTH_MAX + 1, 0, FL_ERR_BAD_GEOMETRY},
        {UINT32_MAX, FL_CMS_DEPTH_MAX, 0, FL_ERR_TOO_LARGE},
        {1u << 30, 2, 0, FL_ERR_TOO_LARGE}, /* 8 GiB: past FL_CMS_BYTES_MAX */
        {100, 5, FL_CMS_TOPK_MAX + 1, FL_ERR_BAD_K},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        fl_cms_config cfg = {.width = shapes[i].w, .depth = shapes[i].d, .topk = shapes[i].topk};
        fl_cms *c = (fl_cms *)1;
        assert_int_equal(fl_cms_create(&cfg, &c), shapes[i].want);
        assert_null(c);
    }
    fl_cms *c = NULL;
    assert_int_equal(fl_cms_create(NULL, &c), FL_ERR_INVALID_ARG);
    c = new_cms(10, 2, 0, 0);
    fl_cms_item items[4];
    size_t n = 9;
    assert_int_equal(fl_cms_top(c, items, 4, &n), FL_ERR_UNSUPPORTED);
    assert_int_equal(n, 0);
    assert_int_equal(fl_cms_heavy_hitters(c, 0.0, items, 4, &n), FL_ERR_BAD_ACCURACY);
    assert_int_equal(fl_cms_heavy_hitters(c, 1.0, items, 4, &n), FL_ERR_BAD_ACCURACY);
    assert_int_equal(fl_cms_heavy_hitters(c, NAN, items, 4, &n), FL_ERR_BAD_ACCURACY);
    assert_int_equal(fl_cms_add_bytes(c, NULL, 3, 1), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_cms_add_u64s(c, NULL, 3, NULL), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_cms_add_bytes(NULL, "a", 1, 1), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_cms_query_u64s(c, NULL, 1, NULL), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_cms_query_bytes(NULL, "a", 1), 0);
    assert_int_equal(fl_cms_bind_kernel(c, "no-such-kernel"), FL_ERR_UNKNOWN_KERNEL);
    assert_int_equal(fl_cms_bind_kernel(c, "scalar"), FL_OK);
    assert_string_equal(fl_cms_kernel(c), "scalar");
    fl_cms_free(c);
    fl_cms_free(NULL);
}

/* ---- accuracy ---------------------------------------------------------------------------- */

/* Every key's estimate, plain and conservative, is at least its count; conservative is never
 * above plain on the same stream. */
static void test_never_underestimates(void **state) {
    (void)state;
    stream s = zipf(5000, 20000, 1);
    fl_cms *plain = new_cms(300, 4, 0, 0), *cons = new_cms(300, 4, 1, 0);
    assert_int_equal(fl_cms_add_u64s(plain, s.keys, s.n, NULL), FL_OK);
    for (size_t i = 0; i < s.n; i++) assert_int_equal(fl_cms_add_u64(cons, s.keys[i], 1), FL_OK);
    assert_int_equal(fl_cms_total(plain), s.n);
    assert_int_equal(fl_cms_total(cons), s.n);
    uint64_t plain_err = 0, cons_err = 0;
    for (size_t i = 0; i < s.distinct; i++) {
        uint32_t p = fl_cms_query_u64(plain, i), c = fl_cms_query_u64(cons, i);
        if (p < s.truth[i] || c < s.truth[i]) fail_msg("key %zu: true %u, plain %u, cons %u", i, s.truth[i], p, c);
        if (c > p) fail_msg("key %zu: conservative %u above plain %u", i, c, p);
        plain_err += p - s.truth[i];
        cons_err += c - s.truth[i];
    }
    /* The width is small on purpose: the sketch is crowded, so conservative update must
     * visibly help (Estan and Varghese 2002). */
    assert_true(cons_err < plain_err);
    fl_cms_free(plain);
    fl_cms_free(cons);
    stream_free(&s);
}

static void test_saturation(void **state) {
    (void)state;
    for (int cons = 0; cons < 2; cons++) {
        fl_cms *c = new_cms(4, 3, cons, 2);
        assert_int_equal(fl_cms_add_bytes(c, "big", 3, UINT32_MAX - 5), FL_OK);
        assert_int_equal(fl_cms_add_bytes(c, "big", 3, 10), FL_OK);
        /* The true count is 2^32 + 4: the estimate is the saturated counter, never less than
         * any count a u32 can hold, and it stays there. */
        assert_int_equal(fl_cms_query_bytes(c, "big", 3), UINT32_MAX);
        assert_int_equal(fl_cms_add_bytes(c, "big", 3, 1), FL_OK);
        assert_int_equal(fl_cms_query_bytes(c, "big", 3), UINT32_MAX);
        assert_int_equal(fl_cms_add_bytes(c, "small", 5, 7), FL_OK);
        assert_true(fl_cms_query_bytes(c, "small", 5) >= 7);
        fl_cms_info info;
        assert_int_equal(fl_cms_info_get(c, &info), FL_OK);
        assert_int_equal(info.saturated, 3);
        assert_int_equal(info.total, (uint64_t)UINT32_MAX - 5 + 10 + 1 + 7);
        assert_false(info.total_saturated);
        /* N saturates too (2^64 increments would take too long: start near the top). */
        c->total = UINT64_MAX - 3;
        assert_int_equal(fl_cms_add_u64(c, 9, 10), FL_OK);
        assert_int_equal(fl_cms_total(c), UINT64_MAX);
        assert_int_equal(fl_cms_info_get(c, &info), FL_OK);
        assert_true(info.total_saturated);
        /* Merge saturates counter by counter. */
        fl_cms *d = new_cms(4, 3, cons, 0);
        assert_int_equal(fl_cms_add_bytes(d, "big", 3, UINT32_MAX), FL_OK);
        assert_int_equal(fl_cms_merge(d, c), FL_OK);
        assert_int_equal(fl_cms_query_bytes(d, "big", 3), UINT32_MAX);
        assert_int_equal(fl_cms_total(d), UINT64_MAX);
        fl_cms_free(c);
        fl_cms_free(d);
    }
}

/* Cormode and Muthukrishnan's Theorem 1: for each key, P[error > epsilon * N] <= delta. Over
 * K keys of a fixed stream the count of such keys is compared with a binomial bound: at most
 * K * delta + 5 standard deviations (sqrt(K delta (1 - delta))). The bound is Markov's, loose
 * for a uniform row load, so a sketch with working hashes passes far inside it; one whose
 * rows collapsed together (the same column in every row) or whose columns cluster fails.
 * The mean error of a plain sketch is also checked against N / w, each row's expected
 * overcount over the hashing (the d-row minimum can only be lower), with 10% for this one
 * stream's deviation from the expectation (d = 1 sits close to it). */
static void test_error_bound(void **state) {
    (void)state;
    const double eps_delta[][2] = {{0.01, 0.05}, {0.002, 0.3}, {0.05, 0.5}};
    for (size_t t = 0; t < 3; t++) {
        double eps = eps_delta[t][0], delta = eps_delta[t][1];
        fl_cms_config cfg = {.epsilon = eps, .delta = delta, .seed = 7 + t};
        fl_cms *c = NULL;
        assert_int_equal(fl_cms_create(&cfg, &c), FL_OK);
        stream s = zipf(20000, 30000, 100 + t);
        assert_int_equal(fl_cms_add_u64s(c, s.keys, s.n, NULL), FL_OK);
        fl_cms_info info;
        assert_int_equal(fl_cms_info_get(c, &info), FL_OK);
        double N = (double)s.n, sum_err = 0;
        size_t over = 0, K = s.distinct + 20000;
        for (size_t i = 0; i < K; i++) {
            uint32_t truth = i < s.distinct ? s.truth[i] : 0; /* keys never seen, too */
            uint32_t e = fl_cms_query_u64(c, i);
            assert_true(e >= truth);
            sum_err += e - truth;
            if ((double)(e - truth) > eps * N) over++;
        }
        double bound = K * delta + 5 * sqrt(K * delta * (1 - delta));
        if ((double)over > bound)
            fail_msg("eps %g delta %g: %zu of %zu keys over eps*N (bound %.0f)", eps, delta, over, K, bound);
        if (!(sum_err / K <= 1.1 * N / info.width))
            fail_msg("eps %g: mean error %.1f above N / w = %.1f", eps, sum_err / K, N / info.width);
        fl_cms_free(c);
        stream_free(&s);
    }
}

/* ---- merge --------------------------------------------------------------------------------- */

static void test_merge_is_union(void **state) {
    (void)state;
    stream a = zipf(3000, 5000, 11), b = zipf(4000, 3000, 12);
    fl_cms *ca = new_cms(1000, 5, 0, 0), *cb = new_cms(1000, 5, 0, 0), *cu = new_cms(1000, 5, 0, 0);
    assert_int_equal(fl_cms_add_u64s(ca, a.keys, a.n, NULL), FL_OK);
    assert_int_equal(fl_cms_add_u64s(cb, b.keys, b.n, NULL), FL_OK);
    assert_int_equal(fl_cms_add_u64s(cu, a.keys, a.n, NULL), FL_OK);
    assert_int_equal(fl_cms_add_u64s(cu, b.keys, b.n, NULL), FL_OK);
    assert_int_equal(fl_cms_merge(ca, cb), FL_OK);
    assert_int_equal(fl_cms_total(ca), a.n + b.n);
    assert_memory_equal(ca->counters, cu->counters, ca->bytes);
    fl_cms *other = new_cms(999, 5, 0, 0);
    assert_int_equal(fl_cms_merge(ca, other), FL_ERR_INCOMPATIBLE);
    fl_cms_free(other);
    fl_cms_config cfg = {.width = 1000, .depth = 5, .seed = 43};
    assert_int_equal(fl_cms_create(&cfg, &other), FL_OK);
    assert_int_equal(fl_cms_merge(ca, other), FL_ERR_INCOMPATIBLE);
    assert_int_equal(fl_cms_merge(ca, NULL), FL_ERR_INVALID_ARG);
    fl_cms_free(other);
    fl_cms_free(ca);
    fl_cms_free(cb);
    fl_cms_free(cu);
    stream_free(&a);
    stream_free(&b);
}

/* Weighted merge: 3a - b equals the sketch of a's stream three times less b's when b's
 * stream is part of a's; a negative counter, a counter past 2^32 - 1 or a 64-bit overflow
 * is refused with dst unchanged; dst may be one of the sources. */
static void test_merge_weighted(void **state) {
    (void)state;
    stream a = zipf(3000, 5000, 21), b = zipf(2000, 3000, 22);
    fl_cms *cab = new_cms(500, 4, 0, 0), *cb = new_cms(500, 4, 0, 0);
    fl_cms *ca3 = new_cms(500, 4, 0, 0);
    fl_cms *dst = new_cms(500, 4, 0, 0);
    assert_int_equal(fl_cms_add_u64s(cab, a.keys, a.n, NULL), FL_OK);
    assert_int_equal(fl_cms_add_u64s(cab, b.keys, b.n, NULL), FL_OK);
    assert_int_equal(fl_cms_add_u64s(cb, b.keys, b.n, NULL), FL_OK);
    for (int i = 0; i < 3; i++)
        assert_int_equal(fl_cms_add_u64s(ca3, a.keys, a.n, NULL), FL_OK);
    const fl_cms *srcs[2] = {cab, cb};
    int64_t w[2] = {3, -3};
    assert_int_equal(fl_cms_merge_weighted(dst, srcs, w, 2), FL_OK);
    assert_memory_equal(dst->counters, ca3->counters, dst->bytes);
    assert_int_equal(fl_cms_total(dst), 3 * (uint64_t)a.n);
    /* Refusals leave dst as it was. */
    uint32_t *before = malloc(dst->bytes);
    assert_non_null(before);
    memcpy(before, dst->counters, dst->bytes);
    int64_t negative[2] = {0, -1}, big[2] = {INT64_MAX, 0}, wide[2] = {2000000000, 0};
    assert_int_equal(fl_cms_merge_weighted(dst, srcs, negative, 2), FL_ERR_TOO_LARGE);
    assert_int_equal(fl_cms_merge_weighted(dst, srcs, big, 2), FL_ERR_TOO_LARGE);
    assert_int_equal(fl_cms_merge_weighted(dst, srcs, wide, 2), FL_ERR_TOO_LARGE);
    assert_memory_equal(dst->counters, before, dst->bytes);
    assert_int_equal(fl_cms_total(dst), 3 * (uint64_t)a.n);
    /* dst among the sources: dst = dst - 2 * a (ca3 holds a three times). */
    const fl_cms *self[2] = {ca3, cab};
    int64_t sub[2] = {1, -1};
    fl_cms_free(cab);
    cab = new_cms(500, 4, 0, 0);
    assert_int_equal(fl_cms_add_u64s(cab, a.keys, a.n, NULL), FL_OK);
    self[1] = cab;
    assert_int_equal(fl_cms_merge_weighted(ca3, self, sub, 2), FL_OK);
    assert_int_equal(fl_cms_total(ca3), 2 * (uint64_t)a.n);
    const fl_cms *incompatible[1] = {new_cms(499, 4, 0, 0)};
    int64_t one = 1;
    assert_int_equal(fl_cms_merge_weighted(dst, incompatible, &one, 1), FL_ERR_INCOMPATIBLE);
    assert_int_equal(fl_cms_merge_weighted(NULL, srcs, &one, 1), FL_ERR_INVALID_ARG);
    fl_cms_free((fl_cms *)incompatible[0]);
    free(before);
    fl_cms_free(cab);
    fl_cms_free(cb);
    fl_cms_free(ca3);
    fl_cms_free(dst);
    stream_free(&a);
    stream_free(&b);
}

/* ---- heavy hitters and top-k ----------------------------------------------------------------- */

static uint64_t key_of(const fl_cms_item *it) {
    assert_int_equal(it->len, 8);
    uint64_t k = 0;
    for (int i = 7; i >= 0; i--) k = k << 8 | ((const uint8_t *)it->key)[i];
    return k;
}

static void test_heavy_hitters_zipf(void **state) {
    (void)state;
    const double phi = 0.005, eps = 0.001;
    for (int cons = 0; cons < 2; cons++) {
        stream s = zipf(10000, 100000, 5 + cons);
        /* topk >= 1 / (phi - eps) = 250 is the header's guarantee. */
        fl_cms_config cfg = {.epsilon = eps, .delta = 0.01, .seed = 3, .conservative = cons, .topk = 256};
        fl_cms *c = NULL;
        assert_int_equal(fl_cms_create(&cfg, &c), FL_OK);
        for (size_t i = 0; i < s.n; i++) assert_int_equal(fl_cms_add_u64(c, s.keys[i], 1), FL_OK);
        double N = (double)s.n;
        fl_cms_item items[256];
        size_t n = 0;
        assert_int_equal(fl_cms_heavy_hitters(c, phi, items, 256, &n), FL_OK);
        uint8_t *found = calloc(s.distinct, 1);
        assert_non_null(found);
        for (size_t i = 0; i < n; i++) {
            uint64_t k = key_of(&items[i]);
            assert_true(k < s.distinct);
            found[k] = 1;
            if ((double)s.truth[k] < (phi - eps) * N)
                fail_msg("reported key %" PRIu64 " has %u < (phi - eps) N", k, s.truth[k]);
            assert_true((double)items[i].estimate > phi * N);
            if (i) assert_true(items[i].estimate <= items[i - 1].estimate);
        }
        size_t heavy = 0;
        for (size_t k = 0; k < s.distinct; k++)
            if ((double)s.truth[k] > phi * N) {
                heavy++;
                if (!found[k]) fail_msg("heavy key %zu (%u > %.0f) missed", k, s.truth[k], phi * N);
            }
        assert_true(heavy >= 10); /* the test means something */
        /* Top-k: decreasing, and the first five are the five largest keys in order (their
         * counts differ by more than 2 epsilon N). */
        fl_cms_item top[300];
        assert_int_equal(fl_cms_top(c, top, 300, &n), FL_OK);
        assert_int_equal(n, 256);
        for (size_t i = 0; i < 5; i++) assert_int_equal(key_of(&top[i]), i);
        for (size_t i = 1; i < n; i++) assert_true(top[i].estimate <= top[i - 1].estimate);
        assert_int_equal(fl_cms_top(c, top, 3, &n), FL_OK);
        assert_int_equal(n, 3);
        fl_cms_info info;
        assert_int_equal(fl_cms_info_get(c, &info), FL_OK);
        assert_int_equal(info.candidates, 256);
        assert_int_equal(fl_cms_clear(c), FL_OK);
        assert_int_equal(fl_cms_top(c, top, 3, &n), FL_OK);
        assert_int_equal(n, 0);
        assert_int_equal(fl_cms_total(c), 0);
        assert_int_equal(fl_cms_query_u64(c, 0), 0);
        free(found);
        fl_cms_free(c);
        stream_free(&s);
    }
}

/* Byte keys are kept as copies: the list prints them after the caller's buffers are gone. */
static void test_top_byte_keys(void **state) {
    (void)state;
    fl_cms *c = new_cms(2719, 5, 0, 3);
    const char *words[] = {"apple", "pear", "fig", "kiwi", "plum"};
    const uint32_t counts[] = {50, 40, 30, 20, 10};
    for (int w = 4; w >= 0; w--) {
        char buf[16];
        strcpy(buf, words[w]);
        assert_int_equal(fl_cms_add_bytes(c, buf, strlen(buf), counts[w]), FL_OK);
        memset(buf, 'X', sizeof buf);
    }
    fl_cms_item top[5];
    size_t n;
    assert_int_equal(fl_cms_top(c, top, 5, &n), FL_OK);
    assert_int_equal(n, 3);
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(top[i].len, strlen(words[i]));
        assert_memory_equal(top[i].key, words[i], top[i].len);
        assert_int_equal(top[i].estimate, counts[i]);
    }
    /* A key longer than FL_CMS_KEY_MAX is counted but never kept. */
    char *longkey = calloc(FL_CMS_KEY_MAX + 1, 1);
    assert_int_equal(fl_cms_add_bytes(c, longkey, FL_CMS_KEY_MAX + 1, 1000), FL_OK);
    assert_int_equal(fl_cms_query_bytes(c, longkey, FL_CMS_KEY_MAX + 1), 1000);
    assert_int_equal(fl_cms_top(c, top, 5, &n), FL_OK);
    assert_int_equal(top[0].estimate, 50);
    free(longkey);
    fl_cms_free(c);
}

/* ---- batch = single, under every kernel ------------------------------------------------------ */

static void assert_same_sketch(const fl_cms *a, const fl_cms *b) {
    assert_int_equal(a->total, b->total);
    assert_memory_equal(a->counters, b->counters, a->bytes);
    fl_cms_item ta[64], tb[64];
    size_t na = 0, nb = 0;
    if (a->top.cap) {
        assert_int_equal(fl_cms_top(a, ta, 64, &na), FL_OK);
        assert_int_equal(fl_cms_top(b, tb, 64, &nb), FL_OK);
        assert_int_equal(na, nb);
        for (size_t i = 0; i < na; i++) {
            assert_int_equal(ta[i].estimate, tb[i].estimate);
            assert_int_equal(ta[i].len, tb[i].len);
            assert_memory_equal(ta[i].key, tb[i].key, ta[i].len);
        }
    }
}

/* The key of id i in test_add_expel: ids repeat (duplicates), lengths vary from empty to
 * past FL_CMS_KEY_MAX (counted, never kept). */
static size_t expel_key(uint32_t id, char *buf) {
    if (id == 1) return 0;
    if (id == 13) {
        memset(buf, 'L', FL_CMS_KEY_MAX + 1);
        return FL_CMS_KEY_MAX + 1;
    }
    size_t len = (size_t)snprintf(buf, 32, "k%u", id);
    if (id % 7 == 0) {
        memset(buf + len, (int)('a' + id % 26), 100 + id);
        len += 100 + id;
    }
    return len;
}

static int has_key(const fl_cms_item *list, size_t n, const void *key, size_t len) {
    for (size_t i = 0; i < n; i++)
        if (list[i].len == len && (len == 0 || memcmp(list[i].key, key, len) == 0)) return 1;
    return 0;
}

/* fl_cms_add_bytes_expel against the candidate lists around each add: the key it reports is
 * exactly the one that left the list, nothing is reported when none left; the sketch ends as
 * fl_cms_add_bytes leaves it, its counters as those of a sketch without candidates;
 * fl_cms_is_candidate is list membership; estimates of the kept keys never fall below their
 * true counts. Narrow sketches, so evictions are frequent. */
static void test_add_expel(void **state) {
    (void)state;
    enum { IDS = 300, STEPS = 3000 };
    char *key = malloc(FL_CMS_KEY_MAX + 1), *other = malloc(FL_CMS_KEY_MAX + 1);
    char *expelled = malloc(FL_CMS_KEY_MAX), *saved = malloc(64 * (FL_CMS_KEY_MAX + 1));
    fl_cms_item *before = malloc(64 * sizeof *before), *after = malloc(64 * sizeof *after);
    uint32_t *truth = malloc(IDS * sizeof *truth);
    /* Every id's key, made once: the estimate check below compares each candidate with all
     * of them after every add, and building them there was nearly all of this test's time. */
    char *id_keys = malloc((size_t)IDS * (FL_CMS_KEY_MAX + 1));
    size_t *id_lens = malloc(IDS * sizeof *id_lens);
    assert_true(key && other && expelled && saved && before && after && truth && id_keys &&
                id_lens);
    for (uint32_t j = 0; j < IDS; j++)
        id_lens[j] = expel_key(j, id_keys + (size_t)j * (FL_CMS_KEY_MAX + 1));
    const uint32_t ks[] = {1, 5, 16};
    for (int cons = 0; cons <= 1; cons++) {
        for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
            uint32_t k = ks[ki];
            fl_cms *a = new_cms(61, 3, cons, k), *b = new_cms(61, 3, cons, k);
            fl_cms *none = new_cms(61, 3, cons, 0); /* no candidates: the counters' own path */
            memset(truth, 0, IDS * sizeof *truth);
            uint64_t seed = 17 + k;
            size_t reported = 0;
            for (int step = 0; step < STEPS; step++) {
                uint64_t r = splitmix(&seed);
                /* Skewed ids: small ones come often, so candidates are updated in place. */
                uint32_t id = (uint32_t)((r % IDS) * ((r >> 20) % IDS) / IDS);
                uint32_t inc = (r >> 40) % 16 == 0 ? 0 : (r >> 40) % 16 == 1 ? 50 : 1;
                size_t len = expel_key(id, key);
                size_t nb = 0, na = 0;
                assert_int_equal(fl_cms_top(a, before, 64, &nb), FL_OK);
                for (size_t i = 0; i < nb; i++) {
                    memcpy(saved + i * (FL_CMS_KEY_MAX + 1), before[i].key, before[i].len);
                    before[i].key = (const uint8_t *)saved + i * (FL_CMS_KEY_MAX + 1);
                }
                size_t out_len = 0;
                assert_int_equal(fl_cms_add_bytes_expel(a, key, len, inc, expelled, &out_len),
                                 FL_OK);
                assert_int_equal(fl_cms_add_bytes(b, key, len, inc), FL_OK);
                assert_int_equal(fl_cms_add_bytes(none, key, len, inc), FL_OK);
                truth[id] += inc;
                assert_int_equal(fl_cms_top(a, after, 64, &na), FL_OK);
                size_t left = 0, left_at = 0;
                for (size_t i = 0; i < nb; i++)
                    if (!has_key(after, na, before[i].key, before[i].len)) left++, left_at = i;
                if (out_len == SIZE_MAX) {
                    assert_int_equal(left, 0);
                } else {
                    reported++;
                    assert_int_equal(left, 1);
                    assert_int_equal(nb, k);
                    assert_int_equal(out_len, before[left_at].len);
                    if (out_len) assert_memory_equal(expelled, before[left_at].key, out_len);
                    assert_true(has_key(after, na, key, len));
                }
                assert_int_equal(fl_cms_is_candidate(a, key, len), has_key(after, na, key, len));
                size_t olen = expel_key((uint32_t)((r >> 8) % IDS), other);
                assert_int_equal(fl_cms_is_candidate(a, other, olen),
                                 has_key(after, na, other, olen));
                for (size_t i = 0; i < na; i++) {
                    for (uint32_t j = 0; j < IDS; j++) {
                        const char *jk = id_keys + (size_t)j * (FL_CMS_KEY_MAX + 1);
                        if (id_lens[j] == after[i].len &&
                            (id_lens[j] == 0 || !memcmp(jk, after[i].key, id_lens[j])))
                            assert_true(after[i].estimate >= truth[j]);
                    }
                }
            }
            assert_true(reported >= 5); /* evictions were exercised */
            assert_false(fl_cms_is_candidate(a, key, FL_CMS_KEY_MAX + 1));
            assert_same_sketch(a, b);
            assert_int_equal(a->total, none->total);
            assert_memory_equal(a->counters, none->counters, a->bytes);
            fl_cms_free(a);
            fl_cms_free(b);
            fl_cms_free(none);
        }
    }
    /* u64 keys are candidates by their 8 little-endian bytes. */
    fl_cms *c = new_cms(61, 3, 1, 4);
    assert_int_equal(fl_cms_add_u64(c, 0x0807060504030201ull, 3), FL_OK);
    const uint8_t le[8] = {1, 2, 3, 4, 5, 6, 7, 8}, be[8] = {8, 7, 6, 5, 4, 3, 2, 1};
    assert_true(fl_cms_is_candidate(c, le, 8));
    assert_false(fl_cms_is_candidate(c, be, 8));
    /* Refusals: nothing counted, nothing reported. */
    size_t out_len = 0;
    assert_int_equal(fl_cms_add_bytes_expel(NULL, "a", 1, 1, expelled, &out_len),
                     FL_ERR_INVALID_ARG);
    assert_int_equal(out_len, SIZE_MAX);
    assert_int_equal(fl_cms_add_bytes_expel(c, NULL, 1, 1, expelled, &out_len),
                     FL_ERR_INVALID_ARG);
    assert_int_equal(fl_cms_add_bytes_expel(c, "a", 1, 1, NULL, &out_len), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_cms_add_bytes_expel(c, "a", 1, 1, expelled, NULL), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_cms_total(c), 3);
    assert_false(fl_cms_is_candidate(NULL, "a", 1));
    assert_false(fl_cms_is_candidate(c, NULL, 1));
    fl_cms_free(c);
    /* No candidates tracked: counted, nothing reported. */
    c = new_cms(61, 3, 1, 0);
    out_len = 0;
    assert_int_equal(fl_cms_add_bytes_expel(c, "a", 1, 2, expelled, &out_len), FL_OK);
    assert_int_equal(out_len, SIZE_MAX);
    assert_int_equal(fl_cms_query_bytes(c, "a", 1), 2);
    assert_false(fl_cms_is_candidate(c, "a", 1));
    fl_cms_free(c);
    free(key), free(other), free(expelled), free(saved), free(before), free(after), free(truth);
    free(id_keys), free(id_lens);
}

static void test_batch_equals_single(void **state) {
    (void)state;
    const size_t n = 5003;
    uint64_t seed = 99, *keys = malloc(n * 8), *hashes = malloc(n * 8);
    uint32_t *incs = malloc(n * 4), *q1 = malloc(n * 4), *q2 = malloc(n * 4);
    const void **strs = malloc(n * sizeof *strs);
    size_t *lens = malloc(n * sizeof *lens);
    char (*text)[24] = malloc(n * 24);
    assert_true(keys && hashes && incs && q1 && q2 && strs && lens && text);
    for (size_t i = 0; i < n; i++) {
        keys[i] = splitmix(&seed) % 700; /* repeats: colliding keys inside batches */
        incs[i] = (uint32_t)(splitmix(&seed) % 4);
        hashes[i] = splitmix(&seed);
        snprintf(text[i], 24, "k%" PRIu64, keys[i]);
        strs[i] = text[i];
        lens[i] = strlen(text[i]);
    }
    const char *kernels[] = {"scalar", "avx2", "avx512", "neon"};
    for (size_t kn = 0; kn < 4; kn++)
        for (int cons = 0; cons < 2; cons++)
            for (uint32_t topk = 0; topk <= 16; topk += 16) {
                fl_cms *a = new_cms(257, 4, cons, topk), *b = new_cms(257, 4, cons, topk);
                if (fl_cms_bind_kernel(a, kernels[kn]) != FL_OK) {
                    fl_cms_free(a);
                    fl_cms_free(b);
                    continue;
                }
                assert_int_equal(fl_cms_bind_kernel(b, kernels[kn]), FL_OK);
                assert_int_equal(fl_cms_add_u64s(a, keys, n, incs), FL_OK);
                for (size_t i = 0; i < n; i++) assert_int_equal(fl_cms_add_u64(b, keys[i], incs[i]), FL_OK);
                assert_same_sketch(a, b);
                assert_int_equal(fl_cms_add_strings(a, strs, lens, n, NULL), FL_OK);
                for (size_t i = 0; i < n; i++) assert_int_equal(fl_cms_add_bytes(b, strs[i], lens[i], 1), FL_OK);
                assert_same_sketch(a, b);
                assert_int_equal(fl_cms_add_hashes(a, hashes, n, incs), FL_OK);
                for (size_t i = 0; i < n; i++) assert_int_equal(fl_cms_add_hash(b, hashes[i], incs[i]), FL_OK);
                assert_same_sketch(a, b);
                assert_int_equal(fl_cms_query_u64s(a, keys, n, q1), FL_OK);
                assert_int_equal(fl_cms_query_hashes(a, hashes, n, q2), FL_OK);
                for (size_t i = 0; i < n; i++) {
                    assert_int_equal(q1[i], fl_cms_query_u64(b, keys[i]));
                    assert_int_equal(q2[i], fl_cms_query_hash(b, hashes[i]));
                }
                fl_cms_free(a);
                fl_cms_free(b);
            }
    free(keys), free(hashes), free(incs), free(q1), free(q2), free(strs), free(lens), free(text);
}

/* Batches whose counters cannot pass UINT32_MAX take the kernels' non-saturating update
 * (src/cms/cms.c: N + the batch's increments <= UINT32_MAX): at that boundary and across it the
 * sketch must equal key-by-key updates. One key carries N to just below 2^32 - 1; then
 * batches of it and of others, NULL and explicit increments, land exactly on UINT32_MAX,
 * and one more passes it. */
static void test_batch_at_saturation_boundary(void **state) {
    (void)state;
    const size_t n = 600;
    uint64_t seed = 5, *keys = malloc(n * 8), *same = malloc(n * 8);
    uint32_t *incs = malloc(n * 4);
    assert_true(keys && same && incs);
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        keys[i] = splitmix(&seed) % 50;
        same[i] = 7;
        incs[i] = (uint32_t)(splitmix(&seed) % 3);
        sum += incs[i];
    }
    const char *kernels[] = {"scalar", "avx2", "avx512", "neon"};
    for (size_t kn = 0; kn < 4; kn++) {
        fl_cms *a = new_cms(61, 4, 0, 0), *b = new_cms(61, 4, 0, 0);
        if (fl_cms_bind_kernel(a, kernels[kn]) != FL_OK) {
            fl_cms_free(a);
            fl_cms_free(b);
            continue;
        }
        /* N = UINT32_MAX - n - sum: the two batches below fit exactly. */
        uint32_t start = (uint32_t)(UINT32_MAX - n - sum);
        assert_int_equal(fl_cms_add_u64(a, 7, start), FL_OK);
        assert_int_equal(fl_cms_add_u64(b, 7, start), FL_OK);
        assert_int_equal(fl_cms_add_u64s(a, same, n, NULL), FL_OK);
        for (size_t i = 0; i < n; i++) assert_int_equal(fl_cms_add_u64(b, 7, 1), FL_OK);
        assert_int_equal(fl_cms_add_u64s(a, keys, n, incs), FL_OK);
        for (size_t i = 0; i < n; i++) assert_int_equal(fl_cms_add_u64(b, keys[i], incs[i]), FL_OK);
        assert_int_equal(fl_cms_total(a), UINT32_MAX);
        assert_same_sketch(a, b);
        /* Past it: key 7's counters saturate and stay. */
        assert_int_equal(fl_cms_add_u64s(a, same, n, NULL), FL_OK);
        for (size_t i = 0; i < n; i++) assert_int_equal(fl_cms_add_u64(b, 7, 1), FL_OK);
        assert_int_equal(fl_cms_add_u64s(a, keys, n, incs), FL_OK);
        for (size_t i = 0; i < n; i++) assert_int_equal(fl_cms_add_u64(b, keys[i], incs[i]), FL_OK);
        assert_same_sketch(a, b);
        assert_int_equal(fl_cms_query_u64(a, 7), UINT32_MAX);
        fl_cms_free(a);
        fl_cms_free(b);
    }
    free(keys), free(same), free(incs);
}

/* ---- files -------------------------------------------------------------------------------- */

static uint8_t *saved(const fl_cms *c, size_t *len) {
    *len = fl_cms_serialized_size(c);
    assert_true(*len > 0);
    uint8_t *buf = malloc(*len);
    assert_non_null(buf);
    size_t w = 0;
    assert_int_equal(fl_cms_save_mem(c, buf, *len - 1, &w), FL_ERR_BUFFER_TOO_SMALL);
    assert_int_equal(fl_cms_save_mem(c, buf, *len, &w), FL_OK);
    assert_int_equal(w, *len);
    return buf;
}

static fl_cms *sample(int cons, uint32_t topk) {
    fl_cms *c = new_cms(97, 3, cons, topk);
    stream s = zipf(200, 300, 77);
    assert_int_equal(fl_cms_add_u64s(c, s.keys, s.n, NULL), FL_OK);
    assert_int_equal(fl_cms_add_bytes(c, "a byte key", 10, 500), FL_OK);
    assert_int_equal(fl_cms_add_bytes(c, "", 0, 1), FL_OK);
    stream_free(&s);
    return c;
}

static void test_round_trip(void **state) {
    (void)state;
    char dir[] = "/tmp/fl_test_cms.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/s.cms", dir);
    for (int cons = 0; cons < 2; cons++)
        for (uint32_t topk = 0; topk <= 8; topk += 8) {
            fl_cms *c = sample(cons, topk);
            size_t len;
            uint8_t *buf = saved(c, &len);
            fl_cms *d = NULL;
            assert_int_equal(fl_cms_load_mem(buf, len, 0, &d), FL_OK);
            assert_same_sketch(c, d);
            assert_int_equal(d->cons, cons);
            assert_int_equal(d->top.n, c->top.n);
            /* The loaded sketch keeps tracking like the original. */
            assert_int_equal(fl_cms_add_bytes(c, "later", 5, 1000), FL_OK);
            assert_int_equal(fl_cms_add_bytes(d, "later", 5, 1000), FL_OK);
            assert_same_sketch(c, d);
            fl_cms_free(d);
            assert_int_equal(fl_cms_save_file(c, path), FL_OK);
            assert_int_equal(fl_cms_load_file(path, 0, &d), FL_OK);
            assert_same_sketch(c, d);
            fl_cms_free(d);
            assert_int_equal(fl_cms_load_file(path, 97 * 3 * 4 - 1, &d), FL_ERR_TOO_LARGE);
            assert_null(d);
            assert_int_equal(fl_cms_load_mem(buf, len, 97 * 3 * 4, &d), FL_OK);
            fl_cms_free(d);
            free(buf);
            fl_cms_free(c);
        }
    assert_int_equal(fl_cms_load_file("/nonexistent/x", 0, &(fl_cms *){NULL}), FL_ERR_IO);
    unlink(path);
    rmdir(dir);
}

static void test_wrong_kind(void **state) {
    (void)state;
    fl_filter *f = test_filter(FL_BLOCK512, 4, 8);
    size_t flen = fl_serialized_size(f);
    uint8_t *fbuf = malloc(flen);
    assert_int_equal(fl_save_mem(f, fbuf, flen, NULL), FL_OK);
    fl_cms *c = (fl_cms *)1;
    assert_int_equal(fl_cms_load_mem(fbuf, flen, 0, &c), FL_ERR_WRONG_KIND);
    assert_null(c);
    fl_cms *s = sample(0, 4);
    size_t len;
    uint8_t *buf = saved(s, &len);
    fl_filter *g = (fl_filter *)1;
    assert_int_equal(fl_load_mem(buf, len, 0, &g), FL_ERR_WRONG_KIND);
    assert_null(g);
    /* A version-1 file (filters only) is another kind too. */
    fbuf[8] = 1;
    assert_int_equal(fl_cms_load_mem(fbuf, flen, 0, &c), FL_ERR_WRONG_KIND);
    fbuf[8] = 3;
    assert_int_equal(fl_cms_load_mem(fbuf, flen, 0, &c), FL_ERR_BAD_VERSION);
    fbuf[0] ^= 1;
    assert_int_equal(fl_cms_load_mem(fbuf, flen, 0, &c), FL_ERR_BAD_MAGIC);
    free(buf);
    free(fbuf);
    fl_cms_free(s);
    fl_free(f);
}

static void test_every_truncation_and_bit_flip(void **state) {
    (void)state;
    fl_cms *s = sample(1, 6);
    size_t len;
    uint8_t *buf = saved(s, &len);
    for (size_t n = 0; n < len; n++) {
        uint8_t *cut = malloc(n ? n : 1);
        memcpy(cut, buf, n);
        fl_cms *c = (fl_cms *)1;
        fl_status st = fl_cms_load_mem(cut, n, 0, &c);
        if (st != FL_ERR_TRUNCATED) fail_msg("length %zu of %zu: %s", n, len, fl_strerror(st));
        assert_null(c);
        free(cut);
    }
    uint8_t *longer = malloc(len + 1);
    memcpy(longer, buf, len);
    longer[len] = 0;
    fl_cms *c = NULL;
    assert_int_equal(fl_cms_load_mem(longer, len + 1, 0, &c), FL_ERR_TRAILING_DATA);
    free(longer);
    for (size_t bit = 0; bit < len * 8; bit++) {
        buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        c = (fl_cms *)1;
        fl_status st = fl_cms_load_mem(buf, len, 0, &c);
        if (st == FL_OK) fail_msg("bit %zu flipped: loaded", bit);
        assert_null(c);
        buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    }
    free(buf);
    fl_cms_free(s);
}

/* Crafted files: valid checksums around invalid fields, each with its own status. */
typedef struct craft {
    uint8_t head[48];
    uint8_t top[256];
    size_t top_len;
    uint32_t cntr[6]; /* width 3, depth 2 */
    uint64_t cntr_len;
} craft;

static void craft_default(craft *k) {
    memset(k, 0, sizeof *k);
    fl_put32(k->head, 3);
    fl_put32(k->head + 4, 2);
    fl_put64(k->head + 8, 42);
    fl_put32(k->head + 20, 4); /* topk */
    fl_put64(k->head + 24, 10);
    /* Each row sums to N = 10 and every counter is at least 3 (the candidates' estimate). */
    const uint32_t rows[6] = {4, 3, 3, 3, 4, 3};
    memcpy(k->cntr, rows, sizeof rows);
    k->cntr_len = sizeof k->cntr;
}

static fl_status load_craft(const craft *k) {
    uint32_t tags[3] = {FL_CT_TAG('H', 'E', 'A', 'D')};
    uint64_t lengths[3] = {48};
    uint32_t n = 1;
    if (k->top_len) tags[n] = FL_CT_TAG('T', 'O', 'P', 'K'), lengths[n++] = k->top_len;
    tags[n] = FL_CT_TAG('C', 'N', 'T', 'R'), lengths[n++] = k->cntr_len;
    size_t size = fl_ct_size(n, lengths);
    uint8_t *buf = calloc(1, size);
    uint32_t padded[64] = {0};
    memcpy(padded, k->cntr, sizeof k->cntr);
    fl_mem_sink m;
    fl_sink sink = fl_mem_sink_init(&m, buf, size);
    fl_ct_writer w;
    assert_int_equal(fl_ct_write_begin(&w, &sink, FL_KIND_COUNT_MIN, n, tags, lengths), FL_OK);
    assert_int_equal(fl_ct_write_section(&w, k->head, 48), FL_OK);
    if (k->top_len) assert_int_equal(fl_ct_write_section(&w, k->top, k->top_len), FL_OK);
    assert_int_equal(fl_ct_write_section(&w, padded, k->cntr_len), FL_OK);
    fl_cms *c = (fl_cms *)1;
    fl_status st = fl_cms_load_mem(buf, size, 0, &c);
    if (st == FL_OK) fl_cms_free(c);
    else assert_null(c);
    free(buf);
    return st;
}

/* One candidate entry for key "k1" (bytes) with the given stored estimate. */
static size_t put_entry(uint8_t *p, uint64_t seed, const char *key, uint32_t est) {
    fl_cms_config cfg = {.width = 3, .depth = 2, .seed = seed};
    fl_cms *c = NULL;
    assert_int_equal(fl_cms_create(&cfg, &c), FL_OK);
    size_t len = strlen(key);
    fl_put64(p, fl_cms_hash_bytes(c, key, len));
    fl_put32(p + 8, est);
    fl_put16(p + 12, (uint16_t)len);
    memcpy(p + 16, key, len);
    fl_cms_free(c);
    return 16 + ((len + 7) & ~(size_t)7);
}

static void test_crafted(void **state) {
    (void)state;
    craft k;
    craft_default(&k);
    assert_int_equal(load_craft(&k), FL_OK);
    const struct {
        const char *what;
        size_t off;
        uint32_t value;
        fl_status want;
    } head_cases[] = {
        {"width 0", 0, 0, FL_ERR_CORRUPT},
        {"depth 0", 4, 0, FL_ERR_CORRUPT},
        {"depth 33", 4, 33, FL_ERR_CORRUPT},
        {"unknown flag", 16, 4, FL_ERR_CORRUPT},
        {"N saturated flag, N not", 16, 2, FL_ERR_CORRUPT},
        {"topk too large", 20, FL_CMS_TOPK_MAX + 1, FL_ERR_CORRUPT},
        {"candidates without TOPK", 32, 1, FL_ERR_CORRUPT},
        {"reserved", 36, 1, FL_ERR_CORRUPT},
        {"N below a row sum", 24, 9, FL_ERR_CORRUPT},
    };
    for (size_t i = 0; i < sizeof head_cases / sizeof head_cases[0]; i++) {
        craft_default(&k);
        fl_put32(k.head + head_cases[i].off, head_cases[i].value);
        fl_status st = load_craft(&k);
        if (st != head_cases[i].want) fail_msg("%s: %s", head_cases[i].what, fl_strerror(st));
    }
    /* A table announcing 8 GiB of counters (2^30 x 2): refused from HEAD alone, before
     * anything is allocated or read. */
    craft_default(&k);
    fl_put32(k.head, 1u << 30);
    {
        uint32_t tags[2] = {FL_CT_TAG('H', 'E', 'A', 'D'), FL_CT_TAG('C', 'N', 'T', 'R')};
        uint64_t lengths[2] = {48, 1ull << 33};
        uint8_t *buf = calloc(1, 4096);
        fl_mem_sink m;
        fl_sink sink = fl_mem_sink_init(&m, buf, 4096);
        fl_ct_writer w;
        assert_int_equal(fl_ct_write_begin(&w, &sink, FL_KIND_COUNT_MIN, 2, tags, lengths), FL_OK);
        assert_int_equal(fl_ct_write_section(&w, k.head, 48), FL_OK);
        fl_cms *c = (fl_cms *)1;
        assert_int_equal(fl_cms_load_mem(buf, m.pos, 0, &c), FL_ERR_TOO_LARGE);
        assert_null(c);
        free(buf);
    }
    craft_default(&k);
    k.cntr_len = 20; /* not width * depth * 4 */
    assert_int_equal(load_craft(&k), FL_ERR_CORRUPT);

    /* TOPK: a good one, then broken ones. */
    craft_default(&k);
    fl_put32(k.head + 32, 1);
    k.top_len = put_entry(k.top, 42, "k1", 3);
    assert_int_equal(load_craft(&k), FL_OK);
    const char *what[] = {"hash", "kind", "zero byte", "padding", "est above counters",
                          "count mismatch", "u64 kind with 2 bytes", "duplicate", "short entry"};
    for (size_t i = 0; i < sizeof what / sizeof what[0]; i++) {
        craft_default(&k);
        fl_put32(k.head + 32, 1);
        k.top_len = put_entry(k.top, 42, "k1", 3);
        switch (i) {
        case 0: k.top[0] ^= 1; break;
        case 1: k.top[14] = 2; break;
        case 2: k.top[15] = 1; break;
        case 3: k.top[16 + 5] = 1; break;
        case 4: fl_put32(k.top + 8, 11); break;
        case 5: fl_put32(k.head + 32, 2); break;
        case 6: k.top[14] = 1; break;
        case 7:
            fl_put32(k.head + 32, 2);
            k.top_len += put_entry(k.top + k.top_len, 42, "k1", 3);
            break;
        case 8: k.top_len += 8; break;
        }
        fl_status st = load_craft(&k);
        if (st != FL_ERR_CORRUPT) fail_msg("TOPK %s: %s", what[i], fl_strerror(st));
    }
    /* More candidates than topk. */
    craft_default(&k);
    fl_put32(k.head + 20, 1);
    fl_put32(k.head + 32, 2);
    k.top_len = put_entry(k.top, 42, "k1", 3);
    k.top_len += put_entry(k.top + k.top_len, 42, "k2", 3);
    assert_int_equal(load_craft(&k), FL_ERR_CORRUPT);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_sizing),
        cmocka_unit_test(test_bad_parameters),
        cmocka_unit_test(test_never_underestimates),
        cmocka_unit_test(test_saturation),
        cmocka_unit_test(test_error_bound),
        cmocka_unit_test(test_merge_is_union),
        cmocka_unit_test(test_merge_weighted),
        cmocka_unit_test(test_heavy_hitters_zipf),
        cmocka_unit_test(test_top_byte_keys),
        cmocka_unit_test(test_add_expel),
        cmocka_unit_test(test_batch_equals_single),
        cmocka_unit_test(test_batch_at_saturation_boundary),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_wrong_kind),
        cmocka_unit_test(test_every_truncation_and_bit_flip),
        cmocka_unit_test(test_crafted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
