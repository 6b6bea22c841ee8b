/*
 * The fuse module's reference kernels: binary fuse lookups and Bloomier retrievals, one key
 * at a time through include/filterlab_static.h's probe (fl_fuse_probe_as), specialized per
 * shape so the arity and cell width are constants in each loop.
 */
#include "kernels.h"

#define FUSE_CONTAINS(name, arity, bits)                                                     \
    static size_t name(const fl_fuse_view *v, const uint64_t *keys, size_t n, uint8_t *out) { \
        size_t hits = 0;                                                                     \
        for (size_t i = 0; i < n; i++) {                                                     \
            uint64_t key;                                                                    \
            memcpy(&key, keys + i, 8);                                                       \
            uint8_t hit = fl_fuse_probe_as(v, key, arity, bits) == 0;                        \
            out[i] = hit;                                                                    \
            hits += hit;                                                                     \
        }                                                                                    \
        return hits;                                                                         \
    }

#define BLOOMIER_GET(name, arity, bits)                                                      \
    static size_t name(const fl_fuse_view *v, const uint64_t *keys, size_t n,                \
                       uint16_t *values, uint8_t *found) {                                   \
        size_t hits = 0;                                                                     \
        const uint32_t vbits = v->value_bits;                                                \
        for (size_t i = 0; i < n; i++) {                                                     \
            uint64_t key;                                                                    \
            memcpy(&key, keys + i, 8);                                                       \
            uint32_t x = fl_fuse_probe_as(v, key, arity, bits);                              \
            uint8_t hit = (x >> vbits) == 0;                                                 \
            values[i] = hit ? (uint16_t)x : 0;                                               \
            found[i] = hit;                                                                  \
            hits += hit;                                                                     \
        }                                                                                    \
        return hits;                                                                         \
    }

FUSE_CONTAINS(contains_fuse3_8, 3, 8)
FUSE_CONTAINS(contains_fuse3_16, 3, 16)
FUSE_CONTAINS(contains_fuse4_8, 4, 8)
FUSE_CONTAINS(contains_fuse4_16, 4, 16)
/* value_bits <= 16 < cell bits for 32-bit cells, and <= 16 for 16-bit ones: the shift is
 * always defined (16 >> 16 on a 16-bit cell leaves nothing: every key found). */
BLOOMIER_GET(get_bloomier3_16, 3, 16)
BLOOMIER_GET(get_bloomier3_32, 3, 32)
BLOOMIER_GET(get_bloomier4_16, 4, 16)
BLOOMIER_GET(get_bloomier4_32, 4, 32)

const fl_fuse_kernels fl_fuse_kernels_scalar = {
    .contains = {contains_fuse3_8, contains_fuse3_16, contains_fuse4_8, contains_fuse4_16},
    .get = {get_bloomier3_16, get_bloomier3_32, get_bloomier4_16, get_bloomier4_32},
};

void fl_fuse_kernels_init_scalar(fl_kernel_table *t) {
    t->fuse = fl_fuse_kernels_scalar;
}
