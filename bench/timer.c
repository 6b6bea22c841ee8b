/*
 * Timers: wall clock (CLOCK_MONOTONIC), thread CPU time and, on x86-64, the TSC read with
 * serializing fences so the timed region cannot leak out of the two stamps:
 *   begin: lfence; rdtsc         (earlier instructions complete before the read)
 *   end:   rdtscp; lfence        (rdtscp waits for earlier instructions; the lfence keeps
 *                                 later ones from starting before the read)
 * as in Intel's white paper "How to Benchmark Code Execution Times on Intel IA-32 and IA-64
 * Instruction Set Architectures" (Paoloni 2010), with lfence in place of cpuid.
 * The TSC frequency is measured against CLOCK_MONOTONIC_RAW and recorded, never assumed.
 * Elsewhere the TSC is reported as unavailable (JSON null).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "flbench.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <x86intrin.h>
#define FB_HAVE_TSC 1
#else
#define FB_HAVE_TSC 0
#endif

static double ts_ns(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

double fb_wall_ns(void) { return ts_ns(CLOCK_MONOTONIC); }
double fb_cpu_ns(void) { return ts_ns(CLOCK_THREAD_CPUTIME_ID); }

static inline uint64_t tsc_begin(void) {
#if FB_HAVE_TSC
    _mm_lfence();
    return __rdtsc();
#else
    return 0;
#endif
}

static inline uint64_t tsc_end(void) {
#if FB_HAVE_TSC
    unsigned aux;
    uint64_t t = __rdtscp(&aux);
    _mm_lfence();
    return t;
#else
    return 0;
#endif
}

void fb_stamp_begin(fb_stamp *s) {
    s->cpu_ns = fb_cpu_ns();
    s->wall_ns = fb_wall_ns();
    s->tsc = tsc_begin();
}

void fb_stamp_end(fb_stamp *s) {
    s->tsc = tsc_end();
    s->wall_ns = fb_wall_ns();
    s->cpu_ns = fb_cpu_ns();
}

void fb_tsc_calibrate(fb_tsc_info *t) {
    memset(t, 0, sizeof *t);
    t->hz = NAN;
    t->hz_spread = NAN;
#if FB_HAVE_TSC
    t->available = 1;
    unsigned a, b, c, d;
    if (__get_cpuid(0x80000007, &a, &b, &c, &d))
        t->invariant = (d >> 8) & 1; /* "Invariant TSC", AMD/Intel CPUID 0x80000007 EDX[8] */
    if (__get_cpuid_max(0, NULL) >= 0x15 && __get_cpuid_count(0x15, 0, &a, &b, &c, &d) && a &&
        b && c)
        t->hz_cpuid = (double)c * b / a; /* crystal Hz * TSC/crystal ratio (leaf 0x15) */
    enum { ROUNDS = 7 };
    double hz[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        double t0 = ts_ns(CLOCK_MONOTONIC_RAW);
        uint64_t c0 = tsc_begin();
        double t1;
        do
            t1 = ts_ns(CLOCK_MONOTONIC_RAW);
        while (t1 - t0 < 20e6); /* 20 ms per round */
        uint64_t c1 = tsc_end();
        hz[r] = (double)(c1 - c0) / ((t1 - t0) * 1e-9);
    }
    fb_stats st = fb_stats_of(hz, ROUNDS);
    t->hz = st.median;
    t->hz_spread = (st.max - st.min) / st.median;
#endif
}
