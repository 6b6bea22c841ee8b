/*
 * The values of flbench's options: numbers, sizes and size ranges, lists of filters, kernels,
 * hit rates, structures and integers, and the default size sweep derived from the caches.
 * A bad value exits 1 with one "flbench: ..." line (fb_usage_error), as filterlab does.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "option_values.h"

/* A usage error: one line, exit 1. */
_Noreturn void fb_usage_error(const char *fmt, const char *arg) {
    fprintf(stderr, "flbench: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (see 'flbench --help')\n");
    exit(1);
}

uint64_t fb_parse_u64(const char *s, const char *what) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s || *end || s[0] == '-')
        fb_usage_error("bad number for %s", what);
    return v;
}

double fb_parse_double(const char *s, const char *what) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v))
        fb_usage_error("bad number for %s", what);
    return v;
}

/* "64K", "1MiB", "2G", "4096", "2^20". */
int fb_parse_size(const char *s, uint64_t *out) {
    char *end;
    if (!strncmp(s, "2^", 2)) {
        unsigned long e = strtoul(s + 2, &end, 10);
        if (*end || e > 62)
            return -1;
        *out = UINT64_C(1) << e;
        return 0;
    }
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || v < 0)
        return -1;
    uint64_t mul = 1;
    if (*end) {
        char u = (char)(*end | 0x20);
        mul = u == 'k' ? UINT64_C(1) << 10 : u == 'm' ? UINT64_C(1) << 20
            : u == 'g' ? UINT64_C(1) << 30 : u == 't' ? UINT64_C(1) << 40 : 0;
        if (!mul)
            return -1;
        end++;
        if (!strcasecmp(end, "ib") || !strcasecmp(end, "b"))
            end += strlen(end);
        if (*end)
            return -1;
    }
    *out = (uint64_t)(v * (double)mul + 0.5);
    return *out ? 0 : -1;
}

static void add_size(fb_options *o, uint64_t v) {
    uint64_t *n = realloc(o->sizes, (o->nsizes + 1) * sizeof *n);
    if (!n) {
        fprintf(stderr, "flbench: out of memory\n");
        exit(2);
    }
    o->sizes = n;
    o->sizes[o->nsizes++] = v;
}

void fb_parse_sizes(fb_options *o, const char *spec) {
    o->nsizes = 0;
    const char *dots = strstr(spec, "..");
    if (dots) {
        char a[64], b[64];
        size_t la = (size_t)(dots - spec);
        if (la >= sizeof a)
            fb_usage_error("bad --sizes range '%s'", spec);
        memcpy(a, spec, la);
        a[la] = 0;
        snprintf(b, sizeof b, "%s", dots + 2);
        unsigned step = 1;
        char *colon = strchr(b, ':');
        if (colon) {
            *colon = 0;
            step = (unsigned)fb_parse_u64(colon + 1, "--sizes step");
            if (step == 0 || step > 16)
                fb_usage_error("bad --sizes step in '%s'", spec);
        }
        uint64_t lo = 0, hi = 0;
        char *end;
        unsigned long ea = strtoul(a, &end, 10);
        int exps = *end == 0 && ea < 63;
        unsigned long eb = strtoul(b, &end, 10);
        exps = exps && *end == 0 && eb < 63;
        if (exps) {
            lo = UINT64_C(1) << ea;
            hi = UINT64_C(1) << eb;
        } else if (fb_parse_size(a, &lo) || fb_parse_size(b, &hi)) {
            fb_usage_error("bad --sizes range '%s'", spec);
        }
        if (lo > hi)
            fb_usage_error("empty --sizes range '%s'", spec);
        for (uint64_t v = lo; v <= hi; v <<= step) {
            add_size(o, v);
            if (v > (UINT64_MAX >> step))
                break;
        }
        return;
    }
    char *copy = strdup(spec), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        uint64_t v;
        if (fb_parse_size(t, &v))
            fb_usage_error("bad size '%s' in --sizes", t);
        add_size(o, v);
    }
    free(copy);
    if (!o->nsizes)
        fb_usage_error("empty --sizes '%s'", spec);
}

void fb_parse_filters(fb_options *o, const char *spec) {
    o->nvariants = 0;
    if (!strcmp(spec, "all")) {
        for (int v = FL_VARIANT_MIN; v <= FL_VARIANT_MAX; v++)
            o->variants[o->nvariants++] = (fl_variant)v;
        return;
    }
    char *copy = strdup(spec), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        fl_variant v;
        if (fl_variant_parse(t, &v) != FL_OK)
            fb_usage_error("unknown filter '%s' (see --list; or all)", t);
        if (o->nvariants == FB_MAX_VARIANTS)
            fb_usage_error("too many filters in '%s'", spec);
        o->variants[o->nvariants++] = v;
    }
    free(copy);
}

void fb_parse_kernels(fb_options *o, const char *spec) {
    o->nkernels = 0;
    size_t nk = fl_kernel_count();
    if (!strcmp(spec, "all")) {
        for (size_t i = 0; i < nk && o->nkernels < FB_MAX_KERNELS; i++) {
            fl_kernel_desc d;
            /* Emulated kernels (NEON through SIMDe on x86) are correct but not fast: only
             * benchmarked when named. */
            if (fl_kernel_describe(i, &d) == FL_OK && d.supported && !d.emulated)
                snprintf(o->kernels[o->nkernels++], sizeof o->kernels[0], "%s", d.name);
        }
        if (!o->nkernels)
            fb_usage_error("no supported kernel (%s)", spec);
        return;
    }
    char *copy = strdup(spec), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        const char *name = t;
        /* "auto": the library's choice per module entry and payload size (binding "auto"
         * leaves an object on it), not one ISA. */
        int found = !strcmp(t, "auto");
        for (size_t i = 0; i < nk; i++) {
            fl_kernel_desc d;
            if (fl_kernel_describe(i, &d) != FL_OK || strcmp(d.name, name))
                continue;
            found = 1;
            /* Under valgrind (the callgrind child) the synthetic CPU may lack the kernel's
             * ISA: the child reports that itself instead of failing here. */
            if (!d.supported && !o->cg_child)
                fb_usage_error("kernel '%s' is compiled in but this CPU cannot run it", name);
        }
        if (!found)
            fb_usage_error("unknown kernel '%s' (see --list)", name);
        if (o->nkernels == FB_MAX_KERNELS)
            fb_usage_error("too many kernels in '%s'", spec);
        snprintf(o->kernels[o->nkernels++], sizeof o->kernels[0], "%s", name);
    }
    free(copy);
}

void fb_parse_hits(fb_options *o, const char *spec) {
    o->nhits = 0;
    char *copy = strdup(spec), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        double h = fb_parse_double(t, "--hit-rate");
        if (h < 0 || h > 1)
            fb_usage_error("--hit-rate values must be in [0, 1], not %s", t);
        if (o->nhits == FB_MAX_HITS)
            fb_usage_error("too many hit rates in '%s'", spec);
        o->hits[o->nhits++] = h;
    }
    free(copy);
    if (!o->nhits)
        fb_usage_error("empty --hit-rate '%s'", spec);
}

/* The structures' names and bits, and the groups "family" and "all", from FB_STRUCTURES. */
#define FB_ST_ENTRY_(id, name, fam, ...) {name, FB_ST_##id, fam},
static const struct {
    const char *name;
    unsigned bit;
    int in_family;
} structures[] = {FB_STRUCTURES(FB_ST_ENTRY_)};
#undef FB_ST_ENTRY_
#define NSTRUCTURES (sizeof structures / sizeof structures[0])

/* The names joined by sep, those of one group (in_family) or all; the bits in *bits. */
static void structure_names(char *buf, size_t cap, const char *sep, int family_only,
                            unsigned *bits) {
    buf[0] = 0;
    *bits = 0;
    for (size_t i = 0; i < NSTRUCTURES; i++) {
        if (family_only && !structures[i].in_family)
            continue;
        snprintf(buf + strlen(buf), cap - strlen(buf), "%s%s", buf[0] ? sep : "",
                 structures[i].name);
        *bits |= structures[i].bit;
    }
}

void fb_parse_structures(fb_options *o, const char *spec) {
    char names[256];
    unsigned family;
    structure_names(names, sizeof names, ", ", 1, &family);
    o->structures = 0;
    char *copy = strdup(spec), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        unsigned bit = 0;
        for (size_t i = 0; i < NSTRUCTURES && !bit; i++)
            if (!strcmp(t, structures[i].name))
                bit = structures[i].bit;
        if (!strcmp(t, "family"))
            bit = family;
        else if (!strcmp(t, "all"))
            bit = FB_ST_ALL;
        if (!bit) {
            char msg[300];
            structure_names(names, sizeof names, ", ", 0, &bit);
            snprintf(msg, sizeof msg, "unknown structure '%%s' (%s, family, all)", names);
            fb_usage_error(msg, t);
        }
        o->structures |= bit;
    }
    free(copy);
    if (!o->structures)
        fb_usage_error("empty --structure '%s'", spec);
}

void fb_structures_help(char *buf, size_t cap, unsigned defaults) {
    char all[256], family[256], dflt[256] = "";
    unsigned bits;
    structure_names(all, sizeof all, ",", 0, &bits);
    structure_names(family, sizeof family, ",", 1, &bits);
    for (size_t i = 0; i < NSTRUCTURES; i++)
        if (defaults & structures[i].bit)
            snprintf(dflt + strlen(dflt), sizeof dflt - strlen(dflt), "%s%s", dflt[0] ? "," : "",
                     structures[i].name);
    snprintf(buf, cap, "%s, family (= %s) or all\n[%s]", all, family, dflt);
}

/* A comma-separated list of integers in [lo, hi] into v (at most FB_MAX_PARAMS). */
size_t fb_parse_u32_list(const char *spec, const char *what, uint32_t lo, uint32_t hi,
                         uint32_t *v) {
    size_t n = 0;
    char *copy = strdup(spec), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        uint64_t x = fb_parse_u64(t, what);
        if (x < lo || x > hi) {
            char msg[96];
            snprintf(msg, sizeof msg, "%s values must be in %u..%u, not %%s", what, lo, hi);
            fb_usage_error(msg, t);
        }
        if (n == FB_MAX_PARAMS)
            fb_usage_error("too many values in %s", what);
        v[n++] = (uint32_t)x;
    }
    free(copy);
    if (!n)
        fb_usage_error("empty %s", what);
    return n;
}

static uint64_t pow2_floor(uint64_t x) {
    uint64_t p = 1;
    while (p <= x / 2)
        p *= 2;
    return p;
}

static uint64_t pow2_ceil(uint64_t x) {
    uint64_t p = 1;
    while (p < x)
        p *= 2;
    return p;
}

/* L1d/2 up to ~3x the last-level cache (rounded up to a power of two), every 4x, never above
 * a quarter of the available memory. --quick: every 16x and at most 256 MiB, because
 * building GiB-sized filters dominates the run time (about a minute each for classic and
 * cuckoo on a 2-vCPU VM). */
void fb_default_sizes(fb_options *o, const fb_machine *m) {
    uint64_t lo = m->l1d ? pow2_floor(m->l1d / 2) : (UINT64_C(1) << 14);
    uint64_t hi = m->llc ? pow2_ceil(3 * m->llc) : (UINT64_C(1) << 28);
    if (o->quick && hi > (UINT64_C(1) << 28))
        hi = UINT64_C(1) << 28;
    if (m->mem_available && hi > pow2_floor(m->mem_available / 4))
        hi = pow2_floor(m->mem_available / 4);
    if (hi < lo)
        hi = lo;
    unsigned step = o->quick ? 4 : 2;
    o->nsizes = 0;
    uint64_t v = lo;
    for (; v <= hi; v <<= step)
        add_size(o, v);
    if (o->sizes[o->nsizes - 1] != hi)
        add_size(o, hi);
    o->sizes_default = 1;
}

void fb_options_sizes(fb_options *o, const fb_cli *cli, const fb_machine *m) {
    if (cli->sizes)
        fb_parse_sizes(o, cli->sizes);
    else
        fb_default_sizes(o, m);
}
