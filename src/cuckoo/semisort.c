/*
 * The decoding table of 13-bit semi-sorted cuckoo buckets (filterlab_inline.h's
 * fl_cuckoo13_has gives the layout; kernels/probe.h encodes). Entry r is the non-decreasing
 * nibble tuple of rank r, nibble s at bits 9s..9s+3; ranks 3876..4095 are no tuple's and stay
 * 0. Filled from the encoder's own rank function, once, when the library is loaded (a
 * constructor: every handle and kernel reads it without a check, and no filter exists before
 * it has run). tests/test_cuckoo.c checks that every tuple decodes to itself.
 */
#include "core/internal.h"
#include "probe.h"

uint32_t fl_cuckoo13_tuples[4096];

__attribute__((constructor)) static void fill_cuckoo13_tuples(void) {
    for (uint32_t n3 = 0; n3 < 16; n3++)
        for (uint32_t n2 = 0; n2 <= n3; n2++)
            for (uint32_t n1 = 0; n1 <= n2; n1++)
                for (uint32_t n0 = 0; n0 <= n1; n0++)
                    fl_cuckoo13_tuples[fl_cuckoo13_rank(n0, n1, n2, n3)] =
                        n0 | n1 << 9 | n2 << 18 | n3 << 27;
}
