/*
 * The microarchitecture name of a CPU, a pure function of what it reports (vendor, family,
 * model, stepping, features; the Arm implementer and part), so tests can feed it any CPU.
 *
 * The model tables name the core. A hypervisor, though, may report any family/model: one
 * 2-vCPU cloud VM said family 6 model 167 (Rocket Lake, a client core without AMX) while
 * offering AMX and AVX512-FP16, which only Sapphire Rapids and later have. A hypervisor can
 * hide a feature but cannot add one the hardware lacks, so a feature the named core never
 * had proves the model wrong: then the name comes from the features, and the source says
 * so and quotes what the model claimed. Under a hypervisor, an Intel family 6 model the
 * table does not know is named from the features too.
 */
#include <stdio.h>
#include <string.h>

#include "core/internal.h"

/* Feature sets that tell Intel generations apart (Intel SDM vol. 1 ch. 2, "Intel 64 and
 * IA-32 processor architectures", and the ISA extensions reference's per-feature "first
 * implemented in"). A core of a generation can have only the features its set allows. */
enum {
    G_AVX2 = 0,   /* no AVX-512: Haswell to Comet Lake clients, Alder Lake on, Sierra Forest */
    G_ADL,        /* Alder Lake: P-cores ran AVX-512 (with FP16) under early firmware */
    G_AVX512,     /* Skylake-X to Rocket Lake: AVX-512, no FP16, no AMX */
    G_AMX,        /* Sapphire and Emerald Rapids: AMX-TILE/INT8/BF16, AVX512-FP16 */
    G_AMX_FP16,   /* Granite Rapids: AMX-FP16 too */
};

/* The features each generation cannot have. */
static const uint32_t never[] = {
    [G_AVX2] = FL_CPU_AVX512F | FL_CPU_AVX512_FP16 | FL_CPU_AMX_TILE | FL_CPU_AMX_FP16,
    [G_ADL] = FL_CPU_AMX_TILE | FL_CPU_AMX_FP16,
    [G_AVX512] = FL_CPU_AVX512_FP16 | FL_CPU_AMX_TILE | FL_CPU_AMX_FP16,
    [G_AMX] = FL_CPU_AMX_FP16,
    [G_AMX_FP16] = 0,
};

/* Intel family 6 model numbers (Intel SDM vol. 4, "CPUID Signature Values"). */
static const struct {
    uint8_t model;
    uint8_t gen;
    const char *name;
} intel6[] = {
    {0x3C, G_AVX2, "haswell"},       {0x3F, G_AVX2, "haswell"},      {0x45, G_AVX2, "haswell"},
    {0x46, G_AVX2, "haswell"},       {0x3D, G_AVX2, "broadwell"},    {0x47, G_AVX2, "broadwell"},
    {0x4F, G_AVX2, "broadwell"},     {0x56, G_AVX2, "broadwell"},    {0x4E, G_AVX2, "skylake"},
    {0x5E, G_AVX2, "skylake"},       {0x55, G_AVX512, "skylakex"},   {0x8E, G_AVX2, "kabylake"},
    {0x9E, G_AVX2, "coffeelake"},    {0xA5, G_AVX2, "cometlake"},    {0xA6, G_AVX2, "cometlake"},
    {0x66, G_AVX512, "cannonlake"},  {0x7D, G_AVX512, "icelake"},    {0x7E, G_AVX512, "icelake"},
    {0x6A, G_AVX512, "icelakex"},    {0x6C, G_AVX512, "icelakex"},   {0x8C, G_AVX512, "tigerlake"},
    {0x8D, G_AVX512, "tigerlake"},   {0xA7, G_AVX512, "rocketlake"}, {0x97, G_ADL, "alderlake"},
    {0x9A, G_ADL, "alderlake"},      {0xB7, G_AVX2, "raptorlake"},   {0xBA, G_AVX2, "raptorlake"},
    {0xBF, G_AVX2, "raptorlake"},    {0xAA, G_AVX2, "meteorlake"},   {0xAC, G_AVX2, "meteorlake"},
    {0xBD, G_AVX2, "lunarlake"},     {0xC5, G_AVX2, "arrowlake"},    {0xC6, G_AVX2, "arrowlake"},
    {0x8F, G_AMX, "sapphirerapids"}, {0xCF, G_AMX, "emeraldrapids"}, {0xAD, G_AMX_FP16, "graniterapids"},
    {0xAE, G_AMX_FP16, "graniterapids"}, {0xAF, G_AVX2, "sierraforest"},
};

/* Naming from features: the first rung whose evidence the CPU has. Sapphire and Emerald
 * Rapids have the same features, so both are named after the first. */
typedef struct rung {
    uint32_t evidence; /* any of these */
    const char *name;
} rung;
static const rung intel_rungs[] = {
    {FL_CPU_AMX_FP16, "graniterapids"},
    {FL_CPU_AMX_TILE | FL_CPU_AVX512_FP16, "sapphirerapids"},
    {FL_CPU_AVX512_VP2INTERSECT, "tigerlake"},
    {FL_CPU_AVX512_VBMI2, "icelake"},
    {FL_CPU_AVX512_VNNI, "cascadelake"},
    {FL_CPU_AVX512F, "skylakex"},
    {FL_CPU_AVX2, "haswell"},
};
/* AMD: Zen 4 brought AVX-512, Zen 5 added VP2INTERSECT (AMD's Zen 4 and Zen 5 software
 * optimisation guides, "ISA extensions"). */
static const rung amd_rungs[] = {
    {FL_CPU_AVX512_VP2INTERSECT, "zen5"},
    {FL_CPU_AVX512F, "zen4"},
};

/* (implementer, part) from /proc/cpuinfo on aarch64 (Arm's Technical Reference Manuals,
 * MIDR_EL1 part numbers; 0xC0 Ampere, 0x61 Apple). */
static const struct {
    int impl, part;
    const char *name;
} arm_parts[] = {
    {0x41, 0xD0C, "neoverse-n1"}, {0x41, 0xD40, "neoverse-v1"}, {0x41, 0xD49, "neoverse-n2"},
    {0x41, 0xD4F, "neoverse-v2"}, {0x41, 0xD8E, "neoverse-n3"}, {0x41, 0xD84, "neoverse-v3"},
    {0x41, 0xD0B, "cortex-a76"},  {0x41, 0xD08, "cortex-a72"},  {0x41, 0xD03, "cortex-a53"},
    {0xC0, 0xAC3, "ampereone"},   {0x61, 0x000, "apple"},
};

/* The model table's name, and the features that name cannot have (0: no table entry). */
static const char *from_table(const fl_cpu_id *id, uint32_t *never_out) {
    *never_out = 0;
    if (strcmp(id->vendor, "GenuineIntel") == 0 && id->family == 6) {
        for (size_t i = 0; i < sizeof intel6 / sizeof intel6[0]; i++) {
            if (intel6[i].model != id->model) continue;
            *never_out = never[intel6[i].gen];
            /* Model 0x55 covers three server generations; the stepping tells them apart. */
            if (id->model == 0x55 && id->stepping >= 5)
                return id->stepping < 10 ? "cascadelake" : "cooperlake";
            return intel6[i].name;
        }
        return NULL;
    }
    if (strcmp(id->vendor, "AuthenticAMD") == 0 && id->family >= 0) {
        int m = id->model > 0 ? id->model : 0;
        if (id->family == 0x17) {
            *never_out = FL_CPU_AVX512F;
            return m >= 0x30 ? "zen2" : "zen";
        }
        if (id->family == 0x19) {
            if ((m >= 0x10 && m <= 0x1F) || (m >= 0x60 && m <= 0x7F) || (m >= 0xA0 && m <= 0xAF)) {
                *never_out = FL_CPU_AVX512_VP2INTERSECT;
                return "zen4";
            }
            *never_out = FL_CPU_AVX512F;
            return "zen3";
        }
        if (id->family == 0x1A) return "zen5";
        return NULL;
    }
    if (id->arm_implementer >= 0 && id->arm_part >= 0) {
        for (size_t i = 0; i < sizeof arm_parts / sizeof arm_parts[0]; i++)
            if (arm_parts[i].impl == id->arm_implementer && arm_parts[i].part == id->arm_part)
                return arm_parts[i].name;
        for (size_t i = 0; i < sizeof arm_parts / sizeof arm_parts[0]; i++)
            if (arm_parts[i].impl == id->arm_implementer && arm_parts[i].part == 0)
                return arm_parts[i].name;
    }
    return NULL;
}

static const rung *from_features(const fl_cpu_id *id) {
    const rung *r = NULL;
    size_t n = 0;
    if (strcmp(id->vendor, "GenuineIntel") == 0) {
        r = intel_rungs;
        n = sizeof intel_rungs / sizeof intel_rungs[0];
    } else if (strcmp(id->vendor, "AuthenticAMD") == 0) {
        r = amd_rungs;
        n = sizeof amd_rungs / sizeof amd_rungs[0];
    }
    for (size_t i = 0; i < n; i++)
        if (id->features & r[i].evidence) return &r[i];
    return NULL;
}

/* "AMX-TILE, AVX512-FP16": the names of the bits of `mask`, in bit order. */
static void feature_list(uint32_t mask, char *out, size_t cap) {
    size_t len = 0;
    out[0] = '\0';
    for (int b = 0; b < FL_CPU_FEATURE_COUNT; b++) {
        uint32_t bit = (uint32_t)1 << b;
        if (!(mask & bit) || len >= cap) continue;
        int w = snprintf(out + len, cap - len, "%s%s", len ? ", " : "", fl_cpu_feature_name(bit));
        len += w > 0 ? (size_t)w : 0;
    }
}

int fl_cpu_uarch(const fl_cpu_id *id, char *name, size_t ncap, char *source, size_t scap) {
    uint32_t forbidden;
    const char *table = from_table(id, &forbidden);
    uint32_t contradicting = id->features & forbidden;
    int unknown_guest_model = !table && (id->features & FL_CPU_HYPERVISOR) &&
                              strcmp(id->vendor, "GenuineIntel") == 0 && id->family == 6;
    if (table && !contradicting) {
        snprintf(name, ncap, "%s", table);
        snprintf(source, scap, "cpuid family/model");
        return 1;
    }
    const rung *r = (contradicting || unknown_guest_model) ? from_features(id) : NULL;
    if (r) {
        char list[160];
        /* Quote the features that decided: those that contradict the table, else the
         * rung's evidence the CPU has. */
        feature_list(contradicting ? contradicting : (id->features & r->evidence), list,
                     sizeof list);
        snprintf(name, ncap, "%s", r->name);
        if (table)
            snprintf(source, scap, "features: %s (cpuid family %d model %d says %s)", list,
                     id->family, id->model, table);
        else
            snprintf(source, scap,
                     "features: %s (cpuid family %d model %d, under a hypervisor, is not in "
                     "the model table)",
                     list, id->family, id->model);
        return 1;
    }
    if (table) { /* contradicted, but no rung names it: keep the table's name, say so */
        char list[160];
        feature_list(contradicting, list, sizeof list);
        snprintf(name, ncap, "%s", table);
        snprintf(source, scap, "cpuid family/model (contradicted by features: %s)", list);
        return 1;
    }
    return 0;
}

/* hostinfo.py's slug, kept so host ids stay the same: lower case; "(r)", "(tm)", "cpu",
 * "processor" and everything from '@' removed; runs of other characters become one '-';
 * no '-' at either end; at most 24 characters; "cpu" if nothing is left. */
void fl_cpu_slug(const char *s, char *out, size_t cap) {
    char low[256], kept[256];
    size_t n = 0, k = 0;
    for (; s[n] && n < sizeof low - 1; n++)
        low[n] = (s[n] >= 'A' && s[n] <= 'Z') ? (char)(s[n] - 'A' + 'a') : s[n];
    low[n] = '\0';
    static const char *const drop[] = {"(r)", "(tm)", "cpu", "processor"};
    for (size_t i = 0; i < n;) {
        if (low[i] == '@') break;
        size_t skip = 0;
        for (size_t d = 0; d < sizeof drop / sizeof drop[0] && !skip; d++)
            if (strncmp(low + i, drop[d], strlen(drop[d])) == 0) skip = strlen(drop[d]);
        if (skip) {
            i += skip;
            continue;
        }
        kept[k++] = low[i++];
    }
    kept[k] = '\0';
    size_t o = 0;
    int dash = 0;
    for (size_t i = 0; i < k && o < 24; i++) {
        char c = kept[i];
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
            if (dash && o > 0 && o < 24) out[o++] = '-';
            dash = 0;
            if (o < 24) out[o++] = c;
        } else {
            dash = 1;
        }
    }
    (void)cap;
    out[o] = '\0';
    if (o == 0) snprintf(out, cap, "cpu");
}
