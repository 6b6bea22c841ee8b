/*
 * The zstd chunk coder (RFC 8878, Debian's libzstd): one frame per chunk, level 19, its
 * content size in the frame header so a decoder checks it before decompressing.
 */
#include <zstd.h>

#include "compressed/compressed_internal.h"

/* zstd's strongest non-"ultra" level: chunks are small, so its time stays modest. */
#define ZSTD_LEVEL 19

static size_t zstd_bound(size_t len) {
    return ZSTD_compressBound(len);
}

static size_t zstd_encode(const uint8_t *src, size_t len, uint8_t *dst, size_t cap) {
    size_t n = ZSTD_compress(dst, cap, src, len, ZSTD_LEVEL);
    return ZSTD_isError(n) ? 0 : n;
}

/* One frame exactly n bytes long, announcing len bytes, and decoding to len bytes. */
static fl_status zstd_decode(const uint8_t *src, size_t n, uint8_t *dst, size_t len) {
    unsigned long long size = ZSTD_getFrameContentSize(src, n);
    if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN || size != len)
        return FL_ERR_CORRUPT;
    if (ZSTD_findFrameCompressedSize(src, n) != n) return FL_ERR_CORRUPT;
    size_t got = ZSTD_decompress(dst, len, src, n);
    if (ZSTD_isError(got) || got != len) return FL_ERR_CORRUPT;
    return FL_OK;
}

const fl_chunk_coder fl_coder_zstd = {zstd_bound, zstd_encode, zstd_decode};
