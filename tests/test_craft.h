/* Crafted files for the loaders' tests: a format-v2 container (src/format/container.h) of one
 * kind with two sections, checksums valid around whatever the sections hold, so a test
 * reaches the checks behind the checksums. Included by the unit tests that craft files. */
#ifndef FL_TEST_CRAFT_H
#define FL_TEST_CRAFT_H

#include "testutil.h"

#include "format/container.h"

/* The container's bytes (heap, *size long): kind, then sections tag1 (a[0..la)) and tag2
 * (b[0..lb)). */
static inline uint8_t *test_two_section_image(uint32_t kind, uint32_t tag1, const void *a,
                                              uint64_t la, uint32_t tag2, const void *b,
                                              uint64_t lb, size_t *size) {
    uint32_t tags[2] = {tag1, tag2};
    uint64_t lengths[2] = {la, lb};
    *size = fl_ct_size(2, lengths);
    uint8_t *buf = calloc(1, *size);
    assert_non_null(buf);
    fl_mem_sink m;
    fl_sink sink = fl_mem_sink_init(&m, buf, *size);
    fl_ct_writer w;
    assert_int_equal(fl_ct_write_begin(&w, &sink, (fl_kind)kind, 2, tags, lengths), FL_OK);
    assert_int_equal(fl_ct_write_section(&w, a, la), FL_OK);
    assert_int_equal(fl_ct_write_section(&w, b, lb), FL_OK);
    assert_int_equal(fl_ct_write_end(&w), FL_OK);
    return buf;
}

/* load_crafted(buf, size): prefix's load of a crafted image (freed after), its status; on
 * success the object passes check (the test's invariants) and is freed, on failure the
 * loader left *out NULL. */
#define TEST_CRAFT_LOADER(prefix, type, free_fn, check)                                      \
    static fl_status load_crafted(uint8_t *buf, size_t size) {                               \
        type *obj = (type *)1;                                                               \
        fl_status st = prefix##_load_mem(buf, size, 0, &obj);                                \
        if (st == FL_OK) {                                                                   \
            check(obj);                                                                      \
            free_fn(obj);                                                                    \
        } else {                                                                             \
            assert_null(obj);                                                                \
        }                                                                                    \
        free(buf);                                                                           \
        return st;                                                                           \
    }

#endif
