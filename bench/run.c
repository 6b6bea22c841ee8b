/*
 * The sweep: for each filter variant and size, build the filter (timing the inserts per
 * kernel), measure its FPR on never-inserted keys, then time lookups for every kernel and hit
 * rate. Optionally: the memory probe first (the physical bound at each footprint) and, after
 * the lookups, a callgrind re-run of each configuration for simulated misses.
 *
 * Timed lookups go through fl_contains_hashes in batches of --batch over a key pool generated
 * fresh for every repetition (hit keys uniform over the inserted set, miss keys never
 * inserted), so a filter larger than the last-level cache sees new random lines each time
 * instead of a resident working set. A separate warm-up slice of the pool runs untimed just
 * before the timed slice so cache-sized filters are measured warm after the pool was written.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flbench.h"

#define CHUNK 65536          /* keys per insert call (and per FPR/probe slice) */
#define WARM_MAX 65536       /* untimed warm-up lookups before each timed repetition */

typedef struct spec {
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
} spec;

typedef struct lcfg {
    spec *s;
    size_t ki;                /* kernel index into options */
    double hit;
    fb_result *r;
    fb_rng rng;
    uint64_t miss_cursor;
    int reps_run;             /* including warm-up repetitions */
} lcfg;

typedef struct env {
    const fb_options *o;
    const fb_machine *m;
    json_t *ctx;
    fb_results *rs;
    fb_perf perf;
    int perf_on;
    const char *hw_reason;    /* console text for missing hardware counters */
    fb_keys_buf pool;         /* lookup keys of one repetition */
    fb_keys_buf chunk;        /* insert / FPR keys */
    uint8_t *out;             /* one batch of answers */
    uint64_t *scratch;        /* one batch of hashes (url keys) */
    size_t nbound;
    uint64_t bound_bytes[256];
    double bound_ns[256], latency_ns[256];
} env;

const char *fb_fmt_bytes(uint64_t b, char *buf, size_t cap) {
    static const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int i = 0;
    double v = (double)b;
    while (v >= 1024 && i < 4 && fmod(v, 1024) == 0) {
        v /= 1024;
        i++;
    }
    if (i == 0 && b >= 1024) {
        /* not a multiple: print with decimals */
        v = (double)b;
        while (v >= 1024 && i < 4) {
            v /= 1024;
            i++;
        }
        snprintf(buf, cap, "%.2f%s", v, u[i]);
    } else {
        snprintf(buf, cap, "%.0f%s", v, u[i]);
    }
    return buf;
}

static const char *kname(const env *e, size_t ki) { return e->o->kernels[ki]; }

/* ----------------------------------------------------------------------------------------
 * Sizing: a target in bytes (or keys) becomes an explicit geometry and a key count.
 * -------------------------------------------------------------------------------------- */
static uint64_t unit_bytes(fl_variant v, uint32_t k) {
    fl_geometry g = {v, 1, k};
    fl_params p;
    if (fl_params_for_geometry(&g, 1, &p) != FL_OK || p.bytes == 0)
        return 0;
    return p.bytes;
}

/* k for a bits-per-key budget: the variant's own FPR model decides (fl_predict_fpr). */
static int choose_k(fl_variant v, double b, uint32_t *k_out, char *err, size_t cap) {
    if (v == FL_SPLIT256) {
        *k_out = 8; /* fixed by the Parquet specification */
        return 0;
    }
    if (v == FL_CUCKOO) {
        /* f-bit fingerprints in 4-slot buckets at load f/b; the sizing load is 94%. */
        if (16.0 / b <= 0.94)
            *k_out = 16;
        else if (8.0 / b <= 0.94)
            *k_out = 8;
        else {
            snprintf(err, cap, "cuckoo needs >= %.2f bits per key (8-bit fingerprints at 94%% load)",
                     8.0 / 0.94);
            return -1;
        }
        return 0;
    }
    double best = 2;
    uint32_t bestk = 0;
    for (uint32_t k = 1; k <= 16; k++) {
        uint64_t ub = unit_bytes(v, k);
        if (!ub)
            continue;
        fl_geometry g = {v, (UINT64_C(1) << 23) / (ub * 8) + 1, k};
        uint64_t n = (uint64_t)((double)(g.units * ub * 8) / b);
        fl_params p;
        if (!n || fl_params_for_geometry(&g, n, &p) != FL_OK)
            continue;
        if (p.predicted_fpr < best) {
            best = p.predicted_fpr;
            bestk = k;
        }
    }
    if (!bestk) {
        snprintf(err, cap, "no valid k for %s at %.2f bits per key", fl_variant_name(v), b);
        return -1;
    }
    *k_out = bestk;
    return 0;
}

static int size_spec(const fb_options *o, fl_variant v, uint64_t target, spec *s, char *err,
                     size_t cap) {
    memset(s, 0, sizeof *s);
    s->v = v;
    s->target = target;
    fl_geometry g = {v, 0, 0};
    uint64_t n = 0;
    fl_params p;
    fl_status st;
    if (!o->use_bpk) {
        if (o->sizes_in_keys) {
            n = target;
            if ((st = fl_params_for(v, n, o->fpr, &p)) != FL_OK) {
                snprintf(err, cap, "fl_params_for: %s", fl_strerror(st));
                return -1;
            }
            g = p.geometry;
        } else {
            /* Size for the FPR at roughly the key count that fills `target` bytes, then fix
             * the geometry to exactly target bytes and fill it at the model's bits per key. */
            uint64_t n_est = target * 8 / 10 ? target * 8 / 10 : 1;
            for (int pass = 0; pass < 2; pass++) {
                if ((st = fl_params_for(v, n_est, o->fpr, &p)) != FL_OK) {
                    snprintf(err, cap, "fl_params_for: %s", fl_strerror(st));
                    return -1;
                }
                uint64_t ub = unit_bytes(v, p.geometry.k);
                if (!ub) {
                    snprintf(err, cap, "cannot size %s", fl_variant_name(v));
                    return -1;
                }
                g = p.geometry;
                g.units = target / ub ? target / ub : 1;
                n = (uint64_t)((double)(g.units * ub * 8) / p.bits_per_key);
                if (!n)
                    n = 1;
                n_est = n;
            }
        }
    } else {
        uint32_t k;
        if (choose_k(v, o->bits_per_key, &k, err, cap))
            return -1;
        uint64_t ub = unit_bytes(v, k);
        if (!ub) {
            snprintf(err, cap, "cannot size %s with k=%u", fl_variant_name(v), k);
            return -1;
        }
        g.k = k;
        if (o->sizes_in_keys) {
            n = target;
            g.units = (uint64_t)ceil((double)n * o->bits_per_key / 8.0 / (double)ub);
        } else {
            g.units = target / ub ? target / ub : 1;
            n = (uint64_t)((double)(g.units * ub * 8) / o->bits_per_key);
        }
        if (!n)
            n = 1;
    }
    if ((st = fl_params_for_geometry(&g, n, &p)) != FL_OK) {
        snprintf(err, cap, "fl_params_for_geometry: %s", fl_strerror(st));
        return -1;
    }
    s->g = g;
    s->n = n;
    s->bytes = (size_t)p.bytes;
    s->bpk = p.bits_per_key;
    s->fpr_pred = p.predicted_fpr;
    return 0;
}

static int create_filter(const fb_options *o, spec *s, char *err, size_t cap) {
    fl_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.variant = s->v;
    cfg.geometry = s->g;
    cfg.hash = FL_HASH_XXH3;
    cfg.seed = o->seed;
    cfg.flags = o->huge_pages ? 0 : FL_FLAG_NO_HUGE_PAGES;
    fl_status st = fl_create(&cfg, &s->f);
    if (st != FL_OK) {
        snprintf(err, cap, "fl_create: %s", fl_strerror(st));
        s->f = NULL;
        return -1;
    }
    fl_info info;
    if (fl_get_info(s->f, &info) == FL_OK)
        s->huge = info.huge_pages;
    return 0;
}

/* ----------------------------------------------------------------------------------------
 * Counters attached to a measurement
 * -------------------------------------------------------------------------------------- */
typedef struct meas {
    fb_stamp t0, t1;
    fb_perf_sample p0, p1;
    double wall, cpu, tsc;
    double ev[FB_MAX_EVENTS];
    double run_en, run_on;       /* summed for the running percentage */
} meas;

static void meas_reset(meas *m) {
    memset(m, 0, sizeof *m);
}

static inline void meas_begin(env *e, meas *m) {
    if (e->perf_on)
        fb_perf_read(&e->perf, &m->p0);
    fb_stamp_begin(&m->t0);
}

static inline void meas_end(env *e, meas *m) {
    fb_stamp_end(&m->t1);
    if (e->perf_on)
        fb_perf_read(&e->perf, &m->p1);
    m->wall += m->t1.wall_ns - m->t0.wall_ns;
    m->cpu += m->t1.cpu_ns - m->t0.cpu_ns;
    m->tsc += (double)(m->t1.tsc - m->t0.tsc);
    if (e->perf_on) {
        for (int i = 0; i < e->perf.n; i++)
            m->ev[i] += fb_perf_delta(&e->perf, &m->p0, &m->p1, i); /* NaN sticks */
        if (m->p0.ok && m->p1.ok) {
            m->run_en += (double)(m->p1.enabled - m->p0.enabled);
            m->run_on += (double)(m->p1.running - m->p0.running);
        }
    }
}

/* Writes one repetition of a measurement into r as per-item values. */
static void meas_record(env *e, fb_result *r, int rep, const meas *m, double items) {
    char key[96];
    r->real_ns[rep] = m->wall / items;
    r->cpu_ns[rep] = m->cpu / items;
    snprintf(key, sizeof key, "tsc_cycles_per_%s", r->item);
    fb_result_series(r, key)[rep] = FB_TSC_AVAILABLE ? m->tsc / items : NAN;
    int ic = -1, ii = -1;
    for (int i = 0; i < e->perf.n; i++) {
        snprintf(key, sizeof key, "%s_per_%s", e->perf.keys[i], r->item);
        fb_result_series(r, key)[rep] = e->perf_on ? m->ev[i] / items : NAN;
        if (!strcmp(e->perf.keys[i], "cycles"))
            ic = i;
        if (!strcmp(e->perf.keys[i], "instructions"))
            ii = i;
    }
    if (ic >= 0 && ii >= 0)
        fb_result_series(r, "ipc")[rep] = e->perf_on ? m->ev[ii] / m->ev[ic] : NAN;
    fb_result_series(r, "counters_running_pct")[rep] =
        e->perf_on && m->run_en > 0 ? 100.0 * m->run_on / m->run_en : NAN;
}

/* Marks repetitions whose wall time exceeds CPU time by >20%: the thread was descheduled
 * (another process, a hypervisor) and the wall-clock number is inflated. */
static void note_preemption(fb_result *r, int rep) {
    if (r->real_ns[rep] > 1.2 * r->cpu_ns[rep]) {
        const fb_field *f = fb_result_field(r, "preempted_reps");
        fb_result_int(r, "preempted_reps", (f ? f->i : 0) + 1);
    } else if (!fb_result_field(r, "preempted_reps")) {
        fb_result_int(r, "preempted_reps", 0);
    }
}

static int bound_index(const env *e, uint64_t bytes) {
    for (size_t j = 0; j < e->nbound; j++)
        if (e->bound_bytes[j] == bytes)
            return (int)j;
    return -1;
}

/* ----------------------------------------------------------------------------------------
 * Lookups
 * -------------------------------------------------------------------------------------- */
static size_t run_lookups(env *e, const fl_filter *f, const fb_keys_buf *k, size_t from,
                          size_t count, int *err) {
    size_t positives = 0, batch = e->o->batch, end = from + count;
    for (size_t off = from; off < end; off += batch) {
        size_t m = end - off < batch ? end - off : batch;
        const uint64_t *h;
        if (k->type == FB_KEYS_U64) {
            h = k->hashes + off;
        } else {
            for (size_t i = 0; i < m; i++)
                e->scratch[i] = fl_hash_bytes(f, k->arena + k->off[off + i], k->len[off + i]);
            h = e->scratch;
        }
        size_t p = 0;
        if (fl_contains_hashes(f, h, m, e->out, &p) != FL_OK)
            *err = 1;
        positives += p;
    }
    return positives;
}

static void lookup_rep(env *e, lcfg *c) {
    const fb_options *o = e->o;
    spec *s = c->s;
    int rep = c->reps_run - o->warmup; /* < 0: warm-up repetition */
    c->reps_run++;
    if (s->failed)
        return;
    fl_status st = fl_kernel_select(kname(e, c->ki));
    if (st != FL_OK) {
        fb_result_str(c->r, "error", fl_strerror(st));
        return;
    }
    size_t L = (size_t)o->lookups, W = L < WARM_MAX ? L : WARM_MAX;
    fb_keys_clear(&e->pool);
    fb_keys_fill_mix(&e->pool, W, c->hit, s->inserted, &c->miss_cursor, &c->rng, o->seed);
    uint64_t warm_hits = e->pool.hits;
    double warm_bytes = e->pool.key_bytes;
    fb_keys_fill_mix(&e->pool, L, c->hit, s->inserted, &c->miss_cursor, &c->rng, o->seed);
    uint64_t hits = e->pool.hits - warm_hits;
    int err = 0;
    run_lookups(e, s->f, &e->pool, 0, W, &err);
    meas m;
    meas_reset(&m);
    meas_begin(e, &m);
    size_t pos = run_lookups(e, s->f, &e->pool, W, L, &err);
    meas_end(e, &m);
    if (err) {
        fb_result_str(c->r, "error", "fl_contains_hashes failed");
        return;
    }
    if (pos < hits) {
        fb_result_int(c->r, "false_negatives_seen", (int64_t)(hits - pos));
        fb_warn(e->ctx, "%s: %zu positives for %llu inserted keys: false negatives", c->r->name,
                pos, (unsigned long long)hits);
    }
    if (rep < 0)
        return;
    meas_record(e, c->r, rep, &m, (double)L);
    note_preemption(c->r, rep);
    int b = bound_index(e, s->bytes);
    fb_result_series(c->r, "ratio_to_bound")[rep] = b >= 0 ? c->r->real_ns[rep] / e->bound_ns[b] : NAN;
    fb_result_series(c->r, "hits_fraction")[rep] = (double)hits / (double)L;
    fb_result_series(c->r, "positives_fraction")[rep] = (double)pos / (double)L;
    if (o->keys == FB_KEYS_URL)
        fb_result_num(c->r, "key_bytes_mean", (e->pool.key_bytes - warm_bytes) / (double)L);
    c->r->reps_done = rep + 1;
}

/* ----------------------------------------------------------------------------------------
 * Inserts: the build of a filter, timed per kernel.
 * -------------------------------------------------------------------------------------- */
static int build(env *e, spec *s, fb_result *r, int rep) {
    const fb_options *o = e->o;
    fl_clear(s->f); /* also faults the payload in before anything is timed */
    meas m;
    meas_reset(&m);
    uint64_t inserted = 0;
    int full = 0;
    for (uint64_t id = 0; id < s->n && !full; id += CHUNK) {
        size_t cnt = (size_t)(s->n - id < CHUNK ? s->n - id : CHUNK);
        fb_keys_clear(&e->chunk);
        for (size_t j = 0; j < cnt; j++)
            fb_keys_push(&e->chunk, id + j, o->seed);
        size_t ins = 0;
        meas_begin(e, &m);
        if (e->chunk.type == FB_KEYS_URL)
            for (size_t j = 0; j < cnt; j++)
                e->chunk.hashes[j] =
                    fl_hash_bytes(s->f, e->chunk.arena + e->chunk.off[j], e->chunk.len[j]);
        fl_status st = fl_insert_hashes(s->f, e->chunk.hashes, cnt, &ins);
        meas_end(e, &m);
        if (st == FL_ERR_FULL) {
            full = 1;
        } else if (st != FL_OK) {
            fprintf(stderr, "flbench: fl_insert_hashes: %s\n", fl_strerror(st));
            return -1;
        } else {
            ins = cnt;
        }
        inserted += ins;
    }
    s->inserted = inserted;
    if (full && rep == 0)
        fb_warn(e->ctx, "%s %s: cuckoo filter full after %llu of %llu keys", fl_variant_name(s->v),
                r ? r->name : "", (unsigned long long)inserted, (unsigned long long)s->n);
    if (r && inserted) {
        meas_record(e, r, rep, &m, (double)inserted);
        note_preemption(r, rep);
        r->reps_done = rep + 1;
    }
    return 0;
}

/* ----------------------------------------------------------------------------------------
 * FPR on never-inserted keys, and a false-negative check on inserted ones.
 * -------------------------------------------------------------------------------------- */
static void measure_fpr(env *e, spec *s) {
    const fb_options *o = e->o;
    uint64_t lo = o->quick ? (UINT64_C(1) << 18) : (UINT64_C(1) << 20);
    uint64_t hi = o->quick ? (UINT64_C(1) << 22) : (UINT64_C(1) << 24);
    uint64_t want = s->fpr_pred > 0 ? (uint64_t)ceil(1000.0 / s->fpr_pred) : hi;
    uint64_t q = want < lo ? lo : want > hi ? hi : want;
    uint64_t cursor = FB_ID_FPR, pos = 0;
    int err = 0;
    for (uint64_t done = 0; done < q; done += CHUNK) {
        size_t cnt = (size_t)(q - done < CHUNK ? q - done : CHUNK);
        fb_keys_clear(&e->chunk);
        for (size_t j = 0; j < cnt; j++)
            fb_keys_push(&e->chunk, cursor++, o->seed);
        pos += run_lookups(e, s->f, &e->chunk, 0, cnt, &err);
    }
    s->fpr_queries = q;
    s->fpr_measured = err ? NAN : (double)pos / (double)q;
    /* Every inserted key must be found. */
    fb_rng rng = {o->seed ^ 0x5eed};
    uint64_t sample = s->inserted < CHUNK ? s->inserted : CHUNK;
    fb_keys_clear(&e->chunk);
    for (uint64_t j = 0; j < sample; j++)
        fb_keys_push(&e->chunk, sample == s->inserted ? j : fb_rng_below(&rng, s->inserted),
                     o->seed);
    size_t found = run_lookups(e, s->f, &e->chunk, 0, (size_t)sample, &err);
    s->fn = sample - found;
    if (s->fn)
        fb_warn(e->ctx, "%s %zu bytes: %llu of %llu inserted keys not found (false negatives)",
                fl_variant_name(s->v), s->bytes, (unsigned long long)s->fn,
                (unsigned long long)sample);
}

/* ----------------------------------------------------------------------------------------
 * Result naming and static fields
 * -------------------------------------------------------------------------------------- */
static const char *keys_name(const fb_options *o) { return o->keys == FB_KEYS_URL ? "url" : "u64"; }

static void spec_fields(env *e, fb_result *r, const spec *s, size_t ki) {
    const fb_options *o = e->o;
    fb_result_str(r, "op", r->op == FB_OP_LOOKUP ? "lookup" : "insert");
    fb_result_str(r, "filter", fl_variant_name(s->v));
    fb_result_str(r, "kernel", kname(e, ki));
    fb_result_str(r, "keys_type", keys_name(o));
    fb_result_int(r, o->sizes_in_keys ? "target_keys" : "target_bytes", (int64_t)s->target);
    fb_result_int(r, "filter_bytes", (int64_t)s->bytes);
    fb_result_int(r, "geometry_units", (int64_t)s->g.units);
    fb_result_int(r, "k", s->g.k);
    fb_result_int(r, "keys_inserted", (int64_t)s->inserted);
    fb_result_num(r, "bits_per_key", s->inserted ? (double)s->bytes * 8.0 / (double)s->inserted : NAN);
    fb_result_num(r, "fpr_predicted", s->inserted ? fl_predict_fpr(&s->g, s->inserted) : NAN);
    fb_result_num(r, "fpr_measured", s->fpr_measured);
    fb_result_int(r, "fpr_queries", (int64_t)s->fpr_queries);
    fb_result_int(r, "false_negatives", (int64_t)s->fn);
    fb_result_int(r, "huge_pages", s->huge);
    fb_result_int(r, "batch_keys", (int64_t)o->batch);
}

static fb_result *new_insert_result(env *e, spec *s, size_t ki) {
    const fb_options *o = e->o;
    char name[224];
    snprintf(name, sizeof name, "insert/%s/%s/%s:%llu/keys:%s", fl_variant_name(s->v),
             kname(e, ki), o->sizes_in_keys ? "nkeys" : "bytes", (unsigned long long)s->target,
             keys_name(o));
    uint64_t reps = o->insert_budget / (s->n ? s->n : 1);
    if (reps < 1)
        reps = 1;
    if (reps > (uint64_t)o->reps)
        reps = (uint64_t)o->reps;
    return fb_result_add(e->rs, FB_OP_INSERT, name, (int)reps, s->n);
}

static fb_result *new_lookup_result(env *e, spec *s, size_t ki, double hit) {
    const fb_options *o = e->o;
    char name[224];
    snprintf(name, sizeof name, "lookup/%s/%s/%s:%llu/hit:%g/keys:%s", fl_variant_name(s->v),
             kname(e, ki), o->sizes_in_keys ? "nkeys" : "bytes", (unsigned long long)s->target,
             hit, keys_name(o));
    fb_result *r = fb_result_add(e->rs, FB_OP_LOOKUP, name, o->reps, o->lookups);
    fb_result_num(r, "hit_rate", hit);
    return r;
}

static void print_done(env *e) {
    for (size_t i = 0; i < e->rs->n; i++) {
        fb_result *r = e->rs->v[i];
        if (!r->printed && r->reps_done == r->reps) {
            fb_console_row(e->o->console, r);
            r->printed = 1;
        }
    }
    fflush(e->o->console);
}

/* ----------------------------------------------------------------------------------------
 * The memory probe
 * -------------------------------------------------------------------------------------- */
static void probe_footprint(env *e, uint64_t bytes) {
    const fb_options *o = e->o;
    fb_probe_buf b;
    if (fb_probe_alloc(&b, bytes, o->huge_pages) != 0) {
        fb_warn(e->ctx, "probe: cannot map %llu bytes", (unsigned long long)bytes);
        return;
    }
    fb_rng rng = {o->seed ^ bytes};
    fb_probe_chain(&b, &rng);
    uint64_t loads = o->lookups;
    char name[128];
    snprintf(name, sizeof name, "probe/latency/bytes:%llu", (unsigned long long)bytes);
    fb_result *lat = fb_result_add(e->rs, FB_OP_PROBE_LATENCY, name, o->reps, loads);
    snprintf(name, sizeof name, "probe/random_line/bytes:%llu", (unsigned long long)bytes);
    fb_result *lines = fb_result_add(e->rs, FB_OP_PROBE_LINES, name, o->reps, loads);
    fb_result *both[2] = {lat, lines};
    for (int i = 0; i < 2; i++) {
        fb_result_str(both[i], "op", i ? "probe_random_line" : "probe_latency");
        fb_result_int(both[i], "footprint_bytes", (int64_t)b.bytes);
        fb_result_int(both[i], "huge_pages", b.huge);
        if (i)
            fb_result_int(both[i], "prefetch_distance_lines", o->probe_distance);
    }
    volatile uint64_t sink = 0;
    sink += fb_probe_chase(&b, loads < b.bytes / 64 ? b.bytes / 64 : loads); /* warm */
    for (int rep = 0; rep < o->reps; rep++) {
        meas m;
        meas_reset(&m);
        meas_begin(e, &m);
        sink += fb_probe_chase(&b, loads);
        meas_end(e, &m);
        meas_record(e, lat, rep, &m, (double)loads);
        note_preemption(lat, rep);
        lat->reps_done = rep + 1;
    }
    uint64_t nidx = loads + (uint64_t)o->probe_distance + 16;
    uint32_t *idx = malloc(nidx * sizeof *idx);
    if (idx) {
        for (int rep = -1; rep < o->reps; rep++) {
            for (uint64_t i = 0; i < nidx; i++)
                idx[i] = (uint32_t)fb_rng_next(&rng);
            meas m;
            meas_reset(&m);
            meas_begin(e, &m);
            sink += fb_probe_lines(&b, idx, loads, o->probe_distance);
            meas_end(e, &m);
            if (rep >= 0) {
                meas_record(e, lines, rep, &m, (double)loads);
                note_preemption(lines, rep);
                lines->reps_done = rep + 1;
            }
        }
        free(idx);
    }
    (void)sink;
    fb_probe_free(&b);
    if (e->nbound < sizeof e->bound_bytes / sizeof e->bound_bytes[0]) {
        e->bound_bytes[e->nbound] = bytes;
        /* A bound is a best case: the fastest repetition. */
        e->bound_ns[e->nbound] = fb_stats_of(lines->real_ns, (size_t)lines->reps).min;
        e->latency_ns[e->nbound] = fb_stats_of(lat->real_ns, (size_t)lat->reps).min;
        e->nbound++;
    }
    print_done(e);
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Every lookup result carries its ratio to the random-line bound at its footprint. */
static void attach_bounds(env *e) {
    for (size_t i = 0; i < e->rs->n; i++) {
        fb_result *r = e->rs->v[i];
        if (r->op != FB_OP_LOOKUP)
            continue;
        const fb_field *fb = fb_result_field(r, "filter_bytes");
        double bound = NAN, lat = NAN;
        for (size_t j = 0; fb && j < e->nbound; j++)
            if ((int64_t)e->bound_bytes[j] == fb->i) {
                bound = e->bound_ns[j];
                lat = e->latency_ns[j];
            }
        fb_result_num(r, "bound_ns_per_line", bound);
        fb_result_num(r, "latency_ns_per_load", lat);
        double *ratio = fb_result_series(r, "ratio_to_bound"); /* NaN when no probe ran */
        for (int k = 0; k < r->reps; k++)
            ratio[k] = r->real_ns[k] / bound;
    }
}

/* ----------------------------------------------------------------------------------------
 * Callgrind re-runs
 * -------------------------------------------------------------------------------------- */
static void callgrind_config(env *e, const fb_cg_geometry *geo, lcfg *c) {
    const fb_options *o = e->o;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        snprintf(exe, sizeof exe, "%s", o->argv[0]);
    else
        exe[n] = 0;
    char size[32], val[64], hit[64], batch[32], seed[32], lk[32];
    snprintf(size, sizeof size, "%llu", (unsigned long long)c->s->target);
    snprintf(val, sizeof val, "%.17g", o->use_bpk ? o->bits_per_key : o->fpr);
    snprintf(hit, sizeof hit, "%.17g", c->hit);
    snprintf(batch, sizeof batch, "%zu", o->batch);
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)o->seed);
    snprintf(lk, sizeof lk, "%llu", (unsigned long long)o->cg_lookups);
    char *args[] = {exe,
                    "--cg-child",
                    "--filter",
                    (char *)fl_variant_name(c->s->v),
                    "--kernel",
                    (char *)kname(e, c->ki),
                    "--sizes",
                    size,
                    "--sizes-in",
                    o->sizes_in_keys ? "keys" : "bytes",
                    o->use_bpk ? "--bits-per-key" : "--fpr",
                    val,
                    "--hit-rate",
                    hit,
                    "--batch",
                    batch,
                    "--keys",
                    (char *)keys_name(o),
                    "--huge-pages",
                    o->huge_pages ? "on" : "off",
                    "--seed",
                    seed,
                    "--lookups",
                    lk,
                    NULL};
    fb_cg_result cg;
    fb_cg_run(geo, args, &cg);
    fb_result *r = c->r;
    double L = cg.ok && cg.lookups ? (double)cg.lookups : NAN;
    fb_result_num(r, "sim_instructions_per_lookup", cg.ir / L);
    fb_result_num(r, "sim_data_reads_per_lookup", cg.dr / L);
    fb_result_num(r, "sim_d1_read_misses_per_lookup", cg.d1mr / L);
    fb_result_num(r, "sim_ll_read_misses_per_lookup", cg.dlmr / L);
    fb_result_num(r, "sim_d1_misses_per_lookup", (cg.d1mr + cg.d1mw) / L);
    fb_result_num(r, "sim_ll_misses_per_lookup", (cg.dlmr + cg.dlmw) / L);
    fb_result_int(r, "sim_lookups", (int64_t)cg.lookups);
    fb_result_str(r, "sim_kernel", cg.kernel[0] ? cg.kernel : NULL);
    if (!cg.ok) {
        fb_result_str(r, "sim_note", cg.note);
        fb_warn(e->ctx, "callgrind: %s: %s", r->name, cg.note);
    }
}

/* ----------------------------------------------------------------------------------------
 * The sweep
 * -------------------------------------------------------------------------------------- */
static void shuffle(lcfg **v, size_t n, fb_rng *rng) {
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)fb_rng_below(rng, i);
        lcfg *t = v[i - 1];
        v[i - 1] = v[j];
        v[j] = t;
    }
}

/* Builds a filter with every kernel (timing inserts), measures its FPR, fills the fields. */
static int prepare_spec(env *e, spec *s, lcfg *cfgs, size_t *ncfg) {
    const fb_options *o = e->o;
    char err[256], hb[32];
    fprintf(stderr, "flbench: %s %s (%llu keys, k=%u): building\n", fl_variant_name(s->v),
            fb_fmt_bytes(s->bytes, hb, sizeof hb), (unsigned long long)s->n, s->g.k);
    if (create_filter(o, s, err, sizeof err)) {
        fb_warn(e->ctx, "%s %zu bytes: %s; skipped", fl_variant_name(s->v), s->bytes, err);
        s->failed = 1;
        return -1;
    }
    fb_result *ins[FB_MAX_KERNELS];
    for (size_t ki = 0; ki < o->nkernels; ki++)
        ins[ki] = new_insert_result(e, s, ki);
    for (size_t ki = 0; ki < o->nkernels; ki++) {
        if (fl_kernel_select(kname(e, ki)) != FL_OK)
            continue;
        for (int rep = 0; rep < ins[ki]->reps; rep++)
            if (build(e, s, ins[ki], rep)) {
                s->failed = 1;
                return -1;
            }
    }
    fl_kernel_select(kname(e, 0));
    measure_fpr(e, s);
    for (size_t ki = 0; ki < o->nkernels; ki++)
        spec_fields(e, ins[ki], s, ki);
    for (size_t ki = 0; ki < o->nkernels; ki++)
        for (size_t hi = 0; hi < o->nhits; hi++) {
            lcfg *c = &cfgs[(*ncfg)++];
            memset(c, 0, sizeof *c);
            c->s = s;
            c->ki = ki;
            c->hit = o->hits[hi];
            c->r = new_lookup_result(e, s, ki, c->hit);
            c->rng.s = o->seed ^ fb_mix64(s->bytes * 131 + ki * 17 + hi);
            c->miss_cursor = FB_ID_MISS;
            spec_fields(e, c->r, s, ki);
        }
    print_done(e);
    return 0;
}

static void run_configs(env *e, lcfg **v, size_t n, fb_rng *rng) {
    const fb_options *o = e->o;
    int total = o->warmup + o->reps;
    if (o->interleave) {
        /* Every round runs one repetition of each configuration in a fresh random order. */
        for (int round = 0; round < total; round++) {
            shuffle(v, n, rng);
            for (size_t i = 0; i < n; i++)
                lookup_rep(e, v[i]);
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            for (int round = 0; round < total; round++)
                lookup_rep(e, v[i]);
            print_done(e);
        }
    }
}

int fb_run(const fb_options *o, const fb_machine *m, json_t *ctx, fb_results *rs) {
    env e;
    memset(&e, 0, sizeof e);
    e.o = o;
    e.m = m;
    e.ctx = ctx;
    e.rs = rs;

    /* Counters */
    const char *backend = "none";
    e.hw_reason = "-";
    if (o->counters == FB_CNT_AUTO || o->counters == FB_CNT_PERF) {
        fb_perf_open(&e.perf, o->events);
        e.perf_on = e.perf.opened > 0;
        if (e.perf_on)
            backend = "perf"; /* the group opened (hardware, or software events only) */
        if (e.perf.note[0]) {
            fb_warn(ctx, "%s", e.perf.note);
        }
        if (!e.perf.pmu_available)
            e.hw_reason = "<not supported>";
        json_object_set_new(ctx, "counter_note", json_string(e.perf.note));
    } else {
        /* Keep the key set so every result lists the counters, as null. */
        fb_perf_open(&e.perf, NULL);
        fb_perf_close(&e.perf);
        e.perf_on = 0;
        e.perf.pmu_available = 0;
        backend = o->counters == FB_CNT_CALLGRIND ? "callgrind" : "none";
        json_object_set_new(ctx, "counter_note",
                            json_string(o->counters == FB_CNT_CALLGRIND
                                            ? "hardware counters not read: --counters callgrind "
                                              "reports simulated misses instead"
                                            : "hardware counters disabled (--counters none)"));
    }
    json_object_set_new(ctx, "pmu_available", json_boolean(e.perf.pmu_available));
    json_object_set_new(ctx, "counter_backend", json_string(backend));
    json_t *ev = json_array();
    for (int i = 0; i < e.perf.n; i++) {
        json_t *x = json_object();
        json_object_set_new(x, "name", json_string(e.perf.names[i]));
        json_object_set_new(x, "key", json_string(e.perf.keys[i]));
        json_object_set_new(x, "counted", json_boolean(e.perf_on && e.perf.fd[i] >= 0));
        json_array_append_new(ev, x);
    }
    json_object_set_new(ctx, "events", ev);
    json_object_set_new(ctx, "console_missing_counter", json_string(e.hw_reason));

    fb_cg_geometry geo;
    memset(&geo, 0, sizeof geo);
    if (o->counters == FB_CNT_CALLGRIND) {
        char ver[128];
        if (fb_cg_valgrind_version(ver, sizeof ver) != 0) {
            fprintf(stderr, "flbench: --counters callgrind needs valgrind on PATH\n");
            return 2;
        }
        fb_cg_geometry_init(&geo, o->cg_d1, o->cg_ll);
        json_t *cg = json_object();
        json_object_set_new(cg, "valgrind", json_string(ver));
        json_object_set_new(cg, "D1", json_string(geo.d1));
        json_object_set_new(cg, "LL", json_string(geo.ll));
        json_object_set_new(cg, "geometry_source", json_string(geo.source));
        json_object_set_new(cg, "geometry_note", json_string(geo.note));
        json_object_set_new(cg, "lookups", json_integer((json_int_t)o->cg_lookups));
        json_object_set_new(cg, "label", json_string("simulated (callgrind --cache-sim=yes), warm "
                                                     "caches, collection toggled around the "
                                                     "lookup loop only"));
        json_object_set_new(ctx, "callgrind", cg);
    }
    fb_console_header(o->console, ctx);

    /* Plan the filters. */
    size_t nspec = o->nvariants * o->nsizes;
    spec *specs = calloc(nspec ? nspec : 1, sizeof *specs);
    size_t ns = 0;
    uint64_t budget = m->mem_available ? m->mem_available / 10 * 6 : UINT64_MAX;
    size_t pool_keys = (size_t)o->lookups + WARM_MAX;
    uint64_t pool_bytes = pool_keys * (o->keys == FB_KEYS_URL ? 8 + 8 + 4 + 96 : 8);
    budget = budget > pool_bytes ? budget - pool_bytes : 0;
    uint64_t total_bytes = 0;
    char err[256], hb[32];
    for (size_t vi = 0; vi < o->nvariants; vi++)
        for (size_t si = 0; si < o->nsizes; si++) {
            spec *s = &specs[ns];
            if (size_spec(o, o->variants[vi], o->sizes[si], s, err, sizeof err)) {
                fb_warn(ctx, "%s size %llu: %s; skipped", fl_variant_name(o->variants[vi]),
                        (unsigned long long)o->sizes[si], err);
                continue;
            }
            if (s->bytes > budget) {
                fb_warn(ctx, "%s %s: larger than 60%% of available memory; skipped",
                        fl_variant_name(s->v), fb_fmt_bytes(s->bytes, hb, sizeof hb));
                continue;
            }
            total_bytes += s->bytes;
            ns++;
        }

    /* Buffers */
    if (fb_keys_alloc(&e.pool, o->keys, pool_keys) || fb_keys_alloc(&e.chunk, o->keys, CHUNK)) {
        fprintf(stderr, "flbench: out of memory for key buffers\n");
        return 1;
    }
    e.out = malloc(o->batch > CHUNK ? o->batch : CHUNK);
    e.scratch = malloc((o->batch > CHUNK ? o->batch : CHUNK) * sizeof *e.scratch);
    if (!e.out || !e.scratch) {
        fprintf(stderr, "flbench: out of memory\n");
        return 1;
    }

    /* The physical bound first, while memory is free. */
    if (o->probe_memory && ns) {
        uint64_t fps[512];
        size_t nfp = 0;
        for (size_t i = 0; i < ns && nfp < 256; i++) {
            int seen = 0;
            for (size_t j = 0; j < nfp; j++)
                seen |= fps[j] == specs[i].bytes;
            if (!seen)
                fps[nfp++] = specs[i].bytes;
        }
        qsort(fps, nfp, sizeof fps[0], cmp_u64);
        fb_console_table_start(o->console);
        for (size_t i = 0; i < nfp; i++) {
            fprintf(stderr, "flbench: probe %s\n", fb_fmt_bytes(fps[i], hb, sizeof hb));
            probe_footprint(&e, fps[i]);
        }
    }

    lcfg *cfgs = calloc(ns * o->nkernels * o->nhits + 1, sizeof *cfgs);
    lcfg **order = calloc(ns * o->nkernels * o->nhits + 1, sizeof *order);
    size_t ncfg = 0;
    fb_rng rng = {o->seed ^ UINT64_C(0x9b1e7e1eaf)};
    int all_resident = o->interleave && total_bytes <= budget;
    if (o->interleave && !all_resident)
        fb_warn(ctx, "--interleave: the filters (%s) do not fit in memory together; "
                     "configurations are interleaved within each filter instead",
                fb_fmt_bytes(total_bytes, hb, sizeof hb));
    json_object_set_new(ctx, "interleave_scope",
                        json_string(!o->interleave ? "none" : all_resident ? "sweep" : "filter"));
    fb_console_table_start(o->console);
    if (all_resident) {
        for (size_t i = 0; i < ns; i++)
            prepare_spec(&e, &specs[i], cfgs, &ncfg);
        for (size_t i = 0; i < ncfg; i++)
            order[i] = &cfgs[i];
        fprintf(stderr, "flbench: %zu lookup configurations, interleaved\n", ncfg);
        run_configs(&e, order, ncfg, &rng);
    } else {
        for (size_t i = 0; i < ns; i++) {
            size_t first = ncfg;
            if (prepare_spec(&e, &specs[i], cfgs, &ncfg) == 0) {
                for (size_t j = first; j < ncfg; j++)
                    order[j - first] = &cfgs[j];
                run_configs(&e, order, ncfg - first, &rng);
            }
            fl_free(specs[i].f);
            specs[i].f = NULL;
        }
    }
    for (size_t i = 0; i < ns; i++) {
        fl_free(specs[i].f);
        specs[i].f = NULL;
    }
    attach_bounds(&e);
    print_done(&e);

    if (o->counters == FB_CNT_CALLGRIND) {
        fprintf(stderr, "flbench: callgrind: re-running %zu configurations under valgrind\n",
                ncfg);
        for (size_t i = 0; i < ncfg; i++)
            callgrind_config(&e, &geo, &cfgs[i]);
        fb_console_table_start(o->console);
        for (size_t i = 0; i < ncfg; i++)
            fb_console_row(o->console, cfgs[i].r); /* again, now with the simulated columns */
    }

    fb_perf_close(&e.perf);
    fb_keys_free(&e.pool);
    fb_keys_free(&e.chunk);
    free(e.out);
    free(e.scratch);
    free(cfgs);
    free(order);
    free(specs);
    return 0;
}

/* ----------------------------------------------------------------------------------------
 * The callgrind child: one configuration, client requests around the lookup loop only.
 * -------------------------------------------------------------------------------------- */
int fb_cg_child_main(const fb_options *o) {
    env e;
    memset(&e, 0, sizeof e);
    e.o = o;
    const char *kn = o->nkernels ? o->kernels[0] : fl_kernel_active();
    spec s;
    char err[256];
    if (o->nvariants != 1 || o->nsizes != 1 || o->nhits != 1) {
        printf("FLBENCH-CG status=error lookups=0 kernel=%s why=one configuration expected\n", kn);
        return 0;
    }
    if (size_spec(o, o->variants[0], o->sizes[0], &s, err, sizeof err) ||
        create_filter(o, &s, err, sizeof err)) {
        printf("FLBENCH-CG status=error lookups=0 kernel=%s why=%s\n", kn, err);
        return 0;
    }
    fl_status st = fl_kernel_select(kn);
    if (st != FL_OK) {
        printf("FLBENCH-CG status=unavailable lookups=0 kernel=%s why=kernel %s cannot run under "
               "valgrind's synthetic CPU (%s)\n",
               kn, kn, fl_strerror(st));
        return 0;
    }
    size_t L = (size_t)o->lookups, W = L < WARM_MAX ? L : WARM_MAX;
    if (fb_keys_alloc(&e.pool, o->keys, L + W) || fb_keys_alloc(&e.chunk, o->keys, CHUNK))
        return 1;
    e.out = malloc(CHUNK > o->batch ? CHUNK : o->batch);
    e.scratch = malloc((CHUNK > o->batch ? CHUNK : o->batch) * sizeof *e.scratch);
    if (!e.out || !e.scratch)
        return 1;
    if (build(&e, &s, NULL, 0))
        return 1;
    fb_rng rng = {o->seed ^ 0xc611};
    uint64_t cursor = FB_ID_MISS;
    fb_keys_fill_mix(&e.pool, W + L, o->hits[0], s.inserted, &cursor, &rng, o->seed);
    int bad = 0;
    fb_cg_start_instrumentation(); /* once: the warm-up below fills the simulated caches */
    run_lookups(&e, s.f, &e.pool, 0, W, &bad);
    fb_cg_toggle_collect();
    run_lookups(&e, s.f, &e.pool, W, L, &bad);
    fb_cg_toggle_collect();
    printf("FLBENCH-CG status=%s lookups=%zu kernel=%s\n", bad ? "error" : "ok", L,
           fl_kernel_active());
    fflush(stdout);
    fl_free(s.f);
    fb_keys_free(&e.pool);
    fb_keys_free(&e.chunk);
    free(e.out);
    free(e.scratch);
    return 0;
}
