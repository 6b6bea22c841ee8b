/*
 * filterlab kernels: the compiled lookup kernels, which ones this CPU runs, and for every
 * module entry and payload size class the kernel used and why (fl_kernel_choice).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char *const CMD = "kernels";

static void help(void)
{
    cli_outf(
        "Usage: filterlab [--kernel NAME] kernels [--json]\n"
        "\n"
        "List the compiled kernels: whether this CPU and OS can run each, whether it runs\n"
        "through emulation (SIMDe on a foreign ISA: correct, not fast) and the CPU\n"
        "features it needs; then the selection, the wisdom file, the payload size\n"
        "classes, and for every kernel module entry the kernel used at each size class\n"
        "and why: measured here by 'filterlab tune', a rule of the library, or forced.\n"
        "Force one kernel with the global --kernel NAME or FILTERLAB_KERNEL=NAME.\n"
        "\n"
        "Options:\n"
        "  --json      one JSON object: kernels [{name, compiled, supported, emulated,\n"
        "              requires}] (booleans; requires null if nothing), selected, reason,\n"
        "              wisdom, size_class_limits {l1, l2, llc} (bytes), choices [{entry,\n"
        "              size, kernel, why}] (every entry at every size class)\n"
        "  -h, --help  show this help\n");
}

static const char *yn(int v) { return v ? "yes" : "no"; }

/* One row per entry and run of size classes with the same kernel and reason ("all" when
 * the four agree). */
static int print_choices(void)
{
    cli_table *t = cli_table_new(4, "llll");
    if (!t)
        return cli_fail(EXIT_DATA, "out of memory");
    const char *head[] = {"entry", "size", "kernel", "why"};
    cli_table_row(t, head);
    for (size_t e = 0; e < fl_kernel_entry_count(); e++) {
        const char *name = fl_kernel_entry_name(e), *k, *why;
        char size[16];
        for (int c = 0, d; c < FL_SIZE_CLASSES; c = d) {
            if (fl_kernel_choice_run(name, c, &k, &why, &d, size, sizeof size) != FL_OK)
                break;
            const char *row[] = {name, size, k, why};
            cli_table_row(t, row);
        }
    }
    int rc = cli_table_print(t);
    cli_table_free(t);
    return rc;
}

int cmd_kernels(int argc, char **argv, const cli_globals *g)
{
    (void)g;
    int json, rc;
    if ((rc = cli_json_no_operand(CMD, argc, argv, help, &json)) >= 0)
        return rc;
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
        cli_json_str(&j, "wisdom", fl_kernel_wisdom_status());
        uint64_t lim[3];
        if (fl_size_class_limits(lim) == FL_OK) {
            cli_json_object(&j, "size_class_limits");
            static const char *const keys[3] = {"l1", "l2", "llc"}; /* JSON keys: lower case */
            for (int c = 0; c < 3; c++)
                cli_json_u64(&j, keys[c], lim[c]);
            cli_json_close(&j);
        }
        /* Every entry at every size class: kernel and why (the text's rows, unmerged). */
        cli_json_array(&j, "choices");
        for (size_t e = 0; e < fl_kernel_entry_count(); e++) {
            const char *name = fl_kernel_entry_name(e);
            for (int c = 0; c < FL_SIZE_CLASSES; c++) {
                const char *k = NULL, *why = NULL;
                if (fl_kernel_choice(name, c, &k, &why) != FL_OK)
                    continue;
                cli_json_object(&j, NULL);
                cli_json_str(&j, "entry", name);
                cli_json_str(&j, "size", fl_size_class_name(c));
                cli_json_str(&j, "kernel", k);
                cli_json_str(&j, "why", why);
                cli_json_close(&j);
            }
        }
        cli_json_close(&j);
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
    cli_outf("wisdom: %s\n", fl_kernel_wisdom_status());
    uint64_t lim[3];
    if (fl_size_class_limits(lim) == FL_OK) {
        char b0[32], b1[32], b2[32];
        cli_human_bytes(lim[0], b0, sizeof b0);
        cli_human_bytes(lim[1], b1, sizeof b1);
        cli_human_bytes(lim[2], b2, sizeof b2);
        cli_outf("size classes (payload bytes): L1 <= %s, L2 <= %s, LLC <= %s, DRAM above\n",
                 b0, b1, b2);
    }
    cli_outf("\n");
    return print_choices();
}
