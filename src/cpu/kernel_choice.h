/*
 * The automatic kernel choice, shared by src/cpu/dispatch.c (tables, the choice itself),
 * src/cpu/kernel_entries.c (the module entries), src/cpu/kernel_rules.c (the rule table),
 * src/cpu/wisdom.c (the wisdom file `filterlab tune` writes) and src/cpu/tune.c (the
 * measurement and `filterlab tune` itself).
 *
 * A module entry is one function pointer of fl_kernel_table (kernels/kernels.h), named
 * "<module>.<op>[.<shape>]". A candidate is a table the entry can be taken from: one per ISA,
 * plus the "loads" forms of the x86 fuse kernels (kernels/fuse_simd.h: the same table with
 * scalar loads instead of gathers). Candidates holding the same function for an entry are one
 * kernel for that entry, named after the first of them in candidate order.
 */
#ifndef FL_KERNEL_CHOICE_H
#define FL_KERNEL_CHOICE_H

#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"

#pragma GCC visibility push(hidden)

/* How tune times an entry (its calling convention). */
typedef enum fl_entry_kind {
    FL_EK_CONTAINS,  /* fl_contains_fn on a payload of unit_bytes units, k */
    FL_EK_INSERT,    /* fl_insert_fn */
    FL_EK_CONTAINS1, /* fl_contains1_fn, one key per call */
    FL_EK_HASH_U64,  /* fl_hash_u64_fn, no payload */
    FL_EK_HLL_ADD,   /* fl_hll_add_fn, 2^14 registers */
    FL_EK_HLL_HISTO,
    FL_EK_HLL_MAX,
    FL_EK_CMS_UPDATE, /* fl_cms_update_fn, depth 4, width from the payload size */
    FL_EK_CMS_QUERY,
    FL_EK_FUSE_CONTAINS, /* fl_fuse_contains_fn, arity and cell bits below */
    FL_EK_BLOOMIER_GET,
    FL_EK_VQF_UPDATE, /* fl_vqf_update_fn on a payload of unit_bytes units */
    FL_EK_VQF_UPDATE1, /* fl_vqf_update1_fn, one key per call */
    FL_EK_CONTAINS_U64S, /* fl_contains_u64s_fn: FL_EK_CONTAINS's payload, integer keys */
} fl_entry_kind;

typedef struct fl_entry_desc {
    const char *name;
    uint32_t slot;       /* byte offset in fl_kernel_table */
    uint8_t kind;        /* fl_entry_kind */
    uint8_t sized;       /* the payload grows with the structure: one choice per size class */
    uint8_t k;           /* Bloom bits / counting counters / cuckoo fingerprint bits */
    uint8_t arity;       /* fuse / Bloomier */
    uint16_t unit_bytes; /* payload unit (FL_EK_CONTAINS, _INSERT, _CONTAINS1, _CONTAINS_U64S,
                            _VQF_UPDATE) */
    uint8_t cell_bits;   /* fuse / Bloomier */
} fl_entry_desc;

extern const fl_entry_desc fl_entries[];
extern const size_t fl_nentries;
int fl_entry_find(const char *name); /* index or -1 */

/* The candidates, in naming order (the first holding a function names it). */
enum {
    FL_CAND_SCALAR = 0,
    FL_CAND_NEON,
    FL_CAND_AVX2,
    FL_CAND_AVX2_LOADS,
    FL_CAND_AVX512,
    FL_CAND_AVX512_LOADS,
    FL_CAND_AVX512_POPCNT, /* avx512 with vqf.contains built for VPOPCNTDQ and BITALG */
    FL_NCAND
};
extern const char *const fl_cand_names[FL_NCAND];
int fl_cand_find(const char *name); /* index or -1 */
/* The FL_CPU_* bits candidate c needs, OS state included: it runs on a CPU with features f
 * when (f & fl_cand_needs[c]) == fl_cand_needs[c] (and the build has its code). Dispatch
 * reads it for the candidates beyond an ISA's own table; tests feed it fake CPUs. */
extern const uint32_t fl_cand_needs[FL_NCAND];
/* The table of candidate c if this CPU runs it natively (not emulated), else NULL. */
const fl_kernel_table *fl_cand_table(int c);
typedef void (*fl_any_fn)(void);
/* Entry e of candidate c's table (c must have a table). */
fl_any_fn fl_cand_fn(int c, size_t e);
/* The distinct kernels of entry e this CPU runs: their candidate indices (the naming one of
 * each), scalar first. Returns how many (at least 1: scalar). */
size_t fl_entry_kernels(size_t e, int out[FL_NCAND]);

/* Bytes of one choice's reason, its NUL included ("rule: " and a rule's text, or a measured
 * choice's figures): dispatch.c keeps one per entry and size class. */
#define FL_REASON_MAX 288

/* ---- the rule table (src/cpu/kernel_rules.c) ----
 * The choice for entry e at size class cls on a CPU described by id, among the candidates of
 * avail_mask (bit c: candidate c runs here): the first rule that covers the CPU, entry and
 * class and names an available candidate, else the widest available ISA. *why gets the rule's
 * sentence (static storage). Pure: tests feed it any CPU. */
int fl_rule_choice(const fl_cpu_id *id, size_t e, int cls, unsigned avail_mask,
                   const char **why);

/* ---- the wisdom file (src/cpu/wisdom.c) ---- */
#define FL_WISDOM_VERSION 1
typedef struct fl_wisdom_key {
    char vendor[32];
    int family, model, stepping;
    char microcode[32]; /* "-" when /proc/cpuinfo does not say */
    uint32_t features;  /* FL_CPU_* */
    char library[16];   /* "0.1.0": another build's kernels are other functions */
} fl_wisdom_key;
typedef struct fl_wisdom_cell {
    int have;            /* measured */
    int cand;            /* the winner */
    double ns[FL_NCAND]; /* ns per key; 0 = not a distinct kernel here */
} fl_wisdom_cell;
typedef struct fl_wisdom {
    fl_wisdom_key key;
    char date[11]; /* YYYY-MM-DD */
    uint64_t limits[FL_NSIZE_CLASSES - 1];
    fl_wisdom_cell *cells; /* fl_nentries * FL_NSIZE_CLASSES, owned */
} fl_wisdom;

/* This machine's key (vendor, family, model, stepping, microcode, features, library). */
void fl_wisdom_key_here(fl_wisdom_key *k);
/* Parses buf[0..len) for a CPU with key `here` whose candidates are avail_mask. Returns 1
 * with *out filled (free with fl_wisdom_free), or 0 with one sentence in why: the file is
 * then ignored as a whole. Any byte sequence is safe to pass. */
int fl_wisdom_parse(const char *buf, size_t len, const fl_wisdom_key *here, unsigned avail_mask,
                    fl_wisdom *out, char *why, size_t cap);
void fl_wisdom_free(fl_wisdom *w);
/* The wisdom file's path (FILTERLAB_WISDOM, else the XDG cache directory) in path, and the
 * file read and checked for this CPU (candidates avail_mask) and cache limits: the wisdom,
 * or NULL, with one sentence in status saying which ("used: ...", "none: ...", "ignored:
 * ...", "off: ..."). */
#define FL_WISDOM_PATH_MAX 4096
#define FL_WISDOM_STATUS_MAX (4096 + 640) /* the path, a reason of up to 511 bytes, words */
fl_wisdom *fl_wisdom_find(unsigned avail_mask, const uint64_t limits[FL_NSIZE_CLASSES - 1],
                          char *path, size_t pcap, char *status, size_t scap);
/* The file's text for w (malloc'ed, NUL-terminated; NULL when out of memory). */
char *fl_wisdom_format(const fl_wisdom *w, size_t *len);

/* ---- the measurement (src/cpu/tune.c) ---- */
/* Fills w->cells (allocated here) and w->limits; w->key and w->date are the caller's. */
fl_status fl_tune_measure(fl_wisdom *w, int quick, void (*report)(void *ctx, const char *line),
                          void *ctx);

/* dispatch.c: the size-class limits of a host's caches, and of this machine's (after
 * the first kernel use). */
void fl_size_limits_of(const fl_host *h, uint64_t limits[FL_NSIZE_CLASSES - 1]);
void fl_size_limits_here(uint64_t limits[FL_NSIZE_CLASSES - 1]);
/* Replaces the process's wisdom with w (taken over; NULL drops it) and recomputes the
 * automatic choice. */
void fl_kernel_use_wisdom(fl_wisdom *w, const char *status);

#pragma GCC visibility pop

#endif /* FL_KERNEL_CHOICE_H */
