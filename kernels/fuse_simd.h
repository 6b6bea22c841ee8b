/*
 * What the SIMD fuse kernel files share (fuse_avx2.c, fuse_avx512.c, fuse_neon.c): the
 * "loads" form's cell reads, the gathers' reach, and the x86 files' table of entries.
 * The position math stays in each ISA's file (it is its vector code); the answer it computes
 * is include/filterlab_static.h's.
 *
 * Include after kernels.h, with FL_INLINE defined.
 */
#ifndef FL_FUSE_SIMD_H
#define FL_FUSE_SIMD_H

#include <stdint.h>

#include "kernels.h"

/* The loads form: for each of `lanes` keys, the XOR of its `arity` cells (each `bits` wide)
 * read by scalar loads at pos[j][i] (position j of key i, stored from the vectors), into
 * cell[i]; pos is a uint32_t [4][lanes] array, cell a uint32_t [lanes] one. A statement macro,
 * not a function: over the callers' own 2-D arrays GCC emits the code it emitted for the loop
 * written in each file (a flat-array function changed the AVX-512 loads kernels' code). */
#define FL_FUSE_XOR_CELLS(v, pos, lanes, arity, bits, cell)                                 \
    for (int i_ = 0; i_ < (lanes); i_++) {                                                  \
        uint32_t c_;                                                                         \
        if ((bits) == 8) {                                                                   \
            const uint8_t *cs_ = (const uint8_t *)(v)->cells;                                \
            c_ = (uint32_t)cs_[(pos)[0][i_]] ^ cs_[(pos)[1][i_]] ^ cs_[(pos)[2][i_]];        \
            if ((arity) == 4) c_ ^= cs_[(pos)[3][i_]];                                       \
        } else if ((bits) == 16) {                                                           \
            const uint16_t *cs_ = (const uint16_t *)(v)->cells;                              \
            c_ = (uint32_t)cs_[(pos)[0][i_]] ^ cs_[(pos)[1][i_]] ^ cs_[(pos)[2][i_]];        \
            if ((arity) == 4) c_ ^= cs_[(pos)[3][i_]];                                       \
        } else {                                                                             \
            const uint32_t *cs_ = (const uint32_t *)(v)->cells;                              \
            c_ = cs_[(pos)[0][i_]] ^ cs_[(pos)[1][i_]] ^ cs_[(pos)[2][i_]];                  \
            if ((arity) == 4) c_ ^= cs_[(pos)[3][i_]];                                       \
        }                                                                                    \
        (cell)[i_] = c_;                                                                     \
    }

/* The x86 gathers' indices are signed 32-bit: an array of 2^31 cells or more (about 1.9
 * billion keys) goes to the scalar kernel instead. */
FL_INLINE int gather_reaches(const fl_fuse_view *v, int arity) {
    return (uint64_t)v->seg_count_len + (uint64_t)arity * v->seg_len <= 0x7fffffffu;
}

/* The x86 files' entries over their
 *   contains_impl(v, keys, n, out, arity, bits, gather, tail)
 *   get_impl(v, keys, n, values, found, arity, bits, gather, tail)
 * FL_FUSE_X86_KERNELS(isa) defines the table's entries (lookups and retrievals with the
 * gathers, gather = 1), the loads form's table fl_fuse_kernels_loads_<isa> (gather = 0: a
 * candidate of its own, which src/cpu/kernel_rules.c may pick), and
 * fl_fuse_kernels_init_<isa>(). */
#define FL_FUSE_CONTAINS(name, arity, bits, gather, shape)                                   \
    static size_t name(const fl_fuse_view *v, const uint64_t *keys, size_t n, uint8_t *out) { \
        return contains_impl(v, keys, n, out, arity, bits, gather,                           \
                             fl_fuse_kernels_scalar.contains[shape]);                        \
    }
#define FL_FUSE_GET(name, arity, bits, gather, shape)                                        \
    static size_t name(const fl_fuse_view *v, const uint64_t *keys, size_t n,                \
                       uint16_t *values, uint8_t *found) {                                   \
        return get_impl(v, keys, n, values, found, arity, bits, gather,                      \
                        fl_fuse_kernels_scalar.get[shape]);                                  \
    }

/* The init runs at startup for every compiled table, whatever the CPU, so it must not contain
 * the file's ISA instructions: GCC turned a struct copy, and then eight adjacent pointer
 * stores, into AVX-512 moves (a SIGILL on CPUs without AVX-512, and under valgrind). The
 * empty asm with a memory clobber after each store keeps the vectorizer from combining them. */
#define FL_FUSE_SET(slot, fn)                                                                \
    do {                                                                                     \
        t->fuse.slot = fn;                                                                   \
        __asm__ volatile("" ::: "memory");                                                  \
    } while (0)

#define FL_FUSE_X86_KERNELS(isa)                                                             \
    FL_FUSE_CONTAINS(contains3_8, 3, 8, 1, FL_FUSE3_8)                                       \
    FL_FUSE_CONTAINS(contains3_16, 3, 16, 1, FL_FUSE3_16)                                    \
    FL_FUSE_CONTAINS(contains4_8, 4, 8, 1, FL_FUSE4_8)                                       \
    FL_FUSE_CONTAINS(contains4_16, 4, 16, 1, FL_FUSE4_16)                                    \
    FL_FUSE_GET(get3_16, 3, 16, 1, FL_BLOOMIER3_16)                                          \
    FL_FUSE_GET(get3_32, 3, 32, 1, FL_BLOOMIER3_32)                                          \
    FL_FUSE_GET(get4_16, 4, 16, 1, FL_BLOOMIER4_16)                                          \
    FL_FUSE_GET(get4_32, 4, 32, 1, FL_BLOOMIER4_32)                                          \
                                                                                             \
    FL_FUSE_CONTAINS(contains3_8_loads, 3, 8, 0, FL_FUSE3_8)                                 \
    FL_FUSE_CONTAINS(contains3_16_loads, 3, 16, 0, FL_FUSE3_16)                              \
    FL_FUSE_CONTAINS(contains4_8_loads, 4, 8, 0, FL_FUSE4_8)                                 \
    FL_FUSE_CONTAINS(contains4_16_loads, 4, 16, 0, FL_FUSE4_16)                              \
    FL_FUSE_GET(get3_16_loads, 3, 16, 0, FL_BLOOMIER3_16)                                    \
    FL_FUSE_GET(get3_32_loads, 3, 32, 0, FL_BLOOMIER3_32)                                    \
    FL_FUSE_GET(get4_16_loads, 4, 16, 0, FL_BLOOMIER4_16)                                    \
    FL_FUSE_GET(get4_32_loads, 4, 32, 0, FL_BLOOMIER4_32)                                    \
                                                                                             \
    const fl_fuse_kernels fl_fuse_kernels_loads_##isa = {                                    \
        .contains = {contains3_8_loads, contains3_16_loads, contains4_8_loads,               \
                     contains4_16_loads},                                                    \
        .get = {get3_16_loads, get3_32_loads, get4_16_loads, get4_32_loads},                 \
    };                                                                                       \
                                                                                             \
    void fl_fuse_kernels_init_##isa(fl_kernel_table *t) {                                    \
        FL_FUSE_SET(contains[FL_FUSE3_8], contains3_8);                                      \
        FL_FUSE_SET(contains[FL_FUSE3_16], contains3_16);                                    \
        FL_FUSE_SET(contains[FL_FUSE4_8], contains4_8);                                      \
        FL_FUSE_SET(contains[FL_FUSE4_16], contains4_16);                                    \
        FL_FUSE_SET(get[FL_BLOOMIER3_16], get3_16);                                          \
        FL_FUSE_SET(get[FL_BLOOMIER3_32], get3_32);                                          \
        FL_FUSE_SET(get[FL_BLOOMIER4_16], get4_16);                                          \
        FL_FUSE_SET(get[FL_BLOOMIER4_32], get4_32);                                          \
    }

#endif /* FL_FUSE_SIMD_H */
