/*
 * Callgrind re-runs: after the timed sweep, each lookup configuration runs again in a child
 * flbench under valgrind's cache simulator (counters_callgrind.c runs valgrind and parses its
 * output); the child (--cg-child) builds the one filter and toggles collection around the
 * lookup loop only.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sweep.h"

int fb_callgrind_setup(fb_env *e, fb_cg_geometry *geo) {
    const fb_options *o = e->o;
    char ver[128];
    if (fb_cg_valgrind_version(ver, sizeof ver) != 0) {
        fprintf(stderr, "flbench: --counters callgrind needs valgrind on PATH (apt-get install "
                        "valgrind)\n");
        return 2;
    }
    fb_cg_geometry_init(geo, o->cg_d1, o->cg_ll);
    json_t *cg = json_object();
    json_object_set_new(cg, "valgrind", json_string(ver));
    json_object_set_new(cg, "D1", json_string(geo->d1));
    json_object_set_new(cg, "LL", json_string(geo->ll));
    json_object_set_new(cg, "geometry_source", json_string(geo->source));
    json_object_set_new(cg, "geometry_note", json_string(geo->note));
    json_object_set_new(cg, "lookups", json_integer((json_int_t)o->cg_lookups));
    json_object_set_new(cg, "label", json_string("simulated (callgrind --cache-sim=yes), warm "
                                                 "caches, collection toggled around the "
                                                 "lookup loop only"));
    json_object_set_new(e->ctx, "callgrind", cg);
    e->info.simulated = 1;
    return 0;
}

void fb_callgrind_config(fb_env *e, const fb_cg_geometry *geo, fb_lcfg *c) {
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
                    (char *)fb_kname(e, c->ki),
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
                    (char *)fb_keys_name(o),
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

/* The child: one configuration, client requests around the lookup loop only. */
int fb_cg_child_main(const fb_options *o) {
    fb_env e;
    memset(&e, 0, sizeof e);
    e.o = o;
    const char *kn = o->nkernels ? o->kernels[0] : fl_kernel_active();
    fb_spec s;
    char err[256];
    if (o->nvariants != 1 || o->nsizes != 1 || o->nhits != 1) {
        printf("FLBENCH-CG status=error lookups=0 kernel=%s why=one configuration expected\n", kn);
        return 0;
    }
    if (fb_size_spec(o, o->variants[0], o->sizes[0], &s, err, sizeof err) ||
        fb_create_filter(o, &s, err, sizeof err)) {
        printf("FLBENCH-CG status=error lookups=0 kernel=%s why=%s\n", kn, err);
        return 0;
    }
    fl_status st = fl_filter_bind_kernel(s.f, kn);
    if (st != FL_OK) {
        printf("FLBENCH-CG status=unavailable lookups=0 kernel=%s why=kernel %s cannot run under "
               "valgrind's synthetic CPU (%s)\n",
               kn, kn, fl_strerror(st));
        return 0;
    }
    size_t L = (size_t)o->lookups, W = L < FB_WARM_MAX ? L : FB_WARM_MAX;
    if (fb_env_buffers(&e, L + W))
        return 2;
    if (fb_build_timed(&e, &s, NULL, 0))
        return 2;
    fb_rng rng = {o->seed ^ 0xc611};
    uint64_t cursor = FB_ID_MISS;
    fb_keys_fill_mix(&e.pool, W + L, o->hits[0], s.inserted, &cursor, &rng, o->seed);
    int bad = 0;
    fb_cg_start_instrumentation(); /* once: the warm-up below fills the simulated caches */
    fb_run_lookups(&e, s.f, &e.pool, 0, W, &bad);
    fb_cg_toggle_collect();
    fb_run_lookups(&e, s.f, &e.pool, W, L, &bad);
    fb_cg_toggle_collect();
    printf("FLBENCH-CG status=%s lookups=%zu kernel=%s\n", bad ? "error" : "ok", L,
           fl_filter_kernel(s.f));
    fflush(stdout);
    fl_free(s.f);
    fb_env_free(&e);
    return 0;
}
