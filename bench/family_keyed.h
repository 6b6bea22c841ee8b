/*
 * What the suites of deletable fingerprint filters share (family_keyed.c): the vector
 * quotient filter (family_vqf.c) and the growing cuckoo filter (family_gcf.c) are measured
 * the same way, per size, through a table of their calls:
 *
 *   insert         ns/key of the n inserts (u64 batches: hashing included), each repetition
 *                  into the structure made fresh (ops->reset); kernel "any". The keys are
 *                  derived chunk by chunk outside the timed calls (as the lookups' pools are,
 *                  and as fastfilter_cpp's add loop reads a vector made before its timer)
 *   insert_one     the same inserts one key a call, as a caller's loop of single inserts
 *                  runs them (fastfilter_cpp's add column is one)
 *   lookup         batch lookups (--batch keys a call) per kernel and --hit-rate: --lookups
 *                  keys, the hits drawn from the stored ids, the misses never-stored ids
 *   lookup_inline  the same pools one key at a time through the structure's header-inline
 *                  lookup (compiled with flbench's flags); kernel "inline"
 *   delete         ns/key of deleting --lookups stored keys (--batch keys a call), put back
 *                  untimed after each repetition; kernel "any"
 *   delete_one     the same deletes one key a call
 *
 * Every result carries structure_bytes, bits_per_key (bytes * 8 / n), fpr_expected (the
 * structure's estimate) and fpr_measured (2^20 never-stored keys after the n inserts), and
 * the structure's own fields (ops->fields).
 */
#ifndef FB_FAMILY_KEYED_H
#define FB_FAMILY_KEYED_H

#include "family.h"

typedef struct fb_keyed_ops {
    const char *name; /* the structure field and the results' second name part */
    /* the structure as the insert repetitions start from it (cleared, or made again) */
    fl_status (*reset)(void **obj, uint64_t n, uint64_t seed);
    fl_status (*insert_u64s)(void *obj, const uint64_t *keys, size_t n);
    fl_status (*delete_u64s)(void *obj, const uint64_t *keys, size_t n);
    fl_status (*insert_u64)(void *obj, uint64_t key);
    fl_status (*delete_u64)(void *obj, uint64_t key);
    size_t (*contains_u64s)(const void *obj, const uint64_t *keys, size_t n, uint8_t *out);
    int (*contains_u64)(const void *obj, uint64_t key);
    /* positives of n keys through the header's in-line lookup */
    size_t (*inline_lookups)(const void *obj, const uint64_t *keys, size_t n);
    fl_status (*bind)(void *obj, const char *kernel);
    const char *(*kernel)(const void *obj);
    size_t (*bytes)(const void *obj);
    double (*fpr_expected)(const void *obj);
    void (*fields)(fb_result *r, const void *obj); /* its own fields */
} fb_keyed_ops;

/* The calls every such structure names alike (filterlab.h's FL_DECLARE_KEY_CALLS and the
 * header's <prefix>_lookup handle) as the table's static functions, and the table itself:
 * a suite file writes FB_KEYED_CALLS(fl_x, fl_x) and its own reset, bytes, fpr_expected and
 * fields, then FB_KEYED_OPS("x", reset, bytes, fpr_expected, fields). */
#define FB_KEYED_CALLS(prefix, type)                                                          \
    static fl_status insert_u64s(void *obj, const uint64_t *keys, size_t n) {                 \
        return prefix##_insert_u64s((type *)obj, keys, n, NULL);                              \
    }                                                                                         \
    static fl_status delete_u64s(void *obj, const uint64_t *keys, size_t n) {                 \
        return prefix##_delete_u64s((type *)obj, keys, n, NULL);                              \
    }                                                                                         \
    static fl_status insert_u64(void *obj, uint64_t key) {                                    \
        return prefix##_insert_u64((type *)obj, key);                                         \
    }                                                                                         \
    static fl_status delete_u64(void *obj, uint64_t key) {                                    \
        return prefix##_delete_u64((type *)obj, key);                                         \
    }                                                                                         \
    static size_t contains_u64s(const void *obj, const uint64_t *keys, size_t n,              \
                                uint8_t *out) {                                               \
        size_t pos = 0;                                                                       \
        prefix##_contains_u64s((const type *)obj, keys, n, out, &pos);                        \
        return pos;                                                                           \
    }                                                                                         \
    static int contains_u64(const void *obj, uint64_t key) {                                  \
        return prefix##_contains_u64((const type *)obj, key);                                 \
    }                                                                                         \
    static size_t inline_lookups(const void *obj, const uint64_t *keys, size_t n) {           \
        prefix##_lookup l = prefix##_lookup_of((const type *)obj);                            \
        size_t pos = 0;                                                                       \
        for (size_t i = 0; i < n; i++) pos += (size_t)prefix##_lookup_u64(&l, keys[i]);       \
        return pos;                                                                           \
    }                                                                                         \
    static fl_status bind(void *obj, const char *kernel) {                                    \
        return prefix##_bind_kernel((type *)obj, kernel);                                     \
    }                                                                                         \
    static const char *kernel(const void *obj) {                                              \
        return prefix##_kernel((const type *)obj);                                            \
    }
#define FB_KEYED_OPS(name, reset, bytes, fpr_expected, fields)                                \
    {name,         reset,          insert_u64s, delete_u64s,    insert_u64, delete_u64,       \
     contains_u64s, contains_u64,  inline_lookups, bind,        kernel,     bytes,            \
     fpr_expected,  fields}

/* One size: obj holds n keys' worth of structure (made by the caller, freed by it after;
 * ops->reset may replace it), size its name part ("nkeys:N"). */
void fb_keyed_run_size(fb_env *e, const fb_keyed_ops *ops, void **obj, uint64_t n,
                       const char *size);
/* The results a suite plans (its _planned): per size for which size_keys gives keys,
 * insert, insert_one, delete, delete_one, and a lookup per kernel and hit rate plus the in-line one per hit rate. */
size_t fb_keyed_planned(const fb_options *o, uint64_t (*size_keys)(const fb_options *o,
                                                                   uint64_t target));

#endif /* FB_FAMILY_KEYED_H */
