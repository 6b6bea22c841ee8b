/*
 * filterlab growing cuckoo filter: a deletable fingerprint filter that doubles its table in
 * place, without the chain's lookup cost (included by filterlab.h).
 *
 * A cuckoo filter (Fan, Andersen, Kaminsky and Mitzenmacher, "Cuckoo Filter: Practically
 * Better Than Bloom", CoNEXT 2014) of 4-slot buckets with 16-bit slots, whose fingerprints
 * carry the bits a doubling consumes, as InfiniFilter (Dayan, Bercea, Reviriego and Pagh,
 * "InfiniFilter: Expanding Filters to Infinity and Beyond", SIGMOD 2023) and the Taffy
 * cuckoo filter (Apple, "Taffy filters", 2021) do: growing splits every bucket in two by
 * one bit each slot already holds, a linear pass with no kicks and no key rehashed. A
 * scalable chain of k filters costs k lookups; this filter costs one at every size.
 *
 * Where a hash lands. A key's 64-bit hash h (XXH3-64 with the filter's seed for bytes,
 * fl_hash_u64 with the seed for u64 keys: the library's one hash family) is read by bit
 * positions that do not depend on the table's size:
 *   tag     h bits [0, 8), 0 read as 1 (so an occupied slot is never 0)
 *   low     h bits [8, 8 + K): the key's stripe, K the table's current bucket bits
 *   ext     h bits [8 + K, 8 + K + 7): the bits later doublings will use
 *   column  r = ((h >> 48) * c) >> 16, in [0, c): c (1..15) widens the table so its size
 *           need not be a power of two (buckets = c * 2^K; the waste of rounding a capacity
 *           up is at most 1/8 once c >= 8)
 * The key's buckets are i1 = low * c + r and i2 = (low XOR a(tag)) * c + r, where
 * a(tag) = ((tag * 0x9e3779b1) mod 2^32) >> (32 - W) | 1 and W is the log2 of the INITIAL
 * stripe count (fixed for the filter's life, saved in its file; the | 1 keeps i2 != i1).
 * The alternate bucket thus differs from the first only in the bits below W.
 *
 * A slot is 16 bits: the low byte the tag, the high byte e = (1 << L) | ext_L, the key's
 * first L extension bits under a sentinel one (L = 7 at insert). Empty = 0.
 *
 * Doubling (K to K + 1). The key's new low gains bit K of h, which is the first extension
 * bit its slot holds; a(tag) touches only bits below W <= K, so BOTH candidate buckets of
 * the key move by the same c * 2^K. So slot s of bucket p goes to p when its first
 * extension bit is 0 and to p + c * 2^K when it is 1, with e shifted right by one (L - 1,
 * the sentinel moving down): a bucket of 4 splits into two of at most 4 and cannot
 * overflow, and every slot still sits in one of its key's two buckets (tests/test_gcf.c
 * inserts keys at every generation and finds all of them after each doubling). The table
 * is extended in place (mremap for large tables, so the peak is the new table, not old +
 * new), the new half is zero, and the old half is walked once.
 *
 * Lookup: a slot matches iff its tag equals the key's and its L extension bits equal the
 * key's first L: with q = h >> (8 + K) and e = s >> 8, the L low bits are the smear of e
 * (m = e | e >> 1, m |= m >> 2, m |= m >> 4) shifted right by one, and the slot matches iff
 * ((s ^ (tag | q << 8)) & (0xff | ((m >> 1) & 0x7f) << 8)) == 0. Four slots are one 64-bit
 * word and the test runs on all four at once (SWAR): two loads per key, the memory traffic
 * of a 16-bit cuckoo filter.
 *
 * FPR: a key not inserted meets 8 slots; one with L extension bits matches with probability
 * about 2^-(8 + L): 8 * 2^-15 = 0.024% for a table of fresh slots, 8 * 2^-12 = 0.2% for slots
 * inserted three doublings (8x) ago. fl_gcf_info_get estimates it from the stored slots'
 * actual L distribution.
 *
 * The growth limit: after FL_GCF_MAX_DOUBLINGS = 7 doublings (128x the initial table) the
 * oldest slots have no extension bit left to split by, so the filter refuses to double
 * further (inserts then fill the last table and end with FL_ERR_FULL). The Aleph filter
 * (Dayan, Bercea and Pagh, "Aleph Filter: To Infinity in Constant Time", VLDB 2024) goes on
 * by duplicating such void entries into both halves; this filter does not (the FPR of those
 * slots would be 8 * 2^-8 = 3%, and the memory of the copies grows with every doubling).
 *
 * Growth policy. An insert that finds the load above FL_GCF_GROW_LOAD doubles the table
 * first. An insert whose eviction walk (FL_GCF_KICKS kicks) finds no free slot undoes the
 * walk (every moved slot put back, so nothing is lost), doubles, and tries again, but only
 * when the load is at least FL_GCF_KICK_GROW_LOAD: below it the failure is a pile-up of one
 * key's copies (9 copies fill its 8 slots) that no doubling can relieve, and the insert
 * returns FL_ERR_FULL with the table unchanged. When doubling is refused (the growth limit:
 * FL_ERR_FULL; the byte limit of fl_gcf_set_byte_limit or a 2^32-bucket table:
 * FL_ERR_TOO_LARGE; an allocation failure: FL_ERR_NO_MEMORY), the insert still goes in if
 * it fits without doubling, and otherwise returns that status with nothing changed.
 *
 * Delete removes ONE matching slot of the key's two buckets, the one with the MOST
 * extension bits (InfiniFilter's rule): if that slot belongs to another key y, y agrees with
 * the deleted key on those bits and the deleted key's own slot (of no more bits, in the same
 * two buckets) then matches y, so y is still found. Deleting the first match instead could
 * leave y absent. Duplicates are stored as copies: insert twice, delete twice. As with every
 * fingerprint filter, deleting a key never inserted may remove another key's slot: delete
 * only keys you inserted.
 *
 * Thread safety: inserts (which may reallocate the table), deletes and clears need
 * exclusive access; lookups, info and saves may run concurrently with each other.
 */
#ifndef FILTERLAB_GCF_H
#define FILTERLAB_GCF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "filterlab.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fl_gcf fl_gcf;

#define FL_GCF_SLOTS 4u           /* slots per bucket (one 64-bit word) */
#define FL_GCF_EXT_BITS 7u        /* extension bits a fresh slot holds */
#define FL_GCF_MAX_DOUBLINGS 7u   /* = FL_GCF_EXT_BITS: 128x the initial table */
#define FL_GCF_MAX_COLUMNS 15u    /* c is 1..15 */
#define FL_GCF_KICKS 500          /* eviction walk length (Fan et al. 2014 use 500) */
/* The load above which an insert doubles the table first, and the load from which a failed
 * eviction walk doubles it (see "Growth policy"). FL_GCF_GROW_LOAD is below the load at
 * which walks start failing in results/emeraldrapids-kvm-2c-5bce/gcf/ (load_at_failure.md). */
#define FL_GCF_GROW_LOAD 0.90
#define FL_GCF_KICK_GROW_LOAD 0.50
/* The fewest initial stripe bits W: the alternate bucket stays in an aligned window of 2^W
 * stripes, and narrow windows fill unevenly (load_at_failure.md). */
#define FL_GCF_W_MIN 10u
#define FL_GCF_BUCKETS_MAX 0xffffffffu /* c * 2^K below 2^32 */

/* ---- probe math: THE definition of where a hash lands (the kernels, the library and the
 * in-line lookup all use it; saved filters depend on it) --------------------------------- */

#if defined(__GNUC__) || defined(__clang__)
#define FL_GCF_INLINE static inline __attribute__((always_inline))
#else
#define FL_GCF_INLINE static inline
#endif

#define FL_GCF_ALT_MUL 0x9e3779b1u /* 2^32 / golden ratio, odd: Knuth's multiplicative hash */
#define FL_GCF_LANE_LO8 0x00ff00ff00ff00ffull
#define FL_GCF_LANE_LO7 0x007f007f007f007full
#define FL_GCF_LANE_LO15 0x7fff7fff7fff7fffull
#define FL_GCF_LANE_TOP 0x8000800080008000ull

FL_GCF_INLINE uint32_t fl_gcf_tag(uint64_t h) {
    uint32_t t = (uint32_t)h & 0xffu;
    return t + (t == 0);
}
/* The column r in [0, c). */
FL_GCF_INLINE uint32_t fl_gcf_column(uint64_t h, uint32_t c) {
    return (uint32_t)(((h >> 48) * c) >> 16);
}
FL_GCF_INLINE uint32_t fl_gcf_stripe(uint64_t h, uint32_t kbits) {
    return (uint32_t)(h >> 8) & (uint32_t)((1ull << kbits) - 1);
}
/* The XOR from a key's first stripe to its second: W bits, odd (1 <= w <= 31). */
FL_GCF_INLINE uint32_t fl_gcf_alt_xor(uint32_t tag, uint32_t w) {
    return ((tag * FL_GCF_ALT_MUL) >> (32 - w)) | 1u;
}
/* The 4-slot pattern of a key: tag | q << 8 in every 16-bit lane (q: the key's next 7
 * bits past the stripe). */
FL_GCF_INLINE uint64_t fl_gcf_pattern(uint64_t h, uint32_t kbits) {
    uint64_t p = fl_gcf_tag(h) | ((h >> (8 + kbits)) & 0x7fu) << 8;
    return p * 0x0001000100010001ull;
}
/* The slots of a bucket word x that match pattern pat: the top bit of each matching 16-bit
 * lane (see the top of this file; exact, with no borrow between lanes). */
FL_GCF_INLINE uint64_t fl_gcf_match(uint64_t x, uint64_t pat) {
    uint64_t e = (x >> 8) & FL_GCF_LANE_LO8;
    uint64_t m = e | e >> 1;
    m |= m >> 2;
    m |= m >> 4;
    uint64_t care = ((m >> 1) & FL_GCF_LANE_LO7) << 8 | FL_GCF_LANE_LO8;
    uint64_t d = (x ^ pat) & care;
    uint64_t nz = ((d & FL_GCF_LANE_LO15) + FL_GCF_LANE_LO15) | d;
    return ~nz & FL_GCF_LANE_TOP;
}
FL_GCF_INLINE uint64_t fl_gcf_load_word(const uint64_t *b, size_t i) {
    uint64_t x;
    memcpy(&x, b + i, 8);
    return x;
}
/* One key: 1 if a slot of its two buckets matches (buckets = c << kbits, 1 <= w <= 31). */
FL_GCF_INLINE int fl_gcf_probe(const uint64_t *b, uint32_t c, uint32_t kbits, uint32_t w,
                               uint64_t h) {
    uint32_t lo = fl_gcf_stripe(h, kbits), r = fl_gcf_column(h, c);
    /* masked to the stripes: a no-op for every filter (W <= K), a bound for any view */
    uint32_t lo2 = (lo ^ fl_gcf_alt_xor(fl_gcf_tag(h), w)) & (uint32_t)((1ull << kbits) - 1);
    uint64_t pat = fl_gcf_pattern(h, kbits);
    return (fl_gcf_match(fl_gcf_load_word(b, (size_t)lo * c + r), pat) |
            fl_gcf_match(fl_gcf_load_word(b, (size_t)lo2 * c + r), pat)) != 0;
}

/* ---- one key at a time, in the caller's loop ---------------------------------------------
 * A handle made by fl_gcf_lookup_of (the table, its shape and the seed, by value) probes
 * keys in line with fl_gcf_probe: no call. It answers exactly fl_gcf_contains_hash until
 * the next insert, clear, load or free of the filter: an insert may double the table (a new
 * address and shape), so make the handle again after inserting. A handle of NULL answers 0. */
typedef struct fl_gcf_lookup {
    const uint64_t *buckets;
    uint32_t columns, kbits, wbits;
    uint64_t seed_mix; /* seed * FL_SEED_MIX: fl_hash_u64(key, seed) = fl_mix64(key + it) */
} fl_gcf_lookup;

fl_gcf_lookup fl_gcf_lookup_of(const fl_gcf *g);
static inline int fl_gcf_lookup_hash(const fl_gcf_lookup *l, uint64_t h) {
    return l->buckets ? fl_gcf_probe(l->buckets, l->columns, l->kbits, l->wbits, h) : 0;
}
static inline int fl_gcf_lookup_u64(const fl_gcf_lookup *l, uint64_t key) {
    return fl_gcf_lookup_hash(l, fl_mix64(key + l->seed_mix));
}

/* ---- the filter ------------------------------------------------------------------------ */

typedef struct fl_gcf_info {
    uint64_t buckets;          /* columns << bucket_bits */
    uint32_t columns;          /* c */
    uint32_t window_bits;      /* W: log2 of the initial stripes */
    uint32_t bucket_bits;      /* K: log2 of the current stripes */
    uint32_t doublings;        /* K - W, 0..FL_GCF_MAX_DOUBLINGS */
    size_t bytes;              /* buckets * 8: the table */
    uint64_t seed;
    uint64_t items;            /* slots occupied (copies count) */
    uint64_t slots;            /* buckets * 4 */
    uint64_t capacity;         /* items before the next doubling: floor(slots * grow load) */
    uint64_t max_capacity;     /* the same at the growth limit (the byte limit aside) */
    double load;               /* items / slots */
    double bits_per_key;       /* bytes * 8 / items (0 when empty) */
    double fpr;                /* estimate from the slots' extension lengths (see the top) */
    uint64_t items_by_ext[FL_GCF_EXT_BITS + 1]; /* slots holding L extension bits, L = 0..7 */
    uint64_t byte_limit;       /* fl_gcf_set_byte_limit's (or the load's max_bytes); 0: none */
} fl_gcf_info;

/* An empty filter for `capacity` keys before its first doubling: c * 2^W buckets, the fewest
 * with c <= 15, W >= FL_GCF_W_MIN and 4 * buckets * FL_GCF_GROW_LOAD >= capacity. Errors:
 * FL_ERR_INVALID_ARG (NULL out), FL_ERR_BAD_N (capacity 0), FL_ERR_TOO_LARGE (2^32 buckets
 * or more; a table that reaches 2^32 buckets refuses to double), FL_ERR_NO_MEMORY. */
fl_status fl_gcf_create(uint64_t capacity, uint64_t seed, fl_gcf **out);
void fl_gcf_free(fl_gcf *g);
/* Removes every item; keeps the table's current size, seed, byte limit and kernel binding. */
fl_status fl_gcf_clear(fl_gcf *g);

/* The cap on the table's bytes a doubling may reach (0: none; see "Growth policy"). A limit
 * below the current table refuses every doubling and shrinks nothing. */
fl_status fl_gcf_set_byte_limit(fl_gcf *g, uint64_t bytes);

/* The hashes the byte and u64 calls use (0 for a NULL filter). */
uint64_t fl_gcf_hash_bytes(const fl_gcf *g, const void *key, size_t len);
uint64_t fl_gcf_hash_u64(const fl_gcf *g, uint64_t key);

/* fl_gcf_insert_, _delete_ and _contains_ for hash, bytes, u64, hashes and u64s (filterlab.h's
 * FL_DECLARE_KEY_CALLS). Inserts: FL_OK, or an error with nothing stored (see "Growth
 * policy"); FL_ERR_INVALID_ARG for a NULL filter or a NULL key with len > 0; a batch stops
 * at the first key not stored (the keys before it stay). Deletes remove one copy (see the
 * top of this file): FL_OK, FL_ERR_NOT_FOUND (nothing changed), FL_ERR_INVALID_ARG; a batch
 * stops at the first key not found. Lookups answer 0 for a NULL filter or key; one key is
 * probed in line (fl_gcf_probe), batches through the filter's kernel (the gcf module),
 * FL_ERR_INVALID_ARG for NULL arrays with n > 0. */
FL_DECLARE_KEY_CALLS(fl_gcf, fl_gcf);

/* ---- persistence (filterlab format v2, kind growing cuckoo filter) ---------------------
 * Loads validate every slot (a tag of 0 in an occupied slot, a missing sentinel, more
 * extension bits than a fresh slot or fewer than the doublings left it, the counts the
 * header states): FL_ERR_CORRUPT, never a wrong answer later. max_bytes caps the table
 * bytes loaded (0: no cap; FL_ERR_TOO_LARGE above it) and becomes the loaded filter's byte
 * limit, so a file cannot make a later insert allocate past what its loader allowed. */
FL_DECLARE_FILE_CALLS(fl_gcf, fl_gcf);

/* Kernel choice per filter, like fl_filter_bind_kernel ("auto" or NULL unbinds). */
fl_status fl_gcf_bind_kernel(fl_gcf *g, const char *name);
const char *fl_gcf_kernel(const fl_gcf *g);

fl_status fl_gcf_info_get(const fl_gcf *g, fl_gcf_info *out);

/* ---- counting (src/gcf/count_gcf.c) ----------------------------------------------------
 * *count = the slots of the key's two buckets that match it (0..8): RedisBloom's CF.COUNT.
 * Never below the copies of the key inserted and not deleted (every copy sits in one of the
 * two buckets and matches); other keys that agree on the tag and the slots' extension bits
 * add to it. FL_ERR_INVALID_ARG for a NULL filter or count, or a NULL key with len > 0
 * (*count = 0 then). */
fl_status fl_gcf_count_hash(const fl_gcf *g, uint64_t h, uint32_t *count);
fl_status fl_gcf_count_bytes(const fl_gcf *g, const void *key, size_t len, uint32_t *count);
fl_status fl_gcf_count_u64(const fl_gcf *g, uint64_t key, uint32_t *count);

#ifdef __cplusplus
}
#endif
#endif /* FILTERLAB_GCF_H */
