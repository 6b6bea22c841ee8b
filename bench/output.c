/*
 * Output paths (--json, --csv). A run can take many minutes, so main.c checks every path
 * before measuring anything: a typo in a directory costs one line, not the run. The files
 * themselves are written to a temporary file in the same directory and renamed onto the path
 * at the end (rename(2) is atomic within a file system), so a reader never sees half a file
 * and a failed write leaves an older file of that name untouched.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flbench.h"

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

int fb_output_check(const char *opt, const char *path) {
    if (!strcmp(path, "-"))
        return 0;
    struct stat st;
    char dir[4096], tmp[4200];
    if (!*path) {
        fprintf(stderr, "flbench: %s: empty path\n", opt);
        return -1;
    }
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        fprintf(stderr, "flbench: cannot write %s %s: it is a directory\n", opt, path);
        return -1;
    }
    dir_of(path, dir, sizeof dir);
    if (stat(dir, &st) != 0) {
        if (errno == ENOENT)
            fprintf(stderr, "flbench: cannot write %s %s: directory %s does not exist\n", opt,
                    path, dir);
        else
            fprintf(stderr, "flbench: cannot write %s %s: %s: %s\n", opt, path, dir,
                    strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        fprintf(stderr, "flbench: cannot write %s %s: %s is not a directory\n", opt, path, dir);
        return -1;
    }
    /* Creating a file there is the one test that covers permissions, read-only file systems
     * and quotas alike; the real file is made the same way at the end. */
    int fd = make_temp(path, tmp, sizeof tmp);
    if (fd < 0) {
        fprintf(stderr, "flbench: cannot write %s %s: %s\n", opt, path, strerror(errno));
        return -1;
    }
    close(fd);
    unlink(tmp);
    return 0;
}

FILE *fb_output_open(const char *path, char *tmp, size_t cap) {
    tmp[0] = 0;
    if (!strcmp(path, "-"))
        return stdout;
    int fd = make_temp(path, tmp, cap);
    if (fd < 0) {
        fprintf(stderr, "flbench: cannot write %s: %s\n", path, strerror(errno));
        tmp[0] = 0;
        return NULL;
    }
    /* mkstemp makes the file 0600; a result file is as readable as any the user creates. */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    FILE *f = fdopen(fd, "w");
    if (!f) {
        fprintf(stderr, "flbench: cannot write %s: %s\n", path, strerror(errno));
        close(fd);
        unlink(tmp);
        tmp[0] = 0;
    }
    return f;
}

int fb_output_commit(FILE *f, const char *path, const char *tmp) {
    if (f == stdout) {
        if (fflush(stdout) != 0 || ferror(stdout)) {
            fprintf(stderr, "flbench: cannot write to stdout: %s\n", strerror(errno));
            return -1;
        }
        return 0;
    }
    int bad = ferror(f);
    int err = bad ? EIO : 0;
    if (fclose(f) != 0 && !bad) {
        bad = 1;
        err = errno;
    }
    if (!bad && rename(tmp, path) != 0) {
        bad = 1;
        err = errno;
    }
    if (bad) {
        unlink(tmp);
        fprintf(stderr, "flbench: cannot write %s: %s\n", path, strerror(err));
        return -1;
    }
    return 0;
}

void fb_output_abort(FILE *f, const char *tmp) {
    if (f == stdout)
        return;
    fclose(f);
    unlink(tmp);
}
