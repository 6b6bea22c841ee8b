/*
 * Scalable Bloom suite: ns per insert (fl_sbf_add_hashes, RedisBloom's BF.ADD semantics: a key
 * the chain already reports is not added) and per batch lookup (fl_sbf_contains_hashes, each
 * sub-filter's kernel over the batch) of chains with 1, 2, 4, 8 ... sub-filters
 * (--sbf-filters) at equal total size: for each --sizes byte count and chain length f, the
 * first capacity c is chosen so that the f sub-filters the chain holds when full take that
 * many bytes together. Sub-filter i holds ceil(c * g^i) keys at p_i = p (1 - r) r^i
 * (include/filterlab_sbf.h; g = --sbf-growth, r = 0.5, p = --fpr), each sized by
 * fl_params_for of the chain's variant (block512, the library's default): the bytes are
 * linear in c to within rounding, so three rescalings of c hit the target. The chain is
 * then filled to exactly f sub-filters at capacity, the state with the most sub-filters per
 * byte. The one-sub-filter chain at the same size is the "one filter of the same total size"
 * the others compare with.
 *
 * Keys are hashed before timing (fl_hash_u64, as the filter sweep's u64 keys). Inserts: one
 * build per chain whose chunks rotate through the kernels (each timed into its own result,
 * as the filter sweep's shared build). Lookups: --hit-rate mixes of inserted and
 * never-inserted keys, a fresh pool per repetition, 64Ki untimed warm-up lookups; the chains
 * of one size stay resident together when memory allows and every (chain, kernel, hit rate)
 * runs one repetition per round, so the lengths are compared in alternation.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"

#define SBF_VARIANT FL_BLOCK512
#define SBF_TIGHTENING 0.5

typedef struct sbf_chain {
    uint32_t f;
    uint64_t target, capacity, next_id;
    fl_sbf *s;
    char size[48], params[48];
    int failed;
} sbf_chain;

typedef struct sbf_lcfg {
    sbf_chain *ch;
    size_t ki;
    double hit;
    fb_result *r;
    fb_rng rng;
    uint64_t miss_cursor;
} sbf_lcfg;

/* The payload bytes fl_params_for gives the f sub-filters of a chain of first capacity c. */
static double chain_bytes(const fb_options *o, double c, uint32_t f) {
    double total = 0, p_i = o->fpr * (1 - SBF_TIGHTENING);
    for (uint32_t i = 0; i < f; i++, p_i *= SBF_TIGHTENING) {
        fl_params p;
        uint64_t cap = (uint64_t)ceil(c * pow(o->sbf_growth, i));
        if (fl_params_for(SBF_VARIANT, cap ? cap : 1, p_i, &p) != FL_OK)
            return NAN;
        total += (double)p.bytes;
    }
    return total;
}

static uint64_t capacity_for(const fb_options *o, uint64_t bytes, uint32_t f) {
    double c = 65536;
    for (int i = 0; i < 3; i++) {
        double b = chain_bytes(o, c, f);
        if (!(b > 0))
            return 0;
        c = floor(c * (double)bytes / b);
        if (c < 1)
            return 0;
    }
    return (uint64_t)c;
}

static void chain_fields(fb_result *r, const sbf_chain *ch) {
    fl_sbf_info in;
    fl_sbf_get_info(ch->s, &in);
    fb_result_int(r, "target_bytes", (int64_t)ch->target);
    fb_result_int(r, "structure_bytes", (int64_t)in.bytes);
    fb_result_int(r, "sub_filters", in.filters);
    fb_result_int(r, "sub_filters_requested", ch->f);
    fb_result_int(r, "capacity", (int64_t)in.capacity);
    fb_result_num(r, "growth", in.growth);
    fb_result_num(r, "tightening", in.tightening);
    fb_result_num(r, "error_rate", in.error_rate);
    fb_result_str(r, "filter", fl_variant_name(in.variant));
    fb_result_int(r, "keys_inserted", (int64_t)in.items);
    fb_result_num(r, "fpr_predicted", in.predicted_fpr);
}

/* The kernel the chain's sub-filters run now (after fl_sbf_bind_kernel). */
static void kernel_used(fb_result *r, const sbf_chain *ch) {
    const char *k = fl_sbf_kernel(ch->s, 0);
    fb_result_str(r, "kernel_used", k ? k : "?");
}

/* Fills the chain to exactly f sub-filters at capacity, chunks rotating over the kernels. */
static int chain_build(fb_env *e, sbf_chain *ch, fb_keys_buf *chunk) {
    const fb_options *o = e->o;
    size_t nk = o->nkernels;
    fl_sbf_config cfg = {.capacity = ch->capacity, .error_rate = o->fpr, .growth = o->sbf_growth,
                         .tightening = SBF_TIGHTENING, .variant = SBF_VARIANT, .seed = o->seed};
    fl_status st = fl_sbf_create(&cfg, &ch->s);
    if (st != FL_OK) {
        fb_warn(e->ctx, "sbf %s %s: fl_sbf_create: %s; skipped", ch->size, ch->params,
                fl_strerror(st));
        ch->s = NULL;
        return -1;
    }
    double target_n = 0;
    for (uint32_t i = 0; i < ch->f; i++)
        target_n += ceil((double)ch->capacity * pow(o->sbf_growth, i));
    uint64_t chunk_keys = (uint64_t)target_n / (8 * nk);
    chunk_keys = chunk_keys < 1024 ? 1024 : chunk_keys > FB_CHUNK ? FB_CHUNK : chunk_keys;
    fb_result *ins[FB_MAX_KERNELS];
    fb_meas m[FB_MAX_KERNELS];
    uint64_t keys[FB_MAX_KERNELS] = {0};
    for (size_t ki = 0; ki < nk; ki++) {
        ins[ki] = fb_fam_result(e, "insert", "sbf", "key", ki, ch->size, ch->params, 0);
        ins[ki]->reps = 1; /* one shared build */
        fb_result_str(ins[ki], "insert_method", "shared_build");
        fb_meas_reset(&m[ki]);
    }
    for (size_t turn = 0;; turn++) {
        fl_sbf_info in;
        fl_sbf_get_info(ch->s, &in);
        if (in.filters > ch->f)
            break;
        uint64_t goal = in.filters == ch->f ? in.total_capacity
                        : (uint64_t)target_n > in.total_capacity ? (uint64_t)target_n
                                                                 : in.total_capacity + 1;
        if (in.items >= goal)
            break;
        size_t cnt = (size_t)(goal - in.items < chunk_keys ? goal - in.items : chunk_keys);
        size_t ki = turn % nk;
        if (fl_sbf_bind_kernel(ch->s, fb_kname(e, ki)) != FL_OK) {
            fb_warn(e->ctx, "sbf: kernel %s cannot be bound", fb_kname(e, ki));
            return -1;
        }
        if (!keys[ki])
            kernel_used(ins[ki], ch);
        fb_keys_clear(chunk);
        for (size_t j = 0; j < cnt; j++)
            fb_keys_push(chunk, ch->next_id + j, o->seed);
        fb_meas_begin(e, &m[ki]);
        st = fl_sbf_add_hashes(ch->s, chunk->hashes, cnt, NULL, NULL);
        fb_meas_end(e, &m[ki]);
        if (st != FL_OK) {
            fb_warn(e->ctx, "sbf %s %s: fl_sbf_add_hashes: %s", ch->size, ch->params,
                    fl_strerror(st));
            return -1;
        }
        ch->next_id += cnt;
        keys[ki] += cnt;
    }
    for (size_t ki = 0; ki < nk; ki++) {
        ins[ki]->items = keys[ki];
        fb_result_int(ins[ki], "insert_keys_timed", (int64_t)keys[ki]);
        chain_fields(ins[ki], ch);
        fb_fam_record(e, ins[ki], 0, &m[ki], (double)keys[ki]);
    }
    fl_sbf_info in;
    fl_sbf_get_info(ch->s, &in);
    if (in.filters != ch->f)
        fb_warn(e->ctx, "sbf %s %s: %u sub-filters instead of %u", ch->size, ch->params,
                in.filters, ch->f);
    fb_report_done(e);
    return 0;
}

static void lookup_rep(fb_env *e, sbf_lcfg *c, int rep, fb_keys_buf *pool, uint8_t *out) {
    const fb_options *o = e->o;
    sbf_chain *ch = c->ch;
    if (fl_sbf_bind_kernel(ch->s, fb_kname(e, c->ki)) != FL_OK)
        return;
    kernel_used(c->r, ch);
    size_t L = (size_t)o->lookups, W = L < FB_WARM_MAX ? L : FB_WARM_MAX, B = o->batch;
    fb_keys_clear(pool);
    fb_keys_fill_mix(pool, W + L, c->hit, ch->next_id, &c->miss_cursor, &c->rng, o->seed);
    size_t pos = 0, p;
    for (size_t off = 0; off < W; off += B)
        fl_sbf_contains_hashes(ch->s, pool->hashes + off, W - off < B ? W - off : B, out, &p);
    fl_status st = FL_OK;
    fb_meas m;
    fb_meas_reset(&m);
    fb_meas_begin(e, &m);
    for (size_t off = W; off < W + L && st == FL_OK; off += B) {
        st = fl_sbf_contains_hashes(ch->s, pool->hashes + off, W + L - off < B ? W + L - off : B,
                                    out, &p);
        pos += p;
    }
    fb_meas_end(e, &m);
    if (st != FL_OK) {
        fb_result_str(c->r, "error", fl_strerror(st));
        return;
    }
    if (rep < 0)
        return;
    fb_fam_record(e, c->r, rep, &m, (double)L);
    fb_result_series(c->r, "positives_fraction")[rep] = (double)pos / (double)L;
}

/* Builds the chains of one size and measures their lookups in rounds. */
static void run_group(fb_env *e, sbf_chain *chains, size_t nch, fb_keys_buf *chunk,
                      fb_keys_buf *pool, uint8_t *out) {
    const fb_options *o = e->o;
    char hb[32];
    size_t ncfg = 0;
    sbf_lcfg *cfgs = calloc(nch * o->nkernels * o->nhits + 1, sizeof *cfgs);
    if (!cfgs)
        return;
    for (size_t i = 0; i < nch; i++) {
        sbf_chain *ch = &chains[i];
        fb_status("sbf %s, %u sub-filters (first capacity %llu): building",
                fb_fmt_bytes(ch->target, hb, sizeof hb), ch->f,
                (unsigned long long)ch->capacity);
        if (chain_build(e, ch, chunk)) {
            ch->failed = 1;
            continue;
        }
        for (size_t ki = 0; ki < o->nkernels; ki++)
            for (size_t hi = 0; hi < o->nhits; hi++) {
                sbf_lcfg *c = &cfgs[ncfg++];
                char params[96];
                snprintf(params, sizeof params, "%s/hit:%g", ch->params, o->hits[hi]);
                c->ch = ch;
                c->ki = ki;
                c->hit = o->hits[hi];
                c->r = fb_fam_result(e, "lookup", "sbf", "lookup", ki, ch->size, params,
                                     o->lookups);
                fb_result_num(c->r, "hit_rate", c->hit);
                chain_fields(c->r, ch);
                c->rng.s = o->seed ^ fl_mix64(ch->target * 131 + ch->f * 31 + ki * 17 + hi);
                c->miss_cursor = FB_ID_MISS;
            }
    }
    for (int rep = -o->warmup; rep < o->reps; rep++)
        for (size_t i = 0; i < ncfg; i++)
            lookup_rep(e, &cfgs[i], rep, pool, out);
    fb_report_done(e);
    for (size_t i = 0; i < nch; i++) {
        fl_sbf_free(chains[i].s);
        chains[i].s = NULL;
    }
    free(cfgs);
}

/* Results of the suite (progress line): per size and chain length, an insert per kernel and
 * a lookup per kernel and hit rate. */
size_t fb_family_sbf_planned(const fb_options *o, const uint64_t *probed, size_t nprobed) {
    (void)probed, (void)nprobed;
    return o->nsizes * o->nsbf_filters * o->nkernels * (1 + o->nhits);
}

void fb_family_sbf(fb_env *e) {
    const fb_options *o = e->o;
    size_t L = (size_t)o->lookups, W = L < FB_WARM_MAX ? L : FB_WARM_MAX;
    fb_keys_buf chunk, pool;
    memset(&chunk, 0, sizeof chunk);
    memset(&pool, 0, sizeof pool);
    uint8_t *out = malloc(o->batch);
    if (!out || fb_keys_alloc(&chunk, FB_KEYS_U64, FB_CHUNK) ||
        fb_keys_alloc(&pool, FB_KEYS_U64, L + W)) {
        fb_warn(e->ctx, "sbf: out of memory for the key buffers; suite skipped");
        free(out);
        fb_keys_free(&chunk);
        fb_keys_free(&pool);
        return;
    }
    uint64_t budget = fb_fam_budget(e);
    budget = budget > (L + W) * 8 ? budget - (L + W) * 8 : 0;
    for (size_t si = 0; si < o->nsizes; si++) {
        sbf_chain chains[FB_MAX_PARAMS];
        size_t nch = 0;
        for (size_t fi = 0; fi < o->nsbf_filters; fi++) {
            sbf_chain *ch = &chains[nch];
            memset(ch, 0, sizeof *ch);
            ch->f = o->sbf_filters[fi];
            ch->target = o->sizes[si];
            ch->capacity = capacity_for(o, ch->target, ch->f);
            if (!ch->capacity || ch->target > budget) {
                fb_warn(e->ctx, "sbf size %llu with %u sub-filters: cannot be sized (or "
                                "above the memory budget); skipped",
                        (unsigned long long)ch->target, ch->f);
                continue;
            }
            snprintf(ch->size, sizeof ch->size, "bytes:%llu", (unsigned long long)ch->target);
            snprintf(ch->params, sizeof ch->params, "filters:%u", ch->f);
            nch++;
        }
        /* All lengths of this size resident together (compared in alternation) if they fit. */
        if ((double)nch * (double)o->sizes[si] * 1.1 <= (double)budget) {
            run_group(e, chains, nch, &chunk, &pool, out);
        } else {
            for (size_t i = 0; i < nch; i++)
                run_group(e, &chains[i], 1, &chunk, &pool, out);
        }
    }
    free(out);
    fb_keys_free(&chunk);
    fb_keys_free(&pool);
}
