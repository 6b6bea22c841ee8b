/*
 * The main() every fuzz target has when built without libFuzzer (FL_FUZZ_STANDALONE, the
 * normal test builds): replays the files named on the command line through
 * LLVMFuzzerTestOneInput, each copied into a buffer of its exact size so AddressSanitizer
 * sees a read one byte past the input, and with --write-seeds DIR writes the target's seed
 * corpus. Include it once, in the target's FL_FUZZ_STANDALONE part.
 */
#ifndef FL_FUZZ_STANDALONE_H
#define FL_FUZZ_STANDALONE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"

#define FL_FUZZ_MAX_INPUT ((size_t)1 << 22) /* above every seed and libFuzzer's -max_len */

static int fuzz_replay(const char *path) {
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        perror(path);
        return 1;
    }
    uint8_t *buf = malloc(FL_FUZZ_MAX_INPUT);
    size_t n = buf ? fread(buf, 1, FL_FUZZ_MAX_INPUT, fp) : 0;
    fclose(fp);
    uint8_t *copy = buf ? malloc(n ? n : 1) : NULL; /* exact size, so ASan sees over-reads */
    if (!copy) {
        free(buf);
        fprintf(stderr, "%s: out of memory\n", path);
        return 1;
    }
    memcpy(copy, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(copy, n);
    free(copy);
    return 0;
}

/* Writes one seed, p[0, n), as dir/name (p NULL: a seed that could not be made, left
 * empty). Returns 1, having said "<path>: cannot write", if anything failed. */
static inline int fuzz_write_seed(const char *dir, const char *name, const uint8_t *p, size_t n) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "wb");
    int bad = !p || !fp || fwrite(p, 1, n, fp) != n;
    if (fp && fclose(fp) != 0) bad = 1;
    if (bad) fprintf(stderr, "%s: cannot write\n", path);
    return bad;
}

static int fuzz_standalone_main(int argc, char **argv, int (*write_seeds)(const char *dir)) {
    if (argc == 3 && strcmp(argv[1], "--write-seeds") == 0) return write_seeds(argv[2]);
    int bad = 0;
    for (int i = 1; i < argc; i++) bad |= fuzz_replay(argv[i]);
    return bad;
}

#endif
