/*
 * The vqf module's AVX-512 kernels (-mavx512f/bw/vl/dq -mbmi2).
 *
 * Lookups: a block's 48 slots compared with the key's fingerprint in one 64-byte vpcmpeqb
 * into a mask register (the metadata's 16 bytes compare too and are shifted out), ANDed with
 * the bucket's slots (one popcnt, one pdep for both ends of the run, a rotation):
 * include/filterlab_vqf.h's fl_vqf_block_has as this file's flags compile it. The loop is
 * kernels/vqf_loop.h's.
 *
 * Inserts and deletes: kernels/vqf_update.h's, with the select as pdep and tzcnt, a delete's
 * search as the lookup's compare, and the slot shift as one 64-byte register: the block moved
 * by one byte (a 128-bit lane rotation, valignq, then a byte alignr per lane), blended in
 * from the slot on under a byte mask, the fingerprint and the metadata put in, and one
 * aligned 64-byte store. Dispatch runs this table only where AVX-512 BW and BMI2 are there.
 */
#if !defined(__AVX512BW__) || !defined(__AVX512DQ__) || !defined(__BMI2__)
#error "kernels/vqf_avx512.c needs -mavx512bw -mavx512dq -mbmi2"
#endif

#include "kernels.h"
#include "probe.h"
#include "x86_common.h"

#define VQF_BLOCK_HAS fl_vqf_block_has
#include "vqf_loop.h"

/* The block with metadata (lo, hi) in bytes 0..15. */
FL_INLINE __m512i with_md(__m512i z, uint64_t lo, uint64_t hi) {
    return _mm512_inserti64x2(z, _mm_set_epi64x((long long)hi, (long long)lo), 0);
}

/* vqf_update.h's VQF_SHIFT_IN: byte k of `up` is byte k - 1 of the block (each lane's byte 0
 * from the lane below, brought in by valignq). Byte 16 + s (s <= 48; none at 48) takes fp,
 * the bytes above it `up`. */
FL_INLINE void shift_in_avx512(uint8_t *blk, uint32_t s, uint32_t fp, uint64_t lo, uint64_t hi) {
    __m512i z = _mm512_load_si512((const void *)blk);
    __m512i below = _mm512_alignr_epi64(z, _mm512_setzero_si512(), 6);
    __m512i up = _mm512_alignr_epi8(z, below, 15);
    uint64_t at = 2ull << (15 + s); /* byte 16 + s; 0 for s = 48 */
    __m512i r = _mm512_mask_blend_epi8(~((at << 1) - 1), z, up);
    r = _mm512_mask_set1_epi8(r, at, (char)fp);
    _mm512_store_si512((void *)blk, with_md(r, lo, hi));
}

/* VQF_SHIFT_OUT: byte k of `down` is byte k + 1 of the block, 0 for byte 63; the bytes from
 * 16 + j (j <= 47) up take it. */
FL_INLINE void shift_out_avx512(uint8_t *blk, uint32_t j, uint64_t lo, uint64_t hi) {
    __m512i z = _mm512_load_si512((const void *)blk);
    __m512i above = _mm512_alignr_epi64(_mm512_setzero_si512(), z, 2);
    __m512i down = _mm512_alignr_epi8(above, z, 1);
    __m512i r = _mm512_mask_blend_epi8(~((1ull << (16 + j)) - 1), z, down);
    _mm512_store_si512((void *)blk, with_md(r, lo, hi));
}

#define VQF_SHIFT_IN shift_in_avx512
#define VQF_SHIFT_OUT shift_out_avx512
#define VQF_MATCH fl_vqf_match
#include "vqf_update.h"

FL_VQF_INIT(avx512)
