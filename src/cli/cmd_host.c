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
        "  --json       one JSON object (scripts/repro/hostinfo.py reads it): host_id,\n"
        "               hostname_sha256_4, vendor, brand, family, model, stepping,\n"
        "               microcode, arm_implementer, arm_architecture, arm_part,\n"
        "               arm_revision, signature, uarch, uarch_source, hypervisor,\n"
        "               features [names], flags, caches [{level, type, bytes, ways, line,\n"
        "               sets, shared_cpu_list, sharing}], l1d_bytes, l2_bytes, llc_bytes,\n"
        "               cpus_online, cpus_usable; null where it could not be read\n"
        "  -h, --help   show this help\n"
        "\n"
        "FL_HOST_ID in the environment overrides the host id.\n");
}

/* A string field, null when empty (the library leaves what it cannot read empty). */
static void json_field(cli_json *j, const char *key, const char *value)
{
    cli_json_str(j, key, value[0] ? value : NULL);
}

/* An integer field, null when the library could not read it (negative, or 0 for sizes). */
static void json_known(cli_json *j, const char *key, long long v, int known)
{
    if (known)
        cli_json_i64(j, key, v);
    else
        cli_json_null(j, key);
}

static void print_json(const fl_host *h)
{
    cli_json j;
    cli_json_begin(&j);
    json_field(&j, "host_id", h->host_id);
    json_field(&j, "hostname_sha256_4", h->hostname_sha256_4);
    json_field(&j, "vendor", h->vendor);
    json_field(&j, "brand", h->brand);
    json_known(&j, "family", h->family, h->family >= 0);
    json_known(&j, "model", h->model, h->model >= 0);
    json_known(&j, "stepping", h->stepping, h->stepping >= 0);
    json_field(&j, "microcode", h->microcode);
    json_field(&j, "arm_implementer", h->arm_implementer);
    json_field(&j, "arm_architecture", h->arm_architecture);
    json_field(&j, "arm_part", h->arm_part);
    json_field(&j, "arm_revision", h->arm_revision);
    json_field(&j, "signature", h->signature);
    json_field(&j, "uarch", h->uarch);
    json_field(&j, "uarch_source", h->uarch_source);
    json_field(&j, "hypervisor", h->hypervisor);
    cli_json_array(&j, "features");
    for (int b = 0; b < FL_CPU_FEATURE_COUNT; b++)
        if (h->features & (uint32_t)1 << b)
            cli_json_str(&j, NULL, fl_cpu_feature_name((uint32_t)1 << b));
    cli_json_close(&j);
    json_field(&j, "flags", h->flags);
    cli_json_array(&j, "caches");
    for (int i = 0; i < h->ncaches; i++) {
        const fl_host_cache *c = &h->caches[i];
        cli_json_object(&j, NULL);
        cli_json_i64(&j, "level", c->level);
        cli_json_str(&j, "type", c->type);
        cli_json_u64(&j, "bytes", c->bytes);
        cli_json_i64(&j, "ways", c->ways);
        cli_json_i64(&j, "line", c->line);
        cli_json_u64(&j, "sets", c->sets);
        cli_json_str(&j, "shared_cpu_list", c->shared_cpu_list);
        cli_json_i64(&j, "sharing", c->sharing);
        cli_json_close(&j);
    }
    cli_json_close(&j);
    json_known(&j, "l1d_bytes", (long long)h->l1d_bytes, h->l1d_bytes != 0);
    json_known(&j, "l2_bytes", (long long)h->l2_bytes, h->l2_bytes != 0);
    json_known(&j, "llc_bytes", (long long)h->llc_bytes, h->llc_bytes != 0);
    cli_json_i64(&j, "cpus_online", h->cpus_online);
    cli_json_i64(&j, "cpus_usable", h->cpus_usable);
    cli_json_end(&j);
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
    int json, rc;
    if ((rc = cli_json_no_operand(CMD, argc, argv, help, &json)) >= 0)
        return rc;
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
