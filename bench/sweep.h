/*
 * The sweep's internal types, shared by the files that each do one of its jobs:
 *
 *   sizing.c         fb_size_spec, fb_create_filter: a target -> geometry, keys, filter
 *   measure.c        fb_counters_setup, fb_meas_*: the counter group and timed regions
 *   ops.c            fb_build_*, fb_lookup_rep, fb_measure_fpr: the timed operations
 *   bound.c          fb_probe_footprint, fb_attach_bounds: the physical bound
 *   callgrind_run.c  fb_callgrind_config: one configuration re-run under valgrind
 *   env.c            fb_env_buffers, fb_report_done: shared buffers, results to the listener
 *   run.c            fb_run: plans the filters and drives the others
 *
 * Calls go one way: run.c -> the job files -> measure.c, env.c (and ops.c -> bound.c for the
 * bound of a footprint; callgrind_run.c -> sizing.c, ops.c for its child).
 *
 * Nothing here is seen by the reporters: they get fb_results and fb_listener calls only.
 */
#ifndef FB_SWEEP_H
#define FB_SWEEP_H

#include "flbench.h"

#define FB_CHUNK 65536    /* keys per insert call (and per FPR slice) */
#define FB_WARM_MAX 65536 /* untimed warm-up lookups before each timed repetition */

/* One filter of the sweep: a (variant, size) pair, built once. */
typedef struct fb_spec {
    fl_variant v;
    uint64_t target;          /* as requested: bytes or keys */
    fl_geometry g;
    uint64_t n;               /* keys to insert */
    size_t bytes;
    double bpk, fpr_pred;
    fl_filter *f;
    uint64_t inserted;
    int huge;
    double fpr_measured;
    uint64_t fpr_queries, fn;
    int failed;
} fb_spec;

/* One lookup configuration: a filter, a kernel, a hit rate. */
typedef struct fb_lcfg {
    fb_spec *s;
    size_t ki;                /* kernel index into options */
    double hit;
    fb_result *r;
    fb_rng rng;
    uint64_t miss_cursor;
    int reps_run;             /* including warm-up repetitions */
} fb_lcfg;

/* The sweep's working state. */
typedef struct fb_env {
    const fb_options *o;
    json_t *ctx;
    fb_results *rs;
    const fb_listener *l;     /* may be NULL */
    fb_perf perf;
    int perf_on;
    fb_run_info info;
    fb_keys_buf pool;         /* lookup keys of one repetition */
    fb_keys_buf chunk;        /* insert / FPR keys */
    uint8_t *out;             /* one batch of answers */
    uint64_t *scratch;        /* one batch of hashes (url keys) */
    size_t nbound;
    uint64_t bound_bytes[256];
    double bound_ns[256], latency_ns[256];
} fb_env;

/* env.c */
static inline const char *fb_kname(const fb_env *e, size_t ki) { return e->o->kernels[ki]; }
static inline const char *fb_keys_name(const fb_options *o) {
    return o->keys == FB_KEYS_URL ? "url" : "u64";
}
/* Allocates the key buffers and answer/hash scratch for `pool_keys` lookups; 0 on success. */
int fb_env_buffers(fb_env *e, size_t pool_keys);
void fb_env_free(fb_env *e);
/* Hands every newly completed result to the listener. */
void fb_report_done(fb_env *e);
void fb_report_section(fb_env *e);

/* sizing.c */
int fb_size_spec(const fb_options *o, fl_variant v, uint64_t target, fb_spec *s, char *err,
                 size_t cap);
int fb_create_filter(const fb_options *o, fb_spec *s, char *err, size_t cap);

/* measure.c */
typedef struct fb_meas {
    fb_stamp t0, t1;
    fb_perf_sample p0, p1;
    double wall, cpu, tsc;
    double ev[FB_MAX_EVENTS];
    double run_en, run_on; /* summed for the running percentage */
} fb_meas;

/* Opens the counter group the options ask for and records it in ctx; 0 on success. */
void fb_counters_setup(fb_env *e);
void fb_meas_reset(fb_meas *m);
void fb_meas_begin(fb_env *e, fb_meas *m);
void fb_meas_end(fb_env *e, fb_meas *m);
void fb_meas_record(fb_env *e, fb_result *r, int rep, const fb_meas *m, double items);
void fb_note_preemption(fb_result *r, int rep);

/* ops.c */
size_t fb_run_lookups(fb_env *e, const fl_filter *f, const fb_keys_buf *k, size_t from,
                      size_t count, int *err);
void fb_lookup_rep(fb_env *e, fb_lcfg *c);
/* Fills s->f with its n keys. r == NULL: untimed (the callgrind child). */
int fb_build_timed(fb_env *e, fb_spec *s, fb_result *r, int rep);
/* One build for every kernel: consecutive insert chunks rotate through the kernels, each
 * timed into its own result (rep 0), so each kernel sees every load level of the fill. */
int fb_build_rotated(fb_env *e, fb_spec *s, fb_result **ins, size_t nk);
void fb_measure_fpr(fb_env *e, fb_spec *s);
void fb_spec_fields(fb_env *e, fb_result *r, const fb_spec *s, size_t ki);
fb_result *fb_new_insert_result(fb_env *e, fb_spec *s, size_t ki, int reps, uint64_t items);
fb_result *fb_new_lookup_result(fb_env *e, fb_spec *s, size_t ki, double hit);
/* Variants that delete (FL_CAP_DELETE) get a delete result per kernel; its repetitions
 * delete and re-insert inserted keys (rep < 0: warm-up, untimed). */
int fb_variant_deletes(fl_variant v);
fb_result *fb_new_delete_result(fb_env *e, fb_spec *s, size_t ki);
void fb_delete_rep(fb_env *e, fb_spec *s, fb_result *r, int rep, fb_rng *rng);

/* bound.c */
void fb_probe_footprint(fb_env *e, uint64_t bytes);
void fb_attach_bounds(fb_env *e);
/* The fastest random-line repetition at this footprint, NaN if not probed. */
double fb_bound_ns(const fb_env *e, uint64_t bytes);

/* callgrind_run.c */
/* Describes valgrind and the simulated geometry in ctx; 0 on success, else exit status. */
int fb_callgrind_setup(fb_env *e, fb_cg_geometry *geo);
void fb_callgrind_config(fb_env *e, const fb_cg_geometry *geo, fb_lcfg *c);

#endif /* FB_SWEEP_H */
