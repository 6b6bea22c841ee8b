/*
 * checkkernels, module "cms": every overriding Count-Min kernel against scalar, byte for byte.
 * Shapes from one counter per row to wide rows and the deepest sketch; counters empty, small,
 * and one increment away from saturation; increments NULL (1 each), small, and near
 * UINT32_MAX; hashes random, at the edges of the reduction, and repeated inside a vector
 * group (keys of one batch sharing counters, where update order matters for conservative
 * update); every batch size and input misalignment; guard words after the counters and
 * canaries after query outputs.
 */
#include "harness.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cms_probe.h"

#define GUARD_WORDS 16
#define GUARD 0xa5a5a5a5u
#define NQ 1000

static const struct {
    uint32_t w, d;
} shapes[] = {{1, 1}, {1, 32}, {2, 5}, {3, 3}, {7, 32}, {64, 4}, {2719, 5}, {65537, 2}, {100003, 1}};

static uint32_t *counters_alloc(size_t words) {
    uint32_t *c = aligned_alloc(64, ((words + GUARD_WORDS) * 4 + 63) & ~(size_t)63);
    if (!c) die_oom();
    return c;
}

static void counters_fill(uint32_t *c, size_t words, int how) {
    for (size_t i = 0; i < words; i++)
        c[i] = how == 0 ? 0 : how == 1 ? (uint32_t)rnd_below(100)
                                       : UINT32_MAX - (uint32_t)rnd_below(3);
    for (size_t i = 0; i < GUARD_WORDS; i++) c[words + i] = GUARD;
}

static void make_hashes(uint64_t *q, uint32_t w) {
    for (size_t i = 0; i < NQ; i++) q[i] = (i & 3) ? rnd() : special_hash();
    /* Repeats inside one 8-key (and 4-key) group: same counters in every row. */
    for (size_t i = 0; i + 5 < NQ; i += 29) q[i + 1] = q[i], q[i + 5] = q[i];
    /* With w small every key collides anyway; with w large force some one-row overlaps. */
    if (w > 1)
        for (size_t i = 2; i + 2 < NQ; i += 41) q[i + 2] = q[i] ^ 0x1ull; /* same high half */
}

static void make_incs(uint32_t *incs, int how) {
    for (size_t i = 0; i < NQ; i++)
        incs[i] = how == 1 ? (uint32_t)rnd_below(5) : UINT32_MAX - (uint32_t)rnd_below(1000);
}

/* cons: 0 update, 1 update_cons, 2 update_nosat, which is checked against the reference's
 * update on its precondition's inputs only: counters empty or small and increments 1 or
 * small, so no sum can pass UINT32_MAX. */
static int check_update(const kernel *kn, const kernel *ref, uint32_t slot, int cons,
                        uint32_t *a, uint32_t *b, uint64_t *q, uint32_t *incs) {
    static const char *const what[] = {"update", "update_cons", "update_nosat"};
    const int modes = cons == 2 ? 2 : 3;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        uint32_t w = shapes[s].w, d = shapes[s].d;
        size_t words = (size_t)w * d;
        make_hashes(q, w);
        /* Each fill drawn once per shape and copied into both sides before every call:
         * drawing a random counter per word for every size made this check most of
         * checkkernels' time (millions of words), with no more to find than one draw. */
        uint32_t *start = counters_alloc(words);
        for (int fill = 0; fill < modes; fill++) {
            counters_fill(start, words, fill);
            for (int incmode = 0; incmode < modes; incmode++) {
                if (incmode) make_incs(incs, incmode);
                for (size_t si = 0; si < g_nsizes; si++) {
                    size_t n = g_sizes[si];
                    if (n > NQ) continue;
                    unsigned mis = (unsigned)rnd_below(8);
                    const uint64_t *in = gbuf_place(q, n, mis, (int)(si & 1));
                    const uint32_t *inc = incmode ? incs : NULL;
                    memcpy(a, start, (words + GUARD_WORDS) * 4);
                    memcpy(b, start, (words + GUARD_WORDS) * 4);
                    (cons == 1 ? ref->t->cms.update_cons : ref->t->cms.update)(a, w, d, in, inc, n);
                    KERNEL_FN(kn, slot, fl_cms_update_fn)(b, w, d, in, inc, n);
                    if (memcmp(a, b, (words + GUARD_WORDS) * 4) != 0) {
                        size_t j = 0;
                        while (a[j] == b[j]) j++;
                        failf("%s w=%u d=%u fill=%d incs=%d n=%zu: counter %zu is %" PRIu32
                              ", scalar %" PRIu32 "%s",
                              what[cons], w, d, fill, incmode, n, j, b[j],
                              a[j], j >= words ? " (past the counters)" : "");
                        free(start);
                        return 0;
                    }
                }
            }
        }
        free(start);
    }
    return 1;
}

static int check_query(const kernel *kn, const kernel *ref, uint32_t *a, uint64_t *q) {
    static uint32_t want[NQ], got[NQ + 16];
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        uint32_t w = shapes[s].w, d = shapes[s].d;
        size_t words = (size_t)w * d;
        make_hashes(q, w);
        for (int fill = 1; fill < 3; fill++) {
            counters_fill(a, words, fill);
            for (size_t si = 0; si < g_nsizes; si++) {
                size_t n = g_sizes[si];
                if (n > NQ) continue;
                const uint64_t *in = gbuf_place(q, n, (unsigned)rnd_below(8), (int)(si & 1));
                ref->t->cms.query(a, w, d, in, n, want);
                for (size_t i = 0; i < NQ + 16; i++) got[i] = GUARD;
                KERNEL_FN(kn, FL_KERNEL_SLOT(cms.query), fl_cms_query_fn)(a, w, d, in, n, got);
                for (size_t i = 0; i < n; i++)
                    if (got[i] != want[i]) {
                        failf("query w=%u d=%u fill=%d n=%zu index %zu: %" PRIu32
                              ", scalar %" PRIu32, w, d, fill, n, i, got[i], want[i]);
                        return 0;
                    }
                for (size_t i = n; i < NQ + 16; i++)
                    if (got[i] != GUARD) {
                        failf("query w=%u d=%u n=%zu wrote past out[n]", w, d, n);
                        return 0;
                    }
            }
        }
    }
    return 1;
}

void check_cms(const kernel *ks, size_t nk) {
    if (!family_selected("cms")) return;
    size_t maxw = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        if ((size_t)shapes[s].w * shapes[s].d > maxw) maxw = (size_t)shapes[s].w * shapes[s].d;
    uint32_t *a = counters_alloc(maxw), *b = counters_alloc(maxw);
    static uint64_t q[NQ];
    static uint32_t incs[NQ];
    /* The scalar entries are the probe math of kernels/cms_probe.h, key by key. */
    set_ctx("kernel=scalar cms vs cms_probe.h");
    int ok = 1;
    make_hashes(q, 2719);
    counters_fill(a, 2719 * 5, 1);
    memcpy(b, a, (2719 * 5 + GUARD_WORDS) * 4);
    ks[0].t->cms.update(a, 2719, 5, q, NULL, NQ);
    for (size_t i = 0; i < NQ; i++) fl_cms_update1(b, 2719, 5, q[i], 1);
    if (memcmp(a, b, 2719 * 5 * 4)) failf("scalar update differs from fl_cms_update1"), ok = 0;
    record(ok);
    /* The scalar update_nosat against the scalar update, on inputs that cannot saturate. */
    set_ctx("kernel=scalar cms update_nosat");
    record(check_update(&ks[0], &ks[0], FL_KERNEL_SLOT(cms.update_nosat), 2, a, b, q, incs));
    for (size_t ki = 1; ki < nk; ki++) {
        if (kernel_overrides(ks, ki, FL_KERNEL_SLOT(cms.update_nosat))) {
            set_ctx("kernel=%s cms update_nosat", ks[ki].name);
            record(check_update(&ks[ki], &ks[0], FL_KERNEL_SLOT(cms.update_nosat), 2, a, b, q,
                                incs));
        }
        if (kernel_overrides(ks, ki, FL_KERNEL_SLOT(cms.update))) {
            set_ctx("kernel=%s cms update", ks[ki].name);
            record(check_update(&ks[ki], &ks[0], FL_KERNEL_SLOT(cms.update), 0, a, b, q, incs));
        }
        if (kernel_overrides(ks, ki, FL_KERNEL_SLOT(cms.update_cons))) {
            set_ctx("kernel=%s cms update_cons", ks[ki].name);
            record(check_update(&ks[ki], &ks[0], FL_KERNEL_SLOT(cms.update_cons), 1, a, b, q,
                                incs));
        }
        if (kernel_overrides(ks, ki, FL_KERNEL_SLOT(cms.query))) {
            set_ctx("kernel=%s cms query", ks[ki].name);
            record(check_query(&ks[ki], &ks[0], a, q));
        }
    }
    free(a);
    free(b);
}

/* ns per key of batches of BENCH_BATCH: update, conservative update and query of pre-hashed
 * keys, update and query of integer keys (the hash kernel included), and the non-saturating
 * update of pre-hashed and integer keys (updns, updnsu64: what src/cms/cms.c runs while N is
 * below 2^32 - 1), on the seeds' shape
 * (epsilon 0.001, delta 0.01: d = 5, w = 2719, 53 KiB) and on a 64 MiB one (d = 4). Noisy: a
 * shared machine's numbers, for ratios only. */
void bench_cms(const kernel *ks, size_t nk) {
    if (!family_selected("cms")) return;
    const size_t nq = 1 << 19;
    static const struct {
        uint32_t w, d;
        size_t mib;
    } bs[] = {{2719, 5, 0}, {1u << 22, 4, 64}};
    uint64_t *q = malloc(nq * 8), *hb = malloc(BENCH_BATCH * 8);
    uint32_t *out = malloc(BENCH_BATCH * 4);
    if (!q || !hb || !out) die_oom();
    for (size_t i = 0; i < nq; i++) q[i] = rnd();
    double r[16][BENCH_REPS];
    for (size_t s = 0; s < sizeof bs / sizeof bs[0]; s++) {
        uint32_t w = bs[s].w, d = bs[s].d;
        uint32_t *c = counters_alloc((size_t)w * d);
        counters_fill(c, (size_t)w * d, 1);
        for (int op = 0; op < 7; op++) {
            for (int rep = -1; rep < BENCH_REPS; rep++)
                for (size_t ki = 0; ki < nk; ki++) {
                    const fl_kernel_table *t = ks[ki].t;
                    double t0 = now_ns();
                    for (size_t i = 0; i < nq; i += BENCH_BATCH) {
                        const uint64_t *h = q + i;
                        if (op == 3 || op == 4 || op == 6) {
                            t->hash.u64(q + i, BENCH_BATCH, 7, hb);
                            h = hb;
                        }
                        if (op == 0 || op == 3)
                            t->cms.update(c, w, d, h, NULL, BENCH_BATCH);
                        else if (op >= 5) /* counters stay far below UINT32_MAX */
                            t->cms.update_nosat(c, w, d, h, NULL, BENCH_BATCH);
                        else if (op == 1)
                            t->cms.update_cons(c, w, d, h, NULL, BENCH_BATCH);
                        else {
                            t->cms.query(c, w, d, h, BENCH_BATCH, out);
                            g_sink += out[7];
                        }
                    }
                    if (rep >= 0) r[ki][rep] = (now_ns() - t0) / (double)nq;
                }
            static const char *const names[] = {"update", "cupd", "query", "updu64", "qryu64",
                                                "updns", "updnsu64"};
            static const uint32_t slots[] = {FL_KERNEL_SLOT(cms.update),
                                             FL_KERNEL_SLOT(cms.update_cons),
                                             FL_KERNEL_SLOT(cms.query), FL_KERNEL_SLOT(cms.update),
                                             FL_KERNEL_SLOT(cms.query),
                                             FL_KERNEL_SLOT(cms.update_nosat),
                                             FL_KERNEL_SLOT(cms.update_nosat)};
            print_bench_row(ks, nk, "cms", d, bs[s].mib, names[op], slots[op], r);
        }
        free(c);
    }
    free(q);
    free(hb);
    free(out);
}
