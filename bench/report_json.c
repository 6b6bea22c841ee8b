/*
 * Result files shaped like Google Benchmark's JSON output (context + benchmarks), so its
 * tooling and ours read them alike:
 *
 *   per repetition:  name, run_name, run_type "iteration", repetitions, repetition_index,
 *                    threads, iterations, real_time, cpu_time, time_unit "ns", counters...
 *   per aggregate:   name = run_name + "_" + mean|median|stddev|cv|min, run_type "aggregate",
 *                    aggregate_name, aggregate_unit ("percentage" for cv, as Google Benchmark)
 *
 * Times are ns per item (lookup, key inserted, line or load). Counters are extra keys; a value
 * that was not measured is null, never 0 and never a bare NaN (jansson refuses NaN anyway).
 * Our own json_schema_version lives in the context.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "flbench.h"

static void add_fields(json_t *e, const fb_result *r) {
    for (int i = 0; i < r->nfields; i++) {
        const fb_field *f = &r->fields[i];
        json_t *v = f->type == FB_F_STR   ? json_string(f->str)
                    : f->type == FB_F_INT ? json_integer((json_int_t)f->i)
                    : f->type == FB_F_NUM ? fb_json_num(f->num)
                                          : json_null();
        json_object_set_new(e, f->key, v);
    }
}

static json_t *entry(const fb_result *r, size_t family, const char *name, const char *run_type) {
    json_t *e = json_object();
    json_object_set_new(e, "name", json_string(name));
    json_object_set_new(e, "family_index", json_integer((json_int_t)family));
    json_object_set_new(e, "per_family_instance_index", json_integer(0));
    json_object_set_new(e, "run_name", json_string(r->name));
    json_object_set_new(e, "run_type", json_string(run_type));
    json_object_set_new(e, "repetitions", json_integer(r->reps_done));
    json_object_set_new(e, "threads", json_integer(1));
    return e;
}

int fb_report_json(const char *path, json_t *ctx, const fb_results *rs) {
    json_t *root = json_object();
    json_object_set(root, "context", ctx);
    json_t *arr = json_array();
    for (size_t fi = 0; fi < rs->n; fi++) {
        const fb_result *r = rs->v[fi];
        int n = r->reps_done;
        if (n <= 0)
            continue;
        for (int rep = 0; rep < n; rep++) {
            json_t *e = entry(r, fi, r->name, "iteration");
            json_object_set_new(e, "repetition_index", json_integer(rep));
            json_object_set_new(e, "iterations", json_integer((json_int_t)r->items));
            json_object_set_new(e, "real_time", fb_json_num(r->real_ns[rep]));
            json_object_set_new(e, "cpu_time", fb_json_num(r->cpu_ns[rep]));
            json_object_set_new(e, "time_unit", json_string("ns"));
            json_object_set_new(e, "item", json_string(r->item));
            for (int s = 0; s < r->nseries; s++)
                json_object_set_new(e, r->series[s].key, fb_json_num(r->series[s].v[rep]));
            add_fields(e, r);
            json_array_append_new(arr, e);
        }
        static const char *aggs[] = {"mean", "median", "stddev", "cv", "min"};
        fb_stats real = fb_stats_of(r->real_ns, (size_t)n), cpu = fb_stats_of(r->cpu_ns, (size_t)n);
        for (size_t a = 0; a < sizeof aggs / sizeof aggs[0]; a++) {
            char name[256];
            snprintf(name, sizeof name, "%s_%s", r->name, aggs[a]);
            json_t *e = entry(r, fi, name, "aggregate");
            json_object_set_new(e, "aggregate_name", json_string(aggs[a]));
            json_object_set_new(e, "aggregate_unit", json_string(a == 3 ? "percentage" : "time"));
            json_object_set_new(e, "iterations", json_integer(n));
#define PICK(st) (a == 0 ? (st).mean : a == 1 ? (st).median : a == 2 ? (st).stddev : a == 3 ? (st).cv : (st).min)
            json_object_set_new(e, "real_time", fb_json_num(PICK(real)));
            json_object_set_new(e, "cpu_time", fb_json_num(PICK(cpu)));
            json_object_set_new(e, "time_unit", json_string("ns"));
            json_object_set_new(e, "item", json_string(r->item));
            for (int s = 0; s < r->nseries; s++) {
                fb_stats st = fb_stats_of(r->series[s].v, (size_t)n);
                json_object_set_new(e, r->series[s].key, fb_json_num(PICK(st)));
            }
#undef PICK
            add_fields(e, r);
            json_array_append_new(arr, e);
        }
    }
    json_object_set_new(root, "benchmarks", arr);
    size_t flags = JSON_INDENT(1) | JSON_REAL_PRECISION(10) | JSON_ENSURE_ASCII;
    char tmp[4200];
    FILE *f = fb_output_open(path, tmp, sizeof tmp);
    int rc = -1;
    if (f) {
        if (json_dumpf(root, f, flags) != 0) {
            fprintf(stderr, "flbench: cannot write %s: JSON encoding failed\n", path);
            fb_output_abort(f, tmp);
        } else {
            fputc('\n', f);
            rc = fb_output_commit(f, path, tmp);
        }
    }
    json_decref(root);
    return rc;
}
