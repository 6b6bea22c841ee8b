/*
 * The cms module's AVX-512 kernels (-mavx512f/bw/vl/dq): 8 keys per group.
 *
 * Row positions of 8 keys are computed in one vector per row (double hashing with 64-bit
 * lanes, Lemire's reduction as one vpmuludq of the high halves by w); the counters are then
 * read and written key by key in order from those positions, with the next group's counters
 * prefetched first on sketches past L2 ("prefetched scalar"). Updates must work so: two keys
 * of a group may share a counter, and AVX-512CD's conflict detection is not among this
 * library's flags. Queries could gather the 8 counters of a row (vpgatherqd) instead; on the
 * machines this was written on the scalar reads measured faster, both on the seeds' 53 KiB
 * sketch and on a 64 MiB one (`checkkernels --bench --min --family cms`; AVX2's 4-lane
 * gather, by contrast, beat its scalar reads, see cms_avx2.c). Tails (n % 8) use the scalar
 * math.
 */
#include <immintrin.h>

#include "kernels.h"
#include "cms_probe.h"

#define G 8

/* idx[r * 8 + j]: counter index of key j in row r. */
static inline void cms_positions(const uint64_t *h, uint32_t width, uint32_t depth,
                              uint64_t *idx) {
    __m512i g = _mm512_loadu_si512((const void *)h);
    const __m512i step = _mm512_or_si512(_mm512_rol_epi64(g, 32), _mm512_set1_epi64(1));
    const __m512i w = _mm512_set1_epi64(width);
    __m512i base = _mm512_setzero_si512();
    for (uint32_t r = 0; r < depth; r++) {
        __m512i col = _mm512_srli_epi64(_mm512_mul_epu32(_mm512_srli_epi64(g, 32), w), 32);
        _mm512_storeu_si512((void *)(idx + (size_t)r * G), _mm512_add_epi64(col, base));
        g = _mm512_add_epi64(g, step);
        base = _mm512_add_epi64(base, w);
    }
}

#include "cms_simd.h"

void fl_cms_kernels_init_avx512(fl_kernel_table *t) {
    t->cms.update = cms_update_groups;
    t->cms.update_nosat = cms_update_nosat_groups;
    t->cms.update_cons = cms_update_cons_groups;
    t->cms.query = cms_query_groups;
}
