/*
 * libFuzzer target for fl_hll_import_redis (src/hll/hll_redis.c, src/hll/hll_sparse.c): any input
 * either fails with one of the format statuses or yields a sketch that exports back to exactly
 * the input bytes, counts, takes adds (through the sparse update and its promotion) and
 * merges with another sketch.
 *
 *   CC=clang meson setup build-fuzz -Dfuzz=true && ninja -C build-fuzz
 *   mkdir -p /tmp/corpus_hll   # libFuzzer writes new inputs into the first directory only
 *   build-fuzz/tests/fuzz_hll -max_total_time=60 /tmp/corpus_hll tests/fuzz_corpus/hll
 *
 * Seed corpus: tests/fuzz_corpus/hll/ holds Redis strings written by this file's generator
 * (byte-identical to what redis-server 7 keeps for the same PFADDs, which
 * tests/redis/test_hll_interop.py checks):
 *
 *   cc -std=c11 -D_GNU_SOURCE -DFL_FUZZ_STANDALONE -Iinclude tests/fuzz_hll.c \
 *      build/src/libfilterlab.a -lxxhash -lm -o /tmp/fuzz_hll_seeds
 *   /tmp/fuzz_hll_seeds --write-seeds tests/fuzz_corpus/hll
 *
 * The same build run with file arguments replays them through the target.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "filterlab.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fl_hll *h = (fl_hll *)1;
    fl_status st = fl_hll_import_redis(data, size, &h);
    if (st != FL_OK) {
        CHECK(st == FL_ERR_TRUNCATED || st == FL_ERR_TRAILING_DATA || st == FL_ERR_HLL_FORMAT);
        CHECK(h == (fl_hll *)1);
        return 0;
    }
    size_t need = 0, w = 0;
    CHECK(fl_hll_export_redis_size(h, &need) == FL_OK && need == size);
    uint8_t *out = malloc(need);
    CHECK(out != NULL);
    CHECK(fl_hll_export_redis(h, out, need, &w) == FL_OK && w == size);
    CHECK(memcmp(out, data, size) == 0);
    free(out);

    fl_hll_info in;
    CHECK(fl_hll_info_get(h, &in) == FL_OK && in.precision == 14);
    uint64_t c, e;
    CHECK(fl_hll_estimate(h, &e) == FL_OK);
    fl_hll *g = NULL;
    CHECK(fl_hll_clone(h, &g) == FL_OK);
    /* Adds go through the sparse update (and promotion) of whatever opcodes came in. */
    uint64_t keys[64];
    for (int i = 0; i < 64; i++) keys[i] = (uint64_t)i * 0x9e3779b97f4a7c15ull ^ size;
    CHECK(fl_hll_add_u64s(h, keys, 64, NULL) == FL_OK);
    CHECK(fl_hll_count(h, &c) == FL_OK);
    CHECK(fl_hll_merge(g, h) == FL_OK);
    uint64_t eh, eg;
    CHECK(fl_hll_estimate(h, &eh) == FL_OK);
    CHECK(fl_hll_estimate(g, &eg) == FL_OK && eg == eh); /* g's registers were a subset */
    CHECK(fl_hll_export_redis_size(g, &need) == FL_OK);
    fl_hll_free(g);
    fl_hll_free(h);
    return 0;
}

#ifdef FL_FUZZ_STANDALONE
#include "fuzz_standalone.h"

static int write_hll(const char *dir, const char *name, const fl_hll *h) {
    size_t n;
    if (fl_hll_export_redis_size(h, &n) != FL_OK) return 1;
    uint8_t *buf = malloc(n);
    int made = buf && fl_hll_export_redis(h, buf, n, &n) == FL_OK;
    int bad = fuzz_write_seed(dir, name, made ? buf : NULL, n);
    free(buf);
    return bad;
}

/* Redis strings after PFADD of "e0".."e{n-1}" (and a PFCOUNT for one of them): empty,
 * small and larger sparse ones, and a dense one. */
static int write_seeds(const char *dir) {
    static const unsigned ns[] = {0, 3, 40, 400, 3000};
    static const char *const names[] = {"empty_sparse.hll", "sparse_3.hll", "sparse_40.hll",
                                        "sparse_400_counted.hll", "dense_3000.hll"};
    int bad = 0;
    for (int s = 0; s < 5; s++) {
        fl_hll *h = NULL;
        if (fl_hll_create(14, &h) != FL_OK) return 1;
        for (unsigned i = 0; i < ns[s]; i++) {
            char key[32];
            int len = snprintf(key, sizeof key, "e%u", i);
            fl_hll_add_bytes(h, key, (size_t)len, NULL);
        }
        uint64_t c;
        if (s == 3) fl_hll_count(h, &c);
        bad |= write_hll(dir, names[s], h);
        fl_hll_free(h);
    }
    return bad;
}

int main(int argc, char **argv) {
    return fuzz_standalone_main(argc, argv, write_seeds);
}
#endif
