/*
 * The kernel tables: which ISAs are compiled in, which this CPU runs (src/cpu/cpu_features.c
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
 * CPU (src/cpu/wisdom.c, src/cpu/tune.c), else from the rule table below.
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
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
#ifndef FL_HAVE_AVX512_POPCNT
#define FL_HAVE_AVX512_POPCNT 0
#endif

/* ---- CPU features: read by src/cpu/cpu_features.c, the one CPUID/XCR0/AT_HWCAP reader ---- */
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
/* kernels.h's: one past the L2 class limit, set in init_once (a typical core's 1 MiB until
 * then). */
size_t fl_kernel_prefetch_min_bytes = ((size_t)1 << 20) + 1;
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

/* One module entry per function pointer of fl_kernel_table (src/cpu/kernel_entries.c
 * lists them and checks the count). */
#define NENT (sizeof(fl_kernel_table) / sizeof(fl_any_fn))

/* ---- Candidates ------------------------------------------------------------------------ */
static const fl_kernel_table *cand_tab[FL_NCAND];
#if FL_HAVE_AVX2 || FL_HAVE_AVX512
static fl_kernel_table loads_tables[2]; /* avx2 (fuse and cuckoo) and avx512 (fuse) loads forms */
#endif
#if FL_HAVE_AVX512_POPCNT
static fl_kernel_table popcnt_table; /* avx512 with vqf.contains for VPOPCNTDQ and BITALG */
#endif

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
        loads_tables[0].cuckoo = fl_cuckoo_kernels_loads_avx2;
        cand_tab[FL_CAND_AVX2_LOADS] = &loads_tables[0];
    }
#endif
#if FL_HAVE_AVX512
    if ((i = find_isa("avx512")) >= 0 && supported[i]) {
        cand_tab[FL_CAND_AVX512] = &tables[i];
        loads_tables[1] = tables[i];
        loads_tables[1].fuse = fl_fuse_kernels_loads_avx512;
        cand_tab[FL_CAND_AVX512_LOADS] = &loads_tables[1];
#if FL_HAVE_AVX512_POPCNT
        const uint32_t need = fl_cand_needs[FL_CAND_AVX512_POPCNT];
        if ((fl_cpu_features() & need) == need) {
            popcnt_table = tables[i];
            popcnt_table.vqf.contains = fl_vqf_contains_popcnt_avx512;
            cand_tab[FL_CAND_AVX512_POPCNT] = &popcnt_table;
        }
#endif
    }
#endif
    (void)i;
}

/* ---- The composed tables and the reasons --------------------------------------------- */
typedef struct choice_set {
    fl_kernel_table tables[FL_NSIZE_CLASSES];
    uint8_t cand[NENT][FL_NSIZE_CLASSES];
    char reason[NENT][FL_NSIZE_CLASSES][FL_REASON_MAX];
    char summary[512];
} choice_set;
static choice_set sets[2];
static int _Atomic cur_set;

static fl_host host;
static fl_cpu_id host_id;
static fl_wisdom *wisdom;
static char wisdom_path[FL_WISDOM_PATH_MAX];
static char wisdom_status[FL_WISDOM_STATUS_MAX];

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
        /* aarch64: the implementer and part name the core (src/cpu/host.c reads them). */
        char *end;
        long impl = strtol(host.arm_implementer, &end, 0);
        host_id.arm_implementer = host.arm_implementer[0] && !*end ? (int)impl : -1;
        long part = strtol(host.arm_part, &end, 0);
        host_id.arm_part = host.arm_part[0] && !*end ? (int)part : -1;
    }
    uint64_t lim[FL_NSIZE_CLASSES - 1];
    fl_size_limits_here(lim);
    for (int i = 0; i < FL_NSIZE_CLASSES - 1; i++) fl_size_class_limit[i] = (size_t)lim[i];
    fl_kernel_prefetch_min_bytes = fl_size_class_limit[1] + 1;
    wisdom = fl_wisdom_find(avail_mask(), lim, wisdom_path, sizeof wisdom_path, wisdom_status,
                            sizeof wisdom_status);
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
