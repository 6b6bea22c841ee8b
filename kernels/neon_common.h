/*
 * What every NEON kernel file shares (<module>_neon.c): the intrinsics (native on
 * aarch64; on x86 SIMDe's emulation at baseline flags, so the kernels run, correct but not
 * fast, and are checked on any x86 machine), the prefetch policy, and the lane helpers.
 */
#ifndef FL_NEON_COMMON_H
#define FL_NEON_COMMON_H

#if defined(__aarch64__)
#include <arm_neon.h>
#else
/* The emulated build must stay at baseline flags like src/: an ISA flag here would make
 * SIMDe emit AVX2 in code dispatch may pick on any x86. */
#if defined(__AVX2__) || defined(__AVX512F__)
#error "the NEON kernel files must be compiled at baseline flags on x86 (SIMDe emulation)"
#endif
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/arm/neon.h>
#if defined(__clang__)
/* SIMDe's portable fallbacks carry loop-vectorize hints; clang reports each one it cannot
 * honour at baseline flags as a warning. The emulation is for correctness, not speed. */
#pragma clang diagnostic ignored "-Wpass-failed"
#endif
#endif

#include <string.h>

#include "kernels.h"
#include "probe.h"
#include "simd_common.h"

#define FL_INLINE static inline __attribute__((always_inline))

/* Prefetch only when the payload does not fit in this CPU's L2 (kernels.h). */
#define PF_MIN_BYTES fl_kernel_prefetch_min_bytes
#define PF_DIST 16

FL_INLINE void pf_read(const void *p) {
    __builtin_prefetch(p, 0, 3);
}
FL_INLINE void pf_write(const void *p) {
    __builtin_prefetch(p, 1, 3);
}

FL_INLINE uint32_t unit_of(uint64_t h, uint32_t units) {
    return fl_reduce32((uint32_t)(h >> 32), units);
}

/* reduce32 of 4 lanes: the high halves of the 64-bit products. */
FL_INLINE uint32x4_t reduce4(uint32x4_t x, uint32_t n) {
    uint64x2_t a = vmull_u32(vget_low_u32(x), vdup_n_u32(n));
    uint64x2_t b = vmull_u32(vget_high_u32(x), vdup_n_u32(n));
    return vcombine_u32(vshrn_n_u64(a, 32), vshrn_n_u64(b, 32));
}

/* 1 << (x & 31) per lane (vshl shifts by the signed low byte of the count). */
FL_INLINE uint32x4_t bit32(uint32x4_t x) {
    return vshlq_u32(vdupq_n_u32(1), vreinterpretq_s32_u32(vandq_u32(x, vdupq_n_u32(31))));
}

FL_INLINE int all_zero(uint32x4_t v) {
    return vmaxvq_u32(v) == 0;
}

/* A 64-byte block (a blocked filter's line) as four q registers. */
FL_INLINE uint8x16x4_t load_block(const uint8_t *b) {
    uint8x16x4_t v;
    v.val[0] = vld1q_u8(b);
    v.val[1] = vld1q_u8(b + 16);
    v.val[2] = vld1q_u8(b + 32);
    v.val[3] = vld1q_u8(b + 48);
    return v;
}


/* The classic layout's pair loop, shared by bloom_neon.c's Bloom lookup (counters = 0: the bit
 * 1 << (g & 63)) and counting_neon.c's (counters = 1: the 4-bit counter's mask
 * 0xf << 4 (g & 15)). Two keys per uint64x2: positions g = h + r * step (step = rotl(h, 32)
 * | 1) advance in one vector add, the word index (reduce32 of g >> 32) comes from one
 * widening multiply, and both keys' loads are issued before either test, giving the core two
 * independent chains of probes per pair. Answers keys [0, *done) (pairs; the caller's scalar
 * kernel takes the odd one) and returns how many of them hit. */
FL_INLINE size_t classic_pairs(const fl_kview *f, const uint64_t *hashes, size_t n, uint8_t *out,
                               const int prefetch, const int counters, size_t *done) {
    const uint64_t *words = (const uint64_t *)f->data;
    const uint32_t k = f->k;
    const uint32x2_t un = vdup_n_u32(f->units);
    const uint64x2_t one = vdupq_n_u64(1), nib = vdupq_n_u64(0xf);
    const uint64x2_t m63 = vdupq_n_u64(63), m15 = vdupq_n_u64(15);
    size_t i = 0, pos = 0;
    for (; i + 2 <= n; i += 2) {
        if (prefetch && i + PF_DIST + 2 <= n) {
            pf_read(words + unit_of(fl_hash_at(hashes, i + PF_DIST), f->units));
            pf_read(words + unit_of(fl_hash_at(hashes, i + PF_DIST + 1), f->units));
        }
        uint64_t h2[2] = {fl_hash_at(hashes, i), fl_hash_at(hashes, i + 1)};
        uint64x2_t g = vld1q_u64(h2);
        uint64x2_t step = vorrq_u64(vorrq_u64(vshlq_n_u64(g, 32), vshrq_n_u64(g, 32)), one);
        int a0 = 1, a1 = 1;
        for (uint32_t r = 0; r < k && (a0 | a1); r++) {
            uint32x2_t idx = vshrn_n_u64(vmull_u32(vshrn_n_u64(g, 32), un), 32);
            uint64x2_t mask =
                counters ? vshlq_u64(nib, vreinterpretq_s64_u64(vshlq_n_u64(vandq_u64(g, m15), 2)))
                         : vshlq_u64(one, vreinterpretq_s64_u64(vandq_u64(g, m63)));
            uint64_t b[2], w0 = words[vget_lane_u32(idx, 0)], w1 = words[vget_lane_u32(idx, 1)];
            vst1q_u64(b, mask);
            a0 &= (w0 & b[0]) != 0;
            a1 &= (w1 & b[1]) != 0;
            g = vaddq_u64(g, step);
        }
        out[i] = (uint8_t)a0;
        out[i + 1] = (uint8_t)a1;
        pos += (size_t)(a0 + a1);
    }
    *done = i;
    return pos;
}

/* The classic layout's lookup: the pair loop, then the odd key with the scalar `tail`. */
FL_INLINE size_t classic_layout_contains(const fl_kview *f, const uint64_t *hashes, size_t n,
                                         uint8_t *out, const int prefetch, const int counters,
                                         fl_contains_fn tail) {
    size_t i, pos = classic_pairs(f, hashes, n, out, prefetch, counters, &i);
    return pos + tail(f, hashes + i, n - i, out + i);
}

#endif /* FL_NEON_COMMON_H */
