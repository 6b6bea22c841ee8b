/* Shared helpers for the cmocka tests: cmocka's required includes, key generators and the
 * source tree. */
#ifndef FL_TESTUTIL_H
#define FL_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "filterlab.h"

/* n distinct, well-mixed hashes; different streams never overlap (fl_hash_u64 is a
 * bijection and the stream picks disjoint inputs). */
static inline uint64_t *test_hashes(size_t n, uint64_t stream) {
    uint64_t *h = malloc((n ? n : 1) * sizeof *h);
    assert_non_null(h);
    for (size_t i = 0; i < n; i++) h[i] = fl_hash_u64((stream << 40) + i, 0x5eed);
    return h;
}

/* Asserts that two heap buffers (saved or exported images) hold the same bytes, then frees
 * both. */
static inline void assert_same_image_and_free(uint8_t *a, size_t la, uint8_t *b, size_t lb) {
    assert_int_equal(la, lb);
    assert_memory_equal(a, b, la);
    free(a);
    free(b);
}

/* A loader's refusals of a saved image buf[0..len): every cut FL_ERR_TRUNCATED, one zero
 * byte more FL_ERR_TRAILING_DATA, every single bit flipped something other than FL_OK (buf
 * is restored). load(bytes, n) loads, frees what it got, and returns the status. */
typedef fl_status (*test_load_fn)(const uint8_t *bytes, size_t n);
static inline void assert_refuses_every_cut_and_flip(uint8_t *buf, size_t len,
                                                     test_load_fn load) {
    for (size_t n = 0; n < len; n++) {
        fl_status st = load(buf, n);
        if (st != FL_ERR_TRUNCATED) fail_msg("length %zu of %zu: %s", n, len, fl_strerror(st));
    }
    uint8_t *longer = calloc(1, len + 1);
    assert_non_null(longer);
    memcpy(longer, buf, len);
    assert_int_equal(load(longer, len + 1), FL_ERR_TRAILING_DATA);
    free(longer);
    for (size_t bit = 0; bit < len * 8; bit++) {
        buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        if (load(buf, len) == FL_OK) fail_msg("bit %zu flipped: loaded", bit);
        buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    }
}

static inline fl_filter *test_filter(fl_variant v, uint64_t units, uint32_t k) {
    fl_config cfg = {.variant = v, .geometry = {v, units, k}};
    fl_filter *f = NULL;
    assert_int_equal(fl_create(&cfg, &f), FL_OK);
    return f;
}

/* A structure's saved image (heap, *len bytes) and its loader's status (an object exactly on
 * success, freed), for the five file calls of prefix and type (FL_DECLARE_FILE_CALLS):
 * TEST_FILE_HELPERS(fl_x, fl_x, fl_x_free) defines saved_image(), load_status(),
 * assert_file_calls_refuse_misuse() (the file kind read back; a short buffer, NULLs, an
 * empty path, a missing file: each its status) and assert_image_refuses_cuts_and_flips()
 * (assert_refuses_every_cut_and_flip on its image). */
#define TEST_FILE_HELPERS(prefix, type, free_fn)                                             \
    static uint8_t *saved_image(const type *obj, size_t *len) {                              \
        *len = prefix##_serialized_size(obj);                                                \
        uint8_t *buf = malloc(*len);                                                         \
        assert_non_null(buf);                                                                \
        assert_int_equal(prefix##_save_mem(obj, buf, *len, NULL), FL_OK);                    \
        return buf;                                                                          \
    }                                                                                        \
    static fl_status load_status(const uint8_t *bytes, size_t n) {                           \
        type *obj = (type *)1;                                                               \
        fl_status st = prefix##_load_mem(bytes, n, 0, &obj);                                 \
        assert_true(st == FL_OK ? obj != NULL : obj == NULL);                                \
        free_fn(obj);                                                                        \
        return st;                                                                           \
    }                                                                                        \
    static void assert_file_calls_refuse_misuse(type *obj, uint32_t kind) {                  \
        size_t len;                                                                          \
        uint8_t *buf = saved_image(obj, &len);                                               \
        uint32_t got = 0;                                                                    \
        type *out = (type *)1;                                                               \
        assert_int_equal(fl_file_kind_mem(buf, len, &got), FL_OK);                           \
        assert_int_equal(got, kind);                                                         \
        assert_int_equal(prefix##_save_mem(obj, buf, len - 1, NULL), FL_ERR_BUFFER_TOO_SMALL); \
        assert_int_equal(prefix##_save_mem(NULL, buf, len, NULL), FL_ERR_INVALID_ARG);       \
        assert_int_equal(prefix##_load_mem(NULL, len, 0, &out), FL_ERR_INVALID_ARG);         \
        assert_int_equal(prefix##_save_file(obj, ""), FL_ERR_INVALID_ARG);                   \
        assert_int_equal(prefix##_serialized_size(NULL), 0);                                 \
        assert_int_equal(prefix##_load_file("/nonexistent/x", 0, &out), FL_ERR_IO);          \
        assert_null(out);                                                                    \
        free(buf);                                                                           \
    }                                                                                        \
    static void assert_image_refuses_cuts_and_flips(const type *obj) {                       \
        size_t len;                                                                          \
        uint8_t *buf = saved_image(obj, &len);                                               \
        assert_int_equal(load_status(buf, len), FL_OK);                                      \
        assert_refuses_every_cut_and_flip(buf, len, load_status);                            \
        free(buf);                                                                           \
    }

/* assert_batches_equal_single(obj, keys, n, inserted): a deletable filter's batch lookups
 * (u64 keys, unaligned at keys + 1, and hashes) give its one-key answers under every kernel
 * it can be bound to, and so does its header's in-line lookup; keys[1..inserted) were
 * inserted and must be found. For the calls FL_DECLARE_KEY_CALLS declares and a
 * <prefix>_lookup handle (vqf, gcf). keys has n + 1 entries. */
#define TEST_KEY_HELPERS(prefix, type)                                                       \
    static void assert_batches_equal_single(type *obj, const uint64_t *keys, size_t n,      \
                                            size_t inserted) {                               \
        static const char *const names[] = {"scalar", "neon", "avx2", "avx512", "auto"};     \
        uint8_t *out = malloc(n);                                                            \
        uint64_t *h = malloc(n * sizeof *h);                                                 \
        assert_true(out && h);                                                               \
        for (size_t ni = 0; ni < sizeof names / sizeof names[0]; ni++) {                     \
            fl_status st = prefix##_bind_kernel(obj, names[ni]);                             \
            if (st == FL_ERR_KERNEL_UNAVAILABLE || st == FL_ERR_UNKNOWN_KERNEL) continue;    \
            assert_int_equal(st, FL_OK);                                                     \
            size_t pos = 0, want = 0;                                                        \
            assert_int_equal(prefix##_contains_u64s(obj, keys + 1, n, out, &pos), FL_OK);    \
            for (size_t i = 0; i < n; i++) {                                                 \
                int one = prefix##_contains_u64(obj, keys[i + 1]);                           \
                assert_int_equal(out[i], one);                                               \
                want += (size_t)one;                                                         \
            }                                                                                \
            assert_int_equal(pos, want);                                                     \
            assert_true(pos + 1 >= inserted);                                                \
            for (size_t i = 0; i < n; i++) h[i] = prefix##_hash_u64(obj, keys[i + 1]);       \
            assert_int_equal(prefix##_contains_hashes(obj, h, n, out, &pos), FL_OK);         \
            assert_int_equal(pos, want);                                                     \
            prefix##_lookup l = prefix##_lookup_of(obj);                                     \
            for (size_t i = 0; i < n; i++) {                                                 \
                assert_int_equal(out[i], prefix##_contains_hash(obj, h[i]));                 \
                assert_int_equal(prefix##_lookup_u64(&l, keys[i + 1]), out[i]);              \
            }                                                                                \
        }                                                                                    \
        assert_non_null(prefix##_kernel(obj));                                               \
        free(h);                                                                             \
        free(out);                                                                           \
    }

/* A structure's loader (load: its load_status) and the filter and Count-Min loaders refuse
 * each other's files with FL_ERR_WRONG_KIND both ways: a filter's image given to load, the
 * structure's image buf[0..len) to fl_load_mem and fl_cms_load_mem, and a version-1 file
 * (a filter's) to load. */
static inline void assert_wrong_kind_both_ways(const uint8_t *buf, size_t len, test_load_fn load) {
    fl_filter *f = test_filter(FL_BLOCK512, 4, 8);
    size_t flen = fl_serialized_size(f);
    uint8_t *fbuf = malloc(flen);
    assert_non_null(fbuf);
    assert_int_equal(fl_save_mem(f, fbuf, flen, NULL), FL_OK);
    fl_filter *g = NULL;
    fl_cms *c = NULL;
    fl_status got[4] = {load(fbuf, flen), fl_load_mem(buf, len, 0, &g),
                        fl_cms_load_mem(buf, len, 0, &c), FL_OK};
    fbuf[8] = 1; /* the format version: 1 is a filter's */
    got[3] = load(fbuf, flen);
    for (int i = 0; i < 4; i++) assert_int_equal(got[i], FL_ERR_WRONG_KIND);
    assert_null(g);
    assert_null(c);
    free(fbuf);
    fl_free(f);
}

/* The source tree (FL_SOURCE_ROOT, which meson sets), for tests reading its files;
 * skips the calling test when it is not known. */
static inline const char *source_root_or_skip(void) {
    const char *root = getenv("FL_SOURCE_ROOT");
    if (!root || !*root) {
        print_message("skipped: FL_SOURCE_ROOT is not set\n");
        skip();
    }
    return root;
}

/* Whether statistical tests take their reduced form (FL_TEST_REDUCED=1, which tests/meson.build
 * sets for cross builds, run under an emulator, and sanitizer builds). A statistical check
 * costs its sample size whatever the platform, and what such a run is for lies elsewhere:
 * under an emulator, that every kernel gives the scalar answer (checkkernels proves it on
 * random inputs) and that the code behaves on another architecture; under sanitizers, memory
 * and undefined-behaviour errors, which a smaller sample reaches through the same code. The
 * native release build runs every check in full. */
static inline int test_reduced(void) {
    const char *s = getenv("FL_TEST_REDUCED");
    return s && s[0] == '1';
}

#endif
