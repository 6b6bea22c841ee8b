/*
 * The vqf module's AVX-512 kernel (-mavx512f/bw/vl/dq -mbmi2): a block's 48 slots compared
 * with the key's fingerprint in one 64-byte vpcmpeqb into a mask register (the metadata's 16
 * bytes compare too and are shifted out), ANDed with the bucket's slots (one popcnt, two
 * pdeps and rotations): include/filterlab_vqf.h's fl_vqf_block_has as this file's flags
 * compile it (dispatch runs this table only where AVX-512 BW and BMI2 are there). The loop
 * is kernels/vqf_loop.h's.
 */
#if !defined(__AVX512BW__) || !defined(__BMI2__)
#error "kernels/vqf_avx512.c needs -mavx512bw -mbmi2"
#endif

#include "kernels.h"
#include "probe.h"
#include "x86_common.h"

#define VQF_BLOCK_HAS fl_vqf_block_has
#include "vqf_loop.h"

FL_VQF_INIT(avx512)
