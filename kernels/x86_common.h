/*
 * Helpers shared by the x86 kernel files (<module>_avx2.c, <module>_avx512.c), which
 * all build with -mbmi2.
 * Scalar-side pieces only: the vector code of each ISA stays in its own file.
 */
#ifndef FL_X86_COMMON_H
#define FL_X86_COMMON_H

#if !defined(__BMI2__)
#error "x86_common.h is for the x86 kernel files, built with -mbmi2"
#endif

#include <immintrin.h>
#include <string.h>

#include "kernels.h"

#define FL_INLINE static inline __attribute__((always_inline))

/* Prefetch only when the payload does not fit in this CPU's L2 (kernels.h). */
#define PF_MIN_BYTES fl_kernel_prefetch_min_bytes
/* Keys ahead: enough to cover DRAM latency at a few ns per key, few enough not to overflow
 * the fill buffers (measured with checkkernels --bench). */
#define PF_DIST 32

FL_INLINE void pf_read(const void *p) {
    _mm_prefetch((const char *)p, _MM_HINT_T0);
}
FL_INLINE void pf_write(const void *p) {
    __builtin_prefetch(p, 1, 3);
}

/* Unit of hashes[i] in scalar code: the vector ports are the bottleneck of every lookup,
 * while the scalar multiply (port 1) is idle; GCC would otherwise turn a vector of indices
 * into a chain of port-5 extracts. */
FL_INLINE size_t unit_at(const uint64_t *hashes, size_t i, uint32_t units) {
    uint32_t hi;
    memcpy(&hi, (const unsigned char *)hashes + 8 * i + 4, 4);
    return (size_t)(((uint64_t)hi * units) >> 32);
}
FL_INLINE uint32_t low_at(const uint64_t *hashes, size_t i) {
    uint32_t lo;
    memcpy(&lo, (const unsigned char *)hashes + 8 * i, 4);
    return lo;
}

/* Prefetch the units of hashes[i..i+8) (ubytes each). */
FL_INLINE void prefetch8(const uint8_t *base, size_t ubytes, const uint64_t *hashes, size_t i,
                         uint32_t units, const int write) {
    for (size_t j = 0; j < 8; j++) {
        const uint8_t *p = base + ubytes * unit_at(hashes, i + j, units);
        if (write)
            pf_write(p);
        else
            pf_read(p);
    }
}

/* 8 hit bits -> out[0..8) as 0/1 bytes (pdep spreads bit j to byte j). */
FL_INLINE size_t emit8(uint8_t *out, unsigned hits) {
    uint64_t b = _pdep_u64(hits, 0x0101010101010101ull);
    memcpy(out, &b, 8);
    return (size_t)__builtin_popcount(hits);
}

#endif /* FL_X86_COMMON_H */
