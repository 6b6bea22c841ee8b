/*
 * Scalar kernels of the cuckoo module: the batch lookups of every fingerprint width, the
 * reference every SIMD cuckoo lookup must match, on probe.h's buckets (fl_cuckoo_probe
 * checks both buckets and the stash). Plain C at baseline flags.
 */
#include "scalar_common.h"
#include "cuckoo_u64s.h"

static inline const void *cuckoo_at(const fl_kview *f, uint64_t h) {
    return (const uint8_t *)f->data + fl_cuckoo_bucket_bytes(f->k) * fl_cuckoo_bucket(h, f->units);
}

FL_SCALAR_CONTAINS(cuckoo8, cuckoo_at, fl_cuckoo_probe)
FL_SCALAR_CONTAINS(cuckoo11, cuckoo_at, fl_cuckoo_probe)
FL_SCALAR_CONTAINS(cuckoo12, cuckoo_at, fl_cuckoo_probe)
FL_SCALAR_CONTAINS(cuckoo13, cuckoo_at, fl_cuckoo_probe)
FL_SCALAR_CONTAINS(cuckoo16, cuckoo_at, fl_cuckoo_probe)

FL_CUCKOO_U64S_BY_BLOCKS(fl_contains_u64s_cuckoo8_scalar, fl_contains_cuckoo8_scalar)
FL_CUCKOO_U64S_BY_BLOCKS(fl_contains_u64s_cuckoo11_scalar, fl_contains_cuckoo11_scalar)
FL_CUCKOO_U64S_BY_BLOCKS(fl_contains_u64s_cuckoo12_scalar, fl_contains_cuckoo12_scalar)
FL_CUCKOO_U64S_BY_BLOCKS(fl_contains_u64s_cuckoo13_scalar, fl_contains_cuckoo13_scalar)
FL_CUCKOO_U64S_BY_BLOCKS(fl_contains_u64s_cuckoo16_scalar, fl_contains_cuckoo16_scalar)

void fl_cuckoo_kernels_init_scalar(fl_kernel_table *t) {
    t->cuckoo.contains[FL_CUCKOO_FP8] = fl_contains_cuckoo8_scalar;
    t->cuckoo.contains[FL_CUCKOO_FP11] = fl_contains_cuckoo11_scalar;
    t->cuckoo.contains[FL_CUCKOO_FP12] = fl_contains_cuckoo12_scalar;
    t->cuckoo.contains[FL_CUCKOO_FP13] = fl_contains_cuckoo13_scalar;
    t->cuckoo.contains[FL_CUCKOO_FP16] = fl_contains_cuckoo16_scalar;
    t->cuckoo.contains_u64s[FL_CUCKOO_FP8] = fl_contains_u64s_cuckoo8_scalar;
    t->cuckoo.contains_u64s[FL_CUCKOO_FP11] = fl_contains_u64s_cuckoo11_scalar;
    t->cuckoo.contains_u64s[FL_CUCKOO_FP12] = fl_contains_u64s_cuckoo12_scalar;
    t->cuckoo.contains_u64s[FL_CUCKOO_FP13] = fl_contains_u64s_cuckoo13_scalar;
    t->cuckoo.contains_u64s[FL_CUCKOO_FP16] = fl_contains_u64s_cuckoo16_scalar;
}
