/*
 * Progress of long reads on a terminal: "filterlab: build: 12345678 lines, 1.10 GiB of
 * 4.20 GiB (26%), 2.31M lines/s", redrawn in place with '\r' at most four times a second
 * and erased when the input ends or a message is printed.
 *
 * Only when standard error is a terminal: pipes, files, tests and scripts see exactly what
 * they saw before. `filterlab --quiet` or FILTERLAB_PROGRESS=0 turn it off. Commands that
 * build from their input (build, build-static, layered-build, dedup writing to a file,
 * count, freq, top) bracket their reading with cli_progress_start/stop; the readers of
 * src/cli/lines.c report every line through cli_progress_line, so no loop has its own code.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define REDRAW_NS 250000000LL /* four updates a second at most */

/* stderr is a terminal, and neither --quiet nor FILTERLAB_PROGRESS=0 */
static int allowed;

static struct {
    const char *cmd;   /* non-NULL while a command's reading is tracked */
    uint64_t lines, bytes;
    uint64_t total;    /* bytes of the inputs opened so far, if all are regular files */
    int total_known;
    int64_t start_ns, last_ns;
    uint64_t bytes_at_check;
    int shown;         /* a progress line is on the terminal */
} P;

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void cli_progress_setup(int quiet)
{
    const char *env = getenv("FILTERLAB_PROGRESS");
    allowed = !quiet && !(env && strcmp(env, "0") == 0) && isatty(STDERR_FILENO);
}

void cli_progress_start(const char *cmd)
{
    if (!allowed)
        return;
    memset(&P, 0, sizeof P);
    P.cmd = cmd;
    P.total_known = 1;
    P.start_ns = P.last_ns = now_ns();
}

int cli_progress_active(void)
{
    return P.cmd != NULL;
}

void cli_progress_input(FILE *fp)
{
    if (!P.cmd)
        return;
    struct stat sb;
    if (fstat(fileno(fp), &sb) == 0 && S_ISREG(sb.st_mode)) {
        /* Reading may not start at offset 0 (stdin redirected after a partial read). */
        off_t at = ftello(fp);
        P.total += (uint64_t)sb.st_size - (at > 0 && at <= sb.st_size ? (uint64_t)at : 0);
    } else {
        P.total_known = 0;
    }
}

/* "1.23M" style: three significant digits. */
static void short_count(double v, char *buf, size_t cap)
{
    static const char *const suffix[] = {"", "k", "M", "G", "T"};
    size_t i = 0;
    while (v >= 999.5 && i + 1 < sizeof suffix / sizeof suffix[0]) {
        v /= 1000;
        i++;
    }
    snprintf(buf, cap, i ? (v < 9.995 ? "%.2f%s" : v < 99.95 ? "%.1f%s" : "%.0f%s") : "%.0f%s",
             v, suffix[i]);
}

static void draw(int64_t t)
{
    char line[160], got[32], total[32], rate[32];
    double secs = (double)(t - P.start_ns) * 1e-9;
    cli_human_bytes(P.bytes, got, sizeof got);
    short_count(secs > 0 ? (double)P.lines / secs : 0, rate, sizeof rate);
    if (P.total_known && P.total >= P.bytes && P.total > 0) {
        cli_human_bytes(P.total, total, sizeof total);
        snprintf(line, sizeof line, "filterlab: %s: %llu lines, %s of %s (%.0f%%), %s lines/s",
                     P.cmd, (unsigned long long)P.lines, got, total,
                     100.0 * (double)P.bytes / (double)P.total, rate);
    } else {
        snprintf(line, sizeof line, "filterlab: %s: %llu lines, %s, %s lines/s", P.cmd,
                     (unsigned long long)P.lines, got, rate);
    }
    /* '\r' back to the start, the text, ESC [ K (erase to the end of the line: ECMA-48
     * EL) for what a longer previous line left. */
    fprintf(stderr, "\r%s\033[K", line);
    fflush(stderr);
    P.shown = 1;
}

void cli_progress_line(size_t bytes)
{
    P.lines++;
    P.bytes += bytes;
    /* The clock is read every 256 lines, or after each MiB of long lines. */
    if ((P.lines & 255) && P.bytes - P.bytes_at_check < ((uint64_t)1 << 20))
        return;
    P.bytes_at_check = P.bytes;
    int64_t t = now_ns();
    if (t - P.last_ns < REDRAW_NS)
        return;
    P.last_ns = t;
    draw(t);
}

void cli_progress_clear(void)
{
    if (!P.shown)
        return;
    fputs("\r\033[K", stderr);
    fflush(stderr);
    P.shown = 0;
}

void cli_progress_stop(void)
{
    cli_progress_clear();
    P.cmd = NULL;
}
