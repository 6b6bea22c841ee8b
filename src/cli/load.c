/*
 * Loading a filter or a scalable Bloom chain, whichever the file holds: the loads of
 * query, info, delete, export-parquet and compress. A file of another kind is named with
 * the commands that read it (kinds.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "cli.h"

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
                      : cli_load_error(path, s, e,
                                       cli_kind_name(f ? FL_FILE_FILTER : FL_FILE_SCALABLE_BLOOM),
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
