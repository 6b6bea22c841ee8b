/*
 * Heavy-hitter candidates of a Count-Min sketch: a bounded min-heap of keys with their
 * estimates, refreshed as the keys are updated (Cormode and Muthukrishnan 2005, section 4.1:
 * the sketch answers point queries, a heap keeps the items whose estimates are largest). The
 * guarantee and what can be missed are stated in include/filterlab_cms.h.
 *
 * The heap is keyed on the estimate a candidate had when it was last updated. Between merges
 * estimates only grow, so a stored value is a lower bound of the current one and the root is
 * the candidate whose estimate was smallest when last seen; eviction replaces it. Reports
 * (fl_cms_top, fl_cms_heavy_hitters) re-read every estimate before sorting.
 */
#include <stdlib.h>
#include <string.h>

#include "cms/cms_internal.h"

#define NONE UINT32_MAX

static uint32_t home(const fl_topk *t, uint64_t hash) {
    /* The low half: the sketch's columns come from the high halves of h + r * h2, and a
     * sketch hash is uniform in every bit. */
    return (uint32_t)hash & t->mask;
}

fl_status fl_topk_init(fl_topk *t, uint32_t cap) {
    memset(t, 0, sizeof *t);
    if (cap == 0) return FL_OK;
    uint32_t slots = 2;
    while (slots < 2 * cap) slots *= 2;
    t->heap = calloc(cap, sizeof *t->heap);
    t->index = calloc(slots, sizeof *t->index);
    if (!t->heap || !t->index) {
        free(t->heap);
        free(t->index);
        memset(t, 0, sizeof *t);
        return FL_ERR_NO_MEMORY;
    }
    t->cap = cap;
    t->mask = slots - 1;
    return FL_OK;
}

void fl_topk_free(fl_topk *t) {
    if (t->heap)
        for (uint32_t i = 0; i < t->cap; i++) free(t->heap[i].key);
    free(t->heap);
    free(t->index);
    memset(t, 0, sizeof *t);
}

void fl_topk_clear(fl_topk *t) {
    t->n = 0;
    if (t->index) memset(t->index, 0, ((size_t)t->mask + 1) * sizeof *t->index);
}

static int same_key(const fl_cms_cand *e, uint64_t hash, uint32_t kind, const void *key,
                    size_t len) {
    return e->hash == hash && e->kind == kind && e->len == len &&
           (len == 0 || memcmp(e->key, key, len) == 0);
}

uint32_t fl_topk_find(const fl_topk *t, uint64_t hash, uint32_t kind, const void *key,
                      size_t len) {
    if (!t->cap) return NONE;
    for (uint32_t s = home(t, hash);; s = (s + 1) & t->mask) {
        uint32_t v = t->index[s];
        if (v == 0) return NONE;
        if (same_key(&t->heap[v - 1], hash, kind, key, len)) return v - 1;
    }
}

/* ---- index ------------------------------------------------------------------------------ */

static void index_insert(fl_topk *t, uint32_t pos) {
    uint32_t s = home(t, t->heap[pos].hash);
    while (t->index[s]) s = (s + 1) & t->mask;
    t->index[s] = pos + 1;
    t->heap[pos].islot = s;
}

/* Linear-probing deletion by backward shift (Knuth, TAOCP vol. 3, 6.4 Algorithm R): later
 * entries of the cluster whose home is not between the hole and them move into the hole, so
 * no tombstones accumulate. */
static void index_remove(fl_topk *t, uint32_t slot) {
    uint32_t i = slot, j = slot;
    for (;;) {
        j = (j + 1) & t->mask;
        uint32_t v = t->index[j];
        if (v == 0) break;
        uint32_t k = home(t, t->heap[v - 1].hash);
        /* Entry j may fill hole i unless its home k lies cyclically in (i, j]. */
        int in_between = i <= j ? (i < k && k <= j) : (i < k || k <= j);
        if (in_between) continue;
        t->index[i] = v;
        t->heap[v - 1].islot = i;
        i = j;
    }
    t->index[i] = 0;
}

/* ---- heap ------------------------------------------------------------------------------- */

/* Both sifts carry the moving entry in a hole (as Knuth's heapsort does, TAOCP vol. 3,
 * 5.2.3 Algorithm H): each level copies one entry instead of swapping two. They move
 * entries exactly as swapping would (a child moves up only when strictly smaller, the left
 * one on ties), so which candidate is at the root, and so which one an entering key
 * expels, is unchanged. */
static void place(fl_topk *t, uint32_t i, const fl_cms_cand *e) {
    t->heap[i] = *e;
    t->index[e->islot] = i + 1;
}

static void sift_up(fl_topk *t, uint32_t i) {
    fl_cms_cand x = t->heap[i];
    while (i > 0) {
        uint32_t p = (i - 1) / 2;
        if (t->heap[p].est <= x.est) break;
        place(t, i, &t->heap[p]);
        i = p;
    }
    place(t, i, &x);
}

static void sift_down(fl_topk *t, uint32_t i) {
    fl_cms_cand x = t->heap[i];
    for (;;) {
        uint32_t l = 2 * i + 1, m = l;
        if (l >= t->n) break;
        if (l + 1 < t->n && t->heap[l + 1].est < t->heap[l].est) m = l + 1;
        if (!(t->heap[m].est < x.est)) break;
        place(t, i, &t->heap[m]);
        i = m;
    }
    place(t, i, &x);
}

/* Makes room for len key bytes in entry pos; its old key stays intact on failure. */
static fl_status reserve_key(fl_cms_cand *e, size_t len) {
    if (e->cap >= len && e->key) return FL_OK;
    size_t cap = len < 16 ? 16 : len;
    uint8_t *k = realloc(e->key, cap);
    if (!k) return FL_ERR_NO_MEMORY;
    e->key = k;
    e->cap = cap;
    return FL_OK;
}

static void set_entry(fl_cms_cand *e, uint64_t hash, uint32_t kind, const void *key,
                      size_t len, uint32_t est) {
    e->hash = hash;
    e->kind = kind;
    e->len = (uint32_t)len;
    e->est = est;
    if (len) memcpy(e->key, key, len);
}

fl_status fl_topk_append(fl_topk *t, uint64_t hash, uint32_t kind, const void *key,
                         size_t len, uint32_t est) {
    if (t->n >= t->cap || len > FL_CMS_KEY_MAX) return FL_ERR_INVALID_ARG;
    fl_cms_cand *e = &t->heap[t->n];
    fl_status st = reserve_key(e, len);
    if (st != FL_OK) return st;
    set_entry(e, hash, kind, key, len, est);
    index_insert(t, t->n++);
    return FL_OK;
}

fl_status fl_topk_offer(fl_topk *t, uint64_t hash, uint32_t kind, const void *key, size_t len,
                        uint32_t est, void *expelled, size_t *expelled_len) {
    if (expelled_len) *expelled_len = SIZE_MAX;
    if (!t->cap || len > FL_CMS_KEY_MAX) return FL_OK;
    uint32_t pos = fl_topk_find(t, hash, kind, key, len);
    if (pos != NONE) {
        /* Its estimate only grew: it may move away from the root. */
        t->heap[pos].est = est;
        sift_down(t, pos);
        return FL_OK;
    }
    if (t->n < t->cap) {
        fl_status st = fl_topk_append(t, hash, kind, key, len, est);
        if (st == FL_OK) sift_up(t, t->n - 1);
        return st;
    }
    if (est <= t->heap[0].est) return FL_OK;
    fl_cms_cand *root = &t->heap[0];
    fl_status st = reserve_key(root, len);
    if (st != FL_OK) return st;
    index_remove(t, root->islot);
    if (expelled_len) {
        if (root->len) memcpy(expelled, root->key, root->len);
        *expelled_len = root->len;
    }
    set_entry(root, hash, kind, key, len, est);
    index_insert(t, 0);
    sift_down(t, 0);
    return FL_OK;
}

void fl_topk_refresh(fl_topk *t, const fl_cms *c) {
    for (uint32_t i = 0; i < t->n; i++)
        t->heap[i].est = fl_cms_query1(c->counters, c->w, c->d, t->heap[i].hash);
    for (uint32_t i = t->n / 2; i-- > 0;) sift_down(t, i);
}

int fl_cms_is_candidate(const fl_cms *c, const void *key, size_t len) {
    if (!c || (!key && len) || !c->top.n || len > FL_CMS_KEY_MAX) return 0;
    if (fl_topk_find(&c->top, fl_cms_key_hash_bytes(c, key, len), FL_CMS_KEY_BYTES, key, len) !=
        NONE)
        return 1;
    /* A u64 key is kept as its 8 little-endian bytes: those bytes name it too. */
    if (len != 8) return 0;
    const uint8_t *b = key;
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | b[i];
    return fl_topk_find(&c->top, fl_cms_key_hash_u64(c, v), FL_CMS_KEY_U64, key, len) != NONE;
}

/* ---- reports ------------------------------------------------------------------------------ */

static int by_estimate(const void *a, const void *b) {
    const fl_cms_item *x = a, *y = b;
    if (x->estimate != y->estimate) return x->estimate < y->estimate ? 1 : -1;
    if (x->len != y->len) return x->len < y->len ? -1 : 1;
    int m = x->len ? memcmp(x->key, y->key, x->len) : 0;
    return m;
}

/* The candidates whose fresh estimate is above `above` (all when above < 0), sorted. */
static fl_status report(const fl_cms *c, double above, fl_cms_item *out, size_t cap,
                        size_t *count) {
    *count = 0;
    const fl_topk *t = &c->top;
    if (!t->cap) return FL_ERR_UNSUPPORTED;
    if (t->n == 0) return FL_OK;
    fl_cms_item *all = malloc((size_t)t->n * sizeof *all);
    if (!all) return FL_ERR_NO_MEMORY;
    size_t m = 0;
    for (uint32_t i = 0; i < t->n; i++) {
        const fl_cms_cand *e = &t->heap[i];
        uint32_t est = fl_cms_query1(c->counters, c->w, c->d, e->hash);
        if (above >= 0 && !((double)est > above)) continue;
        all[m].key = e->key;
        all[m].len = e->len;
        all[m].estimate = est;
        m++;
    }
    qsort(all, m, sizeof *all, by_estimate);
    size_t k = m < cap ? m : cap;
    if (k) memcpy(out, all, k * sizeof *all);
    free(all);
    *count = k;
    return FL_OK;
}

fl_status fl_cms_top(const fl_cms *c, fl_cms_item *out, size_t cap, size_t *count) {
    if (count) *count = 0;
    if (!c || !count || (!out && cap)) return FL_ERR_INVALID_ARG;
    return report(c, -1.0, out, cap, count);
}

fl_status fl_cms_heavy_hitters(const fl_cms *c, double phi, fl_cms_item *out, size_t cap,
                               size_t *count) {
    if (count) *count = 0;
    if (!c || !count || (!out && cap)) return FL_ERR_INVALID_ARG;
    if (!(phi > 0.0 && phi < 1.0)) return FL_ERR_BAD_ACCURACY;
    return report(c, phi * (double)c->total, out, cap, count);
}
