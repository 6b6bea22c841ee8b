/*
 * checkkernels' harness (dav1d's tests/checkasm in spirit): randomness reproducible from
 * --seed, failure reports with the context being checked, a crash handler naming it, guarded
 * input buffers, canaried outputs, test payloads with a guard zone, and the list of kernel
 * tables under test. Each module's checks live in check_<module>.c and use only this.
 */
#ifndef FL_CHECKKERNELS_HARNESS_H
#define FL_CHECKKERNELS_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include "filterlab.h"
#include "core/internal.h"
#include "probe.h"

/* ---- randomness, failures, context ---------------------------------------------------- */
extern uint64_t g_seed;
extern unsigned long g_passed, g_failed;
void rnd_seed(uint64_t seed);
uint64_t rnd(void);
uint64_t rnd_below(uint64_t n);
/* Hashes at the edges of every reduction: zero and all-ones halves (first / last unit,
 * smallest / largest fingerprint), sign bits, and single bits. */
uint64_t special_hash(void);

extern int g_verbose;
extern int g_bench_min;        /* --min: fastest rep instead of the median */
extern const char *g_family;   /* --family: only this one */
extern volatile size_t g_ctx_size;

/* What is being checked, for failure lines and for the crash handler. */
void set_ctx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void failf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void record(int ok);
void die_oom(void);
void on_crash(int sig);
int family_selected(const char *name); /* --family filter */
/* --verbose: the running totals once a family is checked. */
void report_checked(const char *family);

/* ---- the tables under test -------------------------------------------------------------
 * ks[0] is the scalar reference. An entry a table shares with a lower one (the same function,
 * inherited through the init chain) was checked there: checks and benches run only entries a
 * table overrides. */
typedef struct kernel {
    const char *name;
    const fl_kernel_table *t;
    int emulated;
} kernel;

/* The entry at byte offset `slot` of table ki is a function no lower table has. */
int kernel_overrides(const kernel *ks, size_t ki, uint32_t slot);
#define KERNEL_FN(kn, slot, type) FL_KERNEL_AT((kn)->t, (slot), type)
/* ks, then the candidate table `cand` (src/cpu/kernel_choice.h's FL_CAND_*, named after
 * fl_cand_names) where this process has it and ks runs its ISA table `isa`: an ISA table with
 * some entries built differently (avx2-loads, avx512-popcnt). Last, so kernel_overrides
 * finds only the entries of its own; the others are its ISA's, not checked or timed twice.
 * out holds MAX_KERNELS; returns the count (nk, or nk + 1). */
#define MAX_KERNELS 17
size_t with_candidate(const kernel *ks, size_t nk, int cand, const char *isa, kernel *out);
/* For a bench whose ks came from with_candidate: a line naming the columns past nk_in, under
 * the header's. */
void print_candidate_columns(const char *family, const kernel *ks, size_t nk, size_t nk_in);
/* The table itself: none of kernel kn's entries at `slots` is NULL (checked and recorded
 * in the context the caller set). */
void check_entries_present(const kernel *kn, const uint32_t *slots, size_t nslots);
/* The variant's descriptor (k range, unit size), or exit 1 naming the family. */
void variant_info(fl_variant variant, const char *name, fl_variant_info *vi);

/* ---- guarded input buffer --------------------------------------------------------------
 * Hashes are placed flush against a PROT_NONE page, after it or before it, at every
 * misalignment: a kernel reading one vector past either end of hashes[0..n) faults. */
#define POOL 4099
void gbuf_setup(void);
const uint64_t *gbuf_place(const uint64_t *src, size_t n, unsigned mis, int at_end);

/* Batch sizes: every size through four 16-key vectors plus tails, then larger ones. */
extern size_t g_sizes[128];
extern size_t g_nsizes;
void init_sizes(void);

/* ---- filter geometries ------------------------------------------------------------------
 * The unit counts every filter module is checked at: small ones first, then the big one,
 * about 4 MiB with an odd unit count, above every kernel's prefetch threshold (checkkernels
 * sets kernels.h's fl_kernel_prefetch_min_bytes to 1 MiB while it checks), so that the
 * prefetching loops are checked too. */
#define GEOMETRIES 7
int geometry_big(size_t gi);
uint32_t geometry_units(size_t gi, size_t unit_bytes);

/* ---- test payloads: zeroed, 64-byte aligned (or 2 MiB and MADV_HUGEPAGE), guard after ---- */
typedef struct tfilter {
    fl_kview v;
    size_t unit_bytes;
    size_t bytes;
    void *mem;
    size_t mapped; /* 0: aligned_alloc'ed */
    fl_stash_entry stash[FL_STASH_MAX];
} tfilter;

void tf_alloc(tfilter *t, size_t unit_bytes, uint32_t units, uint32_t k, int huge);
void tf_clone(tfilter *dst, const tfilter *src);
void tf_free(tfilter *t);
int tf_guard_intact(const tfilter *t);

enum { FILL_EMPTY, FILL_HALF, FILL_FULL, FILL_COUNT };
extern const char *const FILL[FILL_COUNT];

/* Query pool: about half positives, the rest random or special hashes. */
void make_queries(uint64_t *q, size_t nq, const uint64_t *pos, size_t npos);

/* One batch lookup kernel against the reference on one payload, every batch size, with
 * canaries around the output. Returns 1 if everything matched. */
int check_contains(fl_contains_fn fn, fl_contains_fn ref, tfilter *t, const uint64_t *q);

/* One batch for an insert check: g_sizes[si] keys from a random place of q (*start), put
 * against either end of the guard buffer (*in), inserted by the reference into a and by the
 * kernel into b, two copies of one payload (start, in: NULL when not wanted). Returns 0,
 * having said so, if the kernel wrote past b's payload. */
int insert_batch(fl_insert_fn fn, fl_insert_fn ref, tfilter *a, tfilter *b, const uint64_t *q,
                 size_t si, size_t *start, const uint64_t **in);

/* A one-key entry (l->probe) and the header-inline lookup built on it (fl_lookup_hash over
 * l) against the reference batch answer on t, every query of the pool. Returns 1 if all
 * matched. */
int check_one_key(const fl_lookup *l, fl_contains_fn ref, tfilter *t, const uint64_t *q);

/* One kernel writing a u64 per key (hash_u64, murmur8) against the reference on q: every
 * length up to 70 and 1000, input against either end of the guard buffer (the length's
 * `end_bit`), every output misalignment, canaries after the output. The seed is random, or
 * for odd lengths `odd_seed` when it is nonzero. `what` names the entry in failure lines.
 * Returns 1 if everything matched. */
int check_u64_kernel(const char *what, fl_hash_u64_fn fn, fl_hash_u64_fn ref, const uint64_t *q,
                     uint64_t odd_seed, size_t end_bit);

/* ---- benchmark helpers ------------------------------------------------------------------ */
#define BENCH_BATCH 1024
#define BENCH_REPS 7
double now_ns(void);
/* The median (or with --min the fastest) of n timings; sorts them. */
double pick_rep(double *r, size_t n);
/* ns per key of one pass of a batch lookup over q[0, nq) in BENCH_BATCH batches. */
double bench_contains_pass(fl_contains_fn fn, tfilter *t, const uint64_t *q, size_t nq,
                           uint8_t *out);
/* r[ki][rep]: every kernel's lookup entry at `slot` on the same payload, after a warm-up
 * pass, reps interleaved so noise from other processes hits all kernels alike. */
void bench_contains_reps(const kernel *ks, size_t nk, uint32_t slot, tfilter *t,
                         const uint64_t *q, size_t nq, uint8_t *out, double r[][BENCH_REPS]);
extern volatile size_t g_sink;
/* One result line: every kernel's median (or fastest) ns per key, its ratio to scalar, and
 * '=' where the entry at `slot` is the scalar function itself. Sorts r. */
void print_bench_row(const kernel *ks, size_t nk, const char *family, uint32_t k, size_t mib,
                     const char *op, uint32_t slot, double r[][BENCH_REPS]);

/* ---- the modules (check_<module>.c) ------------------------------------------------------
 * check_<module>() and bench_<module>() for every module of kernels.h's FL_KERNEL_MODULES:
 * main.c runs them in that order, tests/meson.build compiles check_<module>.c from
 * kernels/meson.build's kernel_modules. */
#define CHECKKERNELS_MODULE(module, ...)                                                      \
    void check_##module(const kernel *ks, size_t nk);                                         \
    void bench_##module(const kernel *ks, size_t nk);
FL_KERNEL_MODULES(CHECKKERNELS_MODULE)

#endif
