/*
 * Scalar kernels of the bloom module: the reference every SIMD bloom kernel must match byte
 * for byte, and the first entry of every kernel table. Plain C at baseline flags; the per-key
 * math is in probe.h, the loops in scalar_common.h.
 */
#include "scalar_common.h"

size_t fl_contains_classic_scalar(const fl_kview *f, const uint64_t *hashes, size_t n,
                                  uint8_t *out) {
    size_t pos = 0;
    const uint64_t *w = (const uint64_t *)f->data;
    for (size_t i = 0; i < n; i++) {
        if (i + FL_PREFETCH_AHEAD < n) {
            /* Only the first probe's word: the rest depend on it matching. */
            uint64_t h = fl_hash_at(hashes, i + FL_PREFETCH_AHEAD);
            prefetch(&w[fl_reduce32((uint32_t)(h >> 32), f->units)]);
        }
        int r = fl_classic_probe(f, fl_hash_at(hashes, i));
        out[i] = (uint8_t)r;
        pos += (size_t)r;
    }
    return pos;
}

static inline const void *reg64_at(const fl_kview *f, uint64_t h) {
    return (const uint64_t *)f->data + fl_reduce32((uint32_t)(h >> 32), f->units);
}

FL_SCALAR_CONTAINS(block512, fl_block512_at, fl_block512_probe)
FL_SCALAR_CONTAINS(split256, fl_split256_at, fl_split256_probe)
FL_SCALAR_CONTAINS(reg64, reg64_at, fl_reg64_probe)

void fl_insert_classic_scalar(const fl_kview *f, const uint64_t *hashes, size_t n) {
    uint64_t *w = (uint64_t *)f->data;
    for (size_t i = 0; i < n; i++) {
        uint64_t h = fl_hash_at(hashes, i), g = h, step = fl_classic_step(h);
        for (uint32_t j = 0; j < f->k; j++, g += step)
            w[fl_reduce32((uint32_t)(g >> 32), f->units)] |= 1ull << (g & 63);
    }
}

void fl_insert_block512_scalar(const fl_kview *f, const uint64_t *hashes, size_t n) {
    for (size_t i = 0; i < n; i++) {
        uint64_t h = fl_hash_at(hashes, i), mask[8];
        uint64_t *b = (uint64_t *)fl_block512_at(f, h);
        fl_block512_mask(h, f->k, mask);
        for (int w = 0; w < 8; w++) b[w] |= mask[w];
    }
}

void fl_insert_split256_scalar(const fl_kview *f, const uint64_t *hashes, size_t n) {
    for (size_t i = 0; i < n; i++) {
        uint64_t h = fl_hash_at(hashes, i);
        uint32_t *b = (uint32_t *)fl_split256_at(f, h);
        /* The payload is little-endian; on the little-endian hosts we support this is a
         * plain OR (see the check in src/core/internal.h). */
        for (int w = 0; w < 8; w++) b[w] |= fl_split256_bit((uint32_t)h, w);
    }
}

void fl_insert_reg64_scalar(const fl_kview *f, const uint64_t *hashes, size_t n) {
    uint64_t *w = (uint64_t *)f->data;
    for (size_t i = 0; i < n; i++) {
        uint64_t h = fl_hash_at(hashes, i);
        w[fl_reduce32((uint32_t)(h >> 32), f->units)] |= fl_reg64_mask(h, f->k);
    }
}

/* One-key entries. */
FL_SCALAR_PROBE1(classic, fl_classic_probe)
FL_SCALAR_PROBE1(block512, fl_block512_probe)
FL_SCALAR_PROBE1(split256, fl_split256_probe)
FL_SCALAR_PROBE1(reg64, fl_reg64_probe)

void fl_bloom_kernels_init_scalar(fl_kernel_table *t) {
    t->bloom.contains[FL_BLOOM_CLASSIC] = fl_contains_classic_scalar;
    t->bloom.contains[FL_BLOOM_BLOCK512] = fl_contains_block512_scalar;
    t->bloom.contains[FL_BLOOM_SPLIT256] = fl_contains_split256_scalar;
    t->bloom.contains[FL_BLOOM_REG64] = fl_contains_reg64_scalar;
    t->bloom.insert[FL_BLOOM_CLASSIC] = fl_insert_classic_scalar;
    t->bloom.insert[FL_BLOOM_BLOCK512] = fl_insert_block512_scalar;
    t->bloom.insert[FL_BLOOM_SPLIT256] = fl_insert_split256_scalar;
    t->bloom.insert[FL_BLOOM_REG64] = fl_insert_reg64_scalar;
    t->bloom.contains1[FL_BLOOM_CLASSIC] = fl_probe1_classic_scalar;
    t->bloom.contains1[FL_BLOOM_BLOCK512] = fl_probe1_block512_scalar;
    t->bloom.contains1[FL_BLOOM_SPLIT256] = fl_probe1_split256_scalar;
    t->bloom.contains1[FL_BLOOM_REG64] = fl_probe1_reg64_scalar;
}
