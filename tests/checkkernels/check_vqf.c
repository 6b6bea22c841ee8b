/*
 * checkkernels, module "vqf": vector quotient filter batch lookups against the scalar
 * table, on filters built by the library's own inserts (empty, half full, filled until the
 * first refused insert) and on blocks of random bytes (metadata no filter holds: every
 * kernel must still give scalar's answer, from inside the block); the header-inline
 * one-key lookup (fl_vqf_lookup_hash, as this file's flags compile it) against the same
 * answers; and their benchmark.
 */
#include "harness.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vqf/vqf_internal.h"

#define SLOT FL_KERNEL_SLOT(vqf.contains)
enum { FILL_RANDOM = FILL_COUNT, VQF_FILLS };
static const char *fill_name(int fill) {
    return fill == FILL_RANDOM ? "random-bytes" : FILL[fill];
}

/* A filter of t's blocks built by inserts (seeded from the harness's randomness), copied
 * into t's payload (which has the harness's guard zone after it). Returns the positives'
 * count (written to pos, at most cap). */
static size_t fill_vqf(tfilter *t, int fill, uint64_t *pos, size_t cap) {
    uint32_t blocks = t->v.units;
    if (fill == FILL_RANDOM) {
        uint8_t *p = t->v.data;
        for (size_t i = 0; i < t->bytes; i += 8) {
            uint64_t r = rnd();
            memcpy(p + i, &r, 8);
        }
        for (size_t i = 0; i < cap; i++) pos[i] = rnd();
        return cap;
    }
    fl_vqf *v = NULL;
    if (fl_vqf_create_blocks(blocks, rnd(), &v) != FL_OK) die_oom();
    uint64_t slots = (uint64_t)blocks * FL_VQF_SLOTS;
    uint64_t want = fill == FILL_EMPTY ? 0 : fill == FILL_HALF ? slots / 2 : slots;
    size_t npos = 0;
    for (uint64_t i = 0; i < want; i++) {
        uint64_t h = rnd();
        if (fl_vqf_insert_hash(v, h) != FL_OK) break; /* FILL_FULL: up to the first refusal */
        if (npos < cap)
            pos[npos++] = h;
        else
            pos[rnd_below(cap)] = h;
    }
    memcpy(t->v.data, v->blocks, t->bytes);
    fl_vqf_free(v);
    return npos;
}

static int check_inline(const kernel *ref, tfilter *t, const uint64_t *q) {
    fl_vqf_lookup l = {t->v.data, t->v.units, 0};
    uint8_t want[POOL];
    ref->t->vqf.contains(&t->v, q, POOL, want);
    for (size_t i = 0; i < POOL; i++) {
        int inl = fl_vqf_lookup_hash(&l, q[i]);
        if (inl != want[i]) {
            failf("one key hash=%016" PRIx64 " (query %zu): fl_vqf_lookup_hash %d, want %d", q[i],
                  i, inl, want[i]);
            return 0;
        }
    }
    return 1;
}

void check_vqf(const kernel *ks, size_t nk) {
    uint64_t *q = malloc(POOL * sizeof *q), *pos = malloc(POOL * sizeof *pos);
    if (!q || !pos) die_oom();
    if (family_selected("vqf")) {
        for (size_t gi = 0; gi < GEOMETRIES; gi++) {
            uint32_t units = geometry_units(gi, FL_VQF_BLOCK_BYTES);
            for (int fill = 0; fill < VQF_FILLS; fill++) {
                tfilter t;
                tf_alloc(&t, FL_VQF_BLOCK_BYTES, units, 8, 0);
                size_t npos = fill_vqf(&t, fill, pos, POOL);
                make_queries(q, POOL, pos, npos);
                for (size_t ki = 1; ki < nk; ki++) {
                    if (!kernel_overrides(ks, ki, SLOT)) continue;
                    set_ctx("kernel=%s family=vqf blocks=%u fill=%s", ks[ki].name, units,
                            fill_name(fill));
                    record(check_contains(ks[ki].t->vqf.contains, ks[0].t->vqf.contains, &t, q));
                }
                set_ctx("inline family=vqf blocks=%u fill=%s", units, fill_name(fill));
                record(check_inline(&ks[0], &t, q));
                /* No false negative: every inserted key answers 1 (the scalar reference). */
                if (fill != FILL_RANDOM && npos) {
                    uint8_t *out = malloc(npos);
                    if (!out) die_oom();
                    set_ctx("scalar family=vqf blocks=%u fill=%s positives", units,
                            fill_name(fill));
                    size_t got = ks[0].t->vqf.contains(&t.v, pos, npos, out);
                    if (got != npos) failf("%zu of %zu inserted keys found", got, npos);
                    record(got == npos);
                    free(out);
                }
                tf_free(&t);
            }
        }
        report_checked("vqf");
    }
    for (size_t ki = 0; ki < nk; ki++) {
        set_ctx("kernel=%s family=vqf table", ks[ki].name);
        const uint32_t slots[] = {SLOT};
        check_entries_present(&ks[ki], slots, 1);
    }
    free(q);
    free(pos);
}

void bench_vqf(const kernel *ks, size_t nk) {
    if (!family_selected("vqf")) return;
    static const size_t mib[] = {1, 64};
    const size_t nq = (size_t)1 << 19;
    uint64_t *q = malloc(nq * sizeof *q), *pos = malloc(nq / 2 * sizeof *pos);
    uint8_t *out = malloc(nq);
    if (!q || !pos || !out) die_oom();
    for (size_t mi = 0; mi < sizeof mib / sizeof mib[0]; mi++) {
        uint32_t units = (uint32_t)((mib[mi] << 20) / FL_VQF_BLOCK_BYTES);
        tfilter t;
        tf_alloc(&t, FL_VQF_BLOCK_BYTES, units, 8, 1);
        /* Loaded like a real table: filled to its sizing load, half the queries inserted. */
        fl_vqf *v = NULL;
        if (fl_vqf_create_blocks(units, rnd(), &v) != FL_OK) die_oom();
        uint64_t want = (uint64_t)((double)units * FL_VQF_SLOTS * FL_VQF_SIZING_LOAD);
        size_t npos = 0;
        for (uint64_t i = 0; i < want; i++) {
            uint64_t h = rnd();
            if (fl_vqf_insert_hash(v, h) != FL_OK) break;
            if (npos < nq / 2) pos[npos++] = h;
        }
        memcpy(t.v.data, v->blocks, t.bytes);
        fl_vqf_free(v);
        for (size_t i = 0; i < nq; i++) q[i] = (rnd() & 1) ? pos[rnd_below(npos)] : rnd();
        double r[16][BENCH_REPS];
        bench_contains_reps(ks, nk, SLOT, &t, q, nq, out, r);
        print_bench_row(ks, nk, "vqf", 8, mib[mi], "lookup", SLOT, r);
        tf_free(&t);
    }
    free(q);
    free(pos);
    free(out);
}
