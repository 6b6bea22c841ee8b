/*
 * Vector quotient filter (src/vqf/vqf.c, include/filterlab_vqf.h): the metadata select
 * against a bit-by-bit count; sizing and every bad argument; random insert / delete / lookup
 * sequences against an exact multiset model, on filters small enough to fill (every block's
 * invariants checked after every operation, no false negative ever, a refused insert leaving
 * every byte as it was); duplicates as copies; deletes of keys not there; n inserts landing
 * in a filter sized for n; the block an insert picks (block1 up to FL_VQF_CHOICE_ITEMS items,
 * then the emptier) and the copy a delete takes (block1's first), under every kernel; one
 * block byte for byte against a model after an insert and a delete at every slot position;
 * the measured FPR against the model; batch calls = single calls under every kernel; the
 * in-line lookup = the library's; files: round trips byte for byte, every truncation and
 * bit flip refused, crafted files with valid checksums around corrupt metadata, free slots,
 * item counts and header fields, each with its exact status, wrong kinds both ways.
 * Every sequence is generated from a fixed seed, so each run checks the same numbers.
 */
#include "testutil.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "test_craft.h"
#include "vqf/vqf_internal.h"

static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* ---- select ------------------------------------------------------------------------------ */

static uint32_t select_naive(uint64_t x, uint32_t r) {
    for (uint32_t i = 0; i < 64; i++)
        if ((x >> i) & 1) {
            if (r == 0) return i;
            r--;
        }
    return 64;
}

/* The bucket's slots bit by bit: slot j (the j-th zero) is in bucket b when b ones come
 * before it. */
static uint64_t mask_naive(uint64_t lo, uint64_t hi, uint32_t b) {
    uint64_t m = 0;
    uint32_t ones = 0, zeros = 0;
    for (uint32_t i = 0; i < 128 && zeros < 48; i++) {
        int bit = (int)(((i < 64 ? lo : hi) >> (i & 63)) & 1);
        if (bit) {
            ones++;
        } else {
            if (ones == b) m |= 1ull << zeros;
            zeros++;
        }
    }
    return m;
}

/* select64 and select128 against a bit-by-bit count; the bucket mask against the slots'
 * buckets counted bit by bit, on random metadata of exactly 80 ones (what filters hold). */
static void test_select(void **state) {
    (void)state;
    uint64_t s = 1;
    for (int t = 0; t < 20000; t++) {
        uint64_t x = splitmix(&s);
        /* sparse and dense words too */
        if (t % 3 == 1) x &= splitmix(&s) & splitmix(&s);
        if (t % 3 == 2) x |= splitmix(&s) | splitmix(&s);
        if (t == 0) x = 0;
        if (t == 1) x = ~0ull;
        for (uint32_t r = 0; r < 64; r++) {
            uint32_t want = select_naive(x, r);
            if (fl_vqf_select64(x, r) != want)
                fail_msg("select64(%016" PRIx64 ", %u) = %u, want %u", x, r,
                         fl_vqf_select64(x, r), want);
        }
        uint64_t hi = splitmix(&s);
        uint32_t c = (uint32_t)__builtin_popcountll(x);
        for (uint32_t r = 0; r < c + 64; r++) {
            uint32_t want = r < c ? select_naive(x, r) : 64 + select_naive(hi, r - c);
            assert_int_equal(fl_vqf_select128(x, hi, r), want);
        }
        /* 80 ones among 128 bits, then every bucket */
        uint64_t md[2] = {0, 0};
        for (uint32_t placed = 0; placed < 80;) {
            uint32_t i = (uint32_t)(splitmix(&s) % (t % 2 ? 128 : 80 + t % 49));
            if (!((md[i / 64] >> (i % 64)) & 1)) {
                md[i / 64] |= 1ull << (i % 64);
                placed++;
            }
        }
        for (uint32_t b = 0; b < 80; b++) {
            uint64_t want = mask_naive(md[0], md[1], b), got = fl_vqf_bucket_mask(md[0], md[1], b);
            if (got != want)
                fail_msg("md %016" PRIx64 " %016" PRIx64 " bucket %u: %012" PRIx64 ", want %012" PRIx64,
                         md[0], md[1], b, got, want);
            /* the one-pdep form and the two-select form agree on every bucket */
            uint32_t c = (uint32_t)__builtin_popcountll(md[0]);
            assert_int_equal(got, fl_vqf_bucket_mask_two_selects(md[0], md[1], c, b));
        }
        /* metadata no filter holds (any 128 bits, any bucket up to 127): still slots of the
         * block only, so no lookup reads past it */
        uint64_t rlo = splitmix(&s), rhi = splitmix(&s);
        if (t % 4 == 1) rlo = ~0ull;
        if (t % 4 == 2) rhi = 0;
        for (uint32_t b = 0; b < 128; b++)
            assert_true(fl_vqf_bucket_mask(rlo, rhi, b) >> FL_VQF_SLOTS == 0);
    }
}

/* ---- sizing and bad arguments ------------------------------------------------------------ */

static void test_sizing_and_bad_arguments(void **state) {
    (void)state;
    uint32_t blocks = 0;
    assert_int_equal(fl_vqf_blocks_for(0, &blocks), FL_ERR_BAD_N);
    assert_int_equal(fl_vqf_blocks_for(10, NULL), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_vqf_blocks_for(1, &blocks), FL_OK);
    assert_int_equal(blocks, 1);
    assert_int_equal(fl_vqf_blocks_for(1000000, &blocks), FL_OK);
    assert_int_equal(blocks, (uint32_t)ceil(1000000 / (48 * FL_VQF_SIZING_LOAD)));
    /* 2^32 blocks and more: refused before anything is allocated */
    assert_int_equal(fl_vqf_blocks_for(UINT64_MAX, &blocks), FL_ERR_TOO_LARGE);
    assert_int_equal(fl_vqf_blocks_for((uint64_t)48 << 32, &blocks), FL_ERR_TOO_LARGE);
    fl_vqf *v = (fl_vqf *)1;
    assert_int_equal(fl_vqf_create(UINT64_MAX, 0, &v), FL_ERR_TOO_LARGE);
    assert_null(v);
    assert_int_equal(fl_vqf_create(0, 0, &v), FL_ERR_BAD_N);
    assert_int_equal(fl_vqf_create_blocks(0, 0, &v), FL_ERR_BAD_GEOMETRY);
    assert_int_equal(fl_vqf_create(10, 0, NULL), FL_ERR_INVALID_ARG);

    assert_int_equal(fl_vqf_create(100, 0, &v), FL_OK);
    assert_int_equal(fl_vqf_insert_bytes(v, NULL, 3), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_vqf_delete_bytes(v, NULL, 3), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_vqf_contains_bytes(v, NULL, 3), 0);
    assert_int_equal(fl_vqf_insert_hash(NULL, 1), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_vqf_insert_u64(NULL, 1), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_vqf_delete_hash(NULL, 1), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_vqf_delete_u64(NULL, 1), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_vqf_contains_hash(NULL, 1), 0);
    assert_int_equal(fl_vqf_contains_u64(NULL, 1), 0);
    uint8_t out[4];
    size_t pos = 9, ins = 9;
    assert_int_equal(fl_vqf_contains_hashes(v, NULL, 4, out, &pos), FL_ERR_INVALID_ARG);
    assert_int_equal(pos, 0);
    assert_int_equal(fl_vqf_contains_u64s(v, NULL, 4, out, NULL), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_vqf_contains_hashes(v, NULL, 0, NULL, &pos), FL_OK);
    assert_int_equal(fl_vqf_insert_hashes(v, NULL, 4, &ins), FL_ERR_INVALID_ARG);
    assert_int_equal(ins, 0);
    assert_int_equal(fl_vqf_insert_u64s(NULL, NULL, 0, NULL), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_vqf_delete_u64s(v, NULL, 2, &ins), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_vqf_delete_hashes(NULL, NULL, 0, NULL), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_vqf_info_get(v, NULL), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_vqf_bind_kernel(v, "no-such-kernel"), FL_ERR_UNKNOWN_KERNEL);
    assert_int_equal(fl_vqf_clear(NULL), FL_ERR_INVALID_ARG);
    assert_null(fl_vqf_kernel(NULL));
    /* an empty key is a key */
    assert_int_equal(fl_vqf_insert_bytes(v, NULL, 0), FL_OK);
    assert_int_equal(fl_vqf_contains_bytes(v, "", 0), 1);
    fl_vqf_info info;
    assert_int_equal(fl_vqf_info_get(v, &info), FL_OK);
    assert_int_equal(info.items, 1);
    assert_int_equal(info.blocks, 3);
    assert_int_equal(info.bytes, 3 * 64);
    assert_int_equal(info.slots, 3 * 48);
    assert_true(info.capacity >= 100);
    fl_vqf_free(v);
    fl_vqf_free(NULL);
    fl_vqf_lookup l = fl_vqf_lookup_of(NULL);
    assert_int_equal(fl_vqf_lookup_hash(&l, 5), 0);
}

/* ---- the filter against an exact model ---------------------------------------------------- */

/* Every block: exactly 80 ones in its metadata, zero free slots, and the items the filter
 * counts. */
static void check_invariants(const fl_vqf *v) {
    uint64_t items = 0;
    for (uint32_t i = 0; i < v->nblocks; i++) {
        const uint8_t *blk = v->blocks + (size_t)i * 64;
        uint64_t lo = fl_vqf_md_lo(blk), hi = fl_vqf_md_hi(blk);
        assert_int_equal(__builtin_popcountll(lo) + __builtin_popcountll(hi), 80);
        uint32_t c = fl_vqf_block_items(blk);
        assert_true(c <= 48);
        /* the highest one is select1(79) = 79 + items */
        assert_int_equal(fl_vqf_select128(lo, hi, 79), 79 + c);
        for (uint32_t j = c; j < 48; j++) assert_int_equal(blk[16 + j], 0);
        items += c;
    }
    assert_int_equal(items, v->items);
}

/* ---- one block, every slot position --------------------------------------------------------
 * An insert shifts the slots from its position up by one and a delete shifts them down
 * (vqf.c moves six 8-byte words with masks, and the metadata's two words): these build one
 * block byte by byte from a model (each bucket's fingerprints in order) and compare all 64
 * bytes after an insert at every position 0..n of a block of n items, n = 0..47, and after a
 * delete at every position of a block of n = 1..48. */

struct block_model {
    uint8_t fp[80][48];
    uint32_t n[80];
};

/* The hash whose bucket is b and fingerprint f: its tag word t = (h * MIX) >> 32 is chosen
 * in bucket b's range of reduce32 with low byte f, and h = (t << 32) * MIX^-1 mod 2^64. */
static uint64_t hash_for(uint32_t b, uint32_t f) {
    uint64_t inv = FL_VQF_MIX;
    for (int i = 0; i < 6; i++) inv *= 2 - FL_VQF_MIX * inv; /* Newton: 2^64 inverse */
    uint64_t t0 = (((uint64_t)b << 32) + 79) / 80;
    uint64_t t = ((t0 + 255) & ~(uint64_t)255) | f;
    uint64_t h = (t << 32) * inv;
    assert_int_equal(fl_vqf_bucket(h), b);
    assert_int_equal(fl_vqf_fp(h), f);
    return h;
}

static void model_bytes(const struct block_model *m, uint8_t out[64]) {
    uint64_t md[2] = {0, 0};
    uint32_t bit = 0, slot = 0;
    memset(out, 0, 64);
    for (uint32_t b = 0; b < 80; b++) {
        for (uint32_t k = 0; k < m->n[b]; k++) out[16 + slot++] = m->fp[b][k], bit++;
        md[bit >> 6] |= 1ull << (bit & 63);
        bit++;
    }
    for (int w = 0; w < 2; w++)
        for (int k = 0; k < 8; k++) out[8 * w + k] = (uint8_t)(md[w] >> (8 * k));
}

static void assert_block_is(const fl_vqf *v, const struct block_model *m) {
    uint8_t want[64];
    model_bytes(m, want);
    if (memcmp(v->blocks, want, 64) != 0) fail_msg("block differs from the model");
}

/* A block of n items through inserts, its model beside it: buckets all different and bucket
 * 0 empty (distinct != 0: then the 80 bucket ends take every value 0..n) or any, and the
 * fingerprints within a bucket all different (so a delete of slot j's takes slot j). */
static void fill_block(fl_vqf *v, struct block_model *m, uint32_t n, int distinct,
                       uint64_t *seed) {
    assert_int_equal(fl_vqf_clear(v), FL_OK);
    memset(m, 0, sizeof *m);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t b, f;
        for (;;) {
            b = distinct ? 1 + (uint32_t)(splitmix(seed) % 79) : (uint32_t)(splitmix(seed) % 80);
            if (distinct && m->n[b]) continue;
            f = (uint32_t)(splitmix(seed) & 0xff);
            int dup = 0;
            for (uint32_t k = 0; k < m->n[b]; k++) dup |= m->fp[b][k] == f;
            if (!dup) break;
        }
        assert_int_equal(fl_vqf_insert_hash(v, hash_for(b, f)), FL_OK);
        m->fp[b][m->n[b]++] = (uint8_t)f;
    }
    assert_block_is(v, m);
}

static void test_every_slot_position(void **state) {
    (void)state;
    fl_vqf *v = NULL;
    assert_int_equal(fl_vqf_create_blocks(1, 3, &v), FL_OK);
    struct block_model m, keep;
    uint8_t bytes[64];
    uint64_t seed = 77;
    for (uint32_t n = 0; n < 48; n++)
        for (int distinct = 1; distinct >= 0; distinct--) {
            fill_block(v, &m, n, distinct, &seed);
            keep = m;
            memcpy(bytes, v->blocks, 64);
            uint64_t hit = 0; /* insert positions seen */
            for (uint32_t b = 0; b < 80; b++) {
                uint32_t pos = 0;
                for (uint32_t c = 0; c <= b; c++) pos += m.n[c];
                uint32_t f = (uint32_t)(splitmix(&seed) & 0xff);
                assert_int_equal(fl_vqf_insert_hash(v, hash_for(b, f)), FL_OK);
                m.fp[b][m.n[b]++] = (uint8_t)f;
                assert_block_is(v, &m);
                check_invariants(v);
                hit |= 1ull << pos;
                m = keep;
                memcpy(v->blocks, bytes, 64);
                v->items = n;
            }
            if (distinct) assert_true(hit == (2ull << n) - 1);
        }
    /* deletes at every slot j of blocks of 1..48 items */
    for (uint32_t n = 1; n <= 48; n++) {
        fill_block(v, &m, n, 0, &seed);
        keep = m;
        memcpy(bytes, v->blocks, 64);
        uint32_t j = 0;
        for (uint32_t b = 0; b < 80; b++)
            for (uint32_t k = 0; k < keep.n[b]; k++, j++) {
                assert_int_equal(fl_vqf_delete_hash(v, hash_for(b, keep.fp[b][k])), FL_OK);
                memmove(m.fp[b] + k, m.fp[b] + k + 1, m.n[b] - k - 1);
                m.n[b]--;
                assert_block_is(v, &m);
                check_invariants(v);
                m = keep;
                memcpy(v->blocks, bytes, 64);
                v->items = n;
            }
        assert_int_equal(j, n);
        /* a fingerprint its bucket does not hold: refused, nothing moved */
        uint32_t f = 0;
        for (int dup = 1; dup; f++) {
            dup = 0;
            for (uint32_t k = 0; k < m.n[0]; k++) dup |= m.fp[0][k] == f;
        }
        assert_int_equal(fl_vqf_delete_hash(v, hash_for(0, f - 1)), FL_ERR_NOT_FOUND);
        assert_int_equal(memcmp(v->blocks, bytes, 64), 0);
    }
    /* a full block refuses the insert and keeps every byte */
    fill_block(v, &m, 48, 0, &seed);
    memcpy(bytes, v->blocks, 64);
    assert_int_equal(fl_vqf_insert_hash(v, hash_for(40, 1)), FL_ERR_FULL);
    assert_int_equal(memcmp(v->blocks, bytes, 64), 0);
    fl_vqf_free(v);
}

/* Copies of h's fingerprint in its bucket of both blocks (once if they are the same). */
static uint32_t copies(const fl_vqf *v, uint64_t h) {
    uint32_t b = fl_vqf_bucket(h), fp = fl_vqf_fp(h), n = 0;
    uint32_t i1 = fl_vqf_block1(h, v->nblocks), i2 = fl_vqf_block2(h, v->nblocks);
    for (int k = 0; k < 2; k++) {
        if (k == 1 && i2 == i1) break;
        const uint8_t *blk = v->blocks + (size_t)(k ? i2 : i1) * 64;
        for (uint64_t m = fl_vqf_bucket_mask(fl_vqf_md_lo(blk), fl_vqf_md_hi(blk), b); m;
             m &= m - 1)
            n += blk[16 + __builtin_ctzll(m)] == fp;
    }
    return n;
}

#define KEYS 600

/* Random sequences on filters of 1, 2, 3 and 7 blocks (full pairs come often): the model is
 * the multiset of keys inserted and not deleted. */
static void test_against_model(void **state) {
    (void)state;
    static const uint32_t BLOCKS[] = {1, 2, 3, 7};
    uint64_t s = 42;
    int steps = test_reduced() ? 4000 : 20000;
    for (size_t bi = 0; bi < sizeof BLOCKS / sizeof BLOCKS[0]; bi++) {
        fl_vqf *v = NULL;
        assert_int_equal(fl_vqf_create_blocks(BLOCKS[bi], 99 + bi, &v), FL_OK);
        uint64_t keys[KEYS];
        uint32_t count[KEYS] = {0};
        for (size_t i = 0; i < KEYS; i++) keys[i] = splitmix(&s);
        uint64_t held = 0, refused = 0, deleted = 0;
        uint8_t *before = malloc(v->bytes);
        assert_non_null(before);
        for (int step = 0; step < steps; step++) {
            uint64_t r = splitmix(&s) % 100;
            size_t k = (size_t)(splitmix(&s) % KEYS);
            uint64_t h = keys[k];
            if (r < 55) {
                memcpy(before, v->blocks, v->bytes);
                uint64_t items = v->items;
                fl_status st = fl_vqf_insert_hash(v, h);
                if (st == FL_OK) {
                    count[k]++;
                    held++;
                } else {
                    assert_int_equal(st, FL_ERR_FULL);
                    /* both blocks full, and nothing changed */
                    assert_int_equal(fl_vqf_block_items(v->blocks + 64 * (size_t)fl_vqf_block1(h, v->nblocks)), 48);
                    assert_int_equal(fl_vqf_block_items(v->blocks + 64 * (size_t)fl_vqf_block2(h, v->nblocks)), 48);
                    assert_memory_equal(before, v->blocks, v->bytes);
                    assert_int_equal(v->items, items);
                    refused++;
                }
            } else if (r < 90) {
                if (count[k] == 0) continue;
                assert_int_equal(fl_vqf_delete_hash(v, h), FL_OK);
                count[k]--;
                held--;
                deleted++;
            } else if (!fl_vqf_contains_hash(v, h)) {
                /* A key whose fingerprint is in neither bucket: delete refuses, changes
                 * nothing. */
                assert_int_equal(count[k], 0);
                memcpy(before, v->blocks, v->bytes);
                assert_int_equal(fl_vqf_delete_hash(v, h), FL_ERR_NOT_FOUND);
                assert_memory_equal(before, v->blocks, v->bytes);
            }
            assert_int_equal(v->items, held);
            if (step % 16 == 0 || r < 90) check_invariants(v);
            /* No false negative, and every copy held: a key's fingerprint copies in its two
             * buckets are at least its count in the model. */
            if (step % 64 == 0)
                for (size_t i = 0; i < KEYS; i++) {
                    if (count[i]) assert_int_equal(fl_vqf_contains_hash(v, keys[i]), 1);
                    assert_true(copies(v, keys[i]) >= count[i]);
                }
        }
        /* the runs exercised what they are for */
        assert_true(refused > 0);
        assert_true(deleted > 100);
        /* empty it again: every key deletes as many times as it was held */
        for (size_t i = 0; i < KEYS; i++)
            while (count[i]) {
                assert_int_equal(fl_vqf_delete_hash(v, keys[i]), FL_OK);
                count[i]--;
            }
        assert_int_equal(v->items, 0);
        check_invariants(v);
        for (uint32_t i = 0; i < v->nblocks; i++) {
            assert_int_equal(fl_vqf_md_lo(v->blocks + 64 * (size_t)i), FL_VQF_EMPTY_LO);
            assert_int_equal(fl_vqf_md_hi(v->blocks + 64 * (size_t)i), FL_VQF_EMPTY_HI);
        }
        free(before);
        fl_vqf_free(v);
    }
}

/* A hash with block1 x and (y < nblocks) partner y, or any partner other than x (y = ~0). */
static uint64_t hash_between(const fl_vqf *v, uint32_t x, uint32_t y, uint64_t *s) {
    for (;;) {
        uint64_t h = splitmix(s);
        uint32_t i2 = fl_vqf_block2(h, v->nblocks);
        if (fl_vqf_block1(h, v->nblocks) == x && (y == ~0u ? i2 != x : i2 == y)) return h;
    }
}

static uint32_t items_at(const fl_vqf *v, uint32_t i) {
    return fl_vqf_block_items(v->blocks + 64 * (size_t)i);
}

/* Inserts h and checks that the block `into` took it and no other block changed. */
static void insert_lands(fl_vqf *v, uint64_t h, uint32_t into) {
    uint32_t before[64];
    for (uint32_t i = 0; i < v->nblocks; i++) before[i] = items_at(v, i);
    assert_int_equal(fl_vqf_insert_hash(v, h), FL_OK);
    for (uint32_t i = 0; i < v->nblocks; i++)
        assert_int_equal(items_at(v, i), before[i] + (i == into));
}

/* The kernels an update test runs under: each one this CPU can be bound to. */
static const char *const UPDATE_KERNELS[] = {"scalar", "neon", "avx2", "avx512"};
#define N_UPDATE_KERNELS (sizeof UPDATE_KERNELS / sizeof UPDATE_KERNELS[0])

/* A filter of `blocks` blocks bound to kernel k, or NULL when this CPU cannot run it. */
static fl_vqf *create_bound(uint32_t blocks, size_t k) {
    fl_vqf *v = NULL;
    assert_int_equal(fl_vqf_create_blocks(blocks, 3, &v), FL_OK);
    fl_status st = fl_vqf_bind_kernel(v, UPDATE_KERNELS[k]);
    if (st == FL_ERR_KERNEL_UNAVAILABLE || st == FL_ERR_UNKNOWN_KERNEL) {
        fl_vqf_free(v);
        return NULL;
    }
    assert_int_equal(st, FL_OK);
    return v;
}

/* The block choice (include/filterlab_vqf.h): block1 while it holds at most
 * FL_VQF_CHOICE_ITEMS items, whatever its partner holds; past that the emptier block, ties
 * block1. Then every key reads present and deletes, from either block. Under every kernel:
 * each picks the block with its own masks (kernels/vqf_update.h). */
static void block_choice_with(size_t k) {
    fl_vqf *v = create_bound(64, k);
    if (!v) return;
    uint64_t s = 11, keys[2 * FL_VQF_SLOTS + 8];
    size_t nk = 0;
    const uint32_t x = 5;
    /* block1 x takes its keys up to T + 1 items, though every partner is empty */
    while (items_at(v, x) <= FL_VQF_CHOICE_ITEMS) {
        keys[nk] = hash_between(v, x, ~0u, &s);
        insert_lands(v, keys[nk++], x);
    }
    /* past T: the emptier block, the partner y */
    keys[nk] = hash_between(v, x, ~0u, &s);
    const uint32_t y = fl_vqf_block2(keys[nk], v->nblocks);
    insert_lands(v, keys[nk++], y);
    /* y to x's count through keys whose block1 is y (y is at most T until the last) */
    while (items_at(v, y) < items_at(v, x)) {
        keys[nk] = hash_between(v, y, ~0u, &s);
        insert_lands(v, keys[nk++], y);
    }
    assert_int_equal(items_at(v, x), FL_VQF_CHOICE_ITEMS + 1);
    /* a tie goes to block1; then block1 x is fuller and y takes the next */
    keys[nk] = hash_between(v, x, y, &s);
    insert_lands(v, keys[nk++], x);
    keys[nk] = hash_between(v, x, y, &s);
    insert_lands(v, keys[nk++], y);
    /* and from y's side: a tie (both T + 2) to y, then x, the emptier */
    keys[nk] = hash_between(v, y, x, &s);
    insert_lands(v, keys[nk++], y);
    keys[nk] = hash_between(v, y, x, &s);
    insert_lands(v, keys[nk++], x);
    check_invariants(v);
    for (size_t i = 0; i < nk; i++) assert_int_equal(fl_vqf_contains_hash(v, keys[i]), 1);
    for (size_t i = 0; i < nk; i++) assert_int_equal(fl_vqf_delete_hash(v, keys[i]), FL_OK);
    assert_int_equal(v->items, 0);
    check_invariants(v);
    fl_vqf_free(v);
}

/* Copies of one key in both its blocks: a delete takes block1's while block1 has one, then
 * block2's; one more is refused and changes nothing. One call per key, then the batch call
 * for the last copies (both reach vqf_delete1). */
static void delete_choice_with(size_t k) {
    fl_vqf *v = create_bound(64, k);
    if (!v) return;
    uint64_t s = 29;
    const uint32_t x = 9;
    const uint64_t h = hash_between(v, x, ~0u, &s);
    const uint32_t y = fl_vqf_block2(h, v->nblocks);
    /* T + 1 copies to block1 x, the next two to y, the emptier */
    for (uint32_t i = 0; i <= FL_VQF_CHOICE_ITEMS; i++) insert_lands(v, h, x);
    insert_lands(v, h, y);
    insert_lands(v, h, y);
    for (uint32_t left = FL_VQF_CHOICE_ITEMS + 1; left > 0; left--) {
        assert_int_equal(fl_vqf_delete_hash(v, h), FL_OK);
        assert_int_equal(items_at(v, x), left - 1);
        assert_int_equal(items_at(v, y), 2);
    }
    assert_int_equal(fl_vqf_contains_hash(v, h), 1);
    const uint64_t two[2] = {h, h};
    size_t done = 0;
    assert_int_equal(fl_vqf_delete_hashes(v, two, 2, &done), FL_OK);
    assert_int_equal(done, 2);
    assert_int_equal(items_at(v, y), 0);
    uint8_t before[64 * 64];
    memcpy(before, v->blocks, sizeof before);
    assert_int_equal(fl_vqf_delete_hash(v, h), FL_ERR_NOT_FOUND);
    assert_memory_equal(v->blocks, before, sizeof before);
    assert_int_equal(v->items, 0);
    check_invariants(v);
    fl_vqf_free(v);
}

static void test_block_choice(void **state) {
    (void)state;
    for (size_t k = 0; k < N_UPDATE_KERNELS; k++) {
        block_choice_with(k);
        delete_choice_with(k);
    }
}

/* Copies: a key inserted three times deletes three times, then is gone. */
static void test_duplicates(void **state) {
    (void)state;
    fl_vqf *v = NULL;
    assert_int_equal(fl_vqf_create(1000, 5, &v), FL_OK);
    for (int i = 0; i < 3; i++) assert_int_equal(fl_vqf_insert_bytes(v, "dup", 3), FL_OK);
    assert_int_equal(copies(v, fl_vqf_hash_bytes(v, "dup", 3)), 3);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(fl_vqf_contains_bytes(v, "dup", 3), 1);
        assert_int_equal(fl_vqf_delete_bytes(v, "dup", 3), FL_OK);
    }
    assert_int_equal(fl_vqf_contains_bytes(v, "dup", 3), 0);
    assert_int_equal(fl_vqf_delete_bytes(v, "dup", 3), FL_ERR_NOT_FOUND);
    /* 96 copies of one key fill its two blocks (48 each, if they differ) */
    fl_vqf *w = NULL;
    assert_int_equal(fl_vqf_create_blocks(5, 1, &w), FL_OK);
    uint64_t h = 0x0123456789abcdefull;
    uint32_t want = fl_vqf_block1(h, 5) == fl_vqf_block2(h, 5) ? 48 : 96, got = 0;
    while (fl_vqf_insert_hash(w, h) == FL_OK) got++;
    assert_int_equal(got, want);
    assert_int_equal(copies(w, h), want);
    check_invariants(w);
    fl_vqf_free(w);
    /* clear: empty, same shape */
    assert_int_equal(fl_vqf_insert_u64(v, 7), FL_OK);
    assert_int_equal(fl_vqf_clear(v), FL_OK);
    assert_int_equal(v->items, 0);
    assert_int_equal(fl_vqf_contains_u64(v, 7), 0);
    check_invariants(v);
    fl_vqf_free(v);
}

/* A filter sized for n keys takes n distinct keys, at every size checked (the sizing load is
 * below every measured first refusal: results/<host>/vqf/load_at_failure.md). */
static void test_sized_for_n(void **state) {
    (void)state;
    uint64_t sizes[] = {1, 10, 100, 1000, 10000, 100000, 1000000};
    size_t ns = test_reduced() ? 6 : 7;
    for (size_t i = 0; i < ns; i++)
        for (uint64_t seed = 0; seed < (sizes[i] >= 100000 ? 2u : 20u); seed++) {
            fl_vqf *v = NULL;
            assert_int_equal(fl_vqf_create(sizes[i], seed, &v), FL_OK);
            size_t ins = 0;
            uint64_t *keys = malloc(sizes[i] * sizeof *keys);
            assert_non_null(keys);
            for (uint64_t k = 0; k < sizes[i]; k++) keys[k] = (seed << 40) + k;
            fl_status st = fl_vqf_insert_u64s(v, keys, sizes[i], &ins);
            if (st != FL_OK)
                fail_msg("n=%" PRIu64 " seed %" PRIu64 ": %s after %zu", sizes[i], seed,
                         fl_strerror(st), ins);
            assert_int_equal(ins, sizes[i]);
            uint8_t *out = malloc(sizes[i]);
            size_t pos = 0;
            assert_int_equal(fl_vqf_contains_u64s(v, keys, sizes[i], out, &pos), FL_OK);
            assert_int_equal(pos, sizes[i]);
            free(out);
            free(keys);
            fl_vqf_free(v);
        }
}

/* Every key of a filter filled to its capacity deletes, in insertion order and in reverse,
 * and the filter is then empty: keys sharing a bucket and fingerprint share their two
 * blocks, so a delete that takes another key's copy leaves its own where the other finds it
 * (a second block independent of the first failed this within 100K keys). */
static void test_delete_every_key(void **state) {
    (void)state;
    uint64_t sizes[] = {1000, 100000};
    for (size_t i = 0; i < 2; i++)
        for (int reverse = 0; reverse < 2; reverse++) {
            fl_vqf *v = NULL;
            assert_int_equal(fl_vqf_create(sizes[i], 9 + (uint64_t)reverse, &v), FL_OK);
            fl_vqf_info info;
            assert_int_equal(fl_vqf_info_get(v, &info), FL_OK);
            for (uint64_t k = 0; k < info.capacity; k++) assert_int_equal(fl_vqf_insert_u64(v, k), FL_OK);
            if (reverse) {
                for (uint64_t j = 0; j < info.capacity; j++)
                    if (fl_vqf_delete_u64(v, info.capacity - 1 - j) != FL_OK)
                        fail_msg("%" PRIu64 " keys: delete of inserted key %" PRIu64 " refused",
                                 info.capacity, info.capacity - 1 - j);
            } else {
                /* the batch form, which stops at a key it cannot find */
                uint64_t *keys = malloc(info.capacity * sizeof *keys);
                assert_non_null(keys);
                for (uint64_t k = 0; k < info.capacity; k++) keys[k] = k;
                size_t done = 0;
                assert_int_equal(fl_vqf_delete_u64s(v, keys, info.capacity, &done), FL_OK);
                assert_int_equal(done, info.capacity);
                assert_int_equal(fl_vqf_delete_u64s(v, keys, 1, &done), FL_ERR_NOT_FOUND);
                assert_int_equal(done, 0);
                free(keys);
            }
            assert_int_equal(v->items, 0);
            check_invariants(v);
            fl_vqf_free(v);
        }
}

/* The measured FPR of a filter holding its sizing capacity against info's estimate: 10^6
 * probes at p ~ 0.44% have a standard deviation of 1.5% of p; 8% is over 5 of them. And
 * the targets at that fill: at most 0.45% and 11.5 bits per key. */
static void test_fpr(void **state) {
    (void)state;
    fl_vqf *v = NULL;
    assert_int_equal(fl_vqf_create(200000, 3, &v), FL_OK);
    fl_vqf_info info;
    assert_int_equal(fl_vqf_info_get(v, &info), FL_OK);
    for (uint64_t k = 0; k < info.capacity; k++) assert_int_equal(fl_vqf_insert_u64(v, k), FL_OK);
    assert_int_equal(fl_vqf_info_get(v, &info), FL_OK);
    uint64_t fp = 0, probes = 1000000;
    for (uint64_t k = 0; k < probes; k++) fp += (uint64_t)fl_vqf_contains_u64(v, (1ull << 50) + k);
    double measured = (double)fp / (double)probes;
    print_message("vqf fpr %.5f, estimate %.5f, %.3f bits/key\n", measured, info.fpr,
                  info.bits_per_key);
    assert_true(fabs(measured - info.fpr) < 0.08 * info.fpr);
    assert_true(info.fpr <= 0.0045);
    assert_true(info.bits_per_key <= 11.5);
    fl_vqf_free(v);
}

TEST_KEY_HELPERS(fl_vqf, fl_vqf)

/* Batches equal single calls under every kernel this CPU runs; the in-line lookup too. */
static void test_batch_equals_single(void **state) {
    (void)state;
    fl_vqf *v = NULL;
    assert_int_equal(fl_vqf_create(5000, 11, &v), FL_OK);
    uint64_t *keys = test_hashes(20001, 1);
    size_t ins = 0;
    assert_int_equal(fl_vqf_insert_u64s(v, keys, 5000, &ins), FL_OK);
    assert_int_equal(ins, 5000);
    assert_batches_equal_single(v, keys, 20000, 5000); /* keys[1..5000) inserted */
    free(keys);
    fl_vqf_free(v);
}

/* The one-key calls (the vqf.insert1 / delete1 / contains1 entries) on a filter rebound
 * before every call (each kernel this CPU runs, and back to the process's choice), and on
 * one left unbound while the process's choice changes, against a filter bound to scalar
 * throughout: the same statuses, answers, item counts and bytes, through the u64, bytes
 * and hash forms. And the size class the unbound calls read is the payload's, for filters
 * made at every class this test can afford and for a loaded one. */
static void test_one_key_calls(void **state) {
    (void)state;
    fl_vqf *ref = NULL, *rb = NULL, *ub = NULL;
    assert_int_equal(fl_vqf_create_blocks(3, 5, &ref), FL_OK); /* 3 blocks: refusals come */
    assert_int_equal(fl_vqf_create_blocks(3, 5, &rb), FL_OK);
    assert_int_equal(fl_vqf_create_blocks(3, 5, &ub), FL_OK);
    assert_int_equal(fl_vqf_bind_kernel(ref, "scalar"), FL_OK);
    static const char *const CHOICE[] = {"scalar", "neon", "avx2", "avx512", "auto"};
    const size_t nchoice = sizeof CHOICE / sizeof CHOICE[0];
    uint64_t s = 17, full = 0, absent = 0;
    for (int step = 0; step < 3000; step++) {
        const char *k = CHOICE[splitmix(&s) % nchoice];
        /* a kernel this CPU cannot run, or one not built for it (x86 names on aarch64),
         * leaves the binding and the choice as they were */
        fl_status bst = fl_vqf_bind_kernel(rb, k);
        assert_true(bst == FL_OK || bst == FL_ERR_KERNEL_UNAVAILABLE ||
                    bst == FL_ERR_UNKNOWN_KERNEL);
        fl_status sst = fl_kernel_select(k);
        assert_true(sst == FL_OK || sst == FL_ERR_KERNEL_UNAVAILABLE ||
                    sst == FL_ERR_UNKNOWN_KERNEL);
        uint64_t key = splitmix(&s) % 200, r = splitmix(&s) % 100;
        int form = (int)(splitmix(&s) % 3);
        fl_vqf *vs[3] = {ref, rb, ub};
        fl_status st[3];
        for (int i = 0; i < 3; i++) {
            fl_vqf *v = vs[i];
            uint64_t h = fl_vqf_hash_u64(v, key);
            if (r < 50)
                st[i] = form == 0   ? fl_vqf_insert_u64(v, key)
                        : form == 1 ? fl_vqf_insert_bytes(v, &key, sizeof key)
                                    : fl_vqf_insert_hash(v, h);
            else if (r < 90)
                st[i] = form == 0   ? fl_vqf_delete_u64(v, key)
                        : form == 1 ? fl_vqf_delete_bytes(v, &key, sizeof key)
                                    : fl_vqf_delete_hash(v, h);
            else
                st[i] = (fl_status)(form == 0   ? fl_vqf_contains_u64(v, key)
                                    : form == 1 ? fl_vqf_contains_bytes(v, &key, sizeof key)
                                                : fl_vqf_contains_hash(v, h));
        }
        full += r < 50 && st[0] == FL_ERR_FULL;
        absent += r >= 50 && r < 90 && st[0] == FL_ERR_NOT_FOUND;
        for (int i = 1; i < 3; i++) {
            assert_int_equal(st[i], st[0]);
            assert_int_equal(vs[i]->items, ref->items);
            assert_memory_equal(vs[i]->blocks, ref->blocks, ref->bytes);
        }
    }
    assert_int_equal(fl_kernel_select("auto"), FL_OK);
    /* the run reached both refusals (FL_ERR_FULL, FL_ERR_NOT_FOUND) */
    assert_true(full > 0);
    assert_true(absent > 0);
    fl_vqf_free(ref);
    fl_vqf_free(rb);
    fl_vqf_free(ub);

    uint64_t lim[3];
    assert_int_equal(fl_size_class_limits(lim), FL_OK);
    uint64_t sizes[] = {64, lim[0], lim[0] + 64, lim[1], lim[1] + 64};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        if (sizes[i] > ((uint64_t)64 << 20)) continue; /* past 64 MiB: not in a unit test */
        fl_vqf *v = NULL;
        assert_int_equal(fl_vqf_create_blocks((uint32_t)(sizes[i] / 64), 1, &v), FL_OK);
        assert_int_equal(v->size_class, fl_size_class_of(v->bytes));
        size_t len = fl_vqf_serialized_size(v);
        uint8_t *buf = malloc(len);
        assert_non_null(buf);
        assert_int_equal(fl_vqf_save_mem(v, buf, len, NULL), FL_OK);
        fl_vqf *d = NULL;
        assert_int_equal(fl_vqf_load_mem(buf, len, 0, &d), FL_OK);
        assert_int_equal(d->size_class, v->size_class);
        assert_int_equal(fl_vqf_insert_u64(d, 42), FL_OK);
        assert_int_equal(fl_vqf_contains_u64(d, 42), 1);
        assert_int_equal(fl_vqf_delete_u64(d, 42), FL_OK);
        assert_int_equal(d->items, 0);
        free(buf);
        fl_vqf_free(d);
        fl_vqf_free(v);
    }
}

/* The in-line handle takes the early-return probe from FL_VQF_EARLY_MIN_BYTES on (the one-key
 * kernels' line) and answers as the library's calls on both sides of it: every inserted key
 * found, the others as fl_vqf_contains_u64 says; so does a handle written out by hand in the
 * fields' order before `early`. */
static void test_lookup_handle_forms(void **state) {
    (void)state;
    fl_vqf *v = NULL;
    assert_int_equal(fl_vqf_create_blocks(3, 9, &v), FL_OK); /* settles the dispatch */
    const size_t min = FL_VQF_EARLY_MIN_BYTES;
    fl_vqf_free(v);
    if (min > ((size_t)64 << 20)) skip(); /* past 64 MiB: not in a unit test */
    const uint32_t blocks[] = {3, (uint32_t)((min - 1) / 64), (uint32_t)((min + 63) / 64)};
    uint64_t s = 23;
    for (size_t bi = 0; bi < sizeof blocks / sizeof blocks[0]; bi++) {
        assert_int_equal(fl_vqf_create_blocks(blocks[bi], bi + 1, &v), FL_OK);
        fl_vqf_lookup l = fl_vqf_lookup_of(v);
        assert_int_equal(l.early, v->bytes >= min);
        /* A handle written out in the field order before `early` existed: early 0, the same
         * answers (checked with the others below). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
        const fl_vqf_lookup by_hand = {v->blocks, v->nblocks, v->seed * FL_SEED_MIX};
#pragma GCC diagnostic pop
        assert_int_equal(by_hand.early, 0);
        size_t n = (size_t)blocks[bi] * 30; /* 62.5% full: no refusal */
        if (n > 100000) n = 100000;
        uint64_t *keys = malloc(n * sizeof *keys);
        assert_non_null(keys);
        for (size_t i = 0; i < n; i++) {
            keys[i] = splitmix(&s);
            assert_int_equal(fl_vqf_insert_u64(v, keys[i]), FL_OK);
        }
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(fl_vqf_lookup_u64(&l, keys[i]), 1);
            assert_int_equal(fl_vqf_lookup_u64(&by_hand, keys[i]), 1);
        }
        for (size_t i = 0; i < 100000; i++) {
            uint64_t q = splitmix(&s);
            int want = fl_vqf_contains_u64(v, q);
            assert_int_equal(fl_vqf_lookup_u64(&l, q), want);
            assert_int_equal(fl_vqf_lookup_u64(&by_hand, q), want);
        }
        free(keys);
        fl_vqf_free(v);
    }
}

/* ---- files ------------------------------------------------------------------------------- */

TEST_FILE_HELPERS(fl_vqf, fl_vqf, fl_vqf_free)

/* A filter of 7 blocks with a mix of keys, copies and deletes. */
static fl_vqf *sample(void) {
    fl_vqf *v = NULL;
    assert_int_equal(fl_vqf_create_blocks(7, 77, &v), FL_OK);
    for (uint64_t k = 0; k < 250; k++) assert_int_equal(fl_vqf_insert_u64(v, k % 200), FL_OK);
    for (uint64_t k = 0; k < 30; k++) assert_int_equal(fl_vqf_delete_u64(v, k * 3), FL_OK);
    return v;
}

static void test_round_trip(void **state) {
    (void)state;
    fl_vqf *v = sample();
    size_t len;
    uint8_t *buf = saved_image(v, &len);
    fl_vqf *d = NULL;
    assert_int_equal(fl_vqf_load_mem(buf, len, 0, &d), FL_OK);
    assert_int_equal(d->nblocks, v->nblocks);
    assert_int_equal(d->seed, v->seed);
    assert_int_equal(d->items, v->items);
    assert_memory_equal(d->blocks, v->blocks, v->bytes);
    /* byte for byte: the loaded filter saves the same file */
    size_t len2;
    uint8_t *buf2 = saved_image(d, &len2);
    assert_same_image_and_free(buf2, len2, saved_image(v, &len2), len2);
    /* it keeps working like the original */
    for (uint64_t k = 0; k < 200; k++) assert_int_equal(fl_vqf_contains_u64(d, k), fl_vqf_contains_u64(v, k));
    assert_int_equal(fl_vqf_delete_u64(d, 199), FL_OK);
    assert_int_equal(fl_vqf_insert_u64(d, 5000), FL_OK);
    check_invariants(d);
    fl_vqf_free(d);
    /* files, and the cap on block bytes */
    char dir[] = "/tmp/fl_test_vqf.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/f.vqf", dir);
    assert_int_equal(fl_vqf_save_file(v, path), FL_OK);
    assert_int_equal(fl_vqf_load_file(path, 0, &d), FL_OK);
    assert_memory_equal(d->blocks, v->blocks, v->bytes);
    fl_vqf_free(d);
    assert_int_equal(fl_vqf_load_file(path, 7 * 64 - 1, &d), FL_ERR_TOO_LARGE);
    assert_null(d);
    assert_int_equal(fl_vqf_load_file(path, 7 * 64, &d), FL_OK);
    fl_vqf_free(d);
    assert_file_calls_refuse_misuse(v, FL_FILE_VECTOR_QUOTIENT);
    unlink(path);
    rmdir(dir);
    free(buf);
    fl_vqf_free(v);
}

/* A filter's file is not a vector quotient filter's, and the other way round (for the
 * filter and Count-Min loaders); a version-1 file is a filter's. */
static void test_wrong_kind(void **state) {
    (void)state;
    fl_vqf *s = sample();
    size_t len;
    uint8_t *buf = saved_image(s, &len);
    assert_wrong_kind_both_ways(buf, len, load_status);
    free(buf);
    fl_vqf_free(s);
}

static void test_every_truncation_and_bit_flip(void **state) {
    (void)state;
    fl_vqf *s = sample();
    assert_image_refuses_cuts_and_flips(s);
    fl_vqf_free(s);
}

/* Crafted files: valid checksums around invalid fields. head: the HEAD section; blocks:
 * nblocks * 64 bytes. */
TEST_CRAFT_LOADER(fl_vqf, fl_vqf, fl_vqf_free, check_invariants)

static fl_status load_craft(const uint8_t head[32], const uint8_t *blocks, uint64_t blocks_len) {
    size_t size;
    uint8_t *buf = test_two_section_image(FL_KIND_VECTOR_QUOTIENT, FL_CT_TAG('H', 'E', 'A', 'D'),
                                          head, 32, FL_CT_TAG('B', 'L', 'K', 'S'), blocks,
                                          blocks_len, &size);
    return load_crafted(buf, size);
}

static void test_crafted(void **state) {
    (void)state;
    fl_vqf *s = sample();
    uint8_t head[32], blk[7 * 64];
    memset(head, 0, sizeof head);
    fl_put32(head, 7);
    fl_put64(head + 8, 77);
    fl_put16(head + 24, 48);
    fl_put16(head + 26, 80);
    head[28] = 8;
    /* The sample as crafted here loads (the crafting itself is right). */
    fl_put64(head + 16, s->items);
    memcpy(blk, s->blocks, sizeof blk);
    assert_int_equal(load_craft(head, blk, sizeof blk), FL_OK);
    /* header fields */
    static const struct {
        size_t at;
        uint8_t value;
    } HEAD_BAD[] = {{4, 1}, {24, 47}, {26, 81}, {28, 16}, {29, 1}, {31, 1}};
    for (size_t i = 0; i < sizeof HEAD_BAD / sizeof HEAD_BAD[0]; i++) {
        uint8_t h[32];
        memcpy(h, head, 32);
        h[HEAD_BAD[i].at] = HEAD_BAD[i].value;
        if (load_craft(h, blk, sizeof blk) != FL_ERR_CORRUPT) fail_msg("HEAD byte %zu", HEAD_BAD[i].at);
    }
    uint8_t h[32];
    memcpy(h, head, 32);
    fl_put32(h, 0); /* zero blocks */
    assert_int_equal(load_craft(h, blk, 0), FL_ERR_CORRUPT);
    fl_put32(h, 6); /* BLKS not blocks * 64 */
    assert_int_equal(load_craft(h, blk, sizeof blk), FL_ERR_CORRUPT);
    memcpy(h, head, 32);
    fl_put64(h + 16, 7 * 48 + 1); /* more items than slots */
    assert_int_equal(load_craft(h, blk, sizeof blk), FL_ERR_CORRUPT);
    fl_put64(h + 16, s->items + 1); /* items the blocks do not hold */
    assert_int_equal(load_craft(h, blk, sizeof blk), FL_ERR_CORRUPT);
    fl_put64(h + 16, s->items - 1);
    assert_int_equal(load_craft(h, blk, sizeof blk), FL_ERR_CORRUPT);
    /* every single metadata bit flipped: 79 or 81 ones */
    for (size_t b = 0; b < 7; b++)
        for (size_t bit = 0; bit < 128; bit++) {
            uint8_t k[7 * 64];
            memcpy(k, blk, sizeof k);
            k[64 * b + bit / 8] ^= (uint8_t)(1u << (bit % 8));
            if (load_craft(head, k, sizeof k) != FL_ERR_CORRUPT)
                fail_msg("block %zu metadata bit %zu", b, bit);
        }
    /* metadata with 80 ones that describes one more item than the header counts */
    {
        uint8_t k[7 * 64];
        memcpy(k, blk, sizeof k);
        uint64_t hi = fl_vqf_md_hi(k);
        uint32_t c = fl_vqf_block_items(k);
        if (c > 0 && c < 48) {
            /* the top one moves up a place: one more item, which must then be a free slot
             * holding 0 -- so the items count disagrees: CORRUPT */
            uint32_t top = 79 + c;
            hi &= ~(1ull << (top - 64));
            hi |= 1ull << (top - 63);
            memcpy(k + 8, &hi, 8);
            assert_int_equal(load_craft(head, k, sizeof k), FL_ERR_CORRUPT);
        }
    }
    /* a nonzero free slot */
    for (size_t b = 0; b < 7; b++) {
        uint32_t c = fl_vqf_block_items(blk + 64 * b);
        if (c == 48) continue;
        uint8_t k[7 * 64];
        memcpy(k, blk, sizeof k);
        k[64 * b + 16 + 47] = 1;
        assert_int_equal(load_craft(head, k, sizeof k), FL_ERR_CORRUPT);
    }
    fl_vqf_free(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_select),
        cmocka_unit_test(test_sizing_and_bad_arguments),
        cmocka_unit_test(test_every_slot_position),
        cmocka_unit_test(test_against_model),
        cmocka_unit_test(test_block_choice),
        cmocka_unit_test(test_duplicates),
        cmocka_unit_test(test_sized_for_n),
        cmocka_unit_test(test_delete_every_key),
        cmocka_unit_test(test_fpr),
        cmocka_unit_test(test_batch_equals_single),
        cmocka_unit_test(test_one_key_calls),
        cmocka_unit_test(test_lookup_handle_forms),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_wrong_kind),
        cmocka_unit_test(test_every_truncation_and_bit_flip),
        cmocka_unit_test(test_crafted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
