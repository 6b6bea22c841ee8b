/*
 * HyperLogLog internals shared by src/hll*.c. Not installed.
 *
 * A sketch is in one of Redis's two encodings (include/filterlab_hll.h):
 *   dense:  regs holds one byte per register (values 0..63) and FL_HLL_REG_PAD zero bytes
 *           after them, 64-byte aligned, the form the kernels work on; Redis's 6-bit packing
 *           exists only in exported strings (src/hll/hll_redis.c).
 *   sparse: sp holds Redis's opcodes exactly as Redis keeps them after its 16-byte header
 *           (src/hll/hll_sparse.c), so adds and exports give Redis's bytes; regs is NULL.
 */
#ifndef FL_HLL_INTERNAL_H
#define FL_HLL_INTERNAL_H

#include "core/internal.h"

#include "hll_probe.h"

#pragma GCC visibility push(hidden)

struct fl_hll {
    uint32_t p, m;
    fl_hll_encoding enc;
    uint8_t *regs;          /* dense: m + FL_HLL_REG_PAD bytes; NULL while sparse */
    uint8_t *sp;            /* sparse: opcodes; NULL while dense */
    size_t sp_len, sp_cap;
    uint8_t card[8];        /* Redis's cached count, little-endian; card[7] bit 7 = stale */
    uint8_t unused[3];      /* Redis's three unused header bytes, kept for round trips */
    size_t sparse_max;      /* hll-sparse-max-bytes: string length including the header */
    const fl_kernel_table *bound; /* fl_hll_bind_kernel's table or NULL (atomic access) */
};

#define FL_HLL_SPARSE_XZERO_MAX 16384 /* registers one XZERO opcode covers at most */
#define FL_HLL_SPARSE_VAL_MAX 32      /* largest value a VAL opcode holds */

static inline const fl_kernel_table *fl_hll_kernels_of(const fl_hll *h) {
    return fl_kernels_bound(&h->bound, h->m);
}

static inline void fl_hll_invalidate(fl_hll *h) {
    h->card[7] |= 0x80;
}

/* hll.c */
fl_status fl_hll_alloc_regs(fl_hll *h);          /* zeroed dense registers (not attached) */
fl_status fl_hll_new(uint32_t p, fl_hll **out);  /* a handle with nothing allocated */

/* hll_sparse.c: Redis's sparse encoding (p = 14, m = 16384). */
/* An empty sketch's opcodes (one XZERO of 16384 registers). */
fl_status fl_hll_sparse_init(fl_hll *h);
/* Checks opcodes cover exactly m registers: FL_OK, FL_ERR_TRUNCATED (fewer registers, or an
 * XZERO cut after its first byte), FL_ERR_HLL_FORMAT (a run past register m). */
fl_status fl_hll_sparse_validate(const uint8_t *sp, size_t len, uint32_t m);
/* Redis's hllSparseSet: *result = 1 if register idx grew to count, 0 if it already held as
 * much, 2 if the sketch must be promoted first (value above 32, or the string would pass
 * sparse_max); the sketch is unchanged in cases 0 and 2. FL_ERR_NO_MEMORY leaves it as it
 * was. */
fl_status fl_hll_sparse_set(fl_hll *h, uint32_t idx, uint8_t count, int *result);
/* Adds the histogram of register values (hist[v] += registers equal to v). */
void fl_hll_sparse_histo(const uint8_t *sp, size_t len, uint32_t hist[64]);
/* Writes every register into regs[0..m) (regs zeroed by the caller). */
void fl_hll_sparse_decode(const uint8_t *sp, size_t len, uint8_t *regs);
/* Sparse to dense, keeping the header fields (Redis's hllSparseToDense). */
fl_status fl_hll_promote(fl_hll *h);

#pragma GCC visibility pop

#endif /* FL_HLL_INTERNAL_H */
