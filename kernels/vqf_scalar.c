/*
 * The vqf module's reference kernel: batch lookups of a vector quotient filter, key by key,
 * with include/filterlab_vqf.h's probe math in its portable form (broadword select, a walk
 * over the bucket's slots). Every other ISA's vqf kernel is checked against it
 * (tests/checkkernels/check_vqf.c). Both blocks of the key FL_PREFETCH_AHEAD keys ahead are
 * prefetched, so the reference too keeps misses in flight on DRAM-sized filters.
 */
#include "scalar_common.h"

static size_t vqf_contains_scalar(const fl_kview *f, const uint64_t *hashes, size_t n,
                                  uint8_t *out) {
    const uint8_t *base = (const uint8_t *)f->data;
    const uint32_t nb = f->units;
    size_t pos = 0;
    for (size_t i = 0; i < n; i++) {
        if (i + FL_PREFETCH_AHEAD < n) {
            uint64_t p = fl_hash_at(hashes, i + FL_PREFETCH_AHEAD);
            prefetch(base + (size_t)fl_vqf_block1(p, nb) * FL_VQF_BLOCK_BYTES);
            prefetch(base + (size_t)fl_vqf_block2(p, nb) * FL_VQF_BLOCK_BYTES);
        }
        uint64_t h = fl_hash_at(hashes, i);
        uint32_t b = fl_vqf_bucket(h), fp = fl_vqf_fp(h);
        int r = fl_vqf_block_has_portable(base + (size_t)fl_vqf_block1(h, nb) * FL_VQF_BLOCK_BYTES, b, fp) |
                fl_vqf_block_has_portable(base + (size_t)fl_vqf_block2(h, nb) * FL_VQF_BLOCK_BYTES, b, fp);
        out[i] = (uint8_t)r;
        pos += (size_t)r;
    }
    return pos;
}

void fl_vqf_kernels_init_scalar(fl_kernel_table *t) {
    t->vqf.contains = vqf_contains_scalar;
}
