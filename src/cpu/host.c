/*
 * fl_host_describe: the one description of this machine that `filterlab host`/`advise`,
 * flbench's result context and scripts/repro/hostinfo.py all read, so the host id, the
 * CPU signature and the microarchitecture name cannot disagree between them.
 *
 * Identity comes from the first processor of /proc/cpuinfo (what the kernel read from CPUID
 * or MIDR_EL1), features from src/cpu/cpu_features.c, the name from src/cpu/cpu_uarch.c, caches
 * from sysfs. The host id keeps the rule scripts/repro/hostinfo.py has always used, so result
 * folders keep their names: <uarch>[-<hypervisor>]-<N>c-<first 4 hex of SHA-256(host name)>.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/internal.h"

/* ---- /proc/cpuinfo ---- */
static void trim_copy(char *dst, size_t cap, const char *s) {
    while (*s == ' ' || *s == '\t') s++;
    size_t n = strcspn(s, "\r\n");
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
    snprintf(dst, cap, "%.*s", (int)n, s);
}

/* A whole-string integer, decimal or 0x-prefixed (Python's int(s, 0)); -1 otherwise. */
static int parse_int(const char *s) {
    if (!s[0]) return -1;
    if (s[0] == '0' && s[1] && s[1] != 'x' && s[1] != 'X') return -1; /* int("08", 0) fails */
    char *end;
    long v = strtol(s, &end, 0);
    return (*end || v < 0 || v > 0x7fffffff) ? -1 : (int)v;
}

static void read_cpuinfo(fl_host *h) {
    char family[32] = "", model[32] = "", stepping[32] = "", model_alt[128] = "";
    struct {
        const char *key;
        char *dst;
        size_t cap;
    } map[] = {
        {"vendor_id", h->vendor, sizeof h->vendor},
        {"model name", h->brand, sizeof h->brand},
        {"Model", model_alt, sizeof model_alt},
        {"cpu family", family, sizeof family},
        {"model", model, sizeof model},
        {"stepping", stepping, sizeof stepping},
        {"microcode", h->microcode, sizeof h->microcode},
        {"flags", h->flags, sizeof h->flags},
        {"Features", h->flags, sizeof h->flags},
        {"CPU implementer", h->arm_implementer, sizeof h->arm_implementer},
        {"CPU architecture", h->arm_architecture, sizeof h->arm_architecture},
        {"CPU part", h->arm_part, sizeof h->arm_part},
        {"CPU revision", h->arm_revision, sizeof h->arm_revision},
    };
    int seen[sizeof map / sizeof map[0]] = {0};
    int have_vendor = 0;
    /* open/read into a stack buffer, not stdio: the kernel choice reads this at its first
     * use, and an allocation failing there must not change what the CPU is said to be. */
    char buf[32768];
    size_t len = 0;
    int fd = open("/proc/cpuinfo", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        for (;;) {
            ssize_t r = read(fd, buf + len, sizeof buf - 1 - len);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) break;
            len += (size_t)r;
            /* The first processor's block ends at the first blank line. */
            if (len == sizeof buf - 1 || memmem(buf, len, "\n\n", 2)) break;
        }
        close(fd);
    }
    buf[len] = '\0';
    int any = 0;
    /* The first processor's block only: the first blank line after a field ends it. */
    for (char *line = buf; *line;) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        char *next = nl ? nl + 1 : line + strlen(line);
        if (line[strspn(line, " \t\r")] == '\0') {
            if (any) break;
            line = next;
            continue;
        }
        if (!nl && len == sizeof buf - 1) break; /* a line cut by the buffer: not trusted */
        any = 1;
        char *colon = strchr(line, ':');
        if (colon) {
            char *e = colon;
            while (e > line && (e[-1] == ' ' || e[-1] == '\t')) e--;
            *e = '\0';
            for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
                if (!seen[i] && strcmp(line, map[i].key) == 0) {
                    seen[i] = 1;
                    if (map[i].dst == h->flags && h->flags[0]) continue; /* flags or Features */
                    trim_copy(map[i].dst, map[i].cap, colon + 1);
                    if (i == 0) have_vendor = 1;
                }
        }
        line = next;
    }
    if (!h->brand[0]) snprintf(h->brand, sizeof h->brand, "%s", model_alt);
    h->family = parse_int(family);
    h->model = parse_int(model);
    h->stepping = parse_int(stepping);
    if (have_vendor)
        snprintf(h->signature, sizeof h->signature, "%s-%s-%s-%s", h->vendor, family, model,
                 stepping);
    else
        snprintf(h->signature, sizeof h->signature, "%s-%s-%s-%s", h->arm_implementer,
                 h->arm_architecture, h->arm_part, h->arm_revision);
}

/* ---- sysfs caches ---- */
/* The first line of a small file; open/read, no allocation (see read_cpuinfo). */
static int read_line(const char *path, char *buf, size_t cap) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t r;
    do r = read(fd, buf, cap - 1);
    while (r < 0 && errno == EINTR);
    close(fd);
    if (r <= 0) return -1;
    buf[r] = '\0';
    buf[strcspn(buf, "\r\n")] = '\0';
    return 0;
}

/* CPUs in a list like "0-3,8-11" (tokenised in place). */
static int cpu_list_count(char *buf) {
    int count = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int a, b;
        if (sscanf(t, "%d-%d", &a, &b) == 2)
            count += b - a + 1;
        else
            count++;
    }
    return count;
}

static void read_caches(fl_host *h) {
    static const char base[] = "/sys/devices/system/cpu/cpu0/cache";
    char path[160], buf[128];
    for (int i = 0; i < FL_HOST_MAX_CACHES; i++) {
        fl_host_cache c;
        memset(&c, 0, sizeof c);
#define FIELD(name) (snprintf(path, sizeof path, "%s/index%d/" name, base, i), \
                     read_line(path, buf, sizeof buf) == 0)
        if (!FIELD("level")) break;
        c.level = atoi(buf);
        if (FIELD("type")) snprintf(c.type, sizeof c.type, "%.15s", buf);
        if (!FIELD("size")) continue; /* a cache without a size says nothing useful */
        char *end;
        c.bytes = strtoull(buf, &end, 10);
        c.bytes <<= *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
        if (FIELD("ways_of_associativity")) c.ways = atoi(buf);
        c.line = FIELD("coherency_line_size") ? atoi(buf) : 64;
        if (FIELD("number_of_sets")) c.sets = strtoull(buf, NULL, 10);
        if (FIELD("shared_cpu_list")) {
            snprintf(c.shared_cpu_list, sizeof c.shared_cpu_list, "%.127s", buf);
            c.sharing = cpu_list_count(buf);
        }
#undef FIELD
        h->caches[h->ncaches++] = c;
    }
    int top = 0;
    for (int i = 0; i < h->ncaches; i++) {
        const fl_host_cache *c = &h->caches[i];
        int data = strcmp(c->type, "Instruction") != 0;
        if (c->level == 1 && strcmp(c->type, "Data") == 0 && !h->l1d_bytes) h->l1d_bytes = c->bytes;
        if (c->level == 2 && data && !h->l2_bytes) h->l2_bytes = c->bytes;
        if (data && c->level >= 2 && c->level > top) top = c->level;
    }
    for (int i = 0; i < h->ncaches; i++) {
        const fl_host_cache *c = &h->caches[i];
        if (c->level == top && strcmp(c->type, "Instruction") != 0 && c->bytes > h->llc_bytes)
            h->llc_bytes = c->bytes;
    }
}

/* ---- naming ---- */
static void name_uarch(fl_host *h) {
    fl_cpu_id id = {h->vendor, h->family, h->model, h->stepping, -1, -1, h->features};
    struct utsname u;
    int have_uname = uname(&u) == 0;
    /* hostinfo.py read the Arm identification only on aarch64; so does this. */
    if (have_uname && strcmp(u.machine, "aarch64") == 0 && !h->vendor[0]) {
        id.arm_implementer = parse_int(h->arm_implementer);
        id.arm_part = parse_int(h->arm_part);
    }
    if (fl_cpu_uarch(&id, h->uarch, sizeof h->uarch, h->uarch_source, sizeof h->uarch_source))
        return;
    char text[160];
    if (h->brand[0])
        snprintf(text, sizeof text, "%s", h->brand);
    else if (id.arm_implementer >= 0 && id.arm_part >= 0)
        snprintf(text, sizeof text, "aarch64 implementer %#x part %#x", id.arm_implementer,
                 id.arm_part);
    else
        snprintf(text, sizeof text, "%s", have_uname ? u.machine : "");
    fl_cpu_slug(text, h->uarch, sizeof h->uarch);
    snprintf(h->uarch_source, sizeof h->uarch_source, "model name");
}

static void read_hypervisor(fl_host *h) {
    if (!(h->features & FL_CPU_HYPERVISOR)) return;
    fl_cpu_hypervisor_vendor(h->hypervisor, sizeof h->hypervisor);
    if (!h->hypervisor[0] && read_line("/sys/hypervisor/type", h->hypervisor,
                                       sizeof h->hypervisor) != 0)
        h->hypervisor[0] = '\0';
    if (!h->hypervisor[0]) snprintf(h->hypervisor, sizeof h->hypervisor, "vm");
}

static void make_host_id(fl_host *h) {
    char name[256] = "";
    struct utsname u;
    if (uname(&u) == 0) snprintf(name, sizeof name, "%s", u.nodename);
    uint8_t d[32];
    fl_sha256(name, strlen(name), d);
    snprintf(h->hostname_sha256_4, sizeof h->hostname_sha256_4, "%02x%02x", d[0], d[1]);
    const char *env = getenv("FL_HOST_ID");
    if (env && *env) {
        /* Runs of characters outside [A-Za-z0-9._-] become one '-'. */
        size_t o = 0;
        int run = 0;
        for (const char *p = env; *p && o < sizeof h->host_id - 1; p++) {
            char c = *p;
            int ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                     c == '.' || c == '_' || c == '-';
            if (ok) {
                h->host_id[o++] = c;
                run = 0;
            } else if (!run) {
                h->host_id[o++] = '-';
                run = 1;
            }
        }
        h->host_id[o] = '\0';
        return;
    }
    snprintf(h->host_id, sizeof h->host_id, "%s%s%s-%dc-%s", h->uarch, h->hypervisor[0] ? "-" : "",
             h->hypervisor, h->cpus_usable, h->hostname_sha256_4);
}

fl_status fl_host_describe(fl_host *out) {
    if (!out) return FL_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    out->features = fl_cpu_features();
    read_cpuinfo(out);
    read_caches(out);
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    out->cpus_online = online > 0 ? (int)online : 1;
    cpu_set_t set;
    out->cpus_usable = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set)
                                                                 : out->cpus_online;
    read_hypervisor(out);
    name_uarch(out);
    make_host_id(out);
    return FL_OK;
}
