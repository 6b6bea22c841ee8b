/*
 * What a file holds and which commands read it: the one table that every command's "this
 * is X, not Y (use 'filterlab Z' on it)" line comes from, and the one judgement of a failed
 * load (cli_load_error), so a file of the wrong kind gets the same hint whatever command
 * was given it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

/* One row per public kind, indexed by its FL_FILE_* value (kind_row below checks that every
 * fl_file_kind has one). A new kind: its row here, and its info or query hook in the file of
 * its commands, declared in cli.h. */
#define READ_BY_QUERY "'filterlab query' or 'filterlab info'"
static const cli_kind kinds[] = {
    [FL_FILE_FILTER] = {"a filter", READ_BY_QUERY, NULL, NULL},
    [FL_FILE_SCALABLE_BLOOM] = {"a scalable Bloom filter", READ_BY_QUERY, NULL, NULL},
    [FL_FILE_COUNT_MIN] = {"a Count-Min sketch", "'filterlab freq' or 'filterlab top'", NULL,
                           NULL},
    [FL_FILE_BINARY_FUSE] = {"a binary fuse filter", READ_BY_QUERY, cli_static_info,
                             cli_static_query},
    [FL_FILE_BLOOMIER] = {"a Bloomier filter", READ_BY_QUERY, cli_static_info, cli_static_query},
    [FL_FILE_LAYERED_BLOOM] = {"a layered Bloom filter",
                               "'filterlab layered-count' or 'filterlab info'", cli_info_layered,
                               NULL},
    [FL_FILE_COMPRESSED_BLOOM] = {"a compressed Bloom filter",
                                  "'filterlab compressed-query', 'filterlab decompress' or "
                                  "'filterlab info'", cli_info_compressed, NULL},
};
/* Not a filterlab container, but a file the CLI reads. */
static const cli_kind hll = {"a Redis HyperLogLog string",
                             "'filterlab hll-info' or 'filterlab count --from'", NULL, NULL};

/* The row of a public kind. The switch has no default, so -Wswitch (an error in the -Dwerror
 * build) names any fl_file_kind added without a case here, and the case's row must exist. */
static const cli_kind *kind_row(fl_file_kind kind)
{
    switch (kind) {
    case FL_FILE_FILTER:
    case FL_FILE_SCALABLE_BLOOM:
    case FL_FILE_COUNT_MIN:
    case FL_FILE_BINARY_FUSE:
    case FL_FILE_BLOOMIER:
    case FL_FILE_LAYERED_BLOOM:
    case FL_FILE_COMPRESSED_BLOOM:
        return (size_t)kind < sizeof kinds / sizeof kinds[0] && kinds[kind].what ? &kinds[kind]
                                                                                 : NULL;
    }
    return NULL;
}

const cli_kind *cli_kind_of(uint32_t kind)
{
    return kind == CLI_KIND_HLL ? &hll : kind_row((fl_file_kind)kind);
}

const char *cli_kind_name(uint32_t kind)
{
    const cli_kind *r = cli_kind_of(kind);
    return r ? r->what : "a structure of an unknown kind";
}

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
