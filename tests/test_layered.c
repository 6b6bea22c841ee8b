/*
 * Layered Bloom filters (src/layered/layered.c, src/layered/codec_layered.c): parameter errors, counts never
 * below the adds (up to R), batch counts and adds against single-key ones, seed 004's error
 * bounds (c + d with probability about PF^d) measured against the layers' own models,
 * deletes, kernel binding, and the file codec (round trips, kinds, every truncation and bit
 * flip, the payload cap).
 */
#include "testutil.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

static fl_lbf *new_lbf(uint32_t layers, uint64_t cap, double fpr, fl_variant v) {
    fl_lbf_config c = {.layers = layers, .capacity = cap, .fpr = fpr, .variant = v, .seed = 3};
    fl_lbf *l = NULL;
    assert_int_equal(fl_lbf_create(&c, &l), FL_OK);
    return l;
}

static void test_bad_parameters(void **state) {
    (void)state;
    fl_lbf *l = (fl_lbf *)1;
    const fl_lbf_config ok = {.layers = 4, .capacity = 100, .fpr = 0.01};
    fl_lbf_config c = ok;
    assert_int_equal(fl_lbf_create(NULL, &l), FL_ERR_INVALID_ARG);
    assert_null(l);
    assert_int_equal(fl_lbf_create(&c, NULL), FL_ERR_INVALID_ARG);
    c.layers = 0;
    assert_int_equal(fl_lbf_create(&c, &l), FL_ERR_INVALID_ARG);
    c.layers = FL_LBF_LAYERS_MAX + 1;
    assert_int_equal(fl_lbf_create(&c, &l), FL_ERR_INVALID_ARG);
    c = ok;
    c.capacity = 0;
    assert_int_equal(fl_lbf_create(&c, &l), FL_ERR_BAD_N);
    const double bad_p[] = {0, 1, -0.5, NAN};
    for (size_t i = 0; i < sizeof bad_p / sizeof *bad_p; i++) {
        c = ok;
        c.fpr = bad_p[i];
        assert_int_equal(fl_lbf_create(&c, &l), FL_ERR_BAD_FPR);
    }
    c = ok;
    c.variant = FL_CUCKOO;
    assert_int_equal(fl_lbf_create(&c, &l), FL_ERR_UNSUPPORTED);
    c.variant = (fl_variant)99;
    assert_int_equal(fl_lbf_create(&c, &l), FL_ERR_INVALID_ARG);
    c = ok;
    c.hash = (fl_hash_id)9;
    assert_int_equal(fl_lbf_create(&c, &l), FL_ERR_INVALID_ARG);
    assert_null(l);
    /* NULL filters answer quietly */
    assert_int_equal(fl_lbf_count_hash(NULL, 1), 0);
    assert_int_equal(fl_lbf_add_hash(NULL, 1, NULL), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_lbf_count_hashes(NULL, NULL, 0, NULL), FL_ERR_INVALID_ARG);
    fl_lbf_free(NULL);
    c = ok;
    c.layers = FL_LBF_LAYERS_MAX;
    assert_int_equal(fl_lbf_create(&c, &l), FL_OK);
    fl_lbf_info in;
    assert_int_equal(fl_lbf_get_info(l, &in), FL_OK);
    assert_int_equal(in.layers, FL_LBF_LAYERS_MAX);
    assert_int_equal(in.variant, FL_BLOCK512);
    assert_int_equal(in.hash, FL_HASH_XXH3);
    assert_false(in.can_delete);
    fl_lbf_free(l);
}

/* Key i is added mult(i) = i % 7 times (0..6) with R = 4: every count is at least
 * min(adds, R), batch counts equal single counts, and batch adds leave exactly the bytes
 * single adds do (keys repeated inside a batch included). Every Bloom variant. */
static uint32_t mult(size_t i) {
    return (uint32_t)(i % 7);
}

static void test_never_undercounts(void **state) {
    (void)state;
    const fl_variant vs[] = {FL_BLOCK512, FL_CLASSIC, FL_SPLIT256, FL_REG64, FL_COUNTING,
                             FL_COUNTING512};
    const size_t n = 3000;
    uint64_t *h = test_hashes(n, 1);
    /* the add sequence: round r adds every key whose multiplicity exceeds r, so a key's
     * copies are spread over the batch and repeat inside 1000-key batches */
    uint64_t *seq = malloc(7 * n * sizeof *seq);
    size_t len = 0;
    for (uint32_t r = 0; r < 7; r++)
        for (size_t i = 0; i < n; i++)
            if (mult(i) > r) seq[len++] = h[i];
    for (size_t v = 0; v < sizeof vs / sizeof *vs; v++) {
        fl_lbf *single = new_lbf(4, n, 0.01, vs[v]), *batch = new_lbf(4, n, 0.01, vs[v]);
        size_t saturated_single = 0, saturated_batch = 0;
        for (size_t j = 0; j < len; j++) {
            uint32_t before = fl_lbf_count_hash(single, seq[j]), after = 0;
            assert_int_equal(fl_lbf_add_hash(single, seq[j], &after), FL_OK);
            assert_int_equal(after, before < 4 ? before + 1 : 4);
            saturated_single += before == 4;
        }
        for (size_t at = 0; at < len; at += 1000) {
            size_t part = len - at < 1000 ? len - at : 1000, sat = 0;
            assert_int_equal(fl_lbf_add_hashes(batch, seq + at, part, &sat), FL_OK);
            saturated_batch += sat;
        }
        assert_int_equal(saturated_single, saturated_batch);
        fl_lbf_info a, b;
        assert_int_equal(fl_lbf_get_info(single, &a), FL_OK);
        assert_int_equal(fl_lbf_get_info(batch, &b), FL_OK);
        assert_int_equal(a.adds, b.adds);
        assert_int_equal(a.adds + saturated_single, len);
        for (uint32_t i = 0; i < 4; i++) {
            const fl_filter *x = fl_lbf_layer_at(single, i), *y = fl_lbf_layer_at(batch, i);
            assert_int_equal(fl_size_bytes(x), fl_size_bytes(y));
            size_t bytes = fl_serialized_size(x);
            uint8_t *bx = malloc(bytes), *by = malloc(bytes);
            assert_int_equal(fl_save_mem(x, bx, bytes, NULL), FL_OK);
            assert_int_equal(fl_save_mem(y, by, bytes, NULL), FL_OK);
            assert_memory_equal(bx, by, bytes);
            free(bx);
            free(by);
        }
        uint8_t *counts = malloc(n);
        assert_int_equal(fl_lbf_count_hashes(batch, h, n, counts), FL_OK);
        for (size_t i = 0; i < n; i++) {
            uint32_t want = mult(i) < 4 ? mult(i) : 4;
            assert_true(counts[i] >= want);
            assert_int_equal(counts[i], fl_lbf_count_hash(batch, h[i]));
        }
        free(counts);
        fl_lbf_free(single);
        fl_lbf_free(batch);
    }
    free(seq);
    free(h);
}

/* Seed 004, 4.11.3: a key added c times reads c + d with probability about PF^d when the
 * layers hash independently. Each layer's own FPR f_i is measured first (4M fresh hashes
 * through that layer alone); independence means P(count >= c + d) = f_c ... f_{c+d-1}, and
 * f_i <= PF up to the sizing model's accuracy. Measured on 2M keys never added (c = 0) and
 * on keys added once (c = 1); each rate must sit within 5 binomial standard deviations
 * (+ 3 events) of the product, and below PF^d (with 10% for the model, as tests/test_fpr.c
 * allows, and the same 5 sd). Fixed seeds: the test is deterministic. */
static void check_rate(const char *what, size_t events, size_t trials, double p, double pf_d) {
    double mean = p * (double)trials, sd = sqrt((double)trials * p * (1 - p));
    print_message("%s: %zu of %zu = %.4g (product of measured layer FPRs %.4g, PF^d = %.4g)\n",
                  what, events, trials, (double)events / (double)trials, p, pf_d);
    assert_true(fabs((double)events - mean) <= 5 * sd + 3);
    assert_true((double)events <= 1.1 * pf_d * (double)trials + 5 * sd + 3);
}

static void test_error_bounds(void **state) {
    (void)state;
    const uint64_t cap = 100000;
    const double pf = 0.05;
    const uint32_t R = 4;
    fl_lbf *l = new_lbf(R, cap, pf, FL_BLOCK512);
    /* 80% of the keys added 3 times, 20% once: layer 0 full, layers 1 and 2 at about 80%,
     * layer 3 nearly empty (it holds the keys a false positive pushed one layer deeper) */
    const size_t n3 = cap * 8 / 10, n1 = cap - n3;
    uint64_t *k3 = test_hashes(n3, 20), *k1 = test_hashes(n1, 21);
    for (int r = 0; r < 3; r++) assert_int_equal(fl_lbf_add_hashes(l, k3, n3, NULL), FL_OK);
    /* one by one, to see which adds met a false positive of layer 0 and went deeper */
    uint8_t *pushed = calloc(n1, 1);
    size_t pushes = 0;
    for (size_t i = 0; i < n1; i++) {
        uint32_t c = 0;
        assert_int_equal(fl_lbf_add_hash(l, k1[i], &c), FL_OK);
        pushed[i] = c > 1;
        pushes += pushed[i];
    }

    const size_t probes = 4000000;
    uint64_t *fresh = test_hashes(probes, 23);
    uint8_t *hit = malloc(probes);
    double f[4];
    for (uint32_t i = 0; i < R; i++) {
        size_t pos = 0;
        assert_int_equal(fl_contains_hashes(fl_lbf_layer_at(l, i), fresh, probes, hit, &pos),
                         FL_OK);
        f[i] = (double)pos / (double)probes;
        print_message("layer %u: %llu keys, measured FPR %.4g\n", i,
                      (unsigned long long)fl_lbf_layer_keys(l, i), f[i]);
        assert_true(f[i] <= 1.1 * pf);
    }
    free(hit);
    free(fresh);

    const size_t q = 2000000;
    uint64_t *neg = test_hashes(q, 22);
    uint8_t *counts = malloc(q);
    assert_int_equal(fl_lbf_count_hashes(l, neg, q, counts), FL_OK);
    size_t at_least[5] = {0};
    for (size_t i = 0; i < q; i++)
        for (uint32_t d = 0; d <= counts[i]; d++) at_least[d]++;
    double prod = 1;
    for (uint32_t d = 1; d <= 3; d++) {
        prod *= f[d - 1];
        char what[64];
        snprintf(what, sizeof what, "added 0 times, read >= %u", d);
        check_rate(what, at_least[d], q, prod, pow(pf, d));
    }

    /* Keys added once. Two ways to read 2: the add itself met a false positive of layer 0
     * and went to layer 1 (probability f_0 at the time of the add, <= PF: the adds' own
     * error, which the seed's estimate leaves out: a key added c times has c such chances),
     * or the lookup meets a false positive of layer 1 (f_1: the seed's c + 1). */
    double psd = sqrt((double)n1 * pf);
    print_message("added once: %zu of %zu adds went one layer deeper (%.4g, <= PF = %g)\n",
                  pushes, n1, (double)pushes / (double)n1, pf);
    assert_true((double)pushes <= 1.1 * pf * (double)n1 + 5 * psd + 3);
    uint8_t *c1 = malloc(n1);
    assert_int_equal(fl_lbf_count_hashes(l, k1, n1, c1), FL_OK);
    size_t over = 0, over2 = 0, exact = 0;
    for (size_t i = 0; i < n1; i++) {
        assert_true(c1[i] >= 1 + pushed[i]);
        if (pushed[i]) continue;
        exact++;
        over += c1[i] >= 2;
        over2 += c1[i] >= 3;
    }
    check_rate("added once (add exact), read >= 2", over, exact, f[1], pf);
    check_rate("added once (add exact), read >= 3", over2, exact, f[1] * f[2], pf * pf);
    free(pushed);
    /* keys added 3 times never read below 3 */
    uint8_t *cc = malloc(n3);
    assert_int_equal(fl_lbf_count_hashes(l, k3, n3, cc), FL_OK);
    for (size_t i = 0; i < n3; i++) assert_true(cc[i] >= 3);
    free(cc);
    free(c1);
    free(counts);
    free(neg);
    free(k1);
    free(k3);
    fl_lbf_free(l);
}

static void test_delete(void **state) {
    (void)state;
    fl_lbf *l = new_lbf(3, 1000, 0.01, FL_BLOCK512);
    uint32_t c = 9;
    assert_int_equal(fl_lbf_add_hash(l, 42, &c), FL_OK);
    assert_int_equal(fl_lbf_delete_hash(l, 42, &c), FL_ERR_UNSUPPORTED);
    assert_int_equal(fl_lbf_count_hash(l, 42), 1);
    fl_lbf_free(l);

    l = new_lbf(3, 1000, 0.01, FL_COUNTING);
    uint64_t *h = test_hashes(500, 30);
    for (int r = 0; r < 2; r++) assert_int_equal(fl_lbf_add_hashes(l, h, 500, NULL), FL_OK);
    assert_int_equal(fl_lbf_add_bytes(l, "k", 1, &c), FL_OK);
    assert_int_equal(c, 1);
    assert_int_equal(fl_lbf_count_bytes(l, "k", 1), 1);
    assert_int_equal(fl_lbf_delete_bytes(l, "k", 1, &c), FL_OK);
    assert_int_equal(c, 0);
    for (size_t i = 0; i < 500; i++) {
        assert_int_equal(fl_lbf_delete_hash(l, h[i], &c), FL_OK);
        assert_true(c >= 1);
    }
    for (size_t i = 0; i < 500; i++) assert_true(fl_lbf_count_hash(l, h[i]) >= 1);
    for (size_t i = 0; i < 500; i++) assert_int_equal(fl_lbf_delete_hash(l, h[i], NULL), FL_OK);
    /* every add undone: the layers are empty again, so nothing is found */
    fl_lbf_info in;
    assert_int_equal(fl_lbf_get_info(l, &in), FL_OK);
    assert_int_equal(in.adds, 1001);
    assert_int_equal(in.deletes, 1001);
    assert_true(in.can_delete);
    for (uint32_t i = 0; i < 3; i++) assert_int_equal(fl_lbf_layer_keys(l, i), 0);
    for (size_t i = 0; i < 500; i++) assert_int_equal(fl_lbf_count_hash(l, h[i]), 0);
    assert_int_equal(fl_lbf_delete_hash(l, h[0], &c), FL_ERR_NOT_FOUND);
    free(h);
    fl_lbf_free(l);
}

static void test_kernels_agree(void **state) {
    (void)state;
    fl_lbf *l = new_lbf(5, 20000, 0.02, FL_BLOCK512);
    uint64_t *h = test_hashes(60000, 40);
    for (int r = 0; r < 5; r++) fl_lbf_add_hashes(l, h, 20000 - 4000 * (size_t)r, NULL);
    uint8_t *a = malloc(60000), *b = malloc(60000);
    assert_int_equal(fl_lbf_count_hashes(l, h, 60000, a), FL_OK);
    assert_int_equal(fl_lbf_bind_kernel(l, "scalar"), FL_OK);
    assert_int_equal(fl_lbf_count_hashes(l, h, 60000, b), FL_OK);
    assert_memory_equal(a, b, 60000);
    assert_int_equal(fl_lbf_bind_kernel(l, "no-such-kernel"), FL_ERR_UNKNOWN_KERNEL);
    assert_int_equal(fl_lbf_bind_kernel(l, NULL), FL_OK);
    fl_lbf_clear(l);
    assert_int_equal(fl_lbf_count_hashes(l, h, 60000, a), FL_OK);
    for (size_t i = 0; i < 60000; i++) assert_int_equal(a[i], 0);
    free(a);
    free(b);
    free(h);
    fl_lbf_free(l);
}

/* ---- the codec -------------------------------------------------------------------------- */

static uint8_t *saved(size_t *len, fl_lbf **keep) {
    fl_lbf *l = new_lbf(3, 300, 0.05, FL_REG64);
    uint64_t *h = test_hashes(300, 50);
    for (int r = 0; r < 3; r++) fl_lbf_add_hashes(l, h, 300 - 100 * (size_t)r, NULL);
    free(h);
    *len = fl_lbf_serialized_size(l);
    uint8_t *buf = malloc(*len);
    assert_int_equal(fl_lbf_save_mem(l, buf, *len, NULL), FL_OK);
    if (keep)
        *keep = l;
    else
        fl_lbf_free(l);
    return buf;
}

static void test_round_trip_and_kinds(void **state) {
    (void)state;
    size_t len = 0, written = 0;
    fl_lbf *l = NULL, *m = NULL;
    uint8_t *buf = saved(&len, &l);
    assert_int_equal(fl_lbf_save_mem(l, buf, len - 1, &written), FL_ERR_BUFFER_TOO_SMALL);
    assert_int_equal(fl_lbf_load_mem(buf, len, 0, &m), FL_OK);
    uint8_t *again = malloc(len);
    assert_int_equal(fl_lbf_save_mem(m, again, len, &written), FL_OK);
    assert_int_equal(written, len);
    assert_memory_equal(buf, again, len);
    uint64_t *q = test_hashes(5000, 50);
    uint8_t *a = malloc(5000), *b = malloc(5000);
    fl_lbf_count_hashes(l, q, 5000, a);
    fl_lbf_count_hashes(m, q, 5000, b);
    assert_memory_equal(a, b, 5000);
    fl_lbf_info in;
    assert_int_equal(fl_lbf_get_info(m, &in), FL_OK);
    fl_lbf_free(m);
    assert_int_equal(fl_lbf_load_mem(buf, len, in.bytes - 1, &m), FL_ERR_TOO_LARGE);
    assert_null(m);
    assert_int_equal(fl_lbf_load_mem(buf, len, in.bytes, &m), FL_OK);
    fl_lbf_free(m);

    uint32_t kind = 0;
    assert_int_equal(fl_file_kind_mem(buf, len, &kind), FL_OK);
    assert_int_equal(kind, FL_FILE_LAYERED_BLOOM);
    fl_filter *f = NULL;
    assert_int_equal(fl_load_mem(buf, len, 0, &f), FL_ERR_WRONG_KIND);
    fl_sbf *s = NULL;
    assert_int_equal(fl_sbf_load_mem(buf, len, 0, &s), FL_ERR_WRONG_KIND);
    fl_filter *plain = test_filter(FL_BLOCK512, 4, 6);
    size_t flen = fl_serialized_size(plain);
    uint8_t *fbuf = malloc(flen);
    assert_int_equal(fl_save_mem(plain, fbuf, flen, NULL), FL_OK);
    assert_int_equal(fl_lbf_load_mem(fbuf, flen, 0, &m), FL_ERR_WRONG_KIND);
    assert_null(m);

    char path[] = "/tmp/test_layered_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(fl_lbf_save_file(l, path), FL_OK);
    assert_int_equal(fl_file_kind_file(path, &kind), FL_OK);
    assert_int_equal(kind, FL_FILE_LAYERED_BLOOM);
    assert_int_equal(fl_lbf_load_file(path, 0, &m), FL_OK);
    fl_lbf_count_hashes(m, q, 5000, b);
    assert_memory_equal(a, b, 5000);
    fl_lbf_free(m);
    unlink(path);
    assert_int_equal(fl_lbf_load_file(path, 0, &m), FL_ERR_IO);

    free(fbuf);
    fl_free(plain);
    free(a);
    free(b);
    free(q);
    free(again);
    free(buf);
    fl_lbf_free(l);
}

static void test_truncations_and_flips(void **state) {
    (void)state;
    size_t len = 0;
    uint8_t *buf = saved(&len, NULL);
    fl_lbf *l = NULL;
    for (size_t cut = 0; cut < len; cut++) {
        assert_int_equal(fl_lbf_load_mem(buf, cut, 0, &l), FL_ERR_TRUNCATED);
        assert_null(l);
    }
    uint8_t *longer = malloc(len + 1);
    memcpy(longer, buf, len);
    longer[len] = 0;
    assert_int_equal(fl_lbf_load_mem(longer, len + 1, 0, &l), FL_ERR_TRAILING_DATA);
    free(longer);
    for (size_t bit = 0; bit < 8 * len; bit++) {
        buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        fl_status st = fl_lbf_load_mem(buf, len, 0, &l);
        if (st == FL_OK) fprintf(stderr, "bit %zu accepted\n", bit);
        assert_int_not_equal(st, FL_OK);
        assert_null(l);
        buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    }
    free(buf);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_parameters),
        cmocka_unit_test(test_never_undercounts),
        cmocka_unit_test(test_error_bounds),
        cmocka_unit_test(test_delete),
        cmocka_unit_test(test_kernels_agree),
        cmocka_unit_test(test_round_trip_and_kinds),
        cmocka_unit_test(test_truncations_and_flips),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
