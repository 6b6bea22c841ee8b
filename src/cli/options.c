/*
 * Option parsing for every subcommand: cli_parse_options turns a command's cli_opt table
 * into getopt_long's tables, stores each value by its kind and prints the table's Options
 * lines for the command's help (cli_help_options); getopt's errors become one usage line;
 * the common operand checks. Also the global options' table (given before the subcommand):
 * a subcommand's parser that meets a global option says where it goes instead of calling it
 * unknown, from the same table main.c parses the global options with.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

const struct option cli_global_options[] = {
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {"kernel", required_argument, NULL, CLI_OPT_KERNEL},
    {"max-bytes", required_argument, NULL, CLI_OPT_MAX_BYTES},
    {"quiet", no_argument, NULL, 'q'},
    {NULL, 0, NULL, 0},
};

/* The placeholder of a global option's value in messages, as main.c's usage names it. */
const char *cli_global_metavar(int val)
{
    return val == CLI_OPT_KERNEL ? "NAME" : val == CLI_OPT_MAX_BYTES ? "SIZE" : "";
}

/* The global option `arg` ("--name" or "--name=value") names, matched as getopt_long
 * matches main's table (an exact name, or an unambiguous prefix); NULL if none. */
static const struct option *global_option(const char *arg)
{
    if (arg[0] != '-' || arg[1] != '-' || arg[2] == '\0')
        return NULL;
    const char *name = arg + 2;
    size_t len = strcspn(name, "=");
    const struct option *hit = NULL;
    for (const struct option *o = cli_global_options; o->name; o++) {
        if (strncmp(o->name, name, len) != 0)
            continue;
        if (strlen(o->name) == len)
            return o;
        if (hit)
            return NULL; /* ambiguous */
        hit = o;
    }
    return hit;
}

/* A value shown in a suggested command line: as typed when the shell leaves it alone. */
static void shell_word(const char *s, char *buf, size_t cap)
{
    if (*s && s[strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._+-")] == '\0'
        && strlen(s) <= CLI_QUOTE_MAX)
        snprintf(buf, cap, "%s", s);
    else
        cli_quote(s, buf, cap);
}

/* `filterlab CMD --kernel scalar`: the option exists, but before the command. */
static int global_option_error(const char *cmd, const struct option *o, const char *arg,
                               const char *next)
{
    char value[CLI_QUOTE_BUF] = "";
    const char *eq = strchr(arg, '=');
    const char *v = eq ? eq + 1 : next && next[0] != '-' ? next : NULL;
    if (v)
        shell_word(v, value, sizeof value);
    else
        snprintf(value, sizeof value, "%s", cli_global_metavar(o->val));
    if (o->val == 'V') /* --version: a command of its own */
        fprintf(stderr, "filterlab: %s: --%s is a global option: 'filterlab --%s' (see "
                "'filterlab --help')\n", cmd, o->name, o->name);
    else if (o->has_arg == no_argument) /* --quiet: a switch before the command */
        fprintf(stderr,
                "filterlab: %s: --%s is a global option: give it before the command, as in "
                "'filterlab --%s %s ...' (see 'filterlab --help')\n",
                cmd, o->name, o->name, cmd);
    else
        fprintf(stderr,
                "filterlab: %s: --%s is a global option: give it before the command, as in "
                "'filterlab --%s %s %s ...' (see 'filterlab --help')\n",
                cmd, o->name, o->name, value, cmd);
    return EXIT_USAGE;
}

int cli_getopt_error(const char *cmd, int c, char **argv)
{
    /* optopt names a bad short option; for a bad long one it is 0 and getopt has already
     * stepped past the offending argument (not past its value: an unknown option has none). */
    const char *arg = optind > 0 ? argv[optind - 1] : "?";
    if (c == ':') {
        if (optopt && (optopt < 128) && arg[0] == '-' && arg[1] != '-')
            return cli_usage_error(cmd, "option '-%c' needs a value", optopt);
        return cli_usage_error(cmd, "option '%s' needs a value", arg);
    }
    if (arg[0] == '-' && arg[1] == '-') {
        /* A known long flag given "=value" also comes back as '?', with optopt set. */
        if (optopt)
            return cli_usage_error(cmd, "option '%.*s' takes no value",
                                   (int)strcspn(arg, "="), arg);
        const struct option *g = cmd ? global_option(arg) : NULL;
        if (g)
            return global_option_error(cmd, g, arg, argv[optind]);
        return cli_usage_error(cmd, "unknown or ambiguous option '%s'", arg);
    }
    if (optopt > 0 && optopt < 128)
        return cli_usage_error(cmd, "unknown option '-%c'", optopt);
    return cli_usage_error(cmd, "unknown option '%s'", arg);
}

/* The struct option val of opts[i]: its short letter if it has one, else 256 + i. */
static int option_val(const cli_opt *o, size_t i)
{
    return o->short_name ? (unsigned char)o->short_name : 256 + (int)i;
}

/* Stores one option's value (optarg; NULL for a switch) where its row says; returns -1
 * after the parse function printed a usage error. */
static int store_option(const char *cmd, const cli_opt *o, const char *value)
{
    char shown[64]; /* "--n", or "-k" for a short-only option: the name errors give */
    if (o->name)
        snprintf(shown, sizeof shown, "--%s", o->name);
    else
        snprintf(shown, sizeof shown, "-%c", o->short_name);
    int r = 0;
    switch (o->arg) {
    case CLI_ARG_NONE: *(int *)o->dest = 1; break;
    case CLI_ARG_TALLY: (*(int *)o->dest)++; break;
    case CLI_ARG_STRING: *(const char **)o->dest = value; break;
    case CLI_ARG_COUNT: r = cli_parse_count(cmd, shown, value, o->dest); break;
    case CLI_ARG_SEED: r = cli_parse_seed(cmd, shown, value, o->dest); break;
    case CLI_ARG_FPR: r = cli_parse_fpr(cmd, shown, value, o->dest); break;
    case CLI_ARG_SIZE: r = cli_parse_size(cmd, shown, value, o->dest); break;
    case CLI_ARG_VARIANT: r = cli_parse_variant(cmd, value, o->dest); break;
    case CLI_ARG_CUSTOM: r = o->parse(cmd, shown, value, o->dest); break;
    }
    if (r < 0)
        return -1;
    if (o->seen)
        *o->seen = 1;
    return 0;
}

/* The table being parsed, for cli_help_options (help functions take no arguments). */
static const cli_opt *parsing;
static size_t parsing_n;

void cli_help_options(void)
{
    static const cli_opt help_row = {"help", 'h', CLI_ARG_NONE, NULL, NULL, NULL,
                                     "-h, --help", "show this help"};
    size_t width = strlen(help_row.label);
    for (size_t i = 0; i < parsing_n; i++)
        if (parsing[i].label && strlen(parsing[i].label) > width)
            width = strlen(parsing[i].label);
    for (size_t i = 0; i <= parsing_n; i++) {
        const cli_opt *o = i < parsing_n ? &parsing[i] : &help_row;
        if (!o->label)
            continue;
        if (!strchr(o->help, '\n')) { /* wrapped to the help width */
            cli_help_option(width + 4, o->label, "%s", o->help);
            continue;
        }
        /* Broken into lines where it was written so: printed as they are. */
        cli_outf("  %-*s  ", (int)width, o->label);
        for (const char *p = o->help; *p;) {
            size_t len = strcspn(p, "\n");
            cli_out(p, len);
            cli_out("\n", 1);
            p += len;
            if (*p == '\n' && *++p)
                cli_outf("%*s", (int)width + 4, "");
        }
    }
}

int cli_parse_options(const char *cmd, int argc, char **argv, const cli_opt *opts,
                      size_t nopts, void (*help)(void))
{
    /* getopt_long's tables, built from the rows: -h/--help last, as every command has it. */
    struct option longs[CLI_OPTS_MAX + 2];
    char shorts[3 * CLI_OPTS_MAX + 4] = ":h";
    size_t nl = 0, ns = 2;
    if (nopts > CLI_OPTS_MAX)
        return cli_fail(EXIT_USAGE, "%s: too many options in its table", cmd);
    for (size_t i = 0; i < nopts; i++) {
        const cli_opt *o = &opts[i];
        int has_arg = o->arg == CLI_ARG_NONE || o->arg == CLI_ARG_TALLY ? no_argument
                                                                     : required_argument;
        if (o->name)
            longs[nl++] = (struct option){o->name, has_arg, NULL, option_val(o, i)};
        if (o->short_name) {
            shorts[ns++] = o->short_name;
            if (has_arg == required_argument)
                shorts[ns++] = ':';
        }
    }
    shorts[ns] = '\0';
    longs[nl++] = (struct option){"help", no_argument, NULL, 'h'};
    longs[nl] = (struct option){NULL, 0, NULL, 0};

    int c;
    cli_getopt_reset();
    while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
        if (c == 'h') {
            parsing = opts;
            parsing_n = nopts;
            help();
            return EXIT_OK;
        }
        const cli_opt *hit = NULL;
        for (size_t i = 0; i < nopts && !hit; i++)
            if (option_val(&opts[i], i) == c)
                hit = &opts[i];
        if (!hit)
            return cli_getopt_error(cmd, c, argv);
        if (store_option(cmd, hit, optarg) < 0)
            return EXIT_USAGE;
    }
    return -1;
}

int cli_parse_one_operand(const char *cmd, int argc, char **argv, const cli_opt *opts,
                          size_t nopts, void (*help)(void), const char *what)
{
    int rc = cli_parse_options(cmd, argc, argv, opts, nopts, help);
    if (rc < 0 && cli_one_operand(cmd, argc, argv, what) != EXIT_OK)
        return EXIT_USAGE;
    return rc;
}

int cli_parse_n_fpr(const char *cmd, int argc, char **argv, const cli_opt *opts, size_t nopts,
                    void (*help)(void), const cli_n_fpr *s)
{
    int rc = cli_parse_options(cmd, argc, argv, opts, nopts, help);
    if (rc < 0 && cli_check_n_fpr(cmd, argc, argv, s->have_n, s->have_fpr, s->n) != EXIT_OK)
        return EXIT_USAGE;
    return rc;
}

int cli_help_only(const char *cmd, int argc, char **argv, void (*help)(void))
{
    return cli_parse_options(cmd, argc, argv, NULL, 0, help);
}

int cli_json_only(const char *cmd, int argc, char **argv, void (*help)(void), int *json)
{
    /* --json has no short form. */
    const cli_opt opts[] = {{"json", 0, CLI_ARG_NONE, json, NULL, NULL, NULL, NULL}};
    *json = 0;
    return cli_parse_options(cmd, argc, argv, opts, 1, help);
}

int cli_json_no_operand(const char *cmd, int argc, char **argv, void (*help)(void), int *json)
{
    int rc = cli_json_only(cmd, argc, argv, help, json);
    if (rc < 0 && cli_no_operand(cmd, argc, argv) != EXIT_OK)
        return EXIT_USAGE;
    return rc;
}

int cli_output_only(const char *cmd, int argc, char **argv, void (*help)(void),
                    const char *output_help, const char **output)
{
    const cli_opt opts[] = {
        {"output", 'o', CLI_ARG_STRING, output, NULL, NULL, "-o, --output OUT", output_help}};
    *output = NULL;
    return cli_parse_options(cmd, argc, argv, opts, 1, help);
}

int cli_one_operand(const char *cmd, int argc, char **argv, const char *what)
{
    if (optind >= argc)
        return cli_usage_error(cmd, "missing %s", what);
    if (argc - optind > 1)
        return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind + 1]);
    return EXIT_OK;
}

int cli_output_operands(const char *cmd, int argc, char **argv, const char *input)
{
    int want = input ? 1 : 0;
    if (argc - optind < want)
        return cli_usage_error(cmd, "missing %s", input);
    /* Every command names its output with -o: an operand past the inputs is most likely
     * an output given positionally. */
    if (argc - optind > want)
        return cli_usage_error(cmd, "unexpected argument '%s' (the output goes in -o OUT)",
                               argv[optind + want]);
    return EXIT_OK;
}

int cli_no_operand(const char *cmd, int argc, char **argv)
{
    if (optind < argc)
        return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    return EXIT_OK;
}

int cli_check_n_fpr(const char *cmd, int argc, char **argv, int have_n, int have_fpr,
                    uint64_t n)
{
    if (cli_no_operand(cmd, argc, argv) != EXIT_OK)
        return EXIT_USAGE;
    if (!have_n || !have_fpr)
        return cli_usage_error(cmd, "--n and --fpr are required");
    if (n == 0)
        return cli_usage_error(cmd, "--n must be at least 1");
    return EXIT_OK;
}

void cli_getopt_reset(void)
{
    /* glibc: optind = 0 reinitialises its whole scanning state, not just the index. */
    optind = 0;
    opterr = 0;
}

