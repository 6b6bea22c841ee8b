/*
 * filterlab import-parquet / export-parquet: Apache Parquet split block Bloom filter
 * bitsets (parquet-format BloomFilter.md) to and from filterlab files.
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static void import_help(void)
{
    cli_outf(
        "Usage: filterlab import-parquet BITSET -o FILTER [--max-bytes SIZE]\n"
        "\n"
        "Convert a Parquet split block Bloom filter (a bare bitset, a multiple of 32\n"
        "bytes, or one preceded by its Thrift BloomFilterHeader) into a split256 filter\n"
        "using XXH64 with seed 0, as Parquet does. Its key count is unknown (recorded as\n"
        "0).\n"
        "\n"
        "Options:\n");
    cli_help_options();
    cli_outf(
        "\n"
        "BITSET '-' reads standard input.\n");
}

static void export_help(void)
{
    cli_outf(
        "Usage: filterlab export-parquet FILTER -o BITSET [--no-header]\n"
        "\n"
        "Write a split256 filter that uses XXH64 seed 0 as a Parquet split block Bloom\n"
        "filter: the Thrift compact BloomFilterHeader followed by the bitset.\n"
        "\n"
        "Options:\n");
    cli_help_options();
    cli_outf(
        "\n"
        "The filter is loaded under the global --max-bytes limit.\n");
}

/* Common tail of both commands: exactly one positional argument and an -o that is not a
 * terminal (both outputs are binary). */
static int check_args(const char *cmd, int argc, char **argv, const char *output,
                      const char *what)
{
    int rc = cli_one_operand(cmd, argc, argv, what);
    if (rc != EXIT_OK)
        return rc;
    if (!output)
        return cli_usage_error(cmd, "-o is required");
    if (strcmp(output, "-") == 0 && isatty(STDOUT_FILENO))
        return cli_usage_error(cmd, "refusing to write binary output to a terminal");
    return EXIT_OK;
}

int cmd_import_parquet(int argc, char **argv, const cli_globals *g)
{
    static const char *const CMD = "import-parquet";
    const char *output = NULL;
    size_t max_bytes = g->max_bytes_set ? g->max_bytes : (size_t)1 << 30;
    const cli_opt opts[] = {
        {"output", 'o', CLI_ARG_STRING, &output, NULL, NULL,
         "-o, --output FILTER", "write the filter here (required)"},
        {"max-bytes", 0, CLI_ARG_SIZE, &max_bytes, NULL, NULL, "--max-bytes SIZE",
         "refuse inputs larger than this (default: the global\n"
         "--max-bytes if given, else 1G; K M G T suffixes;\n"
         "0 = no limit)"},
    };
    int rc = cli_parse_options(CMD, argc, argv, opts, CLI_NOPTS(opts), import_help);
    if (rc >= 0)
        return rc;
    rc = check_args(CMD, argc, argv, output, "BITSET");
    if (rc != EXIT_OK)
        return rc;
    const char *path = argv[optind];

    unsigned char *buf = NULL;
    size_t len = 0;
    /* The cap is the library's, on the bitset; the Thrift header in front is a few bytes.
     * Saturate: --max-bytes 18446744073709551615 must not wrap to a 63-byte cap. */
    size_t read_cap = max_bytes == 0 ? 0 : max_bytes > SIZE_MAX - 64 ? SIZE_MAX : max_bytes + 64;
    rc = cli_read_file(path, read_cap, &buf, &len);
    if (rc != EXIT_OK)
        return rc;
    fl_filter *f = NULL;
    fl_status s = fl_parquet_import(buf, len, max_bytes, &f);
    free(buf);
    if (s != FL_OK)
        return cli_fail(EXIT_DATA, "cannot import '%s': %s", path, fl_strerror(s));

    rc = cli_save_filter(f, output);
    fl_free(f);
    return rc;
}

int cmd_export_parquet(int argc, char **argv, const cli_globals *g)
{
    static const char *const CMD = "export-parquet";
    const char *output = NULL;
    int no_header = 0;
    const cli_opt opts[] = {
        {"output", 'o', CLI_ARG_STRING, &output, NULL, NULL,
         "-o, --output BITSET", "write here ('-': standard output; required)"},
        {"no-header", 0, CLI_ARG_NONE, &no_header, NULL, NULL,
         "--no-header", "write the bare bitset without the header"},
    };
    int rc = cli_parse_options(CMD, argc, argv, opts, CLI_NOPTS(opts), export_help);
    if (rc >= 0)
        return rc;
    const int with_header = !no_header;
    rc = check_args(CMD, argc, argv, output, "FILTER");
    if (rc != EXIT_OK)
        return rc;
    const char *path = argv[optind];

    fl_filter *f = NULL;
    rc = cli_load_filter(path, g->max_bytes, &f);
    if (rc != EXIT_OK)
        return rc;
    size_t size = fl_parquet_export_size(f, with_header), written = 0;
    unsigned char *buf = size ? malloc(size) : NULL;
    fl_status s = FL_ERR_NO_MEMORY;
    if (buf)
        s = fl_parquet_export(f, with_header, buf, size, &written);
    else if (size == 0) /* no Parquet form: a NULL buffer makes the library say why */
        s = fl_parquet_export(f, with_header, NULL, 0, NULL);
    if (s == FL_OK)
        rc = cli_write_file(output, buf, written);
    else if (s == FL_ERR_UNSUPPORTED || s == FL_ERR_INCOMPATIBLE)
        rc = cli_fail(EXIT_DATA, "cannot export '%s': %s (only split256 filters using xxh64 "
                      "seed 0 have a Parquet form)", path, fl_strerror(s));
    else
        rc = cli_fail(EXIT_DATA, "cannot export '%s': %s", path, fl_strerror(s));
    free(buf);
    fl_free(f);
    return rc;
}
