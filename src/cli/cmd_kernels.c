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
        "Usage: filterlab [--kernel NAME] kernels\n"
        "\n"
        "List the compiled kernels: whether this CPU and OS can run each, whether it runs\n"
        "through emulation (SIMDe on a foreign ISA: correct, not fast) and the CPU\n"
        "features it needs; then the selected kernel and why it was chosen. Select one\n"
        "with the global --kernel NAME or FILTERLAB_KERNEL=NAME.\n"
        "\n"
        "Options:\n"
        "  -h, --help  show this help\n");
}

static const char *yn(int v) { return v ? "yes" : "no"; }

int cmd_kernels(int argc, char **argv, const cli_globals *g)
{
    (void)g;
    int rc = cli_help_only(CMD, argc, argv, help);
    if (rc >= 0)
        return rc;
    if (cli_no_operand(CMD, argc, argv) != EXIT_OK)
        return EXIT_USAGE;

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
