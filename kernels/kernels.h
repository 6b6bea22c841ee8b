/*
 * The kernel interface: what every ISA implements, declared once.
 *
 * A kernel sees a filter only through fl_kview: a 64-byte aligned payload and its geometry.
 * It never hashes bytes, never allocates and never branches on the ISA. Lookup kernels only
 * read the payload; Bloom insert kernels only OR bits into it; the vqf module's inserts and
 * deletes shift the slots and metadata of one 64-byte block. Cuckoo inserts relocate
 * fingerprints and stay in src/cuckoo/cuckoo.c; their lookups are kernels.
 *
 * The kernels are organised module-major (dav1d's DSP init): a module is the kernels of one
 * kind of structure (its struct below), with one file per ISA, kernels/<module>_<isa>.c,
 * whose fl_<module>_kernels_init_<isa>() fills the entries that ISA implements. The module
 * list (kernels/meson.build's kernel_modules, FL_KERNEL_MODULES below) is the one place that
 * names them all: it makes the table, the init declarations, each ISA's fl_kernels_init_<isa>()
 * (kernels/init.c) and checkkernels' list of module checks. HACKING.md ("Adding a kernel module", "Adding a kernel (a new ISA)")
 * lists every file and line either needs.
 */
#ifndef FL_KERNELS_H
#define FL_KERNELS_H

#include <stddef.h>
#include <stdint.h>

/* Public types the kernels share with the header-inline lookups (fl_stash_entry,
 * fl_lookup_fn). Included before the visibility push below, which would otherwise hide the
 * handle constructors it declares (fl_lookup_of and the one-variant ones). */
#include "filterlab_inline.h"

/* Kernels are internal to the library: hidden, so libfilterlab.so neither exports them nor
 * calls them through its PLT. */
#pragma GCC visibility push(hidden)

/* Readable bytes after every payload (src/core/memory.c allocates them, zeroed): a 12-bit cuckoo
 * bucket (6 bytes) is read with an 8-byte load, which for the last bucket reaches 2 bytes
 * past units * 6. Kernels must not let these bytes change an answer. */
#define FL_PAYLOAD_SLACK 8

/* The payload bytes from which the x86 and NEON kernels prefetch ahead (their common headers'
 * PF_MIN_BYTES; lookups, Bloom inserts, VQF inserts and deletes): one more than this CPU's L2,
 * as the size classes see it, so a payload of the L2 class never prefetches (src/cpu/dispatch.c
 * sets it from the host's caches before it publishes any table: every call into a kernel comes
 * after; tests/checkkernels sets its own while it checks). In L2 the loop's independent loads
 * overlap without help and a prefetch only costs issue slots. A rule derived on Zen 3 alone
 * (L2 512 KiB), where the fixed 2 MiB threshold before it (Sapphire/Emerald Rapids' L2, whose
 * machines it leaves as they were) took block512 and counting512 lookups of a 1 MiB filter
 * 1.67x and 1.59x the time of prefetching ones
 * (results/zen3-kvm-2c-5bce/kernel-choice/prefetch-from-l2.md). The Zen 4 and Zen 5 classic
 * Bloom rules of src/cpu/kernel_rules.c were measured before it, with 1.2 MiB filters that
 * their SIMD kernels now prefetch (their L2 is 1 MiB): not measured since. The x86
 * Count-Min kernels keep cms_simd.h's own 1 MiB. */
extern size_t fl_kernel_prefetch_min_bytes;

/* The x86 two-bucket lookups' threshold (cuckoo and gcf: their files redefine PF_MIN_BYTES as
 * this): fl_kernel_prefetch_min_bytes, but never below 2 MiB, the threshold they were measured
 * with on Emerald Rapids. On Zen 3 a 1 MiB 12-bit cuckoo filter's lookups with prefetching read
 * 1.39x and 1.51x the time without in two pairs of runs (gcf 1.38x and 1.11x): a key's two
 * gathered buckets already overlap an L3 miss, and the prefetches add two loads a key
 * (prefetch-from-l2.md). */
#define FL_PF_MIN_BYTES_BUCKETS                                                              \
    (fl_kernel_prefetch_min_bytes > ((size_t)2 << 20) ? fl_kernel_prefetch_min_bytes         \
                                                      : ((size_t)2 << 20))

/* The vector quotient filter's one-key lookups past this many bytes take
 * include/filterlab_vqf.h's fl_vqf_probe_early (block1 first, each block's select only when
 * a slot holds the fingerprint) instead of the branch-free fl_vqf_probe: the one-key entries
 * (kernels/vqf_loop.h's vqf_contains_one) and the in-line handle (fl_vqf_lookup_of sets its
 * `early`). Past L2, as the prefetching: in L2 a lookup is bound by its own work, and the
 * early form's branches, a coin toss at half hits, cost more than the select they skip; past
 * it the lookups wait on their lines, and the early form keeps more of them in flight.
 * Derived on Zen 3 alone (L2 512 KiB), in line with pdep (results/zen3-kvm-2c-5bce/vqf/
 * one_key_probe_forms.md, written by scripts/bench-vqf-probe-forms, which any machine can
 * run to check the line; medians of 9 paired rounds, the -mavx2 -mbmi2 and -march=native
 * builds): the early form took 1.23x and 1.37x the time of the branch-free one at 100K keys
 * (143 KB), 1.21x and 1.11x at 300K (428 KB), 1.03x and 1.00x at 1M (1.4 MB), 0.87x and
 * 0.90x at 2M (2.9 MB), 0.71x-0.75x at 4M and 10M (5.7 and 14 MB). */
#define FL_VQF_EARLY_MIN_BYTES fl_kernel_prefetch_min_bytes

typedef struct fl_kview {
    void *data;        /* payload, 64-byte aligned, units * unit_bytes long, followed by
                          FL_PAYLOAD_SLACK readable bytes */
    uint32_t units;    /* words / blocks / buckets; 1 <= units < 2^32 */
    uint32_t k;        /* Bloom: bits per key; counting: counters per key; cuckoo:
                          fingerprint bits (8, 11, 12, 13 or 16) */
    const fl_stash_entry *stash; /* cuckoo only; may be NULL when stash_count == 0 */
    uint32_t stash_count;
} fl_kview;

/* Kernel signatures shared by the modules. */

/* out[i] = 1 if hashes[i] may be in the filter, else 0; returns the number of 1s.
 * hashes and out need no alignment; n may be 0. */
typedef size_t (*fl_contains_fn)(const fl_kview *f, const uint64_t *hashes, size_t n,
                                 uint8_t *out);
/* Sets the bits of hashes[0..n) (Bloom families only). */
typedef void (*fl_insert_fn)(const fl_kview *f, const uint64_t *hashes, size_t n);
/* One key of a Bloom payload: 1 if hash may be in the filter, else 0. The single-key calls
 * of the API and the lookup handles of filterlab_inline.h use it (fl_lookup.probe): for one
 * key a batch call costs more than the probe, and a scalar split256 probe is ~60 scalar uops
 * where one vector multiply-shift-test does the same work. Cuckoo lookups have no entry: the
 * header probes them in line (SSE2/NEON) everywhere. Same type as fl_lookup_fn, so
 * fl_lookup_of hands the caller the dispatched entry itself. */
typedef fl_lookup_fn fl_contains1_fn;

/* out[i] = fl_hash_u64(keys[i], seed) (the SplitMix64 finalizer of filterlab.h) for the
 * integer-key batch calls; keys and out need no alignment and may not overlap. */
typedef void (*fl_hash_u64_fn)(const uint64_t *keys, size_t n, uint64_t seed, uint64_t *out);

/* ---- The modules: one struct of function pointers each (dav1d's DSP contexts) ----------
 * A module groups the kernels of one kind of structure. Every entry is filled by the scalar
 * init, so no entry is ever NULL; an ISA overwrites only what it implements. A structure that
 * is not a bit-array filter (a sketch with counters, estimates and merges) gets a module of
 * its own here instead of NULL slots in another's. */

/* bloom: the bit-array filters, indexed by family. */
typedef enum fl_bloom_family {
    FL_BLOOM_CLASSIC = 0,
    FL_BLOOM_BLOCK512,
    FL_BLOOM_SPLIT256,
    FL_BLOOM_REG64,
    FL_BLOOM_FAMILIES
} fl_bloom_family;

typedef struct fl_bloom_kernels {
    fl_contains_fn contains[FL_BLOOM_FAMILIES];
    fl_insert_fn insert[FL_BLOOM_FAMILIES];
    fl_contains1_fn contains1[FL_BLOOM_FAMILIES];
} fl_bloom_kernels;

/* cuckoo: batch lookups by fingerprint width, of hashes and of integer keys. Inserts relocate
 * fingerprints and stay in src/cuckoo/cuckoo.c; one-key lookups are inline in
 * filterlab_inline.h. */
typedef enum fl_cuckoo_width {
    FL_CUCKOO_FP8 = 0,
    FL_CUCKOO_FP16,
    FL_CUCKOO_FP12,
    FL_CUCKOO_FP13, /* semi-sorted buckets */
    FL_CUCKOO_FP11, /* semi-sorted buckets */
    FL_CUCKOO_WIDTHS
} fl_cuckoo_width;

/* The entry of a width (fp_bits 8, 11, 12, 13 or 16: 16 for anything else). */
static inline fl_cuckoo_width fl_cuckoo_width_of(uint32_t fp_bits) {
    return fp_bits == 8    ? FL_CUCKOO_FP8
           : fp_bits == 11 ? FL_CUCKOO_FP11
           : fp_bits == 12 ? FL_CUCKOO_FP12
           : fp_bits == 13 ? FL_CUCKOO_FP13
                           : FL_CUCKOO_FP16;
}

/* Integer keys: out[i] = 1 if fl_hash_u64(keys[i], seed) may be in the filter (what the hash
 * module's u64 kernel and then contains answer); returns the number of 1s. keys and out need
 * no alignment; n may be 0. One entry so that an ISA can hash in the lookup loop itself
 * (kernels/cuckoo_avx512.c: no block of hashes written and read back, the hash's multiplies
 * issued while the bucket loads wait); the others hash blocks with `hash`, then look up
 * (kernels/cuckoo_u64s.h). `hash` is the hash.u64 kernel the caller pairs with the entry
 * (src/core/filter.c: its table's, the process's choice for that entry, which may be a
 * wider ISA's than the lookup's: an AVX2 lookup chosen beside the AVX-512 hash). */
typedef size_t (*fl_contains_u64s_fn)(const fl_kview *f, const uint64_t *keys, size_t n,
                                      uint64_t seed, fl_hash_u64_fn hash, uint8_t *out);

typedef struct fl_cuckoo_kernels {
    fl_contains_fn contains[FL_CUCKOO_WIDTHS];
    fl_contains_u64s_fn contains_u64s[FL_CUCKOO_WIDTHS]; /* fl_contains_u64s' route */
} fl_cuckoo_kernels;

/* Integer keys are hashed this many at a time into a stack block (src/core/filter.c, the
 * cuckoo module's u64s entries): the block stays in L1 between the hash and the lookup. */
#define FL_U64S_BLOCK 1024

/* hash: integer keys to 64-bit hashes, for every structure's *_u64s calls. */
typedef struct fl_hash_kernels {
    fl_hash_u64_fn u64;
} fl_hash_kernels;

/* hll: HyperLogLog registers, one byte each, followed by FL_HLL_REG_PAD zero bytes
 * (kernels/hll_probe.h); p in [4, 16], so m = 2^p is a multiple of 16. */
/* Offers every hash to its register (register = max(register, rank)); returns 1 if any
 * register grew, else 0. hashes need no alignment; n may be 0. */
typedef int (*fl_hll_add_fn)(uint8_t *regs, uint32_t p, const uint64_t *hashes, size_t n);
/* hist[v] += number of registers equal to v, for regs[0..m) (every value < 64). */
typedef void (*fl_hll_histo_fn)(const uint8_t *regs, size_t m, uint32_t hist[64]);
/* dst[i] = max(dst[i], src[i]) for i < m (the merge). */
typedef void (*fl_hll_max_fn)(uint8_t *dst, const uint8_t *src, size_t m);

typedef struct fl_hll_kernels {
    fl_hll_add_fn add;
    fl_hll_histo_fn histo;
    fl_hll_max_fn max;
    /* out[i] = MurmurHash64A of the 8 little-endian bytes of keys[i] with seed (the integer
     * keys of fl_hll_add_u64s); same contract as fl_hash_u64_fn. */
    fl_hash_u64_fn murmur8;
} fl_hll_kernels;

/* cms: Count-Min counters, depth rows of width u32 each, row-major (src/cms/cms.c); positions
 * from kernels/cms_probe.h. incs may be NULL (1 for every key); counters saturate at
 * UINT32_MAX. An update batch must leave exactly the counters key-by-key updates in order
 * would, colliding keys included. hashes need no alignment (read them with fl_hash_at);
 * incs and out are naturally aligned u32 arrays. */
typedef void (*fl_cms_update_fn)(uint32_t *counters, uint32_t width, uint32_t depth,
                                 const uint64_t *hashes, const uint32_t *incs, size_t n);
/* out[i] = the smallest of hashes[i]'s depth counters. */
typedef void (*fl_cms_query_fn)(const uint32_t *counters, uint32_t width, uint32_t depth,
                                const uint64_t *hashes, size_t n, uint32_t *out);

typedef struct fl_cms_kernels {
    fl_cms_update_fn update;       /* counter += inc */
    /* counter += inc without the saturation test, for batches the caller has proved cannot
     * saturate: every counter is at most N (a row sums to at most N), so while
     * N + the batch's increments <= UINT32_MAX the sums are exact and equal update's
     * (src/cms/cms.c checks it). One read-modify-write per counter instead of a load, an add,
     * a select and a store: the seeds' d = 5 sketch updates about a third faster. */
    fl_cms_update_fn update_nosat;
    fl_cms_update_fn update_cons;  /* counter = max(counter, min + inc) (conservative) */
    fl_cms_query_fn query;
} fl_cms_kernels;
/* counting: arrays of 4-bit counters (counting Bloom filters), indexed by layout; the
 * positions are probe.h's. Lookups are fl_contains_fn (all k counters nonzero) and
 * fl_contains1_fn; inserts are fl_insert_fn with saturating increments applied key by key
 * in batch order (keys of one batch may share counters, so the result must equal one-key
 * inserts in that order). Deletes check every counter before moving any and stay in
 * src/counting/counting.c. */
typedef enum fl_counting_layout {
    FL_COUNTING_CLASSIC = 0, /* k counters anywhere, Kirsch-Mitzenmacher double hashing */
    FL_COUNTING_BLOCKED,     /* k of the 128 counters of one 64-byte line */
    FL_COUNTING_LAYOUTS
} fl_counting_layout;

typedef struct fl_counting_kernels {
    fl_contains_fn contains[FL_COUNTING_LAYOUTS];
    fl_insert_fn insert[FL_COUNTING_LAYOUTS];
    fl_contains1_fn contains1[FL_COUNTING_LAYOUTS];
} fl_counting_kernels;

/* fuse: binary fuse filter lookups and Bloomier retrievals over the probe math of
 * include/filterlab_static.h (fl_fuse_view), hashing included: they take u64 keys, not
 * hashes, because the hash is part of what the SIMD code vectorizes. Indexed by shape:
 * arity 3 or 4 times cell width. keys, out, values and found need no alignment; n may be 0;
 * the view's cells are non-NULL (an empty structure never reaches a kernel). */
typedef enum fl_fuse_shape {
    FL_FUSE3_8 = 0, /* 3-wise, 8-bit fingerprints */
    FL_FUSE3_16,
    FL_FUSE4_8,
    FL_FUSE4_16,
    FL_FUSE_SHAPES
} fl_fuse_shape;
typedef enum fl_bloomier_shape {
    FL_BLOOMIER3_16 = 0, /* 3-wise, 16-bit cells */
    FL_BLOOMIER3_32,
    FL_BLOOMIER4_16,
    FL_BLOOMIER4_32,
    FL_BLOOMIER_SHAPES
} fl_bloomier_shape;
/* out[i] = fl_fuse_lookup(v, keys[i]); returns the number of 1s. */
typedef size_t (*fl_fuse_contains_fn)(const fl_fuse_view *v, const uint64_t *keys, size_t n,
                                      uint8_t *out);
/* found[i] and values[i] as fl_bloomier_lookup(v, keys[i], &values[i]); returns the number
 * found. */
typedef size_t (*fl_bloomier_get_fn)(const fl_fuse_view *v, const uint64_t *keys, size_t n,
                                     uint16_t *values, uint8_t *found);
typedef struct fl_fuse_kernels {
    fl_fuse_contains_fn contains[FL_FUSE_SHAPES];
    fl_bloomier_get_fn get[FL_BLOOMIER_SHAPES];
} fl_fuse_kernels;

/* vqf: vector quotient filter lookups, inserts and deletes (include/filterlab_vqf.h's blocks
 * and probe math). The view's units are the blocks (64 bytes each) and k is 8 (fingerprint
 * bits). An insert or delete changes the key's two blocks only, and every ISA leaves exactly
 * the bytes the scalar kernel does (tests/checkkernels/check_vqf.c), so a filter's bytes and
 * files never depend on the CPU. Whatever a block's bytes hold (tune runs the kernels on
 * random bytes), no kernel reads or writes outside the key's two blocks. */
/* Inserts (fl_vqf_insert_hash's contract) or deletes (fl_vqf_delete_hash's) hashes[0..n) in
 * order, stopping at the first key refused (an insert whose two blocks are full, a delete
 * finding no copy), which changes nothing; returns the keys done before it (n if none was
 * refused). hashes need no alignment; n may be 0. */
typedef size_t (*fl_vqf_update_fn)(const fl_kview *f, const uint64_t *hashes, size_t n);
/* One key (the API's fl_vqf_insert_hash and fl_vqf_delete_hash, each key its own call):
 * blocks is the filter's payload of nblocks blocks, h the key's hash, all in registers;
 * 1 done, or 0 refused with nothing changed (as above). No view, no hash array and no
 * n == 1 test between the call and the block code: past the caches a one-key call's
 * instructions decide how many keys' misses fit in the out-of-order window. */
typedef int (*fl_vqf_update1_fn)(uint8_t *blocks, uint32_t nblocks, uint64_t h);
typedef struct fl_vqf_kernels {
    fl_contains_fn contains;
    fl_vqf_update_fn insert;
    fl_vqf_update_fn del; /* delete (a C++ keyword: kernels.h stays includable from C++) */
    fl_contains1_fn contains1; /* one key: (blocks, nblocks, k ignored, h) */
    fl_vqf_update1_fn insert1;
    fl_vqf_update1_fn del1;
} fl_vqf_kernels;

/* gcf: growing cuckoo filter batch lookups (include/filterlab_gcf.h's probe math). The
 * view's units are the buckets (8 bytes each) and k packs the columns c (bits 0..7) and the
 * window bits W (bits 8..15; 0 stands for K, the alternate over the whole table, which
 * filterlab tune's view of k = 8 columns times); the kernel takes K = floor(log2(units / c))
 * and masks the alternate stripe to K bits, so whatever the view holds, every bucket it
 * reads is below c << K <= units. Inserts,
 * deletes and doublings stay in src/gcf/gcf.c. */
typedef struct fl_gcf_kernels {
    fl_contains_fn contains;
} fl_gcf_kernels;

/* ---- The module list ---------------------------------------------------------------------
 * FL_KERNEL_MODULES(X): every kernel module once, in table order, X(module, scalar, avx2,
 * avx512, neon), generated by kernels/meson.build from its kernel_modules list (the one place
 * a module is named) into fl_kernel_modules.h. The name gives the struct fl_<module>_kernels
 * above, the table member <module>, the files kernels/<module>_<isa>.c with their
 * fl_<module>_kernels_init_<isa>(), and checkkernels' tests/checkkernels/check_<module>.c
 * (check_<module>, bench_<module>). Each ISA column says whether that ISA has a file for the
 * module: 1, its init sets the entries it implements (all of them, or only part: the others
 * keep the lower ISA's); 0, it implements none and has no file (the table keeps the lower
 * ISA's entries). scalar is 1 for every module: its init fills every entry. */
#include "fl_kernel_modules.h"

/* One table per ISA: every module's struct. */
#define FL_KERNEL_TABLE_MEMBER(module, ...) fl_##module##_kernels module;
typedef struct fl_kernel_table {
    FL_KERNEL_MODULES(FL_KERNEL_TABLE_MEMBER)
} fl_kernel_table;

/* Where a structure's kernels sit in a table: byte offsets of its entries, so a filter
 * resolves its kernel in whichever table it uses (the process's or its own) without a switch
 * on its variant. FL_NO_KERNEL marks an operation the structure has no kernel for. */
#define FL_NO_KERNEL ((uint32_t)0xffffffffu)
typedef struct fl_kernel_slots {
    uint32_t contains;      /* fl_contains_fn */
    uint32_t insert;        /* fl_insert_fn */
    uint32_t contains1;     /* fl_contains1_fn */
    uint32_t contains_u64s; /* fl_contains_u64s_fn; FL_NO_KERNEL: hash.u64, then contains */
} fl_kernel_slots;

#define FL_KERNEL_SLOT(member) ((uint32_t)offsetof(fl_kernel_table, member))
#define FL_KERNEL_AT(table, slot, type) (*(const type *)(const void *)((const char *)(table) + (slot)))

/* Each ISA's init fills the entries it implements, in every module, on a table already
 * filled by the ISA below it (dav1d's pattern), so a family an ISA leaves alone keeps the best
 * lower one; src/cpu/dispatch.c chains them (avx512 on avx2 on scalar; neon on scalar).
 * kernels/init.c defines each as the calls of its modules' inits, in list order. */
void fl_kernels_init_scalar(fl_kernel_table *t);
void fl_kernels_init_avx2(fl_kernel_table *t);
void fl_kernels_init_avx512(fl_kernel_table *t);
void fl_kernels_init_neon(fl_kernel_table *t);

/* FL_WHEN(flag, code): code if flag is 1, nothing if 0 (flag may be a macro call). */
#define FL_WHEN_0(...)
#define FL_WHEN_1(...) __VA_ARGS__
#define FL_KCAT_(a, b) a##b
#define FL_KCAT(a, b) FL_KCAT_(a, b)
#define FL_WHEN(flag, ...) FL_KCAT(FL_WHEN_, flag)(__VA_ARGS__)
/* A list line's column of one ISA: FL_KERNEL_ISA_COLUMN_<isa>(scalar, avx2, avx512, neon). */
#define FL_KERNEL_ISA_COLUMN_scalar(scalar, avx2, avx512, neon) scalar
#define FL_KERNEL_ISA_COLUMN_avx2(scalar, avx2, avx512, neon) avx2
#define FL_KERNEL_ISA_COLUMN_avx512(scalar, avx2, avx512, neon) avx512
#define FL_KERNEL_ISA_COLUMN_neon(scalar, avx2, avx512, neon) neon

/* Every module's per-ISA inits (kernels/<module>_<isa>.c), for the ISAs that have its file. */
#define FL_DECLARE_MODULE_INITS(module, on_scalar, on_avx2, on_avx512, on_neon)               \
    FL_WHEN(on_scalar, void fl_##module##_kernels_init_scalar(fl_kernel_table *t);)            \
    FL_WHEN(on_avx2, void fl_##module##_kernels_init_avx2(fl_kernel_table *t);)                \
    FL_WHEN(on_avx512, void fl_##module##_kernels_init_avx512(fl_kernel_table *t);)            \
    FL_WHEN(on_neon, void fl_##module##_kernels_init_neon(fl_kernel_table *t);)
FL_KERNEL_MODULES(FL_DECLARE_MODULE_INITS)

/* The scalar counting lookups the SIMD ones run on their tails. */
size_t fl_contains_counting_scalar(const fl_kview *, const uint64_t *, size_t, uint8_t *);
size_t fl_contains_counting512_scalar(const fl_kview *, const uint64_t *, size_t, uint8_t *);

/* The scalar fuse kernels the SIMD ones run on their tails. */
extern const fl_fuse_kernels fl_fuse_kernels_scalar;
/* The x86 kernels' other way to read cells (scalar loads from vector-computed positions
 * instead of gathers), kept so checkkernels checks and times both (kernels/fuse_avx2.c). */
extern const fl_fuse_kernels fl_fuse_kernels_loads_avx2;
extern const fl_fuse_kernels fl_fuse_kernels_loads_avx512;
/* The same for the AVX2 cuckoo lookups (bucket words and semi-sorted nibble words), every
 * width (kernels/cuckoo_avx2.c): the avx2-loads candidate's cuckoo entries. */
extern const fl_cuckoo_kernels fl_cuckoo_kernels_loads_avx2;
/* The vqf batch lookup built with AVX512_VPOPCNTDQ and AVX512_BITALG (the avx512-popcnt
 * candidate's vqf.contains, kernels/vqf_avx512_popcnt.c): only where FL_HAVE_AVX512_POPCNT. */
size_t fl_vqf_contains_popcnt_avx512(const fl_kview *f, const uint64_t *hashes, size_t n,
                                     uint8_t *out);

/* Declares the bloom and cuckoo lookup and insert kernels of one ISA with the shared
 * signatures (the scalar ones: the SIMD kernels' tails). */
#define FL_DECLARE_KERNELS(isa)                                                                 \
    size_t fl_contains_classic_##isa(const fl_kview *, const uint64_t *, size_t, uint8_t *);    \
    size_t fl_contains_block512_##isa(const fl_kview *, const uint64_t *, size_t, uint8_t *);   \
    size_t fl_contains_split256_##isa(const fl_kview *, const uint64_t *, size_t, uint8_t *);   \
    size_t fl_contains_reg64_##isa(const fl_kview *, const uint64_t *, size_t, uint8_t *);      \
    size_t fl_contains_cuckoo8_##isa(const fl_kview *, const uint64_t *, size_t, uint8_t *);    \
    size_t fl_contains_cuckoo16_##isa(const fl_kview *, const uint64_t *, size_t, uint8_t *);   \
    size_t fl_contains_cuckoo12_##isa(const fl_kview *, const uint64_t *, size_t, uint8_t *);   \
    size_t fl_contains_cuckoo13_##isa(const fl_kview *, const uint64_t *, size_t, uint8_t *);   \
    size_t fl_contains_cuckoo11_##isa(const fl_kview *, const uint64_t *, size_t, uint8_t *);   \
    void fl_insert_classic_##isa(const fl_kview *, const uint64_t *, size_t);                   \
    void fl_insert_block512_##isa(const fl_kview *, const uint64_t *, size_t);                  \
    void fl_insert_split256_##isa(const fl_kview *, const uint64_t *, size_t);                  \
    void fl_insert_reg64_##isa(const fl_kview *, const uint64_t *, size_t)

FL_DECLARE_KERNELS(scalar);

#pragma GCC visibility pop

#endif /* FL_KERNELS_H */
