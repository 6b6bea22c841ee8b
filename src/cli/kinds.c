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

typedef struct kind_row {
    uint32_t kind;        /* fl_file_kind, or CLI_KIND_HLL */
    const char *what;     /* "a layered Bloom filter" */
    const char *commands; /* the commands that read it */
} kind_row;

static const kind_row kinds[] = {
    {FL_FILE_FILTER, "a filter", "'filterlab query' or 'filterlab info'"},
    {FL_FILE_SCALABLE_BLOOM, "a scalable Bloom filter", "'filterlab query' or 'filterlab info'"},
    {FL_FILE_COUNT_MIN, "a Count-Min sketch", "'filterlab freq' or 'filterlab top'"},
    {FL_FILE_BINARY_FUSE, "a binary fuse filter", "'filterlab query' or 'filterlab info'"},
    {FL_FILE_BLOOMIER, "a Bloomier filter", "'filterlab query' or 'filterlab info'"},
    {FL_FILE_LAYERED_BLOOM, "a layered Bloom filter",
     "'filterlab layered-count' or 'filterlab info'"},
    {FL_FILE_COMPRESSED_BLOOM, "a compressed Bloom filter",
     "'filterlab compressed-query', 'filterlab decompress' or 'filterlab info'"},
    {CLI_KIND_HLL, "a Redis HyperLogLog string", "'filterlab hll-info' or 'filterlab count --from'"},
};
#define NKINDS (sizeof kinds / sizeof kinds[0])

static const kind_row *row_of(uint32_t kind)
{
    for (size_t i = 0; i < NKINDS; i++)
        if (kinds[i].kind == kind)
            return &kinds[i];
    return NULL;
}

const char *cli_kind_name(uint32_t kind)
{
    const kind_row *r = row_of(kind);
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
    const kind_row *r = row_of(kind);
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
