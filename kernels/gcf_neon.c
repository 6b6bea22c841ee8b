/*
 * The gcf module's NEON kernel: one key at a time, its two bucket words loaded as one
 * 8 x 16-bit vector, include/filterlab_gcf.h's slot test in 16-bit lanes (fl_gcf_lane_match:
 * subtract, two XORs, bit clear), one vceqq against zero and a horizontal max. Native on aarch64, through SIMDe on x86 (checked there, never
 * picked automatically). The prefetch policy and key loop are kernels/gcf_loop.h's.
 */
#include "neon_common.h"
#include "gcf_loop.h"

FL_INLINE int gcf_probe_neon(const gcf_shape *s, uint64_t h) {
    size_t i1, i2;
    fl_gcf_buckets(&s->geom, h, &i1, &i2);
    uint16x8_t x = vreinterpretq_u16_u64(vcombine_u64(vld1_u64(s->b + i1), vld1_u64(s->b + i2)));
    uint16x8_t m = veorq_u16(x, vsubq_u16(x, vdupq_n_u16(0x100))); /* fl_gcf_lane_match */
    uint16x8_t d = vbicq_u16(veorq_u16(x, vdupq_n_u16((uint16_t)fl_gcf_pattern(&s->geom, h))), m);
    return vmaxvq_u16(vceqq_u16(d, vdupq_n_u16(0))) != 0;
}

FL_INLINE size_t gcf_contains_loop(const fl_kview *f, const uint64_t *hashes, size_t n,
                                   uint8_t *out, const int prefetch) {
    gcf_shape s = gcf_shape_of(f);
    size_t pos = 0;
    for (size_t i = 0; i < n; i++) {
        if (prefetch && i + PF_DIST < n) {
            gcf_prefetch(&s, fl_hash_at(hashes, i + PF_DIST));
        }
        int r = gcf_probe_neon(&s, fl_hash_at(hashes, i));
        out[i] = (uint8_t)r;
        pos += (size_t)r;
    }
    return pos;
}

FL_LOOKUP_BY_SIZE(gcf_contains, 8, gcf_contains_loop)

void fl_gcf_kernels_init_neon(fl_kernel_table *t) {
    t->gcf.contains = gcf_contains;
}
