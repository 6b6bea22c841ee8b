/*
 * `filterlab tune`'s measurement: every module entry with each distinct kernel this CPU runs,
 * at a payload of each size class (L1d, L2, last-level cache, beyond), on random pre-hashed
 * keys. Timing is FFTW's "measure" approach (time the candidates on this machine, keep the
 * fastest): reps are interleaved across candidates so a burst of other work hits them alike,
 * and the fastest rep counts (the one nobody preempted; checkkernels --min does the same).
 *
 * Payloads are random bytes: a lookup kernel reads whatever the payload holds and an insert
 * kernel only ORs or increments it, so no filter needs to be built; the answers are thrown
 * away (their count goes to a sink so the compiler keeps the calls). The vqf module's inserts
 * and deletes are the exception (run_vqf).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "static/fuse_internal.h"
#include "vqf/vqf_internal.h"
#include "hll_probe.h"
#include "cpu/kernel_choice.h"

#define BATCH 1024
#define HLL_P 14

/* SplitMix64 (Steele et al., OOPSLA 2014): its increment, then the finalizer fl_hash_u64 uses. */
static uint64_t next_rand(uint64_t *s) {
    return fl_mix64(*s += FL_SEED_MIX);
}

typedef struct bench {
    const uint64_t *keys;
    size_t nkeys;
    void *payload; /* random, bytes + 64 */
    size_t bytes;
    uint8_t *regs, *regs2; /* HyperLogLog registers (2^HLL_P + FL_HLL_REG_PAD) */
    fl_fuse_view fuse;     /* for the fuse entries of the current arity and cell width */
    int vqf_empty;         /* the payload is an empty vector quotient filter (run_vqf) */
    volatile size_t sink;
} bench;

/* A fuse view over the payload: the largest array of this shape that fits in it. */
static void fuse_view(bench *b, const fl_entry_desc *d) {
    size_t cell_bytes = d->cell_bits / 8u;
    uint64_t n = b->bytes / cell_bytes;
    uint32_t len = 4, segs = 1, cells = 0;
    for (int i = 0; i < 40; i++) {
        if (fl_fuse_geometry(d->arity, n, &len, &segs, &cells) == FL_OK &&
            (size_t)cells * cell_bytes <= b->bytes)
            break;
        n = n * 7 / 8;
    }
    memset(&b->fuse, 0, sizeof b->fuse);
    b->fuse.cells = b->payload;
    b->fuse.seed_mix = 0x5851f42d4c957f2dull;
    b->fuse.seg_len = len;
    b->fuse.seg_mask = len - 1;
    b->fuse.seg_count_len = segs * len;
    b->fuse.arity = d->arity;
    b->fuse.cell_bits = d->cell_bits;
    b->fuse.value_bits = d->kind == FL_EK_BLOOMIER_GET ? (uint8_t)(d->cell_bits / 2) : 0;
}

/* keys[0..n) through a vqf insert or delete kernel, each refused key passed over: a batch
 * entry, or a one-key entry (fn1, when not NULL) called per key. */
static size_t vqf_each(fl_vqf_update_fn fn, fl_vqf_update1_fn fn1, const fl_kview *v,
                       const uint64_t *keys, size_t n) {
    size_t done = 0;
    if (fn1) {
        for (size_t j = 0; j < n; j++) done += (size_t)fn1((uint8_t *)v->data, v->units, keys[j]);
        return done;
    }
    for (size_t j = 0; j < n; j++) {
        size_t d = fn(v, keys + j, n - j);
        done += d;
        j += d;
    }
    return done;
}

/* A vqf insert or delete entry: these need a filter's blocks, not random bytes (a random
 * block is full or not by its top bit, so most inserts would be refusals, and a delete finds
 * nothing). The payload is made an empty filter once per size class and every run leaves it
 * empty again: the keys the insert entry inserts are deleted after the timing, those the
 * delete entry deletes inserted before it, both by the scalar kernel. At most half the slots
 * are filled, where a pair of full blocks is all but impossible. ns per key. */
static double run_vqf(bench *b, const fl_entry_desc *d, fl_any_fn fn) {
    size_t blocks = b->bytes / FL_VQF_BLOCK_BYTES;
    uint32_t units = blocks < 0xffffffffu ? (uint32_t)blocks : 0xffffffffu;
    if (!b->vqf_empty) fl_vqf_init_blocks(b->payload, units);
    b->vqf_empty = 1;
    fl_kview v = {b->payload, units, 8, NULL, 0};
    const fl_kernel_table *ref = fl_kernel_table_at(0);
    size_t n = b->nkeys < (size_t)units * FL_VQF_SLOTS / 2 ? b->nkeys
                                                          : (size_t)units * FL_VQF_SLOTS / 2;
    int insert = d->slot == FL_KERNEL_SLOT(vqf.insert) || d->slot == FL_KERNEL_SLOT(vqf.insert1);
    int one = d->kind == FL_EK_VQF_UPDATE1;
    if (!insert) vqf_each(ref->vqf.insert, NULL, &v, b->keys, n);
    double t0 = fl_now_ns();
    b->sink += vqf_each(one ? NULL : (fl_vqf_update_fn)fn, one ? (fl_vqf_update1_fn)fn : NULL,
                        &v, b->keys, n);
    double t = fl_now_ns() - t0;
    if (insert) vqf_each(ref->vqf.del, NULL, &v, b->keys, n);
    return n ? t / (double)n : 0.0;
}

/* One pass of entry d's kernel fn over every key; ns per key (per register for the
 * HyperLogLog histogram and merge). */
static double run(bench *b, const fl_entry_desc *d, fl_any_fn fn) {
    if (d->kind == FL_EK_VQF_UPDATE || d->kind == FL_EK_VQF_UPDATE1) return run_vqf(b, d, fn);
    uint8_t out[BATCH];
    uint64_t out64[BATCH];
    uint32_t out32[BATCH];
    uint16_t vals[BATCH];
    uint32_t hist[64];
    size_t n = b->nkeys, units = d->unit_bytes ? b->bytes / d->unit_bytes : 0, acc = 0;
    if (units > 0xffffffffu) units = 0xffffffffu;
    fl_kview v = {b->payload, (uint32_t)units, d->k, NULL, 0};
    uint32_t cms_w = (uint32_t)(b->bytes / 16 < 0xffffffffu ? b->bytes / 16 : 0xffffffffu);
    size_t m = (size_t)1 << HLL_P;
    double t0 = fl_now_ns(), per = (double)n;
    for (size_t i = 0; i < n; i += BATCH) {
        size_t c = n - i < BATCH ? n - i : BATCH;
        const uint64_t *k = b->keys + i;
        switch ((fl_entry_kind)d->kind) {
        case FL_EK_CONTAINS:
            acc += ((fl_contains_fn)fn)(&v, k, c, out);
            break;
        case FL_EK_INSERT:
            ((fl_insert_fn)fn)(&v, k, c);
            break;
        case FL_EK_CONTAINS1:
            for (size_t j = 0; j < c; j++)
                acc += (size_t)((fl_contains1_fn)fn)(v.data, v.units, v.k, k[j]);
            break;
        case FL_EK_HASH_U64:
            ((fl_hash_u64_fn)fn)(k, c, 42, out64);
            acc += out64[0];
            break;
        case FL_EK_HLL_ADD:
            acc += (size_t)((fl_hll_add_fn)fn)(b->regs, HLL_P, k, c);
            break;
        case FL_EK_HLL_HISTO:
            memset(hist, 0, sizeof hist);
            ((fl_hll_histo_fn)fn)(b->regs, m, hist);
            acc += hist[0];
            break;
        case FL_EK_HLL_MAX:
            ((fl_hll_max_fn)fn)(b->regs2, b->regs, m);
            break;
        case FL_EK_CMS_UPDATE:
            ((fl_cms_update_fn)fn)(b->payload, cms_w, 4, k, NULL, c);
            break;
        case FL_EK_CMS_QUERY:
            ((fl_cms_query_fn)fn)(b->payload, cms_w, 4, k, c, out32);
            acc += out32[0];
            break;
        case FL_EK_FUSE_CONTAINS:
            acc += ((fl_fuse_contains_fn)fn)(&b->fuse, k, c, out);
            break;
        case FL_EK_BLOOMIER_GET:
            acc += ((fl_bloomier_get_fn)fn)(&b->fuse, k, c, vals, out);
            break;
        case FL_EK_CONTAINS_U64S:
            /* the by-blocks entries hash with the process's hash.u64, as fl_contains_u64s */
            acc += ((fl_contains_u64s_fn)fn)(&v, k, c, 42, fl_kernels()->hash.u64, out);
            break;
        case FL_EK_VQF_UPDATE: /* run_vqf's */
        case FL_EK_VQF_UPDATE1:
            break;
        }
    }
    double t = fl_now_ns() - t0;
    if (d->kind == FL_EK_HLL_HISTO || d->kind == FL_EK_HLL_MAX) per = (double)((n + BATCH - 1) / BATCH) * (double)m;
    b->sink += acc;
    return t / per;
}

/* The payload each class is timed at: half its cache (the rest holds keys and code), the
 * last-level class at most 32 MiB (a VM may report the whole host's LLC), beyond it twice the
 * LLC, at most 512 MiB (128 MiB with quick). */
static size_t class_bytes(const uint64_t lim[3], int cls, int quick) {
    uint64_t b;
    switch (cls) {
    case FL_SIZE_L1: b = lim[0] / 2; break;
    case FL_SIZE_L2: b = lim[1] / 2 > lim[0] ? lim[1] / 2 : lim[1]; break;
    case FL_SIZE_LLC:
        b = lim[2] / 2 < ((uint64_t)32 << 20) ? lim[2] / 2 : (uint64_t)32 << 20;
        if (b <= lim[1]) b = lim[2];
        break;
    default: {
        uint64_t cap = quick ? (uint64_t)128 << 20 : (uint64_t)512 << 20;
        b = lim[2] * 2 < cap ? lim[2] * 2 : cap;
    }
    }
    return (size_t)(b & ~(uint64_t)63);
}

fl_status fl_tune_measure(fl_wisdom *w, int quick, void (*report)(void *ctx, const char *line),
                          void *ctx) {
    uint64_t lim[3];
    fl_size_limits_here(lim);
    memcpy(w->limits, lim, sizeof lim);
    w->cells = calloc(fl_nentries * FL_NSIZE_CLASSES, sizeof *w->cells);
    const int reps = quick ? 3 : 9;
    bench b = {0};
    b.nkeys = quick ? 8192 : 131072;
    uint64_t *keys = malloc(b.nkeys * sizeof *keys);
    size_t m = (size_t)1 << HLL_P;
    b.regs = calloc(1, m + FL_HLL_REG_PAD);
    b.regs2 = calloc(1, m + FL_HLL_REG_PAD);
    fl_status st = FL_OK;
    if (!w->cells || !keys || !b.regs || !b.regs2) st = FL_ERR_NO_MEMORY;
    uint64_t seed = 0x243f6a8885a308d3ull;
    for (size_t i = 0; st == FL_OK && i < b.nkeys; i++) keys[i] = next_rand(&seed);
    b.keys = keys;
    char line[512];
    for (int cls = 0; st == FL_OK && cls < FL_NSIZE_CLASSES; cls++) {
        fl_filter holder; /* the filters' payload allocator (huge pages for large ones) */
        memset(&holder, 0, sizeof holder);
        b.bytes = class_bytes(lim, cls, quick);
        if (fl_payload_alloc(&holder, b.bytes + 64) != FL_OK) {
            st = FL_ERR_NO_MEMORY;
            break;
        }
        b.payload = holder.data;
        /* Random bytes: about half the Bloom bits set, a lookup of a random key answers 0
         * or 1 like a half-full filter's. */
        uint64_t *p = b.payload;
        for (size_t i = 0; i < (b.bytes + 64) / 8; i++) p[i] = next_rand(&seed);
        b.vqf_empty = 0;
        if (report) {
            snprintf(line, sizeof line, "%s: payload %.1f KiB", fl_size_class_name(cls),
                     (double)b.bytes / 1024.0);
            report(ctx, line);
        }
        for (size_t e = 0; e < fl_nentries; e++) {
            const fl_entry_desc *d = &fl_entries[e];
            if (!d->sized && cls != 0) continue;
            int ks[FL_NCAND];
            size_t nk = fl_entry_kernels(e, ks);
            if (nk < 2) continue;
            if (d->kind == FL_EK_FUSE_CONTAINS || d->kind == FL_EK_BLOOMIER_GET) fuse_view(&b, d);
            double best[FL_NCAND];
            for (size_t k = 0; k < nk; k++) {
                run(&b, d, fl_cand_fn(ks[k], e)); /* warm-up: caches, TLB, branch history */
                best[k] = 1e300;
            }
            for (int r = 0; r < reps; r++)
                for (size_t k = 0; k < nk; k++) {
                    double t = run(&b, d, fl_cand_fn(ks[k], e));
                    if (t < best[k]) best[k] = t;
                }
            fl_wisdom_cell *x = &w->cells[e * FL_NSIZE_CLASSES + (size_t)cls];
            size_t win = 0;
            for (size_t k = 0; k < nk; k++) {
                if (best[k] < best[win]) win = k;
                x->ns[ks[k]] = best[k] > 0.0005 ? best[k] : 0.0005; /* the file's resolution */
            }
            x->have = 1;
            x->cand = ks[win];
            if (report) {
                size_t o = (size_t)snprintf(line, sizeof line, "  %-26s %-4s %-12s",
                                            d->name, d->sized ? fl_size_class_name(cls) : "any",
                                            fl_cand_names[ks[win]]);
                for (size_t k = 0; k < nk && o < sizeof line; k++)
                    o += (size_t)snprintf(line + o, sizeof line - o, " %s %.2f",
                                          fl_cand_names[ks[k]], best[k]);
                if (o < sizeof line)
                    snprintf(line + o, sizeof line - o, " ns%s",
                             d->kind == FL_EK_HLL_HISTO || d->kind == FL_EK_HLL_MAX
                                 ? " per register" : " per key");
                report(ctx, line);
            }
        }
        fl_payload_free(&holder);
    }
    free(keys);
    free(b.regs);
    free(b.regs2);
    if (st != FL_OK) {
        free(w->cells);
        w->cells = NULL;
    }
    return st;
}

/* `filterlab tune`: measure, write the wisdom file, and use it from now on. */
static pthread_mutex_t tune_lock = PTHREAD_MUTEX_INITIALIZER;

fl_status fl_kernel_tune(const char *path, int quick, void (*report)(void *ctx, const char *line),
                         void *ctx) {
    const char *wisdom_path = fl_kernel_wisdom_path(); /* initialises the kernel choice */
    if (!path || !*path) path = wisdom_path;
    if (!path[0]) return FL_ERR_INVALID_ARG;
    char target[FL_WISDOM_PATH_MAX];
    snprintf(target, sizeof target, "%s", path);
    pthread_mutex_lock(&tune_lock);
    fl_wisdom *w = calloc(1, sizeof *w);
    fl_status st = w ? FL_OK : FL_ERR_NO_MEMORY;
    if (st == FL_OK) {
        fl_wisdom_key_here(&w->key);
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        strftime(w->date, sizeof w->date, "%Y-%m-%d", &tm);
        st = fl_tune_measure(w, quick, report, ctx);
    }
    char *text = NULL;
    size_t len = 0;
    if (st == FL_OK && !(text = fl_wisdom_format(w, &len))) st = FL_ERR_NO_MEMORY;
    if (st == FL_OK) {
        /* The directory, as mkdir -p would (the cache directory may not exist yet). */
        char dir[sizeof target];
        snprintf(dir, sizeof dir, "%s", target);
        for (char *p = dir + 1; (p = strchr(p, '/')) != NULL; p++) {
            *p = '\0';
            if (mkdir(dir, 0755) != 0 && errno != EEXIST) break;
            *p = '/';
        }
        st = fl_write_file_atomic(target, text, len);
    }
    free(text);
    if (st == FL_OK) {
        char status[FL_WISDOM_STATUS_MAX];
        snprintf(status, sizeof status, "used: %s, measured on %s", target, w->date);
        fl_kernel_use_wisdom(w, status);
    } else if (w) {
        int saved = errno;
        fl_wisdom_free(w);
        free(w);
        errno = saved;
    }
    pthread_mutex_unlock(&tune_lock);
    return st;
}
