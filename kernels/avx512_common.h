/*
 * Vector helpers every AVX-512 kernel file shares (<module>_avx512.c), built with
 * -mavx512f -mavx512bw -mavx512vl -mavx512dq -mbmi2.
 * Scalar-side helpers both x86 ISAs use are in x86_common.h.
 */
#ifndef FL_AVX512_COMMON_H
#define FL_AVX512_COMMON_H

#if !defined(__AVX512F__) || !defined(__AVX512BW__)
#error "avx512_common.h is for the AVX-512 kernel files"
#endif

#include <immintrin.h>

#include "kernels.h"
#include "x86_common.h"

/* 8 hashes from an array the API lets be unaligned. */
FL_INLINE __m512i load8(const uint64_t *h, size_t i) {
    return _mm512_loadu_si512((const void *)((const unsigned char *)h + 8 * i));
}

/* reduce32 of the low dword of each qword lane: (x32 * n) >> 32, as a qword. */
FL_INLINE __m512i reduce_lo(__m512i x, __m512i n) {
    return _mm512_srli_epi64(_mm512_mul_epu32(x, n), 32);
}
/* reduce32(h >> 32, units) for 8 hashes. */
FL_INLINE __m512i unit_index(__m512i h, __m512i units) {
    return reduce_lo(_mm512_srli_epi64(h, 32), units);
}

/* Bytes of m that are nonzero become 0x01, the others 0x00 (carry-free SWAR: the +0x7f sets
 * bit 7 of a byte iff its low 7 bits are nonzero and cannot carry into the next byte). */
FL_INLINE uint64_t nonzero_bytes(uint64_t m) {
    const uint64_t lo7 = 0x7f7f7f7f7f7f7f7full;
    return ((((m & lo7) + lo7) | m) & 0x8080808080808080ull) >> 7;
}

/* Bytes of m that are zero become 0x01, the others 0x00. */
FL_INLINE uint64_t zero_bytes(uint64_t m) {
    return nonzero_bytes(m) ^ 0x0101010101010101ull;
}

/* zero_bytes, kept in general registers: GCC otherwise may do its last XOR as kmovq, kandnq
 * and kmovq in the mask registers, three more micro-ops on ports 0 and 5, the ones the
 * vector work of a 512-bit loop saturates (split256's batch lookups). */
FL_INLINE uint64_t zero_bytes_gpr(uint64_t m) {
    uint64_t nz = nonzero_bytes(m);
    __asm__("" : "+r"(nz));
    return nz ^ 0x0101010101010101ull;
}

/* Four 16-bit lane masks as one 64-bit word, m[0] lowest. kunpck runs on port 5, next to
 * the permutes, instead of four kmov on port 0, which the multiplies and shifts saturate
 * (about 15% faster split256 lookups at 1 MiB). */
FL_INLINE uint64_t join4(const __mmask16 m[4]) {
    return _cvtmask64_u64(_mm512_kunpackd(_mm512_kunpackw(m[3], m[2]), _mm512_kunpackw(m[1], m[0])));
}

/* Dword selectors putting the low half of hash 2p in lanes 0..7 and of hash 2p+1 in lanes
 * 8..15: two keys per zmm for the 8-lane split256 / block512 / counting512 (k <= 8) probes. */
#define PAIR_SEL(p)                                                                             \
    _mm512_setr_epi32(4 * (p), 4 * (p), 4 * (p), 4 * (p), 4 * (p), 4 * (p), 4 * (p), 4 * (p),   \
                      4 * (p) + 2, 4 * (p) + 2, 4 * (p) + 2, 4 * (p) + 2, 4 * (p) + 2,          \
                      4 * (p) + 2, 4 * (p) + 2, 4 * (p) + 2)

/* The classic layouts' batch lookup, shared by the bit array (classic: 1 << (g & 63)) and the
 * 4-bit counters (counting: 0xf rotated by 4 (g & 15); vprolq takes the count mod 64, and
 * (g << 2) mod 64 is exactly that). 8 keys per group, round r gathers the words of the keys
 * still alive (dead lanes load nothing), and the group stops once every key has missed: 8
 * independent loads per round in flight where the scalar loop has one chain of dependent
 * probes per key. `counters` and `tail` are constants at every call. */
FL_INLINE size_t classic_layout_contains(const fl_kview *f, const uint64_t *hashes, size_t n,
                                         uint8_t *out, const int prefetch, const int counters,
                                         fl_contains_fn tail) {
    const uint64_t *words = (const uint64_t *)f->data;
    const __m512i units = _mm512_set1_epi64(f->units);
    const __m512i one = _mm512_set1_epi64(1);
    const __m512i probe = _mm512_set1_epi64(counters ? 0xf : 1);
    const uint32_t k = f->k;
    size_t i = 0, pos = 0;
    for (; i + 8 <= n; i += 8) {
        if (prefetch && i + PF_DIST + 8 <= n)
            prefetch8((const uint8_t *)words, 8, hashes, i + PF_DIST, f->units, 0);
        __m512i g = load8(hashes, i);
        __m512i step = _mm512_or_si512(_mm512_rol_epi64(g, 32), one);
        __mmask8 alive = 0xff;
        for (uint32_t r = 0; r < k && alive; r++) {
            __m512i w = _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), alive,
                                                    unit_index(g, units), (const void *)words, 8);
            __m512i by = counters ? _mm512_slli_epi64(g, 2) : g;
            alive = _mm512_mask_test_epi64_mask(alive, w, _mm512_rolv_epi64(probe, by));
            g = _mm512_add_epi64(g, step);
        }
        pos += emit8(out + i, alive);
    }
    pos += tail(f, hashes + i, n - i, out + i);
    return pos;
}

/* The counter mask of each lane's salt product t: 0xf rotated to bit 4 ((t >> 25) & 7). */
FL_INLINE __m512i nibble_mask(__m512i t) {
    return _mm512_rolv_epi32(_mm512_set1_epi32(0xf),
                             _mm512_and_si512(_mm512_srli_epi32(t, 23), _mm512_set1_epi32(0x1c)));
}

/* The 64-byte blocked layouts' lookup for k <= 8, two keys per zmm, shared by block512 (bits,
 * counters = 0) and counting512 (4-bit counters, counters = 1). Lanes 0..7 hold the first
 * key's salt products t, 8..15 the second's; bit p = t >> 23 lives in dword p >> 5 = t >> 28
 * of the block at bit p & 31 (vprold rotates by the count mod 32, so no mask is needed), its
 * counter in the same dword at bits 4 ((t >> 25) & 7) (nibble_mask). vpermt2d picks each
 * lane's dword from the first key's block (index 0..15) or the second's (16..31). `counters`
 * and `tail` are constants at every call. */
FL_INLINE size_t block512_pair_layout_contains(const fl_kview *f, const uint64_t *hashes,
                                               size_t n, uint8_t *out, const int prefetch,
                                               const int counters, fl_contains_fn tail) {
    const uint8_t *base = (const uint8_t *)f->data;
    const __m512i salts = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)FL_SALT));
    const __m512i second = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 16, 16, 16, 16, 16, 16, 16, 16);
    const __m512i ones = _mm512_set1_epi32(1);
    const __m512i sel[4] = {PAIR_SEL(0), PAIR_SEL(1), PAIR_SEL(2), PAIR_SEL(3)};
    const __mmask16 kk = (__mmask16)(((1u << f->k) - 1) * 0x101u);
    size_t i = 0, pos = 0;
    for (; i + 8 <= n; i += 8) {
        if (prefetch && i + PF_DIST + 8 <= n)
            prefetch8(base, 64, hashes, i + PF_DIST, f->units, 0);
        __m512i h = load8(hashes, i);
        __mmask16 miss[4];
        for (int p = 0; p < 4; p++) {
            const uint8_t *b0 = base + 64 * unit_at(hashes, i + 2 * (size_t)p, f->units);
            const uint8_t *b1 = base + 64 * unit_at(hashes, i + 2 * (size_t)p + 1, f->units);
            __m512i t = _mm512_mullo_epi32(_mm512_permutexvar_epi32(sel[p], h), salts);
            __m512i widx = _mm512_or_si512(_mm512_srli_epi32(t, 28), second);
            /* the bit test's mask (unused when testing counters) */
            __m512i bit = _mm512_rolv_epi32(ones, _mm512_srli_epi32(t, 23));
            __m512i a = _mm512_load_si512((const void *)b0);
            __m512i b = _mm512_load_si512((const void *)b1);
            __m512i w = _mm512_permutex2var_epi32(a, widx, b);
            miss[p] = _mm512_mask_testn_epi32_mask(kk, w, counters ? nibble_mask(t) : bit);
        }
        uint64_t hit = zero_bytes(join4(miss));
        memcpy(out + i, &hit, 8);
        pos += (size_t)__builtin_popcountll(hit);
    }
    pos += tail(f, hashes + i, n - i, out + i);
    return pos;
}

#endif /* FL_AVX512_COMMON_H */
