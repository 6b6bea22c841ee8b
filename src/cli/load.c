/*
 * What a file holds, and the one judgement of a failed load (cli_load_error), so that a file
 * of the wrong kind gets the same hint, named with the commands that read it (kinds.c's
 * table), whatever command was given it. And loading a filter or a scalable Bloom chain,
 * whichever the file holds: the loads of query, info, delete, export-parquet and compress.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

/* Redis's HLL strings begin with "HYLL" (include/filterlab_hll.h); they are not containers. */
static int is_hll(const void *buf, size_t len)
{
    return len >= 4 && memcmp(buf, "HYLL", 4) == 0;
}

uint32_t cli_mem_kind(const void *buf, size_t len)
{
    uint32_t kind = 0;
    if (fl_file_kind_mem(buf, len, &kind) == FL_OK)
        return kind;
    return is_hll(buf, len) ? CLI_KIND_HLL : 0;
}

uint32_t cli_file_kind(const char *path)
{
    /* A pipe or a terminal can be read once only: its kind is for its loader to find. */
    struct stat sb;
    uint32_t kind = 0;
    int e = errno;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        errno = e;
        return 0;
    }
    if (fl_file_kind_file(path, &kind) == FL_OK) {
        errno = e;
        return kind;
    }
    unsigned char head[4];
    FILE *fp = fopen(path, "rb");
    size_t got = fp ? fread(head, 1, sizeof head, fp) : 0;
    if (fp)
        fclose(fp);
    errno = e;
    return is_hll(head, got) ? CLI_KIND_HLL : 0;
}

int cli_wrong_kind(const char *path, uint32_t kind, const char *want)
{
    char q[CLI_QUOTE_BUF];
    cli_quote(path, q, sizeof q);
    const cli_kind *r = cli_kind_of(kind);
    if (!r)
        return cli_fail(EXIT_DATA, "%s holds a kind of structure this build does not know "
                        "(kind %u), not %s", q, (unsigned)kind, want);
    return cli_fail(EXIT_DATA, "%s is %s, not %s (use %s on it)", q, r->what, want,
                    r->commands);
}

int cli_load_error(const char *path, fl_status s, int err, const char *want,
                   size_t max_bytes)
{
    char q[CLI_QUOTE_BUF];
    cli_quote(path, q, sizeof q);
    if (s == FL_ERR_WRONG_KIND || s == FL_ERR_BAD_MAGIC) {
        /* The file is there: say what it is, and which command reads it. */
        uint32_t kind = cli_file_kind(path);
        if (kind)
            return cli_wrong_kind(path, kind, want);
    }
    if (s == FL_ERR_IO && err)
        return cli_fail(EXIT_DATA, "cannot load %s: %s", q, strerror(err));
    if (s == FL_ERR_TOO_LARGE && max_bytes)
        return cli_fail(EXIT_DATA, "cannot load %s: %s (limit: --max-bytes %zu)", q,
                        fl_strerror(s), max_bytes);
    return cli_fail(EXIT_DATA, "cannot load %s: %s", q, fl_strerror(s));
}

int cli_load_kind_error(const char *path, fl_status s, int err, uint32_t kind,
                        size_t max_bytes)
{
    return cli_load_error(path, s, err, cli_kind_name(kind), max_bytes);
}

/* Loads into whichever of f (a filter) and sbf (a scalable chain) is given, which stays NULL
 * on failure: the two kinds report their failures alike. */
static int load_filter_or_sbf(const char *path, size_t max_bytes, fl_filter **f, fl_sbf **sbf)
{
    /* The loaders leave errno set for FL_ERR_IO; read it before anything else can. */
    errno = 0;
    fl_status s = f ? fl_load_file(path, max_bytes, f) : fl_sbf_load_file(path, max_bytes, sbf);
    int e = errno;
    if (s != FL_OK) {
        if (f)
            *f = NULL;
        else
            *sbf = NULL;
    }
    return s == FL_OK ? EXIT_OK
                      : cli_load_kind_error(path, s, e,
                                            f ? FL_FILE_FILTER : FL_FILE_SCALABLE_BLOOM,
                                            max_bytes);
}

int cli_load_filter(const char *path, size_t max_bytes, fl_filter **out)
{
    return load_filter_or_sbf(path, max_bytes, out, NULL);
}

int cli_load_sbf(const char *path, size_t max_bytes, fl_sbf **out)
{
    return load_filter_or_sbf(path, max_bytes, NULL, out);
}

/* The kind a filterlab file or buffer holds, judged like a load (one line on failure). */
#define FILTER_OR_SBF "a filter or a scalable Bloom filter"
static int kind_status(const char *path, fl_status s, int e, uint32_t kind)
{
    if (s != FL_OK)
        return cli_load_error(path, s, e, FILTER_OR_SBF, 0);
    if (kind != FL_FILE_FILTER && kind != FL_FILE_SCALABLE_BLOOM)
        return cli_wrong_kind(path, kind, FILTER_OR_SBF);
    return EXIT_OK;
}

/* A regular file is asked its kind (the preamble and table only), then loaded by the
 * streaming loader of that kind. Anything else (a pipe, a FIFO, /dev/stdin) can be read
 * only once: it is read into memory, up to --max-bytes plus room for the headers, and both
 * steps work on the copy. */
int cli_load_any(const char *path, size_t max_bytes, fl_filter **f, fl_sbf **sbf)
{
    *f = NULL;
    *sbf = NULL;
    struct stat sb;
    uint32_t kind = 0;
    int rc;
    if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode)) {
        errno = 0;
        fl_status s = fl_file_kind_file(path, &kind);
        if ((rc = kind_status(path, s, errno, kind)) != EXIT_OK)
            return rc;
        return kind == FL_FILE_SCALABLE_BLOOM ? cli_load_sbf(path, max_bytes, sbf)
                                              : cli_load_filter(path, max_bytes, f);
    }
    unsigned char *buf = NULL;
    size_t len = 0;
    size_t headers = (size_t)1 << 16; /* a container's table and headers are far smaller */
    size_t cap = max_bytes && max_bytes < SIZE_MAX - headers ? max_bytes + headers : 0;
    if ((rc = cli_read_file(path, cap, &buf, &len)) != EXIT_OK)
        return rc;
    fl_status s = fl_file_kind_mem(buf, len, &kind);
    /* Not a container at all: perhaps a Redis HLL string, which has a command of its own. */
    if (s != FL_OK && cli_mem_kind(buf, len) == CLI_KIND_HLL)
        rc = cli_wrong_kind(path, CLI_KIND_HLL, FILTER_OR_SBF);
    else
        rc = kind_status(path, s, 0, kind);
    if (rc == EXIT_OK) {
        s = kind == FL_FILE_SCALABLE_BLOOM ? fl_sbf_load_mem(buf, len, max_bytes, sbf)
                                           : fl_load_mem(buf, len, max_bytes, f);
        rc = s == FL_OK ? EXIT_OK
                        : cli_load_error(path, s, 0, FILTER_OR_SBF, max_bytes);
    }
    free(buf);
    return rc;
}
