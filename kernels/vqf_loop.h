/*
 * The batch lookup loop every vqf kernel file shares (kernels/vqf_<isa>.c): each file
 * defines VQF_BLOCK_HAS(blk, bucket, fp), its test of one block (include/filterlab_vqf.h's
 * answer: is fp among the bucket's slots), and has PF_MIN_BYTES, PF_DIST and pf_read from its
 * ISA's common header (the scalar file its own), then includes this file, which defines the
 * table entry vqf_contains for the file's init (inserts and deletes: kernels/vqf_update.h).
 *
 * A key's two blocks are independent cache lines, so the loop is bound by memory on large
 * filters: both blocks of the key PF_DIST keys ahead are prefetched once the filter is past
 * the prefetch threshold (FL_LOOKUP_BY_SIZE instantiates the loop with and without). Both
 * blocks are tested every time and the answers ORed: a branch on the first block's answer
 * mispredicts on about half the positive keys.
 */
#ifndef FL_VQF_LOOP_H
#define FL_VQF_LOOP_H

#include "simd_common.h"

/* Both blocks of the key PF_DIST keys after key i, if there is one (the lookup loop below and
 * kernels/vqf_update.h's). */
FL_INLINE void vqf_prefetch_ahead(const uint8_t *base, uint32_t nb, const uint64_t *hashes,
                                  size_t i, size_t n) {
    if (i + PF_DIST >= n) return;
    uint64_t p = fl_hash_at(hashes, i + PF_DIST);
    pf_read(base + (size_t)fl_vqf_block1(p, nb) * FL_VQF_BLOCK_BYTES);
    pf_read(base + (size_t)fl_vqf_block2(p, nb) * FL_VQF_BLOCK_BYTES);
}

FL_INLINE size_t vqf_contains_loop(const fl_kview *f, const uint64_t *hashes, size_t n,
                                   uint8_t *out, const int prefetch) {
    const uint8_t *base = (const uint8_t *)f->data;
    const uint32_t nb = f->units;
    size_t pos = 0;
    for (size_t i = 0; i < n; i++) {
        if (prefetch) vqf_prefetch_ahead(base, nb, hashes, i, n);
        uint64_t h = fl_hash_at(hashes, i);
        uint32_t b = fl_vqf_bucket(h), fp = fl_vqf_fp(h);
        int r = VQF_BLOCK_HAS(base + (size_t)fl_vqf_block1(h, nb) * FL_VQF_BLOCK_BYTES, b, fp) |
                VQF_BLOCK_HAS(base + (size_t)fl_vqf_block2(h, nb) * FL_VQF_BLOCK_BYTES, b, fp);
        out[i] = (uint8_t)r;
        pos += (size_t)r;
    }
    return pos;
}

FL_LOOKUP_BY_SIZE(vqf_contains, FL_VQF_BLOCK_BYTES, vqf_contains_loop)

#endif /* FL_VQF_LOOP_H */
