/*
 * libFuzzer target for fl_vqf_load_mem (src/vqf/codec_vqf.c): any input either fails with
 * one of the loader's statuses or yields a vector quotient filter that saves and loads back
 * to the same bytes, answers batch lookups as single ones (under every kernel this CPU runs),
 * takes inserts and deletes (an inserted key is then found, a deleted one's copy goes), and
 * keeps its item count.
 *
 *   CC=clang meson setup build-fuzz -Dfuzz=true && ninja -C build-fuzz
 *   mkdir -p /tmp/corpus_vqf   # libFuzzer writes new inputs into the first directory only
 *   build-fuzz/tests/fuzz_vqf -max_total_time=60 /tmp/corpus_vqf tests/fuzz_corpus/vqf
 *
 * Seed corpus: tests/fuzz_corpus/vqf/ holds filters written by this file's generator:
 *
 *   cc -std=c11 -D_GNU_SOURCE -DFL_FUZZ_STANDALONE -Iinclude tests/fuzz_vqf.c \
 *      build/src/libfilterlab.a -lxxhash -lm -o /tmp/fuzz_vqf_seeds
 *   /tmp/fuzz_vqf_seeds --write-seeds tests/fuzz_corpus/vqf
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

/* Block bytes past this are refused (TOO_LARGE) so the fuzzer does not spend its time
 * allocating gigabytes that a crafted header announces. */
#define FUZZ_MAX_BYTES (1u << 24)

static void check_one(const uint8_t *data, size_t size) {
    fl_vqf *v = NULL;
    fl_status st = fl_vqf_load_mem(data, size, FUZZ_MAX_BYTES, &v);
    if (!check_load_outcome(data, size, st, v != NULL, FL_FILE_VECTOR_QUOTIENT)) return;
    CHECK_SAVES_BACK(v, fl_vqf_serialized_size, fl_vqf_save_mem, data, size);

    /* the single-key answers, then every kernel's batch must give exactly them */
    uint64_t keys[64];
    uint8_t want[64];
    size_t npos = 0;
    for (int i = 0; i < 64; i++) {
        keys[i] = (uint64_t)i * 0x9e3779b97f4a7c15ull ^ size;
        want[i] = (uint8_t)fl_vqf_contains_u64(v, keys[i]);
        npos += want[i];
    }
    CHECK_KERNELS_AGREE(fl_vqf, v, keys, 64, want, npos);
    fl_vqf_info info;
    CHECK(fl_vqf_info_get(v, &info) == FL_OK);
    uint64_t items = info.items;
    for (int i = 0; i < 64; i++) {
        st = fl_vqf_insert_u64(v, keys[i]);
        CHECK(st == FL_OK || st == FL_ERR_FULL);
        if (st == FL_OK) {
            items++;
            CHECK(fl_vqf_contains_u64(v, keys[i]) == 1);
        }
    }
    for (int i = 0; i < 64; i += 2) {
        st = fl_vqf_delete_u64(v, keys[i]);
        CHECK(st == FL_OK || st == FL_ERR_NOT_FOUND);
        if (st == FL_OK) items--;
    }
    CHECK(fl_vqf_info_get(v, &info) == FL_OK && info.items == items);
    CHECK_STILL_LOADS(fl_vqf, fl_vqf, v);
    fl_vqf_free(v);
}

/* Each input as it is and with its checksums recomputed (fuzz_reseal.h), so that mutated
 * metadata reaches the block checks behind them. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    check_as_is_and_resealed(data, size, 32, reseal_v2_file, check_one);
    return 0;
}

#ifdef FL_FUZZ_STANDALONE
#include "fuzz_standalone.h"

/* Small filters: empty, partly filled, with copies and deletes, and one whose blocks are
 * full. */
static int write_seeds(const char *dir) {
    static const char *const names[] = {"empty.vqf", "half.vqf", "deletes.vqf", "full.vqf"};
    int bad = 0;
    for (int s = 0; s < 4; s++) {
        fl_vqf *v = NULL;
        if (fl_vqf_create_blocks(1 + (uint32_t)s, (uint64_t)s, &v) != FL_OK) return 1;
        uint64_t n = s == 0 ? 0 : s == 3 ? 1000 : 24u * (uint64_t)s;
        for (uint64_t k = 0; k < n; k++)
            if (fl_vqf_insert_u64(v, k % 17) != FL_OK) break;
        for (uint64_t k = 0; s == 2 && k < 10; k++) fl_vqf_delete_u64(v, k);
        size_t len = fl_vqf_serialized_size(v);
        uint8_t *buf = malloc(len);
        int made = buf && fl_vqf_save_mem(v, buf, len, &len) == FL_OK;
        bad |= fuzz_write_seed(dir, names[s], made ? buf : NULL, len);
        free(buf);
        fl_vqf_free(v);
    }
    return bad;
}

int main(int argc, char **argv) {
    return fuzz_standalone_main(argc, argv, write_seeds);
}
#endif
