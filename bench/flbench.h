/*
 * flbench: the harness's shared types. Each .c file of bench/ has one job:
 *
 *   main.c               the top level: options -> machine -> context -> sweep -> reports
 *   options.c            option parsing (getopt_long), --help, the default size sweep
 *   run.c                the sweep: plans the filters, builds each once, runs the lookups
 *   sizing.c             a size target -> a geometry and key count, through the library's API
 *   measure.c            measurement plumbing: the counter group, timing a region, per-item
 *                        values, preemption marks
 *   ops.c                the timed operations: inserts (the build), lookups, deletes, the
 *                        FPR pass, and the names and static fields of their results
 *   family.c             the family suites (--structure): driver and shared pieces;
 *                        family_sbf.c, family_cms.c, family_hll.c one structure each
 *   bound.c              the physical bound at each footprint (runs probe_memory.c)
 *   callgrind_run.c      re-running configurations under callgrind; the child's side
 *   env.c                the sweep's shared buffers; completed results to the listener
 *   workloads.c          keys: u64 ids, the synthetic URL generator, hit-rate mixing
 *   timer.c              clock_gettime, serialized rdtsc/rdtscp, TSC frequency
 *   counters_perf.c      libpfm4 encoding + one perf_event_open group
 *   counters_callgrind.c valgrind itself: geometry, running it, parsing its output
 *   probe_memory.c       pointer chasing, prefetched random lines and sequential reads over
 *                        one buffer
 *   context.c            machine context (CPU, caches, kernel, compiler, governor, THP, ...)
 *   results.c            the in-memory result list
 *   report_json.c        Google-Benchmark-shaped JSON (jansson)
 *   report_csv.c         one row per configuration, units in the column names
 *   report_console.c     the table on stdout, fed by the sweep's listener calls
 *   stats.c              median, min, mean, stddev, cv
 *   format.c             human byte sizes
 *   progress.c           the progress line on a terminal, status lines otherwise
 *   output.c             output paths: checked before measuring, written atomically
 *
 * Data flows one way: the sweep (run.c and the job files behind sweep.h) fills fb_results and
 * tells an fb_listener when a result is complete; the reporters read results and never call
 * back into the sweep.
 *
 * Only the public API (filterlab.h) is used: what the harness measures is what users call.
 */
#ifndef FLBENCH_H
#define FLBENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "filterlab.h"
#include "fb_rng.h"
#include "structures.h"

#define FB_JSON_SCHEMA_VERSION 1
#define FB_MAX_VARIANTS 8
#define FB_MAX_KERNELS 8
#define FB_MAX_HITS 16
#define FB_MAX_EVENTS 8
#define FB_MAX_SERIES 24
#define FB_MAX_FIELDS 40
#define FB_MAX_PARAMS 16 /* values of --sbf-filters / --hll-precisions */

/* ----------------------------------------------------------------------------------------
 * Options
 * -------------------------------------------------------------------------------------- */
enum fb_keys { FB_KEYS_U64 = 0, FB_KEYS_URL = 1 };
enum fb_counters { FB_CNT_AUTO = 0, FB_CNT_PERF, FB_CNT_CALLGRIND, FB_CNT_NONE };
/* --structure: the filter sweep (Bloom, cuckoo and counting variants of --filter) and the
 * family suites of family_*.c, as bits, one per line of FB_STRUCTURES (structures.h). */
#define FB_ST_INDEX_(id, ...) FB_ST_INDEX_##id,
enum { FB_STRUCTURES(FB_ST_INDEX_) FB_NSTRUCTURES };
#undef FB_ST_INDEX_
#define FB_ST_BIT_(id, ...) FB_ST_##id = 1u << FB_ST_INDEX_##id,
enum fb_structure { FB_STRUCTURES(FB_ST_BIT_) };
#undef FB_ST_BIT_
#define FB_ST_ALL ((1u << FB_NSTRUCTURES) - 1)

typedef struct fb_options {
    fl_variant variants[FB_MAX_VARIANTS];
    size_t nvariants;
    char kernels[FB_MAX_KERNELS][32]; /* resolved names; "auto" resolved in main */
    size_t nkernels;
    double fpr;          /* target FPR (sizing) unless use_bpk */
    double bits_per_key; /* used when use_bpk */
    int use_bpk;
    int fpr_given;       /* --fpr was given (it excludes --bits-per-key) */
    uint64_t *sizes; /* bytes or keys (sizes_in_keys) */
    size_t nsizes;
    int sizes_in_keys;
    int sizes_default; /* the sweep was derived from the caches */
    double hits[FB_MAX_HITS];
    size_t nhits;
    size_t batch;
    int keys;            /* enum fb_keys */
    uint64_t lookups;    /* timed lookups per repetition */
    int reps;
    int warmup;          /* untimed repetitions before the timed ones */
    int interleave;
    int pin_cpu;         /* -1: not pinned */
    int huge_pages;      /* 1 = on (library default), 0 = FL_FLAG_NO_HUGE_PAGES */
    int counters;        /* enum fb_counters */
    const char *events;  /* comma-separated libpfm4 names, NULL = default set */
    const char *json_path;
    const char *csv_path;
    int probe_memory;
    int probe_only;      /* only the memory probe, at --sizes bytes (no filters) */
    int probe_distance;  /* prefetch distance in lines */
    uint64_t insert_budget; /* keys inserted per (filter, kernel) across insert repetitions */
    uint64_t seed;
    int quick;
    const char *cg_d1;   /* "size,assoc,line" or NULL = from sysfs */
    const char *cg_ll;
    uint64_t cg_lookups;
    int cg_child;        /* internal: this process runs under valgrind */
    unsigned structures; /* enum fb_structure bits [FB_ST_FILTER] */
    int plan_only;       /* --plan: print the filter sizing and exit */
    int quiet;           /* --quiet: no progress line, no status lines */
    uint32_t sbf_filters[FB_MAX_PARAMS]; /* sub-filters per chain at equal total size */
    size_t nsbf_filters;
    double sbf_growth;   /* EXPANSION of the measured chains */
    uint32_t cms_depth;  /* d of the Count-Min sizes (w from the size) */
    uint32_t gcf_growth; /* the gcf suite's filters start at 1/G of the keys */
    uint32_t cms_topk;   /* candidates of the top-k update run at the seeds' point */
    uint32_t hll_precisions[FB_MAX_PARAMS];
    size_t nhll_precisions;
    uint64_t bandwidth_bytes; /* buffer of the sequential-read probe (0: from the LLC) */
    FILE *console;       /* the table: stdout, or stderr when a report goes to stdout */
    int argc;
    char **argv;
} fb_options;

/* ----------------------------------------------------------------------------------------
 * Results: one fb_result per configuration, with per-repetition series and static fields.
 * JSON turns each into `repetitions` iteration entries plus five aggregates.
 * -------------------------------------------------------------------------------------- */
enum fb_op { FB_OP_LOOKUP = 0, FB_OP_INSERT, FB_OP_PROBE_LATENCY, FB_OP_PROBE_LINES,
             FB_OP_DELETE, FB_OP_FAMILY, FB_OP_PROBE_STREAM };

typedef struct fb_series {
    char key[64];
    double *v; /* [reps]; NaN = not available (JSON null) */
} fb_series;

enum fb_field_type { FB_F_NUM = 0, FB_F_INT, FB_F_STR, FB_F_NULL };
typedef struct fb_field {
    char key[48];
    int type;
    double num;
    int64_t i;
    char str[256];
} fb_field;

typedef struct fb_result {
    char name[224];
    int op;            /* enum fb_op */
    const char *item;  /* "lookup", "key" or "line": the unit of per-item values */
    int reps;
    int reps_done;
    uint64_t items;    /* items timed per repetition (Google Benchmark's "iterations") */
    double *real_ns;   /* [reps] ns per item */
    double *cpu_ns;    /* [reps] thread CPU ns per item */
    fb_series series[FB_MAX_SERIES];
    int nseries;
    fb_field fields[FB_MAX_FIELDS];
    int nfields;
    int reported;      /* handed to the listener (fb_run_listener) */
} fb_result;

typedef struct fb_results {
    fb_result **v;
    size_t n, cap;
} fb_results;

fb_result *fb_result_add(fb_results *rs, int op, const char *name, int reps, uint64_t items);
double *fb_result_series(fb_result *r, const char *key); /* creates (all NaN) if absent */
const double *fb_result_find_series(const fb_result *r, const char *key);
void fb_result_num(fb_result *r, const char *key, double v); /* non-finite -> null */
void fb_result_int(fb_result *r, const char *key, int64_t v);
void fb_result_str(fb_result *r, const char *key, const char *s);
const fb_field *fb_result_field(const fb_result *r, const char *key);
void fb_results_free(fb_results *rs);

/* ----------------------------------------------------------------------------------------
 * stats.c
 * -------------------------------------------------------------------------------------- */
typedef struct fb_stats {
    double median, min, max, mean, stddev, cv; /* all NaN if any input is NaN or n == 0 */
} fb_stats;
fb_stats fb_stats_of(const double *v, size_t n);

/* ----------------------------------------------------------------------------------------
 * timer.c
 * -------------------------------------------------------------------------------------- */
typedef struct fb_tsc_info {
    int available;    /* 1 on x86-64 */
    double hz;        /* measured against CLOCK_MONOTONIC_RAW */
    double hz_spread; /* (max - min) / median over the calibration rounds */
    double hz_cpuid;  /* CPUID leaf 0x15 nominal, 0 if not reported */
    int invariant;    /* CPUID 0x80000007 EDX bit 8 */
} fb_tsc_info;

typedef struct fb_stamp {
    double wall_ns;
    double cpu_ns;
    uint64_t tsc;
} fb_stamp;

#if defined(__x86_64__)
#define FB_TSC_AVAILABLE 1
#else
#define FB_TSC_AVAILABLE 0
#endif
void fb_tsc_calibrate(fb_tsc_info *t);
double fb_wall_ns(void);
double fb_cpu_ns(void);
void fb_stamp_begin(fb_stamp *s);
void fb_stamp_end(fb_stamp *s);

/* ----------------------------------------------------------------------------------------
 * counters_perf.c
 * -------------------------------------------------------------------------------------- */
typedef struct fb_perf {
    int n;                          /* events requested */
    char names[FB_MAX_EVENTS][128]; /* as given (libpfm4 names) */
    char keys[FB_MAX_EVENTS][64];   /* JSON key stems: "cycles", "llc_load_misses", ... */
    int fd[FB_MAX_EVENTS];          /* -1 if that event could not be opened */
    uint64_t id[FB_MAX_EVENTS];
    int leader;                     /* fd of the group leader, -1 if none */
    int opened;                     /* events in the group */
    int pmu_available;              /* a hardware event opened */
    char note[512];                 /* why counters are missing (empty if all fine) */
    char hw_reason[256];            /* why no hardware event opened (empty if one did) */
} fb_perf;

typedef struct fb_perf_sample {
    uint64_t enabled, running;
    uint64_t value[FB_MAX_EVENTS];
    int ok;
} fb_perf_sample;

/* Opens the group (always returns; check pmu_available and note). */
void fb_perf_open(fb_perf *p, const char *events_csv);
void fb_perf_close(fb_perf *p);
void fb_perf_read(const fb_perf *p, fb_perf_sample *s);
/* Scaled delta of event i between two samples (NaN if not counted), and running percent. */
double fb_perf_delta(const fb_perf *p, const fb_perf_sample *a, const fb_perf_sample *b, int i);
double fb_perf_running_pct(const fb_perf_sample *a, const fb_perf_sample *b);
int fb_perf_index(const fb_perf *p, const char *key);
/* Does sysfs show a CPU PMU driver? */
int fb_pmu_driver_present(void);
int fb_read_paranoid(void);

/* ----------------------------------------------------------------------------------------
 * counters_callgrind.c
 * -------------------------------------------------------------------------------------- */
typedef struct fb_cg_geometry {
    char d1[64], ll[64];  /* "size,assoc,line" as passed to valgrind */
    char source[32];      /* "sysfs", "option", "valgrind default" */
    char note[256];       /* adjustments made for valgrind */
} fb_cg_geometry;

typedef struct fb_cg_result {
    int ok;
    char note[256];
    uint64_t lookups;
    char kernel[32];
    double ir, dr, dw, d1mr, d1mw, dlmr, dlmw; /* totals over the collected region */
} fb_cg_result;

int fb_cg_valgrind_version(char *buf, size_t cap); /* 0 if valgrind runs */
void fb_cg_geometry_init(fb_cg_geometry *g, const char *d1, const char *ll);
/* Runs `valgrind --tool=callgrind ... exe child_args...` and parses the result. */
void fb_cg_run(const fb_cg_geometry *g, char *const child_args[], fb_cg_result *r);
int fb_cg_parse(const char *path, fb_cg_result *r);
/* In the child: client requests (no-ops when not under valgrind). */
void fb_cg_start_instrumentation(void);
void fb_cg_toggle_collect(void);
int fb_cg_running_on_valgrind(void);

/* ----------------------------------------------------------------------------------------
 * workloads.c
 * -------------------------------------------------------------------------------------- */
/* fb_rng, fb_rng_next/unit/below: SplitMix64, in fb_rng.h (shared with bench/baselines).
 * Key ids are turned into keys by the library's fl_mix64, a bijection of 64-bit values. */

/* Key ids: inserted keys are ids [0, n); never-inserted ids live above FB_ID_MISS. */
#define FB_ID_MISS (UINT64_C(1) << 62)
#define FB_ID_FPR (UINT64_C(3) << 62)
#define FB_URL_MAX 256

uint64_t fb_key_u64(uint64_t id, uint64_t seed);
/* Writes the URL for id into buf (FB_URL_MAX bytes); returns its length. Distinct ids give
 * distinct URLs: a base-36 token of a bijection of the id ends the last path segment. */
size_t fb_key_url(uint64_t id, uint64_t seed, char *buf);

typedef struct fb_keys_buf {
    int type;            /* enum fb_keys */
    size_t cap, n;       /* keys */
    uint64_t *hashes;    /* u64: precomputed fl_hash_u64; url: scratch for one batch */
    char *arena;         /* url bytes */
    size_t arena_cap, arena_len;
    uint32_t *len;       /* url: key i is arena[off[i] .. off[i]+len[i]) */
    uint64_t *off;
    uint64_t hits;       /* keys drawn from the inserted set */
    double key_bytes;    /* total key bytes (url) for the mean length */
} fb_keys_buf;

int fb_keys_alloc(fb_keys_buf *k, int type, size_t cap);
void fb_keys_free(fb_keys_buf *k);
/* Appends the key of one id. The u64 hash uses fl_hash_u64(key, seed) (outside any timed
 * region); a URL is stored as bytes and hashed by the timed loop. */
void fb_keys_push(fb_keys_buf *k, uint64_t id, uint64_t seed);
void fb_keys_clear(fb_keys_buf *k);
/* n keys, each a hit (uniform over [0, inserted)) with probability hit_rate, otherwise a
 * fresh never-inserted id taken from *miss_cursor. */
void fb_keys_fill_mix(fb_keys_buf *k, size_t n, double hit_rate, uint64_t inserted,
                      uint64_t *miss_cursor, fb_rng *rng, uint64_t seed);

/* ----------------------------------------------------------------------------------------
 * probe_memory.c
 * -------------------------------------------------------------------------------------- */
typedef struct fb_probe_buf {
    void *raw;      /* the mapping, for munmap */
    void *base;     /* 2 MiB aligned start */
    size_t bytes, mapped;
    int huge;       /* MADV_HUGEPAGE accepted */
} fb_probe_buf;
int fb_probe_alloc(fb_probe_buf *b, size_t bytes, int huge_pages);
void fb_probe_free(fb_probe_buf *b);
/* Builds a random cyclic permutation of the lines (Sattolo 1986) for pointer chasing. */
void fb_probe_chain(fb_probe_buf *b, fb_rng *rng);
/* Dependent loads: returns a value to keep the chase alive. */
uint64_t fb_probe_chase(const fb_probe_buf *b, uint64_t loads);
/* Independent random lines: rnd[0 .. n + distance + 8) random 32-bit values mapped to
 * lines by multiply-shift, one word read per line, software prefetch `distance` lines ahead
 * (rounded up to a multiple of 8). */
uint64_t fb_probe_lines(const fb_probe_buf *b, const uint32_t *rnd, uint64_t n, int distance);
/* Sequential reads of the whole buffer, `passes` times (the read bandwidth of its footprint:
 * DRAM for a buffer well above the LLC). Returns a value to keep the loads alive. */
uint64_t fb_probe_stream(const fb_probe_buf *b, uint64_t passes);

/* ----------------------------------------------------------------------------------------
 * context.c
 * -------------------------------------------------------------------------------------- */
typedef struct fb_cache {
    int level;
    char type[16];
    uint64_t size;
    int ways, line;
    uint64_t sets;
    int sharing;
} fb_cache;

typedef struct fb_machine {
    fb_cache caches[8];
    int ncaches;
    uint64_t l1d, l2, llc;   /* bytes, 0 if unknown */
    uint64_t mem_available;  /* bytes */
    int ncpus;
} fb_machine;

void fb_machine_read(fb_machine *m);
/* Builds the context object: CPU, caches, kernel, compiler, build, git, date, governor,
 * turbo, paranoid, THP, kernel selection, TSC. Warnings are added by fb_warn. */
json_t *fb_context_build(const fb_options *o, const fb_machine *m, const fb_tsc_info *tsc);
/* Prints "flbench: warning: ..." on stderr and appends it to context.warnings. */
void fb_warn(json_t *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends to context.notes without printing a warning. */
void fb_note(json_t *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int fb_is_debug_build(void);
uint64_t fb_mem_available(void);

/* ----------------------------------------------------------------------------------------
 * The sweep's output side: what it tells a listener (run -> results -> reporters).
 * -------------------------------------------------------------------------------------- */
typedef struct fb_run_info {
    /* What a reporter shows for a hardware counter that has no value: "<not supported>"
     * when counters were asked for and the PMU cannot count, "-" when none were asked for. */
    const char *missing_counter;
    int simulated; /* callgrind columns exist (--counters callgrind) */
    /* Which columns can have a value in this run; the console leaves out the others. */
    int tsc;       /* TSC cycles (x86-64) */
    int bound;     /* ratio to the memory probe (--probe memory) */
    int fpr;       /* the filter sweep's lookups (their measured FPR) */
    int ncounted;  /* hardware counters in the open group: their JSON key stems */
    char counted[FB_MAX_EVENTS][64];
    int counter_warned; /* the counter note was given as a warning (do not repeat it) */
} fb_run_info;

typedef struct fb_listener {
    void *arg;
    /* Once, after the counters are set up (ctx then holds the whole context). */
    void (*begin)(void *arg, json_t *ctx, const fb_run_info *info);
    /* A new table starts (the probe, the sweep, the callgrind re-run). */
    void (*section)(void *arg);
    /* r has all its repetitions (called again for a result the callgrind re-run amended). */
    void (*result)(void *arg, const fb_result *r);
} fb_listener;

/* run.c: the sweep. Fills rs; calls l (may be NULL) as results complete. */
int fb_run(const fb_options *o, const fb_machine *m, json_t *ctx, fb_results *rs,
           const fb_listener *l);
/* callgrind_run.c: the child process of a callgrind re-run (--cg-child). */
int fb_cg_child_main(const fb_options *o);

/* ----------------------------------------------------------------------------------------
 * options.c
 * -------------------------------------------------------------------------------------- */
typedef struct fb_cli {
    const char *sizes;   /* --sizes as given, NULL = the default sweep */
    int list;            /* --list */
    const char *filters; /* --filter as given ["all"] */
    const char *kernels; /* --kernel as given ["auto"] */
    uint64_t lookups;    /* --lookups as given, 0 = by --quick and --keys */
} fb_cli;
/* Parses argv into o (defaults first); exits 1 with a one-line message on bad input, 0 after
 * --help or --version. */
void fb_options_parse(fb_options *o, fb_cli *cli, int argc, char **argv);
/* --sizes, or L1d/2 to ~3x the last-level cache (fb_options.sizes_default). */
void fb_options_sizes(fb_options *o, const fb_cli *cli, const fb_machine *m);
void fb_default_sizes(fb_options *o, const fb_machine *m);
/* sizing.c: --plan, the filter sweep's sizing on stdout; 0 if every size could be sized. */
int fb_print_plan(const fb_options *o);

/* ----------------------------------------------------------------------------------------
 * reports
 * -------------------------------------------------------------------------------------- */
int fb_report_json(const char *path, json_t *ctx, const fb_results *rs);
int fb_report_csv(const char *path, const fb_results *rs);

/* The console table: a listener. Its state lives in the struct, not in file statics. */
#define FB_CONSOLE_COLS 16 /* at least report_console.c's column count */
typedef struct fb_console {
    FILE *out;
    const char *missing; /* fb_run_info.missing_counter */
    int simulated;
    int header_due;      /* print the column header before the next row */
    int show[FB_CONSOLE_COLS]; /* the columns this run can fill (report_console.c's cols[]) */
    int warned_here;     /* out is the file stderr goes to: warnings are there already */
    int clears_progress; /* out is a terminal (or stderr): erase the progress line first */
} fb_console;
void fb_console_init(fb_console *c, FILE *out);
fb_listener fb_console_listener(fb_console *c);

/* JSON helpers shared by context.c and report_json.c: null for non-finite numbers. */
json_t *fb_json_num(double v);

/* ----------------------------------------------------------------------------------------
 * progress.c: one process-wide line on stderr (see the file's comment)
 * -------------------------------------------------------------------------------------- */
/* The progress line is drawn only when stderr is a terminal and quiet is 0. */
void fb_progress_init(int quiet);
int fb_progress_active(void);
int fb_quiet(void);
void fb_progress_plan(size_t n);  /* n more benchmarks (results) to come */
void fb_progress_done(size_t n);  /* n benchmarks complete */
void fb_progress_tick(void);      /* between repetitions: refresh the clock now and then */
void fb_progress_clear(void);     /* erase the line before writing anything else */
/* What runs now: the progress line's label on a terminal, else a "flbench: ..." line on
 * stderr (none with --quiet). */
void fb_status(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ----------------------------------------------------------------------------------------
 * output.c: --json / --csv paths
 * -------------------------------------------------------------------------------------- */
/* Before anything is measured: can a file be created at path ("-" = stdout)? Prints one
 * "<program>: cannot write ..." line and returns -1 if not. flaccuracy uses these too. */
int fb_output_check(const char *opt, const char *path);
/* A temporary file beside path (tmp receives its name; empty for a device or FIFO, written
 * in place), or stdout for "-". */
FILE *fb_output_open(const char *path, char *tmp, size_t cap);
/* Closes f and renames the temporary file onto path (nothing for stdout); on any error
 * removes the temporary file, prints one line and returns -1. */
int fb_output_commit(FILE *f, const char *path, const char *tmp);
/* Closes f and removes the temporary file (nothing for stdout). */
void fb_output_abort(FILE *f, const char *tmp);

/* ----------------------------------------------------------------------------------------
 * format.c
 * -------------------------------------------------------------------------------------- */
/* Human size "16KiB", "1MiB", "1.50GiB" into buf. */
const char *fb_fmt_bytes(uint64_t b, char *buf, size_t cap);

#endif /* FLBENCH_H */
