/*
 * The cms module's reference kernels: key by key, in order, with kernels/cms_probe.h's math.
 * Every other ISA's cms kernels are checked against these (tests/checkkernels/check_cms.c).
 */
#include "kernels.h"
#include "cms_probe.h"

static void cms_update_scalar(uint32_t *c, uint32_t width, uint32_t depth,
                              const uint64_t *hashes, const uint32_t *incs, size_t n) {
    for (size_t i = 0; i < n; i++) fl_cms_update1(c, width, depth, fl_hash_at(hashes, i), incs ? incs[i] : 1);
}

static void cms_update_nosat_scalar(uint32_t *c, uint32_t width, uint32_t depth,
                                    const uint64_t *hashes, const uint32_t *incs, size_t n) {
    for (size_t i = 0; i < n; i++) {
        uint64_t h = fl_hash_at(hashes, i), g = h, step = fl_cms_step(h);
        uint32_t inc = incs ? incs[i] : 1;
        for (uint32_t r = 0; r < depth; r++, g += step) c[fl_cms_index(g, r, width)] += inc;
    }
}

static void cms_update_cons_scalar(uint32_t *c, uint32_t width, uint32_t depth,
                                   const uint64_t *hashes, const uint32_t *incs, size_t n) {
    for (size_t i = 0; i < n; i++)
        fl_cms_update1_cons(c, width, depth, fl_hash_at(hashes, i), incs ? incs[i] : 1);
}

static void cms_query_scalar(const uint32_t *c, uint32_t width, uint32_t depth,
                             const uint64_t *hashes, size_t n, uint32_t *out) {
    for (size_t i = 0; i < n; i++) out[i] = fl_cms_query1(c, width, depth, fl_hash_at(hashes, i));
}

void fl_cms_kernels_init_scalar(fl_kernel_table *t) {
    t->cms.update = cms_update_scalar;
    t->cms.update_nosat = cms_update_nosat_scalar;
    t->cms.update_cons = cms_update_cons_scalar;
    t->cms.query = cms_query_scalar;
}
