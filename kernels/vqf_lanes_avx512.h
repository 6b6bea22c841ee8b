/*
 * The vqf module's AVX-512 batch lookup with eight keys in the lanes of a vector
 * (vqf_contains_lanes and its lanes_* helpers), shared by the two files that compile it:
 * kernels/vqf_avx512.c (the avx512 table, AVX-512 F/BW/VL/DQ) and kernels/vqf_avx512_popcnt.c
 * (the avx512-popcnt candidate, the same code built with -mavx512vpopcntdq -mavx512bitalg).
 * The only differences are the two popcounts below, picked by the compiler's feature macros:
 *  - per byte (lanes_byte_popcount, in the select): BITALG's vpopcntb, else a nibble table
 *    (two vpshufb, two ands, a shift and an add); and the select's count of the chosen
 *    byte's bits up to each position, vpopcntb under prefix masks instead of spreading the
 *    bits one to a byte and summing them with vpmullq;
 *  - per qword (lanes_popcount64, popcount(lo) in lanes_bucket_mask): VPOPCNTDQ's vpopcntq,
 *    else the byte popcounts summed by vpsadbw.
 * Both answer the same numbers bit for bit, so the two tables give the same answers
 * (tests/checkkernels/check_vqf.c checks both against scalar). Intel SDM vol. 2C, VPOPCNT
 * and VPOPCNTB/W; CPUID.(7,0):ECX bits 14 (AVX512_VPOPCNTDQ) and 12 (AVX512_BITALG).
 *
 * The including file has included kernels.h, probe.h and x86_common.h (FL_INLINE, pf_read).
 */
#ifndef FL_VQF_LANES_AVX512_H
#define FL_VQF_LANES_AVX512_H

#if !defined(__AVX512BW__) || !defined(__AVX512DQ__) || !defined(__BMI2__)
#error "kernels/vqf_lanes_avx512.h needs -mavx512bw -mavx512dq -mbmi2"
#endif

/* ---- batch lookups with eight keys in the lanes of a vector ----------------------------
 * Everything but the 64-byte compare runs on eight keys at once, one per 64-bit lane: the
 * hash fields and both blocks (vpmullq, vpmuludq), the bucket's slots from the metadata and
 * the test of the compare's mask against them. The per-key part is a short pass that loads
 * each block, compares its 48 slots with the key's fingerprint (one vpcmpeqb into a mask
 * register) and keeps the mask and the block's 16 metadata bytes for the vector pass. */

/* Byte k of a qword lane, copied to all 8 bytes of that lane: vpshufb's indices 0 (k = 0)
 * or 8 (the lane's other qword) per 128-bit lane. */
FL_INLINE __m512i lanes_bcast_byte0(__m512i x) {
    const __m512i idx = _mm512_set_epi64(0x0808080808080808, 0, 0x0808080808080808, 0,
                                         0x0808080808080808, 0, 0x0808080808080808, 0);
    return _mm512_shuffle_epi8(x, idx);
}

/* Per byte, its set bits: BITALG's vpopcntb, else a nibble table (vpshufb: AVX-512BW). */
FL_INLINE __m512i lanes_byte_popcount(__m512i w) {
#if defined(__AVX512BITALG__)
    return _mm512_popcnt_epi8(w);
#else
    const __m512i lut = _mm512_broadcast_i32x4(
        _mm_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4));
    const __m512i low = _mm512_set1_epi8(0x0f);
    return _mm512_add_epi8(_mm512_shuffle_epi8(lut, _mm512_and_si512(w, low)),
                           _mm512_shuffle_epi8(lut, _mm512_and_si512(_mm512_srli_epi64(w, 4), low)));
#endif
}

/* Per qword lane, its set bits: VPOPCNTDQ's vpopcntq, else the byte counts summed (vpsadbw). */
FL_INLINE __m512i lanes_popcount64(__m512i w) {
#if defined(__AVX512VPOPCNTDQ__)
    return _mm512_popcnt_epi64(w);
#else
    return _mm512_sad_epu8(lanes_byte_popcount(w), _mm512_setzero_si512());
#endif
}

/* Per qword lane, 128 times the number of its bytes i with pre[i] <= r[i] (r, pre < 128 per
 * byte): (r | 0x80) - pre keeps the byte's high bit exactly then, with no borrow out of the
 * byte; vpsadbw adds the high bits of the lane's 8 bytes. Vigna's "Broadword Implementation
 * of Rank/Select Queries" (2008) compare, per byte rather than across a word. */
FL_INLINE __m512i lanes_count_le(__m512i r, __m512i pre) {
    const __m512i h8 = _mm512_set1_epi8((char)0x80);
    __m512i le = _mm512_and_si512(_mm512_sub_epi8(_mm512_or_si512(r, h8), pre), h8);
    return _mm512_sad_epu8(le, _mm512_setzero_si512());
}

/* Per qword lane: the position of w's set bit of rank r (r <= 63), 64 or more when w has r
 * or fewer set bits: fl_vqf_select64's answer (the pdep form) in lanes. The byte holding it
 * from the bytes' inclusive prefix popcounts (vpmullq by 0x0101..01), then the bit in that
 * byte the same way from its bits spread one to a byte (with BITALG, counted under prefix
 * masks). */
FL_INLINE __m512i lanes_select64(__m512i w, __m512i r) {
    const __m512i l8 = _mm512_set1_epi64(0x0101010101010101);
    __m512i cum = _mm512_mullo_epi64(lanes_byte_popcount(w), l8); /* byte i: bits in 0..i */
    __m512i rb = lanes_bcast_byte0(r);
    __m512i sh = _mm512_srli_epi64(lanes_count_le(rb, cum), 4); /* 8 * the byte's index */
    /* The bits below that byte, and the byte (both 0 when sh = 64: no such bit). */
    __m512i below = lanes_bcast_byte0(_mm512_srlv_epi64(_mm512_slli_epi64(cum, 8), sh));
    __m512i v = lanes_bcast_byte0(_mm512_srlv_epi64(w, sh));
#if defined(__AVX512BITALG__)
    /* Byte i: v's bits 0..i counted at once (vpopcntb under the mask (2 << i) - 1), no
     * vpmullq (3 uops on Intel's port 0). */
    const __m512i upto_i = _mm512_set1_epi64((long long)0xff7f3f1f0f070301ull);
    __m512i pre = _mm512_popcnt_epi8(_mm512_and_si512(v, upto_i));
#else
    const __m512i bit_i = _mm512_set1_epi64((long long)0x8040201008040201ull);
    __m512i bits = _mm512_min_epu8(_mm512_and_si512(v, bit_i), _mm512_set1_epi8(1));
    __m512i pre = _mm512_mullo_epi64(bits, l8); /* byte i: set bits of v in 0..i */
#endif
    __m512i bit = _mm512_srli_epi64(lanes_count_le(_mm512_sub_epi8(rb, below), pre), 7);
    return _mm512_add_epi64(sh, bit);
}

FL_INLINE __m512i lanes_blsi(__m512i x) {
    return _mm512_and_si512(x, _mm512_sub_epi64(_mm512_setzero_si512(), x));
}

/* fl_vqf_bucket_mask(lo, hi, b) per lane, bit for bit on any metadata (checkkernels' random
 * blocks included), both of its forms computed and the lane's form picked by a mask:
 *  - the one-select form: D1 = the one of rank b - 1 in its word (lo when b - 1 < popcount
 *    (lo), the same word as b < popcount(lo) for the buckets this form serves), D2 the next
 *    set bit above it in that word (pdep(3 << r)'s two bits; none past bit 63), and
 *    rotr(D2 - 2 * D1, b), which is pdep's P - 3 * blsi(P);
 *  - the two-select form for b = 0 and b = popcount(lo): its end is the lowest one of lo
 *    (b = 0 < popcount(lo)) or of hi, rotated by b, its start 1 for b = 0, else D1 (then lo's
 *    highest one) rotated by b - 1. */
FL_INLINE __m512i lanes_bucket_mask(__m512i lo, __m512i hi, __m512i b) {
    const __m512i one = _mm512_set1_epi64(1);
    __m512i c = lanes_popcount64(lo);
    __m512i bm1 = _mm512_sub_epi64(b, one); /* b = 0: 2^64 - 1, never below c */
    __mmask8 start_lo = _mm512_cmplt_epu64_mask(bm1, c);
    __m512i w = _mm512_mask_blend_epi64(start_lo, hi, lo);
    __m512i r = _mm512_and_si512(_mm512_mask_sub_epi64(bm1, (__mmask8)~start_lo, bm1, c),
                                 _mm512_set1_epi64(63));
    __m512i d1 = _mm512_sllv_epi64(one, lanes_select64(w, r));
    __m512i d1x2 = _mm512_add_epi64(d1, d1);
    __m512i d2 = lanes_blsi(_mm512_andnot_si512(_mm512_sub_epi64(d1x2, one), w));
    __m512i res = _mm512_rorv_epi64(_mm512_sub_epi64(d2, d1x2), b);
    __mmask8 b0 = _mm512_cmpeq_epi64_mask(b, _mm512_setzero_si512());
    __mmask8 two = b0 | _mm512_cmpeq_epi64_mask(b, c);
    __m512i end = _mm512_rorv_epi64(
        lanes_blsi(_mm512_mask_blend_epi64(_mm512_cmplt_epu64_mask(b, c), hi, lo)), b);
    __m512i start = _mm512_mask_mov_epi64(_mm512_rorv_epi64(d1, bm1), b0, one);
    res = _mm512_mask_sub_epi64(res, two, end, start);
    return _mm512_and_si512(res, _mm512_set1_epi64((long long)((1ull << FL_VQF_SLOTS) - 1)));
}

/* Keys per group: one answer bit per key in a u64 (vqf_contains_lanes); the group's arrays
 * (about 6.3 KB with lanes_kept) stay in L1. */
#define LANES_GROUP 64u
_Static_assert(LANES_GROUP == 64, "the group's answers are the bits of one u64");

/* The lanes of a group's last 8 that hold keys. */
FL_INLINE __mmask8 lanes_valid(size_t left) {
    return left >= 8 ? (__mmask8)0xff : (__mmask8)((1u << left) - 1);
}

/* Entries for keys 0 .. m-1 of hashes (block1 in the entry, block2 in blk2), rounded up to
 * 8 with hash 0 (in-range blocks, never answered); with prefetch, each key's block1 line is
 * prefetched: the entries are made a group ahead of their compare. An entry is
 * block << 32 | bucket << 8 | fingerprint (a key's place in the group is its position in the
 * array: the answers go back by pdep, not by an index); byte 0 is the fingerprint, which the
 * compare broadcasts straight from memory. */
FL_INLINE void lanes_entries(const uint8_t *base, uint32_t nb, const uint64_t *hashes,
                             size_t m, uint64_t *ent, uint64_t *blk2, const int prefetch) {
    const __m512i mix = _mm512_set1_epi64((long long)FL_VQF_MIX), nbv = _mm512_set1_epi64(nb);
    for (size_t j = 0; j < m; j += 8) {
        __m512i h = _mm512_maskz_loadu_epi64(lanes_valid(m - j), hashes + j);
        __m512i t = _mm512_srli_epi64(_mm512_mullo_epi64(h, mix), 32); /* fl_vqf_tag_word */
        __m512i b = _mm512_srli_epi64(_mm512_mul_epu32(t, _mm512_set1_epi64(FL_VQF_BUCKETS)), 32);
        __m512i key = _mm512_or_si512(_mm512_slli_epi64(b, 8),
                                      _mm512_and_si512(t, _mm512_set1_epi64(0xff)));
        __m512i i1 = _mm512_srli_epi64(_mm512_mul_epu32(_mm512_srli_epi64(h, 32), nbv), 32);
        /* fl_vqf_alt: the multiply's low 32 bits (the lane's high dword stays 0), reduced. */
        __m512i hb = _mm512_srli_epi64(
            _mm512_mul_epu32(_mm512_mullo_epi32(key, _mm512_set1_epi64(0x5bd1e995)), nbv), 32);
        __m512i d = _mm512_sub_epi64(hb, i1);
        __m512i i2 = _mm512_mask_add_epi64(d, _mm512_cmplt_epu64_mask(hb, i1), d, nbv);
        _mm512_store_si512((void *)(ent + j), _mm512_or_si512(_mm512_slli_epi64(i1, 32), key));
        _mm512_store_si512((void *)(blk2 + j), i2);
        if (prefetch) {
            uint64_t off[8];
            _mm512_storeu_si512((void *)off, _mm512_slli_epi64(i1, 6));
            for (int l = 0; l < 8; l++) pf_read(base + off[l]);
        }
    }
}

/* The per-key pass: entries 0 .. n-1 (n a multiple of 8), each block's compare mask (bit
 * 16 + s: slot s holds the fingerprint) and its metadata. */
FL_INLINE void lanes_compare(const uint8_t *base, const uint64_t *ent, size_t n,
                             uint64_t *match, __m128i *md) {
    for (size_t i = 0; i < n; i++) {
        const uint8_t *blk = base + (ent[i] >> 32) * FL_VQF_BLOCK_BYTES;
        __m512i z = _mm512_load_si512((const void *)blk);
        match[i] = _mm512_cmpeq_epi8_mask(z, _mm512_set1_epi8(*(const char *)(ent + i)));
        md[i] = _mm512_castsi512_si128(z);
    }
}

/* The keys of a compare pass that go on to the bucket's slots, compacted. */
typedef struct lanes_kept {
    _Alignas(64) uint64_t ent[LANES_GROUP + 8], match[LANES_GROUP + 8];
    _Alignas(64) uint64_t lo[LANES_GROUP + 8], hi[LANES_GROUP + 8];
} lanes_kept;

/* A key none of whose 48 slots holds its fingerprint is not in that block, whatever its
 * bucket's slots (at half hits about 46% of the keys at block1, whose own copy sits
 * there for 88.5% of the inserted ones, and about 75% of the pending keys at block2): of the n keys compared, only the others are kept, vpcompressq'd 8 at a time
 * with their metadata words split. Returns how many; *bits gets a bit per key, set for
 * those kept. The 8 places after the last are zeroed for the vector pass's round-up. */
FL_INLINE size_t lanes_compact(const uint64_t *ent, const uint64_t *match, const __m128i *md,
                               size_t n, lanes_kept *c, uint64_t *bits) {
    const __m512i even = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i odd = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1);
    const __m512i slots = _mm512_set1_epi64((long long)~0xffffull);
    size_t k = 0;
    uint64_t kept = 0;
    for (size_t j = 0; j < n; j += 8) {
        __m512i mt = _mm512_load_si512((const void *)(match + j));
        __mmask8 some = _mm512_mask_test_epi64_mask(lanes_valid(n - j), mt, slots);
        __m512i m0 = _mm512_load_si512((const void *)(md + j));
        __m512i m1 = _mm512_load_si512((const void *)(md + j + 4));
        __m512i e = _mm512_load_si512((const void *)(ent + j));
        _mm512_storeu_si512((void *)(c->ent + k), _mm512_maskz_compress_epi64(some, e));
        _mm512_storeu_si512((void *)(c->match + k), _mm512_maskz_compress_epi64(some, mt));
        _mm512_storeu_si512((void *)(c->lo + k),
                            _mm512_maskz_compress_epi64(some, _mm512_permutex2var_epi64(m0, even, m1)));
        _mm512_storeu_si512((void *)(c->hi + k),
                            _mm512_maskz_compress_epi64(some, _mm512_permutex2var_epi64(m0, odd, m1)));
        kept |= (uint64_t)some << j;
        k += (size_t)__builtin_popcount(some);
    }
    _mm512_storeu_si512((void *)(c->ent + k), _mm512_setzero_si512());
    _mm512_storeu_si512((void *)(c->match + k), _mm512_setzero_si512());
    _mm512_storeu_si512((void *)(c->lo + k), _mm512_setzero_si512());
    _mm512_storeu_si512((void *)(c->hi + k), _mm512_setzero_si512());
    *bits = kept;
    return k;
}

/* Which of the n kept keys answer (a bit each): the compare's mask within the bucket's
 * slots, 8 keys a vector. */
FL_INLINE uint64_t lanes_found(const lanes_kept *c, size_t n) {
    uint64_t found = 0;
    for (size_t j = 0; j < n; j += 8) {
        __m512i e = _mm512_load_si512((const void *)(c->ent + j));
        __m512i b = _mm512_and_si512(_mm512_srli_epi64(e, 8), _mm512_set1_epi64(0xff));
        __m512i lo = _mm512_load_si512((const void *)(c->lo + j));
        __m512i hi = _mm512_load_si512((const void *)(c->hi + j));
        __m512i slots = _mm512_slli_epi64(lanes_bucket_mask(lo, hi, b), 16);
        found |= (uint64_t)_mm512_mask_test_epi64_mask(
                     lanes_valid(n - j), _mm512_load_si512((const void *)(c->match + j)), slots)
                 << j;
    }
    return found;
}

/* kernels/vqf_loop.h's two passes (block1 for every key, block2 for the keys it did not
 * answer), each a per-key compare pass and a vector pass over the keys with a fingerprint
 * match, 8 at a time; a group's answers are bits of a u64, put back in place by pdep (the
 * compacted keys' among the group's, block2's among block1's misses) and stored as bytes in
 * one masked store. The pending list is the misses' entries with block2, vpcompressq'd 8 keys
 * at a time. The next group's entries are made (and with prefetching their block1 lines
 * fetched) before the current group's compares; with prefetching, a missed key's block2 is
 * fetched as soon as the list takes it (below PF_MIN_BYTES the lines are in L2, where the
 * compare loop's independent loads overlap without it; the prefetches cost 2 instructions a
 * key). */
static size_t vqf_contains_lanes(const fl_kview *f, const uint64_t *hashes, size_t n,
                                 uint8_t *out, const int prefetch) {
    const uint8_t *base = (const uint8_t *)f->data;
    const uint32_t nb = f->units;
    _Alignas(64) uint64_t ent[2][LANES_GROUP], blk2[2][LANES_GROUP], pend[LANES_GROUP + 8];
    _Alignas(64) uint64_t match[LANES_GROUP];
    _Alignas(64) __m128i md[LANES_GROUP];
    lanes_kept kc;
    const __m512i low32 = _mm512_set1_epi64(0xffffffff);
    size_t pos = 0, cur = 0;
    if (n) lanes_entries(base, nb, hashes, n < LANES_GROUP ? n : LANES_GROUP, ent[0], blk2[0],
                         prefetch);
    for (size_t g = 0; g < n; g += LANES_GROUP, cur ^= 1) {
        const size_t m = n - g < LANES_GROUP ? n - g : LANES_GROUP;
        if (n - g > LANES_GROUP) {
            size_t next = n - g - LANES_GROUP;
            lanes_entries(base, nb, hashes + g + LANES_GROUP,
                          next < LANES_GROUP ? next : LANES_GROUP, ent[cur ^ 1], blk2[cur ^ 1],
                          prefetch);
        }
        const uint64_t keys = m == 64 ? ~(uint64_t)0 : (((uint64_t)1 << m) - 1);
        uint64_t kept;
        lanes_compare(base, ent[cur], (m + 7) & ~(size_t)7, match, md);
        size_t nk = lanes_compact(ent[cur], match, md, m, &kc, &kept);
        const uint64_t found1 = _pdep_u64(lanes_found(&kc, nk), kept);
        const uint64_t miss = keys & ~found1;
        size_t np = 0;
        for (size_t j = 0; j < m; j += 8) {
            const __mmask8 missed = (__mmask8)(miss >> j);
            __m512i e = _mm512_load_si512((const void *)(ent[cur] + j));
            __m512i i2 = _mm512_load_si512((const void *)(blk2[cur] + j));
            __m512i pe = _mm512_or_si512(_mm512_and_si512(e, low32), _mm512_slli_epi64(i2, 32));
            _mm512_storeu_si512((void *)(pend + np), _mm512_maskz_compress_epi64(missed, pe));
            np += (size_t)__builtin_popcount(missed);
            if (prefetch) {
                /* Each lane's next line: block2 for a miss, its cached block1 otherwise. */
                uint64_t off[8];
                _mm512_storeu_si512(
                    (void *)off,
                    _mm512_slli_epi64(_mm512_mask_blend_epi64(missed, _mm512_srli_epi64(e, 32),
                                                              i2),
                                      6));
                for (int l = 0; l < 8; l++) pf_read(base + off[l]);
            }
        }
        /* Block 0 for the compare's round-up past np (not kept: past n). */
        _mm512_storeu_si512((void *)(pend + np), _mm512_setzero_si512());
        lanes_compare(base, pend, (np + 7) & ~(size_t)7, match, md);
        nk = lanes_compact(pend, match, md, np, &kc, &kept);
        const uint64_t found2 = _pdep_u64(lanes_found(&kc, nk), kept);
        const uint64_t all = found1 | _pdep_u64(found2, miss);
        _mm512_mask_storeu_epi8(out + g, keys, _mm512_maskz_set1_epi8(all, 1));
        pos += (size_t)__builtin_popcountll(all);
    }
    return pos;
}

#endif /* FL_VQF_LANES_AVX512_H */
