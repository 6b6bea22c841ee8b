/* The documented concurrent pattern: fl_insert_hashes_atomic on one thread while others run
 * batch and single-key lookups, lookup handles and fl_save_mem on the same Bloom filter.
 * Checks the answers (no false negatives for keys inserted before the race, every save
 * loads back) and, built with -fsanitize=thread (scripts/test, build-tsan), that the
 * library's reads are race-free by the C11 memory model; tests/tsan.supp names the SIMD
 * kernels' vector loads, which cannot be written as atomic loads. */
#include <pthread.h>
#include <string.h>

#include "filterlab_inline.h"
#include "testutil.h"

enum { N = 40000, BATCH = 256 };

typedef struct job {
    fl_filter *f;
    const uint64_t *before; /* inserted before the threads start: must always be found */
    int stop;               /* __atomic: set by the inserter when it is done */
    long errors, rounds;
} job;

static void *reader(void *arg) {
    job *j = arg;
    uint8_t *out = malloc(N);
    if (!out) {
        __atomic_fetch_add(&j->errors, 1, __ATOMIC_RELAXED);
        return NULL;
    }
    const fl_lookup L = fl_lookup_of(j->f);
    long rounds = 0;
    while (!__atomic_load_n(&j->stop, __ATOMIC_ACQUIRE) || rounds < 2) {
        size_t pos = 0;
        if (fl_contains_hashes(j->f, j->before, N, out, &pos) != FL_OK || pos != N)
            __atomic_fetch_add(&j->errors, 1, __ATOMIC_RELAXED);
        for (size_t i = 0; i < N; i += 97)
            if (!fl_contains_hash(j->f, j->before[i]) || !fl_lookup_hash(&L, j->before[i]))
                __atomic_fetch_add(&j->errors, 1, __ATOMIC_RELAXED);
        rounds++;
    }
    __atomic_fetch_add(&j->rounds, rounds, __ATOMIC_RELAXED);
    free(out);
    return NULL;
}

static void *saver(void *arg) {
    job *j = arg;
    size_t cap = fl_serialized_size(j->f);
    unsigned char *buf = malloc(cap);
    long rounds = 0;
    while (buf && (!__atomic_load_n(&j->stop, __ATOMIC_ACQUIRE) || rounds < 2)) {
        size_t written = 0;
        fl_filter *back = NULL;
        if (fl_save_mem(j->f, buf, cap, &written) != FL_OK ||
            fl_load_mem(buf, written, 0, &back) != FL_OK || !fl_contains_hash(back, j->before[0]))
            __atomic_fetch_add(&j->errors, 1, __ATOMIC_RELAXED);
        fl_free(back);
        rounds++;
    }
    if (!buf) __atomic_fetch_add(&j->errors, 1, __ATOMIC_RELAXED);
    free(buf);
    return NULL;
}

static void race(fl_variant v) {
    fl_params p;
    assert_int_equal(fl_params_for(v, 2 * N, 0.01, &p), FL_OK);
    fl_config cfg = {.variant = v, .geometry = p.geometry};
    fl_filter *f = NULL;
    assert_int_equal(fl_create(&cfg, &f), FL_OK);
    uint64_t *before = test_hashes(N, 1), *during = test_hashes(N, 2);
    assert_int_equal(fl_insert_hashes(f, before, N, NULL), FL_OK);

    job j = {f, before, 0, 0, 0};
    pthread_t t[3];
    assert_int_equal(pthread_create(&t[0], NULL, reader, &j), 0);
    assert_int_equal(pthread_create(&t[1], NULL, reader, &j), 0);
    assert_int_equal(pthread_create(&t[2], NULL, saver, &j), 0);
    for (size_t i = 0; i < N; i += BATCH)
        assert_int_equal(fl_insert_hashes_atomic(f, during + i, N - i < BATCH ? N - i : BATCH),
                         FL_OK);
    __atomic_store_n(&j.stop, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
    assert_int_equal(j.errors, 0);
    assert_true(j.rounds >= 4);

    /* After the join every key of both halves is found. */
    size_t pos = 0;
    uint8_t *out = malloc(N);
    assert_non_null(out);
    assert_int_equal(fl_contains_hashes(f, during, N, out, &pos), FL_OK);
    assert_int_equal(pos, N);
    assert_int_equal(fl_count(f), 2 * N);
    free(out);
    free(before);
    free(during);
    fl_free(f);
}

static void race_classic(void **state) { (void)state; race(FL_CLASSIC); }
static void race_block512(void **state) { (void)state; race(FL_BLOCK512); }
static void race_split256(void **state) { (void)state; race(FL_SPLIT256); }
static void race_reg64(void **state) { (void)state; race(FL_REG64); }

/* The counting variants' atomic inserts (compare-and-swap per counter): the same race as the
 * Bloom variants', and then two threads inserting atomically into one small filter, their
 * key sets overlapping and repeated so that many counters reach 15, must leave exactly the
 * payload of the same keys inserted one by one on one thread (saturating increments
 * commute). Under TSan this also checks that the swaps and the probes' loads race only
 * through atomics. */
static void race_counting(void **state) { (void)state; race(FL_COUNTING); }
static void race_counting512(void **state) { (void)state; race(FL_COUNTING512); }

typedef struct ins_job {
    fl_filter *f;
    const uint64_t *h;
    size_t n;
    long errors;
} ins_job;

static void *inserter(void *arg) {
    ins_job *j = arg;
    for (size_t i = 0; i < j->n; i += BATCH)
        if (fl_insert_hashes_atomic(j->f, j->h + i, j->n - i < BATCH ? j->n - i : BATCH) != FL_OK)
            j->errors++;
    return NULL;
}

static void atomic_equals_plain(fl_variant v) {
    enum { KEYS = 3000, ROUNDS = 4 };
    fl_params p;
    assert_int_equal(fl_params_for(v, KEYS / 4, 0.01, &p), FL_OK); /* 4x over capacity */
    fl_config cfg = {.variant = v, .geometry = p.geometry};
    fl_filter *f = NULL, *ref = NULL;
    assert_int_equal(fl_create(&cfg, &f), FL_OK);
    assert_int_equal(fl_create(&cfg, &ref), FL_OK);
    /* Thread a: keys 0..KEYS, ROUNDS times; thread b: keys KEYS/2..KEYS + KEYS/2, ROUNDS times. */
    uint64_t *keys = test_hashes(KEYS + KEYS / 2, 7);
    uint64_t *a = malloc(ROUNDS * KEYS * 8), *b = malloc(ROUNDS * KEYS * 8);
    assert_true(keys && a && b);
    for (size_t r = 0; r < ROUNDS; r++) {
        memcpy(a + r * KEYS, keys, KEYS * 8);
        memcpy(b + r * KEYS, keys + KEYS / 2, KEYS * 8);
    }
    ins_job ja = {f, a, ROUNDS * KEYS, 0}, jb = {f, b, ROUNDS * KEYS, 0};
    pthread_t t[2];
    assert_int_equal(pthread_create(&t[0], NULL, inserter, &ja), 0);
    assert_int_equal(pthread_create(&t[1], NULL, inserter, &jb), 0);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    assert_int_equal(ja.errors + jb.errors, 0);
    assert_int_equal(fl_insert_hashes(ref, b, ROUNDS * KEYS, NULL), FL_OK);
    assert_int_equal(fl_insert_hashes(ref, a, ROUNDS * KEYS, NULL), FL_OK);
    fl_info fi, ri;
    assert_int_equal(fl_get_info(f, &fi), FL_OK);
    assert_int_equal(fl_get_info(ref, &ri), FL_OK);
    assert_true(ri.saturated > 0); /* the check covers saturation */
    assert_int_equal(fi.saturated, ri.saturated);
    assert_int_equal(fi.keys, ri.keys);
    size_t cap = fl_serialized_size(f), wf = 0, wr = 0;
    unsigned char *bf = malloc(cap), *br = malloc(cap);
    assert_true(bf && br);
    assert_int_equal(fl_save_mem(f, bf, cap, &wf), FL_OK);
    assert_int_equal(fl_save_mem(ref, br, cap, &wr), FL_OK);
    assert_int_equal(wf, wr);
    assert_memory_equal(bf, br, wf);
    free(bf), free(br), free(keys), free(a), free(b);
    fl_free(f);
    fl_free(ref);
}

static void atomic_counting(void **state) { (void)state; atomic_equals_plain(FL_COUNTING); }
static void atomic_counting512(void **state) { (void)state; atomic_equals_plain(FL_COUNTING512); }

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(race_classic),
        cmocka_unit_test(race_block512),
        cmocka_unit_test(race_split256),
        cmocka_unit_test(race_reg64),
        cmocka_unit_test(race_counting),
        cmocka_unit_test(race_counting512),
        cmocka_unit_test(atomic_counting),
        cmocka_unit_test(atomic_counting512),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
