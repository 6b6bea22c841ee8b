/*
 * HyperLogLog per-key math shared by the kernels and src/hll*.c: THE definition of which
 * register a hash lands in and what value it offers, and MurmurHash64A for 8-byte keys.
 *
 * Redis's derivation (src/hyperloglog.c, hllPatLen): the low p bits of the 64-bit hash pick
 * the register; the value is the position of the lowest set bit of the remaining 64 - p bits
 * plus one, with bit 64 - p forced to 1 so a run of zeros ends at q + 1 = 64 - p + 1.
 */
#ifndef FL_HLL_PROBE_H
#define FL_HLL_PROBE_H

#include <stdint.h>
#include <string.h>

/* MurmurHash64A constants (Austin Appleby, MurmurHash2 64-bit for 64-bit platforms). */
#define FL_MURMUR_M 0xc6a4a7935bd1e995ull
#define FL_MURMUR_R 47

/* Registers arrays carry this many zero bytes after the last register, so a kernel may read
 * a 4-byte word at any register index (gathers) without a bounds test. Never written. */
#define FL_HLL_REG_PAD 64

static inline uint32_t fl_hll_index(uint64_t h, uint32_t p) {
    return (uint32_t)(h & ((1ull << p) - 1));
}

static inline uint8_t fl_hll_rank(uint64_t h, uint32_t p) {
    uint64_t w = (h >> p) | (1ull << (64 - p));
    return (uint8_t)(__builtin_ctzll(w) + 1);
}

/* MurmurHash64A's steps, one definition for src/hll_murmur.c (any length) and the 8-byte-key
 * kernels: a block mixed by multiply-shift-multiply into the state, and the final
 * shift-multiply-shift avalanche. */
static inline uint64_t fl_murmur_mix_block(uint64_t h, uint64_t k) {
    k *= FL_MURMUR_M;
    k ^= k >> FL_MURMUR_R;
    k *= FL_MURMUR_M;
    h ^= k;
    return h * FL_MURMUR_M;
}
static inline uint64_t fl_murmur_final(uint64_t h) {
    h ^= h >> FL_MURMUR_R;
    h *= FL_MURMUR_M;
    return h ^ (h >> FL_MURMUR_R);
}

/* MurmurHash64A of exactly 8 bytes whose little-endian value is key: one block, no tail. */
static inline uint64_t fl_murmur64a_u64(uint64_t key, uint64_t seed) {
    return fl_murmur_final(fl_murmur_mix_block(seed ^ (8 * FL_MURMUR_M), key));
}

static inline uint64_t fl_hll_load64(const void *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

#endif /* FL_HLL_PROBE_H */
