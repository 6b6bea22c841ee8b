/*
 * libFuzzer target for fl_cbf_load_mem (src/compressed/codec_compressed.c) and the chunk decoders
 * (src/compressed/coder_golomb.c, src/compressed/coder_zstd.c): any input either fails with a status or yields a
 * compressed filter whose every chunk either decodes to exactly its bytes or is refused
 * (FL_ERR_CORRUPT), whose batch lookups answer as single ones and as the decompressed
 * filter's, and which saves back to exactly the input bytes. fl_file_kind_mem must agree.
 *
 *   CC=clang meson setup build-fuzz -Dfuzz=true && ninja -C build-fuzz
 *   mkdir -p /tmp/corpus_compressed
 *   build-fuzz/tests/fuzz_compressed -max_total_time=60 /tmp/corpus_compressed \
 *       tests/fuzz_corpus/compressed
 *
 * Seed corpus: tests/fuzz_corpus/compressed/, written by this file's own generator:
 *
 *   cc -std=c11 -D_GNU_SOURCE -DFL_FUZZ_STANDALONE -Iinclude tests/fuzz_compressed.c \
 *      build/src/libfilterlab.a -lxxhash -lzstd -lm -o /tmp/fuzz_compressed_seeds
 *   /tmp/fuzz_compressed_seeds --write-seeds tests/fuzz_corpus/compressed
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "filterlab.h"
#include "fuzz_check.h"
#include "fuzz_reseal.h"

#define FUZZ_CAP ((size_t)1 << 20) /* most payload bytes a load may describe */

static void check_one(const uint8_t *data, size_t size) {
    fl_cbf *c = (fl_cbf *)1;
    fl_status st = fl_cbf_load_mem(data, size, FUZZ_CAP, &c);
    if (!check_load_outcome(data, size, st, c != NULL, FL_FILE_COMPRESSED_BLOOM))
        return;

    CHECK_SAVES_BACK(c, fl_cbf_serialized_size, fl_cbf_save_mem, data, size);

    fl_status vst = fl_cbf_verify(c);
    CHECK(vst == FL_OK || vst == FL_ERR_CORRUPT);
    fl_filter *f = NULL;
    fl_status dst = fl_cbf_decompress(c, &f);
    CHECK(dst == FL_OK || dst == FL_ERR_CORRUPT || dst == FL_ERR_NO_MEMORY);
    if (dst == FL_OK) CHECK(vst == FL_OK);

    uint64_t hashes[40];
    uint8_t out[40], full[40];
    for (size_t i = 0; i < 40; i++) hashes[i] = fl_cbf_hash_bytes(c, data, size < i ? size : i);
    size_t positives = 0;
    st = fl_cbf_contains_hashes(c, hashes, 40, out, &positives, NULL);
    CHECK(st == FL_OK || st == FL_ERR_CORRUPT || st == FL_ERR_UNSUPPORTED);
    if (st == FL_OK) {
        size_t sum = 0;
        for (size_t i = 0; i < 40; i++) {
            int found = 0;
            CHECK(fl_cbf_contains_hash(c, hashes[i], &found) == FL_OK && found == out[i]);
            sum += out[i];
        }
        CHECK(sum == positives);
        if (f) {
            CHECK(fl_contains_hashes(f, hashes, 40, full, NULL) == FL_OK);
            CHECK(memcmp(out, full, 40) == 0);
        }
    }
    fl_free(f);
    fl_cbf_free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    check_as_is_and_resealed(data, size, 32, reseal_v2_file, check_one);
    return 0;
}

#ifdef FL_FUZZ_STANDALONE
#include "fuzz_standalone.h"

static int write_seed(const char *dir, const char *name, fl_variant v, uint64_t keys,
                      fl_coder coder, uint32_t chunk) {
    fl_filter *f = NULL;
    fl_status st = fl_create_for(v, keys, 0.05, &f);
    for (uint64_t i = 0; st == FL_OK && i < keys; i++) st = fl_insert_u64(f, i);
    fl_cbf *c = NULL;
    if (st == FL_OK) st = fl_cbf_compress(f, coder, chunk, &c);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (st == FL_OK) st = fl_cbf_save_file(c, path);
    if (st != FL_OK) fprintf(stderr, "%s: %s\n", path, fl_strerror(st));
    fl_cbf_free(c);
    fl_free(f);
    return st == FL_OK ? 0 : 1;
}

static int write_seeds(const char *dir) {
    int bad = 0;
    bad |= write_seed(dir, "block512_golomb.cbf", FL_BLOCK512, 60, FL_CODER_GOLOMB, 64);
    bad |= write_seed(dir, "block512_zstd.cbf", FL_BLOCK512, 60, FL_CODER_ZSTD, 128);
    bad |= write_seed(dir, "split256_golomb.cbf", FL_SPLIT256, 40, FL_CODER_GOLOMB, 64);
    bad |= write_seed(dir, "reg64_zstd.cbf", FL_REG64, 80, FL_CODER_ZSTD, 64);
    bad |= write_seed(dir, "classic_golomb.cbf", FL_CLASSIC, 50, FL_CODER_GOLOMB, 0);
    return bad;
}

int main(int argc, char **argv) {
    return fuzz_standalone_main(argc, argv, write_seeds);
}
#endif
