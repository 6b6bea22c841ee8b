/*
 * filterlab.h's integer-key hash (the SplitMix64 finalizer of key + seed * FL_SEED_MIX) of 8
 * keys in one zmm, for the hash module's kernel (hash_avx512.c) and the lookups that hash
 * their keys in the probe loop (cuckoo_avx512.c's u64s lookups). vpmullq is AVX-512 DQ
 * (kernels/hash_avx2.c builds each multiply from three 32-bit ones).
 */
#ifndef FL_HASH_AVX512_H
#define FL_HASH_AVX512_H

#include <immintrin.h>

#include "filterlab.h"
#include "avx512_common.h"

/* The seed term of every key's hash: add it with hash8_u64. */
FL_INLINE __m512i hash_seed_add(uint64_t seed) {
    return _mm512_set1_epi64((long long)(seed * FL_SEED_MIX));
}

/* fl_hash_u64 of 8 keys; add is hash_seed_add(seed). */
FL_INLINE __m512i hash8_u64(__m512i keys, __m512i add) {
    const __m512i c1 = _mm512_set1_epi64((long long)0xbf58476d1ce4e5b9ull);
    const __m512i c2 = _mm512_set1_epi64((long long)0x94d049bb133111ebull);
    __m512i z = _mm512_add_epi64(keys, add);
    z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 30)), c1);
    z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 27)), c2);
    return _mm512_xor_si512(z, _mm512_srli_epi64(z, 31));
}

#endif /* FL_HASH_AVX512_H */
