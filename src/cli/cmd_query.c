/*
 * filterlab query: look lines up in a filter, grep-style.
 */
#include <getopt.h>
#include <stdio.h>

#include "cli.h"

static const char *const CMD = "query";

/* The kinds with lookups of their own, indexed by FL_FILE_* value; any other kind is read as
 * a filter or a scalable chain, which names any other kind and its commands. */
static cli_kind_query_fn *const query_of[] = {
    [FL_FILE_BINARY_FUSE] = cli_static_query,
    [FL_FILE_BLOOMIER] = cli_static_query,
};

static void help(void)
{
    cli_outf(
        "Usage: filterlab query FILTER [--input FILE] [--mark | --count | --absent]\n"
        "\n"
        "Look every input line up in FILTER (a filter or a scalable Bloom filter). By\n"
        "default print the lines that may be present (false positives included, never a\n"
        "false negative), in input order.\n"
        "\n"
        "Options:\n");
    cli_help_options();
    cli_outf(
        "\n"
        "Keys are read as for 'filterlab build': a '\\n' or '\\r\\n' ending is not part of\n"
        "the key. Printed lines are the key followed by '\\n' (a '\\r' ending is dropped).\n"
        "The filter is loaded under the global --max-bytes limit.\n"
        "A static structure (filterlab build-static) is queried the same way; a Bloomier\n"
        "filter prints KEY<TAB>VALUE for the lines it holds (--mark: 1<TAB>VALUE or 0).\n");
}

enum mode { PRESENT, ABSENT, MARK, COUNT };

int cmd_query(int argc, char **argv, const cli_globals *g)
{
    const char *input = NULL;
    int mark = 0, count = 0, absent = 0;
    const cli_opt opts[] = {
        CLI_OPT_INPUT(&input, CLI_HELP_INPUT),
        {"mark", 0, CLI_ARG_TALLY, &mark, NULL, NULL,
         "--mark", "print 1 (may be present) or 0 (absent) for every line"},
        {"count", 0, CLI_ARG_TALLY, &count, NULL, NULL,
         "--count", "print only the number of lines that may be present"},
        {"absent", 0, CLI_ARG_TALLY, &absent, NULL, NULL,
         "--absent", "print the lines that are certainly absent"},
    };
    int rc = cli_parse_one_operand(CMD, argc, argv, opts, CLI_NOPTS(opts), help,
                                   "FILTER");
    if (rc >= 0)
        return rc;
    /* One mode at most (each counted as given): the mode is the one given. */
    int modes = mark + count + absent;
    enum mode mode = mark ? MARK : count ? COUNT : absent ? ABSENT : PRESENT;
    if (modes > 1)
        return cli_usage_error(CMD, "--mark, --count and --absent are alternatives; give one");
    const char *path = argv[optind];

    /* A regular file of a kind with lookups of its own (query_of: the static ones). */
    uint32_t kind = cli_file_kind(path);
    cli_kind_query_fn *own = kind < sizeof query_of / sizeof query_of[0] ? query_of[kind] : NULL;
    if (own)
        return own(path, kind, input,
                                mode == MARK ? CLI_QUERY_MARK : mode == COUNT ? CLI_QUERY_COUNT
                                : mode == ABSENT ? CLI_QUERY_ABSENT : CLI_QUERY_PRESENT,
                                g->max_bytes);
    /* A filter or a scalable chain: the file says which. */
    fl_filter *f = NULL;
    fl_sbf *chain = NULL;
    rc = cli_load_any(path, g->max_bytes, &f, &chain);
    if (rc != EXIT_OK)
        return rc;
    cli_lines in;
    rc = cli_lines_open(&in, input);
    if (rc != EXIT_OK) {
        fl_free(f);
        fl_sbf_free(chain);
        return rc;
    }
    cli_batch *b = cli_batch_new();
    uint64_t positives = 0;
    long got = 0;
    /* Hash a batch, look it up in one kernel call, then print in input order. */
    while (b && (got = cli_batch_fill(b, &in)) > 0) {
        /* Every sub-filter of a chain hashes with the chain's hash and seed. */
        if (chain)
            cli_batch_hash_chain(b, chain);
        else
            cli_batch_hash(b, f);
        size_t pos = 0;
        fl_status s = chain ? fl_sbf_contains_hashes(chain, b->hash, b->count, b->hit, &pos)
                            : fl_contains_hashes(f, b->hash, b->count, b->hit, &pos);
        if (s != FL_OK) {
            rc = cli_fail(EXIT_DATA, "query: lookup failed: %s", fl_strerror(s));
            break;
        }
        positives += pos;
        for (size_t i = 0; i < b->count && mode != COUNT; i++) {
            if (mode == MARK) {
                cli_out(b->hit[i] ? "1\n" : "0\n", 2);
            } else if ((mode == PRESENT) == (b->hit[i] != 0)) {
                cli_out_line(cli_batch_key(b, i), b->len[i]);
            }
        }
        /* The reader went away (or the disk is full): stop reading input. */
        if (cli_out_failed())
            break;
    }
    rc = cli_batch_status(b, got, rc);
    if (rc == EXIT_OK && mode == COUNT)
        cli_outf("%llu\n", (unsigned long long)positives);
    cli_batch_free(b);
    cli_lines_close(&in);
    fl_free(f);
    fl_sbf_free(chain);
    return rc;
}
