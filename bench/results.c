/* The in-memory result list: one fb_result per configuration. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flbench.h"

static void *xcalloc(size_t n, size_t sz) {
    void *p = calloc(n ? n : 1, sz);
    if (!p) {
        fprintf(stderr, "flbench: out of memory\n");
        exit(2);
    }
    return p;
}

static double *nan_array(int n) {
    double *v = xcalloc((size_t)n, sizeof *v);
    for (int i = 0; i < n; i++)
        v[i] = NAN;
    return v;
}

fb_result *fb_result_add(fb_results *rs, int op, const char *name, int reps, uint64_t items) {
    if (rs->n == rs->cap) {
        rs->cap = rs->cap ? 2 * rs->cap : 64;
        fb_result **v = realloc(rs->v, rs->cap * sizeof *v);
        if (!v) {
            fprintf(stderr, "flbench: out of memory\n");
            exit(2);
        }
        rs->v = v;
    }
    fb_result *r = xcalloc(1, sizeof *r);
    snprintf(r->name, sizeof r->name, "%s", name);
    r->op = op;
    r->item = op == FB_OP_LOOKUP ? "lookup" : op == FB_OP_INSERT ? "key" : "line";
    if (op == FB_OP_PROBE_LATENCY)
        r->item = "load";
    if (op == FB_OP_DELETE)
        r->item = "key";
    if (op == FB_OP_FAMILY)
        r->item = "op"; /* the family suites name their item (fb_fam_result) */
    r->reps = reps;
    r->items = items;
    r->real_ns = nan_array(reps);
    r->cpu_ns = nan_array(reps);
    rs->v[rs->n++] = r;
    return r;
}

const double *fb_result_find_series(const fb_result *r, const char *key) {
    for (int i = 0; i < r->nseries; i++)
        if (!strcmp(r->series[i].key, key))
            return r->series[i].v;
    return NULL;
}

double *fb_result_series(fb_result *r, const char *key) {
    for (int i = 0; i < r->nseries; i++)
        if (!strcmp(r->series[i].key, key))
            return r->series[i].v;
    if (r->nseries == FB_MAX_SERIES) {
        fprintf(stderr, "flbench: too many series in %s\n", r->name);
        exit(2);
    }
    fb_series *s = &r->series[r->nseries++];
    snprintf(s->key, sizeof s->key, "%s", key);
    s->v = nan_array(r->reps);
    return s->v;
}

static fb_field *field_slot(fb_result *r, const char *key) {
    for (int i = 0; i < r->nfields; i++)
        if (!strcmp(r->fields[i].key, key))
            return &r->fields[i];
    if (r->nfields == FB_MAX_FIELDS) {
        fprintf(stderr, "flbench: too many fields in %s\n", r->name);
        exit(2);
    }
    fb_field *f = &r->fields[r->nfields++];
    memset(f, 0, sizeof *f);
    snprintf(f->key, sizeof f->key, "%s", key);
    return f;
}

void fb_result_num(fb_result *r, const char *key, double v) {
    fb_field *f = field_slot(r, key);
    f->type = isfinite(v) ? FB_F_NUM : FB_F_NULL;
    f->num = v;
}

void fb_result_int(fb_result *r, const char *key, int64_t v) {
    fb_field *f = field_slot(r, key);
    f->type = FB_F_INT;
    f->i = v;
    f->num = (double)v;
}

void fb_result_str(fb_result *r, const char *key, const char *s) {
    fb_field *f = field_slot(r, key);
    if (!s) {
        f->type = FB_F_NULL;
        return;
    }
    f->type = FB_F_STR;
    snprintf(f->str, sizeof f->str, "%s", s);
}

const fb_field *fb_result_field(const fb_result *r, const char *key) {
    for (int i = 0; i < r->nfields; i++)
        if (!strcmp(r->fields[i].key, key))
            return &r->fields[i];
    return NULL;
}

void fb_results_free(fb_results *rs) {
    for (size_t i = 0; i < rs->n; i++) {
        fb_result *r = rs->v[i];
        free(r->real_ns);
        free(r->cpu_ns);
        for (int j = 0; j < r->nseries; j++)
            free(r->series[j].v);
        free(r);
    }
    free(rs->v);
    rs->v = NULL;
    rs->n = rs->cap = 0;
}
