/*
 * libFuzzer target for fl_gcf_load_mem (src/gcf/codec_gcf.c): any input either fails with
 * one of the loader's statuses or yields a growing cuckoo filter that saves back to the same
 * bytes; batch lookups under every kernel this CPU runs agree with the one-key probe; then
 * the filter is made to double (its byte limit, the loader's cap, lifted only as far as two
 * doublings) while keys go in, and every key it took is still found, whatever the loaded
 * slots held.
 *
 *   CC=clang meson setup build-fuzz -Dfuzz=true && ninja -C build-fuzz
 *   mkdir -p /tmp/corpus_gcf   # libFuzzer writes new inputs into the first directory only
 *   build-fuzz/tests/fuzz_gcf -max_total_time=60 /tmp/corpus_gcf tests/fuzz_corpus/gcf
 *
 * Seed corpus: tests/fuzz_corpus/gcf/ holds filters written by this file's generator:
 *
 *   cc -std=c11 -D_GNU_SOURCE -DFL_FUZZ_STANDALONE -Iinclude tests/fuzz_gcf.c \
 *      build/src/libfilterlab.a -lxxhash -lm -o /tmp/fuzz_gcf_seeds
 *   /tmp/fuzz_gcf_seeds --write-seeds tests/fuzz_corpus/gcf
 *
 * The same build run with file arguments replays them through the target.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "filterlab.h"
#include "fuzz_check.h"
#include "fuzz_reseal.h"

/* Tables past this are refused (TOO_LARGE): a crafted header would otherwise have the
 * fuzzer allocate gigabytes. */
#define FUZZ_MAX_BYTES (1u << 22)
#define NKEYS 96

static void check_one(const uint8_t *data, size_t size) {
    fl_gcf *g = NULL;
    fl_status st = fl_gcf_load_mem(data, size, FUZZ_MAX_BYTES, &g);
    if (!check_load_outcome(data, size, st, g != NULL, FL_FILE_GROWING_CUCKOO)) return;
    CHECK_SAVES_BACK(g, fl_gcf_serialized_size, fl_gcf_save_mem, data, size);

    uint64_t keys[NKEYS];
    uint8_t one[NKEYS];
    size_t npos = 0;
    for (int i = 0; i < NKEYS; i++) {
        keys[i] = XXH3_64bits_withSeed(&i, sizeof i, size);
        one[i] = (uint8_t)fl_gcf_contains_u64(g, keys[i]);
        npos += one[i];
    }
    CHECK_KERNELS_AGREE(fl_gcf, g, keys, NKEYS, one, npos);
    fl_gcf_info info;
    CHECK(fl_gcf_info_get(g, &info) == FL_OK);
    CHECK(info.byte_limit == FUZZ_MAX_BYTES);
    /* room for two doublings (when the loaded table is below the cap), then inserts: each
     * refusal leaves the item count, every accepted key is found after the doublings */
    CHECK(fl_gcf_set_byte_limit(g, (uint64_t)info.bytes * 4) == FL_OK);
    uint64_t items = info.items;
    uint8_t took[NKEYS];
    for (int i = 0; i < NKEYS; i++) {
        st = fl_gcf_insert_u64(g, keys[i]);
        CHECK(st == FL_OK || st == FL_ERR_FULL || st == FL_ERR_TOO_LARGE ||
              st == FL_ERR_NO_MEMORY);
        took[i] = st == FL_OK;
        items += took[i];
        CHECK(fl_gcf_info_get(g, &info) == FL_OK && info.items == items);
    }
    for (int i = 0; i < NKEYS; i++) CHECK(!took[i] || fl_gcf_contains_u64(g, keys[i]) == 1);
    for (int i = 0; i < NKEYS; i += 2) {
        if (!took[i]) continue;
        CHECK(fl_gcf_delete_u64(g, keys[i]) == FL_OK); /* it was inserted: a copy is there */
        items--;
    }
    CHECK(fl_gcf_info_get(g, &info) == FL_OK && info.items == items);
    CHECK_STILL_LOADS(fl_gcf, fl_gcf, g);
    fl_gcf_free(g);
}

/* Each input as it is and with its checksums recomputed (fuzz_reseal.h), so that mutated
 * slots and header fields reach the checks behind the checksums. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    check_as_is_and_resealed(data, size, 32, reseal_v2_file, check_one);
    return 0;
}

#ifdef FL_FUZZ_STANDALONE
#include "fuzz_standalone.h"

/* The smallest table empty, with a few keys and copies, grown once with deletes, and grown
 * twice (slots of 5 to 7 extension bits). */
static int write_seeds(const char *dir) {
    static const char *const names[] = {"empty.gcf", "few.gcf", "grown.gcf", "grown2.gcf"};
    static const uint64_t fill[] = {0, 40, 5000, 9000};
    int bad = 0;
    for (int s = 0; s < 4; s++) {
        fl_gcf *g = NULL;
        if (fl_gcf_create(1, (uint64_t)s, &g) != FL_OK) return 1;
        for (uint64_t k = 0; k < fill[s]; k++)
            if (fl_gcf_insert_u64(g, s == 1 ? k % 13 : k) != FL_OK) break;
        for (uint64_t k = 0; s == 2 && k < 100; k++) fl_gcf_delete_u64(g, k);
        size_t len = fl_gcf_serialized_size(g);
        uint8_t *buf = malloc(len);
        int made = buf && fl_gcf_save_mem(g, buf, len, &len) == FL_OK;
        bad |= fuzz_write_seed(dir, names[s], made ? buf : NULL, len);
        free(buf);
        fl_gcf_free(g);
    }
    return bad;
}

int main(int argc, char **argv) {
    return fuzz_standalone_main(argc, argv, write_seeds);
}
#endif
