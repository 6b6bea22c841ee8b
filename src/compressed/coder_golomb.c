/*
 * The Golomb-Rice chunk coder: a Bloom payload chunk as the gaps between its set bits (or
 * between its clear bits, when those are fewer), each gap g coded as g >> r in unary and its
 * r low bits in binary (Golomb, "Run-length encodings", IEEE Trans. Inf. Theory 12(3), 1966,
 * with a power-of-two divisor 2^r: Rice's special case). Bits of a filter with a fraction q
 * of minority bits are close to independent, so the gaps are close to geometric with mean
 * 1/q, for which a Golomb code is optimal among prefix codes (Gallager and van Voorhis,
 * IEEE Trans. Inf. Theory 21(2), 1975) and within a few percent of the entropy H(q) per bit.
 * The encoder picks r per chunk by the exact code length, so no model of q is needed.
 *
 * Code layout: u8 mode (0: positions of 1 bits, 1: of 0 bits), u8 r (0..24), the number of
 * coded positions as an unsigned LEB128 of at most 5 bytes without redundant bytes, then the
 * gap codes as a bit stream, least significant bit of each byte first, its last byte padded
 * with zero bits. Bit i of a chunk is bit i % 8 of byte i / 8 (the payload's little-endian
 * words read the same way).
 */
#include <stdlib.h>
#include <string.h>

#include "compressed/compressed_internal.h"

#define RICE_MAX 24u

static int bit_at(const uint8_t *p, size_t i) {
    return (p[i >> 3] >> (i & 7)) & 1;
}

/* Bits of the code for count positions whose gaps sum (each >> r) to units: count unary
 * terminators plus count * r binary bits plus the unary ones. */
static uint64_t stream_bits(uint64_t count, uint64_t unary, uint32_t r) {
    return count * (1 + (uint64_t)r) + unary;
}

static size_t golomb_bound(size_t len) {
    /* 7 header bytes; the chosen r codes at most as long as r = 0, whose stream is one bit
     * per coded position (at most half the bits) plus the gaps (at most all the bits) */
    return 8 + 2 * len;
}

typedef struct bit_writer {
    uint8_t *p;
    size_t cap, bit;
} bit_writer;

static void put_bits(bit_writer *w, uint64_t v, uint32_t n) {
    for (uint32_t i = 0; i < n; i++, w->bit++)
        if ((v >> i) & 1) w->p[w->bit >> 3] |= (uint8_t)(1u << (w->bit & 7));
}

static size_t golomb_encode(const uint8_t *src, size_t len, uint8_t *dst, size_t cap) {
    size_t bits = 8 * len;
    uint64_t ones = fl_cbf_popcount(src, len);
    int mode = ones > bits / 2;
    uint64_t count = mode ? bits - ones : ones;
    uint32_t *gaps = malloc((count ? count : 1) * sizeof *gaps);
    if (!gaps) return 0;
    size_t prev = 0, c = 0; /* prev: the position after the previous coded bit */
    for (size_t i = 0; i < bits; i++) {
        if (bit_at(src, i) != !mode) continue;
        gaps[c++] = (uint32_t)(i - prev);
        prev = i + 1;
    }
    /* the shortest r; ties go to the smaller */
    uint32_t best_r = 0;
    uint64_t best = UINT64_MAX;
    for (uint32_t r = 0; r <= RICE_MAX && count; r++) {
        uint64_t unary = 0;
        for (uint64_t j = 0; j < count; j++) unary += gaps[j] >> r;
        uint64_t b = stream_bits(count, unary, r);
        if (b < best) {
            best = b;
            best_r = r;
        }
    }
    if (!count) best = 0;
    size_t head = 2, v = count;
    uint8_t leb[5];
    size_t nleb = 0;
    do {
        leb[nleb] = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (v) leb[nleb] |= 0x80;
        nleb++;
    } while (v);
    size_t total = head + nleb + (size_t)((best + 7) / 8);
    if (total > cap) {
        free(gaps);
        return 0;
    }
    memset(dst, 0, total);
    dst[0] = (uint8_t)mode;
    dst[1] = (uint8_t)best_r;
    memcpy(dst + 2, leb, nleb);
    bit_writer w = {dst + 2 + nleb, total - 2 - nleb, 0};
    for (uint64_t j = 0; j < count; j++) {
        uint64_t q = gaps[j] >> best_r;
        for (uint64_t u = 0; u < q; u++) put_bits(&w, 1, 1);
        put_bits(&w, 0, 1);
        put_bits(&w, gaps[j] & ((1u << best_r) - 1), best_r);
    }
    free(gaps);
    return total;
}

/* The next bits of the stream from bit position `bit` on, least significant first: at least
 * 57 of them (zeros past the end), read a word at a time so a unary run costs one count of
 * trailing ones rather than a loop per bit. */
static uint64_t peek(const uint8_t *s, size_t n, uint64_t bit) {
    size_t at = (size_t)(bit >> 3);
    uint64_t w = 0;
    if (at + 8 <= n) {
        memcpy(&w, s + at, 8); /* the host is little-endian (src/core/internal.h) */
    } else {
        for (size_t i = 0; at + i < n; i++) w |= (uint64_t)s[at + i] << (8 * i);
    }
    return w >> (bit & 7);
}

static fl_status golomb_decode(const uint8_t *src, size_t n, uint8_t *dst, size_t len) {
    if (n < 3) return FL_ERR_CORRUPT;
    uint32_t mode = src[0], r = src[1];
    if (mode > 1 || r > RICE_MAX) return FL_ERR_CORRUPT;
    uint64_t count = 0;
    size_t at = 2;
    for (uint32_t shift = 0;; shift += 7) {
        if (at >= n || shift > 28) return FL_ERR_CORRUPT;
        uint8_t b = src[at++];
        count |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            if (b == 0 && shift > 0) return FL_ERR_CORRUPT; /* a redundant last byte */
            break;
        }
    }
    uint64_t bits = 8 * (uint64_t)len;
    if (count > bits) return FL_ERR_CORRUPT;
    /* The coder codes the minority: never mode 1 with count >= half, never mode 0 with
     * count > half, and r = 0 when nothing is coded. */
    if (mode == 0 ? count > bits / 2 : count >= bits - bits / 2) return FL_ERR_CORRUPT;
    if (count == 0 && r != 0) return FL_ERR_CORRUPT;
    memset(dst, mode ? 0xff : 0, len);
    const uint8_t *s = src + at;
    size_t sn = n - at;
    uint64_t sbits = 8 * (uint64_t)sn, bit = 0, pos = 0;
    uint64_t low_mask = (1ull << r) - 1;
    for (uint64_t j = 0; j < count; j++) {
        uint64_t q = 0;
        for (;;) { /* the unary part: ones, then a zero */
            if (bit >= sbits) return FL_ERR_CORRUPT;
            uint64_t avail = sbits - bit < 57 ? sbits - bit : 57;
            uint64_t w = peek(s, sn, bit);
            uint64_t ones = ~w ? (uint64_t)__builtin_ctzll(~w) : 64;
            if (ones < avail) {
                q += ones;
                bit += ones + 1;
                break;
            }
            q += avail;
            bit += avail;
            if (q > bits) return FL_ERR_CORRUPT;
        }
        if (q > bits || sbits - bit < r) return FL_ERR_CORRUPT;
        uint64_t low = r ? peek(s, sn, bit) & low_mask : 0;
        bit += r;
        uint64_t gap = (q << r) | low;
        if (gap >= bits - pos) return FL_ERR_CORRUPT;
        pos += gap;
        dst[pos >> 3] ^= (uint8_t)(1u << (pos & 7));
        pos++;
    }
    /* exactly the bytes the stream needs, padded with zeros */
    if ((bit + 7) / 8 != sn) return FL_ERR_CORRUPT;
    if (bit & 7 && s[sn - 1] >> (bit & 7)) return FL_ERR_CORRUPT;
    return FL_OK;
}

const fl_chunk_coder fl_coder_golomb = {golomb_bound, golomb_encode, golomb_decode};
