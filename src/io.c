/*
 * The filterlab file format: fl_save_* / fl_load_* and the file I/O behind them.
 *
 * Saves write format version 2, the container of src/container.c (its byte layout is
 * documented there) holding one structure of kind FL_KIND_FILTER, whose sections
 * src/codec_filter.c defines. Loads read version 2 and version 1, the fixed-header format
 * of earlier builds (src/codec_filter_v1.c, read-only).
 *
 * Both versions start with the same 8-byte magic and a u16 version; a load checks those
 * here, in this order, before it picks a reader: magic (BAD_MAGIC; a short input that is a
 * prefix of the magic is TRUNCATED), version (BAD_VERSION, TRUNCATED if cut before it).
 * A version-2 file of a kind other than a filter is FL_ERR_WRONG_KIND, once its preamble
 * and table have been validated. Memory buffers and files go through the same readers
 * (fl_in, src/container.h), so their statuses agree; a file's size, when it has one, is
 * checked against the header before the payload is allocated or read, and the payload is
 * read straight into the new filter.
 *
 * Any change to a layout or to a probe formula in kernels/probe.h needs a new version.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h> /* rename; nothing is printed */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "internal.h"
#include "codec_filter.h"
#include "container.h"

#define FMT_V1 1u
#define FMT_V2 2u

/* ---- writing -------------------------------------------------------------------------- */

/* A filter in memory is already consistent; this guards against one that is not (a stash
 * count beyond the format's limit would otherwise be written out of bounds). */
static fl_status check_saveable(const fl_filter *f) {
    if (f->stash_count > f->desc->stash_max) return FL_ERR_INVALID_ARG;
    return FL_OK;
}

size_t fl_serialized_size(const fl_filter *f) {
    if (!f) return 0;
    return fl_codec_filter_size(f);
}

fl_status fl_save_mem(const fl_filter *f, void *buf, size_t cap, size_t *written) {
    if (written) *written = 0;
    if (!f || !buf) return FL_ERR_INVALID_ARG;
    fl_status st = check_saveable(f);
    if (st != FL_OK) return st;
    size_t need = fl_serialized_size(f);
    if (need == 0) return FL_ERR_TOO_LARGE;
    if (cap < need) return FL_ERR_BUFFER_TOO_SMALL;
    /* The sink hands out buf itself: the payload is copied once, and its checksum is taken
     * over the copy (atomic inserts on another thread may set bits in f->data meanwhile,
     * and the file must agree with its own checksum). */
    fl_mem_sink m;
    fl_sink sink = fl_mem_sink_init(&m, buf, need);
    st = fl_codec_filter_write(f, &sink);
    if (st != FL_OK) return st;
    if (written) *written = need;
    return FL_OK;
}

/* ---- reading -------------------------------------------------------------------------- */

fl_status fl_io_open(fl_in *in, fl_ct_reader *r, uint16_t *version, uint32_t *kind) {
    fl_status st = fl_in_need(in, FL_MAGIC_LEN);
    if (st == FL_ERR_TRUNCATED)
        return in->avail && memcmp(in->p, fl_file_magic, in->avail) ? FL_ERR_BAD_MAGIC
                                                                     : FL_ERR_TRUNCATED;
    if (st != FL_OK) return st;
    if (memcmp(in->p, fl_file_magic, FL_MAGIC_LEN)) return FL_ERR_BAD_MAGIC;
    st = fl_in_need(in, FL_MAGIC_LEN + 2);
    if (st != FL_OK) return st;
    *version = fl_get16(in->p + FL_MAGIC_LEN);
    *kind = FL_KIND_FILTER; /* version 1 held nothing else */
    if (*version == FMT_V1) return FL_OK;
    if (*version != FMT_V2) return FL_ERR_BAD_VERSION;
    st = fl_ct_open(r, in);
    if (st == FL_OK) *kind = r->kind;
    return st;
}

/* Magic and version, then the reader of that version. */
static fl_status load_in(fl_in *in, size_t max_bytes, fl_filter **out) {
    fl_ct_reader r;
    uint16_t version = 0;
    uint32_t kind = 0;
    fl_status st = fl_io_open(in, &r, &version, &kind);
    if (st != FL_OK) return st;
    if (version == FMT_V1) return fl_codec_filter_v1_read(in, max_bytes, out);
    if (kind != FL_KIND_FILTER) return FL_ERR_WRONG_KIND;
    return fl_codec_filter_read(&r, max_bytes, out);
}

fl_status fl_load_mem(const void *buf, size_t len, size_t max_bytes, fl_filter **out) {
    if (out) *out = NULL;
    if (!buf || !out) return FL_ERR_INVALID_ARG;
    fl_in in;
    fl_in_mem(&in, buf, len);
    return load_in(&in, max_bytes, out);
}

/* ---- files ---------------------------------------------------------------------------- */

/* read(2) until n bytes or end of file; *got says how many. */
static int read_full(int fd, void *buf, size_t n, size_t *got) {
    uint8_t *p = (uint8_t *)buf;
    size_t done = 0;
    while (done < n) {
        ssize_t r = read(fd, p + done, n - done);
        if (r < 0) {
            if (errno == EINTR) continue;
            *got = done;
            return -1;
        }
        if (r == 0) break;
        done += (size_t)r;
    }
    *got = done;
    return 0;
}

/* A sink that writes to fd through a bounce buffer: each load of the buffer is both hashed
 * (by the container writer) and written, so the checksums match the bytes on disk even
 * while atomic inserts on another thread set bits. */
typedef struct fd_sink {
    int fd;
    uint8_t *chunk;
} fd_sink;
enum { FD_SINK_CHUNK = 1 << 16 };

static uint8_t *fd_reserve(void *ctx, size_t n, size_t *fit) {
    *fit = n < FD_SINK_CHUNK ? n : FD_SINK_CHUNK;
    return ((fd_sink *)ctx)->chunk;
}

static int fd_commit(void *ctx, size_t n) {
    fd_sink *s = (fd_sink *)ctx;
    return fl_write_all(s->fd, s->chunk, n) == FL_OK ? 0 : -1;
}

/* The file format (fl_save_mem's bytes) through fd, as an fl_content_writer for
 * fl_replace_file. Our own buffer failing is NO_MEMORY, as the header promises, not an I/O
 * error. */
static fl_status write_filter(int fd, void *ctx) {
    const fl_filter *f = (const fl_filter *)ctx;
    fd_sink s = {fd, malloc(FD_SINK_CHUNK)};
    if (!s.chunk) return FL_ERR_NO_MEMORY;
    fl_sink sink = {fd_reserve, fd_commit, &s};
    errno = 0;
    fl_status st = fl_codec_filter_write(f, &sink);
    int err = errno;
    free(s.chunk);
    errno = err;
    return st;
}

/* Atomic replace (src/atomic_file.c): a failure never destroys the previous file, and a
 * symbolic link's target is replaced, not written through. */
fl_status fl_save_file(const fl_filter *f, const char *path) {
    if (!f || !path || !*path) return FL_ERR_INVALID_ARG;
    fl_status st = check_saveable(f);
    if (st != FL_OK) return st;
    if (fl_serialized_size(f) == 0) return FL_ERR_TOO_LARGE;
    return fl_replace_file(path, write_filter, (void *)f);
}

/* A read callback for fl_in over a file descriptor. */
static int fd_read(void *ctx, void *buf, size_t n, size_t *got) {
    return read_full(*(const int *)ctx, buf, n, got);
}

/* The readers check the header against the file size from fstat, so a huge or mislabelled
 * file is refused before its payload is read or allocated; the payload is then read
 * straight into the new filter (no second copy of a large filter in memory). A file that
 * is not regular (a pipe) has no size up front: its end is checked after the read. */
static fl_status load_fd(int fd, size_t max_bytes, fl_filter **out) {
    struct stat sb;
    if (fstat(fd, &sb) != 0) return FL_ERR_IO;
    uint64_t size = S_ISREG(sb.st_mode) ? (uint64_t)sb.st_size : FL_IN_SIZE_UNKNOWN;
    fl_in in;
    fl_in_stream(&in, fd_read, &fd, size);
    fl_status st = load_in(&in, max_bytes, out);
    int err = errno;
    fl_in_release(&in);
    errno = err;
    return st;
}

fl_status fl_load_file(const char *path, size_t max_bytes, fl_filter **out) {
    if (out) *out = NULL;
    if (!path || !out) return FL_ERR_INVALID_ARG;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return FL_ERR_IO;
    fl_status st = load_fd(fd, max_bytes, out);
    int err = errno;
    close(fd);
    errno = err;
    return st;
}

/* ---- what a file holds ------------------------------------------------------------------ */

/* The public kinds are the container's (src/container.h); they must not drift apart. */
_Static_assert((int)FL_FILE_FILTER == (int)FL_KIND_FILTER, "file kinds");
_Static_assert((int)FL_FILE_SCALABLE_BLOOM == (int)FL_KIND_SCALABLE_BLOOM, "file kinds");

fl_status fl_file_kind_mem(const void *buf, size_t len, uint32_t *kind) {
    if (!buf || !kind) return FL_ERR_INVALID_ARG;
    fl_in in;
    fl_in_mem(&in, buf, len);
    fl_ct_reader r;
    uint16_t version = 0;
    return fl_io_open(&in, &r, &version, kind);
}

/* Reads only the preamble and the section table, however large the file. */
fl_status fl_file_kind_file(const char *path, uint32_t *kind) {
    if (!path || !kind) return FL_ERR_INVALID_ARG;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return FL_ERR_IO;
    fl_in in;
    fl_in_stream(&in, fd_read, &fd, FL_IN_SIZE_UNKNOWN);
    fl_ct_reader r;
    uint16_t version = 0;
    fl_status st = fl_io_open(&in, &r, &version, kind);
    int err = errno;
    fl_in_release(&in);
    close(fd);
    errno = err;
    return st;
}
