/*
 * The CF.* value: a chain of filterlab cuckoo filters (FL_CUCKOO, 4-slot buckets) that
 * grows as RedisBloom's scalable cuckoo filter does: when the newest filter refuses a key
 * (its buckets and stash are full), a new filter of capacity * expansion^i slots is added
 * (expansion 0: the chain never grows and the insert fails). Lookups ask every filter;
 * deletes remove one copy from the newest filter that holds one.
 *
 * RedisBloom's BUCKETSIZE and MAXITERATIONS are kept and reported but do not shape the
 * table: filterlab's buckets always have 4 slots (Fan et al. 2014's choice: 95% load
 * before the first failure, against 84% for 2 slots) and its eviction walk is bounded by
 * the library (500 kicks, then an 8-entry victim stash), so the filter holds `capacity`
 * slots in ceil(capacity / 4) buckets whatever bucket size a client asked for.
 *
 * No Redis dependency (tests/redis/test_chunk.c exercises it under ASan).
 */
#ifndef FLR_CF_CHAIN_H
#define FLR_CF_CHAIN_H
#include <filterlab.h>

#define CF_BUCKET_SIZE_DEFAULT 2u    /* RedisBloom's defaults, reported by CF.INFO */
#define CF_MAX_ITERATIONS_DEFAULT 20u
#define CF_EXPANSION_DEFAULT 1u
#define CF_FP_BITS_DEFAULT 16u       /* 16-bit fingerprints: FPR about 8 / 2^16 per filter */
#define CF_FILTERS_MAX 64u
#define CF_EXPANSION_MAX 32768u      /* RedisBloom's bound */
#define CF_FILTER_BYTES_MAX (1ull << 32) /* payload of one filter, the first or a grown one */

typedef struct cf_config {
    uint64_t capacity;
    uint32_t bucket_size, max_iterations, expansion, fp_bits;
} cf_config;

typedef struct cf_chain {
    cf_config cfg;
    uint64_t items, deleted;
    uint32_t filters;
    fl_filter *f[CF_FILTERS_MAX];
} cf_chain;

/* FL_ERR_BAD_N (capacity 0), FL_ERR_BAD_K (fp_bits not 8/16), FL_ERR_INVALID_ARG (bucket
 * size or iterations 0, expansion above CF_EXPANSION_MAX), FL_ERR_TOO_LARGE (a filter above
 * CF_FILTER_BYTES_MAX; growth stops there with the same error), NO_MEMORY. */
fl_status cf_chain_create(const cf_config *cfg, cf_chain **out);
void cf_chain_free(cf_chain *c);
uint64_t cf_chain_hash(const cf_chain *c, const void *key, size_t len);
/* Adds one copy. FL_ERR_FULL: no filter could take it and the chain may not grow (or has
 * CF_FILTERS_MAX filters); no key was added then. */
fl_status cf_chain_add(cf_chain *c, uint64_t hash);
/* Adds one copy of each hash in order through the batch insert of the newest filter,
 * growing the chain where it fills; *added = hashes added (all of them unless FL_ERR_FULL
 * or another error stopped the batch at hashes[*added]). */
fl_status cf_chain_add_hashes(cf_chain *c, const uint64_t *hashes, size_t n, size_t *added);
/* out[i] = 1 if some filter reports hashes[i]. */
fl_status cf_chain_contains(const cf_chain *c, const uint64_t *hashes, size_t n, uint8_t *out);
/* Removes one copy from the newest filter that reports the item; FL_ERR_NOT_FOUND if none
 * does. As in any cuckoo filter, the copy removed may belong to another key with the same
 * fingerprint in the same buckets; in a chain that other key may sit in a newer filter than
 * the item's own copy (RedisBloom's chains share this), so delete only items you added. */
fl_status cf_chain_delete(cf_chain *c, uint64_t hash);
/* Slots of all filters, payload bytes, buckets (all filters), occupied slots. */
void cf_chain_totals(const cf_chain *c, uint64_t *capacity, size_t *bytes, uint64_t *buckets,
                     uint64_t *used);
/* 1 - prod (1 - fpr_i), each filter's model at its stored keys. */
double cf_chain_predicted_fpr(const cf_chain *c);

/* Serialization: a header, each filter as fl_save_mem writes it, and an XXH3 of it all.
 * Loads refuse anything inconsistent (FL_ERR_* of the library's loader, or
 * FL_ERR_CORRUPT / FL_ERR_TRUNCATED / FL_ERR_CHECKSUM / FL_ERR_BAD_MAGIC). */
size_t cf_chain_serialized_size(const cf_chain *c);
fl_status cf_chain_save(const cf_chain *c, uint8_t *buf, size_t cap, size_t *written);
fl_status cf_chain_load(const uint8_t *buf, size_t len, cf_chain **out);

#endif /* FLR_CF_CHAIN_H */
