/*
 * filterlab advise: reading benchmark results. An advise.csv (written by scripts/reproduce,
 * see scripts/repro/advise_data.py) is '#' lines "key=value" (host_id, cpu_signature,
 * l1d_bytes, l2_bytes, llc_bytes, memory_like_from_bytes, date, commit, kernel_selected,
 * mode), then a header row and one row per measured configuration.
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise.h"

#define MAX_HOSTS 64

static void meta_value(advise_host *h, const char *key, const char *val)
{
    struct {
        const char *k;
        char *dst;
        size_t cap;
    } s[] = {{"host_id", h->host_id, sizeof h->host_id},
             {"cpu_signature", h->signature, sizeof h->signature},
             {"date", h->date, sizeof h->date},
             {"commit", h->commit, sizeof h->commit},
             {"kernel_selected", h->kernel_selected, sizeof h->kernel_selected},
             {"mode", h->mode, sizeof h->mode}};
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
        if (strcmp(key, s[i].k) == 0)
            snprintf(s[i].dst, s[i].cap, "%s", val);
    if (strcmp(key, "l1d_bytes") == 0)
        h->l1d = atof(val);
    else if (strcmp(key, "l2_bytes") == 0)
        h->l2 = atof(val);
    else if (strcmp(key, "llc_bytes") == 0)
        h->llc = atof(val);
    else if (strcmp(key, "memory_like_from_bytes") == 0)
        h->memory_like = atof(val);
}

/* Reads the '#' header of an advise.csv; 0 if it is one. */
static int read_meta(const char *path, advise_host *h)
{
    memset(h, 0, sizeof *h);
    snprintf(h->path, sizeof h->path, "%s", path);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[1024];
    int any = 0;
    while (fgets(line, sizeof line, f) && line[0] == '#') {
        line[strcspn(line, "\r\n")] = '\0';
        char *eq = strchr(line, '=');
        if (!eq)
            continue;
        *eq = '\0';
        char *key = line + 1;
        while (*key == ' ')
            key++;
        meta_value(h, key, eq + 1);
        any = 1;
    }
    fclose(f);
    return any ? 0 : -1;
}

/* Splits a CSV line (no quoting: advise.csv never needs it) into at most max fields. */
static int split(char *s, char **f, int max)
{
    int n = 0;
    f[n++] = s;
    for (char *p = s; *p && n < max; p++)
        if (*p == ',') {
            *p = '\0';
            f[n++] = p + 1;
        }
    return n;
}

static int col(char **names, int n, const char *want)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], want) == 0)
            return i;
    return -1;
}

long advise_read_rows(const char *path, advise_row *rows, long cap)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        cli_fail(EXIT_DATA, "advise: %s: cannot open", path);
        return -1;
    }
    char line[2048], head[2048] = "";
    char *names[32];
    int nn = 0, iv = -1, ik = -1, ie = -1, it = -1, ib = -1, ih = -1, is = -1;
    long n = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;
        if (!head[0]) {
            snprintf(head, sizeof head, "%s", line);
            nn = split(head, names, 32);
            iv = col(names, nn, "variant");
            ik = col(names, nn, "kernel");
            ie = col(names, nn, "emulated");
            it = col(names, nn, "target_fpr");
            ib = col(names, nn, "filter_bytes");
            ih = col(names, nn, "hit_rate");
            is = col(names, nn, "ns_per_lookup");
            if (iv < 0 || ik < 0 || it < 0 || ib < 0 || ih < 0 || is < 0) {
                fclose(f);
                cli_fail(EXIT_DATA, "advise: %s: not an advise.csv (missing columns)", path);
                return -1;
            }
            continue;
        }
        char *fld[32];
        int nf = split(line, fld, 32);
        if (nf < nn || n >= cap)
            continue;
        advise_row *r = &rows[n];
        snprintf(r->variant, sizeof r->variant, "%s", fld[iv]);
        snprintf(r->kernel, sizeof r->kernel, "%s", fld[ik]);
        r->emulated = ie >= 0 ? atoi(fld[ie]) : 0;
        r->target_fpr = atof(fld[it]);
        r->bytes = atof(fld[ib]);
        r->hit_rate = atof(fld[ih]);
        r->ns = fld[is][0] ? atof(fld[is]) : NAN;
        if (r->bytes > 0 && r->target_fpr > 0 && isfinite(r->ns))
            n++;
    }
    fclose(f);
    return n;
}

int advise_find_results(const char *dir, const char *sig, advise_host *out, int *foreign)
{
    char path[4096];
    *foreign = 0;
    snprintf(path, sizeof path, "%s/advise.csv", dir);
    if (read_meta(path, out) == 0) {
        *foreign = strcmp(out->signature, sig) != 0;
        return 0;
    }
    static advise_host hosts[MAX_HOSTS];
    int nh = 0;
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL && nh < MAX_HOSTS) {
            if (e->d_name[0] == '.')
                continue;
            snprintf(path, sizeof path, "%s/%s/advise.csv", dir, e->d_name);
            if (read_meta(path, &hosts[nh]) == 0)
                nh++;
        }
        closedir(d);
    }
    int best = -1;
    for (int i = 0; i < nh; i++)
        if (strcmp(hosts[i].signature, sig) == 0 &&
            (best < 0 || strcmp(hosts[i].date, hosts[best].date) > 0))
            best = i;
    if (best < 0 && nh == 1) {
        best = 0;
        *foreign = 1;
    }
    if (best < 0 && nh > 1) {
        cli_outf("No results in '%s' are from this CPU (%s). Results there:\n", dir, sig);
        for (int i = 0; i < nh; i++)
            cli_outf("  %s  (%s)\n", hosts[i].path, hosts[i].signature);
        cli_outf("Pick one with --results DIR/<host-id>, or measure this machine:\n"
                 "  scripts/reproduce --quick\n");
        cli_fail(EXIT_DATA, "advise: no results for this CPU under '%s'", dir);
        return 2;
    }
    if (best < 0)
        return 1;
    *out = hosts[best];
    return 0;
}
