/*
 * Output paths (flbench's --json and --csv, flaccuracy's --json). A run can take many minutes, so main.c checks every path
 * before measuring anything: a typo in a directory costs one line, not the run. The files
 * themselves are written to a temporary file in the same directory and renamed onto the path
 * at the end (rename(2) is atomic within a file system), so a reader never sees half a file
 * and a failed write leaves an older file of that name untouched. A path that names a device
 * or a FIFO (--json /dev/null, a pipe) is written in place instead.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flbench.h"

/* Messages name the program (flbench or flaccuracy: both write their results here). */
#define PROG program_invocation_short_name

/* The directory part of path ("." when there is none). */
static void dir_of(const char *path, char *dir, size_t cap) {
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, cap, ".");
    else if (slash == path)
        snprintf(dir, cap, "/");
    else
        snprintf(dir, cap, "%.*s", (int)(slash - path), path);
}

static int make_temp(const char *path, char *tmp, size_t cap) {
    if ((size_t)snprintf(tmp, cap, "%s.tmp.XXXXXX", path) >= cap) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return mkstemp(tmp);
}

/* The file a path names: through a symbolic link to its target (renaming onto the link would
 * replace the link). *special: it exists and is not a regular file (/dev/null, a FIFO): it is
 * written in place, since renaming a file onto it would replace the device. */
static void resolve(const char *path, char *target, size_t cap, int *special) {
    struct stat st;
    char real[PATH_MAX];
    *special = 0;
    snprintf(target, cap, "%s", path);
    if (lstat(path, &st) != 0 || !S_ISLNK(st.st_mode))
        ;
    else if (realpath(path, real))
        snprintf(target, cap, "%s", real);
    else { /* a link to a file not there yet: create it where the link points, as '>' does */
        ssize_t n = readlink(path, real, sizeof real - 1);
        if (n > 0) {
            real[n] = 0;
            char dir[PATH_MAX];
            dir_of(path, dir, sizeof dir);
            int w = real[0] == '/' ? snprintf(target, cap, "%s", real)
                                   : snprintf(target, cap, "%s/%s", dir, real);
            if (w < 0 || (size_t)w >= cap) /* too long: write the link's own path */
                snprintf(target, cap, "%s", path);
        }
    }
    if (stat(target, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
        *special = 1;
}

int fb_output_check(const char *opt, const char *path) {
    if (!strcmp(path, "-"))
        return 0;
    struct stat st;
    char target[PATH_MAX], dir[PATH_MAX], tmp[PATH_MAX + 16];
    int special;
    if (!*path) {
        fprintf(stderr, "%s: %s: empty path\n", PROG, opt);
        return -1;
    }
    resolve(path, target, sizeof target, &special);
    if (special) {
        if (access(target, W_OK) != 0) {
            fprintf(stderr, "%s: cannot write %s %s: %s\n", PROG, opt, path, strerror(errno));
            return -1;
        }
        return 0;
    }
    if (stat(target, &st) == 0 && S_ISDIR(st.st_mode)) {
        fprintf(stderr, "%s: cannot write %s %s: it is a directory\n", PROG, opt, path);
        return -1;
    }
    dir_of(target, dir, sizeof dir);
    if (stat(dir, &st) != 0) {
        if (errno == ENOENT)
            fprintf(stderr, "%s: cannot write %s %s: directory %s does not exist\n", PROG, opt,
                    path, dir);
        else
            fprintf(stderr, "%s: cannot write %s %s: %s: %s\n", PROG, opt, path, dir,
                    strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        fprintf(stderr, "%s: cannot write %s %s: %s is not a directory\n", PROG, opt, path, dir);
        return -1;
    }
    /* Creating a file there is the one test that covers permissions, read-only file systems
     * and quotas alike; the real file is made the same way at the end. */
    int fd = make_temp(target, tmp, sizeof tmp);
    if (fd < 0) {
        fprintf(stderr, "%s: cannot write %s %s: %s\n", PROG, opt, path, strerror(errno));
        return -1;
    }
    close(fd);
    unlink(tmp);
    return 0;
}

FILE *fb_output_open(const char *path, char *tmp, size_t cap) {
    char target[PATH_MAX];
    int special;
    tmp[0] = 0;
    if (!strcmp(path, "-"))
        return stdout;
    resolve(path, target, sizeof target, &special);
    if (special) {
        FILE *f = fopen(target, "w");
        if (!f)
            fprintf(stderr, "%s: cannot write %s: %s\n", PROG, path, strerror(errno));
        return f;
    }
    int fd = make_temp(target, tmp, cap);
    if (fd < 0) {
        fprintf(stderr, "%s: cannot write %s: %s\n", PROG, path, strerror(errno));
        tmp[0] = 0;
        return NULL;
    }
    /* mkstemp makes the file 0600; a result file is as readable as any the user creates. */
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0) { /* keeps 0600: still correct, only less readable */
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        fprintf(stderr, "%s: cannot write %s: %s\n", PROG, path, strerror(errno));
        close(fd);
        unlink(tmp);
        tmp[0] = 0;
    }
    return f;
}

int fb_output_commit(FILE *f, const char *path, const char *tmp) {
    if (f == stdout) {
        if (fflush(stdout) != 0 || ferror(stdout)) {
            fprintf(stderr, "%s: cannot write to stdout: %s\n", PROG, strerror(errno));
            return -1;
        }
        return 0;
    }
    char target[PATH_MAX];
    int special;
    resolve(path, target, sizeof target, &special);
    int bad = ferror(f);
    int err = bad ? EIO : 0;
    if (fclose(f) != 0 && !bad) {
        bad = 1;
        err = errno;
    }
    if (!bad && tmp[0] && rename(tmp, target) != 0) {
        bad = 1;
        err = errno;
    }
    if (bad) {
        if (tmp[0])
            unlink(tmp);
        fprintf(stderr, "%s: cannot write %s: %s\n", PROG, path, strerror(err));
        return -1;
    }
    return 0;
}

void fb_output_abort(FILE *f, const char *tmp) {
    if (f == stdout)
        return;
    fclose(f);
    if (tmp[0])
        unlink(tmp);
}
