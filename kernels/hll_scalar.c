/*
 * HyperLogLog reference kernels (the scalar table's hll module). Every other ISA's hll
 * kernel must give exactly these results (tests/checkkernels/check_hll.c).
 */
#include <stdint.h>
#include <string.h>

#include "hll_probe.h"
#include "kernels.h"

static int fl_hll_add_scalar(uint8_t *regs, uint32_t p, const uint64_t *hashes, size_t n) {
    int grew = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t h = fl_hll_load64((const unsigned char *)hashes + 8 * i);
        uint32_t idx = fl_hll_index(h, p);
        uint8_t r = fl_hll_rank(h, p);
        if (r > regs[idx]) {
            regs[idx] = r;
            grew = 1;
        }
    }
    return grew;
}

/* Four partial histograms: consecutive equal registers (the common case, most registers
 * sit within a few values of each other) would otherwise serialise on one counter's
 * load-increment-store. */
static void fl_hll_histo_scalar(const uint8_t *regs, size_t m, uint32_t hist[64]) {
    uint32_t part[4][64];
    memset(part, 0, sizeof part);
    for (size_t i = 0; i < m; i += 8) {
        uint64_t w = fl_hll_load64(regs + i);
        part[0][w & 63]++;
        part[1][(w >> 8) & 63]++;
        part[2][(w >> 16) & 63]++;
        part[3][(w >> 24) & 63]++;
        part[0][(w >> 32) & 63]++;
        part[1][(w >> 40) & 63]++;
        part[2][(w >> 48) & 63]++;
        part[3][(w >> 56) & 63]++;
    }
    for (int v = 0; v < 64; v++) hist[v] += part[0][v] + part[1][v] + part[2][v] + part[3][v];
}

static void fl_hll_max_scalar(uint8_t *dst, const uint8_t *src, size_t m) {
    for (size_t i = 0; i < m; i++)
        if (src[i] > dst[i]) dst[i] = src[i];
}

static void fl_hll_murmur8_scalar(const uint64_t *keys, size_t n, uint64_t seed,
                                  uint64_t *out) {
    for (size_t i = 0; i < n; i++) {
        uint64_t h = fl_murmur64a_u64(fl_hll_load64((const unsigned char *)keys + 8 * i), seed);
        memcpy((unsigned char *)out + 8 * i, &h, 8);
    }
}

void fl_hll_kernels_init_scalar(fl_kernel_table *t) {
    t->hll.add = fl_hll_add_scalar;
    t->hll.histo = fl_hll_histo_scalar;
    t->hll.max = fl_hll_max_scalar;
    t->hll.murmur8 = fl_hll_murmur8_scalar;
}
