/*
 * Random mutations almost never keep a file's checksums valid, which would leave the field
 * checks behind them unexplored, so the fuzz targets of container files also try each input
 * with its checksums recomputed. This is where the container format (src/format/container.c) puts
 * them: preamble sum at 16 over [0, 16); with S = the u32 at 12, table sum at 24 + 24 S over
 * [24, 24 + 24 S); each section's sum right after its bytes (offset and length from its
 * table entry), for the sections inside the input. Include it after <xxhash.h>.
 */
#ifndef FL_FUZZ_RESEAL_H
#define FL_FUZZ_RESEAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"

static void put_le64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static uint64_t get_le(const uint8_t *p, int n) {
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

/* Recomputes the version-2 container checksums of p[0, size) in place; the caller has
 * checked that the input claims version 2. */
static void reseal_container(uint8_t *p, size_t size) {
    if (size < 24) return;
    put_le64(p + 16, XXH3_64bits(p, 16));
    if (size < 32) return;
    uint64_t count = get_le(p + 12, 4);
    if (count > (size - 32) / 24) return;
    size_t table = 24 * (size_t)count;
    put_le64(p + 24 + table, XXH3_64bits(p + 24, table));
    for (size_t i = 0; i < count; i++) {
        uint64_t off = get_le(p + 24 + 24 * i + 8, 8), len = get_le(p + 24 + 24 * i + 16, 8);
        /* The table's own bytes are never overwritten: the entries read above stay valid. */
        if (off < 32 + table || off > size || len > size - off || size - off - len < 8) continue;
        put_le64(p + off + len, XXH3_64bits(p + off, (size_t)len));
    }
}

/* The reseal of a kind whose files are all version-2 containers (a scalable, layered or
 * compressed Bloom filter, a binary fuse or Bloomier filter): an input claiming another
 * version has nothing to reseal. */
static inline void reseal_v2_file(uint8_t *p, size_t size) {
    if (size < 32 || p[8] != 2 || p[9] != 0) return;
    reseal_container(p, size);
}

/* Runs check on the input as it is and, when it is at least min_size bytes, on a copy
 * resealed by reseal. */
static void check_as_is_and_resealed(const uint8_t *data, size_t size, size_t min_size,
                                     void (*reseal)(uint8_t *, size_t),
                                     void (*check)(const uint8_t *, size_t)) {
    check(data, size);
    if (size < min_size) return;
    uint8_t *copy = malloc(size);
    CHECK(copy != NULL);
    memcpy(copy, data, size);
    reseal(copy, size);
    check(copy, size);
    free(copy);
}

#endif
