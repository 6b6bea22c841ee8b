/*
 * The values of flbench's options (option_values.c): parsers that exit 1 with one
 * "flbench: ..." line on a bad value. Included by options.c only.
 */
#ifndef FB_OPTION_VALUES_H
#define FB_OPTION_VALUES_H

#include "flbench.h"

/* A usage error: "flbench: " fmt (with arg for its %s) " (see 'flbench --help')", exit 1. */
_Noreturn void fb_usage_error(const char *fmt, const char *arg);
uint64_t fb_parse_u64(const char *s, const char *what);
double fb_parse_double(const char *s, const char *what);
/* "64K", "1MiB", "2G", "4096", "2^20"; -1 if it is none of those or 0. */
int fb_parse_size(const char *s, uint64_t *out);
/* --sizes: a list or a log2 range (14..30:2, 16K..1G). */
void fb_parse_sizes(fb_options *o, const char *spec);
/* --filter: variant names or "all". */
void fb_parse_filters(fb_options *o, const char *spec);
/* --kernel: kernel names, "auto", or "all" (every native one). */
void fb_parse_kernels(fb_options *o, const char *spec);
/* --hit-rate: fractions in [0, 1]. */
void fb_parse_hits(fb_options *o, const char *spec);
/* --structure: names of FB_STRUCTURES, "family" or "all". */
void fb_parse_structures(fb_options *o, const char *spec);
/* --help's names of --structure and its default: "filter,sbf,... family (= ...) or all\n[filter]". */
void fb_structures_help(char *buf, size_t cap, unsigned defaults);
/* A comma-separated list of integers in [lo, hi] into v (at most FB_MAX_PARAMS); the count. */
size_t fb_parse_u32_list(const char *spec, const char *what, uint32_t lo, uint32_t hi,
                         uint32_t *v);

#endif /* FB_OPTION_VALUES_H */
