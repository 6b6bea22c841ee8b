/* The GROWTH INPLACE value's serialization (inplace_codec.h: the layout). */
#include "inplace_codec.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "le.h"

static const uint8_t TAG[8] = {'F', 'L', 'R', 'G', 'R', 'O', 'W', '1'};

void flr_inplace_free(flr_inplace *ip) {
    if (!ip) return;
    fl_gcf_free(ip->g);
    free(ip);
}

int flr_inplace_is_blob(const uint8_t *blob, size_t len) {
    return len >= sizeof TAG && memcmp(blob, TAG, sizeof TAG) == 0;
}

uint8_t *flr_inplace_encode(const flr_inplace *ip, size_t *len) {
    size_t body = fl_gcf_serialized_size(ip->g), written = 0;
    uint8_t *buf = body ? malloc(FLR_INPLACE_HEADER + body) : NULL;
    if (!buf) return NULL;
    memcpy(buf, TAG, sizeof TAG);
    uint64_t rate;
    memcpy(&rate, &ip->error_rate, 8);
    flr_put32(buf + 8, ip->kind);
    flr_put32(buf + 12, ip->bucket_size);
    flr_put32(buf + 16, ip->max_iterations);
    flr_put32(buf + 20, 0);
    flr_put64(buf + 24, rate);
    flr_put64(buf + 32, ip->capacity);
    flr_put64(buf + 40, ip->deleted);
    flr_put64(buf + 48, XXH3_64bits(buf, 48));
    if (fl_gcf_save_mem(ip->g, buf + FLR_INPLACE_HEADER, body, &written) != FL_OK) {
        free(buf);
        return NULL;
    }
    *len = FLR_INPLACE_HEADER + written;
    return buf;
}

fl_status flr_inplace_decode(const uint8_t *blob, size_t len, uint32_t kind, uint64_t load_max,
                             flr_inplace **out) {
    if (!flr_inplace_is_blob(blob, len) || len < FLR_INPLACE_HEADER ||
        flr_get64(blob + 48) != XXH3_64bits(blob, 48))
        return FL_ERR_CORRUPT;
    flr_inplace p = {.kind = flr_get32(blob + 8), .bucket_size = flr_get32(blob + 12),
                     .max_iterations = flr_get32(blob + 16),
                     .capacity = flr_get64(blob + 32), .deleted = flr_get64(blob + 40)};
    uint64_t rate = flr_get64(blob + 24);
    memcpy(&p.error_rate, &rate, 8);
    int ok = p.kind == kind && flr_get32(blob + 20) == 0 && p.capacity > 0;
    if (kind == FLR_INPLACE_BF)
        ok = ok && p.error_rate > 0 && p.error_rate < 1 && !p.bucket_size && !p.max_iterations;
    else
        ok = ok && p.error_rate == 0 && p.bucket_size >= 1 && p.bucket_size <= 255 &&
             p.max_iterations >= 1 && p.max_iterations <= 65535;
    if (!ok) return FL_ERR_CORRUPT;
    flr_inplace *ip = calloc(1, sizeof *ip);
    if (!ip) return FL_ERR_NO_MEMORY;
    *ip = p;
    fl_status st = fl_gcf_load_mem(blob + FLR_INPLACE_HEADER, len - FLR_INPLACE_HEADER,
                                   (size_t)load_max, &ip->g);
    if (st != FL_OK) {
        free(ip);
        return st;
    }
    *out = ip;
    return FL_OK;
}
