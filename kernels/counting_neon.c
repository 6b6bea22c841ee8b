/*
 * Counting Bloom lookups, NEON: the counting module's entries of the neon table. Same shapes
 * as bloom_neon.c's block512 and classic lookups with a 4-bit counter test where those test a
 * bit (the positions are probe.h's). Counter p of a 128-counter line (p = t >> 25, t the salt
 * product) is bits 4 (p & 7) .. +3 of dword p >> 3 = t >> 28: vqtbl4q_u8 fetches each lane's
 * dword from the 64-byte line, 0xf shifted left by (t >> 23) & 0x1c is its counter's mask,
 * and "counter is zero" is a compare of the masked dword with 0.
 * Inserts keep the scalar kernel for counting_avx512.c's reason: increments apply key by key
 * in batch order (saturation at 15 makes the order visible) and are bound by the dependent
 * loads, not by arithmetic a vector unit could save.
 */
#include "neon_common.h"

/* ---- counting512 ----------------------------------------------------------------------- */

/* All-ones in the lanes whose counter is zero, for 4 salt products t. */
FL_INLINE uint32x4_t counting512_zero(uint32x4_t t, uint8x16x4_t blk) {
    uint32x4_t d = vshrq_n_u32(t, 28);
    uint32x4_t idx = vaddq_u32(vmulq_n_u32(d, 0x04040404u), vdupq_n_u32(0x03020100u));
    uint32x4_t w = vreinterpretq_u32_u8(vqtbl4q_u8(blk, vreinterpretq_u8_u32(idx)));
    int32x4_t sh = vreinterpretq_s32_u32(vandq_u32(vshrq_n_u32(t, 23), vdupq_n_u32(0x1c)));
    return vceqzq_u32(vandq_u32(w, vshlq_u32(vdupq_n_u32(0xf), sh)));
}

/* The salts in groups of 4 and, per group, the lanes of salts < k. */
typedef struct {
    uint32x4_t salt[4], lanes[4];
    uint32_t groups;
} salts4;

FL_INLINE salts4 salts_for(uint32_t k) {
    salts4 s;
    for (uint32_t g = 0; g < 4; g++) {
        s.salt[g] = vld1q_u32(FL_SALT + 4 * g);
        const uint32_t j[4] = {4 * g, 4 * g + 1, 4 * g + 2, 4 * g + 3};
        s.lanes[g] = vcltq_u32(vld1q_u32(j), vdupq_n_u32(k));
    }
    s.groups = (k + 3) / 4;
    return s;
}

FL_INLINE int counting512_one(const uint8_t *line, uint32_t lo, const salts4 *s) {
    uint8x16x4_t blk = load_block(line);
    uint32x4_t x = vdupq_n_u32(lo), zero = vdupq_n_u32(0);
    for (uint32_t g = 0; g < s->groups; g++)
        zero = vorrq_u32(zero, vandq_u32(counting512_zero(vmulq_u32(x, s->salt[g]), blk), s->lanes[g]));
    return all_zero(zero);
}

FL_INLINE size_t counting512_contains(const fl_kview *f, const uint64_t *hashes, size_t n,
                                      uint8_t *out, const int prefetch) {
    const uint8_t *base = (const uint8_t *)f->data;
    const salts4 s = salts_for(f->k);
    size_t pos = 0;
    for (size_t i = 0; i < n; i++) {
        if (prefetch && i + PF_DIST < n)
            pf_read(base + 64 * (size_t)unit_of(fl_hash_at(hashes, i + PF_DIST), f->units));
        uint64_t h = fl_hash_at(hashes, i);
        int r = counting512_one(base + 64 * (size_t)unit_of(h, f->units), (uint32_t)h, &s);
        out[i] = (uint8_t)r;
        pos += (size_t)r;
    }
    return pos;
}

FL_LOOKUP_BY_SIZE(fl_contains_counting512_neon, 64, counting512_contains)

static int fl_contains1_counting512_neon(const void *data, uint32_t units, uint32_t k, uint64_t h) {
    const salts4 s = salts_for(k);
    return counting512_one((const uint8_t *)data + 64 * (size_t)unit_of(h, units), (uint32_t)h, &s);
}

/* ---- counting (classic layout) ---------------------------------------------------------- */

/* neon_common.h's classic-layout loop testing counters (counters = 1: the counter's mask
 * 0xf << 4 (g & 15)), as bloom_neon.c's classic lookup tests bits. */
FL_LOOKUP_BY_SIZE(fl_contains_counting_neon, 8, classic_layout_contains, 1,
                  fl_contains_counting_scalar)

void fl_counting_kernels_init_neon(fl_kernel_table *t) {
    t->counting.contains[FL_COUNTING_CLASSIC] = fl_contains_counting_neon;
    t->counting.contains[FL_COUNTING_BLOCKED] = fl_contains_counting512_neon;
    t->counting.contains1[FL_COUNTING_BLOCKED] = fl_contains1_counting512_neon;
}
