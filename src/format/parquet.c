/*
 * Apache Parquet split block Bloom filters (parquet-format BloomFilter.md, parquet.thrift).
 *
 * On disk a Parquet Bloom filter is a Thrift compact-protocol BloomFilterHeader followed by
 * the bitset:
 *
 *   struct BloomFilterHeader {
 *     1: required i32 numBytes;                        // bitset size, a multiple of 32
 *     2: required BloomFilterAlgorithm algorithm;      // union { 1: SplitBlockAlgorithm BLOCK }
 *     3: required BloomFilterHash hash;                // union { 1: XxHash XXHASH }
 *     4: required BloomFilterCompression compression;  // union { 1: Uncompressed UNCOMPRESSED }
 *   }
 *
 * where the union members are empty structs. The bitset is numBytes/32 blocks of eight
 * little-endian 32-bit words, which is byte for byte our split256 payload (kernels/probe.h
 * implements the spec's block index and salts), so import and export copy it unchanged.
 *
 * Hashing: Parquet readers hash a value with XXH64, seed 0 (over the plain encoding; for a
 * BYTE_ARRAY, its bytes). A split256 filter built with XXH3 or another seed would export fine
 * bit for bit, yet every reader would probe other blocks and bits and miss its keys, so
 * export requires hash == FL_HASH_XXH64 and seed == 0 and returns FL_ERR_INCOMPATIBLE
 * otherwise. Imports are always XXH64 seed 0.
 *
 * The Thrift compact reader below (thrift doc/specs/thrift-compact-protocol.md) is strict and
 * bounds-checked: varints longer than their type allows or with bits beyond its width are
 * malformed, unknown fields of any type are skipped (Thrift's forward compatibility) with a
 * nesting depth limit, and running out of input is told apart from malformed input.
 *
 * Import decision: if the Thrift parse yields a complete BloomFilterHeader (every required
 * field present with its declared type), the buffer is a header plus bitset, and a header the
 * spec does not define for us (numBytes <= 0 or not a multiple of 32, another algorithm,
 * hash or compression) is FL_ERR_BAD_PARQUET, a short bitset FL_ERR_TRUNCATED and extra
 * bytes FL_ERR_TRAILING_DATA. Otherwise a buffer whose length is a nonzero multiple of 32 is
 * a bare bitset (its bytes are arbitrary, so they may look like anything); any other buffer
 * is FL_ERR_TRUNCATED if the parse ran out of bytes (an empty buffer included) or
 * FL_ERR_BAD_PARQUET if it was malformed.
 */
#include <string.h>

#include "core/internal.h"

#define PQ_BLOCK 32u
#define PQ_MAX_DEPTH 32 /* nested structs/containers while skipping unknown fields */

/* Compact protocol type ids. */
enum {
    CT_STOP = 0,
    CT_TRUE = 1,
    CT_FALSE = 2,
    CT_I8 = 3,
    CT_I16 = 4,
    CT_I32 = 5,
    CT_I64 = 6,
    CT_DOUBLE = 7,
    CT_BINARY = 8,
    CT_LIST = 9,
    CT_SET = 10,
    CT_MAP = 11,
    CT_STRUCT = 12,
    CT_UUID = 13,
};

/* ---- reader --------------------------------------------------------------------------- */
typedef struct tc_reader {
    const uint8_t *p, *end;
} tc_reader;

static fl_status rd_byte(tc_reader *r, uint8_t *b) {
    if (r->p == r->end) return FL_ERR_TRUNCATED;
    *b = *r->p++;
    return FL_OK;
}

static fl_status rd_skip(tc_reader *r, uint64_t n) {
    if ((uint64_t)(r->end - r->p) < n) return FL_ERR_TRUNCATED;
    r->p += n;
    return FL_OK;
}

/* Unsigned LEB128 of at most `bits` bits: at most ceil(bits/7) bytes, and the last byte may
 * not carry bits beyond the width (e.g. an i32's fifth byte holds 4 bits). */
static fl_status rd_varint(tc_reader *r, unsigned bits, uint64_t *out) {
    unsigned max_bytes = (bits + 6) / 7;
    uint64_t v = 0;
    for (unsigned i = 0; i < max_bytes; i++) {
        uint8_t b;
        fl_status st = rd_byte(r, &b);
        if (st != FL_OK) return st;
        unsigned shift = 7 * i;
        uint64_t chunk = b & 0x7f;
        if (bits - shift < 7 && (chunk >> (bits - shift)) != 0) return FL_ERR_BAD_PARQUET;
        v |= chunk << shift;
        if (!(b & 0x80)) {
            *out = v;
            return FL_OK;
        }
    }
    return FL_ERR_BAD_PARQUET; /* continuation bit on the last allowed byte */
}

static int64_t unzigzag(uint64_t z) {
    return (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
}

static fl_status rd_i32(tc_reader *r, int32_t *out) {
    uint64_t z;
    fl_status st = rd_varint(r, 32, &z);
    if (st == FL_OK) *out = (int32_t)unzigzag(z);
    return st;
}

/* A container size: a var int that must be a non-negative int32. */
static fl_status rd_size(tc_reader *r, uint64_t *n) {
    fl_status st = rd_varint(r, 32, n);
    if (st == FL_OK && *n > INT32_MAX) return FL_ERR_BAD_PARQUET;
    return st;
}

/* Field header: *type = CT_STOP at the end of a struct. A short form adds a delta of 1..15 to
 * the previous field id; the long form (delta 0) carries the id as a zigzag i16. */
static fl_status rd_field(tc_reader *r, int32_t *last_id, int *type, int32_t *id) {
    uint8_t b;
    fl_status st = rd_byte(r, &b);
    if (st != FL_OK) return st;
    if (b == 0) {
        *type = CT_STOP;
        return FL_OK;
    }
    *type = b & 0x0f;
    if (*type < CT_TRUE || *type > CT_UUID) return FL_ERR_BAD_PARQUET;
    unsigned delta = b >> 4;
    if (delta) {
        *id = *last_id + (int32_t)delta;
        if (*id > INT16_MAX) return FL_ERR_BAD_PARQUET;
    } else {
        uint64_t z;
        st = rd_varint(r, 16, &z);
        if (st != FL_OK) return st;
        *id = (int32_t)unzigzag(z);
    }
    *last_id = *id;
    return FL_OK;
}

static int is_elem_type(int t) {
    /* Element types are 2..13; Java writers use 1 for bool elements, so accept it too. */
    return t >= CT_TRUE && t <= CT_UUID;
}

static fl_status skip_struct(tc_reader *r, int depth);

/* Skips one value. In a struct a bool lives in the field type; as a container element it is
 * one byte (1 or 0 per the spec; 2 for false by older Java writers). */
static fl_status skip_value(tc_reader *r, int type, int depth, int element) {
    uint64_t v, n;
    uint8_t b;
    fl_status st;
    switch (type) {
    case CT_TRUE:
    case CT_FALSE:
        if (!element) return FL_OK;
        st = rd_byte(r, &b);
        if (st == FL_OK && b > 2) return FL_ERR_BAD_PARQUET;
        return st;
    case CT_I8: return rd_skip(r, 1);
    case CT_I16: return rd_varint(r, 16, &v);
    case CT_I32: return rd_varint(r, 32, &v);
    case CT_I64: return rd_varint(r, 64, &v);
    case CT_DOUBLE: return rd_skip(r, 8);
    case CT_UUID: return rd_skip(r, 16);
    case CT_BINARY:
        st = rd_size(r, &n);
        return st == FL_OK ? rd_skip(r, n) : st;
    case CT_LIST:
    case CT_SET: {
        if (depth >= PQ_MAX_DEPTH) return FL_ERR_BAD_PARQUET;
        if ((st = rd_byte(r, &b)) != FL_OK) return st;
        int et = b & 0x0f;
        n = b >> 4;
        if (!is_elem_type(et)) return FL_ERR_BAD_PARQUET;
        if (n == 15 && (st = rd_size(r, &n)) != FL_OK) return st;
        /* Each element takes at least one byte, so a huge count ends at the input's end. */
        for (uint64_t i = 0; i < n; i++)
            if ((st = skip_value(r, et, depth + 1, 1)) != FL_OK) return st;
        return FL_OK;
    }
    case CT_MAP: {
        if (depth >= PQ_MAX_DEPTH) return FL_ERR_BAD_PARQUET;
        if ((st = rd_size(r, &n)) != FL_OK) return st;
        if (n == 0) return FL_OK;
        if ((st = rd_byte(r, &b)) != FL_OK) return st;
        int kt = b >> 4, vt = b & 0x0f;
        if (!is_elem_type(kt) || !is_elem_type(vt)) return FL_ERR_BAD_PARQUET;
        for (uint64_t i = 0; i < n; i++) {
            if ((st = skip_value(r, kt, depth + 1, 1)) != FL_OK) return st;
            if ((st = skip_value(r, vt, depth + 1, 1)) != FL_OK) return st;
        }
        return FL_OK;
    }
    case CT_STRUCT: return skip_struct(r, depth + 1);
    default: return FL_ERR_BAD_PARQUET;
    }
}

/* A union (encoded as a struct with at most one field): reports how many fields it had and
 * the id and type of the first. The members we know are empty structs, but their contents
 * are skipped rather than required empty, as a newer writer may add optional fields. */
typedef struct tc_union {
    int fields;
    int32_t id;
    int type;
} tc_union;

/* The fields of a struct at depth, each skipped; with u, also what a union needs (how many
 * fields, the id and type of the first). */
static fl_status walk_struct(tc_reader *r, int depth, tc_union *u) {
    if (u) memset(u, 0, sizeof *u);
    if (depth > PQ_MAX_DEPTH) return FL_ERR_BAD_PARQUET;
    int32_t last = 0, id;
    for (;;) {
        int type;
        fl_status st = rd_field(r, &last, &type, &id);
        if (st != FL_OK) return st;
        if (type == CT_STOP) return FL_OK;
        if (u && u->fields++ == 0) {
            u->id = id;
            u->type = type;
        }
        if ((st = skip_value(r, type, depth, 0)) != FL_OK) return st;
    }
}

static fl_status skip_struct(tc_reader *r, int depth) {
    return walk_struct(r, depth, NULL);
}

/* A union's members are one level below it. */
static fl_status rd_union(tc_reader *r, int depth, tc_union *u) {
    return walk_struct(r, depth + 1, u);
}

typedef struct pq_header {
    int32_t num_bytes;
    tc_union algorithm, hash, compression;
} pq_header;

/* Parses a BloomFilterHeader; FL_OK only if it is complete: all four required fields, each
 * once and with its declared type. *used is the header's length. */
static fl_status rd_header(const uint8_t *buf, size_t len, pq_header *h, size_t *used) {
    tc_reader r = {buf, buf + len};
    unsigned seen = 0;
    int32_t last = 0, id;
    memset(h, 0, sizeof *h);
    for (;;) {
        int type;
        fl_status st = rd_field(&r, &last, &type, &id);
        if (st != FL_OK) return st;
        if (type == CT_STOP) break;
        if (id >= 1 && id <= 4) {
            if (seen & (1u << id)) return FL_ERR_BAD_PARQUET; /* duplicate field */
            seen |= 1u << id;
            if (type != (id == 1 ? CT_I32 : CT_STRUCT)) return FL_ERR_BAD_PARQUET;
        }
        switch (id) {
        case 1: st = rd_i32(&r, &h->num_bytes); break;
        case 2: st = rd_union(&r, 1, &h->algorithm); break;
        case 3: st = rd_union(&r, 1, &h->hash); break;
        case 4: st = rd_union(&r, 1, &h->compression); break;
        default: st = skip_value(&r, type, 1, 0); break;
        }
        if (st != FL_OK) return st;
    }
    if (seen != 0x1e) return FL_ERR_BAD_PARQUET; /* a required field is missing */
    *used = (size_t)(r.p - buf);
    return FL_OK;
}

/* The spec defines one member of each union: field 1, an (empty) struct. */
static int is_member_one(const tc_union *u) {
    return u->fields == 1 && u->id == 1 && u->type == CT_STRUCT;
}

/* ---- writer --------------------------------------------------------------------------- */
static size_t wr_varint(uint8_t *p, uint64_t v) {
    size_t n = 0;
    do {
        uint8_t b = v & 0x7f;
        v >>= 7;
        if (p) p[n] = (uint8_t)(b | (v ? 0x80 : 0));
        n++;
    } while (v);
    return n;
}

/* Writes the header for a bitset of num_bytes (p may be NULL to measure). Short-form field
 * headers throughout: the ids ascend by 1. */
static size_t wr_header(uint8_t *p, int32_t num_bytes) {
    size_t n = 0;
#define PUT(b)                               \
    do {                                     \
        if (p) p[n] = (uint8_t)(b);          \
        n++;                                 \
    } while (0)
    PUT(0x10 | CT_I32); /* 1: numBytes */
    uint32_t z = ((uint32_t)num_bytes << 1) ^ (uint32_t)(num_bytes >> 31);
    n += wr_varint(p ? p + n : NULL, z);
    for (int field = 2; field <= 4; field++) {
        PUT(0x10 | CT_STRUCT); /* 2: algorithm, 3: hash, 4: compression (unions) */
        PUT(0x10 | CT_STRUCT); /* member 1: BLOCK / XXHASH / UNCOMPRESSED (empty struct) */
        PUT(CT_STOP);          /* end of the empty member */
        PUT(CT_STOP);          /* end of the union */
    }
    PUT(CT_STOP);
#undef PUT
    return n;
}

/* ---- public API ----------------------------------------------------------------------- */
static fl_status new_split256(const uint8_t *bits, size_t bytes, size_t max_bytes,
                              fl_filter **out) {
    if (max_bytes && bytes > max_bytes) return FL_ERR_TOO_LARGE;
    if (bytes / PQ_BLOCK > FL_UNITS_MAX) return FL_ERR_TOO_LARGE;
    fl_geometry g = {FL_SPLIT256, bytes / PQ_BLOCK, 8};
    fl_filter *f = NULL;
    fl_status st = fl_filter_new(&g, FL_HASH_XXH64, 0, 0, &f);
    if (st != FL_OK) return st;
    memcpy(f->data, bits, bytes);
    f->keys = 0; /* unknown: Parquet does not record it */
    *out = f;
    return FL_OK;
}

fl_status fl_parquet_import(const void *buf, size_t len, size_t max_bytes, fl_filter **out) {
    if (out) *out = NULL;
    if (!buf || !out) return FL_ERR_INVALID_ARG;
    const uint8_t *p = (const uint8_t *)buf;
    pq_header h;
    size_t used = 0;
    fl_status st = rd_header(p, len, &h, &used);
    if (st != FL_OK) {
        if (len > 0 && len % PQ_BLOCK == 0) return new_split256(p, len, max_bytes, out);
        return st;
    }
    if (h.num_bytes <= 0 || (uint32_t)h.num_bytes % PQ_BLOCK != 0) return FL_ERR_BAD_PARQUET;
    if (!is_member_one(&h.algorithm) || !is_member_one(&h.hash) ||
        !is_member_one(&h.compression))
        return FL_ERR_BAD_PARQUET;
    size_t bytes = (size_t)h.num_bytes;
    if (max_bytes && bytes > max_bytes) return FL_ERR_TOO_LARGE;
    size_t rest = len - used;
    if (rest < bytes) return FL_ERR_TRUNCATED;
    if (rest > bytes) return FL_ERR_TRAILING_DATA;
    return new_split256(p + used, bytes, max_bytes, out);
}

static fl_status export_check(const fl_filter *f, int with_header) {
    if (!f) return FL_ERR_INVALID_ARG;
    if (!(f->desc->info.caps & FL_CAP_PARQUET)) return FL_ERR_UNSUPPORTED;
    if (f->hash != FL_HASH_XXH64 || f->seed != 0) return FL_ERR_INCOMPATIBLE;
    if (with_header && f->bytes > INT32_MAX) return FL_ERR_TOO_LARGE; /* numBytes is i32 */
    return FL_OK;
}

size_t fl_parquet_export_size(const fl_filter *f, int with_header) {
    if (export_check(f, with_header) != FL_OK) return 0;
    size_t head = with_header ? wr_header(NULL, (int32_t)f->bytes) : 0;
    if (f->bytes > SIZE_MAX - head) return 0;
    return head + f->bytes;
}

fl_status fl_parquet_export(const fl_filter *f, int with_header, void *buf, size_t cap,
                            size_t *written) {
    if (written) *written = 0;
    fl_status st = export_check(f, with_header);
    if (st != FL_OK) return st;
    if (!buf) return FL_ERR_INVALID_ARG;
    size_t need = fl_parquet_export_size(f, with_header);
    if (need == 0) return FL_ERR_TOO_LARGE;
    if (cap < need) return FL_ERR_BUFFER_TOO_SMALL;
    uint8_t *p = (uint8_t *)buf;
    size_t head = with_header ? wr_header(p, (int32_t)f->bytes) : 0;
    memcpy(p + head, f->data, f->bytes);
    if (written) *written = need;
    return FL_OK;
}
