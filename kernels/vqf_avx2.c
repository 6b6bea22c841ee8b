/*
 * The vqf module's AVX2 kernel (-mavx2 -mbmi2 -mfma): a block's slots compared with the
 * key's fingerprint in two 32-byte vpcmpeqb (the metadata's 16 bytes compare too and are
 * shifted out of the movemask), ANDed with the bucket's slots (one popcnt, two pdeps and
 * rotations): include/filterlab_vqf.h's fl_vqf_block_has as this file's flags compile it
 * (dispatch runs this table only where AVX2 and BMI2 are there). The loop is
 * kernels/vqf_loop.h's.
 */
#if !defined(__AVX2__) || !defined(__BMI2__)
#error "kernels/vqf_avx2.c needs -mavx2 -mbmi2"
#endif

#include "kernels.h"
#include "probe.h"
#include "x86_common.h"

#define VQF_BLOCK_HAS fl_vqf_block_has
#include "vqf_loop.h"

FL_VQF_INIT(avx2)
