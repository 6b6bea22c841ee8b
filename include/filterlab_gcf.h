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
 *   column  r = (h bits [8, 24) * c) >> 16, in [0, c): c (1..15) widens the table so its
 *           size need not be a power of two (buckets = c * 2^K; the waste of rounding a
 *           capacity up is at most 1/8 once c >= 8)
 *   stripe  s = the top K bits of h, read from bit 63 down, K the table's current bits
 *   ext     the 7 bits below them (bits 63 - K .. 57 - K): the bits later doublings use,
 *           in the order they use them
 * The table is c columns of 2^K buckets, column-major, and a stripe's bucket in its column
 * is the stripe rotated left by W (its top W bits at the bottom): i1 = r * 2^K + rot(s), and
 * i2 = i1 XOR a(tag) (shifts and ORs, no multiply), where a(tag) = ((tag * 0x9e3779b1) mod
 * 2^32) >> (32 - W) | 1 and W is the log2 of the INITIAL stripe count (fixed for the
 * filter's life, saved in its file; the | 1 keeps i2 != i1). So the alternate flips the
 * stripe's top W bits, which sit in the index's low W bits: both buckets of a key lie in
 * one window of 2^W buckets (8 KiB at W = 10), the same pages.
 *
 * A slot is 16 bits: the low byte the tag, the high byte f the key's first L extension bits
 * from bit 7 down, then a sentinel one, then zeros: f = ext_L << (8 - L) | 1 << (7 - L)
 * (L = 7 at insert: the 7 bits and the sentinel in bit 0). Empty = 0.
 *
 * Doubling (K to K + 1). The key's stripe gains the bit below it, which is the first
 * extension bit its slot holds (bit 7 of f): s becomes 2s + bit, its top W bits unchanged.
 * Bucket p = r * 2^K + q * 2^W + t (q the stripe's low K - W bits, t its top W) becomes
 * 2p - t + bit * 2^W for BOTH of a key's buckets (they differ only in t). A slot of bucket p
 * goes to 2p - t when its first extension bit is 0 and to 2p - t + 2^W when it is 1, with f
 * shifted left by one (L - 1, the sentinel moving up): a bucket of 4 splits into two of at
 * most 4 and cannot overflow, and every slot still sits in one of its key's two buckets
 * (tests/test_gcf.c inserts keys at every generation and finds all of them after each
 * doubling). The table is extended in place (mremap for large tables, so the peak is the new
 * table, not old + new) and walked once from its top bucket down: bucket p's destinations
 * are at or above p, so none is written before it is read.
 *
 * Lookup: a slot matches iff its tag equals the key's and its L extension bits equal the
 * key's first L. With q = the key's 7 extension bits from bit 7 down (h >> (56 - K), bit 0
 * cleared) and t = f XOR (f - 1) (the sentinel and the bits below it: a borrow-free
 * lowest-set-bit mask), the slot matches iff ((s XOR (tag | q << 8)) AND NOT (t << 8)) == 0
 * in 16 bits. In 16-bit lanes t << 8 is s XOR (s - 0x100) (fl_gcf_lane_match), so per slot
 * that is a subtract, two XORs and an AND-NOT (SSE2 for one key, AVX2 and AVX-512 for 4
 * and 8 keys, NEON; tests run them against the 64-bit SWAR form of fl_gcf_match and a
 * slot-by-slot test); two loads per key, the memory traffic of a 16-bit cuckoo filter.
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

/* The one-key lookup's SSE2 form (x86-64 baseline; FL_INLINE_PORTABLE forces the portable
 * one, as filterlab_inline.h's do). emmintrin.h only: immintrin.h costs every includer. */
#if !defined(FL_INLINE_PORTABLE) && defined(__x86_64__)
#include <emmintrin.h>
#endif

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
#define FL_GCF_LANE_ONE 0x0001000100010001ull
#define FL_GCF_LANE_LO8 0x00ff00ff00ff00ffull
#define FL_GCF_LANE_HI8 0xff00ff00ff00ff00ull
#define FL_GCF_LANE_LO15 0x7fff7fff7fff7fffull
#define FL_GCF_LANE_TOP 0x8000800080008000ull

FL_GCF_INLINE uint32_t fl_gcf_tag(uint64_t h) {
    uint32_t t = (uint32_t)h & 0xffu;
    return t + (t == 0);
}
/* The column r in [0, c). */
FL_GCF_INLINE uint32_t fl_gcf_column(uint64_t h, uint32_t c) {
    return (uint32_t)((((h >> 8) & 0xffffu) * c) >> 16);
}

/* A shape's constants (c, K and W' = min(W, K); W above K is read as K, which no filter
 * has and a kernel view may), made once per shape by fl_gcf_geom_of, so that a lookup
 * shifts only by counts it does not compute. Computed from c, K and W at every key, the
 * one-key lookup at x86-64 baseline flags shifted 7 times by a count in CL (two uops each
 * without BMI2, plus the count's arithmetic and the moves into CL); with them, twice, by
 * counts loaded as they are. Past the caches a one-key loop is bound by how many keys'
 * loads the out-of-order window holds, so instructions per key become ns per key
 * (results/emeraldrapids-kvm-2c-5bce/gcf/lookups.md). The forms below are the top
 * comment's, rewritten with them:
 *   y = h >> (64 - K - W'): the stripe s (K bits) above the W' bits below it, so
 *   rot(s) = (y & bits [W', K)) | (y >> K): its low K - W' bits moved up by W', its top W'
 *           to the bottom;
 *   r << K = r * 2^K, and the extension byte is bits 63..57 of h << K = h * 2^K;
 *   a(tag) = ((tag * 0x9e3779b1 mod 2^32) * 2^W') >> 32 | 1 (| 0 when W' = 0: a view of
 *           one stripe, whose second bucket is its first).
 * tests/test_gcf.c checks them against the prose's forms at every shape. */
typedef struct fl_gcf_geom {
    uint64_t stride;  /* 2^K: buckets per column */
    uint64_t rmask;   /* bits [W', K) */
    uint64_t wmul;    /* 2^W' */
    uint32_t columns; /* c */
    uint32_t alt_or;  /* 1; 0 when W' = 0 */
    uint8_t yshift;   /* 64 - K - W'; 63 for K = 0 (y is then 1 bit, and y >> 1 = 0) */
    uint8_t kshift;   /* K; 1 for K = 0 */
} fl_gcf_geom;

/* c in 1..15 (a kernel view's c up to 255 gives the same arithmetic), kbits <= 31. */
FL_GCF_INLINE fl_gcf_geom fl_gcf_geom_of(uint32_t c, uint32_t kbits, uint32_t w) {
    uint32_t ww = w < kbits ? w : kbits;
    fl_gcf_geom g;
    g.stride = (uint64_t)1 << kbits;
    g.rmask = (((uint64_t)1 << kbits) - 1) ^ (((uint64_t)1 << ww) - 1);
    g.wmul = (uint64_t)1 << ww;
    g.columns = c;
    g.alt_or = ww != 0;
    g.yshift = (uint8_t)(kbits ? 64 - kbits - ww : 63);
    g.kshift = (uint8_t)(kbits ? kbits : 1);
    return g;
}
/* The XOR from a key's first bucket to its second, a(tag). */
FL_GCF_INLINE uint64_t fl_gcf_alt_xor(const fl_gcf_geom *g, uint32_t tag) {
    return (((uint64_t)(uint32_t)(tag * FL_GCF_ALT_MUL) * g->wmul) >> 32) | g->alt_or;
}
/* A key's two buckets. */
FL_GCF_INLINE void fl_gcf_buckets(const fl_gcf_geom *g, uint64_t h, size_t *i1, size_t *i2) {
    uint64_t y = h >> g->yshift;
    uint64_t i = (uint64_t)fl_gcf_column(h, g->columns) * g->stride | (y & g->rmask) | (y >> g->kshift);
    *i1 = (size_t)i;
    *i2 = (size_t)(i ^ fl_gcf_alt_xor(g, fl_gcf_tag(h)));
}
/* The 16-bit slot pattern of a key: its tag, and its next 7 bits below the stripe in bits
 * 15..9 (bit 8 clear). */
FL_GCF_INLINE uint32_t fl_gcf_pattern(const fl_gcf_geom *g, uint64_t h) {
    return fl_gcf_tag(h) | ((uint32_t)((h * g->stride) >> 48) & 0xfe00u);
}
/* The slots of a bucket word x (four 16-bit lanes) that match pattern pat: the top bit of
 * each matching lane (see the top of this file; the lowest-set-bit mask of each f is taken
 * as (f | 0x100) - 1, so no borrow crosses a lane, and the zero test is exact). */
FL_GCF_INLINE uint64_t fl_gcf_match(uint64_t x, uint32_t pat) {
    uint64_t f = (x >> 8) & FL_GCF_LANE_LO8;
    uint64_t t = (f ^ ((f | (FL_GCF_LANE_ONE << 8)) - FL_GCF_LANE_ONE)) & FL_GCF_LANE_LO8;
    uint64_t d = (x ^ (pat * FL_GCF_LANE_ONE)) & ~(t << 8);
    uint64_t nz = ((d & FL_GCF_LANE_LO15) + FL_GCF_LANE_LO15) | d;
    return ~nz & FL_GCF_LANE_TOP;
}
/* The slot test in one 16-bit lane, as the vector forms (SSE2 below, the AVX2, AVX-512 and
 * NEON kernels) compute it: x - 0x100 subtracts 1 from the high byte f alone (the low
 * byte has nothing to borrow), so x ^ (x - 0x100) is (f ^ (f - 1)) << 8, the sentinel and
 * the bits below it, with no shift; for f = 0 it is 0xff00 (tag only). 1 if the slot
 * matches. tests/test_gcf.c checks it on every 16-bit slot against the prose's test. */
FL_GCF_INLINE int fl_gcf_lane_match(uint32_t x, uint32_t pat) {
    uint32_t m = (x ^ (x - 0x100u)) & 0xffffu;
    return ((x ^ pat) & ~m & 0xffffu) == 0;
}
FL_GCF_INLINE uint64_t fl_gcf_load_word(const uint64_t *b, size_t i) {
    uint64_t x;
    memcpy(&x, b + i, 8);
    return x;
}
/* One key: 1 if a slot of its two buckets matches. On x86-64 the 8 slots are one SSE2
 * register (baseline) and the test runs in 16-bit lanes (fl_gcf_lane_match's form): fewer
 * instructions than the SWAR form, which a one-key loop pays in how many keys' loads it
 * keeps in flight. Both forms give the same answer (tests/checkkernels/check_gcf.c compares
 * this lookup with the scalar kernel, tests/test_gcf.c the SWAR and lane tests with a
 * slot-by-slot one). */
FL_GCF_INLINE int fl_gcf_probe(const fl_gcf_geom *g, const uint64_t *b, uint64_t h) {
    size_t i1, i2;
    fl_gcf_buckets(g, h, &i1, &i2);
    uint32_t pat = fl_gcf_pattern(g, h);
#if defined(__x86_64__) && !defined(FL_INLINE_PORTABLE)
    __m128i x = _mm_set_epi64x((long long)fl_gcf_load_word(b, i2), (long long)fl_gcf_load_word(b, i1));
    __m128i m = _mm_xor_si128(x, _mm_sub_epi16(x, _mm_set1_epi16(0x100)));
    __m128i d = _mm_andnot_si128(m, _mm_xor_si128(x, _mm_set1_epi16((short)pat)));
    return _mm_movemask_epi8(_mm_cmpeq_epi16(d, _mm_setzero_si128())) != 0;
#else
    return (fl_gcf_match(fl_gcf_load_word(b, i1), pat) |
            fl_gcf_match(fl_gcf_load_word(b, i2), pat)) != 0;
#endif
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
    fl_gcf_geom geom;  /* fl_gcf_geom_of(columns, kbits, wbits) */
} fl_gcf_lookup;

fl_gcf_lookup fl_gcf_lookup_of(const fl_gcf *g);
static inline int fl_gcf_lookup_hash(const fl_gcf_lookup *l, uint64_t h) {
    return l->buckets ? fl_gcf_probe(&l->geom, l->buckets, h) : 0;
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
/* The table bytes fl_gcf_create(capacity) would allocate (buckets * 8), without allocating:
 * for a caller that caps memory before creating. Errors as fl_gcf_create's sizing. */
fl_status fl_gcf_bytes_for(uint64_t capacity, uint64_t *bytes);
void fl_gcf_free(fl_gcf *g);
/* Removes every item; keeps the table's current size, seed, byte limit and kernel binding. */
fl_status fl_gcf_clear(fl_gcf *g);

/* The cap on the table's bytes a doubling may reach (0: none; see "Growth policy"). A limit
 * below the current table refuses every doubling and shrinks nothing. */
fl_status fl_gcf_set_byte_limit(fl_gcf *g, uint64_t bytes);

/* fl_gcf_hash_, _insert_, _delete_ and _contains_ for hash, bytes, u64, hashes and u64s, and
 * the kernel binding (filterlab.h's FL_DECLARE_KEY_CALLS). Inserts: FL_OK, or an error with
 * nothing stored (see "Growth policy"); FL_ERR_INVALID_ARG for a NULL filter or a NULL key
 * with len > 0; a batch stops at the first key not stored (the keys before it stay). Deletes
 * remove one copy (see the top of this file): FL_OK, FL_ERR_NOT_FOUND (nothing changed),
 * FL_ERR_INVALID_ARG; a batch stops at the first key not found. Lookups answer 0 for a NULL
 * filter or key; one key is probed in line (fl_gcf_probe), batches through the filter's
 * kernel (the gcf module), FL_ERR_INVALID_ARG for NULL arrays with n > 0. */
FL_DECLARE_KEY_CALLS(fl_gcf, fl_gcf);

/* ---- persistence (filterlab format v2, kind growing cuckoo filter) ---------------------
 * Loads validate every slot (a tag of 0 in an occupied slot, a missing sentinel, more
 * extension bits than a fresh slot or fewer than the doublings left it, the counts the
 * header states): FL_ERR_CORRUPT, never a wrong answer later. max_bytes caps the table
 * bytes loaded (0: no cap; FL_ERR_TOO_LARGE above it) and becomes the loaded filter's byte
 * limit, so a file cannot make a later insert allocate past what its loader allowed. */
FL_DECLARE_FILE_CALLS(fl_gcf, fl_gcf);

fl_status fl_gcf_info_get(const fl_gcf *g, fl_gcf_info *out);
/* The bytes the filter holds: its struct and its table's allocation (the mapping's length
 * for a mapped table, else the table and the slack after it), as fl_sbf_memory counts a
 * chain; 0 for NULL. */
size_t fl_gcf_memory(const fl_gcf *g);

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
