/* Cuckoo filter, at each fingerprint width (8, 11 and 13 semi-sorted, 12, 16): filling until
 * FULL loses nothing, FULL changes nothing, deletes (with duplicates), the stash, copy counts (fl_count_hash),
 * the alternate-bucket involution for any bucket count, the packed 12-bit slots, the
 * measured FPR against the model, the insert's table against a slot-by-slot reference, and
 * batch lookups of integer keys (one kernel hashes and probes) against one-key lookups. */
#include <math.h>
#include <string.h>

#include "filterlab_kernels.h"
#include "core/internal.h"
#include "probe.h"
#include "testutil.h"

static const uint32_t FPS[] = {8, 11, 12, 13, 16};
#define NFPS (sizeof FPS / sizeof FPS[0])

static void alternate_bucket_is_an_involution(void **state) {
    (void)state;
    uint32_t counts[] = {1, 2, 3, 7, 1000, 65537, 1000003, 0xfffffffbu};
    uint64_t x = 12345;
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        for (int t = 0; t < 30000; t++) {
            x = fl_hash_u64(x, 1);
            uint32_t n = counts[c], bits = FPS[t % NFPS];
            uint32_t fp = fl_cuckoo_fp(x, bits);
            uint32_t i = fl_cuckoo_bucket(x, n);
            uint32_t a = fl_cuckoo_alt(i, fp, n);
            assert_true(i < n && a < n);
            assert_int_equal(fl_cuckoo_alt(a, fp, n), i);
            assert_true(fp >= 1 && fp < (1u << bits));
        }
    }
}

/* 12-bit slots: 4 per 6-byte bucket, two sharing a byte. Every slot written at random keeps
 * every other slot's value and no byte outside the buckets changes; the word test of
 * filterlab_inline.h (an 8-byte load whose top 2 bytes are the next bucket's) matches a
 * slot-by-slot compare, including when those 2 bytes hold the fingerprint sought. */
static void slots_of_12_bits_are_packed(void **state) {
    (void)state;
    enum { B = 37 };
    uint8_t mem[6 * B + 8];
    uint16_t want[B][4];
    memset(mem, 0xa5, sizeof mem);
    for (uint32_t b = 0; b < B; b++)
        for (int sl = 0; sl < 4; sl++) {
            want[b][sl] = 0;
            fl_cuckoo_set(mem, 12, b, sl, 0);
        }
    uint64_t x = 99;
    for (int t = 0; t < 20000; t++) {
        x = fl_hash_u64(x, 2);
        uint32_t b = (uint32_t)(x % B), v = (uint32_t)(x >> 20) & 0xfff;
        int sl = (int)(x >> 40) & 3;
        fl_cuckoo_set(mem, 12, b, sl, v);
        want[b][sl] = (uint16_t)v;
        if (t % 97 == 0) {
            for (uint32_t c = 0; c < B; c++)
                for (int s2 = 0; s2 < 4; s2++) assert_int_equal(fl_cuckoo_get(mem, 12, c, s2), want[c][s2]);
            for (size_t i = 6 * B; i < sizeof mem; i++) assert_int_equal(mem[i], 0xa5);
        }
        /* Bucket b against every fingerprint in its slots and its neighbour's first slot. */
        uint32_t probes[6] = {want[b][0], want[b][1], want[b][2], want[b][3],
                              b + 1 < B ? want[b + 1][0] : 0xa5a, 1 + (uint32_t)(x & 0x7ff)};
        for (int p = 0; p < 6; p++) {
            uint32_t fp = probes[p];
            if (fp == 0) continue;
            int slotwise = 0;
            for (int s2 = 0; s2 < 4; s2++) slotwise |= want[b][s2] == fp;
            assert_int_equal(fl_cuckoo_bucket_has(mem, 12, b, fp) != 0, slotwise);
            assert_int_equal(fl_cuckoo_buckets_have(mem, 12, b, b, fp), slotwise);
        }
    }
}

/* Semi-sorted buckets (filterlab_inline.h's layout), at each semi-sorted width (11 bits in 5
 * bytes, 13 in 6): every non-decreasing nibble tuple has its own rank below 3876 and the
 * width's table decodes it back, nibble s at bit Ls (L = width - 4), the ranks no tuple has
 * decode to 0; then a bucket set at random, many times, to 4 fingerprints (empty slots,
 * duplicates, values around the nibble boundary) holds exactly that multiset in ascending
 * order, writes no byte outside its own, and the lookup's lane test (a load whose top bytes
 * are the next bucket's) agrees with a slot-by-slot compare, for the bucket's own
 * fingerprints, near misses in either part, and the neighbour's. */
static void semi_sorted_slots(uint32_t bits) {
    const uint32_t low = bits - 4, top = (1u << bits) - 1u;
    const size_t bb = fl_cuckoo_bucket_bytes(bits);
    const uint32_t *tab = fl_cuckoo_ss_table(bits);
    assert_int_equal(bb, (12 + 4 * low) / 8);
    static uint8_t seen[4096];
    memset(seen, 0, sizeof seen);
    for (uint32_t n3 = 0; n3 < 16; n3++)
        for (uint32_t n2 = 0; n2 <= n3; n2++)
            for (uint32_t n1 = 0; n1 <= n2; n1++)
                for (uint32_t n0 = 0; n0 <= n1; n0++) {
                    uint32_t r = fl_cuckoo_ss_rank(n0, n1, n2, n3);
                    assert_true(r < FL_CUCKOO_SS_RANKS);
                    assert_int_equal(seen[r], 0);
                    seen[r] = 1;
                    assert_int_equal(tab[r], n0 | n1 << low | n2 << 2 * low | n3 << 3 * low);
                }
    for (uint32_t r = FL_CUCKOO_SS_RANKS; r < 4096; r++) assert_int_equal(tab[r], 0);
    enum { B = 37 };
    uint8_t mem[6 * B + 8];
    uint32_t want[B][4];
    memset(mem, 0, bb * B);
    memset(mem + bb * B, 0xa5, sizeof mem - bb * B);
    memset(want, 0, sizeof want);
    const uint32_t edge[] = {0, 0, 1, (1u << low) - 1u, 1u << low, (1u << low) + 1u, top,
                             top & ~((1u << low) - 1u)};
    uint64_t x = 1313 + bits;
    for (int t = 0; t < 20000; t++) {
        x = fl_hash_u64(x, 4);
        uint32_t b = (uint32_t)(x % B), v[4], sorted[4];
        for (int sl = 0; sl < 4; sl++) {
            uint32_t r = (uint32_t)(x >> (8 + 13 * sl));
            v[sl] = (r & 1) ? edge[(r >> 1) & 7] : (r >> 4) & top;
            if (sl && (r & 0x1000)) v[sl] = v[sl - 1]; /* duplicates */
        }
        memcpy(sorted, v, sizeof v);
        for (int i = 1; i < 4; i++) /* insertion sort: the reference order */
            for (int j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) {
                uint32_t tmp = sorted[j];
                sorted[j] = sorted[j - 1];
                sorted[j - 1] = tmp;
            }
        fl_cuckoo_ss_encode(mem, bits, b, v);
        memcpy(want[b], sorted, sizeof sorted);
        for (int sl = 0; sl < 4; sl++) assert_int_equal(fl_cuckoo_get(mem, bits, b, sl), sorted[sl]);
        if (t % 97 == 0) {
            for (uint32_t c = 0; c < B; c++)
                for (int s2 = 0; s2 < 4; s2++)
                    assert_int_equal(fl_cuckoo_get(mem, bits, c, s2), want[c][s2]);
            for (size_t i = bb * B; i < sizeof mem; i++) assert_int_equal(mem[i], 0xa5);
        }
        uint32_t probes[8] = {sorted[0], sorted[1], sorted[2], sorted[3],
                              b + 1 < B ? want[b + 1][3] : 0x1a5,
                              sorted[3] ^ 1u, sorted[3] ^ (1u << low), 1 + (uint32_t)(x & 0x3ff)};
        for (int p = 0; p < 8; p++) {
            uint32_t fp = probes[p];
            if (fp == 0 || fp > top) continue;
            int slotwise = 0;
            for (int s2 = 0; s2 < 4; s2++) slotwise |= want[b][s2] == fp;
            assert_int_equal(fl_cuckoo_ss_bucket_has(mem, bits, b, fp) != 0, slotwise);
        }
    }
}
static void slots_of_11_bits_are_semi_sorted(void **state) {
    (void)state;
    semi_sorted_slots(11);
}
static void slots_of_13_bits_are_semi_sorted(void **state) {
    (void)state;
    semi_sorted_slots(13);
}

/* Fill a filter with an odd bucket count until FULL; everything inserted before is found,
 * the failed insert leaves the filter byte-identical, and the load is near the paper's 95%. */
static void fill_until_full_loses_nothing(void **state) {
    (void)state;
    for (size_t fi = 0; fi < NFPS; fi++) {
        const uint32_t buckets = 10007; /* prime: no power-of-two shortcut */
        fl_filter *f = test_filter(FL_CUCKOO, buckets, FPS[fi]);
        size_t cap = buckets * 4 + 100;
        uint64_t *h = test_hashes(cap, 10 + (uint64_t)fi);
        size_t n = 0;
        fl_status s = FL_OK;
        uint32_t max_stash = 0;
        while (n < cap && (s = fl_insert_hash(f, h[n])) == FL_OK) {
            n++;
            if (f->stash_count > max_stash) max_stash = f->stash_count;
        }
        assert_int_equal(s, FL_ERR_FULL);
        assert_int_equal(fl_count(f), n);
        double load = (double)n / (buckets * 4.0);
        assert_true(load > 0.9);
        assert_true(max_stash > 0); /* the stash was used before FULL */
        for (size_t j = 0; j < n; j++) assert_int_equal(fl_contains_hash(f, h[j]), 1);
        /* FULL changes nothing. */
        unsigned char *before = malloc(f->bytes);
        memcpy(before, f->data, f->bytes);
        fl_stash_entry stash[FL_STASH_MAX];
        memcpy(stash, f->stash, sizeof stash);
        uint32_t sc = f->stash_count;
        for (size_t j = n; j < n + 50 && j < cap; j++) {
            s = fl_insert_hash(f, h[j]);
            if (s == FL_OK) {
                /* A key whose buckets had room still fits; undo to keep the comparison. */
                assert_int_equal(fl_delete_hash(f, h[j]), FL_OK);
            } else {
                assert_int_equal(s, FL_ERR_FULL);
            }
        }
        assert_memory_equal(before, f->data, f->bytes);
        assert_int_equal(sc, f->stash_count);
        assert_memory_equal(stash, f->stash, sc * sizeof stash[0]);
        assert_int_equal(fl_count(f), n);
        /* The batch call stops at FULL and says how far it got. */
        size_t inserted = 99;
        fl_filter *g = test_filter(FL_CUCKOO, 100, FPS[fi]);
        s = fl_insert_hashes(g, h, 1000, &inserted);
        assert_int_equal(s, FL_ERR_FULL);
        /* At most the 400 slots and the 8-entry stash; every copy in one of them. */
        assert_true(inserted > 350 && inserted <= 400 + FL_STASH_MAX);
        assert_int_equal(fl_count(g), inserted);
        fl_info gi;
        assert_int_equal(fl_get_info(g, &gi), FL_OK);
        assert_int_equal(gi.bits_set, inserted);
        for (size_t j = 0; j < inserted; j++) assert_int_equal(fl_contains_hash(g, h[j]), 1);
        fl_free(g);
        free(before);
        free(h);
        fl_free(f);
    }
}

static void delete_with_duplicates_at(uint32_t bits) {
    fl_filter *f = test_filter(FL_CUCKOO, 1000, bits);
    uint64_t *h = test_hashes(2000, 20);
    /* A key absent from the empty filter cannot be deleted. */
    assert_int_equal(fl_delete_hash(f, h[0]), FL_ERR_NOT_FOUND);
    for (int r = 0; r < 3; r++) assert_int_equal(fl_insert_hash(f, h[0]), FL_OK);
    assert_int_equal(fl_count(f), 3);
    for (int r = 0; r < 3; r++) {
        assert_int_equal(fl_contains_hash(f, h[0]), 1);
        assert_int_equal(fl_delete_hash(f, h[0]), FL_OK);
    }
    assert_int_equal(fl_contains_hash(f, h[0]), 0);
    assert_int_equal(fl_delete_hash(f, h[0]), FL_ERR_NOT_FOUND);
    assert_int_equal(fl_count(f), 0);
    /* Insert 2000 keys (half load), delete the odd ones: the even ones stay. */
    assert_int_equal(fl_insert_hashes(f, h, 2000, NULL), FL_OK);
    for (size_t j = 1; j < 2000; j += 2) assert_int_equal(fl_delete_hash(f, h[j]), FL_OK);
    assert_int_equal(fl_count(f), 1000);
    for (size_t j = 0; j < 2000; j += 2) assert_int_equal(fl_contains_hash(f, h[j]), 1);
    fl_info info;
    assert_int_equal(fl_get_info(f, &info), FL_OK);
    assert_int_equal(info.bits_set, 1000);
    assert_true(info.fill == 1000.0 / 4000.0);
    /* Byte-key delete. */
    assert_int_equal(fl_insert_bytes(f, "url", 3), FL_OK);
    assert_int_equal(fl_delete_bytes(f, "url", 3), FL_OK);
    /* Integer keys: fl_delete_u64 hashes as fl_insert_u64 does, with the filter's seed. */
    f->seed = 0x5eed;
    uint64_t before = fl_count(f);
    assert_int_equal(fl_insert_u64(f, 77), FL_OK);
    assert_int_equal(fl_insert_hash(f, fl_hash_u64(78, 0x5eed)), FL_OK);
    assert_int_equal(fl_count(f), before + 2);
    assert_int_equal(fl_delete_u64(f, 77), FL_OK);
    assert_int_equal(fl_delete_u64(f, 78), FL_OK);
    assert_int_equal(fl_count(f), before);
    assert_int_equal(fl_delete_u64(NULL, 77), FL_ERR_INVALID_ARG);
    fl_free(f);
    free(h);
}

static void delete_with_duplicates(void **state) {
    (void)state;
    for (size_t fi = 0; fi < NFPS; fi++) delete_with_duplicates_at(FPS[fi]);
}

/* Deleting from a full filter moves stash entries back into the table. */
static void delete_drains_the_stash(void **state) {
    (void)state;
    for (size_t fi = 0; fi < NFPS; fi++) {
        fl_filter *f = test_filter(FL_CUCKOO, 257, FPS[fi]);
        uint64_t *h = test_hashes(2000, 30);
        size_t n = 0, j = 0;
        while (fl_insert_hash(f, h[n]) == FL_OK) n++;
        assert_true(f->stash_count > 0);
        for (; j < n && f->stash_count > 0; j++) {
            assert_int_equal(fl_delete_hash(f, h[j]), FL_OK);
            for (size_t i = j + 1; i < n; i++) assert_int_equal(fl_contains_hash(f, h[i]), 1);
        }
        assert_int_equal(f->stash_count, 0);
        /* The rest deleted too: every slot is empty again. */
        for (; j < n; j++) assert_int_equal(fl_delete_hash(f, h[j]), FL_OK);
        fl_info info;
        assert_int_equal(fl_get_info(f, &info), FL_OK);
        assert_int_equal(info.bits_set, 0);
        assert_int_equal(fl_count(f), 0);
        fl_free(f);
        free(h);
    }
}

/* fl_count_hash: exact copies of a lone key as it is added and deleted; in a filter filled
 * until FULL with repeated keys (stash in use, 8-bit fingerprints so that keys collide),
 * never below each key's true count, through deletes too. */
static void count_copies(void **state) {
    (void)state;
    fl_filter *f = test_filter(FL_CUCKOO, 1000, 16);
    uint64_t *h = test_hashes(4000, 40);
    uint32_t c = 99;
    assert_int_equal(fl_count_hash(f, h[0], &c), FL_OK);
    assert_int_equal(c, 0);
    for (uint32_t r = 1; r <= 6; r++) {
        assert_int_equal(fl_insert_hash(f, h[0]), FL_OK);
        assert_int_equal(fl_count_hash(f, h[0], &c), FL_OK);
        assert_int_equal(c, r);
    }
    for (uint32_t r = 6; r-- > 0;) {
        assert_int_equal(fl_delete_hash(f, h[0]), FL_OK);
        assert_int_equal(fl_count_hash(f, h[0], &c), FL_OK);
        assert_int_equal(c, r);
    }
    assert_int_equal(fl_insert_bytes(f, "url", 3), FL_OK);
    assert_int_equal(fl_insert_bytes(f, "url", 3), FL_OK);
    assert_int_equal(fl_count_bytes(f, "url", 3, &c), FL_OK);
    assert_int_equal(c, 2);
    fl_free(f);

    /* Keys j = 0, 1, 2, ... inserted (j % 3) + 1 times each, until FULL. */
    for (size_t fi = 0; fi < NFPS; fi++) {
        f = test_filter(FL_CUCKOO, 257, FPS[fi]);
        uint32_t *truth = calloc(4000, sizeof *truth);
        size_t keys = 0;
        uint32_t max_stash = 0;
        fl_status st = FL_OK;
        for (; keys < 4000 && st == FL_OK; keys++) {
            for (uint32_t r = 0; r <= keys % 3 && st == FL_OK; r++) {
                st = fl_insert_hash(f, h[keys]);
                if (st == FL_OK) truth[keys]++;
                if (f->stash_count > max_stash) max_stash = f->stash_count;
            }
        }
        assert_int_equal(st, FL_ERR_FULL);
        assert_int_equal(f->stash_count, FL_STASH_MAX); /* stashed copies must be counted */
        assert_true(max_stash > 0);
        uint64_t exact = 0;
        for (size_t j = 0; j < keys; j++) {
            assert_int_equal(fl_count_hash(f, h[j], &c), FL_OK);
            assert_true(c >= truth[j]);
            exact += c == truth[j];
        }
        /* 16-bit fingerprints collide within two buckets about 8 / 2^16 of the time. */
        if (FPS[fi] == 16) assert_true(exact + 2 >= keys);
        /* 12-bit ones about 8 / 2^12 of the time: ~1 key of these ~470 (0 with this seed). */
        if (FPS[fi] == 12) assert_true(exact + 10 >= keys);
        printf("%u-bit fingerprints: %zu of %zu keys over-counted\n", FPS[fi],
               keys - (size_t)exact, keys);
        /* Delete one copy of every other key: counts follow, never below the truth. */
        for (size_t j = 0; j < keys; j += 2) {
            if (!truth[j]) continue;
            assert_int_equal(fl_delete_hash(f, h[j]), FL_OK);
            truth[j]--;
        }
        for (size_t j = 0; j < keys; j++) {
            assert_int_equal(fl_count_hash(f, h[j], &c), FL_OK);
            assert_true(c >= truth[j]);
        }
        free(truth);
        fl_free(f);
    }

    /* Errors: NULL arguments, and variants without slots. */
    f = test_filter(FL_CUCKOO, 16, 16);
    assert_int_equal(fl_count_hash(NULL, h[0], &c), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_count_hash(f, h[0], NULL), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_count_bytes(f, NULL, 3, &c), FL_ERR_INVALID_ARG);
    fl_free(f);
    /* FL_CAP_COUNT is exactly what fl_count_hash does, for every variant. */
    for (int v = 0; v <= FL_VARIANT_MAX; v++) {
        fl_variant_info vi;
        if (fl_variant_describe((fl_variant)v, &vi) != FL_OK) continue;
        assert_int_equal((vi.caps & FL_CAP_COUNT) != 0, v == FL_CUCKOO);
        f = test_filter((fl_variant)v, 64, vi.k_default);
        assert_int_equal(fl_insert_hash(f, h[0]), FL_OK);
        c = 7;
        fl_status st = fl_count_hash(f, h[0], &c);
        if (vi.caps & FL_CAP_COUNT) {
            assert_int_equal(st, FL_OK);
            assert_int_equal(c, 1);
        } else {
            assert_int_equal(st, FL_ERR_UNSUPPORTED);
            assert_int_equal(c, 0);
        }
        fl_free(f);
    }
    free(h);
}

/* Measured FPR of 12-bit fingerprints against fl_predict_fpr (2 x 4 x load / 2^12 to first
 * order: Fan et al. 2014, section 5.1) at two loads. About 4000 false positives are expected
 * per load, so the count's relative spread is 1.6%: a 10% miss is a wrong model or layout. */
static void fpr_of_12_bits_meets_the_model(void **state) {
    (void)state;
    const uint32_t buckets = 100003;
    const double loads[] = {0.5, 0.94};
    uint64_t *keys = test_hashes((size_t)(buckets * 4 * 0.94) + 1, 50);
    const size_t batch = 1 << 16;
    uint64_t *q = malloc(batch * sizeof *q);
    uint8_t *out = malloc(batch);
    for (int li = 0; li < 2; li++) {
        fl_filter *f = test_filter(FL_CUCKOO, buckets, 12);
        size_t n = (size_t)(buckets * 4 * loads[li]);
        assert_int_equal(fl_insert_hashes(f, keys, n, NULL), FL_OK);
        double pred = fl_predict_fpr(&f->g, n);
        assert_true(fabs(pred - 8.0 * loads[li] / 4095.0) < 0.05 * pred);
        uint64_t queries = (uint64_t)(4000.0 / pred), fp = 0, next = 0;
        for (uint64_t done = 0; done < queries; done += batch) {
            for (size_t i = 0; i < batch; i++) q[i] = fl_hash_u64((300ull << 40) + next++, 0x5eed);
            size_t pos;
            assert_int_equal(fl_contains_hashes(f, q, batch, out, &pos), FL_OK);
            fp += pos;
        }
        double meas = (double)fp / (double)next;
        printf("12-bit, load %.2f: predicted FPR %.5f, measured %.5f (%llu of %llu)\n", loads[li],
               pred, meas, (unsigned long long)fp, (unsigned long long)next);
        assert_true(fabs(meas - pred) < 0.10 * pred);
        fl_free(f);
    }
    free(q);
    free(out);
    free(keys);
}

/* The insert as first written, slot by slot: each bucket's slots scanned in order for a 0,
 * and the same eviction walk (random start bucket, random slot kicked, 500 kicks, then the
 * stash). The library's insert (one load and a zero-lane test per bucket, a copy per
 * fingerprint width, a batch loop) must build the same table, stash and walk state byte for
 * byte: saved filters and the file fixtures depend on it. */
typedef struct ref_cuckoo {
    uint8_t *data;
    uint32_t units, k, stash_count;
    uint64_t rng;
    fl_stash_entry stash[FL_STASH_MAX];
} ref_cuckoo;

static int ref_try_place(ref_cuckoo *r, uint32_t b, uint32_t fp) {
    for (int s = 0; s < FL_CUCKOO_SLOTS; s++)
        if (fl_cuckoo_get(r->data, r->k, b, s) == 0) {
            fl_cuckoo_set(r->data, r->k, b, s, fp);
            return 1;
        }
    return 0;
}

static fl_status ref_insert(ref_cuckoo *r, uint64_t h) {
    uint32_t fp = fl_cuckoo_fp(h, r->k), i1 = fl_cuckoo_bucket(h, r->units);
    uint32_t i2 = fl_cuckoo_alt(i1, fp, r->units);
    if (ref_try_place(r, i1, fp) || ref_try_place(r, i2, fp)) return FL_OK;
    if (r->stash_count == FL_STASH_MAX) return FL_ERR_FULL;
    uint32_t b = (fl_xorshift64(&r->rng) & 1) ? i2 : i1, cur = fp;
    for (int kick = 0; kick < FL_CUCKOO_KICKS; kick++) {
        int s = (int)(fl_xorshift64(&r->rng) & 3);
        uint32_t victim = fl_cuckoo_get(r->data, r->k, b, s);
        fl_cuckoo_set(r->data, r->k, b, s, cur);
        cur = victim;
        b = fl_cuckoo_alt(b, cur, r->units);
        if (ref_try_place(r, b, cur)) return FL_OK;
    }
    r->stash[r->stash_count++] = (fl_stash_entry){.bucket = b, .fp = (uint16_t)cur};
    return FL_OK;
}

static void ref_sync(ref_cuckoo *r, const fl_filter *f) {
    memcpy(r->data, f->data, f->bytes);
    r->rng = f->rng;
    r->stash_count = f->stash_count;
    memcpy(r->stash, f->stash, sizeof r->stash);
}

static void assert_same_as_ref(const ref_cuckoo *r, const fl_filter *f) {
    assert_memory_equal(r->data, f->data, f->bytes);
    assert_true(r->rng == f->rng);
    assert_int_equal(r->stash_count, f->stash_count);
    for (uint32_t i = 0; i < r->stash_count; i++) {
        assert_int_equal(r->stash[i].bucket, f->stash[i].bucket);
        assert_int_equal(r->stash[i].fp, f->stash[i].fp);
    }
}

/* Filled until FULL through the one-key insert and batches of every size (the batch stops
 * where the reference refuses), with deletes on the way that leave holes before occupied
 * slots (the first empty slot is then not the first after the occupied ones). */
static void insert_builds_the_slot_by_slot_table(void **state) {
    (void)state;
    for (size_t fi = 0; fi < NFPS; fi++) {
        const uint32_t buckets = 5003; /* prime: no power-of-two shortcut */
        fl_filter *f = test_filter(FL_CUCKOO, buckets, FPS[fi]);
        ref_cuckoo r = {.data = calloc(1, f->bytes + FL_PAYLOAD_SLACK), .units = buckets,
                        .k = FPS[fi]};
        assert_non_null(r.data);
        ref_sync(&r, f);
        enum { MAXN = 4 * 5003 + 64 };
        uint64_t *keys = malloc(MAXN * sizeof *keys);
        assert_non_null(keys);
        uint64_t x = 0xc0ffee + fi, added = 0;
        int full = 0;
        for (int round = 0; !full; round++) {
            size_t m = 1 + (size_t)(fl_hash_u64((uint64_t)round, 7) % 97);
            if (added + m > MAXN) m = MAXN - added;
            assert_true(m > 0);
            for (size_t i = 0; i < m; i++) keys[added + i] = x = fl_hash_u64(x, 3);
            size_t want = m;
            for (size_t i = 0; i < m; i++)
                if (ref_insert(&r, keys[added + i]) != FL_OK) {
                    want = i;
                    break;
                }
            size_t got = 0;
            fl_status st;
            if (round % 3 == 0) { /* one key at a time */
                for (st = FL_OK; got < m && (st = fl_insert_hash(f, keys[added + got])) == FL_OK;)
                    got++;
            } else {
                st = fl_insert_hashes(f, keys + added, m, &got);
            }
            assert_int_equal(got, want);
            assert_int_equal(st, want == m ? FL_OK : FL_ERR_FULL);
            full = want < m;
            added += got;
            assert_same_as_ref(&r, f);
            if (round % 11 == 10 && added > 40) { /* holes anywhere in the table */
                for (int d = 0; d < 8; d++) {
                    size_t j = (size_t)(fl_hash_u64(added + (uint64_t)d, 9) % added);
                    assert_int_equal(fl_delete_hash(f, keys[j]), FL_OK);
                    keys[j] = keys[--added];
                }
                ref_sync(&r, f);
            }
        }
        assert_true(f->keys == added);
        assert_true(f->stash_count == FL_STASH_MAX);
        free(keys);
        free(r.data);
        fl_free(f);
    }
}

/* The delete as first written, slot by slot: bucket i1's slots in order, then i2's, the first
 * holding fp emptied; else the first stash entry of fp filed under either bucket; after a
 * slot is freed, each stash entry in turn tries its bucket then its alternate (the stash
 * compacted by moving its last entry into the hole). */
static fl_status ref_delete(ref_cuckoo *r, uint64_t h) {
    uint32_t fp = fl_cuckoo_fp(h, r->k), i1 = fl_cuckoo_bucket(h, r->units);
    uint32_t i2 = fl_cuckoo_alt(i1, fp, r->units), b[2] = {i1, i2};
    for (int j = 0; j < 2; j++)
        for (int s = 0; s < FL_CUCKOO_SLOTS; s++)
            if (fl_cuckoo_get(r->data, r->k, b[j], s) == fp) {
                fl_cuckoo_set(r->data, r->k, b[j], s, 0);
                for (uint32_t i = 0; i < r->stash_count;) {
                    fl_stash_entry e = r->stash[i];
                    if (ref_try_place(r, e.bucket, e.fp) ||
                        ref_try_place(r, fl_cuckoo_alt(e.bucket, e.fp, r->units), e.fp))
                        r->stash[i] = r->stash[--r->stash_count];
                    else
                        i++;
                }
                return FL_OK;
            }
    for (uint32_t i = 0; i < r->stash_count; i++)
        if (r->stash[i].fp == fp && (r->stash[i].bucket == i1 || r->stash[i].bucket == i2)) {
            r->stash[i] = r->stash[--r->stash_count];
            return FL_OK;
        }
    return FL_ERR_NOT_FOUND;
}

/* The library's delete (one load, a SWAR test and one store per bucket, a copy per width)
 * empties the same slots as the slot-by-slot reference, key by key, on a full filter with
 * its stash in use: stored keys, keys stored twice (the lower slot's copy goes first), keys
 * never stored (FL_ERR_NOT_FOUND, nothing changed) and, on the 12-bit table, the fingerprint
 * of the bucket after a key's (which its 8-byte load also reads), until the filter is empty. */
static void delete_empties_the_slot_by_slot_slot(void **state) {
    (void)state;
    for (size_t fi = 0; fi < NFPS; fi++) {
        const uint32_t buckets = 1009;
        fl_filter *f = test_filter(FL_CUCKOO, buckets, FPS[fi]);
        ref_cuckoo r = {.data = calloc(1, f->bytes + FL_PAYLOAD_SLACK), .units = buckets,
                        .k = FPS[fi]};
        assert_non_null(r.data);
        enum { MAXN = 4 * 1009 + 64 };
        uint64_t *keys = malloc(2 * MAXN * sizeof *keys);
        assert_non_null(keys);
        size_t n = 0;
        uint64_t x = 0xdead + fi;
        while (n < 2 * MAXN) {
            uint64_t k = (n % 7 == 6) ? keys[n - 3] : (x = fl_hash_u64(x, 5)); /* duplicates */
            if (fl_insert_hash(f, k) != FL_OK) break;
            keys[n++] = k;
        }
        assert_true(f->stash_count > 0);
        ref_sync(&r, f);
        uint64_t absent = 0xabad1dea;
        for (size_t i = 0; i < n; i++) {
            if (i % 5 == 0) {
                /* a key never stored, and a hash with keys[i]'s fingerprint (the same low
                 * 32 bits) whose first bucket is the one before keys[i]'s: with 12-bit slots
                 * its 8-byte load ends in keys[i]'s bucket's slot 0 */
                uint32_t before = (fl_cuckoo_bucket(keys[i], buckets) + buckets - 1) % buckets;
                uint32_t hi = (uint32_t)((((uint64_t)before << 32) + buckets - 1) / buckets);
                uint64_t q[2] = {absent = fl_hash_u64(absent, 11),
                                 ((uint64_t)hi << 32) | (uint32_t)keys[i]};
                assert_int_equal(fl_cuckoo_bucket(q[1], buckets), before);
                assert_int_equal(fl_cuckoo_fp(q[1], FPS[fi]), fl_cuckoo_fp(keys[i], FPS[fi]));
                for (int j = 0; j < 2; j++) {
                    fl_status want = ref_delete(&r, q[j]);
                    assert_int_equal(fl_delete_hash(f, q[j]), want);
                    assert_same_as_ref(&r, f);
                    if (want == FL_OK) { /* it took some key's copy: put one back */
                        assert_int_equal(fl_insert_hash(f, q[j]), FL_OK);
                        ref_sync(&r, f);
                    }
                }
            }
            assert_int_equal(ref_delete(&r, keys[i]), FL_OK);
            assert_int_equal(fl_delete_hash(f, keys[i]), FL_OK);
            assert_same_as_ref(&r, f);
        }
        assert_true(fl_count(f) <= n); /* re-inserted stand-ins may remain */
        free(keys);
        free(r.data);
        fl_free(f);
    }
}

/* fl_contains_u64s answers as fl_contains_u64 key by key, and counts its positives, with
 * every kernel this CPU runs bound to the filter and then unbound (the process's choice per
 * entry, which may pair one ISA's lookup with another's hash.u64): a full filter (stash in
 * use) and one of 4 MiB at every width, past the x86 SIMD kernels' prefetch size on CPUs whose
 * L2 is at most 2 MiB (kernels.h's FL_PF_MIN_BYTES_BUCKETS: the AVX-512 kernel hashes a block
 * there, in the lookup loop below it), batch lengths around the
 * kernels' groups of 8 and their 24-key pipeline, keys at every misalignment, a seed. */
static void u64s_lookups_answer_as_one_key(void **state) {
    (void)state;
    static const size_t lens[] = {0, 1, 7, 8, 9, 15, 16, 17, 23, 24, 25, 31, 32, 33, 40,
                                  1000, 1023, 1024, 1025, 3001};
    enum { NQ = 3001 + 1 };
    uint64_t *buf = malloc((NQ + 1) * sizeof *buf);
    uint8_t *out = malloc(NQ), *one = malloc(NQ);
    assert_non_null(buf);
    assert_non_null(out);
    assert_non_null(one);
    for (size_t fi = 0; fi < NFPS; fi++)
        for (int big = 0; big <= 1; big++) {
            size_t big_units = ((size_t)4 << 20) / fl_variant_unit_bytes(FL_CUCKOO, FPS[fi]) + 3;
            fl_filter *f = test_filter(FL_CUCKOO, big ? big_units : 1009, FPS[fi]);
            f->seed = 0x5eed + fi;
            uint64_t added = 0;
            while ((big ? added < 200000 : 1) && fl_insert_u64(f, added) == FL_OK) added++;
            if (!big) assert_true(f->stash_count > 0);
            for (size_t ki = 0; ki <= fl_kernel_count(); ki++) { /* the last: unbound */
                fl_kernel_desc d = {.name = "auto", .supported = 1};
                if (ki < fl_kernel_count()) assert_int_equal(fl_kernel_describe(ki, &d), FL_OK);
                if (!d.supported) continue;
                assert_int_equal(fl_filter_bind_kernel(f, d.name), FL_OK);
                for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
                    size_t n = lens[li], mis = li & 7;
                    /* half inserted keys, half others, from a misaligned start */
                    uint64_t *keys = (uint64_t *)(void *)((unsigned char *)buf + mis);
                    size_t want = 0;
                    for (size_t i = 0; i < n; i++) {
                        uint64_t key = (i & 1) ? fl_hash_u64(i, li) : fl_hash_u64(i, li) % added;
                        memcpy((unsigned char *)buf + mis + 8 * i, &key, 8);
                        one[i] = (uint8_t)fl_contains_u64(f, key);
                        want += one[i];
                    }
                    size_t got = 12345;
                    assert_int_equal(fl_contains_u64s(f, keys, n, out, &got), FL_OK);
                    assert_int_equal(got, want);
                    assert_memory_equal(out, one, n);
                }
            }
            fl_free(f);
        }
    free(buf);
    free(out);
    free(one);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(alternate_bucket_is_an_involution),
        cmocka_unit_test(slots_of_12_bits_are_packed),
        cmocka_unit_test(slots_of_11_bits_are_semi_sorted),
        cmocka_unit_test(slots_of_13_bits_are_semi_sorted),
        cmocka_unit_test(fpr_of_12_bits_meets_the_model),
        cmocka_unit_test(fill_until_full_loses_nothing),
        cmocka_unit_test(insert_builds_the_slot_by_slot_table),
        cmocka_unit_test(delete_with_duplicates),
        cmocka_unit_test(delete_drains_the_stash),
        cmocka_unit_test(delete_empties_the_slot_by_slot_slot),
        cmocka_unit_test(count_copies),
        cmocka_unit_test(u64s_lookups_answer_as_one_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
