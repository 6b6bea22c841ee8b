/* The variant descriptors (src/core/variants.c) as the public API shows them: every field agrees
 * with what the library does with the variant (geometry limits, unit sizes, sizing, default
 * hash, and each capability bit against the call it promises), and fl_params_for_bytes
 * sizing from a byte budget. */
#include <math.h>
#include <string.h>

#include "testutil.h"

static const fl_variant ALL[] = {FL_CLASSIC, FL_BLOCK512, FL_SPLIT256, FL_REG64, FL_CUCKOO,
                                 FL_COUNTING, FL_COUNTING512};
#define NALL (sizeof ALL / sizeof ALL[0])

static void describe_every_variant(void **state) {
    (void)state;
    fl_variant_info vi;
    for (size_t i = 0; i < NALL; i++) {
        assert_int_equal(fl_variant_describe(ALL[i], &vi), FL_OK);
        assert_int_equal(vi.variant, ALL[i]);
        assert_string_equal(vi.name, fl_variant_name(ALL[i]));
        fl_variant parsed;
        assert_int_equal(fl_variant_parse(vi.name, &parsed), FL_OK);
        assert_int_equal(parsed, ALL[i]);
        assert_non_null(vi.summary);
        assert_non_null(vi.unit_name);
        assert_non_null(vi.k_name);
        assert_true(vi.k_min <= vi.k_max && vi.k_max < 64);
        assert_true((vi.k_set >> vi.k_min & 1) && (vi.k_set >> vi.k_max & 1));
        assert_true((vi.k_set & ~(~0ull >> (63 - vi.k_max))) == 0 &&
                    (vi.k_set & ((1ull << vi.k_min) - 1)) == 0);
        assert_true(vi.k_default >= vi.k_min && vi.k_default <= vi.k_max);
        assert_int_equal(vi.units_max, 0xffffffffull);
        /* Every k the descriptor accepts makes a filter; the ones around it do not. */
        for (uint32_t k = 0; k <= vi.k_max + 1; k++) {
            int valid = k < 64 && (vi.k_set >> k & 1);
            fl_geometry g = {ALL[i], 3, k};
            fl_params p;
            assert_int_equal(fl_params_for_geometry(&g, 10, &p) == FL_OK, valid);
            assert_int_equal(fl_variant_unit_bytes(ALL[i], k) > 0, valid);
            if (valid) assert_int_equal(p.bytes, 3 * fl_variant_unit_bytes(ALL[i], k));
        }
        fl_geometry over = {ALL[i], vi.units_max + 1, vi.k_default};
        fl_params p;
        assert_int_equal(fl_params_for_geometry(&over, 1, &p), FL_ERR_BAD_GEOMETRY);
        /* Sizing stays inside the limits. */
        assert_int_equal(fl_params_for(ALL[i], 100000, 0.01, &p), FL_OK);
        assert_true(p.geometry.k >= vi.k_min && p.geometry.k <= vi.k_max);
        /* The default hash is what fl_create picks. */
        fl_filter *f = NULL;
        assert_int_equal(fl_create_for(ALL[i], 1000, 0.01, &f), FL_OK);
        fl_info info;
        assert_int_equal(fl_get_info(f, &info), FL_OK);
        assert_int_equal(info.hash, vi.default_hash);
        fl_free(f);
        /* Tables of slots say how full sizing fills them; bit arrays have no such limit. */
        assert_int_equal(vi.unit_slots > 0, (vi.caps & FL_CAP_MAY_FILL) != 0);
        if (vi.unit_slots) assert_true(vi.max_load > 0.5 && vi.max_load < 1.0);
    }
    assert_int_equal(fl_variant_describe((fl_variant)0, &vi), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_variant_describe((fl_variant)99, &vi), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_variant_describe(FL_CLASSIC, NULL), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_variant_unit_bytes((fl_variant)99, 8), 0);
}

/* Each capability bit is exactly what the calls do. */
static void capabilities_match_calls(void **state) {
    (void)state;
    uint64_t *h = test_hashes(64, 7);
    for (size_t i = 0; i < NALL; i++) {
        fl_variant_info vi;
        assert_int_equal(fl_variant_describe(ALL[i], &vi), FL_OK);
        fl_filter *a = NULL, *b = NULL;
        assert_int_equal(fl_create_for(ALL[i], 1000, 0.01, &a), FL_OK);
        assert_int_equal(fl_create_for(ALL[i], 1000, 0.01, &b), FL_OK);
        assert_int_equal(fl_insert_hashes(a, h, 64, NULL), FL_OK);

        fl_status del = fl_delete_hash(a, h[0]);
        assert_int_equal(del == FL_ERR_UNSUPPORTED, !(vi.caps & FL_CAP_DELETE));
        if (vi.caps & FL_CAP_DELETE) assert_int_equal(del, FL_OK);

        fl_status uni = fl_union(b, a);
        assert_int_equal(uni == FL_ERR_UNSUPPORTED, !(vi.caps & FL_CAP_UNION));
        if (vi.caps & FL_CAP_UNION) assert_int_equal(uni, FL_OK);

        fl_status at = fl_insert_hashes_atomic(b, h, 64);
        assert_int_equal(at == FL_ERR_UNSUPPORTED, !(vi.caps & FL_CAP_ATOMIC_INSERT));

        fl_info info;
        assert_int_equal(fl_get_info(a, &info), FL_OK);
        if (vi.caps & FL_CAP_FILL_ESTIMATE)
            assert_true(info.keys_from_fill > 32 && info.keys_from_fill < 128);
        else
            assert_true(info.keys_from_fill == 0.0);
        /* Arrays of counters count saturated ones (63 keys with k counters each fill no
         * 4-bit counter); nothing else has any. Their memory is counter_bits per cell. */
        assert_int_equal(info.saturated, 0);
        if (vi.counter_bits) {
            assert_int_equal(vi.counter_bits, 4);
            uint64_t cells = 8 * (uint64_t)info.bytes / vi.counter_bits;
            assert_true(info.bits_set > 0 && info.bits_set <= 63 * (uint64_t)info.geometry.k);
            assert_true(fabs(info.fill - (double)info.bits_set / (double)cells) < 1e-12);
        }

        size_t need = fl_parquet_export_size(a, 1);
        assert_int_equal(need > 0, (vi.caps & FL_CAP_PARQUET) != 0);
        fl_free(a);
        fl_free(b);
    }
    /* A full table refuses keys: the only variants that may are the ones that say so. */
    fl_filter *tiny = test_filter(FL_CUCKOO, 1, 8);
    uint64_t *many = test_hashes(100, 8);
    size_t done = 0;
    assert_int_equal(fl_insert_hashes(tiny, many, 100, &done), FL_ERR_FULL);
    assert_true(done < 100);
    fl_free(tiny);
    free(many);
    free(h);
}

/* fl_params_for_bytes: the budget is respected, k is the best one the model knows, and a
 * table that cannot hold the keys says so. */
static void params_for_bytes(void **state) {
    (void)state;
    for (size_t i = 0; i < NALL; i++) {
        fl_variant_info vi;
        assert_int_equal(fl_variant_describe(ALL[i], &vi), FL_OK);
        const uint64_t budget = 1u << 20, n = 500000;
        fl_params p;
        assert_int_equal(fl_params_for_bytes(ALL[i], n, budget, &p), FL_OK);
        assert_true(p.bytes <= budget);
        assert_true(p.bytes + fl_variant_unit_bytes(ALL[i], p.geometry.k) > budget);
        if (!vi.unit_slots) {
            for (uint32_t k = vi.k_min; k <= vi.k_max; k++) {
                if (!(vi.k_set >> k & 1)) continue;
                fl_geometry g = {ALL[i], budget / fl_variant_unit_bytes(ALL[i], k), k};
                assert_true(fl_predict_fpr(&g, n) >= p.predicted_fpr);
            }
        } else {
            assert_true((double)n <= vi.max_load * vi.unit_slots * (double)p.geometry.units);
        }
        assert_int_equal(fl_params_for_bytes(ALL[i], 0, budget, &p), FL_ERR_BAD_N);
        assert_int_equal(fl_params_for_bytes(ALL[i], n, 0, &p), FL_ERR_BAD_GEOMETRY);
        assert_int_equal(fl_params_for_bytes(ALL[i], n, UINT64_MAX, &p), FL_ERR_TOO_LARGE);
    }
    fl_params p;
    assert_int_equal(fl_params_for_bytes(FL_CUCKOO, 1000000, 4096, &p), FL_ERR_FULL);
    assert_int_equal(fl_params_for_bytes((fl_variant)42, 10, 10, &p), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_params_for_bytes(FL_CLASSIC, 10, 10, NULL), FL_ERR_INVALID_ARG);
    /* Less than one unit still buys one. */
    assert_int_equal(fl_params_for_bytes(FL_BLOCK512, 10, 1, &p), FL_OK);
    assert_int_equal(p.geometry.units, 1);
}

/* The words the CLI prints for a geometry, and snprintf's contract on short buffers. */
static void geometry_words(void **state) {
    (void)state;
    char buf[96];
    fl_geometry g = {FL_REG64, 189668, 5};
    size_t len = fl_geometry_describe(&g, buf, sizeof buf);
    assert_int_equal(len, strlen(buf));
    assert_string_equal(buf, "189668 words of 64 bits, k = 5 per word");
    g = (fl_geometry){FL_CUCKOO, 265958, 16};
    fl_geometry_describe(&g, buf, sizeof buf);
    assert_string_equal(buf, "265958 buckets of 4 slots, 16-bit fingerprints");
    g = (fl_geometry){FL_BLOCK512, 19372, 6};
    size_t need = fl_geometry_describe(&g, buf, 8);
    assert_int_equal(need, strlen("19372 blocks of 64 bytes, k = 6"));
    assert_string_equal(buf, "19372 b");
    assert_int_equal(fl_geometry_describe(&g, NULL, 0), need);
    assert_int_equal(fl_geometry_describe(NULL, buf, sizeof buf), 0);
    g.variant = (fl_variant)77;
    fl_geometry_describe(&g, buf, sizeof buf);
    assert_string_equal(buf, "19372 units, k = 6");
}

/* fl_variant_k_text: a range in words for a k of any value in one, the values for a few. */
static void k_text(void **state) {
    (void)state;
    char buf[64];
    assert_int_equal(fl_variant_k_text(FL_CUCKOO, buf, sizeof buf), FL_OK);
    assert_string_equal(buf, "8, 11, 12, 13 or 16");
    assert_int_equal(fl_variant_k_text(FL_SPLIT256, buf, sizeof buf), FL_OK);
    assert_string_equal(buf, "8");
    fl_variant_info vi;
    assert_int_equal(fl_variant_describe(FL_CLASSIC, &vi), FL_OK);
    char want[64];
    snprintf(want, sizeof want, "%u to %u", vi.k_min, vi.k_max);
    assert_int_equal(fl_variant_k_text(FL_CLASSIC, buf, sizeof buf), FL_OK);
    assert_string_equal(buf, want);
    /* Too small a buffer: cut, still a string. */
    char small[5];
    assert_int_equal(fl_variant_k_text(FL_CUCKOO, small, sizeof small), FL_OK);
    assert_string_equal(small, "8, 1");
    assert_int_equal(fl_variant_k_text((fl_variant)999, buf, sizeof buf), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_variant_k_text(FL_CUCKOO, NULL, 8), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_variant_k_text(FL_CUCKOO, buf, 0), FL_ERR_INVALID_ARG);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(describe_every_variant),
        cmocka_unit_test(capabilities_match_calls),
        cmocka_unit_test(params_for_bytes),
        cmocka_unit_test(geometry_words),
        cmocka_unit_test(k_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
