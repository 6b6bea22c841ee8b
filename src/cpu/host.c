/*
 * fl_host_describe: the one description of this machine that `filterlab host`/`advise`,
 * flbench's result context and scripts/repro/hostinfo.py all read, so the host id, the
 * CPU signature and the microarchitecture name cannot disagree between them.
 *
 * Identity comes from the first processor of /proc/cpuinfo (what the kernel read from CPUID
 * or MIDR_EL1), features from src/cpu_features.c, the name from src/cpu_uarch.c, caches from
 * sysfs. The host id keeps the rule scripts/repro/hostinfo.py has always used, so result
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

static const char *const feature_names[FL_CPU_FEATURE_COUNT] = {
    "AVX2",          "BMI2",          "FMA",           "AVX512F",
    "AVX512DQ",      "AVX512BW",      "AVX512VL",      "AVX512-VNNI",
    "AVX512-VBMI2",  "AVX512-VP2INTERSECT", "AVX512-BF16", "AVX512-FP16",
    "AVX-VNNI",      "AMX-TILE",      "AMX-INT8",      "AMX-BF16",
    "AMX-FP16",      "OS-YMM",        "OS-ZMM",        "HYPERVISOR",
    "ASIMD",         "AVX2-USABLE",   "AVX512-USABLE",
};

const char *fl_cpu_feature_name(uint32_t feature) {
    for (int b = 0; b < FL_CPU_FEATURE_COUNT; b++)
        if (feature == (uint32_t)1 << b) return feature_names[b];
    return NULL;
}

/* ---- SHA-256, FIPS 180-4 section 6.2 (only the host name is hashed: speed is moot) ---- */
static const uint32_t sha_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t rotr(uint32_t x, int n) {
    return (x >> n) | (x << (32 - n));
}

static void sha_block(uint32_t h[8], const uint8_t *p) {
    uint32_t w[64];
    for (int t = 0; t < 16; t++)
        w[t] = (uint32_t)p[4 * t] << 24 | (uint32_t)p[4 * t + 1] << 16 |
               (uint32_t)p[4 * t + 2] << 8 | p[4 * t + 3];
    for (int t = 16; t < 64; t++) {
        uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
        uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
    for (int t = 0; t < 64; t++) {
        uint32_t t1 = k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) +
                      sha_k[t] + w[t];
        uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        k = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += k;
}

void fl_sha256(const void *data, size_t len, uint8_t out[32]) {
    uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                     0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    const uint8_t *p = data;
    size_t left = len;
    for (; left >= 64; left -= 64, p += 64) sha_block(h, p);
    /* Padding (5.1.1): 0x80, zeros, then the bit length as a big-endian 64-bit number. */
    uint8_t tail[128] = {0};
    memcpy(tail, p, left);
    tail[left] = 0x80;
    size_t tlen = left + 9 <= 64 ? 64 : 128;
    uint64_t bits = (uint64_t)len * 8;
    for (int i = 0; i < 8; i++) tail[tlen - 1 - i] = (uint8_t)(bits >> (8 * i));
    for (size_t off = 0; off < tlen; off += 64) sha_block(h, tail + off);
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 4; j++) out[4 * i + j] = (uint8_t)(h[i] >> (24 - 8 * j));
}

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
