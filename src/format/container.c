/*
 * The filterlab file container, format version 2: one structure of some kind, stored as
 * a list of tagged sections, each with its own checksum.
 *
 * Byte layout (every integer little-endian, encoded byte by byte so the layout never
 * depends on a compiler's struct padding or the host's byte order):
 *
 *   offset     size    field
 *   ---------  ------  --------------------------------------------------------------------
 *          0       8   magic: 'F' 'L' 'T' 'R' 'L' 'A' 'B' 0x1A (the same as version 1)
 *          8       2   u16 format version = 2
 *         10       2   u16 structure kind (fl_kind in container.h; 1 = filter)
 *         12       4   u32 section count S, 1..FL_CT_SECTIONS_MAX
 *         16       8   u64 XXH3_64bits of bytes [0, 16): the preamble checksum
 *         24    24 S   section table, one 24-byte entry per section, in file order:
 *                        u32 tag (four ASCII characters; the kind's codec gives it meaning)
 *                        u32 flags: reserved, must be 0
 *                        u64 offset of the section's first byte in the file
 *                        u64 length of the section in bytes (its checksum excluded)
 *   24 + 24 S      8   u64 XXH3_64bits of the entries [24, 24 + 24 S): the table checksum
 *   then, for each section i in table order:
 *   zero bytes up to the section's offset, the first multiple of 64 at or after the end
 *   of what precedes it (the table checksum for the first section, the previous section's
 *   checksum otherwise);
 *   offset_i  length_i the section's bytes
 *   offset_i + length_i
 *                  8   u64 XXH3_64bits of the section's bytes
 *
 * The file ends right after the last section's checksum.
 *
 * Why this shape:
 * - The preamble has its own checksum so that a flipped section count is caught before it
 *   decides how much table to read; the table has its own so that a flipped length or
 *   offset is caught before it misdirects the parse. Every byte is thus covered by a
 *   checksum, except the magic and version (checked first, each with its own status) and
 *   the zero padding (checked to be zero: CORRUPT).
 * - Each section's checksum follows its bytes rather than sitting in the table, so a
 *   writer can stream a file front to back in one pass (to a pipe, or while atomic inserts
 *   set bits in the payload: the checksum is computed over the bytes as written), and a
 *   reader can check a small section (a header) before it trusts it to size a large one.
 * - Sections start at multiples of 64 so that a payload in a file mapped at a page boundary
 *   is 64-byte aligned, as kernels expect. The offsets are fixed by the lengths (the
 *   placement rule above); they are stored anyway so that a reader checks them against
 *   the rule and an overlap or a gap is refused, and every structure has one encoding.
 *
 * What a section means, which sections a kind requires, their order and lengths, are the
 * kind's codec's business (src/codec_<kind>.c). Version 1 (a fixed-header filter file) is
 * read by src/format/codec_filter_v1.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "core/internal.h"
#include "format/container.h"

#define CT_VERSION 2u
#define CT_PREAMBLE 24u  /* magic, version, kind, count, preamble checksum */
#define CT_PSUM_AT 16u
#define CT_ENTRY 24u
#define CT_SUM 8u

const uint8_t fl_file_magic[FL_MAGIC_LEN] = {'F', 'L', 'T', 'R', 'L', 'A', 'B', 0x1A};

static const uint8_t zeros[FL_CT_ALIGN];

/* The first multiple of FL_CT_ALIGN at or after x; x is at most 2^63 here (callers keep
 * offsets below that), so it cannot wrap. */
static uint64_t align_up(uint64_t x) {
    return (x + (FL_CT_ALIGN - 1)) & ~(uint64_t)(FL_CT_ALIGN - 1);
}

/* Offsets are kept below 2^62 so that align_up and offset + length + CT_SUM never wrap. */
#define CT_OFFSET_LIMIT ((uint64_t)1 << 62)

static uint64_t table_end(uint32_t count) {
    return CT_PREAMBLE + (uint64_t)CT_ENTRY * count + CT_SUM;
}

/* ==== input ============================================================================ */

void fl_in_mem(fl_in *in, const void *buf, size_t len) {
    memset(in, 0, sizeof *in);
    in->p = (const uint8_t *)buf;
    in->avail = len;
    in->size = len;
}

void fl_in_stream(fl_in *in, fl_read_fn read, void *ctx, uint64_t size) {
    memset(in, 0, sizeof *in);
    in->read = read;
    in->ctx = ctx;
    in->size = size;
}

void fl_in_release(fl_in *in) {
    free(in->owned);
    in->owned = NULL;
    in->p = NULL;
    in->avail = in->cap = 0;
}

fl_status fl_in_need(fl_in *in, size_t n) {
    if (!in->read) {
        if (n > in->avail) return FL_ERR_TRUNCATED;
        in->pos = n;
        return FL_OK;
    }
    /* A stream keeps its prefix [0, avail) and has read exactly that far. */
    if (n <= in->avail) {
        in->pos = n;
        return FL_OK;
    }
    if (in->pos != in->avail) return FL_ERR_INVALID_ARG; /* a caller bug: bytes skipped */
    if (n > in->cap) {
        uint8_t *p = realloc(in->owned, n);
        if (!p) return FL_ERR_NO_MEMORY;
        in->owned = p;
        in->cap = n;
        in->p = p;
    }
    size_t got = 0;
    int rc = in->read(in->ctx, in->owned + in->avail, n - in->avail, &got);
    in->avail += got;
    in->pos = in->avail;
    if (rc != 0) return FL_ERR_IO;
    return in->avail < n ? FL_ERR_TRUNCATED : FL_OK;
}

fl_status fl_in_read(fl_in *in, void *dst, size_t n) {
    if (!in->read) {
        if (in->pos > in->size || n > in->size - in->pos) return FL_ERR_TRUNCATED;
        if (n) memcpy(dst, in->p + in->pos, n);
        in->pos += n;
        return FL_OK;
    }
    if (in->pos != in->avail) return FL_ERR_INVALID_ARG; /* reads continue where need ended */
    size_t got = 0;
    int rc = n ? in->read(in->ctx, dst, n, &got) : 0;
    in->pos += got;
    in->avail += got; /* nothing buffered: need() past this point is a caller bug */
    if (rc != 0) return FL_ERR_IO;
    return got < n ? FL_ERR_TRUNCATED : FL_OK;
}

fl_status fl_in_check_size(const fl_in *in, uint64_t total) {
    if (in->size == FL_IN_SIZE_UNKNOWN) return FL_OK;
    if (in->size < total) return FL_ERR_TRUNCATED;
    if (in->size > total) return FL_ERR_TRAILING_DATA;
    return FL_OK;
}

fl_status fl_in_end(fl_in *in) {
    if (!in->read) return in->pos < in->size ? FL_ERR_TRAILING_DATA : FL_OK;
    /* Even a regular file of known size is read one byte further: it may have grown since
     * its size was taken. */
    uint8_t extra;
    size_t got = 0;
    if (in->read(in->ctx, &extra, 1, &got) != 0) return FL_ERR_IO;
    return got ? FL_ERR_TRAILING_DATA : FL_OK;
}

/* ==== output =========================================================================== */

static uint8_t *mem_reserve(void *ctx, size_t n, size_t *fit) {
    fl_mem_sink *m = (fl_mem_sink *)ctx;
    if (n > m->cap - m->pos) {
        errno = ENOSPC;
        return NULL;
    }
    *fit = n;
    return m->buf + m->pos;
}

static int mem_commit(void *ctx, size_t n) {
    ((fl_mem_sink *)ctx)->pos += n;
    return 0;
}

fl_sink fl_mem_sink_init(fl_mem_sink *m, void *buf, size_t cap) {
    m->buf = (uint8_t *)buf;
    m->cap = cap;
    m->pos = 0;
    fl_sink s = {mem_reserve, mem_commit, m};
    return s;
}

/* Copies bytes that another thread may be OR-ing bits into (a payload under
 * fl_insert_hashes_atomic, which a save may race): relaxed atomic loads make that a defined
 * race for the C11 memory model and for TSan; on x86-64 and AArch64 an aligned relaxed load
 * is a plain load. */
static void copy_racing(uint8_t *dst, const uint8_t *src, size_t n) {
    size_t i = 0;
    for (; i < n && ((uintptr_t)(src + i) & 7); i++) dst[i] = __atomic_load_n(src + i, __ATOMIC_RELAXED);
    for (; i + 8 <= n; i += 8) {
        uint64_t w = __atomic_load_n((const uint64_t *)(const void *)(src + i), __ATOMIC_RELAXED);
        memcpy(dst + i, &w, 8);
    }
    for (; i < n; i++) dst[i] = __atomic_load_n(src + i, __ATOMIC_RELAXED);
}

/* Copies n bytes through the sink; *sum (if not NULL) is the XXH3 of the bytes as they were
 * written, computed over the copy. One pass when the sink takes everything at once (memory),
 * otherwise a streaming hash over each bounce-buffer load. */
static fl_status copy_out(fl_sink *s, const void *src, size_t n, uint64_t *sum) {
    const uint8_t *p = (const uint8_t *)src;
    size_t fit = 0;
    uint8_t *dst = n ? s->reserve(s->ctx, n, &fit) : NULL;
    if (n && !dst) return FL_ERR_IO;
    if (n == 0 || fit >= n) {
        if (n) copy_racing(dst, p, n);
        if (sum) *sum = XXH3_64bits(dst, n);
        return n == 0 || s->commit(s->ctx, n) == 0 ? FL_OK : FL_ERR_IO;
    }
    XXH3_state_t *st = sum ? XXH3_createState() : NULL;
    if (sum && (!st || XXH3_64bits_reset(st) != XXH_OK)) {
        XXH3_freeState(st);
        return FL_ERR_NO_MEMORY;
    }
    fl_status rc = FL_OK;
    while (n) {
        if (!dst) dst = s->reserve(s->ctx, n, &fit);
        if (!dst) {
            rc = FL_ERR_IO;
            break;
        }
        size_t m = fit < n ? fit : n;
        copy_racing(dst, p, m);
        if (st && XXH3_64bits_update(st, dst, m) != XXH_OK) {
            rc = FL_ERR_NO_MEMORY;
            break;
        }
        if (s->commit(s->ctx, m) != 0) {
            rc = FL_ERR_IO;
            break;
        }
        p += m;
        n -= m;
        dst = NULL;
    }
    if (rc == FL_OK && sum) *sum = XXH3_64bits_digest(st);
    XXH3_freeState(st);
    return rc;
}

static fl_status pad_to(fl_ct_writer *w, uint64_t offset) {
    while (w->pos < offset) {
        size_t n = offset - w->pos < sizeof zeros ? (size_t)(offset - w->pos) : sizeof zeros;
        fl_status st = copy_out(w->sink, zeros, n, NULL);
        if (st != FL_OK) return st;
        w->pos += n;
    }
    return FL_OK;
}

/* Offsets of every section and the total length; 0 when count is out of range or the
 * layout passes CT_OFFSET_LIMIT. */
static uint64_t layout(uint32_t count, const uint64_t *lengths, uint64_t *offsets) {
    if (count == 0 || count > FL_CT_SECTIONS_MAX) return 0;
    uint64_t end = table_end(count);
    for (uint32_t i = 0; i < count; i++) {
        uint64_t off = align_up(end);
        if (lengths[i] >= CT_OFFSET_LIMIT - off) return 0;
        if (offsets) offsets[i] = off;
        end = off + lengths[i] + CT_SUM;
    }
    return end;
}

size_t fl_ct_size(uint32_t count, const uint64_t *lengths) {
    uint64_t end = layout(count, lengths, NULL);
    return end > SIZE_MAX ? 0 : (size_t)end;
}

fl_status fl_ct_write_begin(fl_ct_writer *w, fl_sink *sink, fl_kind kind, uint32_t count,
                            const uint32_t *tags, const uint64_t *lengths) {
    uint64_t offsets[FL_CT_SECTIONS_MAX];
    if (layout(count, lengths, offsets) == 0) return FL_ERR_INVALID_ARG;
    w->sink = sink;
    w->count = count;
    w->next = 0;
    w->pos = 0;

    uint8_t pre[CT_PREAMBLE];
    memcpy(pre, fl_file_magic, sizeof fl_file_magic);
    fl_put16(pre + 8, CT_VERSION);
    fl_put16(pre + 10, (uint16_t)kind);
    fl_put32(pre + 12, count);
    fl_put64(pre + CT_PSUM_AT, XXH3_64bits(pre, CT_PSUM_AT));

    uint8_t table[CT_ENTRY * FL_CT_SECTIONS_MAX + CT_SUM];
    for (uint32_t i = 0; i < count; i++) {
        uint8_t *e = table + CT_ENTRY * i;
        fl_put32(e, tags[i]);
        fl_put32(e + 4, 0);
        fl_put64(e + 8, offsets[i]);
        fl_put64(e + 16, lengths[i]);
        w->length[i] = lengths[i];
    }
    size_t tlen = CT_ENTRY * (size_t)count;
    fl_put64(table + tlen, XXH3_64bits(table, tlen));

    fl_status st = copy_out(sink, pre, sizeof pre, NULL);
    if (st == FL_OK) st = copy_out(sink, table, tlen + CT_SUM, NULL);
    if (st == FL_OK) w->pos = table_end(count);
    return st;
}

fl_status fl_ct_write_section(fl_ct_writer *w, const void *bytes, size_t len) {
    if (w->next >= w->count || len != w->length[w->next]) return FL_ERR_INVALID_ARG;
    fl_status st = pad_to(w, align_up(w->pos));
    uint64_t sum = 0;
    if (st == FL_OK) st = copy_out(w->sink, bytes, len, &sum);
    if (st != FL_OK) return st;
    uint8_t s[CT_SUM];
    fl_put64(s, sum);
    st = copy_out(w->sink, s, sizeof s, NULL);
    if (st != FL_OK) return st;
    w->pos += len + CT_SUM;
    w->next++;
    return FL_OK;
}

fl_status fl_ct_write_end(const fl_ct_writer *w) {
    return w->next == w->count ? FL_OK : FL_ERR_INVALID_ARG;
}

/* ==== reader =========================================================================== */

fl_status fl_ct_open(fl_ct_reader *r, fl_in *in) {
    memset(r, 0, sizeof *r);
    r->in = in;
    fl_status st = fl_in_need(in, CT_PREAMBLE);
    if (st != FL_OK) return st;
    const uint8_t *p = in->p;
    if (memcmp(p, fl_file_magic, sizeof fl_file_magic) || fl_get16(p + 8) != CT_VERSION)
        return FL_ERR_INVALID_ARG; /* the caller dispatches on these: a bug if they differ */
    if (fl_get64(p + CT_PSUM_AT) != XXH3_64bits(p, CT_PSUM_AT)) return FL_ERR_CHECKSUM;
    r->kind = fl_get16(p + 10);
    r->count = fl_get32(p + 12);
    if (r->count == 0 || r->count > FL_CT_SECTIONS_MAX) return FL_ERR_CORRUPT;

    r->table_end = table_end(r->count);
    st = fl_in_need(in, (size_t)r->table_end);
    if (st != FL_OK) return st;
    p = in->p;
    size_t tlen = CT_ENTRY * (size_t)r->count;
    if (fl_get64(p + CT_PREAMBLE + tlen) != XXH3_64bits(p + CT_PREAMBLE, tlen))
        return FL_ERR_CHECKSUM;

    /* From here the table is what a writer wrote: a bad entry is a writer bug or a crafted
     * file. The placement rule leaves no room for overlaps or gaps. */
    uint64_t end = r->table_end;
    for (uint32_t i = 0; i < r->count; i++) {
        const uint8_t *e = p + CT_PREAMBLE + CT_ENTRY * i;
        uint64_t off = fl_get64(e + 8), len = fl_get64(e + 16);
        if (fl_get32(e) == 0 || fl_get32(e + 4) != 0) return FL_ERR_CORRUPT;
        if (off != align_up(end)) return FL_ERR_CORRUPT;
        if (len >= CT_OFFSET_LIMIT - off) return FL_ERR_CORRUPT;
        end = off + len + CT_SUM;
    }
    r->end = end;
    return FL_OK;
}

fl_ct_section fl_ct_section_at(const fl_ct_reader *r, uint32_t i) {
    const uint8_t *e = r->in->p + CT_PREAMBLE + CT_ENTRY * (size_t)i;
    fl_ct_section s = {i, fl_get32(e), fl_get64(e + 8), fl_get64(e + 16)};
    return s;
}

uint32_t fl_ct_find(const fl_ct_reader *r, uint32_t tag, fl_ct_section *s) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->count; i++) {
        fl_ct_section e = fl_ct_section_at(r, i);
        if (e.tag != tag) continue;
        if (n++ == 0 && s) *s = e;
    }
    return n;
}

fl_status fl_ct_layout(const fl_ct_reader *r, uint32_t head_tag, uint64_t head_len,
                       uint32_t opt_tag, uint32_t body_tag, fl_ct_section *head,
                       fl_ct_section *opt, fl_ct_section *body) {
    for (uint32_t i = 0; i < r->count; i++) {
        uint32_t tag = fl_ct_section_at(r, i).tag;
        if (tag != head_tag && tag != opt_tag && tag != body_tag) return FL_ERR_CORRUPT;
    }
    if (fl_ct_find(r, head_tag, head) != 1 || fl_ct_find(r, body_tag, body) != 1)
        return FL_ERR_CORRUPT;
    uint32_t opts = fl_ct_find(r, opt_tag, opt);
    if (opts > 1) return FL_ERR_CORRUPT;
    if (opts == 0) opt->length = 0;
    if (head->index != 0 || body->index != r->count - 1) return FL_ERR_CORRUPT;
    if (head->length != head_len) return FL_ERR_CORRUPT;
    if (opts && opt->length == 0) return FL_ERR_CORRUPT;
    return FL_OK;
}

/* Reaches the section's first byte, checking that the padding before it is zero. */
static fl_status seek_section(fl_ct_reader *r, const fl_ct_section *s) {
    uint64_t from = r->table_end;
    if (s->index > 0) {
        fl_ct_section prev = fl_ct_section_at(r, s->index - 1);
        from = prev.offset + prev.length + CT_SUM;
    }
    if (s->offset > SIZE_MAX) return FL_ERR_TOO_LARGE;
    fl_status st = fl_in_need(r->in, (size_t)s->offset);
    if (st != FL_OK) return st;
    for (uint64_t i = from; i < s->offset; i++)
        if (r->in->p[i]) return FL_ERR_CORRUPT;
    return FL_OK;
}

fl_status fl_ct_view(fl_ct_reader *r, const fl_ct_section *s, const uint8_t **bytes) {
    *bytes = NULL;
    fl_status st = seek_section(r, s);
    if (st != FL_OK) return st;
    uint64_t end = s->offset + s->length + CT_SUM;
    if (end > SIZE_MAX) return FL_ERR_TOO_LARGE;
    st = fl_in_need(r->in, (size_t)end);
    if (st != FL_OK) return st;
    const uint8_t *p = r->in->p + s->offset;
    if (fl_get64(p + s->length) != XXH3_64bits(p, (size_t)s->length)) return FL_ERR_CHECKSUM;
    *bytes = p;
    return FL_OK;
}

fl_status fl_ct_read(fl_ct_reader *r, const fl_ct_section *s, void *dst) {
    fl_status st = seek_section(r, s);
    if (st != FL_OK) return st;
    if (s->length > SIZE_MAX) return FL_ERR_TOO_LARGE;
    uint8_t sum[CT_SUM];
    st = fl_in_read(r->in, dst, (size_t)s->length);
    if (st == FL_OK) st = fl_in_read(r->in, sum, sizeof sum);
    if (st != FL_OK) return st;
    /* Hash the copy: the bytes the structure will hold are the bytes checked. */
    return fl_get64(sum) == XXH3_64bits(dst, (size_t)s->length) ? FL_OK : FL_ERR_CHECKSUM;
}
