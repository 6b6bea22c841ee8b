/*
 * The filterlab file container (format version 2), internal to the library: the generic
 * layer that every structure kind's codec (src/codec_<kind>.c) writes and reads through.
 * The byte layout is documented at the top of src/format/container.c.
 *
 * A codec never touches offsets, padding or checksums: it appends sections (tag + bytes) to
 * a writer, and asks a reader for a validated, checksummed view of a section by index or
 * tag. Inputs and outputs are streams (fl_in, fl_sink) so that a file and a memory buffer
 * take the same code path and a large payload is copied exactly once.
 */
#ifndef FL_CONTAINER_H
#define FL_CONTAINER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "filterlab.h"

#pragma GCC visibility push(hidden)

/* Every filterlab file, of any version, starts with these 8 bytes and a u16 version. */
#define FL_MAGIC_LEN 8u
extern const uint8_t fl_file_magic[FL_MAGIC_LEN];

/* ---- structure kinds ------------------------------------------------------------------ */
/* What a v2 file holds: the public file kinds (FL_FILE_KINDS, include/filterlab_files.h),
 * the one list of kinds and their numbers; FL_KIND_<ID> is FL_FILE_<ID>. Each kind has its
 * codec in its structure's folder (src/<structure>/codec_<kind>.c) with its own section
 * tags, and public load calls that return that structure and refuse other kinds with
 * FL_ERR_WRONG_KIND, as fl_load_mem does for everything but FL_KIND_FILTER. */
typedef enum fl_kind {
#define FL_KIND_FROM_FILE_(id, value, what) FL_KIND_##id = FL_FILE_##id,
    FL_FILE_KINDS(FL_KIND_FROM_FILE_)
#undef FL_KIND_FROM_FILE_
} fl_kind;

/* Section tags are four ASCII characters read as a little-endian u32, so a hex dump shows
 * them; their meaning belongs to the kind's codec. */
#define FL_CT_TAG(a, b, c, d) \
    ((uint32_t)(a) | ((uint32_t)(b) << 8) | ((uint32_t)(c) << 16) | ((uint32_t)(d) << 24))

/* Most sections one file may hold. It bounds the table a reader buffers (24 bytes an entry)
 * before the table's checksum can be verified; raising it later is compatible (older
 * readers refuse the larger tables as FL_ERR_CORRUPT). */
#define FL_CT_SECTIONS_MAX 256u
#define FL_CT_ALIGN 64u /* every section starts at a multiple of this file offset */

/* ---- little-endian fields, encoded byte by byte --------------------------------------- */
static inline void fl_put16(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static inline void fl_put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline void fl_put64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline uint16_t fl_get16(const uint8_t *p) {
    return (uint16_t)(p[0] | (p[1] << 8));
}
static inline uint32_t fl_get32(const uint8_t *p) {
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}
static inline uint64_t fl_get64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}
/* A double stored as its IEEE 754 bit pattern (then fl_put64/fl_get64: little-endian). */
static inline uint64_t fl_double_bits(double d) {
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}
static inline double fl_bits_double(uint64_t u) {
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* ---- input: a memory buffer or a stream, read front to back --------------------------- */
/* Reads up to n bytes into buf; *got < n only at the end of the input. 0, or -1 with errno
 * set on an I/O error. */
typedef int (*fl_read_fn)(void *ctx, void *buf, size_t n, size_t *got);

#define FL_IN_SIZE_UNKNOWN UINT64_MAX

typedef struct fl_in {
    const uint8_t *p;  /* the prefix [0, avail) of the input, readable */
    size_t avail;
    uint64_t pos;      /* offset of the next byte fl_in_read hands out */
    uint64_t size;     /* whole input length, or FL_IN_SIZE_UNKNOWN (a pipe) */
    /* stream inputs only */
    fl_read_fn read;
    void *ctx;
    uint8_t *owned;    /* the buffer behind p */
    size_t cap;
} fl_in;

void fl_in_mem(fl_in *in, const void *buf, size_t len);
void fl_in_stream(fl_in *in, fl_read_fn read, void *ctx, uint64_t size);
void fl_in_release(fl_in *in);
/* Makes [0, n) readable at in->p and moves the read position to n (n never below it).
 * FL_ERR_TRUNCATED if the input ends first: in->avail then says how much there is, so a
 * caller can still judge the bytes it got. */
fl_status fl_in_need(fl_in *in, size_t n);
/* Copies the next n bytes to dst (for a stream, straight from the reads: the one copy of a
 * payload). FL_ERR_TRUNCATED if the input ends first. */
fl_status fl_in_read(fl_in *in, void *dst, size_t n);
/* Whether the input is exactly `total` bytes long, judged from its known size: TRUNCATED,
 * TRAILING_DATA or OK (always OK when the size is unknown; fl_in_end decides then). */
fl_status fl_in_check_size(const fl_in *in, uint64_t total);
/* After the last expected byte: FL_ERR_TRAILING_DATA if any byte follows. */
fl_status fl_in_end(fl_in *in);

/* ---- output ---------------------------------------------------------------------------- */
/* reserve: where the next bytes go and how many of the n asked fit there (at least 1), or
 * NULL (errno set). commit: those bytes are final; 0, or -1 with errno set. A memory sink
 * reserves the output buffer itself, a file sink a bounce buffer it then writes. */
typedef struct fl_sink {
    uint8_t *(*reserve)(void *ctx, size_t n, size_t *fit);
    int (*commit)(void *ctx, size_t n);
    void *ctx;
} fl_sink;

/* A sink over buf, which must hold the whole output (fl_ct_size). */
typedef struct fl_mem_sink {
    uint8_t *buf;
    size_t cap, pos;
} fl_mem_sink;
fl_sink fl_mem_sink_init(fl_mem_sink *m, void *buf, size_t cap);

/* ---- writer ---------------------------------------------------------------------------- */
typedef struct fl_ct_writer {
    fl_sink *sink;
    uint32_t count, next;          /* sections announced, sections written */
    uint64_t pos;                  /* bytes written */
    uint64_t length[FL_CT_SECTIONS_MAX];
} fl_ct_writer;

/* Bytes of a container holding `count` sections of these lengths; 0 if it overflows
 * size_t or count is 0 or above FL_CT_SECTIONS_MAX. */
size_t fl_ct_size(uint32_t count, const uint64_t *lengths);
/* Writes the preamble and the section table: the tags and lengths of every section, in
 * file order, are fixed up front so that a reader can validate the layout before it reads
 * a section. FL_ERR_INVALID_ARG for a bad count; FL_ERR_IO (errno set) from the sink. */
fl_status fl_ct_write_begin(fl_ct_writer *w, fl_sink *sink, fl_kind kind, uint32_t count,
                            const uint32_t *tags, const uint64_t *lengths);
/* Writes the next section: its bytes (exactly the announced length; copied once, and the
 * checksum computed over the copy, so a payload that changes under a concurrent atomic
 * insert still agrees with its checksum), its checksum and the padding that follows. */
fl_status fl_ct_write_section(fl_ct_writer *w, const void *bytes, size_t len);
/* FL_OK once every announced section has been written. */
fl_status fl_ct_write_end(const fl_ct_writer *w);

/* ---- reader ---------------------------------------------------------------------------- */
typedef struct fl_ct_section {
    uint32_t index, tag;
    uint64_t offset, length;
} fl_ct_section;

typedef struct fl_ct_reader {
    fl_in *in;
    uint16_t kind;       /* not interpreted here: the caller picks the codec */
    uint32_t count;
    uint64_t table_end;  /* end of the table checksum */
    uint64_t end;        /* the container's total length, as the table lays it out */
} fl_ct_reader;

/* Validates the preamble and the section table of a version-2 input (magic and version
 * are the caller's: it picked this reader from them), in this order: preamble length
 * (TRUNCATED), preamble checksum (CHECKSUM), section count (CORRUPT), table length
 * (TRUNCATED), table checksum (CHECKSUM), each entry: nonzero tag, zero flags, offset where
 * the layout puts it (an overlap, a gap or a range past 2^64 is CORRUPT). Reads nothing
 * past the table. */
fl_status fl_ct_open(fl_ct_reader *r, fl_in *in);
/* The i-th section (i < r->count) as the table describes it. */
fl_ct_section fl_ct_section_at(const fl_ct_reader *r, uint32_t i);
/* The number of sections tagged `tag`; *s is the first one if any. */
uint32_t fl_ct_find(const fl_ct_reader *r, uint32_t tag, fl_ct_section *s);
/* The layout of a container with a fixed-size head, a body and one optional section (a
 * filter's HEAD, STSH, DATA; a Count-Min sketch's HEAD, TOPK, CNTR), checked before any
 * section is read: the head (head_len bytes) first, the body last, at most one optional
 * section, nonempty when present, and no other tag; CORRUPT otherwise. An absent optional
 * section is given length 0. */
fl_status fl_ct_layout(const fl_ct_reader *r, uint32_t head_tag, uint64_t head_len,
                       uint32_t opt_tag, uint32_t body_tag, fl_ct_section *head,
                       fl_ct_section *opt, fl_ct_section *body);
/* A view of a section's bytes, valid until the next call on the same input: the padding
 * before it must be zero (CORRUPT), its bytes and checksum present (TRUNCATED) and the
 * checksum right (CHECKSUM). Sections must be visited in file order. */
fl_status fl_ct_view(fl_ct_reader *r, const fl_ct_section *s, const uint8_t **bytes);
/* Like fl_ct_view but copies the bytes to dst (s->length bytes) without buffering them:
 * for the payload, read once, straight into the structure. */
fl_status fl_ct_read(fl_ct_reader *r, const fl_ct_section *s, void *dst);

#pragma GCC visibility pop

#endif /* FL_CONTAINER_H */
