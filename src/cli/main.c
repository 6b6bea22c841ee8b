/*
 * filterlab: the command-line front end. This file parses the global options, refuses to
 * run on a kernel request it cannot honour, and dispatches to one cmd_*.c per subcommand.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#ifndef FILTERLAB_CLI_VERSION
#define FILTERLAB_CLI_VERSION "unknown"
#endif

typedef struct cli_command {
    const char *name;
    cli_command_fn *run;
    const char *summary;
    int needs_kernel; /* refuse to start if FILTERLAB_KERNEL could not be honoured (kernels
                       * still runs with a bad one: it shows what could be chosen, then
                       * reports the error and exits 1) */
} cli_command;

/*
 * The commands, declared once: {name, function, summary, needs_kernel}, one row a line. The
 * prototypes, the dispatch table and the help listing below are expanded from this list
 * (X gets a row's four fields: the braces split like commas do); man/subcommands.sh reads
 * the names from these lines for the man pages (a page needs Usage, a description and an
 * Options section in the command's help: tests/cli/test_cli.sh checks every command's).
 * A new command is one row here and its src/cli/cmd_NAME.c listed in meson.build.
 */
#define CLI_COMMANDS(X) X(                                                                   \
    {"params", cmd_params, "size every filter variant for N keys at a target FPR", 1}) X(\
    {"build", cmd_build, "build a filter from lines of text", 1}) X(\
    {"query", cmd_query, "print the lines that may be in a filter", 1}) X(\
    {"dedup", cmd_dedup, "print each line not seen before (approximate, streaming)", 1}) X(\
    {"info", cmd_info, "describe a filter file", 1}) X(\
    {"kernels", cmd_kernels, "list the kernels and which one each operation uses, and why", 0}) X(\
    {"tune", cmd_tune, "time every kernel here and save the fastest per entry", 0}) X(\
    {"import-parquet", cmd_import_parquet, "convert an Apache Parquet Bloom filter bitset", 1}) X(\
    {"export-parquet", cmd_export_parquet, "write a split256 filter as a Parquet bitset", 1}) X(\
    {"advise", cmd_advise, "pick a variant and kernel from this machine's results", 1}) X(\
    {"host", cmd_host, "describe this machine: CPU, caches, host id", 0}) X(\
    {"count", cmd_count, "count distinct lines (HyperLogLog, as Redis's PFCOUNT)", 1}) X(\
    {"hll-merge", cmd_hll_merge, "union of Redis HyperLogLog strings (PFMERGE)", 1}) X(\
    {"hll-info", cmd_hll_info, "describe a Redis HyperLogLog string", 1}) X(\
    {"freq", cmd_freq, "count lines in a Count-Min sketch; estimates, --info", 1}) X(\
    {"top", cmd_top, "most frequent lines, heavy hitters (Count-Min)", 1}) X(\
    {"delete", cmd_delete, "delete lines from a filter whose variant can delete", 1}) X(\
    {"build-static", cmd_build_static, "build a binary fuse or Bloomier filter from a whole key set", 1}) X(\
    {"layered-build", cmd_layered_build, "build a layered Bloom filter: counts lines up to R", 1}) X(\
    {"layered-count", cmd_layered_count, "print each line's count in a layered Bloom filter", 1}) X(\
    {"compress", cmd_compress, "compress a Bloom filter, or build one planned to compress", 1}) X(\
    {"decompress", cmd_decompress, "write a compressed Bloom filter back as a filter", 1}) X(\
    {"vqf-build", cmd_vqf_build, "build a vector quotient filter (deletable) from lines", 1}) X(\
    {"vqf-query", cmd_vqf_query, "print the lines that may be in a vector quotient filter", 1}) X(\
    {"vqf-delete", cmd_vqf_delete, "delete lines from a vector quotient filter", 1}) X(\
    {"vqf-info", cmd_vqf_info, "describe a vector quotient filter", 1}) X(\
    {"gcf-build", cmd_gcf_build, "build a growing cuckoo filter (deletable) from lines", 1}) X(\
    {"gcf-add", cmd_gcf_add, "add lines to a growing cuckoo filter, doubling it in place", 1}) X(\
    {"gcf-query", cmd_gcf_query, "print the lines that may be in a growing cuckoo filter", 1}) X(\
    {"gcf-delete", cmd_gcf_delete, "delete lines from a growing cuckoo filter", 1}) X(\
    {"gcf-info", cmd_gcf_info, "describe a growing cuckoo filter", 1}) X(\
    {"compressed-query", cmd_compressed_query, "look lines up in a compressed Bloom filter", 1})

#define CLI_COMMAND_PROTOTYPE(open, fn, summary, close) cli_command_fn fn;
#define CLI_COMMAND_ROW(open, fn, summary, close) open, fn, summary, close,
CLI_COMMANDS(CLI_COMMAND_PROTOTYPE)
static const cli_command commands[] = {CLI_COMMANDS(CLI_COMMAND_ROW)};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(void)
{
    cli_outf(
        "Usage: filterlab [--kernel NAME] [--max-bytes SIZE] [--quiet] COMMAND [OPTIONS]\n"
        "  or:  filterlab --help | --version\n"
        "\n"
        "Bloom and cuckoo filters over lines of text.\n"
        "\n"
        "Commands:\n");
    /* Two spaces at least between a name and its summary (help2man reads the gap); a
     * summary fits on its line (tests/cli/test_cli.sh checks it). */
    int width = 0;
    for (size_t i = 0; i < NCOMMANDS; i++)
        if ((int)strlen(commands[i].name) > width)
            width = (int)strlen(commands[i].name);
    for (size_t i = 0; i < NCOMMANDS; i++)
        cli_help_option((size_t)width + 4, commands[i].name, "%s", commands[i].summary);
    cli_outf(
        "\n"
        "Options:\n"
        "  --kernel NAME      use this lookup kernel (see 'filterlab kernels'); the\n"
        "                     FILTERLAB_KERNEL environment variable does the same\n"
        "  --max-bytes SIZE   refuse to load, or to create, a structure whose payload\n"
        "                     is larger (default 4G; suffixes K M G T; 0 = no limit);\n"
        "                     creating is also refused above physical memory\n"
        "  -q, --quiet        no progress line (shown on a terminal while a command reads\n"
        "                     its input; FILTERLAB_PROGRESS=0 does the same)\n"
        "  -h, --help         show this help\n"
        "  -V, --version      show the version\n"
        "\n"
        "These options go before COMMAND; run 'filterlab COMMAND --help' for a command's\n"
        "own options.\n");
    cli_help_wrap(0, 0, "Exit status: 0 success, 1 usage error, 2 data error (bad file, full "
                  "filter, I/O).");
}

/* `filterlab CMD --help` must work even when the environment is broken. */
static int help_requested(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return 1;
    return 0;
}

static int kernel_env_error(fl_status env)
{
    const char *value = getenv("FILTERLAB_KERNEL");
    char quoted[CLI_QUOTE_BUF];
    cli_quote(value ? value : "", quoted, sizeof quoted);
    return cli_fail(EXIT_USAGE, "FILTERLAB_KERNEL: %s (%s; see 'filterlab kernels')",
                    fl_strerror(env), quoted);
}

int main(int argc, char **argv)
{
    /* A closed pipe (`filterlab query ... | head`) must end the run quietly: ignore SIGPIPE
     * and let the EPIPE write error stop the command instead (see cli_out_finish). */
    signal(SIGPIPE, SIG_IGN);
    cli_signals_init();
    cli_out_init();

    cli_globals g = {
        .max_bytes = sizeof(size_t) >= 8 ? (size_t)((uint64_t)4 << 30) : SIZE_MAX,
    };
    const char *kernel = NULL;

    cli_getopt_reset();
    int c, quiet = 0;
    /* '+': stop at the subcommand, whose options are its own. */
    while ((c = getopt_long(argc, argv, "+:hVq", cli_global_options, NULL)) != -1) {
        switch (c) {
        case 'q':
            quiet = 1;
            break;
        case 'h':
            usage();
            return cli_out_finish(0);
        case 'V':
            cli_outf("filterlab %s\n", FILTERLAB_CLI_VERSION);
            return cli_out_finish(0);
        case CLI_OPT_KERNEL:
            kernel = optarg;
            break;
        case CLI_OPT_MAX_BYTES:
            if (cli_parse_size(NULL, "--max-bytes", optarg, &g.max_bytes) < 0)
                return EXIT_USAGE;
            g.max_bytes_set = 1;
            break;
        default:
            return cli_getopt_error(NULL, c, argv);
        }
    }
    if (optind >= argc)
        return cli_usage_error(NULL, "no command given");
    cli_progress_setup(quiet);

    /* The subcommand's own getopt scan moves optind: keep where its argv starts. */
    const int first = optind;
    const char *name = argv[first];
    const cli_command *cmd = NULL;
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0)
            cmd = &commands[i];
    if (!cmd)
        return cli_usage_error(NULL, "unknown command '%s'", name);

    /* Never run on a kernel the user asked for and did not get: a silent fallback would
     * make benchmarks and bug reports lie. */
    fl_status env = fl_kernel_env_status();
    if (env != FL_OK && !kernel && cmd->needs_kernel &&
        !help_requested(argc - first, argv + first))
        return kernel_env_error(env);
    if (kernel) {
        fl_status s = fl_kernel_select(kernel);
        if (s != FL_OK)
            return cli_fail(EXIT_USAGE, "--kernel %s: %s", kernel, fl_strerror(s));
    }

    int rc = cmd->run(argc - first, argv + first, &g);
    int orc = cli_out_finish(rc != EXIT_OK);
    /* Commands that run no lookups (kernels, params) still report a bad variable; an
     * explicit --kernel overrides it. */
    if (rc == EXIT_OK && env != FL_OK && !kernel && !help_requested(argc - first, argv + first))
        rc = kernel_env_error(env);
    return rc != EXIT_OK ? rc : orc;
}
