/*
 * What the CLI knows of each file kind, in one table: its name, the commands that read it
 * (every "this is X, not Y (use 'filterlab Z' on it)" line comes from here, through
 * load.c), and the info and query hooks of the kinds that have their own.
 */
#include <stddef.h>

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
