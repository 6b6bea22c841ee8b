/*
 * filterlab HyperLogLog: distinct counting in Redis's layout (included by filterlab.h).
 *
 * A sketch of m = 2^p registers (Flajolet, Fusy, Gandouet, Meunier 2007). Each key is hashed
 * with MurmurHash64A (seed 0xadc83b19, Redis's hash); the low p bits choose a register and
 * the run of zero bits above them, plus one, is the value the register keeps the maximum of.
 * The estimate is Ertl's improved raw estimator ("New cardinality estimation algorithms for
 * HyperLogLog sketches", arXiv:1702.01284, 2017), the one redis-server 7 uses for PFCOUNT,
 * computed in the same order so that p = 14 gives exactly PFCOUNT's number.
 *
 * p = 14 is Redis's sketch (16384 6-bit registers, standard error 1.04/sqrt(m) = 0.81%).
 * It starts in Redis's sparse encoding (runs of zeros and of equal values as opcodes) and is
 * promoted to the dense one by Redis's rule: when a register needs a value above 32, or when
 * the string would grow past hll-sparse-max-bytes (3000 by default). Adds follow Redis's
 * sparse update step for step, so the same PFADDs give the same bytes. Other precisions
 * (4 to 16) are a filterlab extension: always dense, never exported in Redis's format
 * (p = 11 is 2048 registers, 1536 bytes at 6 bits, 2.3% standard error).
 *
 * Thread safety: adds, merges, clears and fl_hll_count (which caches its result, as PFCOUNT
 * does) need exclusive access; fl_hll_info and exports may run concurrently with each other.
 */
#ifndef FILTERLAB_HLL_H
#define FILTERLAB_HLL_H

#include <stddef.h>
#include <stdint.h>

#include "filterlab_errors.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fl_hll fl_hll;

#define FL_HLL_P_MIN 4
#define FL_HLL_P_MAX 16
#define FL_HLL_REDIS_P 14                 /* Redis's precision: 16384 registers */
#define FL_HLL_REDIS_SEED 0xadc83b19u     /* Redis's MurmurHash64A seed */
#define FL_HLL_REDIS_HDR_BYTES 16         /* "HYLL", encoding, 3 unused, 8-byte cached count */
#define FL_HLL_REDIS_DENSE_BYTES (16 + 12288) /* header + 16384 registers of 6 bits */
#define FL_HLL_SPARSE_MAX_DEFAULT 3000    /* Redis's hll-sparse-max-bytes default */

typedef enum fl_hll_encoding {
    FL_HLL_SPARSE = 1, /* Redis's sparse opcodes (ZERO, XZERO, VAL); p = 14 only */
    FL_HLL_DENSE = 0,  /* one register per index */
} fl_hll_encoding;

typedef struct fl_hll_info {
    uint32_t precision;     /* p */
    uint32_t registers;     /* m = 2^p */
    fl_hll_encoding encoding;
    uint32_t registers_set; /* registers above 0 */
    uint32_t max_register;  /* largest register value */
    size_t redis_bytes;     /* length of the Redis string (p = 14), else of 6-bit registers */
    size_t memory_bytes;    /* bytes this handle holds for its registers or opcodes */
    double std_error;       /* 1.04 / sqrt(m) (Flajolet et al. 2007) */
    int cache_valid;        /* the cached count is current (the header's flag) */
    uint64_t cached_count;  /* meaningful when cache_valid */
    size_t sparse_max_bytes;/* promotion threshold in force */
} fl_hll_info;

/* MurmurHash64A (Appleby's MurmurHash2, 64-bit variant for 64-bit platforms) over len bytes,
 * the little-endian reading Redis uses on every host. */
uint64_t fl_murmur64a(const void *data, size_t len, uint64_t seed);

/* A new empty sketch of 2^p registers. p = 14 starts sparse (like a new Redis key); others are
 * dense. Errors: FL_ERR_INVALID_ARG (NULL out), FL_ERR_BAD_PRECISION, FL_ERR_NO_MEMORY. */
fl_status fl_hll_create(uint32_t p, fl_hll **out);
void fl_hll_free(fl_hll *h);
/* Empties the sketch (p = 14 goes back to sparse), keeping precision and kernel binding. */
fl_status fl_hll_clear(fl_hll *h);
/* A copy with its own memory (and the same kernel binding). */
fl_status fl_hll_clone(const fl_hll *h, fl_hll **out);

/* Adds keys; *changed (may be NULL) is set to 1 if a register grew (PFADD's reply), else 0.
 * add_bytes hashes one string; add_strings n strings; add_u64s hashes each key as the 8
 * little-endian bytes Redis would get from that binary string; add_hashes takes
 * MurmurHash64A values already computed (seed FL_HLL_REDIS_SEED for Redis's answers).
 * Errors: FL_ERR_INVALID_ARG (NULL h, or NULL arrays with n > 0), FL_ERR_NO_MEMORY (a
 * sparse sketch could not grow: it is unchanged by that key). */
fl_status fl_hll_add_bytes(fl_hll *h, const void *data, size_t len, int *changed);
fl_status fl_hll_add_strings(fl_hll *h, const void *const *data, const size_t *lens, size_t n,
                             int *changed);
fl_status fl_hll_add_u64s(fl_hll *h, const uint64_t *keys, size_t n, int *changed);
fl_status fl_hll_add_hashes(fl_hll *h, const uint64_t *hashes, size_t n, int *changed);

/* The estimate (PFCOUNT): the cached value when valid, else computed and cached.
 * Errors: FL_ERR_INVALID_ARG (NULL h or out). */
fl_status fl_hll_count(fl_hll *h, uint64_t *out);
/* The estimate computed from the registers, ignoring (and not touching) the cache. */
fl_status fl_hll_estimate(const fl_hll *h, uint64_t *out);

/* dst = union of dst and src (register-wise max, PFMERGE). A dense src makes dst dense, as
 * PFMERGE does; a sparse dst stays sparse while Redis's rule lets it. Errors:
 * FL_ERR_INVALID_ARG, FL_ERR_INCOMPATIBLE (different precision), FL_ERR_NO_MEMORY. */
fl_status fl_hll_merge(fl_hll *dst, const fl_hll *src);

/* Converts a sparse sketch to dense now (no-op when dense). */
fl_status fl_hll_to_dense(fl_hll *h);
/* Redis's hll-sparse-max-bytes for this handle (string length, header included; 0 makes the
 * next growing add promote). Does not convert an existing sparse sketch by itself. */
fl_status fl_hll_set_sparse_max(fl_hll *h, size_t bytes);

fl_status fl_hll_info_get(const fl_hll *h, fl_hll_info *out);
/* Register i's value (i < 2^p); for tests and tools. */
fl_status fl_hll_register(const fl_hll *h, uint32_t i, uint8_t *out);

/* ---- Redis's string (the value GET returns for a PFADD key), p = 14 only ---------------
 * Import validates everything: "HYLL" magic (FL_ERR_HLL_FORMAT), encoding byte 0 or 1
 * (FL_ERR_HLL_FORMAT), a dense string of exactly 12304 bytes (shorter: FL_ERR_TRUNCATED,
 * longer: FL_ERR_TRAILING_DATA), sparse opcodes covering exactly 16384 registers (fewer:
 * FL_ERR_TRUNCATED, running past them: FL_ERR_HLL_FORMAT). The three unused header bytes
 * and the cached count are kept as found, so an import exported again gives the same bytes.
 * Dense 6-bit registers above 51 (unreachable by adds) are kept and counted as Redis does. */
fl_status fl_hll_import_redis(const void *buf, size_t len, fl_hll **out);
/* Bytes fl_hll_export_redis writes; FL_ERR_UNSUPPORTED for p != 14. */
fl_status fl_hll_export_redis_size(const fl_hll *h, size_t *out);
/* Writes the Redis string (its current encoding) into buf; FL_ERR_BUFFER_TOO_SMALL if cap is
 * short (nothing written then), FL_ERR_UNSUPPORTED for p != 14. */
fl_status fl_hll_export_redis(const fl_hll *h, void *buf, size_t cap, size_t *written);

/* Kernel choice per sketch, like fl_filter_bind_kernel ("auto" or NULL unbinds). */
fl_status fl_hll_bind_kernel(fl_hll *h, const char *name);
const char *fl_hll_kernel(const fl_hll *h);

#ifdef __cplusplus
}
#endif
#endif /* FILTERLAB_HLL_H */
