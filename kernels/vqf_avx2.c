/*
 * The vqf module's AVX2 kernels (-mavx2 -mbmi2 -mfma).
 *
 * Lookups: a block's slots compared with the key's fingerprint in two 32-byte vpcmpeqb (the
 * metadata's 16 bytes compare too and are shifted out of the movemask), ANDed with the
 * bucket's slots (one popcnt, one pdep for both ends of the run, a rotation):
 * include/filterlab_vqf.h's fl_vqf_block_has as this file's flags compile it. The loop is
 * kernels/vqf_loop.h's.
 *
 * Inserts and deletes: kernels/vqf_update.h's, with the select as pdep and tzcnt, a delete's
 * search as the lookup's compare, and the slot shift as two overlapping 32-byte halves of the
 * slots (bytes 16..47 and 32..63): an insert reads each also one byte lower (the slots moved
 * up, every load inside the block), a delete moves the upper half down in register; bytes
 * are picked by comparing their slot index with the slot, both halves are computed before
 * either is stored, so the 16 bytes they share get the same value twice. Dispatch runs this
 * table only where AVX2 and BMI2 are there.
 */
#if !defined(__AVX2__) || !defined(__BMI2__)
#error "kernels/vqf_avx2.c needs -mavx2 -mbmi2"
#endif

#include "kernels.h"
#include "probe.h"
#include "x86_common.h"

#define VQF_BLOCK_HAS fl_vqf_block_has
#define VQF_BLOCK_HAS_EARLY fl_vqf_block_has_early
#include "vqf_loop.h"

/* Slot indices of the two halves: bytes 16..47 are slots 0..31, bytes 32..63 slots 16..47. */
FL_INLINE __m256i slot_index(int half) {
    const __m256i iota = _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                                          16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28,
                                          29, 30, 31);
    return half ? _mm256_add_epi8(iota, _mm256_set1_epi8(16)) : iota;
}

FL_INLINE void put_md(uint8_t *blk, uint64_t lo, uint64_t hi) {
    _mm_store_si128((__m128i *)(void *)blk, _mm_set_epi64x((long long)hi, (long long)lo));
}

/* vqf_update.h's VQF_SHIFT_IN: slots above s from one byte lower, fp at s (s <= 48; at 48
 * no slot changes). */
FL_INLINE void shift_in_avx2(uint8_t *blk, uint32_t s, uint32_t fp, uint64_t lo, uint64_t hi) {
    const __m256i sv = _mm256_set1_epi8((char)s), f = _mm256_set1_epi8((char)fp);
    __m256i r[2];
    for (int k = 0; k < 2; k++) {
        const uint8_t *p = blk + 16 + 16 * k;
        __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)p);
        __m256i lower = _mm256_loadu_si256((const __m256i *)(const void *)(p - 1));
        __m256i idx = slot_index(k);
        x = _mm256_blendv_epi8(x, lower, _mm256_cmpgt_epi8(idx, sv));
        r[k] = _mm256_blendv_epi8(x, f, _mm256_cmpeq_epi8(idx, sv));
    }
    _mm256_storeu_si256((__m256i *)(void *)(blk + 16), r[0]);
    _mm256_store_si256((__m256i *)(void *)(blk + 32), r[1]);
    put_md(blk, lo, hi);
}

/* VQF_SHIFT_OUT: slots from j (j <= 47) up from one byte higher, slot 47 = 0. The lower half
 * reads bytes 17..48 (inside the block); the upper one moves down in register (a lane swap
 * with zero above, then a byte alignr), so no load leaves the block. */
FL_INLINE void shift_out_avx2(uint8_t *blk, uint32_t j, uint64_t lo, uint64_t hi) {
    const __m256i jv = _mm256_set1_epi8((char)j - 1);
    __m256i x0 = _mm256_loadu_si256((const __m256i *)(const void *)(blk + 16));
    __m256i h0 = _mm256_loadu_si256((const __m256i *)(const void *)(blk + 17));
    __m256i x1 = _mm256_load_si256((const __m256i *)(const void *)(blk + 32));
    __m256i h1 = _mm256_alignr_epi8(_mm256_permute2x128_si256(x1, x1, 0x81), x1, 1);
    __m256i r0 = _mm256_blendv_epi8(x0, h0, _mm256_cmpgt_epi8(slot_index(0), jv));
    __m256i r1 = _mm256_blendv_epi8(x1, h1, _mm256_cmpgt_epi8(slot_index(1), jv));
    _mm256_storeu_si256((__m256i *)(void *)(blk + 16), r0);
    _mm256_store_si256((__m256i *)(void *)(blk + 32), r1);
    put_md(blk, lo, hi);
}

#define VQF_SHIFT_IN shift_in_avx2
#define VQF_SHIFT_OUT shift_out_avx2
#define VQF_MATCH fl_vqf_match
#include "vqf_update.h"

FL_VQF_INIT(avx2)
