/*
 * The measurement loops of the deletable fingerprint filters' suites (family_keyed.h says
 * what each operation times).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family_keyed.h"
#include "fb_rng.h"

#define FPR_PROBES ((size_t)1 << 20)
#define WARM 4096 /* lookups before each timed pass: caches, branch history */

typedef struct run {
    fb_env *e;
    const fb_keyed_ops *ops;
    void **obj;
    uint64_t n;
    const char *size;
    double fpr_measured;
    uint64_t *pool;
    uint8_t *out;
} run;

/* <op>/<structure>/<kernel>/<size>[/<params>]/keys:u64 (kernel: a table's name, "inline" or
 * "any", as family_static.c names its own). */
static fb_result *result(run *s, const char *op, const char *kernel, const char *params,
                         uint64_t items) {
    char name[224];
    snprintf(name, sizeof name, "%s/%s/%s/%s%s%s/keys:u64", op, s->ops->name, kernel, s->size,
             params ? "/" : "", params ? params : "");
    fb_result *r = fb_result_add(s->e->rs, FB_OP_FAMILY, name, s->e->o->reps, items);
    r->item = "key";
    fb_result_str(r, "op", op);
    fb_result_str(r, "structure", s->ops->name);
    fb_result_str(r, "kernel", kernel);
    fb_result_str(r, "keys_type", "u64");
    fb_result_int(r, "batch_keys", (int64_t)s->e->o->batch);
    return r;
}

static void fields(fb_result *r, const run *s) {
    size_t bytes = s->ops->bytes(*s->obj);
    fb_result_int(r, "structure_bytes", (int64_t)bytes);
    fb_result_int(r, "target_keys", (int64_t)s->n);
    fb_result_num(r, "bits_per_key", (double)bytes * 8.0 / (double)s->n);
    fb_result_num(r, "fpr_expected", s->ops->fpr_expected(*s->obj));
    fb_result_num(r, "fpr_measured", s->fpr_measured);
    fb_result_int(r, "fpr_queries", (int64_t)FPR_PROBES);
    s->ops->fields(r, *s->obj);
}

/* keys[0..n) inserted (insert = 1) or deleted through the batch call (one = 0) or one call
 * per key; FL_OK or the first refusal. */
static fl_status update_keys(const run *s, const uint64_t *keys, size_t n, int insert, int one) {
    void *obj = *s->obj;
    if (!one) return insert ? s->ops->insert_u64s(obj, keys, n) : s->ops->delete_u64s(obj, keys, n);
    fl_status st = FL_OK;
    for (size_t i = 0; i < n && st == FL_OK; i++)
        st = insert ? s->ops->insert_u64(obj, keys[i]) : s->ops->delete_u64(obj, keys[i]);
    return st;
}

/* The n keys of ids [0, n) in chunks of the pool's size, a chunk a call (one = 0) or a key a
 * call; FL_OK or the first refusal. Only the calls are timed (into m): each chunk's keys are
 * derived before its time starts, as the lookups' keys are and as fastfilter_cpp's add loop
 * takes a vector of keys made before its timer. */
static fl_status insert_all(run *s, fb_meas *m, uint64_t *buf, size_t cap, int one) {
    for (uint64_t i = 0; i < s->n; i += cap) {
        size_t k = s->n - i < cap ? (size_t)(s->n - i) : cap;
        for (size_t j = 0; j < k; j++) buf[j] = fb_key_u64(i + j, s->e->o->seed);
        fb_meas_begin(s->e, m);
        fl_status st = update_keys(s, buf, k, 1, one);
        fb_meas_end(s->e, m);
        if (st != FL_OK) return st;
    }
    return FL_OK;
}

static void timed_inserts(run *s, fb_result *r, size_t cap, int one) {
    const fb_options *o = s->e->o;
    for (int rep = -o->warmup; rep < o->reps; rep++) {
        fl_status st = s->ops->reset(s->obj, s->n, o->seed);
        fb_meas m;
        fb_meas_reset(&m);
        if (st == FL_OK) st = insert_all(s, &m, s->pool, cap, one);
        if (st != FL_OK) {
            fb_result_str(r, "error", fl_strerror(st));
            return;
        }
        fb_fam_record(s->e, r, rep, &m, (double)s->n);
    }
}

/* pool[0..n): a stored key with probability hit, else a never-stored one; the hits. */
static uint64_t fill_pool(uint64_t *pool, size_t n, double hit, uint64_t stored, fb_rng *rng,
                          uint64_t *miss, uint64_t seed) {
    uint64_t hits = 0;
    for (size_t i = 0; i < n; i++) {
        int h = fb_rng_unit(rng) < hit;
        hits += (uint64_t)h;
        pool[i] = fb_key_u64(h ? fb_rng_below(rng, stored) : FB_ID_MISS + (*miss)++, seed);
    }
    return hits;
}

static size_t probe(const run *s, const uint64_t *keys, size_t n, int inl) {
    if (inl) return s->ops->inline_lookups(*s->obj, keys, n);
    size_t pos = 0, batch = s->e->o->batch;
    for (size_t off = 0; off < n; off += batch)
        pos += s->ops->contains_u64s(*s->obj, keys + off, n - off < batch ? n - off : batch,
                                     s->out + off);
    return pos;
}

static void lookup_rep(run *s, fb_result *r, int rep, double hit, int inl, fb_rng *rng,
                       uint64_t *miss) {
    const fb_options *o = s->e->o;
    size_t L = (size_t)o->lookups;
    fill_pool(s->pool, WARM, hit, s->n, rng, miss, o->seed);
    uint64_t hits = fill_pool(s->pool + WARM, L, hit, s->n, rng, miss, o->seed);
    probe(s, s->pool, WARM, inl);
    fb_meas m;
    fb_meas_reset(&m);
    fb_meas_begin(s->e, &m);
    size_t pos = probe(s, s->pool + WARM, L, inl);
    fb_meas_end(s->e, &m);
    if (pos < hits) {
        fb_result_int(r, "false_negatives_seen", (int64_t)(hits - pos));
        fb_warn(s->e->ctx, "%s: %zu positives for %llu stored keys: false negatives", r->name,
                pos, (unsigned long long)hits);
    }
    if (rep < 0) return;
    fb_fam_record(s->e, r, rep, &m, (double)L);
    fb_result_series(r, "positives_fraction")[rep] = (double)pos / (double)L;
}

static void timed_deletes(run *s, fb_result *r, fb_rng *rng, int one) {
    const fb_options *o = s->e->o;
    size_t L = (size_t)(o->lookups < s->n ? o->lookups : s->n);
    uint64_t *keys = s->pool;
    for (int rep = -o->warmup; rep < o->reps; rep++) {
        /* distinct stored ids: a stride through [0, n) from a random start */
        uint64_t start = fb_rng_below(rng, s->n), step = s->n / L ? s->n / L : 1;
        for (size_t i = 0; i < L; i++) keys[i] = fb_key_u64((start + i * step) % s->n, o->seed);
        fb_meas m;
        fb_meas_reset(&m);
        fb_meas_begin(s->e, &m);
        fl_status st = FL_OK;
        for (size_t off = 0; off < L && st == FL_OK; off += o->batch)
            st = update_keys(s, keys + off, L - off < o->batch ? L - off : o->batch, 0, one);
        fb_meas_end(s->e, &m);
        if (st == FL_OK) st = s->ops->insert_u64s(*s->obj, keys, L);
        if (st != FL_OK) {
            fb_result_str(r, "error", fl_strerror(st));
            return;
        }
        fb_fam_record(s->e, r, rep, &m, (double)L);
    }
}

void fb_keyed_run_size(fb_env *e, const fb_keyed_ops *ops, void **obj, uint64_t n,
                       const char *size) {
    const fb_options *o = e->o;
    size_t nk = o->nkernels, nh = o->nhits, L = (size_t)o->lookups;
    run s = {e, ops, obj, n, size, 0, malloc((L + WARM) * sizeof(uint64_t)), malloc(L + WARM)};
    if (!s.pool || !s.out) {
        fb_warn(e->ctx, "%s: out of memory for %zu keys; size skipped", ops->name, L);
        free(s.pool);
        free(s.out);
        return;
    }
    char hb[32];
    fb_status("%s %llu keys (%s)", ops->name, (unsigned long long)n,
              fb_fmt_bytes(ops->bytes(*obj), hb, sizeof hb));
    /* one key a call first, so the batch run's structure is the one measured below */
    fb_result *ins1 = result(&s, "insert_one", "any", NULL, n);
    timed_inserts(&s, ins1, L + WARM, 1);
    fb_result *ins = result(&s, "insert", "any", NULL, n);
    timed_inserts(&s, ins, L + WARM, 0);
    /* FPR after the n inserts (the last repetition's structure) */
    uint64_t fp = 0;
    for (size_t i = 0; i < FPR_PROBES; i++)
        fp += (uint64_t)ops->contains_u64(*obj, fb_key_u64(FB_ID_FPR + i, o->seed));
    s.fpr_measured = (double)fp / (double)FPR_PROBES;
    fields(ins1, &s);
    fields(ins, &s);
    fb_result_str(ins1, "kernel_used", "any");
    fb_result_str(ins, "kernel_used", "any");

    fb_result *lr[FB_MAX_KERNELS + 1][FB_MAX_HITS];
    int ok[FB_MAX_KERNELS + 1];
    for (size_t ki = 0; ki <= nk; ki++) {
        ok[ki] = ki == nk || ops->bind(*obj, fb_kname(e, ki)) == FL_OK;
        for (size_t hi = 0; hi < nh; hi++) {
            char params[32];
            snprintf(params, sizeof params, "hit:%g", o->hits[hi]);
            fb_result *r = lr[ki][hi] =
                result(&s, ki < nk ? "lookup" : "lookup_inline", ki < nk ? fb_kname(e, ki) : "inline",
                       params, L);
            fb_result_num(r, "hit_rate", o->hits[hi]);
            fields(r, &s);
            fb_result_str(r, "kernel_used", ki == nk ? "inline" : ok[ki] ? ops->kernel(*obj) : "?");
            if (!ok[ki]) fb_result_str(r, "error", "kernel cannot be bound");
        }
    }
    /* every (kernel, hit rate) and the in-line loop in turn per repetition */
    fb_rng rng = {o->seed ^ UINT64_C(0x7e9f)};
    uint64_t miss = 0;
    for (int rep = -o->warmup; rep < o->reps; rep++)
        for (size_t ki = 0; ki <= nk; ki++) {
            if (!ok[ki]) continue;
            if (ki < nk) ops->bind(*obj, fb_kname(e, ki));
            for (size_t hi = 0; hi < nh; hi++)
                lookup_rep(&s, lr[ki][hi], rep, o->hits[hi], ki == nk, &rng, &miss);
        }
    ops->bind(*obj, "auto");
    for (int one = 0; one <= 1; one++) {
        fb_result *del = result(&s, one ? "delete_one" : "delete", "any", NULL, L < n ? L : n);
        fb_result_str(del, "kernel_used", "any");
        fields(del, &s);
        timed_deletes(&s, del, &rng, one);
    }
    fb_report_done(e);
    free(s.pool);
    free(s.out);
}

size_t fb_keyed_planned(const fb_options *o, uint64_t (*size_keys)(const fb_options *o,
                                                                   uint64_t target)) {
    size_t n = 0;
    for (size_t si = 0; si < o->nsizes; si++)
        if (size_keys(o, o->sizes[si])) n += 4 + (o->nkernels + 1) * o->nhits;
    return n;
}
