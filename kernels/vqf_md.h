/*
 * A vqf block's metadata as a 128-bit string (include/filterlab_vqf.h: lo is bits 0..63, hi
 * bits 64..127): the two shifts an insert and a delete make to it (kernels/vqf_update.h),
 * each in two forms that give the same words on any input, for every p from 0 to 128:
 *
 *   vqf_md_insert_zero_masks / _pdep    a 0 inserted at bit p, the bits from p up one higher
 *   vqf_md_remove_bit_masks / _pext     bit p removed, the bits above it one lower
 *
 * The masks' form is portable; the BMI2 form (one pdep or pext a word) is compiled where the
 * includer's flags have BMI2, and vqf_md_insert_zero / vqf_md_remove_bit pick it there.
 * tests/test_vqf_md.c compares the two forms directly (a build with -mbmi2, on every p, on
 * random, sparse, dense and filter-like words); tests/checkkernels compares the kernels'
 * blocks with the scalar kernel's, which has the masks' form at the x86-64 baseline.
 */
#ifndef FL_VQF_MD_H
#define FL_VQF_MD_H

#include <stdint.h>
#include <string.h>

#include "filterlab.h" /* FL_VQF_INLINE */

#if defined(__BMI2__) && defined(__x86_64__)
#include <immintrin.h>
#define VQF_MD_HAVE_BMI2 1
#endif

/* The bits below p (0..128) as two masks. min(p, 64) and p - 64 are picked with a mask (GCC
 * compiles a conditional here into a branch); shifting twice by half of 64 gives 0, so no
 * shift reaches 64. */
FL_VQF_INLINE void vqf_md_below(uint32_t p, uint64_t *blo, uint64_t *bhi) {
    uint32_t ge = (uint32_t)0 - (uint32_t)(p >= 64);
    uint32_t plo = (p & ~ge) | (64u & ge), phi = (p - 64u) & ge & 63u;
    *blo = ~((~0ull << (plo >> 1)) << (plo - (plo >> 1)));
    *bhi = (1ull << phi) - 1;
}

/* A 0 inserted at bit p (0..128; 128, where only a block no filter holds puts it, shifts hi
 * alone): the bits from p up move up by one (bit 127, a 0 while the block has room, falls
 * off): (x & below) | ((x & ~below) << 1) on the 128-bit string. */
FL_VQF_INLINE void vqf_md_insert_zero_masks(uint64_t *lo, uint64_t *hi, uint32_t p) {
    uint64_t blo, bhi;
    vqf_md_below(p, &blo, &bhi);
    uint64_t alo = *lo & ~blo, ahi = *hi & ~bhi;
    *hi = (*hi & bhi) | (ahi << 1) | (alo >> 63);
    *lo = (*lo & blo) | (alo << 1);
}

/* Bit p removed: the bits above it move down by one, a 0 enters at bit 127:
 * (x & below) | ((x >> 1) & ~below). */
FL_VQF_INLINE void vqf_md_remove_bit_masks(uint64_t *lo, uint64_t *hi, uint32_t p) {
    uint64_t blo, bhi;
    vqf_md_below(p, &blo, &bhi);
    *lo = (*lo & blo) | (((*lo >> 1) | (*hi << 63)) & ~blo);
    *hi = (*hi & bhi) | ((*hi >> 1) & ~bhi);
}

#ifdef VQF_MD_HAVE_BMI2
/* The insert with a deposit in the word holding p: pdep(x, ~(1 << p)) spreads x's low 63
 * bits over every position but p. hi takes lo's bit 63 as its new bit 0 when p is in lo; the
 * word below p's is unchanged, which is a deposit into all ones. Each word's mask comes from
 * shifting a 0/1 flag, not from a branch. The masks' form took about twice the instructions
 * on the path every insert takes. */
FL_VQF_INLINE void vqf_md_insert_zero_pdep(uint64_t *lo, uint64_t *hi, uint32_t p) {
    uint64_t p_lo = (uint64_t)(p < 64), sh = p & 63;
    uint64_t x = *hi, y = (x << 1) | (*lo >> 63), in_lo = (uint64_t)0 - p_lo;
    *hi = _pdep_u64((y & in_lo) | (x & ~in_lo), ~((p_lo ^ 1) << sh));
    *lo = _pdep_u64(*lo, ~(p_lo << sh));
}

/* The removal with an extract that skips p, which packs its word (a 0 entering at the top);
 * when p is in lo, lo's top bit is then hi's bit 0 and hi moves down by one (an extract
 * through all ones, shifted), as in vqf_md_insert_zero_pdep. */
FL_VQF_INLINE void vqf_md_remove_bit_pext(uint64_t *lo, uint64_t *hi, uint32_t p) {
    uint64_t p_lo = (uint64_t)(p < 64), sh = p & 63;
    uint64_t x = *hi;
    *lo = _pext_u64(*lo, ~(p_lo << sh)) | ((x << 63) & ((uint64_t)0 - p_lo));
    *hi = _pext_u64(x, ~((p_lo ^ 1) << sh)) >> p_lo;
}
#define vqf_md_insert_zero vqf_md_insert_zero_pdep
#define vqf_md_remove_bit vqf_md_remove_bit_pext
#else
#define vqf_md_insert_zero vqf_md_insert_zero_masks
#define vqf_md_remove_bit vqf_md_remove_bit_masks
#endif

FL_VQF_INLINE void vqf_md_put(uint8_t *blk, uint64_t lo, uint64_t hi) {
    memcpy(blk, &lo, 8);
    memcpy(blk + 8, &hi, 8);
}

#endif /* FL_VQF_MD_H */
