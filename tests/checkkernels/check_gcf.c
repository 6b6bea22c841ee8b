/*
 * checkkernels, module "gcf": growing cuckoo filter batch lookups against the scalar table,
 * on filters built by the library's own inserts at every number of doublings (0, 1, 3 and
 * 7: slots of every extension length) and sizes from one window to a few MiB, and on
 * payloads of random bytes under views of random columns and windows (shapes no filter has:
 * every kernel must still give scalar's answer, from inside the payload); the header's
 * one-key lookup (fl_gcf_lookup_hash, as this file's flags compile it) against the same
 * answers; and their benchmark.
 */
#include "harness.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcf/gcf_internal.h"

#define SLOT FL_KERNEL_SLOT(gcf.contains)

/* A filter created for `cap` keys and grown by inserting cap << doublings, copied into a
 * fresh tfilter (the harness's guard zone after it); the positives in pos (at most npos). */
static fl_gcf *grown(uint64_t cap, uint32_t doublings, uint64_t *pos, size_t cappos,
                     size_t *npos) {
    fl_gcf *g = NULL;
    if (fl_gcf_create(cap, rnd(), &g) != FL_OK) die_oom();
    uint64_t want = (uint64_t)((double)(cap << doublings) * 0.97);
    *npos = 0;
    for (uint64_t i = 0; i < want; i++) {
        uint64_t h = rnd();
        if (fl_gcf_insert_hash(g, h) != FL_OK) break;
        if (*npos < cappos)
            pos[(*npos)++] = h;
        else
            pos[rnd_below(cappos)] = h;
    }
    return g;
}

static int check_inline(const kernel *ref, tfilter *t, const uint64_t *q) {
    uint32_t c = t->v.k & 0xffu, w = (t->v.k >> 8) & 0xffu;
    uint32_t kb = 31u - (uint32_t)__builtin_clz(t->v.units / c);
    fl_gcf_lookup l = {t->v.data, c, kb, w, 0, fl_gcf_geom_of(c, kb, w)};
    uint8_t want[POOL];
    ref->t->gcf.contains(&t->v, q, POOL, want);
    for (size_t i = 0; i < POOL; i++) {
        int inl = fl_gcf_lookup_hash(&l, q[i]);
        if (inl != want[i]) {
            failf("one key hash=%016" PRIx64 " (query %zu): fl_gcf_lookup_hash %d, want %d", q[i],
                  i, inl, want[i]);
            return 0;
        }
    }
    return 1;
}

static void check_built(const kernel *ks, size_t nk, uint64_t *q, uint64_t *pos) {
    static const uint64_t caps[] = {1, 100, 3000, 40000};
    static const uint32_t doublings[] = {0, 1, 3, 7};
    for (size_t ci = 0; ci < sizeof caps / sizeof caps[0]; ci++) {
        for (size_t di = 0; di < sizeof doublings / sizeof doublings[0]; di++) {
            if (caps[ci] > 3000 && doublings[di] > 3) continue; /* keep the run short */
            size_t npos = 0;
            fl_gcf *g = grown(caps[ci], doublings[di], pos, POOL, &npos);
            tfilter t;
            tf_alloc(&t, 8, (uint32_t)g->buckets, g->columns | g->wbits << 8, 0);
            memcpy(t.v.data, g->table, g->bytes);
            make_queries(q, POOL, pos, npos);
            for (size_t ki = 1; ki < nk; ki++) {
                if (!kernel_overrides(ks, ki, SLOT)) continue;
                set_ctx("kernel=%s family=gcf cap=%" PRIu64 " doublings=%u", ks[ki].name,
                        caps[ci], g->kbits - g->wbits);
                record(check_contains(ks[ki].t->gcf.contains, ks[0].t->gcf.contains, &t, q));
            }
            set_ctx("inline family=gcf cap=%" PRIu64 " doublings=%u", caps[ci],
                    g->kbits - g->wbits);
            record(check_inline(&ks[0], &t, q));
            /* No false negative: every inserted key answers 1 (the scalar reference). */
            if (npos) {
                uint8_t *out = malloc(npos);
                if (!out) die_oom();
                set_ctx("scalar family=gcf cap=%" PRIu64 " positives", caps[ci]);
                size_t got = ks[0].t->gcf.contains(&t.v, pos, npos, out);
                if (got != npos) failf("%zu of %zu inserted keys found", got, npos);
                record(got == npos);
                free(out);
            }
            tf_free(&t);
            fl_gcf_free(g);
        }
    }
}

/* Random payloads under arbitrary views: the kernels decode the shape from units and k the
 * same way and stay inside c << K <= units buckets. */
static void check_random(const kernel *ks, size_t nk, uint64_t *q) {
    for (size_t gi = 0; gi < GEOMETRIES; gi++) {
        uint32_t units = geometry_units(gi, 8);
        uint32_t k = (uint32_t)rnd_below(256) | (uint32_t)rnd_below(40) << 8;
        tfilter t;
        tf_alloc(&t, 8, units, k, 0);
        uint8_t *p = t.v.data;
        for (size_t i = 0; i < t.bytes; i += 8) {
            uint64_t r = rnd();
            memcpy(p + i, &r, 8);
        }
        for (size_t i = 0; i < POOL; i++) q[i] = rnd();
        for (size_t ki = 1; ki < nk; ki++) {
            if (!kernel_overrides(ks, ki, SLOT)) continue;
            set_ctx("kernel=%s family=gcf units=%u k=0x%x random-bytes", ks[ki].name, units, k);
            record(check_contains(ks[ki].t->gcf.contains, ks[0].t->gcf.contains, &t, q));
        }
        tf_free(&t);
    }
}

void check_gcf(const kernel *ks, size_t nk) {
    uint64_t *q = malloc(POOL * sizeof *q), *pos = malloc(POOL * sizeof *pos);
    if (!q || !pos) die_oom();
    if (family_selected("gcf")) {
        check_built(ks, nk, q, pos);
        check_random(ks, nk, q);
        report_checked("gcf");
    }
    for (size_t ki = 0; ki < nk; ki++) {
        set_ctx("kernel=%s family=gcf table", ks[ki].name);
        const uint32_t slots[] = {SLOT};
        check_entries_present(&ks[ki], slots, 1);
    }
    free(q);
    free(pos);
}

void bench_gcf(const kernel *ks, size_t nk) {
    if (!family_selected("gcf")) return;
    /* grown 8x from 1/8 of these sizes: 1 MiB and 64 MiB tables after three doublings */
    static const uint64_t caps[] = {(1u << 20) / 8 / 8 * 4 * 9 / 10, (64u << 20) / 8 / 8 * 4 * 9 / 10};
    static const size_t mib[] = {1, 64};
    const size_t nq = (size_t)1 << 19;
    uint64_t *q = malloc(nq * sizeof *q), *pos = malloc(nq / 2 * sizeof *pos);
    uint8_t *out = malloc(nq);
    if (!q || !pos || !out) die_oom();
    for (size_t mi = 0; mi < 2; mi++) {
        size_t npos = 0;
        fl_gcf *g = grown(caps[mi], 3, pos, nq / 2, &npos);
        tfilter t;
        tf_alloc(&t, 8, (uint32_t)g->buckets, g->columns | g->wbits << 8, 1);
        memcpy(t.v.data, g->table, g->bytes);
        fl_gcf_free(g);
        for (size_t i = 0; i < nq; i++) q[i] = (rnd() & 1) ? pos[rnd_below(npos)] : rnd();
        double r[16][BENCH_REPS];
        bench_contains_reps(ks, nk, SLOT, &t, q, nq, out, r);
        print_bench_row(ks, nk, "gcf", 16, mib[mi], "lookup", SLOT, r);
        tf_free(&t);
    }
    free(q);
    free(pos);
    free(out);
}
