/*
 * libFuzzer target for fl_load_mem (src/format/io.c, src/format/container.c, src/codec_filter*.c): any
 * input either fails with a status or yields a filter that answers lookups, reports its
 * info, saves back to exactly the input bytes when the input is format version 2 (the
 * format has one encoding per filter; a version-1 input saves as version 2, which must load
 * back to the same filter) and takes inserts.
 *
 *   CC=clang meson setup build-fuzz -Dfuzz=true && ninja -C build-fuzz
 *   mkdir -p /tmp/corpus_load   # libFuzzer writes new inputs into the first directory only
 *   build-fuzz/tests/fuzz_load -max_total_time=60 /tmp/corpus_load tests/fuzz_corpus/load
 *
 * Seed corpus: tests/fuzz_corpus/load/ holds small valid files written by this file's own
 * generator, not by hand: v2_*.flt by the current writer (rerun it after a format change),
 * the others by the last format-version-1 writer (8388ec0; keep them, they cover the v1
 * reader):
 *
 *   cc -std=c11 -D_GNU_SOURCE -DFL_FUZZ_STANDALONE -Iinclude tests/fuzz_load.c \
 *      build-io/src/libfilterlab.a -lxxhash -lm -o /tmp/fuzz_load_seeds
 *   /tmp/fuzz_load_seeds --write-seeds tests/fuzz_corpus/load
 *
 * The same -DFL_FUZZ_STANDALONE build run with file arguments replays them through the
 * target, so a crash input can be reproduced without clang's fuzzer runtime.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "filterlab.h"
#include "fuzz_check.h"
#include "fuzz_reseal.h"

#define FUZZ_CAP ((size_t)1 << 20) /* largest payload a load may allocate */

static void check_one(const uint8_t *data, size_t size) {
    fl_filter *f = (fl_filter *)1;
    fl_status st = fl_load_mem(data, size, FUZZ_CAP, &f);
    if (st != FL_OK) {
        CHECK(f == NULL);
        CHECK(st > FL_OK && st < FL_STATUS_COUNT);
        return;
    }
    CHECK(f != NULL);

    fl_info info;
    CHECK(fl_get_info(f, &info) == FL_OK);
    CHECK(info.bytes <= FUZZ_CAP && info.bytes == fl_size_bytes(f));
    CHECK(info.geometry.variant == fl_get_variant(f));

    /* Batch lookups agree with single ones (the kernels read only inside the payload:
     * ASan would flag a stray index from a geometry the loader should have refused). */
    uint64_t hashes[32];
    uint8_t out[32];
    for (size_t i = 0; i < 32; i++) hashes[i] = fl_hash_bytes(f, data, size < i ? size : i);
    size_t positives = 0;
    CHECK(fl_contains_hashes(f, hashes, 32, out, &positives) == FL_OK);
    size_t sum = 0;
    for (size_t i = 0; i < 32; i++) {
        CHECK(out[i] == fl_contains_hash(f, hashes[i]));
        sum += out[i];
    }
    CHECK(sum == positives);

    /* load then save is the identity on accepted version-2 inputs; a version-1 input saves
     * as version 2, which loads back to a filter that saves the same bytes again. */
    size_t n = fl_serialized_size(f), written = 0;
    uint8_t *buf = malloc(n);
    CHECK(buf != NULL);
    CHECK(fl_save_mem(f, buf, n, &written) == FL_OK && written == n);
    CHECK(n > 10 && buf[8] == 2 && buf[9] == 0);
    if (data[8] == 2) {
        CHECK(n == size && memcmp(buf, data, n) == 0);
    } else {
        fl_filter *v2 = NULL;
        CHECK(fl_load_mem(buf, n, FUZZ_CAP, &v2) == FL_OK);
        for (size_t i = 0; i < 32; i++) CHECK(fl_contains_hash(v2, hashes[i]) == out[i]);
        uint8_t *again = malloc(n);
        CHECK(again != NULL);
        CHECK(fl_save_mem(v2, again, n, &written) == FL_OK && written == n);
        CHECK(memcmp(buf, again, n) == 0);
        free(again);
        fl_free(v2);
    }
    free(buf);

    /* A split256 filter hashing like Parquet exports and re-imports to the same bits. */
    if (info.geometry.variant == FL_SPLIT256 && info.hash == FL_HASH_XXH64 && info.seed == 0) {
        size_t pn = fl_parquet_export_size(f, 1);
        uint8_t *pq = malloc(pn);
        CHECK(pq != NULL);
        CHECK(fl_parquet_export(f, 1, pq, pn, &written) == FL_OK && written == pn);
        fl_filter *g = NULL;
        CHECK(fl_parquet_import(pq, pn, FUZZ_CAP, &g) == FL_OK);
        for (size_t i = 0; i < 32; i++) CHECK(fl_contains_hash(g, hashes[i]) == out[i]);
        fl_free(g);
        free(pq);
    }

    /* The loaded filter is usable: an insert is found, a cuckoo one can be deleted. */
    st = fl_insert_bytes(f, "fuzz", 4);
    CHECK(st == FL_OK || (st == FL_ERR_FULL && info.geometry.variant == FL_CUCKOO));
    if (st == FL_OK) {
        CHECK(fl_contains_bytes(f, "fuzz", 4) == 1);
        if (info.geometry.variant == FL_CUCKOO) CHECK(fl_delete_bytes(f, "fuzz", 4) == FL_OK);
    }
    fl_free(f);
}

/* Version 1 (src/format/codec_filter_v1.c) puts its sums elsewhere: header sum at 120 over
 * [0, 120), payload sum in the last 8 bytes over [128, size - 8). */
static void reseal_v1(uint8_t *p, size_t size) {
    if (size < 128) return;
    put_le64(p + 120, XXH3_64bits(p, 120));
    if (size >= 136) put_le64(p + size - 8, XXH3_64bits(p + 128, size - 136));
}

/* Each input's checksums recomputed where its version puts them. */
static void reseal(uint8_t *p, size_t size) {
    if (size >= 10 && p[9] == 0 && p[8] == 1) reseal_v1(p, size);
    if (size >= 10 && p[9] == 0 && p[8] == 2) reseal_container(p, size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    check_as_is_and_resealed(data, size, 24, reseal, check_one);
    return 0;
}

#ifdef FL_FUZZ_STANDALONE
#include "fuzz_standalone.h"

static int write_seed(const char *dir, const char *name, const fl_filter *f) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    fl_status st = fl_save_file(f, path);
    if (st != FL_OK) fprintf(stderr, "%s: %s\n", path, fl_strerror(st));
    return st == FL_OK ? 0 : 1;
}

static fl_filter *seed_filter(fl_variant v, uint64_t units, uint32_t k, fl_hash_id hash,
                              unsigned keys) {
    fl_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.variant = v;
    cfg.geometry.variant = v;
    cfg.geometry.units = units;
    cfg.geometry.k = k;
    cfg.hash = hash;
    fl_filter *f = NULL;
    if (fl_create(&cfg, &f) != FL_OK) return NULL;
    for (unsigned i = 0; i < keys; i++)
        if (fl_insert_u64(f, i * 0x9e3779b97f4a7c15ull) != FL_OK) break; /* cuckoo: FULL */
    return f;
}

/* Writes the seed corpus: small filters covering a Bloom variant, the Parquet-compatible one
 * and cuckoo filters whose victim stash is in use: 8-bit fingerprints, 12-bit ones (6-byte
 * buckets), and the semi-sorted 11- and 13-bit ones (5- and 6-byte buckets led by a 12-bit
 * rank the loader checks against the 3876 nibble tuples). */
static int write_seeds(const char *dir) {
    fl_filter *f[] = {
        seed_filter(FL_BLOCK512, 2, 6, FL_HASH_XXH3, 10),
        seed_filter(FL_SPLIT256, 2, 8, FL_HASH_XXH64, 10),
        seed_filter(FL_CUCKOO, 2, 8, FL_HASH_XXH3, 64),
        seed_filter(FL_CUCKOO, 3, 12, FL_HASH_XXH64, 64),
        seed_filter(FL_CUCKOO, 3, 11, FL_HASH_XXH3, 64),
        seed_filter(FL_CUCKOO, 3, 13, FL_HASH_XXH64, 64),
    };
    const char *names[sizeof f / sizeof f[0]] = {"v2_block512.flt", "v2_split256_xxh64.flt", "v2_cuckoo8_stash.flt",
                            "v2_cuckoo12_stash.flt", "v2_cuckoo11_stash.flt",
                            "v2_cuckoo13_stash.flt"};
    int bad = 0;
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        bad |= f[i] ? write_seed(dir, names[i], f[i]) : 1;
        fl_free(f[i]);
    }
    return bad;
}

int main(int argc, char **argv) {
    return fuzz_standalone_main(argc, argv, write_seeds);
}
#endif
