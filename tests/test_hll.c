/*
 * HyperLogLog (src/hll*.c): accuracy against the standard error 1.04/sqrt(m) (Flajolet et
 * al. 2007), sparse and dense agreement, merge = union, Redis's promotion rule, the Redis
 * string codec (round trips, every truncation and single-bit flip, a malformed-string table
 * with exact statuses) and per-sketch kernel binding. Interop with a real redis-server is
 * tests/redis/test_hll_interop.py.
 */
#include "testutil.h"

#include <math.h>
#include <string.h>

#include "hll/hll_internal.h"

static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static fl_hll *new_hll(uint32_t p) {
    fl_hll *h = NULL;
    assert_int_equal(fl_hll_create(p, &h), FL_OK);
    return h;
}

static uint64_t count_of(fl_hll *h) {
    uint64_t c = 0;
    assert_int_equal(fl_hll_count(h, &c), FL_OK);
    return c;
}

/* Keys lo..hi-1 as integer keys. */
static void add_range(fl_hll *h, uint64_t lo, uint64_t hi) {
    uint64_t buf[1024];
    for (uint64_t i = lo; i < hi;) {
        size_t n = 0;
        while (n < 1024 && i < hi) buf[n++] = i++;
        assert_int_equal(fl_hll_add_u64s(h, buf, n, NULL), FL_OK);
    }
}

static void assert_same_registers(const fl_hll *a, const fl_hll *b) {
    fl_hll_info ia, ib;
    assert_int_equal(fl_hll_info_get(a, &ia), FL_OK);
    assert_int_equal(fl_hll_info_get(b, &ib), FL_OK);
    assert_int_equal(ia.registers, ib.registers);
    for (uint32_t i = 0; i < ia.registers; i++) {
        uint8_t ra, rb;
        assert_int_equal(fl_hll_register(a, i, &ra), FL_OK);
        assert_int_equal(fl_hll_register(b, i, &rb), FL_OK);
        if (ra != rb) fail_msg("register %u: %u vs %u", i, ra, rb);
    }
}

static uint8_t *export_of(const fl_hll *h, size_t *len) {
    assert_int_equal(fl_hll_export_redis_size(h, len), FL_OK);
    uint8_t *buf = malloc(*len);
    assert_non_null(buf);
    size_t w = 0;
    assert_int_equal(fl_hll_export_redis(h, buf, *len, &w), FL_OK);
    assert_int_equal(w, *len);
    return buf;
}

static void test_bad_arguments(void **state) {
    (void)state;
    fl_hll *h = NULL;
    assert_int_equal(fl_hll_create(3, &h), FL_ERR_BAD_PRECISION);
    assert_int_equal(fl_hll_create(17, &h), FL_ERR_BAD_PRECISION);
    assert_int_equal(fl_hll_create(0, &h), FL_ERR_BAD_PRECISION);
    assert_int_equal(fl_hll_create(14, NULL), FL_ERR_INVALID_ARG);
    assert_null(h);
    h = new_hll(11);
    assert_int_equal(fl_hll_add_hashes(h, NULL, 3, NULL), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_hll_add_hashes(h, NULL, 0, NULL), FL_OK);
    assert_int_equal(fl_hll_add_bytes(NULL, "a", 1, NULL), FL_ERR_INVALID_ARG);
    size_t n;
    assert_int_equal(fl_hll_export_redis_size(h, &n), FL_ERR_UNSUPPORTED);
    uint8_t buf[16];
    assert_int_equal(fl_hll_export_redis(h, buf, sizeof buf, &n), FL_ERR_UNSUPPORTED);
    fl_hll *g = new_hll(14);
    assert_int_equal(fl_hll_merge(g, h), FL_ERR_INCOMPATIBLE);
    assert_int_equal(fl_hll_export_redis(g, buf, 17, &n), FL_ERR_BUFFER_TOO_SMALL);
    assert_int_equal(fl_hll_bind_kernel(g, "no-such-kernel"), FL_ERR_UNKNOWN_KERNEL);
    assert_int_equal(fl_hll_count(NULL, NULL), FL_ERR_INVALID_ARG);
    assert_true(strlen(fl_strerror(FL_ERR_BAD_PRECISION)) > 0);
    assert_true(strlen(fl_strerror(FL_ERR_HLL_FORMAT)) > 0);
    fl_hll_free(g);
    fl_hll_free(h);
    fl_hll_free(NULL);
}

/* The per-key math: the u64 path hashes the 8 little-endian bytes like the byte path, and
 * the rank is capped at 64 - p + 1 for a hash whose upper bits are all zero. */
static void test_hash_and_rank(void **state) {
    (void)state;
    uint64_t s = 1;
    for (int i = 0; i < 1000; i++) {
        uint64_t k = splitmix(&s);
        unsigned char b[8];
        memcpy(b, &k, 8);
        assert_true(fl_murmur64a(b, 8, FL_HLL_REDIS_SEED) ==
                    fl_murmur64a_u64(k, FL_HLL_REDIS_SEED));
    }
    assert_int_equal(fl_hll_rank(0, 14), 51);
    assert_int_equal(fl_hll_rank(1ull << 14, 14), 1);
    assert_int_equal(fl_hll_rank(1ull << 63, 14), 50);
    assert_int_equal(fl_hll_rank(0, 4), 61);
    assert_int_equal(fl_hll_index(0xffffull, 14), 0x3fff);
    /* Every length's tail path differs from its neighbours'. */
    const char *t = "abcdefghijklmnopq";
    for (size_t len = 0; len < 17; len++)
        assert_true(fl_murmur64a(t, len, 0) != fl_murmur64a(t, len + 1, 0));
}

/* Relative errors over many seeds and cardinalities: at most 1% of trials beyond 3 standard
 * errors (a normal error would put 0.3% there), none beyond 5, and the RMS error within 1.25
 * standard errors. The inputs are fixed, so the test is deterministic. */
static void accuracy_at(uint32_t p, int seeds) {
    const double se = 1.04 / sqrt((double)(1u << p));
    const uint64_t ns[] = {100, 1000, 10000, 100000, 1000000};
    int beyond3 = 0, trials = 0;
    double sq = 0;
    for (size_t c = 0; c < sizeof ns / sizeof ns[0]; c++) {
        for (int seed = 0; seed < seeds; seed++) {
            fl_hll *h = new_hll(p);
            add_range(h, (uint64_t)seed << 40, ((uint64_t)seed << 40) + ns[c]);
            double est = (double)count_of(h);
            double rel = (est - (double)ns[c]) / (double)ns[c];
            if (fabs(rel) > 5 * se) fail_msg("p=%u n=%llu seed %d: error %.4f > 5 SE", p,
                                             (unsigned long long)ns[c], seed, rel);
            beyond3 += fabs(rel) > 3 * se;
            sq += rel * rel;
            trials++;
            fl_hll_free(h);
        }
    }
    double rms = sqrt(sq / trials);
    if (beyond3 > trials / 100) fail_msg("p=%u: %d of %d trials beyond 3 SE", p, beyond3, trials);
    if (rms > 1.25 * se) fail_msg("p=%u: RMS error %.5f > 1.25 SE %.5f", p, rms, se);
}

static void test_accuracy_p14(void **state) {
    (void)state;
    accuracy_at(14, 24);
}

static void test_accuracy_p11(void **state) {
    (void)state;
    accuracy_at(11, 40); /* 000's "1.5 KB for 2% error": SE 2.3% */
}

static void test_accuracy_other_p(void **state) {
    (void)state;
    accuracy_at(8, 40);
    accuracy_at(16, 8);
}

/* A sketch kept sparse and one made dense from the start take the same adds: same registers
 * and the same count after every batch, before and after the sparse one is promoted. */
static void test_sparse_dense_agree(void **state) {
    (void)state;
    fl_hll *s = new_hll(14), *d = new_hll(14);
    assert_int_equal(fl_hll_to_dense(d), FL_OK);
    fl_hll_info in;
    int was_sparse = 0;
    uint64_t lo = 0;
    for (uint64_t step = 1; lo < 40000; step = step * 3 / 2 + 1) {
        add_range(s, lo, lo + step);
        add_range(d, lo, lo + step);
        lo += step;
        assert_int_equal(fl_hll_info_get(s, &in), FL_OK);
        was_sparse |= in.encoding == FL_HLL_SPARSE;
        if (in.encoding == FL_HLL_SPARSE) assert_true(in.redis_bytes <= 3000);
        assert_int_equal(count_of(s), count_of(d));
        uint64_t e1, e2;
        fl_hll_estimate(s, &e1);
        fl_hll_estimate(d, &e2);
        assert_int_equal(e1, e2);
    }
    assert_true(was_sparse);
    assert_int_equal(in.encoding, FL_HLL_DENSE);
    assert_same_registers(s, d);
    fl_hll_free(s);
    fl_hll_free(d);
}

/* Redis's promotion rule: a value above 32 cannot be a VAL opcode; a string that would pass
 * hll-sparse-max-bytes is promoted. */
static void test_promotion(void **state) {
    (void)state;
    fl_hll *h = new_hll(14);
    fl_hll_info in;
    uint64_t r32 = 7 | 1ull << (14 + 31), r33 = 9 | 1ull << (14 + 32); /* ranks 32 and 33 */
    int changed = 0;
    assert_int_equal(fl_hll_add_hashes(h, &r32, 1, &changed), FL_OK);
    assert_int_equal(changed, 1);
    fl_hll_info_get(h, &in);
    assert_int_equal(in.encoding, FL_HLL_SPARSE);
    assert_int_equal(in.max_register, 32);
    assert_int_equal(fl_hll_add_hashes(h, &r32, 1, &changed), FL_OK);
    assert_int_equal(changed, 0);
    assert_int_equal(fl_hll_add_hashes(h, &r33, 1, &changed), FL_OK);
    fl_hll_info_get(h, &in);
    assert_int_equal(in.encoding, FL_HLL_DENSE);
    assert_int_equal(in.max_register, 33);
    assert_int_equal(in.registers_set, 2);
    fl_hll_free(h);

    h = new_hll(14);
    assert_int_equal(fl_hll_set_sparse_max(h, 100), FL_OK);
    uint64_t k = 0;
    for (;; k++) {
        add_range(h, k, k + 1);
        fl_hll_info_get(h, &in);
        if (in.encoding == FL_HLL_DENSE) break;
        assert_true(in.redis_bytes <= 100);
    }
    assert_true(k > 10 && k < 100);
    fl_hll_free(h);
}

/* merge(A, B) has the registers of a sketch of A's and B's keys, whatever the encodings. */
static void test_merge_is_union(void **state) {
    (void)state;
    const uint64_t ns[] = {50, 2000, 50000};
    for (size_t c = 0; c < 3; c++)
        for (int mode = 0; mode < 4; mode++) {
            uint64_t n = ns[c];
            fl_hll *a = new_hll(14), *b = new_hll(14), *u = new_hll(14);
            if (mode & 1) fl_hll_to_dense(a);
            if (mode & 2) fl_hll_to_dense(b);
            add_range(a, 0, n);
            add_range(b, n / 2, n / 2 + n);
            add_range(u, 0, n / 2 + n);
            assert_int_equal(fl_hll_merge(a, b), FL_OK);
            assert_same_registers(a, u);
            assert_int_equal(count_of(a), count_of(u));
            assert_int_equal(fl_hll_merge(a, a), FL_OK);
            assert_same_registers(a, u);
            fl_hll_free(a);
            fl_hll_free(b);
            fl_hll_free(u);
        }
    fl_hll *a = new_hll(9), *b = new_hll(9), *u = new_hll(9);
    add_range(a, 0, 5000);
    add_range(b, 3000, 9000);
    add_range(u, 0, 9000);
    assert_int_equal(fl_hll_merge(a, b), FL_OK);
    assert_same_registers(a, u);
    fl_hll_free(a);
    fl_hll_free(b);
    fl_hll_free(u);
}

/* PFCOUNT's cache: a count is cached, an add that changes a register marks it stale, one
 * that changes nothing keeps it; clear starts over like a new PFADD key. */
static void test_cache_clear_clone(void **state) {
    (void)state;
    fl_hll *h = new_hll(14);
    fl_hll_info in;
    fl_hll_info_get(h, &in);
    assert_false(in.cache_valid);
    add_range(h, 0, 500);
    uint64_t c = count_of(h);
    fl_hll_info_get(h, &in);
    assert_true(in.cache_valid);
    assert_int_equal(in.cached_count, c);
    int changed = 1;
    uint64_t again = 42;
    fl_hll_add_u64s(h, &again, 1, &changed);
    fl_hll_add_u64s(h, &again, 1, &changed);
    assert_int_equal(changed, 0);
    fl_hll *cl = NULL;
    assert_int_equal(fl_hll_clone(h, &cl), FL_OK);
    size_t l1, l2;
    uint8_t *e1 = export_of(h, &l1), *e2 = export_of(cl, &l2);
    assert_same_image_and_free(e1, l1, e2, l2);
    assert_int_equal(fl_hll_clear(h), FL_OK);
    assert_int_equal(count_of(h), 0);
    fl_hll_info_get(h, &in);
    assert_int_equal(in.encoding, FL_HLL_SPARSE);
    assert_int_equal(in.registers_set, 0);
    assert_int_equal(count_of(cl), c);
    fl_hll_free(h);
    fl_hll_free(cl);
}

/* Export, import, export: the same bytes, sparse and dense, cache stale or valid. */
static void test_round_trip(void **state) {
    (void)state;
    const uint64_t ns[] = {0, 1, 30, 700, 3000, 100000};
    for (size_t c = 0; c < 6; c++)
        for (int counted = 0; counted < 2; counted++) {
            fl_hll *h = new_hll(14);
            add_range(h, 0, ns[c]);
            if (counted) count_of(h);
            size_t len;
            uint8_t *e = export_of(h, &len);
            assert_memory_equal(e, "HYLL", 4);
            fl_hll *g = NULL;
            assert_int_equal(fl_hll_import_redis(e, len, &g), FL_OK);
            size_t len2;
            uint8_t *e2 = export_of(g, &len2);
            assert_int_equal(len, len2);
            assert_memory_equal(e, e2, len);
            assert_same_registers(h, g);
            assert_int_equal(count_of(g), count_of(h));
            free(e);
            free(e2);
            fl_hll_free(g);
            fl_hll_free(h);
        }
}

/* Every accepted string exports back to itself; everything else is a clean error. */
static void must_load_or_fail(const uint8_t *buf, size_t len) {
    fl_hll *h = (fl_hll *)1;
    fl_status s = fl_hll_import_redis(buf, len, &h);
    if (s != FL_OK) {
        assert_true(s == FL_ERR_TRUNCATED || s == FL_ERR_TRAILING_DATA ||
                    s == FL_ERR_HLL_FORMAT);
        assert_ptr_equal(h, (fl_hll *)1);
        return;
    }
    size_t n;
    uint8_t *e = export_of(h, &n);
    assert_int_equal(n, len);
    assert_memory_equal(e, buf, len);
    free(e);
    uint64_t c;
    assert_int_equal(fl_hll_estimate(h, &c), FL_OK);
    add_range(h, 0, 100);
    assert_int_equal(fl_hll_count(h, &c), FL_OK);
    fl_hll_free(h);
}

static void test_truncations_and_flips(void **state) {
    (void)state;
    const uint64_t ns[] = {3, 400, 20000};
    for (size_t c = 0; c < 3; c++) {
        fl_hll *h = new_hll(14);
        add_range(h, 0, ns[c]);
        size_t len;
        uint8_t *e = export_of(h, &len);
        for (size_t t = 0; t < len; t++) {
            uint8_t *cut = malloc(t ? t : 1); /* exact size: ASan sees any over-read */
            memcpy(cut, e, t);
            fl_hll *g = (fl_hll *)1;
            fl_status s = fl_hll_import_redis(cut, t, &g);
            if (s == FL_OK) fail_msg("n=%llu: truncation to %zu bytes loaded",
                                     (unsigned long long)ns[c], t);
            free(cut);
        }
        /* Dense strings: flip every bit of the header and of a sample of register bytes
         * (each loads or fails; all register bytes load); sparse: every bit. */
        for (size_t i = 0; i < len; i++) {
            if (len > 100 && i > 64 && i % 97 != 0) continue;
            for (int b = 0; b < 8; b++) {
                uint8_t *f = malloc(len);
                memcpy(f, e, len);
                f[i] ^= (uint8_t)(1u << b);
                must_load_or_fail(f, len);
                free(f);
            }
        }
        uint8_t *longer = malloc(len + 1);
        memcpy(longer, e, len);
        longer[len] = 0x80; /* one more VAL opcode, or a dense string one byte long */
        fl_hll *g;
        assert_int_equal(fl_hll_import_redis(longer, len + 1, &g),
                         e[4] == 0 ? FL_ERR_TRAILING_DATA : FL_ERR_HLL_FORMAT);
        free(longer);
        free(e);
        fl_hll_free(h);
    }
}

static void test_malformed_table(void **state) {
    (void)state;
    static const uint8_t hdr_s[16] = {'H', 'Y', 'L', 'L', 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80};
    struct {
        const char *what;
        const uint8_t *body;
        size_t blen;
        fl_status want;
    } rows[] = {
        {"empty sparse", (const uint8_t *)"\x7f\xff", 2, FL_OK},
        {"no opcodes", (const uint8_t *)"", 0, FL_ERR_TRUNCATED},
        {"XZERO cut after one byte", (const uint8_t *)"\x7f", 1, FL_ERR_TRUNCATED},
        {"XZERO short of 16384", (const uint8_t *)"\x7f\xfe", 2, FL_ERR_TRUNCATED},
        {"XZERO 16384 then ZERO", (const uint8_t *)"\x7f\xff\x00", 3, FL_ERR_HLL_FORMAT},
        {"VAL past the end", (const uint8_t *)"\x7f\xfe\x83", 3, FL_ERR_HLL_FORMAT},
        {"VAL then XZERO 16383", (const uint8_t *)"\x80\x7f\xfe", 3, FL_OK},
        {"VAL 32 x4 then XZERO 16380", (const uint8_t *)"\xff\x7f\xfb", 3, FL_OK},
        {"two XZERO of 8192", (const uint8_t *)"\x5f\xff\x5f\xff", 4, FL_OK},
        {"two XZERO of 8192 and one more", (const uint8_t *)"\x5f\xff\x5f\xff\x80", 5,
         FL_ERR_HLL_FORMAT},
    };
    uint8_t buf[64];
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        memcpy(buf, hdr_s, 16);
        memcpy(buf + 16, rows[i].body, rows[i].blen);
        fl_hll *h = NULL;
        fl_status s = fl_hll_import_redis(buf, 16 + rows[i].blen, &h);
        if (s != rows[i].want)
            fail_msg("%s: got %s, want %s", rows[i].what, fl_strerror(s),
                     fl_strerror(rows[i].want));
        if (s == FL_OK) must_load_or_fail(buf, 16 + rows[i].blen);
        fl_hll_free(h);
    }
    fl_hll *h = NULL;
    memcpy(buf, hdr_s, 16);
    buf[0] = 'h';
    assert_int_equal(fl_hll_import_redis(buf, 18, &h), FL_ERR_HLL_FORMAT);
    assert_int_equal(fl_hll_import_redis("HY", 2, &h), FL_ERR_TRUNCATED);
    assert_int_equal(fl_hll_import_redis("HX", 2, &h), FL_ERR_HLL_FORMAT);
    assert_int_equal(fl_hll_import_redis("", 0, &h), FL_ERR_TRUNCATED);
    assert_int_equal(fl_hll_import_redis("FLTRLAB\x1a", 8, &h), FL_ERR_HLL_FORMAT);
    memcpy(buf, hdr_s, 16);
    buf[4] = 2;
    buf[16] = 0x7f, buf[17] = 0xff;
    assert_int_equal(fl_hll_import_redis(buf, 18, &h), FL_ERR_HLL_FORMAT);
    buf[4] = 0; /* dense, of the wrong length */
    assert_int_equal(fl_hll_import_redis(buf, 18, &h), FL_ERR_TRUNCATED);
    assert_null(h);
    /* A dense string with every register at 63 (above what adds reach) loads and counts,
     * as Redis does: registers above q + 1 = 51 take part in no term of the estimate. */
    uint8_t *d = malloc(FL_HLL_REDIS_DENSE_BYTES);
    memcpy(d, hdr_s, 16);
    d[4] = 0;
    memset(d + 16, 0xff, FL_HLL_REDIS_DENSE_BYTES - 16);
    assert_int_equal(fl_hll_import_redis(d, FL_HLL_REDIS_DENSE_BYTES, &h), FL_OK);
    uint8_t r;
    fl_hll_register(h, 16383, &r);
    assert_int_equal(r, 63);
    fl_hll_free(h);
    free(d);
}

/* Every kernel this CPU runs gives the scalar answers through the API. */
static void test_bound_kernels(void **state) {
    (void)state;
    fl_hll *ref = new_hll(14);
    fl_hll_to_dense(ref);
    assert_int_equal(fl_hll_bind_kernel(ref, "scalar"), FL_OK);
    assert_string_equal(fl_hll_kernel(ref), "scalar");
    add_range(ref, 0, 300000);
    for (size_t i = 0; i < fl_kernel_count(); i++) {
        fl_kernel_desc d;
        fl_kernel_describe(i, &d);
        if (!d.supported) continue;
        fl_hll *h = new_hll(14);
        fl_hll_to_dense(h);
        assert_int_equal(fl_hll_bind_kernel(h, d.name), FL_OK);
        add_range(h, 0, 300000);
        assert_same_registers(ref, h);
        assert_int_equal(count_of(h), count_of(ref));
        fl_hll *o = new_hll(14);
        fl_hll_to_dense(o);
        add_range(o, 200000, 600000);
        assert_int_equal(fl_hll_merge(h, o), FL_OK);
        assert_int_equal(fl_hll_bind_kernel(h, NULL), FL_OK);
        fl_hll_free(o);
        fl_hll_free(h);
    }
    fl_hll_free(ref);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_hash_and_rank),
        cmocka_unit_test(test_accuracy_p14),
        cmocka_unit_test(test_accuracy_p11),
        cmocka_unit_test(test_accuracy_other_p),
        cmocka_unit_test(test_sparse_dense_agree),
        cmocka_unit_test(test_promotion),
        cmocka_unit_test(test_merge_is_union),
        cmocka_unit_test(test_cache_clear_clone),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_truncations_and_flips),
        cmocka_unit_test(test_malformed_table),
        cmocka_unit_test(test_bound_kernels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
