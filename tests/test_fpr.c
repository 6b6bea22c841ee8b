/* Measured false-positive rates against the models of src/core/models.c: within 10% relative for
 * n = 1e6 and targets 1e-2, 1e-3, 1e-4, for every variant (counting ones included: their
 * counters are the models' cells). Queries are hashes never inserted;
 * enough of them that the expected false-positive count is >= 2000 (Poisson sd <= 2.3%). */
#include <math.h>
#include <stdio.h>

#include "testutil.h"

static void measured_fpr_matches_prediction(void **state) {
    (void)state;
    const uint64_t n = 1000000;
    /* 2000 expected false positives per target: 0.2M, 2M and 20M queries. The reduced run
     * (test_reduced) checks every variant at the first target only. */
    const double targets[] = {1e-2, 1e-3, 1e-4};
    const size_t n_targets = test_reduced() ? 1 : sizeof targets / sizeof targets[0];
    const fl_variant variants[] = {FL_CLASSIC, FL_BLOCK512, FL_SPLIT256, FL_REG64, FL_CUCKOO,
                                   FL_COUNTING, FL_COUNTING512};
    uint64_t *keys = test_hashes(n, 100);
    const size_t batch = 1 << 16;
    uint8_t *out = malloc(batch);
    uint64_t *q = malloc(batch * sizeof *q);
    printf("%-11s %8s %4s %7s %11s %11s %7s\n", "variant", "target", "k", "bits/key", "predicted",
           "measured", "ratio");
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        for (size_t t = 0; t < n_targets; t++) {
            fl_filter *f;
            assert_int_equal(fl_create_for(variants[v], n, targets[t], &f), FL_OK);
            assert_int_equal(fl_insert_hashes(f, keys, n, NULL), FL_OK);
            fl_info info;
            assert_int_equal(fl_get_info(f, &info), FL_OK);
            double pred = info.predicted_fpr;
            uint64_t queries = (uint64_t)ceil(2000.0 / pred);
            uint64_t fp = 0, next = 0;
            for (uint64_t done = 0; done < queries; done += batch) {
                for (size_t i = 0; i < batch; i++)
                    q[i] = fl_hash_u64((200ull << 40) + next++, 0x5eed);
                size_t pos;
                assert_int_equal(fl_contains_hashes(f, q, batch, out, &pos), FL_OK);
                fp += pos;
            }
            double meas = (double)fp / (double)next;
            printf("%-11s %8g %4u %7.2f %11.4g %11.4g %7.3f\n", fl_variant_name(variants[v]),
                   targets[t], info.geometry.k, 8.0 * (double)info.bytes / (double)n, pred, meas,
                   meas / pred);
            assert_true(fabs(meas - pred) / pred < 0.10);
            fl_free(f);
        }
    }
    free(keys);
    free(out);
    free(q);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(measured_fpr_matches_prediction),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
