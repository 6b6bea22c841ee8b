/*
 * The fuse module's NEON kernels: 4 keys per step. NEON has neither a 64-bit multiply nor a
 * gather, so SplitMix64's products are built from vmull_u32 (lo*lo + (hi*lo + lo*hi) << 32),
 * the positions and words are vector math on two 2-lane hash vectors, and the cells are
 * read by scalar loads from the stored positions; XOR, mask and compare are vectors again.
 * Native on aarch64; through SIMDe on x86 (checked there, never picked: dispatch marks it
 * emulated). Exactly include/filterlab_static.h's answer; tails scalar.
 */
#include "neon_common.h"
#include "fuse_simd.h"

/* a * c mod 2^64 for a constant c given as its 32-bit halves */
FL_INLINE uint64x2_t mul64(uint64x2_t a, uint32x2_t c_lo, uint32x2_t c_hi) {
    uint32x2_t a_lo = vmovn_u64(a), a_hi = vshrn_n_u64(a, 32);
    uint64x2_t cross = vaddq_u64(vmull_u32(a_hi, c_lo), vmull_u32(a_lo, c_hi));
    return vaddq_u64(vmull_u32(a_lo, c_lo), vshlq_n_u64(cross, 32));
}

FL_INLINE uint64x2_t mix64(uint64x2_t z) {
    z = veorq_u64(z, vshrq_n_u64(z, 30));
    z = mul64(z, vdup_n_u32(0x1ce4e5b9u), vdup_n_u32(0xbf58476du));
    z = veorq_u64(z, vshrq_n_u64(z, 27));
    z = mul64(z, vdup_n_u32(0x133111ebu), vdup_n_u32(0x94d049bbu));
    return veorq_u64(z, vshrq_n_u64(z, 31));
}

/* fl_fuse_reduce on two lanes */
FL_INLINE uint32x2_t reduce(uint64x2_t h, uint32x2_t range) {
    uint64x2_t t = vaddq_u64(vmull_u32(vshrn_n_u64(h, 32), range),
                             vshrq_n_u64(vmull_u32(vmovn_u64(h), range), 32));
    return vshrn_n_u64(t, 32);
}

FL_INLINE uint32x4_t probe4(const fl_fuse_view *v, const uint64_t *keys, int arity, int bits) {
    const uint64x2_t seed_mix = vdupq_n_u64(v->seed_mix);
    const uint32x2_t range = vdup_n_u32(v->seg_count_len);
    const uint32x4_t mask = vdupq_n_u32(v->seg_mask);
    const uint32x4_t len = vdupq_n_u32(v->seg_len);
    uint64_t k[4];
    memcpy(k, keys, sizeof k);
    uint64x2_t ha = mix64(vaddq_u64(vld1q_u64(k), seed_mix));
    uint64x2_t hb = mix64(vaddq_u64(vld1q_u64(k + 2), seed_mix));
    uint32x4_t p0 = vcombine_u32(reduce(ha, range), reduce(hb, range));
    uint32x4_t len2 = vaddq_u32(len, len);
    uint32x4_t p1 = veorq_u32(vaddq_u32(p0, len),
                              vandq_u32(vcombine_u32(vmovn_u64(vshrq_n_u64(ha, 18)),
                                                     vmovn_u64(vshrq_n_u64(hb, 18))),
                                        mask));
    uint32x4_t p2 = veorq_u32(vaddq_u32(p0, len2),
                              vandq_u32(vcombine_u32(vmovn_u64(ha), vmovn_u64(hb)), mask));
    uint32x4_t p3 = veorq_u32(vaddq_u32(p0, vaddq_u32(len2, len)),
                              vandq_u32(vcombine_u32(vmovn_u64(vshrq_n_u64(ha, 36)),
                                                     vmovn_u64(vshrq_n_u64(hb, 36))),
                                        mask));
    uint32x4_t word = vcombine_u32(vmovn_u64(veorq_u64(ha, vshrq_n_u64(ha, 32))),
                                   vmovn_u64(veorq_u64(hb, vshrq_n_u64(hb, 32))));
    uint32_t pos[4][4], cell[4];
    vst1q_u32(pos[0], p0);
    vst1q_u32(pos[1], p1);
    vst1q_u32(pos[2], p2);
    vst1q_u32(pos[3], p3);
    FL_FUSE_XOR_CELLS(v, pos, 4, arity, bits, cell);
    uint32x4_t x = veorq_u32(word, vld1q_u32(cell));
    return vandq_u32(x, vdupq_n_u32(bits == 32 ? 0xffffffffu : (1u << bits) - 1));
}

FL_INLINE size_t contains_impl(const fl_fuse_view *v, const uint64_t *keys, size_t n,
                               uint8_t *out, int arity, int bits, fl_fuse_contains_fn tail) {
    size_t i = 0, hits = 0;
    for (; i + 4 <= n; i += 4) {
        uint32x4_t hit = vshrq_n_u32(vceqq_u32(probe4(v, keys + i, arity, bits), vdupq_n_u32(0)), 31);
        uint32_t h[4];
        vst1q_u32(h, hit);
        for (int j = 0; j < 4; j++) out[i + j] = (uint8_t)h[j];
        hits += vaddvq_u32(hit);
    }
    if (i < n) hits += tail(v, keys + i, n - i, out + i);
    return hits;
}

FL_INLINE size_t get_impl(const fl_fuse_view *v, const uint64_t *keys, size_t n,
                          uint16_t *values, uint8_t *found, int arity, int bits,
                          fl_bloomier_get_fn tail) {
    size_t i = 0, hits = 0;
    const int32x4_t down = vdupq_n_s32(-(int32_t)v->value_bits);
    for (; i + 4 <= n; i += 4) {
        uint32x4_t x = probe4(v, keys + i, arity, bits);
        uint32x4_t ok = vceqq_u32(vshlq_u32(x, down), vdupq_n_u32(0));
        uint16x4_t val = vmovn_u32(vandq_u32(x, ok));
        vst1_u16(values + i, val);
        uint32_t h[4];
        vst1q_u32(h, vshrq_n_u32(ok, 31));
        for (int j = 0; j < 4; j++) found[i + j] = (uint8_t)h[j];
        hits += h[0] + h[1] + h[2] + h[3];
    }
    if (i < n) hits += tail(v, keys + i, n - i, values + i, found + i);
    return hits;
}

#define CONTAINS(name, arity, bits, shape)                                                   \
    static size_t name(const fl_fuse_view *v, const uint64_t *keys, size_t n, uint8_t *out) { \
        return contains_impl(v, keys, n, out, arity, bits,                                   \
                             fl_fuse_kernels_scalar.contains[shape]);                        \
    }
#define GET(name, arity, bits, shape)                                                        \
    static size_t name(const fl_fuse_view *v, const uint64_t *keys, size_t n,                \
                       uint16_t *values, uint8_t *found) {                                   \
        return get_impl(v, keys, n, values, found, arity, bits,                              \
                        fl_fuse_kernels_scalar.get[shape]);                                  \
    }

CONTAINS(contains3_8, 3, 8, FL_FUSE3_8)
CONTAINS(contains3_16, 3, 16, FL_FUSE3_16)
CONTAINS(contains4_8, 4, 8, FL_FUSE4_8)
CONTAINS(contains4_16, 4, 16, FL_FUSE4_16)
GET(get3_16, 3, 16, FL_BLOOMIER3_16)
GET(get3_32, 3, 32, FL_BLOOMIER3_32)
GET(get4_16, 4, 16, FL_BLOOMIER4_16)
GET(get4_32, 4, 32, FL_BLOOMIER4_32)

/* Entry by entry: this runs at startup for every compiled table, whatever the CPU, so it
 * must not contain this file's ISA instructions (a struct copy here became AVX-512 moves and
 * a SIGILL on CPUs without AVX-512, valgrind included). */
void fl_fuse_kernels_init_neon(fl_kernel_table *t) {
    t->fuse.contains[FL_FUSE3_8] = contains3_8;
    t->fuse.contains[FL_FUSE3_16] = contains3_16;
    t->fuse.contains[FL_FUSE4_8] = contains4_8;
    t->fuse.contains[FL_FUSE4_16] = contains4_16;
    t->fuse.get[FL_BLOOMIER3_16] = get3_16;
    t->fuse.get[FL_BLOOMIER3_32] = get3_32;
    t->fuse.get[FL_BLOOMIER4_16] = get4_16;
    t->fuse.get[FL_BLOOMIER4_32] = get4_32;
}
