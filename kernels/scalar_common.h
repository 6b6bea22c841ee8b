/*
 * What the scalar kernel files (kernels/<module>_scalar.c) share: the baseline-flags guard
 * and the one-key-at-a-time loops of the lookups whose per-key math is a probe of probe.h.
 *
 * Lookups prefetch the unit of the key FL_PREFETCH_AHEAD positions ahead, so even the
 * reference keeps several cache misses in flight on DRAM-sized filters (memory-level
 * parallelism); the answers do not depend on it.
 */
#ifndef FL_SCALAR_COMMON_H
#define FL_SCALAR_COMMON_H

/* The reference runs before and without dispatch: an ISA flag leaking in here would let the
 * compiler emit AVX2 in code every CPU runs (same guard as src/core/internal.h). */
#if defined(__AVX2__) || defined(__AVX512F__)
#error "the scalar kernel files must be compiled at baseline flags"
#endif

#include <stddef.h>
#include <stdint.h>

#include "kernels.h"
#include "probe.h"

#define FL_PREFETCH_AHEAD 16

static inline void prefetch(const void *p) {
    __builtin_prefetch(p, 0, 3);
}

/* One lookup loop per unit-addressed family: prefetch the unit ahead (at: the address of a
 * hash's unit), probe this key. */
#define FL_SCALAR_CONTAINS(name, at, probe)                                                  \
    size_t fl_contains_##name##_scalar(const fl_kview *f, const uint64_t *hashes, size_t n,  \
                                       uint8_t *out) {                                       \
        size_t pos = 0;                                                                      \
        for (size_t i = 0; i < n; i++) {                                                     \
            if (i + FL_PREFETCH_AHEAD < n)                                                   \
                prefetch(at(f, fl_hash_at(hashes, i + FL_PREFETCH_AHEAD)));                  \
            int r = probe(f, fl_hash_at(hashes, i));                                         \
            out[i] = (uint8_t)r;                                                             \
            pos += (size_t)r;                                                                \
        }                                                                                    \
        return pos;                                                                          \
    }

/* One-key entries (fl_contains1_fn): the probe of probe.h on the payload's view. */
#define FL_SCALAR_PROBE1(name, probe)                                                        \
    static int fl_probe1_##name##_scalar(const void *data, uint32_t units, uint32_t k,       \
                                         uint64_t h) {                                       \
        fl_kview v = fl_bloom_view(data, units, k);                                          \
        return probe(&v, h);                                                                 \
    }

#endif /* FL_SCALAR_COMMON_H */
