/*
 * filterlab params: what each variant costs for N keys at a target false positive rate.
 */
#include <getopt.h>
#include <stdio.h>

#include "cli.h"

static const char *const CMD = "params";

static void help(void)
{
    cli_outf(
        "Usage: filterlab params --n N --fpr P [--type TYPE] [--json]\n"
        "\n"
        "Print the smallest geometry of every filter variant (or just TYPE) that holds N\n"
        "keys with a predicted false positive rate of at most P, with its size and bits\n"
        "per key. A variant that cannot reach P (e.g. cuckoo below ~1e-4) is listed with\n"
        "the reason.\n"
        "\n"
        "Options:\n"
        "  --n N        number of keys (an integer; 1e6 style is accepted)\n"
        "  --fpr P      target false positive rate, 0 < P < 1 (e.g. 0.01 or 1e-6)\n");
    cli_help_variants_option(15, "--type TYPE", CLI_VARIANTS_ALL, ", ", "only this variant: %s");
    cli_help_option(15, "--json", "one JSON object: n, fpr, variants [{variant, geometry "
                    "{variant, units, k, description}, bytes, bits_per_key, predicted_fpr}, "
                    "or {variant, error} for one that cannot reach P]");
    cli_help_option(15, "-h, --help", "show this help");
    /* What each variant's units and k are, from its descriptor. */
    cli_outf("\nUnits (what the geometry counts) and k:\n");
    for (int v = FL_VARIANT_MIN; v <= FL_VARIANT_MAX; v++) {
        fl_variant_info vi;
        if (fl_variant_describe((fl_variant)v, &vi) == FL_OK)
            cli_help_option(15, vi.name, "unit: %s; k: %s", vi.unit_name, vi.k_name);
    }
}

/* Adds one variant's row; returns the library status. */
static fl_status add_row(cli_table *t, fl_variant v, uint64_t n, double fpr)
{
    fl_params p;
    fl_status s = fl_params_for(v, n, fpr, &p);
    const char *name = fl_variant_name(v);
    if (s != FL_OK) {
        char why[256];
        snprintf(why, sizeof why, "n/a: %s", fl_strerror(s));
        cli_table_span(t, name, why);
        return s;
    }
    char geo[128], bytes[32], human[32], bpk[32], pred[32];
    cli_describe_geometry(&p.geometry, geo, sizeof geo);
    snprintf(bytes, sizeof bytes, "%llu", (unsigned long long)p.bytes);
    cli_human_bytes(p.bytes, human, sizeof human);
    snprintf(bpk, sizeof bpk, "%.2f", p.bits_per_key);
    snprintf(pred, sizeof pred, "%.4g", p.predicted_fpr);
    const char *cells[] = {name, geo, bytes, human, bpk, pred};
    cli_table_row(t, cells);
    return FL_OK;
}

/* --json: the same rows; `only` is a variant, or -1 for all. */
static int params_json(uint64_t n, double fpr, int only)
{
    cli_json j;
    int ok = 0;
    fl_status last = FL_OK;
    /* Sized first, printed after: an allocation failure ends the command before any output
     * (it says nothing about a variant, so it is no entry of the list). */
    fl_params params[FL_VARIANT_MAX + 1];
    fl_status status[FL_VARIANT_MAX + 1];
    for (int v = FL_VARIANT_MIN; v <= FL_VARIANT_MAX; v++) {
        status[v] = fl_params_for((fl_variant)v, n, fpr, &params[v]);
        if (status[v] == FL_ERR_NO_MEMORY && fl_variant_name((fl_variant)v) &&
            (only < 0 || v == only))
            return cli_fail(EXIT_DATA, "params: %s", fl_strerror(status[v]));
    }
    cli_json_begin(&j);
    cli_json_u64(&j, "n", n);
    cli_json_num(&j, "fpr", fpr);
    cli_json_array(&j, "variants");
    for (int v = FL_VARIANT_MIN; v <= FL_VARIANT_MAX; v++) {
        if ((only >= 0 && v != only) || !fl_variant_name((fl_variant)v))
            continue;
        const fl_params p = params[v];
        const fl_status s = status[v];
        cli_json_object(&j, NULL);
        cli_json_str(&j, "variant", fl_variant_name((fl_variant)v));
        if (s == FL_OK) {
            cli_json_geometry(&j, "geometry", &p.geometry);
            cli_json_u64(&j, "bytes", p.bytes);
            cli_json_num(&j, "bits_per_key", p.bits_per_key);
            cli_json_num(&j, "predicted_fpr", p.predicted_fpr);
            ok++;
        } else {
            cli_json_str(&j, "error", fl_strerror(s));
            last = s;
        }
        cli_json_close(&j);
    }
    cli_json_end(&j);
    if (ok == 0)
        return cli_fail(EXIT_USAGE, "params: no variant can hold n = %llu at FPR %g: %s",
                        (unsigned long long)n, fpr, fl_strerror(last));
    return EXIT_OK;
}

int cmd_params(int argc, char **argv, const cli_globals *g)
{
    (void)g;
    cli_n_fpr size = {0};
    int have_type = 0, json = 0;
    fl_variant type = FL_BLOCK512;
    const cli_opt opts[] = {
        CLI_OPTS_N_FPR(&size, NULL, NULL),
        {"type", 0, CLI_ARG_VARIANT, &type, &have_type, NULL, NULL, NULL},
        {"json", 0, CLI_ARG_NONE, &json, NULL, NULL, NULL, NULL},
    };
    int rc = cli_parse_n_fpr(CMD, argc, argv, opts, CLI_NOPTS(opts), help, &size);
    if (rc >= 0)
        return rc;
    const uint64_t n = size.n;
    const double fpr = size.fpr;

    if (have_type) {
        /* One variant asked for by name: failing to size it is the answer, so it is an
         * error (bad parameter values are usage errors). */
        fl_params p;
        fl_status s = fl_params_for(type, n, fpr, &p);
        if (s == FL_ERR_NO_MEMORY)
            return cli_fail(EXIT_DATA, "params: %s", fl_strerror(s));
        if (s != FL_OK)
            return cli_fail(EXIT_USAGE, "params: %s for n = %llu at FPR %g: %s",
                            fl_variant_name(type), (unsigned long long)n, fpr, fl_strerror(s));
    }

    if (json)
        return params_json(n, fpr, have_type ? (int)type : -1);

    cli_table *t = cli_table_new(6, "llrrrr");
    if (!t)
        return cli_fail(EXIT_DATA, "out of memory");
    const char *head[] = {"variant", "geometry", "bytes", "size", "bits/key", "predicted FPR"};
    cli_table_row(t, head);
    int ok = 0;
    fl_status last = FL_OK;
    for (int v = FL_VARIANT_MIN; v <= FL_VARIANT_MAX; v++) {
        if (have_type && (fl_variant)v != type)
            continue;
        if (!fl_variant_name((fl_variant)v))
            continue;
        fl_status s = add_row(t, (fl_variant)v, n, fpr);
        if (s == FL_ERR_NO_MEMORY) { /* not an answer about the variant: no partial table */
            cli_table_free(t);
            return cli_fail(EXIT_DATA, "params: %s", fl_strerror(s));
        }
        if (s == FL_OK)
            ok++;
        else
            last = s;
    }
    cli_outf("n = %llu keys, target FPR = %g\n", (unsigned long long)n, fpr);
    rc = cli_table_print(t);
    cli_table_free(t);
    if (rc != EXIT_OK)
        return rc;
    /* Every variant failing means the request itself is unreasonable (e.g. n too large). */
    if (ok == 0)
        return cli_fail(EXIT_USAGE, "params: no variant can hold n = %llu at FPR %g: %s",
                        (unsigned long long)n, fpr, fl_strerror(last));
    return EXIT_OK;
}
