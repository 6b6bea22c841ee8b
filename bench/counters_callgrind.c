/*
 * Simulated cache misses: the parent re-runs one measured configuration as
 *
 *   valgrind --tool=callgrind --cache-sim=yes --instr-atstart=no --collect-atstart=no
 *            --D1=size,assoc,line --LL=size,assoc,line  flbench --cg-child <same config>
 *
 * The child builds the filter uninstrumented (fast), then CALLGRIND_START_INSTRUMENTATION
 * once, runs warm-up lookups with instrumentation on but collection off (so the simulated
 * caches fill), and brackets only the timed lookup loop with CALLGRIND_TOGGLE_COLLECT.
 * Starting/stopping instrumentation around the loop would flush the simulated caches and
 * report a cold-cache miss count, so it is used once, before the warm-up, and never again.
 *
 * The geometry comes from this machine's sysfs caches unless --D1/--LL are given. Valgrind
 * requires a power-of-two set count, so a last-level cache such as 20-way 260 MiB is
 * simulated with the same ways and line but the set count rounded down (noted in the
 * result). The child reports the kernel it really ran on stdout (valgrind's synthetic CPU
 * has no AVX-512, so such a kernel cannot be simulated and is reported as such).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef FB_HAVE_CALLGRIND_H
#include <valgrind/callgrind.h>
#endif

#include "flbench.h"

void fb_cg_start_instrumentation(void) {
#ifdef FB_HAVE_CALLGRIND_H
    CALLGRIND_START_INSTRUMENTATION;
#endif
}

void fb_cg_toggle_collect(void) {
#ifdef FB_HAVE_CALLGRIND_H
    CALLGRIND_TOGGLE_COLLECT;
#endif
}

int fb_cg_running_on_valgrind(void) {
#ifdef FB_HAVE_CALLGRIND_H
    return RUNNING_ON_VALGRIND ? 1 : 0;
#else
    return 0;
#endif
}

int fb_cg_valgrind_version(char *buf, size_t cap) {
    FILE *p = popen("valgrind --version 2>/dev/null", "r");
    if (!p)
        return -1;
    buf[0] = 0;
    if (!fgets(buf, (int)cap, p))
        buf[0] = 0;
    int st = pclose(p);
    buf[strcspn(buf, "\n")] = 0;
    return (st == 0 && buf[0]) ? 0 : -1;
}

static int is_pow2(uint64_t x) { return x && !(x & (x - 1)); }

/* "size,assoc,line" from one sysfs cache, with the set count made a power of two. */
static void geometry_of(const fb_cache *c, char *out, size_t cap, char *note, size_t ncap) {
    uint64_t ways = c->ways > 0 ? (uint64_t)c->ways : 1, line = c->line > 0 ? (uint64_t)c->line : 64;
    uint64_t sets = c->size / (ways * line);
    if (!sets)
        sets = 1;
    if (!is_pow2(sets)) {
        uint64_t p = 1;
        while (p * 2 <= sets)
            p *= 2;
        size_t len = strlen(note);
        snprintf(note + len, ncap - len,
                 "%sL%d %s %llu B %llu-way has %llu sets; simulated with %llu sets (%llu B) "
                 "because valgrind needs a power-of-two set count",
                 len ? "; " : "", c->level, c->type, (unsigned long long)c->size,
                 (unsigned long long)ways, (unsigned long long)sets, (unsigned long long)p,
                 (unsigned long long)(p * ways * line));
        sets = p;
    }
    snprintf(out, cap, "%llu,%llu,%llu", (unsigned long long)(sets * ways * line),
             (unsigned long long)ways, (unsigned long long)line);
}

void fb_cg_geometry_init(fb_cg_geometry *g, const char *d1, const char *ll) {
    memset(g, 0, sizeof *g);
    fb_machine m;
    fb_machine_read(&m);
    const fb_cache *l1 = NULL, *last = NULL;
    for (int i = 0; i < m.ncaches; i++) {
        const fb_cache *c = &m.caches[i];
        if (c->level == 1 && !strcmp(c->type, "Data"))
            l1 = c;
        if (strcmp(c->type, "Instruction") && (!last || c->level > last->level))
            last = c;
    }
    int from_sysfs = 0;
    if (d1)
        snprintf(g->d1, sizeof g->d1, "%s", d1);
    else if (l1) {
        geometry_of(l1, g->d1, sizeof g->d1, g->note, sizeof g->note);
        from_sysfs = 1;
    }
    if (ll)
        snprintf(g->ll, sizeof g->ll, "%s", ll);
    else if (last) {
        geometry_of(last, g->ll, sizeof g->ll, g->note, sizeof g->note);
        from_sysfs = 1;
    }
    snprintf(g->source, sizeof g->source, "%s",
             (d1 || ll) ? (from_sysfs ? "option+sysfs" : "option")
                        : (from_sysfs ? "sysfs" : "valgrind default"));
}

int fb_cg_parse(const char *path, fb_cg_result *r) {
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char names[16][16];
    int nnames = 0;
    double vals[16];
    int nvals = -1, have_totals = 0;
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, f) > 0) {
        int is_totals = !strncmp(line, "totals:", 7), is_summary = !strncmp(line, "summary:", 8);
        if (!strncmp(line, "events:", 7)) {
            nnames = 0;
            char *save = NULL;
            for (char *t = strtok_r(line + 7, " \t\n", &save); t && nnames < 16;
                 t = strtok_r(NULL, " \t\n", &save))
                snprintf(names[nnames++], sizeof names[0], "%s", t);
        } else if (is_totals || (is_summary && !have_totals)) {
            nvals = 0;
            char *save = NULL;
            for (char *t = strtok_r(line + (is_totals ? 7 : 8), " \t\n", &save); t && nvals < 16;
                 t = strtok_r(NULL, " \t\n", &save))
                vals[nvals++] = strtod(t, NULL);
            if (is_totals)
                have_totals = 1;
        }
    }
    free(line);
    fclose(f);
    if (nnames == 0 || nvals < 0)
        return -1;
    struct {
        const char *n;
        double *dst;
    } map[] = {{"Ir", &r->ir},     {"Dr", &r->dr},     {"Dw", &r->dw},    {"D1mr", &r->d1mr},
               {"D1mw", &r->d1mw}, {"DLmr", &r->dlmr}, {"DLmw", &r->dlmw}};
    for (size_t j = 0; j < sizeof map / sizeof map[0]; j++) {
        *map[j].dst = NAN;
        for (int i = 0; i < nnames; i++)
            if (!strcmp(names[i], map[j].n))
                *map[j].dst = i < nvals ? vals[i] : 0.0; /* trailing zeros may be omitted */
    }
    return isfinite(r->dlmr) && isfinite(r->d1mr) ? 0 : -1;
}

static void tail_of(const char *path, char *out, size_t cap) {
    FILE *f = fopen(path, "r");
    out[0] = 0;
    if (!f)
        return;
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    const char *start = n > cap - 1 ? buf + n - (cap - 1) : buf;
    size_t len = strlen(start);
    if (len > cap - 1)
        len = cap - 1;
    memcpy(out, start, len);
    out[len] = 0;
    for (char *c = out; *c; c++)
        if (*c == '\n')
            *c = ' ';
}

void fb_cg_run(const fb_cg_geometry *g, char *const child_args[], fb_cg_result *r) {
    memset(r, 0, sizeof *r);
    r->ir = r->dr = r->dw = r->d1mr = r->d1mw = r->dlmr = r->dlmw = NAN;
    char dir[] = "/tmp/flbench-cg-XXXXXX";
    if (!mkdtemp(dir)) {
        snprintf(r->note, sizeof r->note, "mkdtemp: %s", strerror(errno));
        return;
    }
    char outp[PATH_MAX], logp[PATH_MAX], o_out[PATH_MAX + 32], o_log[PATH_MAX + 32], o_d1[96],
        o_ll[96];
    snprintf(outp, sizeof outp, "%s/callgrind.out", dir);
    snprintf(logp, sizeof logp, "%s/valgrind.log", dir);
    snprintf(o_out, sizeof o_out, "--callgrind-out-file=%s", outp);
    snprintf(o_log, sizeof o_log, "--log-file=%s", logp);
    snprintf(o_d1, sizeof o_d1, "--D1=%s", g->d1);
    snprintf(o_ll, sizeof o_ll, "--LL=%s", g->ll);
    char *argv[96];
    int a = 0;
    argv[a++] = "valgrind";
    argv[a++] = "--tool=callgrind";
    argv[a++] = "--cache-sim=yes";
    argv[a++] = "--instr-atstart=no";
    argv[a++] = "--collect-atstart=no";
    if (g->d1[0])
        argv[a++] = o_d1;
    if (g->ll[0])
        argv[a++] = o_ll;
    argv[a++] = o_out;
    argv[a++] = o_log;
    for (int i = 0; child_args[i] && a < 95; i++)
        argv[a++] = child_args[i];
    argv[a] = NULL;

    int pfd[2];
    if (pipe(pfd) != 0) {
        snprintf(r->note, sizeof r->note, "pipe: %s", strerror(errno));
        rmdir(dir);
        return;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(pfd[1], STDOUT_FILENO);
        close(pfd[0]);
        close(pfd[1]);
        execvp("valgrind", argv);
        _exit(127);
    }
    close(pfd[1]);
    char out[1024] = {0};
    size_t used = 0;
    ssize_t got;
    while ((got = read(pfd[0], out + used, sizeof out - 1 - used)) > 0)
        used += (size_t)got;
    /* Drain anything beyond our buffer. */
    char sink[256];
    while (read(pfd[0], sink, sizeof sink) > 0)
        ;
    close(pfd[0]);
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) < 0) {
        snprintf(r->note, sizeof r->note, "cannot run valgrind: %s", strerror(errno));
        goto done;
    }
    const char *tag = strstr(out, "FLBENCH-CG ");
    if (tag) {
        unsigned long long lk = 0;
        char status[32] = "", kernel[32] = "";
        sscanf(tag, "FLBENCH-CG status=%31s lookups=%llu kernel=%31s", status, &lk, kernel);
        r->lookups = lk;
        snprintf(r->kernel, sizeof r->kernel, "%s", kernel);
        if (strcmp(status, "ok") != 0) {
            const char *why = strstr(tag, "why=");
            snprintf(r->note, sizeof r->note, "not simulated: %s",
                     why ? why + 4 : "the child could not run this configuration");
            r->note[strcspn(r->note, "\n")] = 0;
            goto done;
        }
    }
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || !tag) {
        char t[200];
        tail_of(logp, t, sizeof t);
        snprintf(r->note, sizeof r->note, "valgrind run failed (status %d): %.180s",
                 WIFEXITED(st) ? WEXITSTATUS(st) : -1, t);
        goto done;
    }
    if (fb_cg_parse(outp, r) != 0) {
        snprintf(r->note, sizeof r->note, "could not parse the callgrind output %.200s", outp);
        goto done;
    }
    r->ok = 1;
done:
    unlink(outp);
    unlink(logp);
    rmdir(dir);
}
