/*
 * The wisdom file: what `filterlab tune` measured on this CPU, read at the first kernel use
 * (FFTW's wisdom, www.fftw.org/fftw3_doc/Words-of-Wisdom_002dSaving-Plans.html: measured
 * plans saved per machine and reused). Text, one fact per line, so a person can read it:
 *
 *   filterlab-wisdom 1
 *   library 0.1.0
 *   cpu GenuineIntel 6 207 2 0x1 0x7fffff
 *   date 2026-11-26
 *   limits 49152 2097152 314572800
 *   bloom.contains.classic L1 avx512 scalar=18.36 avx2=7.45 avx512=5.60
 *   ...
 *   sha256 <SHA-256 of every byte before this line, 64 hex digits>
 *
 * The cpu line is the key: vendor, family, model, stepping, microcode ("-" if unreadable)
 * and the FL_CPU_* feature bits. A file from another CPU, microcode or library version is
 * ignored (the kernels it timed may not be the ones here), and so is anything truncated,
 * edited or corrupted (the checksum), with one sentence saying why: a bad file costs the
 * measured choice, never a crash or a kernel this CPU does not run.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpu/kernel_choice.h"

void fl_wisdom_key_here(fl_wisdom_key *k) {
    fl_host h;
    memset(k, 0, sizeof *k);
    fl_host_describe(&h);
    snprintf(k->vendor, sizeof k->vendor, "%s", h.vendor[0] ? h.vendor : "-");
    for (char *p = k->vendor; *p; p++)
        if (*p == ' ' || *p < 0x21 || *p > 0x7e) *p = '_';
    k->family = h.family;
    k->model = h.model;
    k->stepping = h.stepping;
    snprintf(k->microcode, sizeof k->microcode, "%s", h.microcode[0] ? h.microcode : "-");
    for (char *p = k->microcode; *p; p++)
        if (*p == ' ' || *p < 0x21 || *p > 0x7e) *p = '_';
    k->features = h.features;
    snprintf(k->library, sizeof k->library, "%d.%d.%d", FL_VERSION_MAJOR, FL_VERSION_MINOR,
             FL_VERSION_PATCH);
}

void fl_wisdom_free(fl_wisdom *w) {
    if (!w) return;
    free(w->cells);
    w->cells = NULL;
}

static const char *const class_names[FL_NSIZE_CLASSES] = {"L1", "L2", "LLC", "DRAM"};

/* ---- writing ---- */
typedef struct sbuf {
    char *p;
    size_t len, cap;
    int oom;
} sbuf;

static void put(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(sbuf *b, const char *fmt, ...) {
    if (b->oom) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->oom = 1;
            return;
        }
        if ((size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = b->cap * 2 + (size_t)n;
        char *q = realloc(b->p, cap);
        if (!q) {
            b->oom = 1;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
}

static void hex32(const uint8_t d[32], char out[65]) {
    for (int i = 0; i < 32; i++) snprintf(out + 2 * i, 3, "%02x", d[i]);
}

char *fl_wisdom_format(const fl_wisdom *w, size_t *len) {
    sbuf b = {malloc(4096), 0, 4096, 0};
    if (!b.p) return NULL;
    b.p[0] = '\0';
    put(&b, "filterlab-wisdom %d\nlibrary %s\ncpu %s %d %d %d %s 0x%x\ndate %s\n",
        FL_WISDOM_VERSION, w->key.library, w->key.vendor, w->key.family, w->key.model,
        w->key.stepping, w->key.microcode, (unsigned)w->key.features, w->date);
    put(&b, "limits %llu %llu %llu\n", (unsigned long long)w->limits[0],
        (unsigned long long)w->limits[1], (unsigned long long)w->limits[2]);
    for (size_t e = 0; e < fl_nentries; e++)
        for (int c = 0; c < FL_NSIZE_CLASSES; c++) {
            const fl_wisdom_cell *x = &w->cells[e * FL_NSIZE_CLASSES + c];
            if (!x->have) continue;
            put(&b, "%s %s %s", fl_entries[e].name, class_names[c], fl_cand_names[x->cand]);
            for (int k = 0; k < FL_NCAND; k++)
                if (x->ns[k] > 0) put(&b, " %s=%.3f", fl_cand_names[k], x->ns[k]);
            put(&b, "\n");
        }
    if (!b.oom) {
        uint8_t d[32];
        char hex[65];
        fl_sha256(b.p, b.len, d);
        hex32(d, hex);
        put(&b, "sha256 %s\n", hex);
    }
    if (b.oom) {
        free(b.p);
        return NULL;
    }
    *len = b.len;
    return b.p;
}

/* ---- reading ---- */
/* A token of the file for a message: printable ASCII, at most 40 bytes. */
static void quoted(const char *s, size_t n, char *out, size_t cap) {
    size_t o = 0;
    out[o++] = '\'';
    for (size_t i = 0; i < n && i < 40 && o + 6 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7f && c != '\'')
            out[o++] = (char)c;
        else
            o += (size_t)snprintf(out + o, cap - o, "\\x%02x", c);
    }
    if (n > 40 && o + 4 < cap) memcpy(out + o, "...", 3), o += 3;
    out[o++] = '\'';
    out[o] = '\0';
}

/* Splits line into at most `max` space-separated tokens; returns their number, or max + 1
 * if there are more. */
static int split(char *line, char **tok, int max) {
    int n = 0;
    for (char *p = line; *p;) {
        while (*p == ' ') p++;
        if (!*p) break;
        if (n == max) return max + 1;
        tok[n++] = p;
        while (*p && *p != ' ') p++;
        if (*p) *p++ = '\0';
    }
    return n;
}

/* A whole-token decimal integer in [lo, hi]. */
static int parse_long(const char *s, long lo, long hi, long *out) {
    char *end;
    if (!*s || (*s != '-' && (*s < '0' || *s > '9'))) return 0;
    long v = strtol(s, &end, 10);
    if (*end || v < lo || v > hi) return 0;
    *out = v;
    return 1;
}

#define FAIL(...)                                 \
    do {                                          \
        snprintf(why, cap, __VA_ARGS__);          \
        goto fail;                                \
    } while (0)

int fl_wisdom_parse(const char *buf, size_t len, const fl_wisdom_key *here, unsigned avail,
                    fl_wisdom *out, char *why, size_t cap) {
    char *text = NULL;
    memset(out, 0, sizeof *out);
    static const char magic[] = "filterlab-wisdom ";
    if (len == 0) {
        snprintf(why, cap, "empty file");
        return 0;
    }
    if (len < sizeof magic - 1 || memcmp(buf, magic, sizeof magic - 1) != 0) {
        snprintf(why, cap, "not a filterlab wisdom file");
        return 0;
    }
    if (memchr(buf, '\0', len)) {
        snprintf(why, cap, "contains NUL bytes: not a wisdom file");
        return 0;
    }
    text = malloc(len + 1);
    out->cells = calloc(fl_nentries * FL_NSIZE_CLASSES, sizeof *out->cells);
    if (!text || !out->cells) FAIL("out of memory");
    memcpy(text, buf, len);
    text[len] = '\0';

    /* The version first, so a newer file says so rather than failing its checksum. */
    {
        size_t n = strcspn(text, "\n");
        long v;
        char vtok[64], q[200];
        snprintf(vtok, sizeof vtok, "%.*s", (int)(n - (sizeof magic - 1) < 63 ? n - (sizeof magic - 1) : 63),
                 text + sizeof magic - 1);
        if (!parse_long(vtok, 0, 1000000, &v)) {
            quoted(text, n, q, sizeof q);
            FAIL("bad first line %s", q);
        }
        if (v != FL_WISDOM_VERSION)
            FAIL("version %ld; this filterlab reads version %d (run filterlab tune again)", v,
                 FL_WISDOM_VERSION);
    }
    /* The checksum line closes the file: anything shorter is truncated. */
    if (text[len - 1] != '\n') FAIL("truncated: it does not end with a newline");
    {
        char *last = len >= 2 ? text + len - 2 : text;
        while (last > text && last[-1] != '\n') last--;
        const char *hex = last + 7;
        if (strncmp(last, "sha256 ", 7) != 0 || strlen(hex) != 65)
            FAIL("truncated: no sha256 line at the end");
        uint8_t d[32];
        char want[65];
        fl_sha256(text, (size_t)(last - text), d);
        hex32(d, want);
        if (memcmp(hex, want, 64) != 0)
            FAIL("checksum mismatch: the file was corrupted or edited");
        *last = '\0'; /* the body ends here */
    }

    int lineno = 0, seen_lib = 0, seen_cpu = 0, seen_date = 0, seen_limits = 0;
    for (char *line = strchr(text, '\n') + 1; *line;) {
        char *nl = strchr(line, '\n');
        *nl = '\0';
        char *next = nl + 1;
        lineno++;
        char *t[2 + 2 + FL_NCAND];
        char raw[200];
        quoted(line, strlen(line), raw, sizeof raw);
        int nt = split(line, t, (int)(sizeof t / sizeof t[0]));
        if (nt == 0 || t[0][0] == '#') {
            line = next;
            continue;
        }
        if (!strcmp(t[0], "library")) {
            if (nt != 2) FAIL("line %d: bad library line %s", lineno + 1, raw);
            if (strcmp(t[1], here->library) != 0) {
                char q[200];
                quoted(t[1], strlen(t[1]), q, sizeof q);
                FAIL("written by filterlab %s; this is %s (its kernels may differ)", q,
                     here->library);
            }
            seen_lib = 1;
        } else if (!strcmp(t[0], "cpu")) {
            if (nt != 7) FAIL("line %d: bad cpu line %s", lineno + 1, raw);
            char mine[160];
            snprintf(mine, sizeof mine, "%s %d %d %d %s 0x%x", here->vendor, here->family,
                     here->model, here->stepping, here->microcode, (unsigned)here->features);
            char theirs[512];
            snprintf(theirs, sizeof theirs, "%s %s %s %s %s %s", t[1], t[2], t[3], t[4], t[5],
                     t[6]);
            if (strcmp(mine, theirs) != 0) {
                char q[200];
                quoted(theirs, strlen(theirs), q, sizeof q);
                FAIL("written on another CPU (vendor family model stepping microcode features "
                     "%s; this one is '%s')",
                     q, mine);
            }
            out->key = *here;
            seen_cpu = 1;
        } else if (!strcmp(t[0], "date")) {
            int y, m, d;
            char extra;
            if (nt != 2 || strlen(t[1]) != 10 ||
                sscanf(t[1], "%4d-%2d-%2d%c", &y, &m, &d, &extra) != 3 || m < 1 || m > 12 ||
                d < 1 || d > 31)
                FAIL("line %d: bad date line %s", lineno + 1, raw);
            memcpy(out->date, t[1], 11);
            seen_date = 1;
        } else if (!strcmp(t[0], "limits")) {
            if (nt != 4) FAIL("line %d: bad limits line %s", lineno + 1, raw);
            for (int i = 0; i < 3; i++) {
                char *end;
                if (t[i + 1][0] < '0' || t[i + 1][0] > '9')
                    FAIL("line %d: bad limits line %s", lineno + 1, raw);
                out->limits[i] = strtoull(t[i + 1], &end, 10);
                if (*end) FAIL("line %d: bad limits line %s", lineno + 1, raw);
            }
            seen_limits = 1;
        } else {
            /* An entry: name class winner kernel=ns... */
            if (!seen_lib || !seen_cpu || !seen_date || !seen_limits)
                FAIL("line %d: an entry before the library, cpu, date and limits lines",
                     lineno + 1);
            if (nt < 4 || nt > 3 + FL_NCAND) FAIL("line %d: bad entry line %s", lineno + 1, raw);
            int e = fl_entry_find(t[0]);
            if (e < 0) FAIL("line %d: unknown entry %s", lineno + 1, raw);
            int cls = -1;
            for (int c = 0; c < FL_NSIZE_CLASSES; c++)
                if (!strcmp(t[1], class_names[c])) cls = c;
            if (cls < 0 || (!fl_entries[e].sized && cls != 0))
                FAIL("line %d: bad size class in %s", lineno + 1, raw);
            fl_wisdom_cell *x = &out->cells[(size_t)e * FL_NSIZE_CLASSES + (size_t)cls];
            if (x->have) FAIL("line %d: %s measured twice", lineno + 1, fl_entries[e].name);
            int win = fl_cand_find(t[2]);
            if (win < 0 || !(avail & (1u << win)))
                FAIL("line %d: kernel %s does not run on this CPU in this build", lineno + 1,
                     raw);
            for (int i = 3; i < nt; i++) {
                char *eq = strchr(t[i], '=');
                if (!eq) FAIL("line %d: bad timing in %s", lineno + 1, raw);
                *eq = '\0';
                int k = fl_cand_find(t[i]);
                char *end;
                double ns = strtod(eq + 1, &end);
                if (k < 0 || !(avail & (1u << k)) || *end || eq[1] == '\0' || !isfinite(ns) ||
                    ns <= 0 || ns > 1e9 || x->ns[k] > 0)
                    FAIL("line %d: bad timing in %s", lineno + 1, raw);
                x->ns[k] = ns;
            }
            if (!(x->ns[win] > 0)) FAIL("line %d: the winner has no timing in %s", lineno + 1, raw);
            for (int k = 0; k < FL_NCAND; k++)
                if (x->ns[k] > 0 && x->ns[k] < x->ns[win])
                    FAIL("line %d: the winner is not the fastest in %s", lineno + 1, raw);
            x->have = 1;
            x->cand = win;
        }
        line = next;
    }
    if (!seen_lib || !seen_cpu || !seen_date || !seen_limits)
        FAIL("the library, cpu, date or limits line is missing");
    free(text);
    return 1;
fail:
    free(text);
    fl_wisdom_free(out);
    return 0;
}

/* ---- The file on disk: where it is, and reading it ------------------------------------ */
static void default_path(char *path, size_t pcap, char *status, size_t scap) {
    const char *env = getenv("FILTERLAB_WISDOM");
    path[0] = '\0';
    if (env && strcmp(env, "off") == 0) {
        snprintf(status, scap, "off: FILTERLAB_WISDOM=off");
        return;
    }
    if (env && *env) {
        snprintf(path, pcap, "%s", env);
        return;
    }
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (xdg && xdg[0] == '/') /* the XDG spec ignores relative paths */
        snprintf(path, pcap, "%s/filterlab/wisdom", xdg);
    else if (home && *home)
        snprintf(path, pcap, "%s/.cache/filterlab/wisdom", home);
    else
        snprintf(status, scap,
                 "off: neither FILTERLAB_WISDOM, XDG_CACHE_HOME nor HOME is set");
}

#define WISDOM_MAX_BYTES (1u << 20)

/* Reads and checks the file at path: the wisdom, or NULL; status says which. */
static fl_wisdom *load(const char *path, unsigned avail, const uint64_t lim[FL_NSIZE_CLASSES - 1],
                       char *status, size_t scap) {
    if (!path[0]) return NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            snprintf(status, scap,
                     "none: no file at %s (filterlab tune writes one)", path);
        else
            snprintf(status, scap, "ignored: %s: %s", path,
                     strerror(errno));
        return NULL;
    }
    struct stat st;
    char *buf = NULL;
    const char *why = NULL;
    size_t len = 0;
    fl_wisdom *loaded = NULL;
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
        } else if (fl_wisdom_parse(buf, len, &key, avail, w, reason, sizeof reason)) {
            if (memcmp(lim, w->limits, (FL_NSIZE_CLASSES - 1) * sizeof lim[0]) != 0) {
                /* Same CPU, other caches (a VM resized): the classes measured are not
                 * this machine's. */
                snprintf(status, scap,
                         "ignored: %s: measured with cache sizes %llu/%llu/%llu bytes, these "
                         "are %llu/%llu/%llu (run filterlab tune again)",
                         path, (unsigned long long)w->limits[0],
                         (unsigned long long)w->limits[1], (unsigned long long)w->limits[2],
                         (unsigned long long)lim[0], (unsigned long long)lim[1],
                         (unsigned long long)lim[2]);
                fl_wisdom_free(w);
                free(w);
                free(buf);
                return NULL;
            }
            loaded = w;
            snprintf(status, scap, "used: %s, measured on %s",
                     path, w->date);
        } else {
            free(w);
            snprintf(status, scap, "ignored: %s: %s", path,
                     reason);
        }
    }
    if (why) snprintf(status, scap, "ignored: %s: %s", path, why);
    free(buf);
    return loaded;
}

fl_wisdom *fl_wisdom_find(unsigned avail, const uint64_t limits[FL_NSIZE_CLASSES - 1], char *path,
                          size_t pcap, char *status, size_t scap) {
    default_path(path, pcap, status, scap);
    return load(path, avail, limits, status, scap);
}
