/*
 * checkkernels: every compiled kernel table this CPU can run, checked module by module against
 * the scalar reference (table 0), in the spirit of dav1d's tests/checkasm: random and
 * adversarial inputs, canaries around outputs, guard pages around inputs, byte-for-byte
 * comparison, and an optional --bench that prints ns per key and the ratio to scalar. An entry
 * a table inherits from a lower ISA is the same function and is checked once, where it is
 * defined.
 *
 *   checkkernels [--seed N] [--kernel NAME] [--family NAME] [--bench] [--bench-only] [--min]
 *                [--verbose]
 *
 * --min reports the fastest rep instead of the median: on a machine shared with other
 * CPU-bound work the fastest rep is the one that was not preempted.
 *
 * --bench ends with the choice check: every module entry at every payload size class timed
 * with each kernel this CPU runs (the measurement `filterlab tune` makes), and the kernel the
 * process would use (fl_kernel_choice: wisdom, rules) flagged where it is more than 5% slower
 * than the fastest. A report, not a failure: timings on a shared machine are noisy.
 *
 * Layout: harness.c (randomness, guards, canaries, payloads, the shared batch-lookup check),
 * one check_<module>.c per kernel module of kernels/kernels.h (FL_KERNEL_MODULES, which also
 * says which checks and benches this file runs), and this file.
 *
 * Last line: "checkkernels: N passed, M failed". Exit status 1 if anything failed.
 */
#include "harness.h"
#include "cpu/kernel_choice.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void line_out(void *ctx, const char *line) {
    (void)ctx;
    (void)line; /* the choice check prints its own table */
}

/* The choice check (see the top of the file). */
static void bench_choice(void) {
    fl_wisdom w;
    memset(&w, 0, sizeof w);
    printf("\nchoice check: the process's kernel (%s) per module entry and size class against "
           "the fastest timed now (fastest of 9 reps)\n",
           fl_kernel_active());
    printf("wisdom: %s\n", fl_kernel_wisdom_status());
    if (fl_tune_measure(&w, 0, line_out, NULL) != FL_OK) {
        printf("choice check: out of memory\n");
        return;
    }
    size_t rows = 0, losing = 0;
    for (size_t e = 0; e < fl_nentries; e++)
        for (int cls = 0; cls < FL_SIZE_CLASSES; cls++) {
            const fl_wisdom_cell *x = &w.cells[e * FL_SIZE_CLASSES + (size_t)cls];
            if (!x->have) continue;
            const char *k, *why;
            if (fl_kernel_choice(fl_entries[e].name, cls, &k, &why) != FL_OK) continue;
            int c = fl_cand_find(k);
            if (c < 0 || !(x->ns[c] > 0)) continue;
            double chosen = x->ns[c], best = x->ns[x->cand];
            int loses = chosen > best * 1.05;
            rows++;
            losing += (size_t)loses;
            printf("  %-26s %-4s chosen %-12s %8.2f ns  fastest %-12s %8.2f ns  %s",
                   fl_entries[e].name, fl_entries[e].sized ? fl_size_class_name(cls) : "any", k,
                   chosen, fl_cand_names[x->cand], best, loses ? "LOSES" : "ok");
            if (loses) printf(" by %.0f%% (%s)", 100.0 * (chosen / best - 1.0), why);
            printf("\n");
        }
    printf("choice check: %zu of %zu chosen kernels lose to another kernel of this CPU by more "
           "than 5%%%s\n",
           losing, rows, losing ? " (rerun on a quiet machine; then filterlab tune)" : "");
    fl_wisdom_free(&w);
}

static void usage(void) {
    fprintf(stderr, "usage: checkkernels [--seed N] [--kernel NAME] [--family NAME] [--bench] "
                    "[--bench-only] [--min] [--verbose]\n");
}

int main(int argc, char **argv) {
    int bench = 0, checks = 1;
    const char *only = NULL;
    uint64_t seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            seed = strtoull(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--kernel") && i + 1 < argc) {
            only = argv[++i];
        } else if (!strcmp(argv[i], "--family") && i + 1 < argc) {
            g_family = argv[++i];
        } else if (!strcmp(argv[i], "--min")) {
            g_bench_min = 1;
        } else if (!strcmp(argv[i], "--bench")) {
            bench = 1;
        } else if (!strcmp(argv[i], "--bench-only")) {
            bench = 1;
            checks = 0;
        } else if (!strcmp(argv[i], "--verbose")) {
            g_verbose = 1;
        } else {
            usage();
            return 2;
        }
    }
    rnd_seed(seed);
    printf("checkkernels: seed %" PRIu64 " (rerun with --seed %" PRIu64 ")\n", seed, seed);

    signal(SIGSEGV, on_crash);
    signal(SIGBUS, on_crash);
    signal(SIGILL, on_crash);

    /* ks[0] is scalar; the others in table order, so a table's parents come before it. */
    kernel ks[16];
    size_t nk = 0, count = fl_kernel_count();
    for (size_t i = 0; i < count && nk < 16; i++) {
        fl_kernel_desc d;
        if (fl_kernel_describe(i, &d) != FL_OK) continue;
        const fl_kernel_table *t = fl_kernel_table_at(i);
        if (i == 0 && (!t || strcmp(d.name, "scalar"))) {
            fprintf(stderr, "checkkernels: table 0 is not the scalar reference\n");
            return 1;
        }
        if (!t || !d.supported) {
            printf("  %-8s skipped: this CPU/OS cannot run it (needs %s)\n", d.name,
                   d.requires ? d.requires : "?");
            continue;
        }
        if (i > 0 && only && strcmp(only, d.name)) continue;
        printf("  %-8s %s%s\n", d.name, i == 0 ? "reference" : "checked",
               d.emulated ? " (emulated)" : "");
        ks[nk++] = (kernel){d.name, t, d.emulated};
    }
    if (nk == 0) {
        fprintf(stderr, "checkkernels: no scalar kernel table\n");
        return 1;
    }
    init_sizes();
    gbuf_setup();
    if (checks) {
        /* Both loops of every kernel that prefetches by payload size, whatever this CPU's L2
         * (kernels.h's fl_kernel_prefetch_min_bytes): at 1 MiB the small geometries stay
         * below it and the 4 MiB one is above, the two-bucket lookups' 2 MiB floor too. The
         * benchmarks below run with the CPU's own. */
        const size_t pf_here = fl_kernel_prefetch_min_bytes;
        fl_kernel_prefetch_min_bytes = (size_t)1 << 20;
#define CHECK_MODULE(module, ...) check_##module(ks, nk);
        FL_KERNEL_MODULES(CHECK_MODULE)
        fl_kernel_prefetch_min_bytes = pf_here;
    }
    if (bench) {
        printf("\nbench: ns per key (ratio to scalar), pre-hashed keys, batch %d, 50%% positive, "
               "%s of %d reps of %d keys\n",
               BENCH_BATCH, g_bench_min ? "fastest" : "median", BENCH_REPS, 1 << 19);
        printf("%-9s %2s %6s %-6s", "family", "k", "filter", "op");
        for (size_t ki = 0; ki < nk; ki++)
            printf(" %17s", ks[ki].emulated ? "neon(emulated)" : ks[ki].name);
        printf("\n");
#define BENCH_MODULE(module, ...) bench_##module(ks, nk);
        FL_KERNEL_MODULES(BENCH_MODULE)
        printf("('=' marks a table entry that is the scalar function itself)\n");
        if (!only && !g_family) bench_choice();
    }
    printf("checkkernels: %lu passed, %lu failed\n", g_passed, g_failed);
    return g_failed ? 1 : 0;
}
