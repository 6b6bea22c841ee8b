/* The host description (src/cpu/host.c) and the microarchitecture naming rule (src/cpu/cpu_uarch.c):
 * this machine's description is filled and agrees with kernel dispatch; the naming, fed
 * crafted CPUs, believes the features over a model number they contradict. */
#include <stdio.h>
#include <string.h>

#include "testutil.h"

#include "core/internal.h"

static const fl_host *this_host(void) {
    static fl_host h;
    static int done;
    if (!done) {
        assert_int_equal(fl_host_describe(&h), FL_OK);
        done = 1;
    }
    return &h;
}

static void describe_fills_fields(void **state) {
    (void)state;
    assert_int_equal(fl_host_describe(NULL), FL_ERR_INVALID_ARG);
    const fl_host *h = this_host();
    assert_true(h->vendor[0] || h->arm_implementer[0]);
    assert_true(h->signature[0] != '\0' && h->signature[0] != '-');
    assert_true(h->uarch[0] != '\0');
    assert_true(h->uarch_source[0] != '\0');
    assert_true(h->cpus_online >= 1);
    assert_true(h->cpus_usable >= 1);
    assert_int_equal(strlen(h->hostname_sha256_4), 4);
    /* main() unset FL_HOST_ID: the id is <uarch>[-<hypervisor>]-<N>c-<hash>. */
    char want[160];
    snprintf(want, sizeof want, "%.31s%s%.31s-%dc-%.7s", h->uarch, h->hypervisor[0] ? "-" : "",
             h->hypervisor, h->cpus_usable, h->hostname_sha256_4);
    assert_string_equal(h->host_id, want);
    if (h->vendor[0]) { /* x86: the signature is vendor-family-model-stepping */
        snprintf(want, sizeof want, "%.31s-%d-%d-%d", h->vendor, h->family, h->model, h->stepping);
        assert_string_equal(h->signature, want);
    }
    for (int i = 0; i < h->ncaches; i++) {
        assert_true(h->caches[i].level >= 1);
        assert_true(h->caches[i].bytes > 0);
    }
    if (h->l2_bytes && h->llc_bytes) assert_true(h->llc_bytes >= h->l2_bytes);
}

static void features_agree_with_dispatch(void **state) {
    (void)state;
    const fl_host *h = this_host();
    size_t checked = 0;
    for (size_t i = 0; i < fl_kernel_count(); i++) {
        fl_kernel_desc d;
        assert_int_equal(fl_kernel_describe(i, &d), FL_OK);
        uint32_t need = strcmp(d.name, "avx2") == 0     ? FL_CPU_AVX2_USABLE
                        : strcmp(d.name, "avx512") == 0 ? FL_CPU_AVX512_USABLE
                        : strcmp(d.name, "neon") == 0 && !d.emulated ? FL_CPU_ASIMD
                                                                     : 0;
        if (!need) continue;
        assert_int_equal(d.supported, (h->features & need) != 0);
        checked++;
    }
    /* The bundles imply their parts. */
    if (h->features & FL_CPU_AVX512_USABLE) assert_true(h->features & FL_CPU_AVX2_USABLE);
    if (h->features & FL_CPU_AVX2_USABLE)
        assert_true((h->features & (FL_CPU_AVX2 | FL_CPU_BMI2 | FL_CPU_FMA | FL_CPU_OS_YMM)) ==
                    (FL_CPU_AVX2 | FL_CPU_BMI2 | FL_CPU_FMA | FL_CPU_OS_YMM));
    assert_int_equal(h->hypervisor[0] != '\0', (h->features & FL_CPU_HYPERVISOR) != 0);
    printf("# %s: %zu kernel(s) checked against its features\n", h->host_id, checked);
}

static void feature_names(void **state) {
    (void)state;
    for (int b = 0; b < FL_CPU_FEATURE_COUNT; b++)
        assert_non_null(fl_cpu_feature_name((uint32_t)1 << b));
    assert_null(fl_cpu_feature_name(0));
    assert_null(fl_cpu_feature_name(FL_CPU_AVX2 | FL_CPU_BMI2));
    assert_null(fl_cpu_feature_name((uint32_t)1 << FL_CPU_FEATURE_COUNT));
    assert_string_equal(fl_cpu_feature_name(FL_CPU_AMX_TILE), "AMX-TILE");
    assert_string_equal(fl_cpu_feature_name(FL_CPU_AVX512_VPOPCNTDQ), "AVX512-VPOPCNTDQ");
    assert_string_equal(fl_cpu_feature_name(FL_CPU_AVX512_BITALG), "AVX512-BITALG");
}

/* The bit is set exactly when Linux's flags line (which reads the same CPUID bit) has the
 * flag. Only an x86 build compares: an aarch64 build reads no CPUID, and under qemu-aarch64
 * (scripts/test's aarch64 stage) /proc/cpuinfo is the x86 host's, with the flags set. */
static int has_flag(const char *flags, const char *flag) {
    size_t n = strlen(flag);
    for (const char *p = flags; (p = strstr(p, flag)) != NULL; p += n)
        if ((p == flags || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return 1;
    return 0;
}

static void popcnt_bits_agree_with_cpuinfo(void **state) {
    (void)state;
#if !defined(__x86_64__)
    skip();
#endif
    const fl_host *h = this_host();
    if (!h->flags[0]) skip(); /* no flags line to compare with */
    assert_int_equal((h->features & FL_CPU_AVX512_VPOPCNTDQ) != 0,
                     has_flag(h->flags, "avx512_vpopcntdq"));
    assert_int_equal((h->features & FL_CPU_AVX512_BITALG) != 0, has_flag(h->flags, "avx512_bitalg"));
}

/* One crafted CPU through the naming rule. */
static int name(const char *vendor, int family, int model, int stepping, uint32_t features,
                char *n, char *src) {
    fl_cpu_id id = {vendor, family, model, stepping, -1, -1, features};
    return fl_cpu_uarch(&id, n, 32, src, 256);
}

#define AVX512 (FL_CPU_AVX2 | FL_CPU_AVX512F | FL_CPU_AVX512DQ | FL_CPU_AVX512BW | FL_CPU_AVX512VL)
#define SPR_FEATURES (AVX512 | FL_CPU_AVX512_VNNI | FL_CPU_AVX512_FP16 | FL_CPU_AMX_TILE | \
                      FL_CPU_AMX_INT8 | FL_CPU_AMX_BF16)

static void naming_believes_features_over_model(void **state) {
    (void)state;
    char n[32], src[256];
    /* A VM that reports model 167 (Rocket Lake) yet has AMX and AVX512-FP16, which only
     * Sapphire Rapids and later have: the features decide, not the model number. */
    assert_int_equal(name("GenuineIntel", 6, 167, 1, SPR_FEATURES | FL_CPU_HYPERVISOR, n, src), 1);
    assert_string_equal(n, "sapphirerapids");
    assert_non_null(strstr(src, "features: "));
    assert_non_null(strstr(src, "AMX-TILE"));
    assert_non_null(strstr(src, "AVX512-FP16"));
    assert_non_null(strstr(src, "model 167 says rocketlake"));
    /* The same model with only what Rocket Lake has: the table stands. */
    assert_int_equal(name("GenuineIntel", 6, 167, 1, AVX512 | FL_CPU_AVX512_VNNI, n, src), 1);
    assert_string_equal(n, "rocketlake");
    assert_string_equal(src, "cpuid family/model");
    /* A model that does have AMX keeps its own name (Sapphire and Emerald Rapids share the
     * features, so only the model tells them apart). */
    assert_int_equal(name("GenuineIntel", 6, 0xCF, 2, SPR_FEATURES | FL_CPU_HYPERVISOR, n, src), 1);
    assert_string_equal(n, "emeraldrapids");
    assert_string_equal(src, "cpuid family/model");
    /* AMX-FP16 is Granite Rapids only. */
    assert_int_equal(name("GenuineIntel", 6, 0x8F, 8, SPR_FEATURES | FL_CPU_AMX_FP16, n, src), 1);
    assert_string_equal(n, "graniterapids");
    assert_non_null(strstr(src, "AMX-FP16"));
    assert_non_null(strstr(src, "says sapphirerapids"));
    /* A client model with AVX-512 it never had. */
    assert_int_equal(name("GenuineIntel", 6, 0x9E, 10, AVX512 | FL_CPU_AVX512_VNNI, n, src), 1);
    assert_string_equal(n, "cascadelake");
    assert_non_null(strstr(src, "says coffeelake"));
    /* Alder Lake ran AVX-512 (with FP16) under early firmware: not a contradiction. */
    assert_int_equal(name("GenuineIntel", 6, 0x97, 2, AVX512 | FL_CPU_AVX512_FP16, n, src), 1);
    assert_string_equal(n, "alderlake");
    /* AMD: AVX-512 on a Zen 3 model number is a Zen 4 at least. */
    assert_int_equal(name("AuthenticAMD", 0x19, 0x01, 1, AVX512 | FL_CPU_HYPERVISOR, n, src), 1);
    assert_string_equal(n, "zen4");
    assert_non_null(strstr(src, "says zen3"));
    assert_int_equal(name("AuthenticAMD", 0x19, 0x01, 1, FL_CPU_AVX2, n, src), 1);
    assert_string_equal(n, "zen3");
}

static void naming_tables(void **state) {
    (void)state;
    char n[32], src[256];
    /* Models the table names outright: the stepping tells the Skylake-SP generations apart. */
    static const struct {
        const char *vendor;
        int family, model, stepping;
        uint32_t features;
        const char *want;
    } table[] = {
        {"GenuineIntel", 6, 0x55, 4, AVX512, "skylakex"},
        {"GenuineIntel", 6, 0x55, 7, AVX512, "cascadelake"},
        {"GenuineIntel", 6, 0x55, 11, AVX512, "cooperlake"},
        {"AuthenticAMD", 0x17, 0x31, 0, FL_CPU_AVX2, "zen2"},
        {"AuthenticAMD", 0x19, 0x11, 1, AVX512, "zen4"},
        {"AuthenticAMD", 0x1A, 0x02, 1, AVX512, "zen5"},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        assert_int_equal(name(table[i].vendor, table[i].family, table[i].model, table[i].stepping,
                              table[i].features, n, src),
                         1);
        assert_string_equal(n, table[i].want);
        assert_string_equal(src, "cpuid family/model");
    }
    /* A model the table does not know: on bare metal the caller falls back to the brand;
     * under a hypervisor the features name it. */
    assert_int_equal(name("GenuineIntel", 6, 0x0F, 1, AVX512 | FL_CPU_AVX512_VNNI, n, src), 0);
    assert_int_equal(name("GenuineIntel", 6, 0x0F, 1,
                          AVX512 | FL_CPU_AVX512_VNNI | FL_CPU_HYPERVISOR, n, src), 1);
    assert_string_equal(n, "cascadelake");
    assert_non_null(strstr(src, "not in the model table"));
    assert_int_equal(name("HygonGenuine", 0x18, 0, 0, FL_CPU_AVX2, n, src), 0);
    /* Arm: (implementer, part), else the implementer's catch-all. */
    fl_cpu_id arm = {"", -1, -1, -1, 0x41, 0xD0C, FL_CPU_ASIMD};
    assert_int_equal(fl_cpu_uarch(&arm, n, sizeof n, src, sizeof src), 1);
    assert_string_equal(n, "neoverse-n1");
    arm.arm_implementer = 0x61;
    arm.arm_part = 0x22;
    assert_int_equal(fl_cpu_uarch(&arm, n, sizeof n, src, sizeof src), 1);
    assert_string_equal(n, "apple");
    arm.arm_implementer = 0x51;
    assert_int_equal(fl_cpu_uarch(&arm, n, sizeof n, src, sizeof src), 0);
}

static void slug_matches_the_old_rule(void **state) {
    (void)state;
    /* Expected values are what scripts/repro/hostinfo.py's _slug returned before the rule
     * moved here (host ids must not change). */
    static const char *const cases[][2] = {
        {"Intel(R) Xeon(R) Platinum 8480+ CPU @ 2.00GHz", "intel-xeon-platinum-8480"},
        {"AMD EPYC", "amd-epyc"},
        {"AMD EPYC 9654 96-Core Processor", "amd-epyc-9654-96-core"},
        {"", "cpu"},
        {"@@@", "cpu"},
        {"aarch64 implementer 0x41 part 0xd0c", "aarch64-implementer-0x41"},
        {"QEMU Virtual CPU version 2.5+", "qemu-virtual-version-2-5"},
        {"abababababababababababab x", "abababababababababababab"},
    };
    char out[32];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fl_cpu_slug(cases[i][0], out, sizeof out);
        assert_string_equal(out, cases[i][1]);
    }
}

static void sha256_vectors(void **state) {
    (void)state;
    /* FIPS 180-4 examples (NIST CSRC "SHA256.pdf") and a multi-block input. */
    static const struct {
        const char *in;
        size_t repeat;
        const char *hex;
    } v[] = {
        {"abc", 1, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"", 1, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 1,
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
        {"a", 1000, "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        char buf[1024];
        size_t len = 0;
        for (size_t r = 0; r < v[i].repeat; r++) {
            memcpy(buf + len, v[i].in, strlen(v[i].in));
            len += strlen(v[i].in);
        }
        uint8_t d[32];
        char hex[65];
        fl_sha256(buf, len, d);
        for (int j = 0; j < 32; j++) snprintf(hex + 2 * j, 3, "%02x", d[j]);
        assert_string_equal(hex, v[i].hex);
    }
}

int main(void) {
    unsetenv("FL_HOST_ID");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(describe_fills_fields),
        cmocka_unit_test(features_agree_with_dispatch),
        cmocka_unit_test(feature_names),
        cmocka_unit_test(popcnt_bits_agree_with_cpuinfo),
        cmocka_unit_test(naming_believes_features_over_model),
        cmocka_unit_test(naming_tables),
        cmocka_unit_test(slug_matches_the_old_rule),
        cmocka_unit_test(sha256_vectors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
