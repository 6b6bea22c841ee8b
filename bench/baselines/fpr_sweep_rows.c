/*
 * fpr_sweep's keys, queries and rows (fpr_sweep.h; fpr_sweep.c's top comment says what the
 * keys and queries are): the same for every filter measured, so that every row of an
 * experiment counts the same things over the same queries.
 */
#include "fpr_sweep.h"

uint64_t g_seed = 0;
uint64_t g_queries = 1000000;
uint64_t hbuf[CHUNK];
uint8_t obuf[CHUNK];

void key_hashes(uint64_t a, size_t m)
{
    for (size_t i = 0; i < m; i++)
        hbuf[i] = fl_hash_u64(a + i, g_seed);
}

void query_hashes(uint64_t salt, uint64_t a, size_t m)
{
    uint64_t base = QUERY_BASE + salt * (UINT64_C(1) << 40);
    for (size_t i = 0; i < m; i++)
        hbuf[i] = fl_hash_u64(base + a + i, g_seed);
}

uint64_t fill_keys(void *f, insert_hashes_fn insert, uint64_t n, int *full)
{
    *full = 0;
    for (uint64_t a = 0; a < n; a += CHUNK) {
        size_t m = chunk_at(a, n), done = 0;
        key_hashes(a, m);
        if (insert(f, hbuf, m, &done) != FL_OK) {
            *full = 1;
            return a + done;
        }
    }
    return n;
}

uint64_t count_false_positives(const void *f, contains_hashes_fn contains, uint64_t salt)
{
    uint64_t pos = 0;
    for (uint64_t a = 0; a < g_queries; a += CHUNK) {
        size_t m = chunk_at(a, g_queries), p = 0;
        query_hashes(salt, a, m);
        contains(f, hbuf, m, obuf, &p);
        pos += p;
    }
    return pos;
}

void fill_and_count(void *f, insert_hashes_fn insert, contains_hashes_fn contains, uint64_t n,
                    uint64_t salt, measured *m)
{
    double t0 = bl_now_ns();
    m->inserted = fill_keys(f, insert, n, &m->full);
    m->build_s = (bl_now_ns() - t0) / 1e9;
    m->fp = count_false_positives(f, contains, salt);
}

void emit_measured(bl_json *j, const char *experiment, const char *label, double target,
                   const measured *m)
{
    bl_json_str(j, "experiment", experiment);
    bl_json_str(j, "label", label);
    bl_json_str(j, "variant", m->variant);
    bl_json_num(j, "target_fpr", target);
    bl_json_int(j, "units", (long long)m->units);
    bl_json_int(j, "k", m->k);
    bl_json_int(j, "bytes", (long long)m->bytes);
    bl_json_int(j, "inserted", (long long)m->inserted);
    bl_json_int(j, "full", m->full);
    bl_json_num(j, "bits_per_key", m->inserted ? (double)m->bits / (double)m->inserted : NAN);
    bl_json_num(j, "predicted_fpr", m->predicted_fpr);
    bl_json_int(j, "queries", (long long)g_queries);
    bl_json_int(j, "false_positives", (long long)m->fp);
    bl_json_num(j, "measured_fpr", (double)m->fp / (double)g_queries);
    bl_json_num(j, "build_seconds", m->build_s);
}

void error_row(bl_json *j, const char *exp, const char *label, const char *variant,
               double target, uint32_t fingerprint_bits, const char *error)
{
    bl_json_open(j, NULL, '{');
    bl_json_str(j, "experiment", exp);
    bl_json_str(j, "label", label);
    bl_json_str(j, "variant", variant);
    bl_json_num(j, "target_fpr", target);
    if (fingerprint_bits)
        bl_json_int(j, "fingerprint_bits", fingerprint_bits);
    bl_json_str(j, "error", error);
    bl_json_close(j, '}');
}

void width_error_row(bl_json *j, const char *variant, double target, uint32_t bits,
                     fl_status s)
{
    char why[80];
    snprintf(why, sizeof why, "the target needs a load below %g at this width", WIDTH_MIN_LOAD);
    error_row(j, "space", "deletes", variant, target, bits,
              s == FL_ERR_BAD_FPR ? why : fl_strerror(s));
}
