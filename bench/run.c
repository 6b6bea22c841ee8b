/*
 * The sweep: for each filter variant and size, build the filter once (timing the inserts per
 * kernel), measure its FPR on never-inserted keys, then time lookups for every kernel and hit
 * rate. Optionally: the memory probe first (the physical bound at each footprint) and, after
 * the lookups, a callgrind re-run of each configuration for simulated misses.
 *
 * This file plans and drives; each job lives in its own file (sweep.h lists them), and calls
 * go one way, from here to them. Results go to fb_results, and the listener hears of each
 * one as it completes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"

static void shuffle(fb_lcfg **v, size_t n, fb_rng *rng) {
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)fb_rng_below(rng, i);
        fb_lcfg *t = v[i - 1];
        v[i - 1] = v[j];
        v[j] = t;
    }
}

/* Times the inserts of every kernel and leaves s->f built. A (filter, kernel) gets
 * insert_budget / n whole builds (at most --reps); when that is one build and there are
 * several kernels, the filter is built once for all of them instead (fb_build_rotated), so
 * a DRAM-sized filter is filled once, not once per kernel. */
static int build_and_time(fb_env *e, fb_spec *s, fb_result **ins) {
    const fb_options *o = e->o;
    size_t nk = o->nkernels;
    uint64_t builds = o->insert_budget / (s->n ? s->n : 1);
    if (builds < 1)
        builds = 1;
    if (builds > (uint64_t)o->reps)
        builds = (uint64_t)o->reps;
    int shared = nk > 1 && builds == 1;
    for (size_t ki = 0; ki < nk; ki++) {
        ins[ki] = fb_new_insert_result(e, s, ki, (int)builds, shared ? s->n / nk : s->n);
        fb_result_str(ins[ki], "insert_method", shared ? "shared_build" : "own_builds");
    }
    if (shared)
        return fb_build_rotated(e, s, ins, nk);
    for (size_t ki = 0; ki < nk; ki++) {
        if (fl_filter_bind_kernel(s->f, fb_kname(e, ki)) != FL_OK)
            continue;
        for (int rep = 0; rep < ins[ki]->reps; rep++) {
            if (fb_build_timed(e, s, ins[ki], rep))
                return -1;
            fb_progress_tick();
        }
        fb_result_int(ins[ki], "insert_keys_timed", (int64_t)s->inserted);
    }
    return 0;
}

/* Builds a filter (timing inserts), measures its FPR, and adds its lookup configurations. */
static int prepare_spec(fb_env *e, fb_spec *s, fb_lcfg *cfgs, size_t *ncfg) {
    const fb_options *o = e->o;
    char err[256], hb[32];
    fb_status("%s %s (%llu keys, k=%u): building", fl_variant_name(s->v),
            fb_fmt_bytes(s->bytes, hb, sizeof hb), (unsigned long long)s->n, s->g.k);
    if (fb_create_filter(o, s, err, sizeof err)) {
        fb_warn(e->ctx, "%s %zu bytes: %s; skipped", fl_variant_name(s->v), s->bytes, err);
        s->failed = 1;
        return -1;
    }
    fb_result *ins[FB_MAX_KERNELS];
    if (build_and_time(e, s, ins)) {
        s->failed = 1;
        return -1;
    }
    fl_filter_bind_kernel(s->f, fb_kname(e, 0));
    fb_measure_fpr(e, s);
    for (size_t ki = 0; ki < o->nkernels; ki++)
        fb_spec_fields(e, ins[ki], s, ki);
    for (size_t ki = 0; ki < o->nkernels; ki++)
        for (size_t hi = 0; hi < o->nhits; hi++) {
            fb_lcfg *c = &cfgs[(*ncfg)++];
            memset(c, 0, sizeof *c);
            c->s = s;
            c->ki = ki;
            c->hit = o->hits[hi];
            c->r = fb_new_lookup_result(e, s, ki, c->hit);
            c->rng.s = o->seed ^ fl_mix64(s->bytes * 131 + ki * 17 + hi);
            c->miss_cursor = FB_ID_MISS;
            fb_spec_fields(e, c->r, s, ki);
        }
    fb_report_done(e);
    return 0;
}

static void run_configs(fb_env *e, fb_lcfg **v, size_t n, fb_rng *rng) {
    const fb_options *o = e->o;
    int total = o->warmup + o->reps;
    if (o->interleave) {
        /* Every round runs one repetition of each configuration in a fresh random order. */
        for (int round = 0; round < total; round++) {
            shuffle(v, n, rng);
            for (size_t i = 0; i < n; i++) {
                fb_lookup_rep(e, v[i]);
                fb_progress_tick();
            }
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            for (int round = 0; round < total; round++) {
                fb_lookup_rep(e, v[i]);
                fb_progress_tick();
            }
            fb_report_done(e);
        }
    }
}

/* Deletes after the lookups (a delete changes the filter; each repetition puts its keys
 * back), per kernel. */
static void run_deletes(fb_env *e, fb_spec *s) {
    const fb_options *o = e->o;
    if (s->failed || !s->f || !fb_variant_deletes(s->v))
        return;
    for (size_t ki = 0; ki < o->nkernels; ki++) {
        if (fl_filter_bind_kernel(s->f, fb_kname(e, ki)) != FL_OK)
            continue;
        fb_result *r = fb_new_delete_result(e, s, ki);
        fb_spec_fields(e, r, s, ki);
        fb_rng rng = {o->seed ^ fl_mix64(s->bytes * 7 + ki)};
        for (int rep = -o->warmup; rep < o->reps; rep++)
            fb_delete_rep(e, s, r, rep, &rng);
        fb_report_done(e);
    }
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The memory probe at each distinct footprint, smallest first. */
static void probe_all(fb_env *e, const uint64_t *bytes, size_t n) {
    uint64_t fps[256];
    size_t nfp = 0;
    char hb[32];
    for (size_t i = 0; i < n && nfp < 256; i++) {
        int seen = 0;
        for (size_t j = 0; j < nfp; j++)
            seen |= fps[j] == bytes[i];
        if (!seen)
            fps[nfp++] = bytes[i];
    }
    qsort(fps, nfp, sizeof fps[0], cmp_u64);
    fb_report_section(e);
    for (size_t i = 0; i < nfp; i++) {
        fb_status("probe %s", fb_fmt_bytes(fps[i], hb, sizeof hb));
        fb_probe_footprint(e, fps[i]);
        fb_report_done(e);
    }
}

/* Sizes every (variant, size) into specs, leaving out what cannot be sized or does not fit
 * in 60% of the available memory (minus the key pool); returns the count. */
static size_t plan(fb_env *e, const fb_machine *m, size_t pool_keys, fb_spec *specs,
                   uint64_t *budget_out, uint64_t *total_out) {
    const fb_options *o = e->o;
    uint64_t budget = m->mem_available ? m->mem_available / 10 * 6 : UINT64_MAX;
    uint64_t pool_bytes = pool_keys * (o->keys == FB_KEYS_URL ? 8 + 8 + 4 + 96 : 8);
    budget = budget > pool_bytes ? budget - pool_bytes : 0;
    uint64_t total_bytes = 0;
    size_t ns = 0;
    char err[256], hb[32];
    int filters = !o->probe_only && (o->structures & FB_ST_FILTER);
    for (size_t vi = 0; vi < o->nvariants && filters; vi++)
        for (size_t si = 0; si < o->nsizes; si++) {
            fb_spec *s = &specs[ns];
            if (fb_size_spec(o, o->variants[vi], o->sizes[si], s, err, sizeof err)) {
                fb_warn(e->ctx, "%s size %llu: %s; skipped", fl_variant_name(o->variants[vi]),
                        (unsigned long long)o->sizes[si], err);
                continue;
            }
            if (s->bytes > budget) {
                fb_warn(e->ctx, "%s %s: larger than 60%% of available memory; skipped",
                        fl_variant_name(s->v), fb_fmt_bytes(s->bytes, hb, sizeof hb));
                continue;
            }
            total_bytes += s->bytes;
            ns++;
        }
    *budget_out = budget;
    *total_out = total_bytes;
    return ns;
}

/* The sweep's results, for the progress line: the probe's two per distinct footprint, and
 * per filter an insert per kernel, a lookup per kernel and hit rate, and a delete per kernel
 * for the variants that delete; with --counters callgrind, each lookup once more (its
 * re-run under valgrind). */
static size_t planned_results(const fb_options *o, const fb_spec *specs, size_t ns,
                              const uint64_t *footprints, size_t nfoot) {
    size_t n = 0;
    for (size_t i = 0; i < nfoot && o->probe_memory; i++) {
        int seen = 0;
        for (size_t j = 0; j < i; j++)
            seen |= footprints[j] == footprints[i];
        n += seen ? 0 : 2;
    }
    int cg = o->counters == FB_CNT_CALLGRIND;
    for (size_t i = 0; i < ns; i++)
        n += o->nkernels * (1 + o->nhits * (cg ? 2 : 1) + (fb_variant_deletes(specs[i].v) ? 1 : 0));
    return n;
}

int fb_run(const fb_options *o, const fb_machine *m, json_t *ctx, fb_results *rs,
           const fb_listener *l) {
    fb_env e;
    memset(&e, 0, sizeof e);
    e.o = o;
    e.ctx = ctx;
    e.rs = rs;
    e.l = l;

    fb_counters_setup(&e);
    fb_cg_geometry geo;
    memset(&geo, 0, sizeof geo);
    if (o->counters == FB_CNT_CALLGRIND) {
        int rc = fb_callgrind_setup(&e, &geo);
        if (rc)
            return rc;
    }
    if (l && l->begin)
        l->begin(l->arg, ctx, &e.info);

    /* Plan the filters. */
    size_t nspec = o->probe_only || !(o->structures & FB_ST_FILTER) ? 0 : o->nvariants * o->nsizes;
    fb_spec *specs = calloc(nspec ? nspec : 1, sizeof *specs);
    uint64_t *footprints = calloc(nspec + o->nsizes + 1, sizeof *footprints);
    if (!specs || !footprints) {
        fprintf(stderr, "flbench: out of memory\n");
        return 2;
    }
    size_t pool_keys = (size_t)o->lookups + FB_WARM_MAX;
    uint64_t budget, total_bytes;
    size_t ns = plan(&e, m, pool_keys, specs, &budget, &total_bytes);
    size_t nfoot = ns;
    for (size_t i = 0; i < ns; i++)
        footprints[i] = specs[i].bytes;
    if (o->probe_only)
        for (size_t si = 0; si < o->nsizes; si++)
            footprints[nfoot++] = o->sizes[si];
    char hb[32];
    fb_progress_plan(planned_results(o, specs, ns, footprints, nfoot) +
                     fb_family_planned(o, o->probe_memory ? footprints : NULL, nfoot));

    if (fb_env_buffers(&e, pool_keys)) {
        fprintf(stderr, "flbench: out of memory for key buffers\n");
        return 2;
    }

    /* The physical bound first, while memory is free. */
    if (o->probe_memory && nfoot)
        probe_all(&e, footprints, nfoot);

    fb_lcfg *cfgs = calloc(ns * o->nkernels * o->nhits + 1, sizeof *cfgs);
    fb_lcfg **order = calloc(ns * o->nkernels * o->nhits + 1, sizeof *order);
    if (!cfgs || !order) {
        fprintf(stderr, "flbench: out of memory\n");
        return 2;
    }
    size_t ncfg = 0;
    fb_rng rng = {o->seed ^ UINT64_C(0x9b1e7e1eaf)};
    int all_resident = o->interleave && total_bytes <= budget;
    if (o->interleave && !all_resident)
        fb_warn(ctx, "--interleave: the filters (%s) do not fit in memory together; "
                     "configurations are interleaved within each filter instead",
                fb_fmt_bytes(total_bytes, hb, sizeof hb));
    json_object_set_new(ctx, "interleave_scope",
                        json_string(!o->interleave ? "none" : all_resident ? "sweep" : "filter"));
    if (!o->probe_only && nspec)
        fb_report_section(&e);
    if (all_resident) {
        for (size_t i = 0; i < ns; i++)
            prepare_spec(&e, &specs[i], cfgs, &ncfg);
        for (size_t i = 0; i < ncfg; i++)
            order[i] = &cfgs[i];
        fb_status("%zu lookup configurations, interleaved", ncfg);
        run_configs(&e, order, ncfg, &rng);
        for (size_t i = 0; i < ns; i++)
            run_deletes(&e, &specs[i]);
    } else {
        for (size_t i = 0; i < ns; i++) {
            size_t first = ncfg;
            if (prepare_spec(&e, &specs[i], cfgs, &ncfg) == 0) {
                for (size_t j = first; j < ncfg; j++)
                    order[j - first] = &cfgs[j];
                run_configs(&e, order, ncfg - first, &rng);
                run_deletes(&e, &specs[i]);
            }
            fl_free(specs[i].f);
            specs[i].f = NULL;
        }
    }
    for (size_t i = 0; i < ns; i++) {
        fl_free(specs[i].f);
        specs[i].f = NULL;
    }
    fb_attach_bounds(&e);
    fb_report_done(&e);
    if (!o->probe_only)
        fb_family_run(&e);

    if (o->counters == FB_CNT_CALLGRIND) {
        fb_status("callgrind: re-running %zu configurations under valgrind", ncfg);
        for (size_t i = 0; i < ncfg; i++) {
            fb_callgrind_config(&e, &geo, &cfgs[i]);
            fb_progress_done(1);
        }
        fb_report_section(&e);
        for (size_t i = 0; i < ncfg; i++) /* again, now with the simulated columns */
            if (l && l->result && cfgs[i].r->reps_done > 0)
                l->result(l->arg, cfgs[i].r);
    }

    fb_perf_close(&e.perf);
    fb_env_free(&e);
    free(cfgs);
    free(order);
    free(specs);
    free(footprints);
    return 0;
}
