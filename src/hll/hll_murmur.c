/*
 * MurmurHash64A (Austin Appleby's MurmurHash2, 64-bit version for 64-bit platforms), the hash
 * Redis's HyperLogLog uses (seed 0xadc83b19), written from the algorithm: 8-byte blocks read
 * little-endian (Redis reads them so on every host), each mixed by multiply-shift-multiply
 * into the state, the 1..7 tail bytes folded in as one little-endian word, then a final
 * shift-multiply-shift avalanche. Bytes stay scalar: only fixed 8-byte keys have a kernel.
 */
#include "hll/hll_internal.h"

uint64_t fl_murmur64a(const void *data, size_t len, uint64_t seed) {
    const unsigned char *p = data;
    /* Redis passes the seed as unsigned int and the length as int: both are below 2^31 for
     * any string Redis stores, so the 64-bit forms here give the same values. */
    uint64_t h = seed ^ ((uint64_t)len * FL_MURMUR_M);
    size_t blocks = len / 8;
    for (size_t i = 0; i < blocks; i++) h = fl_murmur_mix_block(h, fl_hll_load64(p + 8 * i));
    const unsigned char *tail = p + 8 * blocks;
    size_t rest = len & 7;
    if (rest) {
        uint64_t t = 0;
        for (size_t i = rest; i-- > 0;) t = t << 8 | tail[i];
        h ^= t;
        h *= FL_MURMUR_M;
    }
    return fl_murmur_final(h);
}
