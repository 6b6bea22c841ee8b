/*
 * What every gcf kernel file shares (kernels/gcf_<isa>.c): the view's shape decoded so that
 * no view makes a kernel read outside its payload (kernels/kernels.h), and the key-by-key
 * loop the scalar and NEON files use (each file has PF_MIN_BYTES, PF_DIST and pf_read from
 * its ISA's common header, the scalar file its own). The x86 files test 4 or 8 keys per
 * vector (the slot test in 16-bit lanes, the shape's constants from gcf_lane_consts below)
 * and finish with this loop.
 *
 * A key's two buckets are independent words, so on large tables the loop is bound by
 * memory: both words of the key PF_DIST keys ahead are prefetched once the table is past
 * the prefetch threshold (FL_LOOKUP_BY_SIZE instantiates the loop with and without).
 */
#ifndef FL_GCF_LOOP_H
#define FL_GCF_LOOP_H

#include "simd_common.h"

typedef struct gcf_shape {
    const uint64_t *b;
    uint32_t c, kbits, w;
    fl_gcf_geom geom; /* fl_gcf_geom_of(c, kbits, w) */
} gcf_shape;

/* The view's columns and window (k), K = floor(log2(units / c)): c << K <= units. */
FL_INLINE gcf_shape gcf_shape_of(const fl_kview *f) {
    gcf_shape s;
    s.b = (const uint64_t *)f->data;
    s.c = f->k & 0xffu;
    if (s.c == 0) s.c = 1;
    if (s.c > f->units) s.c = f->units;
    s.kbits = 31u - (uint32_t)__builtin_clz(f->units / s.c);
    s.w = (f->k >> 8) & 0xffu;
    if (s.w == 0) s.w = s.kbits; /* the whole table (kernels/kernels.h) */
    if (s.w < 1) s.w = 1;
    if (s.w > 31) s.w = 31;
    s.geom = fl_gcf_geom_of(s.c, s.kbits, s.w);
    return s;
}

/* The x86 kernels' lane forms (kernels/gcf_avx512.c says why) take the shape's counts and
 * masks in every lane: their values, made once per call from the view's fl_gcf_geom (see
 * it for the fields' meaning), each ISA broadcasting them into its vectors. */
enum {
    GCF_COL_MUL, /* c in the low word of a qword, 0 in the others: vpmulhuw's factor */
    GCF_KBITS,   /* K: the column's shift, and the pattern's (h * 2^K) */
    GCF_YSHIFT,  /* y = h >> (64 - K - W') */
    GCF_YTOP,    /* h >> (64 - W'): the stripe's top W' bits (y >> K); 64 gives 0 */
    GCF_RMASK,   /* bits [W', K) */
    GCF_ALTSH,   /* 32 - W': a(tag)'s shift */
    GCF_ALT_OR,  /* 1; 0 when W' = 0 */
    GCF_NCONSTS
};
FL_INLINE void gcf_lane_consts(const gcf_shape *s, uint64_t c[GCF_NCONSTS]) {
    const fl_gcf_geom *g = &s->geom;
    c[GCF_COL_MUL] = g->columns;
    c[GCF_KBITS] = s->kbits;
    c[GCF_YSHIFT] = g->yshift;
    c[GCF_YTOP] = (uint64_t)g->yshift + g->kshift;
    c[GCF_RMASK] = g->rmask;
    c[GCF_ALTSH] = 32u - (uint32_t)__builtin_ctzll(g->wmul);
    c[GCF_ALT_OR] = g->alt_or;
}

/* Both bucket words of the key PF_DIST ahead into the cache: its buckets computed once. */
FL_INLINE void gcf_prefetch(const gcf_shape *s, uint64_t h) {
    size_t i1, i2;
    fl_gcf_buckets(&s->geom, h, &i1, &i2);
    pf_read(s->b + i1);
    pf_read(s->b + i2);
}

/* Keys [from, n) one at a time; returns their positives. */
FL_INLINE size_t gcf_contains_keys(const gcf_shape *s, const uint64_t *hashes, size_t from,
                                   size_t n, uint8_t *out, const int prefetch) {
    size_t pos = 0;
    for (size_t i = from; i < n; i++) {
        if (prefetch && i + PF_DIST < n) {
            gcf_prefetch(s, fl_hash_at(hashes, i + PF_DIST));
        }
        uint64_t h = fl_hash_at(hashes, i);
        int r = fl_gcf_probe(&s->geom, s->b, h);
        out[i] = (uint8_t)r;
        pos += (size_t)r;
    }
    return pos;
}

#endif /* FL_GCF_LOOP_H */
