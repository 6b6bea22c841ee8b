/*
 * Sizing: a target in bytes (or keys) becomes an explicit geometry and a key count. Every
 * rule (k, unit size, the cuckoo load) is the library's: this file only asks fl_params_for
 * and fl_params_for_geometry, so flbench sizes a filter the way a user of the API would.
 * (A per-variant descriptor call in the public API would replace unit_bytes_of and the
 * search in k_for_bits below.)
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sweep.h"

/* Payload bytes of one unit of a sized geometry, as the library reports them. */
static uint64_t unit_bytes_of(const fl_params *p) {
    return p->geometry.units ? p->bytes / p->geometry.units : 0;
}

/* Keys that the FPR sizing of this fixed budget is checked at: large enough that rounding
 * the unit count does not move the bits per key. */
#define K_REF_KEYS (UINT64_C(1) << 20)

/* Sizing for a bits-per-key budget b: the geometry fl_params_for picks for the tightest
 * FPR target it can meet in at most b bits per key. Its k is the library's choice for that
 * budget (the FPR-optimal k for classic and the blocked variants, 8 for split256, the
 * fingerprint width and load limit for cuckoo). Bisection on log FPR: bits per key falls as
 * the target loosens. */
static int k_for_bits_search(fl_variant v, double b, fl_params *out, char *err, size_t cap) {
    fl_params p;
    double lo = log(1e-15), hi = log(0.99); /* hi: the loosest target tried */
    fl_status st = fl_params_for(v, K_REF_KEYS, exp(hi), &p);
    if (st != FL_OK) {
        snprintf(err, cap, "fl_params_for: %s", fl_strerror(st));
        return -1;
    }
    if (p.bits_per_key > b) {
        snprintf(err, cap, "%s needs >= %.2f bits per key (its loosest sizing)",
                 fl_variant_name(v), p.bits_per_key);
        return -1;
    }
    *out = p;
    for (int i = 0; i < 24; i++) { /* [1e-15, 0.99] to within a factor of 1.000003 */
        double mid = 0.5 * (lo + hi);
        if (fl_params_for(v, K_REF_KEYS, exp(mid), &p) == FL_OK && p.bits_per_key <= b) {
            hi = mid;
            *out = p;
        } else {
            lo = mid; /* too many bits, or a target the variant cannot reach */
        }
    }
    return 0;
}

/* The search costs up to ~1 s for the blocked variants (each fl_params_for searches units and
 * k under the Putze et al. model), and its answer depends only on (variant, b): remembered
 * for the sweep's other sizes. */
static int k_for_bits(fl_variant v, double b, fl_params *out, char *err, size_t cap) {
    static struct {
        int done;
        double b;
        fl_params p;
    } memo[FL_VARIANT_MAX + 1];
    if (v >= FL_VARIANT_MIN && v <= FL_VARIANT_MAX && memo[v].done && memo[v].b == b) {
        *out = memo[v].p;
        return 0;
    }
    if (k_for_bits_search(v, b, out, err, cap))
        return -1;
    if (v >= FL_VARIANT_MIN && v <= FL_VARIANT_MAX) {
        memo[v].done = 1;
        memo[v].b = b;
        memo[v].p = *out;
    }
    return 0;
}

int fb_size_spec(const fb_options *o, fl_variant v, uint64_t target, fb_spec *s, char *err,
                 size_t cap) {
    memset(s, 0, sizeof *s);
    s->v = v;
    s->target = target;
    fl_geometry g = {v, 0, 0};
    uint64_t n = 0;
    fl_params p;
    fl_status st;
    if (!o->use_bpk) {
        if (o->sizes_in_keys) {
            n = target;
            if ((st = fl_params_for(v, n, o->fpr, &p)) != FL_OK) {
                snprintf(err, cap, "fl_params_for: %s", fl_strerror(st));
                return -1;
            }
            g = p.geometry;
        } else {
            /* Size for the FPR at roughly the key count that fills `target` bytes, then fix
             * the geometry to exactly target bytes and fill it at the model's bits per key. */
            uint64_t n_est = target * 8 / 10 ? target * 8 / 10 : 1;
            for (int pass = 0; pass < 2; pass++) {
                if ((st = fl_params_for(v, n_est, o->fpr, &p)) != FL_OK) {
                    snprintf(err, cap, "fl_params_for: %s", fl_strerror(st));
                    return -1;
                }
                uint64_t ub = unit_bytes_of(&p);
                if (!ub) {
                    snprintf(err, cap, "cannot size %s", fl_variant_name(v));
                    return -1;
                }
                g = p.geometry;
                g.units = target / ub ? target / ub : 1;
                n = (uint64_t)((double)(g.units * ub * 8) / p.bits_per_key);
                if (!n)
                    n = 1;
                n_est = n;
            }
        }
    } else {
        if (k_for_bits(v, o->bits_per_key, &p, err, cap))
            return -1;
        uint64_t ub = unit_bytes_of(&p);
        if (!ub) {
            snprintf(err, cap, "cannot size %s with k=%u", fl_variant_name(v), p.geometry.k);
            return -1;
        }
        g.k = p.geometry.k;
        if (o->sizes_in_keys) {
            n = target;
            g.units = (uint64_t)ceil((double)n * o->bits_per_key / 8.0 / (double)ub);
        } else {
            g.units = target / ub ? target / ub : 1;
            n = (uint64_t)((double)(g.units * ub * 8) / o->bits_per_key);
        }
        if (!n)
            n = 1;
    }
    if ((st = fl_params_for_geometry(&g, n, &p)) != FL_OK) {
        snprintf(err, cap, "fl_params_for_geometry: %s", fl_strerror(st));
        return -1;
    }
    s->g = g;
    s->n = n;
    s->bytes = (size_t)p.bytes;
    s->bpk = p.bits_per_key;
    s->fpr_pred = p.predicted_fpr;
    return 0;
}

int fb_create_filter(const fb_options *o, fb_spec *s, char *err, size_t cap) {
    fl_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.variant = s->v;
    cfg.geometry = s->g;
    cfg.hash = FL_HASH_XXH3;
    cfg.seed = o->seed;
    cfg.flags = o->huge_pages ? 0 : FL_FLAG_NO_HUGE_PAGES;
    fl_status st = fl_create(&cfg, &s->f);
    if (st != FL_OK) {
        snprintf(err, cap, "fl_create: %s", fl_strerror(st));
        s->f = NULL;
        return -1;
    }
    fl_info info;
    if (fl_get_info(s->f, &info) == FL_OK)
        s->huge = info.huge_pages;
    return 0;
}

/* --plan: what the filter sweep would build, one line per (variant, size), without building
 * it (scripts use it to find the key count of a size, e.g. to compare two variants at the
 * same number of keys with --sizes-in keys). */
int fb_print_plan(const fb_options *o) {
    printf("%-12s %14s %14s %12s %4s %10s\n", "filter", "target", "bytes", "keys", "k",
           "fpr_model");
    int rc = 0;
    for (size_t vi = 0; vi < o->nvariants; vi++)
        for (size_t si = 0; si < o->nsizes; si++) {
            fb_spec s;
            char err[256];
            if (fb_size_spec(o, o->variants[vi], o->sizes[si], &s, err, sizeof err)) {
                fprintf(stderr, "flbench: %s %llu: %s\n", fl_variant_name(o->variants[vi]),
                        (unsigned long long)o->sizes[si], err);
                rc = 1;
                continue;
            }
            printf("%-12s %14llu %14zu %12llu %4u %10.3e\n", fl_variant_name(s.v),
                   (unsigned long long)s.target, s.bytes, (unsigned long long)s.n, s.g.k,
                   s.fpr_pred);
        }
    return rc;
}
