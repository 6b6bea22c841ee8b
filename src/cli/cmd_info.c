/*
 * filterlab info: what a filter file holds and how full it is.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>

#include "cli.h"

static const char *const CMD = "info";

static void help(void)
{
    cli_outf(
        "Usage: filterlab info FILTER\n"
        "\n"
        "Describe a filter file (a scalable Bloom filter: its parameters and each\n"
        "sub-filter's geometry, keys, target and predicted FPR): variant, geometry, hash\n"
        "and seed, key count, size, bits per key, fill (Bloom: share of bits set;\n"
        "counting Bloom: share of counters nonzero, and the saturated counters; cuckoo:\n"
        "load factor), the FPR the model predicts at the current key count, cuckoo stash\n"
        "use and huge pages. The filter is loaded under the global --max-bytes limit.\n"
        "\n"
        "Options:\n"
        "  -h, --help  show this help\n");
}

/* A scalable Bloom chain: its parameters, then one line per sub-filter. */
static int info_sbf(const char *path, fl_sbf *s)
{
    fl_sbf_info in;
    fl_status st = fl_sbf_get_info(s, &in);
    if (st != FL_OK) {
        fl_sbf_free(s);
        return cli_fail(EXIT_DATA, "info: '%s': %s", path, fl_strerror(st));
    }
    char human[32];
    cli_human_bytes(in.bytes, human, sizeof human);
    cli_outf("file:           %s\n", path);
    cli_outf("kind:           scalable Bloom filter (Almeida et al. 2007)\n");
    cli_outf("variant:        %s\n", fl_variant_name(in.variant));
    cli_outf("hash:           %s, seed %llu (0x%llx)\n", cli_hash_name(in.hash),
             (unsigned long long)in.seed, (unsigned long long)in.seed);
    cli_outf("capacity:       %llu (first sub-filter), %llu before the next growth\n",
             (unsigned long long)in.capacity, (unsigned long long)in.total_capacity);
    cli_outf("error rate:     %g (target for the whole chain)\n", in.error_rate);
    cli_outf("growth:         %g%s\n", in.growth,
             in.flags & FL_SBF_NONSCALING ? " (non-scaling: full at capacity)" : "");
    cli_outf("tightening:     %g\n", in.tightening);
    cli_outf("keys:           %llu\n", (unsigned long long)in.items);
    cli_outf("bytes:          %zu (%s)\n", in.bytes, human);
    if (in.items)
        cli_outf("bits per key:   %.2f\n", (double)in.bytes * 8 / (double)in.items);
    else
        cli_outf("bits per key:   - (no keys recorded)\n");
    cli_outf("predicted FPR:  %.3g at %llu keys\n", in.predicted_fpr,
             (unsigned long long)in.items);
    cli_outf("sub-filters:    %u\n", (unsigned)in.filters);
    for (uint32_t i = 0; i < in.filters; i++) {
        fl_sbf_filter_info fi;
        if (fl_sbf_filter_info_at(s, i, &fi) != FL_OK)
            continue;
        char geo[128];
        cli_describe_geometry(&fi.geometry, geo, sizeof geo);
        cli_human_bytes(fi.bytes, human, sizeof human);
        cli_outf("  %-3u %s (%s); %llu of %llu keys; target FPR %.3g, predicted %.3g\n",
                 (unsigned)i, geo, human, (unsigned long long)fi.items,
                 (unsigned long long)fi.capacity, fi.target_fpr, fi.predicted_fpr);
    }
    fl_sbf_free(s);
    return EXIT_OK;
}

int cmd_info(int argc, char **argv, const cli_globals *g)
{
    int rc = cli_help_only(CMD, argc, argv, help);
    if (rc >= 0)
        return rc;
    if ((rc = cli_one_operand(CMD, argc, argv, "FILTER")) != EXIT_OK)
        return rc;
    const char *path = argv[optind];

    int static_kind = cli_static_kind(path);
    if (static_kind)
        return cli_static_info(path, static_kind, g->max_bytes);
    fl_filter *f = NULL;
    fl_sbf *chain = NULL;
    /* Layered and compressed Bloom files (src/cli/cmd_variants004.c) */
    uint32_t kind = 0;
    if (fl_file_kind_file(path, &kind) == FL_OK &&
        (kind == FL_FILE_LAYERED_BLOOM || kind == FL_FILE_COMPRESSED_BLOOM))
        return cli_info_variants004(path, kind, g->max_bytes);
    if ((rc = cli_load_any(path, g->max_bytes, &f, &chain)) != EXIT_OK)
        return rc;
    if (chain)
        return info_sbf(path, chain);
    fl_info in;
    fl_status s = fl_get_info(f, &in);
    if (s != FL_OK) {
        fl_free(f);
        return cli_fail(EXIT_DATA, "info: '%s': %s", path, fl_strerror(s));
    }
    fl_variant_info vi = {0};
    fl_variant_describe(in.geometry.variant, &vi);
    int slots = vi.unit_slots != 0; /* a table of slots (cuckoo) rather than a bit array */
    uint64_t bits = (uint64_t)in.bytes * 8;
    char geo[128], human[32];
    cli_describe_geometry(&in.geometry, geo, sizeof geo);
    cli_human_bytes(in.bytes, human, sizeof human);

    const char *vname = fl_variant_name(in.geometry.variant);
    cli_outf("file:           %s\n", path);
    cli_outf("variant:        %s\n", vname ? vname : "unknown");
    cli_outf("geometry:       %s\n", geo);
    cli_outf("hash:           %s, seed %llu (0x%llx)\n", cli_hash_name(in.hash),
             (unsigned long long)in.seed, (unsigned long long)in.seed);
    if (in.keys == 0 && in.bits_set > 0)
        cli_outf("keys:           0 recorded (e.g. an imported Parquet bitset)\n");
    else
        cli_outf("keys:           %llu\n", (unsigned long long)in.keys);
    cli_outf("bytes:          %zu (%s)\n", in.bytes, human);
    if (in.keys)
        cli_outf("bits per key:   %.2f\n", (double)bits / (double)in.keys);
    else
        cli_outf("bits per key:   - (no keys recorded)\n");
    if (slots) {
        cli_outf("fill:           %.2f%% load (%llu of %llu slots used)\n", in.fill * 100,
                 (unsigned long long)in.bits_set,
                 (unsigned long long)(in.geometry.units * vi.unit_slots));
        cli_outf("stash:          %u entries used\n", (unsigned)in.stash_used);
    } else if (vi.counter_bits) { /* an array of counters: fill counts nonzero ones */
        cli_outf("fill:           %.2f%% of counters nonzero (%llu of %llu)\n", in.fill * 100,
                 (unsigned long long)in.bits_set, (unsigned long long)(bits / vi.counter_bits));
        cli_outf("saturated:      %llu counters at their maximum (never decremented again)\n",
                 (unsigned long long)in.saturated);
    } else {
        cli_outf("fill:           %.2f%% of bits set (%llu of %llu)\n", in.fill * 100,
                 (unsigned long long)in.bits_set, (unsigned long long)bits);
    }
    if (!slots) {
        /* Duplicate inserts count in keys but not in the fill, and imported Parquet
         * bitsets record no count at all: the fill-based estimate covers both. */
        if (isfinite(in.keys_from_fill))
            cli_outf("distinct keys:  ~%.0f (estimated from the fill)\n", in.keys_from_fill);
        else
            cli_outf("distinct keys:  unknown (every bit is set)\n");
    }
    if (!slots && in.keys == 0 && in.bits_set > 0)
        cli_outf("predicted FPR:  %.3g at the estimated key count\n", in.predicted_fpr);
    else
        cli_outf("predicted FPR:  %.3g at %llu keys\n", in.predicted_fpr,
                 (unsigned long long)in.keys);
    cli_outf("huge pages:     %s\n", in.huge_pages ? "yes" : "no");
    fl_free(f);
    return EXIT_OK;
}
