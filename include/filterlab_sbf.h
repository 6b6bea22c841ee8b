/*
 * filterlab scalable Bloom filters: a chain of Bloom filters that grows as keys arrive, after
 * Almeida, Baquero, Preguica and Hutchison, "Scalable Bloom Filters" (Information Processing
 * Letters 101(6), 2007), with RedisBloom's semantics (BF.RESERVE capacity, error_rate,
 * EXPANSION, NONSCALING; tightening ratio 0.5).
 *
 * Included by filterlab.h; include that header, not this one.
 *
 * The chain
 *   Sub-filter i (i = 0, 1, ...) holds capacity_i = ceil(capacity * growth^i) keys at a target
 *   false positive rate p_i = p0 * r^i, where p is the chain's error rate, r the tightening
 *   ratio and p0 = p * (1 - r). Keys go to the newest sub-filter; once it holds capacity_i
 *   keys the next add creates sub-filter i + 1 (or, non-scaling, fails with FL_ERR_FULL).
 *   A lookup is positive if any sub-filter reports the key. A non-scaling chain never has
 *   more than sub-filter 0, so that one gets the whole p (RedisBloom does the same: its first
 *   link is sized for error_rate * 0.5 when scaling, error_rate with NONSCALING).
 *
 * The bound (Almeida et al. 2007, section 4)
 *   A key never added is a false positive of the chain only if it is one of some sub-filter,
 *   so by the union bound, whatever the correlation between sub-filters,
 *       P(false positive) <= sum_i fpr_i(n_i) <= sum_i p_i = p (1 - r) sum_i r^i
 *                         <  p (1 - r) / (1 - r) = p,
 *   where fpr_i(n_i) <= p_i because each sub-filter is sized so that its model's FPR at
 *   capacity_i keys is at most p_i (src/sbf/sbf.c enforces it even where a variant's sizing
 *   rounds k) and it never holds more than capacity_i keys; the model's FPR grows with n.
 *   The bound holds at every fill and for any growth >= 1. fl_sbf_info reports the model's
 *   prediction 1 - prod_i (1 - fpr_i(n_i)), which is below the sum.
 *
 * Growth
 *   growth (RedisBloom's EXPANSION, default 2) scales each new sub-filter's capacity. With
 *   growth = 1 every sub-filter has the initial capacity: memory then grows linearly with the
 *   key count and the chain gets long (a lookup visits every sub-filter), but the FPR bound
 *   is unchanged. Larger growth means fewer sub-filters (about log_growth(n / capacity)) at
 *   the price of a larger last step. Each sub-filter needs about log2(1/r) / ln 2 more bits
 *   per key than the one before it (1.44 bits for r = 0.5), the price of the bound.
 *
 * Sub-filters are ordinary fl_filter objects of the chain's Bloom variant (not cuckoo: a
 * table of slots can refuse a key before its capacity), or classic far down a chain of a
 * blocked variant (layout_slack below), all with the chain's hash and seed, so one hash per
 * key serves the whole chain and every variant's kernels serve it. The bound above does not
 * depend on the layout.
 *
 * Thread safety: like a filter, any number of threads may look keys up at once; adds, clear
 * and kernel binding need exclusive access.
 */
#ifndef FILTERLAB_SBF_H
#define FILTERLAB_SBF_H

#include <stddef.h>
#include <stdint.h>

#include "filterlab.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fl_sbf fl_sbf;

#define FL_SBF_GROWTH_DEFAULT 2.0     /* RedisBloom's default EXPANSION */
#define FL_SBF_TIGHTENING_DEFAULT 0.5 /* RedisBloom's ratio (Almeida et al. also study larger ones) */
/* Most sub-filters a chain may hold: each takes two sections of a file (src/sbf/codec_sbf.c)
 * and the container holds at most 256. With growth 2 that is 2^63 times the capacity. */
#define FL_SBF_FILTERS_MAX 127u
/* A sub-filter falls back to the classic layout when the chain's variant would take more
 * than this many times classic's bytes for its capacity and target (see layout_slack). 2:
 * where a blocked layout has spent its speed's worth of memory (block512 reaches 2x classic
 * near p = 1e-9) and before its size grows as 1/p. */
#define FL_SBF_LAYOUT_SLACK_DEFAULT 2.0

enum fl_sbf_flags {
    /* RedisBloom's NONSCALING: no sub-filter beyond the first; an add past its capacity
     * returns FL_ERR_FULL and changes nothing. */
    FL_SBF_NONSCALING = 1u << 0,
};

typedef struct fl_sbf_config {
    uint64_t capacity;   /* keys of the first sub-filter, >= 1 (BF.RESERVE capacity) */
    double error_rate;   /* the chain's target FPR p, in (0, 1) */
    double growth;       /* 0: FL_SBF_GROWTH_DEFAULT; else >= 1 (FL_ERR_BAD_GROWTH);
                            RedisBloom takes integers, any real >= 1 works here */
    double tightening;   /* 0: FL_SBF_TIGHTENING_DEFAULT; else in (0, 1)
                            (FL_ERR_BAD_TIGHTENING) */
    /* 0: FL_BLOCK512, one cache line per key and sub-filter, so a lookup over the chain
     * costs one cache miss per sub-filter; classic is RedisBloom's layout (k misses). */
    fl_variant variant;
    fl_hash_id hash;     /* 0: the variant's default hash */
    uint64_t seed;
    uint32_t flags;      /* fl_sbf_flags */
    /* Caps on growth (0 = none beyond FL_SBF_FILTERS_MAX): an add that would need more
     * sub-filters or more payload bytes in total fails with FL_ERR_TOO_LARGE and changes
     * nothing. */
    uint32_t max_filters;
    uint64_t max_bytes;
    /* The chain's variant is each sub-filter's layout unless it would take more than
     * layout_slack times the bytes of a classic sub-filter of the same capacity and target
     * (or cannot reach the target); that sub-filter and every later one are then classic.
     * 0: FL_SBF_LAYOUT_SLACK_DEFAULT; INFINITY: never; else >= 1 (FL_ERR_INVALID_ARG),
     * kept in thousandths rounded up (fl_sbf_set_layout_slack).
     * Tightened targets fall without end along a chain, and a blocked layout's size grows
     * as 1/p below about 1e-12, so a long chain (growth 1) of a blocked variant would
     * otherwise grow super-linearly. A policy of the process: files do not store it, a
     * loaded chain has the default until fl_sbf_set_layout_slack. */
    double layout_slack;
} fl_sbf_config;

/* Creates a chain with its first sub-filter.
 * Errors: FL_ERR_INVALID_ARG (NULL, unknown flags, max_filters above FL_SBF_FILTERS_MAX),
 * FL_ERR_BAD_N (capacity 0), FL_ERR_BAD_FPR, FL_ERR_BAD_GROWTH, FL_ERR_BAD_TIGHTENING,
 * FL_ERR_UNSUPPORTED (a variant that is not a Bloom filter), FL_ERR_TOO_LARGE (the first
 * sub-filter alone exceeds max_bytes or 2^32 units), FL_ERR_NO_MEMORY. */
fl_status fl_sbf_create(const fl_sbf_config *cfg, fl_sbf **out);
/* NULL is a no-op. */
void fl_sbf_free(fl_sbf *s);
/* Removes every key and every sub-filter but the first (the chain as created). */
void fl_sbf_clear(fl_sbf *s);

/* The chain's hash of a byte key (every sub-filter's); 0 for a NULL chain. */
uint64_t fl_sbf_hash_bytes(const fl_sbf *s, const void *key, size_t len);

/* Adds a key unless the chain already reports it (RedisBloom's BF.ADD, which returns 0
 * then): *added (if not NULL) is 1 if the key was inserted, 0 if it was reported present -
 * it was added before, or it is a false positive, which is then never added. That keeps
 * the item count a count of distinct-looking keys, as the capacity rule needs.
 * Errors: FL_ERR_INVALID_ARG, FL_ERR_FULL (non-scaling chain at capacity), FL_ERR_TOO_LARGE
 * (growth needs more than max_filters, max_bytes or the byte limit of
 * fl_sbf_set_byte_limit), FL_ERR_BAD_FPR (the variant cannot reach the next sub-filter's
 * p_i), FL_ERR_NO_MEMORY; the chain is then unchanged. */
fl_status fl_sbf_add_hash(fl_sbf *s, uint64_t hash, int *added);
fl_status fl_sbf_add_bytes(fl_sbf *s, const void *key, size_t len, int *added);
/* Batch add, in order (a key repeated in the batch is added once): added[i] (if added is
 * not NULL) = 1 if hashes[i] was inserted, else 0; *count (if not NULL) = the number
 * inserted. On an error the keys before the failing one stay added, added[] says which,
 * and the rest are 0. */
fl_status fl_sbf_add_hashes(fl_sbf *s, const uint64_t *hashes, size_t n, uint8_t *added,
                            size_t *count);

/* 1 if some sub-filter reports the key (may be present), 0 if none (absent). */
int fl_sbf_contains_hash(const fl_sbf *s, uint64_t hash);
int fl_sbf_contains_bytes(const fl_sbf *s, const void *key, size_t len);
/* Batch lookup: out[i] = 1 or 0, *positives (if not NULL) = their sum. Each sub-filter's
 * batch kernel runs over the batch, newest sub-filter first (it holds most keys), then
 * each older one over the keys still negative. */
fl_status fl_sbf_contains_hashes(const fl_sbf *s, const uint64_t *hashes, size_t n,
                                 uint8_t *out, size_t *positives);

/* Keys added (each counted once, see fl_sbf_add_hash); 0 for NULL. */
uint64_t fl_sbf_count(const fl_sbf *s);

typedef struct fl_sbf_info {
    uint64_t capacity;        /* the first sub-filter's capacity (the configured one) */
    uint64_t total_capacity;  /* sum of the sub-filters' capacities: keys before the next
                                 growth */
    uint64_t items;           /* keys added */
    double error_rate, growth, tightening;
    fl_variant variant;
    fl_hash_id hash;
    uint64_t seed;
    uint32_t flags;
    uint32_t max_filters;     /* the effective cap (FL_SBF_FILTERS_MAX when unset) */
    uint64_t max_bytes;       /* the chain's own cap, saved in its file; 0: none */
    uint64_t byte_limit;      /* the process's cap, not saved (fl_sbf_set_byte_limit);
                                 0: none */
    double layout_slack;      /* the effective one (see fl_sbf_config) */
    uint32_t filters;         /* sub-filters now */
    uint32_t classic_filters; /* of them, classic where the chain's variant is another */
    size_t bytes;             /* payload bytes of all sub-filters */
    double predicted_fpr;     /* 1 - prod_i (1 - fpr_i(n_i)), each sub-filter's model at
                                 its key count; at most error_rate */
} fl_sbf_info;

typedef struct fl_sbf_filter_info {
    fl_geometry geometry;
    uint64_t capacity;        /* keys it takes before the chain grows */
    uint64_t items;           /* keys it holds */
    double target_fpr;        /* p_i (non-scaling: p) */
    double predicted_fpr;     /* its model at `items` keys (<= target_fpr) */
    size_t bytes;
    uint64_t bits_set;        /* of its payload's bits (fl_info's: set cells for counting) */
} fl_sbf_filter_info;

fl_status fl_sbf_get_info(const fl_sbf *s, fl_sbf_info *out);
/* Heap bytes the chain holds: its struct, its second allocation when it has one (the
 * sub-filters after the first and the parameters left at their defaults elsewhere: a
 * tightening, seed, max_filters or kernel binding of its own), and each sub-filter's
 * payload (with the few bytes of slack after it that kernels may read). Sub-filters are not
 * filter objects but 32-byte records in the chain (src/sbf/sbf_internal.h): a chain of one
 * sub-filter with the default parameters is 80 bytes and its payload. What the allocator
 * adds to each request (malloc's headers and size classes, a large payload's mapping
 * rounded to 2 MiB pages) is not counted. 0 for NULL. */
size_t fl_sbf_memory(const fl_sbf *s);

/* Sub-filter i (0 = the oldest); FL_ERR_INVALID_ARG if i >= filters. */
fl_status fl_sbf_filter_info_at(const fl_sbf *s, uint32_t i, fl_sbf_filter_info *out);
/* A copy of sub-filter i as a filter of its own (payload, count, hash, seed and the chain's
 * kernel binding), for tests, benchmarks and tools that probe one sub-filter; the caller
 * frees it with fl_free. FL_ERR_INVALID_ARG if i >= filters, FL_ERR_NO_MEMORY. */
fl_status fl_sbf_filter_copy(const fl_sbf *s, uint32_t i, fl_filter **out);
/* The name of the kernel sub-filter i runs (the chain's binding, else the process's choice
 * for its payload's size); NULL if i >= filters. */
const char *fl_sbf_kernel(const fl_sbf *s, uint32_t i);

/* Sets the layout slack for the sub-filters the chain creates from now on (layout_slack's
 * rules; 0 restores the default). The chain keeps it in thousandths, rounded up (a
 * threshold: 1.1 stays 1.1, 1.23456 becomes 1.235; INFINITY stays INFINITY).
 * FL_ERR_INVALID_ARG for NULL or a value below 1. */
fl_status fl_sbf_set_layout_slack(fl_sbf *s, double slack);

/* Caps the payload bytes of all sub-filters together for this chain in this process:
 * growth that would pass it fails with FL_ERR_TOO_LARGE and changes nothing, like the
 * chain's own max_bytes; the tighter of the two applies. Unlike max_bytes it is not saved:
 * it is the holder's policy, not a property of the chain. A load sets it to the load's
 * max_bytes (see below); 0 removes it (the chain's own max_bytes, if any, still applies).
 * A limit below the bytes the chain already holds stops its growth and frees nothing.
 * FL_ERR_INVALID_ARG for NULL. */
fl_status fl_sbf_set_byte_limit(fl_sbf *s, uint64_t bytes);

/* Binds every sub-filter, and those the chain creates later, to a named kernel
 * (fl_filter_bind_kernel's rules; NULL or "auto" unbinds). Not saved in files.
 * FL_ERR_NO_MEMORY: the chain's second allocation, which holds the binding, could not be
 * made; the binding is then unchanged. */
fl_status fl_sbf_bind_kernel(fl_sbf *s, const char *name);

/* Serialization: one file holds the whole chain (a container of its own kind; see
 * src/sbf/codec_sbf.c). max_bytes caps the payload bytes of all sub-filters together that a
 * load will allocate (0 = no cap; FL_ERR_TOO_LARGE above it, before any allocation), and
 * stays the loaded chain's byte limit (fl_sbf_set_byte_limit): the adds that follow never
 * take the chain past it either, whatever max_bytes and parameters the file stores (a
 * file can make its next sub-filter ask for gigabytes). Load a file from an untrusted
 * source with a cap. A load with 0 trusts the file: its chain grows under its own stored
 * max_bytes only (0 there too: up to FL_SBF_FILTERS_MAX sub-filters of up to 2^32 units
 * each). The limit is not saved: a save writes back the stored max_bytes exactly.
 * fl_load_* of a chain's file, or fl_sbf_load_* of a filter's, is FL_ERR_WRONG_KIND. */
/* fl_sbf_serialized_size, fl_sbf_save_mem, fl_sbf_load_mem,
 * fl_sbf_save_file, fl_sbf_load_file */
FL_DECLARE_FILE_CALLS(fl_sbf, fl_sbf);


#ifdef __cplusplus
}
#endif
#endif /* FILTERLAB_SBF_H */
