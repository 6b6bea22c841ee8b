/*
 * filterlab kernels: the implementations per ISA, the automatic choice per module entry and
 * size class, the wisdom file, and binding a filter to one (included by filterlab.h).
 */
#ifndef FILTERLAB_KERNELS_H
#define FILTERLAB_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "filterlab.h"

#ifdef __cplusplus
extern "C" {
#endif

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
 * src/cpu/kernel_rules.c (measurements of named microarchitectures and a conservative default for
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

#ifdef __cplusplus
}
#endif
#endif /* FILTERLAB_KERNELS_H */
