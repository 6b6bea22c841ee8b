/*
 * Standard output, checked: every write goes through here so that the first write error
 * (and its errno) is remembered; EPIPE must end the run quietly, others loudly.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static int out_errno; /* errno of the first failed write to stdout, 0 if none */

void cli_out_init(void)
{
    /* A terminal keeps line buffering (interactive dedup shows lines as they come);
     * pipes and files get a large buffer because query/dedup write one line per key. */
    if (!isatty(STDOUT_FILENO))
        setvbuf(stdout, NULL, _IOFBF, 1 << 16);
}

static void out_note_error(void)
{
    if (!out_errno)
        out_errno = errno ? errno : EIO;
}

void cli_out(const void *p, size_t n)
{
    if (out_errno || n == 0)
        return;
    errno = 0;
    if (fwrite(p, 1, n, stdout) != n)
        out_note_error();
}

void cli_out_line(const void *p, size_t n)
{
    cli_out(p, n);
    cli_out("\n", 1);
}

void cli_outf(const char *fmt, ...)
{
    if (out_errno)
        return;
    va_list ap;
    va_start(ap, fmt);
    errno = 0;
    int r = vfprintf(stdout, fmt, ap);
    va_end(ap);
    if (r < 0)
        out_note_error();
}

int cli_out_failed(void)
{
    return out_errno != 0;
}

int cli_out_finish(int quiet)
{
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout))
        out_note_error();
    if (!out_errno || out_errno == EPIPE || quiet)
        return EXIT_OK;
    return cli_fail(EXIT_DATA, "cannot write output: %s", strerror(out_errno));
}
