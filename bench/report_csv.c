/*
 * CSV: one row per configuration (the aggregates of its repetitions), units in the column
 * names. Per-item counters are renamed "..._per_op" (op = the row's `item`: lookup, key,
 * line or load). Missing values are empty cells.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "flbench.h"

/* "llc_load_misses_per_lookup" -> "llc_load_misses_per_op". */
static void generic_key(const fb_result *r, const char *key, char *out, size_t cap) {
    char suffix[32];
    snprintf(suffix, sizeof suffix, "_per_%s", r->item);
    size_t kl = strlen(key), sl = strlen(suffix);
    if (kl > sl && !strcmp(key + kl - sl, suffix))
        snprintf(out, cap, "%.*s_per_op", (int)(kl - sl), key);
    else
        snprintf(out, cap, "%s", key);
}

static int has(char cols[][80], int n, const char *k) {
    for (int i = 0; i < n; i++)
        if (!strcmp(cols[i], k))
            return 1;
    return 0;
}

static void put_num(FILE *f, double v) {
    if (isfinite(v))
        fprintf(f, ",%.10g", v);
    else
        fputc(',', f);
}

static void put_str(FILE *f, const char *s) {
    fputc(',', f);
    int quote = strpbrk(s, ",\"\n") != NULL;
    if (quote)
        fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    if (quote)
        fputc('"', f);
}

int fb_report_csv(const char *path, const fb_results *rs) {
    char tmp[4200];
    FILE *f = fb_output_open(path, tmp, sizeof tmp);
    if (!f)
        return -1;
    /* Columns: fixed, then every series (median) and field seen, in order of appearance. */
    static char series[128][80], fields[128][80];
    int ns = 0, nf = 0;
    for (size_t i = 0; i < rs->n; i++) {
        const fb_result *r = rs->v[i];
        char k[80];
        for (int s = 0; s < r->nseries && ns < 128; s++) {
            generic_key(r, r->series[s].key, k, sizeof k);
            if (!has(series, ns, k))
                snprintf(series[ns++], 80, "%s", k);
        }
        for (int j = 0; j < r->nfields && nf < 128; j++)
            if (!has(fields, nf, r->fields[j].key))
                snprintf(fields[nf++], 80, "%s", r->fields[j].key);
    }
    fprintf(f, "name,item,repetitions,items_per_repetition,ns_per_op_median,ns_per_op_min,"
               "ns_per_op_mean,ns_per_op_stddev,ns_per_op_cv_pct,cpu_ns_per_op_median,"
               "mops_per_s_median");
    for (int s = 0; s < ns; s++)
        fprintf(f, ",%s_median", series[s]);
    for (int j = 0; j < nf; j++)
        fprintf(f, ",%s", fields[j]);
    fputc('\n', f);
    for (size_t i = 0; i < rs->n; i++) {
        const fb_result *r = rs->v[i];
        if (r->reps_done <= 0)
            continue;
        fb_stats st = fb_stats_of(r->real_ns, (size_t)r->reps_done);
        fb_stats cpu = fb_stats_of(r->cpu_ns, (size_t)r->reps_done);
        fprintf(f, "%s", r->name);
        put_str(f, r->item);
        fprintf(f, ",%d,%llu", r->reps_done, (unsigned long long)r->items);
        put_num(f, st.median);
        put_num(f, st.min);
        put_num(f, st.mean);
        put_num(f, st.stddev);
        put_num(f, st.cv * 100);
        put_num(f, cpu.median);
        put_num(f, 1e3 / st.median);
        for (int s = 0; s < ns; s++) {
            double v = NAN;
            char k[80];
            for (int x = 0; x < r->nseries; x++) {
                generic_key(r, r->series[x].key, k, sizeof k);
                if (!strcmp(k, series[s]))
                    v = fb_stats_of(r->series[x].v, (size_t)r->reps_done).median;
            }
            put_num(f, v);
        }
        for (int j = 0; j < nf; j++) {
            const fb_field *fl = fb_result_field(r, fields[j]);
            if (!fl || fl->type == FB_F_NULL)
                fputc(',', f);
            else if (fl->type == FB_F_STR)
                put_str(f, fl->str);
            else if (fl->type == FB_F_INT)
                fprintf(f, ",%lld", (long long)fl->i);
            else
                put_num(f, fl->num);
        }
        fputc('\n', f);
    }
    return fb_output_commit(f, path, tmp);
}
