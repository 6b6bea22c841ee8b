/*
 * The kernel tables: which ISAs are compiled in, which this CPU runs (src/cpu_features.c
 * reads the CPU), the process's choice, FILTERLAB_KERNEL, and the tables filters bind to.
 *
 * One table per compiled ISA, each built like dav1d's: start from the scalar kernels and let
 * every ISA from the bottom of its chain up overwrite what it implements (avx512 sits on
 * avx2, which sits on scalar; neon sits on scalar). A filter bound with
 * fl_filter_bind_kernel(), and the whole process under FILTERLAB_KERNEL or
 * fl_kernel_select(), uses one of these tables.
 *
 * The automatic choice is made per module entry, not per ISA: no ISA wins everywhere. Measured,
 * classic Bloom lookups (k gathers per key) run slower in avx2 and avx512 than in scalar on
 * AMD Zen 4 and Zen 5 while avx512 is 3x scalar on Emerald Rapids; split256 and cuckoo gain
 * nothing from 512-bit width on Zen 4; a Count-Min query is faster in avx2 than in avx512 on
 * Emerald Rapids. So the default table is composed like dav1d's DSP contexts, each entry taken
 * from the kernel that wins for it: from the wisdom file `filterlab tune` measured on this
 * CPU (src/wisdom.c, src/tune.c), else from the rule table below.
 *
 * And per payload size class: the winner of an entry depends on where its payload lives.
 * The same kernels measured here swap places between cache-sized and larger payloads
 * (checkkernels --bench --min on Emerald Rapids: counting lookups 2.1x scalar in avx2 at
 * 1 MiB, 0.8x at 64 MiB; conservative Count-Min updates 12.6 ns in avx2 against 11.3
 * in scalar at 0.1 MiB, 1.9x scalar at 64 MiB). There are four composed tables, for payloads that fit L1d, L2, the
 * last-level cache, or none; a structure's calls take the one for its payload's size
 * (fl_kernels_sized: three compares per batch), limits from this machine's caches. Entries
 * whose data never grows (hashing, HyperLogLog's 2^p registers) have one choice for all four.
 *
 * Everything is computed once, under pthread_once, at the first call that needs it; the
 * active tables are atomic pointers, so fl_kernel_select() is safe while other threads run
 * lookups (a batch already running finishes on the table it started with). The composed
 * tables are double-buffered: fl_kernel_tune() fills the idle set and then publishes it.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fl_config.h"
#include "core/internal.h"
#include "cpu/kernel_choice.h"

#ifndef FL_HAVE_AVX2
#define FL_HAVE_AVX2 0
#endif
#ifndef FL_HAVE_AVX512
#define FL_HAVE_AVX512 0
#endif
#ifndef FL_HAVE_NEON
#define FL_HAVE_NEON 0
#endif
#ifndef FL_NEON_EMULATED
#define FL_NEON_EMULATED 0
#endif

/* ---- CPU features: read by src/cpu_features.c, the one CPUID/XCR0/AT_HWCAP reader ---- */
static int always(void) {
    return 1;
}
#if FL_HAVE_AVX2
static int has_avx2(void) {
    return (fl_cpu_features() & FL_CPU_AVX2_USABLE) != 0; /* AVX2 BMI2 FMA + OS YMM state */
}
#endif
#if FL_HAVE_AVX512
static int has_avx512(void) {
    return (fl_cpu_features() & FL_CPU_AVX512_USABLE) != 0; /* + AVX-512 F/BW/VL/DQ, ZMM state */
}
#endif
#if FL_HAVE_NEON && !FL_NEON_EMULATED
static int has_neon(void) {
    return (fl_cpu_features() & FL_CPU_ASIMD) != 0; /* baseline on aarch64, checked anyway */
}
#endif

/* ---- The ISA list: preference grows with the index; parent = the table it builds on. ---- */
typedef struct {
    const char *name;
    void (*init)(fl_kernel_table *);
    int (*supported)(void);
    const char *parent; /* the ISA whose table this one starts from; NULL for scalar */
    int emulated; /* runs through SIMDe on a foreign ISA: never chosen automatically */
    const char *requires;
} isa_entry;

static const isa_entry isas[] = {
    {"scalar", fl_kernels_init_scalar, always, NULL, 0, "nothing (portable C)"},
#if FL_HAVE_NEON
#if FL_NEON_EMULATED
    {"neon", fl_kernels_init_neon, always, "scalar", 1, "nothing here (NEON emulated with SIMDe)"},
#else
    {"neon", fl_kernels_init_neon, has_neon, "scalar", 0, "ASIMD (NEON), AT_HWCAP"},
#endif
#endif
#if FL_HAVE_AVX2
    {"avx2", fl_kernels_init_avx2, has_avx2, "scalar", 0, "AVX2 BMI2 FMA + OS YMM state (XCR0)"},
#endif
#if FL_HAVE_AVX512
    {"avx512", fl_kernels_init_avx512, has_avx512, "avx2", 0,
     "AVX-512 F BW VL DQ + AVX2 BMI2 FMA + OS ZMM/opmask state (XCR0)"},
#endif
};
#define NISA (sizeof isas / sizeof isas[0])

static fl_kernel_table tables[NISA];
static int supported[NISA];
static pthread_once_t once = PTHREAD_ONCE_INIT;
const fl_kernel_table *_Atomic fl_active_kernels[FL_NSIZE_CLASSES];
size_t fl_size_class_limit[FL_NSIZE_CLASSES - 1];
static const char *_Atomic active_name;
static const char *_Atomic active_reason;
static int _Atomic forced = -1; /* the ISA forced for everything, or -1 (automatic) */
static fl_status env_status = FL_OK;
static char env_reason[256]; /* fits the longest reason with a quoted 40-byte value */

static int find_isa(const char *name) {
    for (size_t i = 0; i < NISA; i++)
        if (strcmp(isas[i].name, name) == 0) return (int)i;
    return -1;
}

static void build_table(size_t i, fl_kernel_table *t) {
    if (isas[i].parent) {
        /* A parent that was not compiled in: start from scalar (entry 0), so no entry the
         * ISA leaves alone is ever NULL. */
        int parent = find_isa(isas[i].parent);
        build_table(parent >= 0 ? (size_t)parent : 0, t);
    }
    isas[i].init(t);
}

/* ---- Module entries ------------------------------------------------------------------ */
#define E(nm, member, kind, sized, k, unit) \
    {nm, FL_KERNEL_SLOT(member), kind, sized, k, 0, unit, 0}
#define EF(nm, member, kind, arity, bits) \
    {nm, FL_KERNEL_SLOT(member), kind, 1, 0, arity, 0, bits}
/* k and unit sizes are the CLI defaults' (k = 7 classic, 8 blocked; 6 reg64): the timing
 * payload tune uses. */
const fl_entry_desc fl_entries[] = {
    E("bloom.contains.classic", bloom.contains[FL_BLOOM_CLASSIC], FL_EK_CONTAINS, 1, 7, 8),
    E("bloom.contains.block512", bloom.contains[FL_BLOOM_BLOCK512], FL_EK_CONTAINS, 1, 8, 64),
    E("bloom.contains.split256", bloom.contains[FL_BLOOM_SPLIT256], FL_EK_CONTAINS, 1, 8, 32),
    E("bloom.contains.reg64", bloom.contains[FL_BLOOM_REG64], FL_EK_CONTAINS, 1, 6, 8),
    E("bloom.insert.classic", bloom.insert[FL_BLOOM_CLASSIC], FL_EK_INSERT, 1, 7, 8),
    E("bloom.insert.block512", bloom.insert[FL_BLOOM_BLOCK512], FL_EK_INSERT, 1, 8, 64),
    E("bloom.insert.split256", bloom.insert[FL_BLOOM_SPLIT256], FL_EK_INSERT, 1, 8, 32),
    E("bloom.insert.reg64", bloom.insert[FL_BLOOM_REG64], FL_EK_INSERT, 1, 6, 8),
    E("bloom.contains1.classic", bloom.contains1[FL_BLOOM_CLASSIC], FL_EK_CONTAINS1, 1, 7, 8),
    E("bloom.contains1.block512", bloom.contains1[FL_BLOOM_BLOCK512], FL_EK_CONTAINS1, 1, 8, 64),
    E("bloom.contains1.split256", bloom.contains1[FL_BLOOM_SPLIT256], FL_EK_CONTAINS1, 1, 8, 32),
    E("bloom.contains1.reg64", bloom.contains1[FL_BLOOM_REG64], FL_EK_CONTAINS1, 1, 6, 8),
    E("cuckoo.contains.fp8", cuckoo.contains[FL_CUCKOO_FP8], FL_EK_CONTAINS, 1, 8, 4),
    E("cuckoo.contains.fp12", cuckoo.contains[FL_CUCKOO_FP12], FL_EK_CONTAINS, 1, 12, 6),
    E("cuckoo.contains.fp16", cuckoo.contains[FL_CUCKOO_FP16], FL_EK_CONTAINS, 1, 16, 8),
    E("counting.contains.classic", counting.contains[FL_COUNTING_CLASSIC], FL_EK_CONTAINS, 1, 7, 8),
    E("counting.contains.blocked", counting.contains[FL_COUNTING_BLOCKED], FL_EK_CONTAINS, 1, 8, 64),
    E("counting.insert.classic", counting.insert[FL_COUNTING_CLASSIC], FL_EK_INSERT, 1, 7, 8),
    E("counting.insert.blocked", counting.insert[FL_COUNTING_BLOCKED], FL_EK_INSERT, 1, 8, 64),
    E("counting.contains1.classic", counting.contains1[FL_COUNTING_CLASSIC], FL_EK_CONTAINS1, 1, 7, 8),
    E("counting.contains1.blocked", counting.contains1[FL_COUNTING_BLOCKED], FL_EK_CONTAINS1, 1, 8, 64),
    E("hash.u64", hash.u64, FL_EK_HASH_U64, 0, 0, 0),
    E("hll.add", hll.add, FL_EK_HLL_ADD, 0, 0, 0),
    E("hll.histo", hll.histo, FL_EK_HLL_HISTO, 0, 0, 0),
    E("hll.max", hll.max, FL_EK_HLL_MAX, 0, 0, 0),
    E("hll.murmur8", hll.murmur8, FL_EK_HASH_U64, 0, 0, 0),
    E("cms.update", cms.update, FL_EK_CMS_UPDATE, 1, 0, 0),
    E("cms.update_nosat", cms.update_nosat, FL_EK_CMS_UPDATE, 1, 0, 0),
    E("cms.update_cons", cms.update_cons, FL_EK_CMS_UPDATE, 1, 0, 0),
    E("cms.query", cms.query, FL_EK_CMS_QUERY, 1, 0, 0),
    EF("fuse.contains.3_8", fuse.contains[FL_FUSE3_8], FL_EK_FUSE_CONTAINS, 3, 8),
    EF("fuse.contains.3_16", fuse.contains[FL_FUSE3_16], FL_EK_FUSE_CONTAINS, 3, 16),
    EF("fuse.contains.4_8", fuse.contains[FL_FUSE4_8], FL_EK_FUSE_CONTAINS, 4, 8),
    EF("fuse.contains.4_16", fuse.contains[FL_FUSE4_16], FL_EK_FUSE_CONTAINS, 4, 16),
    EF("bloomier.get.3_16", fuse.get[FL_BLOOMIER3_16], FL_EK_BLOOMIER_GET, 3, 16),
    EF("bloomier.get.3_32", fuse.get[FL_BLOOMIER3_32], FL_EK_BLOOMIER_GET, 3, 32),
    EF("bloomier.get.4_16", fuse.get[FL_BLOOMIER4_16], FL_EK_BLOOMIER_GET, 4, 16),
    EF("bloomier.get.4_32", fuse.get[FL_BLOOMIER4_32], FL_EK_BLOOMIER_GET, 4, 32),
};
#undef E
#undef EF
const size_t fl_nentries = sizeof fl_entries / sizeof fl_entries[0];
#define NENT (sizeof fl_entries / sizeof fl_entries[0])
/* Every function pointer of fl_kernel_table is an entry: a new one must be listed above
 * (and named in HACKING.md's "how to add a kernel module"). */
_Static_assert(sizeof(fl_kernel_table) == NENT * sizeof(fl_any_fn),
               "fl_kernel_table has an entry fl_entries[] does not list");

int fl_entry_find(const char *name) {
    for (size_t i = 0; name && i < NENT; i++)
        if (strcmp(fl_entries[i].name, name) == 0) return (int)i;
    return -1;
}

/* ---- Candidates ------------------------------------------------------------------------ */
const char *const fl_cand_names[FL_NCAND] = {"scalar", "neon", "avx2", "avx2-loads", "avx512",
                                             "avx512-loads"};
static const fl_kernel_table *cand_tab[FL_NCAND];
#if FL_HAVE_AVX2 || FL_HAVE_AVX512
static fl_kernel_table loads_tables[2]; /* avx2 and avx512 with the loads form of fuse */
#endif

int fl_cand_find(const char *name) {
    for (int c = 0; name && c < FL_NCAND; c++)
        if (strcmp(fl_cand_names[c], name) == 0) return c;
    return -1;
}

static void ensure_init(void);

const fl_kernel_table *fl_cand_table(int c) {
    ensure_init();
    return c >= 0 && c < FL_NCAND ? cand_tab[c] : NULL;
}

static fl_any_fn table_fn(const fl_kernel_table *t, size_t e) {
    fl_any_fn fn;
    memcpy(&fn, (const char *)t + fl_entries[e].slot, sizeof fn);
    return fn;
}

fl_any_fn fl_cand_fn(int c, size_t e) {
    return table_fn(cand_tab[c], e);
}

/* The candidate that names fn for entry e: the first (lowest) holding it. */
static int naming_cand(size_t e, fl_any_fn fn) {
    for (int c = 0; c < FL_NCAND; c++)
        if (cand_tab[c] && table_fn(cand_tab[c], e) == fn) return c;
    return FL_CAND_SCALAR;
}

/* Called during init too: no ensure_init here (pthread_once would wait for itself). */
static size_t entry_kernels(size_t e, int out[FL_NCAND]) {
    size_t n = 0;
    for (int c = 0; c < FL_NCAND; c++)
        if (cand_tab[c] && naming_cand(e, table_fn(cand_tab[c], e)) == c) out[n++] = c;
    return n;
}

size_t fl_entry_kernels(size_t e, int out[FL_NCAND]) {
    ensure_init();
    return entry_kernels(e, out);
}

static unsigned avail_mask(void) {
    unsigned m = 0;
    for (int c = 0; c < FL_NCAND; c++)
        if (cand_tab[c]) m |= 1u << c;
    return m;
}

static void setup_candidates(void) {
    cand_tab[FL_CAND_SCALAR] = &tables[0];
    int i;
#if FL_HAVE_NEON && !FL_NEON_EMULATED
    if ((i = find_isa("neon")) >= 0 && supported[i]) cand_tab[FL_CAND_NEON] = &tables[i];
#endif
#if FL_HAVE_AVX2
    if ((i = find_isa("avx2")) >= 0 && supported[i]) {
        cand_tab[FL_CAND_AVX2] = &tables[i];
        loads_tables[0] = tables[i];
        loads_tables[0].fuse = fl_fuse_kernels_loads_avx2;
        cand_tab[FL_CAND_AVX2_LOADS] = &loads_tables[0];
    }
#endif
#if FL_HAVE_AVX512
    if ((i = find_isa("avx512")) >= 0 && supported[i]) {
        cand_tab[FL_CAND_AVX512] = &tables[i];
        loads_tables[1] = tables[i];
        loads_tables[1].fuse = fl_fuse_kernels_loads_avx512;
        cand_tab[FL_CAND_AVX512_LOADS] = &loads_tables[1];
    }
#endif
    (void)i;
}

/* ---- The rule table ---------------------------------------------------------------------
 * Used when no wisdom file measured this CPU. The first rule that covers the CPU (its
 * microarchitecture name from src/cpu_uarch.c; NULL: any CPU), the entry (a list of entry
 * names or prefixes ending in '.') and the size class, and whose kernel this CPU runs, wins;
 * with none, the widest kernel this CPU runs. Measured rules come first, each citing its
 * numbers; the conservative rules for CPUs nobody measured come last.
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
#define GATHERY "bloom.contains.classic counting.contains.classic"
static const rule rules[] = {
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
    {"zen4", "cuckoo.", ALL_CLASSES, FL_CAND_AVX2,
     "AMD Zen 4: cuckoo lookups 2.22 ns in avx2, 2.38 in avx512 (" ZEN4_SRC
     "): no gain from 512-bit width"},
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
    {"emeraldrapids sapphirerapids", "fuse.contains.3_8 fuse.contains.3_16", SMALL,
     FL_CAND_AVX2,
     "Emerald Rapids: 3-wise binary fuse lookups 2.27 ns (8-bit) and 2.18 (16-bit) in avx2, "
     "3.19 and 3.13 in avx512 (100K keys; " EMR_SRC ")"},
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
     "CPU not measured: 512-bit width gained nothing for split256 and cuckoo on AMD Zen 4"},
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

/* ---- The composed tables and the reasons --------------------------------------------- */
typedef struct choice_set {
    fl_kernel_table tables[FL_NSIZE_CLASSES];
    uint8_t cand[NENT][FL_NSIZE_CLASSES];
    char reason[NENT][FL_NSIZE_CLASSES][288];
    char summary[512];
} choice_set;
static choice_set sets[2];
static int _Atomic cur_set;
static pthread_mutex_t tune_lock = PTHREAD_MUTEX_INITIALIZER;

static fl_host host;
static fl_cpu_id host_id;
static fl_wisdom *wisdom;
static char wisdom_path[4096];
static char wisdom_status[4096 + 640]; /* the path, a reason of up to 511 bytes and the words around them */

static void format_measured(char *out, size_t cap, const fl_wisdom_cell *c, int name_c) {
    double win = c->ns[c->cand], sc = c->ns[FL_CAND_SCALAR];
    if (name_c != FL_CAND_SCALAR) {
        snprintf(out, cap, "measured here on %s by filterlab tune: %.2f ns, %.1fx scalar",
                 wisdom->date, win, win > 0 ? sc / win : 0);
        return;
    }
    /* Scalar won: say by how much over the next fastest. */
    double next = 0;
    int nc = -1;
    for (int k = 0; k < FL_NCAND; k++)
        if (k != c->cand && c->ns[k] > 0 && (nc < 0 || c->ns[k] < next)) next = c->ns[k], nc = k;
    if (nc < 0)
        snprintf(out, cap, "measured here on %s by filterlab tune: %.2f ns", wisdom->date, win);
    else
        snprintf(out, cap, "measured here on %s by filterlab tune: %.2f ns, %s %.1fx slower",
                 wisdom->date, win, fl_cand_names[nc], win > 0 ? next / win : 0);
}

/* Fills set s with the automatic choice: wisdom where it measured, rules elsewhere. */
static void compute_choice(choice_set *s) {
    unsigned avail = avail_mask();
    for (int cls = 0; cls < FL_NSIZE_CLASSES; cls++) s->tables[cls] = tables[0];
    for (size_t e = 0; e < NENT; e++) {
        int ks[FL_NCAND];
        size_t nk = entry_kernels(e, ks);
        for (int cls = 0; cls < FL_NSIZE_CLASSES; cls++) {
            int from = fl_entries[e].sized ? cls : 0; /* one choice for unsized entries */
            const fl_wisdom_cell *wc = wisdom ? &wisdom->cells[e * FL_NSIZE_CLASSES + from] : NULL;
            int c;
            char *why = s->reason[e][cls];
            size_t cap = sizeof s->reason[e][cls];
            if (nk == 1) {
                c = FL_CAND_SCALAR;
                snprintf(why, cap, "the only kernel of this entry that this build and CPU run");
            } else if (wc && wc->have && cand_tab[wc->cand]) {
                c = wc->cand;
                format_measured(why, cap, wc, naming_cand(e, fl_cand_fn(c, e)));
            } else {
                const char *rw;
                c = fl_rule_choice(&host_id, e, from, avail, &rw);
                snprintf(why, cap, "rule: %s", rw);
            }
            fl_any_fn fn = fl_cand_fn(c, e);
            s->cand[e][cls] = (uint8_t)naming_cand(e, fn);
            memcpy((char *)&s->tables[cls] + fl_entries[e].slot, &fn, sizeof fn);
        }
    }
    if (wisdom)
        snprintf(s->summary, sizeof s->summary,
                 "per module entry and size class: measured on this CPU by filterlab tune on %s",
                 wisdom->date);
    else
        snprintf(s->summary, sizeof s->summary,
                 "per module entry and size class: rules for %s (no wisdom file used)",
                 host.uarch[0] ? host.uarch : "an unknown CPU");
}

static void publish_tables(const fl_kernel_table *const t[FL_NSIZE_CLASSES]) {
    /* Class 0 last: fl_kernels_sized() takes a non-NULL class 0 as "initialised". */
    for (int cls = FL_NSIZE_CLASSES - 1; cls >= 0; cls--)
        atomic_store_explicit(&fl_active_kernels[cls], t[cls], memory_order_release);
}

/* Name and reason are stored before the tables are published; two threads selecting at the
 * same time may still leave the name of one with the reason of the other (selection is
 * meant for start-up and benchmarks, not for racing threads). */
static void set_forced(size_t i, const char *reason) {
    active_name = isas[i].name;
    active_reason = reason;
    forced = (int)i;
    const fl_kernel_table *t[FL_NSIZE_CLASSES];
    for (int cls = 0; cls < FL_NSIZE_CLASSES; cls++) t[cls] = &tables[i];
    publish_tables(t);
}

static void set_auto(const char *reason) {
    choice_set *s = &sets[cur_set];
    active_name = "auto";
    active_reason = reason ? reason : s->summary;
    forced = -1;
    const fl_kernel_table *t[FL_NSIZE_CLASSES];
    for (int cls = 0; cls < FL_NSIZE_CLASSES; cls++) t[cls] = &s->tables[cls];
    publish_tables(t);
}

/* An environment value for a message: single-quoted, bytes outside printable ASCII as
 * \xNN, cut after 40 bytes with "...", so a hostile value (newlines, 100 KB) stays one
 * short line. out must hold 4 * 40 + 6 bytes. */
static void quote_env(const char *s, char *out, size_t cap) {
    size_t o = 0, i = 0;
    out[o++] = '\'';
    for (; s[i] && i < 40 && o + 8 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'')
            out[o++] = (char)c;
        else
            o += (size_t)snprintf(out + o, cap - o, "\\x%02x", c);
    }
    if (s[i]) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o++] = '\'';
    out[o] = '\0';
}

/* ---- Size classes ------------------------------------------------------------------------ */
void fl_size_limits_of(const fl_host *h, uint64_t limits[FL_NSIZE_CLASSES - 1]) {
    /* Unknown caches (no sysfs): a typical core's 32 KiB / 1 MiB / 32 MiB. */
    uint64_t l1 = h->l1d_bytes ? h->l1d_bytes : 32u << 10;
    uint64_t l2 = h->l2_bytes > l1 ? h->l2_bytes : (uint64_t)1 << 20;
    uint64_t llc = h->llc_bytes > l2 ? h->llc_bytes : l2 > (32u << 20) ? l2 : 32u << 20;
    limits[0] = l1;
    limits[1] = l2;
    limits[2] = llc;
}

void fl_size_limits_here(uint64_t limits[FL_NSIZE_CLASSES - 1]) {
    fl_size_limits_of(&host, limits);
}

/* ---- The wisdom file ------------------------------------------------------------------ */
static void wisdom_default_path(void) {
    const char *env = getenv("FILTERLAB_WISDOM");
    wisdom_path[0] = '\0';
    if (env && strcmp(env, "off") == 0) {
        snprintf(wisdom_status, sizeof wisdom_status, "off: FILTERLAB_WISDOM=off");
        return;
    }
    if (env && *env) {
        snprintf(wisdom_path, sizeof wisdom_path, "%s", env);
        return;
    }
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (xdg && xdg[0] == '/') /* the XDG spec ignores relative paths */
        snprintf(wisdom_path, sizeof wisdom_path, "%s/filterlab/wisdom", xdg);
    else if (home && *home)
        snprintf(wisdom_path, sizeof wisdom_path, "%s/.cache/filterlab/wisdom", home);
    else
        snprintf(wisdom_status, sizeof wisdom_status,
                 "off: neither FILTERLAB_WISDOM, XDG_CACHE_HOME nor HOME is set");
}

#define WISDOM_MAX_BYTES (1u << 20)

/* Reads and checks the file at wisdom_path; sets wisdom (or leaves it NULL) and the status. */
static void wisdom_load(void) {
    if (!wisdom_path[0]) return;
    int fd = open(wisdom_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            snprintf(wisdom_status, sizeof wisdom_status,
                     "none: no file at %s (filterlab tune writes one)", wisdom_path);
        else
            snprintf(wisdom_status, sizeof wisdom_status, "ignored: %s: %s", wisdom_path,
                     strerror(errno));
        return;
    }
    struct stat st;
    char *buf = NULL;
    const char *why = NULL;
    size_t len = 0;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        why = "not a regular file";
    else if (st.st_size > (off_t)WISDOM_MAX_BYTES)
        why = "larger than 1 MiB, not a wisdom file";
    else if (!(buf = malloc((size_t)st.st_size + 1)))
        why = "out of memory reading it";
    else {
        for (;;) {
            ssize_t r = read(fd, buf + len, (size_t)st.st_size + 1 - len);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) break;
            len += (size_t)r;
            if (len == (size_t)st.st_size + 1) break;
        }
        if (len > (size_t)st.st_size) why = "changed while being read";
    }
    close(fd);
    if (!why) {
        fl_wisdom_key key;
        fl_wisdom_key_here(&key);
        fl_wisdom *w = calloc(1, sizeof *w);
        char reason[512];
        if (!w) {
            why = "out of memory reading it";
        } else if (fl_wisdom_parse(buf, len, &key, avail_mask(), w, reason, sizeof reason)) {
            uint64_t lim[FL_NSIZE_CLASSES - 1];
            fl_size_limits_here(lim);
            if (memcmp(lim, w->limits, sizeof lim) != 0) {
                /* Same CPU, other caches (a VM resized): the classes measured are not
                 * this machine's. */
                snprintf(wisdom_status, sizeof wisdom_status,
                         "ignored: %s: measured with cache sizes %llu/%llu/%llu bytes, these "
                         "are %llu/%llu/%llu (run filterlab tune again)",
                         wisdom_path, (unsigned long long)w->limits[0],
                         (unsigned long long)w->limits[1], (unsigned long long)w->limits[2],
                         (unsigned long long)lim[0], (unsigned long long)lim[1],
                         (unsigned long long)lim[2]);
                fl_wisdom_free(w);
                free(w);
                free(buf);
                return;
            }
            wisdom = w;
            snprintf(wisdom_status, sizeof wisdom_status, "used: %s, measured on %s",
                     wisdom_path, w->date);
        } else {
            free(w);
            snprintf(wisdom_status, sizeof wisdom_status, "ignored: %s: %s", wisdom_path,
                     reason);
        }
    }
    if (why) snprintf(wisdom_status, sizeof wisdom_status, "ignored: %s: %s", wisdom_path, why);
    free(buf);
}

/* Decides everything and only then publishes it: the inline fast path of fl_kernels_sized()
 * skips pthread_once once the pointers are set, so another thread must never see an
 * intermediate choice. */
static void init_once(void) {
    for (size_t i = 0; i < NISA; i++) {
        /* An ISA file's init is compiled with that ISA's flags, and the compiler may turn its
         * pointer stores into vector moves (VEX/EVEX encoded): running it on a CPU without
         * the ISA would be a SIGILL (a Celeron without AVX, valgrind without AVX-512). An
         * unsupported ISA's table is never selected or bound (both check `supported`), so it
         * gets scalar's entries instead, keeping every entry non-NULL. */
        supported[i] = isas[i].supported();
        build_table(supported[i] ? i : 0, &tables[i]);
    }
    setup_candidates();
    fl_host_describe(&host);
    host_id = (fl_cpu_id){host.vendor, host.family, host.model, host.stepping, -1, -1,
                          host.features};
    if (!host.vendor[0]) {
        /* aarch64: the implementer and part name the core (src/host.c reads them). */
        char *end;
        long impl = strtol(host.arm_implementer, &end, 0);
        host_id.arm_implementer = host.arm_implementer[0] && !*end ? (int)impl : -1;
        long part = strtol(host.arm_part, &end, 0);
        host_id.arm_part = host.arm_part[0] && !*end ? (int)part : -1;
    }
    uint64_t lim[FL_NSIZE_CLASSES - 1];
    fl_size_limits_here(lim);
    for (int i = 0; i < FL_NSIZE_CLASSES - 1; i++) fl_size_class_limit[i] = (size_t)lim[i];
    wisdom_default_path();
    wisdom_load();
    compute_choice(&sets[0]);
    cur_set = 0;

    const char *env = getenv("FILTERLAB_KERNEL");
    if (env && *env && strcmp(env, "auto") != 0) {
        int i = find_isa(env);
        if (i < 0) {
            env_status = FL_ERR_UNKNOWN_KERNEL;
            char quoted[4 * 40 + 6];
            quote_env(env, quoted, sizeof quoted);
            snprintf(env_reason, sizeof env_reason,
                     "FILTERLAB_KERNEL=%s is not a compiled kernel; automatic choice used",
                     quoted);
        } else if (!supported[i]) {
            env_status = FL_ERR_KERNEL_UNAVAILABLE;
            snprintf(env_reason, sizeof env_reason,
                     "FILTERLAB_KERNEL=%s needs %s, which this CPU/OS lacks; automatic choice "
                     "used",
                     isas[i].name, isas[i].requires);
        } else {
            snprintf(env_reason, sizeof env_reason, "forced by FILTERLAB_KERNEL=%s",
                     isas[i].name);
            set_forced((size_t)i, env_reason);
            return;
        }
        set_auto(env_reason);
        return;
    }
    set_auto(NULL);
}

static void ensure_init(void) {
    pthread_once(&once, init_once);
}

const fl_kernel_table *fl_kernels_slow(void) {
    ensure_init();
    return atomic_load_explicit(&fl_active_kernels[0], memory_order_acquire);
}

const fl_kernel_table *fl_kernel_table_at(size_t i) {
    ensure_init();
    return i < NISA && supported[i] ? &tables[i] : NULL;
}

/* Per-filter binding follows fl_kernel_select's rules, without publishing anything. */
fl_status fl_kernel_table_named(const char *name, const fl_kernel_table **out) {
    if (!name || !out) return FL_ERR_INVALID_ARG;
    ensure_init();
    if (strcmp(name, "auto") == 0) {
        *out = NULL;
        return FL_OK;
    }
    int i = find_isa(name);
    if (i < 0) return FL_ERR_UNKNOWN_KERNEL;
    if (!supported[i]) return FL_ERR_KERNEL_UNAVAILABLE;
    *out = &tables[i];
    return FL_OK;
}

fl_status fl_kernel_bind(const fl_kernel_table **slot, const char *name) {
    const fl_kernel_table *t = NULL;
    if (name) {
        fl_status s = fl_kernel_table_named(name, &t);
        if (s != FL_OK) return s;
    }
    __atomic_store_n(slot, t, __ATOMIC_RELEASE);
    return FL_OK;
}

const char *fl_kernel_table_name(const fl_kernel_table *t) {
    ensure_init();
    for (size_t i = 0; i < NISA; i++)
        if (t == &tables[i]) return isas[i].name;
    for (int s = 0; s < 2; s++)
        for (int cls = 0; cls < FL_NSIZE_CLASSES; cls++)
            if (t == &sets[s].tables[cls]) return "auto";
    return NULL;
}

size_t fl_kernel_count(void) {
    return NISA;
}

fl_status fl_kernel_describe(size_t i, fl_kernel_desc *out) {
    if (!out || i >= NISA) return FL_ERR_INVALID_ARG;
    ensure_init();
    out->name = isas[i].name;
    out->compiled = 1;
    out->supported = supported[i];
    out->emulated = isas[i].emulated;
    out->requires = isas[i].requires;
    return FL_OK;
}

fl_status fl_kernel_select(const char *name) {
    if (!name) return FL_ERR_INVALID_ARG;
    ensure_init();
    if (strcmp(name, "auto") == 0) {
        set_auto(NULL);
        return FL_OK;
    }
    int i = find_isa(name);
    if (i < 0) return FL_ERR_UNKNOWN_KERNEL;
    if (!supported[i]) return FL_ERR_KERNEL_UNAVAILABLE;
    set_forced((size_t)i, "selected with fl_kernel_select()");
    return FL_OK;
}

const char *fl_kernel_active(void) {
    ensure_init();
    return active_name;
}

const char *fl_kernel_reason(void) {
    ensure_init();
    return active_reason;
}

fl_status fl_kernel_env_status(void) {
    ensure_init();
    return env_status;
}

/* ---- Per-entry reporting ------------------------------------------------------------- */
size_t fl_kernel_entry_count(void) {
    return NENT;
}

const char *fl_kernel_entry_name(size_t i) {
    return i < NENT ? fl_entries[i].name : NULL;
}

int fl_kernel_entry_sized(size_t i) {
    return i < NENT && fl_entries[i].sized;
}

const char *fl_size_class_name(int c) {
    static const char *const names[FL_SIZE_CLASSES] = {"L1", "L2", "LLC", "DRAM"};
    return c >= 0 && c < FL_SIZE_CLASSES ? names[c] : NULL;
}

fl_status fl_size_class_limits(uint64_t limits[3]) {
    if (!limits) return FL_ERR_INVALID_ARG;
    ensure_init();
    for (int i = 0; i < FL_NSIZE_CLASSES - 1; i++) limits[i] = fl_size_class_limit[i];
    return FL_OK;
}

fl_status fl_kernel_choice(const char *entry, int size_class, const char **kernel,
                           const char **reason) {
    int e = fl_entry_find(entry);
    if (e < 0 || size_class < 0 || size_class >= FL_NSIZE_CLASSES || !kernel || !reason)
        return FL_ERR_INVALID_ARG;
    ensure_init();
    int f = forced;
    if (f >= 0) {
        *kernel = isas[f].name;
        *reason = active_reason;
        return FL_OK;
    }
    const choice_set *s = &sets[cur_set];
    *kernel = fl_cand_names[s->cand[e][size_class]];
    *reason = s->reason[e][size_class];
    return FL_OK;
}

fl_status fl_kernel_choice_for(const fl_geometry *g, const char **kernel, const char **reason) {
    size_t bytes = 0;
    if (!g || !kernel || !reason || fl_geometry_check(g, &bytes) != FL_OK)
        return FL_ERR_INVALID_ARG;
    const fl_variant_desc *d = fl_variant_desc_of(g->variant);
    uint32_t slot = d->kernel_slots(g->k).contains;
    for (size_t e = 0; e < NENT; e++)
        if (fl_entries[e].slot == slot)
            return fl_kernel_choice(fl_entries[e].name, (int)fl_size_class_of(bytes), kernel,
                                    reason);
    return FL_ERR_INVALID_ARG; /* a variant without a batch lookup kernel */
}

const char *fl_kernel_wisdom_path(void) {
    ensure_init();
    return wisdom_path;
}

const char *fl_kernel_wisdom_status(void) {
    ensure_init();
    return wisdom_status;
}

void fl_kernel_use_wisdom(fl_wisdom *w, const char *status) {
    ensure_init();
    fl_wisdom *old = wisdom;
    wisdom = w;
    if (status) snprintf(wisdom_status, sizeof wisdom_status, "%s", status);
    int next = !cur_set;
    compute_choice(&sets[next]);
    cur_set = next;
    if (forced < 0) set_auto(env_status != FL_OK ? env_reason : NULL);
    /* The old wisdom's cells are no longer read: reasons were copied into the sets. */
    if (old) {
        fl_wisdom_free(old);
        free(old);
    }
}

fl_status fl_kernel_tune(const char *path, int quick, void (*report)(void *ctx, const char *line),
                         void *ctx) {
    ensure_init();
    if (!path || !*path) path = wisdom_path;
    if (!path[0]) return FL_ERR_INVALID_ARG;
    char target[sizeof wisdom_path];
    snprintf(target, sizeof target, "%s", path);
    pthread_mutex_lock(&tune_lock);
    fl_wisdom *w = calloc(1, sizeof *w);
    fl_status st = w ? FL_OK : FL_ERR_NO_MEMORY;
    if (st == FL_OK) {
        fl_wisdom_key_here(&w->key);
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        strftime(w->date, sizeof w->date, "%Y-%m-%d", &tm);
        st = fl_tune_measure(w, quick, report, ctx);
    }
    char *text = NULL;
    size_t len = 0;
    if (st == FL_OK && !(text = fl_wisdom_format(w, &len))) st = FL_ERR_NO_MEMORY;
    if (st == FL_OK) {
        /* The directory, as mkdir -p would (the cache directory may not exist yet). */
        char dir[sizeof target];
        snprintf(dir, sizeof dir, "%s", target);
        for (char *p = dir + 1; (p = strchr(p, '/')) != NULL; p++) {
            *p = '\0';
            if (mkdir(dir, 0755) != 0 && errno != EEXIST) break;
            *p = '/';
        }
        st = fl_write_file_atomic(target, text, len);
    }
    free(text);
    if (st == FL_OK) {
        char status[sizeof wisdom_status];
        snprintf(status, sizeof status, "used: %s, measured on %s", target, w->date);
        fl_kernel_use_wisdom(w, status);
    } else if (w) {
        int saved = errno;
        fl_wisdom_free(w);
        free(w);
        errno = saved;
    }
    pthread_mutex_unlock(&tune_lock);
    return st;
}
