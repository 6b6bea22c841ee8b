/*
 * libFuzzer target for fl_parquet_import (src/format/parquet.c), mostly a workout for the Thrift
 * compact reader: any input either fails with a status or yields a split256 XXH64/seed-0
 * filter whose bitset is the input's (whole input, or what follows the header), and whose
 * exports re-import to the same bits.
 *
 *   CC=clang meson setup build-fuzz -Dfuzz=true && ninja -C build-fuzz
 *   mkdir -p /tmp/corpus_pq   # libFuzzer writes new inputs into the first directory only
 *   build-fuzz/tests/fuzz_parquet -max_total_time=60 /tmp/corpus_pq tests/fuzz_corpus/parquet
 *
 * Seed corpus: tests/fuzz_corpus/parquet/ is written by this file's own generator (a header
 * form and a bare form of one small filter), not by hand:
 *
 *   cc -std=c11 -D_GNU_SOURCE -DFL_FUZZ_STANDALONE -Iinclude tests/fuzz_parquet.c \
 *      build-io/src/libfilterlab.a -lxxhash -lm -o /tmp/fuzz_parquet_seeds
 *   /tmp/fuzz_parquet_seeds --write-seeds tests/fuzz_corpus/parquet
 *
 * Run with file arguments, the same build replays inputs through the target. parquet-mr's
 * bloom_filter.xxhash.bin (apache/parquet-testing's data/; ../shared/interop/ beside the clone
 * when you have it, not in the repository) makes a good extra seed.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "filterlab.h"
#include "fuzz_check.h"

#define FUZZ_CAP ((size_t)1 << 20)

static uint8_t *export_alloc(const fl_filter *f, int with_header, size_t *len) {
    size_t n = fl_parquet_export_size(f, with_header);
    CHECK(n > 0);
    uint8_t *buf = malloc(n);
    CHECK(buf != NULL);
    size_t written = 0;
    CHECK(fl_parquet_export(f, with_header, buf, n, &written) == FL_OK && written == n);
    *len = n;
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fl_filter *f = (fl_filter *)1;
    fl_status st = fl_parquet_import(data, size, FUZZ_CAP, &f);
    if (st != FL_OK) {
        CHECK(f == NULL);
        CHECK(st > FL_OK && st < FL_STATUS_COUNT);
        return 0;
    }
    fl_info info;
    CHECK(fl_get_info(f, &info) == FL_OK);
    CHECK(info.geometry.variant == FL_SPLIT256 && info.geometry.k == 8);
    CHECK(info.hash == FL_HASH_XXH64 && info.seed == 0 && info.keys == 0);
    CHECK(info.bytes > 0 && info.bytes % 32 == 0 && info.bytes <= size && info.bytes <= FUZZ_CAP);

    /* The bitset is the input's tail, byte for byte. */
    size_t bare_len;
    uint8_t *bare = export_alloc(f, 0, &bare_len);
    CHECK(bare_len == info.bytes);
    CHECK(memcmp(bare, data + (size - bare_len), bare_len) == 0);

    /* The header form re-imports to the same bitset. (The bare form need not: bits that
     * happen to start with a complete header are read as one, by design.) */
    size_t full_len, again_len;
    uint8_t *full = export_alloc(f, 1, &full_len);
    fl_filter *g = NULL;
    CHECK(fl_parquet_import(full, full_len, FUZZ_CAP, &g) == FL_OK);
    uint8_t *again = export_alloc(g, 0, &again_len);
    CHECK(again_len == bare_len && memcmp(again, bare, bare_len) == 0);
    fl_free(g);
    free(again);

    /* Lookups and an insert on imported bits. */
    (void)fl_contains_bytes(f, data, size < 16 ? size : 16);
    CHECK(fl_insert_bytes(f, "fuzz", 4) == FL_OK);
    CHECK(fl_contains_bytes(f, "fuzz", 4) == 1);

    free(full);
    free(bare);
    fl_free(f);
    return 0;
}

#ifdef FL_FUZZ_STANDALONE
#include "fuzz_standalone.h"

static int write_blob(const char *dir, const char *name, const uint8_t *p, size_t n) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "wb");
    if (!fp) {
        perror(path);
        return 1;
    }
    int bad = fwrite(p, 1, n, fp) != n;
    bad |= fclose(fp) != 0;
    return bad;
}

/* A 2-block filter holding a few words, hashed as Parquet does, in both forms. */
static int write_seeds(const char *dir) {
    fl_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.variant = FL_SPLIT256;
    cfg.geometry = (fl_geometry){FL_SPLIT256, 2, 8};
    cfg.hash = FL_HASH_XXH64;
    fl_filter *f = NULL;
    if (fl_create(&cfg, &f) != FL_OK) return 1;
    static const char *words[] = {"hello", "parquet", "bloom", "filter"};
    for (int i = 0; i < 4; i++) fl_insert_bytes(f, words[i], strlen(words[i]));
    int bad = 0;
    for (int with_header = 1; with_header >= 0; with_header--) {
        size_t n;
        uint8_t *buf = export_alloc(f, with_header, &n);
        bad |= write_blob(dir, with_header ? "header_2blocks.bin" : "bare_2blocks.bin", buf, n);
        free(buf);
    }
    fl_free(f);
    return bad;
}

int main(int argc, char **argv) {
    return fuzz_standalone_main(argc, argv, write_seeds);
}
#endif
