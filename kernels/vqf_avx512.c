/*
 * The vqf module's AVX-512 kernels (-mavx512f/bw/vl/dq -mbmi2).
 *
 * Batch lookups: eight keys at a time in the 64-bit lanes of a vector (vqf_contains_lanes,
 * kernels/vqf_lanes_avx512.h, which kernels/vqf_avx512_popcnt.c compiles again with
 * VPOPCNTDQ and BITALG as the avx512-popcnt candidate): the hash fields and both blocks,
 * and each key's bucket slots from its block's metadata (a select in lanes from byte
 * popcounts, then both of fl_vqf_bucket_mask's forms
 * picked per lane), so that only the 64-byte compare of a block's slots with the key's
 * fingerprint runs one key at a time, and only the keys with a fingerprint match among a
 * block's 48 slots go on to the vector pass. It gives fl_vqf_bucket_mask's bits on any metadata
 * (tests/checkkernels/check_vqf.c: filters, random bytes and extreme metadata). One key
 * (n = 1) takes kernels/vqf_loop.h's path: include/filterlab_vqf.h's fl_vqf_block_has (one
 * popcnt, one pdep for both ends of the run, a rotation, the compare in a mask register).
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
#include "vqf_lanes_avx512.h"

#define VQF_BLOCK_HAS fl_vqf_block_has
#define VQF_BLOCK_HAS_EARLY fl_vqf_block_has_early
#define VQF_CONTAINS_LOOP vqf_contains_lanes
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
