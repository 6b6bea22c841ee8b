/*
 * Static structures (binary fuse filters, Bloomier filters): what src/static/fuse.c (shape,
 * construction), binary_fuse.c and bloomier.c (each kind's calls) and codec_fuse.c (their
 * files) share. Not installed.
 */
#ifndef FL_FUSE_INTERNAL_H
#define FL_FUSE_INTERNAL_H

#include "core/internal.h"

#pragma GCC visibility push(hidden)

/* Largest segment length (Graf and Lemire cap it at 2^18: beyond, the segments stop
 * fitting a core's cache during construction and the probe's XOR bits, 18 per position,
 * run out). */
#define FL_FUSE_SEG_LEN_MAX (1u << 18)

/* Both kinds are this struct; fl_fuse and fl_bloomier wrap it so the API keeps them apart. */
typedef struct fl_static {
    fl_fuse_view view;       /* cells == NULL for an empty set */
    void *cells;             /* cells * cell_bits / 8 bytes + 64 zero bytes, 64-byte aligned
                                (src/core/memory.c's payloads: 2 MiB pages from 2 MiB up) */
    size_t mapped;           /* fl_payload_alloc's: 0 = aligned_alloc'ed */
    size_t bytes;            /* cell bytes without the padding */
    uint32_t seg_count;
    uint32_t cells_n;
    uint64_t keys, duplicates;
    uint64_t seed;
    uint32_t tries;
    size_t build_bytes;
    double build_seconds;
    const fl_kernel_table *bound;
} fl_static;

struct fl_fuse {
    fl_static s;
};
struct fl_bloomier {
    fl_static s;
};

/* The array shape for n keys of the given arity (the paper's fitted segment length and size
 * factor, src/static/fuse.c); FL_ERR_TOO_LARGE past 2^32 - 1 cells. */
fl_status fl_fuse_geometry(uint32_t arity, uint64_t n, uint32_t *seg_len, uint32_t *seg_count,
                           uint32_t *cells);
/* A structure with zeroed cells of this shape, or an empty one (n == 0: no cells); the shape
 * is checked against fl_fuse_geometry(arity, keys) (CORRUPT otherwise) and the cell bytes
 * against max_bytes (TOO_LARGE) before anything is allocated. Used by the loaders. */
fl_status fl_static_new(uint32_t arity, uint32_t cell_bits, uint32_t value_bits, uint64_t keys,
                        uint64_t seed, size_t max_bytes, fl_static **out);
void fl_static_free(fl_static *s);
/* The whole build (src/static/fuse.c), shared by both kinds (vals NULL for a fuse filter):
 * dedup on the first stalled peel, retries up to max_tries (0: the default). */
fl_status fl_static_build(uint32_t arity, uint32_t cell_bits, uint32_t value_bits, uint64_t seed,
                          uint32_t max_tries, size_t max_bytes, const uint64_t *keys,
                          const uint16_t *vals, size_t n, fl_static **out);
/* What fl_fuse_info and fl_bloomier_info report. */
void fl_static_info_of(const fl_static *s, fl_static_info *o);

/* Tests only (tests/test_fuse.c links the static library): the first this-many tries of
 * every build are treated as failed peels, so the retry and FL_ERR_BUILD_FAILED paths run
 * deterministically. 0 in the library. */
extern uint32_t fl_fuse_forced_failures;

#pragma GCC visibility pop

#endif
