/*
 * gcf_load: the load at which a growing cuckoo filter's eviction walk first fails, by the
 * window bits W and the doublings done, the measurement behind FL_GCF_GROW_LOAD and
 * FL_GCF_W_MIN (include/filterlab_gcf.h).
 *
 *   gcf_load [--seeds S] [--md FILE] [--json FILE]
 *
 * For W = 1, 2, 4, 6, 8, 10, 12, 14, 16 with 8 columns (a table of 8 << W buckets) and for d = 0, 3 and 7 doublings: the filter is grown by inserts
 * to d doublings, its byte limit is then set to its table (so it cannot double), and it is
 * filled with distinct keys until an insert is refused (the walk failed). The load (items /
 * slots) at that refusal, min / median / max over S seeds (default 20). A window of 2^W
 * stripes is where a key's two buckets live: narrow windows fill unevenly, and after d
 * doublings the table holds 8 << d of them per column. The table is made by the library's
 * internal fl_gcf_new (fl_gcf_create picks W of at least FL_GCF_W_MIN, and smaller ones are
 * what this measures); the rest is the public API. Tables past 8 << 20 buckets are filled
 * once (they vary least).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcf/gcf_internal.h"

static const uint32_t WS[] = {1, 2, 4, 6, 8, 10, 12, 14, 16};
static const uint32_t DS[] = {0, 3, 7};
#define NW (sizeof WS / sizeof WS[0])
#define ND (sizeof DS / sizeof DS[0])

typedef struct row {
    uint32_t w, d, runs, d_min; /* d_min: the fewest doublings a run reached */
    uint64_t buckets;
    double min_load, med_load, max_load;
} row;

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* A filter of 8 << w buckets (c = 8, W = w), grown to d doublings, filled to failure. */
static int measure(uint32_t w, uint32_t d, uint32_t seeds, row *r) {
    double *loads = malloc(seeds * sizeof *loads);
    if (!loads) return 1;
    memset(r, 0, sizeof *r);
    r->d = d;
    r->d_min = d;
    r->runs = seeds;
    for (uint32_t s = 0; s < seeds; s++) {
        fl_gcf *g = NULL;
        if (w + d > 20 && s > 0) {
            loads[s] = loads[0];
            continue;
        }
        if (fl_gcf_new(8, w, w, 0x5000 + s, &g) != FL_OK) return 1;
        fl_gcf_info info;
        fl_gcf_info_get(g, &info);
        r->w = info.window_bits;
        uint64_t k = 0;
        /* keys (s << 40) + k: distinct within a run */
        /* a walk that fails below FL_GCF_KICK_GROW_LOAD refuses the insert instead of
         * doubling (narrow windows): the table is then measured where it stopped */
        while (info.doublings < d && fl_gcf_insert_u64(g, ((uint64_t)s << 40) + k) == FL_OK) {
            k++;
            fl_gcf_info_get(g, &info);
        }
        if (info.doublings < r->d_min) r->d_min = info.doublings;
        fl_gcf_set_byte_limit(g, info.bytes);
        while (fl_gcf_insert_u64(g, ((uint64_t)s << 40) + k) == FL_OK) k++;
        fl_gcf_info_get(g, &info);
        loads[s] = info.load;
        r->buckets = info.buckets;
        fl_gcf_free(g);
    }
    qsort(loads, seeds, sizeof *loads, cmp_double);
    r->min_load = loads[0];
    r->med_load = loads[seeds / 2];
    r->max_load = loads[seeds - 1];
    free(loads);
    return 0;
}

int main(int argc, char **argv) {
    uint32_t seeds = 20;
    const char *md = NULL, *json = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seeds") && i + 1 < argc)
            seeds = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--md") && i + 1 < argc)
            md = argv[++i];
        else if (!strcmp(argv[i], "--json") && i + 1 < argc)
            json = argv[++i];
        else {
            fprintf(stderr, "usage: gcf_load [--seeds S] [--md FILE] [--json FILE]\n");
            return 2;
        }
    }
    if (seeds == 0) seeds = 1;
    row rows[NW * ND];
    size_t nr = 0;
    for (size_t wi = 0; wi < NW; wi++)
        for (size_t di = 0; di < ND; di++) {
            if (measure(WS[wi], DS[di], seeds, &rows[nr]) != 0) {
                fprintf(stderr, "gcf_load: W=%u d=%u failed\n", WS[wi], DS[di]);
                return 1;
            }
            fprintf(stderr, "W=%u d=%u (reached %u) buckets=%llu load min %.4f med %.4f max %.4f\n",
                    rows[nr].w, rows[nr].d, rows[nr].d_min, (unsigned long long)rows[nr].buckets,
                    rows[nr].min_load, rows[nr].med_load, rows[nr].max_load);
            nr++;
        }
    FILE *f = md ? fopen(md, "w") : NULL;
    if (md && !f) {
        perror(md);
        return 1;
    }
    if (f) {
        fprintf(f, "# Growing cuckoo filter: load at the first failed eviction walk\n\n");
        fprintf(f, "Written by `build/bench/baselines/gcf_load --seeds %u`: a filter of 8 << W "
                   "buckets grown to d doublings, then filled without doubling until an insert "
                   "was refused; the load then, over %u seeds. FL_GCF_GROW_LOAD = %.2f, "
                   "FL_GCF_W_MIN = %u.\n\n",
                seeds, seeds, FL_GCF_GROW_LOAD, FL_GCF_W_MIN);
        fprintf(f, "A run whose walk failed below FL_GCF_KICK_GROW_LOAD = %.2f while growing "
                   "(narrow windows) stopped there: 'reached' is the fewest doublings a run "
                   "reached, and its load is measured at that size.\n\n", FL_GCF_KICK_GROW_LOAD);
        fprintf(f, "| W | doublings | reached | buckets | min load | median | max |\n");
        fprintf(f, "|---|---|---|---|---|---|---|\n");
        for (size_t i = 0; i < nr; i++)
            fprintf(f, "| %u | %u | %u | %llu | %.4f | %.4f | %.4f |\n", rows[i].w, rows[i].d, rows[i].d_min,
                    (unsigned long long)rows[i].buckets, rows[i].min_load, rows[i].med_load,
                    rows[i].max_load);
        fclose(f);
    }
    f = json ? fopen(json, "w") : NULL;
    if (json && !f) {
        perror(json);
        return 1;
    }
    if (f) {
        fprintf(f, "{\"seeds\": %u, \"grow_load\": %.4f, \"w_min\": %u, \"rows\": [", seeds,
                FL_GCF_GROW_LOAD, FL_GCF_W_MIN);
        for (size_t i = 0; i < nr; i++)
            fprintf(f, "%s\n  {\"w\": %u, \"doublings\": %u, \"reached\": %u, \"buckets\": %llu, "
                       "\"min_load\": %.5f, \"median_load\": %.5f, \"max_load\": %.5f}",
                    i ? "," : "", rows[i].w, rows[i].d, rows[i].d_min, (unsigned long long)rows[i].buckets,
                    rows[i].min_load, rows[i].med_load, rows[i].max_load);
        fprintf(f, "\n]}\n");
        fclose(f);
    }
    return 0;
}
