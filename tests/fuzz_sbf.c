/*
 * libFuzzer target for fl_sbf_load_mem (src/sbf/codec_sbf.c on src/format/container.c): any input
 * either fails with a status or yields a chain that keeps its invariants (counts adding
 * up, the model under the target), answers batch lookups as single ones, saves back to
 * exactly the input bytes (the format has one encoding per chain), and takes adds, growing
 * if it must. fl_file_kind_mem must agree with the loaders.
 *
 *   CC=clang meson setup build-fuzz -Dfuzz=true && ninja -C build-fuzz
 *   mkdir -p /tmp/corpus_sbf   # libFuzzer writes new inputs into the first directory only
 *   build-fuzz/tests/fuzz_sbf -max_total_time=60 /tmp/corpus_sbf tests/fuzz_corpus/sbf
 *
 * Seed corpus: tests/fuzz_corpus/sbf/ holds small valid chains written by this file's own
 * generator (rerun it after a format change):
 *
 *   cc -std=c11 -D_GNU_SOURCE -DFL_FUZZ_STANDALONE -Iinclude tests/fuzz_sbf.c \
 *      build/src/libfilterlab.a -lxxhash -lm -o /tmp/fuzz_sbf_seeds
 *   /tmp/fuzz_sbf_seeds --write-seeds tests/fuzz_corpus/sbf
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

#define FUZZ_CAP ((size_t)1 << 20) /* most payload bytes a load may allocate */

static void check_one(const uint8_t *data, size_t size) {
    fl_sbf *s = (fl_sbf *)1;
    fl_status st = fl_sbf_load_mem(data, size, FUZZ_CAP, &s);
    if (!check_load_outcome(data, size, st, s != NULL, FL_FILE_SCALABLE_BLOOM))
        return;
    fl_filter *f = NULL;
    CHECK(fl_load_mem(data, size, FUZZ_CAP, &f) == FL_ERR_WRONG_KIND && f == NULL);

    fl_sbf_info in;
    CHECK(fl_sbf_get_info(s, &in) == FL_OK);
    CHECK(in.bytes <= FUZZ_CAP && in.filters >= 1 && in.filters <= in.max_filters);
    CHECK(in.items == fl_sbf_count(s));
    uint64_t items = 0;
    for (uint32_t i = 0; i < in.filters; i++) {
        fl_sbf_filter_info fi;
        CHECK(fl_sbf_filter_info_at(s, i, &fi) == FL_OK);
        CHECK(fi.items <= fi.capacity && fi.predicted_fpr <= 1);
        items += fi.items;
    }
    CHECK(items == in.items);

    uint64_t hashes[40];
    uint8_t out[40];
    for (size_t i = 0; i < 40; i++) hashes[i] = fl_sbf_hash_bytes(s, data, size < i ? size : i);
    size_t positives = 0, sum = 0;
    CHECK(fl_sbf_contains_hashes(s, hashes, 40, out, &positives) == FL_OK);
    for (size_t i = 0; i < 40; i++) {
        CHECK(out[i] == fl_sbf_contains_hash(s, hashes[i]));
        sum += out[i];
    }
    CHECK(sum == positives);

    CHECK_SAVES_BACK(s, fl_sbf_serialized_size, fl_sbf_save_mem, data, size);

    /* Usable: adds go in (a full or capped chain refuses with its status) and are found.
     * The load's cap holds the growth too (fl_sbf_load_mem): a crafted capacity, or a target
     * rate tightened far down (1e5 keys at 1e-100 take half a gigabyte), is refused with
     * FL_ERR_TOO_LARGE before anything is allocated, so the fuzzer's memory stays bounded. */
    CHECK(in.byte_limit == FUZZ_CAP);
    for (size_t i = 0; i < 40; i++) {
        int added = 0;
        st = fl_sbf_add_hash(s, hashes[i] ^ 0x5555, &added);
        CHECK(st == FL_OK || st == FL_ERR_FULL || st == FL_ERR_TOO_LARGE ||
              st == FL_ERR_BAD_FPR || st == FL_ERR_NO_MEMORY);
        if (st == FL_OK) CHECK(fl_sbf_contains_hash(s, hashes[i] ^ 0x5555) == 1);
        if (st != FL_OK) break;
    }
    CHECK(fl_sbf_get_info(s, &in) == FL_OK);
    CHECK(in.bytes <= FUZZ_CAP);
    fl_sbf_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    check_as_is_and_resealed(data, size, 32, reseal_v2_file, check_one);
    return 0;
}

#ifdef FL_FUZZ_STANDALONE
#include "fuzz_standalone.h"

static int write_seed(const char *dir, const char *name, const fl_sbf_config *c, unsigned keys) {
    fl_sbf *s = NULL;
    fl_status st = fl_sbf_create(c, &s);
    for (unsigned i = 0; st == FL_OK && i < keys; i++)
        st = fl_sbf_add_hash(s, fl_hash_u64(i, 1), NULL);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (st == FL_OK) st = fl_sbf_save_file(s, path);
    if (st != FL_OK) fprintf(stderr, "%s: %s\n", path, fl_strerror(st));
    fl_sbf_free(s);
    return st == FL_OK ? 0 : 1;
}

/* Small chains: one sub-filter of each Bloom variant with some growth, a non-scaling one
 * at capacity, and one with caps. */
static int write_seeds(const char *dir) {
    int bad = 0;
    fl_sbf_config c = {.capacity = 16, .error_rate = 0.05, .variant = FL_BLOCK512};
    bad |= write_seed(dir, "block512_grown.sbf", &c, 60);
    c.variant = FL_CLASSIC;
    c.growth = 1;
    bad |= write_seed(dir, "classic_growth1.sbf", &c, 40);
    c.variant = FL_SPLIT256;
    c.growth = 3;
    c.tightening = 0.8;
    bad |= write_seed(dir, "split256_g3.sbf", &c, 100);
    c = (fl_sbf_config){.capacity = 20, .error_rate = 0.1, .variant = FL_REG64,
                        .flags = FL_SBF_NONSCALING};
    bad |= write_seed(dir, "reg64_nonscaling.sbf", &c, 20);
    c = (fl_sbf_config){.capacity = 10, .error_rate = 0.01, .max_filters = 3,
                        .max_bytes = 4096, .seed = 99};
    bad |= write_seed(dir, "capped.sbf", &c, 25);
    return bad;
}

int main(int argc, char **argv) {
    return fuzz_standalone_main(argc, argv, write_seeds);
}
#endif
