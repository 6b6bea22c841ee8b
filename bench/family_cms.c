/*
 * Count-Min suite: ns per item of batch update (fl_cms_add_u64s) and batch query
 * (fl_cms_query_u64s), hashing included (the library hashes the u64 keys), per kernel.
 *
 * Shapes: every --sizes byte count with d = --cms-depth rows and w = size / (4 d) columns of
 * 32-bit counters (L1 to DRAM), plus the seeds' point epsilon 0.001, delta 0.01 (seed 003:
 * w = ceil(e / 0.001) = 2719, d = ceil(ln 100) = 5; fl_cms_dims computes it). Each timed
 * repetition updates or queries --lookups fresh keys in calls of --batch keys; the kernels of
 * one shape run in rounds (update and query of every kernel, then again), so drift from other
 * load on the machine spreads over all of them alike.
 *
 * Top-k: at the seeds' point, a sketch with --cms-topk candidates is updated with keys whose
 * ids are log-uniform over [1, 2^20] (density 1/x, a Zipf(1)-like stream with recurring heavy
 * keys), op "update_topk": the cost of keeping the candidate heap on top of the update.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"

typedef struct cms_shape {
    uint32_t w, d;
    uint64_t target;  /* the --sizes bytes, or the seeds' point's counter bytes */
    char size[48];    /* "bytes:N" */
    char params[64];  /* "d:D/w:W" */
    int seed_point;
} cms_shape;

static void cms_fields(fb_result *r, const fl_cms *c, const cms_shape *sh) {
    fl_cms_info in;
    fl_cms_info_get(c, &in);
    fb_result_int(r, "target_bytes", (int64_t)sh->target);
    fb_result_int(r, "structure_bytes", (int64_t)in.bytes);
    fb_result_int(r, "width", in.width);
    fb_result_int(r, "depth", in.depth);
    fb_result_num(r, "epsilon", in.epsilon);
    fb_result_num(r, "delta", in.delta);
    fb_result_int(r, "topk", in.topk);
    fb_result_int(r, "seeds_point", sh->seed_point);
    fb_result_str(r, "kernel_used", fl_cms_kernel(c) ? fl_cms_kernel(c) : "?");
}

/* One timed repetition of updates (query = 0) or queries of fresh keys. */
static void cms_rep(fb_env *e, fl_cms *c, fb_result *r, int rep, int query, uint64_t *keys,
                    uint32_t *est, uint64_t *cursor, const uint64_t *fixed_keys) {
    const fb_options *o = e->o;
    size_t L = (size_t)o->lookups, B = o->batch;
    const uint64_t *k = fixed_keys;
    if (!k) {
        fb_fam_fresh_keys(keys, L, cursor, o->seed);
        k = keys;
    }
    fl_status st = FL_OK;
    fb_meas m;
    fb_meas_reset(&m);
    fb_meas_begin(e, &m);
    for (size_t off = 0; off < L && st == FL_OK; off += B) {
        size_t n = L - off < B ? L - off : B;
        st = query ? fl_cms_query_u64s(c, k + off, n, est + off) : fl_cms_add_u64s(c, k + off, n, NULL);
    }
    fb_meas_end(e, &m);
    if (st != FL_OK) {
        fb_result_str(r, "error", fl_strerror(st));
        return;
    }
    fb_fam_record(e, r, rep, &m, (double)L);
}

static void cms_shape_run(fb_env *e, const cms_shape *sh, uint64_t *keys, uint32_t *est) {
    const fb_options *o = e->o;
    size_t nk = o->nkernels;
    fl_cms_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.width = sh->w;
    cfg.depth = sh->d;
    cfg.seed = o->seed;
    fl_cms *c = NULL;
    fl_status st = fl_cms_create(&cfg, &c);
    if (st != FL_OK) {
        fb_warn(e->ctx, "cms %s: fl_cms_create: %s; skipped", sh->params, fl_strerror(st));
        return;
    }
    char hb[32];
    fb_status("cms %s (%s)", sh->params,
            fb_fmt_bytes((uint64_t)sh->w * sh->d * 4, hb, sizeof hb));
    fb_result *upd[FB_MAX_KERNELS], *qry[FB_MAX_KERNELS];
    int ok[FB_MAX_KERNELS];
    for (size_t ki = 0; ki < nk; ki++) {
        ok[ki] = fl_cms_bind_kernel(c, fb_kname(e, ki)) == FL_OK;
        upd[ki] = fb_fam_result(e, "update", "cms", "item", ki, sh->size, sh->params, o->lookups);
        qry[ki] = fb_fam_result(e, "query", "cms", "item", ki, sh->size, sh->params, o->lookups);
        cms_fields(upd[ki], c, sh);
        cms_fields(qry[ki], c, sh);
        if (!ok[ki]) {
            fb_result_str(upd[ki], "error", "kernel cannot be bound");
            fb_result_str(qry[ki], "error", "kernel cannot be bound");
        }
    }
    uint64_t cursor = 0;
    for (int rep = -o->warmup; rep < o->reps; rep++)
        for (size_t ki = 0; ki < nk; ki++) {
            if (!ok[ki])
                continue;
            fl_cms_bind_kernel(c, fb_kname(e, ki));
            cms_rep(e, c, upd[ki], rep, 0, keys, est, &cursor, NULL);
            /* Queries of the keys just counted: hashing and d reads, like any query. */
            cms_rep(e, c, qry[ki], rep, 1, keys, est, &cursor, keys);
        }
    fl_cms_free(c);
    fb_report_done(e);
}

/* Top-k updates at the seeds' point. */
static void cms_topk_run(fb_env *e, const cms_shape *sh, uint64_t *keys) {
    const fb_options *o = e->o;
    fl_cms_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.width = sh->w;
    cfg.depth = sh->d;
    cfg.seed = o->seed;
    cfg.topk = o->cms_topk;
    fl_cms *c = NULL;
    if (fl_cms_create(&cfg, &c) != FL_OK)
        return;
    char params[96];
    snprintf(params, sizeof params, "%s/topk:%u", sh->params, o->cms_topk);
    fb_result *r[FB_MAX_KERNELS];
    for (size_t ki = 0; ki < o->nkernels; ki++) {
        r[ki] = fb_fam_result(e, "update_topk", "cms", "item", ki, sh->size, params, o->lookups);
        if (fl_cms_bind_kernel(c, fb_kname(e, ki)) != FL_OK)
            fb_result_str(r[ki], "error", "kernel cannot be bound");
        cms_fields(r[ki], c, sh);
        fb_result_str(r[ki], "key_distribution", "log-uniform ids over [1, 2^20]");
    }
    fb_rng rng = {o->seed ^ UINT64_C(0x70b4)};
    for (int rep = -o->warmup; rep < o->reps; rep++)
        for (size_t ki = 0; ki < o->nkernels; ki++) {
            if (fl_cms_bind_kernel(c, fb_kname(e, ki)) != FL_OK)
                continue;
            for (size_t i = 0; i < (size_t)o->lookups; i++)
                keys[i] = fb_key_u64((uint64_t)exp(fb_rng_unit(&rng) * 20.0 * M_LN2), o->seed);
            uint64_t unused = 0;
            cms_rep(e, c, r[ki], rep, 0, keys, NULL, &unused, keys);
        }
    fl_cms_free(c);
    fb_report_done(e);
}

/* Results of the suite (progress line): update and query per shape and kernel (the sizes,
 * and the seeds' point unless a size has its shape), and the top-k update at the seeds'
 * point. */
size_t fb_family_cms_planned(const fb_options *o, const uint64_t *probed, size_t nprobed) {
    (void)probed, (void)nprobed;
    uint32_t seed_w = 0, seed_d = 0;
    if (fl_cms_dims(0.001, 0.01, &seed_w, &seed_d) != FL_OK)
        return 2 * o->nkernels * o->nsizes;
    size_t shapes = o->nsizes + 1;
    for (size_t si = 0; si < o->nsizes; si++)
        if (o->cms_depth == seed_d && o->sizes[si] / (4ull * o->cms_depth) == seed_w) {
            shapes--;
            break;
        }
    return o->nkernels * (2 * shapes + (o->cms_topk ? 1 : 0));
}

void fb_family_cms(fb_env *e) {
    const fb_options *o = e->o;
    size_t L = (size_t)o->lookups;
    uint64_t *keys = malloc(L * sizeof *keys);
    uint32_t *est = malloc(L * sizeof *est);
    if (!keys || !est) {
        fb_warn(e->ctx, "cms: out of memory for %zu keys; suite skipped", L);
        free(keys);
        free(est);
        return;
    }
    uint64_t budget = fb_fam_budget(e);
    uint32_t seed_w = 0, seed_d = 0;
    int seed_done = fl_cms_dims(0.001, 0.01, &seed_w, &seed_d) != FL_OK;
    for (size_t si = 0; si <= o->nsizes; si++) {
        cms_shape sh;
        memset(&sh, 0, sizeof sh);
        if (si == o->nsizes) { /* the seeds' point last, unless a size gave its shape */
            if (seed_done)
                continue;
            sh.w = seed_w;
            sh.d = seed_d;
            sh.target = (uint64_t)sh.w * sh.d * 4;
        } else {
            sh.d = o->cms_depth;
            sh.target = o->sizes[si];
            uint64_t w = o->sizes[si] / (4ull * sh.d);
            if (w < 1 || w >= UINT32_MAX || w * sh.d * 4 > budget) {
                fb_warn(e->ctx, "cms size %llu: no width fits (d=%u, memory budget); skipped",
                        (unsigned long long)o->sizes[si], sh.d);
                continue;
            }
            sh.w = (uint32_t)w;
        }
        sh.seed_point = sh.w == seed_w && sh.d == seed_d;
        seed_done |= sh.seed_point;
        snprintf(sh.size, sizeof sh.size, "bytes:%llu", (unsigned long long)sh.target);
        snprintf(sh.params, sizeof sh.params, "d:%u/w:%u", sh.d, sh.w);
        cms_shape_run(e, &sh, keys, est);
        if (sh.seed_point && o->cms_topk)
            cms_topk_run(e, &sh, keys);
    }
    free(keys);
    free(est);
}
