/*
 * Library internals shared by the files of src/. Not installed.
 */
#ifndef FL_INTERNAL_H
#define FL_INTERNAL_H

/* src/ is portable code built at baseline flags: a kernel's ISA flag leaking in here would
 * let the compiler emit AVX2 in code that runs before dispatch (xxHash's dispatch file and
 * Highway's notes on ODR violations explain the crash this prevents). */
#if defined(__AVX2__) || defined(__AVX512F__)
#error "src/ must be compiled at baseline flags; ISA flags belong to kernels/ only"
#endif

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "filterlab assumes a little-endian host (its payloads are little-endian words)"
#endif

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <stdatomic.h>

#include "filterlab.h"
#include "filterlab_inline.h"

/* Everything declared from here on is internal to the library: hidden, so calls between the
 * library's files are direct instead of going through the PLT of libfilterlab.so. */
#pragma GCC visibility push(hidden)
#include "kernels.h"

#define FL_STASH_MAX 8       /* cuckoo victim stash entries */
#define FL_CUCKOO_KICKS 500  /* bounded random-walk length (Fan et al. 2014 use 500) */
#define FL_CUCKOO_LOAD 0.94  /* sizing load: 4-slot buckets reach ~95% (Fan et al. 2014) */
#define FL_UNITS_MAX 0xffffffffull /* units < 2^32: reduce32 addressing */
#define FL_HUGE_PAGE (2u << 20)

typedef struct fl_variant_desc fl_variant_desc;

struct fl_filter {
    /* What a Bloom lookup reads (fl_view, probe_one, fl_kernels_of), together in the first
     * 64 bytes: one cache line, or two where malloc's 16-byte alignment splits them. */
    fl_geometry g;
    fl_kernel_slots slots;       /* where its kernels sit in a kernel table */
    uint32_t stash_count;        /* cuckoo's victim stash entries in use; 0 for the others */
    /* fl_filter_bind_kernel's table, or NULL for the process's (read with acquire loads:
     * another thread may rebind while calls run). */
    const fl_kernel_table *bound;
    void *data;          /* payload: 64-byte aligned, zero-initialised */
    size_t bytes;        /* payload bytes */
    const fl_variant_desc *desc; /* src/core/variants.c: what the variant is and can do */
    fl_hash_id hash;
    uint32_t flags;      /* fl_create_flags */
    uint64_t seed;
    uint64_t keys;       /* updated with __atomic ops by fl_insert_hashes_atomic */
    size_t mapped;       /* bytes mapped (0 = from posix_memalign) */
    int keys_estimated;  /* keys became an estimate from the fill at an fl_union (filter.c) */
    int huge_pages;
    /* Cuckoo only, from here to the end: a filter of a variant without a victim stash is
     * allocated without them (FL_FILTER_BASE_BYTES), which is most of a small Bloom filter's
     * bookkeeping (a scalable chain holds one filter per sub-filter). */
    uint64_t rng;        /* eviction walk state (xorshift64), seeded from the seed */
    fl_stash_entry stash[FL_STASH_MAX];
};
/* The bytes of an fl_filter without the cuckoo-only tail. */
#define FL_FILTER_BASE_BYTES offsetof(fl_filter, rng)
/* Heap bytes of filter f: its struct as allocated and its payload with the slack after it
 * (allocator rounding aside: a mapping's rounding to FL_HUGE_PAGE is the allocator's). */
size_t fl_filter_memory(const fl_filter *f);

/* variants.c: one descriptor per variant. Function members that are NULL mark what the
 * variant does not have (its fl_variant_info.caps say the same to the public). */
struct fl_variant_desc {
    fl_variant_info info;
    /* Blocked FPR model shape (src/core/models.c): bits per block, and for a split block the
     * number of independent words that each get one bit per key (0: k bits anywhere). */
    uint32_t block_bits, block_words;
    uint32_t stash_max;                       /* victim stash entries (the codec saves them) */
    /* fl_geometry_describe's words: "<units> <units_phrase>, <k_before><k><k_after>". */
    const char *units_phrase, *k_before, *k_after;
    size_t (*unit_bytes)(uint32_t k);         /* k already valid */
    fl_kernel_slots (*kernel_slots)(uint32_t k);
    /* Models (src/core/models.c): FPR at n keys, sizing for (n, fpr), keys explaining a fill. */
    double (*predict_fpr)(const fl_variant_desc *d, const fl_geometry *g, double n);
    fl_status (*size)(const fl_variant_desc *d, double n, double fpr, fl_geometry *g);
    double (*keys_from_fill)(const fl_variant_desc *d, const fl_geometry *g, double fill);
    /* Inserts and one-key lookups that are not kernels (NULL: the kernel table's). */
    fl_status (*insert_one)(fl_filter *f, uint64_t h);
    /* A batch of insert_one's inserts, stopping at the first that fails (*inserted: the keys
     * in before it), the per-key dispatch hoisted out of the loop: set with insert_one. */
    fl_status (*insert_many)(fl_filter *f, const uint64_t *hashes, size_t n, size_t *inserted);
    int (*contains_one)(const fl_filter *f, uint64_t h);
    fl_status (*remove)(fl_filter *f, uint64_t h);
    uint32_t (*count)(const fl_filter *f, uint64_t h); /* FL_CAP_COUNT: copies stored */
    /* One key probed in its unit alone, given a one-unit view of the unit the key lands in
     * (fl_reduce32(h >> 32, units)). Only for variants whose in-unit positions do not depend
     * on the unit count, so that a decoded chunk answers exactly as the whole filter does
     * (src/compressed/compressed.c's chunked lookups); NULL for the others (classic's positions
     * span the array, counting holds counters, cuckoo has two buckets). */
    int (*unit_probe)(const fl_kview *unit, uint64_t h);
    fl_status (*insert_atomic)(fl_filter *f, const uint64_t *hashes, size_t n);
    /* Bit arrays: sets one key's bits and returns 1 if any was clear, 0 if the key was
     * already reported (a lookup and an insert in one pass; src/bloom/bloom.c). */
    int (*add_one)(const fl_kview *v, uint64_t h);
    fl_status (*merge)(fl_filter *dst, const fl_filter *src);
    /* fl_info's occupancy fields: bits_set, fill, stash_used. */
    void (*occupancy)(const fl_filter *f, fl_info *out);
    void (*reset)(fl_filter *f); /* per-variant state beyond the payload, on create/clear */
    /* Loaders: FL_ERR_CORRUPT if the payload holds a value no operation of the variant writes
     * and its readers may not meet (13-bit cuckoo buckets' ranks past the last); NULL where
     * every payload is valid. */
    fl_status (*check_payload)(const fl_filter *f);
};

const fl_variant_desc *fl_variant_desc_of(fl_variant v); /* NULL if unknown */
int fl_variant_k_valid(const fl_variant_desc *d, uint32_t k);
fl_status fl_geometry_check(const fl_geometry *g, size_t *bytes);

/* memory.c: zeroed 64-byte aligned payloads; >= 2 MiB ones are 2 MiB aligned mappings
 * with MADV_HUGEPAGE unless the flag says no. */
fl_status fl_payload_alloc(fl_filter *f, size_t bytes);
void fl_payload_free(fl_filter *f);
/* The same memory for a structure that is not an fl_filter (a static structure's cells, a
 * vector quotient filter's blocks): *data and the length *mapped that
 * fl_payload_release needs (0: aligned_alloc'ed). */
fl_status fl_payload_get(size_t bytes, void **data, size_t *mapped);
/* The mapping's length for a payload of `bytes` (0: it is aligned_alloc'ed), the `mapped`
 * fl_payload_get gives for that size, for holders that keep the size and not the length
 * (src/sbf's links). */
size_t fl_payload_mapped(size_t bytes);
void fl_payload_release(void *data, size_t mapped);

/* The next number of a cuckoo eviction walk (src/cuckoo, src/gcf): Marsaglia's xorshift64
 * ("Xorshift RNGs", 2003), shifts 13, 7, 17, on a nonzero state; its high 32 bits. */
static inline uint32_t fl_xorshift64(uint64_t *state) {
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *state = x;
    return (uint32_t)(x >> 32);
}

/* CLOCK_MONOTONIC in nanoseconds: the library's own timings (tune's measurement, a static
 * structure's build time). */
static inline double fl_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* filter.c */
fl_status fl_filter_new(const fl_geometry *g, fl_hash_id hash, uint64_t seed, uint32_t flags,
                        fl_filter **out);
/* The hash of a byte key under a hash id and seed (fl_hash_bytes's, and a scalable chain's,
 * whose sub-filters share them); key may be NULL when len is 0. */
uint64_t fl_hash_key(fl_hash_id hash, uint64_t seed, const void *key, size_t len);
/* Frees a chain of filters (a layered filter's layers, a scalable one's sub-filters: the
 * first n of them; NULL entries are skipped) and the array itself. */
void fl_free_chain(fl_filter **chain, uint32_t n);
/* The variant and hash of a structure made of filters (layered, scalable): variant 0 is
 * block512; a variant whose table of slots may refuse a key (FL_CAP_MAY_FILL) is
 * FL_ERR_UNSUPPORTED, since the structure's rules (a count that moves up, a chain that grows
 * at its capacity) assume every add lands; hash 0 is the variant's default, else XXH3 or
 * XXH64. */
fl_status fl_chain_variant(fl_variant variant, fl_hash_id hash, fl_variant *v_out,
                           fl_hash_id *hash_out);
static inline fl_kview fl_view(const fl_filter *f) {
    fl_kview v = {f->data, (uint32_t)f->g.units, f->g.k, f->stash, f->stash_count};
    return v;
}

/* params.c: the prediction for a real-valued key count (an estimate, or a count too large
 * for exact integer conversion). models.c: the models the descriptors name. */
double fl_predict_fpr_at(const fl_geometry *g, double n);
double fl_model_classic_fpr(const fl_variant_desc *d, const fl_geometry *g, double n);
double fl_model_blocked_fpr(const fl_variant_desc *d, const fl_geometry *g, double n);
double fl_model_cuckoo_fpr(const fl_variant_desc *d, const fl_geometry *g, double n);
fl_status fl_size_classic(const fl_variant_desc *d, double n, double p, fl_geometry *g);
fl_status fl_size_blocked(const fl_variant_desc *d, double n, double p, fl_geometry *g);
fl_status fl_size_cuckoo(const fl_variant_desc *d, double n, double p, fl_geometry *g);
double fl_model_classic_keys(const fl_variant_desc *d, const fl_geometry *g, double fill);
double fl_model_blocked_keys(const fl_variant_desc *d, const fl_geometry *g, double fill);

/* bloom.c */
fl_status fl_bloom_union(fl_filter *dst, const fl_filter *src);
fl_status fl_bloom_insert_atomic_classic(fl_filter *f, const uint64_t *hashes, size_t n);
fl_status fl_bloom_insert_atomic_block512(fl_filter *f, const uint64_t *hashes, size_t n);
fl_status fl_bloom_insert_atomic_split256(fl_filter *f, const uint64_t *hashes, size_t n);
fl_status fl_bloom_insert_atomic_reg64(fl_filter *f, const uint64_t *hashes, size_t n);
int fl_bloom_add_one_classic(const fl_kview *v, uint64_t h);
int fl_bloom_add_one_block512(const fl_kview *v, uint64_t h);
int fl_bloom_add_one_split256(const fl_kview *v, uint64_t h);
int fl_bloom_add_one_reg64(const fl_kview *v, uint64_t h);
void fl_bloom_occupancy(const fl_filter *f, fl_info *out);

/* cuckoo.c */
fl_status fl_cuckoo_insert(fl_filter *f, uint64_t h);
fl_status fl_cuckoo_insert_many(fl_filter *f, const uint64_t *hashes, size_t n,
                                size_t *inserted);
fl_status fl_cuckoo_delete(fl_filter *f, uint64_t h);
int fl_cuckoo_contains_one(const fl_filter *f, uint64_t h);
uint32_t fl_cuckoo_count(const fl_filter *f, uint64_t h);
void fl_cuckoo_occupancy(const fl_filter *f, fl_info *out);
fl_status fl_cuckoo_check_payload(const fl_filter *f);
void fl_cuckoo_reset(fl_filter *f);

/* counting.c: counting Bloom deletes and atomic inserts (one per layout), occupancy,
 * saturating merge */
fl_status fl_counting_remove(fl_filter *f, uint64_t h);
fl_status fl_counting512_remove(fl_filter *f, uint64_t h);
fl_status fl_counting_insert_atomic(fl_filter *f, const uint64_t *hashes, size_t n);
fl_status fl_counting512_insert_atomic(fl_filter *f, const uint64_t *hashes, size_t n);
void fl_counting_occupancy(const fl_filter *f, fl_info *out);
fl_status fl_counting_merge(fl_filter *dst, const fl_filter *src);

/* dispatch.c: the active tables, one per payload size class (L1, L2, last-level cache,
 * DRAM: the automatic choice may differ between them), set once at first use
 * (fl_kernels_slow) and by fl_kernel_select. fl_size_class_limit[] holds the largest payload
 * of the first three classes; it is written before the tables are published and never
 * changes after. fl_kernels_sized() is inline because every single-key call goes through it. */
#define FL_NSIZE_CLASSES 4
extern const fl_kernel_table *_Atomic fl_active_kernels[FL_NSIZE_CLASSES];
extern size_t fl_size_class_limit[FL_NSIZE_CLASSES - 1];
const fl_kernel_table *fl_kernels_slow(void);
static inline unsigned fl_size_class_of(size_t bytes) {
    return (unsigned)(bytes > fl_size_class_limit[0]) + (bytes > fl_size_class_limit[1]) +
           (bytes > fl_size_class_limit[2]);
}
/* The process's table for a payload of `bytes`. */
static inline const fl_kernel_table *fl_kernels_sized(size_t bytes) {
    const fl_kernel_table *t = atomic_load_explicit(&fl_active_kernels[0], memory_order_acquire);
    if (__builtin_expect(t == NULL, 0)) fl_kernels_slow();
    return atomic_load_explicit(&fl_active_kernels[fl_size_class_of(bytes)],
                                memory_order_acquire);
}
/* The process's table for the smallest payloads (a call without a structure). */
static inline const fl_kernel_table *fl_kernels(void) {
    return fl_kernels_sized(0);
}
/* The table of the i-th compiled kernel (same order as fl_kernel_describe; NULL if i is out
 * of range or this CPU cannot run it), for tests/checkkernels and tests that pin a kernel
 * without changing the process choice. */
const fl_kernel_table *fl_kernel_table_at(size_t i);
/* The table named `name` if this CPU can run it (fl_kernel_select's rules; NULL for "auto"),
 * for per-filter binding, and the name of a table. */
fl_status fl_kernel_table_named(const char *name, const fl_kernel_table **out);
const char *fl_kernel_table_name(const fl_kernel_table *t);

/* Per-handle kernels, for every structure: a handle holds a `bound` table pointer (NULL:
 * the process's choice). fl_kernel_bind validates the name first, so a bad one leaves the
 * binding as it was; another thread may rebind while calls run, so the slot is atomic. */
fl_status fl_kernel_bind(const fl_kernel_table **slot, const char *name);
static inline const fl_kernel_table *fl_kernels_bound(const fl_kernel_table *const *slot,
                                                      size_t bytes) {
    const fl_kernel_table *t = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    return t ? t : fl_kernels_sized(bytes);
}

/* A structure's size class, stored when it is made so that its one-key calls skip the size
 * compares of fl_kernels_sized: the dispatch is set up first (its class limits are set once,
 * then never change), and every table gives the same answers, so a class taken at creation
 * stays valid. fl_kernels_in_class is the one-key calls' table: the bound one (`bound`, read
 * atomically by the caller on every call: another thread may rebind), else the process's for
 * the stored class, read on every call too (fl_kernel_select may change it). */
static inline uint8_t fl_size_class_settled(size_t bytes) {
    fl_kernels_sized(bytes);
    return (uint8_t)fl_size_class_of(bytes);
}
static inline const fl_kernel_table *fl_kernels_in_class(const fl_kernel_table *bound,
                                                         uint8_t size_class) {
    if (__builtin_expect(bound != NULL, 0)) return bound; /* bound: tests and benchmarks */
    return atomic_load_explicit(&fl_active_kernels[size_class], memory_order_acquire);
}

/* The table a filter's calls use: its bound one, else the process's for its payload size. */
static inline const fl_kernel_table *fl_kernels_of(const fl_filter *f) {
    return fl_kernels_bound(&f->bound, f->bytes);
}

/* cpu_features.c: the one CPUID/XCR0 (x86) and AT_HWCAP (aarch64) reader. FL_CPU_* bits. */
uint32_t fl_cpu_features(void);
/* Under a hypervisor: 1, with its name ("kvm", "hyperv", ...; "" if not one it knows) in
 * out. On bare metal or off x86: 0 and "". */
int fl_cpu_hypervisor_vendor(char *out, size_t cap);

/* cpu_uarch.c: the microarchitecture name as a pure function of what a CPU reports. */
typedef struct fl_cpu_id {
    const char *vendor;          /* vendor_id ("" off x86) */
    int family, model, stepping; /* -1 if unknown */
    int arm_implementer, arm_part; /* -1 if unknown or not Arm */
    uint32_t features;           /* FL_CPU_*, FL_CPU_HYPERVISOR included */
} fl_cpu_id;
/* 1 with the name and where it came from ("cpuid family/model", "features: ..."); 0 when
 * neither the model tables nor the features name the CPU. */
int fl_cpu_uarch(const fl_cpu_id *id, char *name, size_t ncap, char *source, size_t scap);
/* A brand string as a slug ("AMD EPYC 9654 96-Core Processor" -> "amd-epyc-9654-96-core"). */
void fl_cpu_slug(const char *s, char *out, size_t cap);

/* sha256.c: SHA-256 (FIPS 180-4), for the host id and the wisdom file's checksum. */
void fl_sha256(const void *data, size_t len, uint8_t out[32]);

#pragma GCC visibility pop

#endif /* FL_INTERNAL_H */
