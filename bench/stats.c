/* Summary statistics over repetitions: what Google Benchmark calls aggregates. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "flbench.h"

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

fb_stats fb_stats_of(const double *v, size_t n) {
    fb_stats s = {NAN, NAN, NAN, NAN, NAN, NAN};
    if (n == 0)
        return s;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return s; /* a missing repetition makes every aggregate missing, never 0 */
    double *t = malloc(n * sizeof *t);
    if (!t)
        return s;
    memcpy(t, v, n * sizeof *t);
    qsort(t, n, sizeof *t, cmp_double);
    s.min = t[0];
    s.max = t[n - 1];
    s.median = (n & 1) ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += t[i];
    s.mean = sum / (double)n;
    /* Sample standard deviation (n - 1), as Google Benchmark reports; 0 for one run. */
    double ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += (t[i] - s.mean) * (t[i] - s.mean);
    s.stddev = n > 1 ? sqrt(ss / (double)(n - 1)) : 0.0;
    s.cv = s.mean != 0 ? s.stddev / s.mean : NAN;
    free(t);
    return s;
}
