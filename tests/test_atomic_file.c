/* fl_write_file_atomic and fl_save_file's file handling: a failed write never damages the
 * previous file (regular or behind a symbolic link), leaves no temporary behind, an
 * allocation failure is FL_ERR_NO_MEMORY, and a set interrupt flag abandons the save. Built with -Wl,--wrap=malloc so that the
 * library's allocations can be failed one by one. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"
#include "testfiles.h"

/* ---- malloc failure injection: the fail_at-th call (0-based) from now returns NULL ---- */
void *__real_malloc(size_t n);
static long fail_at = -1;
void *__wrap_malloc(size_t n) {
    if (fail_at == 0) {
        fail_at = -1;
        errno = ENOMEM;
        return NULL;
    }
    if (fail_at > 0) fail_at--;
    return __real_malloc(n);
}

/* 1 if the file holds exactly buf[0, len). */
static int file_is(const char *path, const void *buf, size_t len) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return 0;
    unsigned char tmp[4096];
    size_t got = fread(tmp, 1, sizeof tmp, fp);
    fclose(fp);
    return got == len && memcmp(tmp, buf, len) == 0;
}

/* Runs fl_write_file_atomic under RLIMIT_FSIZE = limit bytes (SIGXFSZ ignored, so the
 * write fails with EFBIG instead of killing the test). */
static fl_status write_limited(const char *path, const void *buf, size_t len, rlim_t limit) {
    fsize_limit fl;
    fsize_limit_begin(&fl, limit);
    errno = 0;
    fl_status st = fl_write_file_atomic(path, buf, len);
    int err = errno;
    fsize_limit_end(&fl);
    errno = err;
    return st;
}

static void test_args(void **state) {
    (void)state;
    assert_int_equal(fl_write_file_atomic(NULL, "x", 1), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_write_file_atomic("", "x", 1), FL_ERR_INVALID_ARG);
    char path[512];
    path_in_dir(path, sizeof path, "null.bin");
    assert_int_equal(fl_write_file_atomic(path, NULL, 1), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_write_file_atomic(path, NULL, 0), FL_OK); /* an empty file */
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_size, 0);
    unlink(path);
    errno = 0;
    assert_int_equal(fl_write_file_atomic(g_dir, "x", 1), FL_ERR_IO);
    assert_int_equal(errno, EISDIR);
}

/* A write cut short by the file-size limit keeps the old file (it used to truncate it). */
static void test_failed_write_keeps_old(void **state) {
    (void)state;
    char path[512];
    path_in_dir(path, sizeof path, "old.bin");
    static const char old[] = "the previous content";
    write_file(path, old, sizeof old);
    static unsigned char big[3000];
    memset(big, 0xab, sizeof big);
    assert_int_equal(write_limited(path, big, sizeof big, 1024), FL_ERR_IO);
    assert_int_equal(errno, EFBIG);
    assert_true(file_is(path, old, sizeof old));
    assert_int_equal(count_temp_files(), 0);
    assert_int_equal(fl_write_file_atomic(path, big, sizeof big), FL_OK);
    assert_true(file_is(path, big, sizeof big));
    unlink(path);
}

/* A link is followed and its target replaced atomically: a failed write leaves the target
 * whole, a successful one leaves the link a link. Relative targets are relative to the
 * link's directory, chains are followed, a dangling link creates its target. */
static void test_symlink(void **state) {
    (void)state;
    char sub[512], target[512], link1[512], link2[512];
    path_in_dir(sub, sizeof sub, "sub");
    assert_int_equal(mkdir(sub, 0700), 0);
    path_in_dir(target, sizeof target, "sub/target.bin");
    path_in_dir(link1, sizeof link1, "sub/link1");
    path_in_dir(link2, sizeof link2, "link2");
    static const char old[] = "old target";
    write_file(target, old, sizeof old);
    assert_int_equal(symlink("target.bin", link1), 0); /* relative to sub/ */
    assert_int_equal(symlink("sub/link1", link2), 0);  /* relative to g_dir */

    static unsigned char big[3000];
    memset(big, 0x5a, sizeof big);
    assert_int_equal(write_limited(link2, big, sizeof big, 1024), FL_ERR_IO);
    assert_true(file_is(target, old, sizeof old));
    assert_int_equal(count_temp_files(), 0);

    assert_int_equal(fl_write_file_atomic(link2, big, sizeof big), FL_OK);
    struct stat sb;
    assert_int_equal(lstat(link2, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    assert_int_equal(lstat(link1, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    assert_true(file_is(target, big, sizeof big));

    /* Dangling: the target is created, the link kept. */
    unlink(target);
    assert_int_equal(fl_write_file_atomic(link1, old, sizeof old), FL_OK);
    assert_true(file_is(target, old, sizeof old));
    assert_int_equal(lstat(link1, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));

    /* A loop is refused, not followed forever. */
    char loop[512];
    path_in_dir(loop, sizeof loop, "loop");
    assert_int_equal(symlink("loop", loop), 0);
    errno = 0;
    assert_int_equal(fl_write_file_atomic(loop, old, sizeof old), FL_ERR_IO);
    assert_int_equal(errno, ELOOP);

    unlink(loop);
    unlink(link2);
    unlink(link1);
    unlink(target);
    rmdir(sub);
}

/* Every allocation fl_save_file makes, failed one at a time: FL_ERR_NO_MEMORY (never
 * FL_ERR_IO), the old file intact, no temporary left. */
static void test_save_no_memory(void **state) {
    (void)state;
    char path[512];
    path_in_dir(path, sizeof path, "nomem.flt");
    fl_filter *old = test_filter(FL_BLOCK512, 2, 4);
    fl_filter *f = test_filter(FL_BLOCK512, 16, 4);
    uint64_t *h = test_hashes(100, 7);
    assert_int_equal(fl_insert_hashes(f, h, 100, NULL), FL_OK);
    assert_int_equal(fl_save_file(old, path), FL_OK);
    int failures = 0;
    for (long n = 0;; n++) {
        fail_at = n;
        errno = 0;
        fl_status st = fl_save_file(f, path);
        int injected = fail_at < 0; /* the n-th allocation happened and failed */
        fail_at = -1;
        if (!injected) {
            assert_int_equal(st, FL_OK);
            break;
        }
        failures++;
        assert_int_equal(st, FL_ERR_NO_MEMORY);
        assert_int_equal(count_temp_files(), 0);
        fl_filter *g = NULL;
        assert_int_equal(fl_load_file(path, 0, &g), FL_OK);
        assert_int_equal(fl_size_bytes(g), fl_size_bytes(old));
        fl_free(g);
    }
    assert_true(failures >= 2); /* the temporary's name and the payload buffer */
    fl_filter *g = NULL;
    assert_int_equal(fl_load_file(path, 0, &g), FL_OK);
    assert_int_equal(fl_count(g), 100);
    fl_free(g);
    unlink(path);
    free(h);
    fl_free(f);
    fl_free(old);
}

/* ---- fl_set_interrupt_flag: a set flag abandons the save ---- */
static volatile sig_atomic_t stop_flag;

static void set_stop(int sig) {
    (void)sig;
    stop_flag = 1;
}

/* Set before the save: the regular file path stops at its first check, and the old file
 * and no temporary remain, for a buffer write and a streamed filter save alike. */
static void test_interrupt_keeps_old(void **state) {
    (void)state;
    char path[512];
    path_in_dir(path, sizeof path, "intr.bin");
    static const char old[] = "the previous content";
    write_file(path, old, sizeof old);
    static unsigned char big[3 << 20];
    memset(big, 0xcd, sizeof big);
    fl_filter *f = test_filter(FL_BLOCK512, 64, 4);
    assert_int_equal(fl_set_interrupt_flag(&stop_flag), FL_OK);
    stop_flag = 1;
    errno = 0;
    assert_int_equal(fl_write_file_atomic(path, big, sizeof big), FL_ERR_INTERRUPTED);
    assert_int_equal(errno, EINTR);
    assert_true(file_is(path, old, sizeof old));
    assert_int_equal(count_temp_files(), 0);
    assert_int_equal(fl_save_file(f, path), FL_ERR_INTERRUPTED);
    assert_true(file_is(path, old, sizeof old));
    assert_int_equal(count_temp_files(), 0);
    assert_non_null(strstr(fl_strerror(FL_ERR_INTERRUPTED), "left as it was"));
    /* Cleared, the same calls save; with no flag at all too. */
    stop_flag = 0;
    assert_int_equal(fl_write_file_atomic(path, big, sizeof big), FL_OK);
    assert_int_equal(fl_set_interrupt_flag(NULL), FL_OK);
    assert_int_equal(fl_save_file(f, path), FL_OK);
    fl_filter *g = NULL;
    assert_int_equal(fl_load_file(path, 0, &g), FL_OK);
    fl_free(g);
    fl_free(f);
    unlink(path);
}

/* Set in the middle of a write: a child reads 1.5 MiB of the 8 MiB sent into a FIFO, then
 * signals this process (whose handler sets the flag, as the CLI's does) and drains the rest.
 * The write loop must notice between its bounded writes and stop well short of the end:
 * the child reports how much it got. Deterministic: the writer cannot get past the
 * child's reads, and the signal comes at a fixed point of them. */
static void test_interrupt_mid_write(void **state) {
    (void)state;
    char fifo[512];
    path_in_dir(fifo, sizeof fifo, "intr.fifo");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    struct sigaction sa, old_sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = set_stop;
    sigemptyset(&sa.sa_mask);
    assert_int_equal(sigaction(SIGUSR1, &sa, &old_sa), 0);
    stop_flag = 0;
    assert_int_equal(fl_set_interrupt_flag(&stop_flag), FL_OK);
    const size_t total = (size_t)8 << 20;
    pid_t parent = getpid();
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        int fd = open(fifo, O_RDONLY);
        if (fd < 0) _exit(2);
        char buf[65536];
        size_t got = 0;
        int signalled = 0;
        for (;;) {
            ssize_t r = read(fd, buf, sizeof buf);
            if (r <= 0) break;
            got += (size_t)r;
            if (!signalled && got >= ((size_t)3 << 19)) {
                kill(parent, SIGUSR1);
                signalled = 1;
            }
        }
        /* 0: stopped short of the end, as it should; 1: everything arrived. */
        _exit(got < total ? 0 : 1);
    }
    unsigned char *big = malloc(total);
    assert_non_null(big);
    memset(big, 0x5a, total);
    fl_status st = fl_write_file_atomic(fifo, big, total);
    int status = 0;
    assert_int_equal(waitpid(child, &status, 0), child);
    fl_set_interrupt_flag(NULL);
    sigaction(SIGUSR1, &old_sa, NULL);
    free(big);
    unlink(fifo);
    assert_int_equal(st, FL_ERR_INTERRUPTED);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void) {
    if (scratch_dir_create("fl_test_atomic") != 0) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_args),
        cmocka_unit_test(test_failed_write_keeps_old),
        cmocka_unit_test(test_symlink),
        cmocka_unit_test(test_save_no_memory),
        cmocka_unit_test(test_interrupt_keeps_old),
        cmocka_unit_test(test_interrupt_mid_write),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    scratch_dir_remove();
    return rc;
}
