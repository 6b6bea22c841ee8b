/*
 * The filterlab file format (src/io.c): round trips for every variant, in memory and through
 * files, and rejection of every truncation, every single-bit flip and crafted files whose
 * checksums are valid but whose fields are not, each with its exact status.
 *
 * The offsets below restate the layout documented at the top of src/io.c on purpose: a
 * change to the format must show up here as a failing test.
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
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xxhash.h>

#include "filterlab.h"

/* Layout of format version 1 (src/io.c). */
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

static void put_le(uint8_t *p, uint64_t v, int n) {
    for (int i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static uint64_t get_le(const uint8_t *p, int n) {
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

/* Recomputes both checksums after a test edited fields, so that only the semantic checks
 * can object. len is the whole buffer; the payload is what lies between header and trailer. */
static void reseal(uint8_t *buf, size_t len) {
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
    /* Two buckets filled past the table: the last inserts land in the victim stash. */
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
    assert_true(n >= HEADER + TRAILER);
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
    assert_int_equal(la, lb);
    assert_memory_equal(sa, sb, la);
    free(sa);
    free(sb);
}

/* ---- temporary directory -------------------------------------------------------------- */
static char g_dir[256];

static int setup_dir(void **state) {
    (void)state;
    const char *base = getenv("TMPDIR");
    snprintf(g_dir, sizeof g_dir, "%s/fl_test_io.XXXXXX", base && *base ? base : "/tmp");
    return mkdtemp(g_dir) ? 0 : -1;
}

static int teardown_dir(void **state) {
    (void)state;
    DIR *d = opendir(g_dir);
    if (!d) return 0;
    struct dirent *e;
    char path[512];
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(path, sizeof path, "%s/%s", g_dir, e->d_name);
        if (unlink(path) != 0) rmdir(path);
    }
    closedir(d);
    rmdir(g_dir);
    return 0;
}

static void path_in_dir(char *out, size_t cap, const char *name) {
    snprintf(out, cap, "%s/%s", g_dir, name);
}

/* Names in the test directory containing ".tmp.": leftovers of an interrupted save. */
static int count_temp_files(void) {
    DIR *d = opendir(g_dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strstr(e->d_name, ".tmp.")) n++;
    closedir(d);
    return n;
}

static void write_file(const char *path, const void *buf, size_t len) {
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(buf, 1, len, fp), len);
    assert_int_equal(fclose(fp), 0);
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
static void test_round_trip_mem(void **state) {
    (void)state;
    for (size_t s = 0; s < NSPECS; s++) {
        fl_filter *f = make(&SPECS[s]);
        size_t len;
        uint8_t *buf = save(f, &len);
        assert_int_equal(len, HEADER + fl_size_bytes(f) + TRAILER);
        /* The payload is stored verbatim after the header. */
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

static void test_round_trip_file(void **state) {
    (void)state;
    for (size_t s = 0; s < NSPECS; s++) {
        fl_filter *f = make(&SPECS[s]);
        char path[512];
        path_in_dir(path, sizeof path, SPECS[s].name);
        assert_int_equal(fl_save_file(f, path), FL_OK);
        /* The file holds exactly the fl_save_mem bytes. */
        size_t flen, mlen;
        uint8_t *fbuf = read_file(path, &flen), *mbuf = save(f, &mlen);
        assert_int_equal(flen, mlen);
        assert_memory_equal(fbuf, mbuf, mlen);
        fl_filter *g = NULL;
        assert_int_equal(fl_load_file(path, 0, &g), FL_OK);
        assert_same_filter(f, g);
        fl_free(g);
        /* Saving again replaces the file and leaves no temporary behind. */
        assert_int_equal(fl_save_file(f, path), FL_OK);
        assert_int_equal(count_temp_files(), 0);
        free(fbuf);
        free(mbuf);
        fl_free(f);
    }
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
    assert_int_equal(get_le(buf + OFF_STASH_COUNT, 4), info.stash_used);
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

/* ---- rejection ------------------------------------------------------------------------ */
static void test_every_truncation(void **state) {
    (void)state;
    for (size_t s = 0; s < NSPECS; s++) {
        fl_filter *f = make(&SPECS[s]);
        size_t len;
        uint8_t *buf = save(f, &len);
        for (size_t n = 0; n < len; n++) {
            /* A private copy of exactly n bytes, so ASan catches any read past the end. */
            uint8_t *cut = malloc(n ? n : 1);
            assert_non_null(cut);
            memcpy(cut, buf, n);
            fl_filter *g = (fl_filter *)1;
            fl_status st = fl_load_mem(cut, n, 0, &g);
            if (st != FL_ERR_TRUNCATED) print_error("%s: length %zu of %zu\n", SPECS[s].name, n, len);
            assert_int_equal(st, FL_ERR_TRUNCATED);
            assert_null(g);
            free(cut);
        }
        fl_free(f);
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

/* Magic, version, then everything else (header fields, header checksum, payload, payload
 * checksum) is covered by one of the two checksums. */
static fl_status expected_for_bit(size_t byte) {
    if (byte < OFF_VERSION) return FL_ERR_BAD_MAGIC;
    if (byte < OFF_VARIANT) return FL_ERR_BAD_VERSION;
    return FL_ERR_CHECKSUM;
}

static void test_every_bit_flip(void **state) {
    (void)state;
    for (size_t s = 0; s < NSPECS; s++) {
        fl_filter *f = make(&SPECS[s]);
        size_t len;
        uint8_t *buf = save(f, &len);
        for (size_t byte = 0; byte < len; byte++) {
            for (int bit = 0; bit < 8; bit++) {
                buf[byte] ^= (uint8_t)(1u << bit);
                fl_filter *g = NULL;
                fl_status st = fl_load_mem(buf, len, 0, &g);
                fl_status want = expected_for_bit(byte);
                if (st != want)
                    print_error("%s: byte %zu bit %d: %s\n", SPECS[s].name, byte, bit,
                                fl_strerror(st));
                assert_int_equal(st, want);
                assert_null(g);
                buf[byte] ^= (uint8_t)(1u << bit);
            }
        }
        fl_filter *g = NULL;
        assert_int_equal(fl_load_mem(buf, len, 0, &g), FL_OK); /* restored intact */
        fl_free(g);
        fl_free(f);
        free(buf);
    }
}

/* Applies edit to a copy of a saved filter, reseals it and expects want. */
typedef void (*edit_fn)(uint8_t *buf, size_t len);

static void expect_edit(const spec *s, edit_fn edit, fl_status want, const char *what) {
    fl_filter *f = make(s);
    size_t len;
    uint8_t *buf = save(f, &len);
    edit(buf, len);
    reseal(buf, len);
    fl_filter *g = NULL;
    fl_status st = fl_load_mem(buf, len, 0, &g);
    if (st != want) print_error("%s/%s: got %s\n", s->name, what, fl_strerror(st));
    assert_int_equal(st, want);
    if (want != FL_OK) assert_null(g);
    fl_free(g);
    fl_free(f);
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

static void test_crafted_corrupt(void **state) {
    (void)state;
    const spec *split = &SPECS[2], *classic = &SPECS[0], *ck8 = &SPECS[4], *ck16 = &SPECS[5];
    /* Resealing an unedited file changes nothing: the helper is right. */
    expect_edit(split, e_nothing, FL_OK, "reseal");
    expect_edit(ck8, e_nothing, FL_OK, "reseal");
    /* Geometry the variant rejects, or a payload count that disagrees with it. */
    expect_edit(split, e_k9, FL_ERR_CORRUPT, "split256 k=9");
    expect_edit(classic, e_k0, FL_ERR_CORRUPT, "k=0");
    expect_edit(ck8, e_k9, FL_ERR_CORRUPT, "cuckoo k=9");
    expect_edit(split, e_units_plus, FL_ERR_CORRUPT, "units+1");
    expect_edit(split, e_units0, FL_ERR_CORRUPT, "units=0");
    expect_edit(split, e_units_2p32, FL_ERR_CORRUPT, "units=2^32");
    expect_edit(split, e_payload_minus, FL_ERR_CORRUPT, "payload-32");
    expect_edit(split, e_payload_huge, FL_ERR_CORRUPT, "payload=2^64-1");
    /* classic, 16 words = 128 bytes; as cuckoo k=5 is not a fingerprint width. */
    expect_edit(classic, e_variant_cuckoo, FL_ERR_CORRUPT, "variant changed");
    /* Unknown enums and reserved bits. */
    expect_edit(split, e_variant0, FL_ERR_CORRUPT, "variant 0");
    expect_edit(split, e_variant6, FL_ERR_CORRUPT, "variant 6");
    expect_edit(split, e_hash0, FL_ERR_CORRUPT, "hash 0");
    expect_edit(split, e_hash3, FL_ERR_CORRUPT, "hash 3");
    expect_edit(split, e_flags, FL_ERR_CORRUPT, "flags");
    /* Stash: Bloom variants have none; cuckoo holds at most 8 valid entries. */
    expect_edit(split, e_stash1, FL_ERR_CORRUPT, "stash on bloom");
    expect_edit(ck8, e_stash9, FL_ERR_CORRUPT, "stash 9");
    expect_edit(ck8, e_stash_max, FL_ERR_CORRUPT, "stash 2^32-1");
    expect_edit(ck8, e_unused_slot, FL_ERR_CORRUPT, "unused slot");
    expect_edit(split, e_unused_slot, FL_ERR_CORRUPT, "unused slot bloom");
    expect_edit(ck8, e_entry_ok, FL_OK, "valid entry");
    expect_edit(ck8, e_entry_bucket, FL_ERR_CORRUPT, "bucket >= units");
    expect_edit(ck8, e_entry_fp0, FL_ERR_CORRUPT, "fp 0");
    expect_edit(ck8, e_entry_fp256, FL_ERR_CORRUPT, "fp >= 2^k");
    expect_edit(ck16, e_entry_fp256, FL_OK, "fp 256 with k=16");
    expect_edit(ck8, e_entry_pad, FL_ERR_CORRUPT, "pad");
    /* The cuckoo key count is the number of occupied slots; a Bloom one is free. */
    expect_edit(ck8, e_keys_plus, FL_ERR_CORRUPT, "keys+1");
    expect_edit(ck8, e_keys_minus, FL_ERR_CORRUPT, "keys-1");
    expect_edit(ck16, e_keys_plus, FL_ERR_CORRUPT, "keys+1 k16");
    expect_edit(ck8, e_extra_fp, FL_ERR_CORRUPT, "uncounted fingerprint");
    expect_edit(split, e_keys_any, FL_OK, "bloom keys");
}

static void test_order_of_checks(void **state) {
    (void)state;
    fl_filter *f = make(&SPECS[2]);
    size_t len;
    uint8_t *buf = save(f, &len);
    fl_filter *g = NULL;
    /* A bad version wins over a bad checksum. */
    buf[OFF_VERSION] = 2;
    assert_int_equal(fl_load_mem(buf, len, 0, &g), FL_ERR_BAD_VERSION);
    buf[OFF_VERSION] = 1;
    /* A header-only buffer: the cap is checked before the length... */
    size_t payload = fl_size_bytes(f);
    assert_int_equal(fl_load_mem(buf, HEADER, payload - 1, &g), FL_ERR_TOO_LARGE);
    assert_int_equal(fl_load_mem(buf, HEADER, payload, &g), FL_ERR_TRUNCATED);
    /* ...and the length before the payload checksum. */
    buf[HEADER] ^= 1;
    assert_int_equal(fl_load_mem(buf, len - 1, 0, &g), FL_ERR_TRUNCATED);
    assert_int_equal(fl_load_mem(buf, len, 0, &g), FL_ERR_CHECKSUM);
    buf[HEADER] ^= 1;
    /* A header whose semantics are bad is CORRUPT even when nothing follows it. */
    put_le(buf + OFF_K, 7, 4);
    reseal(buf, HEADER);
    assert_int_equal(fl_load_mem(buf, HEADER, 0, &g), FL_ERR_CORRUPT);
    assert_null(g);
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
    /* A header announcing 2^32-1 classic words (32 GiB): refused by the cap before any
     * allocation, and without a cap refused as truncated, still without allocating. */
    fl_filter *f = make(&SPECS[0]);
    size_t len;
    uint8_t *buf = save(f, &len);
    put_le(buf + OFF_UNITS, 0xffffffffull, 8);
    put_le(buf + OFF_PAYLOAD, 0xffffffffull * 8, 8);
    reseal(buf, HEADER);
    fl_filter *g = NULL;
    assert_int_equal(fl_load_mem(buf, len, 1 << 20, &g), FL_ERR_TOO_LARGE);
    assert_int_equal(fl_load_mem(buf, len, 0, &g), FL_ERR_TRUNCATED);
    assert_null(g);
    fl_free(f);
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

    struct rlimit old, lim;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    lim = old;
    lim.rlim_cur = 4096;
    void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    errno = 0;
    fl_status st = fl_save_file(big, path);
    int err = errno;
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, prev);
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
    assert_int_equal(load_via_fifo(buf, HEADER + 1, &g), FL_ERR_TRUNCATED);
    assert_int_equal(load_via_fifo(buf, 50, &g), FL_ERR_TRUNCATED);
    buf[HEADER] ^= 4;
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
    const char *root = getenv("FL_SOURCE_ROOT");
    if (!root || !*root) {
        print_message("skipped: FL_SOURCE_ROOT is not set\n");
        skip();
    }
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
        cmocka_unit_test(test_cuckoo_stash_preserved),
        cmocka_unit_test(test_parquet_import_saves),
        cmocka_unit_test(test_every_truncation),
        cmocka_unit_test(test_short_bad_magic),
        cmocka_unit_test(test_every_bit_flip),
        cmocka_unit_test(test_crafted_corrupt),
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
