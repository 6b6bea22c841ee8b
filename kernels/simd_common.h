/*
 * What every SIMD kernel file shares, whatever its ISA: the choice between the prefetching
 * and the plain instance of a lookup loop, and the scalar cuckoo lookups their tails run.
 * Each ISA file defines PF_MIN_BYTES (the payload size from which software prefetching pays:
 * beyond a core's L2, where tens of misses in flight hide DRAM latency; below it prefetches
 * only cost issue slots).
 */
#ifndef FL_SIMD_COMMON_H
#define FL_SIMD_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "kernels.h"

/* Defines the table entry `name` (an fl_contains_fn) over `impl(f, hashes, n, out, prefetch,
 * ...)`, an always-inline loop instantiated twice so that the prefetch test compiles away in
 * each; extra arguments after unit_bytes are passed to impl after prefetch. */
#define FL_LOOKUP_BY_SIZE(name, unit_bytes, impl, ...)                                       \
    static size_t name(const fl_kview *f, const uint64_t *hashes, size_t n, uint8_t *out) {  \
        if ((size_t)f->units * (unit_bytes) >= PF_MIN_BYTES)                                 \
            return impl(f, hashes, n, out, 1, ##__VA_ARGS__);                                \
        return impl(f, hashes, n, out, 0, ##__VA_ARGS__);                                    \
    }

/* FL_LOOKUP_BY_SIZE for the 64-byte blocked layouts, whose loops also specialize on k: `narrow`
 * for k <= 8 (the first 8 salts), `wide` above, each called as impl(f, hashes, n, out,
 * prefetch) and instantiated twice like FL_LOOKUP_BY_SIZE's. */
#define FL_LOOKUP_BY_SIZE_AND_K(name, narrow, wide)                                          \
    static size_t name(const fl_kview *f, const uint64_t *hashes, size_t n, uint8_t *out) {  \
        int prefetch = (size_t)f->units * 64 >= PF_MIN_BYTES;                                \
        if (f->k <= 8)                                                                       \
            return prefetch ? narrow(f, hashes, n, out, 1) : narrow(f, hashes, n, out, 0);   \
        return prefetch ? wide(f, hashes, n, out, 1) : wide(f, hashes, n, out, 0);           \
    }

/* Same definition as x86_common.h's and neon_common.h's. */
#define FL_INLINE static inline __attribute__((always_inline))

/* The scalar cuckoo lookup of each width, for the keys after the last vector group. */
FL_INLINE fl_contains_fn cuckoo_scalar(const int bits) {
    return bits == 8    ? fl_contains_cuckoo8_scalar
           : bits == 11 ? fl_contains_cuckoo11_scalar
           : bits == 12 ? fl_contains_cuckoo12_scalar
           : bits == 13 ? fl_contains_cuckoo13_scalar
                        : fl_contains_cuckoo16_scalar;
}

#endif /* FL_SIMD_COMMON_H */
