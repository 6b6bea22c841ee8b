/*
 * AVX2 kernel of the hash module: filterlab.h's integer-key hash (the SplitMix64 finalizer of
 * key + seed * FL_SEED_MIX) over an array, 4 keys per ymm, the finalizer's two 64-bit
 * multiplies built from 32-bit ones (avx2_common.h's mul64_const: AVX2 has no vpmullq). The
 * integer keys of every structure's *_u64s calls go through it on CPUs without AVX-512
 * (kernels/cuckoo_u64s.h's lookups hash each block with the process's hash.u64).
 */
#if !defined(__AVX2__) || !defined(__BMI2__)
#error "kernels/hash_avx2.c needs -mavx2 -mbmi2"
#endif

#include <immintrin.h>
#include <string.h>

#include "filterlab.h"
#include "kernels.h"
#include "probe.h"
#include "avx2_common.h"

static void fl_hash_u64_avx2(const uint64_t *keys, size_t n, uint64_t seed, uint64_t *out) {
    const uint64_t c1 = 0xbf58476d1ce4e5b9ull, c2 = 0x94d049bb133111ebull; /* fl_mix64's */
    const __m256i m1 = _mm256_set1_epi64x((long long)c1), s1 = mul64_const_swapped(c1);
    const __m256i m2 = _mm256_set1_epi64x((long long)c2), s2 = mul64_const_swapped(c2);
    const __m256i add = _mm256_set1_epi64x((long long)(seed * FL_SEED_MIX));
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        __m256i z = _mm256_add_epi64(load4(keys, i), add);
        z = mul64_const(_mm256_xor_si256(z, _mm256_srli_epi64(z, 30)), m1, s1);
        z = mul64_const(_mm256_xor_si256(z, _mm256_srli_epi64(z, 27)), m2, s2);
        z = _mm256_xor_si256(z, _mm256_srli_epi64(z, 31));
        _mm256_storeu_si256((__m256i *)(void *)((unsigned char *)out + 8 * i), z);
    }
    for (; i < n; i++) {
        uint64_t h = fl_hash_u64_inline(fl_hash_at(keys, i), seed);
        memcpy((unsigned char *)out + 8 * i, &h, 8);
    }
}

void fl_hash_kernels_init_avx2(fl_kernel_table *t) {
    t->hash.u64 = fl_hash_u64_avx2;
}
