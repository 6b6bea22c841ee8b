/*
 * filterlab host: the one description of this machine (fl_host_describe) (included by filterlab.h).
 */
#ifndef FILTERLAB_HOST_H
#define FILTERLAB_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "filterlab.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------
 * The host: one description of this machine's CPU, shared by the `filterlab host` and
 * `advise` commands, flbench's result context and scripts/repro/hostinfo.py (src/cpu/host.c).
 * ------------------------------------------------------------------------------------- */
/* CPU features (bits of fl_host.features). x86 bits are CPUID bits (Intel SDM vol. 2A,
 * CPUID leaves 1 and 7): they say the hardware has the instructions, not that the OS lets a
 * program use them, except FL_CPU_OS_YMM/FL_CPU_OS_ZMM (XCR0) and the two bundles below. */
enum {
    FL_CPU_AVX2 = 1u << 0,
    FL_CPU_BMI2 = 1u << 1,
    FL_CPU_FMA = 1u << 2,
    FL_CPU_AVX512F = 1u << 3,
    FL_CPU_AVX512DQ = 1u << 4,
    FL_CPU_AVX512BW = 1u << 5,
    FL_CPU_AVX512VL = 1u << 6,
    FL_CPU_AVX512_VNNI = 1u << 7,
    FL_CPU_AVX512_VBMI2 = 1u << 8,
    FL_CPU_AVX512_VP2INTERSECT = 1u << 9,
    FL_CPU_AVX512_BF16 = 1u << 10,
    FL_CPU_AVX512_FP16 = 1u << 11,
    FL_CPU_AVX_VNNI = 1u << 12,
    FL_CPU_AMX_TILE = 1u << 13,
    FL_CPU_AMX_INT8 = 1u << 14,
    FL_CPU_AMX_BF16 = 1u << 15,
    FL_CPU_AMX_FP16 = 1u << 16,
    FL_CPU_OS_YMM = 1u << 17,    /* the OS saves YMM state (XCR0 bits 1-2) */
    FL_CPU_OS_ZMM = 1u << 18,    /* ... and opmask/ZMM state (XCR0 bits 5-7) */
    FL_CPU_HYPERVISOR = 1u << 19, /* CPUID.1:ECX bit 31: running under a hypervisor */
    FL_CPU_ASIMD = 1u << 20,     /* aarch64 NEON (AT_HWCAP) */
    /* What the avx2 and avx512 kernels need, OS state included (src/cpu/dispatch.c). */
    FL_CPU_AVX2_USABLE = 1u << 21,
    FL_CPU_AVX512_USABLE = 1u << 22,
    FL_CPU_AVX512_VPOPCNTDQ = 1u << 23, /* CPUID.(7,0):ECX bit 14: vpopcntd/q */
    FL_CPU_AVX512_BITALG = 1u << 24,    /* CPUID.(7,0):ECX bit 12: vpopcntb/w, vpshufbitqmb */
};
#define FL_CPU_FEATURE_COUNT 25
/* "AVX2", "AMX-TILE", ... for one FL_CPU_* bit; NULL for anything else. */
const char *fl_cpu_feature_name(uint32_t feature);

#define FL_HOST_MAX_CACHES 16
typedef struct fl_host_cache {
    int level;
    char type[16];           /* "Data", "Instruction", "Unified" */
    uint64_t bytes;
    int ways, line;          /* 0 if sysfs does not say */
    uint64_t sets;
    char shared_cpu_list[128]; /* as sysfs writes it, e.g. "0-3,8-11" */
    int sharing;             /* CPUs in shared_cpu_list */
} fl_host_cache;

typedef struct fl_host {
    /* Identity, as /proc/cpuinfo prints it for the first processor ("" or -1 if absent). */
    char vendor[32];         /* vendor_id: "GenuineIntel", "AuthenticAMD" */
    char brand[128];         /* "model name" (or an Arm board's "Model") */
    int family, model, stepping;
    char microcode[32];
    char arm_implementer[16], arm_architecture[16], arm_part[16], arm_revision[16];
    char flags[4096];        /* the "flags" (x86) or "Features" (Arm) line */
    /* vendor-family-model-stepping (x86) or implementer-architecture-part-revision (Arm):
     * the key `filterlab advise` matches result folders with. */
    char signature[160];
    /* Microarchitecture slug ("emeraldrapids", "zen5", "neoverse-n1", or the brand made a
     * slug) and where it came from: "cpuid family/model" (the model table), "model name",
     * or "features: ..." when the CPU's features contradict the model a hypervisor reports. */
    char uarch[32];
    char uarch_source[256];
    char hypervisor[32];     /* "kvm", "hyperv", "vmware", "xen", ...; "" on bare metal */
    uint32_t features;       /* FL_CPU_* */
    /* Caches of cpu0 from /sys/devices/system/cpu/cpu0/cache. */
    int ncaches;
    fl_host_cache caches[FL_HOST_MAX_CACHES];
    uint64_t l1d_bytes, l2_bytes; /* 0 if unknown */
    uint64_t llc_bytes;      /* the largest data/unified cache of the highest level >= 2 */
    int cpus_online;         /* sysconf(_SC_NPROCESSORS_ONLN) */
    int cpus_usable;         /* CPUs this process may run on (sched_getaffinity) */
    char hostname_sha256_4[8]; /* first 4 hex digits of SHA-256 of the host name */
    /* <uarch>[-<hypervisor>]-<cpus_usable>c-<hostname_sha256_4>: the results folder name.
     * FL_HOST_ID in the environment overrides it (characters outside [A-Za-z0-9._-]
     * become '-'). */
    char host_id[128];
} fl_host;

/* Reads /proc/cpuinfo, CPUID (x86) or AT_HWCAP (aarch64), sysfs and the host name. Values
 * that cannot be read stay empty, -1 or 0; FL_ERR_INVALID_ARG only for a NULL out. */
fl_status fl_host_describe(fl_host *out);

#ifdef __cplusplus
}
#endif
#endif /* FILTERLAB_HOST_H */
