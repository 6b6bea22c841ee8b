/*
 * The vqf module's NEON kernel: a block's 48 slots compared with the key's fingerprint in
 * three 16-byte vceqq_u8, each ANDed with the bucket's slots as bytes (the mask of
 * include/filterlab_vqf.h's fl_vqf_bucket_mask spread over the lanes with a table lookup and
 * a bit test: NEON has no movemask to AND a bit mask with), then one horizontal max. The
 * mask comes from the header's portable select (AArch64 has no pdep). Native on aarch64,
 * through SIMDe on x86 (checked there, never picked automatically). The loop is
 * kernels/vqf_loop.h's.
 */
#include "neon_common.h"

FL_INLINE int vqf_block_has_neon(const uint8_t *blk, uint32_t b, uint32_t fp) {
    uint64_t m = fl_vqf_bucket_mask(fl_vqf_md_lo(blk), fl_vqf_md_hi(blk), b);
    /* the mask's bits as bytes: byte j of a 16-slot group is bit j of its 16 mask bits */
    static const uint8_t spread[16] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1};
    static const uint8_t bits[16] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
    const uint8x16_t f = vdupq_n_u8((uint8_t)fp), sp = vld1q_u8(spread), bt = vld1q_u8(bits);
    uint8x16_t acc = vdupq_n_u8(0);
    for (int k = 0; k < 3; k++) {
        uint8x16_t m16 = vqtbl1q_u8(vreinterpretq_u8_u64(vdupq_n_u64((m >> (16 * k)) & 0xffffu)), sp);
        uint8x16_t in = vtstq_u8(m16, bt);
        acc = vorrq_u8(acc, vandq_u8(in, vceqq_u8(vld1q_u8(blk + 16 + 16 * k), f)));
    }
    return vmaxvq_u8(acc) != 0;
}

#define VQF_BLOCK_HAS vqf_block_has_neon
#include "vqf_loop.h"

/* Inserts and deletes keep the scalar table's (neon's init runs on it): AArch64 has no pdep,
 * so the select is the same portable one, and the slot shifts are a few word operations. */
void fl_vqf_kernels_init_neon(fl_kernel_table *t) {
    t->vqf.contains = vqf_contains;
    t->vqf.contains1 = vqf_contains_one;
}
