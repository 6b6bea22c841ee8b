/*
 * filterlab advise, split by job: advise_results.c reads benchmark results (advise.csv
 * metadata and rows, finding the folder of this CPU), advise_model.c turns them into
 * candidates with an expected time (sizing by the library, log-linear interpolation of the
 * measurements), cmd_advise.c parses options and prints the answer.
 */
#ifndef FL_CLI_ADVISE_H
#define FL_CLI_ADVISE_H

#include "cli.h"

/* One measured configuration of advise.csv. */
typedef struct advise_row {
    char variant[16], kernel[16];
    int emulated;
    double target_fpr, bytes, hit_rate, ns;
} advise_row;

/* The '#' metadata of one advise.csv. */
typedef struct advise_host {
    char path[4096];
    char host_id[128], signature[128], date[64], commit[64], kernel_selected[32], mode[16];
    double l1d, l2, llc;
    double memory_like; /* measured: from this footprint on, latency is DRAM-like (0: unknown) */
} advise_host;

/* ---- advise_results.c ---- */
/* Finds the advise.csv to use: DIR/advise.csv, else the DIR/<x>/advise.csv whose CPU
 * signature is `sig` (the newest if several), else the only one there is. Returns 0 when
 * found (*foreign: it is from another CPU), 1 when there is none at all, 2 after printing
 * why none of several fits. */
int advise_find_results(const char *dir, const char *sig, advise_host *out, int *foreign);
/* Loads the measured rows; returns the count or -1 (message printed). */
long advise_read_rows(const char *path, advise_row *rows, long cap);

/* ---- advise_model.c ---- */
/* A (variant, kernel) this CPU runs natively, sized by the library, with its expected time. */
typedef struct advise_cand {
    fl_variant v;
    char kernel[16];
    fl_params p;
    double ns;
    double fpr_used, hit_used;
    const char *basis;
} advise_cand;

/* Every measured (variant, kernel) this CPU runs natively that fl_params_for can size for n
 * keys at fpr, fastest first. Variants that cannot meet fpr are listed in `unreachable`
 * ("name (reason), ..."). Returns the number of candidates. */
int advise_candidates(const advise_row *rows, long nr, uint64_t n, double fpr, double hit,
                      advise_cand *cands, int cap, char *unreachable, size_t ucap);
/* "L1", "L2", "LLC", "DRAM" or "unknown": where a filter of `bytes` lives on that host. */
const char *advise_size_class(const advise_host *h, double bytes);

#endif /* FL_CLI_ADVISE_H */
