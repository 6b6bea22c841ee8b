/*
 * Hardware counters through perf_event_open(2), with event names encoded by libpfm4
 * (pfm_get_os_event_encoding with PFM_OS_PERF_EVENT_EXT; see libpfm4's
 * pfm_get_os_event_encoding(3)). All events form one group so they count over exactly the
 * same instructions, user space only (exclude_kernel, exclude_hv). Each read returns
 * PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING | ID; a measurement is the
 * difference of two reads and is scaled by enabled/running when the kernel multiplexed the
 * group (the running percentage is recorded).
 *
 * A successful encode proves nothing: libpfm4 encodes generic events on any machine. An event
 * is available only if perf_event_open accepts it. Without a PMU driver (KVM guests without a
 * virtual PMU: "no PMU driver, software events only" in dmesg) hardware opens fail with ENOENT
 * or EOPNOTSUPP; with perf_event_paranoid too high they fail with EACCES/EPERM. Either way
 * every hardware value becomes NaN (JSON null; no console column), never 0, with one note.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <perfmon/pfmlib_perf_event.h>

#include "flbench.h"

/* The default set: libpfm4's generic perf events, portable across vendors. */
static const struct {
    const char *name, *key;
    uint32_t type;
    uint64_t config;
} defaults[] = {
    {"perf::PERF_COUNT_HW_CPU_CYCLES", "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {"perf::PERF_COUNT_HW_INSTRUCTIONS", "instructions", PERF_TYPE_HARDWARE,
     PERF_COUNT_HW_INSTRUCTIONS},
    {"perf::PERF_COUNT_HW_CACHE_L1D:READ:MISS", "l1d_load_misses", PERF_TYPE_HW_CACHE,
     PERF_COUNT_HW_CACHE_L1D | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
         (PERF_COUNT_HW_CACHE_RESULT_MISS << 16)},
    {"perf::PERF_COUNT_HW_CACHE_LL:READ:MISS", "llc_load_misses", PERF_TYPE_HW_CACHE,
     PERF_COUNT_HW_CACHE_LL | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
         (PERF_COUNT_HW_CACHE_RESULT_MISS << 16)},
    {"perf::PERF_COUNT_HW_CACHE_DTLB:READ:MISS", "dtlb_load_misses", PERF_TYPE_HW_CACHE,
     PERF_COUNT_HW_CACHE_DTLB | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
         (PERF_COUNT_HW_CACHE_RESULT_MISS << 16)},
    {"perf::PERF_COUNT_HW_BRANCH_MISSES", "branch_misses", PERF_TYPE_HARDWARE,
     PERF_COUNT_HW_BRANCH_MISSES},
};
#define NDEFAULTS (sizeof defaults / sizeof defaults[0])

int fb_read_paranoid(void) {
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
    int v = 99;
    if (f) {
        if (fscanf(f, "%d", &v) != 1)
            v = 99;
        fclose(f);
    }
    return v;
}

/* A CPU PMU driver registers one of these event sources (hybrid Intel: cpu_core/cpu_atom,
 * Arm: armv8_pmuv3*, AMD/Intel: cpu). */
int fb_pmu_driver_present(void) {
    if (getenv("FLBENCH_SIMULATE_NO_PMU"))
        return 0;
    static const char *names[] = {"cpu", "cpu_core", "cpu_atom", "armv8_pmuv3", "armv8_pmuv3_0",
                                  "armv8_cortex_a53", "armv8_cortex_a72"};
    char path[128];
    struct stat st;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "/sys/bus/event_source/devices/%s", names[i]);
        if (stat(path, &st) == 0)
            return 1;
    }
    return 0;
}

static void key_for(const char *name, char *key, size_t cap) {
    for (size_t i = 0; i < NDEFAULTS; i++) {
        const char *bare = defaults[i].name + 6; /* without "perf::" */
        if (!strcmp(name, defaults[i].name) || !strcmp(name, bare)) {
            snprintf(key, cap, "%s", defaults[i].key);
            return;
        }
    }
    static const struct {
        const char *alias, *key;
    } aliases[] = {{"cycles", "cycles"},           {"instructions", "instructions"},
                   {"branch-misses", "branch_misses"}, {"L1-dcache-load-misses", "l1d_load_misses"},
                   {"LLC-load-misses", "llc_load_misses"}, {"dTLB-load-misses", "dtlb_load_misses"}};
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (!strcmp(name, aliases[i].alias)) {
            snprintf(key, cap, "%s", aliases[i].key);
            return;
        }
    /* Any other libpfm4 name: without a "pmu::" prefix, lower case, non-alphanumerics
     * to '_' (perf::PERF_COUNT_SW_TASK_CLOCK -> perf_count_sw_task_clock). */
    const char *colons = strstr(name, "::");
    if (colons)
        name = colons + 2;
    size_t j = 0;
    for (const char *s = name; *s && j + 1 < cap; s++) {
        char c = *s;
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')))
            c = '_';
        key[j++] = c;
    }
    key[j] = 0;
}

static void note_add(fb_perf *p, const char *fmt, const char *a, const char *b) {
    size_t len = strlen(p->note);
    if (len && len + 2 < sizeof p->note) {
        strcat(p->note, "; ");
        len += 2;
    }
    snprintf(p->note + len, sizeof p->note - len, fmt, a, b);
}

/* Encodes one event name into attr. Returns 0 or writes a reason. */
static int encode(const char *name, struct perf_event_attr *attr, char *why, size_t cap) {
    memset(attr, 0, sizeof *attr);
    pfm_perf_encode_arg_t arg;
    memset(&arg, 0, sizeof arg);
    arg.attr = attr;
    arg.size = sizeof arg;
    int ret = pfm_get_os_event_encoding(name, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
    if (ret != PFM_SUCCESS) {
        snprintf(why, cap, "libpfm4 cannot encode it (%s)", pfm_strerror(ret));
        return -1;
    }
    return 0;
}

static const char *no_counter_reason(int err, char *buf, size_t cap) {
    if ((err == ENOENT || err == EOPNOTSUPP || err == ENODEV) && !fb_pmu_driver_present())
        snprintf(buf, cap,
                 "no PMU driver: the kernel exposes software events only (no CPU PMU under "
                 "/sys/bus/event_source/devices, e.g. a VM without a virtual PMU)");
    else if (err == ENOSYS)
        snprintf(buf, cap,
                 "no perf_event_open: the system call is not implemented (a kernel without "
                 "CONFIG_PERF_EVENTS, or a user-mode emulator such as qemu-user)");
    else if (err == EACCES || err == EPERM)
        snprintf(buf, cap,
                 "perf_event_paranoid=%d forbids user-space counting for this user "
                 "(need <= 2, or CAP_PERFMON)",
                 fb_read_paranoid());
    else
        snprintf(buf, cap, "perf_event_open failed: %s", strerror(err));
    return buf;
}

void fb_perf_open(fb_perf *p, const char *events_csv) {
    memset(p, 0, sizeof *p);
    p->leader = -1;
    for (int i = 0; i < FB_MAX_EVENTS; i++)
        p->fd[i] = -1;
    if (events_csv && *events_csv) {
        char *copy = strdup(events_csv), *save = NULL;
        for (char *t = strtok_r(copy, ",", &save); t && p->n < FB_MAX_EVENTS;
             t = strtok_r(NULL, ",", &save)) {
            snprintf(p->names[p->n], sizeof p->names[0], "%s", t);
            key_for(t, p->keys[p->n], sizeof p->keys[0]);
            p->n++;
        }
        free(copy);
    } else {
        for (size_t i = 0; i < NDEFAULTS; i++) {
            snprintf(p->names[p->n], sizeof p->names[0], "%s", defaults[i].name);
            snprintf(p->keys[p->n], sizeof p->keys[0], "%s", defaults[i].key);
            p->n++;
        }
    }
    int ret = pfm_initialize();
    if (ret != PFM_SUCCESS) {
        note_add(p, "libpfm4 initialization failed: %s%s", pfm_strerror(ret), "");
        return;
    }
    int simulate = getenv("FLBENCH_SIMULATE_NO_PMU") != NULL; /* test hook */
    int first_err = 0;
    char why[256];
    for (int i = 0; i < p->n; i++) {
        struct perf_event_attr attr;
        if (encode(p->names[i], &attr, why, sizeof why)) {
            note_add(p, "event %s not counted: %s", p->names[i], why);
            continue;
        }
        attr.size = sizeof attr;
        attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
                           PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
        attr.exclude_kernel = 1;
        attr.exclude_hv = 1;
        attr.disabled = p->leader < 0; /* the leader starts the whole group */
        int fd = -1, err = 0;
        if (simulate && attr.type != PERF_TYPE_SOFTWARE) {
            err = ENOENT;
        } else {
            fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, p->leader, 0);
            err = fd < 0 ? errno : 0;
        }
        if (fd < 0) {
            if (!first_err)
                first_err = err;
            if (p->leader >= 0) /* the group works; only this event is refused */
                note_add(p, "event %s not counted: %s", p->names[i],
                         no_counter_reason(err, why, sizeof why));
            continue;
        }
        if (ioctl(fd, PERF_EVENT_IOC_ID, &p->id[i]) != 0) {
            close(fd);
            continue;
        }
        p->fd[i] = fd;
        if (p->leader < 0)
            p->leader = fd;
        p->opened++;
        if (attr.type != PERF_TYPE_SOFTWARE)
            p->pmu_available = 1;
    }
    if (first_err && !p->pmu_available) { /* nothing, or only software events, opened */
        no_counter_reason(first_err, p->hw_reason, sizeof p->hw_reason);
        note_add(p, "hardware counters unavailable: %s%s", p->hw_reason, "");
    }
    if (p->leader < 0)
        return;
    ioctl(p->leader, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
}

void fb_perf_close(fb_perf *p) {
    for (int i = 0; i < p->n; i++)
        if (p->fd[i] >= 0 && p->fd[i] != p->leader)
            close(p->fd[i]);
    if (p->leader >= 0)
        close(p->leader);
    p->leader = -1;
    for (int i = 0; i < p->n; i++)
        p->fd[i] = -1;
}

void fb_perf_read(const fb_perf *p, fb_perf_sample *s) {
    memset(s, 0, sizeof *s);
    if (p->leader < 0)
        return;
    uint64_t buf[3 + 2 * FB_MAX_EVENTS];
    ssize_t got = read(p->leader, buf, sizeof buf);
    if (got < (ssize_t)(3 * sizeof(uint64_t)))
        return;
    uint64_t nr = buf[0];
    s->enabled = buf[1];
    s->running = buf[2];
    for (uint64_t j = 0; j < nr && j < FB_MAX_EVENTS; j++) {
        uint64_t value = buf[3 + 2 * j], id = buf[4 + 2 * j];
        for (int i = 0; i < p->n; i++)
            if (p->fd[i] >= 0 && p->id[i] == id)
                s->value[i] = value;
    }
    s->ok = 1;
}

double fb_perf_delta(const fb_perf *p, const fb_perf_sample *a, const fb_perf_sample *b, int i) {
    if (i < 0 || i >= p->n || p->fd[i] < 0 || !a->ok || !b->ok)
        return NAN;
    uint64_t en = b->enabled - a->enabled, run = b->running - a->running;
    if (run == 0)
        return NAN; /* never scheduled: unknown, not zero */
    double v = (double)(b->value[i] - a->value[i]);
    return run < en ? v * ((double)en / (double)run) : v;
}

double fb_perf_running_pct(const fb_perf_sample *a, const fb_perf_sample *b) {
    if (!a->ok || !b->ok)
        return NAN;
    uint64_t en = b->enabled - a->enabled, run = b->running - a->running;
    return en ? 100.0 * (double)run / (double)en : NAN;
}

int fb_perf_index(const fb_perf *p, const char *key) {
    for (int i = 0; i < p->n; i++)
        if (!strcmp(p->keys[i], key))
            return i;
    return -1;
}
