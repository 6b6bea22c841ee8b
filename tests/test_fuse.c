/*
 * Static structures (src/static/fuse.c, src/static/codec_fuse.c): binary fuse filters of every shape and
 * Bloomier filters. No false negative for any built key over many seeds and sizes; the
 * measured FPR against 2^-bits within a binomial margin; the shape's bits per key; Bloomier
 * values returned exactly; duplicates (also with conflicting values); the empty set; absurd
 * sizes refused before any allocation; the retry and FL_ERR_BUILD_FAILED paths (forced); the
 * batch calls equal the one-key ones under every kernel; files: round trips, every truncation
 * and every bit flip refused, wrong kinds both ways.
 */
#include "testutil.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

#include <xxhash.h>

#include "format/container.h"
#include "static/fuse_internal.h"
/* reseal_container: the fuzz targets' checksum fixer; its other helper is unused here */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "fuzz_reseal.h"
#pragma GCC diagnostic pop

static uint64_t *random_keys(size_t n, uint64_t seed) {
    uint64_t *k = malloc((n ? n : 1) * 8);
    assert_non_null(k);
    for (size_t i = 0; i < n; i++) k[i] = fl_hash_u64(i, seed ^ 0xabcdef);
    return k;
}

static const uint32_t shapes[4][2] = {{3, 8}, {3, 16}, {4, 8}, {4, 16}};

static fl_fuse *build_fuse(uint32_t arity, uint32_t bits, const uint64_t *keys, size_t n,
                           uint64_t seed) {
    fl_fuse_config cfg = {.arity = arity, .fingerprint_bits = bits, .seed = seed};
    fl_fuse *f = NULL;
    assert_int_equal(fl_fuse_build_u64(&cfg, keys, n, &f), FL_OK);
    assert_non_null(f);
    return f;
}

/* Every key found, one at a time, inline, and in batches, for sizes from 1 to 200K and many
 * seeds. */
static void test_no_false_negatives(void **state) {
    (void)state;
    const size_t sizes[] = {1, 2, 3, 7, 10, 100, 1000, 4097, 50000, 200000};
    for (int sh = 0; sh < 4; sh++) {
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
            size_t n = sizes[si];
            int seeds = n <= 1000 ? 20 : 3;
            for (int seed = 0; seed < seeds; seed++) {
                uint64_t *keys = random_keys(n, (uint64_t)seed * 1000 + n);
                fl_fuse *f = build_fuse(shapes[sh][0], shapes[sh][1], keys, n, (uint64_t)seed);
                uint8_t *out = malloc(n);
                assert_non_null(out);
                assert_int_equal(fl_fuse_contains_u64s(f, keys, n, out), n);
                fl_fuse_view v = fl_fuse_view_of(f);
                for (size_t i = 0; i < n; i++) {
                    assert_int_equal(out[i], 1);
                    assert_int_equal(fl_fuse_contains_u64(f, keys[i]), 1);
                    assert_int_equal(fl_fuse_lookup(&v, keys[i]), 1);
                }
                fl_static_info info;
                assert_int_equal(fl_fuse_info(f, &info), FL_OK);
                assert_int_equal(info.keys, n);
                assert_int_equal(info.arity, shapes[sh][0]);
                assert_int_equal(info.cell_bits, shapes[sh][1]);
                assert_true(info.tries >= 1);
                assert_true(info.build_bytes > 0);
                free(out);
                free(keys);
                fl_fuse_free(f);
            }
        }
    }
}

/* FPR: non-keys (disjoint stream) match with probability 2^-bits; the bound is 6 standard
 * deviations of the binomial count plus 10% for the cells' small bias. Bits per key at 1M
 * keys: the size factors (1.125 3-wise, 1.075 4-wise) times the width, within 1%. */
static void test_fpr_and_space(void **state) {
    (void)state;
    const size_t n = 1000000, probes = 4000000;
    uint64_t *keys = random_keys(n, 1);
    uint64_t *other = malloc(probes * 8);
    uint8_t *out = malloc(probes);
    assert_non_null(other);
    assert_non_null(out);
    for (size_t i = 0; i < probes; i++) other[i] = fl_hash_u64(i, 0x0dd) | 1ull << 63;
    for (size_t i = 0; i < n; i++) keys[i] &= ~(1ull << 63); /* disjoint from other */
    for (int sh = 0; sh < 4; sh++) {
        fl_fuse *f = build_fuse(shapes[sh][0], shapes[sh][1], keys, n, 7);
        size_t hits = fl_fuse_contains_u64s(f, other, probes, out);
        double p = ldexp(1.0, -(int)shapes[sh][1]);
        double expect = p * probes, sd = sqrt(probes * p * (1 - p));
        print_message("fuse%u_%u: %zu false positives of %zu (expected %.1f)\n", shapes[sh][0],
                      shapes[sh][1], hits, probes, expect);
        assert_true(fabs((double)hits - expect) <= 6 * sd + 0.1 * expect);
        fl_static_info info;
        assert_int_equal(fl_fuse_info(f, &info), FL_OK);
        double factor = shapes[sh][0] == 3 ? 1.125 : 1.075;
        assert_true(fabs(info.bits_per_key / (factor * shapes[sh][1]) - 1) < 0.01);
        assert_true(info.fpr == p);
        fl_fuse_free(f);
    }
    free(keys);
    free(other);
    free(out);
}

/* Duplicates: stored once, counted, all found; a set of one key repeated. */
static void test_duplicates(void **state) {
    (void)state;
    const size_t n = 30000;
    uint64_t *keys = random_keys(n, 5);
    for (size_t i = n / 2; i < n; i++) keys[i] = keys[i - n / 2]; /* each key twice */
    for (int sh = 0; sh < 4; sh++) {
        fl_fuse *f = build_fuse(shapes[sh][0], shapes[sh][1], keys, n, 3);
        fl_static_info info;
        assert_int_equal(fl_fuse_info(f, &info), FL_OK);
        assert_int_equal(info.keys, n / 2);
        assert_int_equal(info.duplicates, n / 2);
        for (size_t i = 0; i < n; i++) assert_int_equal(fl_fuse_contains_u64(f, keys[i]), 1);
        fl_fuse_free(f);
    }
    for (size_t i = 0; i < 1000; i++) keys[i] = 42; /* 1000 copies overflow a cell's count */
    fl_fuse *f = build_fuse(3, 8, keys, 1000, 0);
    fl_static_info info;
    assert_int_equal(fl_fuse_info(f, &info), FL_OK);
    assert_int_equal(info.keys, 1);
    assert_int_equal(fl_fuse_contains_u64(f, 42), 1);
    fl_fuse_free(f);
    free(keys);
}

static void test_empty_and_bad_args(void **state) {
    (void)state;
    fl_fuse_config cfg = {0};
    fl_fuse *f = NULL;
    assert_int_equal(fl_fuse_build_u64(&cfg, NULL, 0, &f), FL_OK);
    assert_int_equal(fl_fuse_contains_u64(f, 1), 0);
    uint64_t k[3] = {1, 2, 3};
    uint8_t out[3] = {9, 9, 9};
    assert_int_equal(fl_fuse_contains_u64s(f, k, 3, out), 0);
    assert_int_equal(out[0] | out[1] | out[2], 0);
    fl_fuse_view v = fl_fuse_view_of(f);
    assert_int_equal(fl_fuse_lookup(&v, 1), 0);
    fl_static_info info;
    assert_int_equal(fl_fuse_info(f, &info), FL_OK);
    assert_int_equal(info.keys, 0);
    assert_int_equal(info.bytes, 0);
    fl_fuse_free(f);

    cfg.arity = 5;
    assert_int_equal(fl_fuse_build_u64(&cfg, k, 3, &f), FL_ERR_INVALID_ARG);
    assert_null(f);
    cfg.arity = 3;
    cfg.fingerprint_bits = 12;
    assert_int_equal(fl_fuse_build_u64(&cfg, k, 3, &f), FL_ERR_INVALID_ARG);
    cfg.fingerprint_bits = 8;
    assert_int_equal(fl_fuse_build_u64(&cfg, NULL, 3, &f), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_fuse_build_u64(NULL, k, 3, &f), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_fuse_build_u64(&cfg, k, 3, NULL), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_fuse_contains_u64(NULL, 1), 0);
    assert_int_equal(fl_fuse_info(NULL, &info), FL_ERR_INVALID_ARG);
}

/* Absurd sizes are refused from n alone, before the keys are read or anything allocated
 * (the key pointer here has one element). max_bytes bounds the filter and its scratch. */
static void test_absurd_sizes(void **state) {
    (void)state;
    uint64_t one = 1;
    fl_fuse_config cfg = {0};
    fl_fuse *f = NULL;
    assert_int_equal(fl_fuse_build_u64(&cfg, &one, (size_t)FL_FUSE_KEYS_MAX + 1, &f),
                     FL_ERR_TOO_LARGE);
    assert_int_equal(fl_fuse_build_u64(&cfg, &one, SIZE_MAX, &f), FL_ERR_TOO_LARGE);
    /* at the key limit, a cap refuses the 3.6 GB of cells before allocating them */
    cfg.max_bytes = (size_t)1 << 30;
    assert_int_equal(fl_fuse_build_u64(&cfg, &one, (size_t)FL_FUSE_KEYS_MAX, &f),
                     FL_ERR_TOO_LARGE);
    cfg.max_bytes = 1 << 20;
    assert_int_equal(fl_fuse_build_u64(&cfg, &one, 100000000, &f), FL_ERR_TOO_LARGE);
    assert_null(f);
    /* room for the filter but not the construction's scratch */
    uint64_t *keys = random_keys(10000, 9);
    cfg.max_bytes = 12000;
    assert_int_equal(fl_fuse_build_u64(&cfg, keys, 10000, &f), FL_ERR_TOO_LARGE);
    cfg.max_bytes = 1 << 20;
    assert_int_equal(fl_fuse_build_u64(&cfg, keys, 10000, &f), FL_OK);
    fl_fuse_free(f);
    free(keys);
    fl_bloomier_config bc = {.value_bits = 8};
    fl_bloomier *b = NULL;
    uint16_t val = 0;
    assert_int_equal(fl_bloomier_build_u64(&bc, &one, &val, SIZE_MAX, &b), FL_ERR_TOO_LARGE);
}

/* The retry path: the first tries forced to fail, the build succeeds on a later seed; with
 * fewer tries allowed than forced failures, FL_ERR_BUILD_FAILED and nothing returned. */
static void test_build_failure(void **state) {
    (void)state;
    uint64_t *keys = random_keys(5000, 11);
    fl_fuse_config cfg = {.seed = 100, .max_tries = 10};
    fl_fuse *f = NULL;
    fl_fuse_forced_failures = 4;
    assert_int_equal(fl_fuse_build_u64(&cfg, keys, 5000, &f), FL_OK);
    fl_static_info info;
    assert_int_equal(fl_fuse_info(f, &info), FL_OK);
    assert_int_equal(info.tries, 5);
    assert_int_equal(info.seed, 104);
    for (size_t i = 0; i < 5000; i++) assert_int_equal(fl_fuse_contains_u64(f, keys[i]), 1);
    fl_fuse_free(f);
    cfg.max_tries = 4;
    assert_int_equal(fl_fuse_build_u64(&cfg, keys, 5000, &f), FL_ERR_BUILD_FAILED);
    assert_null(f);
    uint16_t *vals = calloc(5000, 2);
    fl_bloomier_config bc = {.value_bits = 4, .max_tries = 3};
    fl_bloomier *b = NULL;
    assert_int_equal(fl_bloomier_build_u64(&bc, keys, vals, 5000, &b), FL_ERR_BUILD_FAILED);
    assert_null(b);
    fl_fuse_forced_failures = 0;
    assert_non_null(strstr(fl_strerror(FL_ERR_BUILD_FAILED), "construction failed"));
    free(vals);
    free(keys);
}

/* Bloomier: every stored key gets its value (batch, one key, inline), for every shape and
 * value width; non-keys are absent at about 2^-(cell - value bits). */
static void test_bloomier(void **state) {
    (void)state;
    const size_t n = 100000, probes = 1000000;
    uint64_t *keys = random_keys(n, 21);
    uint16_t *vals = malloc(n * 2), *got = malloc(probes * 2);
    uint8_t *found = malloc(probes);
    uint64_t *other = malloc(probes * 8);
    for (size_t i = 0; i < n; i++) keys[i] &= ~(1ull << 63);
    for (size_t i = 0; i < probes; i++) other[i] = fl_hash_u64(i, 0x77) | 1ull << 63;
    const uint32_t cfgs[][3] = {{3, 8, 16}, {4, 8, 16}, {3, 16, 32}, {4, 16, 32}, {3, 1, 16},
                                {3, 12, 16}, {4, 16, 16}, {3, 4, 32}};
    for (size_t c = 0; c < sizeof cfgs / sizeof *cfgs; c++) {
        uint32_t vbits = cfgs[c][1];
        for (size_t i = 0; i < n; i++) vals[i] = (uint16_t)(fl_hash_u64(i, 3) & ((1u << vbits) - 1));
        fl_bloomier_config bc = {.arity = cfgs[c][0], .value_bits = vbits, .cell_bits = cfgs[c][2],
                                 .seed = c};
        fl_bloomier *b = NULL;
        assert_int_equal(fl_bloomier_build_u64(&bc, keys, vals, n, &b), FL_OK);
        assert_int_equal(fl_bloomier_get_u64s(b, keys, n, got, found), n);
        fl_fuse_view v = fl_bloomier_view_of(b);
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(found[i], 1);
            assert_int_equal(got[i], vals[i]);
            uint16_t one = 0xffff;
            assert_int_equal(fl_bloomier_get_u64(b, keys[i], &one), 1);
            assert_int_equal(one, vals[i]);
            assert_int_equal(fl_bloomier_lookup(&v, keys[i], &one), 1);
            assert_int_equal(one, vals[i]);
        }
        size_t hits = fl_bloomier_get_u64s(b, other, probes, got, found);
        uint32_t check = cfgs[c][2] - vbits;
        double p = ldexp(1.0, -(int)check);
        double expect = p * probes, sd = sqrt(probes * p * (1 - p));
        assert_true(fabs((double)hits - expect) <= 6 * sd + 0.1 * expect);
        for (size_t i = 0; i < probes; i++)
            if (!found[i]) assert_int_equal(got[i], 0);
        fl_bloomier_free(b);
    }
    /* duplicates: same value tolerated, another value refused */
    for (size_t i = n / 2; i < n; i++) {
        keys[i] = keys[i - n / 2];
        vals[i] = vals[i - n / 2] & 0xff;
        vals[i - n / 2] &= 0xff;
    }
    fl_bloomier_config bc = {.value_bits = 8};
    fl_bloomier *b = NULL;
    assert_int_equal(fl_bloomier_build_u64(&bc, keys, vals, n, &b), FL_OK);
    fl_static_info info;
    assert_int_equal(fl_bloomier_info(b, &info), FL_OK);
    assert_int_equal(info.keys, n / 2);
    assert_int_equal(info.duplicates, n / 2);
    for (size_t i = 0; i < n; i++) {
        uint16_t one;
        assert_int_equal(fl_bloomier_get_u64(b, keys[i], &one), 1);
        assert_int_equal(one, vals[i]);
    }
    fl_bloomier_free(b);
    vals[n - 1] ^= 1;
    assert_int_equal(fl_bloomier_build_u64(&bc, keys, vals, n, &b), FL_ERR_DUPLICATE_KEY);
    assert_null(b);
    /* values too wide, bad widths */
    vals[0] = 0x100;
    assert_int_equal(fl_bloomier_build_u64(&bc, keys, vals, n, &b), FL_ERR_INVALID_ARG);
    bc.value_bits = 17;
    assert_int_equal(fl_bloomier_build_u64(&bc, keys, vals, 1, &b), FL_ERR_INVALID_ARG);
    bc.value_bits = 8;
    bc.cell_bits = 8;
    assert_int_equal(fl_bloomier_build_u64(&bc, keys, vals, 1, &b), FL_ERR_INVALID_ARG);
    /* empty */
    bc.cell_bits = 0;
    assert_int_equal(fl_bloomier_build_u64(&bc, NULL, NULL, 0, &b), FL_OK);
    uint16_t one = 7;
    assert_int_equal(fl_bloomier_get_u64(b, 1, &one), 0);
    assert_int_equal(one, 0);
    fl_bloomier_free(b);
    free(keys);
    free(vals);
    free(got);
    free(found);
    free(other);
}

/* Batch = one-key answers under every kernel this CPU runs (checkkernels compares the
 * kernels themselves on adversarial inputs; this checks the routing of the API). */
static void test_kernels_agree(void **state) {
    (void)state;
    const size_t n = 20000;
    uint64_t *keys = random_keys(n, 31);
    uint64_t *probe = random_keys(2 * n, 32);
    memcpy(probe, keys, n * 8);
    uint8_t *out = malloc(2 * n);
    const char *names[] = {"scalar", "avx2", "avx512", "neon"};
    for (int sh = 0; sh < 4; sh++) {
        fl_fuse *f = build_fuse(shapes[sh][0], shapes[sh][1], keys, n, 1);
        for (int k = 0; k < 4; k++) {
            if (fl_fuse_bind_kernel(f, names[k]) != FL_OK) continue;
            assert_string_equal(fl_fuse_kernel(f), names[k]);
            size_t hits = fl_fuse_contains_u64s(f, probe, 2 * n, out);
            size_t want = 0;
            for (size_t i = 0; i < 2 * n; i++) {
                assert_int_equal(out[i], fl_fuse_contains_u64(f, probe[i]));
                want += out[i];
            }
            assert_int_equal(hits, want);
        }
        fl_fuse_free(f);
    }
    free(keys);
    free(probe);
    free(out);
}

/* ---- files ---------------------------------------------------------------------------- */

static uint8_t *save_fuse(const fl_fuse *f, size_t *len) {
    *len = fl_fuse_serialized_size(f);
    uint8_t *buf = malloc(*len);
    size_t written = 0;
    assert_int_equal(fl_fuse_save_mem(f, buf, *len, &written), FL_OK);
    assert_int_equal(written, *len);
    return buf;
}

static void test_io_round_trip(void **state) {
    (void)state;
    const size_t n = 3000;
    uint64_t *keys = random_keys(n, 41);
    for (int sh = 0; sh < 4; sh++) {
        fl_fuse *f = build_fuse(shapes[sh][0], shapes[sh][1], keys, n, 5);
        size_t len;
        uint8_t *buf = save_fuse(f, &len);
        uint32_t kind = 0;
        assert_int_equal(fl_file_kind_mem(buf, len, &kind), FL_OK);
        assert_int_equal(kind, FL_FILE_BINARY_FUSE);
        fl_fuse *g = NULL;
        assert_int_equal(fl_fuse_load_mem(buf, len, 0, &g), FL_OK);
        fl_static_info a, b;
        fl_fuse_info(f, &a);
        fl_fuse_info(g, &b);
        assert_int_equal(a.cells, b.cells);
        assert_int_equal(a.seed, b.seed);
        assert_memory_equal(f->s.cells, g->s.cells, a.bytes);
        for (uint64_t i = 0; i < 20000; i++)
            assert_int_equal(fl_fuse_contains_u64(f, i), fl_fuse_contains_u64(g, i));
        for (size_t i = 0; i < n; i++) assert_int_equal(fl_fuse_contains_u64(g, keys[i]), 1);
        /* a cap below the cells */
        fl_fuse *capped = NULL;
        assert_int_equal(fl_fuse_load_mem(buf, len, a.bytes - 1, &capped), FL_ERR_TOO_LARGE);
        assert_null(capped);
        /* the other kind's loader */
        fl_bloomier *bl = NULL;
        assert_int_equal(fl_bloomier_load_mem(buf, len, 0, &bl), FL_ERR_WRONG_KIND);
        fl_filter *ff = NULL;
        assert_int_equal(fl_load_mem(buf, len, 0, &ff), FL_ERR_WRONG_KIND);
        free(buf);
        fl_fuse_free(f);
        fl_fuse_free(g);
    }
    /* a file, and an empty filter */
    fl_fuse *f = build_fuse(4, 16, keys, 0, 0);
    size_t len;
    uint8_t *buf = save_fuse(f, &len);
    fl_fuse *g = NULL;
    assert_int_equal(fl_fuse_load_mem(buf, len, 0, &g), FL_OK);
    assert_int_equal(fl_fuse_contains_u64(g, 5), 0);
    fl_fuse_free(g);
    free(buf);
    fl_fuse_free(f);
    char path[] = "/tmp/fl_test_fuse_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    f = build_fuse(3, 8, keys, n, 0);
    assert_int_equal(fl_fuse_save_file(f, path), FL_OK);
    assert_int_equal(fl_fuse_load_file(path, 0, &g), FL_OK);
    for (size_t i = 0; i < n; i++) assert_int_equal(fl_fuse_contains_u64(g, keys[i]), 1);
    fl_fuse_free(g);
    fl_fuse_free(f);
    /* a Bloomier file, and the fuse loader on it */
    uint16_t *vals = malloc(n * 2);
    for (size_t i = 0; i < n; i++) vals[i] = (uint16_t)i;
    fl_bloomier_config bc = {.value_bits = 16};
    fl_bloomier *b = NULL, *b2 = NULL;
    assert_int_equal(fl_bloomier_build_u64(&bc, keys, vals, n, &b), FL_OK);
    assert_int_equal(fl_bloomier_save_file(b, path), FL_OK);
    assert_int_equal(fl_fuse_load_file(path, 0, &g), FL_ERR_WRONG_KIND);
    assert_int_equal(fl_bloomier_load_file(path, 0, &b2), FL_OK);
    for (size_t i = 0; i < n; i++) {
        uint16_t v;
        assert_int_equal(fl_bloomier_get_u64(b2, keys[i], &v), 1);
        assert_int_equal(v, vals[i]);
    }
    uint32_t kind = 0;
    assert_int_equal(fl_file_kind_file(path, &kind), FL_OK);
    assert_int_equal(kind, FL_FILE_BLOOMIER);
    unlink(path);
    fl_bloomier_free(b);
    fl_bloomier_free(b2);
    free(vals);
    free(keys);
}

/* Every prefix and every single-bit flip of a file is refused (with a status, never a crash:
 * the sanitizer builds run this too). */
static void test_io_truncation_and_flips(void **state) {
    (void)state;
    uint64_t *keys = random_keys(200, 51);
    uint16_t vals[200];
    for (int i = 0; i < 200; i++) vals[i] = (uint16_t)(i & 0xff);
    fl_fuse *f = build_fuse(3, 8, keys, 200, 0);
    fl_bloomier_config bc = {.value_bits = 8, .arity = 4};
    fl_bloomier *b = NULL;
    assert_int_equal(fl_bloomier_build_u64(&bc, keys, vals, 200, &b), FL_OK);
    for (int which = 0; which < 2; which++) {
        size_t len = which ? fl_bloomier_serialized_size(b) : fl_fuse_serialized_size(f);
        uint8_t *buf = malloc(len);
        if (which)
            assert_int_equal(fl_bloomier_save_mem(b, buf, len, NULL), FL_OK);
        else
            assert_int_equal(fl_fuse_save_mem(f, buf, len, NULL), FL_OK);
        for (size_t cut = 0; cut < len; cut++) {
            void *g = NULL;
            fl_status st = which ? fl_bloomier_load_mem(buf, cut, 0, (fl_bloomier **)&g)
                                 : fl_fuse_load_mem(buf, cut, 0, (fl_fuse **)&g);
            assert_int_not_equal(st, FL_OK);
            assert_null(g);
        }
        for (size_t bit = 0; bit < len * 8; bit++) {
            buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            void *g = NULL;
            fl_status st = which ? fl_bloomier_load_mem(buf, len, 0, (fl_bloomier **)&g)
                                 : fl_fuse_load_mem(buf, len, 0, (fl_fuse **)&g);
            assert_int_not_equal(st, FL_OK);
            assert_null(g);
            buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        }
        free(buf);
    }
    fl_fuse_free(f);
    fl_bloomier_free(b);
    free(keys);
}

/* Crafted heads, checksums recomputed so the field checks are reached: each its status. */
static void test_io_crafted(void **state) {
    (void)state;
    uint64_t *keys = random_keys(1000, 61);
    fl_fuse *f = build_fuse(3, 8, keys, 1000, 0);
    size_t len;
    uint8_t *good = save_fuse(f, &len);
    uint8_t *buf = malloc(len);
    const size_t head = fl_get64(good + 24 + 8); /* section 0's offset, from the table */
    struct {
        size_t at;
        int width; /* bytes */
        uint64_t value;
        fl_status want;
    } cases[] = {
        {0, 1, 5, FL_ERR_CORRUPT},            /* arity */
        {1, 1, 32, FL_ERR_CORRUPT},           /* a fuse filter's cell width */
        {2, 1, 4, FL_ERR_CORRUPT},            /* value bits on a fuse filter */
        {3, 1, 1, FL_ERR_CORRUPT},            /* reserved */
        {4, 4, 1u << 20, FL_ERR_CORRUPT},     /* segment length */
        {8, 4, 1, FL_ERR_CORRUPT},            /* segment count */
        {12, 4, 7, FL_ERR_CORRUPT},           /* cells */
        {16, 8, 2000, FL_ERR_CORRUPT},        /* keys: another shape */
        {16, 8, 0, FL_ERR_CORRUPT},           /* keys 0 with cells present */
        {16, 8, ~0ull, FL_ERR_TOO_LARGE},     /* keys past the limit */
        {32, 8, 1, FL_ERR_CORRUPT},           /* reserved */
        {40, 8, 1, FL_ERR_CORRUPT},           /* reserved */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        memcpy(buf, good, len);
        for (int b = 0; b < cases[i].width; b++)
            buf[head + cases[i].at + (size_t)b] = (uint8_t)(cases[i].value >> (8 * b));
        reseal_container(buf, len);
        fl_fuse *g = NULL;
        fl_status st = fl_fuse_load_mem(buf, len, 0, &g);
        if (st != cases[i].want)
            fail_msg("case %zu (offset %zu): %s, expected %s", i, cases[i].at, fl_strerror(st),
                     fl_strerror(cases[i].want));
        assert_null(g);
    }
    /* the resealed original still loads: the cases failed for their field alone */
    memcpy(buf, good, len);
    reseal_container(buf, len);
    fl_fuse *g = NULL;
    assert_int_equal(fl_fuse_load_mem(buf, len, 0, &g), FL_OK);
    fl_fuse_free(g);
    free(buf);
    free(good);
    fl_fuse_free(f);
    free(keys);
}

/* fl_fuse_reduce (one 64x64->128-bit multiply where the compiler has it) equals the portable
 * form from 32-bit halves, bit for bit: both are exactly floor(h * range / 2^64). */
static void test_reduce_forms(void **state) {
    (void)state;
    static const uint64_t hs[] = {0, 1, 0xffffffffu, 0x100000000ull, 0x7fffffffffffffffull,
                                  0x8000000000000000ull, ~0ull, ~0ull - 1};
    static const uint32_t rs[] = {0, 1, 2, 3, 0x40000u, 0x7fffffffu, 0x80000000u, 0xffffffffu};
    for (size_t i = 0; i < sizeof hs / sizeof hs[0]; i++)
        for (size_t j = 0; j < sizeof rs / sizeof rs[0]; j++)
            assert_int_equal(fl_fuse_reduce(hs[i], rs[j]), fl_fuse_reduce_portable(hs[i], rs[j]));
    uint64_t x = 12345;
    for (int i = 0; i < 1000000; i++) {
        uint64_t h = fl_mix64(x += FL_SEED_MIX);
        uint32_t r = (uint32_t)fl_mix64(h) >> (i % 32);
        assert_int_equal(fl_fuse_reduce(h, r), fl_fuse_reduce_portable(h, r));
    }
}

typedef int (*one_key_fn)(const fl_fuse_view *, uint64_t);

/* The typed one-key lookups and fl_fuse_lookup on every kind of view: a fuse filter of each
 * shape (the typed lookup of its own shape and the three mismatched ones), an empty filter, a
 * Bloomier filter, and the {0} view. Each answers what the library's one-key call answers
 * for that structure, so a mismatched view is never a false "absent". */
static void test_typed_lookups(void **state) {
    (void)state;
    enum { N = 6000, Q = 30000 };
    static const one_key_fn typed[4] = {fl_fuse8_lookup, fl_fuse16_lookup, fl_fuse4w8_lookup,
                                        fl_fuse4w16_lookup};
    static const uint8_t shape_code[4] = {FL_FUSE_SHAPE_3_8, FL_FUSE_SHAPE_3_16,
                                          FL_FUSE_SHAPE_4_8, FL_FUSE_SHAPE_4_16};
    uint64_t *keys = random_keys(N, 21);
    for (int sh = 0; sh < 4; sh++) {
        fl_fuse *f = build_fuse(shapes[sh][0], shapes[sh][1], keys, N, 7);
        const fl_fuse_view v = fl_fuse_view_of(f);
        assert_int_equal(v.shape, shape_code[sh]);
        for (int t = 0; t < 4; t++) {
            size_t missed = 0, differ = 0;
            for (size_t i = 0; i < N; i++) missed += !typed[t](&v, keys[i]);
            for (uint64_t q = 0; q < Q; q++) {
                uint64_t key = fl_hash_u64(q, 99);
                differ += typed[t](&v, key) != fl_fuse_contains_u64(f, key);
            }
            if (missed || differ)
                fail_msg("fuse%u_%u view, typed lookup %d: %zu keys missed, %zu answers differ",
                         shapes[sh][0], shapes[sh][1], t, missed, differ);
        }
        size_t missed = 0;
        for (size_t i = 0; i < N; i++)
            missed += !fl_fuse_lookup(&v, keys[i]) + !fl_fuse_lookup_view(&v, keys[i]);
        assert_int_equal(missed, 0);
        /* A loaded filter's view gets its shape too (the fast path is not only for builds). */
        size_t len = fl_fuse_serialized_size(f), written;
        void *buf = malloc(len);
        assert_non_null(buf);
        assert_int_equal(fl_fuse_save_mem(f, buf, len, &written), FL_OK);
        fl_fuse *g = NULL;
        assert_int_equal(fl_fuse_load_mem(buf, written, 0, &g), FL_OK);
        free(buf);
        const fl_fuse_view lv = fl_fuse_view_of(g);
        assert_int_equal(lv.shape, shape_code[sh]);
        for (size_t i = 0; i < N; i++) missed += !typed[sh](&lv, keys[i]);
        for (uint64_t q = 0; q < Q; q++) {
            uint64_t key = fl_hash_u64(q, 96);
            missed += typed[sh](&lv, key) != fl_fuse_contains_u64(f, key);
        }
        assert_int_equal(missed, 0);
        fl_fuse_free(g);
        for (uint64_t q = 0; q < Q; q++) {
            uint64_t key = fl_hash_u64(q, 98);
            assert_int_equal(fl_fuse_lookup(&v, key), fl_fuse_contains_u64(f, key));
            assert_int_equal(fl_fuse_lookup_view(&v, key), fl_fuse_contains_u64(f, key));
        }
        fl_fuse_free(f);
    }
    /* An empty filter and the {0} view: every lookup 0. */
    fl_fuse *e = build_fuse(3, 8, keys, 0, 1);
    const fl_fuse_view ev = fl_fuse_view_of(e), zv = fl_fuse_view_of(NULL);
    assert_int_equal(ev.shape, FL_FUSE_SHAPE_NONE);
    assert_int_equal(zv.shape, FL_FUSE_SHAPE_NONE);
    for (uint64_t q = 0; q < 1000; q++) {
        for (int t = 0; t < 4; t++) {
            assert_int_equal(typed[t](&ev, keys[q]), 0);
            assert_int_equal(typed[t](&zv, keys[q]), 0);
        }
        assert_int_equal(fl_fuse_lookup(&ev, keys[q]) + fl_fuse_lookup(&zv, keys[q]), 0);
    }
    fl_fuse_free(e);
    /* Bloomier views (values mostly nonzero): the answer is fl_bloomier_get_u64's "found". */
    uint16_t *values = malloc(N * sizeof *values);
    assert_non_null(values);
    for (size_t i = 0; i < N; i++) values[i] = (uint16_t)(i * 7 + 1);
    static const uint32_t bl_cfg[4][3] = {{3, 16, 16}, {3, 8, 16}, {4, 16, 32}, {4, 12, 32}};
    for (int c = 0; c < 4; c++) {
        fl_bloomier_config bc = {.arity = bl_cfg[c][0], .value_bits = bl_cfg[c][1],
                                 .cell_bits = bl_cfg[c][2]};
        for (size_t i = 0; i < N; i++)
            values[i] = (uint16_t)((i * 7 + 1) & ((1u << bc.value_bits) - 1));
        fl_bloomier *b = NULL;
        assert_int_equal(fl_bloomier_build_u64(&bc, keys, values, N, &b), FL_OK);
        const fl_fuse_view bv = fl_bloomier_view_of(b);
        assert_int_equal(bv.shape, FL_FUSE_SHAPE_NONE);
        size_t missed = 0, differ = 0;
        for (size_t i = 0; i < N; i++) {
            missed += !fl_fuse_lookup(&bv, keys[i]);
            for (int t = 0; t < 4; t++) missed += !typed[t](&bv, keys[i]);
        }
        for (uint64_t q = 0; q < Q; q++) {
            uint64_t key = fl_hash_u64(q, 97);
            uint16_t val;
            int found = fl_bloomier_get_u64(b, key, &val);
            differ += fl_fuse_lookup(&bv, key) != found;
            for (int t = 0; t < 4; t++) differ += typed[t](&bv, key) != found;
        }
        if (missed || differ)
            fail_msg("bloomier %u/%u/%u view: %zu keys missed, %zu answers differ",
                     bl_cfg[c][0], bl_cfg[c][1], bl_cfg[c][2], missed, differ);
        fl_bloomier_free(b);
    }
    free(values);
    free(keys);
}

/* Which cells a key maps to is part of the file format: the saved bytes of structures built
 * from fixed keys and seeds, and the answers to fixed queries, are those of the code before
 * the one-key lookups were specialized (the constants were printed by commit 7cea2ef's
 * library). A change in the probe math fails here before it reaches a user's file. */
static void test_layout_unchanged(void **state) {
    (void)state;
    enum { N = 50000 };
    uint64_t *keys = random_keys(N, 5);
    static const uint64_t want_file[5] = {
        0x65dfc4948017687full, 0x4a65691e5233e894ull, 0x569d34ec6029adf7ull,
        0x45c4c724f56eff0full, 0xfcdf16b69f449b88ull};
    static const uint64_t want_answers[5] = {
        0xeb9b6bd7ef47a55bull, 0xe6419d2f0420b3a2ull, 0x4a423b915b6aa666ull,
        0x72c3dfb0d149988bull, 0x525f208a34955c85ull};
    uint64_t got_file[5], got_answers[5];
    for (int sh = 0; sh < 5; sh++) {
        void *buf;
        size_t len, written;
        fl_fuse *f = NULL;
        fl_bloomier *b = NULL;
        if (sh < 4) {
            f = build_fuse(shapes[sh][0], shapes[sh][1], keys, N, 42);
            len = fl_fuse_serialized_size(f);
            buf = malloc(len);
            assert_non_null(buf);
            assert_int_equal(fl_fuse_save_mem(f, buf, len, &written), FL_OK);
        } else {
            uint16_t *values = malloc(N * sizeof *values);
            assert_non_null(values);
            for (size_t i = 0; i < N; i++) values[i] = (uint16_t)(i & 0x3ff);
            fl_bloomier_config bc = {.arity = 3, .value_bits = 10, .seed = 42};
            assert_int_equal(fl_bloomier_build_u64(&bc, keys, values, N, &b), FL_OK);
            free(values);
            len = fl_bloomier_serialized_size(b);
            buf = malloc(len);
            assert_non_null(buf);
            assert_int_equal(fl_bloomier_save_mem(b, buf, len, &written), FL_OK);
        }
        got_file[sh] = XXH3_64bits(buf, written);
        uint64_t acc = 0;
        for (uint64_t q = 0; q < 100000; q++) {
            uint64_t key = q < 1000 ? keys[q] : fl_hash_u64(q, 77);
            uint16_t val = 0;
            int hit = f ? fl_fuse_contains_u64(f, key) : fl_bloomier_get_u64(b, key, &val);
            acc = fl_mix64(acc ^ ((uint64_t)hit << 16 | val));
        }
        got_answers[sh] = acc;
        free(buf);
        fl_fuse_free(f);
        fl_bloomier_free(b);
    }
    int bad = 0;
    for (int sh = 0; sh < 5; sh++) {
        if (got_file[sh] != want_file[sh] || got_answers[sh] != want_answers[sh]) {
            print_message("structure %d: file 0x%016llx (want 0x%016llx), answers 0x%016llx "
                          "(want 0x%016llx)\n", sh, (unsigned long long)got_file[sh],
                          (unsigned long long)want_file[sh],
                          (unsigned long long)got_answers[sh],
                          (unsigned long long)want_answers[sh]);
            bad = 1;
        }
    }
    assert_int_equal(bad, 0);
    free(keys);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_false_negatives),
        cmocka_unit_test(test_fpr_and_space),
        cmocka_unit_test(test_duplicates),
        cmocka_unit_test(test_empty_and_bad_args),
        cmocka_unit_test(test_absurd_sizes),
        cmocka_unit_test(test_build_failure),
        cmocka_unit_test(test_bloomier),
        cmocka_unit_test(test_kernels_agree),
        cmocka_unit_test(test_io_round_trip),
        cmocka_unit_test(test_io_truncation_and_flips),
        cmocka_unit_test(test_io_crafted),
        cmocka_unit_test(test_reduce_forms),
        cmocka_unit_test(test_typed_lookups),
        cmocka_unit_test(test_layout_unchanged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
