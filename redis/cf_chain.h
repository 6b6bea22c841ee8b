/*
 * The CF.* value: a chain of filterlab cuckoo filters (FL_CUCKOO, 4-slot buckets) that
 * grows as RedisBloom's scalable cuckoo filter does: when the newest filter refuses a key
 * (its buckets and stash are full), a new filter for capacity * expansion^i items is added
 * (expansion 0: the chain never grows; it takes its capacity, adds less deletes, and refuses
 * more, like a non-scaling Bloom filter). Lookups ask every filter;
 * deletes remove one copy from the newest filter that holds one; counts add up every
 * filter's copies.
 *
 * Sizing: filter i gets the buckets that hold its items at the load the library sizes
 * cuckoo filters for (fl_variant_info.max_load of FL_CUCKOO, 0.94 of unit_slots = 4), so a
 * CF.RESERVE of n items takes n adds before it grows. Chains saved before this sizing
 * (format 1) counted capacity in slots (ceil(capacity / 4) buckets); they load and keep
 * growing that way (CF_SIZING_SLOTS).
 *
 * RedisBloom's BUCKETSIZE and MAXITERATIONS are kept and reported but do not shape the
 * table: filterlab's buckets always have 4 slots (Fan et al. 2014's choice: 95% load
 * before the first failure, against 84% for 2 slots) and its eviction walk is bounded by
 * the library (500 kicks, then an 8-entry victim stash), so the buckets are the same
 * whatever bucket size a client asked for.
 *
 * No Redis dependency (tests/redis/test_chunk.c exercises it under ASan).
 */
#ifndef FLR_CF_CHAIN_H
#define FLR_CF_CHAIN_H
#include <filterlab.h>

#define CF_BUCKET_SIZE_DEFAULT 2u    /* RedisBloom's defaults, reported by CF.INFO */
#define CF_MAX_ITERATIONS_DEFAULT 20u
#define CF_EXPANSION_DEFAULT 1u
/* 12-bit fingerprints (6-byte buckets): a full filter's FPR is about 8 x 0.94 / 4095 =
 * 0.18% at 12.8 bits per reserved item. RedisBloom's default table (2-slot buckets of 8-bit
 * fingerprints, N / 2 buckets rounded up to a power of two, a second table once an insert
 * fails) measured 0.9-1.6% at 2 to 3.5 bytes per item once filled to its capacity: the 12-bit
 * filter takes fewer bytes at a lower FPR at every capacity measured from 1,000 items
 * (scripts/bench-redis --cf-memory; not half-way nor at 100 items: README's CF row). 8 bits
 * would be twice RedisBloom's FPR (2.9%), 16 more bytes than its two tables at 1,000 or 1M
 * items. 13 bits (semi-sorted buckets, Fan et al. 2014) fill the same 6-byte buckets at
 * about half 12's FPR, but every lookup and update decodes its buckets through a table: an
 * opt-in, not the default. A chain keeps the width it was created (or saved) with. */
#define CF_FP_BITS_DEFAULT 12u
#define CF_FILTERS_MAX 64u
#define CF_EXPANSION_MAX 32768u      /* RedisBloom's bound */
#define CF_FILTER_BYTES_MAX (1ull << 32) /* payload of one filter, the first or a grown one */

#define CF_TABLE_BUCKET_SLOTS 4u  /* the slots of every bucket of the library's tables */

typedef struct cf_config {
    uint64_t capacity;
    uint32_t bucket_size, max_iterations, expansion, fp_bits;
} cf_config;

enum cf_sizing {
    CF_SIZING_LOAD = 0,  /* capacity counts items at the library's sizing load (new chains) */
    CF_SIZING_SLOTS = 1, /* capacity counts slots (chains saved in format 1) */
};

typedef struct cf_chain {
    cf_config cfg;
    uint32_t sizing; /* enum cf_sizing */
    /* Payload bytes the whole chain may reach (0: no cap but CF_FILTER_BYTES_MAX per
     * filter). Not saved: the owner sets it on a loaded chain (the server's MAX_BYTES). */
    uint64_t max_bytes;
    uint64_t items, deleted;
    uint32_t filters;
    /* f[0..filters) are the filters, oldest first; f has room for f_alloc of them (grown as
     * the chain grows: an array of CF_FILTERS_MAX in the struct cost a one-filter chain
     * 500 bytes, a third of a 1,000-item 12-bit filter). */
    uint32_t f_alloc;
    fl_filter **f;
} cf_chain;

/* Whether the chain takes fingerprints of this many bits: the widths the library's cuckoo
 * filter takes (its variant info's k_set: 8, 11, 12, 13 or 16), so a width the library gains
 * reaches FPBITS without a change here. */
int cf_fp_bits_ok(int64_t bits);

/* FL_ERR_BAD_N (capacity 0), FL_ERR_BAD_K (fp_bits not cf_fp_bits_ok), FL_ERR_INVALID_ARG (bucket
 * size or iterations 0, expansion above CF_EXPANSION_MAX), FL_ERR_TOO_LARGE (a filter above
 * CF_FILTER_BYTES_MAX, or the chain above max_bytes; growth stops there with the same
 * error), NO_MEMORY. */
fl_status cf_chain_create(const cf_config *cfg, cf_chain **out);
/* The same with max_bytes set (the first filter is checked against it too). */
fl_status cf_chain_create_capped(const cf_config *cfg, uint64_t max_bytes, cf_chain **out);
void cf_chain_free(cf_chain *c);
/* A key's hash, the one every filter of the chain gives it (fl_hash_bytes of any of them). */
uint64_t cf_chain_hash(const cf_chain *c, const void *key, size_t len);
/* Adds one copy. FL_ERR_FULL: no filter could take it and the chain may not grow (or has
 * CF_FILTERS_MAX filters), or the chain may not grow and holds its capacity; no key was
 * added then. */
fl_status cf_chain_add(cf_chain *c, uint64_t hash);
/* Adds one copy of each hash in order through the batch insert of the newest filter,
 * growing the chain where it fills; *added = hashes added (all of them unless FL_ERR_FULL
 * or another error stopped the batch at hashes[*added]). */
fl_status cf_chain_add_hashes(cf_chain *c, const uint64_t *hashes, size_t n, size_t *added);
/* out[i] = 1 if some filter reports hashes[i]. */
fl_status cf_chain_contains(const cf_chain *c, const uint64_t *hashes, size_t n, uint8_t *out);
/* *count = copies of the item's fingerprint in its buckets and stash, summed over the
 * filters (RedisBloom's CF.COUNT): never below the copies added and not deleted. */
fl_status cf_chain_count(const cf_chain *c, uint64_t hash, uint64_t *count);
/* Removes one copy from the newest filter that reports the item; FL_ERR_NOT_FOUND if none
 * does. As in any cuckoo filter, the copy removed may belong to another key with the same
 * fingerprint in the same buckets; in a chain that other key may sit in a newer filter than
 * the item's own copy (RedisBloom's chains share this), so delete only items you added. */
fl_status cf_chain_delete(cf_chain *c, uint64_t hash);
/* Drops the filters that hold no fingerprint (table and stash empty: deletes emptied
 * them), keeping the oldest if all are empty; returns how many were dropped. Lookups,
 * counts and deletes answer as before (an empty filter holds no copy); the next filter
 * the chain grows is sized by the new filter count. Fingerprints are not moved between
 * filters: a fingerprint's alternate bucket depends on its filter's size, and the library
 * gives no access to a slot's fingerprint. */
uint32_t cf_chain_compact(cf_chain *c);
/* Sums over all filters. */
typedef struct cf_totals {
    uint64_t capacity; /* items the filters are sized for (format 1: slots at the load) */
    uint64_t slots, buckets, used; /* used: occupied slots of the tables */
    uint64_t stashed;              /* fingerprints in the filters' victim stashes */
    size_t bytes;                  /* payload bytes */
} cf_totals;
void cf_chain_totals(const cf_chain *c, cf_totals *t);
/* 1 - prod (1 - fpr_i), each filter's model at its stored keys. */
double cf_chain_predicted_fpr(const cf_chain *c);

/* Serialization: a header, each filter as fl_save_mem writes it, and an XXH3 of it all.
 * Loads refuse anything inconsistent (FL_ERR_* of the library's loader, or
 * FL_ERR_CORRUPT / FL_ERR_TRUNCATED / FL_ERR_CHECKSUM / FL_ERR_BAD_MAGIC). */
size_t cf_chain_serialized_size(const cf_chain *c);
fl_status cf_chain_save(const cf_chain *c, uint8_t *buf, size_t cap, size_t *written);
fl_status cf_chain_load(const uint8_t *buf, size_t len, cf_chain **out);

#endif /* FLR_CF_CHAIN_H */
