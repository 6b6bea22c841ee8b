/*
 * Growing cuckoo filter internals shared by src/gcf/gcf.c and src/gcf/codec_gcf.c. Not
 * installed. The slot layout and probe math are include/filterlab_gcf.h's.
 */
#ifndef FL_GCF_INTERNAL_H
#define FL_GCF_INTERNAL_H

#include "core/internal.h"

#include "filterlab_gcf.h"
#include "probe.h" /* fl_hash_at: callers' hash arrays may be unaligned */

#pragma GCC visibility push(hidden)

struct fl_gcf {
    uint64_t *table;    /* buckets words (4 little-endian 16-bit slots each), 64-byte
                           aligned, FL_PAYLOAD_SLACK zero bytes after (src/core/memory.c) */
    uint64_t buckets;   /* columns << kbits, below 2^32 */
    uint32_t columns;   /* c, 1..FL_GCF_MAX_COLUMNS */
    uint32_t wbits;     /* W, fixed for the filter's life */
    uint32_t kbits;     /* K, W..W + FL_GCF_MAX_DOUBLINGS */
    fl_gcf_geom geom;   /* fl_gcf_geom_of(columns, kbits, wbits), kept with kbits */
    size_t bytes;       /* buckets * 8 */
    size_t mapped;      /* the mapping's length (fl_payload_get), 0: heap */
    uint64_t seed;
    uint64_t by_ext[FL_GCF_EXT_BITS + 1]; /* occupied slots by extension length L */
    uint64_t byte_limit;                  /* 0: none */
    uint64_t rng;                         /* xorshift64 state of the eviction walk */
    const fl_kernel_table *bound;         /* fl_gcf_bind_kernel's table or NULL */
};

/* A slot's extension length L: the sentinel is the lowest set bit of its high byte, at
 * bit 7 - L (an occupied slot always has one). */
static inline uint32_t fl_gcf_slot_ext(uint32_t s) {
    return 7u - (uint32_t)__builtin_ctz(s >> 8);
}

static inline uint64_t fl_gcf_items(const fl_gcf *g) {
    uint64_t n = 0;
    for (uint32_t l = 0; l <= FL_GCF_EXT_BITS; l++) n += g->by_ext[l];
    return n;
}

/* gcf.c: an empty filter of c << kbits buckets with window W (shape checked, then the table
 * allocated). */
fl_status fl_gcf_new(uint32_t columns, uint32_t wbits, uint32_t kbits, uint64_t seed,
                     fl_gcf **out);
/* Whether a shape is one a filter can have: 1 <= c <= 15, 1 <= W <= K <= W + 7,
 * c << K < 2^32 (W >= FL_GCF_W_MIN is fl_gcf_create's choice, not a rule of the format). */
int fl_gcf_shape_ok(uint32_t columns, uint32_t wbits, uint32_t kbits);

#pragma GCC visibility pop

#endif /* FL_GCF_INTERNAL_H */
