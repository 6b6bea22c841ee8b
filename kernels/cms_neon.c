/*
 * The cms module's NEON kernels: 4 keys per group.
 *
 * Row positions of 4 keys come from two uint64x2 per row (double hashing with 64-bit lanes,
 * Lemire's reduction as one vmull_u32 of the high halves by w); NEON has no gather or
 * scatter, so queries read the counters from those positions one by one and updates apply
 * them key by key in batch order, as scalar does (keys of a group may share a counter), with
 * the next group's counters prefetched first on sketches past L2: cms_simd.h's loops, which
 * the x86 kernels share. Tails (n % 4) use the scalar math.
 */
#include "neon_common.h"
#include "cms_probe.h"

#define G 4

/* Two keys' g advanced through the rows: idx[r * G + j]: counter index of key j, row r. */
FL_INLINE void positions2(uint64x2_t g, uint32_t width, uint32_t depth, uint64_t *idx) {
    const uint64x2_t step = vorrq_u64(vorrq_u64(vshlq_n_u64(g, 32), vshrq_n_u64(g, 32)), vdupq_n_u64(1));
    const uint32x2_t w = vdup_n_u32(width);
    uint64x2_t base = vdupq_n_u64(0);
    for (uint32_t r = 0; r < depth; r++) {
        uint64x2_t col = vshrq_n_u64(vmull_u32(vshrn_n_u64(g, 32), w), 32);
        vst1q_u64(idx + (size_t)r * G, vaddq_u64(col, base));
        g = vaddq_u64(g, step);
        base = vaddq_u64(base, vdupq_n_u64(width));
    }
}

static inline void cms_positions(const uint64_t *h, uint32_t width, uint32_t depth, uint64_t *idx) {
    uint64_t k[4];
    memcpy(k, h, sizeof k); /* hashes need no alignment */
    positions2(vld1q_u64(k), width, depth, idx);
    positions2(vld1q_u64(k + 2), width, depth, idx + 2);
}

#include "cms_simd.h"

void fl_cms_kernels_init_neon(fl_kernel_table *t) {
    t->cms.update = cms_update_groups;
    t->cms.update_nosat = cms_update_nosat_groups;
    t->cms.update_cons = cms_update_cons_groups;
    t->cms.query = cms_query_groups;
}
