/*
 * libFuzzer target for the wisdom file parser (src/cpu/wisdom.c): any input is either refused
 * with one sentence (no newline) or accepted with only kernels the CPU runs, each cell's
 * winner its fastest timing. Every input is parsed twice: as given (the checksum refuses
 * nearly all of them) and with a valid sha256 line appended, so the fuzzer reaches the
 * line parser behind the checksum. The CPU key is a fixed fake one, so seeds work anywhere.
 *
 *   CC=clang meson setup build-fuzz -Dfuzz=true && ninja -C build-fuzz
 *   mkdir -p /tmp/corpus_wisdom
 *   build-fuzz/tests/fuzz_wisdom -max_total_time=60 /tmp/corpus_wisdom tests/fuzz_corpus/wisdom
 *
 * Seeds: `build/tests/wisdom_replay --write-seeds tests/fuzz_corpus/wisdom` (the standalone
 * build; without the sha256 line, which the target appends). Given files, it replays them.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "cpu/kernel_choice.h"

static const fl_wisdom_key fuzz_key = {"FuzzCPU", 1, 2, 3, "0x1", 0x5u, "0.1.0"};
/* Every candidate but emulated NEON, as on an AVX-512 machine. */
#define AVAIL (((1u << FL_NCAND) - 1) & ~(1u << FL_CAND_NEON))

static void check(const char *buf, size_t len, const fl_wisdom_key *key) {
    fl_wisdom w;
    char why[512];
    why[0] = '\0';
    if (fl_wisdom_parse(buf, len, key, AVAIL, &w, why, sizeof why)) {
        for (size_t i = 0; i < fl_nentries * FL_NSIZE_CLASSES; i++) {
            const fl_wisdom_cell *x = &w.cells[i];
            if (!x->have) continue;
            CHECK(x->cand >= 0 && x->cand < FL_NCAND && (AVAIL & (1u << x->cand)));
            CHECK(x->ns[x->cand] > 0);
            for (int c = 0; c < FL_NCAND; c++) CHECK(x->ns[c] == 0 || x->ns[c] >= x->ns[x->cand]);
        }
        fl_wisdom_free(&w);
    } else {
        CHECK(why[0] != '\0' && strchr(why, '\n') == NULL);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fl_wisdom_key key = fuzz_key;
    /* The library version is this build's, so a seed's "library" line matches. */
    snprintf(key.library, sizeof key.library, "%d.%d.%d", FL_VERSION_MAJOR, FL_VERSION_MINOR,
             FL_VERSION_PATCH);
    check((const char *)data, size, &key);
    char *sealed = malloc(size + 80);
    if (!sealed) return 0;
    memcpy(sealed, data, size);
    uint8_t d[32];
    fl_sha256(sealed, size, d);
    memcpy(sealed + size, "sha256 ", 7);
    size_t o = size + 7;
    for (int i = 0; i < 32; i++) {
        sealed[o++] = "0123456789abcdef"[d[i] >> 4];
        sealed[o++] = "0123456789abcdef"[d[i] & 15];
    }
    sealed[o++] = '\n';
    check(sealed, o, &key);
    free(sealed);
    return 0;
}

#ifdef FL_FUZZ_STANDALONE
#include "fuzz_standalone.h"

/* One file fl_wisdom_format writes for the fake key, its sha256 line cut off. */
static int write_seeds(const char *dir) {
    fl_wisdom w;
    memset(&w, 0, sizeof w);
    w.key = fuzz_key;
    snprintf(w.key.library, sizeof w.key.library, "%d.%d.%d", FL_VERSION_MAJOR,
             FL_VERSION_MINOR, FL_VERSION_PATCH);
    snprintf(w.date, sizeof w.date, "2026-11-26");
    w.limits[0] = 49152, w.limits[1] = 2097152, w.limits[2] = 314572800;
    w.cells = calloc(fl_nentries * FL_NSIZE_CLASSES, sizeof *w.cells);
    if (!w.cells) return 1;
    for (size_t e = 0; e < fl_nentries; e++)
        for (int c = 0; c < (fl_entries[e].sized ? FL_NSIZE_CLASSES : 1); c += 3) {
            fl_wisdom_cell *x = &w.cells[e * FL_NSIZE_CLASSES + (size_t)c];
            x->have = 1;
            x->cand = (int)(e % 2 ? FL_CAND_AVX2 : FL_CAND_SCALAR);
            x->ns[FL_CAND_SCALAR] = x->cand == FL_CAND_SCALAR ? 1.5 : 4.25;
            x->ns[FL_CAND_AVX2] = x->cand == FL_CAND_AVX2 ? 1.0 : 2.0;
        }
    size_t len;
    char *text = fl_wisdom_format(&w, &len);
    fl_wisdom_free(&w);
    if (!text) return 1;
    char *last = strstr(text, "sha256 ");
    char path[4096];
    snprintf(path, sizeof path, "%s/tuned", dir);
    FILE *fp = fopen(path, "wb");
    int bad = !fp || fwrite(text, 1, (size_t)(last - text), fp) != (size_t)(last - text);
    if (fp && fclose(fp) != 0) bad = 1;
    free(text);
    return bad;
}

int main(int argc, char **argv) {
    return fuzz_standalone_main(argc, argv, write_seeds);
}
#endif
