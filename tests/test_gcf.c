/*
 * Growing cuckoo filter (src/gcf/gcf.c, include/filterlab_gcf.h): the SWAR slot test against
 * a slot-by-slot one; sizing and every bad argument; keys inserted at every generation all
 * found after each of the 7 doublings, with the slots' length counts checked against the
 * table; the growth limit and the byte limit (refused inserts change nothing); deletes
 * taking the matching slot with the most extension bits (crafted hashes that make the
 * first-match rule lose a key); duplicates piling up refused without growth; random insert /
 * delete sequences against an exact multiset model; the measured FPR against the estimate
 * at 1x..8x; batch calls = single calls under every kernel; files: round trips byte for byte,
 * the load's cap becoming the byte limit, every truncation and bit flip refused, crafted
 * files with valid checksums around corrupt slots and header fields, wrong kinds both ways.
 * Every sequence is generated from a fixed seed, so each run checks the same numbers.
 */
#include "testutil.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "test_craft.h"
#include "gcf/gcf_internal.h"

static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* ---- the slot test ------------------------------------------------------------------------ */

/* One slot against a key's tag and extension byte q (7 bits from bit 7 down), as the
 * header's prose says: the L bits above the sentinel, the lowest set bit of f. */
static int slot_matches(uint32_t s, uint32_t tag, uint32_t q) {
    if (s == 0) return 0;
    uint32_t f = s >> 8;
    if (f == 0) return (s & 0xff) == tag; /* no sentinel: no filter holds it; tag only */
    uint32_t len = 7u - (uint32_t)__builtin_ctz(f);
    uint32_t mask = (0xffu << (8 - len)) & 0xffu; /* the top len bits */
    return (s & 0xff) == tag && (f & mask) == (q & mask);
}

static void test_match(void **state) {
    (void)state;
    uint64_t seed = 1;
    for (int i = 0; i < 200000; i++) {
        uint64_t x = splitmix(&seed), r = splitmix(&seed);
        /* lanes often empty, often sharing the key's tag */
        uint32_t tag = (uint32_t)(r & 0xff) | 1, q = (uint32_t)(r >> 8) & 0xfe;
        for (int s = 0; s < 4; s++) {
            uint32_t kind = (uint32_t)(r >> (20 + 3 * s)) & 7;
            uint64_t lane = (x >> (16 * s)) & 0xffff;
            if (kind == 0) lane = 0;
            if (kind >= 5) lane = (lane & 0xff00) | tag;
            x = (x & ~(0xffffull << (16 * s))) | lane << (16 * s);
        }
        uint64_t m = fl_gcf_match(x, tag | q << 8);
        for (int s = 0; s < 4; s++) {
            uint32_t lane = (uint32_t)(x >> (16 * s)) & 0xffff;
            int want = slot_matches(lane, tag, q);
            if (((m >> (16 * s + 15)) & 1) != (uint64_t)want)
                fail_msg("word %016" PRIx64 " lane %d tag %u q %u: got %d", x, s, tag, q, !want);
        }
        assert_int_equal(m & ~FL_GCF_LANE_TOP, 0);
    }
}

/* The 16-bit lane form of the vector kernels and the one-key lookup (fl_gcf_lane_match) on
 * every slot value, against the prose's test: the key's tag equal to the slot's or not, its
 * extension byte agreeing with the slot's bits above the sentinel up to every length. */
static void test_lane_match(void **state) {
    (void)state;
    uint64_t seed = 3;
    for (uint32_t x = 0; x < 0x10000; x++) {
        for (int k = 0; k < 24; k++) {
            uint64_t r = splitmix(&seed);
            uint32_t tag = (k & 1) ? ((x & 0xff) | (x == 0)) : ((uint32_t)(r & 0xff) | 1);
            uint32_t q = (uint32_t)(r >> 8) & 0xfe;
            if (k & 2) { /* agree on the top (k >> 2) % 8 bits of the slot's high byte */
                uint32_t top = (0xffu << (8 - (uint32_t)(k >> 2) % 8)) & 0xfeu;
                q = ((x >> 8) & top) | (q & ~top & 0xfe);
            }
            int want = slot_matches(x, tag, q);
            if (fl_gcf_lane_match(x, tag | q << 8) != want)
                fail_msg("slot %04x tag %u q %u: lane form %d", x, tag, q, !want);
        }
    }
}

/* ---- where a hash lands -------------------------------------------------------------------- */

/* The header's prose, bit by bit: the stripe is the top K bits of h, the extension byte
 * the 7 bits below them from bit 7 down, the first bucket r * 2^K + the stripe rotated
 * left by W' within K bits, the second the first XOR a(tag). */
static uint32_t model_stripe(uint64_t h, uint32_t kb) {
    uint32_t s = 0;
    for (uint32_t i = 0; i < kb; i++) s = s << 1 | (uint32_t)(h >> (63 - i) & 1);
    return s;
}
static uint32_t model_ext(uint64_t h, uint32_t kb) {
    uint32_t e = 0;
    for (uint32_t j = 0; j < 7; j++) e |= (uint32_t)(h >> (63 - kb - j) & 1) << (7 - j);
    return e;
}
static void model_buckets(uint64_t h, uint32_t c, uint32_t kb, uint32_t w, uint64_t *i1,
                          uint64_t *i2) {
    uint32_t ww = w < kb ? w : kb, s = model_stripe(h, kb), rot = 0;
    for (uint32_t i = 0; i < kb; i++) rot |= (s >> i & 1) << ((i + ww) % kb);
    uint64_t r = (((h >> 8) & 0xffff) * c) / 65536;
    uint32_t tag = (uint32_t)(h & 0xff) ? (uint32_t)(h & 0xff) : 1;
    uint64_t prod = (uint64_t)tag * 0x9e3779b1u % (1ull << 32);
    uint64_t a = ww ? (prod / (1ull << (32 - ww))) | 1 : 0;
    *i1 = r * (1ull << kb) + rot;
    *i2 = *i1 ^ a;
}

/* fl_gcf_geom's forms (fl_gcf_buckets, fl_gcf_pattern) against the model at every c, K and
 * W up to 15, 31 and 40: the shapes a filter can have (c 1..15, W 1..31, K W..W + 7 up to
 * 31) and the shapes a kernel view may hold (W above K, K = 0); hashes with random bits and
 * with every bit clear or set. */
static void test_geometry(void **state) {
    (void)state;
    uint64_t seed = 5;
    for (uint32_t c = 1; c <= 15; c++)
        for (uint32_t kb = 0; kb <= 31; kb++)
            for (uint32_t w = 0; w <= 40; w++) {
                fl_gcf_geom g = fl_gcf_geom_of(c, kb, w);
                for (int k = 0; k < (fl_gcf_shape_ok(c, w, kb) ? 64 : 16); k++) {
                    uint64_t h = splitmix(&seed);
                    if (k == 0) h = 0;
                    if (k == 1) h = ~0ull;
                    size_t i1, i2;
                    uint64_t m1, m2;
                    fl_gcf_buckets(&g, h, &i1, &i2);
                    model_buckets(h, c, kb, w, &m1, &m2);
                    uint32_t tag = (uint32_t)(h & 0xff) ? (uint32_t)(h & 0xff) : 1;
                    uint32_t pat = tag | model_ext(h, kb) << 8;
                    if (i1 != m1 || i2 != m2 || fl_gcf_pattern(&g, h) != pat)
                        fail_msg("c %u K %u W %u h %016" PRIx64 ": buckets %zu %zu pattern %04x, "
                                 "model %" PRIu64 " %" PRIu64 " %04x", c, kb, w, h, i1, i2,
                                 fl_gcf_pattern(&g, h), m1, m2, pat);
                    if (m1 >= (uint64_t)c << kb || m2 >= (uint64_t)c << kb)
                        fail_msg("c %u K %u W %u: a bucket past the table", c, kb, w);
                }
            }
}

/* ---- sizing and bad arguments ------------------------------------------------------------ */

static void test_sizing_and_bad_arguments(void **state) {
    (void)state;
    fl_gcf *g = (fl_gcf *)1;
    assert_int_equal(fl_gcf_create(0, 1, &g), FL_ERR_BAD_N);
    assert_null(g);
    assert_int_equal(fl_gcf_create(10, 1, NULL), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_gcf_create(UINT64_MAX, 1, &g), FL_ERR_TOO_LARGE);
    uint64_t sized = 1;
    assert_int_equal(fl_gcf_bytes_for(0, &sized), FL_ERR_BAD_N);
    assert_int_equal(sized, 0);
    assert_int_equal(fl_gcf_bytes_for(UINT64_MAX, &sized), FL_ERR_TOO_LARGE);
    assert_int_equal(fl_gcf_bytes_for(10, NULL), FL_ERR_INVALID_ARG);
    static const uint64_t caps[] = {1, 10, 100, 1000, 100000, 1000000, 12345678};
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
        assert_int_equal(fl_gcf_create(caps[i], 1, &g), FL_OK);
        fl_gcf_info info;
        assert_int_equal(fl_gcf_info_get(g, &info), FL_OK);
        assert_true(info.capacity >= caps[i]);
        assert_true(info.window_bits >= FL_GCF_W_MIN);
        assert_int_equal(info.doublings, 0);
        assert_int_equal(info.buckets, (uint64_t)info.columns << info.window_bits);
        /* rounding up wastes at most 1/8 once past the smallest table */
        if (info.buckets > ((uint64_t)FL_GCF_MAX_COLUMNS << FL_GCF_W_MIN))
            assert_true((double)info.capacity <= (double)caps[i] * 1.125 + 4);
        assert_int_equal(info.bytes, info.buckets * 8);
        /* the sizing call predicts the table exactly (Redis caps memory with it) */
        assert_int_equal(fl_gcf_bytes_for(caps[i], &sized), FL_OK);
        assert_int_equal(sized, info.bytes);
        fl_gcf_free(g);
    }
    /* NULLs everywhere */
    assert_int_equal(fl_gcf_insert_u64(NULL, 1), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_gcf_insert_bytes(NULL, "a", 1), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_gcf_delete_u64(NULL, 1), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_gcf_contains_u64(NULL, 1), 0);
    assert_int_equal(fl_gcf_clear(NULL), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_gcf_set_byte_limit(NULL, 1), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_gcf_bind_kernel(NULL, "scalar"), FL_ERR_INVALID_ARG);
    assert_null(fl_gcf_kernel(NULL));
    fl_gcf_info info;
    assert_int_equal(fl_gcf_info_get(NULL, &info), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_gcf_create(10, 1, &g), FL_OK);
    assert_int_equal(fl_gcf_info_get(g, NULL), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_gcf_insert_bytes(g, NULL, 1), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_gcf_delete_bytes(g, NULL, 1), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_gcf_contains_bytes(g, NULL, 1), 0);
    assert_int_equal(fl_gcf_insert_bytes(g, NULL, 0), FL_OK); /* the empty key */
    assert_int_equal(fl_gcf_contains_bytes(g, "", 0), 1);
    uint8_t out[4];
    size_t n = 9;
    assert_int_equal(fl_gcf_contains_u64s(g, NULL, 4, out, &n), FL_ERR_INVALID_ARG);
    assert_int_equal(n, 0);
    assert_int_equal(fl_gcf_contains_hashes(g, NULL, 4, out, NULL), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_gcf_insert_u64s(g, NULL, 4, &n), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_gcf_delete_hashes(g, NULL, 4, &n), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_gcf_contains_u64s(g, NULL, 0, NULL, &n), FL_OK);
    assert_int_equal(fl_gcf_bind_kernel(g, "no-such-kernel"), FL_ERR_UNKNOWN_KERNEL);
    fl_gcf_lookup l = fl_gcf_lookup_of(NULL);
    assert_int_equal(fl_gcf_lookup_u64(&l, 1), 0);
    fl_gcf_free(g);
    fl_gcf_free(NULL);
}

/* ---- invariants ------------------------------------------------------------------------- */

/* Every occupied slot has a tag, a sentinel and a length the doublings allow; the counts by
 * length are the table's. */
static void check_invariants(const fl_gcf *g) {
    uint64_t by[FL_GCF_EXT_BITS + 1] = {0};
    uint32_t min_len = FL_GCF_EXT_BITS - (g->kbits - g->wbits);
    assert_int_equal(g->buckets, (uint64_t)g->columns << g->kbits);
    assert_int_equal(g->bytes, g->buckets * 8);
    for (uint64_t b = 0; b < g->buckets; b++)
        for (uint32_t s = 0; s < 4; s++) {
            uint32_t v = (uint32_t)(g->table[b] >> (16 * s)) & 0xffff;
            if (!v) continue;
            assert_true((v & 0xff) != 0 && (v >> 8) != 0);
            uint32_t len = fl_gcf_slot_ext(v);
            assert_true(len >= min_len && len <= FL_GCF_EXT_BITS);
            by[len]++;
        }
    assert_memory_equal(by, g->by_ext, sizeof by);
}

/* ---- growth --------------------------------------------------------------------------------- */

/* From capacity 1, 100 and 5000: a batch of keys per generation, the filter doubling as it
 * fills, up to the growth limit; after every insert batch all keys so far are found. */
static void test_every_generation_found(void **state) {
    (void)state;
    static const uint64_t caps[] = {1, 100, 5000};
    for (size_t ci = 0; ci < sizeof caps / sizeof caps[0]; ci++) {
        fl_gcf *g = NULL;
        assert_int_equal(fl_gcf_create(caps[ci], 5, &g), FL_OK);
        fl_gcf_info info;
        assert_int_equal(fl_gcf_info_get(g, &info), FL_OK);
        uint64_t total = info.max_capacity, seed = 42 + ci, done = 0;
        uint64_t *h = malloc(total * sizeof *h);
        assert_non_null(h);
        uint32_t last_doublings = 0;
        while (done < total) {
            uint64_t step = info.capacity / 3 + 1;
            for (uint64_t i = 0; i < step && done < total; i++, done++) {
                h[done] = splitmix(&seed);
                fl_status st = fl_gcf_insert_hash(g, h[done]);
                if (st != FL_OK) fail_msg("cap %" PRIu64 ": insert %" PRIu64 " of %" PRIu64
                                          ": %s", caps[ci], done, total, fl_strerror(st));
            }
            assert_int_equal(fl_gcf_info_get(g, &info), FL_OK);
            assert_true(info.doublings >= last_doublings);
            last_doublings = info.doublings;
            check_invariants(g);
            for (uint64_t i = 0; i < done; i++)
                if (!fl_gcf_contains_hash(g, h[i]))
                    fail_msg("cap %" PRIu64 " doublings %u: key %" PRIu64 " lost", caps[ci],
                             info.doublings, i);
        }
        assert_int_equal(info.doublings, FL_GCF_MAX_DOUBLINGS);
        assert_int_equal(info.items, total);
        free(h);
        fl_gcf_free(g);
    }
}

/* Random keys into g until an insert fails: their count (stored in h), the failing key in
 * *bad and its status in *st. Inserts are deterministic, so a second filter made alike and
 * given the same keys reaches the same state. */
static uint64_t fill_until_refused(fl_gcf *g, uint64_t *h, uint64_t *bad, fl_status *st) {
    uint64_t seed = 3, n = 0;
    for (;;) {
        uint64_t k = splitmix(&seed);
        *st = fl_gcf_insert_hash(g, k);
        if (*st != FL_OK) {
            *bad = k;
            return n;
        }
        h[n++] = k;
    }
}

/* At the growth limit the table fills and then refuses with FL_ERR_FULL, changing nothing;
 * deletes make room again. */
static void test_growth_limit(void **state) {
    (void)state;
    fl_gcf *g = NULL;
    assert_int_equal(fl_gcf_create(1, 9, &g), FL_OK);
    uint64_t *h = malloc(((size_t)FL_GCF_MAX_COLUMNS << (FL_GCF_W_MIN + 7)) * 4 * sizeof *h);
    assert_non_null(h);
    fl_status st;
    uint64_t bad, n = fill_until_refused(g, h, &bad, &st);
    /* the refused insert changed nothing: the same state rebuilt, copied, then refused
     * again (a copy before every insert would cost a table copy per key) */
    {
        fl_gcf *again = NULL;
        assert_int_equal(fl_gcf_create(1, 9, &again), FL_OK);
        for (uint64_t i = 0; i < n; i++) assert_int_equal(fl_gcf_insert_hash(again, h[i]), FL_OK);
        assert_int_equal(again->bytes, g->bytes);
        assert_memory_equal(again->table, g->table, g->bytes);
        uint8_t *before = malloc(again->bytes);
        assert_non_null(before);
        memcpy(before, again->table, again->bytes);
        size_t bytes = again->bytes;
        assert_int_equal(fl_gcf_insert_hash(again, bad), st);
        assert_int_equal(again->bytes, bytes);
        assert_memory_equal(before, again->table, bytes);
        free(before);
        fl_gcf_free(again);
    }
    assert_int_equal(st, FL_ERR_FULL);
    assert_int_equal(g->kbits - g->wbits, FL_GCF_MAX_DOUBLINGS);
    fl_gcf_info info;
    assert_int_equal(fl_gcf_info_get(g, &info), FL_OK);
    assert_int_equal(info.items, n);
    assert_true(info.load > 0.9);
    for (uint64_t i = 0; i < n; i++) assert_true(fl_gcf_contains_hash(g, h[i]));
    check_invariants(g);
    /* the oldest slots have no extension bit left */
    assert_true(info.items_by_ext[0] > 0);
    assert_int_equal(fl_gcf_delete_hash(g, h[0]), FL_OK);
    assert_int_equal(fl_gcf_insert_hash(g, h[0]), FL_OK);
    free(h);
    fl_gcf_free(g);
}

/* The byte limit: a doubling past it is refused; the insert still goes in while the table
 * has room, then FL_ERR_TOO_LARGE with nothing changed. */
static void test_byte_limit(void **state) {
    (void)state;
    fl_gcf *g = NULL;
    assert_int_equal(fl_gcf_create(1000, 9, &g), FL_OK);
    size_t first = g->bytes;
    assert_int_equal(fl_gcf_set_byte_limit(g, first * 2), FL_OK);
    uint64_t seed = 5;
    fl_status st = FL_OK;
    uint64_t n = 0;
    while (st == FL_OK) {
        uint64_t k = splitmix(&seed);
        uint64_t items = fl_gcf_items(g);
        st = fl_gcf_insert_hash(g, k);
        if (st != FL_OK) assert_int_equal(fl_gcf_items(g), items);
        n += st == FL_OK;
    }
    assert_int_equal(st, FL_ERR_TOO_LARGE);
    assert_int_equal(g->bytes, first * 2);
    fl_gcf_info info;
    assert_int_equal(fl_gcf_info_get(g, &info), FL_OK);
    assert_int_equal(info.byte_limit, first * 2);
    assert_true(info.load > FL_GCF_GROW_LOAD); /* it filled past the doubling point */
    check_invariants(g);
    /* lifting the limit lets it grow again */
    assert_int_equal(fl_gcf_set_byte_limit(g, 0), FL_OK);
    assert_int_equal(fl_gcf_insert_hash(g, splitmix(&seed)), FL_OK);
    assert_int_equal(g->bytes, first * 4);
    fl_gcf_free(g);
}

/* Nine copies of one key fill its eight slots: the ninth is refused at a low load without
 * growing the table. */
static void test_duplicates(void **state) {
    (void)state;
    fl_gcf *g = NULL;
    assert_int_equal(fl_gcf_create(1000, 2, &g), FL_OK);
    size_t bytes = g->bytes;
    for (int i = 0; i < 8; i++) assert_int_equal(fl_gcf_insert_u64(g, 77), FL_OK);
    assert_int_equal(fl_gcf_insert_u64(g, 77), FL_ERR_FULL);
    assert_int_equal(g->bytes, bytes);
    for (int i = 0; i < 8; i++) {
        assert_int_equal(fl_gcf_contains_u64(g, 77), 1);
        assert_int_equal(fl_gcf_delete_u64(g, 77), FL_OK);
    }
    assert_int_equal(fl_gcf_delete_u64(g, 77), FL_ERR_NOT_FOUND);
    assert_int_equal(fl_gcf_contains_u64(g, 77), 0);
    check_invariants(g);
    /* a copy from before a doubling and one after are both deletable */
    assert_int_equal(fl_gcf_insert_u64(g, 78), FL_OK);
    for (uint64_t k = 1000; g->kbits == g->wbits; k++) assert_int_equal(fl_gcf_insert_u64(g, k), FL_OK);
    assert_int_equal(fl_gcf_insert_u64(g, 78), FL_OK);
    assert_int_equal(fl_gcf_delete_u64(g, 78), FL_OK);
    assert_int_equal(fl_gcf_contains_u64(g, 78), 1);
    assert_int_equal(fl_gcf_delete_u64(g, 78), FL_OK);
    fl_gcf_free(g);
}

/* The delete rule. Key y is inserted, the table doubles twice (y's slot keeps 5 extension
 * bits), then key x with y's tag, column, buckets and those 5 bits but a different 6th and
 * 7th. x's lookup matches both slots; y's only its own. Deleting x must take x's 7-bit slot:
 * the first match in bucket order would be y's (it sits first in the same bucket) and leave
 * y absent. */
static void test_delete_longest(void **state) {
    (void)state;
    fl_gcf *g = NULL;
    assert_int_equal(fl_gcf_create(1, 1, &g), FL_OK);
    uint32_t w = g->wbits, c = g->columns;
    uint64_t y = 0xa5c3000000001235ull; /* tag 0x35, column bits 0x0012, stripe from the top */
    assert_int_equal(fl_gcf_insert_hash(g, y), FL_OK);
    /* filler keys in other stripes until two doublings happened */
    uint64_t seed = 8;
    while (g->kbits < w + 2) {
        uint64_t k = splitmix(&seed);
        if (model_stripe(k, g->kbits) == model_stripe(y, g->kbits)) continue;
        assert_int_equal(fl_gcf_insert_hash(g, k), FL_OK);
    }
    uint32_t kb = g->kbits;
    assert_int_equal(kb, w + 2); /* y's slot holds 5 extension bits */
    /* extension bit j of a key is h bit 63 - kb - j: flip the 6th and 7th (j = 5, 6) */
    uint64_t x = y ^ (1ull << (63 - kb - 5)) ^ (1ull << (63 - kb - 6));
    assert_int_equal(model_stripe(x, kb), model_stripe(y, kb));
    assert_int_equal(fl_gcf_column(x, c), fl_gcf_column(y, c));
    assert_int_equal(fl_gcf_tag(x), fl_gcf_tag(y));
    assert_int_equal(fl_gcf_insert_hash(g, x), FL_OK);
    assert_int_equal(fl_gcf_contains_hash(g, x), 1);
    assert_int_equal(fl_gcf_contains_hash(g, y), 1);
    assert_int_equal(fl_gcf_delete_hash(g, x), FL_OK);
    assert_int_equal(fl_gcf_contains_hash(g, y), 1); /* y survives x's delete */
    assert_int_equal(fl_gcf_delete_hash(g, y), FL_OK);
    assert_int_equal(fl_gcf_contains_hash(g, y), 0);
    check_invariants(g);
    fl_gcf_free(g);
}

/* ---- random sequences against a multiset model ---------------------------------------------
 * Keys from a small universe (so copies and deletes of present keys are common); inserts
 * grow the filter from a small capacity; deletes only of keys present (the contract). After
 * every step: no false negative for a key with copies left. */
static void test_against_model(void **state) {
    (void)state;
    enum { U = 3000, STEPS = 40000 };
    static uint32_t copies[U];
    memset(copies, 0, sizeof copies);
    fl_gcf *g = NULL;
    assert_int_equal(fl_gcf_create(50, 17, &g), FL_OK);
    uint64_t seed = 99, present = 0;
    for (int step = 0; step < STEPS; step++) {
        uint64_t r = splitmix(&seed);
        uint32_t k = (uint32_t)(r % U);
        int del = ((r >> 32) % 10) < 4;
        if (del && copies[k]) {
            assert_int_equal(fl_gcf_delete_u64(g, k), FL_OK);
            copies[k]--;
            present--;
        } else if (!del && copies[k] < 3) {
            fl_status st = fl_gcf_insert_u64(g, k);
            if (st != FL_OK) fail_msg("step %d: %s", step, fl_strerror(st));
            copies[k]++;
            present++;
        }
        if (step % 4000 == 0 || step == STEPS - 1) {
            check_invariants(g);
            assert_int_equal(fl_gcf_items(g), present);
            for (uint32_t j = 0; j < U; j++)
                if (copies[j]) assert_int_equal(fl_gcf_contains_u64(g, j), 1);
        }
    }
    assert_true(g->kbits > g->wbits); /* it grew */
    fl_gcf_free(g);
}

/* ---- FPR ------------------------------------------------------------------------------------ */

/* Grown from 100K to 8x: at each whole multiple the measured FPR of 10^6 keys never
 * inserted is within 15% of info's estimate (at 0.024%..0.2%, 10^6 probes give 240..2000
 * false positives: 15% is over 2.3 standard deviations of the smallest), and at 8x below
 * 0.2% + its noise. */
static void test_fpr(void **state) {
    (void)state;
    if (test_reduced()) skip();
    fl_gcf *g = NULL;
    const uint64_t cap = 100000;
    assert_int_equal(fl_gcf_create(cap, 3, &g), FL_OK);
    uint64_t next = 0;
    for (uint64_t mult = 1; mult <= 8; mult++) {
        for (; next < cap * mult; next++) assert_int_equal(fl_gcf_insert_u64(g, next), FL_OK);
        fl_gcf_info info;
        assert_int_equal(fl_gcf_info_get(g, &info), FL_OK);
        uint64_t fp = 0, probes = 1000000;
        for (uint64_t k = 0; k < probes; k++) fp += (uint64_t)fl_gcf_contains_u64(g, (1ull << 50) + k);
        double measured = (double)fp / (double)probes;
        print_message("gcf %" PRIu64 "x: fpr %.6f, estimate %.6f, %.2f bits/key, doublings %u\n",
                      mult, measured, info.fpr, info.bits_per_key, info.doublings);
        assert_true(fabs(measured - info.fpr) < 0.15 * info.fpr);
        if (mult == 8) assert_true(measured < 0.0022);
    }
    fl_gcf_free(g);
}

TEST_KEY_HELPERS(fl_gcf, fl_gcf)

/* Batches equal single calls under every kernel this CPU runs; the in-line lookup too. */
static void test_batch_equals_single(void **state) {
    (void)state;
    fl_gcf *g = NULL;
    assert_int_equal(fl_gcf_create(1000, 11, &g), FL_OK);
    uint64_t *keys = test_hashes(20001, 1);
    size_t ins = 0;
    assert_int_equal(fl_gcf_insert_u64s(g, keys, 5000, &ins), FL_OK); /* doubles once */
    assert_int_equal(ins, 5000);
    assert_batches_equal_single(g, keys, 20000, 5000);
    /* batch deletes stop at the first key not there */
    size_t del = 0;
    assert_int_equal(fl_gcf_delete_u64s(g, keys, 5000, &del), FL_OK);
    assert_int_equal(del, 5000);
    assert_int_equal(fl_gcf_items(g), 0);
    assert_int_equal(fl_gcf_delete_u64s(g, keys, 2, &del), FL_ERR_NOT_FOUND);
    assert_int_equal(del, 0);
    free(keys);
    fl_gcf_free(g);
}

/* ---- files ------------------------------------------------------------------------------- */

TEST_FILE_HELPERS(fl_gcf, fl_gcf, fl_gcf_free)

/* A filter grown twice from capacity 1 (the smallest table), with copies and deletes: slots
 * of lengths 5, 6 and 7. */
static fl_gcf *sample(void) {
    fl_gcf *g = NULL;
    assert_int_equal(fl_gcf_create(1, 77, &g), FL_OK);
    uint64_t k = 0;
    while (g->kbits < g->wbits + 2) assert_int_equal(fl_gcf_insert_u64(g, k++ / 2), FL_OK);
    for (uint64_t j = 0; j < 30; j++) assert_int_equal(fl_gcf_delete_u64(g, j * 3), FL_OK);
    return g;
}

static void test_round_trip(void **state) {
    (void)state;
    fl_gcf *g = sample();
    size_t len;
    uint8_t *buf = saved_image(g, &len);
    fl_gcf *d = NULL;
    assert_int_equal(fl_gcf_load_mem(buf, len, 0, &d), FL_OK);
    assert_int_equal(d->buckets, g->buckets);
    assert_int_equal(d->kbits, g->kbits);
    assert_int_equal(d->wbits, g->wbits);
    assert_int_equal(d->seed, g->seed);
    assert_memory_equal(d->by_ext, g->by_ext, sizeof g->by_ext);
    assert_memory_equal(d->table, g->table, g->bytes);
    size_t len2;
    uint8_t *buf2 = saved_image(d, &len2);
    assert_same_image_and_free(buf2, len2, saved_image(g, &len2), len2);
    for (uint64_t k = 0; k < 2000; k++)
        assert_int_equal(fl_gcf_contains_u64(d, k), fl_gcf_contains_u64(g, k));
    /* the loaded filter keeps growing (its eviction walks draw other random numbers than the
     * original's, so the tables differ; the answers for inserted keys do not) */
    for (uint64_t k = 1u << 30; k < (1u << 30) + 40000; k++)
        assert_int_equal(fl_gcf_insert_u64(d, k), FL_OK);
    assert_true(d->kbits > g->kbits);
    for (uint64_t k = 1u << 30; k < (1u << 30) + 40000; k++)
        assert_int_equal(fl_gcf_contains_u64(d, k), 1);
    for (uint64_t k = 0; k < 2000; k++)
        if (fl_gcf_contains_u64(g, k) && k % 3 != 0) assert_int_equal(fl_gcf_contains_u64(d, k), 1);
    check_invariants(d);
    fl_gcf_free(d);
    /* files; the cap on table bytes, which becomes the loaded filter's byte limit */
    char dir[] = "/tmp/fl_test_gcf.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/f.gcf", dir);
    fl_gcf *s = sample();
    assert_int_equal(fl_gcf_save_file(s, path), FL_OK);
    assert_int_equal(fl_gcf_load_file(path, 0, &d), FL_OK);
    assert_memory_equal(d->table, s->table, s->bytes);
    fl_gcf_free(d);
    assert_int_equal(fl_gcf_load_file(path, s->bytes - 1, &d), FL_ERR_TOO_LARGE);
    assert_null(d);
    assert_int_equal(fl_gcf_load_file(path, s->bytes, &d), FL_OK);
    fl_gcf_info info;
    assert_int_equal(fl_gcf_info_get(d, &info), FL_OK);
    assert_int_equal(info.byte_limit, s->bytes);
    fl_status st = FL_OK;
    for (uint64_t k = 1u << 20; st == FL_OK; k++) st = fl_gcf_insert_u64(d, k);
    assert_int_equal(st, FL_ERR_TOO_LARGE);
    assert_int_equal(d->bytes, s->bytes);
    fl_gcf_free(d);
    assert_file_calls_refuse_misuse(s, FL_FILE_GROWING_CUCKOO);
    unlink(path);
    rmdir(dir);
    free(buf);
    fl_gcf_free(s);
    fl_gcf_free(g);
}

/* Other kinds' loaders refuse a growing cuckoo filter's file and the other way round, the
 * vector quotient filter's too. */
static void test_wrong_kind(void **state) {
    (void)state;
    fl_gcf *s = sample();
    size_t len;
    uint8_t *buf = saved_image(s, &len);
    assert_wrong_kind_both_ways(buf, len, load_status);
    fl_vqf *v = NULL;
    assert_int_equal(fl_vqf_load_mem(buf, len, 0, &v), FL_ERR_WRONG_KIND);
    assert_null(v);
    free(buf);
    fl_gcf_free(s);
}

static void test_every_truncation_and_bit_flip(void **state) {
    (void)state;
    fl_gcf *s = NULL;
    assert_int_equal(fl_gcf_create(1, 77, &s), FL_OK); /* the smallest table: a short file */
    for (uint64_t k = 0; k < 100; k++) assert_int_equal(fl_gcf_insert_u64(s, k), FL_OK);
    assert_image_refuses_cuts_and_flips(s);
    fl_gcf_free(s);
}

/* Crafted files: valid checksums around invalid fields. */
TEST_CRAFT_LOADER(fl_gcf, fl_gcf, fl_gcf_free, check_invariants)

static fl_status load_craft(const uint8_t head[32], const uint8_t *table, uint64_t table_len) {
    size_t size;
    uint8_t *buf = test_two_section_image(FL_KIND_GROWING_CUCKOO, FL_CT_TAG('H', 'E', 'A', 'D'),
                                          head, 32, FL_CT_TAG('S', 'L', 'O', 'T'), table,
                                          table_len, &size);
    return load_crafted(buf, size);
}

static void test_crafted(void **state) {
    (void)state;
    fl_gcf *s = sample();
    size_t tlen = s->bytes;
    uint8_t *t = malloc(tlen), *k = malloc(tlen);
    assert_non_null(t);
    assert_non_null(k);
    memcpy(t, s->table, tlen);
    uint8_t head[32];
    memset(head, 0, sizeof head);
    head[0] = (uint8_t)s->columns;
    head[1] = (uint8_t)s->wbits;
    head[2] = (uint8_t)s->kbits;
    head[3] = 16;
    head[4] = 4;
    head[5] = 7;
    fl_put64(head + 8, 77);
    fl_put64(head + 16, fl_gcf_items(s));
    assert_int_equal(load_craft(head, t, tlen), FL_OK);
    static const struct {
        size_t at;
        uint8_t value;
    } HEAD_BAD[] = {{0, 0}, {0, 16}, {1, 0}, {3, 8}, {4, 2}, {5, 8}, {6, 1}, {7, 1}, {24, 1}, {31, 1}};
    for (size_t i = 0; i < sizeof HEAD_BAD / sizeof HEAD_BAD[0]; i++) {
        uint8_t h[32];
        memcpy(h, head, 32);
        h[HEAD_BAD[i].at] = HEAD_BAD[i].value;
        if (load_craft(h, t, tlen) != FL_ERR_CORRUPT) fail_msg("HEAD byte %zu", HEAD_BAD[i].at);
    }
    uint8_t h[32];
    memcpy(h, head, 32);
    h[2] = (uint8_t)(s->wbits - 1); /* K below W */
    assert_int_equal(load_craft(h, t, tlen / 8), FL_ERR_CORRUPT);
    h[1] = 1;
    h[2] = 9; /* more than 7 doublings */
    assert_int_equal(load_craft(h, t, (uint64_t)s->columns << 9 << 3), FL_ERR_CORRUPT);
    memcpy(h, head, 32);
    h[2] = (uint8_t)(s->kbits + 1); /* SLOT not buckets * 8 */
    assert_int_equal(load_craft(h, t, tlen), FL_ERR_CORRUPT);
    memcpy(h, head, 32);
    fl_put64(h + 16, s->buckets * 4 + 1);
    assert_int_equal(load_craft(h, t, tlen), FL_ERR_CORRUPT);
    fl_put64(h + 16, fl_gcf_items(s) + 1);
    assert_int_equal(load_craft(h, t, tlen), FL_ERR_CORRUPT);
    fl_put64(h + 16, fl_gcf_items(s) - 1);
    assert_int_equal(load_craft(h, t, tlen), FL_ERR_CORRUPT);
    /* slots: find an occupied one and spoil it each way */
    size_t at = 0;
    while (at < tlen && (t[at] | t[at + 1]) == 0) at += 2;
    assert_true(at < tlen);
    struct {
        uint8_t lo, hi;
    } BAD[] = {{0, t[at + 1]},              /* tag 0 */
               {t[at], 0},                  /* no sentinel */
               {t[at], 0x80},               /* L = 0 after 2 doublings: too short */
               {t[at], 0x40}};              /* L = 1 */
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        memcpy(k, t, tlen);
        k[at] = BAD[i].lo;
        k[at + 1] = BAD[i].hi;
        if (load_craft(head, k, tlen) != FL_ERR_CORRUPT) fail_msg("bad slot %zu", i);
    }
    /* an empty slot made occupied (valid bytes): the items disagree */
    size_t e = 0;
    while (e < tlen && (t[e] | t[e + 1]) != 0) e += 2;
    assert_true(e < tlen);
    memcpy(k, t, tlen);
    k[e] = 9;
    k[e + 1] = 0x01; /* 7 extension bits */
    assert_int_equal(load_craft(head, k, tlen), FL_ERR_CORRUPT);
    /* ... and loads with the header counting it */
    memcpy(h, head, 32);
    fl_put64(h + 16, fl_gcf_items(s) + 1);
    assert_int_equal(load_craft(h, k, tlen), FL_OK);
    free(t);
    free(k);
    fl_gcf_free(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_match),
        cmocka_unit_test(test_lane_match),
        cmocka_unit_test(test_geometry),
        cmocka_unit_test(test_sizing_and_bad_arguments),
        cmocka_unit_test(test_every_generation_found),
        cmocka_unit_test(test_growth_limit),
        cmocka_unit_test(test_byte_limit),
        cmocka_unit_test(test_duplicates),
        cmocka_unit_test(test_delete_longest),
        cmocka_unit_test(test_against_model),
        cmocka_unit_test(test_fpr),
        cmocka_unit_test(test_batch_equals_single),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_wrong_kind),
        cmocka_unit_test(test_every_truncation_and_bit_flip),
        cmocka_unit_test(test_crafted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
