/*
 * main() of the header-inline lookup tests (the tests are in lookup_checks.c, compiled once
 * per way a user's file could be compiled). This file is always built at baseline flags so
 * that it can refuse, with the skip status, to run checks compiled for an ISA this CPU lacks
 * (an AVX2 build reached on an older CPU would die of SIGILL, not fail).
 */
#include <stdio.h>
#include <string.h>

#include "filterlab.h"

int run_lookup_tests(void);

#define SKIP 77 /* meson's exit status for a skipped test */

#ifdef FL_TEST_NEEDS_AVX2
static int cpu_supports(const char *kernel) {
    for (size_t i = 0; i < fl_kernel_count(); i++) {
        fl_kernel_desc d;
        if (fl_kernel_describe(i, &d) == FL_OK && strcmp(d.name, kernel) == 0)
            return d.supported && !d.emulated;
    }
    return 0;
}
#endif

int main(void) {
#ifdef FL_TEST_NEEDS_AVX2
    if (!cpu_supports("avx2")) {
        printf("skipped: this CPU cannot run the checks compiled with -mavx2\n");
        return SKIP;
    }
#endif
    return run_lookup_tests();
}
