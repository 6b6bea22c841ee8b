/*
 * filterlab layered Bloom filters: R Bloom filters ("layers") that count insertions of a key
 * up to R, after Zhiwang, Jungang and Jian, "A multi-layer Bloom filter for duplicated URL
 * detection" (ICACTE 2010), as described in seed chapter 004, section 4.11.3.
 *
 * Included by filterlab.h; include that header, not this one.
 *
 * Semantics
 *   count(x): the layers are checked from layer 0 down; the count is the number of
 *   consecutive layers, from layer 0, that report x (0: layer 0 does not; R: all do).
 *   add(x): x goes into the first layer that does not report it, so its count grows by one;
 *   a key that already counts R stays at R (the count saturates, like a counter).
 *   delete(x): takes x out of the deepest layer that reports it (layer count(x) - 1), so its
 *   count drops by one. Only layers that can delete (the counting variants) allow it.
 *
 * Errors (seed 004, 4.11.3)
 *   A count is never below the number of adds of a key (as long as that number is <= R and
 *   nothing was deleted): each add puts the key in one more layer and layers have no false
 *   negatives. It can be above it: a key added c times is reported c + 1 when layer c gives
 *   a false positive, with probability about PF (that layer's FPR), and c + d when d layers
 *   in a row do, about PF^d - if the layers' hash functions are independent. So each layer
 *   probes with its own hash of the key: layer i looks up fl_hash_u64(h, seed + i + 1), a
 *   bijection of the key's 64-bit hash h, remixed per layer (src/layered/layered.c). With one hash
 *   for all layers the deeper layers, which hold a subset of layer 0's keys at the same
 *   positions, would repeat layer 0's false positives and PF^d would not hold.
 *   Layer i holds only keys added more than i times, so deeper layers are emptier and their
 *   FPR is below PF: the measured rates sit under PF^d (tests/test_layered.c measures it).
 *   A delete is exact when the count it reads is exact. When the count was one too high (a
 *   false positive of layer c, probability about PF), the delete removes from layer c a key
 *   that was never there, which takes one count from the keys sharing its cells: some other
 *   key's count may later read one lower than its adds. Delete only keys you added.
 *
 * Sizing: every layer gets the variant's sizing for `capacity` keys at `fpr` (PF). The
 * total memory is R times one filter's; deeper layers are over-provisioned when few keys
 * repeat, which keeps PF^d an upper bound rather than an estimate.
 *
 * Thread safety: like a filter, any number of threads may count at once; adds, deletes,
 * clear and kernel binding need exclusive access.
 */
#ifndef FILTERLAB_LAYERED_H
#define FILTERLAB_LAYERED_H

#include <stddef.h>
#include <stdint.h>

#include "filterlab.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fl_lbf fl_lbf;

/* Most layers: a count fits a byte, and a file holds two sections per layer (src/
 * codec_layered.c) within the container's 256. */
#define FL_LBF_LAYERS_MAX 64u

typedef struct fl_lbf_config {
    uint32_t layers;    /* R, 1..FL_LBF_LAYERS_MAX */
    uint64_t capacity;  /* distinct keys each layer is sized for, >= 1 */
    double fpr;         /* each layer's target FPR (PF), in (0, 1) */
    /* 0: FL_BLOCK512 (one cache line per key and layer, batch kernels serve every layer).
     * A Bloom variant; FL_COUNTING / FL_COUNTING512 allow deletes. Not cuckoo (a table of
     * slots may refuse a key). */
    fl_variant variant;
    fl_hash_id hash;    /* 0: the variant's default hash */
    uint64_t seed;
} fl_lbf_config;

/* Errors: FL_ERR_INVALID_ARG (NULL, layers 0 or above FL_LBF_LAYERS_MAX, unknown variant or
 * hash), FL_ERR_BAD_N, FL_ERR_BAD_FPR, FL_ERR_UNSUPPORTED (cuckoo), FL_ERR_TOO_LARGE,
 * FL_ERR_NO_MEMORY. */
fl_status fl_lbf_create(const fl_lbf_config *cfg, fl_lbf **out);
void fl_lbf_free(fl_lbf *l); /* NULL is a no-op */
void fl_lbf_clear(fl_lbf *l);

/* The key's 64-bit hash (the filter's hash id and seed); layers remix it (above). */
uint64_t fl_lbf_hash_bytes(const fl_lbf *l, const void *key, size_t len);

/* The count of a key, 0..R (0 for a NULL filter). */
uint32_t fl_lbf_count_hash(const fl_lbf *l, uint64_t hash);
uint32_t fl_lbf_count_bytes(const fl_lbf *l, const void *key, size_t len);
/* Batch count: counts[i] = fl_lbf_count_hash(l, hashes[i]). Runs layer by layer over the
 * batch with the layers' batch kernels: layer 0 over every key, layer i over the keys that
 * every layer before it reported. */
fl_status fl_lbf_count_hashes(const fl_lbf *l, const uint64_t *hashes, size_t n,
                              uint8_t *counts);

/* Adds one occurrence; *count (if given) is the key's count after it (R if it already was:
 * nothing changes then, and that is not an error). */
fl_status fl_lbf_add_hash(fl_lbf *l, uint64_t hash, uint32_t *count);
fl_status fl_lbf_add_bytes(fl_lbf *l, const void *key, size_t len, uint32_t *count);
/* Batch add, with exactly the result of adding the keys one by one in order (a key twice
 * in the batch is counted twice); *saturated (if given) = keys that were already at R. */
fl_status fl_lbf_add_hashes(fl_lbf *l, const uint64_t *hashes, size_t n, size_t *saturated);

/* Removes one occurrence (see "Errors" above); *count (if given) = the count after it.
 * FL_ERR_UNSUPPORTED if the layers' variant cannot delete, FL_ERR_NOT_FOUND if the count is
 * 0 (nothing changes). */
fl_status fl_lbf_delete_hash(fl_lbf *l, uint64_t hash, uint32_t *count);
fl_status fl_lbf_delete_bytes(fl_lbf *l, const void *key, size_t len, uint32_t *count);

typedef struct fl_lbf_info {
    uint32_t layers;
    uint64_t capacity;
    double fpr;
    fl_variant variant;
    fl_hash_id hash;
    uint64_t seed;
    fl_geometry geometry;   /* every layer's */
    uint64_t adds;          /* adds that changed the filter (saturated ones not counted) */
    uint64_t deletes;
    size_t bytes;           /* payload bytes of all layers */
    int can_delete;         /* the variant has FL_CAP_DELETE */
} fl_lbf_info;

fl_status fl_lbf_get_info(const fl_lbf *l, fl_lbf_info *out);
/* Keys layer i holds (inserts into it minus deletes from it); 0 if i >= layers. */
uint64_t fl_lbf_layer_keys(const fl_lbf *l, uint32_t i);
/* Layer i itself, read-only (tests, benchmarks); NULL if i >= layers. */
const fl_filter *fl_lbf_layer_at(const fl_lbf *l, uint32_t i);
/* The hash layer i's filter is probed with for a key hash (the per-layer remix). */
uint64_t fl_lbf_layer_hash(const fl_lbf *l, uint32_t i, uint64_t hash);
/* Binds every layer to a named kernel (fl_filter_bind_kernel's rules). Not saved. */
fl_status fl_lbf_bind_kernel(fl_lbf *l, const char *name);

/* Serialization: a container of kind FL_FILE_LAYERED_BLOOM (src/layered/codec_layered.c).
 * max_bytes caps the layers' payload bytes together (0 = none; FL_ERR_TOO_LARGE above it,
 * before any allocation). Other kinds' files are FL_ERR_WRONG_KIND. */
/* fl_lbf_serialized_size, fl_lbf_save_mem, fl_lbf_load_mem,
 * fl_lbf_save_file, fl_lbf_load_file */
FL_DECLARE_FILE_CALLS(fl_lbf, fl_lbf);

#ifdef __cplusplus
}
#endif
#endif /* FILTERLAB_LAYERED_H */
