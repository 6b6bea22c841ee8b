/*
 * Shared helpers of the reproduction tools in bench/baselines/ (header-only, static):
 * a monotonic clock, a median, a minimal streaming JSON writer and
 * the machine-independent context every output file carries (library kernel, compiler).
 *
 * These tools use only the public API (filterlab.h), like the CLI and flbench.
 */
#ifndef FL_BASELINES_COMMON_H
#define FL_BASELINES_COMMON_H

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "filterlab.h"
#include "fb_rng.h" /* SplitMix64: the generator flbench uses too (fb_rng_*) */

static inline double bl_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The timed loop of a one-key lookup: t0 and t1 around hit (an expression of keys[i], 1 for a
 * positive) for i in [0, m), the positives added to p. A macro so that the call stays written
 * inline in the loop, as in a user's code. */
#define BL_TIME_KEYS(t0, t1, p, m, hit)                                                      \
    do {                                                                                     \
        (t0) = bl_now_ns();                                                                  \
        for (size_t i = 0; i < (m); i++) (p) += (size_t)(hit);                               \
        (t1) = bl_now_ns();                                                                  \
    } while (0)
/* The whole body of a one-key timing function: returns ns per key, the positives in *pos. */
#define BL_TIME_ONE_KEY(m, pos, hit)                                                         \
    do {                                                                                     \
        double t0_, t1_;                                                                     \
        size_t p_ = 0;                                                                       \
        BL_TIME_KEYS(t0_, t1_, p_, m, hit);                                                  \
        *(pos) = p_;                                                                         \
        return (t1_ - t0_) / (double)(m);                                                    \
    } while (0)

static inline int bl_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n) (sorts v in place); NaN for n = 0. */
static inline double bl_median(double *v, size_t n)
{
    if (!n)
        return NAN;
    qsort(v, n, sizeof *v, bl_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* A lookup stream for a filter holding the keys [0, n): half of them inserted keys (uniform
 * over [0, n)), half never inserted (above 2^62), mixed by a coin per position; the same
 * stream for the same n (single_key, vqf_probe_forms). */
static inline void bl_half_hit_stream(uint64_t *stream, size_t lookups, uint64_t n)
{
    const uint64_t miss_base = UINT64_C(1) << 62;
    fb_rng rng = {n * 7919 + 1};
    for (size_t i = 0; i < lookups; i++)
        stream[i] = (fb_rng_next(&rng) & 1) ? fb_rng_below(&rng, n)
                                             : miss_base + fb_rng_next(&rng) % miss_base;
}

/* A vector quotient filter sized for n keys (fl_vqf_create(n), seed 1) holding [0, n), one
 * fl_vqf_insert_u64 a key: single_key's and vqf_probe_forms' filter. NULL after
 * "<tool>: vqf n=N: <error>" on stderr. */
static inline fl_vqf *bl_vqf_of_range(uint64_t n, const char *tool)
{
    fl_vqf *v;
    fl_status s = fl_vqf_create(n, 1, &v);
    for (uint64_t key = 0; s == FL_OK && key < n; key++)
        s = fl_vqf_insert_u64(v, key);
    if (s == FL_OK)
        return v;
    fprintf(stderr, "%s: vqf n=%llu: %s\n", tool, (unsigned long long)n, fl_strerror(s));
    fl_vqf_free(v);
    return NULL;
}

/* The value of option argv[*i], the next argument (*i moves to it), or NULL after
 * "<tool>: <option> needs a value" on stderr. */
static inline const char *bl_option_value(int argc, char **argv, int *i, const char *tool)
{
    if (*i + 1 >= argc) {
        fprintf(stderr, "%s: %s needs a value\n", tool, argv[*i]);
        return NULL;
    }
    return argv[++*i];
}

static inline void *bl_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory (%zu bytes)\n", n);
        exit(2);
    }
    return p;
}

/* Parses "a,b,c" into doubles; returns the count (at most cap), -1 on a bad number. */
static inline int bl_parse_list(const char *s, double *out, int cap)
{
    int n = 0;
    const char *p = s;
    while (*p && n < cap) {
        char *end;
        double v = strtod(p, &end);
        if (end == p || !isfinite(v))
            return -1;
        out[n++] = v;
        p = end;
        if (*p == ',')
            p++;
        else if (*p)
            return -1;
    }
    return n;
}

/* ---- a streaming JSON writer: objects and arrays with automatic commas ---- */
typedef struct bl_json {
    FILE *f;
    int depth;
    int first[32]; /* no element written yet at this depth */
} bl_json;

static inline void bl_json_init(bl_json *j, FILE *f)
{
    memset(j, 0, sizeof *j);
    j->f = f;
    j->first[0] = 1;
}

static inline void bl_json_sep(bl_json *j)
{
    if (!j->first[j->depth])
        fputc(',', j->f);
    j->first[j->depth] = 0;
}

static inline void bl_json_str_raw(bl_json *j, const char *s)
{
    fputc('"', j->f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(j->f, "\\%c", c);
        else if (c < 0x20)
            fprintf(j->f, "\\u%04x", c);
        else
            fputc(c, j->f);
    }
    fputc('"', j->f);
}

static inline void bl_json_key(bl_json *j, const char *key)
{
    bl_json_sep(j);
    if (key) {
        bl_json_str_raw(j, key);
        fputc(':', j->f);
    }
}

static inline void bl_json_open(bl_json *j, const char *key, char c)
{
    bl_json_key(j, key);
    fputc(c, j->f);
    j->depth++;
    j->first[j->depth] = 1;
}

static inline void bl_json_close(bl_json *j, char c)
{
    j->depth--;
    fputc(c, j->f);
    if (j->depth == 0)
        fputc('\n', j->f);
}

static inline void bl_json_num(bl_json *j, const char *key, double v)
{
    bl_json_key(j, key);
    if (isfinite(v))
        fprintf(j->f, "%.17g", v);
    else
        fputs("null", j->f);
}

static inline void bl_json_int(bl_json *j, const char *key, long long v)
{
    bl_json_key(j, key);
    fprintf(j->f, "%lld", v);
}

static inline void bl_json_str(bl_json *j, const char *key, const char *s)
{
    bl_json_key(j, key);
    if (s)
        bl_json_str_raw(j, s);
    else
        fputs("null", j->f);
}

/* The facts every output carries; the runner adds host, commit and date. */
static inline void bl_json_context(bl_json *j, const char *tool)
{
    bl_json_open(j, "context", '{');
    bl_json_str(j, "tool", tool);
    bl_json_str(j, "kernel", fl_kernel_active());
    bl_json_str(j, "kernel_reason", fl_kernel_reason());
#if defined(__clang__)
    bl_json_str(j, "compiler", "clang " __clang_version__);
#elif defined(__GNUC__)
    bl_json_str(j, "compiler", "gcc " __VERSION__);
#else
    bl_json_str(j, "compiler", "unknown");
#endif
    char ver[32];
    snprintf(ver, sizeof ver, "%d.%d.%d", FL_VERSION_MAJOR, FL_VERSION_MINOR, FL_VERSION_PATCH);
    bl_json_str(j, "filterlab_version", ver);
    bl_json_close(j, '}');
}

/* Opens the output: "-" or NULL is stdout. Exits with status 2 on failure. */
static inline FILE *bl_open_out(const char *path)
{
    if (!path || !strcmp(path, "-"))
        return stdout;
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(2);
    }
    return f;
}

/* Starts an output document: path opened as bl_open_out does, the top-level object opened
 * and the context of `tool` written into it. */
static inline void bl_json_begin(bl_json *j, const char *path, const char *tool)
{
    bl_json_init(j, bl_open_out(path));
    bl_json_open(j, NULL, '{');
    bl_json_context(j, tool);
}

static inline void bl_close_out(FILE *f)
{
    if (f == stdout) {
        fflush(f);
        return;
    }
    if (fclose(f) != 0) {
        perror("write");
        exit(2);
    }
}

#endif /* FL_BASELINES_COMMON_H */
