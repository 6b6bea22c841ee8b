/*
 * checkkernels, module "counting": the counting Bloom filters' batch lookups and one-key
 * entries (and the header-inline generic lookup built on them) against the scalar table, on
 * both layouts, every geometry class, k and counter pattern; inserts where an ISA overrides
 * them; and their benchmark.
 *
 * Payloads are written by hand: nearly empty (zero, then the positives inserted with the
 * scalar kernel), mixed (half the counters zero, the others any of 1..15, so a kernel testing
 * one bit of a counter instead of all four fails), and saturated (every counter 15).
 */
#include "harness.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct layout {
    const char *name;
    fl_counting_layout id;
    fl_variant variant;
} layout;

static const layout LAYOUTS[FL_COUNTING_LAYOUTS] = {
    {"counting", FL_COUNTING_CLASSIC, FL_COUNTING},
    {"counting512", FL_COUNTING_BLOCKED, FL_COUNTING512},
};

#define SLOT(entry, lay) FL_KERNEL_SLOT(counting.entry[lay])

enum { PAT_EMPTY, PAT_MIXED, PAT_SATURATED, PAT_COUNT };
static const char *const PAT[PAT_COUNT] = {"nearly-empty", "mixed", "saturated"};

/* A word of 16 counters, each 0 with probability 1/2, else uniform on 1..15. */
static uint64_t mixed_word(void) {
    uint64_t w = 0, r = rnd(), z = rnd();
    for (int c = 0; c < 16; c++) {
        uint64_t v = (r >> (4 * c)) & 0xf;
        if (v == 0) v = 1 + (z & 7); /* keep 1..15 uniform enough, never 0 here */
        if ((z >> (16 + c)) & 1) v = 0;
        w |= v << (4 * c);
    }
    return w;
}

static void fill_counting(const kernel *ref, const layout *lay, tfilter *t, int pat,
                          uint64_t *pos, size_t npos) {
    for (size_t i = 0; i < npos; i++) pos[i] = rnd();
    uint64_t *w = (uint64_t *)t->v.data;
    for (size_t i = 0; i < t->bytes / 8; i++)
        w[i] = pat == PAT_EMPTY ? 0 : pat == PAT_SATURATED ? UINT64_MAX : mixed_word();
    ref->t->counting.insert[lay->id](&t->v, pos, npos);
}

/* The one-key entry and the header-inline generic lookup that uses it as its probe. */
static int check_contains1(const kernel *kn, const kernel *ref, const layout *lay, tfilter *t,
                           const uint64_t *q) {
    const fl_kview *v = &t->v;
    fl_lookup l = {.variant = lay->variant, .data = v->data, .units = v->units, .k = v->k,
                   .probe = kn->t->counting.contains1[lay->id]};
    return check_one_key(&l, ref->t->counting.contains[lay->id], t, q);
}

/* An insert kernel against scalar inserts of the same batches on a copy: counters equal
 * after every batch (keys of a batch share counters, and 15 saturates, so only key-by-key
 * order gives the same counts), and the guard zone intact. */
static int check_insert(const kernel *kn, const kernel *ref, const layout *lay,
                        const tfilter *base, const uint64_t *q) {
    fl_insert_fn fn = kn->t->counting.insert[lay->id], rf = ref->t->counting.insert[lay->id];
    tfilter a, b;
    int ok = 1;
    tf_clone(&a, base);
    tf_clone(&b, base);
    for (size_t si = 0; si < g_nsizes && ok; si++) {
        if (!insert_batch(fn, rf, &a, &b, q, si, NULL, NULL)) {
            ok = 0;
        } else if (memcmp(a.v.data, b.v.data, base->bytes) != 0) {
            failf("insert size=%zu: counters differ from scalar's", g_sizes[si]);
            ok = 0;
        }
    }
    tf_free(&a);
    tf_free(&b);
    return ok;
}

void check_counting(const kernel *ks, size_t nk) {
    uint64_t *q = malloc(POOL * sizeof *q), *pos = malloc(POOL * sizeof *pos);
    if (!q || !pos) die_oom();
    for (int li = 0; li < FL_COUNTING_LAYOUTS; li++) {
        const layout *lay = &LAYOUTS[li];
        if (!family_selected(lay->name)) continue;
        fl_variant_info vi;
        variant_info(lay->variant, lay->name, &vi);
        size_t unit = fl_variant_unit_bytes(lay->variant, vi.k_min);
        for (size_t gi = 0; gi < GEOMETRIES; gi++) {
            int big = geometry_big(gi);
            uint32_t units = geometry_units(gi, unit);
            for (uint32_t k = vi.k_min; k <= vi.k_max; k++) {
                if (!(vi.k_set >> k & 1)) continue;
                if (big && !(k <= 2 || k == 7 || k == 8 || k == 9 || k == 16 || k == 32))
                    continue;
                if (!big && k > 17 && k != 32) continue; /* classic: 17 and 32 cover the rest */
                for (int pat = 0; pat < PAT_COUNT; pat++) {
                    tfilter t;
                    tf_alloc(&t, unit, units, k, 0);
                    size_t npos = t.bytes * 2 / (4 * k); /* a quarter of the counters */
                    if (npos > POOL) npos = POOL;
                    if (npos == 0) npos = 1;
                    fill_counting(&ks[0], lay, &t, pat, pos, npos);
                    make_queries(q, POOL, pos, npos);
                    for (size_t ki = 1; ki < nk; ki++) {
                        set_ctx("kernel=%s family=%s k=%u units=%u counters=%s", ks[ki].name,
                                lay->name, k, units, PAT[pat]);
                        if (kernel_overrides(ks, ki, SLOT(contains, lay->id)))
                            record(check_contains(ks[ki].t->counting.contains[lay->id],
                                                  ks[0].t->counting.contains[lay->id], &t, q));
                        if (kernel_overrides(ks, ki, SLOT(contains1, lay->id)))
                            record(check_contains1(&ks[ki], &ks[0], lay, &t, q));
                        if (kernel_overrides(ks, ki, SLOT(insert, lay->id)))
                            record(check_insert(&ks[ki], &ks[0], lay, &t, q));
                    }
                    set_ctx("kernel=scalar family=%s one-key k=%u units=%u counters=%s",
                            lay->name, k, units, PAT[pat]);
                    record(check_contains1(&ks[0], &ks[0], lay, &t, q));
                    /* Saturated: every key is present, whatever its hash. */
                    if (pat == PAT_SATURATED) {
                        uint8_t out[POOL];
                        set_ctx("kernel=scalar family=%s k=%u units=%u saturated", lay->name, k,
                                units);
                        size_t got = ks[0].t->counting.contains[lay->id](&t.v, q, POOL, out);
                        if (got != POOL) failf("saturated table: %zu of %d found", got, POOL);
                        record(got == POOL);
                    }
                    tf_free(&t);
                }
            }
        }
        report_checked(lay->name);
    }
    for (size_t ki = 0; ki < nk; ki++)
        for (int li = 0; li < FL_COUNTING_LAYOUTS; li++) {
            set_ctx("kernel=%s family=%s table", ks[ki].name, LAYOUTS[li].name);
            const uint32_t slots[] = {SLOT(contains, li), SLOT(insert, li), SLOT(contains1, li)};
            check_entries_present(&ks[ki], slots, 3);
        }
    free(q);
    free(pos);
}

/* ---- benchmark --------------------------------------------------------------------------- */

/* Lookups at 1 and 64 MiB, loaded like a real filter at its sizing fill (the positives of a
 * 1% filter), queries half positives. Rows as bench_bloom's, so block512 at the same size is
 * the row to compare with. */
void bench_counting(const kernel *ks, size_t nk) {
    static const size_t mib[] = {1, 64};
    static const uint32_t bench_k[FL_COUNTING_LAYOUTS] = {7, 8};
    const size_t nq = (size_t)1 << 19;
    uint64_t *q = malloc(nq * sizeof *q), *pos = NULL;
    uint8_t *out = malloc(nq);
    if (!q || !out) die_oom();
    for (size_t mi = 0; mi < sizeof mib / sizeof mib[0]; mi++) {
        for (int li = 0; li < FL_COUNTING_LAYOUTS; li++) {
            const layout *lay = &LAYOUTS[li];
            if (!family_selected(lay->name)) continue;
            size_t unit = fl_variant_unit_bytes(lay->variant, bench_k[li]);
            tfilter t;
            tf_alloc(&t, unit, (uint32_t)((mib[mi] << 20) / unit), bench_k[li], 1);
            /* About 0.7 increments per counter: a filter at its sizing load. */
            size_t npos = (size_t)(t.bytes * 2 * 0.7 / bench_k[li]);
            pos = realloc(pos, npos * sizeof *pos);
            if (!pos) die_oom();
            for (size_t i = 0; i < npos; i++) pos[i] = rnd();
            ks[0].t->counting.insert[li](&t.v, pos, npos);
            for (size_t i = 0; i < nq; i++) q[i] = (rnd() & 1) ? pos[rnd_below(npos)] : rnd();
            double r[16][BENCH_REPS];
            bench_contains_reps(ks, nk, SLOT(contains, lay->id), &t, q, nq, out, r);
            print_bench_row(ks, nk, lay->name, bench_k[li], mib[mi], "lookup",
                            SLOT(contains, lay->id), r);
            tf_free(&t);
        }
    }
    free(q);
    free(pos);
    free(out);
}
