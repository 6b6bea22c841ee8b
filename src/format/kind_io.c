/*
 * Saving and loading a structure of any kind: see kind_io.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/atomic_file.h"
#include "format/kind_io.h"

#define FMT_V1 1u
#define FMT_V2 2u

fl_status fl_kind_save_mem(const fl_kind_codec *c, const void *obj, size_t need, void *buf,
                           size_t cap, size_t *written) {
    if (need == 0) return FL_ERR_TOO_LARGE;
    if (cap < need) return FL_ERR_BUFFER_TOO_SMALL;
    /* The sink hands out buf itself: the structure is copied once, and each checksum is
     * taken over the copy (atomic inserts on another thread may change the structure
     * meanwhile, and the file must agree with its own checksums). */
    fl_mem_sink m;
    fl_sink sink = fl_mem_sink_init(&m, buf, need);
    fl_status st = c->write(obj, &sink);
    if (st == FL_OK && written) *written = need;
    return st;
}

/* ---- files: writing ------------------------------------------------------------------- */
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

typedef struct save_job {
    const fl_kind_codec *codec;
    const void *obj;
} save_job;

/* An fl_content_writer for fl_replace_file. Our own buffer failing is NO_MEMORY, as the
 * public headers promise, not an I/O error. */
static fl_status write_fd(int fd, void *ctx) {
    const save_job *job = (const save_job *)ctx;
    fd_sink s = {fd, malloc(FD_SINK_CHUNK)};
    if (!s.chunk) return FL_ERR_NO_MEMORY;
    fl_sink sink = {fd_reserve, fd_commit, &s};
    errno = 0;
    fl_status st = job->codec->write(job->obj, &sink);
    int err = errno;
    free(s.chunk);
    errno = err;
    return st;
}

fl_status fl_kind_save_file(const fl_kind_codec *c, const void *obj, const char *path) {
    save_job job = {c, obj};
    return fl_replace_file(path, write_fd, &job);
}

/* ---- reading -------------------------------------------------------------------------- */

fl_status fl_kind_open(fl_in *in, fl_ct_reader *r, uint16_t *version, uint32_t *kind) {
    fl_status st = fl_in_need(in, FL_MAGIC_LEN);
    if (st == FL_ERR_TRUNCATED)
        return in->avail && memcmp(in->p, fl_file_magic, in->avail) ? FL_ERR_BAD_MAGIC
                                                                     : FL_ERR_TRUNCATED;
    if (st != FL_OK) return st;
    if (memcmp(in->p, fl_file_magic, FL_MAGIC_LEN)) return FL_ERR_BAD_MAGIC;
    st = fl_in_need(in, FL_MAGIC_LEN + 2);
    if (st != FL_OK) return st;
    *version = fl_get16(in->p + FL_MAGIC_LEN);
    *kind = FL_KIND_FILTER; /* format 1 held nothing else */
    if (*version == FMT_V1) return FL_OK;
    if (*version != FMT_V2) return FL_ERR_BAD_VERSION;
    st = fl_ct_open(r, in);
    if (st == FL_OK) *kind = r->kind;
    return st;
}

/* Magic and version, then the reader of that version and kind. */
static fl_status load_in(const fl_kind_codec *c, fl_in *in, size_t max_bytes, void **out) {
    fl_ct_reader r;
    uint16_t version = 0;
    uint32_t kind = 0;
    fl_status st = fl_kind_open(in, &r, &version, &kind);
    if (st != FL_OK) return st;
    if (version == FMT_V1) return c->read_v1 ? c->read_v1(in, max_bytes, out) : FL_ERR_WRONG_KIND;
    if (kind != c->kind) return FL_ERR_WRONG_KIND;
    return c->read(&r, max_bytes, out);
}

fl_status fl_kind_load_mem(const fl_kind_codec *c, const void *buf, size_t len,
                           size_t max_bytes, void **out) {
    fl_in in;
    fl_in_mem(&in, buf, len);
    return load_in(c, &in, max_bytes, out);
}

/* read(2) until n bytes or end of file, for fl_in over a file descriptor. */
static int fd_read(void *ctx, void *buf, size_t n, size_t *got) {
    int fd = *(const int *)ctx;
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

fl_status fl_kind_load_file(const fl_kind_codec *c, const char *path, size_t max_bytes,
                            void **out) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return FL_ERR_IO;
    fl_status st = FL_ERR_IO;
    struct stat sb;
    if (fstat(fd, &sb) == 0) {
        uint64_t size = S_ISREG(sb.st_mode) ? (uint64_t)sb.st_size : FL_IN_SIZE_UNKNOWN;
        fl_in in;
        fl_in_stream(&in, fd_read, &fd, size);
        st = load_in(c, &in, max_bytes, out);
        int err = errno;
        fl_in_release(&in);
        errno = err;
    }
    int err = errno;
    close(fd);
    errno = err;
    return st;
}

/* ---- what a file holds ------------------------------------------------------------------ */

fl_status fl_file_kind_mem(const void *buf, size_t len, uint32_t *kind) {
    if (!buf || !kind) return FL_ERR_INVALID_ARG;
    fl_in in;
    fl_in_mem(&in, buf, len);
    fl_ct_reader r;
    uint16_t version = 0;
    return fl_kind_open(&in, &r, &version, kind);
}

fl_status fl_file_kind_file(const char *path, uint32_t *kind) {
    if (!path || !kind) return FL_ERR_INVALID_ARG;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return FL_ERR_IO;
    fl_in in;
    fl_in_stream(&in, fd_read, &fd, FL_IN_SIZE_UNKNOWN);
    fl_ct_reader r;
    uint16_t version = 0;
    fl_status st = fl_kind_open(&in, &r, &version, kind);
    int err = errno;
    fl_in_release(&in);
    close(fd);
    errno = err;
    return st;
}
