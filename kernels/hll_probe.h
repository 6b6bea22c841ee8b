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

/* MurmurHash64A's steps, one definition for src/hll/hll_murmur.c (any length) and the 8-byte-key
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

/* ---- The add loop the SIMD tables share (kernels/hll_<isa>.c) ----------------------------
 * Offers hashes[i, i + 8) with a branch-free max per key: every key loads and stores its
 * register whether or not it grows, so a random mix of raising and non-raising hashes costs
 * no mispredicted branch (the scalar reference's per-key branch mispredicts on young
 * sketches, where about one hash in ten raises its register). Two keys on one register are
 * serialised through the store, and max is order-free, so the registers equal the scalar
 * loop's. Scalar code on purpose: for one load, one ctz, one max and one store per key, the
 * index and rank computed in a vector and read back lane by lane measured slower (AVX-512,
 * checkkernels --bench). Returns 1 if a register grew. */
static inline uint32_t fl_hll_apply8(uint8_t *regs, uint32_t p, const uint64_t *hashes, size_t i) {
    uint32_t g = 0;
    for (size_t j = i; j < i + 8; j++) {
        uint64_t x = fl_hll_load64((const unsigned char *)hashes + 8 * j);
        uint32_t ix = fl_hll_index(x, p), r = fl_hll_rank(x, p), o = regs[ix];
        g |= o - r; /* borrows into bit 31 iff r > o (both < 256) */
        regs[ix] = (uint8_t)(r > o ? r : o);
    }
    return g >> 31;
}

/* Groups of 8 per window: each window counts the groups that raised a register and picks
 * the next window's way: fewer than a quarter raising (a warm sketch) -> test first and
 * store only when a key beats its register, the branch being predictable; else
 * fl_hll_apply8. */
#define FL_HLL_WINDOW 16

/* The add for ISAs whose vectors cannot rank 64-bit hashes cheaply (AVX2 has no 64-bit
 * lzcnt/tzcnt or u64->double conversion; NEON neither): both ways scalar, chosen per
 * window. Same contract as fl_hll_add_fn. */
static inline int fl_hll_add_windowed(uint8_t *regs, uint32_t p, const uint64_t *hashes, size_t n) {
    uint32_t grew = 0;
    int testing = 1;
    size_t i = 0;
    while (i + 8 <= n) {
        uint32_t raised = 0;
        size_t end = i + 8 * FL_HLL_WINDOW <= n ? i + 8 * FL_HLL_WINDOW : n - (n - i) % 8;
        for (; i < end; i += 8) {
            uint32_t g = 0;
            if (testing) {
                for (size_t j = i; j < i + 8; j++) {
                    uint64_t x = fl_hll_load64((const unsigned char *)hashes + 8 * j);
                    uint32_t ix = fl_hll_index(x, p);
                    uint8_t r = fl_hll_rank(x, p);
                    if (r > regs[ix]) regs[ix] = r, g = 1;
                }
            } else {
                g = fl_hll_apply8(regs, p, hashes, i);
            }
            grew |= g;
            raised += g;
        }
        testing = raised * 4 < FL_HLL_WINDOW;
    }
    for (; i < n; i++) {
        uint64_t x = fl_hll_load64((const unsigned char *)hashes + 8 * i);
        uint32_t ix = fl_hll_index(x, p);
        uint8_t r = fl_hll_rank(x, p);
        if (r > regs[ix]) regs[ix] = r, grew = 1;
    }
    return grew != 0;
}

#endif /* FL_HLL_PROBE_H */
