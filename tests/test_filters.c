/* Every variant: no false negatives, single-key and batch calls agree, union, clear, info,
 * concurrent atomic inserts, huge-page advice and NULL handling. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/internal.h"
#include "testutil.h"

#define NKEYS 1000000

static const fl_variant variants[] = {FL_CLASSIC, FL_BLOCK512, FL_SPLIT256, FL_REG64, FL_CUCKOO};

static fl_filter *sized(fl_variant v, uint64_t n, double fpr) {
    fl_filter *f = NULL;
    assert_int_equal(fl_create_for(v, n, fpr, &f), FL_OK);
    return f;
}

static void no_false_negatives(void **state) {
    (void)state;
    uint64_t *h = test_hashes(NKEYS, 1);
    uint8_t *out = malloc(NKEYS);
    for (size_t i = 0; i < 5; i++) {
        fl_filter *f = sized(variants[i], NKEYS, 0.01);
        size_t inserted = 0, pos = 0;
        assert_int_equal(fl_insert_hashes(f, h, NKEYS, &inserted), FL_OK);
        assert_int_equal(inserted, NKEYS);
        assert_int_equal(fl_count(f), NKEYS);
        memset(out, 7, NKEYS);
        assert_int_equal(fl_contains_hashes(f, h, NKEYS, out, &pos), FL_OK);
        assert_int_equal(pos, NKEYS);
        for (size_t j = 0; j < NKEYS; j++) assert_int_equal(out[j], 1);
        for (size_t j = 0; j < NKEYS; j += 997) assert_int_equal(fl_contains_hash(f, h[j]), 1);
        fl_free(f);
    }
    free(out);
    free(h);
}

/* The bit arrays' test-and-set (the descriptor's add_one, what scalable chains add with)
 * against a lookup then an insert through the kernels: it answers 1 exactly when the lookup
 * before would have answered absent, and leaves the same bits. Small filters, so that many
 * keys find their bits already set; every k the default sizing picks at these FPRs. */
static void add_one_is_lookup_then_insert(void **state) {
    (void)state;
    const size_t n = 20000;
    uint64_t *h = test_hashes(n, 21);
    for (size_t i = 0; i < n; i += 5) h[i] = h[i / 3]; /* repeats */
    const double fprs[] = {0.3, 0.01, 1e-6};
    for (size_t i = 0; i < 4; i++)
        for (size_t p = 0; p < 3; p++) {
            fl_filter *a = sized(variants[i], n / 4, fprs[p]);
            fl_filter *b = sized(variants[i], n / 4, fprs[p]);
            assert_non_null(a->desc->add_one);
            fl_kview v = fl_view(a);
            size_t fresh = 0, dup = 0;
            for (size_t j = 0; j < n; j++) {
                int absent = !fl_contains_hash(b, h[j]);
                assert_int_equal(fl_insert_hashes(b, &h[j], 1, NULL), FL_OK);
                int got = a->desc->add_one(&v, h[j]);
                assert_int_equal(got, absent);
                fresh += got;
                dup += !got;
            }
            assert_true(fresh > 0 && dup > 0);
            assert_memory_equal(a->data, b->data, a->bytes);
            fl_free(a);
            fl_free(b);
        }
    assert_null(fl_variant_desc_of(FL_CUCKOO)->add_one);
    free(h);
}

/* Byte and integer keys go through the filter's hash; XXH64 is selectable. */
static void byte_and_integer_keys(void **state) {
    (void)state;
    for (size_t i = 0; i < 5; i++) {
        for (int hash = FL_HASH_XXH3; hash <= FL_HASH_XXH64; hash++) {
            fl_config cfg = {.variant = variants[i], .n = 10001, .fpr = 0.001, .hash = hash,
                             .seed = 42};
            fl_filter *f;
            assert_int_equal(fl_create(&cfg, &f), FL_OK);
            char key[32];
            for (int j = 0; j < 5000; j++) {
                int len = snprintf(key, sizeof key, "key-%d", j);
                assert_int_equal(fl_insert_bytes(f, key, (size_t)len), FL_OK);
                assert_int_equal(fl_insert_u64(f, (uint64_t)j * 977), FL_OK);
            }
            assert_int_equal(fl_insert_bytes(f, NULL, 0), FL_OK); /* the empty key */
            for (int j = 0; j < 5000; j++) {
                int len = snprintf(key, sizeof key, "key-%d", j);
                assert_int_equal(fl_contains_bytes(f, key, (size_t)len), 1);
                assert_int_equal(fl_contains_u64(f, (uint64_t)j * 977), 1);
            }
            assert_int_equal(fl_contains_bytes(f, "", 0), 1);
            assert_int_equal(fl_insert_bytes(f, NULL, 3), FL_ERR_INVALID_ARG);
            fl_free(f);
        }
    }
}

/* Integer-key batches hash with fl_hash_u64 and the filter's seed: the same answers as
 * single integer keys, and a cuckoo batch stops at FULL with the count inserted. */
static void integer_key_batches(void **state) {
    (void)state;
    const size_t n = 5000;
    uint64_t *keys = malloc(n * sizeof *keys), *probe = malloc(2 * n * sizeof *probe);
    uint8_t *out = malloc(2 * n);
    for (size_t i = 0; i < n; i++) keys[i] = i * 7919 + 3;
    for (size_t i = 0; i < 2 * n; i++) probe[i] = i * 7919 + 3; /* half inserted */
    for (size_t v = 0; v < 5; v++) {
        fl_config cfg = {.variant = variants[v], .n = n, .fpr = 0.01, .seed = 99};
        fl_filter *f;
        assert_int_equal(fl_create(&cfg, &f), FL_OK);
        size_t inserted = 0, pos = 0, expect = 0;
        assert_int_equal(fl_insert_u64s(f, keys, n, &inserted), FL_OK);
        assert_int_equal(inserted, n);
        assert_int_equal(fl_contains_u64s(f, probe, 2 * n, out, &pos), FL_OK);
        for (size_t i = 0; i < 2 * n; i++) {
            assert_int_equal(out[i], fl_contains_u64(f, probe[i]));
            expect += out[i];
        }
        assert_int_equal(pos, expect);
        for (size_t i = 0; i < n; i++) assert_int_equal(out[i], 1);
        fl_free(f);
    }
    fl_filter *c = test_filter(FL_CUCKOO, 10, 16);
    size_t inserted = 0;
    assert_int_equal(fl_insert_u64s(c, keys, n, &inserted), FL_ERR_FULL);
    assert_true(inserted >= 30 && inserted < 60);
    assert_int_equal(fl_count(c), inserted);
    assert_int_equal(fl_contains_u64s(c, NULL, 1, out, NULL), FL_ERR_INVALID_ARG);
    fl_free(c);
    free(keys);
    free(probe);
    free(out);
}

/* Batches of every small length, at unaligned offsets, agree with single-key answers. */
static void single_and_batch_agree(void **state) {
    (void)state;
    uint64_t *in = test_hashes(20000, 2), *probe = test_hashes(4000, 3);
    uint8_t buf[4096 + 16];
    unsigned char hbytes[8 * 300 + 8];
    for (size_t i = 0; i < 5; i++) {
        fl_filter *f = sized(variants[i], 20000, 0.05);
        assert_int_equal(fl_insert_hashes(f, in, 20000, NULL), FL_OK);
        size_t pos;
        assert_int_equal(fl_contains_hashes(f, probe, 4000, buf, &pos), FL_OK);
        size_t expect = 0;
        for (size_t j = 0; j < 4000; j++) {
            assert_int_equal(buf[j], fl_contains_hash(f, probe[j]));
            expect += buf[j];
        }
        assert_int_equal(pos, expect);
        for (size_t n = 0; n < 70; n++) {
            for (size_t off = 0; off < 8; off += 3) {
                memcpy(hbytes + off, probe + 100, n * 8);
                uint8_t *o = buf + 1;
                memset(buf, 0xAA, n + 2);
                assert_int_equal(fl_contains_hashes(f, (const uint64_t *)(void *)(hbytes + off),
                                                    n, o, NULL),
                                 FL_OK);
                for (size_t j = 0; j < n; j++) assert_int_equal(o[j], buf[j + 1]);
                assert_int_equal(buf[0], 0xAA);     /* canaries */
                assert_int_equal(buf[n + 1], 0xAA);
            }
        }
        fl_free(f);
    }
    free(in);
    free(probe);
}

static void union_and_clear(void **state) {
    (void)state;
    uint64_t *h = test_hashes(20000, 4);
    for (size_t i = 0; i < 5; i++) {
        fl_filter *a = sized(variants[i], 20000, 0.01), *b = sized(variants[i], 20000, 0.01);
        assert_int_equal(fl_insert_hashes(a, h, 10000, NULL), FL_OK);
        assert_int_equal(fl_insert_hashes(b, h + 10000, 10000, NULL), FL_OK);
        fl_status s = fl_union(a, b);
        if (variants[i] == FL_CUCKOO) {
            assert_int_equal(s, FL_ERR_UNSUPPORTED);
        } else {
            assert_int_equal(s, FL_OK);
            /* Both held keys: the count is the distinct keys read back from the fill. */
            fl_info u;
            assert_int_equal(fl_get_info(a, &u), FL_OK);
            assert_int_equal(u.keys_estimated, 1);
            assert_int_equal(fl_count(a), u.keys);
            assert_true(u.keys > 19400 && u.keys <= 20000);
            for (size_t j = 0; j < 20000; j++) assert_int_equal(fl_contains_hash(a, h[j]), 1);
        }
        fl_clear(a);
        assert_int_equal(fl_count(a), 0);
        fl_info info;
        assert_int_equal(fl_get_info(a, &info), FL_OK);
        assert_int_equal(info.keys_estimated, 0);
        assert_int_equal(info.bits_set, 0);
        assert_true(info.predicted_fpr == 0.0);
        for (size_t j = 0; j < 20000; j++) assert_int_equal(fl_contains_hash(a, h[j]), 0);
        fl_free(a);
        fl_free(b);
    }
    /* Incompatible pairs. */
    fl_filter *x = test_filter(FL_BLOCK512, 100, 8), *y = test_filter(FL_BLOCK512, 101, 8);
    fl_filter *z = test_filter(FL_SPLIT256, 200, 8);
    assert_int_equal(fl_union(x, y), FL_ERR_INCOMPATIBLE);
    assert_int_equal(fl_union(x, z), FL_ERR_INCOMPATIBLE);
    assert_int_equal(fl_union(NULL, x), FL_ERR_INVALID_ARG);
    fl_config cfg = {.variant = FL_BLOCK512, .geometry = {FL_BLOCK512, 100, 8}, .seed = 9};
    fl_filter *seeded;
    assert_int_equal(fl_create(&cfg, &seeded), FL_OK);
    assert_int_equal(fl_union(x, seeded), FL_ERR_INCOMPATIBLE);
    fl_free(x);
    fl_free(y);
    fl_free(z);
    fl_free(seeded);
    free(h);
}

/* |1 - a / b| */
static double rel_diff(double a, double b) {
    return fabs(a / b - 1.0);
}

/* fl_union's key count and prediction, for every variant that has a union: the union of a
 * filter with its own copy predicts the filter's FPR (the bit array did not change; a sum of
 * the counts predicted 12% for a 1% filter), the union of two disjoint halves predicts what
 * one filter of all the keys does; a union with an empty filter keeps the exact count. */
#define UNION_KEYS 1000000
static void union_predicts_from_the_fill(void **state) {
    (void)state;
    uint64_t *h = test_hashes(UNION_KEYS, 41);
    for (int v = FL_VARIANT_MIN; v <= FL_VARIANT_MAX; v++) {
        fl_variant_info vi;
        assert_int_equal(fl_variant_describe((fl_variant)v, &vi), FL_OK);
        if (!(vi.caps & FL_CAP_UNION)) continue;
        fl_filter *f = sized((fl_variant)v, UNION_KEYS, 0.01);
        fl_filter *copy = sized((fl_variant)v, UNION_KEYS, 0.01);
        fl_filter *lo = sized((fl_variant)v, UNION_KEYS, 0.01);
        fl_filter *hi = sized((fl_variant)v, UNION_KEYS, 0.01);
        fl_filter *empty = sized((fl_variant)v, UNION_KEYS, 0.01);
        size_t half = UNION_KEYS / 2;
        assert_int_equal(fl_insert_hashes(f, h, UNION_KEYS, NULL), FL_OK);
        assert_int_equal(fl_insert_hashes(copy, h, UNION_KEYS, NULL), FL_OK);
        assert_int_equal(fl_insert_hashes(lo, h, half, NULL), FL_OK);
        assert_int_equal(fl_insert_hashes(hi, h + half, UNION_KEYS - half, NULL), FL_OK);
        fl_info alone, twice, halves, info;
        assert_int_equal(fl_get_info(f, &alone), FL_OK);
        assert_int_equal(alone.keys_estimated, 0);

        assert_int_equal(fl_union(copy, f), FL_OK);
        assert_int_equal(fl_get_info(copy, &twice), FL_OK);
        assert_int_equal(twice.keys_estimated, 1);
        assert_int_equal(fl_count(copy), twice.keys);
        printf("# %s: alone %.6g at %llu keys; with its copy %.6g at %llu; halves ",
               vi.name, alone.predicted_fpr, (unsigned long long)alone.keys,
               twice.predicted_fpr, (unsigned long long)twice.keys);
        assert_true(rel_diff((double)twice.keys, UNION_KEYS) < 0.01);
        assert_true(rel_diff(twice.predicted_fpr, alone.predicted_fpr) < 0.01);

        assert_int_equal(fl_union(lo, hi), FL_OK);
        assert_int_equal(fl_get_info(lo, &halves), FL_OK);
        printf("%.6g at %llu\n", halves.predicted_fpr, (unsigned long long)halves.keys);
        assert_int_equal(halves.keys_estimated, 1);
        assert_true(halves.keys <= UNION_KEYS); /* the sum of two counts of inserts bounds it */
        assert_true(rel_diff((double)halves.keys, UNION_KEYS) < 0.03);
        assert_true(rel_diff(halves.predicted_fpr, alone.predicted_fpr) < 0.03);

        /* Saved and loaded: the estimate is the stored count, so the prediction survives. */
        size_t size = fl_serialized_size(copy), written = 0;
        void *buf = malloc(size);
        assert_non_null(buf);
        assert_int_equal(fl_save_mem(copy, buf, size, &written), FL_OK);
        fl_filter *loaded = NULL;
        assert_int_equal(fl_load_mem(buf, written, 0, &loaded), FL_OK);
        assert_int_equal(fl_get_info(loaded, &info), FL_OK);
        assert_int_equal(info.keys, twice.keys);
        assert_true(info.predicted_fpr == twice.predicted_fpr);
        fl_free(loaded);
        free(buf);

        /* Inserts after a union add to the estimate; fl_clear makes the count exact again. */
        assert_int_equal(fl_insert_u64(copy, 1), FL_OK);
        assert_int_equal(fl_count(copy), twice.keys + 1);
        fl_clear(copy);
        assert_int_equal(fl_get_info(copy, &info), FL_OK);
        assert_int_equal(info.keys_estimated, 0);

        /* One side empty: the other's count, exact, both ways; a bit array's union with itself
         * changes nothing. */
        assert_int_equal(fl_union(empty, f), FL_OK);
        assert_int_equal(fl_get_info(empty, &info), FL_OK);
        assert_int_equal(info.keys, UNION_KEYS);
        assert_int_equal(info.keys_estimated, 0);
        assert_int_equal(fl_union(f, copy), FL_OK); /* copy was cleared */
        if (!vi.counter_bits) /* a counting filter adds its counters to themselves */
            assert_int_equal(fl_union(f, f), FL_OK);
        assert_int_equal(fl_get_info(f, &info), FL_OK);
        assert_int_equal(info.keys, UNION_KEYS);
        assert_int_equal(info.keys_estimated, 0);
        assert_true(info.predicted_fpr == alone.predicted_fpr);
        /* A union into an empty filter takes the other's flag along. */
        fl_clear(empty);
        assert_int_equal(fl_union(empty, lo), FL_OK);
        assert_int_equal(fl_get_info(empty, &info), FL_OK);
        assert_int_equal(info.keys, halves.keys);
        assert_int_equal(info.keys_estimated, 1);
        fl_free(f);
        fl_free(copy);
        fl_free(lo);
        fl_free(hi);
        fl_free(empty);
    }
    free(h);
}

static void info_reports_fill_and_prediction(void **state) {
    (void)state;
    uint64_t *h = test_hashes(100000, 5);
    for (size_t i = 0; i < 5; i++) {
        fl_filter *f = sized(variants[i], 100000, 0.01);
        assert_int_equal(fl_insert_hashes(f, h, 50000, NULL), FL_OK);
        fl_info info;
        assert_int_equal(fl_get_info(f, &info), FL_OK);
        assert_int_equal(info.keys, 50000);
        assert_true(info.fill > 0.0 && info.fill < 1.0);
        assert_true(info.predicted_fpr > 0.0 && info.predicted_fpr < 0.01);
        assert_true(info.predicted_fpr == fl_predict_fpr(&info.geometry, 50000));
        assert_int_equal(info.bytes, fl_size_bytes(f));
        if (variants[i] != FL_CUCKOO) {
            /* Swamidass-Baldi recovers the distinct key count within 2% at this fill. */
            assert_true(info.keys_from_fill > 49000 && info.keys_from_fill < 51000);
        } else {
            assert_int_equal(info.bits_set, 50000);
        }
        fl_free(f);
    }
    free(h);
}

struct atomic_job {
    fl_filter *f;
    const uint64_t *h;
    size_t n;
};

static void *atomic_worker(void *arg) {
    struct atomic_job *j = arg;
    for (size_t i = 0; i < j->n; i += 1000)
        fl_insert_hashes_atomic(j->f, j->h + i, j->n - i < 1000 ? j->n - i : 1000);
    return NULL;
}

/* Two threads inserting with atomic OR produce exactly the sequential payload. */
static void concurrent_atomic_inserts(void **state) {
    (void)state;
    const size_t n = 400000;
    uint64_t *h = test_hashes(n, 6);
    for (size_t i = 0; i < 4; i++) {
        fl_filter *seq = sized(variants[i], n, 0.01), *par = sized(variants[i], n, 0.01);
        assert_int_equal(fl_insert_hashes(seq, h, n, NULL), FL_OK);
        struct atomic_job jobs[2] = {{par, h, n / 2}, {par, h + n / 2, n - n / 2}};
        pthread_t t[2];
        for (int j = 0; j < 2; j++) assert_int_equal(pthread_create(&t[j], NULL, atomic_worker, &jobs[j]), 0);
        for (int j = 0; j < 2; j++) pthread_join(t[j], NULL);
        assert_int_equal(fl_count(par), n);
        assert_memory_equal(seq->data, par->data, seq->bytes);
        fl_free(seq);
        fl_free(par);
    }
    fl_filter *c = sized(FL_CUCKOO, 1000, 0.01);
    assert_int_equal(fl_insert_hashes_atomic(c, h, 10), FL_ERR_UNSUPPORTED);
    fl_free(c);
    free(h);
}

struct saver_job {
    fl_filter *f;
    int failures, saves;
    int stop; /* set with __atomic_store_n by the inserting thread */
};

static void *saver(void *arg) {
    struct saver_job *j = arg;
    size_t cap = fl_serialized_size(j->f);
    unsigned char *buf = malloc(cap);
    char path[] = "/tmp/fl-test-save-XXXXXX";
    int fd = mkstemp(path);
    if (fd >= 0) close(fd);
    while (!__atomic_load_n(&j->stop, __ATOMIC_ACQUIRE) || j->saves < 4) {
        size_t written;
        fl_filter *back = NULL;
        if (fl_save_mem(j->f, buf, cap, &written) != FL_OK ||
            fl_load_mem(buf, written, 0, &back) != FL_OK)
            j->failures++;
        fl_free(back);
        back = NULL;
        if (fd >= 0 && (fl_save_file(j->f, path) != FL_OK ||
                        fl_load_file(path, 0, &back) != FL_OK))
            j->failures++;
        fl_free(back);
        j->saves++;
    }
    if (fd >= 0) unlink(path);
    free(buf);
    return NULL;
}

/* A save racing atomic inserts still writes a file that matches its checksum. */
static void save_during_atomic_inserts(void **state) {
    (void)state;
    const size_t n = 2000000;
    uint64_t *h = test_hashes(n, 7);
    fl_filter *f = sized(FL_BLOCK512, n, 0.01);
    struct saver_job job = {f, 0, 0, 0};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, saver, &job), 0);
    for (size_t i = 0; i < n; i += 256) fl_insert_hashes_atomic(f, h + i, n - i < 256 ? n - i : 256);
    __atomic_store_n(&job.stop, 1, __ATOMIC_RELEASE);
    pthread_join(t, NULL);
    assert_true(job.saves >= 4);
    assert_int_equal(job.failures, 0);
    fl_free(f);
    free(h);
}

static int thp_enabled(void) {
    FILE *fp = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (!fp) return 0;
    char buf[128] = {0};
    size_t got = fread(buf, 1, sizeof buf - 1, fp);
    fclose(fp);
    return got > 0 && !strstr(buf, "[never]");
}

static void large_filters_ask_for_huge_pages(void **state) {
    (void)state;
    fl_filter *big = test_filter(FL_SPLIT256, (4u << 20) / 32, 8); /* 4 MiB */
    fl_info info;
    assert_int_equal(fl_get_info(big, &info), FL_OK);
    assert_int_equal((uintptr_t)big->data % (2u << 20), 0);
    if (thp_enabled()) assert_int_equal(info.huge_pages, 1);
    fl_free(big);
    fl_config cfg = {.variant = FL_SPLIT256, .geometry = {FL_SPLIT256, (4u << 20) / 32, 8},
                     .flags = FL_FLAG_NO_HUGE_PAGES};
    assert_int_equal(fl_create(&cfg, &big), FL_OK);
    assert_int_equal(fl_get_info(big, &info), FL_OK);
    assert_int_equal(info.huge_pages, 0);
    fl_free(big);
    fl_filter *small = test_filter(FL_SPLIT256, 10, 8);
    assert_int_equal((uintptr_t)small->data % 64, 0);
    assert_int_equal(fl_get_info(small, &info), FL_OK);
    assert_int_equal(info.huge_pages, 0);
    fl_free(small);
}

static void null_arguments_are_errors(void **state) {
    (void)state;
    uint64_t h = 1;
    uint8_t o;
    fl_info info;
    assert_int_equal(fl_insert_hash(NULL, 1), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_insert_hashes(NULL, &h, 1, NULL), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_contains_hashes(NULL, &h, 1, &o, NULL), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_contains_hash(NULL, 1), 0);
    assert_int_equal(fl_get_info(NULL, &info), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_delete_hash(NULL, 1), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_delete_u64(NULL, 1), FL_ERR_INVALID_ARG);
    fl_filter *f = test_filter(FL_REG64, 10, 3);
    assert_int_equal(fl_contains_hashes(f, NULL, 1, &o, NULL), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_contains_hashes(f, &h, 1, NULL, NULL), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_contains_hashes(f, NULL, 0, NULL, NULL), FL_OK);
    assert_int_equal(fl_insert_hashes(f, NULL, 0, NULL), FL_OK);
    assert_int_equal(fl_delete_hash(f, 1), FL_ERR_UNSUPPORTED);
    assert_int_equal(fl_delete_u64(f, 1), FL_ERR_UNSUPPORTED);
    assert_int_equal(fl_size_bytes(NULL), 0);
    fl_free(f);
    fl_free(NULL);
    fl_clear(NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(no_false_negatives),
        cmocka_unit_test(add_one_is_lookup_then_insert),
        cmocka_unit_test(byte_and_integer_keys),
        cmocka_unit_test(single_and_batch_agree),
        cmocka_unit_test(integer_key_batches),
        cmocka_unit_test(union_and_clear),
        cmocka_unit_test(union_predicts_from_the_fill),
        cmocka_unit_test(info_reports_fill_and_prediction),
        cmocka_unit_test(concurrent_atomic_inserts),
        cmocka_unit_test(save_during_atomic_inserts),
        cmocka_unit_test(large_filters_ask_for_huge_pages),
        cmocka_unit_test(null_arguments_are_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
