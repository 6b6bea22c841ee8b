/*
 * Static structures suite: binary fuse filters and the Bloomier filter
 * (include/filterlab_static.h), built once from a whole key set.
 *
 * Kinds (the `filter` field; the name's second part):
 *   fuse8     3-wise, 8-bit fingerprints  (FPR 2^-8)
 *   fuse16    3-wise, 16-bit fingerprints (FPR 2^-16)
 *   fuse4w8   4-wise, 8-bit fingerprints  (FPR 2^-8, about 5% fewer cells than fuse8)
 *   fuse4w16  4-wise, 16-bit fingerprints (FPR 2^-16, about 5% fewer cells than fuse16)
 *   bloomier  3-wise map of 8-bit values in 16-bit cells (a non-key is reported absent
 *             unless the top 8 bits of what it reads are zero: FPR 2^-8)
 *
 * Sizing: a --sizes byte count becomes the largest key count whose cell array
 * (fl_fuse_bytes_for, the library's own sizing) fits in it; --sizes-in keys takes the key count
 * as given. The keys are fb_key_u64 of ids [0, n), as in the filter sweep.
 *
 * Operations, all with structure "static" and the `op` field:
 *   build          fl_fuse_build_u64 / fl_bloomier_build_u64 of the whole key set, timed, ns
 *                  per key. Construction is not dispatched (no kernel), so it is measured once
 *                  per structure, kernel "any"; repetitions as the filter sweep's
 *                  --insert-budget allows (at least one). Fields from fl_static_info: tries,
 *                  build_bytes, the seed that worked.
 *   lookup         the batch API (fl_fuse_contains_u64s / fl_bloomier_get_u64s) with the object
 *                  bound to each --kernel (fl_fuse_bind_kernel / fl_bloomier_bind_kernel);
 *                  hashing is inside the library call. Per --hit-rate, a fresh pool of keys per
 *                  repetition (hits uniform over the stored keys, misses never stored), 64Ki
 *                  untimed warm-up lookups, then --lookups timed ones in calls of --batch.
 *                  ratio_to_bound = ns per lookup / ns per random line at the cell array's
 *                  footprint (the memory probe, run first at every footprint of this suite).
 *   lookup_inline  the same pools through the header's one-key inline lookups (fl_fuse_lookup
 *                  / fl_bloomier_lookup on fl_*_view_of), one key at a time in this loop:
 *                  the "one key at a time with hashing" way; kernel "inline".
 *
 * Every result carries bits_per_key, bound_bits_per_key and space_ratio_to_bound: the
 * information-theoretic bound of a filter with FPR p is log2(1/p) bits per key (Carter et
 * al. 1978); for the Bloomier map it is value_bits + log2(1/p) (the values plus the filter
 * that rejects non-keys), which is the cell width here. And fpr_measured over 2^20..2^24
 * never-stored keys (about 1000 expected positives), with a check that stored keys are found
 * (and, for the Bloomier map, get their value back): any miss is counted and warned about.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"

typedef struct st_kind {
    const char *name;
    int bloomier;
    uint32_t arity;
    uint32_t cell_bits;
    uint32_t value_bits; /* Bloomier only */
} st_kind;

static const st_kind kinds[] = {
    {"fuse8", 0, 3, 8, 0},
    {"fuse16", 0, 3, 16, 0},
    {"fuse4w8", 0, 4, 8, 0},
    {"fuse4w16", 0, 4, 16, 0},
    {"bloomier", 1, 3, 16, 8},
};
#define NKINDS (sizeof kinds / sizeof kinds[0])

#define ST_WARM 65536u            /* untimed warm-up lookups before each repetition */
#define ST_CHECK_KEYS 65536u      /* stored keys checked for false negatives */

/* One built structure of the suite. */
typedef struct st_obj {
    const st_kind *k;
    fl_fuse *f;
    fl_bloomier *b;
    fl_static_info info;
    uint64_t n;
    size_t bytes;             /* planned cell bytes (the probe's footprint) */
    char size[48];            /* "bytes:N" or "nkeys:N" */
    uint64_t target;
    double fpr_measured;
    uint64_t fpr_queries, false_negatives, wrong_values;
} st_obj;

/* The value stored for a key (Bloomier): any function of the key below 2^value_bits. */
static uint16_t st_value(uint64_t key, uint32_t value_bits) {
    return (uint16_t)(fl_mix64(key ^ UINT64_C(0x5eed)) & ((1u << value_bits) - 1));
}

/* The key count a size stands for (0: none fits); *bytes = its cell array. */
static uint64_t st_size_keys(const fb_options *o, const st_kind *k, uint64_t target,
                             size_t *bytes) {
    *bytes = 0;
    if (o->sizes_in_keys) {
        if (target > FL_FUSE_KEYS_MAX ||
            fl_fuse_bytes_for(k->arity, k->cell_bits, target, bytes) != FL_OK)
            return 0;
        return target;
    }
    /* Largest n with bytes_for(n) <= target, by bisection: the cell count never falls below
     * n, so n <= target / cell bytes. */
    uint64_t lo = 0, hi = target / (k->cell_bits / 8) + 1;
    if (hi > FL_FUSE_KEYS_MAX)
        hi = FL_FUSE_KEYS_MAX;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo + 1) / 2;
        size_t b = 0;
        if (fl_fuse_bytes_for(k->arity, k->cell_bits, mid, &b) == FL_OK && b <= target)
            lo = mid;
        else
            hi = mid - 1;
    }
    if (lo == 0 || fl_fuse_bytes_for(k->arity, k->cell_bits, lo, bytes) != FL_OK)
        return 0;
    return lo;
}

/* reps: the repetitions it will get (the listener reports it when all are done). */
static fb_result *st_result(fb_env *e, const char *op, const char *item, const char *kernel,
                            const st_obj *s, const char *params, int reps, uint64_t items) {
    char name[224];
    snprintf(name, sizeof name, "%s/%s/%s/%s%s%s/keys:u64", op, s->k->name, kernel, s->size,
             params ? "/" : "", params ? params : "");
    fb_result *r = fb_result_add(e->rs, FB_OP_FAMILY, name, reps, items);
    r->item = item;
    fb_result_str(r, "op", op);
    fb_result_str(r, "structure", "static");
    fb_result_str(r, "filter", s->k->name);
    fb_result_str(r, "kernel", kernel);
    fb_result_str(r, "keys_type", "u64");
    fb_result_int(r, "batch_keys", (int64_t)e->o->batch);
    fb_result_int(r, "target_bytes", (int64_t)s->target);
    fb_result_int(r, "structure_bytes", (int64_t)s->info.bytes);
    fb_result_int(r, "keys", (int64_t)s->info.keys);
    fb_result_int(r, "arity", s->info.arity);
    fb_result_int(r, "cell_bits", s->info.cell_bits);
    fb_result_int(r, "value_bits", s->info.value_bits);
    fb_result_int(r, "segment_length", s->info.segment_length);
    fb_result_int(r, "cells", s->info.cells);
    double bound = s->info.fpr > 0 ? s->info.value_bits - log2(s->info.fpr) : NAN;
    fb_result_num(r, "bits_per_key", s->info.bits_per_key);
    fb_result_num(r, "bound_bits_per_key", bound);
    fb_result_num(r, "space_ratio_to_bound", s->info.bits_per_key / bound);
    fb_result_num(r, "fpr_expected", s->info.fpr);
    fb_result_num(r, "fpr_measured", s->fpr_measured);
    fb_result_int(r, "fpr_queries", (int64_t)s->fpr_queries);
    fb_result_int(r, "false_negatives", (int64_t)s->false_negatives);
    if (s->k->bloomier)
        fb_result_int(r, "wrong_values", (int64_t)s->wrong_values);
    fb_result_int(r, "build_tries", s->info.tries);
    fb_result_int(r, "build_bytes", (int64_t)s->info.build_bytes);
    fb_result_int(r, "build_seed", (int64_t)s->info.seed);
    return r;
}

static void st_free(st_obj *s) {
    fl_fuse_free(s->f);
    fl_bloomier_free(s->b);
    s->f = NULL;
    s->b = NULL;
}

/* One timed construction of s from keys (and values) into *m; replaces s's previous
 * object. */
static fl_status st_build(fb_env *e, st_obj *s, const uint64_t *keys, const uint16_t *values,
                          uint64_t budget, fb_meas *m) {
    const fb_options *o = e->o;
    st_free(s);
    fl_status st;
    fb_meas_reset(m);
    if (s->k->bloomier) {
        fl_bloomier_config c;
        memset(&c, 0, sizeof c);
        c.arity = s->k->arity;
        c.value_bits = s->k->value_bits;
        c.cell_bits = s->k->cell_bits;
        c.seed = o->seed;
        c.max_bytes = (size_t)budget;
        fb_meas_begin(e, m);
        st = fl_bloomier_build_u64(&c, keys, values, (size_t)s->n, &s->b);
        fb_meas_end(e, m);
        if (st == FL_OK)
            st = fl_bloomier_info(s->b, &s->info);
    } else {
        fl_fuse_config c;
        memset(&c, 0, sizeof c);
        c.arity = s->k->arity;
        c.fingerprint_bits = s->k->cell_bits;
        c.seed = o->seed;
        c.max_bytes = (size_t)budget;
        fb_meas_begin(e, m);
        st = fl_fuse_build_u64(&c, keys, (size_t)s->n, &s->f);
        fb_meas_end(e, m);
        if (st == FL_OK)
            st = fl_fuse_info(s->f, &s->info);
    }
    return st;
}

static int st_bind(st_obj *s, const char *kernel) {
    return (s->k->bloomier ? fl_bloomier_bind_kernel(s->b, kernel)
                           : fl_fuse_bind_kernel(s->f, kernel)) == FL_OK;
}

static const char *st_kernel_used(const st_obj *s) {
    const char *k = s->k->bloomier ? fl_bloomier_kernel(s->b) : fl_fuse_kernel(s->f);
    return k ? k : "?";
}

/* Batch lookups of keys[0..n) in calls of --batch; returns the positives. */
static size_t st_batch(const fb_options *o, const st_obj *s, const uint64_t *keys, size_t n,
                       uint8_t *found, uint16_t *values) {
    size_t pos = 0;
    for (size_t off = 0; off < n; off += o->batch) {
        size_t c = n - off < o->batch ? n - off : o->batch;
        pos += s->k->bloomier ? fl_bloomier_get_u64s(s->b, keys + off, c, values, found)
                              : fl_fuse_contains_u64s(s->f, keys + off, c, found);
    }
    return pos;
}

/* One key at a time through the header's inline lookup; returns the positives (the Bloomier
 * values are summed into *sink so the compiler keeps them). */
static size_t st_inline(const st_obj *s, const uint64_t *keys, size_t n, uint64_t *sink) {
    size_t pos = 0;
    if (s->k->bloomier) {
        fl_fuse_view v = fl_bloomier_view_of(s->b);
        uint64_t sum = 0;
        for (size_t i = 0; i < n; i++) {
            uint16_t val;
            pos += (size_t)fl_bloomier_lookup(&v, keys[i], &val);
            sum += val;
        }
        *sink += sum;
    } else {
        fl_fuse_view v = fl_fuse_view_of(s->f);
        for (size_t i = 0; i < n; i++)
            pos += (size_t)fl_fuse_lookup(&v, keys[i]);
    }
    return pos;
}

/* The FPR over never-stored keys and the false-negative (and value) check of stored keys. */
static void st_accuracy(fb_env *e, st_obj *s, uint64_t *buf, size_t cap, uint8_t *found,
                        uint16_t *values) {
    const fb_options *o = e->o;
    uint64_t q = s->info.fpr > 0 ? (uint64_t)(1000.0 / s->info.fpr) : 0;
    q = q < (UINT64_C(1) << 20) ? UINT64_C(1) << 20 : q > (UINT64_C(1) << 24) ? UINT64_C(1) << 24 : q;
    uint64_t pos = 0;
    for (uint64_t done = 0; done < q;) {
        size_t c = q - done < cap ? (size_t)(q - done) : cap;
        for (size_t i = 0; i < c; i++)
            buf[i] = fb_key_u64(FB_ID_FPR + done + i, o->seed);
        pos += st_batch(o, s, buf, c, found, values);
        done += c;
    }
    s->fpr_queries = q;
    s->fpr_measured = (double)pos / (double)q;
    uint64_t check = s->n < ST_CHECK_KEYS ? s->n : ST_CHECK_KEYS;
    if (check > cap)
        check = cap;
    fb_rng rng = {o->seed ^ UINT64_C(0xc4ec)};
    for (size_t i = 0; i < check; i++)
        buf[i] = fb_key_u64(check == s->n ? i : fb_rng_below(&rng, s->n), o->seed);
    s->false_negatives = s->wrong_values = 0;
    for (size_t off = 0; off < check; off += o->batch) {
        size_t c = check - off < o->batch ? (size_t)(check - off) : o->batch;
        st_batch(o, s, buf + off, c, found, values);
        for (size_t i = 0; i < c; i++) {
            s->false_negatives += !found[i];
            if (s->k->bloomier && found[i] &&
                values[i] != st_value(buf[off + i], s->k->value_bits))
                s->wrong_values++;
        }
    }
    if (s->false_negatives || s->wrong_values)
        fb_warn(e->ctx, "%s %s: %llu of %llu stored keys not found, %llu wrong values",
                s->k->name, s->size, (unsigned long long)s->false_negatives,
                (unsigned long long)check, (unsigned long long)s->wrong_values);
}

/* A pool of n keys: each a stored id (uniform over [0, stored)) with probability hit, else a
 * never-stored id from *miss_cursor. Returns the hits. */
static uint64_t st_pool(uint64_t *keys, size_t n, double hit, uint64_t stored, fb_rng *rng,
                        uint64_t *miss_cursor, uint64_t seed) {
    uint64_t hits = 0;
    for (size_t i = 0; i < n; i++) {
        int h = stored && fb_rng_unit(rng) < hit;
        hits += (uint64_t)h;
        keys[i] = fb_key_u64(h ? fb_rng_below(rng, stored) : FB_ID_MISS + (*miss_cursor)++, seed);
    }
    return hits;
}

/* One timed lookup repetition of (s, kernel or inline) at one hit rate. */
static void st_lookup_rep(fb_env *e, st_obj *s, fb_result *r, int rep, double hit,
                          int inline_lookup, uint64_t *pool, uint8_t *found, uint16_t *values,
                          fb_rng *rng, uint64_t *miss_cursor) {
    const fb_options *o = e->o;
    size_t L = (size_t)o->lookups;
    st_pool(pool, ST_WARM, hit, s->n, rng, miss_cursor, o->seed);
    uint64_t hits = st_pool(pool + ST_WARM, L, hit, s->n, rng, miss_cursor, o->seed);
    uint64_t sink = 0;
    if (inline_lookup)
        st_inline(s, pool, ST_WARM, &sink);
    else
        st_batch(o, s, pool, ST_WARM, found, values);
    fb_meas m;
    fb_meas_reset(&m);
    fb_meas_begin(e, &m);
    size_t pos = inline_lookup ? st_inline(s, pool + ST_WARM, L, &sink)
                               : st_batch(o, s, pool + ST_WARM, L, found, values);
    fb_meas_end(e, &m);
    volatile uint64_t keep = sink;
    (void)keep;
    if (pos < hits) {
        fb_result_int(r, "false_negatives_seen", (int64_t)(hits - pos));
        fb_warn(e->ctx, "%s: %zu positives for %llu stored keys: false negatives", r->name, pos,
                (unsigned long long)hits);
    }
    if (rep < 0)
        return;
    fb_fam_record(e, r, rep, &m, (double)L);
    fb_result_series(r, "ratio_to_bound")[rep] = r->real_ns[rep] / fb_bound_ns(e, s->bytes);
    fb_result_series(r, "hits_fraction")[rep] = (double)hits / (double)L;
    fb_result_series(r, "positives_fraction")[rep] = (double)pos / (double)L;
}

/* Builds (timed), checks and looks up one (kind, size). */
static void st_run_one(fb_env *e, st_obj *s, uint64_t budget, uint64_t *pool, uint8_t *found,
                       uint16_t *values) {
    const fb_options *o = e->o;
    size_t nk = o->nkernels, nh = o->nhits;
    char hb[32];
    uint64_t *keys = malloc((size_t)s->n * sizeof *keys);
    uint16_t *vals = s->k->bloomier ? malloc((size_t)s->n * sizeof *vals) : NULL;
    if (!keys || (s->k->bloomier && !vals)) {
        fb_warn(e->ctx, "%s %s: out of memory for %llu keys; skipped", s->k->name, s->size,
                (unsigned long long)s->n);
        free(keys);
        free(vals);
        return;
    }
    for (uint64_t i = 0; i < s->n; i++) {
        keys[i] = fb_key_u64(i, o->seed);
        if (vals)
            vals[i] = st_value(keys[i], s->k->value_bits);
    }
    fb_status("static %s %s (%llu keys, %s)", s->k->name, s->size,
            (unsigned long long)s->n, fb_fmt_bytes(s->bytes, hb, sizeof hb));
    uint64_t kb = s->n * (sizeof *keys + (vals ? sizeof *vals : 0));
    uint64_t struct_budget = budget > kb ? budget - kb : 1;

    /* Construction: --insert-budget / n timed builds (at most --reps, at least one); the
     * object of the last one stays for the lookups. */
    uint64_t nb = o->insert_budget / (s->n ? s->n : 1);
    int builds = nb < 1 ? 1 : nb > (uint64_t)o->reps ? o->reps : (int)nb;
    int warm = builds >= o->reps ? o->warmup : 0;
    fb_result *br = NULL;
    fl_status st = FL_OK;
    for (int rep = -warm; rep < builds && st == FL_OK; rep++) {
        fb_meas m;
        st = st_build(e, s, keys, vals, struct_budget, &m);
        if (st != FL_OK)
            break;
        if (!br) { /* its fields come from the first build's info */
            br = st_result(e, "build", "key", "any", s, NULL, builds, s->n);
            fb_result_str(br, "kernel_used", "none (construction is not dispatched)");
        }
        fb_fam_record(e, br, rep, &m, (double)s->n);
    }
    free(vals);
    if (st != FL_OK) {
        fb_warn(e->ctx, "%s %s: build: %s; skipped", s->k->name, s->size, fl_strerror(st));
        free(keys);
        st_free(s);
        return;
    }
    free(keys);
    if (s->info.bytes != s->bytes)
        fb_warn(e->ctx, "%s %s: built %zu bytes, fl_fuse_bytes_for said %zu", s->k->name,
                s->size, s->info.bytes, s->bytes);
    size_t cap = (size_t)o->lookups + ST_WARM;
    st_accuracy(e, s, pool, cap, found, values);
    /* The build result's fields were set before the accuracy pass: refresh them. */
    fb_result_num(br, "fpr_measured", s->fpr_measured);
    fb_result_int(br, "fpr_queries", (int64_t)s->fpr_queries);
    fb_result_int(br, "false_negatives", (int64_t)s->false_negatives);
    if (s->k->bloomier)
        fb_result_int(br, "wrong_values", (int64_t)s->wrong_values);
    fb_result_num(br, "build_seconds_last", s->info.build_seconds);

    /* Lookups: per repetition, every (kernel, hit rate) and the inline loop in turn, so that
     * drift from other load on the machine spreads over all of them alike. */
    fb_result *lr[FB_MAX_KERNELS + 1][FB_MAX_HITS];
    int ok[FB_MAX_KERNELS + 1];
    for (size_t ki = 0; ki <= nk; ki++) {
        const char *kname = ki < nk ? fb_kname(e, ki) : "inline";
        ok[ki] = ki == nk || st_bind(s, kname);
        for (size_t hi = 0; hi < nh; hi++) {
            char params[32];
            snprintf(params, sizeof params, "hit:%g", o->hits[hi]);
            fb_result *r = st_result(e, ki < nk ? "lookup" : "lookup_inline", "lookup", kname, s,
                                     params, o->reps, o->lookups);
            fb_result_num(r, "hit_rate", o->hits[hi]);
            fb_result_num(r, "bound_ns_per_line", fb_bound_ns(e, s->bytes));
            fb_result_str(r, "kernel_used", ki == nk ? "inline" : ok[ki] ? st_kernel_used(s) : "?");
            if (!ok[ki])
                fb_result_str(r, "error", "kernel cannot be bound");
            lr[ki][hi] = r;
        }
    }
    fb_rng rng = {o->seed ^ fl_mix64(s->bytes * 131 + s->n)};
    uint64_t miss_cursor = 0;
    for (int rep = -o->warmup; rep < o->reps; rep++)
        for (size_t ki = 0; ki <= nk; ki++) {
            if (!ok[ki])
                continue;
            if (ki < nk)
                st_bind(s, fb_kname(e, ki));
            for (size_t hi = 0; hi < nh; hi++)
                st_lookup_rep(e, s, lr[ki][hi], rep, o->hits[hi], ki == nk, pool, found, values,
                              &rng, &miss_cursor);
        }
    st_free(s);
    fb_report_done(e);
}

/* Results of the suite (progress line): per (kind, size) a build, a batch lookup per kernel
 * and hit rate and an inline lookup per hit rate, and the probe's two results at each cell
 * array footprint (fewer when the filter sweep probed one already). */
size_t fb_family_static_planned(const fb_options *o, const uint64_t *probed, size_t nprobed) {
    size_t n = 0, nfp = 0;
    size_t fps[64];
    for (size_t ki = 0; ki < NKINDS; ki++)
        for (size_t si = 0; si < o->nsizes; si++) {
            size_t bytes = 0;
            if (!st_size_keys(o, &kinds[ki], o->sizes[si], &bytes))
                continue;
            n += 1 + (o->nkernels + 1) * o->nhits;
            int seen = 0;
            for (size_t j = 0; j < nfp; j++)
                seen |= fps[j] == bytes;
            for (size_t j = 0; probed && j < nprobed; j++)
                seen |= probed[j] == bytes;
            if (!seen && o->probe_memory && nfp < sizeof fps / sizeof fps[0]) {
                fps[nfp++] = bytes;
                n += 2;
            }
        }
    return n;
}

void fb_family_static(fb_env *e) {
    const fb_options *o = e->o;
    uint64_t budget = fb_fam_budget(e);
    size_t cap = (size_t)o->lookups + ST_WARM;
    size_t nobj = NKINDS * o->nsizes;
    st_obj *objs = calloc(nobj ? nobj : 1, sizeof *objs);
    uint64_t *pool = malloc(cap * sizeof *pool);
    uint8_t *found = malloc(cap > o->batch ? cap : o->batch);
    uint16_t *values = malloc((cap > o->batch ? cap : o->batch) * sizeof *values);
    if (!objs || !pool || !found || !values) {
        fb_warn(e->ctx, "static: out of memory for %zu lookup keys; suite skipped", cap);
        goto out;
    }
    budget = budget > cap * 11 ? budget - cap * 11 : 0;
    /* Plan every (kind, size): its key count and footprint. */
    size_t n = 0;
    for (size_t ki = 0; ki < NKINDS; ki++)
        for (size_t si = 0; si < o->nsizes; si++) {
            st_obj *s = &objs[n];
            memset(s, 0, sizeof *s);
            s->k = &kinds[ki];
            s->target = o->sizes[si];
            s->n = st_size_keys(o, s->k, s->target, &s->bytes);
            snprintf(s->size, sizeof s->size, "%s:%llu", o->sizes_in_keys ? "nkeys" : "bytes",
                     (unsigned long long)s->target);
            if (!s->n) {
                fb_warn(e->ctx, "%s %s: no key count fits; skipped", s->k->name, s->size);
                continue;
            }
            /* Keys, values and the cell array; the construction's scratch is bounded by the
             * library against what is left (max_bytes). */
            uint64_t need = s->n * (8 + (s->k->bloomier ? 2 : 0)) + s->bytes;
            if (need > budget) {
                fb_warn(e->ctx, "%s %s: %llu keys do not fit in 60%% of available memory; "
                                "skipped", s->k->name, s->size, (unsigned long long)s->n);
                continue;
            }
            n++;
        }
    /* The physical bound at every footprint not probed yet, while memory is free. */
    if (o->probe_memory) {
        fb_report_section(e);
        for (size_t i = 0; i < n; i++)
            if (isnan(fb_bound_ns(e, objs[i].bytes))) {
                char hb[32];
                fb_status("probe %s", fb_fmt_bytes(objs[i].bytes, hb, sizeof hb));
                fb_probe_footprint(e, objs[i].bytes);
                fb_report_done(e);
            }
    }
    fb_report_section(e);
    for (size_t i = 0; i < n; i++)
        st_run_one(e, &objs[i], budget, pool, found, values);
out:
    free(objs);
    free(pool);
    free(found);
    free(values);
}
