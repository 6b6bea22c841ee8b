/*
 * What the CLI knows of each file kind, in one table: its name, the commands that read it
 * (every "this is X, not Y (use 'filterlab Z' on it)" line comes from here, through
 * load.c).
 */
#include <stddef.h>

#include "cli.h"

/* The commands that read each public kind (its name comes from FL_FILE_KINDS,
 * include/filterlab_files.h). kinds[] below expands that list, so a kind added there without
 * its CLI_KIND_<ID> line here does not compile. A kind with an info or a query of its own
 * also has a row in cmd_info.c's or cmd_query.c's table. */
#define READ_BY_QUERY "'filterlab query' or 'filterlab info'"
#define CLI_KIND_FILTER READ_BY_QUERY
#define CLI_KIND_SCALABLE_BLOOM READ_BY_QUERY
#define CLI_KIND_COUNT_MIN "'filterlab freq' or 'filterlab top'"
#define CLI_KIND_BINARY_FUSE READ_BY_QUERY
#define CLI_KIND_BLOOMIER READ_BY_QUERY
#define CLI_KIND_LAYERED_BLOOM "'filterlab layered-count' or 'filterlab info'"
#define CLI_KIND_VECTOR_QUOTIENT "'filterlab vqf-query' or 'filterlab vqf-info'"
#define CLI_KIND_GROWING_CUCKOO "'filterlab gcf-query', 'filterlab gcf-add' or 'filterlab gcf-info'"
#define CLI_KIND_COMPRESSED_BLOOM \
    "'filterlab compressed-query', 'filterlab decompress' or 'filterlab info'"

/* One row per public kind, indexed by its FL_FILE_* value (the values have gaps: 3). */
#define KIND_ROW(id, value, what) [FL_FILE_##id] = {what, CLI_KIND_##id},
static const cli_kind kinds[] = {FL_FILE_KINDS(KIND_ROW)};
#undef KIND_ROW
/* Not a filterlab container, but a file the CLI reads. */
static const cli_kind hll = {"a Redis HyperLogLog string",
                             "'filterlab hll-info' or 'filterlab count --from'"};

/* The row of a public kind; NULL for a value between rows or past the last (a kind a newer
 * build wrote). */
static const cli_kind *kind_row(uint32_t kind)
{
    return kind < sizeof kinds / sizeof kinds[0] && kinds[kind].what ? &kinds[kind] : NULL;
}

const cli_kind *cli_kind_of(uint32_t kind)
{
    return kind == CLI_KIND_HLL ? &hll : kind_row(kind);
}

const char *cli_kind_name(uint32_t kind)
{
    const cli_kind *r = cli_kind_of(kind);
    return r ? r->what : "a structure of an unknown kind";
}
