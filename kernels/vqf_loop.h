/*
 * The batch lookup loop every vqf kernel file shares (kernels/vqf_<isa>.c): each file
 * defines VQF_BLOCK_HAS(blk, bucket, fp), its test of one block (include/filterlab_vqf.h's
 * answer: is fp among the bucket's slots), and has PF_MIN_BYTES, PF_DIST and pf_read from its
 * ISA's common header (the scalar file its own), then includes this file, which defines the
 * table entry vqf_contains for the file's init (inserts and deletes: kernels/vqf_update.h).
 * A file may bring its own batch loop as VQF_CONTAINS_LOOP (kernels/vqf_avx512.c does).
 *
 * A key's answer is whether block1 or block2 holds its fingerprint: the loop tests block2
 * only for the keys block1 does not answer, gathered without a branch (vqf_contains_loop).
 * vqf_contains below runs it with prefetching (filters past PF_MIN_BYTES) or without.
 */
#ifndef FL_VQF_LOOP_H
#define FL_VQF_LOOP_H

#include "simd_common.h"

/* A condition true for about half the keys at random (whether a key's block1 answered, in
 * the batch loop's choice of the line to prefetch): the hint makes GCC pick between two
 * values with cmov rather than and/or masks. (On the metadata word of
 * include/filterlab_vqf.h's fl_vqf_bucket_mask it made GCC 12 emit a branch instead, so the
 * masks stay there.) */
#if defined(__clang__)
#define VQF_COIN(x) __builtin_unpredictable(x)
#elif defined(__GNUC__) && __GNUC__ >= 9
#define VQF_COIN(x) __builtin_expect_with_probability((x), 1, 0.5)
#else
#define VQF_COIN(x) (x)
#endif

/* Both blocks of the key PF_DIST keys after key i, if there is one (kernels/vqf_update.h's
 * inserts and deletes; the lookups below prefetch block1 ahead and block2 when needed). */
FL_INLINE void vqf_prefetch_ahead(const uint8_t *base, uint32_t nb, const uint64_t *hashes,
                                  size_t i, size_t n) {
    if (i + PF_DIST >= n) return;
    uint64_t p = fl_hash_at(hashes, i + PF_DIST);
    pf_read(base + (size_t)fl_vqf_block1(p, nb) * FL_VQF_BLOCK_BYTES);
    pf_read(base + (size_t)fl_vqf_block2(p, nb) * FL_VQF_BLOCK_BYTES);
}

/* Keys per group of the lookup loop below: the pending list is a stack array of this many
 * words, and its indices fit in 8 bits. */
#define VQF_GROUP 128u

/* The keys of a group in two passes. The first tests every key's block1 and appends the keys
 * it does not answer to a pending list (a store and an add, no branch); the second tests
 * block2 of those alone. Inserts fill block1 first (kernels/vqf_update.h), so block1 answers
 * most inserted keys (88.5% of a full filter's: FL_VQF_CHOICE_ITEMS) and a lookup at hit
 * rate 0.5 tests about 1.56 blocks rather than 2; at hit rate 0 every key still takes both.
 * A branch per key on block1's answer would mispredict on about half the keys; the list
 * keeps the loops straight. A pending key's entry packs what the second pass needs: block2,
 * the key's index in the group, bucket and fingerprint. A pending key's block2 is prefetched
 * as soon as the first pass knows it is needed, at every size (a found key prefetches its
 * own block1 again instead, which is cached: the address is picked without a branch), so
 * the second pass finds it arrived while the first pass ran on: without it a filter just
 * under PF_MIN_BYTES, in L2 but not L1, waited for each block2 in the second pass. Past
 * PF_MIN_BYTES block1 of the key PF_DIST keys ahead is prefetched too. */
FL_INLINE size_t vqf_contains_loop(const fl_kview *f, const uint64_t *hashes, size_t n,
                                   uint8_t *out, const int prefetch) {
    const uint8_t *base = (const uint8_t *)f->data;
    const uint32_t nb = f->units;
    size_t pos = 0;
    uint64_t pend[VQF_GROUP];
    for (size_t g = 0; g < n; g += VQF_GROUP) {
        const size_t m = n - g < VQF_GROUP ? n - g : VQF_GROUP;
        size_t np = 0;
        for (size_t i = 0; i < m; i++) {
            if (prefetch && g + i + PF_DIST < n)
                pf_read(base + (size_t)fl_vqf_block1(fl_hash_at(hashes, g + i + PF_DIST), nb) *
                                   FL_VQF_BLOCK_BYTES);
            uint64_t h = fl_hash_at(hashes, g + i);
            uint32_t b = fl_vqf_bucket(h), fp = fl_vqf_fp(h), i1 = fl_vqf_block1(h, nb);
            int r = VQF_BLOCK_HAS(base + (size_t)i1 * FL_VQF_BLOCK_BYTES, b, fp);
            uint32_t i2 = fl_vqf_alt(i1, b, fp, nb);
            pf_read(base + (size_t)(VQF_COIN(r) ? i1 : i2) * FL_VQF_BLOCK_BYTES);
            out[g + i] = (uint8_t)r;
            pos += (size_t)r;
            pend[np] = (uint64_t)i2 << 32 | (uint64_t)i << 16 | b << 8 | fp;
            np += (size_t)(r ^ 1);
        }
        for (size_t j = 0; j < np; j++) {
            uint64_t e = pend[j];
            uint32_t b = (uint32_t)(e >> 8) & 0xffu, fp = (uint32_t)e & 0xffu;
            int r = VQF_BLOCK_HAS(base + (size_t)(e >> 32) * FL_VQF_BLOCK_BYTES, b, fp);
            out[g + ((e >> 16) & 0xffffu)] = (uint8_t)r;
            pos += (size_t)r;
        }
    }
    return pos;
}

/* The batch loop: this file's, unless the kernel file brings its own with the same
 * signature and answers (kernels/vqf_avx512.c's keys-in-lanes loop). */
#ifndef VQF_CONTAINS_LOOP
#define VQF_CONTAINS_LOOP vqf_contains_loop
#endif

/* A file's block test for its one-key entry past FL_VQF_EARLY_MIN_BYTES, one that returns 0
 * at once when no slot holds the fingerprint (the x86 files: include/filterlab_vqf.h's
 * fl_vqf_block_has_early); by default the file's own test. */
#ifndef VQF_BLOCK_HAS_EARLY
#define VQF_BLOCK_HAS_EARLY VQF_BLOCK_HAS
#endif

/* One key (the vqf.contains1 entry, fl_vqf_contains_hash's call; k is 8 and unused), without
 * the group's list: a single key has nothing to overlap with. The two forms of
 * include/filterlab_vqf.h's probe: in the caches both blocks tested and the answers ORed
 * (fl_vqf_probe: no branch on the data, both loads in flight at once); past
 * FL_VQF_EARLY_MIN_BYTES block2 prefetched, block1 tested first, block2 only when block1
 * does not hold the key (fl_vqf_probe_early: fewer instructions wait on each line, so a
 * caller's loop of calls keeps more lines in flight). The size test is the same for every
 * call on a filter, a predicted branch. */
static int vqf_contains_one(const void *data, uint32_t units, uint32_t k, uint64_t h) {
    (void)k;
    const uint8_t *base = (const uint8_t *)data;
    uint32_t b = fl_vqf_bucket(h), fp = fl_vqf_fp(h), i1 = fl_vqf_block1(h, units);
    uint32_t i2 = fl_vqf_alt(i1, b, fp, units);
    const uint8_t *b1 = base + (size_t)i1 * FL_VQF_BLOCK_BYTES;
    const uint8_t *b2 = base + (size_t)i2 * FL_VQF_BLOCK_BYTES;
    if ((size_t)units * FL_VQF_BLOCK_BYTES >= FL_VQF_EARLY_MIN_BYTES) {
        pf_read(b2);
        return VQF_BLOCK_HAS_EARLY(b1, b, fp) || VQF_BLOCK_HAS_EARLY(b2, b, fp);
    }
    return VQF_BLOCK_HAS(b1, b, fp) | VQF_BLOCK_HAS(b2, b, fp);
}

/* The batch entry (one key: vqf_contains_one's test). */
static size_t vqf_contains(const fl_kview *f, const uint64_t *hashes, size_t n, uint8_t *out) {
    if (n == 1) {
        int r = vqf_contains_one(f->data, f->units, f->k, fl_hash_at(hashes, 0));
        out[0] = (uint8_t)r;
        return (size_t)r;
    }
    if ((size_t)f->units * FL_VQF_BLOCK_BYTES >= PF_MIN_BYTES)
        return VQF_CONTAINS_LOOP(f, hashes, n, out, 1);
    return VQF_CONTAINS_LOOP(f, hashes, n, out, 0);
}

#endif /* FL_VQF_LOOP_H */
