/*
 * Both forms of kernels/vqf_md.h's metadata shifts, compiled with -mbmi2 so that the pdep and
 * pext forms exist (tests/meson.build); main() is tests/test_vqf_md.c's, at baseline flags,
 * which skips on a CPU without BMI2 before calling here.
 */
#include "vqf_md.h"

#ifndef VQF_MD_HAVE_BMI2
#error "tests/vqf_md_checks.c needs -mbmi2 on x86-64 (tests/meson.build)"
#endif

void vqf_md_both_forms(uint64_t lo, uint64_t hi, uint32_t p, uint64_t out[8]);

/* out: the masks' insert (lo, hi), the pdep insert, the masks' removal, the pext removal. */
void vqf_md_both_forms(uint64_t lo, uint64_t hi, uint32_t p, uint64_t out[8]) {
    out[0] = out[2] = out[4] = out[6] = lo;
    out[1] = out[3] = out[5] = out[7] = hi;
    vqf_md_insert_zero_masks(&out[0], &out[1], p);
    vqf_md_insert_zero_pdep(&out[2], &out[3], p);
    vqf_md_remove_bit_masks(&out[4], &out[5], p);
    vqf_md_remove_bit_pext(&out[6], &out[7], p);
}
