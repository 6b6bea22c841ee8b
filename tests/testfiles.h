/*
 * What the cmocka tests that write files share: a scratch directory of their own under
 * $TMPDIR (or /tmp), the temporaries an interrupted save would leave in it, whole-file
 * writes, and a lowered file-size limit to make a write fail halfway. Include it after
 * cmocka (testutil.h).
 */
#ifndef FL_TESTFILES_H
#define FL_TESTFILES_H

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static char g_dir[256];

/* Creates g_dir as $TMPDIR/<prefix>.XXXXXX; 0 on success, -1 otherwise. */
static inline int scratch_dir_create(const char *prefix) {
    const char *base = getenv("TMPDIR");
    snprintf(g_dir, sizeof g_dir, "%s/%s.XXXXXX", base && *base ? base : "/tmp", prefix);
    return mkdtemp(g_dir) ? 0 : -1;
}

/* Removes g_dir with whatever files or empty directories a test left in it. */
static inline void scratch_dir_remove(void) {
    DIR *d = opendir(g_dir);
    if (!d) return;
    struct dirent *e;
    char path[512];
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(path, sizeof path, "%s/%s", g_dir, e->d_name);
        if (unlink(path) != 0) rmdir(path);
    }
    closedir(d);
    rmdir(g_dir);
}

static inline void path_in_dir(char *out, size_t cap, const char *name) {
    snprintf(out, cap, "%s/%s", g_dir, name);
}

/* Names in g_dir containing ".tmp.": leftovers of a failed or interrupted save. */
static inline int count_temp_files(void) {
    DIR *d = opendir(g_dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strstr(e->d_name, ".tmp.")) n++;
    closedir(d);
    return n;
}

/* Writes buf[0, len) as the whole file, directly (not atomically): the tests' own setup. */
static inline void write_file(const char *path, const void *buf, size_t len) {
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(buf, 1, len, fp), len);
    assert_int_equal(fclose(fp), 0);
}

/* RLIMIT_FSIZE lowered to `limit` bytes with SIGXFSZ ignored, so that a write past it fails
 * with EFBIG instead of killing the test; fsize_limit_end puts both back (save errno
 * first: it may change it). */
typedef struct fsize_limit {
    struct rlimit old;
    void (*prev)(int);
} fsize_limit;

static inline void fsize_limit_begin(fsize_limit *s, rlim_t limit) {
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &s->old), 0);
    struct rlimit lim = s->old;
    lim.rlim_cur = limit;
    s->prev = signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
}

static inline void fsize_limit_end(const fsize_limit *s) {
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &s->old), 0);
    signal(SIGXFSZ, s->prev);
}

#endif
