/*
 * filterlab: blocked Bloom filters and cuckoo filters with SIMD kernels.
 *
 * The one public header. Everything below the hash works on 64-bit hashes in batches:
 *
 *   bytes --fl_hash_bytes--> u64 hash --fl_contains_hashes--> kernel[isa] --> one byte per key
 *
 * Conventions
 *   - Every call that can fail returns an fl_status; FL_OK is 0. fl_strerror() names it.
 *     The library never prints, exits or aborts.
 *   - Batch lookups write one byte per key (1 = may be present, 0 = certainly absent) and
 *     return the number of positives. Byte-per-key output was chosen over a bitmask because
 *     it composes with any batch length, needs no tail handling by the caller and is what a
 *     selection step (e.g. a column scan) consumes directly.
 *   - Thread safety: any number of threads may run lookups on one filter at once. Inserts
 *     need exclusive access, except fl_insert_hashes_atomic() on the Bloom variants, which
 *     may run concurrently with other atomic inserts and with lookups (it ORs with atomic
 *     64-bit operations; a lookup racing an insert of the same key may miss it, never a key
 *     whose insert completed before the lookup started). The counting variants have it too
 *     (a compare-and-swap per 4-bit counter, saturating at 15; not concurrent with deletes).
 */
#ifndef FILTERLAB_H
#define FILTERLAB_H

#include <stddef.h>
#include <stdint.h>

#include "filterlab_errors.h"
#include "filterlab_files.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FL_VERSION_MAJOR 0
#define FL_VERSION_MINOR 1
#define FL_VERSION_PATCH 0

/* ---------------------------------------------------------------------------------------
 * Variants
 * ------------------------------------------------------------------------------------- */
typedef enum fl_variant {
    FL_CLASSIC = 1,  /* textbook Bloom, k positions over the whole array (Kirsch-Mitzenmacher) */
    FL_BLOCK512 = 2, /* one 64-byte cache line per key, k bits inside it (Putze et al. 2007) */
    FL_SPLIT256 = 3, /* Apache Parquet split block Bloom filter: 32-byte blocks, 8 bits */
    FL_REG64 = 4,    /* register-blocked: one 64-bit word per key, k bits inside it */
    FL_CUCKOO = 5,   /* cuckoo filter, 4-slot buckets, 8-, 11-, 12-, 13- or 16-bit fingerprints */
    FL_COUNTING = 6, /* counting Bloom, k 4-bit counters anywhere (Fan et al. 2000) */
    FL_COUNTING512 = 7, /* counting Bloom, k of the 128 4-bit counters of one 64-byte line */
} fl_variant;
#define FL_VARIANT_MIN FL_CLASSIC
#define FL_VARIANT_MAX FL_COUNTING512

/* "classic", "block512", ...; NULL for an unknown value. */
const char *fl_variant_name(fl_variant v);
/* Parses a variant name; FL_ERR_INVALID_ARG if unknown. */
fl_status fl_variant_parse(const char *name, fl_variant *out);

/* How byte keys become 64-bit hashes. */
typedef enum fl_hash_id {
    FL_HASH_XXH3 = 1,  /* XXH3_64bits_withSeed(key, len, seed): the default */
    FL_HASH_XXH64 = 2, /* XXH64(key, len, seed): Apache Parquet uses it with seed 0 */
} fl_hash_id;

/* What a variant is and can do: the library's own descriptor (src/core/variants.c), read by the
 * CLI, flbench, the bindings and the tests instead of switching on the variant. */
enum fl_capability {
    FL_CAP_DELETE = 1u << 0,        /* fl_delete_hash / fl_delete_bytes */
    FL_CAP_UNION = 1u << 1,         /* fl_union of two filters of equal geometry */
    FL_CAP_ATOMIC_INSERT = 1u << 2, /* fl_insert_hashes_atomic */
    FL_CAP_MAY_FILL = 1u << 3,      /* an insert can fail with FL_ERR_FULL */
    FL_CAP_FILL_ESTIMATE = 1u << 4, /* fl_info.keys_from_fill is meaningful */
    FL_CAP_PARQUET = 1u << 5,       /* its payload is a Parquet split block bitset */
    FL_CAP_COUNT = 1u << 6,         /* fl_count_hash / fl_count_bytes: copies stored */
};

typedef struct fl_variant_info {
    fl_variant variant;
    const char *name;         /* "block512" */
    const char *summary;      /* one line, with the paper it follows */
    const char *unit_name;    /* addressing unit, singular: "64-byte block" */
    const char *k_name;       /* what k counts: "bits per key", "fingerprint bits" */
    uint32_t k_min, k_max;    /* the least and the greatest accepted k */
    uint64_t k_set;           /* accepted k: bit k set (all k < 64), k_min..k_max with gaps
                                 where a variant has them (cuckoo: 8, 11, 12, 13, 16) */
    uint32_t k_default;       /* k for an explicit size when nothing else decides */
    uint64_t units_max;       /* most units (every variant: 2^32 - 1) */
    uint32_t unit_slots;      /* tables of slots (cuckoo): keys one unit holds; 0: a bit array */
    double max_load;          /* tables of slots: the load sizing aims at (inserts may fail
                                 beyond it); 0 for bit arrays, which never refuse a key */
    uint32_t caps;            /* fl_capability bits */
    fl_hash_id default_hash;  /* the hash fl_create picks when the config says 0 */
    uint32_t counter_bits;    /* arrays of counters (counting Bloom): bits per counter (4);
                                 0 for bit arrays and tables of slots. fl_info.saturated is
                                 meaningful exactly when this is not 0 */
} fl_variant_info;

/* Fills *out for a known variant; FL_ERR_INVALID_ARG for an unknown one or NULL out. */
fl_status fl_variant_describe(fl_variant v, fl_variant_info *out);
/* Payload bytes of one unit of `v` with this k (0 if the pair is invalid). */
size_t fl_variant_unit_bytes(fl_variant v, uint32_t k);
/* The valid k of `v` in words, for an error message: "1 to 32" for a range, "8, 11, 12, 13
 * or 16" for a few values. Writes at most cap bytes, NUL-terminated (cut short if cap is too small);
 * FL_ERR_INVALID_ARG for an unknown variant, a NULL buf or cap 0. */
fl_status fl_variant_k_text(fl_variant v, char *buf, size_t cap);

/* ---------------------------------------------------------------------------------------
 * Geometry and sizing
 *
 * "units" is the variant's addressing unit: 64-bit words (classic, reg64), 64-byte blocks
 * (block512), 32-byte blocks (split256) or 4-slot buckets (cuckoo). Unit counts are below
 * 2^32 because every variant maps a hash to a unit with Lemire's multiply-shift range
 * reduction on 32 bits ((h32 * units) >> 32), as the Parquet specification does.
 * "k" is bits per key for the Bloom variants (split256: always 8) and fingerprint bits
 * (8, 11, 12, 13 or 16: buckets of 4, 5, 6, 6 or 8 bytes; 11 and 13 in semi-sorted buckets)
 * for cuckoo.
 * ------------------------------------------------------------------------------------- */
typedef struct fl_geometry {
    fl_variant variant;
    uint64_t units;
    uint32_t k;
} fl_geometry;

typedef struct fl_params {
    fl_geometry geometry;
    uint64_t bits;          /* payload bits: units * unit size */
    uint64_t bytes;         /* payload bytes */
    double bits_per_key;    /* bits / n */
    double predicted_fpr;   /* the variant's model at n keys (see fl_predict_fpr) */
} fl_params;

/* Geometry of `variant` for n keys at target FPR fpr.
 * classic: the textbook m = -n ln p / (ln 2)^2, k = round((m/n) ln 2) (Bloom 1970;
 *   Broder-Mitzenmacher 2004); rounding k can leave the prediction a hair above fpr.
 * block512/reg64/split256: the fewest units whose prediction under the blocked model of
 *   Putze, Sanders, Singler (2007) is <= fpr, searched over the unit count and k.
 * cuckoo: fingerprint bits 8, 11, 12, 13 or 16 and a load in [0.5, 0.94] (Fan et al. 2014),
 *   whichever meets fpr in the fewest bytes; below ~6e-5 it is unreachable (FL_ERR_BAD_FPR).
 * Errors: FL_ERR_INVALID_ARG (unknown variant, NULL out), FL_ERR_BAD_N (n = 0),
 * FL_ERR_BAD_FPR, FL_ERR_TOO_LARGE (2^32 units or more). */
fl_status fl_params_for(fl_variant variant, uint64_t n, double fpr, fl_params *out);

/* A geometry in words, e.g. "19372 blocks of 64 bytes, k = 6" or "265958 buckets of 4 slots,
 * 16-bit fingerprints", into buf (snprintf's rules: always terminated when cap > 0). Returns
 * the length the full text needs, like snprintf. */
size_t fl_geometry_describe(const fl_geometry *g, char *buf, size_t cap);

/* Fills bits/bytes/bits_per_key/predicted_fpr for an explicit geometry and n keys. */
fl_status fl_params_for_geometry(const fl_geometry *g, uint64_t n, fl_params *out);

/* Geometry of `variant` for n keys in a payload of about `bytes` bytes (the whole units that
 * fit, at least one): the k whose predicted FPR at n keys is lowest (split256: always 8;
 * cuckoo: the widest fingerprint whose load n / slots stays within the sizing load).
 * Errors: FL_ERR_INVALID_ARG, FL_ERR_BAD_N (n = 0), FL_ERR_BAD_GEOMETRY (bytes = 0),
 * FL_ERR_TOO_LARGE (2^32 units or more), FL_ERR_FULL (cuckoo: n keys cannot fit). */
fl_status fl_params_for_bytes(fl_variant variant, uint64_t n, uint64_t bytes, fl_params *out);

/* Predicted FPR of a geometry holding n keys (n = 0 gives 0). NaN for an invalid geometry,
 * and for a blocked variant (block512, reg64, counting512) whose model's tables could not be
 * allocated (a few KiB; the calls that size or describe a filter report that as
 * FL_ERR_NO_MEMORY). */
double fl_predict_fpr(const fl_geometry *g, uint64_t n);

/* ---------------------------------------------------------------------------------------
 * Filters
 * ------------------------------------------------------------------------------------- */
typedef struct fl_filter fl_filter;

enum fl_create_flags {
    FL_FLAG_NO_HUGE_PAGES = 1u << 0, /* do not madvise(MADV_HUGEPAGE) filters >= 2 MiB */
};

typedef struct fl_config {
    fl_variant variant;
    /* Either sizing (n > 0 and fpr set, geometry.units == 0) ... */
    uint64_t n;
    double fpr;
    /* ... or explicit geometry (geometry.units > 0; geometry.variant must equal variant). */
    fl_geometry geometry;
    fl_hash_id hash;  /* 0: FL_HASH_XXH64 for split256 (Parquet's hash), else FL_HASH_XXH3 */
    uint64_t seed;    /* hash seed for byte and integer keys */
    uint32_t flags;   /* fl_create_flags */
} fl_config;

fl_status fl_create(const fl_config *cfg, fl_filter **out);
/* Shorthand for fl_create with sizing, the default hash, seed 0. */
fl_status fl_create_for(fl_variant variant, uint64_t n, double fpr, fl_filter **out);
/* Frees a filter; NULL is a no-op. */
void fl_free(fl_filter *f);

/* Hash of a byte key with the filter's hash function and seed (0 for a NULL filter, or a
 * NULL key with len > 0; NULL with len 0 is the empty key). */
uint64_t fl_hash_bytes(const fl_filter *f, const void *key, size_t len);
/* Hash of an integer key: the SplitMix64 finalizer (Steele, Lea, Flood 2014) of
 * key + seed * FL_SEED_MIX, a bijection of the key, so distinct integers never
 * collide before the filter's own reduction. fl_hash_u64_inline is the same function for
 * loops that hash keys into a batch (a call per key would cost as much as the lookup). */
uint64_t fl_hash_u64(uint64_t key, uint64_t seed);
/* The seed's multiplier (2^64 / golden ratio, SplitMix64's increment) and the finalizer
 * alone: fl_hash_u64(key, seed) = fl_mix64(key + seed * FL_SEED_MIX). */
#define FL_SEED_MIX 0x9e3779b97f4a7c15ull
static inline uint64_t fl_mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static inline uint64_t fl_hash_u64_inline(uint64_t key, uint64_t seed) {
    return fl_mix64(key + seed * FL_SEED_MIX);
}

/* Single keys. fl_contains_* return 1 (may be present) or 0 (absent); NULL f gives 0. */
fl_status fl_insert_bytes(fl_filter *f, const void *key, size_t len);
fl_status fl_insert_u64(fl_filter *f, uint64_t key);
fl_status fl_insert_hash(fl_filter *f, uint64_t hash);
int fl_contains_bytes(const fl_filter *f, const void *key, size_t len);
int fl_contains_u64(const fl_filter *f, uint64_t key);
int fl_contains_hash(const fl_filter *f, uint64_t hash);

/* Batches of precomputed hashes: the unit every kernel implements.
 * fl_insert_hashes: for cuckoo, stops at the first key that does not fit and returns
 * FL_ERR_FULL with *inserted (if not NULL) set to the number of keys inserted before it.
 * fl_contains_hashes: out[i] = 1 or 0 for hashes[i]; *positives (if not NULL) = sum. n = 0 is
 * fine. The arrays need no alignment. */
fl_status fl_insert_hashes(fl_filter *f, const uint64_t *hashes, size_t n, size_t *inserted);
fl_status fl_contains_hashes(const fl_filter *f, const uint64_t *hashes, size_t n,
                             uint8_t *out, size_t *positives);
/* Batches of integer keys: hashed with fl_hash_u64 and the filter's seed inside the library
 * (vectorized where the CPU allows), then the same kernels as the hash batches. Same
 * results, out form and errors as fl_insert_hashes / fl_contains_hashes. */
fl_status fl_insert_u64s(fl_filter *f, const uint64_t *keys, size_t n, size_t *inserted);
fl_status fl_contains_u64s(const fl_filter *f, const uint64_t *keys, size_t n, uint8_t *out,
                           size_t *positives);
/* Bloom and counting Bloom variants (FL_CAP_ATOMIC_INSERT): may run concurrently with other
 * atomic inserts and lookups. */
fl_status fl_insert_hashes_atomic(fl_filter *f, const uint64_t *hashes, size_t n);

/* Variants with FL_CAP_DELETE: removes one copy of a key inserted before.
 * cuckoo: FL_ERR_NOT_FOUND if no copy of its fingerprint is in its two buckets or the stash.
 *   Deleting a key never inserted may remove another key's identical fingerprint: that is
 *   inherent to cuckoo filters.
 * counting, counting512: decrements the key's k counters, except counters at 15: a counter
 *   that reached 15 has lost count (inserts saturate there), so it stays 15 forever and a
 *   delete can never make a present key's counter reach 0 (no false negative, at the price
 *   of positives that never go away). If any of the key's counters is 0 (counting a counter
 *   the key hits twice as needing 2 unless saturated), the key cannot have been inserted:
 *   FL_ERR_NOT_FOUND and no counter moves (checked before any is decremented). Deleting a
 *   key never inserted whose counters are all nonzero (a false positive) succeeds and takes
 *   one count from keys that share those counters: a later lookup of such a key may then
 *   miss. That is the caller's error and inherent to counting Bloom filters: delete only
 *   keys you inserted. */
fl_status fl_delete_hash(fl_filter *f, uint64_t hash);
fl_status fl_delete_bytes(fl_filter *f, const void *key, size_t len);
/* An integer key, hashed as fl_insert_u64 hashes it (fl_hash_u64 with the filter's seed). */
fl_status fl_delete_u64(fl_filter *f, uint64_t key);

/* Variants with FL_CAP_COUNT (cuckoo): *count = the copies of the key's fingerprint stored
 * where the key's copies can be, its two buckets and the stash entries of those buckets
 * (RedisBloom's CF.COUNT). Never below the copies inserted and not deleted; above it when
 * other keys share the fingerprint and a bucket (the false positive rate's collisions).
 * FL_ERR_INVALID_ARG (NULL f or count, NULL key with len), FL_ERR_UNSUPPORTED (a variant
 * without the capability; *count is 0 on every error). */
fl_status fl_count_hash(const fl_filter *f, uint64_t hash, uint32_t *count);
fl_status fl_count_bytes(const fl_filter *f, const void *key, size_t len, uint32_t *count);

/* dst |= src for two Bloom filters with equal variant, geometry, hash and seed; for the
 * counting variants each counter becomes the saturating sum min(15, dst + src), so every key
 * of either filter is present and deletable in the result (a counting filter united with
 * itself, as with its copy, holds every key twice; a bit array united with itself is
 * unchanged, its count included).
 *
 * The key count: the two counts cannot say how many keys the filters share (a filter united
 * with its own copy holds the same keys, not twice as many), so when both filters held keys,
 * dst's count (fl_count, fl_info.keys) becomes the distinct keys estimated from the result's
 * fill (fl_info.keys_from_fill, rounded; never above the sum of the two counts when both
 * were counts of inserts), and fl_info.keys_estimated is set until fl_clear. predicted_fpr,
 * computed at that count, then describes the bit array as it is: the union of a filter with
 * its copy predicts what the filter alone does, the union of two disjoint halves what one
 * filter of all the keys does. Later inserts add to the estimate; deletes (counting
 * variants) take from it and stop at 0, while the counters still hold every copy of both
 * filters. When either filter held no key, the count is the other's, exact. Files store the
 * count, not the flag: a saved union loads with keys_estimated 0. */
fl_status fl_union(fl_filter *dst, const fl_filter *src);
/* Removes every key; geometry is kept. */
void fl_clear(fl_filter *f);

typedef struct fl_info {
    fl_geometry geometry;
    fl_hash_id hash;
    uint64_t seed;
    uint64_t keys;            /* inserts (Bloom: including duplicates; cuckoo: stored copies);
                                 after an fl_union, an estimate (see keys_estimated) */
    size_t bytes;             /* payload bytes */
    uint64_t bits_set;        /* Bloom: set bits; cuckoo: occupied slots (table + stash) */
    double fill;              /* Bloom: bits_set / bits; cuckoo: table load factor (the
                                 stash is not counted: see stash_used) */
    double keys_from_fill;    /* Bloom: distinct keys estimated from the fill (Swamidass and
                                 Baldi 2007), useful when keys is unknown (Parquet import) */
    double predicted_fpr;     /* model at the current key count (or keys_from_fill if keys
                                 is 0 but bits are set) */
    uint32_t stash_used;      /* cuckoo: fingerprints in the victim stash */
    int huge_pages;           /* 1 if MADV_HUGEPAGE was requested and accepted */
    uint64_t saturated;       /* counting variants: counters at 15, which no delete
                                 decrements again (see fl_delete_hash); 0 for the others.
                                 For them bits_set counts nonzero counters and fill is
                                 bits_set / counters */
    int keys_estimated;       /* 1 if keys is the distinct keys estimated from the fill at an
                                 fl_union of two filters that both held keys (the overlap of
                                 their key sets is unknown), plus inserts since; 0 when keys
                                 counts inserts. fl_clear resets it; files do not store it */
} fl_info;

fl_status fl_get_info(const fl_filter *f, fl_info *out);
size_t fl_size_bytes(const fl_filter *f);
/* fl_info.keys: inserts, or after an fl_union the estimate fl_union describes. */
uint64_t fl_count(const fl_filter *f);
fl_variant fl_get_variant(const fl_filter *f);

/* Counting Bloom filters: an upper bound on the probability that any of m counters receives
 * 16 or more increments when n keys are inserted with k counters each (so that a 4-bit
 * counter would saturate), from Fan, Cao, Almeida, Broder, "Summary Cache" (IEEE/ACM ToN
 * 2000, section V.C): a counter's count is Binomial(nk, 1/m), P(count >= i) <= (e n k /
 * (i m))^i, and a union bound over the m counters gives
 *     P(max >= 16) <= m (e n k / (16 m))^16,
 * which at the optimal k = (m/n) ln 2 is m (e ln 2 / 16)^16 ~ 1.37e-15 m. Returns that bound
 * capped at 1, or NaN for m = 0, k = 0, or a non-finite or negative n. The blocked layout
 * (counting512) spreads keys unevenly over its lines, so its counters overflow more often
 * than this classic-layout bound says; tests/test_counting.c measures both. */
double fl_counting_overflow_bound(double m, double n, double k);

/* ---------------------------------------------------------------------------------------
 * Serialization: the versioned, checksummed filterlab format (the layout: src/format/container.c
 * and src/format/codec_filter.c; files of format 1 still load).
 * Loads validate every field before trusting it. max_bytes caps the payload a load will
 * allocate (0 = no cap). A save may run while other threads insert with
 * fl_insert_hashes_atomic: the file always matches its checksum, with or without the keys
 * inserted during the save.
 * ------------------------------------------------------------------------------------- */
/* fl_serialized_size, fl_save_mem, fl_load_mem,
 * fl_save_file, fl_load_file */
FL_DECLARE_FILE_CALLS(fl, fl_filter);

/* Apache Parquet split block Bloom filter bitsets (parquet-format BloomFilter.md).
 * Import accepts a bare bitset (a multiple of 32 bytes) or one preceded by the Thrift
 * compact BloomFilterHeader; the result is a split256 filter using XXH64 seed 0 whose key
 * count is unknown (reported as 0). Export writes the header unless with_header is 0. */
fl_status fl_parquet_import(const void *buf, size_t len, size_t max_bytes, fl_filter **out);
size_t fl_parquet_export_size(const fl_filter *f, int with_header);
fl_status fl_parquet_export(const fl_filter *f, int with_header, void *buf, size_t cap,
                            size_t *written);

#ifdef __cplusplus
}
#endif
/* The key calls of a fingerprint filter with deletes (the vector quotient and growing
 * cuckoo filters), declared for the handle type `type` under `prefix`: the hashes the byte
 * and u64 keys get (<prefix>_hash_bytes, _hash_u64: 0 for a NULL handle); <prefix>_insert_,
 * _delete_ and _contains_ for one hash, key of bytes or u64 key, and for arrays of hashes
 * or u64 keys; and the per-object kernel choice (<prefix>_bind_kernel: a table's name,
 * "auto" or NULL unbinds; <prefix>_kernel: the table its lookups use). Inserts and deletes
 * return an fl_status and their batch forms stop at the first key that fails, *done (if not
 * NULL) counting the keys done before it; one-key lookups return 1 (may be there) or 0,
 * batches write out[i] = 0 or 1 and *positives (if not NULL) their sum. Each structure's
 * header says what its errors mean. */
#define FL_KEY_CHANGES_(prefix, type, op)                                                    \
    fl_status prefix##_##op##_hash(type *obj, uint64_t hash);                                \
    fl_status prefix##_##op##_bytes(type *obj, const void *key, size_t len);                 \
    fl_status prefix##_##op##_u64(type *obj, uint64_t key);                                  \
    fl_status prefix##_##op##_hashes(type *obj, const uint64_t *hashes, size_t n,            \
                                     size_t *done);                                          \
    fl_status prefix##_##op##_u64s(type *obj, const uint64_t *keys, size_t n, size_t *done)
#define FL_DECLARE_KEY_CALLS(prefix, type)                                                   \
    uint64_t prefix##_hash_bytes(const type *obj, const void *key, size_t len);              \
    uint64_t prefix##_hash_u64(const type *obj, uint64_t key);                               \
    FL_KEY_CHANGES_(prefix, type, insert);                                                   \
    FL_KEY_CHANGES_(prefix, type, delete);                                                   \
    fl_status prefix##_bind_kernel(type *obj, const char *name);                             \
    const char *prefix##_kernel(const type *obj);                                            \
    int prefix##_contains_hash(const type *obj, uint64_t hash);                              \
    int prefix##_contains_bytes(const type *obj, const void *key, size_t len);               \
    int prefix##_contains_u64(const type *obj, uint64_t key);                                \
    fl_status prefix##_contains_hashes(const type *obj, const uint64_t *hashes, size_t n,    \
                                       uint8_t *out, size_t *positives);                     \
    fl_status prefix##_contains_u64s(const type *obj, const uint64_t *keys, size_t n,        \
                                     uint8_t *out, size_t *positives)

#include "filterlab_kernels.h"
#include "filterlab_host.h"
#include "filterlab_hll.h"
#include "filterlab_cms.h"
#include "filterlab_sbf.h"
#include "filterlab_static.h"
#include "filterlab_layered.h"
#include "filterlab_compressed.h"
#include "filterlab_vqf.h"
#include "filterlab_gcf.h"
#endif /* FILTERLAB_H */
