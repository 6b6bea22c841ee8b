/*
 * Vector quotient filter internals shared by src/vqf/vqf.c and src/vqf/codec_vqf.c. Not
 * installed. The layout and probe math are include/filterlab_vqf.h's.
 */
#ifndef FL_VQF_INTERNAL_H
#define FL_VQF_INTERNAL_H

#include "core/internal.h"

#include "filterlab_vqf.h"
#include "probe.h" /* fl_hash_at: callers' hash arrays may be unaligned */

#pragma GCC visibility push(hidden)

struct fl_vqf {
    uint8_t *blocks;    /* nblocks * 64 bytes, 64-byte aligned (src/core/memory.c's payloads:
                           2 MiB pages from 2 MiB up), FL_PAYLOAD_SLACK bytes after */
    uint32_t nblocks;
    size_t bytes;       /* nblocks * 64 */
    size_t mapped;      /* fl_payload_alloc's: 0 = aligned_alloc'ed */
    uint64_t seed;
    uint64_t items;
    const fl_kernel_table *bound; /* fl_vqf_bind_kernel's table or NULL (atomic access) */
    /* The dispatch's size class of the payload (fl_size_class_settled, in fl_vqf_new): the
     * one-key calls read the process's table for it (fl_kernels_in_class) without
     * recomputing it. */
    uint8_t size_class;
};

/* An empty block's metadata: 80 ones (every bucket closed, none holding a zero). */
#define FL_VQF_EMPTY_LO 0xffffffffffffffffull
#define FL_VQF_EMPTY_HI 0xffffull

/* The items of a block whose metadata is valid (exactly 80 ones: the highest one is then
 * select1(79), at 79 + items, in the high word). */
static inline uint32_t fl_vqf_block_items(const uint8_t *blk) {
    return FL_VQF_SLOTS - (uint32_t)__builtin_clzll(fl_vqf_md_hi(blk));
}

/* vqf.c: n empty blocks at `blocks` (also tune's payload for the vqf update kernels). */
void fl_vqf_init_blocks(uint8_t *blocks, uint32_t n);

/* vqf.c: an empty filter of `blocks` blocks (blocks checked, then the payload allocated). */
fl_status fl_vqf_new(uint32_t blocks, uint64_t seed, fl_vqf **out);

#pragma GCC visibility pop

#endif /* FL_VQF_INTERNAL_H */
