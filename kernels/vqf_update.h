/*
 * The insert and delete loops every vqf kernel file with update entries shares
 * (kernels/vqf_<isa>.c), over include/filterlab_vqf.h's block layout and probe math, and the
 * portable forms of the slot shifts (the metadata's: kernels/vqf_md.h). What an ISA changes
 * is how its flags compile the header's select (BMI2 pdep and tzcnt, POPCNT, against the
 * broadword select and SWAR popcount of the x86-64 baseline) and, optionally, the slot
 * shifts and the fingerprint
 * compare:
 *
 *   VQF_SHIFT_IN(blk, s, fp, lo, hi)   slots s..46 up by one, fp into slot s, metadata lo, hi
 *   VQF_SHIFT_OUT(blk, j, lo, hi)      slots j+1..47 down by one, slot 47 = 0, metadata lo, hi
 *   VQF_MATCH(blk, fp)                 bit j set where slot j holds fp (48 bits)
 *
 * Without the first two the portable word shifts below are used; without VQF_MATCH a delete
 * looks at a block's bucket slot by slot (block1's, then block2's if needed), with it by one
 * compare of the block's slots. The ISA file also has PF_MIN_BYTES, PF_DIST and pf_read from
 * its common header (as kernels/vqf_loop.h's users do).
 *
 * Every form leaves exactly the same block bytes, on any bytes a block holds: the metadata
 * arithmetic is this file's for every ISA, s is clamped to 48 (nothing moves and nothing is
 * written at 48, where only a block no filter holds puts it), and the choices (block1 up to
 * FL_VQF_CHOICE_ITEMS items, else the emptier block, ties block1; block1's copy first) are
 * the same.
 *
 * Why branch-free: which metadata word a bucket's run ends in, the slot, and which block is
 * emptier are random per key, and a mispredicted branch costs more than the shifts
 * (results/emeraldrapids-kvm-2c-5bce/vqf/insert_delete.md measured the word shifts and masks
 * at 0.85-0.91x the time of a memmove and branches). The two branches left, whether an
 * insert reads block2 and whether a delete does, are taken rarely (see vqf_insert1) and
 * each spares a random cache line, which costs more than a mispredict past the caches.
 * Both were tried branch-free against main 05a1e78 (results/emeraldrapids-kvm-2c-5bce/
 * against/fastfilter_cpp/deletable/, 3 paired rounds each): both high metadata words read
 * and the block's address picked with masks, deletes searching both blocks, took 1.18-1.41x
 * the time of one-key inserts and 1.39-1.60x of one-key deletes at 1M and 10M keys
 * (ab-flbench-main-vs-both-md-words-read-address-picked-not-kept.md); both blocks loaded,
 * updated in registers and both stored back, so that no store address waits on a load,
 * 1.10-1.13x and 1.08-1.41x (ab-flbench-main-vs-both-blocks-read-and-stored-not-kept.md).
 * A one-key insert runs about 153 instructions (callgrind, the AVX2 kernel: 38 in the public
 * call, src/vqf/vqf.c, the hash included, about 115 in this file's code, reached through the
 * vqf.insert1 entry), so a few keys fill the out-of-order window; more instructions per key,
 * even without a branch, leave fewer keys' misses in flight.
 *
 * What the ISA forms bought on Emerald Rapids (scripts/flbench-ab, medians of paired rounds on
 * a shared 2-vCPU guest, results/emeraldrapids-kvm-2c-5bce/vqf/): against the scalar kernel,
 * AVX2 (pdep select, two 32-byte halves) took 0.49-0.69x the time of inserts and 0.39-0.60x
 * of deletes at 100K and 1M keys (insert_delete_scalar_avx2.md); AVX-512 against AVX2
 * 0.67-0.96x on inserts and 0.92-1.05x on deletes (insert_delete_avx2_avx512.md); the
 * kernels against main's baseline code 0.46x/0.79x on one-key inserts at 100K/1M keys
 * (insert_delete_kernels.md).
 */
#ifndef FL_VQF_UPDATE_H
#define FL_VQF_UPDATE_H

#include <string.h>

#include "simd_common.h"
#include "vqf_loop.h" /* vqf_prefetch_ahead, and vqf_contains for FL_VQF_INIT */
#include "vqf_md.h"

/* ---- the portable slot shifts: the 48 slots as six words (slot 8i + k is byte k of word i,
 * little-endian) ------------------------------------------------------------------------ */

#define VQF_SLOT_WORDS (FL_VQF_SLOTS / 8)
#define VQF_BYTES_OF(x) ((uint64_t)(x) * 0x0101010101010101ull)

FL_INLINE uint64_t vqf_load_le64(const uint8_t *p) {
    uint64_t x;
    memcpy(&x, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    x = __builtin_bswap64(x);
#endif
    return x;
}

FL_INLINE void vqf_store_le64(uint8_t *p, uint64_t x) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    x = __builtin_bswap64(x);
#endif
    memcpy(p, &x, 8);
}

/* 0xff in the bytes of word i that hold slot s or a later one (s <= 48), 0 in the others:
 * each byte of (its slot index + 128) - s keeps its high bit exactly when index >= s (indices
 * and s are below 128, so no borrow crosses a byte), and h | (h - (h >> 7)) widens each high
 * bit to its byte. No branch and no shift by a variable amount. */
FL_INLINE uint64_t vqf_slots_from(uint64_t s_bytes, uint32_t i) {
    const uint64_t index = 0x0706050403020100ull + 0x0808080808080808ull * i;
    uint64_t h = ((index | 0x8080808080808080ull) - s_bytes) & 0x8080808080808080ull;
    return h | (h - (h >> 7));
}

/* Slots s..46 move up to s + 1..47 (slot 47, free while the block has room, falls off) and
 * fp goes into slot s; s = 48 changes no slot (the test is always true on a filter's blocks,
 * so it predicts perfectly; merging fp into its word instead cost more). */
FL_INLINE void vqf_shift_in_words(uint8_t *blk, uint32_t s, uint32_t fp, uint64_t lo,
                                  uint64_t hi) {
    uint8_t *slots = blk + 16;
    uint64_t carry = 0, sb = VQF_BYTES_OF(s);
    for (uint32_t i = 0; i < VQF_SLOT_WORDS; i++) {
        uint64_t w = vqf_load_le64(slots + 8 * i), m = vqf_slots_from(sb, i);
        uint64_t up = (w << 8) | carry;
        carry = w >> 56;
        vqf_store_le64(slots + 8 * i, (w & ~m) | (up & m));
    }
    if (s < FL_VQF_SLOTS) slots[s] = (uint8_t)fp;
    vqf_md_put(blk, lo, hi);
}

/* Slot j (0..47) removed: slots j + 1..47 move down to j..46 and slot 47 becomes 0. */
FL_INLINE void vqf_shift_out_words(uint8_t *blk, uint32_t j, uint64_t lo, uint64_t hi) {
    uint8_t *slots = blk + 16;
    uint64_t w[VQF_SLOT_WORDS + 1], sb = VQF_BYTES_OF(j);
    for (uint32_t i = 0; i < VQF_SLOT_WORDS; i++) w[i] = vqf_load_le64(slots + 8 * i);
    w[VQF_SLOT_WORDS] = 0;
    for (uint32_t i = 0; i < VQF_SLOT_WORDS; i++) {
        uint64_t down = (w[i] >> 8) | (w[i + 1] << 56), m = vqf_slots_from(sb, i);
        vqf_store_le64(slots + 8 * i, (w[i] & ~m) | (down & m));
    }
    vqf_md_put(blk, lo, hi);
}

#ifndef VQF_SHIFT_IN
#define VQF_SHIFT_IN vqf_shift_in_words
#endif
#ifndef VQF_SHIFT_OUT
#define VQF_SHIFT_OUT vqf_shift_out_words
#endif

/* ---- one key ----------------------------------------------------------------------------- */

/* A block's highest metadata one, as leading zeros of the high word (|1: a high word of 0,
 * which no filter holds, reads as 63 rather than undefined): fewer leading zeros, more items
 * (include/filterlab_vqf.h: items = 48 - this on any filter's block). */
FL_INLINE uint32_t vqf_hi_lz(uint64_t hi) {
    return (uint32_t)__builtin_clzll(hi | 1);
}

FL_INLINE uint8_t *vqf_block_at(uint8_t *base, uint32_t i) {
    return base + (size_t)i * FL_VQF_BLOCK_BYTES;
}

/* Insert h (fl_vqf_insert_hash's contract): 1, or 0 with nothing changed when both blocks
 * are full (bit 127, the highest bit, is a block's 80th one only when it holds 48 items).
 * Block1 while it holds at most FL_VQF_CHOICE_ITEMS items (include/filterlab_vqf.h), block2
 * not read: that test is a branch, true for nearly every insert until the filter is well
 * filled, and past about 75% fill close to a coin, resolved when block1's line arrives.
 * pf2 (the one-key call; the batch loop prefetches both blocks keys ahead) prefetches block2
 * first thing, so a key sent there finds its line on the way rather than starting a second
 * miss after the first. Against the rule before (the emptier block always, both read), in 7
 * paired rounds: one-key inserts 0.82/0.90/0.89x the time at 100K/1M/10M keys, one-key
 * deletes 0.60/0.80/0.67x (vqf/block_choice_ab_rerun.md). The prefetch and the metadata's
 * pdep/pext against main 05a1e78 (10 paired rounds, load 1.5-3.1): one-key inserts 0.92x,
 * 0.87x and 1.00x the time at 100K, 1M and 10M keys, one-key deletes 0.99x, 0.86x and 0.84x
 * (against/fastfilter_cpp/deletable/ab-flbench-main-05a1e78-vs-vqfupdate-pdep-prefetch2.md;
 * the 10M rounds moved 0.52-1.59x on the insert, as lookups of unchanged code did
 * 0.38-1.86x; 12 rounds at 10M keys at load 0.5-0.9, -prefetch2-10M.md: one-key inserts
 * 0.71x, deletes 0.85x, lookups 0.99x). */
FL_INLINE int vqf_insert1(uint8_t *base, uint32_t nb, uint64_t h, const int pf2) {
    uint32_t b = fl_vqf_bucket(h), fp = fl_vqf_fp(h), i1 = fl_vqf_block1(h, nb);
    uint8_t *t = vqf_block_at(base, i1);
    if (pf2) pf_read(vqf_block_at(base, fl_vqf_alt(i1, b, fp, nb)));
    uint64_t hi1 = fl_vqf_md_hi(t);
    /* more than T items: fewer than 48 - T leading zeros in hi (vqf_hi_lz), so a one at
     * bit 64 - (48 - T) of hi or above */
    if (hi1 >> (64 - (FL_VQF_SLOTS - FL_VQF_CHOICE_ITEMS))) {
        uint8_t *b2 = vqf_block_at(base, fl_vqf_alt(i1, b, fp, nb));
        uint64_t hi2 = fl_vqf_md_hi(b2);
        if ((hi1 & hi2) >> 63) return 0;
        /* The power of two choices: the emptier block (ties: block1), picked with a mask:
         * which one is emptier is random, a branch mispredicts. */
        uintptr_t pick2 = (uintptr_t)0 - (uintptr_t)(vqf_hi_lz(hi2) > vqf_hi_lz(hi1));
        t = (uint8_t *)(((uintptr_t)t & ~pick2) | ((uintptr_t)b2 & pick2));
    }
    uint64_t lo = fl_vqf_md_lo(t), hi = fl_vqf_md_hi(t);
    /* Bucket b's closing one, at bit e (its next slot is e - b): one select in the word
     * holding the rank-b one, picked with a mask as fl_vqf_end_onehot does; on metadata of
     * 80 ones this is fl_vqf_select128's answer. */
    uint32_t c = fl_vqf_popcount(lo);
    uint64_t in_lo = (uint64_t)0 - (uint64_t)(b < c);
    uint64_t w = (lo & in_lo) | (hi & ~in_lo);
    uint32_t in_hi = (uint32_t)~in_lo; /* all ones when the one is in hi */
    uint32_t e = fl_vqf_select64(w, b - (c & in_hi)) + (64u & in_hi);
    uint32_t s = e - b;
    s = s < FL_VQF_SLOTS ? s : FL_VQF_SLOTS;
    vqf_md_insert_zero(&lo, &hi, e);
    VQF_SHIFT_IN(t, s, fp, lo, hi);
    return 1;
}

/* The first slot of bucket b holding fp in a block (lo, hi its metadata), 48 if none: the
 * bucket's slots one by one (about one at a filter's load) in the portable form. */
FL_INLINE uint32_t vqf_find(const uint8_t *blk, uint64_t lo, uint64_t hi, uint32_t b,
                            uint32_t fp) {
#ifdef VQF_MATCH
    uint64_t m = VQF_MATCH(blk, fp) & fl_vqf_bucket_mask(lo, hi, b);
    return (uint32_t)__builtin_ctzll(m | (1ull << FL_VQF_SLOTS));
#else
    for (uint64_t m = fl_vqf_bucket_mask(lo, hi, b); m; m &= m - 1) {
        uint32_t j = (uint32_t)__builtin_ctzll(m);
        if (blk[16 + j] == fp) return j;
    }
    return FL_VQF_SLOTS;
#endif
}

/* Delete one copy of h (fl_vqf_delete_hash's contract): block1's first, else block2's; 1,
 * or 0 with nothing changed when neither holds one. Slot j's zero is at bit j + b. Block2 is
 * read only when block1 lacks the fingerprint: inserts fill block1 first (vqf_insert1), so
 * that branch predicts well and most deletes select in one block's metadata (testing both
 * and picking with masks, as before, cost two blocks' selects and both lines on every
 * delete). pf2 (the one-key call) prefetches block2 first thing, as vqf_insert1 does, for
 * the 11.5% of keys there: 0.83x and 0.88x the time of one-key deletes at 10M and 1M keys
 * against the same code without it (6 paired rounds, ab-flbench-insert-prefetch2-vs-plus-
 * delete-prefetch2.md, whose one-key inserts, the same code in both, read 1.05x and 1.31x:
 * the noise of that loaded hour). */
FL_INLINE int vqf_delete1(uint8_t *base, uint32_t nb, uint64_t h, const int pf2) {
    uint32_t b = fl_vqf_bucket(h), fp = fl_vqf_fp(h), i1 = fl_vqf_block1(h, nb);
    uint8_t *t = vqf_block_at(base, i1);
    if (pf2) pf_read(vqf_block_at(base, fl_vqf_alt(i1, b, fp, nb)));
    uint64_t lo = fl_vqf_md_lo(t), hi = fl_vqf_md_hi(t);
    uint32_t j = vqf_find(t, lo, hi, b, fp);
    if (j == FL_VQF_SLOTS) {
        t = vqf_block_at(base, fl_vqf_alt(i1, b, fp, nb));
        lo = fl_vqf_md_lo(t);
        hi = fl_vqf_md_hi(t);
        j = vqf_find(t, lo, hi, b, fp);
        if (j == FL_VQF_SLOTS) return 0;
    }
    vqf_md_remove_bit(&lo, &hi, j + b);
    VQF_SHIFT_OUT(t, j, lo, hi);
    return 1;
}

/* ---- the entries: keys in order, the first refusal stops them ---------------------------
 * Both blocks of the key PF_DIST keys on are prefetched once the filter is past the ISA's
 * prefetch threshold (the lookups' PF_MIN_BYTES): on a filter past the caches a key
 * otherwise waits for its block1's miss, and for block2's after it when block1 holds more
 * than FL_VQF_CHOICE_ITEMS items (an insert) or lacks the copy (a delete). */
FL_INLINE size_t vqf_update_loop(const fl_kview *f, const uint64_t *hashes, size_t n,
                                 const int insert, const int prefetch) {
    uint8_t *base = (uint8_t *)f->data;
    const uint32_t nb = f->units;
    for (size_t i = 0; i < n; i++) {
        if (prefetch) vqf_prefetch_ahead(base, nb, hashes, i, n);
        uint64_t h = fl_hash_at(hashes, i);
        if (!(insert ? vqf_insert1(base, nb, h, 0) : vqf_delete1(base, nb, h, 0))) return i;
    }
    return n;
}

/* One key (fl_vqf_insert_hash's and fl_vqf_delete_hash's call) goes straight to the block
 * code; batches to the loop, apart, so the one-key path saves no registers for it. */
__attribute__((noinline)) static size_t vqf_insert_many(const fl_kview *f, const uint64_t *hashes,
                                                        size_t n) {
    if ((size_t)f->units * FL_VQF_BLOCK_BYTES >= PF_MIN_BYTES)
        return vqf_update_loop(f, hashes, n, 1, 1);
    return vqf_update_loop(f, hashes, n, 1, 0);
}

__attribute__((noinline)) static size_t vqf_delete_many(const fl_kview *f, const uint64_t *hashes,
                                                        size_t n) {
    if ((size_t)f->units * FL_VQF_BLOCK_BYTES >= PF_MIN_BYTES)
        return vqf_update_loop(f, hashes, n, 0, 1);
    return vqf_update_loop(f, hashes, n, 0, 0);
}

static size_t vqf_insert(const fl_kview *f, const uint64_t *hashes, size_t n) {
    if (n == 1) return (size_t)vqf_insert1((uint8_t *)f->data, f->units, fl_hash_at(hashes, 0), 1);
    return vqf_insert_many(f, hashes, n);
}

static size_t vqf_delete(const fl_kview *f, const uint64_t *hashes, size_t n) {
    if (n == 1) return (size_t)vqf_delete1((uint8_t *)f->data, f->units, fl_hash_at(hashes, 0), 1);
    return vqf_delete_many(f, hashes, n);
}

/* The one-key entries (kernels/kernels.h's fl_vqf_update1_fn): the block code with block2
 * prefetched first thing, as the batch entries' n == 1 path runs it. */
static int vqf_insert_one(uint8_t *blocks, uint32_t nblocks, uint64_t h) {
    return vqf_insert1(blocks, nblocks, h, 1);
}

static int vqf_delete_one(uint8_t *blocks, uint32_t nblocks, uint64_t h) {
    return vqf_delete1(blocks, nblocks, h, 1);
}

/* The module's init for an ISA with every entry (the file's own lookup test, this file's
 * inserts and deletes). */
#define FL_VQF_INIT(isa)                                                                     \
    void fl_vqf_kernels_init_##isa(fl_kernel_table *t) {                                     \
        t->vqf.contains = vqf_contains;                                                      \
        t->vqf.insert = vqf_insert;                                                          \
        t->vqf.del = vqf_delete;                                                             \
        t->vqf.contains1 = vqf_contains_one;                                                 \
        t->vqf.insert1 = vqf_insert_one;                                                     \
        t->vqf.del1 = vqf_delete_one;                                                        \
    }

#endif /* FL_VQF_UPDATE_H */
