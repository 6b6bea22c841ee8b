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

#include <signal.h> /* sig_atomic_t */
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FL_VERSION_MAJOR 0
#define FL_VERSION_MINOR 1
#define FL_VERSION_PATCH 0

/* ---------------------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------------------- */
typedef enum fl_status {
    FL_OK = 0,
    FL_ERR_INVALID_ARG,       /* NULL pointer, unknown variant, bad flag */
    FL_ERR_BAD_N,             /* n = 0 */
    FL_ERR_BAD_FPR,           /* FPR <= 0, >= 1, NaN, or unreachable for the variant */
    FL_ERR_BAD_K,             /* k out of the variant's range (or fingerprint bits not 8/16) */
    FL_ERR_BAD_GEOMETRY,      /* zero or too many blocks/words/buckets */
    FL_ERR_TOO_LARGE,         /* size overflows size_t, or exceeds a caller-set limit */
    FL_ERR_NO_MEMORY,         /* allocation failed */
    FL_ERR_FULL,              /* cuckoo: no room; the filter is unchanged */
    FL_ERR_NOT_FOUND,         /* cuckoo delete of a key that is not there */
    FL_ERR_UNSUPPORTED,       /* operation not defined for this variant */
    FL_ERR_INCOMPATIBLE,      /* union of filters with different geometry/hash/seed */
    FL_ERR_IO,                /* open/read/write failed (errno is left set) */
    FL_ERR_BAD_MAGIC,         /* not a filterlab file */
    FL_ERR_BAD_VERSION,       /* format version this build cannot read */
    FL_ERR_TRUNCATED,         /* input ends before the structure it announces */
    FL_ERR_TRAILING_DATA,     /* bytes after the end of the structure */
    FL_ERR_CHECKSUM,          /* XXH3 checksum mismatch (header or payload) */
    FL_ERR_CORRUPT,           /* fields valid one by one but inconsistent with each other */
    FL_ERR_BAD_PARQUET,       /* malformed Parquet BloomFilterHeader or bitset */
    FL_ERR_UNKNOWN_KERNEL,    /* kernel name that was not compiled in */
    FL_ERR_KERNEL_UNAVAILABLE,/* kernel compiled in but this CPU/OS cannot run it */
    FL_ERR_BUFFER_TOO_SMALL,  /* output buffer smaller than fl_serialized_size() */
    FL_ERR_WRONG_KIND,        /* a file holding another kind of structure than the call loads */
    FL_ERR_BAD_PRECISION,     /* HyperLogLog precision outside [FL_HLL_P_MIN, FL_HLL_P_MAX] */
    FL_ERR_HLL_FORMAT,        /* not a Redis HyperLogLog string (magic, encoding, opcodes) */
    FL_ERR_BAD_ACCURACY,      /* Count-Min epsilon, delta or phi outside (0, 1) or NaN */
    FL_ERR_BAD_GROWTH,        /* scalable Bloom growth factor below 1, NaN or infinite */
    FL_ERR_BAD_TIGHTENING,    /* scalable Bloom tightening ratio outside (0, 1) */
    FL_ERR_BUILD_FAILED,      /* static filter: no seed of max_tries gave a construction */
    FL_ERR_DUPLICATE_KEY,     /* Bloomier filter: one key given with two different values */
    FL_ERR_INTERRUPTED,       /* a save abandoned: the interrupt flag was set (see
                                 fl_set_interrupt_flag); the old file is untouched */
    FL_STATUS_COUNT
} fl_status;

/* A static, human-readable sentence for a status (never NULL). */
const char *fl_strerror(fl_status s);

/* ---------------------------------------------------------------------------------------
 * Variants
 * ------------------------------------------------------------------------------------- */
typedef enum fl_variant {
    FL_CLASSIC = 1,  /* textbook Bloom, k positions over the whole array (Kirsch-Mitzenmacher) */
    FL_BLOCK512 = 2, /* one 64-byte cache line per key, k bits inside it (Putze et al. 2007) */
    FL_SPLIT256 = 3, /* Apache Parquet split block Bloom filter: 32-byte blocks, 8 bits */
    FL_REG64 = 4,    /* register-blocked: one 64-bit word per key, k bits inside it */
    FL_CUCKOO = 5,   /* cuckoo filter, 4-slot buckets, 8- or 16-bit fingerprints */
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

/* What a variant is and can do: the library's own descriptor (src/variants.c), read by the
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
    uint32_t k_min, k_max;    /* accepted k: k_min, k_min + k_step, ..., k_max */
    uint32_t k_step;
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
/* The valid k of `v` in words, for an error message: "1 to 32" for a range, "8, 12 or 16" for
 * a few values. Writes at most cap bytes, NUL-terminated (cut short if cap is too small);
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
 * (8, 12 or 16: buckets of 4, 6 or 8 bytes) for cuckoo.
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
 * cuckoo: fingerprint bits 8, 12 or 16 and a load in [0.5, 0.94] (Fan et al. 2014),
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
 * Serialization: the versioned, checksummed filterlab format (the layout: src/container.c and
 * src/codec_filter.c; files of format 1 still load).
 * Loads validate every field before trusting it. max_bytes caps the payload a load will
 * allocate (0 = no cap). A save may run while other threads insert with
 * fl_insert_hashes_atomic: the file always matches its checksum, with or without the keys
 * inserted during the save.
 * ------------------------------------------------------------------------------------- */
size_t fl_serialized_size(const fl_filter *f);
fl_status fl_save_mem(const fl_filter *f, void *buf, size_t cap, size_t *written);
fl_status fl_load_mem(const void *buf, size_t len, size_t max_bytes, fl_filter **out);
fl_status fl_save_file(const fl_filter *f, const char *path);
fl_status fl_load_file(const char *path, size_t max_bytes, fl_filter **out);

/* What a filterlab file holds, without loading it, so a program can pick the loader: the
 * kind stored in its container (format 1 files are filters). Reads the preamble and the
 * section table only. Errors: those of the loaders for the magic, the version and the table
 * (BAD_MAGIC, BAD_VERSION, TRUNCATED, CHECKSUM, CORRUPT), FL_ERR_IO; a kind this build does
 * not know is returned as it is stored. (Redis HyperLogLog strings are Redis's format, not a
 * filterlab file: fl_hll_import_redis reads them.) */
typedef enum fl_file_kind {
    FL_FILE_FILTER = 1,         /* fl_load_* */
    FL_FILE_SCALABLE_BLOOM = 2, /* fl_sbf_load_* (filterlab_sbf.h) */
    FL_FILE_COUNT_MIN = 4,      /* fl_cms_load_* (filterlab_cms.h) */
    FL_FILE_BINARY_FUSE = 5,    /* fl_fuse_load_* (filterlab_static.h) */
    FL_FILE_BLOOMIER = 6,       /* fl_bloomier_load_* (filterlab_static.h) */
    FL_FILE_LAYERED_BLOOM = 7,  /* fl_lbf_load_* (filterlab_layered.h) */
    FL_FILE_COMPRESSED_BLOOM = 8, /* fl_cbf_load_* (filterlab_compressed.h) */
} fl_file_kind;
fl_status fl_file_kind_mem(const void *buf, size_t len, uint32_t *kind);
fl_status fl_file_kind_file(const char *path, uint32_t *kind);

/* Replaces the file at `path` with `len` bytes of `buf` atomically; fl_save_file writes the
 * same way. The bytes go to a temporary PATH.tmp.XXXXXX in the same directory, which is
 * fsynced, given the mode of the file it replaces (a new file: 0666 less the umask) and
 * renamed over PATH; the directory is then fsynced. Readers see the old file or the whole
 * new one. On every error path the temporary is removed and the old file is untouched
 * (only SIGKILL or a crash can leave a temporary behind; the library installs no signal
 * handlers). A symbolic link is followed to its final target (at most 40 hops), which is
 * replaced the same way, so the link stays a link; a dangling link creates its target. A
 * FIFO or a device (e.g. /dev/stdout) cannot be renamed over: it is written in place, not
 * atomically. A directory is FL_ERR_IO with errno EISDIR.
 * Returns FL_OK, FL_ERR_INVALID_ARG (path NULL or empty, buf NULL with len > 0),
 * FL_ERR_NO_MEMORY, or FL_ERR_IO with errno telling the cause (ENOSPC, EFBIG, EACCES, ...). */
fl_status fl_write_file_atomic(const char *path, const void *buf, size_t len);

/* Abandoning a save on a signal. The library installs no signal handlers; a program whose
 * Ctrl-C should abandon a save (rather than wait for it, or leave a temporary behind) has
 * its own handler set a flag and hands the flag's address here. While it is nonzero, every
 * file replacement (fl_write_file_atomic, fl_save_file and the other *_save_file calls)
 * stops at its next check: between writes of at most 1 MiB, and once more after the fsync,
 * just before the rename. The temporary is then removed, the old file is left as it was,
 * and the call returns FL_ERR_INTERRUPTED (errno EINTR). A signal that lands after that
 * last check finds the new file in place (FL_OK). The library only reads the flag; the
 * caller clears it. NULL (the default) turns the checks off. Process-wide: set it before
 * other threads save. A FIFO or a device written through is abandoned the same way, with
 * what was written so far already delivered. */
fl_status fl_set_interrupt_flag(const volatile sig_atomic_t *flag);

/* Apache Parquet split block Bloom filter bitsets (parquet-format BloomFilter.md).
 * Import accepts a bare bitset (a multiple of 32 bytes) or one preceded by the Thrift
 * compact BloomFilterHeader; the result is a split256 filter using XXH64 seed 0 whose key
 * count is unknown (reported as 0). Export writes the header unless with_header is 0. */
fl_status fl_parquet_import(const void *buf, size_t len, size_t max_bytes, fl_filter **out);
size_t fl_parquet_export_size(const fl_filter *f, int with_header);
fl_status fl_parquet_export(const fl_filter *f, int with_header, void *buf, size_t cap,
                            size_t *written);

/* ---------------------------------------------------------------------------------------
 * Kernels: one implementation per ISA; at first use each module entry takes the one measured
 * or known fastest on this CPU (below), unless FILTERLAB_KERNEL=scalar|avx2|avx512|neon or
 * fl_kernel_select() forces one.
 * ------------------------------------------------------------------------------------- */
typedef struct fl_kernel_desc {
    const char *name;     /* "scalar", "avx2", "avx512", "neon" */
    int compiled;         /* always 1 for listed kernels */
    int supported;        /* this CPU and OS can run it */
    int emulated;         /* runs through SIMDe on a foreign ISA (correct, not fast) */
    const char *requires; /* features it needs, e.g. "AVX2 BMI2 + OS YMM state" */
} fl_kernel_desc;

/* Number of compiled kernels; fl_kernel_describe(i) for i < count. */
size_t fl_kernel_count(void);
fl_status fl_kernel_describe(size_t i, fl_kernel_desc *out);
/* Forces a kernel for the whole process (thread-safe; affects subsequent calls). */
fl_status fl_kernel_select(const char *name);
/* Name of the active kernel ("auto" when each module entry has its own choice, see
 * fl_kernel_choice) and a sentence saying why. */
const char *fl_kernel_active(void);
const char *fl_kernel_reason(void);
/* Status of the FILTERLAB_KERNEL request, if any (FL_OK when unset or honoured). When the
 * variable names an unknown or unsupported kernel, automatic selection is used instead and
 * this reports why, so a CLI can refuse to run. */
fl_status fl_kernel_env_status(void);

/* ---- The automatic choice, per module entry and payload size class ----
 * Unless FILTERLAB_KERNEL or fl_kernel_select() forces one ISA for everything (then
 * fl_kernel_active() names it), each module entry of each size class takes its kernel from
 * (1) the wisdom file `filterlab tune` wrote on this very CPU, else (2) the rule table of
 * src/dispatch.c (measurements of named microarchitectures and a conservative default for
 * others); fl_kernel_active() is then "auto". Entries are named "<module>.<op>.<shape>",
 * e.g. "bloom.contains.classic", "cms.query", "fuse.contains.3_8". */
typedef enum fl_size_class {
    FL_SIZE_L1 = 0, /* payload fits the L1 data cache */
    FL_SIZE_L2,     /* ... the L2 */
    FL_SIZE_LLC,    /* ... the last-level cache */
    FL_SIZE_DRAM,   /* larger */
    FL_SIZE_CLASSES
} fl_size_class;
/* Number of module entries; fl_kernel_entry_name(i) for i < count (NULL past the end). */
size_t fl_kernel_entry_count(void);
const char *fl_kernel_entry_name(size_t i);
/* 1 if the entry's payload size can change the choice (0: one choice for every class). */
int fl_kernel_entry_sized(size_t i);
/* "L1", "L2", "LLC", "DRAM" (NULL for anything else), and the largest payload in bytes of
 * each of the first three classes on this machine (from its cache sizes). */
const char *fl_size_class_name(int size_class);
fl_status fl_size_class_limits(uint64_t limits[3]);
/* The kernel the process's calls use for `entry` at `size_class` and why, as one sentence
 * ("measured here on 2026-11-26 by filterlab tune: 1.8x scalar", "rule: ...", "forced by
 * FILTERLAB_KERNEL=scalar"). The strings stay valid until the next fl_kernel_select() or
 * fl_kernel_tune(). FL_ERR_INVALID_ARG for an unknown entry or class or NULL outputs. */
fl_status fl_kernel_choice(const char *entry, int size_class, const char **kernel,
                           const char **reason);
/* The run of size classes from `size_class` on whose choice for `entry` is the same kernel
 * and reason: that kernel and reason as fl_kernel_choice gives them, *end the first class
 * past the run (FL_SIZE_CLASSES at the last), and the run's label in `label` ("all" for
 * every class, "L1", "L2-DRAM"; 16 bytes hold any). Errors as fl_kernel_choice, and
 * FL_ERR_INVALID_ARG for a NULL end or label or a zero cap. */
fl_status fl_kernel_choice_run(const char *entry, int size_class, const char **kernel,
                               const char **reason, int *end, char *label, size_t cap);
/* The kernel and reason the process's batch lookups (fl_contains_hashes) use for a filter of
 * this geometry: its variant's lookup entry at the size class of its payload, so a caller
 * can say what a filter it is about to build would run without building it.
 * FL_ERR_INVALID_ARG for NULL arguments or an invalid geometry. */
fl_status fl_kernel_choice_for(const fl_geometry *g, const char **kernel, const char **reason);
/* The wisdom file: its path ("" when disabled) and one sentence on what became of it ("used:
 * measured on 2026-11-26", "ignored: written on another CPU (...)", "none: filterlab tune
 * writes one", "off: FILTERLAB_WISDOM=off"). */
const char *fl_kernel_wisdom_path(void);
const char *fl_kernel_wisdom_status(void);
/* Times every module entry with every kernel this CPU runs at the four size classes, writes
 * the wisdom file atomically (path NULL: fl_kernel_wisdom_path(); its directory is created)
 * and makes the process use it unless a kernel is forced. quick != 0 measures about four
 * times shorter (for tests). report, when not NULL, gets one line per entry and class
 * (no newline). Errors: FL_ERR_INVALID_ARG (no path and wisdom off), FL_ERR_NO_MEMORY,
 * FL_ERR_IO (errno says why). */
fl_status fl_kernel_tune(const char *path, int quick,
                         void (*report)(void *ctx, const char *line), void *ctx);

/* Kernel choice per filter: binds f to a named kernel for all its calls, whatever the process
 * uses, so a server, a binding or a benchmark can compare kernels on their own filters without
 * changing the choice under other threads. NULL or "auto" unbinds it (it follows the process
 * choice again). Errors: FL_ERR_INVALID_ARG (NULL f), FL_ERR_UNKNOWN_KERNEL,
 * FL_ERR_KERNEL_UNAVAILABLE; the binding is then unchanged. Binding while other threads use
 * the filter is safe: a call runs on the table it read when it started. Not saved in files. */
fl_status fl_filter_bind_kernel(fl_filter *f, const char *name);
/* The kernel f's calls use: its bound one, else the process's active one. */
const char *fl_filter_kernel(const fl_filter *f);

/* ---------------------------------------------------------------------------------------
 * The host: one description of this machine's CPU, shared by the `filterlab host` and
 * `advise` commands, flbench's result context and scripts/repro/hostinfo.py (src/host.c).
 * ------------------------------------------------------------------------------------- */
/* CPU features (bits of fl_host.features). x86 bits are CPUID bits (Intel SDM vol. 2A,
 * CPUID leaves 1 and 7): they say the hardware has the instructions, not that the OS lets a
 * program use them, except FL_CPU_OS_YMM/FL_CPU_OS_ZMM (XCR0) and the two bundles below. */
enum {
    FL_CPU_AVX2 = 1u << 0,
    FL_CPU_BMI2 = 1u << 1,
    FL_CPU_FMA = 1u << 2,
    FL_CPU_AVX512F = 1u << 3,
    FL_CPU_AVX512DQ = 1u << 4,
    FL_CPU_AVX512BW = 1u << 5,
    FL_CPU_AVX512VL = 1u << 6,
    FL_CPU_AVX512_VNNI = 1u << 7,
    FL_CPU_AVX512_VBMI2 = 1u << 8,
    FL_CPU_AVX512_VP2INTERSECT = 1u << 9,
    FL_CPU_AVX512_BF16 = 1u << 10,
    FL_CPU_AVX512_FP16 = 1u << 11,
    FL_CPU_AVX_VNNI = 1u << 12,
    FL_CPU_AMX_TILE = 1u << 13,
    FL_CPU_AMX_INT8 = 1u << 14,
    FL_CPU_AMX_BF16 = 1u << 15,
    FL_CPU_AMX_FP16 = 1u << 16,
    FL_CPU_OS_YMM = 1u << 17,    /* the OS saves YMM state (XCR0 bits 1-2) */
    FL_CPU_OS_ZMM = 1u << 18,    /* ... and opmask/ZMM state (XCR0 bits 5-7) */
    FL_CPU_HYPERVISOR = 1u << 19, /* CPUID.1:ECX bit 31: running under a hypervisor */
    FL_CPU_ASIMD = 1u << 20,     /* aarch64 NEON (AT_HWCAP) */
    /* What the avx2 and avx512 kernels need, OS state included (src/dispatch.c). */
    FL_CPU_AVX2_USABLE = 1u << 21,
    FL_CPU_AVX512_USABLE = 1u << 22,
};
#define FL_CPU_FEATURE_COUNT 23
/* "AVX2", "AMX-TILE", ... for one FL_CPU_* bit; NULL for anything else. */
const char *fl_cpu_feature_name(uint32_t feature);

#define FL_HOST_MAX_CACHES 16
typedef struct fl_host_cache {
    int level;
    char type[16];           /* "Data", "Instruction", "Unified" */
    uint64_t bytes;
    int ways, line;          /* 0 if sysfs does not say */
    uint64_t sets;
    char shared_cpu_list[128]; /* as sysfs writes it, e.g. "0-3,8-11" */
    int sharing;             /* CPUs in shared_cpu_list */
} fl_host_cache;

typedef struct fl_host {
    /* Identity, as /proc/cpuinfo prints it for the first processor ("" or -1 if absent). */
    char vendor[32];         /* vendor_id: "GenuineIntel", "AuthenticAMD" */
    char brand[128];         /* "model name" (or an Arm board's "Model") */
    int family, model, stepping;
    char microcode[32];
    char arm_implementer[16], arm_architecture[16], arm_part[16], arm_revision[16];
    char flags[4096];        /* the "flags" (x86) or "Features" (Arm) line */
    /* vendor-family-model-stepping (x86) or implementer-architecture-part-revision (Arm):
     * the key `filterlab advise` matches result folders with. */
    char signature[160];
    /* Microarchitecture slug ("emeraldrapids", "zen5", "neoverse-n1", or the brand made a
     * slug) and where it came from: "cpuid family/model" (the model table), "model name",
     * or "features: ..." when the CPU's features contradict the model a hypervisor reports. */
    char uarch[32];
    char uarch_source[256];
    char hypervisor[32];     /* "kvm", "hyperv", "vmware", "xen", ...; "" on bare metal */
    uint32_t features;       /* FL_CPU_* */
    /* Caches of cpu0 from /sys/devices/system/cpu/cpu0/cache. */
    int ncaches;
    fl_host_cache caches[FL_HOST_MAX_CACHES];
    uint64_t l1d_bytes, l2_bytes; /* 0 if unknown */
    uint64_t llc_bytes;      /* the largest data/unified cache of the highest level >= 2 */
    int cpus_online;         /* sysconf(_SC_NPROCESSORS_ONLN) */
    int cpus_usable;         /* CPUs this process may run on (sched_getaffinity) */
    char hostname_sha256_4[8]; /* first 4 hex digits of SHA-256 of the host name */
    /* <uarch>[-<hypervisor>]-<cpus_usable>c-<hostname_sha256_4>: the results folder name.
     * FL_HOST_ID in the environment overrides it (characters outside [A-Za-z0-9._-]
     * become '-'). */
    char host_id[128];
} fl_host;

/* Reads /proc/cpuinfo, CPUID (x86) or AT_HWCAP (aarch64), sysfs and the host name. Values
 * that cannot be read stay empty, -1 or 0; FL_ERR_INVALID_ARG only for a NULL out. */
fl_status fl_host_describe(fl_host *out);

#ifdef __cplusplus
}
#endif
#include "filterlab_hll.h"
#include "filterlab_cms.h"
#include "filterlab_sbf.h"
#include "filterlab_static.h"
#include "filterlab_layered.h"
#include "filterlab_compressed.h"
#endif /* FILTERLAB_H */
