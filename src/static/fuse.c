/*
 * What binary fuse filters and Bloomier filters share (include/filterlab_static.h): the array
 * shape and the construction (hash, place, peel, assign). Each kind's calls are in its own
 * file (binary_fuse.c, bloomier.c).
 *
 * Construction (Graf and Lemire 2022, after the xor filter's of Graf and Lemire
 * 2020, itself the peeling of Botelho, Pagh and Ziviani's hypergraph construction):
 *   1. hash every key with the try's seed and place the hashes in order of their top bits,
 *      a counting sort; since p0 grows with h, the cells touched next are near the ones
 *      touched last, which keeps the next steps in cache at millions of keys (the reference
 *      implementation's trick);
 *   2. for each cell, count the keys that hit it (upper 6 bits of a byte) and XOR their
 *      hashes (and, for a Bloomier filter, their values) and the index of the position the
 *      cell is for them (0..3, lower 2 bits): a cell hit by one key then names that key;
 *   3. peel: repeatedly take a cell hit by exactly one key, push (hash, position) and remove
 *      the key from its other cells. Every key pushed means success;
 *   4. assign cells in the reverse order of the pushes: a key's pushed cell is the only one
 *      of its cells no key pushed later depends on, so setting it to word ^ (other cells)
 *      makes the key's XOR come out right and leaves every earlier key's intact.
 * A try fails when the peel stalls (a 2-core remains: rare for large sets, more frequent for
 * a handful of keys, whose size factor the fits raise for that reason) or a cell counts 64
 * keys; the next try uses seed + 1. Duplicate keys always stall the peel (two equal hashes never leave
 * their cells), so the first failure checks for them: the keys are sorted and deduplicated
 * once (duplicates cost one sort), then the tries go on.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "static/fuse_internal.h"

/* ==== shape ============================================================================== */

/* Segment length and size factor: the empirical fits of Graf and Lemire 2022, as their
 * reference implementations compute them (fastfilter_cpp's calculateSegmentLength and
 * calculateSizeFactor; the segment length capped at 2^18): for 3-wise, segment length
 * 2^floor(ln n / ln 3.33 + 2.25) and size factor max(1.125, 0.875 + 0.25 ln 10^6 / ln n);
 * for 4-wise, 2^floor(ln n / ln 2.91 - 0.5) and max(1.075, 0.77 + 0.305 ln 600000 / ln n).
 * The array has segment_count + arity - 1 segments, so that p0's segment plus arity - 1
 * after it always exist. */
fl_status fl_fuse_geometry(uint32_t arity, uint64_t n, uint32_t *seg_len, uint32_t *seg_count,
                           uint32_t *cells) {
    uint32_t len;
    double factor;
    if (n == 0) {
        len = 4;
        factor = 0;
    } else if (arity == 3) {
        double e = floor(log((double)n) / log(3.33) + 2.25);
        len = e >= 18 ? FL_FUSE_SEG_LEN_MAX : e <= 0 ? 1u : 1u << (int)e;
        factor = n <= 1 ? 0 : fmax(1.125, 0.875 + 0.25 * log(1e6) / log((double)n));
    } else {
        double e = floor(log((double)n) / log(2.91) - 0.5);
        len = e >= 18 ? FL_FUSE_SEG_LEN_MAX : e <= 0 ? 1u : 1u << (int)e;
        factor = n <= 1 ? 0 : fmax(1.075, 0.77 + 0.305 * log(600000.0) / log((double)n));
    }
    double capacity = n <= 1 ? 0 : round((double)n * factor);
    double segs = ceil(capacity / len) - (arity - 1);
    if (segs < 1) segs = 1;
    double total = (segs + arity - 1) * (double)len;
    if (total > (double)UINT32_MAX) return FL_ERR_TOO_LARGE;
    *seg_len = len;
    *seg_count = (uint32_t)segs;
    *cells = (uint32_t)total;
    return FL_OK;
}

fl_status fl_fuse_bytes_for(uint32_t arity, uint32_t cell_bits, uint64_t n, size_t *bytes) {
    if (!bytes || (arity != 3 && arity != 4) ||
        (cell_bits != 8 && cell_bits != 16 && cell_bits != 32))
        return FL_ERR_INVALID_ARG;
    if (n > FL_FUSE_KEYS_MAX) return FL_ERR_TOO_LARGE;
    uint32_t len, segs, cells;
    fl_status st = fl_fuse_geometry(arity, n, &len, &segs, &cells);
    if (st != FL_OK) return st;
    *bytes = n ? (size_t)cells * (cell_bits / 8) : 0;
    return FL_OK;
}

fl_status fl_static_new(uint32_t arity, uint32_t cell_bits, uint32_t value_bits, uint64_t keys,
                        uint64_t seed, size_t max_bytes, fl_static **out) {
    *out = NULL;
    if (keys > FL_FUSE_KEYS_MAX) return FL_ERR_TOO_LARGE;
    uint32_t len, segs, cells;
    fl_status st = fl_fuse_geometry(arity, keys, &len, &segs, &cells);
    if (st != FL_OK) return st;
    size_t bytes = keys ? (size_t)cells * (cell_bits / 8) : 0;
    if (max_bytes && bytes > max_bytes) return FL_ERR_TOO_LARGE;
    fl_static *s = calloc(1, sizeof *s);
    if (!s) return FL_ERR_NO_MEMORY;
    if (keys) {
        /* the payload allocator of filters: a random probe of a DRAM-sized array otherwise
         * takes a TLB miss per cell */
        if (fl_payload_get(((bytes + 63) & ~(size_t)63) + 64, &s->cells, &s->mapped) != FL_OK) {
            free(s);
            return FL_ERR_NO_MEMORY;
        }
    }
    s->bytes = bytes;
    s->seg_count = segs;
    s->cells_n = cells;
    s->keys = keys;
    s->seed = seed;
    s->view.cells = s->cells;
    s->view.seed_mix = seed * FL_SEED_MIX;
    s->view.seg_len = len;
    s->view.seg_mask = len - 1;
    s->view.seg_count_len = segs * len;
    s->view.arity = (uint8_t)arity;
    s->view.cell_bits = (uint8_t)cell_bits;
    s->view.value_bits = (uint8_t)value_bits;
    /* The typed one-key lookups' fast path: binary fuse filters with cells only (an empty
     * set's and a Bloomier filter's views take fl_fuse_lookup_view). */
    if (s->cells && value_bits == 0 && cell_bits <= 16)
        s->view.shape = (uint8_t)((arity == 4 ? FL_FUSE_SHAPE_4_8 : FL_FUSE_SHAPE_3_8) +
                                  (cell_bits == 16 ? 1 : 0));
    *out = s;
    return FL_OK;
}

void fl_static_free(fl_static *s) {
    if (!s) return;
    fl_payload_release(s->cells, s->mapped);
    free(s);
}

static void reseed(fl_static *s, uint64_t seed) {
    s->seed = seed;
    s->view.seed_mix = seed * FL_SEED_MIX;
}

/* ==== construction ======================================================================= */

uint32_t fl_fuse_forced_failures = 0;

typedef struct scratch {
    uint64_t *hashes;  /* n: sorted hashes, then the peel order's hashes */
    uint16_t *values;  /* n (Bloomier): sorted values, then the peel order's values */
    uint8_t *found;    /* n: the peel order's positions */
    uint8_t *count;    /* cells: keys << 2 | XOR of positions */
    uint64_t *xhash;   /* cells: XOR of hashes */
    uint16_t *xvalue;  /* cells (Bloomier): XOR of values */
    uint32_t *queue;   /* cells: cells hit by one key */
    uint32_t *blocks;  /* 2^block_bits + 1 counters of the counting sort */
    size_t bytes;
} scratch;

static void scratch_free(scratch *w) {
    free(w->hashes);
    free(w->values);
    free(w->found);
    free(w->count);
    free(w->xhash);
    free(w->xvalue);
    free(w->queue);
    free(w->blocks);
}

static uint32_t block_bits_of(uint32_t seg_count) {
    uint32_t b = 1;
    while (b < 20 && (1u << b) < seg_count) b++;
    return b;
}

static fl_status scratch_alloc(scratch *w, size_t n, size_t cells, int with_values,
                               uint32_t block_bits, size_t max_bytes) {
    memset(w, 0, sizeof *w);
    w->bytes = n * (8 + 1) + cells * (1 + 8 + 4) + (((size_t)1 << block_bits) + 1) * 4;
    if (with_values) w->bytes += n * 2 + cells * 2;
    if (max_bytes && w->bytes > max_bytes) return FL_ERR_TOO_LARGE;
    w->hashes = malloc(n * 8);
    w->found = malloc(n);
    w->count = malloc(cells);
    w->xhash = malloc(cells * 8);
    w->queue = malloc(cells * 4);
    w->blocks = malloc((((size_t)1 << block_bits) + 1) * 4);
    int ok = w->hashes && w->found && w->count && w->xhash && w->queue && w->blocks;
    if (with_values) {
        w->values = malloc(n * 2);
        w->xvalue = malloc(cells * 2);
        ok = ok && w->values && w->xvalue;
    }
    if (!ok) {
        scratch_free(w);
        return FL_ERR_NO_MEMORY;
    }
    return FL_OK;
}

/* Steps 1-3 for one seed: the number of keys peeled (n on success; less means retry). */
static size_t peel(const fl_static *s, scratch *w, const uint64_t *keys, const uint16_t *vals,
                   size_t n, uint32_t block_bits) {
    const fl_fuse_view *v = &s->view;
    const uint32_t arity = v->arity;
    const size_t cells = s->cells_n;
    const uint32_t nblocks = 1u << block_bits;
    const int shift = 64 - (int)block_bits;

    /* 1. counting sort of the hashes by their top block_bits bits */
    memset(w->blocks, 0, ((size_t)nblocks + 1) * 4);
    for (size_t i = 0; i < n; i++) w->blocks[fl_mix64(keys[i] + v->seed_mix) >> shift]++;
    uint32_t sum = 0;
    for (uint32_t b = 0; b < nblocks; b++) {
        uint32_t c = w->blocks[b];
        w->blocks[b] = sum;
        sum += c;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t h = fl_mix64(keys[i] + v->seed_mix);
        uint32_t at = w->blocks[h >> shift]++;
        w->hashes[at] = h;
        if (vals) w->values[at] = vals[i];
    }

    /* 2. counts and XORs */
    memset(w->count, 0, cells);
    memset(w->xhash, 0, cells * 8);
    if (vals) memset(w->xvalue, 0, cells * 2);
    uint8_t overflow = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t h = w->hashes[i];
        uint32_t p[4];
        fl_fuse_positions(v, h, p);
        for (uint32_t j = 0; j < arity; j++) {
            uint8_t c = w->count[p[j]];
            overflow |= c >= 252;
            w->count[p[j]] = (uint8_t)((c + 4) ^ j);
            w->xhash[p[j]] ^= h;
            if (vals) w->xvalue[p[j]] ^= w->values[i];
        }
    }
    if (overflow) return 0;

    /* 3. peel (the queue is a stack: newly freed cells are near, hence in cache) */
    size_t q = 0;
    for (size_t c = 0; c < cells; c++) {
        w->queue[q] = (uint32_t)c;
        q += (w->count[c] >> 2) == 1;
    }
    size_t done = 0;
    while (q) {
        uint32_t c = w->queue[--q];
        if ((w->count[c] >> 2) != 1) continue; /* emptied since it was queued */
        uint64_t h = w->xhash[c];
        uint32_t found = w->count[c] & 3u;
        w->hashes[done] = h;
        w->found[done] = (uint8_t)found;
        uint16_t val = vals ? w->xvalue[c] : 0;
        if (vals) w->values[done] = val;
        done++;
        uint32_t p[4];
        fl_fuse_positions(v, h, p);
        for (uint32_t j = 0; j < arity; j++) {
            uint32_t o = p[j];
            w->count[o] = (uint8_t)((w->count[o] - 4) ^ j);
            w->xhash[o] ^= h;
            if (vals) w->xvalue[o] ^= val;
            if (j != found) {
                w->queue[q] = o;
                q += (w->count[o] >> 2) == 1;
            }
        }
    }
    return done;
}

/* 4. assignment, per cell width. */
#define ASSIGN(name, type)                                                                   \
    static void name(fl_static *s, const scratch *w, size_t n) {                             \
        type *cells = (type *)s->cells;                                                      \
        const uint32_t arity = s->view.arity;                                                \
        for (size_t i = n; i-- > 0;) {                                                       \
            uint64_t h = w->hashes[i];                                                       \
            uint32_t p[4];                                                                   \
            fl_fuse_positions(&s->view, h, p);                                               \
            uint32_t x = fl_fuse_word(h) ^ (w->values ? w->values[i] : 0u);                  \
            for (uint32_t j = 0; j < arity; j++) x ^= cells[p[j]];                           \
            cells[p[w->found[i]]] = (type)x; /* that cell was 0: x excludes it */           \
        }                                                                                    \
    }
ASSIGN(assign8, uint8_t)
ASSIGN(assign16, uint16_t)
ASSIGN(assign32, uint32_t)

typedef struct kv {
    uint64_t key;
    uint16_t value;
} kv;

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}
static int cmp_kv(const void *a, const void *b) {
    return cmp_u64(&((const kv *)a)->key, &((const kv *)b)->key);
}

/* Sorted, deduplicated copies of the keys (and values): *dups counts the keys dropped;
 * FL_ERR_DUPLICATE_KEY if one key carries two values. */
static fl_status dedup(const uint64_t *keys, const uint16_t *vals, size_t n, uint64_t **out_keys,
                       uint16_t **out_vals, size_t *out_n, uint64_t *dups, size_t *bytes) {
    uint64_t *k = malloc(n * 8);
    uint16_t *v = vals ? malloc(n * 2) : NULL;
    kv *pairs = vals ? malloc(n * sizeof(kv)) : NULL;
    *bytes = n * 8 + (vals ? n * (2 + sizeof(kv)) : 0);
    if (!k || (vals && (!v || !pairs))) {
        free(k);
        free(v);
        free(pairs);
        return FL_ERR_NO_MEMORY;
    }
    size_t m = 0;
    if (vals) {
        for (size_t i = 0; i < n; i++) pairs[i] = (kv){keys[i], vals[i]};
        qsort(pairs, n, sizeof(kv), cmp_kv);
        for (size_t i = 0; i < n; i++) {
            if (m && k[m - 1] == pairs[i].key) {
                if (v[m - 1] != pairs[i].value) {
                    free(k);
                    free(v);
                    free(pairs);
                    return FL_ERR_DUPLICATE_KEY;
                }
                continue;
            }
            k[m] = pairs[i].key;
            v[m++] = pairs[i].value;
        }
        free(pairs);
    } else {
        memcpy(k, keys, n * 8);
        qsort(k, n, 8, cmp_u64);
        for (size_t i = 0; i < n; i++)
            if (!m || k[m - 1] != k[i]) k[m++] = k[i];
    }
    *out_keys = k;
    *out_vals = v;
    *out_n = m;
    *dups = n - m;
    return FL_OK;
}

fl_status fl_static_build(uint32_t arity, uint32_t cell_bits, uint32_t value_bits, uint64_t seed,
                          uint32_t max_tries, size_t max_bytes, const uint64_t *keys,
                          const uint16_t *vals, size_t n, fl_static **out) {
    double t0 = fl_now_ns();
    if (max_tries == 0) max_tries = FL_FUSE_TRIES_DEFAULT;
    fl_static *s = NULL;
    fl_status st = fl_static_new(arity, cell_bits, value_bits, n, seed, max_bytes, &s);
    if (st != FL_OK || n == 0) {
        if (s) s->tries = 1;
        *out = s;
        return st;
    }
    uint32_t block_bits = block_bits_of(s->seg_count);
    scratch w;
    /* max_bytes bounds the filter and the scratch together (1: nothing left for scratch) */
    st = scratch_alloc(&w, n, s->cells_n, vals != NULL, block_bits,
                       max_bytes ? (max_bytes > s->bytes ? max_bytes - s->bytes : 1) : 0);
    if (st != FL_OK) {
        fl_static_free(s);
        return st;
    }
    size_t peak = w.bytes;
    uint64_t *dkeys = NULL;
    uint16_t *dvals = NULL;
    int deduped = 0;
    size_t m = n;
    uint32_t tries = 0;
    st = FL_ERR_BUILD_FAILED;
    while (tries < max_tries) {
        reseed(s, seed + tries);
        tries++;
        size_t done = peel(s, &w, keys, vals, m, block_bits);
        if (done == m && tries > fl_fuse_forced_failures) {
            st = FL_OK;
            break;
        }
        if (!deduped) {
            deduped = 1;
            size_t dn, dbytes;
            uint64_t dups;
            fl_status ds = dedup(keys, vals, m, &dkeys, &dvals, &dn, &dups, &dbytes);
            if (ds != FL_OK) {
                st = ds;
                break;
            }
            peak += dbytes;
            if (dups) {
                /* The shape depends on the key count: rebuild it for the distinct keys. */
                fl_static *d = NULL;
                ds = fl_static_new(arity, cell_bits, value_bits, dn, seed, max_bytes, &d);
                if (ds != FL_OK) {
                    st = ds;
                    break;
                }
                fl_static_free(s);
                s = d;
                keys = dkeys;
                vals = dvals ? dvals : vals;
                m = dn;
                s->duplicates = dups;
                tries = 0; /* the failures so far were the duplicates', not the seeds' */
                block_bits = block_bits_of(s->seg_count);
                scratch_free(&w);
                ds = scratch_alloc(&w, m, s->cells_n, vals != NULL, block_bits, 0);
                if (ds != FL_OK) {
                    st = ds;
                    break;
                }
            }
        }
    }
    if (st == FL_OK) {
        if (cell_bits == 8)
            assign8(s, &w, m);
        else if (cell_bits == 16)
            assign16(s, &w, m);
        else
            assign32(s, &w, m);
        s->tries = tries;
        s->build_bytes = peak;
    }
    scratch_free(&w);
    free(dkeys);
    free(dvals);
    if (st != FL_OK) {
        fl_static_free(s);
        return st;
    }
    s->build_seconds = (fl_now_ns() - t0) * 1e-9;
    *out = s;
    return FL_OK;
}

void fl_static_info_of(const fl_static *s, fl_static_info *o) {
    memset(o, 0, sizeof *o);
    o->arity = s->view.arity;
    o->cell_bits = s->view.cell_bits;
    o->value_bits = s->view.value_bits;
    o->segment_length = s->view.seg_len;
    o->segment_count = s->seg_count;
    o->cells = s->keys ? s->cells_n : 0;
    o->keys = s->keys;
    o->duplicates = s->duplicates;
    o->seed = s->seed;
    o->tries = s->tries;
    o->bytes = s->bytes;
    o->build_bytes = s->build_bytes;
    o->build_seconds = s->build_seconds;
    o->bits_per_key = s->keys ? (double)s->bytes * 8 / (double)s->keys : 0;
    o->fpr = s->keys ? ldexp(1.0, -(int)(s->view.cell_bits - s->view.value_bits)) : 0;
}
