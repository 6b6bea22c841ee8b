/*
 * filterlab Count-Min sketch: frequency estimates, heavy hitters and a top-k list (included by
 * filterlab.h).
 *
 * A sketch of d rows of w 32-bit counters (Cormode and Muthukrishnan, "An Improved Data Stream
 * Summary: The Count-Min Sketch and its Applications", J. Algorithms 55(1), 2005). An update
 * of key x by c adds c to one counter per row; the estimate of x is the smallest of its d
 * counters. Collisions only add, so an estimate is never below the true count f(x), and with
 * w = ceil(e / epsilon), d = ceil(ln(1 / delta)) the paper's Theorem 1 gives
 * P[estimate > f(x) + epsilon * N] <= delta, N being the sum of all increments.
 *
 * Positions: a key is hashed once to 64 bits (XXH3 with the sketch's seed for bytes, the
 * SplitMix64 finalizer of fl_hash_u64 for integers); row r uses g_r = h + r * h2 with
 * h2 = rotl(h, 32) | 1 (Kirsch and Mitzenmacher, "Less Hashing, Same Performance", 2006, the
 * same double hashing as the classic Bloom filter) and column reduce32(g_r >> 32, w)
 * (Lemire's multiply-shift), so w need not be a power of two.
 *
 * Conservative update (Estan and Varghese, "New Directions in Traffic Measurement and
 * Accounting", SIGCOMM 2002), chosen at create: an update raises each of the key's counters
 * only to max(counter, estimate + c). Estimates stay at or above the true counts and never
 * exceed those of the plain update on the same stream; such a sketch can still be merged, but
 * the merge of two conservative sketches is only a plain-update bound for the union.
 *
 * Saturation: a counter that would pass UINT32_MAX stays at UINT32_MAX (an estimate then
 * means "at least 4294967295"), and N stops at UINT64_MAX; fl_cms_info counts saturated
 * counters and says whether N saturated. A saturated counter still never underestimates.
 *
 * Heavy hitters and top-k (optional, topk > 0 at create): the sketch keeps a bounded set of
 * topk candidates (keys copied as bytes, with their estimates), a min-heap on the estimate
 * refreshed at every update of a candidate: the key's new estimate is computed; a candidate
 * takes it, a non-candidate enters while there is room, or replaces the candidate of the
 * smallest stored estimate if its own estimate is larger. This is the "sketch plus heap" of
 * Cormode and Muthukrishnan (2005, section 4.1), not RedisBloom's HeavyKeeper. What it can
 * miss: an item whose updates all came while topk candidates with larger estimates were held,
 * or that was evicted after its last update. Guarantee: if every candidate's estimate is
 * within epsilon * N of its true count (each fails with probability at most delta), an item
 * whose true count exceeds phi * N at the end is in the set whenever topk >= 1 / (phi -
 * epsilon): topk other items each with estimate >= phi * N would need true counts summing
 * past N. Only updates by bytes or u64 keys feed the candidates (a bare hash has no key to
 * keep), and keys longer than FL_CMS_KEY_MAX are counted but never kept; a merge does not
 * carry the other sketch's candidates (its counters, and so every later estimate, include
 * them). A u64 key and the 8-byte string of its little-endian bytes hash differently and are
 * two different keys, even though the list prints them alike.
 *
 * Thread safety: updates, merges and clears need exclusive access; queries, info and saves
 * may run concurrently with each other.
 */
#ifndef FILTERLAB_CMS_H
#define FILTERLAB_CMS_H

#include <stddef.h>
#include <stdint.h>

#include "filterlab_files.h" /* fl_status, FL_DECLARE_FILE_CALLS */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fl_cms fl_cms;

#define FL_CMS_DEPTH_MAX 32u                 /* rows; delta >= e^-32 ~ 1.3e-14 */
#define FL_CMS_BYTES_MAX (1ull << 32)        /* counter bytes one sketch may hold (4 GiB) */
#define FL_CMS_TOPK_MAX 65536u               /* most candidates tracked */
#define FL_CMS_KEY_MAX 4096u                 /* longest key a candidate keeps (bytes) */

typedef struct fl_cms_config {
    /* Shape: width and depth, or both 0 to size from epsilon and delta
     * (w = ceil(e / epsilon), d = ceil(ln(1 / delta)), as seed 003 and the paper do). */
    uint32_t width, depth;
    double epsilon, delta;
    uint64_t seed;        /* hash seed */
    int conservative;     /* 1: conservative update */
    uint32_t topk;        /* candidates tracked for heavy hitters / top-k; 0: none */
} fl_cms_config;

typedef struct fl_cms_info {
    uint32_t width, depth;
    uint64_t seed;
    int conservative;
    size_t bytes;              /* counter bytes (width * depth * 4) */
    uint64_t total;            /* N, the sum of all increments (saturating) */
    int total_saturated;       /* N reached UINT64_MAX */
    uint64_t saturated;        /* counters at UINT32_MAX */
    double epsilon, delta;     /* the bounds this shape gives: e / w and e^-d */
    uint32_t topk;             /* candidate capacity (0: not tracked) */
    uint32_t candidates;       /* candidates held */
} fl_cms_info;

/* A candidate as fl_cms_top and fl_cms_heavy_hitters return it: key points into the sketch
 * (valid until the next update, merge, clear or free of that sketch). */
typedef struct fl_cms_item {
    const void *key;
    size_t len;
    uint64_t estimate;
} fl_cms_item;

/* The seeds' shape for (epsilon, delta): w = ceil(e / epsilon), d = ceil(ln(1 / delta)).
 * Errors: FL_ERR_INVALID_ARG (NULL out), FL_ERR_BAD_ACCURACY (epsilon or delta outside
 * (0, 1) or NaN), FL_ERR_TOO_LARGE (w >= 2^32 or d > FL_CMS_DEPTH_MAX). */
fl_status fl_cms_dims(double epsilon, double delta, uint32_t *width, uint32_t *depth);

/* A new zeroed sketch. Errors: FL_ERR_INVALID_ARG (NULL cfg or out), FL_ERR_BAD_ACCURACY,
 * FL_ERR_BAD_GEOMETRY (width or depth 0 with the other set, or depth > FL_CMS_DEPTH_MAX),
 * FL_ERR_TOO_LARGE (counters past FL_CMS_BYTES_MAX or w >= 2^32), FL_ERR_BAD_K (topk above
 * FL_CMS_TOPK_MAX), FL_ERR_NO_MEMORY. */
fl_status fl_cms_create(const fl_cms_config *cfg, fl_cms **out);
void fl_cms_free(fl_cms *c);
/* Zeroes counters, N and candidates; keeps shape, seed, mode and kernel binding. */
fl_status fl_cms_clear(fl_cms *c);

/* The hash fl_cms_add_bytes uses (XXH3-64 with the sketch's seed) and the one of u64 keys
 * (fl_hash_u64 with the seed); 0 for a NULL sketch. */
uint64_t fl_cms_hash_bytes(const fl_cms *c, const void *key, size_t len);
uint64_t fl_cms_hash_u64(const fl_cms *c, uint64_t key);

/* Updates. inc is added with saturation; inc 0 is allowed and changes nothing but may make
 * the key a candidate. Batch forms take incs[i] for key i, or NULL for 1 each, and are
 * identical to the single calls in order (colliding keys included); u64 key and hash arrays
 * need no alignment. Keys of bytes or u64 feed the candidates when topk > 0; u64 keys are
 * kept as their 8 little-endian bytes.
 * Errors: FL_ERR_INVALID_ARG (NULL c, NULL key with len > 0, NULL arrays with n > 0),
 * FL_ERR_NO_MEMORY (a candidate's key copy could not be allocated: that key and the ones
 * after it in a batch are not counted). */
fl_status fl_cms_add_bytes(fl_cms *c, const void *key, size_t len, uint32_t inc);
fl_status fl_cms_add_strings(fl_cms *c, const void *const *keys, const size_t *lens, size_t n,
                             const uint32_t *incs);
fl_status fl_cms_add_u64(fl_cms *c, uint64_t key, uint32_t inc);
fl_status fl_cms_add_u64s(fl_cms *c, const uint64_t *keys, size_t n, const uint32_t *incs);
fl_status fl_cms_add_hash(fl_cms *c, uint64_t hash, uint32_t inc);
fl_status fl_cms_add_hashes(fl_cms *c, const uint64_t *hashes, size_t n, const uint32_t *incs);
/* fl_cms_add_bytes that also says which candidate the key displaced, in O(1) expected time:
 * when the key entered a full candidate set, the candidate it replaced (the smallest stored
 * estimate) has its key bytes copied to expelled, which must have room for FL_CMS_KEY_MAX
 * bytes, and *expelled_len is their count; otherwise (no candidate left, or an error)
 * *expelled_len is SIZE_MAX. Errors as fl_cms_add_bytes, and FL_ERR_INVALID_ARG for a NULL
 * expelled or expelled_len. */
fl_status fl_cms_add_bytes_expel(fl_cms *c, const void *key, size_t len, uint32_t inc,
                                 void *expelled, size_t *expelled_len);

/* Estimates (0 for a NULL sketch; batch: FL_ERR_INVALID_ARG for NULL arrays with n > 0). */
uint32_t fl_cms_query_bytes(const fl_cms *c, const void *key, size_t len);
uint32_t fl_cms_query_u64(const fl_cms *c, uint64_t key);
uint32_t fl_cms_query_hash(const fl_cms *c, uint64_t hash);
fl_status fl_cms_query_u64s(const fl_cms *c, const uint64_t *keys, size_t n, uint32_t *out);
fl_status fl_cms_query_hashes(const fl_cms *c, const uint64_t *hashes, size_t n,
                              uint32_t *out);

/* N, the sum of all increments (saturating at UINT64_MAX); 0 for NULL. */
uint64_t fl_cms_total(const fl_cms *c);

/* dst += src counter by counter with saturation, N likewise. Both must have the same width,
 * depth and seed (FL_ERR_INCOMPATIBLE otherwise); dst's candidates are re-estimated and
 * reordered, src's are not carried over. */
fl_status fl_cms_merge(fl_cms *dst, const fl_cms *src);

/* dst = sum of weights[i] * srcs[i] over every counter and N, computed exactly with signed
 * 64-bit weights (a negative weight subtracts a sketch; dst may be one of srcs). All must
 * have dst's width, depth and seed (FL_ERR_INCOMPATIBLE). FL_ERR_TOO_LARGE, with dst
 * unchanged, if any product or sum overflows 64 bits, a counter would leave [0, 2^32 - 1]
 * or N would be negative; no counter saturates. */
fl_status fl_cms_merge_weighted(fl_cms *dst, const fl_cms *const *srcs, const int64_t *weights,
                                size_t n);

/* Up to cap candidates in decreasing estimate order (ties: shorter key, then bytes), their
 * estimates re-read from the counters; *count says how many were written. Errors:
 * FL_ERR_INVALID_ARG (NULL c or count, NULL out with cap > 0), FL_ERR_UNSUPPORTED (topk 0). */
fl_status fl_cms_top(const fl_cms *c, fl_cms_item *out, size_t cap, size_t *count);
/* 1 if the key's bytes are a candidate's key (one added by those bytes, or a u64 key whose 8
 * little-endian bytes they are), in O(1) expected time; 0 otherwise and for a NULL sketch. */
int fl_cms_is_candidate(const fl_cms *c, const void *key, size_t len);
/* The candidates whose estimate exceeds phi * N, in decreasing order, as fl_cms_top.
 * FL_ERR_BAD_ACCURACY for phi outside (0, 1). */
fl_status fl_cms_heavy_hitters(const fl_cms *c, double phi, fl_cms_item *out, size_t cap,
                               size_t *count);

fl_status fl_cms_info_get(const fl_cms *c, fl_cms_info *out);

/* ---- persistence (filterlab format v2, kind Count-Min) ---------------------------------
 * Loads validate everything (container, shape, counters, candidates); a file of another kind
 * is FL_ERR_WRONG_KIND. max_bytes caps the counter bytes (0: no cap; FL_ERR_TOO_LARGE
 * above it). Files are replaced atomically, as fl_save_file does. */
/* fl_cms_serialized_size, fl_cms_save_mem, fl_cms_load_mem,
 * fl_cms_save_file, fl_cms_load_file */
FL_DECLARE_FILE_CALLS(fl_cms, fl_cms);

/* Kernel choice per sketch, like fl_filter_bind_kernel ("auto" or NULL unbinds). */
fl_status fl_cms_bind_kernel(fl_cms *c, const char *name);
const char *fl_cms_kernel(const fl_cms *c);

#ifdef __cplusplus
}
#endif
#endif /* FILTERLAB_CMS_H */
