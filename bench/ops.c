/*
 * The timed operations of the sweep, and the names and static fields of their results.
 *
 * Timed lookups go through fl_contains_hashes in batches of --batch over a key pool generated
 * fresh for every repetition (hit keys uniform over the inserted set, miss keys never
 * inserted), so a filter larger than the last-level cache sees new random lines each time
 * instead of a resident working set. A separate warm-up slice of the pool runs untimed just
 * before the timed slice so cache-sized filters are measured warm after the pool was written.
 *
 * Inserts are the build itself, in calls of FB_CHUNK keys: either whole builds per kernel
 * (fb_build_timed; small filters, several repetitions) or one build whose chunks rotate
 * through the kernels (fb_build_rotated; a filter whose build is too long to repeat).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sweep.h"

/* ----------------------------------------------------------------------------------------
 * Lookups
 * -------------------------------------------------------------------------------------- */
size_t fb_run_lookups(fb_env *e, const fl_filter *f, const fb_keys_buf *k, size_t from,
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

void fb_lookup_rep(fb_env *e, fb_lcfg *c) {
    const fb_options *o = e->o;
    fb_spec *s = c->s;
    int rep = c->reps_run - o->warmup; /* < 0: warm-up repetition */
    c->reps_run++;
    if (s->failed)
        return;
    /* The kernel is the filter's own (fl_filter_bind_kernel), never the process's: a
     * benchmark comparing kernels must not flip a global under other threads. */
    fl_status st = fl_filter_bind_kernel(s->f, fb_kname(e, c->ki));
    if (st != FL_OK) {
        fb_result_str(c->r, "error", fl_strerror(st));
        return;
    }
    size_t L = (size_t)o->lookups, W = L < FB_WARM_MAX ? L : FB_WARM_MAX;
    fb_keys_clear(&e->pool);
    fb_keys_fill_mix(&e->pool, W, c->hit, s->inserted, &c->miss_cursor, &c->rng, o->seed);
    uint64_t warm_hits = e->pool.hits;
    double warm_bytes = e->pool.key_bytes;
    fb_keys_fill_mix(&e->pool, L, c->hit, s->inserted, &c->miss_cursor, &c->rng, o->seed);
    uint64_t hits = e->pool.hits - warm_hits;
    int err = 0;
    fb_run_lookups(e, s->f, &e->pool, 0, W, &err);
    fb_meas m;
    fb_meas_reset(&m);
    fb_meas_begin(e, &m);
    size_t pos = fb_run_lookups(e, s->f, &e->pool, W, L, &err);
    fb_meas_end(e, &m);
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
    fb_meas_record(e, c->r, rep, &m, (double)L);
    fb_note_preemption(c->r, rep);
    fb_result_series(c->r, "ratio_to_bound")[rep] = c->r->real_ns[rep] / fb_bound_ns(e, s->bytes);
    fb_result_series(c->r, "hits_fraction")[rep] = (double)hits / (double)L;
    fb_result_series(c->r, "positives_fraction")[rep] = (double)pos / (double)L;
    if (o->keys == FB_KEYS_URL)
        fb_result_num(c->r, "key_bytes_mean", (e->pool.key_bytes - warm_bytes) / (double)L);
    c->r->reps_done = rep + 1;
}

/* ----------------------------------------------------------------------------------------
 * Inserts
 * -------------------------------------------------------------------------------------- */

/* Inserts ids [id, id + cnt) into s->f inside the region m (URL keys are hashed inside it,
 * like the lookups). Returns the keys inserted, or -1 on an error other than a full filter
 * (*full is set then). */
static int64_t insert_chunk(fb_env *e, fb_spec *s, uint64_t id, size_t cnt, fb_meas *m,
                            int *full) {
    const fb_options *o = e->o;
    fb_keys_clear(&e->chunk);
    for (size_t j = 0; j < cnt; j++)
        fb_keys_push(&e->chunk, id + j, o->seed);
    size_t ins = 0;
    fb_meas_begin(e, m);
    if (e->chunk.type == FB_KEYS_URL)
        for (size_t j = 0; j < cnt; j++)
            e->chunk.hashes[j] = fl_hash_bytes(s->f, e->chunk.arena + e->chunk.off[j], e->chunk.len[j]);
    fl_status st = fl_insert_hashes(s->f, e->chunk.hashes, cnt, &ins);
    fb_meas_end(e, m);
    if (st == FL_ERR_FULL) {
        *full = 1;
        return (int64_t)ins;
    }
    if (st != FL_OK) {
        fb_progress_clear();
        fprintf(stderr, "flbench: fl_insert_hashes: %s\n", fl_strerror(st));
        return -1;
    }
    return (int64_t)cnt;
}

static void warn_full(fb_env *e, const fb_spec *s, const char *name, uint64_t inserted) {
    fb_warn(e->ctx, "%s %s: cuckoo filter full after %llu of %llu keys", fl_variant_name(s->v),
            name, (unsigned long long)inserted, (unsigned long long)s->n);
}

int fb_build_timed(fb_env *e, fb_spec *s, fb_result *r, int rep) {
    fl_clear(s->f); /* also faults the payload in before anything is timed */
    fb_meas m;
    fb_meas_reset(&m);
    uint64_t inserted = 0;
    int full = 0;
    for (uint64_t id = 0; id < s->n && !full; id += FB_CHUNK) {
        size_t cnt = (size_t)(s->n - id < FB_CHUNK ? s->n - id : FB_CHUNK);
        int64_t ins = insert_chunk(e, s, id, cnt, &m, &full);
        if (ins < 0)
            return -1;
        inserted += (uint64_t)ins;
    }
    s->inserted = inserted;
    if (full && rep == 0)
        warn_full(e, s, r ? r->name : "", inserted);
    if (r && inserted) {
        fb_meas_record(e, r, rep, &m, (double)inserted);
        fb_note_preemption(r, rep);
        r->reps_done = rep + 1;
    }
    return 0;
}

int fb_build_rotated(fb_env *e, fb_spec *s, fb_result **ins, size_t nk) {
    fb_meas m[FB_MAX_KERNELS];
    uint64_t keys[FB_MAX_KERNELS] = {0};
    size_t usable[FB_MAX_KERNELS], nu = 0;
    for (size_t ki = 0; ki < nk; ki++) {
        fb_meas_reset(&m[ki]);
        if (fl_filter_bind_kernel(s->f, fb_kname(e, ki)) == FL_OK)
            usable[nu++] = ki;
        else
            fb_result_str(ins[ki], "error", "kernel cannot be selected");
    }
    if (!nu)
        return -1;
    /* At least 8 chunks per kernel when the filter allows it, so each kernel's share is
     * spread over the whole fill (a cuckoo insert slows down as the load rises). */
    uint64_t chunk = s->n / (8 * nu);
    chunk = chunk < 1024 ? 1024 : chunk > FB_CHUNK ? FB_CHUNK : chunk;
    fl_clear(s->f); /* also faults the payload in before anything is timed */
    uint64_t inserted = 0;
    int full = 0;
    size_t turn = 0;
    for (uint64_t id = 0; id < s->n && !full; id += chunk, turn++) {
        size_t ki = usable[turn % nu];
        fl_filter_bind_kernel(s->f, fb_kname(e, ki));
        size_t cnt = (size_t)(s->n - id < chunk ? s->n - id : chunk);
        int64_t got = insert_chunk(e, s, id, cnt, &m[ki], &full);
        if (got < 0)
            return -1;
        inserted += (uint64_t)got;
        keys[ki] += (uint64_t)got;
    }
    s->inserted = inserted;
    if (full)
        warn_full(e, s, "(shared build)", inserted);
    for (size_t u = 0; u < nu; u++) {
        size_t ki = usable[u];
        fb_result *r = ins[ki];
        r->items = keys[ki];
        fb_result_int(r, "insert_keys_timed", (int64_t)keys[ki]);
        if (keys[ki]) {
            fb_meas_record(e, r, 0, &m[ki], (double)keys[ki]);
            fb_note_preemption(r, 0);
            r->reps_done = 1;
        }
    }
    return 0;
}

/* ----------------------------------------------------------------------------------------
 * Deletes: every variant with FL_CAP_DELETE (the counting Bloom variants and cuckoo). Each
 * repetition puts its deleted keys back, so the next configuration sees the same keys. For
 * cuckoo the keys go back into a table that is as full as before, so a re-insert can in
 * principle be refused (the table is sized within its load limit and has a stash, Fan et al.
 * 2014, so this is not expected); a refusal is warned about and counted in the result
 * ("reinserts_refused"), never hidden.
 * -------------------------------------------------------------------------------------- */
int fb_variant_deletes(fl_variant v) {
    fl_variant_info vi;
    return fl_variant_describe(v, &vi) == FL_OK && (vi.caps & FL_CAP_DELETE);
}

/* One repetition of deletes: min(--lookups, inserted) distinct inserted keys (a run of ids
 * from a random start, so no key is deleted twice: that would be the caller's error) go out
 * through fl_delete_hash, timed (URL keys hashed inside the region, as for inserts), and
 * back in untimed, so the filter is the same for the next repetition and configuration. */
void fb_delete_rep(fb_env *e, fb_spec *s, fb_result *r, int rep, fb_rng *rng) {
    const fb_options *o = e->o;
    if (s->failed || !s->inserted)
        return;
    uint64_t n = s->inserted, want = o->lookups < n ? o->lookups : n;
    uint64_t start = fb_rng_below(rng, n), done = 0, refused = 0, lost = 0;
    fb_meas m;
    fb_meas_reset(&m);
    while (done < want) {
        size_t cnt = (size_t)(want - done < FB_CHUNK ? want - done : FB_CHUNK);
        fb_keys_clear(&e->chunk);
        for (size_t j = 0; j < cnt; j++)
            fb_keys_push(&e->chunk, (start + done + j) % n, o->seed);
        fb_meas_begin(e, &m);
        if (e->chunk.type == FB_KEYS_URL)
            for (size_t j = 0; j < cnt; j++)
                e->chunk.hashes[j] =
                    fl_hash_bytes(s->f, e->chunk.arena + e->chunk.off[j], e->chunk.len[j]);
        for (size_t j = 0; j < cnt; j++)
            refused += fl_delete_hash(s->f, e->chunk.hashes[j]) != FL_OK;
        fb_meas_end(e, &m);
        size_t back = 0;
        if (fl_insert_hashes(s->f, e->chunk.hashes, cnt, &back) != FL_OK || back != cnt) {
            fb_warn(e->ctx, "%s: %zu of %zu deleted keys could not be inserted again", r->name,
                    cnt - back, cnt);
            lost += cnt - back;
        }
        done += cnt;
    }
    if (refused)
        fb_result_int(r, "deletes_refused", (int64_t)refused);
    if (lost)
        fb_result_int(r, "reinserts_refused", (int64_t)lost);
    if (rep < 0)
        return;
    r->items = want;
    fb_meas_record(e, r, rep, &m, (double)want);
    fb_note_preemption(r, rep);
    r->reps_done = rep + 1;
}

fb_result *fb_new_delete_result(fb_env *e, fb_spec *s, size_t ki) {
    const fb_options *o = e->o;
    char name[224];
    snprintf(name, sizeof name, "delete/%s/%s/%s:%llu/keys:%s", fl_variant_name(s->v),
             fb_kname(e, ki), o->sizes_in_keys ? "nkeys" : "bytes", (unsigned long long)s->target,
             fb_keys_name(o));
    return fb_result_add(e->rs, FB_OP_DELETE, name, o->reps, o->lookups);
}

/* ----------------------------------------------------------------------------------------
 * FPR on never-inserted keys, and a false-negative check on inserted ones.
 * -------------------------------------------------------------------------------------- */
void fb_measure_fpr(fb_env *e, fb_spec *s) {
    const fb_options *o = e->o;
    uint64_t lo = o->quick ? (UINT64_C(1) << 18) : (UINT64_C(1) << 20);
    uint64_t hi = o->quick ? (UINT64_C(1) << 22) : (UINT64_C(1) << 24);
    uint64_t want = s->fpr_pred > 0 ? (uint64_t)ceil(1000.0 / s->fpr_pred) : hi;
    uint64_t q = want < lo ? lo : want > hi ? hi : want;
    uint64_t cursor = FB_ID_FPR, pos = 0;
    int err = 0;
    for (uint64_t done = 0; done < q; done += FB_CHUNK) {
        size_t cnt = (size_t)(q - done < FB_CHUNK ? q - done : FB_CHUNK);
        fb_keys_clear(&e->chunk);
        for (size_t j = 0; j < cnt; j++)
            fb_keys_push(&e->chunk, cursor++, o->seed);
        pos += fb_run_lookups(e, s->f, &e->chunk, 0, cnt, &err);
    }
    s->fpr_queries = q;
    s->fpr_measured = err ? NAN : (double)pos / (double)q;
    /* Every inserted key must be found. */
    fb_rng rng = {o->seed ^ 0x5eed};
    uint64_t sample = s->inserted < FB_CHUNK ? s->inserted : FB_CHUNK;
    fb_keys_clear(&e->chunk);
    for (uint64_t j = 0; j < sample; j++)
        fb_keys_push(&e->chunk, sample == s->inserted ? j : fb_rng_below(&rng, s->inserted),
                     o->seed);
    size_t found = fb_run_lookups(e, s->f, &e->chunk, 0, (size_t)sample, &err);
    s->fn = sample - found;
    if (s->fn)
        fb_warn(e->ctx, "%s %zu bytes: %llu of %llu inserted keys not found (false negatives)",
                fl_variant_name(s->v), s->bytes, (unsigned long long)s->fn,
                (unsigned long long)sample);
}

/* ----------------------------------------------------------------------------------------
 * Result naming and static fields
 * -------------------------------------------------------------------------------------- */
void fb_spec_fields(fb_env *e, fb_result *r, const fb_spec *s, size_t ki) {
    const fb_options *o = e->o;
    fb_result_str(r, "op", r->op == FB_OP_LOOKUP   ? "lookup"
                           : r->op == FB_OP_DELETE ? "delete"
                                                   : "insert");
    /* The family member: counting Bloom filters (arrays of counters, by their descriptor) are
     * variants of the filter API. */
    fl_variant_info vi;
    int counting = fl_variant_describe(s->v, &vi) == FL_OK && vi.counter_bits;
    fb_result_str(r, "structure", counting ? "counting" : "filter");
    fb_result_str(r, "filter", fl_variant_name(s->v));
    fb_result_str(r, "kernel", fb_kname(e, ki));
    fb_result_str(r, "keys_type", fb_keys_name(o));
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

fb_result *fb_new_insert_result(fb_env *e, fb_spec *s, size_t ki, int reps, uint64_t items) {
    const fb_options *o = e->o;
    char name[224];
    snprintf(name, sizeof name, "insert/%s/%s/%s:%llu/keys:%s", fl_variant_name(s->v),
             fb_kname(e, ki), o->sizes_in_keys ? "nkeys" : "bytes", (unsigned long long)s->target,
             fb_keys_name(o));
    return fb_result_add(e->rs, FB_OP_INSERT, name, reps, items);
}

fb_result *fb_new_lookup_result(fb_env *e, fb_spec *s, size_t ki, double hit) {
    const fb_options *o = e->o;
    char name[224];
    snprintf(name, sizeof name, "lookup/%s/%s/%s:%llu/hit:%g/keys:%s", fl_variant_name(s->v),
             fb_kname(e, ki), o->sizes_in_keys ? "nkeys" : "bytes", (unsigned long long)s->target,
             hit, fb_keys_name(o));
    fb_result *r = fb_result_add(e->rs, FB_OP_LOOKUP, name, o->reps, o->lookups);
    fb_result_num(r, "hit_rate", hit);
    return r;
}
