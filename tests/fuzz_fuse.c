/*
 * libFuzzer target for the static-structure loaders (src/static/codec_fuse.c): the input's first
 * byte picks fl_fuse_load_mem or fl_bloomier_load_mem for the rest, which is tried as it is
 * and with its container checksums recomputed. Any input either fails
 * with one of the loader's statuses or yields a structure that saves and loads back to the
 * same bytes, reports a consistent info, and answers batch lookups exactly as one-key ones
 * (under the dispatched kernel and scalar), never reading outside its cells.
 *
 *   CC=clang meson setup build-fuzz -Dfuzz=true && ninja -C build-fuzz
 *   mkdir -p /tmp/corpus_fuse
 *   build-fuzz/tests/fuzz_fuse -max_total_time=60 /tmp/corpus_fuse tests/fuzz_corpus/fuse
 *
 * Seed corpus: tests/fuzz_corpus/fuse/ holds structures written by this file's generator:
 *
 *   cc -std=c11 -D_GNU_SOURCE -DFL_FUZZ_STANDALONE -Iinclude tests/fuzz_fuse.c \
 *      build/src/libfilterlab.a -lxxhash -lm -o /tmp/fuzz_fuse_seeds
 *   /tmp/fuzz_fuse_seeds --write-seeds tests/fuzz_corpus/fuse
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "filterlab.h"
#include "fuzz_check.h"
#include "fuzz_reseal.h"

#define FUZZ_MAX_BYTES (1u << 24)

static void check_status(fl_status st) {
    CHECK(st == FL_ERR_TRUNCATED || st == FL_ERR_TRAILING_DATA || st == FL_ERR_CORRUPT ||
          st == FL_ERR_CHECKSUM || st == FL_ERR_BAD_MAGIC || st == FL_ERR_BAD_VERSION ||
          st == FL_ERR_WRONG_KIND || st == FL_ERR_TOO_LARGE || st == FL_ERR_NO_MEMORY);
}

static void probe_keys(uint64_t *keys, size_t size) {
    for (int i = 0; i < 64; i++) keys[i] = (uint64_t)i * 0x9e3779b97f4a7c15ull ^ size;
    keys[0] = 0;
    keys[1] = ~0ull;
}

static void fuzz_fuse(const uint8_t *data, size_t size) {
    fl_fuse *f = NULL;
    fl_status st = fl_fuse_load_mem(data, size, FUZZ_MAX_BYTES, &f);
    if (st != FL_OK) {
        check_status(st);
        CHECK(f == NULL);
        return;
    }
    CHECK_SAVES_BACK(f, fl_fuse_serialized_size, fl_fuse_save_mem, data, size);
    fl_static_info info;
    CHECK(fl_fuse_info(f, &info) == FL_OK);
    CHECK(info.arity == 3 || info.arity == 4);
    CHECK(info.cell_bits == 8 || info.cell_bits == 16);
    uint64_t keys[64];
    uint8_t hit[64];
    probe_keys(keys, size);
    for (int pass = 0; pass < 2; pass++) {
        size_t hits = fl_fuse_contains_u64s(f, keys, 64, hit), count = 0;
        for (int i = 0; i < 64; i++) {
            CHECK(hit[i] == fl_fuse_contains_u64(f, keys[i]));
            count += hit[i];
        }
        CHECK(hits == count);
        CHECK(fl_fuse_bind_kernel(f, "scalar") == FL_OK);
    }
    fl_fuse_free(f);
}

static void fuzz_bloomier(const uint8_t *data, size_t size) {
    fl_bloomier *b = NULL;
    fl_status st = fl_bloomier_load_mem(data, size, FUZZ_MAX_BYTES, &b);
    if (st != FL_OK) {
        check_status(st);
        CHECK(b == NULL);
        return;
    }
    CHECK_SAVES_BACK(b, fl_bloomier_serialized_size, fl_bloomier_save_mem, data, size);
    fl_static_info info;
    CHECK(fl_bloomier_info(b, &info) == FL_OK);
    CHECK(info.value_bits >= 1 && info.value_bits <= 16 && info.value_bits <= info.cell_bits);
    uint64_t keys[64];
    uint16_t vals[64];
    uint8_t found[64];
    probe_keys(keys, size);
    for (int pass = 0; pass < 2; pass++) {
        size_t hits = fl_bloomier_get_u64s(b, keys, 64, vals, found), count = 0;
        for (int i = 0; i < 64; i++) {
            uint16_t v;
            CHECK(found[i] == fl_bloomier_get_u64(b, keys[i], &v));
            CHECK(vals[i] == v);
            CHECK(info.value_bits == 16 || (v >> info.value_bits) == 0);
            count += found[i];
        }
        CHECK(hits == count);
        CHECK(fl_bloomier_bind_kernel(b, "scalar") == FL_OK);
    }
    fl_bloomier_free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    /* A static structure's file is a container (tests/fuzz_reseal.h): each input is also tried
     * with its checksums recomputed, so the field checks behind them are reached. */
    check_as_is_and_resealed(data + 1, size - 1, 32, reseal_v2_file,
                             (data[0] & 1) ? fuzz_bloomier : fuzz_fuse);
    return 0;
}

#ifdef FL_FUZZ_STANDALONE
#include "fuzz_standalone.h"

/* One selector byte, then the file. */
static int write_one(const char *dir, const char *name, uint8_t sel, const uint8_t *file,
                     size_t n) {
    uint8_t *buf = file ? malloc(n + 1) : NULL;
    if (buf) {
        buf[0] = sel;
        memcpy(buf + 1, file, n);
    }
    int bad = fuzz_write_seed(dir, name, buf, n + 1);
    free(buf);
    return bad;
}

/* Small structures of every shape: empty, a handful of keys, a few hundred. */
static int write_seeds(const char *dir) {
    uint64_t keys[300];
    uint16_t vals[300];
    for (int i = 0; i < 300; i++) keys[i] = (uint64_t)i * 7919, vals[i] = (uint16_t)(i & 0xff);
    static const size_t counts[] = {0, 5, 300};
    int bad = 0;
    char name[64];
    for (uint32_t arity = 3; arity <= 4; arity++)
        for (uint32_t bits = 8; bits <= 16; bits += 8)
            for (int c = 0; c < 3; c++) {
                fl_fuse_config cfg = {.arity = arity, .fingerprint_bits = bits};
                fl_fuse *f = NULL;
                if (fl_fuse_build_u64(&cfg, keys, counts[c], &f) != FL_OK) return 1;
                size_t n = fl_fuse_serialized_size(f);
                uint8_t *buf = malloc(n);
                int ok = buf && fl_fuse_save_mem(f, buf, n, &n) == FL_OK;
                snprintf(name, sizeof name, "fuse%u_%u_%zu.bin", arity, bits, counts[c]);
                bad |= write_one(dir, name, 0, ok ? buf : NULL, n);
                free(buf);
                fl_fuse_free(f);
                fl_bloomier_config bc = {.arity = arity, .value_bits = 8,
                                         .cell_bits = bits == 8 ? 16 : 32};
                fl_bloomier *b = NULL;
                if (fl_bloomier_build_u64(&bc, keys, vals, counts[c], &b) != FL_OK) return 1;
                n = fl_bloomier_serialized_size(b);
                buf = malloc(n);
                ok = buf && fl_bloomier_save_mem(b, buf, n, &n) == FL_OK;
                snprintf(name, sizeof name, "bloomier%u_%u_%zu.bin", arity, bc.cell_bits,
                         counts[c]);
                bad |= write_one(dir, name, 1, ok ? buf : NULL, n);
                free(buf);
                fl_bloomier_free(b);
            }
    return bad;
}

int main(int argc, char **argv) {
    return fuzz_standalone_main(argc, argv, write_seeds);
}
#endif
