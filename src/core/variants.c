/*
 * The filter variants: one descriptor each, the single place that says what a variant is
 * (name, unit, k range, capabilities, default hash), which model sizes it and predicts its
 * FPR (src/core/models.c), where its kernels sit in a kernel table (kernels/kernels.h), and which
 * non-kernel operations it has (src/bloom/bloom.c, src/cuckoo/cuckoo.c, src/counting/counting.c).
 * Everything else in the library, and through fl_variant_describe() the CLI, flbench and the tests,
 * reads these instead of switching on the variant.
 *
 * Adding a variant: its fl_variant value in include/filterlab.h, a descriptor below, its probe
 * math in kernels/probe.h and its kernels (kernels/kernels.h module entry, scalar and SIMD),
 * and its tests.
 */
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "probe.h"

/* ---- units ---------------------------------------------------------------------------- */
static size_t unit_word(uint32_t k) {
    (void)k;
    return 8;
}
static size_t unit_block64(uint32_t k) {
    (void)k;
    return 64;
}
static size_t unit_block32(uint32_t k) {
    (void)k;
    return 32;
}
/* 4 slots of k-bit fingerprints: 4 bytes (k = 8), 5 (k = 11, semi-sorted), 6 (k = 12,
 * packed; k = 13, semi-sorted) or 8 (k = 16). */
static size_t unit_bucket(uint32_t k) {
    return fl_cuckoo_bucket_bytes(k);
}

/* ---- kernel slots --------------------------------------------------------------------- */
#define BLOOM_SLOTS(fam)                                                                     \
    static fl_kernel_slots slots_##fam(uint32_t k) {                                         \
        (void)k;                                                                             \
        fl_kernel_slots s = {FL_KERNEL_SLOT(bloom.contains[FL_BLOOM_##fam]),                 \
                             FL_KERNEL_SLOT(bloom.insert[FL_BLOOM_##fam]),                   \
                             FL_KERNEL_SLOT(bloom.contains1[FL_BLOOM_##fam]), FL_NO_KERNEL}; \
        return s;                                                                            \
    }
BLOOM_SLOTS(CLASSIC)
BLOOM_SLOTS(BLOCK512)
BLOOM_SLOTS(SPLIT256)
BLOOM_SLOTS(REG64)

/* Cuckoo inserts relocate (src/cuckoo/cuckoo.c) and one-key lookups are inline: the batch
 * lookups are the kernels, of hashes and of integer keys, one per fingerprint width. */
static fl_kernel_slots slots_cuckoo(uint32_t k) {
    fl_cuckoo_width w = fl_cuckoo_width_of(k);
    fl_kernel_slots s = {FL_KERNEL_SLOT(cuckoo.contains[w]), FL_NO_KERNEL, FL_NO_KERNEL,
                         FL_KERNEL_SLOT(cuckoo.contains_u64s[w])};
    return s;
}

/* Counting Bloom filters: the counting module's kernels by layout. */
static fl_kernel_slots slots_counting(uint32_t k) {
    (void)k;
    fl_kernel_slots s = {FL_KERNEL_SLOT(counting.contains[FL_COUNTING_CLASSIC]),
                         FL_KERNEL_SLOT(counting.insert[FL_COUNTING_CLASSIC]),
                         FL_KERNEL_SLOT(counting.contains1[FL_COUNTING_CLASSIC]), FL_NO_KERNEL};
    return s;
}
static fl_kernel_slots slots_counting512(uint32_t k) {
    (void)k;
    fl_kernel_slots s = {FL_KERNEL_SLOT(counting.contains[FL_COUNTING_BLOCKED]),
                         FL_KERNEL_SLOT(counting.insert[FL_COUNTING_BLOCKED]),
                         FL_KERNEL_SLOT(counting.contains1[FL_COUNTING_BLOCKED]), FL_NO_KERNEL};
    return s;
}

/* ---- the descriptors ------------------------------------------------------------------ */
/* fl_variant_info.k_set of the k from lo to hi (hi < 64). */
#define K_RANGE(lo, hi) ((~0ull >> (63 - (hi))) & ~((1ull << (lo)) - 1))

#define BLOOM_CAPS (FL_CAP_UNION | FL_CAP_ATOMIC_INSERT | FL_CAP_FILL_ESTIMATE)

#define BLOOM_OPS(fam)                                                                       \
    .merge = fl_bloom_union, .insert_atomic = fl_bloom_insert_atomic_##fam,                  \
    .add_one = fl_bloom_add_one_##fam, .occupancy = fl_bloom_occupancy

static const fl_variant_desc classic = {
    .info = {.variant = FL_CLASSIC, .name = "classic",
             .summary = "textbook Bloom filter, k positions over the whole array by double "
                        "hashing (Kirsch and Mitzenmacher 2006)",
             .unit_name = "64-bit word", .k_name = "bits per key",
             .k_min = 1, .k_max = 32, .k_set = K_RANGE(1, 32), .k_default = 7,
             .units_max = FL_UNITS_MAX, .caps = BLOOM_CAPS, .default_hash = FL_HASH_XXH3},
    .units_phrase = "words of 64 bits", .k_before = "k = ", .k_after = "",
    .unit_bytes = unit_word, .kernel_slots = slots_CLASSIC,
    .predict_fpr = fl_model_classic_fpr, .size = fl_size_classic,
    .keys_from_fill = fl_model_classic_keys, BLOOM_OPS(classic),
};

static const fl_variant_desc block512 = {
    .info = {.variant = FL_BLOCK512, .name = "block512",
             .summary = "blocked Bloom filter, k bits in one 64-byte cache line per key "
                        "(Putze, Sanders, Singler 2007)",
             .unit_name = "64-byte block", .k_name = "bits per key",
             .k_min = 1, .k_max = FL_K_MAX, .k_set = K_RANGE(1, FL_K_MAX), .k_default = 7,
             .units_max = FL_UNITS_MAX, .caps = BLOOM_CAPS, .default_hash = FL_HASH_XXH3},
    .block_bits = 512,
    .units_phrase = "blocks of 64 bytes", .k_before = "k = ", .k_after = "",
    .unit_bytes = unit_block64, .kernel_slots = slots_BLOCK512,
    .predict_fpr = fl_model_blocked_fpr, .size = fl_size_blocked,
    .keys_from_fill = fl_model_blocked_keys, BLOOM_OPS(block512),
    .unit_probe = fl_block512_probe,
};

static const fl_variant_desc split256 = {
    .info = {.variant = FL_SPLIT256, .name = "split256",
             .summary = "Apache Parquet split block Bloom filter, one bit in each of the 8 "
                        "words of a 32-byte block",
             .unit_name = "32-byte block", .k_name = "bits per key",
             .k_min = 8, .k_max = 8, .k_set = K_RANGE(8, 8), .k_default = 8,
             .units_max = FL_UNITS_MAX, .caps = BLOOM_CAPS | FL_CAP_PARQUET,
             .default_hash = FL_HASH_XXH64},
    .block_bits = 256, .block_words = 8,
    .units_phrase = "blocks of 32 bytes", .k_before = "k = ", .k_after = "",
    .unit_bytes = unit_block32, .kernel_slots = slots_SPLIT256,
    .predict_fpr = fl_model_blocked_fpr, .size = fl_size_blocked,
    .keys_from_fill = fl_model_blocked_keys, BLOOM_OPS(split256),
    .unit_probe = fl_split256_probe,
};

static const fl_variant_desc reg64 = {
    .info = {.variant = FL_REG64, .name = "reg64",
             .summary = "register-blocked Bloom filter, k bits in one 64-bit word per key",
             .unit_name = "64-bit word", .k_name = "bits per key",
             .k_min = 1, .k_max = FL_K_MAX, .k_set = K_RANGE(1, FL_K_MAX), .k_default = 7,
             .units_max = FL_UNITS_MAX, .caps = BLOOM_CAPS, .default_hash = FL_HASH_XXH3},
    .block_bits = 64,
    .units_phrase = "words of 64 bits", .k_before = "k = ", .k_after = " per word",
    .unit_bytes = unit_word, .kernel_slots = slots_REG64,
    .predict_fpr = fl_model_blocked_fpr, .size = fl_size_blocked,
    .keys_from_fill = fl_model_blocked_keys, BLOOM_OPS(reg64),
    .unit_probe = fl_reg64_probe,
};

static const fl_variant_desc cuckoo = {
    .info = {.variant = FL_CUCKOO, .name = "cuckoo",
             .summary = "cuckoo filter, 4-slot buckets, 8-, 11- (semi-sorted), 12-, 13- "
                        "(semi-sorted) or 16-bit fingerprints, victim stash (Fan, Andersen, "
                        "Kaminsky, Mitzenmacher 2014)",
             .unit_name = "4-slot bucket", .k_name = "fingerprint bits",
             .k_min = 8, .k_max = 16,
             .k_set = 1ull << 8 | 1ull << 11 | 1ull << 12 | 1ull << 13 | 1ull << 16,
             .k_default = 16,
             .units_max = FL_UNITS_MAX, .unit_slots = FL_CUCKOO_SLOTS,
             .max_load = FL_CUCKOO_LOAD,
             .caps = FL_CAP_DELETE | FL_CAP_MAY_FILL | FL_CAP_COUNT,
             .default_hash = FL_HASH_XXH3},
    .stash_max = FL_STASH_MAX,
    .units_phrase = "buckets of 4 slots", .k_before = "", .k_after = "-bit fingerprints",
    .unit_bytes = unit_bucket, .kernel_slots = slots_cuckoo,
    .predict_fpr = fl_model_cuckoo_fpr, .size = fl_size_cuckoo,
    .insert_one = fl_cuckoo_insert, .insert_many = fl_cuckoo_insert_many,
    .contains_one = fl_cuckoo_contains_one,
    .remove = fl_cuckoo_delete, .count = fl_cuckoo_count, .occupancy = fl_cuckoo_occupancy,
    .reset = fl_cuckoo_reset, .check_payload = fl_cuckoo_check_payload,
};

/* Counting Bloom filters (src/counting/counting.c): 4-bit counters, so the models see units * 16
 * (classic layout) or 128 per block (blocked layout) cells where a bit array has bits.
 * Atomic inserts are a compare-and-swap loop per counter (a saturating increment is a
 * read-modify-write, not an OR). */
#define COUNTING_CAPS (FL_CAP_DELETE | FL_CAP_UNION | FL_CAP_FILL_ESTIMATE | FL_CAP_ATOMIC_INSERT)

static const fl_variant_desc counting = {
    .info = {.variant = FL_COUNTING, .name = "counting",
             .summary = "counting Bloom filter, k 4-bit saturating counters anywhere by double "
                        "hashing (Fan, Cao, Almeida, Broder 2000)",
             .unit_name = "64-bit word of 16 counters", .k_name = "counters per key",
             .k_min = 1, .k_max = 32, .k_set = K_RANGE(1, 32), .k_default = 7,
             .units_max = FL_UNITS_MAX, .caps = COUNTING_CAPS, .default_hash = FL_HASH_XXH3,
             .counter_bits = 4},
    .units_phrase = "words of 16 4-bit counters", .k_before = "k = ", .k_after = "",
    .unit_bytes = unit_word, .kernel_slots = slots_counting,
    .predict_fpr = fl_model_classic_fpr, .size = fl_size_classic,
    .keys_from_fill = fl_model_classic_keys, .remove = fl_counting_remove,
    .merge = fl_counting_merge, .occupancy = fl_counting_occupancy,
    .insert_atomic = fl_counting_insert_atomic,
};

static const fl_variant_desc counting512 = {
    .info = {.variant = FL_COUNTING512, .name = "counting512",
             .summary = "blocked counting Bloom filter, k of the 128 4-bit saturating counters "
                        "of one 64-byte cache line per key",
             .unit_name = "64-byte block of 128 counters", .k_name = "counters per key",
             .k_min = 1, .k_max = FL_K_MAX, .k_set = K_RANGE(1, FL_K_MAX), .k_default = 7,
             .units_max = FL_UNITS_MAX, .caps = COUNTING_CAPS, .default_hash = FL_HASH_XXH3,
             .counter_bits = 4},
    .block_bits = 128, /* cells per block for the blocked model: 128 counters */
    .units_phrase = "blocks of 128 4-bit counters", .k_before = "k = ", .k_after = "",
    .unit_bytes = unit_block64, .kernel_slots = slots_counting512,
    .predict_fpr = fl_model_blocked_fpr, .size = fl_size_blocked,
    .keys_from_fill = fl_model_blocked_keys, .remove = fl_counting512_remove,
    .merge = fl_counting_merge, .occupancy = fl_counting_occupancy,
    .insert_atomic = fl_counting512_insert_atomic,
};

/* Indexed by the fl_variant value (the number stored in files). */
static const fl_variant_desc *const descs[] = {
    [FL_CLASSIC] = &classic, [FL_BLOCK512] = &block512, [FL_SPLIT256] = &split256,
    [FL_REG64] = &reg64,     [FL_CUCKOO] = &cuckoo,
    [FL_COUNTING] = &counting, [FL_COUNTING512] = &counting512,
};
_Static_assert(sizeof descs / sizeof descs[0] == FL_VARIANT_MAX + 1,
               "one descriptor per fl_variant value");

const fl_variant_desc *fl_variant_desc_of(fl_variant v) {
    if ((unsigned)v >= sizeof descs / sizeof descs[0]) return NULL;
    return descs[v];
}

/* ---- what the public header offers ---------------------------------------------------- */
const char *fl_variant_name(fl_variant v) {
    const fl_variant_desc *d = fl_variant_desc_of(v);
    return d ? d->info.name : NULL;
}

fl_status fl_variant_parse(const char *name, fl_variant *out) {
    if (!name || !out) return FL_ERR_INVALID_ARG;
    for (size_t v = 0; v < sizeof descs / sizeof descs[0]; v++) {
        if (descs[v] && strcmp(name, descs[v]->info.name) == 0) {
            *out = (fl_variant)v;
            return FL_OK;
        }
    }
    return FL_ERR_INVALID_ARG;
}

fl_status fl_variant_describe(fl_variant v, fl_variant_info *out) {
    const fl_variant_desc *d = fl_variant_desc_of(v);
    if (!d || !out) return FL_ERR_INVALID_ARG;
    *out = d->info;
    return FL_OK;
}

int fl_variant_k_valid(const fl_variant_desc *d, uint32_t k) {
    const fl_variant_info *i = &d->info;
    return k < 64 && (i->k_set >> k & 1);
}

size_t fl_variant_unit_bytes(fl_variant v, uint32_t k) {
    const fl_variant_desc *d = fl_variant_desc_of(v);
    return d && fl_variant_k_valid(d, k) ? d->unit_bytes(k) : 0;
}

fl_status fl_variant_k_text(fl_variant v, char *buf, size_t cap) {
    const fl_variant_desc *d = fl_variant_desc_of(v);
    if (!d || !buf || cap == 0) return FL_ERR_INVALID_ARG;
    const fl_variant_info *i = &d->info;
    if (i->k_min < i->k_max && i->k_set == K_RANGE(i->k_min, i->k_max)) {
        snprintf(buf, cap, "%u to %u", i->k_min, i->k_max);
        return FL_OK;
    }
    size_t len = 0;
    buf[0] = '\0';
    for (uint32_t k = i->k_min; k <= i->k_max && len < cap; k++) {
        if (!(i->k_set >> k & 1)) continue;
        const char *sep = k == i->k_min ? "" : k == i->k_max ? " or " : ", ";
        int w = snprintf(buf + len, cap - len, "%s%u", sep, k);
        if (w < 0) break;
        len += (size_t)w;
    }
    return FL_OK;
}

fl_status fl_geometry_check(const fl_geometry *g, size_t *bytes) {
    if (!g) return FL_ERR_INVALID_ARG;
    const fl_variant_desc *d = fl_variant_desc_of(g->variant);
    if (!d) return FL_ERR_INVALID_ARG;
    if (g->units == 0 || g->units > d->info.units_max) return FL_ERR_BAD_GEOMETRY;
    if (!fl_variant_k_valid(d, g->k)) return FL_ERR_BAD_K;
    size_t unit = d->unit_bytes(g->k);
    if (g->units > SIZE_MAX / unit) return FL_ERR_TOO_LARGE;
    if (bytes) *bytes = (size_t)g->units * unit;
    return FL_OK;
}

size_t fl_geometry_describe(const fl_geometry *g, char *buf, size_t cap) {
    if (!g || (!buf && cap)) return 0;
    const fl_variant_desc *d = fl_variant_desc_of(g->variant);
    int n = d ? snprintf(buf, cap, "%llu %s, %s%u%s", (unsigned long long)g->units,
                         d->units_phrase, d->k_before, (unsigned)g->k, d->k_after)
              : snprintf(buf, cap, "%llu units, k = %u", (unsigned long long)g->units,
                         (unsigned)g->k);
    return n < 0 ? 0 : (size_t)n;
}
