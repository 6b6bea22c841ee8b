/*
 * The vqf module's batch lookup for the avx512-popcnt candidate of the kernel choice:
 * kernels/vqf_lanes_avx512.h's eight-keys-in-lanes loop compiled with AVX512_VPOPCNTDQ and
 * AVX512_BITALG, so its popcounts are vpopcntq (popcount(lo) per lane) and vpopcntb (the byte
 * counts of the select) instead of vpshufb nibble tables and vpsadbw. Only vqf.contains
 * differs from the avx512 table: src/cpu/dispatch.c copies that table and puts this entry
 * in, where the CPU has both bits and the OS saves ZMM state (Ice Lake, Sapphire and Emerald
 * Rapids, AMD Zen 4 and 5; not Skylake-X or Cascade Lake). Built with kernels/meson.build's
 * avx512 flags plus -mavx512vpopcntdq -mavx512bitalg, in its own library.
 */
#if !defined(__AVX512VPOPCNTDQ__) || !defined(__AVX512BITALG__)
#error "kernels/vqf_avx512_popcnt.c needs -mavx512vpopcntdq -mavx512bitalg"
#endif

#include "kernels.h"
#include "probe.h"
#include "x86_common.h"
#include "vqf_lanes_avx512.h"

#define VQF_BLOCK_HAS fl_vqf_block_has
#define VQF_CONTAINS_LOOP vqf_contains_lanes
#include "vqf_loop.h"

size_t fl_vqf_contains_popcnt_avx512(const fl_kview *f, const uint64_t *hashes, size_t n,
                                     uint8_t *out) {
    return vqf_contains(f, hashes, n, out);
}
