/*
 * The cuckoo module's integer-key lookups (kernels.h's fl_contains_u64s_fn) for the ISAs
 * that do not hash in their lookup loop (scalar, AVX2, NEON: none has a vector 64 x 64
 * multiply instruction, and AVX2's built from 32-bit ones, kernels/hash_avx2.c, was not
 * tried inside the loop): a block of keys hashed with the hash kernel the caller pairs with
 * the entry (the process's hash.u64: AVX-512's where the CPU has it, else AVX2's), then the
 * ISA's lookup of hashes, block by block, as src/core/filter.c's two passes did. The block
 * stays in L1 between the two passes.
 */
#ifndef FL_CUCKOO_U64S_H
#define FL_CUCKOO_U64S_H

#include "filterlab.h"
#include "kernels.h"
#include "probe.h"


static inline size_t fl_cuckoo_u64s_by_blocks(const fl_kview *f, const uint64_t *keys, size_t n,
                                              uint64_t seed, fl_hash_u64_fn hash, uint8_t *out,
                                              fl_contains_fn probe) {
    uint64_t h[FL_U64S_BLOCK];
    size_t pos = 0;
    for (size_t off = 0; off < n; off += FL_U64S_BLOCK) {
        size_t m = n - off < FL_U64S_BLOCK ? n - off : FL_U64S_BLOCK;
        hash((const uint64_t *)(const void *)((const unsigned char *)keys + 8 * off), m, seed, h);
        pos += probe(f, h, m, out + off);
    }
    return pos;
}

/* Defines `name`, an fl_contains_u64s_fn over the fl_contains_fn `probe`. */
#define FL_CUCKOO_U64S_BY_BLOCKS(name, probe)                                                  \
    static size_t name(const fl_kview *f, const uint64_t *keys, size_t n, uint64_t seed,      \
                       fl_hash_u64_fn hash, uint8_t *out) {                                    \
        return fl_cuckoo_u64s_by_blocks(f, keys, n, seed, hash, out, probe);                   \
    }

#endif /* FL_CUCKOO_U64S_H */
