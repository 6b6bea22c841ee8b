/*
 * libFuzzer target for fl_cms_load_mem (src/cms/codec_cms.c): any input either fails with one of
 * the loader's statuses or yields a sketch that saves and loads back to the same counters,
 * candidates and N, answers queries, takes updates (tracked ones included), reports its top-k
 * and heavy hitters, and merges with itself.
 *
 *   CC=clang meson setup build-fuzz -Dfuzz=true && ninja -C build-fuzz
 *   mkdir -p /tmp/corpus_cms   # libFuzzer writes new inputs into the first directory only
 *   build-fuzz/tests/fuzz_cms -max_total_time=60 /tmp/corpus_cms tests/fuzz_corpus/cms
 *
 * Seed corpus: tests/fuzz_corpus/cms/ holds sketches written by this file's generator:
 *
 *   cc -std=c11 -D_GNU_SOURCE -DFL_FUZZ_STANDALONE -Iinclude tests/fuzz_cms.c \
 *      build/src/libfilterlab.a -lxxhash -lm -o /tmp/fuzz_cms_seeds
 *   /tmp/fuzz_cms_seeds --write-seeds tests/fuzz_corpus/cms
 *
 * The same build run with file arguments replays them through the target.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "filterlab.h"
#include "fuzz_check.h"

/* Counters past this are refused (TOO_LARGE) so the fuzzer does not spend its time
 * allocating gigabytes that a crafted 100-byte header announces. */
#define FUZZ_MAX_BYTES (1u << 24)

static void same(const fl_cms *a, const fl_cms *b) {
    fl_cms_info ia, ib;
    CHECK(fl_cms_info_get(a, &ia) == FL_OK && fl_cms_info_get(b, &ib) == FL_OK);
    CHECK(ia.width == ib.width && ia.depth == ib.depth && ia.seed == ib.seed);
    CHECK(ia.total == ib.total && ia.saturated == ib.saturated);
    CHECK(ia.candidates == ib.candidates && ia.conservative == ib.conservative);
    fl_cms_item ta[8], tb[8];
    size_t na = 0, nb = 0;
    if (ia.topk) {
        CHECK(fl_cms_top(a, ta, 8, &na) == FL_OK && fl_cms_top(b, tb, 8, &nb) == FL_OK);
        CHECK(na == nb);
        for (size_t i = 0; i < na; i++)
            CHECK(ta[i].estimate == tb[i].estimate && ta[i].len == tb[i].len &&
                  memcmp(ta[i].key, tb[i].key, ta[i].len) == 0);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fl_cms *c = NULL;
    fl_status st = fl_cms_load_mem(data, size, FUZZ_MAX_BYTES, &c);
    if (st != FL_OK) {
        CHECK(st == FL_ERR_TRUNCATED || st == FL_ERR_TRAILING_DATA || st == FL_ERR_CORRUPT ||
              st == FL_ERR_CHECKSUM || st == FL_ERR_BAD_MAGIC || st == FL_ERR_BAD_VERSION ||
              st == FL_ERR_WRONG_KIND || st == FL_ERR_TOO_LARGE || st == FL_ERR_NO_MEMORY);
        CHECK(c == NULL);
        return 0;
    }
    size_t need = fl_cms_serialized_size(c), w = 0;
    CHECK(need > 0);
    uint8_t *out = malloc(need);
    CHECK(out != NULL);
    CHECK(fl_cms_save_mem(c, out, need, &w) == FL_OK && w == need);
    fl_cms *d = NULL;
    CHECK(fl_cms_load_mem(out, need, 0, &d) == FL_OK);
    same(c, d);
    free(out);

    uint64_t keys[64];
    uint32_t est[64];
    for (int i = 0; i < 64; i++) keys[i] = (uint64_t)i * 0x9e3779b97f4a7c15ull ^ size;
    CHECK(fl_cms_query_u64s(c, keys, 64, est) == FL_OK);
    for (int i = 0; i < 64; i++) CHECK(est[i] == fl_cms_query_u64(c, keys[i]));
    CHECK(fl_cms_add_u64s(c, keys, 64, NULL) == FL_OK);
    CHECK(fl_cms_add_bytes(c, data, size < 64 ? size : 64, 3) == FL_OK);
    for (int i = 0; i < 64; i++) CHECK(fl_cms_query_u64(c, keys[i]) >= (est[i] == UINT32_MAX ? est[i] : est[i] + 1));
    fl_cms_item items[16];
    size_t n;
    st = fl_cms_top(c, items, 16, &n);
    CHECK(st == FL_OK || st == FL_ERR_UNSUPPORTED);
    st = fl_cms_heavy_hitters(c, 0.1, items, 16, &n);
    CHECK(st == FL_OK || st == FL_ERR_UNSUPPORTED);
    CHECK(fl_cms_merge(c, d) == FL_OK);
    fl_cms_free(c);
    fl_cms_free(d);
    return 0;
}

#ifdef FL_FUZZ_STANDALONE
#include "fuzz_standalone.h"

static int write_cms(const char *dir, const char *name, const fl_cms *c) {
    size_t n = fl_cms_serialized_size(c);
    uint8_t *buf = malloc(n);
    int made = buf && fl_cms_save_mem(c, buf, n, &n) == FL_OK;
    int bad = fuzz_write_seed(dir, name, made ? buf : NULL, n);
    free(buf);
    return bad;
}

/* Small sketches: empty, plain, conservative with byte and u64 candidates, one with a
 * saturated counter. */
static int write_seeds(const char *dir) {
    static const char *const names[] = {"empty.cms", "plain.cms", "cons_top.cms", "saturated.cms"};
    int bad = 0;
    for (int s = 0; s < 4; s++) {
        fl_cms_config cfg = {.width = 16 + 5 * (uint32_t)s, .depth = 1 + (uint32_t)s,
                             .seed = (uint64_t)s, .conservative = s == 2,
                             .topk = s >= 2 ? 4 : 0};
        fl_cms *c = NULL;
        if (fl_cms_create(&cfg, &c) != FL_OK) return 1;
        for (unsigned i = 0; s > 0 && i < 50; i++) {
            char key[32];
            int len = snprintf(key, sizeof key, "k%u", i % 13);
            fl_cms_add_bytes(c, key, (size_t)len, 1 + i % 3);
            fl_cms_add_u64(c, i % 7, 2);
        }
        if (s == 3) fl_cms_add_bytes(c, "big", 3, UINT32_MAX);
        bad |= write_cms(dir, names[s], c);
        fl_cms_free(c);
    }
    return bad;
}

int main(int argc, char **argv) {
    return fuzz_standalone_main(argc, argv, write_seeds);
}
#endif
