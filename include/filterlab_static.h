/*
 * filterlab static structures: binary fuse filters and the Bloomier filter, both built once
 * from a whole key set and never changed afterwards.
 *
 * Included by filterlab.h; include that header, not this one.
 *
 * Binary fuse filters (Graf and Lemire, "Binary Fuse Filters: Fast and Smaller Than Xor
 * Filters", ACM Journal of Experimental Algorithmics 27, 2022)
 *   An array of c cells of w bits (w = 8 or 16: the fingerprint width). Each key's 64-bit
 *   hash h picks a arity cells (arity = 3 or 4), one in each of `arity` consecutive segments
 *   of a power-of-two length, and the construction solves, by peeling (a key alone in one of
 *   its cells is assigned last), for cells whose XOR over a key's positions equals the key's
 *   fingerprint. A lookup reads the arity cells and compares: every built key is found (no
 *   false negatives) and another key matches with probability 2^-w. Space is c * w bits for
 *   n keys with c / n about 1.125 (3-wise) or 1.075 (4-wise) at a million keys and above
 *   (the paper's fitted size factors, which grow for small sets), so 9.0 bits per
 *   key at 2^-8 against the log2(1/p) = 8 bit bound.
 *
 * The Bloomier filter (Chazelle, Kilian, Rubinfeld and Tal, "The Bloomier filter", SODA
 *   2004) on the same construction: a static map from keys to values of value_bits <= 16
 *   bits in cells of cell_bits (16 or 32) bits. A cell XOR over a key's positions gives
 *   (its hash's low cell_bits bits) ^ value, so a stored key gets its value back exactly, and
 *   another key is reported absent unless the top cell_bits - value_bits bits of what it
 *   reads happen to be zero (probability 2^-(cell_bits - value_bits)); then it gets an
 *   arbitrary value. With cell_bits == value_bits every key gets some value (a retrieval
 *   structure, Dietzfelbinger and Pagh 2008).
 *
 * Keys are 64-bit integers (hash byte keys first, e.g. with XXH3, and pass the hashes):
 * a key's hash is fl_hash_u64(key, seed), a bijection, so distinct keys never share a hash.
 * Duplicate keys are tolerated (stored once; for a Bloomier filter they must carry the same
 * value, else FL_ERR_DUPLICATE_KEY). Construction fails for an unlucky seed with a
 * probability that falls quickly with n; it then retries with the next seed, up to max_tries
 * times, and returns FL_ERR_BUILD_FAILED after that.
 *
 * Thread safety: a built structure is read-only; any number of threads may look keys up.
 */
#ifndef FILTERLAB_STATIC_H
#define FILTERLAB_STATIC_H

#include <stddef.h>
#include <stdint.h>

#include "filterlab.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fl_fuse fl_fuse;
typedef struct fl_bloomier fl_bloomier;

#define FL_FUSE_TRIES_DEFAULT 100u /* the reference implementation's bound as well */
/* Most keys one structure holds: cell indices are 32-bit. */
#define FL_FUSE_KEYS_MAX 0xC0000000ull

typedef struct fl_fuse_config {
    uint32_t arity;            /* 3 or 4 (0: 3) */
    uint32_t fingerprint_bits; /* 8 or 16 (0: 8); FPR 2^-bits */
    uint64_t seed;             /* first seed tried; try i uses seed + i */
    uint32_t max_tries;        /* 0: FL_FUSE_TRIES_DEFAULT */
    size_t max_bytes;          /* 0: no limit; else refuse (TOO_LARGE) before allocating a
                                  filter, or building memory, larger than this */
} fl_fuse_config;

typedef struct fl_static_info {
    uint32_t arity;
    uint32_t cell_bits;        /* fingerprint bits (fuse) or cell bits (Bloomier) */
    uint32_t value_bits;       /* Bloomier only (0 for a fuse filter) */
    uint32_t segment_length;
    uint32_t segment_count;
    uint32_t cells;            /* array length */
    uint64_t keys;             /* distinct keys stored */
    uint64_t duplicates;       /* keys given more than once (build only; 0 after a load) */
    uint64_t seed;             /* the seed that worked */
    uint32_t tries;            /* construction tries (1 = first seed); 0 after a load */
    size_t bytes;              /* the cell array */
    size_t build_bytes;        /* peak temporary memory of the construction (0 after load) */
    double build_seconds;      /* wall time of the construction (0 after a load) */
    double bits_per_key;       /* bytes * 8 / keys (0 for an empty set) */
    double fpr;                /* 2^-(cell_bits - value_bits): a non-key's chance of a match */
} fl_static_info;

/* Builds a binary fuse filter of keys[0..n) (n may be 0: every lookup is then 0).
 * Errors: FL_ERR_INVALID_ARG (NULL out, NULL keys with n > 0, arity not 3/4, fingerprint
 * bits not 8/16), FL_ERR_TOO_LARGE (n above FL_FUSE_KEYS_MAX, or above max_bytes),
 * FL_ERR_NO_MEMORY, FL_ERR_BUILD_FAILED (max_tries seeds all failed). */
fl_status fl_fuse_build_u64(const fl_fuse_config *cfg, const uint64_t *keys, size_t n,
                            fl_fuse **out);
void fl_fuse_free(fl_fuse *f);
/* 1 if key may be in the set, 0 if it is not; NULL f gives 0. */
int fl_fuse_contains_u64(const fl_fuse *f, uint64_t key);
/* out[i] = fl_fuse_contains_u64(f, keys[i]); returns the number of 1s. Hashing included,
 * in the dispatched kernel. */
size_t fl_fuse_contains_u64s(const fl_fuse *f, const uint64_t *keys, size_t n, uint8_t *out);
fl_status fl_fuse_info(const fl_fuse *f, fl_static_info *out);
/* Per-filter kernel choice, as fl_bind_kernel ("auto", "scalar", "avx2", ...). */
fl_status fl_fuse_bind_kernel(fl_fuse *f, const char *name);
const char *fl_fuse_kernel(const fl_fuse *f);

/* Sizing without building: the cell bytes a structure of n keys takes (cell_bits 8 or 16 for
 * a fuse filter, 16 or 32 for a Bloomier filter). FL_ERR_INVALID_ARG for a bad arity or
 * width, FL_ERR_TOO_LARGE past FL_FUSE_KEYS_MAX keys. */
fl_status fl_fuse_bytes_for(uint32_t arity, uint32_t cell_bits, uint64_t n, size_t *bytes);

/* Files: kind FL_FILE_BINARY_FUSE (src/static/codec_fuse.c has the layout). Same contracts as
 * fl_save_mem / fl_load_mem; max_bytes (0: none) bounds the cell array a load allocates. */
/* fl_fuse_serialized_size, fl_fuse_save_mem, fl_fuse_load_mem,
 * fl_fuse_save_file, fl_fuse_load_file */
FL_DECLARE_FILE_CALLS(fl_fuse, fl_fuse);

/* ---- Bloomier filter ---------------------------------------------------------------- */
typedef struct fl_bloomier_config {
    uint32_t arity;      /* 3 or 4 (0: 3) */
    uint32_t value_bits; /* 1..16 */
    uint32_t cell_bits;  /* 16 or 32, >= value_bits (0: 16 if value_bits <= 8, else 32) */
    uint64_t seed;
    uint32_t max_tries;  /* 0: FL_FUSE_TRIES_DEFAULT */
    size_t max_bytes;    /* as fl_fuse_config's */
} fl_bloomier_config;

/* Builds the map keys[i] -> values[i] (values below 2^value_bits, else FL_ERR_INVALID_ARG).
 * A key given twice must carry the same value (FL_ERR_DUPLICATE_KEY otherwise). Other errors
 * as fl_fuse_build_u64. */
fl_status fl_bloomier_build_u64(const fl_bloomier_config *cfg, const uint64_t *keys,
                                const uint16_t *values, size_t n, fl_bloomier **out);
void fl_bloomier_free(fl_bloomier *b);
/* 1 and *value set if key is stored (or a non-key not detected: see the top), else 0 and
 * *value = 0. */
int fl_bloomier_get_u64(const fl_bloomier *b, uint64_t key, uint16_t *value);
/* values[i], found[i] (0/1) for keys[i]; returns the number found. */
size_t fl_bloomier_get_u64s(const fl_bloomier *b, const uint64_t *keys, size_t n,
                            uint16_t *values, uint8_t *found);
fl_status fl_bloomier_info(const fl_bloomier *b, fl_static_info *out);
fl_status fl_bloomier_bind_kernel(fl_bloomier *b, const char *name);
const char *fl_bloomier_kernel(const fl_bloomier *b);
/* Files: kind FL_FILE_BLOOMIER. */
/* fl_bloomier_serialized_size, fl_bloomier_save_mem, fl_bloomier_load_mem,
 * fl_bloomier_save_file, fl_bloomier_load_file */
FL_DECLARE_FILE_CALLS(fl_bloomier, fl_bloomier);

/* ---- The probe math, and one-key lookups inline ---------------------------------------
 * THE definition of where a key lands (the kernels include this; saved files depend on it).
 *   h   = fl_hash_u64(key, seed)
 *   p0  = floor(h * (segment_count * segment_length) / 2^64)   (Lemire's multiply-shift
 *         range reduction, "Fast Random Integer Generation in an Interval", 2019: the high
 *         half of one 64x64->128-bit product where the compiler has it, else the same value
 *         exactly from h's 32-bit halves)
 *   p_i = (p0 + i * segment_length) XOR ((h >> s_i) & (segment_length - 1)), i = 1..arity-1,
 *         with s_1 = 18, s_2 = 0, s_3 = 36: the XOR keeps p_i inside segment i after p0's
 *         (segment lengths are powers of two, at most 2^18), so the arity cells fall in
 *         consecutive segments: the "fuse" layout of Graf and Lemire 2022.
 *   fingerprint / check word = (h ^ (h >> 32)) truncated to the cell width. */

/* fl_fuse_view.shape: which typed one-key lookup answers the view on its fast path. Set by
 * fl_fuse_view_of for a non-empty binary fuse filter; FL_FUSE_SHAPE_NONE for an empty one, a
 * Bloomier filter's view and {0}, which every lookup answers through the general path. */
#define FL_FUSE_SHAPE_NONE 0
#define FL_FUSE_SHAPE_3_8 1  /* 3-wise, 8-bit fingerprints: fl_fuse8_lookup */
#define FL_FUSE_SHAPE_3_16 2 /* 3-wise, 16-bit fingerprints: fl_fuse16_lookup */
#define FL_FUSE_SHAPE_4_8 3  /* 4-wise, 8-bit fingerprints: fl_fuse4w8_lookup */
#define FL_FUSE_SHAPE_4_16 4 /* 4-wise, 16-bit fingerprints: fl_fuse4w16_lookup */

typedef struct fl_fuse_view {
    const void *cells;      /* cells, padded by 64 zero bytes (vector gathers read 4 bytes) */
    uint64_t seed_mix;      /* seed * FL_SEED_MIX: fl_hash_u64(key, seed) = fl_mix64(key + it) */
    uint32_t seg_len;       /* segment length, a power of two */
    uint32_t seg_mask;      /* seg_len - 1 */
    uint32_t seg_count_len; /* segment_count * seg_len: the range of p0 */
    uint8_t arity;          /* 3 or 4 */
    uint8_t cell_bits;      /* 8, 16 or 32 */
    uint8_t value_bits;     /* Bloomier: value width; 0 for a fuse filter */
    uint8_t shape;          /* FL_FUSE_SHAPE_* (a binary fuse filter's), or NONE */
} fl_fuse_view;

#if defined(__GNUC__) || defined(__clang__)
#define FL_FUSE_ALWAYS_INLINE static inline __attribute__((always_inline))
#define FL_FUSE_LIKELY(x) __builtin_expect(!!(x), 1)
#else
#define FL_FUSE_ALWAYS_INLINE static inline
#define FL_FUSE_LIKELY(x) (x)
#endif

/* floor(h * range / 2^64) for range < 2^32 from 32-bit halves (hi * range cannot overflow
 * with the carry of lo * range added: both factors are below 2^32): the portable form, and
 * the reference the 128-bit form is tested against. */
static inline uint32_t fl_fuse_reduce_portable(uint64_t h, uint32_t range) {
    uint64_t t = (h >> 32) * range + (((h & 0xffffffffu) * range) >> 32);
    return (uint32_t)(t >> 32);
}

/* The same value: floor(h * range / 2^64) is exactly the high half of the 128-bit product
 * (one mul/mulx on x86-64, umulh on AArch64, where the portable form takes two multiplies
 * and three shifts). */
#if defined(__SIZEOF_INT128__)
/* __extension__: the header stays quiet under -Wpedantic, in C and C++. */
__extension__ typedef unsigned __int128 fl_fuse_u128;
#endif
static inline uint32_t fl_fuse_reduce(uint64_t h, uint32_t range) {
#if defined(__SIZEOF_INT128__)
    return (uint32_t)(((fl_fuse_u128)h * range) >> 64);
#else
    return fl_fuse_reduce_portable(h, range);
#endif
}

static inline void fl_fuse_positions(const fl_fuse_view *v, uint64_t h, uint32_t p[4]) {
    uint32_t p0 = fl_fuse_reduce(h, v->seg_count_len);
    p[0] = p0;
    p[1] = (p0 + v->seg_len) ^ ((uint32_t)(h >> 18) & v->seg_mask);
    p[2] = (p0 + 2 * v->seg_len) ^ ((uint32_t)h & v->seg_mask);
    p[3] = (p0 + 3 * v->seg_len) ^ ((uint32_t)(h >> 36) & v->seg_mask);
}

static inline uint32_t fl_fuse_word(uint64_t h) {
    return (uint32_t)(h ^ (h >> 32));
}

/* The probe of one shape, arity (3, 4) and bits (8, 16, 32) constants at every call site: XOR
 * of the key's cells with its word, masked to the cell width. No branch on the view.
 * Cell p_i = (p0 + i * seg_len) ^ m_i (m_i < seg_len) is read as cell p0 ^ m_i of the array
 * that starts i segments in: seg_len is a power of two, so adding it changes only the bits
 * at and above its own and the XOR only those below, and the two commute. The segments'
 * bases are loop invariants of a caller's loop; per key that leaves the XORs and masks. */
FL_FUSE_ALWAYS_INLINE uint32_t fl_fuse_probe_as(const fl_fuse_view *v, uint64_t key, int arity,
                                                int bits) {
    uint64_t h = fl_mix64(key + v->seed_mix);
    uint32_t p0 = fl_fuse_reduce(h, v->seg_count_len);
    uint32_t o1 = p0 ^ ((uint32_t)(h >> 18) & v->seg_mask);
    uint32_t o2 = p0 ^ ((uint32_t)h & v->seg_mask);
    uint32_t x = fl_fuse_word(h);
    const size_t len = v->seg_len;
    if (bits == 8) {
        const uint8_t *c = (const uint8_t *)v->cells;
        x ^= (uint32_t)c[p0] ^ (c + len)[o1] ^ (c + 2 * len)[o2];
        if (arity == 4) x ^= (c + 3 * len)[p0 ^ ((uint32_t)(h >> 36) & v->seg_mask)];
        return x & 0xffu;
    }
    if (bits == 16) {
        const uint16_t *c = (const uint16_t *)v->cells;
        x ^= (uint32_t)c[p0] ^ (c + len)[o1] ^ (c + 2 * len)[o2];
        if (arity == 4) x ^= (c + 3 * len)[p0 ^ ((uint32_t)(h >> 36) & v->seg_mask)];
        return x & 0xffffu;
    }
    const uint32_t *c = (const uint32_t *)v->cells;
    x ^= c[p0] ^ (c + len)[o1] ^ (c + 2 * len)[o2];
    if (arity == 4) x ^= (c + 3 * len)[p0 ^ ((uint32_t)(h >> 36) & v->seg_mask)];
    return x;
}

/* XOR of the key's cells with its word, masked to the cell width: 0 for a fuse filter's
 * keys; the value (high bits zero) for a Bloomier filter's. The view's arity and width are
 * read per call (fl_fuse_probe_as is the form without). */
static inline uint32_t fl_fuse_probe(const fl_fuse_view *v, uint64_t key) {
    if (v->cell_bits == 8)
        return v->arity == 4 ? fl_fuse_probe_as(v, key, 4, 8) : fl_fuse_probe_as(v, key, 3, 8);
    if (v->cell_bits == 16)
        return v->arity == 4 ? fl_fuse_probe_as(v, key, 4, 16) : fl_fuse_probe_as(v, key, 3, 16);
    return v->arity == 4 ? fl_fuse_probe_as(v, key, 4, 32) : fl_fuse_probe_as(v, key, 3, 32);
}

/* A filter's view (valid until fl_fuse_free); {0} for NULL. */
fl_fuse_view fl_fuse_view_of(const fl_fuse *f);
fl_fuse_view fl_bloomier_view_of(const fl_bloomier *b);

/* The one-key lookup of any view, out of line: what the inline lookups below call for a view
 * they do not probe in line (an empty filter's, a Bloomier filter's, {0}, or a typed lookup
 * handed another shape). 0 for a view with cells == NULL. */
int fl_fuse_lookup_view(const fl_fuse_view *v, uint64_t key);

/* One key, inline in the caller's loop (the "one key at a time" way): what
 * fl_fuse_contains_u64 returns, for the view of any fuse or Bloomier filter.
 *
 * A binary fuse filter's view is probed in line, specialized by its shape: one compare per
 * shape on v->shape, a field that never changes, so always predicted (compilers that unswitch
 * loops, GCC at -O3, hoist them out of a caller's loop over a local view). Other views go
 * to fl_fuse_lookup_view: an empty filter's answers 0; a Bloomier filter's view is answered as
 * a set of its keys, what fl_bloomier_get_u64 finds (a stored key's probe is its value, zero
 * above value_bits, so the test ignores the value bits; testing probe == 0 alone would call
 * absent every key stored with a nonzero value). */
static inline int fl_fuse_lookup(const fl_fuse_view *v, uint64_t key) {
    const unsigned shape = v->shape;
    if (FL_FUSE_LIKELY(shape == FL_FUSE_SHAPE_3_8)) return fl_fuse_probe_as(v, key, 3, 8) == 0;
    if (shape == FL_FUSE_SHAPE_3_16) return fl_fuse_probe_as(v, key, 3, 16) == 0;
    if (shape == FL_FUSE_SHAPE_4_8) return fl_fuse_probe_as(v, key, 4, 8) == 0;
    if (shape == FL_FUSE_SHAPE_4_16) return fl_fuse_probe_as(v, key, 4, 16) == 0;
    return fl_fuse_lookup_view(v, key);
}

/* Typed one-key lookups: for a view of the named shape (check v.shape once, or trust the
 * filter's configuration), the probe with arity and width as constants and one compare on
 * v->shape in front. Handed any other view (another shape, empty, Bloomier, {0}) they answer
 * exactly what fl_fuse_lookup answers, through fl_fuse_lookup_view: a mismatched view costs
 * speed, never a wrong answer.
 *   fl_fuse8_lookup    3-wise, 8-bit fingerprints  (FL_FUSE_SHAPE_3_8)
 *   fl_fuse16_lookup   3-wise, 16-bit fingerprints (FL_FUSE_SHAPE_3_16)
 *   fl_fuse4w8_lookup  4-wise, 8-bit fingerprints  (FL_FUSE_SHAPE_4_8)
 *   fl_fuse4w16_lookup 4-wise, 16-bit fingerprints (FL_FUSE_SHAPE_4_16) */
#define FL_FUSE_TYPED_LOOKUP(name, code, arity, bits)                                        \
    static inline int name(const fl_fuse_view *v, uint64_t key) {                            \
        if (FL_FUSE_LIKELY(v->shape == (code))) return fl_fuse_probe_as(v, key, arity, bits) == 0; \
        return fl_fuse_lookup_view(v, key);                                                  \
    }
FL_FUSE_TYPED_LOOKUP(fl_fuse8_lookup, FL_FUSE_SHAPE_3_8, 3, 8)
FL_FUSE_TYPED_LOOKUP(fl_fuse16_lookup, FL_FUSE_SHAPE_3_16, 3, 16)
FL_FUSE_TYPED_LOOKUP(fl_fuse4w8_lookup, FL_FUSE_SHAPE_4_8, 4, 8)
FL_FUSE_TYPED_LOOKUP(fl_fuse4w16_lookup, FL_FUSE_SHAPE_4_16, 4, 16)
#undef FL_FUSE_TYPED_LOOKUP

/* One key of a Bloomier view: what fl_bloomier_get_u64 returns. On a fuse filter's view:
 * found for its keys, value 0. */
static inline int fl_bloomier_lookup(const fl_fuse_view *v, uint64_t key, uint16_t *value) {
    uint32_t x = v->cells ? fl_fuse_probe(v, key) : 1u;
    int found = v->cells != NULL && (v->value_bits >= 32 || (x >> v->value_bits) == 0);
    *value = found ? (uint16_t)x : 0;
    return found;
}

#ifdef __cplusplus
}
#endif

#endif /* FILTERLAB_STATIC_H */
