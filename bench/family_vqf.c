/*
 * Vector quotient filter suite (include/filterlab_vqf.h): per size, a filter sized for n keys
 * (fl_vqf_create) takes the keys fb_key_u64 of ids [0, n), then:
 *
 *   insert         ns/key of the n inserts (fl_vqf_insert_u64s: hashing included), each
 *                  repetition into a cleared filter; kernel "any" (the filter's own choice
 *                  of the vqf.insert kernel)
 *   insert_one     the same inserts one key a call (fl_vqf_insert_u64), as a caller's loop
 *                  of single inserts runs them (fastfilter_cpp's add column is one)
 *   lookup         batch lookups (fl_vqf_contains_u64s, --batch keys a call) per kernel and
 *                  --hit-rate: --lookups keys, the hits drawn from the stored ids, the misses
 *                  never-stored ids
 *   lookup_inline  the same pools one key at a time through the header's in-line lookup
 *                  (fl_vqf_lookup_u64, compiled with flbench's flags); kernel "inline"
 *   delete         ns/key of deleting --lookups stored keys (fl_vqf_delete_u64s, --batch
 *                  keys a call), put back untimed after each repetition; kernel "any"
 *   delete_one     the same deletes one key a call (fl_vqf_delete_u64)
 *
 * --sizes are key counts with --sizes-in keys, else bytes (the keys a filter of that many
 * bytes is sized for). Every result carries structure_bytes, bits_per_key (bytes * 8 / n),
 * load, fpr_expected (fl_vqf_info_get's estimate) and fpr_measured (2^20 never-stored keys
 * after the n inserts), the space and accuracy targets beside the speeds.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"
#include "fb_rng.h"

#define FPR_PROBES ((size_t)1 << 20)
#define WARM 4096 /* lookups before each timed pass: caches, branch history */

typedef struct vqf_run {
    fl_vqf *v;
    uint64_t n;
    char size[48];
    double fpr_measured;
    fl_vqf_info info;
} vqf_run;

/* The keys a size stands for (0: none). */
static uint64_t size_keys(const fb_options *o, uint64_t target) {
    if (o->sizes_in_keys) return target;
    uint64_t blocks = target / FL_VQF_BLOCK_BYTES;
    return (uint64_t)floor((double)blocks * FL_VQF_SLOTS * FL_VQF_SIZING_LOAD);
}

/* A result named <op>/vqf/<kernel>/nkeys:<n>[/<params>]/keys:u64 (kernel: a table's name,
 * "inline" or "any", as family_static.c names its own). */
static fb_result *vqf_result(fb_env *e, const char *op, const char *kernel, const vqf_run *s,
                             const char *params, uint64_t items) {
    char name[224];
    snprintf(name, sizeof name, "%s/vqf/%s/%s%s%s/keys:u64", op, kernel, s->size,
             params ? "/" : "", params ? params : "");
    fb_result *r = fb_result_add(e->rs, FB_OP_FAMILY, name, e->o->reps, items);
    r->item = "key";
    fb_result_str(r, "op", op);
    fb_result_str(r, "structure", "vqf");
    fb_result_str(r, "kernel", kernel);
    fb_result_str(r, "keys_type", "u64");
    fb_result_int(r, "batch_keys", (int64_t)e->o->batch);
    return r;
}

static void fields(fb_result *r, const vqf_run *s) {
    fb_result_int(r, "structure_bytes", (int64_t)s->info.bytes);
    fb_result_int(r, "target_keys", (int64_t)s->n);
    fb_result_int(r, "blocks", s->info.blocks);
    fb_result_num(r, "bits_per_key", (double)s->info.bytes * 8.0 / (double)s->n);
    fb_result_num(r, "load", (double)s->n / (double)s->info.slots);
    fb_result_num(r, "fpr_expected", s->info.fpr);
    fb_result_num(r, "fpr_measured", s->fpr_measured);
    fb_result_int(r, "fpr_queries", (int64_t)FPR_PROBES);
}

/* keys[0..n) through the batch call (one = 0) or one call per key; FL_OK or the first
 * refusal. */
static fl_status update_keys(fl_vqf *v, const uint64_t *keys, size_t n, int insert, int one) {
    if (!one)
        return insert ? fl_vqf_insert_u64s(v, keys, n, NULL) : fl_vqf_delete_u64s(v, keys, n, NULL);
    fl_status st = FL_OK;
    for (size_t i = 0; i < n && st == FL_OK; i++)
        st = insert ? fl_vqf_insert_u64(v, keys[i]) : fl_vqf_delete_u64(v, keys[i]);
    return st;
}

/* n keys from ids [0, n), made in chunks of cap, inserted a chunk a call (one = 0) or one
 * key a call; FL_OK or the first refusal. */
static fl_status insert_all(fl_vqf *v, uint64_t n, uint64_t seed, uint64_t *buf, size_t cap,
                            int one) {
    for (uint64_t i = 0; i < n; i += cap) {
        size_t m = n - i < cap ? (size_t)(n - i) : cap;
        for (size_t j = 0; j < m; j++) buf[j] = fb_key_u64(i + j, seed);
        fl_status st = update_keys(v, buf, m, 1, one);
        if (st != FL_OK) return st;
    }
    return FL_OK;
}

static void timed_inserts(fb_env *e, vqf_run *s, fb_result *r, uint64_t *buf, size_t cap,
                          int one) {
    const fb_options *o = e->o;
    for (int rep = -o->warmup; rep < o->reps; rep++) {
        fl_vqf_clear(s->v);
        fb_meas m;
        fb_meas_reset(&m);
        fb_meas_begin(e, &m);
        fl_status st = insert_all(s->v, s->n, o->seed, buf, cap, one);
        fb_meas_end(e, &m);
        if (st != FL_OK) {
            fb_result_str(r, "error", fl_strerror(st));
            return;
        }
        fb_fam_record(e, r, rep, &m, (double)s->n);
    }
}

/* pool[0..n): each a stored key with probability hit, else a never-stored one. */
static uint64_t make_pool(uint64_t *pool, size_t n, double hit, uint64_t stored, fb_rng *rng,
                          uint64_t *miss, uint64_t seed) {
    uint64_t hits = 0;
    for (size_t i = 0; i < n; i++) {
        int h = fb_rng_unit(rng) < hit;
        hits += (uint64_t)h;
        pool[i] = fb_key_u64(h ? fb_rng_below(rng, stored) : FB_ID_MISS + (*miss)++, seed);
    }
    return hits;
}

static size_t lookups(const fl_vqf *v, const fl_vqf_lookup *l, const uint64_t *keys, size_t n,
                      size_t batch, uint8_t *out) {
    size_t pos = 0;
    if (l) {
        for (size_t i = 0; i < n; i++) pos += (size_t)fl_vqf_lookup_u64(l, keys[i]);
        return pos;
    }
    for (size_t off = 0; off < n; off += batch) {
        size_t m = n - off < batch ? n - off : batch, p = 0;
        fl_vqf_contains_u64s(v, keys + off, m, out + off, &p);
        pos += p;
    }
    return pos;
}

static void lookup_rep(fb_env *e, vqf_run *s, fb_result *r, int rep, double hit, int inl,
                       uint64_t *pool, uint8_t *out, fb_rng *rng, uint64_t *miss) {
    const fb_options *o = e->o;
    size_t L = (size_t)o->lookups;
    make_pool(pool, WARM, hit, s->n, rng, miss, o->seed);
    uint64_t hits = make_pool(pool + WARM, L, hit, s->n, rng, miss, o->seed);
    fl_vqf_lookup h = fl_vqf_lookup_of(s->v);
    const fl_vqf_lookup *l = inl ? &h : NULL;
    lookups(s->v, l, pool, WARM, o->batch, out);
    fb_meas m;
    fb_meas_reset(&m);
    fb_meas_begin(e, &m);
    size_t pos = lookups(s->v, l, pool + WARM, L, o->batch, out);
    fb_meas_end(e, &m);
    if (pos < hits) {
        fb_result_int(r, "false_negatives_seen", (int64_t)(hits - pos));
        fb_warn(e->ctx, "%s: %zu positives for %llu stored keys: false negatives", r->name, pos,
                (unsigned long long)hits);
    }
    if (rep < 0) return;
    fb_fam_record(e, r, rep, &m, (double)L);
    fb_result_series(r, "positives_fraction")[rep] = (double)pos / (double)L;
}

static void timed_deletes(fb_env *e, vqf_run *s, fb_result *r, uint64_t *keys, fb_rng *rng,
                          int one) {
    const fb_options *o = e->o;
    size_t L = (size_t)(o->lookups < s->n ? o->lookups : s->n);
    for (int rep = -o->warmup; rep < o->reps; rep++) {
        /* distinct stored ids: a stride through [0, n) from a random start */
        uint64_t start = fb_rng_below(rng, s->n), step = s->n / L ? s->n / L : 1;
        for (size_t i = 0; i < L; i++) keys[i] = fb_key_u64((start + i * step) % s->n, o->seed);
        fb_meas m;
        fb_meas_reset(&m);
        fb_meas_begin(e, &m);
        fl_status st = FL_OK;
        for (size_t off = 0; off < L && st == FL_OK; off += o->batch)
            st = update_keys(s->v, keys + off, L - off < o->batch ? L - off : o->batch, 0, one);
        fb_meas_end(e, &m);
        if (st == FL_OK) st = fl_vqf_insert_u64s(s->v, keys, L, NULL);
        if (st != FL_OK) {
            fb_result_str(r, "error", fl_strerror(st));
            return;
        }
        fb_fam_record(e, r, rep, &m, (double)L);
    }
}

static void run_size(fb_env *e, vqf_run *s, uint64_t *pool, uint8_t *out) {
    const fb_options *o = e->o;
    size_t nk = o->nkernels, nh = o->nhits, L = (size_t)o->lookups;
    char hb[32];
    fb_status("vqf %llu keys (%s)", (unsigned long long)s->n,
              fb_fmt_bytes(s->info.bytes, hb, sizeof hb));
    fb_result *ins1 = vqf_result(e, "insert_one", "any", s, NULL, s->n);
    timed_inserts(e, s, ins1, pool, L + WARM, 1);
    fb_result *ins = vqf_result(e, "insert", "any", s, NULL, s->n);
    timed_inserts(e, s, ins, pool, L + WARM, 0);
    /* FPR after the n inserts (the last repetition's filter) */
    uint64_t fp = 0;
    for (size_t i = 0; i < FPR_PROBES; i++)
        fp += (uint64_t)fl_vqf_contains_u64(s->v, fb_key_u64(FB_ID_FPR + i, o->seed));
    s->fpr_measured = (double)fp / (double)FPR_PROBES;
    fl_vqf_info_get(s->v, &s->info);
    fields(ins, s);
    fields(ins1, s);
    fb_result_str(ins, "kernel_used", "any");
    fb_result_str(ins1, "kernel_used", "any");

    fb_result *lr[FB_MAX_KERNELS + 1][FB_MAX_HITS];
    int ok[FB_MAX_KERNELS + 1];
    for (size_t ki = 0; ki <= nk; ki++) {
        ok[ki] = ki == nk || fl_vqf_bind_kernel(s->v, fb_kname(e, ki)) == FL_OK;
        for (size_t hi = 0; hi < nh; hi++) {
            char params[32];
            snprintf(params, sizeof params, "hit:%g", o->hits[hi]);
            lr[ki][hi] = vqf_result(e, ki < nk ? "lookup" : "lookup_inline",
                                    ki < nk ? fb_kname(e, ki) : "inline", s, params, L);
            fb_result *r = lr[ki][hi];
            fb_result_num(r, "hit_rate", o->hits[hi]);
            fields(r, s);
            fb_result_str(r, "kernel_used", ki == nk ? "inline" : ok[ki] ? fl_vqf_kernel(s->v) : "?");
            if (!ok[ki]) fb_result_str(r, "error", "kernel cannot be bound");
        }
    }
    /* every (kernel, hit rate) and the in-line loop in turn per repetition */
    fb_rng rng = {o->seed ^ UINT64_C(0x7e9f)};
    uint64_t miss = 0;
    for (int rep = -o->warmup; rep < o->reps; rep++)
        for (size_t ki = 0; ki <= nk; ki++) {
            if (!ok[ki]) continue;
            if (ki < nk) fl_vqf_bind_kernel(s->v, fb_kname(e, ki));
            for (size_t hi = 0; hi < nh; hi++)
                lookup_rep(e, s, lr[ki][hi], rep, o->hits[hi], ki == nk, pool, out, &rng, &miss);
        }
    fl_vqf_bind_kernel(s->v, "auto");
    for (int one = 0; one < 2; one++) {
        fb_result *del = vqf_result(e, one ? "delete_one" : "delete", "any", s, NULL,
                                    L < s->n ? L : s->n);
        fb_result_str(del, "kernel_used", "any");
        fields(del, s);
        timed_deletes(e, s, del, pool, &rng, one);
    }
    fb_report_done(e);
}

/* Results per size: insert, insert_one, delete, delete_one, and a lookup per kernel and hit
 * rate plus the in-line one per hit rate. */
size_t fb_family_vqf_planned(const fb_options *o, const uint64_t *probed, size_t nprobed) {
    (void)probed, (void)nprobed;
    size_t n = 0;
    for (size_t si = 0; si < o->nsizes; si++)
        if (size_keys(o, o->sizes[si])) n += 4 + (o->nkernels + 1) * o->nhits;
    return n;
}

void fb_family_vqf(fb_env *e) {
    const fb_options *o = e->o;
    size_t L = (size_t)o->lookups;
    uint64_t *pool = malloc((L + WARM) * sizeof *pool);
    uint8_t *out = malloc(L + WARM);
    if (!pool || !out) {
        fb_warn(e->ctx, "vqf: out of memory for %zu keys; suite skipped", L);
        free(pool);
        free(out);
        return;
    }
    uint64_t budget = fb_fam_budget(e);
    for (size_t si = 0; si < o->nsizes; si++) {
        vqf_run s;
        memset(&s, 0, sizeof s);
        s.n = size_keys(o, o->sizes[si]);
        if (s.n == 0) {
            fb_warn(e->ctx, "vqf size %llu: no key fits; skipped", (unsigned long long)o->sizes[si]);
            continue;
        }
        uint32_t blocks = 0;
        if (fl_vqf_blocks_for(s.n, &blocks) != FL_OK ||
            (uint64_t)blocks * FL_VQF_BLOCK_BYTES > budget ||
            fl_vqf_create(s.n, o->seed, &s.v) != FL_OK) {
            fb_warn(e->ctx, "vqf %llu keys: too large for the memory budget; skipped",
                    (unsigned long long)s.n);
            continue;
        }
        fl_vqf_info_get(s.v, &s.info);
        snprintf(s.size, sizeof s.size, "nkeys:%llu", (unsigned long long)s.n);
        run_size(e, &s, pool, out);
        fl_vqf_free(s.v);
    }
    free(pool);
    free(out);
}
