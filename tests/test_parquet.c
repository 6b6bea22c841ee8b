/*
 * Parquet split block Bloom filter import/export (src/format/parquet.c): byte-identical round trips
 * and a strict Thrift compact reader facing malformed headers. The parquet-mr file, which the
 * repository does not carry, is tested on its own by test_parquet_mr.c.
 *
 * Header bytes below are Thrift compact encodings written out field by field (thrift
 * doc/specs/thrift-compact-protocol.md): 0x15 = field delta 1, type i32; 0x1c = delta 1,
 * type struct; 0x00 = stop. numBytes 1024 is zigzag 2048 = varint 0x80 0x10.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "filterlab.h"
#include "testutil.h"

/* ---- byte string builder -------------------------------------------------------------- */
typedef struct bytes {
    uint8_t b[512];
    size_t n;
} bytes;

static void add(bytes *h, const uint8_t *p, size_t n) {
    assert_true(h->n + n <= sizeof h->b);
    memcpy(h->b + h->n, p, n);
    h->n += n;
}
#define ADD(h, ...)                                \
    do {                                           \
        const uint8_t add_[] = {__VA_ARGS__};      \
        add((h), add_, sizeof add_);               \
    } while (0)

/* The three unions as parquet-mr writes them: field, member 1 (empty struct), stop, stop. */
#define UNION_ONE 0x1c, 0x1c, 0x00, 0x00
#define NUMBYTES_1024 0x15, 0x80, 0x10

/* Imports head followed by a bitset of bitset_len patterned bytes, from an exactly sized
 * heap buffer (ASan sees any over-read). *out may be NULL to discard the filter. */
static fl_status import_hb(const bytes *head, size_t bitset_len, size_t max, fl_filter **out) {
    size_t len = head->n + bitset_len;
    uint8_t *buf = malloc(len ? len : 1);
    assert_non_null(buf);
    memcpy(buf, head->b, head->n);
    for (size_t i = 0; i < bitset_len; i++) buf[head->n + i] = (uint8_t)(i * 31 + 7);
    fl_filter *f = (fl_filter *)1;
    fl_status st = fl_parquet_import(buf, len, max, &f);
    if (st != FL_OK) assert_null(f);
    if (out) {
        *out = f;
    } else {
        fl_free(f);
    }
    free(buf);
    return st;
}

/* A malformed header must not be rescued by the bare-bitset rule: check the total length
 * is not a multiple of 32 before expecting BAD_PARQUET or TRUNCATED from it. */
static void expect_malformed(const bytes *head, size_t bitset_len, fl_status want, const char *what) {
    assert_true((head->n + bitset_len) % 32 != 0);
    fl_status st = import_hb(head, bitset_len, 0, NULL);
    if (st != want) print_error("%s: got %s\n", what, fl_strerror(st));
    assert_int_equal(st, want);
}

static void expect_header(const bytes *head, size_t bitset_len, fl_status want, const char *what) {
    fl_status st = import_hb(head, bitset_len, 0, NULL);
    if (st != want) print_error("%s: got %s\n", what, fl_strerror(st));
    assert_int_equal(st, want);
}

static bytes standard_header(void) {
    bytes h = {.n = 0};
    ADD(&h, NUMBYTES_1024, UNION_ONE, UNION_ONE, UNION_ONE, 0x00);
    return h;
}

/* ---- hashing -------------------------------------------------------------------------- */
static void test_xxh64_known_answers(void **state) {
    (void)state;
    /* Values of XXH64(s, len, 0), the hash Parquet readers use. */
    assert_int_equal(XXH64("hello", 5, 0), 0x26c7827d889f6da3ull);
    assert_int_equal(XXH64("parquet", 7, 0), 0x3c9d29275c52e429ull);
    /* An imported filter hashes with exactly that. */
    uint8_t zero[32] = {0};
    fl_filter *f = NULL;
    assert_int_equal(fl_parquet_import(zero, sizeof zero, 0, &f), FL_OK);
    assert_int_equal(fl_hash_bytes(f, "hello", 5), 0x26c7827d889f6da3ull);
    assert_int_equal(fl_hash_bytes(f, "parquet", 7), 0x3c9d29275c52e429ull);
    fl_info info;
    assert_int_equal(fl_get_info(f, &info), FL_OK);
    assert_int_equal(info.geometry.variant, FL_SPLIT256);
    assert_int_equal(info.geometry.units, 1);
    assert_int_equal(info.geometry.k, 8);
    assert_int_equal(info.hash, FL_HASH_XXH64);
    assert_int_equal(info.seed, 0);
    assert_int_equal(info.keys, 0);
    assert_false(fl_contains_bytes(f, "hello", 5));
    fl_free(f);
}

/* ---- round trips ---------------------------------------------------------------------- */
static fl_filter *parquet_filter(uint64_t blocks, unsigned keys) {
    fl_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.variant = FL_SPLIT256;
    cfg.geometry.variant = FL_SPLIT256;
    cfg.geometry.units = blocks;
    cfg.geometry.k = 8;
    cfg.hash = FL_HASH_XXH64;
    cfg.seed = 0;
    fl_filter *f = NULL;
    assert_int_equal(fl_create(&cfg, &f), FL_OK);
    for (unsigned i = 0; i < keys; i++) {
        char w[32];
        int n = snprintf(w, sizeof w, "value-%u", i);
        assert_int_equal(fl_insert_bytes(f, w, (size_t)n), FL_OK);
    }
    return f;
}

static uint8_t *export_alloc(const fl_filter *f, int with_header, size_t *len) {
    size_t n = fl_parquet_export_size(f, with_header);
    assert_true(n > 0);
    uint8_t *buf = malloc(n);
    assert_non_null(buf);
    size_t written = 0;
    assert_int_equal(fl_parquet_export(f, with_header, buf, n, &written), FL_OK);
    assert_int_equal(written, n);
    *len = n;
    return buf;
}

static void test_round_trip(void **state) {
    (void)state;
    /* 1 to 5000 blocks: one- to three-byte varints in numBytes, and counts that are not
     * powers of two (Lemire reduction, not masking, picks the block). */
    const uint64_t blocks[] = {1, 3, 4, 5000};
    for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
        fl_filter *f = parquet_filter(blocks[b], 300);
        for (int with_header = 0; with_header <= 1; with_header++) {
            size_t len;
            uint8_t *buf = export_alloc(f, with_header, &len);
            if (with_header) {
                assert_true(len > fl_size_bytes(f) && len <= fl_size_bytes(f) + 19);
            } else {
                assert_int_equal(len, fl_size_bytes(f));
            }
            fl_filter *g = NULL;
            assert_int_equal(fl_parquet_import(buf, len, 0, &g), FL_OK);
            assert_int_equal(fl_size_bytes(g), fl_size_bytes(f));
            size_t len2;
            uint8_t *buf2 = export_alloc(g, with_header, &len2);
            assert_int_equal(len2, len);
            assert_memory_equal(buf, buf2, len);
            for (unsigned i = 0; i < 1000; i++) {
                char w[32];
                int n = snprintf(w, sizeof w, "value-%u", i);
                int a = fl_contains_bytes(f, w, (size_t)n), c = fl_contains_bytes(g, w, (size_t)n);
                assert_int_equal(a, c);
                if (i < 300) assert_true(c);
            }
            free(buf);
            free(buf2);
            fl_free(g);
        }
        /* The header export is the header followed by exactly the bare export. */
        size_t hl, bl;
        uint8_t *h = export_alloc(f, 1, &hl), *bare = export_alloc(f, 0, &bl);
        assert_true(hl > bl);
        assert_memory_equal(h + (hl - bl), bare, bl);
        free(h);
        free(bare);
        fl_free(f);
    }
}

static void test_export_errors(void **state) {
    (void)state;
    uint8_t buf[2048];
    size_t written = 7;
    fl_config cfg;
    fl_filter *f = NULL;

    /* Only split256 has a Parquet form. */
    memset(&cfg, 0, sizeof cfg);
    cfg.variant = FL_BLOCK512;
    cfg.geometry = (fl_geometry){FL_BLOCK512, 4, 8};
    cfg.hash = FL_HASH_XXH64;
    assert_int_equal(fl_create(&cfg, &f), FL_OK);
    assert_int_equal(fl_parquet_export(f, 1, buf, sizeof buf, &written), FL_ERR_UNSUPPORTED);
    assert_int_equal(written, 0);
    assert_int_equal(fl_parquet_export_size(f, 1), 0);
    fl_free(f);

    /* split256 with XXH3 or a seed: the bits are fine, but readers would hash differently. */
    memset(&cfg, 0, sizeof cfg);
    cfg.variant = FL_SPLIT256;
    cfg.geometry = (fl_geometry){FL_SPLIT256, 4, 8};
    assert_int_equal(fl_create(&cfg, &f), FL_OK); /* hash 0 = split256's default, XXH64 */
    assert_int_equal(fl_parquet_export(f, 0, buf, sizeof buf, &written), FL_OK);
    fl_free(f);
    cfg.hash = FL_HASH_XXH3;
    assert_int_equal(fl_create(&cfg, &f), FL_OK);
    assert_int_equal(fl_parquet_export(f, 0, buf, sizeof buf, &written), FL_ERR_INCOMPATIBLE);
    assert_int_equal(fl_parquet_export_size(f, 0), 0);
    fl_free(f);
    cfg.hash = FL_HASH_XXH64;
    cfg.seed = 1;
    assert_int_equal(fl_create(&cfg, &f), FL_OK);
    assert_int_equal(fl_parquet_export(f, 1, buf, sizeof buf, &written), FL_ERR_INCOMPATIBLE);
    fl_free(f);

    f = parquet_filter(4, 10);
    size_t need = fl_parquet_export_size(f, 1);
    /* field byte + numBytes 128 (zigzag 256: two varint bytes) + 3 unions of 4 + stop */
    assert_int_equal(need, 16 + 128);
    assert_int_equal(fl_parquet_export(f, 1, buf, need - 1, &written), FL_ERR_BUFFER_TOO_SMALL);
    assert_int_equal(fl_parquet_export(f, 0, buf, 127, &written), FL_ERR_BUFFER_TOO_SMALL);
    assert_int_equal(fl_parquet_export(f, 1, NULL, need, &written), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_parquet_export(NULL, 1, buf, need, &written), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_parquet_export_size(NULL, 1), 0);
    assert_int_equal(fl_parquet_export(f, 1, buf, need, NULL), FL_OK); /* written optional */
    fl_free(f);

    fl_filter *g = (fl_filter *)1;
    assert_int_equal(fl_parquet_import(NULL, 32, 0, &g), FL_ERR_INVALID_ARG);
    assert_null(g);
    assert_int_equal(fl_parquet_import(buf, 32, 0, NULL), FL_ERR_INVALID_ARG);
}

/* ---- header parsing ------------------------------------------------------------------- */
static void test_header_variants_accepted(void **state) {
    (void)state;
    bytes h = standard_header();
    fl_filter *f = NULL;
    assert_int_equal(import_hb(&h, 1024, 0, &f), FL_OK);
    assert_int_equal(fl_size_bytes(f), 1024);
    fl_free(f);

    /* Long-form field header for numBytes: 0x05, then field id 1 as zigzag i16 (2). */
    h = (bytes){.n = 0};
    ADD(&h, 0x05, 0x02, 0x80, 0x10, UNION_ONE, UNION_ONE, UNION_ONE, 0x00);
    expect_header(&h, 1024, FL_OK, "long form field id");

    /* A non-minimal varint is still the same number. */
    h = (bytes){.n = 0};
    ADD(&h, 0x15, 0x80, 0x90, 0x80, 0x80, 0x00, UNION_ONE, UNION_ONE, UNION_ONE, 0x00);
    expect_header(&h, 1024, FL_OK, "padded varint");

    /* Fields in another order (ids 4, 3, 2, 1 via long-form headers after the first). */
    h = (bytes){.n = 0};
    ADD(&h, 0x4c, 0x1c, 0x00, 0x00, 0x0c, 0x06, 0x1c, 0x00, 0x00, 0x0c, 0x04, 0x1c, 0x00, 0x00,
        0x05, 0x02, 0x80, 0x10, 0x00);
    expect_header(&h, 1024, FL_OK, "reordered fields");

    /* Unknown fields of every type are skipped (Thrift forward compatibility). */
    h = (bytes){.n = 0};
    ADD(&h, NUMBYTES_1024, UNION_ONE, UNION_ONE, UNION_ONE);
    ADD(&h, 0x18, 0x03, 'x', 'y', 'z');                              /* 5: binary "xyz" */
    ADD(&h, 0x19, 0x35, 0x02, 0x04, 0x06);                           /* 6: list<i32> [1,2,3] */
    ADD(&h, 0x1b, 0x01, 0x58, 0x02, 0x01, 'a');                      /* 7: map<i32,binary> */
    ADD(&h, 0x17, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f);                     /* 8: double 1.0 */
    ADD(&h, 0x11);                                                   /* 9: bool true */
    ADD(&h, 0x16, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01); /* 10: i64 */
    ADD(&h, 0x1d, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16); /* 11: uuid */
    ADD(&h, 0x1a, 0x2c, 0x00, 0x15, 0x02, 0x00);                     /* 12: set<struct> */
    ADD(&h, 0x19, 0xf1, 0x0f, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 2, 1); /* 13: 15 bools */
    ADD(&h, 0x14, 0x03);                                             /* 14: i16 */
    ADD(&h, 0x13, 0xff);                                             /* 15: i8 */
    ADD(&h, 0x08, 0xd8, 0x04, 0x00);                                 /* 300: empty binary */
    ADD(&h, 0x05, 0x09, 0x00);                                       /* -5: i32 0 */
    ADD(&h, 0x1b, 0x00);                                             /* -4: empty map */
    ADD(&h, 0x1c, 0x1c, 0x1c, 0x00, 0x00, 0x00);                     /* -3: nested structs */
    ADD(&h, 0x00);
    expect_header(&h, 1024, FL_OK, "unknown fields");

    /* A union member with contents a newer writer might add is still that member. */
    h = (bytes){.n = 0};
    ADD(&h, NUMBYTES_1024, 0x1c, 0x1c, 0x15, 0x0e, 0x00, 0x00, UNION_ONE, UNION_ONE, 0x00);
    expect_header(&h, 1024, FL_OK, "member with fields");

    /* Nesting up to the limit is fine. */
    h = (bytes){.n = 0};
    ADD(&h, NUMBYTES_1024, UNION_ONE, UNION_ONE, UNION_ONE);
    for (int i = 0; i < 20; i++) ADD(&h, 0x1c);
    for (int i = 0; i < 20; i++) ADD(&h, 0x00);
    ADD(&h, 0x00);
    expect_header(&h, 1024, FL_OK, "20 nested structs");
}

static void test_header_semantics(void **state) {
    (void)state;
    bytes h;
    /* numBytes must be a positive multiple of 32. */
    h = (bytes){.n = 0};
    ADD(&h, 0x15, 0x42, UNION_ONE, UNION_ONE, UNION_ONE, 0x00); /* 33 */
    expect_header(&h, 33, FL_ERR_BAD_PARQUET, "numBytes 33");
    h = (bytes){.n = 0};
    ADD(&h, 0x15, 0x00, UNION_ONE, UNION_ONE, UNION_ONE, 0x00); /* 0 */
    expect_header(&h, 0, FL_ERR_BAD_PARQUET, "numBytes 0");
    h = (bytes){.n = 0};
    ADD(&h, 0x15, 0x3f, UNION_ONE, UNION_ONE, UNION_ONE, 0x00); /* -32 */
    expect_header(&h, 32, FL_ERR_BAD_PARQUET, "numBytes -32");
    h = (bytes){.n = 0};
    ADD(&h, 0x15, 0xfe, 0xff, 0xff, 0xff, 0x0f, UNION_ONE, UNION_ONE, UNION_ONE, 0x00);
    expect_header(&h, 64, FL_ERR_BAD_PARQUET, "numBytes INT32_MAX");

    /* numBytes against the bytes that follow. */
    h = (bytes){.n = 0};
    ADD(&h, 0x15, 0x80, 0x20, UNION_ONE, UNION_ONE, UNION_ONE, 0x00); /* 2048 */
    expect_header(&h, 1024, FL_ERR_TRUNCATED, "numBytes 2048, 1024 follow");
    h = (bytes){.n = 0};
    ADD(&h, 0x15, 0x80, 0x08, UNION_ONE, UNION_ONE, UNION_ONE, 0x00); /* 512 */
    expect_header(&h, 1024, FL_ERR_TRAILING_DATA, "numBytes 512, 1024 follow");
    h = (bytes){.n = 0};
    ADD(&h, 0x15, 0xc0, 0xff, 0xff, 0xff, 0x0f, UNION_ONE, UNION_ONE, UNION_ONE, 0x00);
    expect_header(&h, 64, FL_ERR_TRUNCATED, "numBytes 2^31-32");

    /* max_bytes caps the bitset before its length is checked. */
    h = standard_header();
    assert_int_equal(import_hb(&h, 1024, 1023, NULL), FL_ERR_TOO_LARGE);
    assert_int_equal(import_hb(&h, 10, 1023, NULL), FL_ERR_TOO_LARGE);
    assert_int_equal(import_hb(&h, 1024, 1024, NULL), FL_OK);

    /* Unsupported algorithm, hash or compression: another member of the union. */
    h = (bytes){.n = 0};
    ADD(&h, NUMBYTES_1024, 0x1c, 0x2c, 0x00, 0x00, UNION_ONE, UNION_ONE, 0x00);
    expect_header(&h, 1024, FL_ERR_BAD_PARQUET, "algorithm 2");
    h = (bytes){.n = 0};
    ADD(&h, NUMBYTES_1024, UNION_ONE, 0x1c, 0x2c, 0x00, 0x00, UNION_ONE, 0x00);
    expect_header(&h, 1024, FL_ERR_BAD_PARQUET, "hash 2");
    h = (bytes){.n = 0};
    ADD(&h, NUMBYTES_1024, UNION_ONE, UNION_ONE, 0x1c, 0x2c, 0x00, 0x00, 0x00);
    expect_header(&h, 1024, FL_ERR_BAD_PARQUET, "compression 2 (e.g. a future codec)");
    h = (bytes){.n = 0};
    ADD(&h, NUMBYTES_1024, 0x1c, 0x00, UNION_ONE, UNION_ONE, 0x00);
    expect_header(&h, 1024, FL_ERR_BAD_PARQUET, "empty algorithm union");
    h = (bytes){.n = 0};
    ADD(&h, NUMBYTES_1024, 0x1c, 0x1c, 0x00, 0x1c, 0x00, 0x00, UNION_ONE, UNION_ONE, 0x00);
    expect_header(&h, 1024, FL_ERR_BAD_PARQUET, "union with two members");
    h = (bytes){.n = 0};
    ADD(&h, NUMBYTES_1024, 0x1c, 0x15, 0x0a, 0x00, UNION_ONE, UNION_ONE, 0x00);
    expect_header(&h, 1024, FL_ERR_BAD_PARQUET, "member 1 not a struct");
}

static void test_header_malformed(void **state) {
    (void)state;
    bytes h;
    /* Varints: a continuation bit on the fifth byte of an i32, or bits beyond 32. */
    h = (bytes){.n = 0};
    ADD(&h, 0x15, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, UNION_ONE, UNION_ONE, UNION_ONE, 0x00);
    expect_malformed(&h, 1024, FL_ERR_BAD_PARQUET, "6-byte varint");
    h = (bytes){.n = 0};
    ADD(&h, 0x15, 0x80, 0x80, 0x80, 0x80, 0x10, UNION_ONE, UNION_ONE, UNION_ONE, 0x00);
    expect_malformed(&h, 1024, FL_ERR_BAD_PARQUET, "varint bit 32");
    h = (bytes){.n = 0};
    ADD(&h, 0x15, 0x80);
    expect_malformed(&h, 0, FL_ERR_TRUNCATED, "varint cut short");
    /* A long-form field id is a zigzag i16: at most 3 bytes, 16 bits. */
    h = (bytes){.n = 0};
    ADD(&h, NUMBYTES_1024, UNION_ONE, UNION_ONE, UNION_ONE, 0x05, 0x80, 0x80, 0x04, 0x00, 0x00);
    expect_malformed(&h, 1024, FL_ERR_BAD_PARQUET, "field id beyond i16");
    /* ...and a short-form delta may not carry it past 32767 either. */
    h = (bytes){.n = 0};
    ADD(&h, NUMBYTES_1024, UNION_ONE, UNION_ONE, UNION_ONE, 0x05, 0xfe, 0xff, 0x03, 0x00, 0x15,
        0x00, 0x00);
    expect_malformed(&h, 1024, FL_ERR_BAD_PARQUET, "field id 32767 + 1");
    /* Invalid type nibbles, and a type with delta but no id. */
    static const uint8_t bad_types[] = {0x1e, 0x1f, 0x10};
    for (size_t i = 0; i < sizeof bad_types; i++) {
        h = (bytes){.n = 0};
        ADD(&h, NUMBYTES_1024, UNION_ONE, UNION_ONE, UNION_ONE);
        add(&h, &bad_types[i], 1);
        ADD(&h, 0x00, 0x00);
        expect_malformed(&h, 1024, FL_ERR_BAD_PARQUET, "bad type nibble");
    }
    /* Known fields with another type, twice, or missing. */
    h = (bytes){.n = 0};
    ADD(&h, 0x16, 0x80, 0x10, UNION_ONE, UNION_ONE, UNION_ONE, 0x00);
    expect_malformed(&h, 1024, FL_ERR_BAD_PARQUET, "numBytes as i64");
    h = (bytes){.n = 0};
    ADD(&h, NUMBYTES_1024, 0x15, 0x00, UNION_ONE, UNION_ONE, 0x00);
    expect_malformed(&h, 1024, FL_ERR_BAD_PARQUET, "algorithm as i32");
    h = (bytes){.n = 0};
    ADD(&h, NUMBYTES_1024, 0x05, 0x02, 0x80, 0x10, UNION_ONE, UNION_ONE, UNION_ONE, 0x00);
    expect_malformed(&h, 1024, FL_ERR_BAD_PARQUET, "numBytes twice");
    h = (bytes){.n = 0};
    ADD(&h, NUMBYTES_1024, UNION_ONE, UNION_ONE, 0x00); /* pre-compression writers */
    expect_malformed(&h, 1024, FL_ERR_BAD_PARQUET, "no compression");
    h = (bytes){.n = 0};
    ADD(&h, 0x00);
    expect_malformed(&h, 1024, FL_ERR_BAD_PARQUET, "empty struct");
    /* Containers: sizes beyond int32, bad element types, bad bool elements, huge counts
     * that the input cannot hold. */
    h = (bytes){.n = 0};
    ADD(&h, NUMBYTES_1024, UNION_ONE, UNION_ONE, UNION_ONE, 0x18, 0xff, 0xff, 0xff, 0xff, 0x0f);
    expect_malformed(&h, 1024, FL_ERR_BAD_PARQUET, "binary length 2^32-1");
    h = (bytes){.n = 0};
    ADD(&h, NUMBYTES_1024, UNION_ONE, UNION_ONE, UNION_ONE, 0x18, 0xff, 0xff, 0xff, 0xff, 0x07);
    expect_malformed(&h, 0, FL_ERR_TRUNCATED, "binary longer than the input");
    h = (bytes){.n = 0};
    ADD(&h, NUMBYTES_1024, UNION_ONE, UNION_ONE, UNION_ONE, 0x19, 0xf5, 0x80, 0x80, 0x80, 0x80, 0x08);
    expect_malformed(&h, 1024, FL_ERR_BAD_PARQUET, "list size 2^31");
    h = (bytes){.n = 0};
    ADD(&h, NUMBYTES_1024, UNION_ONE, UNION_ONE, UNION_ONE, 0x19, 0xf5, 0xff, 0xff, 0xff, 0xff, 0x07);
    expect_malformed(&h, 0, FL_ERR_TRUNCATED, "list of 2^31-1 i32 cut short");
    h = (bytes){.n = 0};
    ADD(&h, NUMBYTES_1024, UNION_ONE, UNION_ONE, UNION_ONE, 0x19, 0x10, 0x00);
    expect_malformed(&h, 1024, FL_ERR_BAD_PARQUET, "list element type 0");
    h = (bytes){.n = 0};
    ADD(&h, NUMBYTES_1024, UNION_ONE, UNION_ONE, UNION_ONE, 0x19, 0x12, 0x03, 0x00);
    expect_malformed(&h, 1024, FL_ERR_BAD_PARQUET, "bool element 3");
    h = (bytes){.n = 0};
    ADD(&h, NUMBYTES_1024, UNION_ONE, UNION_ONE, UNION_ONE, 0x1b, 0x01, 0x05, 0x00, 0x00, 0x00);
    expect_malformed(&h, 1024, FL_ERR_BAD_PARQUET, "map key type 0");
    /* Nesting beyond the limit: structs, and lists of lists. */
    h = (bytes){.n = 0};
    ADD(&h, NUMBYTES_1024, UNION_ONE, UNION_ONE, UNION_ONE);
    for (int i = 0; i < 100; i++) ADD(&h, 0x1c);
    for (int i = 0; i < 101; i++) ADD(&h, 0x00);
    expect_malformed(&h, 1024, FL_ERR_BAD_PARQUET, "100 nested structs");
    h = (bytes){.n = 0};
    ADD(&h, NUMBYTES_1024, UNION_ONE, UNION_ONE, UNION_ONE, 0x19);
    for (int i = 0; i < 100; i++) ADD(&h, 0x19);
    ADD(&h, 0x05, 0x00);
    expect_malformed(&h, 1024, FL_ERR_BAD_PARQUET, "100 nested lists");

    /* A header cut at every length: nothing follows, so each is TRUNCATED. */
    bytes full = standard_header();
    for (size_t n = 0; n < full.n; n++) {
        h = (bytes){.n = 0};
        add(&h, full.b, n);
        expect_header(&h, 0, FL_ERR_TRUNCATED, "header prefix");
    }
}

static void test_bare_bitsets(void **state) {
    (void)state;
    uint8_t zeros[96] = {0};
    fl_filter *f = NULL;
    assert_int_equal(fl_parquet_import(zeros, 64, 0, &f), FL_OK);
    assert_int_equal(fl_size_bytes(f), 64);
    assert_int_equal(fl_count(f), 0);
    fl_free(f);
    assert_int_equal(fl_parquet_import(zeros, 64, 32, &f), FL_ERR_TOO_LARGE);
    assert_int_equal(fl_parquet_import(zeros, 31, 0, &f), FL_ERR_BAD_PARQUET);
    assert_int_equal(fl_parquet_import(zeros, 33, 0, &f), FL_ERR_BAD_PARQUET);
    assert_int_equal(fl_parquet_import(zeros, 0, 0, &f), FL_ERR_TRUNCATED); /* empty */
    assert_null(f);

    /* Any 32-byte multiple is a bitset unless it starts with a complete header, so a
     * malformed header padded to 64 bytes is read as bits (the spec's bare form). */
    bytes h = (bytes){.n = 0};
    ADD(&h, 0x15, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01);
    assert_int_equal(import_hb(&h, 64 - h.n, 0, &f), FL_OK);
    assert_int_equal(fl_size_bytes(f), 64);
    fl_free(f);
    uint8_t ones[64];
    memset(ones, 0xff, sizeof ones);
    assert_int_equal(fl_parquet_import(ones, 64, 0, &f), FL_OK);
    assert_true(fl_contains_bytes(f, "anything", 8)); /* all bits set */
    fl_free(f);
    assert_int_equal(fl_parquet_import(ones, 40, 0, &f), FL_ERR_BAD_PARQUET);
}

/* The fuzzing seeds (tests/fuzz_corpus/parquet, written by fuzz_parquet.c's generator)
 * must stay importable. */
static void test_fuzz_seeds_import(void **state) {
    (void)state;
    const char *root = source_root_or_skip();
    static const char *const names[] = {"header_2blocks.bin", "bare_2blocks.bin"};
    for (size_t i = 0; i < 2; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/tests/fuzz_corpus/parquet/%s", root, names[i]);
        FILE *fp = fopen(path, "rb");
        if (!fp) {
            print_message("skipped: %s is absent\n", path);
            skip();
        }
        uint8_t buf[256];
        size_t n = fread(buf, 1, sizeof buf, fp);
        fclose(fp);
        fl_filter *f = NULL;
        assert_int_equal(fl_parquet_import(buf, n, 1 << 20, &f), FL_OK);
        assert_true(fl_contains_bytes(f, "parquet", 7));
        fl_free(f);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_xxh64_known_answers),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_export_errors),
        cmocka_unit_test(test_header_variants_accepted),
        cmocka_unit_test(test_header_semantics),
        cmocka_unit_test(test_header_malformed),
        cmocka_unit_test(test_bare_bitsets),
        cmocka_unit_test(test_fuzz_seeds_import),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
