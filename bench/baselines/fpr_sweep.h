/*
 * fpr_sweep's shared parts: fpr_sweep.c runs the modes, fpr_sweep_rows.c holds the keys, the
 * queries and the rows every mode writes, fpr_sweep_vqf.c the vector quotient filter's
 * "space" rows and fpr_sweep_gcf.c the growing cuckoo filter's (their own APIs, not
 * fl_filter variants).
 */
#ifndef FPR_SWEEP_H
#define FPR_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "bl_common.h"
#include "filterlab.h"

#define CHUNK 65536
#define QUERY_BASE (UINT64_C(1) << 62)

/* The loosest load a fixed fingerprint width is sized to: the library's own floor for cuckoo
 * sizing (CUCKOO_MIN_LOAD, src/core/models.c), below which a wider fingerprint costs fewer
 * bytes. The vector quotient filter's one width is held to it too: at load 0.5 it takes
 * 512 / 24 = 21.3 bits per key and predicts 0.23%, more bits than a 16-bit cuckoo filter at
 * load 0.94 (17.0 bits per key) at some 20 times its FPR (0.012%). */
#define WIDTH_MIN_LOAD 0.5

extern uint64_t g_seed;    /* --seed: every filter's and hash's seed */
extern uint64_t g_queries; /* --queries: never-inserted lookups per measurement */
extern uint64_t hbuf[CHUNK];
extern uint8_t obuf[CHUNK];

/* The size of the chunk starting at a of [0, total). */
static inline size_t chunk_at(uint64_t a, uint64_t total)
{
    return (size_t)(total - a < CHUNK ? total - a : CHUNK);
}

/* hbuf[0..m) = the hashes of the inserted keys a, a + 1, ... */
void key_hashes(uint64_t a, size_t m);
/* hbuf[0..m) = the hashes of never-inserted queries a, a + 1, ... of salt's range. */
void query_hashes(uint64_t salt, uint64_t a, size_t m);

/* A structure with its own API (not an fl_filter variant), as fill_keys and
 * count_false_positives take it: its batch insert and batch lookup of hashes. */
typedef fl_status (*insert_hashes_fn)(void *f, const uint64_t *h, size_t m, size_t *done);
typedef fl_status (*contains_hashes_fn)(const void *f, const uint64_t *h, size_t m,
                                        uint8_t *out, size_t *positives);
/* The keys 0 .. n-1 inserted (the hashes every filter gets): how many went in, n unless an
 * insert was refused (*full = 1: the row then says so, as a full cuckoo's does). */
uint64_t fill_keys(void *f, insert_hashes_fn insert, uint64_t n, int *full);
/* The positives among the g_queries never-inserted queries of salt, through the batch
 * lookup. */
uint64_t count_false_positives(const void *f, contains_hashes_fn contains, uint64_t salt);

/* What every measured row states, whatever the filter. */
typedef struct measured {
    const char *variant;
    uint64_t units; /* the filter's units: words, blocks or buckets */
    uint32_t k;     /* hash functions, or fingerprint bits */
    uint64_t bytes, bits, inserted;
    int full;       /* an insert was refused: inserted < the keys asked for */
    double predicted_fpr, build_s;
    uint64_t fp;    /* false positives among g_queries */
} measured;

/* fill_keys (timed: m->build_s) and count_false_positives into m. */
void fill_and_count(void *f, insert_hashes_fn insert, contains_hashes_fn contains, uint64_t n,
                    uint64_t salt, measured *m);

/* The common columns of a measured row (the caller opens and closes the object). */
void emit_measured(bl_json *j, const char *experiment, const char *label, double target,
                   const measured *m);
/* A row that says why a filter has none at the target (fingerprint_bits 0: not stated). */
void error_row(bl_json *j, const char *exp, const char *label, const char *variant,
               double target, uint32_t fingerprint_bits, const char *error);
/* Why a fixed fingerprint width has no "space"/"deletes" row at a target: FL_ERR_BAD_FPR from
 * its sizing means the width meets the target only below WIDTH_MIN_LOAD. */
void width_error_row(bl_json *j, const char *variant, double target, uint32_t bits,
                     fl_status s);

/* The vector quotient filter's "space"/"deletes" row for n keys at target (fpr_sweep_vqf.c);
 * failures counts the filters that could not be built. */
void vqf_space_row(bl_json *j, uint64_t n, double target, uint64_t salt, int *failures);

/* The growing cuckoo filter's two "space" rows of label "growing" for n keys, fresh and grown
 * by three doublings (fpr_sweep_gcf.c); failures counts the filters that could not be built. */
void gcf_space_rows(bl_json *j, uint64_t n, uint64_t salt, int *failures);

#endif /* FPR_SWEEP_H */
