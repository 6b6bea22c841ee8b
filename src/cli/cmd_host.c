/*
 * filterlab host: this machine as the library describes it (fl_host_describe): CPU identity,
 * microarchitecture and where that name came from, hypervisor, features, caches, CPUs and
 * the host id that names its results folder. --json is what scripts/repro/hostinfo.py reads.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char *const CMD = "host";

static void help(void)
{
    cli_outf(
        "Usage: filterlab host [--json]\n"
        "\n"
        "Describe this machine: CPU vendor, family/model/stepping and brand, the\n"
        "microarchitecture name and where it came from (the cpuid model table, the brand\n"
        "string, or the CPU's features when they contradict the model a hypervisor\n"
        "reports), the hypervisor, the CPU features the kernels care about, the caches\n"
        "(sysfs), the CPU count and the host id that names results/<host-id>/.\n"
        "\n"
        "Options:\n"
        "  --json       one JSON object (scripts/repro/hostinfo.py reads it)\n"
        "  -h, --help   show this help\n"
        "\n"
        "FL_HOST_ID in the environment overrides the host id.\n");
}

/* A JSON string literal (RFC 8259 section 7): quotes, backslashes and control characters
 * escaped; other bytes copied (cpuinfo and sysfs are ASCII). */
static void json_str(const char *s)
{
    cli_out("\"", 1);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            cli_outf("\\%c", c);
        else if (c < 0x20)
            cli_outf("\\u%04x", c);
        else
            cli_out(s, 1);
    }
    cli_out("\"", 1);
}

/* A string field, null when empty. */
static void json_field(const char *key, const char *value, int last)
{
    cli_outf("  \"%s\": ", key);
    if (value[0])
        json_str(value);
    else
        cli_outf("null");
    cli_outf("%s\n", last ? "" : ",");
}

static void json_int(const char *key, long long v, int null_if_negative)
{
    if (null_if_negative && v < 0)
        cli_outf("  \"%s\": null,\n", key);
    else
        cli_outf("  \"%s\": %lld,\n", key, v);
}

static void print_json(const fl_host *h)
{
    cli_outf("{\n");
    json_field("host_id", h->host_id, 0);
    json_field("hostname_sha256_4", h->hostname_sha256_4, 0);
    json_field("vendor", h->vendor, 0);
    json_field("brand", h->brand, 0);
    json_int("family", h->family, 1);
    json_int("model", h->model, 1);
    json_int("stepping", h->stepping, 1);
    json_field("microcode", h->microcode, 0);
    json_field("arm_implementer", h->arm_implementer, 0);
    json_field("arm_architecture", h->arm_architecture, 0);
    json_field("arm_part", h->arm_part, 0);
    json_field("arm_revision", h->arm_revision, 0);
    json_field("signature", h->signature, 0);
    json_field("uarch", h->uarch, 0);
    json_field("uarch_source", h->uarch_source, 0);
    json_field("hypervisor", h->hypervisor, 0);
    cli_outf("  \"features\": [");
    int first = 1;
    for (int b = 0; b < FL_CPU_FEATURE_COUNT; b++)
        if (h->features & (uint32_t)1 << b) {
            cli_outf("%s", first ? "" : ", ");
            json_str(fl_cpu_feature_name((uint32_t)1 << b));
            first = 0;
        }
    cli_outf("],\n");
    json_field("flags", h->flags, 0);
    cli_outf("  \"caches\": [");
    for (int i = 0; i < h->ncaches; i++) {
        const fl_host_cache *c = &h->caches[i];
        cli_outf("%s\n    {\"level\": %d, \"type\": ", i ? "," : "", c->level);
        json_str(c->type);
        cli_outf(", \"bytes\": %llu, \"ways\": %d, \"line\": %d, \"sets\": %llu, "
                 "\"shared_cpu_list\": ",
                 (unsigned long long)c->bytes, c->ways, c->line, (unsigned long long)c->sets);
        json_str(c->shared_cpu_list);
        cli_outf(", \"sharing\": %d}", c->sharing);
    }
    cli_outf("%s],\n", h->ncaches ? "\n  " : "");
    json_int("l1d_bytes", h->l1d_bytes ? (long long)h->l1d_bytes : -1, 1);
    json_int("l2_bytes", h->l2_bytes ? (long long)h->l2_bytes : -1, 1);
    json_int("llc_bytes", h->llc_bytes ? (long long)h->llc_bytes : -1, 1);
    json_int("cpus_online", h->cpus_online, 0);
    cli_outf("  \"cpus_usable\": %d\n}\n", h->cpus_usable);
}

static void print_text(const fl_host *h)
{
    char b[32];
    cli_outf("host id:     %s\n", h->host_id);
    if (h->vendor[0])
        cli_outf("cpu:         %s (%s family %d model %d stepping %d)\n", h->brand, h->vendor,
                 h->family, h->model, h->stepping);
    else
        cli_outf("cpu:         %s (implementer %s part %s revision %s)\n",
                 h->brand[0] ? h->brand : "?", h->arm_implementer, h->arm_part, h->arm_revision);
    cli_outf("uarch:       %s (from %s)\n", h->uarch, h->uarch_source);
    cli_outf("signature:   %s\n", h->signature);
    cli_outf("hypervisor:  %s\n", h->hypervisor[0] ? h->hypervisor : "none (bare metal)");
    cli_outf("features:   ");
    for (int bit = 0; bit < FL_CPU_FEATURE_COUNT; bit++)
        if (h->features & (uint32_t)1 << bit)
            cli_outf(" %s", fl_cpu_feature_name((uint32_t)1 << bit));
    cli_outf("%s\n", h->features ? "" : " (none the kernels use)");
    cli_outf("cpus:        %d usable, %d online\n", h->cpus_usable, h->cpus_online);
    cli_outf("caches (sysfs, cpu0):\n");
    for (int i = 0; i < h->ncaches; i++) {
        const fl_host_cache *c = &h->caches[i];
        cli_human_bytes(c->bytes, b, sizeof b);
        cli_outf("  L%d %-11s %10s  %2d-way  %d-byte lines  shared by %d CPU%s\n", c->level,
                 c->type, b, c->ways, c->line, c->sharing, c->sharing == 1 ? "" : "s");
    }
    if (h->ncaches == 0)
        cli_outf("  (none readable)\n");
}

int cmd_host(int argc, char **argv, const cli_globals *g)
{
    (void)g;
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int json = 0, c;
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
    static fl_host h; /* about 7 KiB: kept off the stack */
    fl_status s = fl_host_describe(&h);
    if (s != FL_OK)
        return cli_fail(EXIT_DATA, "host: %s", fl_strerror(s));
    if (json)
        print_json(&h);
    else
        print_text(&h);
    return EXIT_OK;
}
