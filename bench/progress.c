/*
 * Progress and status on stderr. On a terminal (and without --quiet) one line, rewritten in
 * place with a carriage return: benchmark i of N, time elapsed, an estimate of the time left,
 * and what runs now. Otherwise the status messages ("split256 1MiB: building") are plain
 * lines, as a log wants them, and --quiet drops them.
 *
 * The state is process-wide, not in a struct handed around: the line lives on the one stderr,
 * and every writer to the terminal (warnings, the console table, the final "wrote") must
 * erase it first (fb_progress_clear), wherever it is called from.
 *
 * The estimate assumes the benchmarks left take as long as the ones done on average: a
 * rough guide (a DRAM-sized build takes far longer than a lookup configuration), refreshed
 * as the run goes.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "flbench.h"

static struct {
    int line;       /* draw the progress line (stderr is a terminal, not --quiet) */
    int quiet;      /* no status lines either */
    int shown;      /* the line is on the screen now */
    size_t total, done;
    double t0, last_draw;
    char label[160];
} pg;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void fmt_secs(double s, char *buf, size_t cap) {
    long t = (long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, cap, "%ldh%02ldm", t / 3600, t / 60 % 60);
    else
        snprintf(buf, cap, "%ldm%02lds", t / 60, t % 60);
}

void fb_progress_init(int quiet) {
    memset(&pg, 0, sizeof pg);
    pg.quiet = quiet;
    pg.line = !quiet && isatty(STDERR_FILENO);
    pg.t0 = now_s();
}

int fb_progress_active(void) { return pg.line; }

void fb_progress_plan(size_t n) { pg.total += n; }

static void draw(void) {
    if (!pg.line)
        return;
    double t = now_s(), el = t - pg.t0;
    char e[32], left[48] = "";
    fmt_secs(el, e, sizeof e);
    if (pg.done > 0 && pg.total > pg.done) {
        char l[32];
        fmt_secs(el / (double)pg.done * (double)(pg.total - pg.done), l, sizeof l);
        snprintf(left, sizeof left, ", ~%s left", l);
    }
    char msg[320];
    size_t shown_done = pg.done < pg.total ? pg.done + 1 : pg.total;
    int n = snprintf(msg, sizeof msg, "flbench: benchmark %zu of %zu, %s elapsed%s%s%s",
                     shown_done, pg.total, e, left, pg.label[0] ? ": " : "", pg.label);
    /* Never wider than the terminal: a wrapped line cannot be rewritten by '\r'. */
    struct winsize ws;
    size_t cols = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 ? ws.ws_col : 80;
    if (n > 0 && (size_t)n >= cols)
        msg[cols - 1] = 0;
    fprintf(stderr, "\r%s\033[K", msg);
    fflush(stderr);
    pg.shown = 1;
    pg.last_draw = t;
}

void fb_progress_clear(void) {
    if (!pg.shown)
        return;
    fprintf(stderr, "\r\033[K");
    fflush(stderr);
    pg.shown = 0;
}

void fb_progress_done(size_t n) {
    pg.done += n;
    if (pg.done > pg.total) /* a suite ran more than planned: keep "i of N" truthful */
        pg.total = pg.done;
    draw();
}

void fb_progress_tick(void) {
    /* Called between repetitions: redraws at most twice a second, so that the elapsed time
     * moves during a long configuration. */
    if (pg.line && now_s() - pg.last_draw >= 0.5)
        draw();
}

void fb_status(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (pg.line) {
        vsnprintf(pg.label, sizeof pg.label, fmt, ap);
        draw();
    } else if (!pg.quiet) {
        fprintf(stderr, "flbench: ");
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
    }
    va_end(ap);
}

int fb_quiet(void) { return pg.quiet; }
