/*
 * Scalar kernel of the hash module: filterlab.h's fl_hash_u64_inline over an array, the
 * reference of every ISA's hash kernel. Plain C at baseline flags.
 */
#include <string.h>

#include "filterlab.h"
#include "scalar_common.h"

static void fl_hash_u64_scalar(const uint64_t *keys, size_t n, uint64_t seed, uint64_t *out) {
    for (size_t i = 0; i < n; i++) {
        uint64_t h = fl_hash_u64_inline(fl_hash_at(keys, i), seed);
        memcpy((unsigned char *)out + 8 * i, &h, 8);
    }
}

void fl_hash_kernels_init_scalar(fl_kernel_table *t) {
    t->hash.u64 = fl_hash_u64_scalar;
}
