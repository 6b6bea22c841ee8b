/*
 * LD_PRELOAD allocation-failure injector for the CLI tests: with FL_FAIL_ALLOC=N in the
 * environment, the N-th call (1-based) to malloc, calloc or realloc in the process returns
 * NULL with errno ENOMEM; every other call succeeds. tests/cli/test_cli.sh runs a command
 * for N = 1, 2, ... and checks it either succeeds with its normal output or fails with one
 * clear line and exit status 2, never a half-printed result.
 * glibc's __libc_* entry points do the real work (no dlsym, which itself allocates).
 */
#include <errno.h>
#include <stdlib.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);

static long countdown = -2; /* -2: not read yet; -1: off */

static int fail_now(void) {
    if (countdown == -2) {
        const char *s = getenv("FL_FAIL_ALLOC");
        countdown = s && *s ? strtol(s, NULL, 10) : -1;
        if (countdown <= 0) countdown = -1;
    }
    if (countdown < 0) return 0;
    if (--countdown > 0) return 0;
    countdown = -1;
    errno = ENOMEM;
    return 1;
}

void *malloc(size_t n) { return fail_now() ? NULL : __libc_malloc(n); }
void *calloc(size_t n, size_t size) { return fail_now() ? NULL : __libc_calloc(n, size); }
void *realloc(void *p, size_t n) { return fail_now() ? NULL : __libc_realloc(p, n); }
