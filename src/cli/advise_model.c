/*
 * filterlab advise: the model. Each variant is sized with the library (fl_params_for), so
 * its memory and predicted FPR are exact; its expected lookup time is read from the
 * machine's kernel sweep at that filter size (log-linear interpolation between the measured
 * sizes on each side, the end value outside them), at the sweep FPR nearest to P and the
 * hit rate nearest to the one asked.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise.h"

static int kernel_native(const char *name)
{
    size_t n = fl_kernel_count();
    for (size_t i = 0; i < n; i++) {
        fl_kernel_desc d;
        if (fl_kernel_describe(i, &d) == FL_OK && strcmp(d.name, name) == 0)
            return d.supported && !d.emulated;
    }
    return 0;
}

/* Expected ns for (variant, kernel) at `bytes`; NAN if nothing was measured. */
static double estimate(const advise_row *rows, long n, const char *variant, const char *kernel, double fpr,
                       double hit, double bytes, double *fpr_used, double *hit_used,
                       const char **basis)
{
    /* nearest sweep FPR (log distance), then nearest hit rate */
    double bf = NAN, bh = NAN;
    for (long i = 0; i < n; i++) {
        if (strcmp(rows[i].variant, variant) || strcmp(rows[i].kernel, kernel))
            continue;
        if (isnan(bf) || fabs(log(rows[i].target_fpr / fpr)) < fabs(log(bf / fpr)))
            bf = rows[i].target_fpr;
    }
    if (isnan(bf))
        return NAN;
    for (long i = 0; i < n; i++) {
        if (strcmp(rows[i].variant, variant) || strcmp(rows[i].kernel, kernel) ||
            rows[i].target_fpr != bf)
            continue;
        if (isnan(bh) || fabs(rows[i].hit_rate - hit) < fabs(bh - hit))
            bh = rows[i].hit_rate;
    }
    *fpr_used = bf;
    *hit_used = bh;
    /* the measured sizes just below and above `bytes` */
    const advise_row *lo = NULL, *hi = NULL;
    for (long i = 0; i < n; i++) {
        const advise_row *r = &rows[i];
        if (strcmp(r->variant, variant) || strcmp(r->kernel, kernel) || r->target_fpr != bf ||
            r->hit_rate != bh)
            continue;
        if (r->bytes <= bytes && (!lo || r->bytes > lo->bytes))
            lo = r;
        if (r->bytes >= bytes && (!hi || r->bytes < hi->bytes))
            hi = r;
    }
    if (lo && hi) {
        if (hi->bytes == lo->bytes) {
            *basis = "measured at this size";
            return lo->ns;
        }
        double t = log(bytes / lo->bytes) / log(hi->bytes / lo->bytes);
        *basis = "interpolated";
        return exp(log(lo->ns) + t * (log(hi->ns) - log(lo->ns)));
    }
    if (lo) {
        *basis = "beyond the largest size measured";
        return lo->ns;
    }
    if (hi) {
        *basis = "below the smallest size measured";
        return hi->ns;
    }
    return NAN;
}

const char *advise_size_class(const advise_host *h, double bytes)
{
    if (h->l1d > 0 && bytes <= h->l1d)
        return "L1";
    if (h->l2 > 0 && bytes <= h->l2)
        return "L2";
    if (h->llc > 0 && bytes <= h->llc)
        return "LLC";
    return h->llc > 0 ? "DRAM" : "unknown";
}

static int cand_cmp(const void *a, const void *b)
{
    const advise_cand *x = a, *y = b;
    return (x->ns > y->ns) - (x->ns < y->ns);
}

int advise_candidates(const advise_row *rows, long nr, uint64_t n, double fpr, double hit,
                      advise_cand *cands, int cap, char *unreachable, size_t ucap)
{
    int nc = 0;
    unreachable[0] = '\0';
    for (int v = FL_VARIANT_MIN; v <= FL_VARIANT_MAX; v++) {
        const char *vname = fl_variant_name((fl_variant)v);
        if (!vname)
            continue;
        fl_params p;
        fl_status s = fl_params_for((fl_variant)v, n, fpr, &p);
        if (s != FL_OK) {
            size_t len = strlen(unreachable);
            snprintf(unreachable + len, ucap - len, "%s%s (%s)", len ? ", " : "", vname,
                     fl_strerror(s));
            continue;
        }
        /* each kernel measured for this variant, once */
        for (long i = 0; i < nr && nc < cap; i++) {
            if (strcmp(rows[i].variant, vname) || rows[i].emulated || !kernel_native(rows[i].kernel))
                continue;
            int dup = 0;
            for (int j = 0; j < nc; j++)
                if (cands[j].v == (fl_variant)v && !strcmp(cands[j].kernel, rows[i].kernel))
                    dup = 1;
            if (dup)
                continue;
            advise_cand *cd = &cands[nc];
            memset(cd, 0, sizeof *cd);
            cd->v = (fl_variant)v;
            snprintf(cd->kernel, sizeof cd->kernel, "%s", rows[i].kernel);
            cd->p = p;
            cd->ns = estimate(rows, nr, vname, rows[i].kernel, fpr, hit, (double)p.bytes, &cd->fpr_used,
                              &cd->hit_used, &cd->basis);
            if (isfinite(cd->ns))
                nc++;
        }
    }
    qsort(cands, (size_t)nc, sizeof cands[0], cand_cmp);
    return nc;
}
