/*
 * AVX-512 kernel of the hash module: filterlab.h's SplitMix64 finalizer over an array, the
 * integer keys of every structure's *_u64s calls (8 keys per zmm: hash_avx512.h, vpmullq).
 * kernels/hash_avx2.c builds the multiplies from 32-bit ones.
 */
#if !defined(__AVX512F__) || !defined(__AVX512BW__) || !defined(__AVX512VL__) ||               \
    !defined(__AVX512DQ__) || !defined(__BMI2__)
#error "kernels/hash_avx512.c needs -mavx512f -mavx512bw -mavx512vl -mavx512dq -mbmi2"
#endif

#include <immintrin.h>
#include <string.h>

#include "filterlab.h"
#include "kernels.h"
#include "probe.h"
#include "hash_avx512.h"

static void fl_hash_u64_avx512(const uint64_t *keys, size_t n, uint64_t seed, uint64_t *out) {
    const __m512i add = hash_seed_add(seed);
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm512_storeu_si512((void *)((unsigned char *)out + 8 * i), hash8_u64(load8(keys, i), add));
    for (; i < n; i++) {
        uint64_t h = fl_hash_u64_inline(fl_hash_at(keys, i), seed);
        memcpy((unsigned char *)out + 8 * i, &h, 8);
    }
}

void fl_hash_kernels_init_avx512(fl_kernel_table *t) {
    t->hash.u64 = fl_hash_u64_avx512;
}
