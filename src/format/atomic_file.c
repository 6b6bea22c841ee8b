/*
 * Atomic replacement of a file: every file the library or the CLI writes goes through here.
 *
 * The content goes to PATH.tmp.XXXXXX in the same directory (rename(2) is atomic only
 * within one file system), is fsynced, gets the mode the final file should have and is
 * renamed over PATH; the directory is then fsynced so the rename survives a crash. Readers
 * see the old file or the complete new one, never a prefix, and a failure (disk full,
 * RLIMIT_FSIZE, an allocation) removes the temporary file and leaves the old file as it
 * was. A SIGKILL can still leave the temporary behind, never a damaged PATH.
 *
 * Symbolic links are resolved (up to 40 hops, Linux's own limit, ELOOP beyond) and their
 * final target is replaced the same way, so the link stays a link and a killed save cannot
 * destroy its target. A dangling link creates its target. What is neither a regular file
 * nor absent (a FIFO, a device such as /dev/stdout) cannot be replaced by a rename without
 * turning it into a regular file: it is written through, which cannot be atomic.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h> /* rename; nothing is printed */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/atomic_file.h"

#define MAX_LINK_HOPS 40 /* MAXSYMLINKS on Linux */

/* The caller's flag (fl_set_interrupt_flag), read between writes and before the rename. A
 * write of a regular file is not cut short by a caught signal (Linux finishes it), so the
 * writes are bounded to keep the wait for a check short. */
static const volatile sig_atomic_t *interrupt_flag;
#define WRITE_MAX ((size_t)1 << 20)

fl_status fl_set_interrupt_flag(const volatile sig_atomic_t *flag) {
    interrupt_flag = flag;
    return FL_OK;
}

static int interrupted(void) {
    const volatile sig_atomic_t *f = interrupt_flag;
    if (f && *f) {
        errno = EINTR;
        return 1;
    }
    return 0;
}

/* write(2) until done; EINTR and short writes are retried, unless the interrupt flag is
 * set. */
fl_status fl_write_all(int fd, const void *buf, size_t n) {
    const unsigned char *p = (const unsigned char *)buf;
    while (n) {
        if (interrupted()) return FL_ERR_INTERRUPTED;
        ssize_t w = write(fd, p, n < WRITE_MAX ? n : WRITE_MAX);
        if (w < 0) {
            if (errno == EINTR) continue;
            return FL_ERR_IO;
        }
        if (w == 0) {
            errno = EIO;
            return FL_ERR_IO;
        }
        p += w;
        n -= (size_t)w;
    }
    return FL_OK;
}

/* The process umask without changing it (umask(2) alone would race with other threads):
 * Linux >= 4.7 reports it in /proc/self/status; otherwise assume the common 022. */
static mode_t current_umask(void) {
    mode_t mask = 022;
    int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return mask;
    char buf[4096];
    size_t got = 0;
    while (got < sizeof buf - 1) {
        ssize_t r = read(fd, buf + got, sizeof buf - 1 - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    buf[got] = '\0';
    const char *s = strstr(buf, "\nUmask:");
    if (s) mask = (mode_t)(strtoul(s + 7, NULL, 8) & 0777);
    close(fd);
    return mask;
}

/* Best effort: makes the rename durable. Some file systems refuse fsync on directories
 * (EINVAL); the new file is in place either way, so a failure here is not reported. */
static void sync_parent_dir(const char *path) {
    const char *slash = strrchr(path, '/');
    char *dir;
    if (!slash)
        dir = strdup(".");
    else if (slash == path)
        dir = strdup("/");
    else
        dir = strndup(path, (size_t)(slash - path));
    if (!dir) return;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    free(dir);
    if (fd < 0) return;
    (void)fsync(fd);
    close(fd);
}

/* Follows symbolic links from `path` to the name that is not one (it may not exist yet).
 * Returns a malloc'd path, or NULL with *st set (NO_MEMORY, or IO with errno). A relative
 * link target is relative to the directory holding the link. */
static char *resolve_links(const char *path, fl_status *st) {
    char *cur = strdup(path);
    if (!cur) {
        *st = FL_ERR_NO_MEMORY;
        return NULL;
    }
    for (int hop = 0;; hop++) {
        struct stat sb;
        if (lstat(cur, &sb) != 0 || !S_ISLNK(sb.st_mode)) return cur;
        if (hop == MAX_LINK_HOPS) {
            free(cur);
            errno = ELOOP;
            *st = FL_ERR_IO;
            return NULL;
        }
        char target[PATH_MAX];
        ssize_t n = readlink(cur, target, sizeof target - 1);
        if (n < 0) {
            int e = errno;
            free(cur);
            errno = e;
            *st = FL_ERR_IO;
            return NULL;
        }
        target[n] = '\0';
        const char *slash = strrchr(cur, '/');
        size_t dirlen = target[0] == '/' || !slash ? 0 : (size_t)(slash - cur) + 1;
        char *next = malloc(dirlen + (size_t)n + 1);
        if (!next) {
            free(cur);
            *st = FL_ERR_NO_MEMORY;
            return NULL;
        }
        memcpy(next, cur, dirlen);
        memcpy(next + dirlen, target, (size_t)n + 1);
        free(cur);
        cur = next;
    }
}

/* A FIFO or a device: written in place (see the top of the file). */
static fl_status write_through(const char *path, fl_content_writer write, void *ctx) {
    int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) return FL_ERR_IO;
    fl_status st = write(fd, ctx);
    if (st == FL_ERR_IO && interrupted()) st = FL_ERR_INTERRUPTED;
    int err = errno;
    if (close(fd) != 0 && st == FL_OK) {
        st = FL_ERR_IO;
        err = errno;
    }
    errno = err;
    return st;
}

/* The temporary next to `path`, its content, fsync, rename. */
static fl_status replace_regular(const char *path, fl_content_writer write, void *ctx) {
    static const char suffix[] = ".tmp.XXXXXX";
    size_t plen = strlen(path);
    char *tmp = malloc(plen + sizeof suffix);
    if (!tmp) return FL_ERR_NO_MEMORY;
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, suffix, sizeof suffix);

    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        errno = e;
        return FL_ERR_IO;
    }
    /* mkstemp creates the file 0600; give it the mode a plain open(path, O_CREAT, 0666)
     * would have, or keep the mode of the file being replaced. */
    struct stat sb;
    mode_t mode = stat(path, &sb) == 0 ? (sb.st_mode & 07777) : (0666 & ~current_umask());

    fl_status st = fchmod(fd, mode) == 0 ? FL_OK : FL_ERR_IO;
    if (st == FL_OK) st = write(fd, ctx);
    /* A writer whose sink reports failures as I/O errors (src/format/kind_io.c) stopped on the
     * flag: say why. */
    if (st == FL_ERR_IO && interrupted()) st = FL_ERR_INTERRUPTED;
    if (st == FL_OK && fsync(fd) != 0) st = FL_ERR_IO;
    int err = errno;
    if (close(fd) != 0 && st == FL_OK) {
        st = FL_ERR_IO;
        err = errno;
    }
    /* The last point where the old file can still be kept. */
    if (st == FL_OK && interrupted()) {
        st = FL_ERR_INTERRUPTED;
        err = EINTR;
    }
    if (st == FL_OK && rename(tmp, path) != 0) {
        st = FL_ERR_IO;
        err = errno;
    }
    if (st != FL_OK) {
        unlink(tmp);
        free(tmp);
        errno = err; /* the caller reads the cause of FL_ERR_IO from errno */
        return st;
    }
    free(tmp);
    sync_parent_dir(path);
    return FL_OK;
}

fl_status fl_replace_file(const char *path, fl_content_writer write, void *ctx) {
    if (!path || !*path || !write) return FL_ERR_INVALID_ARG;
    fl_status st = FL_OK;
    char *target = resolve_links(path, &st);
    if (!target) return st;
    struct stat sb;
    if (lstat(target, &sb) != 0 || S_ISREG(sb.st_mode)) {
        st = replace_regular(target, write, ctx);
    } else if (S_ISDIR(sb.st_mode)) {
        errno = EISDIR;
        st = FL_ERR_IO;
    } else {
        st = write_through(target, write, ctx);
    }
    int err = errno;
    free(target);
    errno = err;
    return st;
}

typedef struct buf_ctx {
    const void *buf;
    size_t len;
} buf_ctx;

static fl_status write_buf(int fd, void *ctx) {
    const buf_ctx *b = (const buf_ctx *)ctx;
    return fl_write_all(fd, b->buf, b->len);
}

fl_status fl_write_file_atomic(const char *path, const void *buf, size_t len) {
    if (!buf && len) return FL_ERR_INVALID_ARG;
    buf_ctx b = {buf, len};
    return fl_replace_file(path, write_buf, &b);
}
