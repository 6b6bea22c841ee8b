/*
 * The filterlab file format (src/format/io.c, src/format/container.c, src/codec_filter*.c): round trips
 * for every variant, in memory and through files, and rejection of every truncation, every
 * single-bit flip and crafted files whose checksums are valid but whose fields or section
 * tables are not, each with its exact status; the same for format version 1 on the files
 * an old writer made (tests/fixtures/v1).
 *
 * The offsets below restate the layouts documented in src/format/container.c (version 2, with the
 * filter sections of src/format/codec_filter.c) and src/format/codec_filter_v1.c (version 1) on purpose:
 * a change to the format must show up here as a failing test.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xxhash.h>

#include "filterlab.h"
#include "testfiles.h"
#include "testutil.h"

static void put_le(uint8_t *p, uint64_t v, int n) {
    for (int i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static uint64_t get_le(const uint8_t *p, int n) {
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

/* ---- format version 2 (src/format/container.c) ---------------------------------------------- */
#define V2_VERSION 8
#define V2_KIND 10
#define V2_COUNT 12
#define V2_PSUM 16
#define V2_TABLE 24
#define V2_ENTRY 24
#define V2_ALIGN 64
#define KIND_FILTER 1
#define TAG(a, b, c, d) \
    ((uint32_t)(a) | ((uint32_t)(b) << 8) | ((uint32_t)(c) << 16) | ((uint32_t)(d) << 24))
#define TAG_HEAD TAG('H', 'E', 'A', 'D')
#define TAG_STSH TAG('S', 'T', 'S', 'H')
#define TAG_DATA TAG('D', 'A', 'T', 'A')
/* The filter's HEAD section (src/format/codec_filter.c), at offset 128 in every filter file. */
#define HEAD_AT 128
#define H_VARIANT 0
#define H_HASH 1
#define H_RESERVED 2
#define H_K 4
#define H_UNITS 8
#define H_SEED 16
#define H_KEYS 24
#define HEAD_LEN 32

static uint64_t align64(uint64_t x) {
    return (x + V2_ALIGN - 1) / V2_ALIGN * V2_ALIGN;
}
static uint32_t v2_count(const uint8_t *b) {
    return (uint32_t)get_le(b + V2_COUNT, 4);
}
static uint8_t *v2_entry(uint8_t *b, uint32_t i) {
    return b + V2_TABLE + V2_ENTRY * i;
}
static uint64_t v2_table_end(uint32_t count) {
    return V2_TABLE + (uint64_t)V2_ENTRY * count + 8;
}
static uint64_t sec_off(uint8_t *b, uint32_t i) {
    return get_le(v2_entry(b, i) + 8, 8);
}
static uint64_t sec_len(uint8_t *b, uint32_t i) {
    return get_le(v2_entry(b, i) + 16, 8);
}
/* The index of the first section tagged tag, or -1. */
static int sec_find(uint8_t *b, uint32_t tag) {
    for (uint32_t i = 0; i < v2_count(b); i++)
        if (get_le(v2_entry(b, i), 4) == tag) return (int)i;
    return -1;
}

/* A test's own container writer: the layout of src/format/container.c, restated. */
typedef struct tsec {
    uint32_t tag;
    const uint8_t *bytes;
    uint64_t len;
} tsec;

static uint8_t *build(uint16_t kind, const tsec *s, uint32_t n, size_t *outlen) {
    uint64_t end = v2_table_end(n), off[16];
    assert_true(n <= 16);
    for (uint32_t i = 0; i < n; i++) {
        off[i] = align64(end);
        end = off[i] + s[i].len + 8;
    }
    uint8_t *b = calloc(1, (size_t)end);
    assert_non_null(b);
    memcpy(b, "FLTRLAB\x1a", 8);
    put_le(b + V2_VERSION, 2, 2);
    put_le(b + V2_KIND, kind, 2);
    put_le(b + V2_COUNT, n, 4);
    put_le(b + V2_PSUM, XXH3_64bits(b, V2_PSUM), 8);
    for (uint32_t i = 0; i < n; i++) {
        uint8_t *e = v2_entry(b, i);
        put_le(e, s[i].tag, 4);
        put_le(e + 8, off[i], 8);
        put_le(e + 16, s[i].len, 8);
        if (s[i].len) memcpy(b + off[i], s[i].bytes, (size_t)s[i].len);
        put_le(b + off[i] + s[i].len, XXH3_64bits(b + off[i], (size_t)s[i].len), 8);
    }
    put_le(b + V2_TABLE + V2_ENTRY * n, XXH3_64bits(b + V2_TABLE, V2_ENTRY * n), 8);
    *outlen = (size_t)end;
    return b;
}

/* Recomputes the preamble and table checksums (the table's when it fits in len) after a
 * test edited them, so that only the semantic checks can object. */
static void reseal_table(uint8_t *b, size_t len) {
    put_le(b + V2_PSUM, XXH3_64bits(b, V2_PSUM), 8);
    uint32_t n = v2_count(b);
    if (n > 64 || v2_table_end(n) > len) return;
    put_le(b + V2_TABLE + V2_ENTRY * n, XXH3_64bits(b + V2_TABLE, V2_ENTRY * n), 8);
}

/* The same, and each section's checksum where the section fits in len. */
static void reseal(uint8_t *b, size_t len) {
    reseal_table(b, len);
    uint32_t n = v2_count(b);
    if (n > 64 || v2_table_end(n) > len) return;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t off = sec_off(b, i), l = sec_len(b, i);
        if (off > len || l > len || off + l + 8 > len) continue;
        put_le(b + off + l, XXH3_64bits(b + off, (size_t)l), 8);
    }
}

/* ---- format version 1 (src/format/codec_filter_v1.c) ---------------------------------------- */
#define OFF_VERSION 8
#define OFF_VARIANT 10
#define OFF_HASH 11
#define OFF_K 12
#define OFF_UNITS 16
#define OFF_SEED 24
#define OFF_KEYS 32
#define OFF_PAYLOAD 40
#define OFF_FLAGS 48
#define OFF_STASH_COUNT 52
#define OFF_STASH 56
#define OFF_HSUM 120
#define HEADER 128
#define TRAILER 8

static void reseal_v1(uint8_t *buf, size_t len) {
    put_le(buf + OFF_HSUM, XXH3_64bits(buf, OFF_HSUM), 8);
    if (len >= HEADER + TRAILER) {
        size_t payload = len - HEADER - TRAILER;
        put_le(buf + HEADER + payload, XXH3_64bits(buf + HEADER, payload), 8);
    }
}

/* ---- fixtures ------------------------------------------------------------------------- */
typedef struct spec {
    const char *name;
    fl_variant variant;
    uint64_t units;
    uint32_t k;
    fl_hash_id hash;
    uint64_t seed;
    unsigned keys; /* inserts attempted (cuckoo stops at FULL) */
} spec;

static const spec SPECS[] = {
    {"classic", FL_CLASSIC, 16, 5, FL_HASH_XXH3, 0, 40},
    {"block512", FL_BLOCK512, 4, 6, FL_HASH_XXH64, 7, 40},
    {"split256", FL_SPLIT256, 4, 8, FL_HASH_XXH3, 0x123456789abcdefull, 40},
    {"reg64", FL_REG64, 16, 4, FL_HASH_XXH3, 3, 40},
    {"cuckoo8", FL_CUCKOO, 8, 8, FL_HASH_XXH3, 1, 20},
    {"cuckoo16", FL_CUCKOO, 8, 16, FL_HASH_XXH64, 2, 20},
    /* 6-byte buckets: 9 of them end the payload inside an 8-byte word. */
    {"cuckoo12", FL_CUCKOO, 9, 12, FL_HASH_XXH3, 4, 30},
    {"cuckoo12-stash", FL_CUCKOO, 3, 12, FL_HASH_XXH64, 6, 64},
    /* Semi-sorted buckets, some left empty (test_crafted_payloads gives one a bad rank); the
     * 5-byte ones end the payload 3 bytes into an 8-byte word. */
    {"cuckoo11", FL_CUCKOO, 21, 11, FL_HASH_XXH3, 14, 30},
    {"cuckoo11-stash", FL_CUCKOO, 3, 11, FL_HASH_XXH64, 15, 64},
    {"cuckoo13", FL_CUCKOO, 21, 13, FL_HASH_XXH3, 12, 30},
    {"cuckoo13-stash", FL_CUCKOO, 3, 13, FL_HASH_XXH64, 13, 64},
    /* Counters: a word of 16 per 4 keys' worth, so some reach 2 and more. */
    {"counting", FL_COUNTING, 8, 5, FL_HASH_XXH3, 9, 40},
    {"counting512", FL_COUNTING512, 2, 6, FL_HASH_XXH64, 11, 40},
    /* Two buckets filled past the table: the last inserts land in the victim stash. Keep it
     * last: tests below take SPECS[NSPECS - 1] as the stash case. */
    {"cuckoo8-stash", FL_CUCKOO, 2, 8, FL_HASH_XXH3, 5, 64},
};
#define NSPECS (sizeof SPECS / sizeof SPECS[0])

static uint64_t key_of(unsigned i) {
    return 0x9e3779b97f4a7c15ull * (i + 1);
}

static fl_filter *make(const spec *s) {
    fl_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.variant = s->variant;
    cfg.geometry.variant = s->variant;
    cfg.geometry.units = s->units;
    cfg.geometry.k = s->k;
    cfg.hash = s->hash;
    cfg.seed = s->seed;
    fl_filter *f = NULL;
    assert_int_equal(fl_create(&cfg, &f), FL_OK);
    for (unsigned i = 0; i < s->keys; i++) {
        char word[32];
        int n = snprintf(word, sizeof word, "key-%u", i);
        fl_status st = (i & 1) ? fl_insert_u64(f, key_of(i)) : fl_insert_bytes(f, word, (size_t)n);
        if (st == FL_ERR_FULL && s->variant == FL_CUCKOO) break;
        assert_int_equal(st, FL_OK);
    }
    return f;
}

/* Saves f into a fresh heap buffer. */
static uint8_t *save(const fl_filter *f, size_t *len) {
    size_t n = fl_serialized_size(f);
    assert_true(n > HEAD_AT + HEAD_LEN);
    uint8_t *buf = malloc(n);
    assert_non_null(buf);
    size_t written = 0;
    assert_int_equal(fl_save_mem(f, buf, n, &written), FL_OK);
    assert_int_equal(written, n);
    *len = n;
    return buf;
}

/* Same answers, same info, and a re-save that is byte-identical (which covers payload,
 * key count, stash and every header field). */
static void assert_same_filter(const fl_filter *a, const fl_filter *b) {
    fl_info ia, ib;
    assert_int_equal(fl_get_info(a, &ia), FL_OK);
    assert_int_equal(fl_get_info(b, &ib), FL_OK);
    assert_int_equal(ia.geometry.variant, ib.geometry.variant);
    assert_int_equal(ia.geometry.units, ib.geometry.units);
    assert_int_equal(ia.geometry.k, ib.geometry.k);
    assert_int_equal(ia.hash, ib.hash);
    assert_int_equal(ia.seed, ib.seed);
    assert_int_equal(ia.keys, ib.keys);
    assert_int_equal(ia.bytes, ib.bytes);
    assert_int_equal(ia.bits_set, ib.bits_set);
    assert_int_equal(ia.stash_used, ib.stash_used);
    for (unsigned i = 0; i < 2000; i++) {
        char word[32];
        int n = snprintf(word, sizeof word, "key-%u", i);
        assert_int_equal(fl_contains_u64(a, key_of(i)), fl_contains_u64(b, key_of(i)));
        assert_int_equal(fl_contains_bytes(a, word, (size_t)n), fl_contains_bytes(b, word, (size_t)n));
    }
    size_t la, lb;
    uint8_t *sa = save(a, &la), *sb = save(b, &lb);
    assert_same_image_and_free(sa, la, sb, lb);
}

/* ---- temporary directory (tests/testfiles.h) ----------------------------------------- */
static int setup_dir(void **state) {
    (void)state;
    return scratch_dir_create("fl_test_io");
}

static int teardown_dir(void **state) {
    (void)state;
    scratch_dir_remove();
    return 0;
}

static uint8_t *read_file(const char *path, size_t *len) {
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    assert_int_equal(fseek(fp, 0, SEEK_END), 0);
    long n = ftell(fp);
    assert_true(n >= 0);
    rewind(fp);
    uint8_t *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
    fclose(fp);
    *len = (size_t)n;
    return buf;
}

/* ---- round trips ---------------------------------------------------------------------- */
/* The sections of a saved filter, rebuilt by the test's own writer: the bytes must be the
 * library's exactly (the layout of src/format/container.c and src/format/codec_filter.c, restated). */
static void assert_layout(const fl_filter *f, uint8_t *buf, size_t len) {
    assert_memory_equal(buf, "FLTRLAB\x1a\x02\x00\x01\x00", 12);
    fl_info info;
    assert_int_equal(fl_get_info(f, &info), FL_OK);
    uint32_t n = v2_count(buf);
    assert_int_equal(n, info.stash_used ? 3 : 2);
    tsec s[3];
    for (uint32_t i = 0; i < n; i++) {
        s[i].tag = (uint32_t)get_le(v2_entry(buf, i), 4);
        s[i].len = sec_len(buf, i);
        s[i].bytes = buf + sec_off(buf, i);
        assert_int_equal(sec_off(buf, i) % V2_ALIGN, 0);
    }
    assert_int_equal(s[0].tag, TAG_HEAD);
    assert_int_equal(sec_off(buf, 0), HEAD_AT);
    assert_int_equal(s[0].len, HEAD_LEN);
    if (n == 3) {
        assert_int_equal(s[1].tag, TAG_STSH);
        assert_int_equal(s[1].len, 8 * info.stash_used);
    }
    assert_int_equal(s[n - 1].tag, TAG_DATA);
    assert_int_equal(s[n - 1].len, info.bytes);
    const uint8_t *h = buf + HEAD_AT;
    assert_int_equal(h[H_VARIANT], info.geometry.variant);
    assert_int_equal(h[H_HASH], info.hash);
    assert_int_equal(get_le(h + H_RESERVED, 2), 0);
    assert_int_equal(get_le(h + H_K, 4), info.geometry.k);
    assert_int_equal(get_le(h + H_UNITS, 8), info.geometry.units);
    assert_int_equal(get_le(h + H_SEED, 8), info.seed);
    assert_int_equal(get_le(h + H_KEYS, 8), info.keys);
    size_t blen;
    uint8_t *b = build(KIND_FILTER, s, n, &blen);
    assert_int_equal(blen, len);
    assert_memory_equal(b, buf, len);
    free(b);
}

static void test_round_trip_mem(void **state) {
    (void)state;
    for (size_t s = 0; s < NSPECS; s++) {
        fl_filter *f = make(&SPECS[s]);
        size_t len;
        uint8_t *buf = save(f, &len);
        assert_layout(f, buf, len);
        fl_filter *g = NULL;
        assert_int_equal(fl_load_mem(buf, len, 0, &g), FL_OK);
        assert_non_null(g);
        assert_same_filter(f, g);
        assert_int_equal(fl_count(g), fl_count(f));
        /* A cap equal to the payload is enough. */
        fl_filter *h = NULL;
        assert_int_equal(fl_load_mem(buf, len, fl_size_bytes(f), &h), FL_OK);
        fl_free(h);
        fl_free(g);
        fl_free(f);
        free(buf);
    }
}

/* f saved to path: the file holds exactly the fl_save_mem bytes and loads back to the same
 * filter. */
static void assert_file_round_trip(const fl_filter *f, const char *path) {
    assert_int_equal(fl_save_file(f, path), FL_OK);
    size_t flen, mlen;
    uint8_t *fbuf = read_file(path, &flen), *mbuf = save(f, &mlen);
    assert_int_equal(flen, mlen);
    assert_memory_equal(fbuf, mbuf, mlen);
    fl_filter *g = NULL;
    assert_int_equal(fl_load_file(path, 0, &g), FL_OK);
    assert_same_filter(f, g);
    fl_free(g);
    free(fbuf);
    free(mbuf);
}

static void test_round_trip_file(void **state) {
    (void)state;
    for (size_t s = 0; s < NSPECS; s++) {
        fl_filter *f = make(&SPECS[s]);
        char path[512];
        path_in_dir(path, sizeof path, SPECS[s].name);
        assert_file_round_trip(f, path);
        /* Saving again replaces the file and leaves no temporary behind. */
        assert_int_equal(fl_save_file(f, path), FL_OK);
        assert_int_equal(count_temp_files(), 0);
        fl_free(f);
    }
}

/* A payload larger than fl_save_file's 64 KiB bounce buffer is written in several loads,
 * each hashed as it goes: the file must still equal fl_save_mem's bytes. */
static void test_large_file_matches_mem(void **state) {
    (void)state;
    spec big = SPECS[1];
    big.units = 3000; /* block512: 192,000 bytes, three bounce loads */
    big.keys = 5000;
    fl_filter *f = make(&big);
    char path[512];
    path_in_dir(path, sizeof path, "large.flt");
    assert_file_round_trip(f, path);
    unlink(path);
    fl_free(f);
}

static void test_cuckoo_stash_preserved(void **state) {
    (void)state;
    const spec *s = &SPECS[NSPECS - 1];
    fl_filter *f = make(s);
    fl_info info;
    assert_int_equal(fl_get_info(f, &info), FL_OK);
    assert_true(info.stash_used > 0); /* the fixture must reach the stash to test it */
    size_t len;
    uint8_t *buf = save(f, &len);
    int st_at = sec_find(buf, TAG_STSH);
    assert_true(st_at > 0);
    assert_int_equal(sec_len(buf, (uint32_t)st_at), 8 * info.stash_used);
    fl_filter *g = NULL;
    assert_int_equal(fl_load_mem(buf, len, 0, &g), FL_OK);
    fl_info gi;
    assert_int_equal(fl_get_info(g, &gi), FL_OK);
    assert_int_equal(gi.stash_used, info.stash_used);
    assert_int_equal(gi.keys, info.keys);
    /* Every key stored before saving, stash ones included, is still found. */
    for (unsigned i = 0; i < s->keys; i++) {
        if (!(i & 1)) continue;
        if (fl_contains_u64(f, key_of(i))) assert_true(fl_contains_u64(g, key_of(i)));
    }
    /* Deleting an inserted key still works on the loaded copy (counts stay in step). */
    assert_int_equal(fl_delete_bytes(g, "key-0", 5), FL_OK);
    assert_int_equal(fl_count(g), info.keys - 1);
    fl_free(g);
    fl_free(f);
    free(buf);
}

static void test_parquet_import_saves(void **state) {
    (void)state;
    /* A Parquet import reports 0 keys with bits set; that must save and load unchanged. */
    uint8_t bits[64];
    for (size_t i = 0; i < sizeof bits; i++) bits[i] = (uint8_t)(i * 37 + 1);
    fl_filter *f = NULL;
    assert_int_equal(fl_parquet_import(bits, sizeof bits, 0, &f), FL_OK);
    size_t len;
    uint8_t *buf = save(f, &len);
    fl_filter *g = NULL;
    assert_int_equal(fl_load_mem(buf, len, 0, &g), FL_OK);
    assert_same_filter(f, g);
    fl_free(g);
    fl_free(f);
    free(buf);
}

/* ---- v1 fixtures (tests/fixtures/v1, written by the 8388ec0 writer) ------------------- */
typedef struct fixture {
    const char *file;
    fl_variant variant;
    uint64_t units;
    uint32_t k;
    fl_hash_id hash;
    uint64_t seed;
    unsigned keys;      /* fixture-0 .. fixture-<keys-1> were inserted */
    size_t bytes;
    uint64_t bits_set;
    uint32_t stash;
    unsigned positives; /* among other-0 .. other-9999, as the old build answered */
} fixture;

/* The values of tests/fixtures/v1/README.md. */
static const fixture FIXTURES[] = {
    {"classic.flt", FL_CLASSIC, 32, 5, FL_HASH_XXH3, 11, 40, 256, 189, 0, 0},
    {"block512.flt", FL_BLOCK512, 4, 6, FL_HASH_XXH64, 7, 40, 256, 214, 0, 0},
    {"split256_parquet.flt", FL_SPLIT256, 4, 8, FL_HASH_XXH64, 0, 40, 128, 285, 0, 0},
    {"reg64.flt", FL_REG64, 16, 4, FL_HASH_XXH3, 3, 40, 128, 141, 0, 13},
    {"cuckoo8.flt", FL_CUCKOO, 8, 8, FL_HASH_XXH3, 1, 20, 32, 20, 0, 169},
    {"cuckoo16.flt", FL_CUCKOO, 8, 16, FL_HASH_XXH64, 2, 20, 64, 20, 0, 0},
    {"cuckoo8_stash.flt", FL_CUCKOO, 2, 8, FL_HASH_XXH3, 5, 12, 8, 12, 4, 369},
};
#define NFIXTURES (sizeof FIXTURES / sizeof FIXTURES[0])

/* Skips the test when the source tree is not known. */
static void fixture_path(char *out, size_t cap, const char *file) {
    snprintf(out, cap, "%s/tests/fixtures/v1/%s", source_root_or_skip(), file);
}

/* The bytes of one fixture file. */
static uint8_t *read_fixture(const char *file, size_t *len) {
    char path[1024];
    fixture_path(path, sizeof path, file);
    return read_file(path, len);
}

static void test_v1_fixtures(void **state) {
    (void)state;
    for (size_t i = 0; i < NFIXTURES; i++) {
        const fixture *x = &FIXTURES[i];
        size_t len;
        uint8_t *buf = read_fixture(x->file, &len);
        assert_int_equal(get_le(buf + OFF_VERSION, 2), 1);
        assert_int_equal(len, HEADER + x->bytes + TRAILER);
        char path[1024];
        fixture_path(path, sizeof path, x->file);
        fl_filter *f = NULL, *m = NULL;
        assert_int_equal(fl_load_file(path, 0, &f), FL_OK);
        assert_int_equal(fl_load_mem(buf, len, 0, &m), FL_OK);
        assert_same_filter(f, m);

        fl_info info;
        assert_int_equal(fl_get_info(f, &info), FL_OK);
        assert_int_equal(info.geometry.variant, x->variant);
        assert_int_equal(info.geometry.units, x->units);
        assert_int_equal(info.geometry.k, x->k);
        assert_int_equal(info.hash, x->hash);
        assert_int_equal(info.seed, x->seed);
        assert_int_equal(info.keys, x->keys);
        assert_int_equal(info.bytes, x->bytes);
        assert_int_equal(info.bits_set, x->bits_set);
        assert_int_equal(info.stash_used, x->stash);
        /* Every inserted key is found, and absent keys answer as the old build did. */
        for (unsigned k = 0; k < x->keys; k++) {
            char word[32];
            int n = snprintf(word, sizeof word, "fixture-%u", k);
            assert_int_equal(fl_contains_bytes(f, word, (size_t)n), 1);
        }
        unsigned positives = 0;
        for (unsigned k = 0; k < 10000; k++) {
            char word[32];
            int n = snprintf(word, sizeof word, "other-%u", k);
            positives += (unsigned)fl_contains_bytes(f, word, (size_t)n);
        }
        assert_int_equal(positives, x->positives);

        /* A save of the loaded filter is version 2 and round-trips. */
        size_t vlen;
        uint8_t *v2 = save(f, &vlen);
        assert_int_equal(get_le(v2 + V2_VERSION, 2), 2);
        assert_layout(f, v2, vlen);
        fl_filter *g = NULL;
        assert_int_equal(fl_load_mem(v2, vlen, 0, &g), FL_OK);
        assert_same_filter(f, g);
        if (x->variant == FL_CUCKOO) {
            /* The loaded copy keeps its counts in step: a delete of a stored key works. */
            assert_int_equal(fl_delete_bytes(g, "fixture-0", 9), FL_OK);
            assert_int_equal(fl_count(g), x->keys - 1);
        }
        fl_free(g);
        fl_free(m);
        fl_free(f);
        free(v2);
        free(buf);
    }
}

/* ---- rejection ------------------------------------------------------------------------ */
/* Every proper prefix of buf is TRUNCATED. */
static void assert_every_truncation(const char *name, const uint8_t *buf, size_t len) {
    for (size_t n = 0; n < len; n++) {
        /* A private copy of exactly n bytes, so ASan catches any read past the end. */
        uint8_t *cut = malloc(n ? n : 1);
        assert_non_null(cut);
        memcpy(cut, buf, n);
        fl_filter *g = (fl_filter *)1;
        fl_status st = fl_load_mem(cut, n, 0, &g);
        if (st != FL_ERR_TRUNCATED) print_error("%s: length %zu of %zu\n", name, n, len);
        assert_int_equal(st, FL_ERR_TRUNCATED);
        assert_null(g);
        free(cut);
    }
}

static void test_every_truncation(void **state) {
    (void)state;
    for (size_t s = 0; s < NSPECS; s++) {
        fl_filter *f = make(&SPECS[s]);
        size_t len;
        uint8_t *buf = save(f, &len);
        assert_every_truncation(SPECS[s].name, buf, len);
        fl_free(f);
        free(buf);
    }
    for (size_t i = 0; i < NFIXTURES; i++) {
        size_t len;
        uint8_t *buf = read_fixture(FIXTURES[i].file, &len);
        assert_every_truncation(FIXTURES[i].file, buf, len);
        free(buf);
    }
}

static void test_short_bad_magic(void **state) {
    (void)state;
    fl_filter *g = NULL;
    assert_int_equal(fl_load_mem("", 0, 0, &g), FL_ERR_TRUNCATED);
    assert_int_equal(fl_load_mem("F", 1, 0, &g), FL_ERR_TRUNCATED);
    assert_int_equal(fl_load_mem("FLTRLAB", 7, 0, &g), FL_ERR_TRUNCATED);
    assert_int_equal(fl_load_mem("X", 1, 0, &g), FL_ERR_BAD_MAGIC);
    assert_int_equal(fl_load_mem("FLX", 3, 0, &g), FL_ERR_BAD_MAGIC);
    assert_int_equal(fl_load_mem("FLTRLAB\n", 8, 0, &g), FL_ERR_BAD_MAGIC);
    /* A Parquet bitset is not a filterlab file. */
    static const uint8_t pq[16] = {0x15, 0x80, 0x10, 0x1c, 0x1c};
    assert_int_equal(fl_load_mem(pq, sizeof pq, 0, &g), FL_ERR_BAD_MAGIC);
    assert_null(g);
}

/* Version 2: magic, version, then every byte is under a checksum (preamble, table or the
 * section's own) except the zero padding between them, which must stay zero. */
static fl_status expected_for_bit_v2(uint8_t *buf, size_t byte) {
    if (byte < V2_VERSION) return FL_ERR_BAD_MAGIC;
    if (byte < V2_KIND) return FL_ERR_BAD_VERSION;
    uint32_t n = v2_count(buf);
    uint64_t end = v2_table_end(n);
    for (uint32_t i = 0; i < n; i++) {
        if (byte >= end && byte < sec_off(buf, i)) return FL_ERR_CORRUPT;
        end = sec_off(buf, i) + sec_len(buf, i) + 8;
    }
    return FL_ERR_CHECKSUM;
}

/* Version 1: magic, version, then one of the two checksums. */
static fl_status expected_for_bit_v1(uint8_t *buf, size_t byte) {
    (void)buf;
    if (byte < OFF_VERSION) return FL_ERR_BAD_MAGIC;
    if (byte < OFF_VARIANT) return FL_ERR_BAD_VERSION;
    return FL_ERR_CHECKSUM;
}

static void assert_every_bit_flip(const char *name, uint8_t *buf, size_t len,
                                  fl_status (*expected)(uint8_t *, size_t)) {
    for (size_t byte = 0; byte < len; byte++) {
        fl_status want = expected(buf, byte);
        for (int bit = 0; bit < 8; bit++) {
            buf[byte] ^= (uint8_t)(1u << bit);
            fl_filter *g = NULL;
            fl_status st = fl_load_mem(buf, len, 0, &g);
            if (st != want)
                print_error("%s: byte %zu bit %d: %s\n", name, byte, bit, fl_strerror(st));
            assert_int_equal(st, want);
            assert_null(g);
            buf[byte] ^= (uint8_t)(1u << bit);
        }
    }
    fl_filter *g = NULL;
    assert_int_equal(fl_load_mem(buf, len, 0, &g), FL_OK); /* restored intact */
    fl_free(g);
}

static void test_every_bit_flip(void **state) {
    (void)state;
    for (size_t s = 0; s < NSPECS; s++) {
        fl_filter *f = make(&SPECS[s]);
        size_t len;
        uint8_t *buf = save(f, &len);
        assert_every_bit_flip(SPECS[s].name, buf, len, expected_for_bit_v2);
        fl_free(f);
        free(buf);
    }
    for (size_t i = 0; i < NFIXTURES; i++) {
        size_t len;
        uint8_t *buf = read_fixture(FIXTURES[i].file, &len);
        assert_every_bit_flip(FIXTURES[i].file, buf, len, expected_for_bit_v1);
        free(buf);
    }
}

/* ---- crafted version-2 files ---------------------------------------------------------- */
/* A saved filter split into its sections (copies), for rebuilding with edits. */
typedef struct parts {
    uint8_t head[HEAD_LEN];
    uint8_t stash[64];
    uint64_t stash_len;
    uint8_t *data;
    uint64_t data_len;
} parts;

static void split_file(const spec *s, parts *p) {
    fl_filter *f = make(s);
    size_t len;
    uint8_t *buf = save(f, &len);
    memset(p, 0, sizeof *p);
    memcpy(p->head, buf + HEAD_AT, HEAD_LEN);
    int st = sec_find(buf, TAG_STSH), d = sec_find(buf, TAG_DATA);
    if (st >= 0) {
        p->stash_len = sec_len(buf, (uint32_t)st);
        memcpy(p->stash, buf + sec_off(buf, (uint32_t)st), (size_t)p->stash_len);
    }
    p->data_len = sec_len(buf, (uint32_t)d);
    p->data = malloc((size_t)p->data_len);
    assert_non_null(p->data);
    memcpy(p->data, buf + sec_off(buf, (uint32_t)d), (size_t)p->data_len);
    free(buf);
    fl_free(f);
}

static fl_status load_built(uint16_t kind, const tsec *s, uint32_t n) {
    size_t len;
    uint8_t *b = build(kind, s, n, &len);
    fl_filter *g = (fl_filter *)1;
    fl_status st = fl_load_mem(b, len, 0, &g);
    if (st == FL_OK) {
        fl_free(g);
    } else {
        assert_null(g);
    }
    free(b);
    return st;
}

/* Loads HEAD (edited by the caller), the stash if any and DATA as the codec writes them. */
static fl_status load_parts(const parts *p) {
    tsec s[3];
    uint32_t n = 0;
    s[n++] = (tsec){TAG_HEAD, p->head, HEAD_LEN};
    if (p->stash_len) s[n++] = (tsec){TAG_STSH, p->stash, p->stash_len};
    s[n++] = (tsec){TAG_DATA, p->data, p->data_len};
    return load_built(KIND_FILTER, s, n);
}

#define EXPECT(want, expr, what)                                                  \
    do {                                                                          \
        fl_status got_ = (expr);                                                  \
        if (got_ != (want)) print_error("%s: got %s\n", what, fl_strerror(got_)); \
        assert_int_equal(got_, want);                                             \
    } while (0)

static void test_crafted_head(void **state) {
    (void)state;
    parts split, classic, ck8, ck16, p;
    split_file(&SPECS[2], &split);
    split_file(&SPECS[0], &classic);
    split_file(&SPECS[4], &ck8);
    split_file(&SPECS[5], &ck16);
    /* The test's writer reproduces accepted files. */
    EXPECT(FL_OK, load_parts(&split), "rebuilt split256");
    EXPECT(FL_OK, load_parts(&ck8), "rebuilt cuckoo8");

    /* Geometry the variant rejects, or a DATA length that disagrees with it. */
    p = split;
    put_le(p.head + H_K, 9, 4);
    EXPECT(FL_ERR_CORRUPT, load_parts(&p), "split256 k=9");
    p = classic;
    put_le(p.head + H_K, 0, 4);
    EXPECT(FL_ERR_CORRUPT, load_parts(&p), "k=0");
    p = ck8;
    put_le(p.head + H_K, 9, 4);
    EXPECT(FL_ERR_CORRUPT, load_parts(&p), "cuckoo k=9");
    p = split;
    put_le(p.head + H_UNITS, get_le(p.head + H_UNITS, 8) + 1, 8);
    EXPECT(FL_ERR_CORRUPT, load_parts(&p), "units+1");
    p = split;
    put_le(p.head + H_UNITS, 0, 8);
    EXPECT(FL_ERR_CORRUPT, load_parts(&p), "units=0");
    p = split;
    put_le(p.head + H_UNITS, 1ull << 32, 8);
    EXPECT(FL_ERR_CORRUPT, load_parts(&p), "units=2^32");
    p = split;
    p.data_len -= 32;
    EXPECT(FL_ERR_CORRUPT, load_parts(&p), "DATA-32");
    /* classic, 16 words = 128 bytes; as cuckoo k=5 is not a fingerprint width. */
    p = classic;
    p.head[H_VARIANT] = FL_CUCKOO;
    EXPECT(FL_ERR_CORRUPT, load_parts(&p), "variant changed");
    /* Unknown enums and reserved bits. */
    p = split;
    p.head[H_VARIANT] = 0;
    EXPECT(FL_ERR_CORRUPT, load_parts(&p), "variant 0");
    p.head[H_VARIANT] = FL_VARIANT_MAX + 1;
    EXPECT(FL_ERR_CORRUPT, load_parts(&p), "variant past the last");
    p = split;
    p.head[H_HASH] = 0;
    EXPECT(FL_ERR_CORRUPT, load_parts(&p), "hash 0");
    p.head[H_HASH] = 3;
    EXPECT(FL_ERR_CORRUPT, load_parts(&p), "hash 3");
    p = split;
    put_le(p.head + H_RESERVED, 1u << 15, 2);
    EXPECT(FL_ERR_CORRUPT, load_parts(&p), "reserved");

    /* Stash: Bloom variants have none; cuckoo holds 1..8 valid entries. */
    p = split;
    p.stash_len = 8;
    put_le(p.stash, 0, 4);
    put_le(p.stash + 4, 1, 2);
    EXPECT(FL_ERR_CORRUPT, load_parts(&p), "stash on bloom");
    /* 9 entries: the section's length alone is refused. */
    uint8_t nine[72] = {0};
    EXPECT(FL_ERR_CORRUPT, load_built(KIND_FILTER,
                                      (tsec[]){{TAG_HEAD, ck8.head, HEAD_LEN},
                                               {TAG_STSH, nine, sizeof nine},
                                               {TAG_DATA, ck8.data, ck8.data_len}},
                                      3),
           "stash 9");
    p = ck8;
    p.stash_len = 12;
    EXPECT(FL_ERR_CORRUPT, load_parts(&p), "stash of 1.5 entries");
    EXPECT(FL_ERR_CORRUPT, load_built(KIND_FILTER,
                                      (tsec[]){{TAG_HEAD, ck8.head, HEAD_LEN},
                                               {TAG_STSH, ck8.stash, 0},
                                               {TAG_DATA, ck8.data, ck8.data_len}},
                                      3),
           "empty stash section");
    /* One entry (bucket, fp, pad) added to an empty stash, the key count bumped so that only
     * the entry itself can be wrong. */
    struct {
        uint32_t bucket, fp, pad;
        const parts *base;
        fl_status want;
        const char *what;
    } entries[] = {
        {7, 5, 0, &ck8, FL_OK, "valid entry"},
        {8, 5, 0, &ck8, FL_ERR_CORRUPT, "bucket >= units"},
        {3, 0, 0, &ck8, FL_ERR_CORRUPT, "fp 0"},
        {3, 256, 0, &ck8, FL_ERR_CORRUPT, "fp >= 2^k"},
        {3, 256, 0, &ck16, FL_OK, "fp 256 with k=16"},
        {3, 5, 1, &ck8, FL_ERR_CORRUPT, "pad"},
    };
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
        p = *entries[i].base;
        assert_int_equal(p.stash_len, 0);
        p.stash_len = 8;
        put_le(p.stash, entries[i].bucket, 4);
        put_le(p.stash + 4, entries[i].fp, 2);
        put_le(p.stash + 6, entries[i].pad, 2);
        put_le(p.head + H_KEYS, get_le(p.head + H_KEYS, 8) + 1, 8);
        EXPECT(entries[i].want, load_parts(&p), entries[i].what);
    }
    /* The cuckoo key count is the number of occupied slots; a Bloom one is free. */
    p = ck8;
    put_le(p.head + H_KEYS, get_le(p.head + H_KEYS, 8) + 1, 8);
    EXPECT(FL_ERR_CORRUPT, load_parts(&p), "keys+1");
    put_le(p.head + H_KEYS, get_le(p.head + H_KEYS, 8) - 2, 8);
    EXPECT(FL_ERR_CORRUPT, load_parts(&p), "keys-1");
    p = ck16;
    put_le(p.head + H_KEYS, get_le(p.head + H_KEYS, 8) + 1, 8);
    EXPECT(FL_ERR_CORRUPT, load_parts(&p), "keys+1 k16");
    p = ck8;
    uint8_t *empty = memchr(p.data, 0, (size_t)p.data_len);
    assert_non_null(empty);
    *empty = 0x42;
    EXPECT(FL_ERR_CORRUPT, load_parts(&p), "uncounted fingerprint");
    *empty = 0;
    /* A semi-sorted bucket's 12-bit rank past the last tuple's (3875), at each semi-sorted
     * width: an empty bucket given one, so that the slot count cannot be what objects (the
     * table decodes those ranks to 0). */
    static const char *const semi_sorted[] = {"cuckoo11", "cuckoo13"};
    for (size_t w = 0; w < 2; w++) {
        parts ck;
        size_t si = 0;
        while (strcmp(SPECS[si].name, semi_sorted[w]) != 0) si++;
        size_t bb = SPECS[si].k == 11 ? 5 : 6;
        split_file(&SPECS[si], &ck);
        size_t hole = 0;
        while (hole + bb <= ck.data_len && get_le(ck.data + hole, (int)bb) != 0) hole += bb;
        assert_true(hole + bb <= ck.data_len);
        EXPECT(FL_OK, load_parts(&ck), semi_sorted[w]);
        put_le(ck.data + hole, 3876, 2);
        EXPECT(FL_ERR_CORRUPT, load_parts(&ck), "semi-sorted rank 3876");
        put_le(ck.data + hole, 4095, 2);
        EXPECT(FL_ERR_CORRUPT, load_parts(&ck), "semi-sorted rank 4095");
        free(ck.data);
    }
    p = split;
    put_le(p.head + H_KEYS, 123456789, 8);
    EXPECT(FL_OK, load_parts(&p), "bloom keys");
    free(split.data);
    free(classic.data);
    free(ck8.data);
    free(ck16.data);
}

static void test_crafted_sections(void **state) {
    (void)state;
    parts ck;
    split_file(&SPECS[NSPECS - 1], &ck); /* cuckoo with a stash: all three sections */
    assert_true(ck.stash_len > 0);
    const uint8_t x[16] = {1, 2, 3};
    tsec H = {TAG_HEAD, ck.head, HEAD_LEN}, S = {TAG_STSH, ck.stash, ck.stash_len},
         D = {TAG_DATA, ck.data, ck.data_len}, X = {TAG('X', 'T', 'R', 'A'), x, sizeof x};
    EXPECT(FL_OK, load_built(KIND_FILTER, (tsec[]){H, S, D}, 3), "as saved");
    /* Structure kinds other than a filter: a clear status, not a parse. */
    EXPECT(FL_ERR_WRONG_KIND, load_built(2, (tsec[]){H, S, D}, 3), "kind 2");
    EXPECT(FL_ERR_WRONG_KIND, load_built(0, (tsec[]){H, S, D}, 3), "kind 0");
    EXPECT(FL_ERR_WRONG_KIND, load_built(0xffff, (tsec[]){X}, 1), "kind 65535");
    /* Unknown, missing, duplicated and misplaced sections. */
    EXPECT(FL_ERR_CORRUPT, load_built(KIND_FILTER, (tsec[]){H, S, X, D}, 4), "unknown tag");
    EXPECT(FL_ERR_CORRUPT, load_built(KIND_FILTER, (tsec[]){H, S}, 2), "no DATA");
    EXPECT(FL_ERR_CORRUPT, load_built(KIND_FILTER, (tsec[]){S, D}, 2), "no HEAD");
    EXPECT(FL_ERR_CORRUPT, load_built(KIND_FILTER, (tsec[]){H, H, S, D}, 4), "two HEAD");
    EXPECT(FL_ERR_CORRUPT, load_built(KIND_FILTER, (tsec[]){H, S, S, D}, 4), "two STSH");
    EXPECT(FL_ERR_CORRUPT, load_built(KIND_FILTER, (tsec[]){H, S, D, D}, 4), "two DATA");
    EXPECT(FL_ERR_CORRUPT, load_built(KIND_FILTER, (tsec[]){S, H, D}, 3), "HEAD second");
    EXPECT(FL_ERR_CORRUPT, load_built(KIND_FILTER, (tsec[]){H, D, S}, 3), "DATA not last");
    tsec h31 = H, h33 = H;
    h31.len = 31;
    uint8_t big[HEAD_LEN + 1] = {0};
    memcpy(big, ck.head, HEAD_LEN);
    h33.bytes = big;
    h33.len = HEAD_LEN + 1;
    EXPECT(FL_ERR_CORRUPT, load_built(KIND_FILTER, (tsec[]){h31, S, D}, 3), "HEAD 31 bytes");
    EXPECT(FL_ERR_CORRUPT, load_built(KIND_FILTER, (tsec[]){h33, S, D}, 3), "HEAD 33 bytes");

    /* The table itself, edited and resealed: entries must sit where the layout puts them. */
    size_t len;
    uint8_t *good = build(KIND_FILTER, (tsec[]){H, S, D}, 3, &len);
    uint8_t *b = malloc(len);
    assert_non_null(b);
    struct {
        uint32_t entry;
        int field; /* byte offset in the entry */
        uint64_t value;
        int width;
        fl_status want;
        const char *what;
    } edits[] = {
        {1, 8, 0, 8, FL_ERR_CORRUPT, "STSH offset 0 (overlaps the table)"},
        {1, 8, HEAD_AT, 8, FL_ERR_CORRUPT, "STSH over HEAD"},
        {1, 8, HEAD_AT + 128, 8, FL_ERR_CORRUPT, "STSH after a gap"},
        {2, 8, HEAD_AT + 64 + 1, 8, FL_ERR_CORRUPT, "DATA unaligned"},
        {0, 16, HEAD_LEN + 64, 8, FL_ERR_CORRUPT, "HEAD longer than its slot"},
        {2, 16, ~0ull - 4, 8, FL_ERR_CORRUPT, "DATA length near 2^64"},
        {2, 16, 1ull << 62, 8, FL_ERR_CORRUPT, "DATA length 2^62"},
        {1, 4, 1, 4, FL_ERR_CORRUPT, "section flags"},
        {0, 0, 0, 4, FL_ERR_CORRUPT, "tag 0"},
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        memcpy(b, good, len);
        put_le(v2_entry(b, edits[i].entry) + edits[i].field, edits[i].value, edits[i].width);
        reseal_table(b, len);
        fl_filter *g = (fl_filter *)1;
        EXPECT(edits[i].want, fl_load_mem(b, len, 0, &g), edits[i].what);
        assert_null(g);
    }
    /* Section counts the preamble may not announce. */
    fl_filter *g = NULL;
    memcpy(b, good, len);
    put_le(b + V2_COUNT, 0, 4);
    reseal_table(b, len);
    EXPECT(FL_ERR_CORRUPT, fl_load_mem(b, len, 0, &g), "0 sections");
    put_le(b + V2_COUNT, 257, 4);
    reseal_table(b, len);
    EXPECT(FL_ERR_CORRUPT, fl_load_mem(b, len, 0, &g), "257 sections");
    put_le(b + V2_COUNT, 0xffffffffu, 4);
    reseal_table(b, len);
    EXPECT(FL_ERR_CORRUPT, fl_load_mem(b, len, 0, &g), "2^32-1 sections");
    /* An unknown version, even with valid checksums. */
    memcpy(b, good, len);
    put_le(b + V2_VERSION, 3, 2);
    reseal_table(b, len);
    EXPECT(FL_ERR_BAD_VERSION, fl_load_mem(b, len, 0, &g), "version 3");
    put_le(b + V2_VERSION, 0, 2);
    EXPECT(FL_ERR_BAD_VERSION, fl_load_mem(b, len, 0, &g), "version 0");
    /* Nonzero padding between the table and HEAD, and before DATA. */
    memcpy(b, good, len);
    b[HEAD_AT - 1] = 1;
    EXPECT(FL_ERR_CORRUPT, fl_load_mem(b, len, 0, &g), "padding after the table");
    memcpy(b, good, len);
    b[sec_off(b, 2) - 1] = 0x80;
    EXPECT(FL_ERR_CORRUPT, fl_load_mem(b, len, 0, &g), "padding before DATA");
    assert_null(g);
    free(b);
    free(good);
    free(ck.data);
}

/* ---- crafted version-1 files (the fixtures, edited and resealed) ---------------------- */
typedef void (*edit_fn)(uint8_t *buf, size_t len);

static void expect_edit_v1(const char *file, edit_fn edit, fl_status want, const char *what) {
    size_t len;
    uint8_t *buf = read_fixture(file, &len);
    edit(buf, len);
    reseal_v1(buf, len);
    fl_filter *g = NULL;
    fl_status st = fl_load_mem(buf, len, 0, &g);
    if (st != want) print_error("%s/%s: got %s\n", file, what, fl_strerror(st));
    assert_int_equal(st, want);
    if (want != FL_OK) assert_null(g);
    fl_free(g);
    free(buf);
}

static void e_k9(uint8_t *b, size_t n) { (void)n; put_le(b + OFF_K, 9, 4); }
static void e_k0(uint8_t *b, size_t n) { (void)n; put_le(b + OFF_K, 0, 4); }
static void e_units_plus(uint8_t *b, size_t n) { (void)n; put_le(b + OFF_UNITS, get_le(b + OFF_UNITS, 8) + 1, 8); }
static void e_units0(uint8_t *b, size_t n) { (void)n; put_le(b + OFF_UNITS, 0, 8); }
static void e_units_2p32(uint8_t *b, size_t n) { (void)n; put_le(b + OFF_UNITS, 1ull << 32, 8); }
static void e_payload_minus(uint8_t *b, size_t n) { (void)n; put_le(b + OFF_PAYLOAD, get_le(b + OFF_PAYLOAD, 8) - 32, 8); }
static void e_payload_huge(uint8_t *b, size_t n) { (void)n; put_le(b + OFF_PAYLOAD, ~0ull, 8); }
static void e_variant0(uint8_t *b, size_t n) { (void)n; b[OFF_VARIANT] = 0; }
static void e_variant6(uint8_t *b, size_t n) { (void)n; b[OFF_VARIANT] = 6; }
static void e_variant_cuckoo(uint8_t *b, size_t n) { (void)n; b[OFF_VARIANT] = FL_CUCKOO; }
static void e_hash0(uint8_t *b, size_t n) { (void)n; b[OFF_HASH] = 0; }
static void e_hash3(uint8_t *b, size_t n) { (void)n; b[OFF_HASH] = 3; }
static void e_flags(uint8_t *b, size_t n) { (void)n; put_le(b + OFF_FLAGS, 1u << 31, 4); }
static void e_stash1(uint8_t *b, size_t n) {
    (void)n;
    put_le(b + OFF_STASH_COUNT, 1, 4);
    put_le(b + OFF_STASH, 0, 4);
    put_le(b + OFF_STASH + 4, 1, 2);
}
static void e_stash9(uint8_t *b, size_t n) { (void)n; put_le(b + OFF_STASH_COUNT, 9, 4); }
static void e_stash_max(uint8_t *b, size_t n) { (void)n; put_le(b + OFF_STASH_COUNT, 0xffffffffu, 4); }
static void e_unused_slot(uint8_t *b, size_t n) { (void)n; b[OFF_STASH + 8 * 7 + 6] = 1; }
/* Adds one stash entry (bucket, fp, pad) to a cuckoo file with an empty stash and bumps the
 * key count so that only the entry itself can be wrong. */
static void add_entry(uint8_t *b, uint32_t bucket, uint32_t fp, uint32_t pad) {
    assert_int_equal(get_le(b + OFF_STASH_COUNT, 4), 0);
    put_le(b + OFF_STASH_COUNT, 1, 4);
    put_le(b + OFF_STASH, bucket, 4);
    put_le(b + OFF_STASH + 4, fp, 2);
    put_le(b + OFF_STASH + 6, pad, 2);
    put_le(b + OFF_KEYS, get_le(b + OFF_KEYS, 8) + 1, 8);
}
static void e_entry_ok(uint8_t *b, size_t n) { (void)n; add_entry(b, 7, 5, 0); }
static void e_entry_bucket(uint8_t *b, size_t n) { (void)n; add_entry(b, 8, 5, 0); }
static void e_entry_fp0(uint8_t *b, size_t n) { (void)n; add_entry(b, 3, 0, 0); }
static void e_entry_fp256(uint8_t *b, size_t n) { (void)n; add_entry(b, 3, 256, 0); }
static void e_entry_pad(uint8_t *b, size_t n) { (void)n; add_entry(b, 3, 5, 1); }
static void e_keys_plus(uint8_t *b, size_t n) { (void)n; put_le(b + OFF_KEYS, get_le(b + OFF_KEYS, 8) + 1, 8); }
static void e_keys_minus(uint8_t *b, size_t n) { (void)n; put_le(b + OFF_KEYS, get_le(b + OFF_KEYS, 8) - 1, 8); }
static void e_keys_any(uint8_t *b, size_t n) { (void)n; put_le(b + OFF_KEYS, 123456789, 8); }
/* Fills an empty fingerprint slot without counting it. */
static void e_extra_fp(uint8_t *b, size_t n) {
    for (size_t i = HEADER; i < n - TRAILER; i++) {
        if (b[i] == 0) {
            b[i] = 0x42;
            return;
        }
    }
    fail_msg("no empty slot");
}
static void e_nothing(uint8_t *b, size_t n) { (void)b; (void)n; }

static void test_crafted_v1(void **state) {
    (void)state;
    const char *split = "split256_parquet.flt", *classic = "classic.flt", *ck8 = "cuckoo8.flt",
               *ck16 = "cuckoo16.flt";
    /* Resealing an unedited file changes nothing: the helper is right. */
    expect_edit_v1(split, e_nothing, FL_OK, "reseal");
    expect_edit_v1(ck8, e_nothing, FL_OK, "reseal");
    /* Geometry the variant rejects, or a payload count that disagrees with it. */
    expect_edit_v1(split, e_k9, FL_ERR_CORRUPT, "split256 k=9");
    expect_edit_v1(classic, e_k0, FL_ERR_CORRUPT, "k=0");
    expect_edit_v1(ck8, e_k9, FL_ERR_CORRUPT, "cuckoo k=9");
    expect_edit_v1(split, e_units_plus, FL_ERR_CORRUPT, "units+1");
    expect_edit_v1(split, e_units0, FL_ERR_CORRUPT, "units=0");
    expect_edit_v1(split, e_units_2p32, FL_ERR_CORRUPT, "units=2^32");
    expect_edit_v1(split, e_payload_minus, FL_ERR_CORRUPT, "payload-32");
    expect_edit_v1(split, e_payload_huge, FL_ERR_CORRUPT, "payload=2^64-1");
    /* classic, 32 words = 256 bytes; as cuckoo k=5 is not a fingerprint width. */
    expect_edit_v1(classic, e_variant_cuckoo, FL_ERR_CORRUPT, "variant changed");
    /* Unknown enums and reserved bits. */
    expect_edit_v1(split, e_variant0, FL_ERR_CORRUPT, "variant 0");
    expect_edit_v1(split, e_variant6, FL_ERR_CORRUPT, "variant 6");
    expect_edit_v1(split, e_hash0, FL_ERR_CORRUPT, "hash 0");
    expect_edit_v1(split, e_hash3, FL_ERR_CORRUPT, "hash 3");
    expect_edit_v1(split, e_flags, FL_ERR_CORRUPT, "flags");
    /* Stash: Bloom variants have none; cuckoo holds at most 8 valid entries. */
    expect_edit_v1(split, e_stash1, FL_ERR_CORRUPT, "stash on bloom");
    expect_edit_v1(ck8, e_stash9, FL_ERR_CORRUPT, "stash 9");
    expect_edit_v1(ck8, e_stash_max, FL_ERR_CORRUPT, "stash 2^32-1");
    expect_edit_v1(ck8, e_unused_slot, FL_ERR_CORRUPT, "unused slot");
    expect_edit_v1(split, e_unused_slot, FL_ERR_CORRUPT, "unused slot bloom");
    expect_edit_v1(ck8, e_entry_ok, FL_OK, "valid entry");
    expect_edit_v1(ck8, e_entry_bucket, FL_ERR_CORRUPT, "bucket >= units");
    expect_edit_v1(ck8, e_entry_fp0, FL_ERR_CORRUPT, "fp 0");
    expect_edit_v1(ck8, e_entry_fp256, FL_ERR_CORRUPT, "fp >= 2^k");
    expect_edit_v1(ck16, e_entry_fp256, FL_OK, "fp 256 with k=16");
    expect_edit_v1(ck8, e_entry_pad, FL_ERR_CORRUPT, "pad");
    /* The cuckoo key count is the number of occupied slots; a Bloom one is free. */
    expect_edit_v1(ck8, e_keys_plus, FL_ERR_CORRUPT, "keys+1");
    expect_edit_v1(ck8, e_keys_minus, FL_ERR_CORRUPT, "keys-1");
    expect_edit_v1(ck16, e_keys_plus, FL_ERR_CORRUPT, "keys+1 k16");
    expect_edit_v1(ck8, e_extra_fp, FL_ERR_CORRUPT, "uncounted fingerprint");
    expect_edit_v1(split, e_keys_any, FL_OK, "bloom keys");
}

static void test_order_of_checks(void **state) {
    (void)state;
    fl_filter *f = make(&SPECS[2]);
    size_t len;
    uint8_t *buf = save(f, &len);
    fl_filter *g = NULL;
    size_t data_at = (size_t)sec_off(buf, 1), payload = fl_size_bytes(f);
    /* A bad version wins over a bad checksum. */
    buf[V2_VERSION] = 3;
    assert_int_equal(fl_load_mem(buf, len, 0, &g), FL_ERR_BAD_VERSION);
    buf[V2_VERSION] = 2;
    /* Everything before the payload: the cap is checked before the length... */
    assert_int_equal(fl_load_mem(buf, data_at, payload - 1, &g), FL_ERR_TOO_LARGE);
    assert_int_equal(fl_load_mem(buf, data_at, payload, &g), FL_ERR_TRUNCATED);
    /* ...and the length before the payload checksum. */
    buf[data_at] ^= 1;
    assert_int_equal(fl_load_mem(buf, len - 1, 0, &g), FL_ERR_TRUNCATED);
    assert_int_equal(fl_load_mem(buf, len, 0, &g), FL_ERR_CHECKSUM);
    buf[data_at] ^= 1;
    /* A HEAD whose semantics are bad is CORRUPT even when nothing follows it. */
    put_le(buf + HEAD_AT + H_K, 7, 4);
    reseal(buf, data_at);
    assert_int_equal(fl_load_mem(buf, data_at, 0, &g), FL_ERR_CORRUPT);
    /* The same in version 1. */
    size_t vlen;
    uint8_t *v1 = read_fixture("split256_parquet.flt", &vlen);
    v1[OFF_VERSION] = 2;
    assert_int_equal(fl_load_mem(v1, vlen, 0, &g), FL_ERR_CHECKSUM); /* read as v2 */
    v1[OFF_VERSION] = 3;
    assert_int_equal(fl_load_mem(v1, vlen, 0, &g), FL_ERR_BAD_VERSION);
    v1[OFF_VERSION] = 1;
    size_t vpay = vlen - HEADER - TRAILER;
    assert_int_equal(fl_load_mem(v1, HEADER, vpay - 1, &g), FL_ERR_TOO_LARGE);
    assert_int_equal(fl_load_mem(v1, HEADER, vpay, &g), FL_ERR_TRUNCATED);
    v1[HEADER] ^= 1;
    assert_int_equal(fl_load_mem(v1, vlen - 1, 0, &g), FL_ERR_TRUNCATED);
    assert_int_equal(fl_load_mem(v1, vlen, 0, &g), FL_ERR_CHECKSUM);
    v1[HEADER] ^= 1;
    put_le(v1 + OFF_K, 7, 4);
    reseal_v1(v1, HEADER);
    assert_int_equal(fl_load_mem(v1, HEADER, 0, &g), FL_ERR_CORRUPT);
    assert_null(g);
    free(v1);
    fl_free(f);
    free(buf);
}

static void test_max_bytes(void **state) {
    (void)state;
    for (size_t s = 0; s < NSPECS; s++) {
        fl_filter *f = make(&SPECS[s]);
        size_t len, payload = fl_size_bytes(f);
        uint8_t *buf = save(f, &len);
        fl_filter *g = NULL;
        assert_int_equal(fl_load_mem(buf, len, payload - 1, &g), FL_ERR_TOO_LARGE);
        assert_null(g);
        assert_int_equal(fl_load_mem(buf, len, 1, &g), FL_ERR_TOO_LARGE);
        assert_int_equal(fl_load_mem(buf, len, payload, &g), FL_OK);
        fl_free(g);
        assert_int_equal(fl_load_mem(buf, len, SIZE_MAX, &g), FL_OK);
        fl_free(g);
        fl_free(f);
        free(buf);
    }
    /* A file announcing 2^32-1 classic words (32 GiB): refused by the cap before any
     * allocation, and without a cap refused as truncated, still without allocating. */
    fl_filter *f = make(&SPECS[0]);
    size_t len;
    uint8_t *buf = save(f, &len);
    put_le(buf + HEAD_AT + H_UNITS, 0xffffffffull, 8);
    put_le(v2_entry(buf, 1) + 16, 0xffffffffull * 8, 8);
    reseal(buf, len);
    fl_filter *g = NULL;
    assert_int_equal(fl_load_mem(buf, len, 1 << 20, &g), FL_ERR_TOO_LARGE);
    assert_int_equal(fl_load_mem(buf, len, 0, &g), FL_ERR_TRUNCATED);
    assert_null(g);
    fl_free(f);
    free(buf);
    /* The same through version 1. */
    buf = read_fixture("classic.flt", &len);
    put_le(buf + OFF_UNITS, 0xffffffffull, 8);
    put_le(buf + OFF_PAYLOAD, 0xffffffffull * 8, 8);
    reseal_v1(buf, HEADER);
    assert_int_equal(fl_load_mem(buf, len, 1 << 20, &g), FL_ERR_TOO_LARGE);
    assert_int_equal(fl_load_mem(buf, len, 0, &g), FL_ERR_TRUNCATED);
    assert_null(g);
    free(buf);
}

static void test_trailing_data(void **state) {
    (void)state;
    fl_filter *f = make(&SPECS[4]);
    size_t len;
    uint8_t *buf = save(f, &len);
    uint8_t *more = malloc(len + 64);
    assert_non_null(more);
    memcpy(more, buf, len);
    memset(more + len, 0, 64);
    fl_filter *g = NULL;
    assert_int_equal(fl_load_mem(more, len + 1, 0, &g), FL_ERR_TRAILING_DATA);
    assert_int_equal(fl_load_mem(more, len + 64, 0, &g), FL_ERR_TRAILING_DATA);
    assert_null(g);
    fl_free(f);
    free(buf);
    free(more);
}

static void test_null_and_small_buffers(void **state) {
    (void)state;
    fl_filter *f = make(&SPECS[2]);
    size_t need = fl_serialized_size(f);
    uint8_t *buf = malloc(need);
    assert_non_null(buf);
    size_t written = 99;
    fl_filter *g = (fl_filter *)1;

    assert_int_equal(fl_serialized_size(NULL), 0);
    assert_int_equal(fl_save_mem(NULL, buf, need, &written), FL_ERR_INVALID_ARG);
    assert_int_equal(written, 0);
    assert_int_equal(fl_save_mem(f, NULL, need, &written), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_save_mem(f, buf, need - 1, &written), FL_ERR_BUFFER_TOO_SMALL);
    assert_int_equal(written, 0);
    assert_int_equal(fl_save_mem(f, buf, 0, NULL), FL_ERR_BUFFER_TOO_SMALL);
    assert_int_equal(fl_save_mem(f, buf, need, NULL), FL_OK); /* written is optional */

    assert_int_equal(fl_load_mem(NULL, need, 0, &g), FL_ERR_INVALID_ARG);
    assert_null(g);
    assert_int_equal(fl_load_mem(buf, need, 0, NULL), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_save_file(NULL, "x"), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_save_file(f, NULL), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_save_file(f, ""), FL_ERR_INVALID_ARG);
    g = (fl_filter *)1;
    assert_int_equal(fl_load_file(NULL, 0, &g), FL_ERR_INVALID_ARG);
    assert_null(g);
    assert_int_equal(fl_load_file("x", 0, NULL), FL_ERR_INVALID_ARG);
    free(buf);
    fl_free(f);
}

/* ---- files ---------------------------------------------------------------------------- */
static void test_file_errors(void **state) {
    (void)state;
    char path[512];
    fl_filter *g = (fl_filter *)1;

    path_in_dir(path, sizeof path, "missing.flt");
    errno = 0;
    assert_int_equal(fl_load_file(path, 0, &g), FL_ERR_IO);
    assert_int_equal(errno, ENOENT);
    assert_null(g);
    assert_int_equal(fl_load_file(g_dir, 0, &g), FL_ERR_IO); /* a directory */
    /* Not a regular file: no size up front, the read finds the end. */
    assert_int_equal(fl_load_file("/dev/null", 0, &g), FL_ERR_TRUNCATED);

    fl_filter *f = make(&SPECS[3]);
    path_in_dir(path, sizeof path, "no/such/dir.flt");
    errno = 0;
    assert_int_equal(fl_save_file(f, path), FL_ERR_IO);
    assert_int_equal(errno, ENOENT);

    /* rename onto a non-empty directory fails: the temporary must be cleaned up and the
     * directory left alone. */
    char sub[512], inner[600];
    path_in_dir(sub, sizeof sub, "subdir");
    assert_int_equal(mkdir(sub, 0700), 0);
    snprintf(inner, sizeof inner, "%s/keep", sub);
    write_file(inner, "x", 1);
    assert_int_equal(fl_save_file(f, sub), FL_ERR_IO);
    assert_int_equal(count_temp_files(), 0);
    struct stat sb;
    assert_int_equal(stat(inner, &sb), 0);
    unlink(inner);
    rmdir(sub);

    /* Truncated and padded files give the same statuses as in memory. */
    size_t len;
    uint8_t *buf = save(f, &len);
    path_in_dir(path, sizeof path, "cut.flt");
    write_file(path, buf, len - 1);
    assert_int_equal(fl_load_file(path, 0, &g), FL_ERR_TRUNCATED);
    write_file(path, buf, 5);
    assert_int_equal(fl_load_file(path, 0, &g), FL_ERR_TRUNCATED);
    write_file(path, buf, 0);
    assert_int_equal(fl_load_file(path, 0, &g), FL_ERR_TRUNCATED);
    buf[len - 1] ^= 0x80;
    write_file(path, buf, len);
    assert_int_equal(fl_load_file(path, 0, &g), FL_ERR_CHECKSUM);
    buf[len - 1] ^= 0x80;
    buf[3] ^= 1;
    write_file(path, buf, len);
    assert_int_equal(fl_load_file(path, 0, &g), FL_ERR_BAD_MAGIC);
    buf[3] ^= 1;
    write_file(path, buf, len);
    assert_int_equal(fl_load_file(path, fl_size_bytes(f) - 1, &g), FL_ERR_TOO_LARGE);
    assert_int_equal(fl_load_file(path, fl_size_bytes(f), &g), FL_OK);
    fl_free(g);

    /* A valid file followed by a sparse 1 GiB tail: refused from its size alone (the
     * payload is never read, let alone 1 GiB). */
    int fd = open(path, O_WRONLY);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, 1 << 30), 0);
    close(fd);
    assert_int_equal(fl_load_file(path, 1 << 20, &g), FL_ERR_TRAILING_DATA);
    assert_int_equal(fl_load_file(path, 0, &g), FL_ERR_TRAILING_DATA);
    assert_null(g);
    unlink(path);
    free(buf);
    fl_free(f);
}

/* A failed save leaves the previous file intact: RLIMIT_FSIZE makes the write fail with
 * EFBIG halfway through the new, larger file. */
static void test_failed_save_keeps_old_file(void **state) {
    (void)state;
    char path[512];
    path_in_dir(path, sizeof path, "keep.flt");
    fl_filter *small = make(&SPECS[0]); /* 128-byte payload: 264-byte file */
    assert_int_equal(fl_save_file(small, path), FL_OK);
    assert_int_equal(chmod(path, 0640), 0);

    spec big_spec = SPECS[0];
    big_spec.units = 1024; /* 8 KiB payload */
    fl_filter *big = make(&big_spec);

    fsize_limit lim;
    fsize_limit_begin(&lim, 4096);
    errno = 0;
    fl_status st = fl_save_file(big, path);
    int err = errno;
    fsize_limit_end(&lim);
    assert_int_equal(st, FL_ERR_IO);
    assert_int_equal(err, EFBIG);
    assert_int_equal(count_temp_files(), 0);

    fl_filter *g = NULL;
    assert_int_equal(fl_load_file(path, 0, &g), FL_OK);
    assert_same_filter(small, g);
    fl_free(g);

    /* A successful replacement keeps the old file's permissions. */
    assert_int_equal(fl_save_file(big, path), FL_OK);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0640);
    assert_int_equal(fl_load_file(path, 0, &g), FL_OK);
    assert_same_filter(big, g);
    fl_free(g);
    unlink(path);
    fl_free(small);
    fl_free(big);
}

/* A new file gets the mode open(O_CREAT, 0666) would give it, not mkstemp's 0600. */
static void test_new_file_mode(void **state) {
    (void)state;
    char path[512];
    path_in_dir(path, sizeof path, "mode.flt");
    fl_filter *f = make(&SPECS[1]);
    mode_t prev = umask(027);
    fl_status st = fl_save_file(f, path);
    umask(prev);
    assert_int_equal(st, FL_OK);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0640);
    unlink(path);
    fl_free(f);
}

/* Loading from a pipe (no size known up front). */
typedef struct pipe_job {
    char path[512];
    const uint8_t *buf;
    size_t len;
} pipe_job;

static void *pipe_writer(void *arg) {
    pipe_job *j = (pipe_job *)arg;
    int fd = open(j->path, O_WRONLY);
    if (fd >= 0) {
        /* The reader may stop early and close; EPIPE is expected then (SIGPIPE ignored). */
        ssize_t w = write(fd, j->buf, j->len);
        (void)w;
        close(fd);
    }
    return NULL;
}

static fl_status load_via_fifo(const uint8_t *buf, size_t len, fl_filter **out) {
    pipe_job j;
    path_in_dir(j.path, sizeof j.path, "fifo");
    j.buf = buf;
    j.len = len;
    unlink(j.path);
    assert_int_equal(mkfifo(j.path, 0600), 0);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, pipe_writer, &j), 0);
    fl_status st = fl_load_file(j.path, 0, out);
    pthread_join(t, NULL);
    unlink(j.path);
    return st;
}

static void test_load_from_pipe(void **state) {
    (void)state;
    void (*prev)(int) = signal(SIGPIPE, SIG_IGN);
    fl_filter *f = make(&SPECS[5]);
    size_t len;
    uint8_t *buf = save(f, &len);
    uint8_t *more = calloc(1, len + 1);
    assert_non_null(more);
    memcpy(more, buf, len);
    fl_filter *g = NULL;
    assert_int_equal(load_via_fifo(buf, len, &g), FL_OK);
    assert_same_filter(f, g);
    fl_free(g);
    g = NULL;
    assert_int_equal(load_via_fifo(more, len + 1, &g), FL_ERR_TRAILING_DATA);
    assert_int_equal(load_via_fifo(buf, len - 3, &g), FL_ERR_TRUNCATED);
    assert_int_equal(load_via_fifo(buf, HEAD_AT + HEAD_LEN + 9, &g), FL_ERR_TRUNCATED);
    assert_int_equal(load_via_fifo(buf, 50, &g), FL_ERR_TRUNCATED);
    buf[len - 20] ^= 4;
    assert_int_equal(load_via_fifo(buf, len, &g), FL_ERR_CHECKSUM);
    assert_null(g);
    signal(SIGPIPE, prev);
    free(more);
    free(buf);
    fl_free(f);
}

/* The fuzzing seeds (tests/fuzz_corpus/load, written by fuzz_load.c's generator) must stay
 * valid files: after a format change they have to be regenerated, or fuzzing would start
 * from inputs the loader rejects at the first check. */
static void test_fuzz_seeds_load(void **state) {
    (void)state;
    const char *root = source_root_or_skip();
    char dir[512];
    snprintf(dir, sizeof dir, "%s/tests/fuzz_corpus/load", root);
    DIR *d = opendir(dir);
    if (!d) {
        print_message("skipped: %s is absent\n", dir);
        skip();
    }
    int seen = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        fl_filter *f = NULL;
        fl_status st = fl_load_file(path, 1 << 20, &f);
        if (st != FL_OK) print_error("%s: %s\n", path, fl_strerror(st));
        assert_int_equal(st, FL_OK);
        fl_free(f);
        seen++;
    }
    closedir(d);
    assert_true(seen >= 2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_mem),
        cmocka_unit_test(test_round_trip_file),
        cmocka_unit_test(test_large_file_matches_mem),
        cmocka_unit_test(test_cuckoo_stash_preserved),
        cmocka_unit_test(test_v1_fixtures),
        cmocka_unit_test(test_parquet_import_saves),
        cmocka_unit_test(test_every_truncation),
        cmocka_unit_test(test_short_bad_magic),
        cmocka_unit_test(test_every_bit_flip),
        cmocka_unit_test(test_crafted_head),
        cmocka_unit_test(test_crafted_sections),
        cmocka_unit_test(test_crafted_v1),
        cmocka_unit_test(test_order_of_checks),
        cmocka_unit_test(test_max_bytes),
        cmocka_unit_test(test_trailing_data),
        cmocka_unit_test(test_null_and_small_buffers),
        cmocka_unit_test(test_file_errors),
        cmocka_unit_test(test_failed_save_keeps_old_file),
        cmocka_unit_test(test_new_file_mode),
        cmocka_unit_test(test_load_from_pipe),
        cmocka_unit_test(test_fuzz_seeds_load),
    };
    return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
