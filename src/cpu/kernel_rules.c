/*
 * The rule table of the automatic kernel choice: what src/cpu/dispatch.c takes for a module
 * entry and size class where no wisdom file measured this CPU.
 */
#include <string.h>

#include "cpu/kernel_choice.h"

/* ---- The rule table ---------------------------------------------------------------------
 * Used when no wisdom file measured this CPU. The first rule that covers the CPU (its
 * microarchitecture name from src/cpu/cpu_uarch.c; NULL: any CPU), the entry (a list of entry
 * names or prefixes ending in '.') and the size class, and whose kernel this CPU runs, wins;
 * with none, the widest kernel this CPU runs. Rules for a named CPU come first, each citing
 * its numbers (or, for one not measured here, the public measurements it is derived from);
 * the conservative rules for CPUs nobody measured come last.
 *
 * Adding a rule (HACKING.md, "Kernel choice"): measure with `checkkernels --bench --min` on
 * the machine (or take `filterlab tune`'s numbers from its wisdom file), add a line before the
 * catch-alls naming the microarchitecture and quoting the figures, and extend
 * tests/test_dispatch.c's rule cases with a fake CPU of that kind. */
#define ALL_CLASSES 0xfu
#define SMALL ((1u << FL_SIZE_L1) | (1u << FL_SIZE_L2))
typedef struct rule {
    const char *uarchs;  /* space-separated fl_cpu_uarch names; NULL: any CPU */
    const char *entries; /* space-separated names, or prefixes ending in '.' */
    unsigned classes;    /* bit per fl_size_class */
    int cand;
    const char *why;
} rule;

#define ZEN4_SRC "AMD Zen 4 guest, filterlab advise and flbench"
#define EMR_SRC "Emerald Rapids 2-vCPU KVM guest, checkkernels --bench --min, 2026-11-26"
#define ZEN3_SRC "results/zen3-kvm-2c-5bce/kernel-choice"
#define GATHERY "bloom.contains.classic counting.contains.classic"
static const rule rules[] = {
    /* AMD Zen 3, measured (results/zen3-kvm-2c-5bce/kernel-choice/cuckoo-loads-*: three
     * filterlab tune runs, three checkkernels --bench-only --min runs, a flbench A/B against
     * main 0f61c57). First, ahead of the any-CPU rule below for the semi-sorted widths: it
     * too takes an AVX2 kernel for them, not their unchecked AVX-512 ones. */
    {"zen3", "cuckoo.contains. cuckoo.contains_u64s.", ALL_CLASSES, FL_CAND_AVX2_LOADS,
     "AMD Zen 3: cuckoo lookups of every width, of hashes and of integer keys, 1.03-1.50x "
     "faster in avx2-loads than in avx2 in all 120 cells of three tune runs (12-bit at L2: 2.18 "
     "ns against 2.52, 3.18 against 4.28, 2.26 against 2.57; " ZEN3_SRC ")"},
    /* Any CPU, before the measured rules: the semi-sorted cuckoo widths' AVX-512 kernels
     * (kernels/cuckoo_avx512.c) are compiled but have not run on any CPU (the machines that
     * wrote them had no AVX-512, which qemu 7.2 does not emulate). Until an AVX-512 machine's
     * checkkernels has compared them with scalar, the process takes AVX2's, which it has;
     * FILTERLAB_KERNEL and fl_kernel_select still reach them. */
    {NULL, "cuckoo.contains.fp11 cuckoo.contains.fp13 cuckoo.contains_u64s.fp11 "
           "cuckoo.contains_u64s.fp13", ALL_CLASSES, FL_CAND_AVX2,
     "semi-sorted cuckoo widths: their avx512 kernels have not yet been checked against "
     "scalar on a CPU (checkkernels on an AVX-512 machine first)"},
    /* AMD Zen 4, measured. */
    {"zen4", "bloom.contains.classic", ALL_CLASSES, FL_CAND_SCALAR,
     "AMD Zen 4: classic Bloom lookups 10.2 ms per 1M in scalar, 13.9 in avx2, 21.0 in avx512 "
     "(1M keys, 10 bits/key; " ZEN4_SRC "): k gathers per key, 512-bit gathers microcoded"},
    {"zen4", "counting.contains.classic counting.contains1.classic", ALL_CLASSES,
     FL_CAND_SCALAR,
     "AMD Zen 4: counting Bloom lookups 14.9 ns in scalar, 22.5 in avx512 (" ZEN4_SRC
     "): gathers are microcoded"},
    {"zen4", "bloom.contains.split256 bloom.insert.split256 bloom.contains1.split256",
     ALL_CLASSES, FL_CAND_AVX2,
     "AMD Zen 4: split256 lookups 1.63 ns in avx2, 1.72 in avx512 (" ZEN4_SRC
     "): no gain from 512-bit width"},
    {"zen4", "cuckoo.contains.", ALL_CLASSES, FL_CAND_AVX2,
     "AMD Zen 4: cuckoo lookups 2.22 ns in avx2, 2.38 in avx512 (" ZEN4_SRC
     "): no gain from 512-bit width"},
    {"zen4", "cuckoo.contains_u64s.", ALL_CLASSES, FL_CAND_AVX2,
     "AMD Zen 4 (integer-key lookups not measured): as its lookups of hashes, 2.22 ns in avx2, "
     "2.38 in avx512 (" ZEN4_SRC "); the avx2 entry hashes with the process's hash.u64"},
    {"zen4", "fuse.contains.", ALL_CLASSES, FL_CAND_AVX2,
     "AMD Zen 4: binary fuse batch lookups 2.58 ns in avx2, 3.03 in avx512 (100K keys), 3.35 "
     "and 4.54 (1M) (" ZEN4_SRC ")"},
    {"zen4", "bloomier.", ALL_CLASSES, FL_CAND_AVX2_LOADS,
     "AMD Zen 4 (Bloomier not measured): 512-bit gathers are microcoded; the avx2 loads form "
     "reads cells without gathers"},
    {"zen4", NULL, ALL_CLASSES, FL_CAND_AVX2,
     "AMD Zen 4 (entry not measured): every measured entry ran as fast or faster in avx2 than "
     "in avx512 (" ZEN4_SRC ")"},
    /* AMD Zen 5, measured. */
    {"zen5", GATHERY " counting.contains1.classic", ALL_CLASSES, FL_CAND_SCALAR,
     "AMD Zen 5: classic Bloom lookups 6.70 ms per 1M in scalar, 9.02 in avx2, 17.3 in avx512 "
     "(1M keys, 10 bits/key; results/zen5-kvm-2c-5bce): k gathers per key"},
    /* AMD Zen, Zen+ and Zen 2 (family 17h), not measured here: a rule derived from what others
     * measured. PDEP and PEXT are microcoded there, their time growing with the number of set
     * bits in the mask (llvm/llvm-project pull request 217304 tabulates it on Zen+; uops.info
     * and dolphin-emu pull requests 8586 and 9233 describe the same; Zen 3 runs them natively).
     * The VQF's AVX2 and AVX-512 kernels select with a PDEP in 64-bit metadata words holding
     * about 40 ones (include/filterlab_vqf.h) and shift with PDEP and PEXT under masks of
     * about 63 (kernels/vqf_md.h); its scalar kernel does neither. The AVX2 lookups' emit8
     * (kernels/x86_common.h: a PDEP with 8 mask bits per 8 keys) and fuse_avx2.c's and
     * gcf_avx2.c's mask spreads pay it too, less: not measured, left as they are. */
    {"zen zen2", "vqf.", ALL_CLASSES, FL_CAND_SCALAR,
     "AMD Zen to Zen 2 (not measured here): PDEP and PEXT are microcoded, their time growing "
     "with the mask's set bits, and the VQF's SIMD kernels select with PDEP in metadata words of "
     "about 40 set bits and shift under masks of about 63; its scalar kernel uses neither"},
    /* AMD Zen 3, measured (results/zen3-kvm-2c-5bce/kernel-choice: 7 filterlab tune runs,
     * checkkernels --bench-only --min at 1 and 64 MiB). Its 256-bit gathers beat scalar
     * loads while the filter is in L2, and lose past it. */
    {"zen3", GATHERY, SMALL, FL_CAND_AVX2,
     "AMD Zen 3: classic Bloom lookups 6.4-7.7 ns in avx2, 12.1-15.1 in scalar in L1, 8.5-12.9 "
     "and 13.2-17.6 in L2; counting's 5.9-8.8 and 8.5-12.8 in L1, in L2 avx2 ahead in 6 of 7 "
     "runs (" ZEN3_SRC ")"},
    {"zen3", GATHERY " counting.contains1.classic", ALL_CLASSES, FL_CAND_SCALAR,
     "AMD Zen 3: classic Bloom lookups past L2 47-89 ns in scalar, 66-102 in avx2 (LLC), 131 and "
     "196 at 64 MiB; counting's 133-201 and 168-236 (" ZEN3_SRC ")"},
    /* Intel Sapphire / Emerald Rapids (the same core), measured here. */
    {"emeraldrapids sapphirerapids", "cms.query", SMALL, FL_CAND_AVX2,
     "Emerald Rapids: Count-Min queries 1.98 ns in avx2, 3.97 in avx512, 5.72 in scalar "
     "(depth 5, 0.1 MiB; " EMR_SRC ")"},
    {"emeraldrapids sapphirerapids", "cms.update_cons", SMALL, FL_CAND_SCALAR,
     "Emerald Rapids: conservative Count-Min updates 11.3 ns in scalar, 12.6 in avx2, 16.0 in "
     "avx512 (depth 5, 0.1 MiB; " EMR_SRC ")"},
    {"emeraldrapids sapphirerapids", "cms.update_cons", ALL_CLASSES, FL_CAND_AVX2,
     "Emerald Rapids: conservative Count-Min updates 52.0 ns in avx2, 56.5 in avx512, 96.2 in "
     "scalar (depth 4, 64 MiB; " EMR_SRC ")"},
    {"emeraldrapids sapphirerapids", "fuse.contains.", ALL_CLASSES, FL_CAND_AVX512,
     /* results/emeraldrapids-kvm-2c-5bce/against/fastfilter_cpp/fuse-onekey/
      * fuse-kernels-checkkernels-ymm-gathers.txt (two runs at load 2.2-3.1) */
     "Emerald Rapids: fuse lookups (8-bit, 3-wise) 2.74 ns in avx512 (256-bit gathers), 3.18 "
     "in avx2, 3.94 in avx512-loads at 100K keys, 12.25, 15.06, 14.24 at 10M; avx512 led every "
     "shape but 4-wise 16-bit at 10M (within 6%) (checkkernels --bench-only --min, "
     "2026-11-27)"},
    {"emeraldrapids sapphirerapids", "vqf.contains", ALL_CLASSES, FL_CAND_AVX512_POPCNT,
     /* results/emeraldrapids-kvm-2c-5bce/against/fastfilter_cpp/deletable/
      * vqf-avx512-popcnt-vs-avx512-checkkernels-bench.txt (two runs, load 0.8-0.9) */
     "Emerald Rapids: VQF batch lookups 4.81 ns in avx512-popcnt (vpopcntq, vpopcntb), 5.28 "
     "in avx512 at 1 MiB, 13.80 and 15.27 at 64 MiB; 0.91x and 0.90-0.91x in both runs "
     "(checkkernels --bench --min, 2026-11-27)"},
    {"emeraldrapids sapphirerapids", "cuckoo.contains_u64s.", ALL_CLASSES, FL_CAND_AVX512,
     /* results/emeraldrapids-kvm-2c-5bce/against/fastfilter_cpp/deletable/
      * cuckoo12-u64s-checkkernels-bench.txt */
     "Emerald Rapids: 12-bit cuckoo lookups of integer keys (8 and 16 bits: the same loop) "
     "2.56-2.73 ns in avx512 (hashing in the gather loop), 4.12-4.22 in avx2, 12.0-12.3 in "
     "scalar at 1 MiB; 16.0, 18.9-19.1, 50-55 at 64 MiB (checkkernels, 2026-11-27)"},
    {"emeraldrapids sapphirerapids", GATHERY, ALL_CLASSES, FL_CAND_AVX512,
     "Emerald Rapids: classic Bloom lookups 5.60 ns in avx512, 7.45 in avx2, 18.4 in scalar "
     "(1 MiB; " EMR_SRC "): gathers are fast here"},
    {"emeraldrapids sapphirerapids", NULL, ALL_CLASSES, FL_CAND_AVX512,
     "Emerald Rapids: the widest kernel (avx512 led most batch entries timed here: block512 "
     "lookups 9.5x scalar, split256 6.0x, cuckoo 4.1x at 1 MiB; " EMR_SRC ")"},
    /* Any other CPU: nobody measured it, so nothing that lost anywhere. */
    {NULL, GATHERY " counting.contains1.classic", ALL_CLASSES, FL_CAND_SCALAR,
     "CPU not measured: classic Bloom lookups (k gathers per key) lost to scalar on AMD Zen 4 "
     "and Zen 5, and Gather Data Sampling microcode slows gathers on Intel Skylake to Tiger Lake"},
    {NULL, "fuse. bloomier.", ALL_CLASSES, FL_CAND_AVX2_LOADS,
     "CPU not measured: the loads form reads fuse cells with scalar loads instead of gathers, "
     "which lost on AMD Zen 4 in 512-bit width"},
    {NULL, "bloom.contains.split256 bloom.insert.split256 bloom.contains1.split256 cuckoo.",
     ALL_CLASSES, FL_CAND_AVX2,
     "CPU not measured: 512-bit width gained nothing for split256 and cuckoo on AMD Zen 4 "
     "(cuckoo's integer-key lookups follow its lookups of hashes there)"},
};
#undef GATHERY

/* `word` is one of the space-separated words of `list`; a word ending in '.' is a prefix. */
static int in_list(const char *list, const char *word) {
    size_t wl = strlen(word);
    for (const char *p = list; *p;) {
        while (*p == ' ') p++;
        size_t n = strcspn(p, " ");
        if (n && p[n - 1] == '.' ? n <= wl && strncmp(p, word, n) == 0
                                 : n == wl && strncmp(p, word, n) == 0)
            return 1;
        p += n;
    }
    return 0;
}

int fl_rule_choice(const fl_cpu_id *id, size_t e, int cls, unsigned avail, const char **why) {
    char uarch[32] = "", source[256];
    if (!fl_cpu_uarch(id, uarch, sizeof uarch, source, sizeof source)) uarch[0] = '\0';
    for (size_t r = 0; r < sizeof rules / sizeof rules[0]; r++) {
        const rule *ru = &rules[r];
        if (ru->uarchs && (!uarch[0] || !in_list(ru->uarchs, uarch))) continue;
        if (ru->entries && !in_list(ru->entries, fl_entries[e].name)) continue;
        if (!(ru->classes & (1u << cls)) || !(avail & (1u << ru->cand))) continue;
        *why = ru->why;
        return ru->cand;
    }
    static const int widest[] = {FL_CAND_AVX512, FL_CAND_AVX2, FL_CAND_NEON};
    for (size_t i = 0; i < sizeof widest / sizeof widest[0]; i++)
        if (avail & (1u << widest[i])) {
            *why = "no rule names this entry for this CPU: the widest kernel it runs";
            return widest[i];
        }
    *why = "no SIMD kernel runs on this CPU";
    return FL_CAND_SCALAR;
}
