/*
 * libFuzzer target for fl_lbf_load_mem (src/layered/codec_layered.c on src/format/container.c): any input
 * either fails with a status or yields a layered filter that answers batch counts as single
 * ones, saves back to exactly the input bytes (one encoding per filter), takes adds (a count
 * moves up by one or stays at R) and, on counting layers, deletes. fl_file_kind_mem must
 * agree with the loaders.
 *
 *   CC=clang meson setup build-fuzz -Dfuzz=true && ninja -C build-fuzz
 *   mkdir -p /tmp/corpus_layered
 *   build-fuzz/tests/fuzz_layered -max_total_time=60 /tmp/corpus_layered \
 *       tests/fuzz_corpus/layered
 *
 * Seed corpus: tests/fuzz_corpus/layered/ holds small valid filters written by this file's
 * own generator (rerun it after a format change):
 *
 *   cc -std=c11 -D_GNU_SOURCE -DFL_FUZZ_STANDALONE -Iinclude tests/fuzz_layered.c \
 *      build/src/libfilterlab.a -lxxhash -lm -o /tmp/fuzz_layered_seeds
 *   /tmp/fuzz_layered_seeds --write-seeds tests/fuzz_corpus/layered
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "filterlab.h"
#include "fuzz_check.h"
#include "fuzz_reseal.h"

#define FUZZ_CAP ((size_t)1 << 20) /* most payload bytes a load may allocate */

static void check_one(const uint8_t *data, size_t size) {
    fl_lbf *l = (fl_lbf *)1;
    fl_status st = fl_lbf_load_mem(data, size, FUZZ_CAP, &l);
    if (!check_load_outcome(data, size, st, l != NULL, FL_FILE_LAYERED_BLOOM))
        return;
    fl_filter *f = NULL;
    CHECK(fl_load_mem(data, size, FUZZ_CAP, &f) == FL_ERR_WRONG_KIND && f == NULL);

    fl_lbf_info in;
    CHECK(fl_lbf_get_info(l, &in) == FL_OK);
    CHECK(in.bytes <= FUZZ_CAP && in.layers >= 1 && in.layers <= FL_LBF_LAYERS_MAX);

    uint64_t hashes[40];
    uint8_t counts[40];
    for (size_t i = 0; i < 40; i++) hashes[i] = fl_lbf_hash_bytes(l, data, size < i ? size : i);
    CHECK(fl_lbf_count_hashes(l, hashes, 40, counts) == FL_OK);
    for (size_t i = 0; i < 40; i++) {
        CHECK(counts[i] <= in.layers);
        CHECK(counts[i] == fl_lbf_count_hash(l, hashes[i]));
    }

    CHECK_SAVES_BACK(l, fl_lbf_serialized_size, fl_lbf_save_mem, data, size);

    for (size_t i = 0; i < 40; i++) {
        uint32_t before = fl_lbf_count_hash(l, hashes[i]), after = 0;
        CHECK(fl_lbf_add_hash(l, hashes[i], &after) == FL_OK);
        CHECK(after == (before < in.layers ? before + 1 : in.layers));
        if (in.can_delete) {
            st = fl_lbf_delete_hash(l, hashes[i], &after);
            CHECK(st == FL_OK || st == FL_ERR_NOT_FOUND);
        }
    }
    fl_lbf_free(l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    check_as_is_and_resealed(data, size, 32, reseal_v2_file, check_one);
    return 0;
}

#ifdef FL_FUZZ_STANDALONE
#include "fuzz_standalone.h"

static int write_seed(const char *dir, const char *name, const fl_lbf_config *c, unsigned keys) {
    fl_lbf *l = NULL;
    fl_status st = fl_lbf_create(c, &l);
    for (unsigned i = 0; st == FL_OK && i < keys; i++)
        st = fl_lbf_add_hash(l, fl_hash_u64(i % (keys / 3 + 1), 1), NULL);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (st == FL_OK) st = fl_lbf_save_file(l, path);
    if (st != FL_OK) fprintf(stderr, "%s: %s\n", path, fl_strerror(st));
    fl_lbf_free(l);
    return st == FL_OK ? 0 : 1;
}

static int write_seeds(const char *dir) {
    int bad = 0;
    fl_lbf_config c = {.layers = 3, .capacity = 16, .fpr = 0.05};
    bad |= write_seed(dir, "block512_3.lbf", &c, 40);
    c = (fl_lbf_config){.layers = 2, .capacity = 30, .fpr = 0.1, .variant = FL_COUNTING};
    bad |= write_seed(dir, "counting_2.lbf", &c, 50);
    c = (fl_lbf_config){.layers = 5, .capacity = 10, .fpr = 0.02, .variant = FL_REG64,
                        .seed = 9};
    bad |= write_seed(dir, "reg64_5.lbf", &c, 30);
    c = (fl_lbf_config){.layers = 1, .capacity = 20, .fpr = 0.01, .variant = FL_CLASSIC,
                        .hash = FL_HASH_XXH64};
    bad |= write_seed(dir, "classic_1.lbf", &c, 20);
    return bad;
}

int main(int argc, char **argv) {
    return fuzz_standalone_main(argc, argv, write_seeds);
}
#endif
