/* Kernel dispatch: the environment override (unknown names are errors, not crashes), manual
 * selection, and every supported kernel answering like scalar on one batch (the full
 * differential check is tests/checkkernels). */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static void env_override_unknown_name(void **state) {
    (void)state;
    /* main() set FILTERLAB_KERNEL=bogus before the first library call. */
    assert_int_equal(fl_kernel_env_status(), FL_ERR_UNKNOWN_KERNEL);
    assert_non_null(strstr(fl_kernel_reason(), "bogus"));
    assert_non_null(fl_kernel_active());
}

static void describe_and_select(void **state) {
    (void)state;
    size_t n = fl_kernel_count();
    assert_true(n >= 1);
    fl_kernel_desc d;
    assert_int_equal(fl_kernel_describe(0, &d), FL_OK);
    assert_string_equal(d.name, "scalar");
    assert_int_equal(d.supported, 1);
    assert_int_equal(fl_kernel_describe(n, &d), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_kernel_select("no-such-isa"), FL_ERR_UNKNOWN_KERNEL);
    assert_int_equal(fl_kernel_select(NULL), FL_ERR_INVALID_ARG);

    uint64_t *in = test_hashes(50000, 40), *probe = test_hashes(5000, 41);
    const fl_variant variants[] = {FL_CLASSIC, FL_BLOCK512, FL_SPLIT256, FL_REG64, FL_CUCKOO};
    uint8_t ref[5000], got[5000];
    for (size_t v = 0; v < 5; v++) {
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(fl_kernel_describe(i, &d), FL_OK);
            fl_status s = fl_kernel_select(d.name);
            if (!d.supported) {
                assert_int_equal(s, FL_ERR_KERNEL_UNAVAILABLE);
                continue;
            }
            assert_int_equal(s, FL_OK);
            assert_string_equal(fl_kernel_active(), d.name);
            fl_filter *f;
            assert_int_equal(fl_create_for(variants[v], 50000, 0.02, &f), FL_OK);
            assert_int_equal(fl_insert_hashes(f, in, 50000, NULL), FL_OK);
            size_t pos;
            assert_int_equal(fl_contains_hashes(f, probe, 5000, i == 0 ? ref : got, &pos),
                             FL_OK);
            if (i > 0) assert_memory_equal(ref, got, sizeof ref);
            fl_free(f);
        }
    }
    assert_int_equal(fl_kernel_select("auto"), FL_OK);
    free(in);
    free(probe);
}

/* Per-filter kernels: filters bound to different tables answer alike, a binding survives a
 * change of the process choice, bad names leave it unchanged, and NULL / "auto" unbind. */
static void bind_per_filter(void **state) {
    (void)state;
    uint64_t *in = test_hashes(20000, 50), *probe = test_hashes(4000, 51);
    uint8_t ref[4000], got[4000];
    const fl_variant variants[] = {FL_CLASSIC, FL_BLOCK512, FL_SPLIT256, FL_REG64, FL_CUCKOO};
    for (size_t v = 0; v < 5; v++) {
        fl_filter *scalar_f, *f;
        assert_int_equal(fl_create_for(variants[v], 20000, 0.02, &scalar_f), FL_OK);
        assert_int_equal(fl_filter_bind_kernel(scalar_f, "scalar"), FL_OK);
        assert_string_equal(fl_filter_kernel(scalar_f), "scalar");
        assert_int_equal(fl_insert_hashes(scalar_f, in, 20000, NULL), FL_OK);
        assert_int_equal(fl_contains_hashes(scalar_f, probe, 4000, ref, NULL), FL_OK);
        for (size_t i = 0; i < fl_kernel_count(); i++) {
            fl_kernel_desc d;
            assert_int_equal(fl_kernel_describe(i, &d), FL_OK);
            assert_int_equal(fl_create_for(variants[v], 20000, 0.02, &f), FL_OK);
            fl_status s = fl_filter_bind_kernel(f, d.name);
            if (!d.supported) {
                assert_int_equal(s, FL_ERR_KERNEL_UNAVAILABLE);
                fl_free(f);
                continue;
            }
            assert_int_equal(s, FL_OK);
            /* The process choice moves; the bound filters do not. */
            assert_int_equal(fl_kernel_select("scalar"), FL_OK);
            assert_string_equal(fl_filter_kernel(f), d.name);
            assert_int_equal(fl_insert_hashes(f, in, 10000, NULL), FL_OK);
            assert_int_equal(fl_kernel_select("auto"), FL_OK);
            assert_int_equal(fl_insert_hashes(f, in + 10000, 10000, NULL), FL_OK);
            memset(got, 0xee, sizeof got);
            assert_int_equal(fl_contains_hashes(f, probe, 4000, got, NULL), FL_OK);
            assert_memory_equal(ref, got, sizeof ref);
            for (size_t j = 0; j < 4000; j++)
                assert_int_equal(fl_contains_hash(f, probe[j]), ref[j]);
            fl_free(f);
        }
        fl_free(scalar_f);
    }
    fl_filter *f;
    assert_int_equal(fl_create_for(FL_BLOCK512, 1000, 0.01, &f), FL_OK);
    assert_int_equal(fl_filter_bind_kernel(f, "scalar"), FL_OK);
    assert_int_equal(fl_filter_bind_kernel(f, "no-such-isa"), FL_ERR_UNKNOWN_KERNEL);
    assert_string_equal(fl_filter_kernel(f), "scalar");
    assert_int_equal(fl_filter_bind_kernel(f, "auto"), FL_OK);
    assert_string_equal(fl_filter_kernel(f), fl_kernel_active());
    assert_int_equal(fl_filter_bind_kernel(f, "scalar"), FL_OK);
    assert_int_equal(fl_filter_bind_kernel(f, NULL), FL_OK);
    assert_string_equal(fl_filter_kernel(f), fl_kernel_active());
    assert_int_equal(fl_filter_bind_kernel(NULL, "scalar"), FL_ERR_INVALID_ARG);
    assert_null(fl_filter_kernel(NULL));
    fl_free(f);
    free(in);
    free(probe);
}

int main(void) {
    setenv("FILTERLAB_KERNEL", "bogus", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(env_override_unknown_name),
        cmocka_unit_test(describe_and_select),
        cmocka_unit_test(bind_per_filter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
