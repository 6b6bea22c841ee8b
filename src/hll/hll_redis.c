/*
 * Redis's HyperLogLog string, the value GET returns for a key PFADD made (redis
 * src/hyperloglog.c, struct hllhdr):
 *
 *   "HYLL"  encoding (0 dense, 1 sparse)  3 unused bytes  8-byte cached count
 *   dense:  16384 registers of 6 bits, register i at bits 6i..6i+5 counted from the least
 *           significant bit of byte 0 (12288 bytes, no padding)
 *   sparse: ZERO / XZERO / VAL opcodes covering the 16384 registers (src/hll/hll_sparse.c)
 *
 * The cached count is little-endian; bit 7 of its last byte set means stale (Redis's
 * HLL_VALID_CACHE). Every field is checked before anything is allocated from it.
 */
#include <stdlib.h>
#include <string.h>

#include "hll/hll_internal.h"

#define HDR FL_HLL_REDIS_HDR_BYTES
#define DENSE_REG_BYTES (FL_HLL_REDIS_DENSE_BYTES - HDR)

static const unsigned char magic[4] = {'H', 'Y', 'L', 'L'};

fl_status fl_hll_export_redis_size(const fl_hll *h, size_t *out) {
    if (!h || !out) return FL_ERR_INVALID_ARG;
    if (h->p != FL_HLL_REDIS_P) return FL_ERR_UNSUPPORTED;
    *out = h->enc == FL_HLL_DENSE ? (size_t)FL_HLL_REDIS_DENSE_BYTES : HDR + h->sp_len;
    return FL_OK;
}

fl_status fl_hll_export_redis(const fl_hll *h, void *buf, size_t cap, size_t *written) {
    size_t need;
    fl_status s = fl_hll_export_redis_size(h, &need);
    if (s != FL_OK) return s;
    if (!buf) return FL_ERR_INVALID_ARG;
    if (cap < need) return FL_ERR_BUFFER_TOO_SMALL;
    unsigned char *o = buf;
    memcpy(o, magic, 4);
    o[4] = h->enc == FL_HLL_DENSE ? 0 : 1;
    memcpy(o + 5, h->unused, 3);
    memcpy(o + 8, h->card, 8);
    if (h->enc == FL_HLL_SPARSE) {
        memcpy(o + HDR, h->sp, h->sp_len);
    } else {
        /* Four 6-bit registers fill three bytes exactly. */
        const uint8_t *r = h->regs;
        unsigned char *d = o + HDR;
        for (uint32_t i = 0; i < h->m; i += 4, r += 4, d += 3) {
            d[0] = (unsigned char)(r[0] | r[1] << 6);
            d[1] = (unsigned char)(r[1] >> 2 | r[2] << 4);
            d[2] = (unsigned char)(r[2] >> 4 | r[3] << 2);
        }
    }
    if (written) *written = need;
    return FL_OK;
}

fl_status fl_hll_import_redis(const void *buf, size_t len, fl_hll **out) {
    if (!out || (!buf && len)) return FL_ERR_INVALID_ARG;
    if (len == 0) return FL_ERR_TRUNCATED;
    const unsigned char *in = buf;
    /* Magic first on whatever bytes there are: a short string that is not an HLL at all is
     * a format error, a short one that starts like one is truncated. */
    if (memcmp(in, magic, len < 4 ? len : 4) != 0) return FL_ERR_HLL_FORMAT;
    if (len < HDR) return FL_ERR_TRUNCATED;
    uint8_t enc = in[4];
    if (enc > 1) return FL_ERR_HLL_FORMAT;
    const unsigned char *body = in + HDR;
    size_t blen = len - HDR;
    fl_status s;
    if (enc == 0) {
        if (blen < DENSE_REG_BYTES) return FL_ERR_TRUNCATED;
        if (blen > DENSE_REG_BYTES) return FL_ERR_TRAILING_DATA;
    } else if ((s = fl_hll_sparse_validate(body, blen, 1u << FL_HLL_REDIS_P)) != FL_OK) {
        return s;
    }
    fl_hll *h;
    if ((s = fl_hll_new(FL_HLL_REDIS_P, &h)) != FL_OK) return s;
    memcpy(h->unused, in + 5, 3);
    memcpy(h->card, in + 8, 8);
    if (enc == 0) {
        h->enc = FL_HLL_DENSE;
        if ((s = fl_hll_alloc_regs(h)) != FL_OK) goto fail;
        uint8_t *r = h->regs;
        const unsigned char *b = body;
        for (uint32_t i = 0; i < h->m; i += 4, r += 4, b += 3) {
            r[0] = b[0] & 63;
            r[1] = (uint8_t)((b[0] >> 6 | b[1] << 2) & 63);
            r[2] = (uint8_t)((b[1] >> 4 | b[2] << 4) & 63);
            r[3] = b[2] >> 2;
        }
    } else {
        h->enc = FL_HLL_SPARSE;
        if (!(h->sp = malloc(blen))) {
            s = FL_ERR_NO_MEMORY;
            goto fail;
        }
        memcpy(h->sp, body, blen);
        h->sp_len = h->sp_cap = blen;
    }
    *out = h;
    return FL_OK;
fail:
    fl_hll_free(h);
    return s;
}
