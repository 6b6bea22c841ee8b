/*
 * filterlab vector quotient filter: a deletable fingerprint filter of 64-byte mini-filters
 * (included by filterlab.h).
 *
 * The design is Pandey, Conway, Durie, Bender, Farach-Colton and Johnson, "Vector Quotient
 * Filters: Overcoming the Time/Space Trade-Off in Filter Design", SIGMOD 2021, in its 8-bit
 * form. The table is an array of 64-byte blocks, 64-byte aligned. A block is one cache line:
 *
 *   bytes  0..15  metadata, 128 bits (two little-endian u64: bits 0..63, then 64..127)
 *   bytes 16..63  48 one-byte fingerprint slots
 *
 * and describes 80 buckets. The metadata is a bit string read from bit 0 up in which every
 * bucket is closed by a 1 and every fingerprint stored in it is a 0 before that 1: with c
 * items, bits 0 .. 79 + c hold exactly 80 ones and c zeros, and the bits above are 0. The
 * zeros are the slots in order, so bucket b owns slots [select1(b-1) - (b-1), select1(b) - b)
 * (select1(r): the position of the one of rank r, counting from 0; select1(-1) = -1), and a
 * block's item count is select1(79) - 79 (48 minus the leading zeros of the high word).
 * Fingerprints of a bucket are contiguous; an insert shifts the later slots and metadata
 * bits up by one, a delete shifts them down. Slots past the item count are 0.
 *
 * A key's 64-bit hash h gives t = (h * 0x9e3779b97f4a7c15 mod 2^64) >> 32 (the multiply
 * carries every bit of h below bit 64 into t), its bucket reduce32(t, 80) and fingerprint
 * t mod 256, and two blocks: block1 = reduce32(h >> 32, blocks) (Lemire's multiply-shift, so
 * the block count is any number) and its partner for that bucket and fingerprint,
 * fl_vqf_alt, as the cuckoo filter's alternate bucket. The partner must depend on nothing
 * else: with a second block independent of the first, a key J could meet a key K of the same
 * bucket and fingerprint in J's first block and K's second; deleting J there takes K's copy,
 * J's own stays in J's second block, and K, inserted and never deleted, reads as absent.
 * (Deleting every key of a full filter in insertion order hit that within 100K keys; this
 * pairing makes keys of one bucket and fingerprint interchangeable, which is what deleting
 * a copy assumes: tests/test_vqf.c and bench/baselines/vqf_load delete every key.) An
 * insert goes to block1 while block1 holds at most FL_VQF_CHOICE_ITEMS items, without reading
 * block2 (a one-key call only prefetches it); past that, to the block with fewer items
 * (ties: block1), the power of two choices that lets the table fill to about 93% (the
 * paper) before a pair of blocks is full. A full
 * pair refuses the insert (FL_ERR_FULL) and changes nothing. A lookup asks whether the
 * fingerprint is among the bucket's slots in either block, so it answers the same wherever
 * an insert put a key (and whatever rule filled a saved file). A delete removes one copy
 * from the bucket in block1, else in block2 (FL_ERR_NOT_FOUND if neither has it); with the
 * rule above most keys are in block1, so most deletes read one block.
 *
 * Duplicates are stored as copies (a multiset, like the cuckoo filter): insert a key twice,
 * delete it twice. Deleting a key never inserted may remove another key's identical
 * fingerprint (a false positive's): a later lookup of that key may then miss. That is
 * inherent to fingerprint filters, as it is to cuckoo filters: delete only keys you inserted.
 *
 * False positive rate: a key not inserted matches when a stored fingerprint of its bucket in
 * either block equals its own, so about 2 * (items per block / 80) / 256;
 * fl_vqf_info_get reports that estimate for the current fill.
 *
 * Sizing: fl_vqf_create(capacity) takes ceil(capacity / (48 * FL_VQF_SIZING_LOAD)) blocks.
 * FL_VQF_SIZING_LOAD is below the load at which the first insert was refused in every run
 * of results/emeraldrapids-kvm-2c-5bce/vqf/load_at_failure.md (bench/baselines/vqf_load:
 * 820 runs from 100 to 10M keys, none refused below 0.942), so a filter sized for n keys
 * takes n inserts of distinct keys. Filled to n, it measured 0.44% FPR at 11.41 bits per
 * key from 10K keys up (small filters round up to whole blocks).
 *
 * Hashing: keys of bytes are XXH3-64 with the filter's seed, u64 keys fl_hash_u64 with the
 * seed (the library's one hash family); files record the seed.
 *
 * Thread safety: inserts, deletes and clears need exclusive access; lookups, info and saves
 * may run concurrently with each other.
 */
#ifndef FILTERLAB_VQF_H
#define FILTERLAB_VQF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "filterlab.h"

/* The in-line lookup's ISA follows the includer's flags, as filterlab_inline.h's do (and
 * FL_INLINE_PORTABLE forces the portable code the same way). */
#if !defined(FL_INLINE_PORTABLE) && defined(__x86_64__)
/* immintrin.h only where the flags use more than SSE2: filterlab.h includes this header, and
 * immintrin.h is 1.4 MB of declarations for every file that includes filterlab.h. */
#if defined(__AVX2__) || defined(__AVX512BW__) || defined(__BMI2__)
#include <immintrin.h>
#else
#include <emmintrin.h>
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fl_vqf fl_vqf;

#define FL_VQF_SLOTS 48u        /* fingerprint slots per block */
#define FL_VQF_BUCKETS 80u      /* buckets per block */
#define FL_VQF_BLOCK_BYTES 64u  /* one cache line */
#define FL_VQF_BLOCKS_MAX 0xffffffffu
/* The fill a filter is sized for: see "Sizing" above (fl_vqf_blocks_for). */
#define FL_VQF_SIZING_LOAD 0.935
/* An insert whose block1 holds at most this many items (3/4 of 48, the paper's code's
 * threshold too) goes there and never reads block2 (kernels/vqf_update.h): past the caches
 * such an insert waits on one random line rather than two (a one-key call prefetches
 * block2's, and does not wait for it). The two choices then balance
 * only the last quarter of each block, which is where they matter: over 200 runs per size
 * from 100 to 100K keys and 10 at 1M (bench/baselines/vqf_load, results/emeraldrapids-kvm-
 * 2c-5bce/vqf/load_choice_items_T<N>.md) the lowest load at the first refusal was 0.9420 at
 * 36 and at 32, against 0.9469 with the emptier block always (T0, the rule before); 40 fell
 * to 0.8681 and 44 to 0.6806, below FL_VQF_SIZING_LOAD. At 36, 88.5% of a full filter's
 * keys sit in their block1 (66% at T0): the deletes that read one block. */
#define FL_VQF_CHOICE_ITEMS 36u

/* ---- probe math: THE definition of where a hash lands (the kernels, the library and the
 * in-line lookup below all use it; saved filters depend on it; kernels/vqf_avx512.c's batch
 * lookup computes it eight keys a vector in lanes_entries and lanes_bucket_mask, so a change
 * here is made there too) ------------------------------------------------------------------ */

#if defined(__GNUC__) || defined(__clang__)
#define FL_VQF_INLINE static inline __attribute__((always_inline))
#else
#define FL_VQF_INLINE static inline
#endif

#define FL_VQF_MIX 0x9e3779b97f4a7c15ull /* 2^64 / golden ratio, odd */

/* Lemire's multiply-shift range reduction, (x * n) >> 32: filterlab_inline.h's fl_reduce32,
 * which this header cannot include (filterlab.h includes this header before that one's
 * definitions). */
FL_VQF_INLINE uint32_t fl_vqf_reduce(uint32_t x, uint32_t n) {
    return (uint32_t)(((uint64_t)x * n) >> 32);
}

FL_VQF_INLINE uint32_t fl_vqf_block1(uint64_t h, uint32_t blocks) {
    return fl_vqf_reduce((uint32_t)(h >> 32), blocks);
}
FL_VQF_INLINE uint32_t fl_vqf_tag_word(uint64_t h) {
    return (uint32_t)((h * FL_VQF_MIX) >> 32);
}
FL_VQF_INLINE uint32_t fl_vqf_bucket(uint64_t h) {
    return fl_vqf_reduce(fl_vqf_tag_word(h), FL_VQF_BUCKETS);
}
FL_VQF_INLINE uint32_t fl_vqf_fp(uint64_t h) {
    return fl_vqf_tag_word(h) & 0xffu;
}
/* The partner of block i for a key of this bucket and fingerprint: (H - i) mod blocks with
 * H = reduce32((bucket * 256 + fp) * 0x5bd1e995, blocks) (MurmurHash2's multiplier, as the
 * cuckoo filter's alternate bucket), an involution for any block count. Keys that share a
 * bucket and a fingerprint and meet in a block therefore share both blocks, so a delete
 * that removes another such key's copy leaves the deleted key's own copy where that key
 * finds it (with two independent blocks it could not: see the top of this file). */
FL_VQF_INLINE uint32_t fl_vqf_alt(uint32_t i, uint32_t bucket, uint32_t fp, uint32_t blocks) {
    uint32_t hb = fl_vqf_reduce(((bucket << 8) | fp) * 0x5bd1e995u, blocks), d = hb - i;
    return hb >= i ? d : d + blocks;
}
FL_VQF_INLINE uint32_t fl_vqf_block2(uint64_t h, uint32_t blocks) {
    return fl_vqf_alt(fl_vqf_block1(h, blocks), fl_vqf_bucket(h), fl_vqf_fp(h), blocks);
}

/* popcount: the instruction where the includer's flags allow it (x86 POPCNT, AArch64 CNT);
 * at x86-64 baseline GCC's builtin is a libgcc call, so the SWAR count instead. */
FL_VQF_INLINE uint32_t fl_vqf_popcount(uint64_t x) {
#if defined(__x86_64__) && !defined(__POPCNT__)
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (uint32_t)((x * 0x0101010101010101ull) >> 56);
#else
    return (uint32_t)__builtin_popcountll(x);
#endif
}

/* FL_VQF_SELECT_IN_BYTE[k][w]: the position of the set bit of rank k in byte w (8 when w has
 * k or fewer), the last step of the portable select. One table in the library
 * (src/vqf/vqf.c): generated in this header, it cost every file that includes filterlab.h
 * about 2 s of preprocessing (7.8 MB expanded) and a copy of the table. */
extern const uint8_t FL_VQF_SELECT_IN_BYTE[8][256];

/* The position of the set bit of rank r in x (r from 0 to 63), or 64 when x has r or fewer.
 * With BMI2 one pdep deposits 1 << r at the r-th set bit; the portable form finds the byte
 * from the bytes' prefix popcounts (Vigna, "Broadword Implementation of Rank/Select
 * Queries", 2008) and the bit in it from a table. No branch either way: a bucket's rank is
 * random, and a mispredicted branch costs more than the whole select. */
FL_VQF_INLINE uint32_t fl_vqf_select64(uint64_t x, uint32_t r) {
#if defined(__BMI2__) && defined(__x86_64__) && !defined(FL_INLINE_PORTABLE)
    uint64_t d = _pdep_u64(1ull << (r & 63), x);
    return d ? (uint32_t)__builtin_ctzll(d) : 64u;
#else
    const uint64_t l8 = 0x0101010101010101ull, h8 = 0x8080808080808080ull;
    uint64_t s = x - ((x >> 1) & 0x5555555555555555ull);
    s = (s & 0x3333333333333333ull) + ((s >> 2) & 0x3333333333333333ull);
    s = (s + (s >> 4)) & 0x0f0f0f0f0f0f0f0full;
    uint64_t cum = s * l8; /* byte i: set bits in bytes 0..i */
    /* Bytes whose prefix count is <= r (no borrow crosses a byte: r + 128 >= 128 > 64):
     * their number is the byte holding the bit, or 8 when x has r or fewer set bits. */
    uint64_t le = ((((uint64_t)(r & 63) * l8) | h8) - cum) & h8;
    uint32_t byte = (uint32_t)(((le >> 7) * l8) >> 56);
    uint32_t sh = 8 * (byte & 7);
    uint32_t below = (uint32_t)(((cum << 8) >> sh) & 0xffu);
    uint32_t bit = FL_VQF_SELECT_IN_BYTE[((r & 63) - below) & 7][(x >> sh) & 0xffu];
    return byte < 8 ? sh + bit : 64u;
#endif
}

/* select1 over the 128-bit metadata (lo: bits 0..63): the rank-r one's position, 128 when
 * there is none. Both words are selected and the answer picked without a branch. Metadata
 * with fewer than 16 ones in lo (none a filter holds: it has 80 ones in 128 bits) can leave
 * rank r - popcount(lo) past 63 in hi; it is taken mod 64 there, the same in every ISA. */
FL_VQF_INLINE uint32_t fl_vqf_select128(uint64_t lo, uint64_t hi, uint32_t r) {
    uint32_t c = fl_vqf_popcount(lo);
    uint32_t a = fl_vqf_select64(lo, r), z = 64u + fl_vqf_select64(hi, r - c);
    uint32_t in_lo = (uint32_t)0 - (uint32_t)(r < c); /* a mask, not a branch (see below) */
    return (a & in_lo) | (z & ~in_lo);
}

/* The one-hot of the rank-r set bit of x (0 when x has r or fewer; r mod 64): pdep of 1 << r
 * with BMI2, else 1 << select64. */
FL_VQF_INLINE uint64_t fl_vqf_deposit(uint64_t x, uint32_t r) {
#if defined(__BMI2__) && defined(__x86_64__) && !defined(FL_INLINE_PORTABLE)
    return _pdep_u64(1ull << (r & 63), x);
#else
    uint32_t p = fl_vqf_select64(x, r);
    return p < 64 ? 1ull << p : 0;
#endif
}

FL_VQF_INLINE uint64_t fl_vqf_rotr(uint64_t x, uint32_t n) {
    return (x >> (n & 63)) | (x << ((64 - n) & 63));
}

/* One-hot at slot select1(r) - r of the 128-bit metadata (lo: bits 0..63): the slot just
 * past bucket r's last. The rank-r one is deposited in its word (lo while r < popcount(lo),
 * picked without a branch), and a rotation by r takes its bit position to the slot: in lo
 * the one is at or above bit r, and from hi the slot select1(r) - r < 64 is the position in
 * hi plus 64 - r, which is a rotation by r mod 64 for any r below 128. 0 when the rank-r
 * one is missing, which no filter's metadata (80 ones) lets happen for r < 80. */
FL_VQF_INLINE uint64_t fl_vqf_end_onehot(uint64_t lo, uint64_t hi, uint32_t c, uint32_t r) {
    /* The word and rank picked with a mask, not a conditional: GCC compiles `r < c ? lo : hi`
     * into a branch, which mispredicts on about half of the keys (the bucket's rank against
     * lo's popcount is random). With the mask the AVX2 and AVX-512 batch lookups took 0.42x
     * to 0.87x the time at 10K to 1M keys on Emerald Rapids; the scalar and in-line lookups,
     * which other work bounds, stayed within the run's noise
     * (results/emeraldrapids-kvm-2c-5bce/vqf/word_pick_ab.md, scripts/flbench-ab). */
    uint64_t in_lo = (uint64_t)0 - (uint64_t)(r < c);
    uint64_t w = (lo & in_lo) | (hi & ~in_lo);
    return fl_vqf_rotr(fl_vqf_deposit(w, r - (c & ~(uint32_t)in_lo)), r);
}

/* The slots of bucket b (0..79) by the two one-hots, E(b) - E(b-1) (select1(-1) = -1: slot 0
 * for bucket 0), then below 48: two selects. fl_vqf_bucket_mask's form for the buckets where
 * its one-select form does not apply (bucket 0, and the bucket whose run starts in lo and
 * ends in hi), kept out of line: about 1 block in 40 takes it. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline, cold, unused))
#endif
static uint64_t fl_vqf_bucket_mask_two_selects(uint64_t lo, uint64_t hi, uint32_t c, uint32_t b) {
    uint64_t end = fl_vqf_end_onehot(lo, hi, c, b);
    uint64_t start = b ? fl_vqf_end_onehot(lo, hi, c, b - 1) : 1;
    return (end - start) & ((1ull << FL_VQF_SLOTS) - 1);
}

/* pdep(3 << r, w) (r < 64): the one-hots of w's set bits of ranks r and r + 1 (either 0 when
 * w has too few; 3 << 63 keeps rank 63 alone, and so does the portable form). */
FL_VQF_INLINE uint64_t fl_vqf_deposit2(uint64_t w, uint32_t r) {
#if defined(__BMI2__) && defined(__x86_64__) && !defined(FL_INLINE_PORTABLE)
    return _pdep_u64(3ull << (r & 63), w);
#else
    uint64_t d = fl_vqf_deposit(w, r), above = w & ~((d << 1) - 1); /* d = 0: nothing above */
    return d | (above & (0 - above));
#endif
}

/* The slots of bucket b (0..79) in a block with metadata (lo, hi): bit j set for slot j in
 * [select1(b-1) - (b-1), select1(b) - b), below 48. THE definition every lookup uses; on
 * metadata no filter holds it is still some subset of the 48 slots, so a lookup never reads
 * outside the block, and every ISA computes the same bits (the portable deposit2 is pdep's
 * answer on any word; kernels/vqf_avx512.c's lanes_bucket_mask gives the same bits eight
 * lanes at a time).
 *
 * One select finds both ends: when the ones of ranks b - 1 and b are in the same word w
 * (b >= 1 and b != popcount(lo)), P = pdep(3 << r, w) (r: b - 1's rank in w) holds both, and
 * with D1 its lowest bit and D2 the other, P - 3 * D1 = D2 - 2 * D1 is the run of bits
 * strictly between them: bucket b's zeros, whose slot is their metadata position minus b
 * (b ones below each). A rotation by b takes them there, in lo (positions >= b) as in hi
 * (position + 64 - b, fl_vqf_end_onehot's rotation). The other buckets, 0 and the one whose
 * run crosses from lo to hi, take the two-select form. Per block with BMI2: one popcount,
 * one pdep, a blsi and a rotation; the form before (two pdeps, each with its word and rank
 * picked) took about twice the instructions of the batch loop's block test. */
FL_VQF_INLINE uint64_t fl_vqf_bucket_mask(uint64_t lo, uint64_t hi, uint32_t b) {
    uint32_t c = fl_vqf_popcount(lo);
#if defined(__GNUC__) || defined(__clang__)
    if (__builtin_expect(b == 0 || b == c, 0)) return fl_vqf_bucket_mask_two_selects(lo, hi, c, b);
#else
    if (b == 0 || b == c) return fl_vqf_bucket_mask_two_selects(lo, hi, c, b);
#endif
    uint64_t in_lo = (uint64_t)0 - (uint64_t)(b < c); /* a mask: see fl_vqf_end_onehot */
    uint64_t w = (lo & in_lo) | (hi & ~in_lo);
    uint64_t p = fl_vqf_deposit2(w, (b - 1 - (c & ~(uint32_t)in_lo)) & 63);
    uint64_t d1 = p & (0 - p);
    return fl_vqf_rotr(p - 3 * d1, b) & ((1ull << FL_VQF_SLOTS) - 1);
}

/* Metadata word w of a block: 0 is bits 0..63 (lo), 1 bits 64..127 (hi). */
FL_VQF_INLINE uint64_t fl_vqf_md(const uint8_t *blk, int w) {
    uint64_t x;
    memcpy(&x, blk + 8 * w, 8);
    return x;
}
#define fl_vqf_md_lo(blk) fl_vqf_md((blk), 0)
#define fl_vqf_md_hi(blk) fl_vqf_md((blk), 1)

/* Whether fingerprint fp is among bucket b's slots in the block: the reference form (the
 * bucket's slots one by one, about 0.56 of them at 93% fill). */
FL_VQF_INLINE int fl_vqf_block_has_portable(const uint8_t *blk, uint32_t b, uint32_t fp) {
    const uint8_t *slots = blk + 16;
    for (uint64_t m = fl_vqf_bucket_mask(fl_vqf_md_lo(blk), fl_vqf_md_hi(blk), b); m; m &= m - 1)
        if (slots[__builtin_ctzll(m)] == fp) return 1;
    return 0;
}

/* The same answer from a compare of all 48 slots at once, masked by the bucket's slots: one
 * 64-byte compare with AVX-512BW, two 32-byte ones with AVX2, three 16-byte ones with SSE2
 * (x86-64 baseline). */
#if defined(__x86_64__) && !defined(FL_INLINE_PORTABLE)
FL_VQF_INLINE uint64_t fl_vqf_match(const uint8_t *blk, uint32_t fp) {
#if defined(__AVX512BW__)
    return _mm512_cmpeq_epi8_mask(_mm512_load_si512((const void *)blk),
                                  _mm512_set1_epi8((char)fp)) >> 16;
#elif defined(__AVX2__)
    const __m256i f = _mm256_set1_epi8((char)fp);
    const __m256i *p = (const __m256i *)(const void *)blk;
    uint64_t m0 = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_load_si256(p), f));
    uint64_t m1 = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_load_si256(p + 1), f));
    return (m0 | m1 << 32) >> 16;
#else
    const __m128i f = _mm_set1_epi8((char)fp);
    const __m128i *p = (const __m128i *)(const void *)blk;
    uint64_t m0 = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_load_si128(p + 1), f));
    uint64_t m1 = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_load_si128(p + 2), f));
    uint64_t m2 = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_load_si128(p + 3), f));
    return m0 | m1 << 16 | m2 << 32;
#endif
}
FL_VQF_INLINE int fl_vqf_block_has(const uint8_t *blk, uint32_t b, uint32_t fp) {
    return (fl_vqf_match(blk, fp) &
            fl_vqf_bucket_mask(fl_vqf_md_lo(blk), fl_vqf_md_hi(blk), b)) != 0;
}
/* The same answer, returning at once when no slot holds fp (about 5 blocks in 6 that do not
 * hold the key): fl_vqf_probe_early's test. */
FL_VQF_INLINE int fl_vqf_block_has_early(const uint8_t *blk, uint32_t b, uint32_t fp) {
    uint64_t m = fl_vqf_match(blk, fp);
#if defined(__GNUC__) || defined(__clang__)
    if (__builtin_expect(m == 0, 1)) return 0;
#else
    if (m == 0) return 0;
#endif
    return (m & fl_vqf_bucket_mask(fl_vqf_md_lo(blk), fl_vqf_md_hi(blk), b)) != 0;
}
#else
FL_VQF_INLINE int fl_vqf_block_has(const uint8_t *blk, uint32_t b, uint32_t fp) {
    return fl_vqf_block_has_portable(blk, b, fp);
}
/* The portable test already stops at the bucket's last slot (none when it is empty). */
FL_VQF_INLINE int fl_vqf_block_has_early(const uint8_t *blk, uint32_t b, uint32_t fp) {
    return fl_vqf_block_has_portable(blk, b, fp);
}
#endif

/* One key: is h's fingerprint in its bucket of either block (blocks >= 1). Both blocks are
 * tested and the answers ORed, without a branch on the data: the form for filters in this
 * CPU's L2 or nearer, where a lookup is bound by its own work and a mispredicted branch
 * (block1's answer, or whether a block holds fp at all, is a coin toss at half hits) costs
 * more than the select it would skip. */
FL_VQF_INLINE int fl_vqf_probe(const uint8_t *blocks, uint32_t nblocks, uint64_t h) {
    uint32_t b = fl_vqf_bucket(h), fp = fl_vqf_fp(h);
    const uint8_t *b1 = blocks + (size_t)fl_vqf_block1(h, nblocks) * FL_VQF_BLOCK_BYTES;
    const uint8_t *b2 = blocks + (size_t)fl_vqf_block2(h, nblocks) * FL_VQF_BLOCK_BYTES;
    return fl_vqf_block_has(b1, b, fp) | fl_vqf_block_has(b2, b, fp);
}

/* The same answer for filters past the caches: block2 prefetched, block1 tested first with
 * fl_vqf_block_has_early, block2 only when block1 does not hold the key. There a loop of
 * one-key lookups is bound by how many of them the out-of-order window holds while their
 * lines come from memory; the instructions that wait on a block's line (compare, select,
 * mask: about 30 a block in fl_vqf_block_has) fill the schedulers, so about two lookups are
 * in flight. Predicted on the early return, a lookup puts about 10 such instructions in the
 * window, more lookups' lines are requested at once, and a mispredicted branch costs a
 * refetch of instructions whose lines are already on their way (fastfilter_cpp's VQF
 * lookup has this shape). In the caches the two branches mispredict on about half the keys
 * at half hits and, where the select is one pdep, the branch-free form is faster. The
 * library takes this form for filters past this CPU's L2 (kernels/kernels.h's
 * FL_VQF_EARLY_MIN_BYTES, which cites the measurements): the one-key calls' kernels, and the
 * handle below (fl_vqf_lookup_is_early). */
FL_VQF_INLINE int fl_vqf_probe_early(const uint8_t *blocks, uint32_t nblocks, uint64_t h) {
    uint32_t b = fl_vqf_bucket(h), fp = fl_vqf_fp(h);
    const uint8_t *b1 = blocks + (size_t)fl_vqf_block1(h, nblocks) * FL_VQF_BLOCK_BYTES;
    const uint8_t *b2 = blocks + (size_t)fl_vqf_block2(h, nblocks) * FL_VQF_BLOCK_BYTES;
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(b2);
#endif
    return fl_vqf_block_has_early(b1, b, fp) || fl_vqf_block_has_early(b2, b, fp);
}

/* ---- one key at a time, in the caller's loop ---------------------------------------------
 * A handle made once (fl_vqf_lookup_of: the filter's blocks, seed and probe form, by value)
 * probes keys in line, like filterlab_inline.h's handles: no call, the ISA chosen by the
 * includer's compile flags (AVX-512BW compare and BMI2 select with -march=native on such a
 * machine, SSE2 and the portable select at x86-64 baseline, portable code elsewhere). On AMD
 * Zen to Zen 2 (family 17h) PDEP is microcoded, its time growing with the mask's set bits
 * (see src/cpu/kernel_rules.c, which sends the library's VQF calls to its scalar kernel
 * there): for those CPUs add -mno-bmi2 after any -march to the file that calls this handle,
 * which keeps the vector compare and takes the portable select, and with it the early probe
 * at every size (fl_vqf_lookup_is_early; FL_INLINE_PORTABLE drops both). Every path answers exactly fl_vqf_contains_hash. The handle reads the filter live (later
 * inserts and deletes are seen) and is valid until fl_vqf_free; a handle of NULL has no
 * blocks and answers 0. */
typedef struct fl_vqf_lookup {
    const uint8_t *blocks;
    uint32_t nblocks;
    uint64_t seed_mix; /* seed * FL_SEED_MIX: fl_hash_u64(key, seed) = fl_mix64(key + it) */
    uint32_t early;    /* 1: fl_vqf_probe_early past this CPU's L2 (FL_VQF_EARLY_MIN_BYTES),
                          0: fl_vqf_probe (see fl_vqf_lookup_is_early); last, so that a
                          handle written out field by field before it existed is 0 here
                          and probes as it did */
} fl_vqf_lookup;

fl_vqf_lookup fl_vqf_lookup_of(const fl_vqf *v);
/* Whether the handle probes with fl_vqf_probe_early as the includer's flags compile it. With
 * BMI2 (the select one pdep) the branch-free probe is the faster in the caches, and the
 * handle's `early`, the library's line for this CPU, picks. At x86-64 baseline the select is
 * the portable one, several times the instructions, and the early probe, which compares
 * first with SSE2 and skips the select in most blocks, is the faster at every size: on Zen 3
 * 0.62-0.74x the time from 100K to 2M keys and 0.38-0.44x at 4M and 10M
 * (results/zen3-kvm-2c-5bce/vqf/one_key_probe_forms.md, its base build). Elsewhere (the
 * portable test, which has no compare to put first) `early` picks too. A handle's answer is
 * the same either way; the flag is read per key and is the same for every key of a handle,
 * a branch the CPU predicts. */
static inline int fl_vqf_lookup_is_early(const fl_vqf_lookup *l) {
#if defined(__x86_64__) && !defined(FL_INLINE_PORTABLE) && !defined(__BMI2__)
    (void)l;
    return 1;
#else
    return l->early != 0;
#endif
}
static inline int fl_vqf_lookup_hash(const fl_vqf_lookup *l, uint64_t h) {
    if (!l->nblocks) return 0;
    return fl_vqf_lookup_is_early(l) ? fl_vqf_probe_early(l->blocks, l->nblocks, h)
                                     : fl_vqf_probe(l->blocks, l->nblocks, h);
}
static inline int fl_vqf_lookup_u64(const fl_vqf_lookup *l, uint64_t key) {
    return fl_vqf_lookup_hash(l, fl_mix64(key + l->seed_mix));
}

/* ---- the filter ------------------------------------------------------------------------ */

typedef struct fl_vqf_info {
    uint32_t blocks;
    size_t bytes;             /* blocks * 64 */
    uint64_t seed;
    uint64_t items;           /* fingerprints stored (copies count) */
    uint64_t slots;           /* blocks * 48 */
    uint64_t capacity;        /* keys the filter is sized for: floor(slots * sizing load) */
    double load;              /* items / slots */
    double bits_per_key;      /* bytes * 8 / capacity */
    double fpr;               /* estimate at the current fill: 1 - (1 - 1/256)^(2 items per
                                 block / 80) */
    uint32_t full_blocks;     /* blocks holding 48 items */
} fl_vqf_info;

/* Blocks for a filter of `capacity` keys (see "Sizing"). FL_ERR_INVALID_ARG (NULL out),
 * FL_ERR_BAD_N (capacity 0), FL_ERR_TOO_LARGE (more than FL_VQF_BLOCKS_MAX blocks). */
fl_status fl_vqf_blocks_for(uint64_t capacity, uint32_t *blocks);
/* An empty filter sized for capacity keys, or of exactly `blocks` blocks. Errors: those of
 * fl_vqf_blocks_for, FL_ERR_BAD_GEOMETRY (blocks 0), FL_ERR_NO_MEMORY. */
fl_status fl_vqf_create(uint64_t capacity, uint64_t seed, fl_vqf **out);
fl_status fl_vqf_create_blocks(uint32_t blocks, uint64_t seed, fl_vqf **out);
void fl_vqf_free(fl_vqf *v);
/* Removes every item; keeps blocks, seed and kernel binding. */
fl_status fl_vqf_clear(fl_vqf *v);

/* fl_vqf_hash_, _insert_, _delete_ and _contains_ for hash, bytes, u64, hashes and u64s, and
 * the kernel binding (filterlab.h's FL_DECLARE_KEY_CALLS). Inserts: FL_OK, or FL_ERR_FULL
 * with nothing changed (both blocks of the key full); FL_ERR_INVALID_ARG for a NULL filter or
 * a NULL key with len > 0; a batch stops at the first key that does not fit. Deletes remove
 * one copy (see the top of this file): FL_OK, FL_ERR_NOT_FOUND (nothing changed),
 * FL_ERR_INVALID_ARG; a batch stops at the first key not found (the keys before it stay
 * deleted). Lookups answer 0 for a NULL filter or key; batches run through the filter's
 * kernel (the vqf module), FL_ERR_INVALID_ARG for NULL arrays with n > 0. */
FL_DECLARE_KEY_CALLS(fl_vqf, fl_vqf);

/* ---- persistence (filterlab format v2, kind vector quotient filter) --------------------
 * Loads validate every block (metadata of exactly 80 ones below its zeros, free slots 0,
 * the items the header states): FL_ERR_CORRUPT otherwise, never a wrong answer later.
 * max_bytes caps the block bytes (0: no cap; FL_ERR_TOO_LARGE above it). */
FL_DECLARE_FILE_CALLS(fl_vqf, fl_vqf);

fl_status fl_vqf_info_get(const fl_vqf *v, fl_vqf_info *out);

#ifdef __cplusplus
}
#endif
#endif /* FILTERLAB_VQF_H */
