/*
 * filterlab kernels: the compiled lookup kernels, which ones this CPU runs, which is used.
 */
#include <getopt.h>
#include <stdio.h>

#include "cli.h"

static const char *const CMD = "kernels";

static void help(void)
{
    cli_outf(
        "Usage: filterlab [--kernel NAME] kernels [--json]\n"
        "\n"
        "List the compiled kernels: whether this CPU and OS can run each, whether it runs\n"
        "through emulation (SIMDe on a foreign ISA: correct, not fast) and the CPU\n"
        "features it needs; then the selected kernel and why it was chosen. Select one\n"
        "with the global --kernel NAME or FILTERLAB_KERNEL=NAME.\n"
        "\n"
        "Options:\n"
        "  --json      one JSON object: kernels [{name, compiled, supported, emulated,\n"
        "              requires}] (booleans; requires null if nothing), selected, reason\n"
        "  -h, --help  show this help\n");
}

static const char *yn(int v) { return v ? "yes" : "no"; }

int cmd_kernels(int argc, char **argv, const cli_globals *g)
{
    (void)g;
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int json = 0, c, rc;
    cli_getopt_reset();
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'j':
            json = 1;
            break;
        CLI_HELP_AND_UNKNOWN_OPTIONS(CMD, help);
        }
    }
    if (cli_no_operand(CMD, argc, argv) != EXIT_OK)
        return EXIT_USAGE;
    if (json) {
        cli_json j;
        cli_json_begin(&j);
        cli_json_array(&j, "kernels");
        for (size_t i = 0; i < fl_kernel_count(); i++) {
            fl_kernel_desc d;
            if (fl_kernel_describe(i, &d) != FL_OK)
                continue;
            cli_json_object(&j, NULL);
            cli_json_str(&j, "name", d.name);
            cli_json_bool(&j, "compiled", d.compiled);
            cli_json_bool(&j, "supported", d.supported);
            cli_json_bool(&j, "emulated", d.emulated);
            cli_json_str(&j, "requires", d.requires && d.requires[0] ? d.requires : NULL);
            cli_json_close(&j);
        }
        cli_json_close(&j);
        cli_json_str(&j, "selected", fl_kernel_active());
        cli_json_str(&j, "reason", fl_kernel_reason());
        cli_json_end(&j);
        return EXIT_OK;
    }

    cli_table *t = cli_table_new(5, "lllll");
    if (!t)
        return cli_fail(EXIT_DATA, "out of memory");
    const char *head[] = {"kernel", "compiled", "supported", "emulated", "requires"};
    cli_table_row(t, head);
    size_t n = fl_kernel_count();
    for (size_t i = 0; i < n; i++) {
        fl_kernel_desc d;
        if (fl_kernel_describe(i, &d) != FL_OK)
            continue;
        const char *req = d.requires && d.requires[0] ? d.requires : "-";
        const char *row[] = {d.name ? d.name : "?", yn(d.compiled), yn(d.supported),
                             yn(d.emulated), req};
        cli_table_row(t, row);
    }
    rc = cli_table_print(t);
    cli_table_free(t);
    if (rc != EXIT_OK)
        return rc;
    const char *active = fl_kernel_active();
    const char *reason = fl_kernel_reason();
    cli_outf("selected: %s (%s)\n", active ? active : "?", reason ? reason : "no reason given");
    return EXIT_OK;
}
