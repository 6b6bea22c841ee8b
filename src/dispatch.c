/*
 * The kernel tables: which ISAs are compiled in, which this CPU runs (src/cpu_features.c
 * reads the CPU), the process's choice, FILTERLAB_KERNEL, and the tables filters bind to.
 *
 * One table per compiled ISA, each built like dav1d's: start from the scalar kernels and let
 * every ISA from the bottom of its chain up overwrite what it implements (avx512 sits on
 * avx2, which sits on scalar; neon sits on scalar). The tables and the automatic choice are
 * computed once, under pthread_once, at the first call that needs them; the active table is
 * an atomic pointer, so fl_kernel_select() is safe while other threads run lookups (a batch
 * already running finishes on the table it started with: dispatch is once per batch). A
 * filter bound with fl_filter_bind_kernel() uses its own table whatever the process chose.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fl_config.h"
#include "internal.h"

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
const fl_kernel_table *_Atomic fl_active_kernels;
static const char *_Atomic active_name;
static const char *_Atomic active_reason;
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

/* Name and reason are stored before the table is published; two threads selecting at the
 * same time may still leave the name of one with the reason of the other (selection is
 * meant for start-up and benchmarks, not for racing threads). */
static void set_active(size_t i, const char *reason) {
    active_name = isas[i].name;
    active_reason = reason;
    atomic_store_explicit(&fl_active_kernels, &tables[i], memory_order_release);
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

/* Decides the kernel (automatic, then FILTERLAB_KERNEL) and only then publishes it: the
 * inline fast path of fl_kernels() skips pthread_once once the pointer is set, so another
 * thread must never see an intermediate choice. */
static void init_once(void) {
    size_t best = 0;
    for (size_t i = 0; i < NISA; i++) {
        /* An ISA file's init is compiled with that ISA's flags, and the compiler may turn its
         * pointer stores into vector moves (VEX/EVEX encoded): running it on a CPU without
         * the ISA would be a SIGILL (a Celeron without AVX, valgrind without AVX-512). An
         * unsupported ISA's table is never selected or bound (both check `supported`), so it
         * gets scalar's entries instead, keeping every entry non-NULL. */
        supported[i] = isas[i].supported();
        build_table(supported[i] ? i : 0, &tables[i]);
        if (supported[i] && !isas[i].emulated) best = i;
    }
    size_t choice = best;
    const char *reason = best == 0 ? "no faster kernel is compiled in or supported by this CPU"
                                   : "the fastest kernel this CPU supports";
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
            choice = (size_t)i;
        }
        reason = env_reason;
    }
    set_active(choice, reason);
}

static void ensure_init(void) {
    pthread_once(&once, init_once);
}

const fl_kernel_table *fl_kernels_slow(void) {
    ensure_init();
    return atomic_load_explicit(&fl_active_kernels, memory_order_acquire);
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
        size_t best = 0;
        for (size_t i = 0; i < NISA; i++)
            if (supported[i] && !isas[i].emulated) best = i;
        set_active(best, "the fastest kernel this CPU supports");
        return FL_OK;
    }
    int i = find_isa(name);
    if (i < 0) return FL_ERR_UNKNOWN_KERNEL;
    if (!supported[i]) return FL_ERR_KERNEL_UNAVAILABLE;
    set_active((size_t)i, "selected with fl_kernel_select()");
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
