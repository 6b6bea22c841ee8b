/*
 * The parquet-mr interop file: a split block Bloom filter written by parquet-mr
 * (apache/parquet-testing, data/bloom_filter.xxhash.bin: the words hello, parquet, bloom and
 * filter in 32 blocks, behind its Thrift header) imports, answers, exports byte for byte, and
 * is what filterlab itself writes for the same four words.
 *
 * The repository does not carry that file: it is read from $FL_INTEROP_DIR (meson points it
 * at ../shared/interop beside the source tree). Without it the whole test exits 77, which
 * meson reports as SKIP, rather than passing with nothing checked.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filterlab.h"

#define INTEROP_NAME "bloom_filter.xxhash.bin"

static uint8_t *g_interop;
static size_t g_interop_len;

/* Reads the file, or says on stdout why the test is skipped and returns 0. */
static int load_interop(void) {
    const char *dir = getenv("FL_INTEROP_DIR");
    if (!dir || !*dir) {
        printf("SKIP: FL_INTEROP_DIR is not set (the folder holding parquet-mr's %s)\n",
               INTEROP_NAME);
        return 0;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, INTEROP_NAME);
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        printf("SKIP: %s is absent (parquet-mr's file, from apache/parquet-testing's data/; "
               "not part of this repository)\n", path);
        return 0;
    }
    g_interop = malloc(1 << 16);
    if (!g_interop) {
        fclose(fp);
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    g_interop_len = fread(g_interop, 1, 1 << 16, fp);
    int bad = ferror(fp);
    fclose(fp);
    if (bad) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(1);
    }
    return 1;
}

static const char *const INSERTED[] = {"hello", "parquet", "bloom", "filter"};
static const char *const OTHERS[] = {
    "world", "arrow", "column", "row", "group", "page", "footer", "thrift", "xxhash",
    "split", "block", "salt", "Hello", "hello ", "", "parquet-mr", "orc", "avro",
};

static void test_interop_file(void **state) {
    (void)state;
    /* 16-byte header + 32 blocks. */
    assert_int_equal(g_interop_len, 1040);
    fl_filter *f = NULL;
    assert_int_equal(fl_parquet_import(g_interop, g_interop_len, 0, &f), FL_OK);
    fl_info info;
    assert_int_equal(fl_get_info(f, &info), FL_OK);
    assert_int_equal(info.geometry.variant, FL_SPLIT256);
    assert_int_equal(info.geometry.units, 32);
    assert_int_equal(info.geometry.k, 8);
    assert_int_equal(info.bytes, 1024);
    assert_int_equal(info.hash, FL_HASH_XXH64);
    assert_int_equal(info.seed, 0);
    assert_int_equal(info.keys, 0);
    /* Four keys set at most 32 bits. */
    assert_true(info.bits_set > 0 && info.bits_set <= 32);
    for (size_t i = 0; i < 4; i++)
        assert_true(fl_contains_bytes(f, INSERTED[i], strlen(INSERTED[i])));
    /* With 4 keys in 32 blocks a false positive needs all 8 bits of a query to land on set
     * bits of one block: about (1/32)^8 per key sharing a block. Count rather than assume. */
    size_t positives = 0;
    for (size_t i = 0; i < sizeof OTHERS / sizeof OTHERS[0]; i++)
        positives += (size_t)fl_contains_bytes(f, OTHERS[i], strlen(OTHERS[i]));
    print_message("interop: %zu of %zu other words positive\n", positives,
                  sizeof OTHERS / sizeof OTHERS[0]);
    assert_true(positives <= 1);

    /* Export reproduces parquet-mr's bytes exactly, with and without the header. */
    assert_int_equal(fl_parquet_export_size(f, 1), 1040);
    assert_int_equal(fl_parquet_export_size(f, 0), 1024);
    uint8_t out[1040];
    size_t written = 0;
    assert_int_equal(fl_parquet_export(f, 1, out, sizeof out, &written), FL_OK);
    assert_int_equal(written, 1040);
    assert_memory_equal(out, g_interop, 1040);
    assert_int_equal(fl_parquet_export(f, 0, out, sizeof out, &written), FL_OK);
    assert_int_equal(written, 1024);
    assert_memory_equal(out, g_interop + 16, 1024);

    /* The bare bitset imports to the same filter. */
    fl_filter *g = NULL;
    assert_int_equal(fl_parquet_import(g_interop + 16, 1024, 0, &g), FL_OK);
    for (size_t i = 0; i < 4; i++)
        assert_true(fl_contains_bytes(g, INSERTED[i], strlen(INSERTED[i])));
    assert_int_equal(fl_parquet_export(g, 1, out, sizeof out, &written), FL_OK);
    assert_memory_equal(out, g_interop, 1040);
    fl_free(g);
    fl_free(f);
}

static void test_interop_truncated_and_padded(void **state) {
    (void)state;
    uint8_t *buf = malloc(g_interop_len + 1);
    assert_non_null(buf);
    for (size_t n = 0; n < g_interop_len; n++) {
        memcpy(buf, g_interop, n);
        fl_filter *f = NULL;
        fl_status st = fl_parquet_import(buf, n, 0, &f);
        if (st != FL_ERR_TRUNCATED) print_error("length %zu: %s\n", n, fl_strerror(st));
        assert_int_equal(st, FL_ERR_TRUNCATED);
    }
    memcpy(buf, g_interop, g_interop_len);
    buf[g_interop_len] = 0;
    fl_filter *f = NULL;
    assert_int_equal(fl_parquet_import(buf, g_interop_len + 1, 0, &f), FL_ERR_TRAILING_DATA);
    assert_int_equal(fl_parquet_import(buf, g_interop_len, 1023, &f), FL_ERR_TOO_LARGE);
    assert_int_equal(fl_parquet_import(buf, g_interop_len, 1024, &f), FL_OK);
    fl_free(f);
    free(buf);
}

/* A filter made here (split256, 32 blocks, k = 8, XXH64 seed 0: the Parquet spec's filter)
 * holding the same four words exports to parquet-mr's exact bytes: the README's CLI tour
 * makes its Parquet file this way. */
static void test_own_export_matches(void **state) {
    (void)state;
    fl_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.variant = FL_SPLIT256;
    cfg.geometry.variant = FL_SPLIT256;
    cfg.geometry.units = 32;
    cfg.geometry.k = 8;
    cfg.hash = FL_HASH_XXH64;
    cfg.seed = 0;
    fl_filter *f = NULL;
    assert_int_equal(fl_create(&cfg, &f), FL_OK);
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(fl_insert_bytes(f, INSERTED[i], strlen(INSERTED[i])), FL_OK);
    uint8_t out[1040];
    size_t written = 0;
    assert_int_equal(fl_parquet_export(f, 1, out, sizeof out, &written), FL_OK);
    assert_int_equal(written, g_interop_len);
    assert_memory_equal(out, g_interop, written);
    fl_free(f);
}

int main(void) {
    if (!load_interop()) return 77; /* meson's exit code for a skipped test */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_interop_file),
        cmocka_unit_test(test_interop_truncated_and_padded),
        cmocka_unit_test(test_own_export_matches),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    free(g_interop);
    return failed;
}
