/*
 * Growing cuckoo filter: lifecycle, sizing, the in-place doubling, inserts (eviction walk
 * with undo), deletes, lookups, info and kernel binding. The slot layout and probe math are
 * include/filterlab_gcf.h's (its top comment is the design); batch lookups are the gcf
 * kernel module (kernels/gcf_*.c); files are src/gcf/codec_gcf.c.
 */
/* mremap: _GNU_SOURCE comes from the build (meson.build) */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <xxhash.h>

#include "gcf/gcf_internal.h"

/* Keys hashed per chunk on the u64 batch paths (a stack buffer, no allocation). */
#define CHUNK 256

int fl_gcf_shape_ok(uint32_t columns, uint32_t wbits, uint32_t kbits) {
    if (columns < 1 || columns > FL_GCF_MAX_COLUMNS) return 0;
    if (wbits < 1 || kbits < wbits || kbits > wbits + FL_GCF_MAX_DOUBLINGS || kbits > 31)
        return 0;
    return ((uint64_t)columns << kbits) <= FL_GCF_BUCKETS_MAX;
}

fl_status fl_gcf_new(uint32_t columns, uint32_t wbits, uint32_t kbits, uint64_t seed,
                     fl_gcf **out) {
    if (!fl_gcf_shape_ok(columns, wbits, kbits)) return FL_ERR_BAD_GEOMETRY;
    uint64_t buckets = (uint64_t)columns << kbits;
    if (buckets > SIZE_MAX / 16) return FL_ERR_TOO_LARGE;
    size_t bytes = (size_t)buckets * 8, mapped = 0;
    void *mem = NULL;
    fl_gcf *g = calloc(1, sizeof *g);
    if (!g || fl_payload_get(bytes, &mem, &mapped) != FL_OK) {
        free(g);
        return FL_ERR_NO_MEMORY;
    }
    *g = (fl_gcf){.table = mem, .buckets = buckets, .columns = columns, .wbits = wbits,
                  .kbits = kbits, .geom = fl_gcf_geom_of(columns, kbits, wbits),
                  .bytes = bytes, .mapped = mapped, .seed = seed};
    /* xorshift64 needs a nonzero state; the walk is deterministic for a given seed */
    g->rng = fl_hash_u64_inline(seed, 0x243f6a8885a308d3ull) | 1;
    *out = g;
    return FL_OK;
}

/* The shape fl_gcf_create gives `capacity`: c columns of 2^w buckets. */
static fl_status shape_for(uint64_t capacity, uint32_t *columns, uint32_t *wbits) {
    if (capacity == 0) return FL_ERR_BAD_N;
    double need = ceil((double)capacity / (FL_GCF_SLOTS * FL_GCF_GROW_LOAD));
    if (need > (double)FL_GCF_BUCKETS_MAX) return FL_ERR_TOO_LARGE;
    /* The first W from FL_GCF_W_MIN up where c = ceil(need / 2^W) fits in 15: the fewest
     * buckets, c >= 8 once W passes the minimum (rounding up wastes at most 1/8). */
    for (uint32_t w = FL_GCF_W_MIN; w <= 31; w++) {
        double c = ceil(need / ldexp(1.0, (int)w));
        if (c > FL_GCF_MAX_COLUMNS) continue;
        if ((uint64_t)c << w > FL_GCF_BUCKETS_MAX) return FL_ERR_TOO_LARGE;
        *columns = (uint32_t)c;
        *wbits = w;
        return FL_OK;
    }
    return FL_ERR_TOO_LARGE;
}

fl_status fl_gcf_bytes_for(uint64_t capacity, uint64_t *bytes) {
    if (!bytes) return FL_ERR_INVALID_ARG;
    *bytes = 0;
    uint32_t c, w;
    fl_status st = shape_for(capacity, &c, &w);
    if (st == FL_OK) *bytes = ((uint64_t)c << w) * 8;
    return st;
}

fl_status fl_gcf_create(uint64_t capacity, uint64_t seed, fl_gcf **out) {
    if (out) *out = NULL;
    if (!out) return FL_ERR_INVALID_ARG;
    uint32_t c, w;
    fl_status st = shape_for(capacity, &c, &w);
    return st == FL_OK ? fl_gcf_new(c, w, w, seed, out) : st;
}

void fl_gcf_free(fl_gcf *g) {
    if (!g) return;
    fl_payload_release(g->table, g->mapped);
    free(g);
}

fl_status fl_gcf_clear(fl_gcf *g) {
    if (!g) return FL_ERR_INVALID_ARG;
    memset(g->table, 0, g->bytes);
    memset(g->by_ext, 0, sizeof g->by_ext);
    return FL_OK;
}

fl_status fl_gcf_set_byte_limit(fl_gcf *g, uint64_t bytes) {
    if (!g) return FL_ERR_INVALID_ARG;
    g->byte_limit = bytes;
    return FL_OK;
}

uint64_t fl_gcf_hash_bytes(const fl_gcf *g, const void *key, size_t len) {
    if (!g || (!key && len)) return 0;
    return XXH3_64bits_withSeed(key ? key : "", len, g->seed);
}

uint64_t fl_gcf_hash_u64(const fl_gcf *g, uint64_t key) {
    return g ? fl_hash_u64_inline(key, g->seed) : 0;
}

fl_gcf_lookup fl_gcf_lookup_of(const fl_gcf *g) {
    fl_gcf_lookup l;
    memset(&l, 0, sizeof l);
    if (g) {
        l.buckets = g->table;
        l.columns = g->columns;
        l.kbits = g->kbits;
        l.wbits = g->wbits;
        l.seed_mix = g->seed * FL_SEED_MIX;
        l.geom = g->geom;
    }
    return l;
}

/* ---- the doubling ------------------------------------------------------------------------ */

/* A mapping of len bytes moved (page tables, not bytes) to a 2 MiB boundary and extended:
 * src/core/memory.c aligns payloads so that huge pages back them, and a doubled table left
 * where mremap's own choice put it (any 4 KiB boundary) would take a TLB miss per lookup
 * past the caches. An aligned range is reserved (PROT_NONE), mremap moves the table over its
 * start (MREMAP_FIXED replaces what was there), the reservation's rest is released. */
static void *move_aligned(void *old, size_t old_len, size_t len) {
    uint8_t *raw = mmap(NULL, len + FL_HUGE_PAGE, PROT_NONE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (raw == MAP_FAILED) return MAP_FAILED;
    uintptr_t start = ((uintptr_t)raw + FL_HUGE_PAGE - 1) & ~(uintptr_t)(FL_HUGE_PAGE - 1);
    size_t head = start - (uintptr_t)raw, tail = FL_HUGE_PAGE - head;
    void *p = mremap(old, old_len, len, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)start);
    if (p == MAP_FAILED) {
        munmap(raw, len + FL_HUGE_PAGE);
        return MAP_FAILED;
    }
    if (head) munmap(raw, head);
    if (tail) munmap((uint8_t *)start + len, tail);
    return p;
}

/* The table made twice as long, its first half unchanged and the second zero. A mapping is
 * extended by mremap (in place when the address space after it is free, else moved to a
 * 2 MiB boundary by the kernel without copying: move_aligned), so the peak is the new
 * table; a heap table (below 2 MiB) is copied into a new payload. The bytes past g->bytes
 * in a mapping (the slack and the rest of its last huge page) are never written, so the
 * new half is zero already. */
static fl_status extend_table(fl_gcf *g, size_t new_bytes) {
    size_t need = new_bytes + FL_PAYLOAD_SLACK;
    if (need < new_bytes) return FL_ERR_TOO_LARGE;
#ifdef MREMAP_FIXED
    if (g->mapped) {
        size_t len = (need + FL_HUGE_PAGE - 1) & ~(size_t)(FL_HUGE_PAGE - 1);
        if (len < need || len + FL_HUGE_PAGE < len) return FL_ERR_TOO_LARGE;
        void *p = mremap(g->table, g->mapped, len, 0);
        if (p == MAP_FAILED) p = move_aligned(g->table, g->mapped, len);
        if (p == MAP_FAILED) return FL_ERR_NO_MEMORY;
#ifdef MADV_HUGEPAGE
        madvise(p, len, MADV_HUGEPAGE);
#endif
        g->table = p;
        g->mapped = len;
        return FL_OK;
    }
#endif
    void *mem = NULL;
    size_t mapped = 0;
    if (fl_payload_get(new_bytes, &mem, &mapped) != FL_OK) return FL_ERR_NO_MEMORY;
    memcpy(mem, g->table, g->bytes);
    fl_payload_release(g->table, g->mapped);
    g->table = mem;
    g->mapped = mapped;
    return FL_OK;
}

/* Whether the table may double, and the status when it may not. */
static fl_status may_double(const fl_gcf *g) {
    if (g->kbits - g->wbits >= FL_GCF_MAX_DOUBLINGS) return FL_ERR_FULL;
    if (g->buckets * 2 > FL_GCF_BUCKETS_MAX || g->bytes > SIZE_MAX / 4) return FL_ERR_TOO_LARGE;
    if (g->byte_limit && (uint64_t)g->bytes * 2 > g->byte_limit) return FL_ERR_TOO_LARGE;
    return FL_OK;
}

/* The table doubled: bucket p (its low W bits t) splits into 2p - t and 2p - t + 2^W by its
 * slots' first extension bit (bit 15 of the slot; the header's "Doubling"), each slot keeping
 * its lane, its high byte shifted left by one within the lane (the sentinel moves up with
 * the bits: L - 1). Four lanes at once, no branch. From the top bucket down: both
 * destinations are at or above p, so every bucket is read before anything is written over
 * it, and every word of the doubled table is written once. */
static void split(uint64_t *t, uint64_t m, uint32_t wbits) {
    const uint64_t wmask = ((uint64_t)1 << wbits) - 1;
    for (uint64_t p = m; p-- > 0;) {
        uint64_t x = t[p];
        uint64_t up = ((x >> 15) & FL_GCF_LANE_ONE) * 0xffffu; /* lanes whose bit is 1 */
        uint64_t y = (x & FL_GCF_LANE_LO8) | ((x << 1) & 0xfe00fe00fe00fe00ull);
        uint64_t d = 2 * p - (p & wmask);
        t[d] = y & ~up;
        t[d + wmask + 1] = y & up;
    }
}

static fl_status grow(fl_gcf *g) {
    fl_status st = may_double(g);
    if (st != FL_OK) return st;
    uint64_t m = g->buckets;
    st = extend_table(g, g->bytes * 2);
    if (st != FL_OK) return st;
    split(g->table, m, g->wbits);
    g->buckets = m * 2;
    g->bytes *= 2;
    g->kbits++;
    g->geom = fl_gcf_geom_of(g->columns, g->kbits, g->wbits);
    /* every slot lost one extension bit; none had 0 (L >= 7 - doublings >= 1 here) */
    for (uint32_t l = 0; l < FL_GCF_EXT_BITS; l++) g->by_ext[l] = g->by_ext[l + 1];
    g->by_ext[FL_GCF_EXT_BITS] = 0;
    return FL_OK;
}

/* ---- inserts ------------------------------------------------------------------------------- */

static uint32_t next_random(fl_gcf *g) {
    return fl_xorshift64(&g->rng);
}

static inline uint32_t lane_get(const fl_gcf *g, uint64_t b, uint32_t s) {
    return (uint32_t)(g->table[b] >> (16 * s)) & 0xffffu;
}
static inline void lane_set(fl_gcf *g, uint64_t b, uint32_t s, uint32_t v) {
    uint64_t x = g->table[b] & ~(0xffffull << (16 * s));
    g->table[b] = x | (uint64_t)v << (16 * s);
}

/* The other bucket of a slot with this tag in bucket b (an involution): b's low W bits (the
 * stripe's top W) flipped. */
static inline uint64_t alt_bucket(const fl_gcf *g, uint64_t b, uint32_t tag) {
    return b ^ fl_gcf_alt_xor(&g->geom, tag);
}

/* Puts slot v in a free lane of bucket b; 1 if there was one. */
static int try_place(fl_gcf *g, uint64_t b, uint32_t v) {
    uint64_t x = g->table[b];
    uint64_t free_lanes = ~(((x & FL_GCF_LANE_LO15) + FL_GCF_LANE_LO15) | x) & FL_GCF_LANE_TOP;
    if (!free_lanes) return 0;
    lane_set(g, b, (uint32_t)__builtin_ctzll(free_lanes) / 16, v);
    return 1;
}

/* One attempt at the current size: the key's buckets, then an eviction walk (Fan et al.)
 * whose every move is logged and undone when it finds no free slot, so a failed attempt
 * leaves the table exactly as it was. 1 if stored. */
static int place(fl_gcf *g, uint64_t h) {
    uint32_t v = fl_gcf_pattern(&g->geom, h) | 0x100u; /* 7 bits and the sentinel */
    size_t i1, i2;
    fl_gcf_buckets(&g->geom, h, &i1, &i2);
    if (try_place(g, i1, v) || try_place(g, i2, v)) return 1;
    struct {
        uint32_t bucket;
        uint16_t lane, old;
    } walk[FL_GCF_KICKS];
    uint64_t b = (next_random(g) & 1) ? i2 : i1;
    uint32_t cur = v;
    for (int k = 0; k < FL_GCF_KICKS; k++) {
        uint32_t s = next_random(g) & (FL_GCF_SLOTS - 1);
        uint32_t victim = lane_get(g, b, s);
        walk[k].bucket = (uint32_t)b;
        walk[k].lane = (uint16_t)s;
        walk[k].old = (uint16_t)victim;
        lane_set(g, b, s, cur);
        cur = victim;
        b = alt_bucket(g, b, cur & 0xffu);
        if (try_place(g, b, cur)) return 1;
    }
    for (int k = FL_GCF_KICKS - 1; k >= 0; k--)
        lane_set(g, walk[k].bucket, walk[k].lane, walk[k].old);
    return 0;
}

fl_status fl_gcf_insert_hash(fl_gcf *g, uint64_t h) {
    if (!g) return FL_ERR_INVALID_ARG;
    uint64_t items = fl_gcf_items(g), slots = g->buckets * FL_GCF_SLOTS;
    fl_status refused = FL_OK; /* why the table could not double, if it tried */
    if ((double)(items + 1) > (double)slots * FL_GCF_GROW_LOAD) refused = grow(g);
    for (;;) {
        if (place(g, h)) {
            g->by_ext[FL_GCF_EXT_BITS]++;
            return FL_OK;
        }
        if (refused != FL_OK) return refused;
        slots = g->buckets * FL_GCF_SLOTS;
        if ((double)items < (double)slots * FL_GCF_KICK_GROW_LOAD) return FL_ERR_FULL;
        refused = grow(g);
        if (refused != FL_OK) return refused;
    }
}

fl_status fl_gcf_insert_bytes(fl_gcf *g, const void *key, size_t len) {
    if (!g || (!key && len)) return FL_ERR_INVALID_ARG;
    return fl_gcf_insert_hash(g, fl_gcf_hash_bytes(g, key, len));
}

fl_status fl_gcf_insert_u64(fl_gcf *g, uint64_t key) {
    if (!g) return FL_ERR_INVALID_ARG;
    return fl_gcf_insert_hash(g, fl_hash_u64_inline(key, g->seed));
}

/* ---- deletes ----------------------------------------------------------------------------- */

fl_status fl_gcf_delete_hash(fl_gcf *g, uint64_t h) {
    if (!g) return FL_ERR_INVALID_ARG;
    size_t bk[2];
    fl_gcf_buckets(&g->geom, h, &bk[0], &bk[1]);
    uint32_t pat = fl_gcf_pattern(&g->geom, h);
    /* the matching slot with the most extension bits (InfiniFilter's rule: see the header) */
    int best_len = -1;
    uint64_t best_b = 0;
    uint32_t best_s = 0;
    for (int j = 0; j < 2; j++) {
        for (uint64_t m = fl_gcf_match(g->table[bk[j]], pat); m; m &= m - 1) {
            uint32_t s = (uint32_t)__builtin_ctzll(m) / 16;
            int len = (int)fl_gcf_slot_ext(lane_get(g, bk[j], s));
            if (len > best_len) {
                best_len = len;
                best_b = bk[j];
                best_s = s;
            }
        }
    }
    if (best_len < 0) return FL_ERR_NOT_FOUND;
    lane_set(g, best_b, best_s, 0);
    g->by_ext[best_len]--;
    return FL_OK;
}

fl_status fl_gcf_delete_bytes(fl_gcf *g, const void *key, size_t len) {
    if (!g || (!key && len)) return FL_ERR_INVALID_ARG;
    return fl_gcf_delete_hash(g, fl_gcf_hash_bytes(g, key, len));
}

fl_status fl_gcf_delete_u64(fl_gcf *g, uint64_t key) {
    if (!g) return FL_ERR_INVALID_ARG;
    return fl_gcf_delete_hash(g, fl_hash_u64_inline(key, g->seed));
}

/* ---- batches of inserts and deletes: keys in order, stopping at the first that fails ---- */

typedef fl_status (*key_op)(fl_gcf *g, uint64_t h);

static inline __attribute__((always_inline)) fl_status
each_hash(fl_gcf *g, const uint64_t *hashes, size_t n, size_t *done, key_op op) {
    if (done) *done = 0;
    if (!g || (!hashes && n)) return FL_ERR_INVALID_ARG;
    for (size_t i = 0; i < n; i++) {
        fl_status st = op(g, fl_hash_at(hashes, i));
        if (st != FL_OK) return st;
        if (done) *done = i + 1;
    }
    return FL_OK;
}

static inline __attribute__((always_inline)) fl_status
each_u64(fl_gcf *g, const uint64_t *keys, size_t n, size_t *done, key_op op) {
    if (done) *done = 0;
    if (!g || (!keys && n)) return FL_ERR_INVALID_ARG;
    uint64_t h[CHUNK];
    for (size_t i = 0; i < n; i += CHUNK) {
        size_t m = n - i < CHUNK ? n - i : CHUNK, d = 0;
        /* the table's size may change inside the chunk: the table is looked up per chunk */
        fl_kernels_bound(&g->bound, g->bytes)->hash.u64(keys + i, m, g->seed, h);
        fl_status st = each_hash(g, h, m, &d, op);
        if (done) *done = i + d;
        if (st != FL_OK) return st;
    }
    return FL_OK;
}

fl_status fl_gcf_insert_hashes(fl_gcf *g, const uint64_t *hashes, size_t n, size_t *inserted) {
    return each_hash(g, hashes, n, inserted, fl_gcf_insert_hash);
}
fl_status fl_gcf_insert_u64s(fl_gcf *g, const uint64_t *keys, size_t n, size_t *inserted) {
    return each_u64(g, keys, n, inserted, fl_gcf_insert_hash);
}
fl_status fl_gcf_delete_hashes(fl_gcf *g, const uint64_t *hashes, size_t n, size_t *deleted) {
    return each_hash(g, hashes, n, deleted, fl_gcf_delete_hash);
}
fl_status fl_gcf_delete_u64s(fl_gcf *g, const uint64_t *keys, size_t n, size_t *deleted) {
    return each_u64(g, keys, n, deleted, fl_gcf_delete_hash);
}

/* ---- lookups ------------------------------------------------------------------------------ */

/* The kernels' view (kernels/kernels.h): units the buckets, k the columns and W. */
static size_t contains_with(const fl_gcf *g, const fl_kernel_table *t, const uint64_t *h,
                            size_t n, uint8_t *out) {
    fl_kview view = {g->table, (uint32_t)g->buckets, g->columns | g->wbits << 8, NULL, 0};
    return t->gcf.contains(&view, h, n, out);
}

/* One key in line (fl_gcf_probe), cheaper than a kernel call. */
int fl_gcf_contains_hash(const fl_gcf *g, uint64_t h) {
    return g ? fl_gcf_probe(&g->geom, g->table, h) : 0;
}

int fl_gcf_contains_bytes(const fl_gcf *g, const void *key, size_t len) {
    if (!g || (!key && len)) return 0;
    return fl_gcf_contains_hash(g, fl_gcf_hash_bytes(g, key, len));
}

int fl_gcf_contains_u64(const fl_gcf *g, uint64_t key) {
    return g ? fl_gcf_contains_hash(g, fl_hash_u64_inline(key, g->seed)) : 0;
}

fl_status fl_gcf_contains_hashes(const fl_gcf *g, const uint64_t *hashes, size_t n,
                                 uint8_t *out, size_t *positives) {
    if (positives) *positives = 0;
    if (!g || ((!hashes || !out) && n)) return FL_ERR_INVALID_ARG;
    size_t pos = n ? contains_with(g, fl_kernels_bound(&g->bound, g->bytes), hashes, n, out) : 0;
    if (positives) *positives = pos;
    return FL_OK;
}

fl_status fl_gcf_contains_u64s(const fl_gcf *g, const uint64_t *keys, size_t n, uint8_t *out,
                               size_t *positives) {
    if (positives) *positives = 0;
    if (!g || ((!keys || !out) && n)) return FL_ERR_INVALID_ARG;
    const fl_kernel_table *t = fl_kernels_bound(&g->bound, g->bytes);
    uint64_t h[CHUNK];
    size_t pos = 0;
    for (size_t i = 0; i < n; i += CHUNK) {
        size_t m = n - i < CHUNK ? n - i : CHUNK;
        t->hash.u64(keys + i, m, g->seed, h);
        pos += contains_with(g, t, h, m, out + i);
    }
    if (positives) *positives = pos;
    return FL_OK;
}

/* ---- info and kernels --------------------------------------------------------------------- */

size_t fl_gcf_memory(const fl_gcf *g) {
    if (!g) return 0;
    return sizeof *g + (g->mapped ? g->mapped : g->bytes + FL_PAYLOAD_SLACK);
}

fl_status fl_gcf_info_get(const fl_gcf *g, fl_gcf_info *out) {
    if (!g || !out) return FL_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    out->buckets = g->buckets;
    out->columns = g->columns;
    out->window_bits = g->wbits;
    out->bucket_bits = g->kbits;
    out->doublings = g->kbits - g->wbits;
    out->bytes = g->bytes;
    out->seed = g->seed;
    out->items = fl_gcf_items(g);
    out->slots = g->buckets * FL_GCF_SLOTS;
    out->capacity = (uint64_t)floor((double)out->slots * FL_GCF_GROW_LOAD);
    uint64_t top = (uint64_t)g->columns << (g->wbits + FL_GCF_MAX_DOUBLINGS);
    while (top > FL_GCF_BUCKETS_MAX) top >>= 1; /* doublings stop below 2^32 buckets */
    out->max_capacity = (uint64_t)floor((double)(top * FL_GCF_SLOTS) * FL_GCF_GROW_LOAD);
    out->load = (double)out->items / (double)out->slots;
    out->bits_per_key = out->items ? (double)g->bytes * 8.0 / (double)out->items : 0.0;
    memcpy(out->items_by_ext, g->by_ext, sizeof g->by_ext);
    out->byte_limit = g->byte_limit;
    /* A key not inserted meets the slots of two buckets. A slot with L extension bits
     * matches it with probability p_tag * 2^-L, p_tag = sum of the squared tag
     * probabilities (tag 1 is twice as likely: h's byte 0 or 1) = 258 / 65536. The slots
     * of two random buckets are 8 / slots of all of them on average. */
    double expect = 0.0;
    for (uint32_t l = 0; l <= FL_GCF_EXT_BITS; l++) expect += (double)g->by_ext[l] * ldexp(1.0, -(int)l);
    expect *= (258.0 / 65536.0) * 2.0 / (double)g->buckets;
    out->fpr = -expm1(-expect);
    return FL_OK;
}

fl_status fl_gcf_bind_kernel(fl_gcf *g, const char *name) {
    if (!g) return FL_ERR_INVALID_ARG;
    return fl_kernel_bind(&g->bound, name);
}

const char *fl_gcf_kernel(const fl_gcf *g) {
    if (!g) return NULL;
    return fl_kernel_table_name(fl_kernels_bound(&g->bound, g->bytes));
}
