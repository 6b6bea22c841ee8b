/* SCANDUMP/LOADCHUNK chunk encoding and reassembly (format in chunk.h). */
#include "chunk.h"

#include <stdlib.h>
#include <string.h>
#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t on the stack */
#include <xxhash.h>

#include "le.h"

static const uint8_t MAGIC[4] = {'F', 'L', 'R', 'C'};
#define CHUNK_VERSION 1u

uint64_t flr_blob_hash(const void *blob, size_t len) { return XXH3_64bits(blob, len); }

/* The blob's hash from the bytes received so far and the last piece (checked before the
 * piece is copied, so a failing last chunk leaves the load as it was). */
static uint64_t flr_blob_hash_parts(const void *head, size_t head_len, const void *tail,
                                    size_t tail_len) {
    XXH3_state_t st;
    XXH3_64bits_reset(&st);
    XXH3_64bits_update(&st, head, head_len);
    XXH3_64bits_update(&st, tail, tail_len);
    return XXH3_64bits_digest(&st);
}

/* The chunk's own hash covers its header up to the hash field and the piece. */
static uint64_t chunk_hash(const uint8_t *header, const uint8_t *piece, size_t len) {
    XXH3_state_t st;
    XXH3_64bits_reset(&st);
    XXH3_64bits_update(&st, header, 40);
    XXH3_64bits_update(&st, piece, len);
    return XXH3_64bits_digest(&st);
}

int flr_chunk_encode(flr_chunk_kind kind, const uint8_t *blob, uint64_t total,
                     uint64_t blob_hash, uint64_t index, uint8_t *out, size_t *out_len) {
    if (index >= (total + FLR_CHUNK_PIECE_MAX - 1) / FLR_CHUNK_PIECE_MAX) return 0;
    uint64_t offset = index * FLR_CHUNK_PIECE_MAX;
    uint32_t len = (uint32_t)(total - offset < FLR_CHUNK_PIECE_MAX ? total - offset
                                                                    : FLR_CHUNK_PIECE_MAX);
    memcpy(out, MAGIC, 4);
    flr_put16(out + 4, CHUNK_VERSION);
    flr_put16(out + 6, (uint16_t)kind);
    flr_put64(out + 8, total);
    flr_put64(out + 16, offset);
    flr_put32(out + 24, len);
    flr_put32(out + 28, 0);
    flr_put64(out + 32, blob_hash);
    memcpy(out + FLR_CHUNK_HEADER, blob + offset, len);
    flr_put64(out + 40, chunk_hash(out, out + FLR_CHUNK_HEADER, len));
    *out_len = FLR_CHUNK_HEADER + len;
    return 1;
}

const char *flr_chunk_error(flr_chunk_result r) {
    switch (r) {
    case FLR_CHUNK_BAD_FORMAT: return "ERR invalid chunk: not a filterlab SCANDUMP chunk";
    case FLR_CHUNK_BAD_KIND: return "ERR invalid chunk: it belongs to another structure";
    case FLR_CHUNK_BAD_CHECKSUM: return "ERR invalid chunk: checksum mismatch";
    case FLR_CHUNK_OUT_OF_ORDER:
        return "ERR invalid chunk: out of order (chunks must be loaded in SCANDUMP order, "
               "starting with the first)";
    case FLR_CHUNK_BAD_BLOB: return "ERR invalid chunk: the reassembled dump fails its checksum";
    case FLR_CHUNK_TOO_LARGE: return "ERR invalid chunk: dump too large";
    case FLR_CHUNK_NO_MEMORY: return "ERR out of memory while loading chunks";
    default: return "ERR invalid chunk";
    }
}

void flr_assembly_reset(flr_assembly *a) {
    free(a->buf);
    memset(a, 0, sizeof *a);
}

flr_chunk_result flr_assembly_feed(flr_assembly *a, flr_chunk_kind kind, const uint8_t *chunk,
                                   size_t len) {
    if (len < FLR_CHUNK_HEADER || memcmp(chunk, MAGIC, 4) != 0 ||
        flr_get16(chunk + 4) != CHUNK_VERSION || flr_get32(chunk + 28) != 0)
        return FLR_CHUNK_BAD_FORMAT;
    uint64_t total = flr_get64(chunk + 8), offset = flr_get64(chunk + 16);
    uint32_t piece = flr_get32(chunk + 24);
    uint64_t blob_hash = flr_get64(chunk + 32);
    if ((size_t)piece != len - FLR_CHUNK_HEADER || piece == 0 || offset > total ||
        piece > total - offset)
        return FLR_CHUNK_BAD_FORMAT;
    if (chunk_hash(chunk, chunk + FLR_CHUNK_HEADER, piece) != flr_get64(chunk + 40))
        return FLR_CHUNK_BAD_CHECKSUM;
    if (flr_get16(chunk + 6) != (uint16_t)kind) return FLR_CHUNK_BAD_KIND;
    if (total > FLR_BLOB_MAX) return FLR_CHUNK_TOO_LARGE;

    if (offset == 0) {
        /* A new load: its buffer grows as pieces arrive (a first chunk announcing a huge
         * total allocates no more than it carries). */
        uint8_t *buf = malloc(piece);
        if (!buf) return FLR_CHUNK_NO_MEMORY;
        memcpy(buf, chunk + FLR_CHUNK_HEADER, piece);
        if (piece == total && flr_blob_hash(buf, piece) != blob_hash) {
            free(buf);
            return FLR_CHUNK_BAD_BLOB;
        }
        flr_assembly_reset(a);
        *a = (flr_assembly){.kind = kind, .total = total, .received = piece,
                            .blob_hash = blob_hash, .buf = buf, .cap = piece};
        return piece == total ? FLR_CHUNK_COMPLETE : FLR_CHUNK_MORE;
    }
    if (a->buf == NULL || a->kind != kind || offset != a->received || total != a->total ||
        blob_hash != a->blob_hash || a->received == a->total)
        return FLR_CHUNK_OUT_OF_ORDER;
    uint64_t end = offset + piece;
    if (end == total && flr_blob_hash_parts(a->buf, a->received, chunk + FLR_CHUNK_HEADER,
                                            piece) != blob_hash)
        return FLR_CHUNK_BAD_BLOB;
    if (end > a->cap) {
        size_t cap = a->cap * 2 > end ? a->cap * 2 : (size_t)end;
        if (cap > total) cap = (size_t)total;
        uint8_t *buf = realloc(a->buf, cap);
        if (!buf) return FLR_CHUNK_NO_MEMORY;
        a->buf = buf;
        a->cap = cap;
    }
    memcpy(a->buf + offset, chunk + FLR_CHUNK_HEADER, piece);
    a->received = end;
    return end == total ? FLR_CHUNK_COMPLETE : FLR_CHUNK_MORE;
}
