/*
 * The batch loops every SIMD cms kernel file shares (cms_avx2.c, cms_avx512.c, cms_neon.c): row
 * positions of G keys per group come from the ISA's vector code, then the counters are
 * changed key by key in batch order (keys of a group may share a counter, and there is no
 * conflict-free scatter in this library's flags), with the next group's positions computed
 * and, on sketches past L2, its counters prefetched first.
 *
 * Include once, after defining G (keys per group) and
 *   static inline void cms_positions(const uint64_t *h, uint32_t width, uint32_t depth,
 *                                    uint64_t *idx);   // idx[r * G + j]: key j, row r
 * It defines PF_MIN_BYTES (unless the ISA's file did), cms_prefetch_all(), and the static
 * table entries cms_update_groups(), cms_update_nosat_groups(), cms_update_cons_groups() and
 * cms_query_groups() (the
 * query that reads the counters from the vector-computed positions one by one).
 */
#ifndef FL_CMS_SIMD_H
#define FL_CMS_SIMD_H

#include "cms_probe.h"

/* Prefetching the next group's counters pays only when they are unlikely to be cached: the
 * issue cost exceeds the gain on a sketch that fits in L2 (the seeds' 53 KiB one). */
#ifndef PF_MIN_BYTES
#define PF_MIN_BYTES (1u << 20)
#endif

static inline void cms_prefetch_all(const uint32_t *c, const uint64_t *idx, uint32_t depth) {
    for (size_t i = 0; i < (size_t)depth * G; i++)
        __builtin_prefetch(c + idx[i], 0, 3); /* prefetcht0 on x86 */
}

/* The group loop both updates share: positions of group i+1 are computed and prefetched
 * before group i's counters change; `apply` updates key j of group `cur` by `inc`. */
#define CMS_UPDATE_GROUPS(apply)                                                               \
    uint64_t buf[2][FL_CMS_ROWS_MAX * G];                                                      \
    size_t groups = n / G, i = 0;                                                              \
    const int pf = (size_t)width * depth * 4u >= PF_MIN_BYTES;                                 \
    if (groups) cms_positions(hashes, width, depth, buf[0]);                                   \
    for (size_t gi = 0; gi < groups; gi++) {                                                   \
        uint64_t *cur = buf[gi & 1], *next = buf[(gi + 1) & 1];                                \
        if (gi + 1 < groups) {                                                                 \
            cms_positions(hashes + (gi + 1) * G, width, depth, next);                          \
            if (pf) cms_prefetch_all(c, next, depth);                                          \
        }                                                                                      \
        for (size_t j = 0; j < G; j++) {                                                       \
            uint32_t inc = incs ? incs[gi * G + j] : 1;                                        \
            apply;                                                                             \
        }                                                                                      \
    }                                                                                          \
    i = groups * G;

/* The plain updates, row by row within a group: additions of non-negative amounts are
 * order-free (with saturation every counter ends at min(start + its increments, UINT32_MAX),
 * without it the caller guarantees that sum fits), so a group's counters may change in any
 * order and still equal the scalar key-by-key loop's, colliding keys included. Row by row,
 * the G updates of a row are one unrolled run with no per-row loop test between keys; the
 * non-saturating one is a position load and one add to memory per counter.
 * Conservative updates read a key's current minimum, which earlier keys change: they stay
 * key by key (cms_update_cons_groups). */
#define CMS_UPDATE_ROWS(apply)                                                                 \
    uint64_t buf[2][FL_CMS_ROWS_MAX * G];                                                      \
    size_t groups = n / G;                                                                     \
    const int pf = (size_t)width * depth * 4u >= PF_MIN_BYTES;                                 \
    if (groups) cms_positions(hashes, width, depth, buf[0]);                                   \
    for (size_t gi = 0; gi < groups; gi++) {                                                   \
        const uint64_t *cur = buf[gi & 1];                                                     \
        uint64_t *next = buf[(gi + 1) & 1];                                                    \
        if (gi + 1 < groups) {                                                                 \
            cms_positions(hashes + (gi + 1) * G, width, depth, next);                          \
            if (pf) cms_prefetch_all(c, next, depth);                                          \
        }                                                                                      \
        const uint32_t *in = incs ? incs + gi * G : NULL;                                      \
        for (uint32_t r = 0; r < depth; r++, cur += G) {                                       \
            if (in) {                                                                          \
                _Pragma("GCC unroll 8") for (size_t j = 0; j < G; j++) {                       \
                    uint32_t *p = &c[cur[j]], inc = in[j];                                     \
                    apply;                                                                     \
                }                                                                              \
            } else {                                                                           \
                _Pragma("GCC unroll 8") for (size_t j = 0; j < G; j++) {                       \
                    uint32_t *p = &c[cur[j]], inc = 1;                                         \
                    apply;                                                                     \
                }                                                                              \
            }                                                                                  \
        }                                                                                      \
    }

static void cms_update_groups(uint32_t *c, uint32_t width, uint32_t depth,
                              const uint64_t *hashes, const uint32_t *incs, size_t n) {
    CMS_UPDATE_ROWS(*p = fl_cms_sat_add(*p, inc))
    for (size_t i = groups * G; i < n; i++)
        fl_cms_update1(c, width, depth, fl_hash_at(hashes, i), incs ? incs[i] : 1);
}

static void cms_update_nosat_groups(uint32_t *c, uint32_t width, uint32_t depth,
                                    const uint64_t *hashes, const uint32_t *incs, size_t n) {
    CMS_UPDATE_ROWS(*p += inc)
    for (size_t i = groups * G; i < n; i++) {
        uint64_t h = fl_hash_at(hashes, i), g = h, step = fl_cms_step(h);
        uint32_t inc = incs ? incs[i] : 1;
        for (uint32_t r = 0; r < depth; r++, g += step) c[fl_cms_index(g, r, width)] += inc;
    }
}

static void cms_update_cons_groups(uint32_t *c, uint32_t width, uint32_t depth,
                                   const uint64_t *hashes, const uint32_t *incs, size_t n) {
    CMS_UPDATE_GROUPS({
        size_t idx[FL_CMS_ROWS_MAX];
        for (uint32_t r = 0; r < depth; r++) idx[r] = (size_t)cur[(size_t)r * G + j];
        fl_cms_update_cons_at(c, depth, idx, inc);
    })
    for (; i < n; i++)
        fl_cms_update1_cons(c, width, depth, fl_hash_at(hashes, i), incs ? incs[i] : 1);
}

static inline void cms_query_groups(const uint32_t *c, uint32_t width, uint32_t depth,
                             const uint64_t *hashes, size_t n, uint32_t *out) {
    uint64_t buf[2][FL_CMS_ROWS_MAX * G];
    size_t groups = n / G, i = 0;
    const int pf = (size_t)width * depth * 4u >= PF_MIN_BYTES;
    if (groups) cms_positions(hashes, width, depth, buf[0]);
    for (size_t gi = 0; gi < groups; gi++) {
        uint64_t *cur = buf[gi & 1], *next = buf[(gi + 1) & 1];
        if (gi + 1 < groups) {
            cms_positions(hashes + (gi + 1) * G, width, depth, next);
            if (pf) cms_prefetch_all(c, next, depth);
        }
        for (size_t j = 0; j < G; j++) {
            uint32_t m = UINT32_MAX;
            for (uint32_t r = 0; r < depth; r++) {
                uint32_t v = c[cur[(size_t)r * G + j]];
                m = v < m ? v : m;
            }
            out[gi * G + j] = m;
        }
    }
    i = groups * G;
    for (; i < n; i++) out[i] = fl_cms_query1(c, width, depth, fl_hash_at(hashes, i));
}

#endif /* FL_CMS_SIMD_H */
