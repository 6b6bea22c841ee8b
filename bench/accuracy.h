/*
 * flaccuracy: how accurate the sketches and counting/scalable filters are, measured through
 * the public API only, written as JSON for scripts/reproduce (tables 9-12) and the plots.
 * One section per structure (accuracy_hll.c, accuracy_cms.c, accuracy_counting.c,
 * accuracy_sbf.c); accuracy_main.c parses the options and writes the document;
 * accuracy_common.c holds what the sections share.
 * Accuracy only: speed is flbench's job.
 */
#ifndef FB_ACCURACY_H
#define FB_ACCURACY_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "filterlab.h"

typedef struct acc_opts {
    uint64_t seed;
    /* HyperLogLog */
    uint64_t hll_max_card;      /* checkpoints 1e3, 1e4, ... up to this */
    uint32_t hll_precisions[8];
    size_t n_hll_precisions;
    uint32_t hll_runs;          /* streams per precision for the cardinality sweep */
    uint64_t hll_std_card;      /* cardinality of the many-runs standard error check */
    uint32_t hll_std_runs;
    uint32_t hll_demo_runs;     /* seed 003's demo (user_i keys), first run with its own keys */
    /* Count-Min */
    uint64_t cms_updates;       /* N of the uniform and Zipf streams */
    uint64_t cms_keys;          /* distinct keys they draw from */
    double cms_zipf_s;
    uint32_t cms_runs;
    uint32_t cms_example_runs;  /* seed 003's Zipf example and heavy hitter detector */
    /* counting Bloom */
    uint64_t counting_n;
    uint64_t counting_queries;
    uint64_t overflow_n;
    uint32_t overflow_trials;
    /* scalable Bloom */
    uint64_t sbf_capacity;
    uint64_t sbf_queries;
} acc_opts;

/* Each section adds its object to the document; 0 on success, else a message on stderr. */
int acc_hll(const acc_opts *o, json_t *doc);
int acc_cms(const acc_opts *o, json_t *doc);
int acc_counting(const acc_opts *o, json_t *doc);
int acc_sbf(const acc_opts *o, json_t *doc);

/* Shared helpers (accuracy_common.c). */
int acc_check(fl_status st, const char *what);   /* 0 for FL_OK, else prints and returns 1 */
void acc_progress(const char *fmt, ...);         /* one line on stderr */
/* The section `name` of the document (added to doc) and its batch buffers, batch hashes in
 * *buf and batch answers in *out; NULL, with nothing allocated, when memory runs out. */
json_t *acc_section(json_t *doc, const char *name, size_t batch, uint64_t **buf, uint8_t **out);
/* n random hashes for non-member lookups. Inserted keys are fl_mix64 of other integers, so
 * a query equals an inserted hash with probability about inserts * queries / 2^64 (below
 * 1e-6 here); no bit is reserved, which would bias layouts that pick a block from the top
 * bits. */
void acc_query_hashes(uint64_t *out, size_t n, uint64_t stream);

#endif /* FB_ACCURACY_H */
