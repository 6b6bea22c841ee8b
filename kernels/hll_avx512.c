/*
 * HyperLogLog kernels for AVX-512 F/BW/VL/DQ (the dispatch row's bundle; no CD, so neither
 * vplzcntq nor vpconflictq).
 *
 * add: 8 hashes per zmm. The rank is the lowest set bit's position + 1: w & -w isolates that
 * bit, vcvtuqq2pd (DQ) turns it into an exact power of two, and its exponent field is the
 * position. A gather of the 8 registers (dword gathers over the byte array; the padding after
 * the registers keeps them in bounds) finds the lanes whose rank beats the register; when
 * the registers are warm that is rarely any lane and the group costs no store. Those lanes
 * are then updated one by one in lane order, which handles two lanes on one register
 * (a conflict) the way the scalar loop does.
 * The add pays off once most adds leave the registers alone (checkkernels --bench: faster on
 * warm registers, slower on young ones, where most groups take the update loop).
 * histo stays scalar: a compare-and-popcount per value and 64-register line measured slower
 * than the scalar four-table histogram.
 * max: vpmaxub, 64 registers per step. murmur8: MurmurHash64A of 8-byte keys with vpmullq.
 */
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "hll_probe.h"
#include "kernels.h"
#include "avx512_common.h"

static int add_tail(uint8_t *regs, uint32_t p, const uint64_t *hashes, size_t i, size_t n) {
    int grew = 0;
    for (; i < n; i++) {
        uint64_t h = fl_hll_load64((const unsigned char *)hashes + 8 * i);
        uint32_t idx = fl_hll_index(h, p);
        uint8_t r = fl_hll_rank(h, p);
        if (r > regs[idx]) regs[idx] = r, grew = 1;
    }
    return grew;
}

static int fl_hll_add_avx512(uint8_t *regs, uint32_t p, const uint64_t *hashes, size_t n) {
    const __m512i mask = _mm512_set1_epi64((long long)((1ull << p) - 1));
    const __m512i stop = _mm512_set1_epi64((long long)(1ull << (64 - p)));
    const __m512i bias = _mm512_set1_epi64(1022); /* exponent bias - 1: rank = pos + 1 */
    const __m256i low8 = _mm256_set1_epi32(0xff);
    const __m128i shift = _mm_cvtsi32_si128((int)p);
    int grew = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m512i h = load8(hashes, i);
        __m512i idx = _mm512_and_si512(h, mask);
        __m512i w = _mm512_or_si512(_mm512_srl_epi64(h, shift), stop);
        __m512i lowbit = _mm512_and_si512(w, _mm512_sub_epi64(_mm512_setzero_si512(), w));
        __m512i e = _mm512_srli_epi64(_mm512_castpd_si512(_mm512_cvtepu64_pd(lowbit)), 52);
        __m256i rank = _mm512_cvtepi64_epi32(_mm512_sub_epi64(e, bias));
        __m256i old = _mm256_and_si256(_mm512_i64gather_epi32(idx, (const void *)regs, 1), low8);
        __mmask8 up = _mm256_cmpgt_epi32_mask(rank, old);
        if (!up) continue;
        uint32_t ix[8], rk[8];
        _mm256_storeu_si256((__m256i *)(void *)ix, _mm512_cvtepi64_epi32(idx));
        _mm256_storeu_si256((__m256i *)(void *)rk, rank);
        for (; up; up &= (__mmask8)(up - 1)) {
            int l = __builtin_ctz(up);
            if (rk[l] > regs[ix[l]]) regs[ix[l]] = (uint8_t)rk[l], grew = 1;
        }
    }
    return add_tail(regs, p, hashes, i, n) | grew;
}

static void fl_hll_max_avx512(uint8_t *dst, const uint8_t *src, size_t m) {
    size_t i = 0;
    for (; i + 64 <= m; i += 64) {
        __m512i a = _mm512_loadu_si512((const void *)(dst + i));
        __m512i b = _mm512_loadu_si512((const void *)(src + i));
        _mm512_storeu_si512((void *)(dst + i), _mm512_max_epu8(a, b));
    }
    if (i < m) {
        __mmask64 k = (__mmask64)((1ull << (m - i)) - 1);
        __m512i a = _mm512_maskz_loadu_epi8(k, dst + i), b = _mm512_maskz_loadu_epi8(k, src + i);
        _mm512_mask_storeu_epi8(dst + i, k, _mm512_max_epu8(a, b));
    }
}

static void fl_hll_murmur8_avx512(const uint64_t *keys, size_t n, uint64_t seed,
                                  uint64_t *out) {
    const __m512i m = _mm512_set1_epi64((long long)FL_MURMUR_M);
    const __m512i h0 = _mm512_set1_epi64((long long)(seed ^ (8 * FL_MURMUR_M)));
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m512i k = _mm512_mullo_epi64(load8(keys, i), m);
        k = _mm512_mullo_epi64(_mm512_xor_si512(k, _mm512_srli_epi64(k, FL_MURMUR_R)), m);
        __m512i h = _mm512_mullo_epi64(_mm512_xor_si512(h0, k), m);
        h = _mm512_mullo_epi64(_mm512_xor_si512(h, _mm512_srli_epi64(h, FL_MURMUR_R)), m);
        h = _mm512_xor_si512(h, _mm512_srli_epi64(h, FL_MURMUR_R));
        _mm512_storeu_si512((void *)((unsigned char *)out + 8 * i), h);
    }
    for (; i < n; i++) {
        uint64_t h = fl_murmur64a_u64(fl_hll_load64((const unsigned char *)keys + 8 * i), seed);
        memcpy((unsigned char *)out + 8 * i, &h, 8);
    }
}

void fl_hll_kernels_init_avx512(fl_kernel_table *t) {
    t->hll.add = fl_hll_add_avx512;
    t->hll.max = fl_hll_max_avx512;
    t->hll.murmur8 = fl_hll_murmur8_avx512;
}
