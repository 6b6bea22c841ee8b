/*
 * filterlab_inline.h: single-key lookups that compile into the caller's loop.
 *
 * Why: in a cache-resident filter a lookup takes a few nanoseconds, and a call into
 * libfilterlab (PLT, argument checks, building the kernel's view, the dispatched indirect
 * call) costs about as much again. Header-only libraries such as fastfilter_cpp avoid that
 * cost by inlining everything; this header gives C callers the same for one-key-at-a-time
 * loops:
 *
 *     const fl_lookup L = fl_lookup_of(filter);     // once, any variant
 *     for (...) hits += fl_lookup_u64(&L, keys[i]);
 *
 *     fl_status s;                                  // or, knowing the variant:
 *     const fl_split256_lookup S = fl_split256_lookup_of(filter, &s);
 *     for (...) hits += fl_split256_lookup_u64(&S, keys[i]);
 *
 * The one-variant handles (fl_split256_lookup, fl_cuckoo_lookup) are the fastest: their loop
 * has no variant test, and where the variant is probed in line, no call at all. The generic
 * fl_lookup tests the variant per key and keeps a call to the dispatched kernel in the loop
 * for the variants it does not inline, which costs registers even when never taken.
 *
 * A one-variant handle made for a filter of another variant is refused (*status is
 * FL_ERR_INVALID_ARG) but still answers exactly what fl_contains_hash answers for that
 * filter, through the library's generic one-key lookup: an unchecked status costs speed,
 * never a false negative. What that takes on the fast path:
 *   - fl_cuckoo_lookup: nothing. The refused handle probes an empty bucket of its own and
 *     leaves through the victim-stash branch every lookup already has (its stash count
 *     reads as nonzero), where the filter's own lookup answers.
 *   - fl_split256_lookup through the kernel pointer (x86-64 without AVX2): nothing. The
 *     refused handle's pointer is the generic lookup, handed the filter instead of blocks.
 *   - fl_split256_lookup probed in line (AVX2, NEON): one compare and branch per key on a
 *     field of the handle that never changes (units == 0 marks a refused handle), so it is
 *     always predicted; compilers that unswitch loops (GCC at -O3) hoist it out of the
 *     caller's loop altogether.
 *
 * What is inlined depends on how the including file is compiled, never on a run-time guess:
 *   - cuckoo (8-, 12- and 16-bit fingerprints): always. 8 and 16 bits in SSE2 on x86-64 and
 *     NEON on AArch64, both baseline there, so no compiler flag is needed; 12 bits in SSSE3
 *     when the including file is compiled with it (-mssse3, -mavx2, x86-64-v2 and up);
 *     portable SWAR code elsewhere.
 *   - split256: AVX2 when the including file is compiled with AVX2 (-mavx2, -march=x86-64-v3,
 *     -march=native on an AVX2 machine), NEON on AArch64; with BMI2 as well (-mbmi2,
 *     x86-64-v3), the one-variant handle's hash uses shrx (fl_mix64_one_key).
 *   - everything else (split256 at x86-64 baseline, classic, block512, reg64): the kernel the
 *     library dispatched for this CPU, called through the handle's function pointer, which
 *     skips the PLT and the argument set-up of fl_contains_hash.
 * Every path returns exactly what fl_contains_hash returns (tests/lookup_checks.c checks each
 * one against the scalar kernels). Define FL_INLINE_PORTABLE before including this header to
 * force the portable code (the tests do, to check it on every host).
 *
 * Handles read the filter live: keys inserted after they were made are seen, and they stay
 * valid until fl_free. They keep the kernel dispatched when they were made; a later
 * fl_kernel_select does not change them.
 *
 * The probe math below (range reduction, salts, cuckoo fingerprint and buckets) is the single
 * definition the library's kernels use too (kernels/probe.h includes this header). It is
 * part of the file format: change it and saved filters answer differently.
 */
#ifndef FILTERLAB_INLINE_H
#define FILTERLAB_INLINE_H

#include <stdint.h>
#include <string.h>

#include "filterlab.h"

#if !defined(FL_INLINE_PORTABLE) && (defined(__x86_64__) || defined(_M_X64))
#define FL_LOOKUP_X86 1
#include <immintrin.h>
#elif !defined(FL_INLINE_PORTABLE) && defined(__aarch64__) && defined(__ARM_NEON)
#define FL_LOOKUP_NEON 1
#include <arm_neon.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- probe math shared with the kernels ----------------------------------------------------
 * Range reduction is Lemire's multiply-shift, (x32 * n) >> 32 ("Fast Random Integer Generation
 * in an Interval", 2019), which the Parquet split block filter specifies for its block index;
 * it keeps unit counts free of power-of-two rounding. */
static inline uint32_t fl_reduce32(uint32_t x, uint32_t n) {
    return (uint32_t)(((uint64_t)x * n) >> 32);
}

/* Salts for the in-block bit positions. The first eight are the Apache Parquet split block
 * salts (parquet-format BloomFilter.md); the other eight are xxHash's and MurmurHash3's odd
 * 32-bit multipliers. A position is the top bits of (h32 * salt). */
static const uint32_t FL_SALT[16] = {
    0x47b6137bu, 0x44974d91u, 0x8824ad5bu, 0xa2b7289du, 0x705495c7u, 0x2df1424bu,
    0x9efc4947u, 0x5c6bfb31u, 0x9e3779b1u, 0x85ebca77u, 0xc2b2ae3du, 0x27d4eb2fu,
    0x165667b1u, 0xcc9e2d51u, 0x1b873593u, 0xe6546b65u,
};

/* cuckoo: partial-key cuckoo hashing (Fan, Andersen, Kaminsky, Mitzenmacher, CoNEXT 2014).
 * Primary bucket reduce32(h >> 32, buckets). Fingerprint uniform in [1, 2^f - 1] (0 marks an
 * empty slot): reduce32(h32, 2^f - 1) + 1. The alternate bucket must be computable from
 * (bucket, fingerprint) alone and be an involution for any bucket count, not only powers of
 * two where XOR works: alt(i) = (H(fp) - i) mod buckets satisfies alt(alt(i)) = i. H(fp) is
 * reduce32(fp * 0x5bd1e995, buckets) (MurmurHash2's multiplier). Buckets hold 4 slots: 4
 * bytes for 8-bit fingerprints, 4 little-endian 16-bit words (8 bytes) for 16-bit ones, and
 * for 12-bit ones 6 bytes: a 48-bit little-endian word whose slot s is bits 12s..12s+11
 * (bucket b at byte 6b, packed as fastfilter_cpp's Cuckoo12 packs its 4-slot buckets). A
 * 12-bit bucket is read with one unaligned 8-byte load at byte 6b, whose top 2 bytes (the
 * next bucket's) the test below ignores; the last bucket's load reads 2 bytes past the
 * payload, so every payload is allocated with FL_PAYLOAD_SLACK bytes after it
 * (kernels/kernels.h, src/core/memory.c). */
#define FL_CUCKOO12_LO 0x001001001001ull /* 1 in every 12-bit slot */
#define FL_CUCKOO12_HI 0x800800800800ull /* the top bit of every 12-bit slot */
static inline uint32_t fl_cuckoo_fp_in(uint64_t h, uint32_t fp_range) { /* 2^f - 1 */
    return fl_reduce32((uint32_t)h, fp_range) + 1u;
}
static inline uint32_t fl_cuckoo_fp(uint64_t h, uint32_t fp_bits) {
    return fl_cuckoo_fp_in(h, (1u << fp_bits) - 1u);
}
static inline uint32_t fl_cuckoo_bucket(uint64_t h, uint32_t buckets) {
    return fl_reduce32((uint32_t)(h >> 32), buckets);
}
static inline uint32_t fl_cuckoo_alt(uint32_t i, uint32_t fp, uint32_t buckets) {
    uint32_t hf = fl_reduce32(fp * 0x5bd1e995u, buckets);
    return hf >= i ? hf - i : hf + (buckets - i);
}

/* 12-bit bucket b in the low 48 bits: an 8-byte load at byte 6b (see FL_PAYLOAD_SLACK). */
static inline uint64_t fl_cuckoo12_word(const void *data, uint32_t b) {
    uint64_t x;
    memcpy(&x, (const uint8_t *)data + 6 * (size_t)b, 8);
    return x;
}

/* Nonzero iff a slot of the 12-bit bucket word x (bits 0..47) equals fp: Mycroft's test below
 * on 12-bit lanes. Bits 48..63 (another bucket's) need no mask: a subtraction's borrows only
 * go up, so they change result bits 48..63 alone, which HI drops, as it drops the borrow out
 * of the top lane. */
static inline uint64_t fl_cuckoo12_has(uint64_t x, uint32_t fp) {
    x ^= (uint64_t)fp * FL_CUCKOO12_LO;
    return (x - FL_CUCKOO12_LO) & ~x & FL_CUCKOO12_HI;
}

/* 11- and 13-bit fingerprints in semi-sorted buckets (Fan, Andersen, Kaminsky, Mitzenmacher
 * 2014, section 5.2): the 4 slots of a bucket are kept in ascending order, so their top 4 bits
 * form a non-decreasing 4-tuple of nibbles, one of C(19, 4) = 3876 multisets, stored as its
 * rank in 12 bits where 4 x 4 bits would take 16. With L = fp_bits - 4 low bits a slot, a
 * bucket is 12 + 4L bits: 5 bytes for 11-bit fingerprints (L = 7), 6 for 13-bit ones (L = 9,
 * the 12-bit filter's bytes). The little-endian word at byte (fp_bits - 1) / 2 * b holds the
 * rank in bits 0..11 and slot s's low L bits in bits 12 + Ls .. 11 + L(s + 1); slot s's
 * fingerprint is (nibble s << L) | low bits s, 0 for an empty slot (empty slots sort first; an
 * all-zero bucket is empty). The rank of n0 <= n1 <= n2 <= n3 is the combinatorial number
 * system's rank of the strictly increasing n0 < n1 + 1 < n2 + 2 < n3 + 3: n0 + C(n1 + 1, 2) +
 * C(n2 + 2, 3) + C(n3 + 3, 4) (kernels/probe.h encodes it). Lookups decode with a table of
 * 4096 words per width (the library's, fl_cuckoo_lookup.tuples): entry r holds the tuple of
 * rank r spread to L-bit lanes, nibble s at bits Ls..Ls+3, and 0 for the ranks 3876..4095 no
 * bucket holds (a loaded file with one is refused), so any 12 bits index it safely. With the
 * low bits in the same L-bit lanes, a slot equals fp exactly where the lane of (low bits ^ fp's
 * low L bits) | (nibble ^ fp's nibble) is zero: one zero-lane test of 4 lanes, as
 * fl_cuckoo12_has's. The word is read with one 8-byte load; the bytes past the bucket land
 * above the 4 lanes, where a borrow never reaches down and HI does not look. */
#define FL_CUCKOO_SS_LO(low) (1ull | 1ull << (low) | 1ull << 2 * (low) | 1ull << 3 * (low))
#define FL_CUCKOO_SS_HI(low) (FL_CUCKOO_SS_LO(low) << ((low) - 1)) /* each lane's top bit */
#define FL_CUCKOO_SS_RANKS 3876u /* C(19, 4): the nibble tuples a bucket can hold */

/* Whether fp_bits is a semi-sorted width (11 or 13). */
static inline int fl_cuckoo_semisorted(uint32_t fp_bits) {
    return fp_bits == 11 || fp_bits == 13;
}

/* Semi-sorted bucket b of an fp_bits filter in the low 12 + 4(fp_bits - 4) bits: an 8-byte
 * load at byte (fp_bits - 1) / 2 * b (5b or 6b; see FL_PAYLOAD_SLACK). */
static inline uint64_t fl_cuckoo_ss_word(const void *data, uint32_t fp_bits, uint32_t b) {
    uint64_t x;
    memcpy(&x, (const uint8_t *)data + (fp_bits - 1) / 2 * (size_t)b, 8);
    return x;
}

/* Nonzero iff a slot of the semi-sorted bucket word x holds fp (1..2^fp_bits - 1), fp_bits
 * 11 or 13, `tuples` that width's table. */
static inline uint64_t fl_cuckoo_ss_has(uint64_t x, uint32_t fp, uint32_t fp_bits,
                                        const uint32_t *tuples) {
    const uint32_t low = fp_bits - 4;
    const uint64_t lo = FL_CUCKOO_SS_LO(low);
    uint64_t y = ((x >> 12) ^ ((uint64_t)(fp & ((1u << low) - 1u)) * lo)) |
                 (tuples[x & 0xfffu] ^ ((uint64_t)(fp >> low) * lo));
    return (y - lo) & ~y & FL_CUCKOO_SS_HI(low);
}

/* Whether either semi-sorted bucket i1 or i2 holds fp: fl_cuckoo_ss_has on both. A branch on
 * the width (one that never changes for a filter, so always predicted) lets each width's lane
 * constants, mask and shifts fold into immediates. */
static inline int fl_cuckoo_ss_buckets_have(const void *data, uint32_t fp_bits,
                                            const uint32_t *tuples, uint32_t i1, uint32_t i2,
                                            uint32_t fp) {
    if (fp_bits == 13)
        return (fl_cuckoo_ss_has(fl_cuckoo_ss_word(data, 13, i1), fp, 13, tuples) |
                fl_cuckoo_ss_has(fl_cuckoo_ss_word(data, 13, i2), fp, 13, tuples)) != 0;
    return (fl_cuckoo_ss_has(fl_cuckoo_ss_word(data, 11, i1), fp, 11, tuples) |
            fl_cuckoo_ss_has(fl_cuckoo_ss_word(data, 11, i2), fp, 11, tuples)) != 0;
}

/* Whether any slot of bucket b equals fp, without a branch per slot (a lookup that misses
 * half the time would mispredict one). x = bucket ^ (fp in every lane) has a zero lane
 * exactly where a slot matches; (x - 0x..0101) & ~x & 0x..8080 is nonzero iff some lane of x
 * is zero (Mycroft's test, "Bit Twiddling Hacks", haszero; exact for any lane width: below
 * the lowest zero lane no lane borrows). Empty slots are 0 and fp >= 1, so they never match.
 * Buckets are little-endian; filterlab only builds for little-endian hosts. For fp_bits 8, 12
 * or 16 only: a semi-sorted bucket needs its table (fl_cuckoo_ss_has), and would be read here
 * as a 16-bit one. */
static inline uint64_t fl_cuckoo_bucket_has(const void *data, uint32_t fp_bits, uint32_t b,
                                            uint32_t fp) {
    if (fp_bits == 8) {
        uint32_t x;
        memcpy(&x, (const uint8_t *)data + 4 * (size_t)b, 4);
        x ^= fp * 0x01010101u;
        return (x - 0x01010101u) & ~x & 0x80808080u;
    }
    if (fp_bits == 12) return fl_cuckoo12_has(fl_cuckoo12_word(data, b), fp);
    uint64_t x;
    memcpy(&x, (const uint8_t *)data + 8 * (size_t)b, 8);
    x ^= fp * 0x0001000100010001ull;
    return (x - 0x0001000100010001ull) & ~x & 0x8000800080008000ull;
}

/* Victim stash of a cuckoo filter: fingerprints that found no slot, with the bucket they
 * belong to (either of their two works, since lookups check both). */
typedef struct fl_stash_entry {
    uint32_t bucket;
    uint16_t fp;
    uint16_t unused;
} fl_stash_entry;

static inline int fl_cuckoo_stash_match(const fl_stash_entry *stash, uint32_t count, uint32_t i1,
                                        uint32_t i2, uint32_t fp) {
    for (uint32_t s = 0; s < count; s++)
        if (stash[s].fp == fp && (stash[s].bucket == i1 || stash[s].bucket == i2)) return 1;
    return 0;
}

/* Both buckets of a key at once: one compare of 8 (or 16) slots. 12-bit slots have no
 * vector lane of their width: a byte shuffle widens them where SSSE3 is compiled in, two
 * 64-bit SWAR tests elsewhere. fp_bits 8, 12 or 16, as fl_cuckoo_bucket_has (the handle's
 * lookup below tests semi-sorted buckets with fl_cuckoo_ss_has). */
static inline int fl_cuckoo_buckets_have(const void *data, uint32_t fp_bits, uint32_t i1,
                                         uint32_t i2, uint32_t fp) {
    const uint8_t *d = (const uint8_t *)data;
#if defined(FL_LOOKUP_X86) && defined(__SSSE3__)
    if (fp_bits == 12) {
        /* With pshufb (SSSE3: an -mavx2 build) the 8 slots become 16-bit lanes: bytes (0,1),
         * (1,2), (3,4), (4,5) of each bucket hold its slots 0..3 in bits 0..11, 4..15, 0..11
         * and 4..15; masked, each lane equals fp or fp << 4 (a dword of fp * 0x100001) iff
         * its slot equals fp. Six vector instructions where the SWAR test below takes about
         * a dozen, fp copied into every lane among them. */
        __m128i x = _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)(const void *)(d + 6 * (size_t)i1)),
                                       _mm_loadl_epi64((const __m128i *)(const void *)(d + 6 * (size_t)i2)));
        x = _mm_shuffle_epi8(x, _mm_setr_epi8(0, 1, 1, 2, 3, 4, 4, 5, 8, 9, 9, 10, 11, 12, 12, 13));
        x = _mm_and_si128(x, _mm_set1_epi32((int)0xfff00fffu));
        return _mm_movemask_epi8(_mm_cmpeq_epi16(x, _mm_set1_epi32((int)(fp * 0x100001u)))) != 0;
    }
#endif
    if (fp_bits == 12)
        return (fl_cuckoo12_has(fl_cuckoo12_word(d, i1), fp) |
                fl_cuckoo12_has(fl_cuckoo12_word(d, i2), fp)) != 0;
#if defined(FL_LOOKUP_X86)
    if (fp_bits == 8) {
        uint32_t a, b;
        memcpy(&a, d + 4 * (size_t)i1, 4);
        memcpy(&b, d + 4 * (size_t)i2, 4);
        __m128i x = _mm_unpacklo_epi32(_mm_cvtsi32_si128((int)a), _mm_cvtsi32_si128((int)b));
        /* Lanes 8..15 are zero and fp >= 1, so they never match. */
        return _mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8((char)fp))) != 0;
    }
    __m128i x = _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)(const void *)(d + 8 * (size_t)i1)),
                                   _mm_loadl_epi64((const __m128i *)(const void *)(d + 8 * (size_t)i2)));
    return _mm_movemask_epi8(_mm_cmpeq_epi16(x, _mm_set1_epi16((short)fp))) != 0;
#elif defined(FL_LOOKUP_NEON)
    if (fp_bits == 8) {
        uint32_t a, b;
        memcpy(&a, d + 4 * (size_t)i1, 4);
        memcpy(&b, d + 4 * (size_t)i2, 4);
        uint8x8_t x = vcreate_u8((uint64_t)a | ((uint64_t)b << 32));
        return vmaxv_u8(vceq_u8(x, vdup_n_u8((uint8_t)fp))) != 0;
    }
    uint64_t a, b;
    memcpy(&a, d + 8 * (size_t)i1, 8);
    memcpy(&b, d + 8 * (size_t)i2, 8);
    uint16x8_t x = vcombine_u16(vcreate_u16(a), vcreate_u16(b));
    return vmaxvq_u16(vceqq_u16(x, vdupq_n_u16((uint16_t)fp))) != 0;
#else
    return (fl_cuckoo_bucket_has(d, fp_bits, i1, fp) | fl_cuckoo_bucket_has(d, fp_bits, i2, fp)) != 0;
#endif
}

/* split256 (parquet-format BloomFilter.md): block reduce32(h >> 32, blocks); in 32-bit word i
 * of the 8-word block, bit (h32 * SALT[i]) >> 27. One key as one vector of 8 words: 8 salt
 * products, 8 bits, one test (all bits set). */
#if defined(__AVX2__) && !defined(FL_INLINE_PORTABLE)
#define FL_LOOKUP_SPLIT256_INLINE 1
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* A one-key split256 lookup in L1 or L2 is bound by the ALU ports, not by latency: written
 * plainly, 24 ALU micro-ops a key (hash, block index, the vector probe, the caller's loop) on
 * 5 ALU ports, of which 16 can only issue on ports 0, 1 and 6 (shifts, multiplies, vector
 * shifts, the branch): at least 5.3 cycles a key on Golden/Raptor Cove. The forms below
 * compute the same values in 22, 13 of them on ports 0, 1 and 6: at least 4.4 cycles
 * (split256-onekey-uops.md in results/emeraldrapids-kvm-2c-5bce/against/fastfilter_cpp/
 * fuse-onekey/ has the counts and the measurements). */
/* __extension__: quiet under -Wpedantic, in C and C++. */
__extension__ typedef unsigned __int128 fl_split256_u128;
/* The block's byte offset 32 * reduce32(h >> 32, blocks), from one 64x64 -> 128-bit multiply:
 * with h's low half cleared, the high half of h * (32 * blocks) is
 * floor((h >> 32) * blocks / 2^27), whose bits above the low 5 are 32 * reduce32(h >> 32,
 * blocks). An AND (any ALU port) and the multiply's high half replace two shifts (ports 0 and
 * 6 only) around the 64-bit multiply. */
static inline size_t fl_split256_block_offset(uint64_t h, uint32_t blocks) {
    fl_split256_u128 p = (fl_split256_u128)(h & 0xffffffff00000000ull) * ((uint64_t)blocks << 5);
    return (size_t)(uint64_t)(p >> 64) & ~(size_t)31;
}
/* h32 in all 8 lanes, read back from memory: the store and the broadcast load use the load
 * and store ports, where vmovd + vpbroadcastd (what a compiler emits for _mm256_set1_epi32 of
 * a register) take two ALU micro-ops on port 5. Store-to-load forwarding adds a few cycles of
 * latency, which the out-of-order core hides behind the other keys of the caller's loop. */
static inline __m256i fl_split256_broadcast(uint32_t h32) {
    __m256i v;
    __asm__("vpbroadcastd %1, %0" : "=x"(v) : "m"(h32));
    return v;
}
#else
static inline size_t fl_split256_block_offset(uint64_t h, uint32_t blocks) {
    return 32 * (size_t)fl_reduce32((uint32_t)(h >> 32), blocks);
}
static inline __m256i fl_split256_broadcast(uint32_t h32) {
    return _mm256_set1_epi32((int)h32);
}
#endif
/* The probe as a function of its own (the AVX2 kernels' one-key lookup, a call per key). */
static inline int fl_split256_probe_avx2(const void *data, uint32_t blocks, uint64_t h) {
    const uint32_t *b = (const uint32_t *)data + 8 * (size_t)fl_reduce32((uint32_t)(h >> 32), blocks);
    __m256i t = _mm256_mullo_epi32(_mm256_set1_epi32((int)(uint32_t)h),
                                   _mm256_loadu_si256((const __m256i *)(const void *)FL_SALT));
    __m256i bits = _mm256_sllv_epi32(_mm256_set1_epi32(1), _mm256_srli_epi32(t, 27));
    return _mm256_testc_si256(_mm256_load_si256((const __m256i *)(const void *)b), bits);
}
/* The same answer in the caller's loop (the handles): the forms above, whose constants (the
 * mask, 32 * blocks) the loop keeps in registers. In a function called per key they would be
 * rebuilt every call and the broadcast's stack slot would need a frame, which made the
 * kernels' one-key lookup slower (split256-onekey-uops.md). */
static inline int fl_split256_probe_avx2_in_loop(const void *data, uint32_t blocks, uint64_t h) {
    const uint8_t *b = (const uint8_t *)data + fl_split256_block_offset(h, blocks);
    __m256i t = _mm256_mullo_epi32(fl_split256_broadcast((uint32_t)h),
                                   _mm256_loadu_si256((const __m256i *)(const void *)FL_SALT));
    __m256i bits = _mm256_sllv_epi32(_mm256_set1_epi32(1), _mm256_srli_epi32(t, 27));
    return _mm256_testc_si256(_mm256_load_si256((const __m256i *)(const void *)b), bits);
}
#define FL_SPLIT256_PROBE_INLINE fl_split256_probe_avx2_in_loop
#elif defined(FL_LOOKUP_NEON)
#define FL_LOOKUP_SPLIT256_INLINE 1
static inline int fl_split256_probe_neon(const void *data, uint32_t blocks, uint64_t h) {
    const uint32_t *b = (const uint32_t *)data + 8 * (size_t)fl_reduce32((uint32_t)(h >> 32), blocks);
    uint32x4_t lo = vdupq_n_u32((uint32_t)h), one = vdupq_n_u32(1);
    uint32x4_t m0 = vshlq_u32(one, vreinterpretq_s32_u32(vshrq_n_u32(vmulq_u32(lo, vld1q_u32(FL_SALT)), 27)));
    uint32x4_t m1 = vshlq_u32(one, vreinterpretq_s32_u32(vshrq_n_u32(vmulq_u32(lo, vld1q_u32(FL_SALT + 4)), 27)));
    uint32x4_t miss = vorrq_u32(vbicq_u32(m0, vld1q_u32(b)), vbicq_u32(m1, vld1q_u32(b + 4)));
    return vmaxvq_u32(miss) == 0;
}
#define FL_SPLIT256_PROBE_INLINE fl_split256_probe_neon
#endif

/* ---- lookup handles ---------------------------------------------------------------------------
 * Handles are returned by value: keep one in a local variable (`const fl_lookup L = ...;`)
 * whose address the loop never passes to a function, and the compiler keeps its fields in
 * registers. Whatever does not depend on the key (2^f - 1, the mixed seed) is precomputed in
 * the handle, so the loop does only per-key work (no variable shift by cl, no seed multiply). */

/* A one-key probe of a Bloom payload: 1 if the hash may be in the filter, else 0. Fields are
 * passed by value, so calling it does not make the handle escape. */
typedef int (*fl_lookup_fn)(const void *data, uint32_t units, uint32_t k, uint64_t hash);

/* split256 only. */
typedef struct fl_split256_lookup {
    const void *blocks;          /* 32-byte blocks, read live; with units 0, what probe
                                    takes instead (the refused filter) */
    uint32_t units;              /* number of blocks; 0 for a handle whose filter was refused
                                    (another variant, or NULL): every lookup goes to probe */
    uint64_t seed_mix;           /* seed * FL_SEED_MIX: fl_hash_u64(key, seed) is
                                    fl_mix64(key + seed_mix) */
    fl_lookup_fn probe;          /* the dispatched one-key kernel, for builds that do not
                                    probe split256 in line (x86-64 without AVX2); with units
                                    0, the library's generic one-key lookup of that filter */
} fl_split256_lookup;

/* cuckoo only. */
typedef struct fl_cuckoo_lookup {
    const void *buckets;         /* 4-slot buckets, read live */
    uint32_t units;              /* number of buckets */
    uint32_t fp_bits;            /* 8, 11 or 13 (semi-sorted), 12 or 16 */
    uint32_t fp_range;           /* 2^fp_bits - 1: fingerprints are 1..fp_range */
    const uint32_t *tuples;      /* semi-sorted buckets' decoding table of this width (see
                                    fl_cuckoo_ss_has); NULL for the other widths */
    uint64_t seed_mix;
    const fl_stash_entry *stash; /* the filter's victim stash and its live entry count */
    const uint32_t *stash_count;
    /* NULL for a cuckoo filter. For a refused filter (another variant, or NULL), the
     * library's generic one-key lookup and the filter it takes: stash_count then points at a
     * nonzero constant and buckets at one empty bucket, so each lookup reaches the stash
     * branch and other answers. */
    fl_lookup_fn other;
    const void *other_data;
} fl_cuckoo_lookup;

/* Any variant: split256 and cuckoo through the handles above, the others through the
 * dispatched one-key kernel. */
typedef struct fl_lookup {
    fl_variant variant;          /* 0 for the handle of a NULL filter */
    const void *data;            /* the filter's payload, read live */
    uint32_t units;              /* words, blocks or buckets */
    uint32_t k;                  /* Bloom: bits per key; cuckoo: fingerprint bits */
    uint64_t seed_mix;
    fl_lookup_fn probe;          /* the dispatched one-key kernel (Bloom variants) */
    fl_split256_lookup split256; /* valid when variant is FL_SPLIT256 */
    fl_cuckoo_lookup cuckoo;     /* valid when variant is FL_CUCKOO */
} fl_lookup;

/* The generic handle of f; for a NULL f, one whose lookups all answer 0 (like fl_contains_*).
 * It keeps the kernel dispatched at this call: a later fl_kernel_select does not change it. */
fl_lookup fl_lookup_of(const fl_filter *f);

/* One-variant handles: no variant test and no call in the caller's loop (where the build
 * probes the variant in line), the fastest way to look up one key at a time. For a NULL
 * filter or one of another variant, *status (if status is not NULL) is FL_ERR_INVALID_ARG,
 * and the handle still answers what fl_contains_hash answers for that filter (0 for every
 * key of a NULL filter) through the library's generic one-key lookup, at that call's speed
 * (see the top of this header); otherwise FL_OK. Either way the handle reads the filter
 * live. Check the status: a refused handle is correct but not fast. */
fl_split256_lookup fl_split256_lookup_of(const fl_filter *f, fl_status *status);
fl_cuckoo_lookup fl_cuckoo_lookup_of(const fl_filter *f, fl_status *status);

/* The rarely taken branches of the lookups below (a refused handle, a non-empty stash). */
#if defined(__GNUC__) || defined(__clang__)
#define FL_LOOKUP_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define FL_LOOKUP_UNLIKELY(x) (x)
#endif

/* 1 if the hash (fl_hash_bytes, fl_hash_u64, or the caller's own) may be in the filter. */
static inline int fl_split256_lookup_hash(const fl_split256_lookup *l, uint64_t hash) {
#if defined(FL_LOOKUP_SPLIT256_INLINE)
    /* A refused handle (units 0): the one branch the in-line probe adds, on a field that
     * never changes, so it is always predicted (see the top of this header). */
    if (FL_LOOKUP_UNLIKELY(l->units == 0)) return l->probe(l->blocks, 0, 8, hash);
    return FL_SPLIT256_PROBE_INLINE(l->blocks, l->units, hash);
#else
    return l->probe(l->blocks, l->units, 8, hash); /* a refused handle's probe ignores units */
#endif
}

/* The stash branch of fl_cuckoo_lookup_hash, rarely taken: a refused handle's answer, or the
 * victim stash's fingerprints. */
static inline int fl_cuckoo_lookup_rest(const fl_cuckoo_lookup *l, uint64_t hash, int hit,
                                        uint32_t stashed, uint32_t i1, uint32_t i2,
                                        uint32_t fp) {
    if (l->other) return l->other(l->other_data, 0, 0, hash);
    return hit | fl_cuckoo_stash_match(l->stash, stashed, i1, i2, fp);
}

static inline int fl_cuckoo_lookup_hash(const fl_cuckoo_lookup *l, uint64_t hash) {
    uint32_t fp = fl_cuckoo_fp_in(hash, l->fp_range);
    uint32_t i1 = fl_cuckoo_bucket(hash, l->units);
    uint32_t i2 = fl_cuckoo_alt(i1, fp, l->units);
    /* tuples never changes for a handle: a predicted branch. */
    int hit = l->tuples ? fl_cuckoo_ss_buckets_have(l->buckets, l->fp_bits, l->tuples, i1, i2, fp)
                        : fl_cuckoo_buckets_have(l->buckets, l->fp_bits, i1, i2, fp);
    uint32_t stashed = *l->stash_count; /* almost always 0: a predictable branch */
    if (FL_LOOKUP_UNLIKELY(stashed)) return fl_cuckoo_lookup_rest(l, hash, hit, stashed, i1, i2, fp);
    return hit;
}

static inline int fl_lookup_hash(const fl_lookup *l, uint64_t hash) {
#if defined(FL_LOOKUP_SPLIT256_INLINE)
    if (l->variant == FL_SPLIT256) return fl_split256_lookup_hash(&l->split256, hash);
#endif
    if (l->variant == FL_CUCKOO) return fl_cuckoo_lookup_hash(&l->cuckoo, hash);
    return l->probe(l->data, l->units, l->k, hash);
}

/* fl_mix64 for the split256 handle's loop: the same value (tests/lookup_checks.c compares the
 * two), without the register copies. A shift by a constant overwrites its operand, so each
 * z ^ (z >> s) of the finalizer also costs a copy; shrx (BMI2) writes a third register but takes its count from a register, and
 * compilers fold a constant count back into the two-operand shift. The empty asm hides the
 * constant: not volatile and with a constant input, it is hoisted out of the caller's loop,
 * so the three counts stay in registers and each step is shrx + xor. Only the split256 handle
 * uses it: in the cuckoo and fuse loops the three extra registers cost spills (fuse8 0.93x:
 * split256-handle-ab-shrx-in-every-handle.md, beside split256-onekey-uops.md). */
#if defined(__BMI2__) && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && \
    !defined(FL_INLINE_PORTABLE)
static inline uint64_t fl_shr_by_reg(uint64_t z, unsigned s) {
    __asm__("" : "+r"(s));
    return z >> s;
}
static inline uint64_t fl_mix64_one_key(uint64_t z) {
    z = (z ^ fl_shr_by_reg(z, 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ fl_shr_by_reg(z, 27)) * 0x94d049bb133111ebull;
    return z ^ fl_shr_by_reg(z, 31);
}
#else
static inline uint64_t fl_mix64_one_key(uint64_t z) {
    return fl_mix64(z);
}
#endif

/* 1 if the integer key may be in the filter: fl_contains_u64 without the call. */
static inline int fl_split256_lookup_u64(const fl_split256_lookup *l, uint64_t key) {
    return fl_split256_lookup_hash(l, fl_mix64_one_key(key + l->seed_mix));
}
static inline int fl_cuckoo_lookup_u64(const fl_cuckoo_lookup *l, uint64_t key) {
    return fl_cuckoo_lookup_hash(l, fl_mix64(key + l->seed_mix));
}
static inline int fl_lookup_u64(const fl_lookup *l, uint64_t key) {
    return fl_lookup_hash(l, fl_mix64(key + l->seed_mix));
}

#ifdef __cplusplus
}
#endif
#endif /* FILTERLAB_INLINE_H */
