/*
 * HyperLogLog kernels, NEON: the hll module's entries of the neon table.
 *
 * add: fl_hll_add_windowed (hll_probe.h): NEON has no 64-bit count of trailing zeros (vclz
 * stops at 32-bit lanes) and no gather, so the rank and the register access are scalar (rbit
 * + clz on AArch64); the gain over the reference is the branch-free load-max-store while the
 * sketch is young. The registers equal the scalar loop's (max is order-free).
 * max: vmaxq_u8, 16 registers per step (m = 2^p >= 16 is a multiple of 16).
 * murmur8 and histo stay scalar: NEON has no 64 x 64 multiply (a vmull_u32 emulation costs
 * more than AArch64's one-per-cycle scalar mul), and the histogram is the reference's
 * four-table loop.
 */
#include "neon_common.h"
#include "hll_probe.h"

static int fl_hll_add_neon(uint8_t *regs, uint32_t p, const uint64_t *hashes, size_t n) {
    return fl_hll_add_windowed(regs, p, hashes, n);
}

static void fl_hll_max_neon(uint8_t *dst, const uint8_t *src, size_t m) {
    size_t i = 0;
    for (; i + 16 <= m; i += 16) vst1q_u8(dst + i, vmaxq_u8(vld1q_u8(dst + i), vld1q_u8(src + i)));
    for (; i < m; i++)
        if (src[i] > dst[i]) dst[i] = src[i];
}

void fl_hll_kernels_init_neon(fl_kernel_table *t) {
    t->hll.add = fl_hll_add_neon;
    t->hll.max = fl_hll_max_neon;
}
