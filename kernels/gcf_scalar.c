/*
 * The gcf module's reference kernel: batch lookups of a growing cuckoo filter, key by key,
 * with include/filterlab_gcf.h's fl_gcf_probe (two bucket words; the slot test in SSE2's
 * 16-bit lanes on x86-64, where SSE2 is the baseline, the 64-bit SWAR form elsewhere, which
 * tests/test_gcf.c checks slot by slot). Every other
 * ISA's gcf kernel is checked against it (tests/checkkernels/check_gcf.c). Like the other
 * scalar lookups (scalar_common.h) it prefetches both buckets of the key FL_PREFETCH_AHEAD
 * keys ahead at every size.
 */
#include "scalar_common.h"

#define PF_MIN_BYTES ((size_t)1) /* every payload: scalar_common.h's policy */
#define PF_DIST FL_PREFETCH_AHEAD
static inline void pf_read(const void *p) {
    prefetch(p);
}
#include "gcf_loop.h"

static size_t gcf_contains_loop(const fl_kview *f, const uint64_t *hashes, size_t n,
                                uint8_t *out, const int prefetch) {
    gcf_shape s = gcf_shape_of(f);
    return gcf_contains_keys(&s, hashes, 0, n, out, prefetch);
}

FL_LOOKUP_BY_SIZE(gcf_contains, 8, gcf_contains_loop)

void fl_gcf_kernels_init_scalar(fl_kernel_table *t) {
    t->gcf.contains = gcf_contains;
}
