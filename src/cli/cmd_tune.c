/*
 * filterlab tune: measure every kernel module entry with every kernel this CPU runs at the
 * four payload size classes and write the wisdom file the library reads at first use
 * (fl_kernel_tune), so that the automatic choice is this machine's measurement.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char *const CMD = "tune";

static void help(void)
{
    cli_outf(
        "Usage: filterlab tune [--quick] [-o FILE]\n"
        "\n"
        "Time every kernel module entry (Bloom lookups and inserts per family, cuckoo,\n"
        "counting, Count-Min, HyperLogLog, hashing, binary fuse and Bloomier, vector\n"
        "quotient filter lookups, inserts and deletes) with every kernel this CPU runs,\n"
        "at a payload of each size class (L1, L2, last-level cache, DRAM), and write the\n"
        "fastest of each to the wisdom file. The library reads it at\n"
        "first use on this CPU ('filterlab kernels' then says \"measured here\"); a file\n"
        "from another CPU, microcode or filterlab version is ignored. Takes 20-60 s; run\n"
        "it on an otherwise idle machine. FILTERLAB_KERNEL still forces one kernel.\n"
        "\n"
        "Options:\n");
    cli_help_options();
    cli_outf(
        "\n"
        "The default file is $FILTERLAB_WISDOM, else $XDG_CACHE_HOME/filterlab/wisdom,\n"
        "else ~/.cache/filterlab/wisdom; FILTERLAB_WISDOM=off disables reading it.\n");
}

static void report(void *ctx, const char *line)
{
    (void)ctx;
    cli_outf("%s\n", line);
}

int cmd_tune(int argc, char **argv, const cli_globals *g)
{
    (void)g;
    int quick = 0;
    const char *out = NULL;
    const cli_opt opts[] = {
        {"quick", 0, CLI_ARG_NONE, &quick, NULL, NULL,
         "--quick", "about 4x shorter runs (noisier; for tests)"},
        {"output", 'o', CLI_ARG_STRING, &out, NULL, NULL,
         "-o, --output FILE", "write FILE instead of the default wisdom file"},
    };
    int rc = cli_parse_options(CMD, argc, argv, opts, CLI_NOPTS(opts), help);
    if (rc >= 0)
        return rc;
    if (cli_no_operand(CMD, argc, argv) != EXIT_OK)
        return EXIT_USAGE;
    if (out && !*out)
        return cli_usage_error(CMD, "-o needs a file name");
    const char *path = out ? out : fl_kernel_wisdom_path();
    if (!path[0])
        return cli_usage_error(CMD, "no wisdom file (%s); give one with -o FILE",
                               fl_kernel_wisdom_status());
    if (strcmp(fl_kernel_active(), "auto") != 0)
        cli_outf("note: kernel %s is forced (%s); the file is written, but this process "
                 "does not use it\n",
                 fl_kernel_active(), fl_kernel_reason());
    cli_outf("timing each module entry (fastest of several reps; ns per key):\n");
    fl_status s = fl_kernel_tune(path, quick, report, NULL);
    if (s == FL_ERR_IO) {
        char q[CLI_QUOTE_BUF];
        cli_quote(path, q, sizeof q);
        return cli_fail(EXIT_DATA, "tune: cannot write %s: %s", q, strerror(errno));
    }
    if (s != FL_OK)
        return cli_fail(EXIT_DATA, "tune: %s", fl_strerror(s));
    cli_outf("wrote %s\n", path);
    cli_outf("'filterlab kernels' shows the choice%s\n",
             out && strcmp(out, fl_kernel_wisdom_path()) != 0
                 ? " (set FILTERLAB_WISDOM to this file to use it)" : "");
    return EXIT_OK;
}
