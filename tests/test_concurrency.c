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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(race_classic),
        cmocka_unit_test(race_block512),
        cmocka_unit_test(race_split256),
        cmocka_unit_test(race_reg64),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
