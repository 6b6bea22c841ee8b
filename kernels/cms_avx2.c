/*
 * The cms module's AVX2 kernels (-mavx2 -mbmi2 -mfma): 4 keys per group.
 *
 * Row positions of 4 keys are computed in one vector per row (double hashing with 64-bit
 * lanes, Lemire's reduction as one vpmuludq of the high halves by w). Queries then gather the
 * 4 counters of a row (vpgatherqd) and keep the lane-wise minimum (measured a little faster
 * than scalar reads from the same positions, `checkkernels --bench --min --family cms`;
 * AVX-512 measured the other way). AVX2 has no scatter, and
 * two keys of a group may share a counter anyway, so updates apply the counters key by key in
 * order, as scalar does, from the vector-computed positions, prefetching the next group's
 * counters first ("prefetched scalar"). Tails (n % 4) use the scalar math.
 */
#include <immintrin.h>

#include "kernels.h"
#include "cms_probe.h"

#define G 4

static inline __m256i rotl32_64(__m256i g) {
    return _mm256_or_si256(_mm256_slli_epi64(g, 32), _mm256_srli_epi64(g, 32));
}

/* idx[r * 4 + j]: counter index of key j in row r. */
static inline void cms_positions(const uint64_t *h, uint32_t width, uint32_t depth,
                              uint64_t *idx) {
    __m256i g = _mm256_loadu_si256((const __m256i *)(const void *)h);
    const __m256i step = _mm256_or_si256(rotl32_64(g), _mm256_set1_epi64x(1));
    const __m256i w = _mm256_set1_epi64x(width);
    __m256i base = _mm256_setzero_si256();
    for (uint32_t r = 0; r < depth; r++) {
        __m256i col = _mm256_srli_epi64(_mm256_mul_epu32(_mm256_srli_epi64(g, 32), w), 32);
        _mm256_storeu_si256((__m256i *)(void *)(idx + (size_t)r * G), _mm256_add_epi64(col, base));
        g = _mm256_add_epi64(g, step);
        base = _mm256_add_epi64(base, w);
    }
}

#include "cms_simd.h"

static void cms_query_avx2(const uint32_t *c, uint32_t width, uint32_t depth,
                           const uint64_t *hashes, size_t n, uint32_t *out) {
    size_t i = 0;
    const __m256i w = _mm256_set1_epi64x(width);
    for (; i + G <= n; i += G) {
        __m256i g = _mm256_loadu_si256((const __m256i *)(const void *)(hashes + i));
        const __m256i step = _mm256_or_si256(rotl32_64(g), _mm256_set1_epi64x(1));
        __m256i base = _mm256_setzero_si256();
        __m128i m = _mm_set1_epi32(-1);
        for (uint32_t r = 0; r < depth; r++) {
            __m256i col = _mm256_srli_epi64(_mm256_mul_epu32(_mm256_srli_epi64(g, 32), w), 32);
            __m128i v = _mm256_i64gather_epi32((const int *)(const void *)c,
                                               _mm256_add_epi64(col, base), 4);
            m = _mm_min_epu32(m, v);
            g = _mm256_add_epi64(g, step);
            base = _mm256_add_epi64(base, w);
        }
        _mm_storeu_si128((__m128i *)(void *)(out + i), m);
    }
    for (; i < n; i++) out[i] = fl_cms_query1(c, width, depth, fl_hash_at(hashes, i));
}

void fl_cms_kernels_init_avx2(fl_kernel_table *t) {
    t->cms.update = cms_update_groups;
    t->cms.update_nosat = cms_update_nosat_groups;
    t->cms.update_cons = cms_update_cons_groups;
    t->cms.query = cms_query_avx2;
}
