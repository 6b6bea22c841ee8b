/*
 * checkkernels, module "vqf": vector quotient filter batch lookups against the scalar
 * table, on filters built by the library's own inserts (empty, half full, filled until the
 * first refused insert), on blocks of random bytes and on blocks of extreme metadata (words
 * of no, all or few ones: metadata no filter holds, where every kernel must still give
 * scalar's answer, from inside the block); the header-inline one-key lookup (both probe
 * forms and fl_vqf_lookup_hash, as this file's flags compile them) against the same
 * answers; inserts and deletes against the scalar table's, byte for byte (a filter filled
 * to its first refusal and emptied again in batches of every size, one block at every slot
 * position and full, blocks of random bytes); the one-key entries (vqf.contains1,
 * vqf.insert1, vqf.delete1) of every table, the scalar one's too, against the scalar batch
 * entries on the same payloads (the small geometries take their branch-free form, the big
 * one the early-return form of FL_VQF_EARLY_MIN_BYTES); and their benchmark.
 */
#include "harness.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vqf/vqf_internal.h"
#include "cpu/kernel_choice.h"

#define SLOT FL_KERNEL_SLOT(vqf.contains)
#define SLOT_INSERT FL_KERNEL_SLOT(vqf.insert)
#define SLOT_DELETE FL_KERNEL_SLOT(vqf.del)
#define SLOT_CONTAINS1 FL_KERNEL_SLOT(vqf.contains1)
#define SLOT_INSERT1 FL_KERNEL_SLOT(vqf.insert1)
#define SLOT_DELETE1 FL_KERNEL_SLOT(vqf.del1)
enum { FILL_RANDOM = FILL_COUNT, FILL_SKEWED, VQF_FILLS };
static const char *fill_name(int fill) {
    return fill == FILL_RANDOM   ? "random-bytes"
           : fill == FILL_SKEWED ? "skewed-metadata"
                                 : FILL[fill];
}

/* A metadata word of an extreme kind: none or all ones, one bit set or clear, or k random
 * bits set for a k from 0 to 64. Random bytes hold about 32 ones a word, so they rarely
 * reach the cases where a select runs out of ones or a bucket's rank sits at the lo/hi
 * boundary with few or many ones below it. */
static uint64_t skewed_word(void) {
    switch (rnd_below(6)) {
    case 0: return 0;
    case 1: return ~(uint64_t)0;
    case 2: return (uint64_t)1 << rnd_below(64);
    case 3: return ~((uint64_t)1 << rnd_below(64));
    case 4: {
        uint64_t w = 0, k = rnd_below(65);
        while ((uint64_t)__builtin_popcountll(w) < k) w |= (uint64_t)1 << rnd_below(64);
        return w;
    }
    default: return rnd();
    }
}

/* Blocks of extreme metadata (skewed_word) whose slots hold one byte v in about half the
 * slots; the positives are hashes of fingerprint v, so their compare masks are dense and a
 * lookup's answer depends on every bit of its bucket's slot mask. */
static size_t fill_skewed(tfilter *t, uint64_t *pos, size_t cap) {
    uint8_t *p = t->v.data;
    const uint8_t v = (uint8_t)rnd();
    for (size_t blk = 0; blk < t->bytes; blk += FL_VQF_BLOCK_BYTES) {
        uint64_t md[2] = {skewed_word(), skewed_word()};
        memcpy(p + blk, md, sizeof md);
        for (size_t s = 16; s < FL_VQF_BLOCK_BYTES; s++)
            p[blk + s] = rnd_below(2) ? v : (uint8_t)rnd();
    }
    for (size_t i = 0; i < cap; i++) {
        uint64_t h;
        do h = rnd(); while (fl_vqf_fp(h) != v);
        pos[i] = h;
    }
    return cap;
}

/* A filter of t's blocks built by inserts (seeded from the harness's randomness), copied
 * into t's payload (which has the harness's guard zone after it). Returns the positives'
 * count (written to pos, at most cap). */
static size_t fill_vqf(tfilter *t, int fill, uint64_t *pos, size_t cap) {
    uint32_t blocks = t->v.units;
    if (fill == FILL_SKEWED) return fill_skewed(t, pos, cap);
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

/* The in-line probe in both forms (fl_vqf_probe, fl_vqf_probe_early) and the handle with
 * either `early`, whatever the payload's size would pick, against the scalar batch entry's
 * answers. */
static int check_inline(const kernel *ref, tfilter *t, const uint64_t *q) {
    uint8_t want[POOL];
    ref->t->vqf.contains(&t->v, q, POOL, want);
    const uint8_t *blocks = t->v.data;
    for (uint32_t early = 0; early < 2; early++) {
        fl_vqf_lookup l = {blocks, t->v.units, 0, early};
        for (size_t i = 0; i < POOL; i++) {
            int got[3] = {fl_vqf_probe(blocks, t->v.units, q[i]),
                          fl_vqf_probe_early(blocks, t->v.units, q[i]),
                          fl_vqf_lookup_hash(&l, q[i])};
            static const char *const what[3] = {"fl_vqf_probe", "fl_vqf_probe_early",
                                                "fl_vqf_lookup_hash"};
            for (int w = 0; w < 3; w++)
                if (got[w] != want[i]) {
                    failf("one key hash=%016" PRIx64 " (query %zu): %s (handle early %u) %d, "
                          "want %d",
                          q[i], i, what[w], early, got[w], want[i]);
                    return 0;
                }
        }
    }
    return 1;
}

/* A table's one-key lookup entry, key by key, against the scalar batch entry's answers. */
static int check_contains1(fl_contains1_fn fn, const kernel *ref, tfilter *t, const uint64_t *q) {
    uint8_t want[POOL];
    ref->t->vqf.contains(&t->v, q, POOL, want);
    for (size_t i = 0; i < POOL; i++) {
        int got = fn(t->v.data, t->v.units, 8, q[i]);
        if (got != want[i]) {
            failf("one key hash=%016" PRIx64 " (query %zu): vqf.contains1 %d, want %d", q[i], i,
                  got, want[i]);
            return 0;
        }
    }
    return 1;
}

/* ---- inserts and deletes ----------------------------------------------------------------
 * Each check runs the reference (the scalar batch entries) on payload a and the kernel on b,
 * copies of one payload, and wants the same count back, the same bytes and b's guard zone
 * intact. With ins1/del1 set, the kernel side is the table's one-key entries, called key by
 * key up to the first refusal (the batch entries' contract). */

typedef struct upd_pair {
    fl_vqf_update_fn ins, del, ref_ins, ref_del;
    fl_vqf_update1_fn ins1, del1;
    tfilter a, b;
} upd_pair;

static size_t kernel_update(upd_pair *p, int insert, const uint64_t *h, size_t n) {
    fl_vqf_update1_fn one = insert ? p->ins1 : p->del1;
    if (!one) return (insert ? p->ins : p->del)(&p->b.v, h, n);
    size_t i = 0;
    while (i < n && one((uint8_t *)p->b.v.data, p->b.v.units, fl_hash_at(h, i))) i++;
    return i;
}

static int same_update(upd_pair *p, int insert, const uint64_t *h, size_t n, size_t *done) {
    size_t want = (insert ? p->ref_ins : p->ref_del)(&p->a.v, h, n);
    size_t got = kernel_update(p, insert, h, n);
    if (done) *done = want;
    const char *op = insert ? "insert" : "delete";
    if (got != want) {
        failf("%s of %zu keys: %zu done, scalar %zu", op, n, got, want);
        return 0;
    }
    const uint8_t *x = p->a.v.data, *y = p->b.v.data;
    for (size_t i = 0; i < p->a.bytes; i++)
        if (x[i] != y[i]) {
            failf("%s of %zu keys: block %zu byte %zu is %02x, scalar %02x", op, n, i / 64,
                  i % 64, y[i], x[i]);
            return 0;
        }
    if (!tf_guard_intact(&p->b)) {
        failf("%s of %zu keys wrote past the payload", op, n);
        return 0;
    }
    return 1;
}

/* An empty filter of `units` blocks in both payloads. */
static void upd_alloc(upd_pair *p, uint32_t units) {
    tf_alloc(&p->a, FL_VQF_BLOCK_BYTES, units, 8, 0);
    fl_vqf *v = NULL;
    if (fl_vqf_create_blocks(units, 1, &v) != FL_OK) die_oom();
    memcpy(p->a.v.data, v->blocks, p->a.bytes);
    fl_vqf_free(v);
    tf_clone(&p->b, &p->a);
}

static void upd_free(upd_pair *p) {
    tf_free(&p->a);
    tf_free(&p->b);
}

/* A hash of bucket b and fingerprint f (any block: a one-block filter has only block 0).
 * The tag word t = (h * FL_VQF_MIX) >> 32 is chosen in the middle of bucket b's range of
 * 2^32 / 80 tags, its low byte f, and h = (t << 32) times the multiplier's inverse mod 2^64
 * (Newton's iteration x(2 - ax), each step doubling the correct low bits). */
static uint64_t tag_hash(uint32_t b, uint32_t f) {
    uint64_t inv = FL_VQF_MIX;
    for (int i = 0; i < 6; i++) inv *= 2 - FL_VQF_MIX * inv;
    uint32_t t = (uint32_t)((((uint64_t)(2 * b + 1)) << 31) / FL_VQF_BUCKETS);
    return ((uint64_t)((t & ~0xffu) | f) << 32) * inv;
}

/* Filled in batches of every size until the first refusal (the big geometry: 40 batches),
 * some keys repeated (copies), then emptied in batches of stored keys with, now and then, a
 * key never stored (whose delete is usually refused), twice over. */
static int check_fill_and_empty(upd_pair *p, uint64_t *stored, size_t cap, int big) {
    uint64_t *h = malloc(POOL * sizeof *h);
    if (!h) die_oom();
    size_t nstored = 0;
    int ok = 1;
    for (int round = 0; round < 2 && ok; round++) {
        for (int batch = 0; ok && (!big || batch < 40); batch++) {
            size_t n = g_sizes[rnd_below(g_nsizes)], done = 0;
            for (size_t i = 0; i < n; i++)
                h[i] = nstored && rnd_below(8) == 0 ? stored[rnd_below(nstored)] : rnd();
            const uint64_t *in = gbuf_place(h, n, (unsigned)rnd_below(8), batch & 1);
            ok = same_update(p, 1, in, n, &done);
            for (size_t i = 0; i < done && nstored < cap; i++) stored[nstored++] = h[i];
            if (done < n) break;
        }
        while (ok && nstored) {
            size_t n = 1 + rnd_below(nstored < 300 ? nstored : 300), done = 0;
            for (size_t i = 0; i < n; i++) {
                size_t j = rnd_below(nstored);
                h[i] = stored[j];
                stored[j] = stored[--nstored];
            }
            if (rnd_below(4) == 0) h[rnd_below(n)] = rnd();
            const uint64_t *in = gbuf_place(h, n, (unsigned)rnd_below(8), (int)(n & 1));
            ok = same_update(p, 0, in, n, &done);
            /* keys after a refusal were not deleted: stored again */
            for (size_t i = done + 1; i < n && nstored < cap; i++) stored[nstored++] = h[i];
        }
    }
    free(h);
    return ok;
}

/* One block of 0..48 items: an insert into every bucket (each slot position 0..items;
 * refused, nothing changed, at 48), a delete of every stored fingerprint (each slot position
 * 0..items - 1) and of one its bucket does not hold (refused). Each from the same block. */
static int check_every_position(upd_pair *p) {
    uint8_t keep[FL_VQF_BLOCK_BYTES];
    for (uint32_t items = 0; items <= FL_VQF_SLOTS; items++) {
        upd_alloc(p, 1);
        for (uint32_t i = 0; i < items; i++) {
            uint64_t h = rnd_below(4) ? rnd() : tag_hash((uint32_t)rnd_below(8), 7); /* copies */
            if (p->ref_ins(&p->a.v, &h, 1) != 1) {
                failf("scalar refused item %u of one block", i);
                upd_free(p);
                return 0;
            }
        }
        memcpy(p->b.v.data, p->a.v.data, FL_VQF_BLOCK_BYTES);
        memcpy(keep, p->a.v.data, FL_VQF_BLOCK_BYTES);
        int ok = 1;
        for (uint32_t b = 0; b < FL_VQF_BUCKETS && ok; b++) {
            uint64_t h = tag_hash(b, (uint32_t)rnd_below(256));
            size_t done = 0;
            ok = same_update(p, 1, &h, 1, &done) && done == (items < FL_VQF_SLOTS);
            if (ok && items == FL_VQF_SLOTS && memcmp(p->b.v.data, keep, sizeof keep) != 0) {
                failf("a refused insert into a full block changed it");
                ok = 0;
            }
            memcpy(p->a.v.data, keep, sizeof keep);
            memcpy(p->b.v.data, keep, sizeof keep);
        }
        uint64_t lo = fl_vqf_md_lo(keep), hi = fl_vqf_md_hi(keep);
        for (uint32_t b = 0; b < FL_VQF_BUCKETS && ok; b++) {
            uint64_t m = fl_vqf_bucket_mask(lo, hi, b), held[4] = {0, 0, 0, 0};
            for (; m && ok; m &= m - 1) {
                uint32_t f = keep[16 + __builtin_ctzll(m)];
                held[f >> 6] |= 1ull << (f & 63);
                uint64_t h = tag_hash(b, f);
                size_t done = 0;
                ok = same_update(p, 0, &h, 1, &done) && done == 1;
                memcpy(p->a.v.data, keep, sizeof keep);
                memcpy(p->b.v.data, keep, sizeof keep);
            }
            uint32_t absent = 0;
            while (held[absent >> 6] >> (absent & 63) & 1) absent++;
            uint64_t h = tag_hash(b, absent);
            size_t done = 1;
            if (ok) ok = same_update(p, 0, &h, 1, &done) && done == 0;
            if (ok && memcmp(p->b.v.data, keep, sizeof keep) != 0) {
                failf("a refused delete changed the block");
                ok = 0;
            }
        }
        upd_free(p);
        if (!ok) {
            failf("one block of %u items", items);
            return 0;
        }
    }
    return 1;
}

/* Random bytes: metadata no filter holds; the kernel must still match scalar byte for byte
 * and stay inside the key's blocks. */
static int check_random_bytes(upd_pair *p, uint32_t units) {
    tf_alloc(&p->a, FL_VQF_BLOCK_BYTES, units, 8, 0);
    uint8_t *d = p->a.v.data;
    for (size_t i = 0; i < p->a.bytes; i += 8) {
        uint64_t r = rnd();
        memcpy(d + i, &r, 8);
    }
    tf_clone(&p->b, &p->a);
    uint64_t h[1025];
    int ok = 1;
    for (int batch = 0; batch < 64 && ok; batch++) {
        size_t n = 1 + rnd_below(1025);
        for (size_t i = 0; i < n; i++) h[i] = rnd();
        for (size_t off = 0; off < n && ok;) { /* past each refusal */
            size_t done = 0;
            ok = same_update(p, batch & 1, h + off, n - off, &done);
            off += done + 1;
        }
    }
    upd_free(p);
    return ok;
}

/* Table ki's batch update entries (one = 0) or its one-key ones (one = 1). */
static void check_updates(const kernel *ks, size_t ki, uint64_t *stored, int one) {
    upd_pair p;
    memset(&p, 0, sizeof p);
    p.ins = ks[ki].t->vqf.insert;
    p.del = ks[ki].t->vqf.del;
    p.ref_ins = ks[0].t->vqf.insert;
    p.ref_del = ks[0].t->vqf.del;
    if (one) {
        p.ins1 = ks[ki].t->vqf.insert1;
        p.del1 = ks[ki].t->vqf.del1;
    }
    const char *form = one ? "one-key" : "batch";
    for (size_t gi = 0; gi < GEOMETRIES; gi++) {
        uint32_t units = geometry_units(gi, FL_VQF_BLOCK_BYTES);
        set_ctx("kernel=%s family=vqf blocks=%u %s updates fill-and-empty", ks[ki].name, units,
                form);
        upd_alloc(&p, units);
        record(check_fill_and_empty(&p, stored, (size_t)units * FL_VQF_SLOTS + 1,
                                    geometry_big(gi)));
        upd_free(&p);
        if (units > 1001) continue;
        set_ctx("kernel=%s family=vqf blocks=%u %s updates random-bytes", ks[ki].name, units,
                form);
        record(check_random_bytes(&p, units));
    }
    set_ctx("kernel=%s family=vqf blocks=1 %s updates every-position", ks[ki].name, form);
    record(check_every_position(&p));
}

void check_vqf(const kernel *ks_in, size_t nk_in) {
    /* avx512-popcnt: the avx512 table with vqf.contains built for VPOPCNTDQ and BITALG
     * (kernels/vqf_avx512_popcnt.c), where this CPU runs it. */
    kernel ks[MAX_KERNELS];
    const size_t nk = with_candidate(ks_in, nk_in, FL_CAND_AVX512_POPCNT, "avx512", ks);
    if (family_selected("vqf")) {
        if (nk > nk_in)
            printf("  vqf: avx512-popcnt checked (vqf.contains with VPOPCNTDQ and BITALG)\n");
        else
            printf("  vqf: avx512-popcnt not checked (needs avx512 and this CPU's AVX512-VPOPCNTDQ "
                   "and AVX512-BITALG, in a build that has it)\n");
    }
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
                for (size_t ki = 0; ki < nk; ki++) {
                    if (ki && !kernel_overrides(ks, ki, SLOT_CONTAINS1)) continue;
                    set_ctx("kernel=%s family=vqf blocks=%u fill=%s one-key", ks[ki].name,
                            units, fill_name(fill));
                    record(check_contains1(ks[ki].t->vqf.contains1, &ks[0], &t, q));
                }
                /* No false negative: every inserted key answers 1 (the scalar reference). */
                if (fill != FILL_RANDOM && fill != FILL_SKEWED && npos) {
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
        uint64_t *stored = malloc(((size_t)geometry_units(GEOMETRIES - 1, FL_VQF_BLOCK_BYTES) *
                                   FL_VQF_SLOTS + 1) * sizeof *stored);
        if (!stored) die_oom();
        for (size_t ki = 1; ki < nk; ki++)
            if (kernel_overrides(ks, ki, SLOT_INSERT) || kernel_overrides(ks, ki, SLOT_DELETE))
                check_updates(ks, ki, stored, 0);
        for (size_t ki = 0; ki < nk; ki++) /* scalar's one-key entries against its batch ones */
            if (!ki || kernel_overrides(ks, ki, SLOT_INSERT1) ||
                kernel_overrides(ks, ki, SLOT_DELETE1))
                check_updates(ks, ki, stored, 1);
        free(stored);
        report_checked("vqf");
    }
    for (size_t ki = 0; ki < nk; ki++) {
        set_ctx("kernel=%s family=vqf table", ks[ki].name);
        const uint32_t slots[] = {SLOT, SLOT_INSERT, SLOT_DELETE,
                                  SLOT_CONTAINS1, SLOT_INSERT1, SLOT_DELETE1};
        check_entries_present(&ks[ki], slots, 6);
    }
    free(q);
    free(pos);
}

void bench_vqf(const kernel *ks_in, size_t nk_in) {
    if (!family_selected("vqf")) return;
    kernel ks[MAX_KERNELS];
    const size_t nk = with_candidate(ks_in, nk_in, FL_CAND_AVX512_POPCNT, "avx512", ks);
    print_candidate_columns("vqf", ks, nk, nk_in);
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
        double r[MAX_KERNELS][BENCH_REPS];
        bench_contains_reps(ks, nk, SLOT, &t, q, nq, out, r);
        print_bench_row(ks, nk, "vqf", 8, mib[mi], "lookup", SLOT, r);
        tf_free(&t);
    }
    free(q);
    free(pos);
    free(out);
}
