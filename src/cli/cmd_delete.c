/*
 * filterlab delete: remove keys from a filter whose variant can delete (the descriptor's
 * FL_CAP_DELETE: cuckoo, counting, counting512), all or nothing.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *const CMD = "delete";

static void help(void)
{
    char can[128];
    cli_variant_list(CLI_VARIANTS_DELETE, " and ", can, sizeof can);
    cli_outf("Usage: filterlab delete FILTER [--input FILE] [-o OUT]\n"
             "\n");
    cli_help_wrap(0, 0, "Delete every input line from FILTER, once per line, and write the "
                  "result back to FILTER (or to OUT), replacing the file atomically.");
    cli_outf("Only variants that can delete keys accept it: %s.\n", can);
    cli_outf(
        "\n"
        "All or nothing: if the filter refuses a key (a key it cannot hold, so one never\n"
        "inserted), nothing is written and the exit status is 2. Delete only keys you\n"
        "inserted: a key never inserted that the filter answers 'present' for (a false\n"
        "positive) is deleted anyway and takes a count from other keys.\n"
        "\n"
        "Options:\n");
    cli_help_options();
    cli_outf(
        "\n"
        "Keys are read as for 'filterlab build'. The filter is loaded under the global\n"
        "--max-bytes limit.\n");
}

int cmd_delete(int argc, char **argv, const cli_globals *g)
{
    const char *input = NULL, *output = NULL;
    const cli_opt opts[] = {
        CLI_OPT_INPUT(&input, CLI_HELP_INPUT),
        {"output", 'o', CLI_ARG_STRING, &output, NULL, NULL, "-o, --output OUT",
         "write the filter to OUT instead of FILTER ('-': standard output)"},
    };
    int rc = cli_parse_one_operand(CMD, argc, argv, opts, CLI_NOPTS(opts), help,
                                   "FILTER");
    if (rc >= 0)
        return rc;
    const char *path = argv[optind];
    if (!output)
        output = path;

    fl_filter *f = NULL;
    rc = cli_load_filter(path, g->max_bytes, &f);
    if (rc != EXIT_OK)
        return rc;
    fl_variant_info vi;
    fl_variant_describe(fl_get_variant(f), &vi);
    if (!(vi.caps & FL_CAP_DELETE)) {
        char can[128], q[CLI_QUOTE_BUF];
        cli_variant_list(CLI_VARIANTS_DELETE, ", ", can, sizeof can);
        cli_quote(path, q, sizeof q);
        fl_free(f);
        return cli_fail(EXIT_DATA, "delete: %s is a %s filter, which cannot delete keys "
                        "(variants that can: %s)", q, vi.name, can);
    }
    cli_lines in;
    rc = cli_lines_open(&in, input);
    if (rc != EXIT_OK) {
        fl_free(f);
        return rc;
    }
    const char *key;
    size_t len;
    int got;
    while ((got = cli_lines_next(&in, &key, &len)) > 0) {
        fl_status s = fl_delete_bytes(f, key, len);
        if (s != FL_OK) {
            char q[CLI_QUOTE_BUF], k[CLI_QUOTE_BUF + 1];
            cli_quote(in.name, q, sizeof q);
            /* The key as text for the message (keys may hold NUL bytes: cut there). */
            char *dup = strndup(key, len);
            cli_quote(dup ? dup : "", k, sizeof k);
            free(dup);
            rc = cli_fail(EXIT_DATA, "delete: %s line %llu: key %s: %s; nothing written", q,
                          (unsigned long long)in.lineno, k, fl_strerror(s));
            break;
        }
    }
    if (rc == EXIT_OK && got < 0)
        rc = EXIT_DATA; /* read error, already reported */
    cli_lines_close(&in);
    if (rc == EXIT_OK)
        rc = cli_save_filter(f, output);
    fl_free(f);
    return rc;
}
