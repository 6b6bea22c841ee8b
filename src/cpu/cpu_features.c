/*
 * The one CPU feature reader: CPUID and XCR0 on x86, AT_HWCAP on aarch64. Kernel dispatch
 * (src/cpu/dispatch.c) and the host description (src/cpu/host.c) both ask it, so the kernels picked
 * and the features reported cannot disagree.
 *
 * Bit positions are from the Intel SDM vol. 2A, "CPUID - CPU Identification" (leaf 1 ECX,
 * leaf 7 sub-leaves 0 and 1) and vol. 1 section 13.3 (XCR0 state components); AMD's APM
 * vol. 3 uses the same positions for the bits both vendors implement.
 */
#include <stdio.h>
#include <string.h>

#include "core/internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define FL_X86 1
#elif defined(__aarch64__)
#include <sys/auxv.h>
#ifndef HWCAP_ASIMD
#define HWCAP_ASIMD (1 << 1)
#endif
#endif

#if defined(FL_X86)
/* XCR0 read with the raw xgetbv opcode so this file needs no -mxsave. */
static uint64_t read_xcr0(void) {
    uint32_t eax, edx;
    __asm__ volatile(".byte 0x0f, 0x01, 0xd0" : "=a"(eax), "=d"(edx) : "c"(0));
    return ((uint64_t)edx << 32) | eax;
}

#define BIT(r, n) (((r) >> (n)) & 1u)

static uint32_t detect_x86(void) {
    uint32_t f = 0;
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    if (BIT(c, 31)) f |= FL_CPU_HYPERVISOR; /* CPUID.1:ECX[31], reserved for hypervisors */
    if (BIT(c, 12)) f |= FL_CPU_FMA;
    int osxsave = BIT(c, 27), avx = BIT(c, 28);
    if (osxsave && avx) {
        uint64_t xcr0 = read_xcr0();
        if ((xcr0 & 0x6) == 0x6) f |= FL_CPU_OS_YMM;   /* bits 1-2: SSE and AVX state */
        if ((xcr0 & 0xe6) == 0xe6) f |= FL_CPU_OS_ZMM; /* plus 5-7: opmask, ZMM_Hi256, Hi16_ZMM */
    }
    if (__get_cpuid_max(0, NULL) >= 7) {
        __cpuid_count(7, 0, a, b, c, d);
        static const struct {
            uint8_t reg, bit; /* 0 = EBX, 1 = ECX, 2 = EDX of CPUID.(7,0) */
            uint32_t feature;
        } leaf7[] = {
            {0, 5, FL_CPU_AVX2},           {0, 8, FL_CPU_BMI2},
            {0, 16, FL_CPU_AVX512F},       {0, 17, FL_CPU_AVX512DQ},
            {0, 30, FL_CPU_AVX512BW},      {0, 31, FL_CPU_AVX512VL},
            {1, 6, FL_CPU_AVX512_VBMI2},   {1, 11, FL_CPU_AVX512_VNNI},
            {1, 12, FL_CPU_AVX512_BITALG}, {1, 14, FL_CPU_AVX512_VPOPCNTDQ},
            {2, 8, FL_CPU_AVX512_VP2INTERSECT}, {2, 22, FL_CPU_AMX_BF16},
            {2, 23, FL_CPU_AVX512_FP16},   {2, 24, FL_CPU_AMX_TILE},
            {2, 25, FL_CPU_AMX_INT8},
        };
        const unsigned regs[3] = {b, c, d};
        unsigned subleaves = a; /* EAX of sub-leaf 0: the highest sub-leaf */
        for (size_t i = 0; i < sizeof leaf7 / sizeof leaf7[0]; i++)
            if (BIT(regs[leaf7[i].reg], leaf7[i].bit)) f |= leaf7[i].feature;
        if (subleaves >= 1) {
            __cpuid_count(7, 1, a, b, c, d); /* CPUID.(7,1):EAX */
            if (BIT(a, 4)) f |= FL_CPU_AVX_VNNI;
            if (BIT(a, 5)) f |= FL_CPU_AVX512_BF16;
            if (BIT(a, 21)) f |= FL_CPU_AMX_FP16;
        }
    }
    const uint32_t avx2 = FL_CPU_AVX2 | FL_CPU_BMI2 | FL_CPU_FMA | FL_CPU_OS_YMM;
    const uint32_t avx512 = avx2 | FL_CPU_AVX512F | FL_CPU_AVX512DQ | FL_CPU_AVX512BW |
                            FL_CPU_AVX512VL | FL_CPU_OS_ZMM;
    if ((f & avx2) == avx2) f |= FL_CPU_AVX2_USABLE;
    if ((f & avx512) == avx512) f |= FL_CPU_AVX512_USABLE;
    return f;
}

/* The 12-byte vendor signature of CPUID leaf 0x40000000 (EBX, ECX, EDX), which hypervisors
 * answer when CPUID.1:ECX[31] is set (Linux Documentation/virt/kvm/x86/cpuid.rst). */
static void hypervisor_signature(char out[13]) {
    unsigned a, b, c, d;
    __cpuid(0x40000000, a, b, c, d);
    (void)a;
    memcpy(out, &b, 4);
    memcpy(out + 4, &c, 4);
    memcpy(out + 8, &d, 4);
    out[12] = '\0';
}
#endif

uint32_t fl_cpu_features(void) {
#if defined(FL_X86)
    return detect_x86();
#elif defined(__aarch64__)
    return (getauxval(AT_HWCAP) & HWCAP_ASIMD) ? FL_CPU_ASIMD : 0;
#else
    return 0;
#endif
}

int fl_cpu_hypervisor_vendor(char *out, size_t cap) {
    if (cap) out[0] = '\0';
#if defined(FL_X86)
    if (!(detect_x86() & FL_CPU_HYPERVISOR) || cap == 0) return 0;
    char sig[13];
    hypervisor_signature(sig);
    /* The names lscpu prints (util-linux sys-utils/lscpu-virt.c), lower case; Microsoft's
     * is "hyperv" as the results folders have always called it. */
    static const struct {
        const char *sig, *name;
    } known[] = {
        {"KVMKVMKVM", "kvm"},         {"Microsoft Hv", "hyperv"}, {"VMwareVMware", "vmware"},
        {"XenVMMXenVMM", "xen"},      {"TCGTCGTCGTCG", "tcg"},    {"bhyve bhyve ", "bhyve"},
        {" lrpepyh  vr", "parallels"}, {"ACRNACRNACRN", "acrn"},  {"QNXQVMBSQG", "qnx"},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strncmp(sig, known[i].sig, 12) == 0) {
            snprintf(out, cap, "%s", known[i].name);
            return 1;
        }
    return 1; /* a hypervisor, but not one named here */
#else
    return 0;
#endif
}

/* The FL_CPU_* bits' names, in bit order (fl_cpu_feature_name). */
static const char *const feature_names[FL_CPU_FEATURE_COUNT] = {
    "AVX2",          "BMI2",          "FMA",           "AVX512F",
    "AVX512DQ",      "AVX512BW",      "AVX512VL",      "AVX512-VNNI",
    "AVX512-VBMI2",  "AVX512-VP2INTERSECT", "AVX512-BF16", "AVX512-FP16",
    "AVX-VNNI",      "AMX-TILE",      "AMX-INT8",      "AMX-BF16",
    "AMX-FP16",      "OS-YMM",        "OS-ZMM",        "HYPERVISOR",
    "ASIMD",         "AVX2-USABLE",   "AVX512-USABLE", "AVX512-VPOPCNTDQ",
    "AVX512-BITALG",
};

const char *fl_cpu_feature_name(uint32_t feature) {
    for (int b = 0; b < FL_CPU_FEATURE_COUNT; b++)
        if (feature == (uint32_t)1 << b) return feature_names[b];
    return NULL;
}
