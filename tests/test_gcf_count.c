/*
 * fl_gcf_count_hash/_bytes/_u64 (src/gcf/count_gcf.c): the count equals a slot-by-slot
 * count of the key's two buckets (the header's slot rule, written out here independently of
 * the SWAR test) for inserted and absent keys at every generation of a filter grown through
 * all its doublings; it never falls below the copies inserted and not deleted, and each
 * delete takes exactly one away; the three entry points agree; bad arguments are refused
 * with *count = 0.
 */
#include "testutil.h"

#include "gcf/gcf_internal.h"

/* The header's rule for one slot, written out from its description: the tag equal, and the
 * slot's L extension bits (above the sentinel, the high byte's lowest set bit, L = 7 - its
 * position) equal the key's first L of the 7 bits below its stripe. */
static uint32_t lane_matches(uint32_t s, uint64_t h, uint32_t kbits) {
    uint32_t f = s >> 8;
    if (f == 0) return 0;
    uint32_t len = 7u - (uint32_t)__builtin_ctz(f);
    uint32_t q7 = (uint32_t)(h >> (57 - kbits)) & 0x7fu;
    uint32_t stored = len ? f >> (8 - len) : 0, wanted = len ? q7 >> (7 - len) : 0;
    return (s & 0xffu) == fl_gcf_tag(h) && stored == wanted;
}

/* The key's two buckets from the header's description: stripe = the top K bits of h, column
 * r = (h bits [8, 24) * c) >> 16, i1 = r * 2^K + the stripe rotated left by W within K bits,
 * i2 = i1 XOR a(tag). */
static uint32_t brute_count(const fl_gcf *g, uint64_t h) {
    uint64_t K = g->kbits, W = g->wbits, stripes = 1ull << K;
    uint64_t st = h >> (64 - K), r = (((h >> 8) & 0xffffu) * g->columns) >> 16;
    uint64_t rot = ((st << W) | (st >> (K - W))) & (stripes - 1);
    uint64_t a = ((((uint32_t)fl_gcf_tag(h) * 0x9e3779b1u) >> (32 - W)) | 1u);
    uint64_t b[2] = {r * stripes + rot, r * stripes + (rot ^ a)};
    uint32_t n = 0;
    for (int j = 0; j < 2; j++)
        for (uint32_t s = 0; s < 4; s++)
            n += lane_matches((uint32_t)(g->table[b[j]] >> (16 * s)) & 0xffffu, h, g->kbits);
    return n;
}

static void test_count_matches_slots_every_generation(void **state) {
    (void)state;
    fl_gcf *g;
    assert_int_equal(fl_gcf_create(2000, 7, &g), FL_OK);
    enum { ROUNDS = 8, PER = 4000, ABSENT = 20000 };
    uint64_t *absent = test_hashes(ABSENT, 99);
    uint64_t *keys[ROUNDS];
    uint64_t zero_absent = 0, total_absent = 0;
    for (int round = 0; round < ROUNDS; round++) {
        keys[round] = test_hashes((size_t)PER << round, (uint64_t)round + 1);
        size_t n = (size_t)PER << round;
        /* every third key twice: duplicates are stored as copies */
        for (size_t i = 0; i < n; i++) {
            fl_status st = fl_gcf_insert_hash(g, keys[round][i]);
            if (st == FL_ERR_FULL) break; /* the growth limit: checked below as it stands */
            assert_int_equal(st, FL_OK);
            if (i % 3 == 0 && fl_gcf_insert_hash(g, keys[round][i]) != FL_OK) break;
        }
        for (int r = 0; r <= round; r++) {
            size_t m = (size_t)PER << r;
            for (size_t i = 0; i < m; i += 7) {
                uint32_t c;
                assert_int_equal(fl_gcf_count_hash(g, keys[r][i], &c), FL_OK);
                assert_int_equal(c, brute_count(g, keys[r][i]));
            }
        }
        for (size_t i = 0; i < ABSENT; i++) {
            uint32_t c;
            assert_int_equal(fl_gcf_count_hash(g, absent[i], &c), FL_OK);
            assert_int_equal(c, brute_count(g, absent[i]));
            total_absent++;
            zero_absent += c == 0;
        }
    }
    /* absent keys mostly count 0 (the FPR is well under 1%): the test is not vacuous */
    assert_true(zero_absent > total_absent * 99 / 100);
    for (int round = 0; round < ROUNDS; round++) free(keys[round]);
    free(absent);
    fl_gcf_free(g);
}

static void test_copies_and_deletes(void **state) {
    (void)state;
    fl_gcf *g;
    assert_int_equal(fl_gcf_create(1000, 3, &g), FL_OK);
    uint64_t *h = test_hashes(600, 5);
    for (size_t i = 0; i < 600; i++) {
        uint32_t copies = 1 + (uint32_t)(i % 3);
        for (uint32_t k = 0; k < copies; k++) assert_int_equal(fl_gcf_insert_hash(g, h[i]), FL_OK);
    }
    /* a doubling in between: counts survive the split */
    for (uint64_t i = 0; i < 3000; i++) assert_int_equal(fl_gcf_insert_u64(g, i << 20), FL_OK);
    fl_gcf_info in;
    assert_int_equal(fl_gcf_info_get(g, &in), FL_OK);
    assert_true(in.doublings >= 1);
    for (size_t i = 0; i < 600; i++) {
        uint32_t copies = 1 + (uint32_t)(i % 3), c, before;
        assert_int_equal(fl_gcf_count_hash(g, h[i], &before), FL_OK);
        assert_true(before >= copies);
        for (uint32_t k = 0; k < copies; k++) {
            assert_int_equal(fl_gcf_delete_hash(g, h[i]), FL_OK);
            assert_int_equal(fl_gcf_count_hash(g, h[i], &c), FL_OK);
            assert_int_equal(c, before - k - 1);
        }
    }
    free(h);
    fl_gcf_free(g);
}

static void test_entry_points_and_bad_arguments(void **state) {
    (void)state;
    fl_gcf *g;
    assert_int_equal(fl_gcf_create(100, 11, &g), FL_OK);
    assert_int_equal(fl_gcf_insert_bytes(g, "apple", 5), FL_OK);
    assert_int_equal(fl_gcf_insert_bytes(g, "apple", 5), FL_OK);
    assert_int_equal(fl_gcf_insert_u64(g, 42), FL_OK);
    uint32_t a, b, c;
    assert_int_equal(fl_gcf_count_bytes(g, "apple", 5, &a), FL_OK);
    assert_int_equal(fl_gcf_count_hash(g, fl_gcf_hash_bytes(g, "apple", 5), &b), FL_OK);
    assert_int_equal(a, 2);
    assert_int_equal(a, b);
    assert_int_equal(fl_gcf_count_u64(g, 42, &a), FL_OK);
    assert_int_equal(fl_gcf_count_hash(g, fl_gcf_hash_u64(g, 42), &b), FL_OK);
    assert_int_equal(a, 1);
    assert_int_equal(a, b);
    assert_int_equal(fl_gcf_count_bytes(g, "", 0, &c), FL_OK); /* the empty key is a key */
    assert_int_equal(c, 0);
    c = 9;
    assert_int_equal(fl_gcf_count_hash(NULL, 1, &c), FL_ERR_INVALID_ARG);
    assert_int_equal(c, 0);
    c = 9;
    assert_int_equal(fl_gcf_count_bytes(g, NULL, 3, &c), FL_ERR_INVALID_ARG);
    assert_int_equal(c, 0);
    c = 9;
    assert_int_equal(fl_gcf_count_u64(NULL, 42, &c), FL_ERR_INVALID_ARG);
    assert_int_equal(c, 0);
    assert_int_equal(fl_gcf_count_hash(g, 1, NULL), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_gcf_count_bytes(g, "a", 1, NULL), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_gcf_count_u64(g, 1, NULL), FL_ERR_INVALID_ARG);
    fl_gcf_free(g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_count_matches_slots_every_generation),
        cmocka_unit_test(test_copies_and_deletes),
        cmocka_unit_test(test_entry_points_and_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
