/*
 * The decoding tables of semi-sorted cuckoo buckets, 11- and 13-bit (filterlab_inline.h's
 * fl_cuckoo_ss_has gives the layout; kernels/probe.h encodes). Entry r of a width's table is
 * the non-decreasing nibble tuple of rank r, nibble s at bits Ls..Ls+3 where L = fp_bits - 4
 * is the width's low bits a slot (7 or 9); ranks 3876..4095 are no tuple's and stay 0. Filled
 * from the encoder's own rank function, once, when the library is loaded (a constructor:
 * every handle and kernel reads them without a check, and no filter exists before it has run).
 * tests/test_cuckoo.c checks that every tuple decodes to itself at both widths.
 */
#include "core/internal.h"
#include "probe.h"

uint32_t fl_cuckoo_tuples[2][4096];

static void fill(uint32_t fp_bits) {
    uint32_t *t = fl_cuckoo_tuples[fp_bits == 13], low = fp_bits - 4;
    for (uint32_t n3 = 0; n3 < 16; n3++)
        for (uint32_t n2 = 0; n2 <= n3; n2++)
            for (uint32_t n1 = 0; n1 <= n2; n1++)
                for (uint32_t n0 = 0; n0 <= n1; n0++)
                    t[fl_cuckoo_ss_rank(n0, n1, n2, n3)] =
                        n0 | n1 << low | n2 << 2 * low | n3 << 3 * low;
}

__attribute__((constructor)) static void fill_cuckoo_tuples(void) {
    fill(11);
    fill(13);
}
