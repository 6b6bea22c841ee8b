/*
 * NEON kernels of the cuckoo module: batch lookups of every fingerprint width, 4 keys per
 * iteration. Native on aarch64; on x86 the same source builds through SIMDe's NEON emulation
 * at baseline flags (neon_common.h). NEON has no gather, so bucket loads are scalar and the
 * vectors do the fingerprint compares. Every kernel computes exactly the buckets of probe.h;
 * the tails run the scalar lookups (kernels/cuckoo_scalar.c). Filters larger than L2 get
 * software prefetching PF_DIST keys ahead.
 */
#include "neon_common.h"
#include "cuckoo_u64s.h"

/* ---- cuckoo ------------------------------------------------------------------------------ */

/* fp, i1, i2 of probe.h for 4 keys. */
FL_INLINE void cuckoo_index4(const uint64_t *hashes, size_t i, const fl_kview *f, uint32_t fp[4],
                             uint32_t i1[4], uint32_t i2[4]) {
    uint64_t h[4];
    memcpy(h, (const unsigned char *)hashes + 8 * i, 32);
    uint64x2_t h0 = vld1q_u64(h), h1 = vld1q_u64(h + 2);
    uint32x4_t lo = vcombine_u32(vmovn_u64(h0), vmovn_u64(h1));
    uint32x4_t hi = vcombine_u32(vshrn_n_u64(h0, 32), vshrn_n_u64(h1, 32));
    uint32x4_t b1 = reduce4(hi, f->units);
    uint32x4_t x = vaddq_u32(reduce4(lo, (1u << f->k) - 1u), vdupq_n_u32(1));
    uint32x4_t hf = reduce4(vmulq_n_u32(x, 0x5bd1e995u), f->units);
    /* (hf - i1) mod units: add units back where hf < i1. */
    uint32x4_t b2 = vaddq_u32(vsubq_u32(hf, b1), vandq_u32(vcltq_u32(hf, b1), vdupq_n_u32(f->units)));
    vst1q_u32(fp, x);
    vst1q_u32(i1, b1);
    vst1q_u32(i2, b2);
}

FL_INLINE uint32_t load_u32(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}
FL_INLINE uint64_t load_u64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* Per 64-bit lane, all ones iff a 12-bit slot of bucket word w equals the lane's fingerprint
 * copied into all 4 slots (r): filterlab_inline.h's fl_cuckoo12_has, 2 keys at a time (the
 * loaded 8 bytes' top 2, the next bucket's, only reach bits the HI mask drops). */
FL_INLINE uint64x2_t cuckoo12_has(uint64x2_t w, uint64x2_t r) {
    uint64x2_t x = veorq_u64(w, r);
    uint64x2_t z = vbicq_u64(vsubq_u64(x, vdupq_n_u64(FL_CUCKOO12_LO)), x);
    return vtstq_u64(z, vdupq_n_u64(FL_CUCKOO12_HI));
}

/* Per 64-bit lane, all ones iff a slot of semi-sorted bucket word w (fingerprints of `bits`
 * bits, 11 or 13) holds the lane's fingerprint, whose low bits (rlo) and nibble (rnib) are
 * copied into all 4 lanes of bits - 4 bits, t being the table's word of w's rank:
 * filterlab_inline.h's fl_cuckoo_ss_has, 2 keys at a time. */
FL_INLINE uint64x2_t cuckoo_ss_has(uint64x2_t w, uint64x2_t t, uint64x2_t rlo, uint64x2_t rnib,
                                   const int bits) {
    uint64x2_t y = vorrq_u64(veorq_u64(vshrq_n_u64(w, 12), rlo), veorq_u64(t, rnib));
    uint64x2_t z = vbicq_u64(vsubq_u64(y, vdupq_n_u64(FL_CUCKOO_SS_LO(bits - 4))), y);
    return vtstq_u64(z, vdupq_n_u64(FL_CUCKOO_SS_HI(bits - 4)));
}

FL_INLINE size_t cuckoo_contains(const fl_kview *f, const uint64_t *hashes, size_t n,
                                 uint8_t *out, const int prefetch, const int bits) {
    const uint8_t *base = (const uint8_t *)f->data;
    const size_t bb = fl_cuckoo_bucket_bytes((uint32_t)bits);
    size_t i = 0, pos = 0;
    for (; i + 4 <= n; i += 4) {
        uint32_t fp[4], i1[4], i2[4];
        if (prefetch && i + PF_DIST + 4 <= n) {
            cuckoo_index4(hashes, i + PF_DIST, f, fp, i1, i2);
            for (int j = 0; j < 4; j++) {
                pf_read(base + bb * i1[j]);
                pf_read(base + bb * i2[j]);
            }
        }
        cuckoo_index4(hashes, i, f, fp, i1, i2);
        uint32_t hit[4];
        if (bits == 12) {
            for (int j = 0; j < 4; j += 2) {
                /* Two keys: bucket b's 8-byte load at byte 6b, fingerprint in all 4 slots. */
                uint64_t w1[2] = {load_u64(base + 6 * (size_t)i1[j]), load_u64(base + 6 * (size_t)i1[j + 1])};
                uint64_t w2[2] = {load_u64(base + 6 * (size_t)i2[j]), load_u64(base + 6 * (size_t)i2[j + 1])};
                uint64_t r[2] = {fp[j] * FL_CUCKOO12_LO, fp[j + 1] * FL_CUCKOO12_LO};
                uint64x2_t rv = vld1q_u64(r);
                uint64x2_t any = vorrq_u64(cuckoo12_has(vld1q_u64(w1), rv), cuckoo12_has(vld1q_u64(w2), rv));
                hit[j] = (uint32_t)(vgetq_lane_u64(any, 0) & 1);
                hit[j + 1] = (uint32_t)(vgetq_lane_u64(any, 1) & 1);
            }
        } else if (bits == 11 || bits == 13) {
            const uint32_t *tab = fl_cuckoo_ss_table((uint32_t)bits);
            const uint32_t low = (uint32_t)bits - 4, mask = (1u << low) - 1u;
            const uint64_t one = FL_CUCKOO_SS_LO(bits - 4);
            for (int j = 0; j < 4; j += 2) {
                /* Two keys: each bucket's 8-byte load at byte bb * b and its table word (NEON
                 * has no gather: scalar loads), each fingerprint's parts in all 4 lanes. */
                uint64_t w1[2] = {load_u64(base + bb * i1[j]), load_u64(base + bb * i1[j + 1])};
                uint64_t w2[2] = {load_u64(base + bb * i2[j]), load_u64(base + bb * i2[j + 1])};
                uint64_t t1[2] = {tab[w1[0] & 0xfffu], tab[w1[1] & 0xfffu]};
                uint64_t t2[2] = {tab[w2[0] & 0xfffu], tab[w2[1] & 0xfffu]};
                uint64_t rl[2] = {(fp[j] & mask) * one, (fp[j + 1] & mask) * one};
                uint64_t rn[2] = {(fp[j] >> low) * one, (fp[j + 1] >> low) * one};
                uint64x2_t rlo = vld1q_u64(rl), rnib = vld1q_u64(rn);
                uint64x2_t any = vorrq_u64(cuckoo_ss_has(vld1q_u64(w1), vld1q_u64(t1), rlo, rnib, bits),
                                           cuckoo_ss_has(vld1q_u64(w2), vld1q_u64(t2), rlo, rnib, bits));
                hit[j] = (uint32_t)(vgetq_lane_u64(any, 0) & 1);
                hit[j + 1] = (uint32_t)(vgetq_lane_u64(any, 1) & 1);
            }
        } else if (bits == 16) {
            for (int j = 0; j < 4; j += 2) {
                /* Two keys: each fingerprint copied into its 4 16-bit slots. */
                uint64_t w1[2] = {load_u64(base + 8 * (size_t)i1[j]), load_u64(base + 8 * (size_t)i1[j + 1])};
                uint64_t w2[2] = {load_u64(base + 8 * (size_t)i2[j]), load_u64(base + 8 * (size_t)i2[j + 1])};
                uint16x8_t r = vcombine_u16(vdup_n_u16((uint16_t)fp[j]), vdup_n_u16((uint16_t)fp[j + 1]));
                uint16x8_t eq = vorrq_u16(vceqq_u16(vreinterpretq_u16_u64(vld1q_u64(w1)), r),
                                          vceqq_u16(vreinterpretq_u16_u64(vld1q_u64(w2)), r));
                uint64x2_t any = vtstq_u64(vreinterpretq_u64_u16(eq), vreinterpretq_u64_u16(eq));
                hit[j] = (uint32_t)(vgetq_lane_u64(any, 0) & 1);
                hit[j + 1] = (uint32_t)(vgetq_lane_u64(any, 1) & 1);
            }
        } else {
            uint32_t w1[4], w2[4];
            for (int j = 0; j < 4; j++) {
                w1[j] = load_u32(base + 4 * (size_t)i1[j]);
                w2[j] = load_u32(base + 4 * (size_t)i2[j]);
            }
            /* Each fingerprint copied into its 4 byte slots. */
            uint8x16_t r = vreinterpretq_u8_u32(vmulq_n_u32(vld1q_u32(fp), 0x01010101u));
            uint8x16_t eq = vorrq_u8(vceqq_u8(vreinterpretq_u8_u32(vld1q_u32(w1)), r),
                                     vceqq_u8(vreinterpretq_u8_u32(vld1q_u32(w2)), r));
            uint32x4_t any = vtstq_u32(vreinterpretq_u32_u8(eq), vreinterpretq_u32_u8(eq));
            vst1q_u32(hit, vandq_u32(any, vdupq_n_u32(1)));
        }
        for (int j = 0; j < 4; j++) {
            uint32_t r = hit[j];
            if (!r && f->stash_count) r = (uint32_t)fl_cuckoo_stash_has(f, i1[j], i2[j], fp[j]);
            out[i + (size_t)j] = (uint8_t)r;
            pos += r;
        }
    }
    pos += cuckoo_scalar(bits)(f, hashes + i, n - i, out + i);
    return pos;
}

FL_LOOKUP_BY_SIZE(fl_contains_cuckoo8_neon, 4, cuckoo_contains, 8)

FL_LOOKUP_BY_SIZE(fl_contains_cuckoo11_neon, 5, cuckoo_contains, 11)

FL_LOOKUP_BY_SIZE(fl_contains_cuckoo12_neon, 6, cuckoo_contains, 12)

FL_LOOKUP_BY_SIZE(fl_contains_cuckoo13_neon, 6, cuckoo_contains, 13)

FL_LOOKUP_BY_SIZE(fl_contains_cuckoo16_neon, 8, cuckoo_contains, 16)

FL_CUCKOO_U64S_BY_BLOCKS(fl_contains_u64s_cuckoo8_neon, fl_contains_cuckoo8_neon)
FL_CUCKOO_U64S_BY_BLOCKS(fl_contains_u64s_cuckoo11_neon, fl_contains_cuckoo11_neon)
FL_CUCKOO_U64S_BY_BLOCKS(fl_contains_u64s_cuckoo12_neon, fl_contains_cuckoo12_neon)
FL_CUCKOO_U64S_BY_BLOCKS(fl_contains_u64s_cuckoo13_neon, fl_contains_cuckoo13_neon)
FL_CUCKOO_U64S_BY_BLOCKS(fl_contains_u64s_cuckoo16_neon, fl_contains_cuckoo16_neon)

void fl_cuckoo_kernels_init_neon(fl_kernel_table *t) {
    t->cuckoo.contains[FL_CUCKOO_FP8] = fl_contains_cuckoo8_neon;
    t->cuckoo.contains[FL_CUCKOO_FP11] = fl_contains_cuckoo11_neon;
    t->cuckoo.contains[FL_CUCKOO_FP12] = fl_contains_cuckoo12_neon;
    t->cuckoo.contains[FL_CUCKOO_FP13] = fl_contains_cuckoo13_neon;
    t->cuckoo.contains[FL_CUCKOO_FP16] = fl_contains_cuckoo16_neon;
    t->cuckoo.contains_u64s[FL_CUCKOO_FP8] = fl_contains_u64s_cuckoo8_neon;
    t->cuckoo.contains_u64s[FL_CUCKOO_FP11] = fl_contains_u64s_cuckoo11_neon;
    t->cuckoo.contains_u64s[FL_CUCKOO_FP12] = fl_contains_u64s_cuckoo12_neon;
    t->cuckoo.contains_u64s[FL_CUCKOO_FP13] = fl_contains_u64s_cuckoo13_neon;
    t->cuckoo.contains_u64s[FL_CUCKOO_FP16] = fl_contains_u64s_cuckoo16_neon;
}
