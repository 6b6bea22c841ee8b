/*
 * The vqf module's reference kernels: batch lookups, inserts and deletes of a vector quotient
 * filter, key by key, with include/filterlab_vqf.h's probe math in its portable form
 * (broadword select, the bucket's slots one by one) and kernels/vqf_update.h's word shifts.
 * Every other ISA's vqf kernels are checked against them (tests/checkkernels/check_vqf.c).
 * The lookups run kernels/vqf_loop.h's two passes as every ISA does (block1 for a group of
 * keys, prefetched ahead; then block2 for the keys block1 did not answer, each prefetched
 * as soon as it is known to be needed), so the reference too keeps misses in flight on
 * DRAM-sized filters; inserts and deletes prefetch both blocks of the key
 * FL_PREFETCH_AHEAD keys ahead (scalar_common.h's policy).
 */
#include "scalar_common.h"

#define PF_MIN_BYTES ((size_t)1) /* every payload: scalar_common.h's policy */
#define PF_DIST FL_PREFETCH_AHEAD
static inline void pf_read(const void *p) {
    prefetch(p);
}
#define VQF_BLOCK_HAS fl_vqf_block_has_portable
#include "vqf_loop.h"
#include "vqf_update.h"

FL_VQF_INIT(scalar)
