/*
 * NEON kernels of the bloom module (AArch64 Advanced SIMD). Native on aarch64; on x86 the
 * same source builds through SIMDe's NEON emulation at baseline flags, so the kernel runs
 * (correct, not fast) on any x86 and is checked there too (dispatch marks it emulated).
 *
 * Every kernel computes exactly the positions of probe.h; the tails run the scalar kernels of
 * kernels/bloom_scalar.c. NEON has no gather, so unit loads are scalar and the vectors do the
 * per-key bit math (8 or 16 salt products at once) and the compares. Filters larger than L2
 * get software prefetching PF_DIST keys ahead (memory-level parallelism).
 */
#include "neon_common.h"

/* ---- split256 --------------------------------------------------------------------------- */

FL_INLINE void split256_bits(uint32_t lo, uint32x4_t s0, uint32x4_t s1, uint32x4_t *b0,
                             uint32x4_t *b1) {
    uint32x4_t x = vdupq_n_u32(lo);
    *b0 = bit32(vshrq_n_u32(vmulq_u32(x, s0), 27));
    *b1 = bit32(vshrq_n_u32(vmulq_u32(x, s1), 27));
}

FL_INLINE size_t split256_contains(const fl_kview *f, const uint64_t *hashes, size_t n,
                                   uint8_t *out, const int prefetch) {
    const uint32_t *base = (const uint32_t *)f->data;
    const uint32x4_t s0 = vld1q_u32(FL_SALT), s1 = vld1q_u32(FL_SALT + 4);
    size_t pos = 0;
    for (size_t i = 0; i < n; i++) {
        if (prefetch && i + PF_DIST < n)
            pf_read(base + 8 * (size_t)unit_of(fl_hash_at(hashes, i + PF_DIST), f->units));
        uint64_t h = fl_hash_at(hashes, i);
        const uint32_t *b = base + 8 * (size_t)unit_of(h, f->units);
        uint32x4_t m0, m1;
        split256_bits((uint32_t)h, s0, s1, &m0, &m1);
        /* vbic(m, w) = m & ~w: the mask bits the block lacks. */
        uint32x4_t miss = vorrq_u32(vbicq_u32(m0, vld1q_u32(b)), vbicq_u32(m1, vld1q_u32(b + 4)));
        int r = all_zero(miss);
        out[i] = (uint8_t)r;
        pos += (size_t)r;
    }
    return pos;
}

FL_LOOKUP_BY_SIZE(fl_contains_split256_neon, 32, split256_contains)

static void fl_insert_split256_neon(const fl_kview *f, const uint64_t *hashes, size_t n) {
    uint32_t *base = (uint32_t *)f->data;
    const uint32x4_t s0 = vld1q_u32(FL_SALT), s1 = vld1q_u32(FL_SALT + 4);
    const int prefetch = (size_t)f->units * 32 >= PF_MIN_BYTES;
    for (size_t i = 0; i < n; i++) {
        if (prefetch && i + PF_DIST < n)
            pf_write(base + 8 * (size_t)unit_of(fl_hash_at(hashes, i + PF_DIST), f->units));
        uint64_t h = fl_hash_at(hashes, i);
        uint32_t *b = base + 8 * (size_t)unit_of(h, f->units);
        uint32x4_t m0, m1;
        split256_bits((uint32_t)h, s0, s1, &m0, &m1);
        vst1q_u32(b, vorrq_u32(vld1q_u32(b), m0));
        vst1q_u32(b + 4, vorrq_u32(vld1q_u32(b + 4), m1));
    }
}

/* ---- block512 --------------------------------------------------------------------------- */

/* For 4 salt products t: the block's bits missing. Bit p = t >> 23 sits in dword t >> 28 at
 * bit p & 31; tbl (vqtbl4q_u8 over the 64-byte block) fetches each lane's dword by its four
 * byte indices 4d..4d+3. */
FL_INLINE uint32x4_t block512_missing(uint32x4_t t, uint8x16x4_t blk) {
    uint32x4_t d = vshrq_n_u32(t, 28);
    uint32x4_t idx = vaddq_u32(vmulq_n_u32(d, 0x04040404u), vdupq_n_u32(0x03020100u));
    uint32x4_t w = vreinterpretq_u32_u8(vqtbl4q_u8(blk, vreinterpretq_u8_u32(idx)));
    return vbicq_u32(bit32(vshrq_n_u32(t, 23)), w);
}

FL_INLINE size_t block512_contains(const fl_kview *f, const uint64_t *hashes, size_t n,
                                   uint8_t *out, const int prefetch) {
    const uint8_t *base = (const uint8_t *)f->data;
    const uint32_t k = f->k, groups = (k + 3) / 4;
    uint32x4_t salt[4], lanes[4];
    for (uint32_t g = 0; g < 4; g++) {
        salt[g] = vld1q_u32(FL_SALT + 4 * g);
        /* Lanes of salts < k. */
        const uint32_t j[4] = {4 * g, 4 * g + 1, 4 * g + 2, 4 * g + 3};
        lanes[g] = vcltq_u32(vld1q_u32(j), vdupq_n_u32(k));
    }
    size_t pos = 0;
    for (size_t i = 0; i < n; i++) {
        if (prefetch && i + PF_DIST < n)
            pf_read(base + 64 * (size_t)unit_of(fl_hash_at(hashes, i + PF_DIST), f->units));
        uint64_t h = fl_hash_at(hashes, i);
        uint8x16x4_t blk = load_block(base + 64 * (size_t)unit_of(h, f->units));
        uint32x4_t x = vdupq_n_u32((uint32_t)h), miss = vdupq_n_u32(0);
        for (uint32_t g = 0; g < groups; g++)
            miss = vorrq_u32(miss, vandq_u32(block512_missing(vmulq_u32(x, salt[g]), blk), lanes[g]));
        int r = all_zero(miss);
        out[i] = (uint8_t)r;
        pos += (size_t)r;
    }
    return pos;
}

FL_LOOKUP_BY_SIZE(fl_contains_block512_neon, 64, block512_contains)

/* Insert: each bit ORed straight into its block word (a mask assembled in memory and
 * reloaded as vectors would wait for the stores to commit), the positions from 4-lane
 * multiplies; the batch kernel's gain is the write prefetch, issued at every size because
 * committing stores to lines not in L1 is what limits inserts. */
static void fl_insert_block512_neon(const fl_kview *f, const uint64_t *hashes, size_t n) {
    uint8_t *base = (uint8_t *)f->data;
    const uint32_t k = f->k;
    for (size_t i = 0; i < n; i++) {
        if (i + PF_DIST < n)
            pf_write(base + 64 * (size_t)unit_of(fl_hash_at(hashes, i + PF_DIST), f->units));
        uint64_t h = fl_hash_at(hashes, i);
        uint64_t *b = (uint64_t *)(void *)(base + 64 * (size_t)unit_of(h, f->units));
        uint32x4_t x = vdupq_n_u32((uint32_t)h);
        uint32_t p[16];
        for (uint32_t g = 0; g < (k + 3) / 4; g++)
            vst1q_u32(p + 4 * g, vshrq_n_u32(vmulq_u32(x, vld1q_u32(FL_SALT + 4 * g)), 23));
        for (uint32_t s = 0; s < k; s++) b[p[s] >> 6] |= 1ull << (p[s] & 63);
    }
}

/* ---- reg64 ------------------------------------------------------------------------------- */

/* Masks of 4 keys: p = (h32 * salt) >> 26 in 0..63 as two 32-bit halves. vshl by p gives 0
 * for p >= 32, and by p - 32 (a right shift when negative) gives 0 for p < 32. */
FL_INLINE void reg64_masks4(const uint64_t *hashes, size_t i, uint32_t k, uint64_t m[4]) {
    uint64_t h[4];
    memcpy(h, (const unsigned char *)hashes + 8 * i, 32);
    uint32x4_t lo = vcombine_u32(vmovn_u64(vld1q_u64(h)), vmovn_u64(vld1q_u64(h + 2)));
    const int32x4_t c32 = vdupq_n_s32(32);
    const uint32x4_t one = vdupq_n_u32(1);
    uint32x4_t ml = vdupq_n_u32(0), mh = vdupq_n_u32(0);
    for (uint32_t s = 0; s < k; s++) {
        int32x4_t p = vreinterpretq_s32_u32(vshrq_n_u32(vmulq_n_u32(lo, FL_SALT[s]), 26));
        ml = vorrq_u32(ml, vshlq_u32(one, p));
        mh = vorrq_u32(mh, vshlq_u32(one, vsubq_s32(p, c32)));
    }
    /* Interleave halves into 64-bit masks: keys 0,1 then 2,3. */
    vst1q_u64(m, vreinterpretq_u64_u32(vzip1q_u32(ml, mh)));
    vst1q_u64(m + 2, vreinterpretq_u64_u32(vzip2q_u32(ml, mh)));
}

FL_INLINE size_t reg64_contains(const fl_kview *f, const uint64_t *hashes, size_t n,
                                uint8_t *out, const int prefetch) {
    const uint64_t *words = (const uint64_t *)f->data;
    size_t i = 0, pos = 0;
    for (; i + 4 <= n; i += 4) {
        if (prefetch && i + PF_DIST + 4 <= n)
            for (size_t j = 0; j < 4; j++) pf_read(words + unit_of(fl_hash_at(hashes, i + PF_DIST + j), f->units));
        uint64_t m[4];
        reg64_masks4(hashes, i, f->k, m);
        for (size_t j = 0; j < 4; j++) {
            uint64_t w = words[unit_of(fl_hash_at(hashes, i + j), f->units)];
            int r = (w & m[j]) == m[j];
            out[i + j] = (uint8_t)r;
            pos += (size_t)r;
        }
    }
    pos += fl_contains_reg64_scalar(f, hashes + i, n - i, out + i);
    return pos;
}

FL_LOOKUP_BY_SIZE(fl_contains_reg64_neon, 8, reg64_contains)

static void fl_insert_reg64_neon(const fl_kview *f, const uint64_t *hashes, size_t n) {
    uint64_t *words = (uint64_t *)f->data;
    const int prefetch = (size_t)f->units * 8 >= PF_MIN_BYTES;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        if (prefetch && i + PF_DIST + 4 <= n)
            for (size_t j = 0; j < 4; j++) pf_write(words + unit_of(fl_hash_at(hashes, i + PF_DIST + j), f->units));
        uint64_t m[4];
        reg64_masks4(hashes, i, f->k, m);
        for (size_t j = 0; j < 4; j++) words[unit_of(fl_hash_at(hashes, i + j), f->units)] |= m[j];
    }
    fl_insert_reg64_scalar(f, hashes + i, n - i);
}

/* ---- classic ----------------------------------------------------------------------------- */

/* neon_common.h's classic-layout loop testing bits (counters = 0). */
FL_LOOKUP_BY_SIZE(fl_contains_classic_neon, 8, classic_layout_contains, 0,
                  fl_contains_classic_scalar)

void fl_bloom_kernels_init_neon(fl_kernel_table *t) {
    t->bloom.contains[FL_BLOOM_CLASSIC] = fl_contains_classic_neon;
    t->bloom.contains[FL_BLOOM_BLOCK512] = fl_contains_block512_neon;
    t->bloom.contains[FL_BLOOM_SPLIT256] = fl_contains_split256_neon;
    t->bloom.contains[FL_BLOOM_REG64] = fl_contains_reg64_neon;
    t->bloom.insert[FL_BLOOM_BLOCK512] = fl_insert_block512_neon;
    t->bloom.insert[FL_BLOOM_SPLIT256] = fl_insert_split256_neon;
    t->bloom.insert[FL_BLOOM_REG64] = fl_insert_reg64_neon;
}
