/*
 * Count-Min per-key math shared by the cms kernels and src/cms*.c: THE definition of which
 * counters a hash lands on and how they change. A sketch saved by one build must answer the
 * same in another, so a change here is a file-format change (HACKING.md).
 *
 * One 64-bit hash per key gives the d row positions by double hashing (Kirsch and
 * Mitzenmacher, "Less Hashing, Same Performance: Building a Better Bloom Filter", 2006):
 * g_r = h + r * h2 with h2 = rotl(h, 32) | 1 (odd, so the rows' g_r differ), as the classic
 * Bloom filter does (kernels/probe.h). Row r's column is reduce32(g_r >> 32, w), Lemire's
 * multiply-shift ("Fast Random Integer Generation in an Interval", 2019), so any width works
 * without a modulo. Counters are row-major: counter (r, col) is counters[r * w + col].
 */
#ifndef FL_CMS_PROBE_H
#define FL_CMS_PROBE_H

#include <stddef.h>
#include <stdint.h>

#include "filterlab_inline.h" /* fl_reduce32 */
#include "probe.h"             /* fl_hash_at: callers' hash arrays may be unaligned */

/* Most rows a sketch has (FL_CMS_DEPTH_MAX of filterlab_cms.h): the kernels' position
 * buffers are this long. */
#define FL_CMS_ROWS_MAX 32

static inline uint64_t fl_cms_step(uint64_t h) {
    return ((h << 32) | (h >> 32)) | 1u;
}

/* Counter index of row r for g = h + r * step. */
static inline size_t fl_cms_index(uint64_t g, uint32_t r, uint32_t width) {
    return (size_t)r * width + fl_reduce32((uint32_t)(g >> 32), width);
}

static inline uint32_t fl_cms_sat_add(uint32_t a, uint32_t b) {
    uint32_t s = a + b;
    return s < a ? UINT32_MAX : s;
}

/* The key's d counter indices, in row order. */
static inline void fl_cms_positions(uint64_t h, uint32_t width, uint32_t depth, size_t *idx) {
    uint64_t g = h, step = fl_cms_step(h);
    for (uint32_t r = 0; r < depth; r++, g += step) idx[r] = fl_cms_index(g, r, width);
}

/* The smallest of the key's counters: its estimate. */
static inline uint32_t fl_cms_query1(const uint32_t *c, uint32_t width, uint32_t depth,
                                     uint64_t h) {
    uint64_t g = h, step = fl_cms_step(h);
    uint32_t m = UINT32_MAX;
    for (uint32_t r = 0; r < depth; r++, g += step) {
        uint32_t v = c[fl_cms_index(g, r, width)];
        m = v < m ? v : m;
    }
    return m;
}

/* Plain update (Cormode and Muthukrishnan 2005): every counter of the key += inc. */
static inline void fl_cms_update1(uint32_t *c, uint32_t width, uint32_t depth, uint64_t h,
                                  uint32_t inc) {
    uint64_t g = h, step = fl_cms_step(h);
    for (uint32_t r = 0; r < depth; r++, g += step) {
        uint32_t *p = &c[fl_cms_index(g, r, width)];
        *p = fl_cms_sat_add(*p, inc);
    }
}

/* Conservative update (Estan and Varghese 2002) over known positions: with m the current
 * estimate, each counter becomes max(counter, m + inc); the smallest ones rise to m + inc and
 * the others, already above what the key can have contributed, stay. */
static inline void fl_cms_update_cons_at(uint32_t *c, uint32_t depth, const size_t *idx,
                                         uint32_t inc) {
    uint32_t m = UINT32_MAX;
    for (uint32_t r = 0; r < depth; r++) m = c[idx[r]] < m ? c[idx[r]] : m;
    uint32_t target = fl_cms_sat_add(m, inc);
    /* An unconditional store of the larger value: which counters rise is data-dependent,
     * and a branch on it mispredicts. */
    for (uint32_t r = 0; r < depth; r++) {
        uint32_t v = c[idx[r]];
        c[idx[r]] = v > target ? v : target;
    }
}

static inline void fl_cms_update1_cons(uint32_t *c, uint32_t width, uint32_t depth, uint64_t h,
                                       uint32_t inc) {
    size_t idx[FL_CMS_ROWS_MAX];
    fl_cms_positions(h, width, depth, idx);
    fl_cms_update_cons_at(c, depth, idx, inc);
}

#endif /* FL_CMS_PROBE_H */
