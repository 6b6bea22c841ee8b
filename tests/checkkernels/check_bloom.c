/*
 * checkkernels, module "bloom": the bit-array filters' batch lookups, one-key entries (and the
 * header-inline lookup built on them) and batch inserts, against the scalar table, on every
 * family, geometry, k and fill level; and their benchmark.
 *
 * Payloads are written by hand (random words, then positives inserted with the scalar
 * kernel), so saturated and nearly empty filters are reachable in milliseconds and the check
 * depends only on the kernel table, not on the filter code above it.
 */
#include "harness.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct family {
    const char *name;
    fl_bloom_family id;
    fl_variant variant;
} family;

static const family FAMILIES[FL_BLOOM_FAMILIES] = {
    {"classic", FL_BLOOM_CLASSIC, FL_CLASSIC},
    {"block512", FL_BLOOM_BLOCK512, FL_BLOCK512},
    {"split256", FL_BLOOM_SPLIT256, FL_SPLIT256},
    {"reg64", FL_BLOOM_REG64, FL_REG64},
};

#define SLOT(entry, fam) FL_KERNEL_SLOT(bloom.entry[fam])

/* Random words (none, half, all), then the positives inserted with the scalar reference. */
static void fill_bloom(const kernel *ref, const family *fam, tfilter *t, int fill, uint64_t *pos,
                       size_t npos) {
    for (size_t i = 0; i < npos; i++) pos[i] = rnd();
    uint64_t *w = (uint64_t *)t->v.data;
    for (size_t i = 0; i < t->bytes / 8; i++)
        w[i] = fill == FILL_EMPTY ? 0 : fill == FILL_FULL ? UINT64_MAX : rnd();
    if (fill != FILL_EMPTY) ref->t->bloom.insert[fam->id](&t->v, pos, npos);
}

/* The one-key entry and the header-inline lookup that uses it as its probe (split256: the
 * header's own vector probe where the build has one) against the scalar batch answer. */
static int check_contains1(const kernel *kn, const kernel *ref, const family *fam, tfilter *t,
                           const uint64_t *q) {
    const fl_kview *v = &t->v;
    fl_lookup l = {.variant = fam->variant, .data = v->data, .units = v->units, .k = v->k,
                   .probe = kn->t->bloom.contains1[fam->id]};
    l.split256 = (fl_split256_lookup){.blocks = v->data, .units = v->units, .probe = l.probe};
    return check_one_key(&l, ref->t->bloom.contains[fam->id], t, q);
}

/* One insert kernel vs scalar insert on two copies of the same payload: word for word after
 * each batch, the guard zone, and no false negatives for what was inserted. */
static int check_insert(const kernel *kn, const kernel *ref, const family *fam,
                        const tfilter *base, const uint64_t *q, int big) {
    fl_insert_fn fn = kn->t->bloom.insert[fam->id], rf = ref->t->bloom.insert[fam->id];
    fl_contains_fn cn = kn->t->bloom.contains[fam->id];
    static uint8_t found[POOL];
    tfilter a, b;
    int ok = 1;
    tf_clone(&a, base);
    tf_clone(&b, base);
    for (size_t si = 0; si < g_nsizes && ok; si++) {
        size_t n = g_sizes[si];
        /* On multi-MiB payloads compare only at the end, except for the larger batches. */
        if (big && n > 20 && n < 1000 && n != 96) continue;
        size_t start;
        const uint64_t *in;
        if (!insert_batch(fn, rf, &a, &b, q, si, &start, &in)) {
            ok = 0;
            break;
        }
        if (!big || si + 1 == g_nsizes) {
            const uint64_t *wa = (const uint64_t *)a.v.data, *wb = (const uint64_t *)b.v.data;
            for (size_t w = 0; w < base->bytes / 8; w++)
                if (wa[w] != wb[w]) {
                    failf("insert size=%zu payload word %zu (unit %zu): got %016" PRIx64
                          " want %016" PRIx64,
                          n, w, w * 8 / base->unit_bytes, wb[w], wa[w]);
                    ok = 0;
                    break;
                }
        }
        if (ok && n) {
            size_t got = cn(&b.v, in, n, found);
            for (size_t i = 0; i < n; i++)
                if (found[i] != 1) {
                    failf("insert size=%zu: key %zu (hash %016" PRIx64
                          ") not found after its insert",
                          n, i, q[start + i]);
                    ok = 0;
                    break;
                }
            if (ok && got != n) {
                failf("insert size=%zu: contains counted %zu of %zu", n, got, n);
                ok = 0;
            }
        }
    }
    tf_free(&a);
    tf_free(&b);
    return ok;
}

void check_bloom(const kernel *ks, size_t nk) {
    uint64_t *q = malloc(POOL * sizeof *q), *pos = malloc(POOL * sizeof *pos);
    if (!q || !pos) die_oom();
    for (int fi = 0; fi < FL_BLOOM_FAMILIES; fi++) {
        const family *fam = &FAMILIES[fi];
        if (!family_selected(fam->name)) continue;
        fl_variant_info vi;
        variant_info(fam->variant, fam->name, &vi);
        size_t unit = fl_variant_unit_bytes(fam->variant, vi.k_min);
        uint32_t kmax = vi.k_max > 16 ? 16 : vi.k_max; /* classic allows 32; 16 covers it */
        for (size_t gi = 0; gi < GEOMETRIES; gi++) {
            int big = geometry_big(gi);
            uint32_t units = geometry_units(gi, unit);
            for (uint32_t k = vi.k_min; k <= kmax; k++) {
                if (!(vi.k_set >> k & 1)) continue;
                if (big && !(k <= 2 || k == 7 || k == 8 || k == 9 || k == 16)) continue;
                for (int fill = 0; fill < FILL_COUNT; fill++) {
                    tfilter t;
                    tf_alloc(&t, unit, units, k, 0);
                    /* Fewer positives than bits, or a small filter is all ones. */
                    size_t npos = t.bytes * 8 / (4 * k);
                    if (npos > POOL) npos = POOL;
                    if (npos == 0) npos = 1;
                    fill_bloom(&ks[0], fam, &t, fill, pos, npos);
                    make_queries(q, POOL, pos, npos);
                    for (size_t ki = 1; ki < nk; ki++) {
                        set_ctx("kernel=%s family=%s k=%u units=%u fill=%s", ks[ki].name,
                                fam->name, k, units, FILL[fill]);
                        if (kernel_overrides(ks, ki, SLOT(contains, fam->id)))
                            record(check_contains(ks[ki].t->bloom.contains[fam->id],
                                                  ks[0].t->bloom.contains[fam->id], &t, q));
                        if (kernel_overrides(ks, ki, SLOT(contains1, fam->id)))
                            record(check_contains1(&ks[ki], &ks[0], fam, &t, q));
                        if (kernel_overrides(ks, ki, SLOT(insert, fam->id)) &&
                            fill != FILL_FULL) {
                            set_ctx("kernel=%s family=%s insert k=%u units=%u fill=%s",
                                    ks[ki].name, fam->name, k, units, FILL[fill]);
                            record(check_insert(&ks[ki], &ks[0], fam, &t, q, big));
                        }
                    }
                    /* The scalar one-key entry and the inline lookup, once per filter. */
                    set_ctx("kernel=scalar family=%s one-key k=%u units=%u fill=%s", fam->name,
                            k, units, FILL[fill]);
                    record(check_contains1(&ks[0], &ks[0], fam, &t, q));
                    tf_free(&t);
                }
            }
        }
        report_checked(fam->name);
    }
    /* The tables themselves: no entry of the module is ever NULL. */
    for (size_t ki = 0; ki < nk; ki++)
        for (int fi = 0; fi < FL_BLOOM_FAMILIES; fi++) {
            set_ctx("kernel=%s family=%s table", ks[ki].name, FAMILIES[fi].name);
            const uint32_t slots[] = {SLOT(contains, fi), SLOT(insert, fi), SLOT(contains1, fi)};
            check_entries_present(&ks[ki], slots, 3);
        }
    free(q);
    free(pos);
}

/* ---- benchmark --------------------------------------------------------------------------- */

/* ns per key of one pass of insert over the queries in batches (lookups: the harness's
 * bench_contains_pass). */
static double bench_insert_pass(const kernel *kn, fl_bloom_family fam, tfilter *t,
                                const uint64_t *q, size_t nq) {
    double t0 = now_ns();
    for (size_t i = 0; i < nq; i += BENCH_BATCH)
        kn->t->bloom.insert[fam](&t->v, q + i, BENCH_BATCH);
    return (now_ns() - t0) / (double)nq;
}

/* Random cache-line reads with prefetching, the memory-bound floor for one-line probes. */
static double bench_lines(tfilter *t, const uint64_t *q, size_t nq) {
    const uint8_t *base = t->v.data;
    uint32_t lines = (uint32_t)(t->bytes / 64);
    double r[BENCH_REPS];
    for (int rep = -1; rep < BENCH_REPS; rep++) {
        uint64_t sum = 0;
        double t0 = now_ns();
        for (size_t i = 0; i < nq; i++) {
            if (i + 32 < nq)
                __builtin_prefetch(base + 64 * (size_t)fl_reduce32((uint32_t)(q[i + 32] >> 32), lines));
            uint64_t w;
            memcpy(&w, base + 64 * (size_t)fl_reduce32((uint32_t)(q[i] >> 32), lines), 8);
            sum += w;
        }
        double dt = now_ns() - t0;
        g_sink += (size_t)sum;
        if (rep >= 0) r[rep] = dt / (double)nq;
    }
    return pick_rep(r, BENCH_REPS);
}

/* One row: every kernel on the same payload (inserts: each on its own copy), reps
 * interleaved so noise from other processes hits all kernels alike. */
static void bench_row(const kernel *ks, size_t nk, const family *fam, tfilter *t,
                      const uint64_t *q, size_t nq, uint8_t *out, int op, size_t mib) {
    tfilter copy[16];
    for (size_t ki = 0; op == 1 && ki < nk; ki++) {
        tf_alloc(&copy[ki], t->unit_bytes, t->v.units, t->v.k, 1);
        memcpy(copy[ki].v.data, t->v.data, t->bytes);
    }
    double r[16][BENCH_REPS];
    if (op == 0)
        bench_contains_reps(ks, nk, SLOT(contains, fam->id), t, q, nq, out, r);
    else
        for (int rep = -1; rep < BENCH_REPS; rep++)
            for (size_t ki = 0; ki < nk; ki++) {
                double ns = bench_insert_pass(&ks[ki], fam->id, &copy[ki], q, nq);
                if (rep >= 0) r[ki][rep] = ns;
            }
    for (size_t ki = 0; op == 1 && ki < nk; ki++) tf_free(&copy[ki]);
    print_bench_row(ks, nk, fam->name, t->v.k, mib, op ? "insert" : "lookup",
                    op ? SLOT(insert, fam->id) : SLOT(contains, fam->id), r);
}

void bench_bloom(const kernel *ks, size_t nk) {
    static const size_t mib[] = {1, 64};
    static const uint32_t bench_k[FL_BLOOM_FAMILIES] = {7, 8, 8, 6};
    const size_t nq = (size_t)1 << 19;
    uint64_t *q = malloc(nq * sizeof *q), *pos = malloc(nq / 2 * sizeof *pos);
    uint8_t *out = malloc(nq);
    if (!q || !pos || !out) die_oom();
    for (size_t mi = 0; mi < sizeof mib / sizeof mib[0]; mi++) {
        for (int fi = 0; fi < FL_BLOOM_FAMILIES; fi++) {
            const family *fam = &FAMILIES[fi];
            if (!family_selected(fam->name)) continue;
            size_t unit = fl_variant_unit_bytes(fam->variant, bench_k[fi]);
            tfilter t;
            tf_alloc(&t, unit, (uint32_t)((mib[mi] << 20) / unit), bench_k[fi], 1);
            /* Loaded like a real filter: payload about half ones, then the positives go in.
             * Queries alternate randomly between positives and random hashes. */
            uint64_t *w = t.v.data;
            for (size_t i = 0; i < t.bytes / 8; i++) w[i] = rnd();
            for (size_t i = 0; i < nq / 2; i++) pos[i] = rnd();
            ks[0].t->bloom.insert[fi](&t.v, pos, nq / 2);
            for (size_t i = 0; i < nq; i++) q[i] = (rnd() & 1) ? pos[rnd_below(nq / 2)] : rnd();
            bench_row(ks, nk, fam, &t, q, nq, out, 0, mib[mi]);
            bench_row(ks, nk, fam, &t, q, nq, out, 1, mib[mi]);
            if (fi == FL_BLOOM_BLOCK512)
                printf("%-9s %2s %4zuMiB %-6s %11.2f ns/line\n", "lines", "", mib[mi], "read",
                       bench_lines(&t, q, nq));
            tf_free(&t);
        }
    }
    free(q);
    free(pos);
    free(out);
}
