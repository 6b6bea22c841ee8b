/*
 * What every NEON kernel file shares (neon.c, hll_neon.c, cms_neon.c, counting_neon.c):
 * the intrinsics (native on aarch64; on x86 SIMDe's emulation at baseline flags, so the
 * kernels run, correct but not fast, and are checked on any x86 machine), the prefetch
 * policy, and the lane helpers.
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

/* Prefetch only when the payload does not fit in a typical L2 (1 MiB on Neoverse N1/V1). */
#define PF_MIN_BYTES ((size_t)1 << 20)
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


#endif /* FL_NEON_COMMON_H */
