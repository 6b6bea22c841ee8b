/*
 * filterlab info: what a filter file holds and how full it is.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>

#include "cli.h"

static const char *const CMD = "info";

/* The kinds with an info of their own, indexed by FL_FILE_* value; any other kind is read as
 * a filter or a scalable chain (cli_load_any, which names any other kind and its commands). */
static cli_kind_info_fn *const info_of[] = {
    [FL_FILE_BINARY_FUSE] = cli_static_info,
    [FL_FILE_BLOOMIER] = cli_static_info,
    [FL_FILE_LAYERED_BLOOM] = cli_info_layered,
    [FL_FILE_COMPRESSED_BLOOM] = cli_info_compressed,
};

static void help(void)
{
    cli_outf(
        "Usage: filterlab info [--json] FILTER\n"
        "\n"
        "Describe a filter file (a scalable Bloom filter: its parameters and each\n"
        "sub-filter's geometry, keys, target and predicted FPR): variant, geometry, hash\n"
        "and seed, key count, size, bits per key, fill (Bloom: share of bits set;\n"
        "counting Bloom: share of counters nonzero, and the saturated counters; cuckoo:\n"
        "load factor), the FPR the model predicts at the current key count, cuckoo stash\n"
        "use and huge pages. The filter is loaded under the global --max-bytes limit.\n"
        "\n"
        "Options:\n");
    cli_help_option(14, "--json",
                    "one JSON object with the same facts, numbers as numbers. Every kind: file, "
                    "kind (filter, scalable_bloom, binary_fuse, bloomier, layered_bloom, "
                    "compressed_bloom), bytes. A filter: variant, geometry {variant, units, k, "
                    "description}, hash, seed, keys, bits_per_key, fill, fill_count, fill_of, "
                    "fill_unit (bits, counters, slots), stash_used, saturated, "
                    "distinct_keys_estimate, predicted_fpr, huge_pages. A scalable chain: "
                    "variant, hash, seed, capacity, total_capacity, error_rate, growth, "
                    "nonscaling, tightening, keys, bits_per_key, predicted_fpr, sub_filters "
                    "[{geometry, bytes, keys, capacity, target_fpr, predicted_fpr}]. Binary fuse "
                    "and Bloomier: arity, cell_bits, value_bits, keys, cells, segment_count, "
                    "segment_length, seed, bits_per_key, fpr. Layered: layers, variant, "
                    "can_delete, geometry, capacity, fpr, hash, seed, adds, deletes, layer_keys "
                    "[per layer]. Compressed: variant, geometry, hash, seed, keys, payload_bytes, "
                    "ones, fill, coder, chunk_bytes, chunks, compressed_bytes, index_bytes, "
                    "bits_per_key, entropy_bits_per_key. null: not known (e.g. bits_per_key "
                    "without keys).");
    cli_help_option(14, "-h, --help", "show this help");
}

/* bits per key, or null without keys. */
static void json_bits_per_key(cli_json *j, size_t bytes, uint64_t keys)
{
    if (keys)
        cli_json_num(j, "bits_per_key", (double)bytes * 8 / (double)keys);
    else
        cli_json_null(j, "bits_per_key");
}

static void sbf_json(const char *path, const fl_sbf *s, const fl_sbf_info *in)
{
    cli_json j;
    cli_json_begin(&j);
    cli_json_str(&j, "file", path);
    cli_json_str(&j, "kind", "scalable_bloom");
    cli_json_str(&j, "variant", fl_variant_name(in->variant));
    cli_json_str(&j, "hash", cli_hash_name(in->hash));
    cli_json_u64(&j, "seed", in->seed);
    cli_json_u64(&j, "capacity", in->capacity);
    cli_json_u64(&j, "total_capacity", in->total_capacity);
    cli_json_num(&j, "error_rate", in->error_rate);
    cli_json_num(&j, "growth", in->growth);
    cli_json_bool(&j, "nonscaling", (in->flags & FL_SBF_NONSCALING) != 0);
    cli_json_num(&j, "tightening", in->tightening);
    cli_json_u64(&j, "keys", in->items);
    cli_json_u64(&j, "bytes", in->bytes);
    json_bits_per_key(&j, in->bytes, in->items);
    cli_json_num(&j, "predicted_fpr", in->predicted_fpr);
    cli_json_array(&j, "sub_filters");
    for (uint32_t i = 0; i < in->filters; i++) {
        fl_sbf_filter_info fi;
        if (fl_sbf_filter_info_at(s, i, &fi) != FL_OK)
            continue;
        cli_json_object(&j, NULL);
        cli_json_geometry(&j, "geometry", &fi.geometry);
        cli_json_u64(&j, "bytes", fi.bytes);
        cli_json_u64(&j, "keys", fi.items);
        cli_json_u64(&j, "capacity", fi.capacity);
        cli_json_num(&j, "target_fpr", fi.target_fpr);
        cli_json_num(&j, "predicted_fpr", fi.predicted_fpr);
        cli_json_close(&j);
    }
    cli_json_end(&j);
}

/* A filter's facts, as the text below prints them. */
static void filter_json(const char *path, const fl_info *in, const fl_variant_info *vi)
{
    int slots = vi->unit_slots != 0;
    uint64_t bits = (uint64_t)in->bytes * 8;
    cli_json j;
    cli_json_begin(&j);
    cli_json_str(&j, "file", path);
    cli_json_str(&j, "kind", "filter");
    cli_json_str(&j, "variant", fl_variant_name(in->geometry.variant));
    cli_json_geometry(&j, "geometry", &in->geometry);
    cli_json_str(&j, "hash", cli_hash_name(in->hash));
    cli_json_u64(&j, "seed", in->seed);
    cli_json_u64(&j, "keys", in->keys);
    cli_json_u64(&j, "bytes", in->bytes);
    json_bits_per_key(&j, in->bytes, in->keys);
    cli_json_num(&j, "fill", in->fill);
    cli_json_u64(&j, "fill_count", in->bits_set);
    cli_json_u64(&j, "fill_of", slots ? in->geometry.units * vi->unit_slots
                                : vi->counter_bits ? bits / vi->counter_bits : bits);
    cli_json_str(&j, "fill_unit", slots ? "slots" : vi->counter_bits ? "counters" : "bits");
    if (slots)
        cli_json_u64(&j, "stash_used", in->stash_used);
    else
        cli_json_null(&j, "stash_used");
    if (vi->counter_bits)
        cli_json_u64(&j, "saturated", in->saturated);
    else
        cli_json_null(&j, "saturated");
    if (slots)
        cli_json_null(&j, "distinct_keys_estimate");
    else
        cli_json_num(&j, "distinct_keys_estimate", in->keys_from_fill); /* inf: null */
    cli_json_num(&j, "predicted_fpr", in->predicted_fpr);
    cli_json_bool(&j, "huge_pages", in->huge_pages);
    cli_json_end(&j);
}

/* A scalable Bloom chain: its parameters, then one line per sub-filter. */
static int info_sbf(const char *path, fl_sbf *s, int json)
{
    fl_sbf_info in;
    fl_status st = fl_sbf_get_info(s, &in);
    if (st != FL_OK) {
        fl_sbf_free(s);
        return cli_fail(EXIT_DATA, "info: '%s': %s", path, fl_strerror(st));
    }
    if (json) {
        sbf_json(path, s, &in);
        fl_sbf_free(s);
        return EXIT_OK;
    }
    char human[32];
    cli_human_bytes(in.bytes, human, sizeof human);
    cli_outf("file:           %s\n", path);
    cli_outf("kind:           scalable Bloom filter (Almeida et al. 2007)\n");
    if (in.classic_filters)
        cli_outf("variant:        %s (the last %u sub-filters classic: past %gx classic's "
                 "bytes the blocked layout would grow as 1/FPR)\n",
                 fl_variant_name(in.variant), (unsigned)in.classic_filters, in.layout_slack);
    else
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
        cli_outf("  %-3u %s%s (%s); %llu of %llu keys; target FPR %.3g, predicted %.3g\n",
                 (unsigned)i, fi.geometry.variant != in.variant ? "classic: " : "", geo, human, (unsigned long long)fi.items,
                 (unsigned long long)fi.capacity, fi.target_fpr, fi.predicted_fpr);
    }
    fl_sbf_free(s);
    return EXIT_OK;
}

int cmd_info(int argc, char **argv, const cli_globals *g)
{
    int json, rc;
    if ((rc = cli_json_only(CMD, argc, argv, help, &json)) >= 0)
        return rc;
    if ((rc = cli_one_operand(CMD, argc, argv, "FILTER")) != EXIT_OK)
        return rc;
    const char *path = argv[optind];

    /* A kind with an info of its own (info_of: static, layered, compressed). */
    uint32_t kind = 0;
    cli_kind_info_fn *own =
        fl_file_kind_file(path, &kind) == FL_OK && kind < sizeof info_of / sizeof info_of[0]
            ? info_of[kind] : NULL;
    if (own)
        return own(path, kind, g->max_bytes, json);
    fl_filter *f = NULL;
    fl_sbf *chain = NULL;
    if ((rc = cli_load_any(path, g->max_bytes, &f, &chain)) != EXIT_OK)
        return rc;
    if (chain)
        return info_sbf(path, chain, json);
    fl_info in;
    fl_status s = fl_get_info(f, &in);
    if (s != FL_OK) {
        fl_free(f);
        return cli_fail(EXIT_DATA, "info: '%s': %s", path, fl_strerror(s));
    }
    fl_variant_info vi = {0};
    fl_variant_describe(in.geometry.variant, &vi);
    if (json) {
        filter_json(path, &in, &vi);
        fl_free(f);
        return EXIT_OK;
    }
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
