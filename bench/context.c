/*
 * The machine context recorded with every result file: enough to tell two runs apart and to
 * know whether a number can be trusted (debug build, frequency scaling, missing PMU).
 * Everything is read from /proc and /sys at run time; a value that cannot be read is null.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "fb_git.h"
#include "flbench.h"

#ifndef FB_BUILDTYPE
#define FB_BUILDTYPE "unknown"
#endif
#ifndef FB_OPTIMIZATION
#define FB_OPTIMIZATION "unknown"
#endif
#ifndef FB_DEBUGINFO
#define FB_DEBUGINFO 0
#endif
#ifndef FB_C_STD
#define FB_C_STD "c11"
#endif
#ifndef FB_C_ARGS
#define FB_C_ARGS ""
#endif
#ifndef FB_COMPILER
#define FB_COMPILER "unknown"
#endif

json_t *fb_json_num(double v) { return isfinite(v) ? json_real(v) : json_null(); }

/* First line of a file without the newline; NULL if unreadable. */
static char *read_line(const char *path, char *buf, size_t cap) {
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *r = fgets(buf, (int)cap, f);
    fclose(f);
    if (!r)
        return NULL;
    buf[strcspn(buf, "\n")] = 0;
    return buf;
}

/* The library's description of this machine (fl_host_describe), read once: the CPU and cache
 * fields below are the ones `filterlab host` prints and scripts/repro/hostinfo.py records. */
static const fl_host *host(void) {
    static fl_host h;
    static int done;
    if (!done) {
        fl_host_describe(&h);
        done = 1;
    }
    return &h;
}

uint64_t fb_mem_available(void) {
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return 0;
    char line[256];
    unsigned long long kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
            break;
    fclose(f);
    return (uint64_t)kb * 1024;
}

void fb_machine_read(fb_machine *m) {
    memset(m, 0, sizeof *m);
    const fl_host *h = host();
    for (int i = 0; i < h->ncaches && m->ncaches < (int)(sizeof m->caches / sizeof m->caches[0]); i++) {
        const fl_host_cache *k = &h->caches[i];
        fb_cache *c = &m->caches[m->ncaches++];
        c->level = k->level;
        snprintf(c->type, sizeof c->type, "%s", k->type);
        c->size = k->bytes;
        c->ways = k->ways;
        c->line = k->line;
        c->sets = k->sets;
        c->sharing = k->sharing;
    }
    m->l1d = h->l1d_bytes;
    m->l2 = h->l2_bytes;
    m->llc = h->llc_bytes;
    m->mem_available = fb_mem_available();
    m->ncpus = h->cpus_online;
}

int fb_is_debug_build(void) {
    const char *o = FB_OPTIMIZATION;
    return !strcmp(o, "0") || !strcmp(o, "g") || !strcmp(o, "1") || !strcmp(FB_BUILDTYPE, "debug");
}

static void list_add(json_t *ctx, const char *key, const char *msg) {
    json_t *arr = json_object_get(ctx, key);
    if (!arr) {
        arr = json_array();
        json_object_set_new(ctx, key, arr);
    }
    json_array_append_new(arr, json_string(msg));
}

/* A warning or a note: formatted once, appended to ctx's list under key (when there is a
 * ctx); a warning is also shown on stderr as it happens. */
static void record(json_t *ctx, const char *key, int show, const char *fmt, va_list ap) {
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (show) {
        fb_progress_clear();
        fprintf(stderr, "flbench: warning: %s\n", msg);
    }
    if (ctx)
        list_add(ctx, key, msg);
}

void fb_warn(json_t *ctx, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    record(ctx, "warnings", 1, fmt, ap);
    va_end(ap);
}

void fb_note(json_t *ctx, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    record(ctx, "notes", 0, fmt, ap);
    va_end(ap);
}

static json_t *str_or_null(const char *s) { return s ? json_string(s) : json_null(); }

/* The bracketed choice of a sysfs setting such as "always [madvise] never". */
static json_t *bracketed(const char *path) {
    char buf[256];
    if (!read_line(path, buf, sizeof buf))
        return json_null();
    char *a = strchr(buf, '['), *b = a ? strchr(a, ']') : NULL;
    if (!a || !b)
        return json_string(buf);
    *b = 0;
    return json_string(a + 1);
}

static json_t *options_json(const fb_options *o) {
    json_t *j = json_object();
    json_t *v = json_array();
    for (size_t i = 0; i < o->nvariants; i++)
        json_array_append_new(v, json_string(fl_variant_name(o->variants[i])));
    json_object_set_new(j, "filters", v);
    json_t *k = json_array();
    for (size_t i = 0; i < o->nkernels; i++)
        json_array_append_new(k, json_string(o->kernels[i]));
    json_object_set_new(j, "kernels", k);
    json_object_set_new(j, "fpr", o->use_bpk ? json_null() : fb_json_num(o->fpr));
    json_object_set_new(j, "bits_per_key", o->use_bpk ? fb_json_num(o->bits_per_key) : json_null());
    json_t *s = json_array();
    for (size_t i = 0; i < o->nsizes; i++)
        json_array_append_new(s, json_integer((json_int_t)o->sizes[i]));
    json_object_set_new(j, "sizes", s);
    json_object_set_new(j, "sizes_in", json_string(o->sizes_in_keys ? "keys" : "bytes"));
    json_object_set_new(j, "sizes_default", json_boolean(o->sizes_default));
    json_t *h = json_array();
    for (size_t i = 0; i < o->nhits; i++)
        json_array_append_new(h, fb_json_num(o->hits[i]));
    json_object_set_new(j, "hit_rates", h);
    json_object_set_new(j, "batch", json_integer((json_int_t)o->batch));
    json_object_set_new(j, "keys", json_string(o->keys == FB_KEYS_URL ? "url" : "u64"));
    json_object_set_new(j, "lookups_per_repetition", json_integer((json_int_t)o->lookups));
    json_object_set_new(j, "repetitions", json_integer(o->reps));
    json_object_set_new(j, "warmup", json_integer(o->warmup));
    json_object_set_new(j, "interleave", json_boolean(o->interleave));
    json_object_set_new(j, "pin_cpu", o->pin_cpu >= 0 ? json_integer(o->pin_cpu) : json_null());
    json_object_set_new(j, "huge_pages", json_string(o->huge_pages ? "on" : "off"));
    json_object_set_new(j, "probe", json_string(o->probe_memory ? "memory" : "none"));
    json_object_set_new(j, "probe_distance_lines", json_integer(o->probe_distance));
    json_object_set_new(j, "insert_budget_keys", json_integer((json_int_t)o->insert_budget));
    json_object_set_new(j, "seed", json_integer((json_int_t)o->seed));
    json_object_set_new(j, "quick", json_boolean(o->quick));
    json_object_set_new(j, "events", str_or_null(o->events));
    return j;
}

json_t *fb_context_build(const fb_options *o, const fb_machine *m, const fb_tsc_info *tsc) {
    json_t *c = json_object();
    char buf[4096];

    json_object_set_new(c, "json_schema_version", json_integer(FB_JSON_SCHEMA_VERSION));
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S%z", &tm);
    json_object_set_new(c, "date", json_string(buf));
    if (gethostname(buf, sizeof buf) == 0)
        json_object_set_new(c, "host_name", json_string(buf));
    json_object_set_new(c, "executable", json_string(o->argv ? o->argv[0] : "flbench"));
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < o->argc && used < sizeof buf - 2; i++)
        used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%s", i ? " " : "", o->argv[i]);
    json_object_set_new(c, "command_line", json_string(buf));
    json_object_set_new(c, "num_cpus", json_integer(m->ncpus));
    json_object_set_new(c, "mhz_per_cpu",
                        tsc->available && isfinite(tsc->hz) ? json_integer((json_int_t)(tsc->hz / 1e6 + 0.5))
                                                            : json_null());

    /* CPU: fl_host_describe's reading of /proc/cpuinfo, CPUID and the model tables. Number
     * fields stay strings, as /proc/cpuinfo writes them. */
    const fl_host *h = host();
    json_t *cpu = json_object();
    json_object_set_new(cpu, "model", h->brand[0] ? json_string(h->brand)
                                      : h->arm_part[0] ? json_string(h->arm_part)
                                                       : json_null());
    json_object_set_new(cpu, "vendor", h->vendor[0] ? json_string(h->vendor)
                                       : h->arm_implementer[0] ? json_string(h->arm_implementer)
                                                               : json_null());
    struct {
        const char *key;
        int v;
    } nums[] = {{"family", h->family}, {"model_number", h->model}, {"stepping", h->stepping}};
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        snprintf(buf, sizeof buf, "%d", nums[i].v);
        json_object_set_new(cpu, nums[i].key, nums[i].v >= 0 ? json_string(buf) : json_null());
    }
    json_object_set_new(cpu, "microcode", h->microcode[0] ? json_string(h->microcode) : json_null());
    json_object_set_new(cpu, "flags", h->flags[0] ? json_string(h->flags) : json_null());
    json_object_set_new(cpu, "hypervisor", json_boolean(h->hypervisor[0] != '\0'));
    json_object_set_new(cpu, "hypervisor_name", h->hypervisor[0] ? json_string(h->hypervisor) : json_null());
    json_object_set_new(cpu, "signature", json_string(h->signature));
    json_object_set_new(cpu, "uarch", json_string(h->uarch));
    json_object_set_new(cpu, "uarch_source", json_string(h->uarch_source));
    json_t *feats = json_array();
    for (int b = 0; b < FL_CPU_FEATURE_COUNT; b++)
        if (h->features & (uint32_t)1 << b)
            json_array_append_new(feats, json_string(fl_cpu_feature_name((uint32_t)1 << b)));
    json_object_set_new(cpu, "features", feats);
    json_object_set_new(c, "cpu", cpu);
    json_object_set_new(c, "host_id", json_string(h->host_id));

    /* Caches, in Google Benchmark's shape plus ways/line/sets. */
    json_t *caches = json_array();
    for (int i = 0; i < m->ncaches; i++) {
        const fb_cache *k = &m->caches[i];
        json_t *e = json_object();
        json_object_set_new(e, "type", json_string(k->type));
        json_object_set_new(e, "level", json_integer(k->level));
        json_object_set_new(e, "size", json_integer((json_int_t)k->size));
        json_object_set_new(e, "num_sharing", json_integer(k->sharing));
        json_object_set_new(e, "ways", json_integer(k->ways));
        json_object_set_new(e, "line_size", json_integer(k->line));
        json_object_set_new(e, "sets", json_integer((json_int_t)k->sets));
        json_array_append_new(caches, e);
    }
    json_object_set_new(c, "caches", caches);
    json_object_set_new(c, "caches_source", json_string("/sys/devices/system/cpu/cpu0/cache"));
    double la[3];
    if (getloadavg(la, 3) == 3) {
        json_t *l = json_array();
        for (int i = 0; i < 3; i++)
            json_array_append_new(l, json_real(la[i]));
        json_object_set_new(c, "load_avg", l);
    }
    json_object_set_new(c, "mem_available_bytes", json_integer((json_int_t)m->mem_available));

    /* OS kernel */
    struct utsname u;
    if (uname(&u) == 0) {
        json_t *os = json_object();
        json_object_set_new(os, "sysname", json_string(u.sysname));
        json_object_set_new(os, "release", json_string(u.release));
        json_object_set_new(os, "version", json_string(u.version));
        json_object_set_new(os, "machine", json_string(u.machine));
        json_object_set_new(c, "os", os);
    }

    /* Build */
    json_t *comp = json_object();
    json_object_set_new(comp, "id_version", json_string(FB_COMPILER));
#ifdef __VERSION__
    json_object_set_new(comp, "version_string", json_string(__VERSION__));
#endif
    snprintf(buf, sizeof buf, "-O%s%s -std=%s%s%s", FB_OPTIMIZATION, FB_DEBUGINFO ? " -g" : "",
             FB_C_STD, FB_C_ARGS[0] ? " " : "", FB_C_ARGS);
#ifdef NDEBUG
    strncat(buf, " -DNDEBUG", sizeof buf - strlen(buf) - 1);
#endif
    json_object_set_new(comp, "flags", json_string(buf));
    json_object_set_new(comp, "flags_source",
                        json_string("reconstructed from meson options (optimization, debug, "
                                    "c_std, c_args, b_ndebug); kernels/ add their ISA flags"));
    json_object_set_new(c, "compiler", comp);
    json_object_set_new(c, "library_build_type", json_string(FB_BUILDTYPE));
    json_object_set_new(c, "library_optimization", json_string(FB_OPTIMIZATION));
    snprintf(buf, sizeof buf, "%d.%d.%d", FL_VERSION_MAJOR, FL_VERSION_MINOR, FL_VERSION_PATCH);
    json_object_set_new(c, "filterlab_version", json_string(buf));
    json_object_set_new(c, "git_commit", json_string(FB_GIT_COMMIT));

    /* Frequency: governor and turbo, when the platform exposes them. */
    json_t *gov = read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", buf, sizeof buf)
                      ? json_string(buf)
                      : json_null();
    json_object_set_new(c, "cpu_governor", gov);
    json_object_set_new(c, "cpu_scaling_enabled",
                        json_is_null(gov) ? json_null()
                                          : json_boolean(strcmp(json_string_value(gov), "performance")));
    json_t *turbo = json_null();
    if (read_line("/sys/devices/system/cpu/intel_pstate/no_turbo", buf, sizeof buf))
        turbo = json_boolean(atoi(buf) == 0);
    else if (read_line("/sys/devices/system/cpu/cpufreq/boost", buf, sizeof buf))
        turbo = json_boolean(atoi(buf) != 0);
    json_object_set_new(c, "turbo_enabled", turbo);

    json_object_set_new(c, "perf_event_paranoid", json_integer(fb_read_paranoid()));
    json_object_set_new(c, "pmu_driver_present", json_boolean(fb_pmu_driver_present()));
    json_object_set_new(c, "pmu_available", json_null());   /* set by the run */
    json_object_set_new(c, "counter_backend", json_null()); /* set by the run */

    json_t *thp = json_object();
    json_object_set_new(thp, "enabled", bracketed("/sys/kernel/mm/transparent_hugepage/enabled"));
    json_object_set_new(thp, "defrag", bracketed("/sys/kernel/mm/transparent_hugepage/defrag"));
    json_object_set_new(c, "thp", thp);
    json_object_set_new(c, "huge_pages", json_string(o->huge_pages ? "on" : "off"));

    /* Kernel (ISA implementation) selection. */
    json_object_set_new(c, "selected_kernel", json_string(fl_kernel_active()));
    json_object_set_new(c, "selected_kernel_reason", json_string(fl_kernel_reason()));
    const char *env = getenv("FILTERLAB_KERNEL");
    json_object_set_new(c, "filterlab_kernel_env", str_or_null(env));
    json_t *ks = json_array();
    for (size_t i = 0; i < fl_kernel_count(); i++) {
        fl_kernel_desc d;
        if (fl_kernel_describe(i, &d) != FL_OK)
            continue;
        json_t *e = json_object();
        json_object_set_new(e, "name", json_string(d.name));
        json_object_set_new(e, "supported", json_boolean(d.supported));
        json_object_set_new(e, "emulated", json_boolean(d.emulated));
        json_object_set_new(e, "requires", str_or_null(d.requires));
        json_array_append_new(ks, e);
    }
    json_object_set_new(c, "kernels", ks);

    /* Timers */
    json_t *t = json_object();
    json_object_set_new(t, "available", json_boolean(tsc->available));
    json_object_set_new(t, "hz", tsc->available ? fb_json_num(tsc->hz) : json_null());
    json_object_set_new(t, "hz_spread", tsc->available ? fb_json_num(tsc->hz_spread) : json_null());
    json_object_set_new(t, "hz_cpuid", tsc->available && tsc->hz_cpuid > 0 ? fb_json_num(tsc->hz_cpuid) : json_null());
    json_object_set_new(t, "invariant", tsc->available ? json_boolean(tsc->invariant) : json_null());
    json_object_set_new(t, "method", json_string(tsc->available
                                                     ? "median of 7 x 20 ms against CLOCK_MONOTONIC_RAW; "
                                                       "reads: lfence;rdtsc ... rdtscp;lfence"
                                                     : "no TSC on this architecture"));
    json_object_set_new(c, "tsc", t);
    json_object_set_new(c, "wall_clock", json_string("CLOCK_MONOTONIC"));
    json_object_set_new(c, "cpu_clock", json_string("CLOCK_THREAD_CPUTIME_ID"));

    json_object_set_new(c, "options", options_json(o));
    json_object_set_new(c, "warnings", json_array());
    json_object_set_new(c, "notes", json_array());

    /* Warnings that concern every number in the file. */
    if (fb_is_debug_build())
        fb_warn(c, "debug build (buildtype %s, optimization %s): timings are not representative",
                FB_BUILDTYPE, FB_OPTIMIZATION);
#ifndef NDEBUG
    fb_note(c, "assertions are enabled (NDEBUG not defined)");
#endif
    if (!json_is_null(gov) && strcmp(json_string_value(gov), "performance"))
        fb_warn(c, "CPU frequency scaling: governor is '%s' (set 'performance' for stable numbers)",
                json_string_value(gov));
    else if (json_is_null(gov))
        fb_note(c, "CPU frequency governor not readable (no cpufreq in sysfs, typical of VMs)");
    if (json_is_true(turbo))
        fb_note(c, "turbo is enabled: TSC cycles and core cycles differ");
    if (tsc->available && !tsc->invariant)
        fb_warn(c, "the TSC is not invariant: TSC cycles may not track time");
    return c;
}
