/*
 * filterlab layered-build, layered-count, and what `filterlab info` prints for a layered
 * Bloom filter (include/filterlab_layered.h; Zhiwang, Jungang and Jian, ICACTE 2010).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

CLI_SAVER(lbf_saver, fl_lbf, "the layered filter");

/* A failed load of a layered file: one line, naming the file's own kind when it holds
 * another (load.c). */
static int load_status(const char *path, fl_status s, int err, size_t max_bytes)
{
    return s == FL_OK ? EXIT_OK
                      : cli_load_kind_error(path, s, err, FL_FILE_LAYERED_BLOOM, max_bytes);
}

/* ---- layered-build ------------------------------------------------------------------------ */

static void help_layered_build(void)
{
    char variants[128];
    cli_variant_list(CLI_VARIANTS_NEVER_FULL, " or ", variants, sizeof variants);
    cli_outf("Usage: filterlab layered-build --layers R --n N --fpr P [OPTIONS] -o OUT\n"
             "\n");
    cli_help_wrap(0, 0,
                  "Build a layered Bloom filter (Zhiwang, Jungang and Jian 2010): R Bloom filters that count "
                  "how many times each key was added, up to R. Every input line is one add, so "
                  "a line that appears c times counts c (saturating at R). Each layer is sized "
                  "for N distinct keys at FPR P; a count is never below the adds (up to R) and "
                  "reads c + d with probability about P^d. OUT is written atomically.");
    cli_outf("\nOptions:\n");
    const size_t col = 21;
    cli_help_option(col, "--layers R", "layers, 1..%u (the largest count)", FL_LBF_LAYERS_MAX);
    cli_help_option(col, "--n N", "distinct keys each layer is sized for");
    cli_help_option(col, "--fpr P", "each layer's false positive rate");
    cli_help_option(col, "--variant NAME", "%s (default block512; those with deletes can "
                    "delete)", variants);
    cli_help_option(col, "--seed S", "hash seed (default 0)");
    cli_help_option(col, "--input FILE", "keys from FILE ('-' or absent: standard input)");
    cli_help_option(col, "-o, --output OUT", "write the filter here ('-': standard output; "
                    "required)");
    cli_help_option(col, "-h, --help", "show this help");
}

/* Every line of a batch goes into the layered filter (layered-build). */
typedef struct layered_adds {
    fl_lbf *l;
    size_t saturated;
    uint64_t lines;
} layered_adds;

static void lbf_hash_batch(const fl_lbf *l, cli_batch *b)
{
    for (size_t i = 0; i < b->count; i++)
        b->hash[i] = fl_lbf_hash_bytes(l, cli_batch_key(b, i), b->len[i]);
}

static int add_batch(cli_batch *b, void *ctx)
{
    layered_adds *a = ctx;
    lbf_hash_batch(a->l, b);
    size_t sat = 0;
    fl_status s = fl_lbf_add_hashes(a->l, b->hash, b->count, &sat);
    a->saturated += sat;
    a->lines += b->count;
    if (s != FL_OK)
        return cli_fail(EXIT_DATA, "layered-build: add failed: %s", fl_strerror(s));
    return EXIT_OK;
}

int cmd_layered_build(int argc, char **argv, const cli_globals *g)
{
    static const char *const CMD = "layered-build";
    fl_lbf_config cfg = {0};
    uint64_t layers = 0;
    int have_fpr = 0;
    const char *input = NULL, *output = NULL;
    const cli_opt opts[] = {
        {"layers", 0, CLI_ARG_COUNT, &layers, NULL, NULL, NULL, NULL},
        {"n", 0, CLI_ARG_COUNT, &cfg.capacity, NULL, NULL, NULL, NULL},
        {"fpr", 0, CLI_ARG_FPR, &cfg.fpr, &have_fpr, NULL, NULL, NULL},
        {"variant", 0, CLI_ARG_VARIANT, &cfg.variant, NULL, NULL, NULL, NULL},
        {"seed", 0, CLI_ARG_SEED, &cfg.seed, NULL, NULL, NULL, NULL},
        CLI_OPT_INPUT(&input, NULL),
        {"output", 'o', CLI_ARG_STRING, &output, NULL, NULL, NULL, NULL},
    };
    int rc = cli_parse_options(CMD, argc, argv, opts, CLI_NOPTS(opts), help_layered_build);
    if (rc >= 0)
        return rc;
    rc = cli_output_operands(CMD, argc, argv, NULL);
    if (rc != EXIT_OK)
        return rc;
    if (!output)
        return cli_usage_error(CMD, "-o OUT is required");
    if (layers < 1 || layers > FL_LBF_LAYERS_MAX)
        return cli_usage_error(CMD, "--layers must be 1..%u", FL_LBF_LAYERS_MAX);
    if (cfg.capacity < 1 || !have_fpr)
        return cli_usage_error(CMD, "--n (at least 1) and --fpr are required");
    /* A layer must take every add: a variant that may refuse a key cannot be one. */
    if (cfg.variant && !cli_variant_in(CLI_VARIANTS_NEVER_FULL, cfg.variant)) {
        char list[128];
        cli_variant_list(CLI_VARIANTS_NEVER_FULL, ", ", list, sizeof list);
        return cli_usage_error(CMD, "--variant %s: a layer must take every key (%s do)",
                               fl_variant_name(cfg.variant), list);
    }
    cfg.layers = (uint32_t)layers;
    /* R layers of one filter's sizing each (include/filterlab_layered.h). */
    fl_params one;
    if (fl_params_for(cfg.variant ? cfg.variant : FL_BLOCK512, cfg.capacity, cfg.fpr, &one) ==
            FL_OK &&
        (rc = cli_check_create(CMD, "a layered Bloom filter", one.bytes * cfg.layers, g)) !=
            EXIT_OK)
        return rc;
    fl_lbf *l = NULL;
    fl_status s = fl_lbf_create(&cfg, &l);
    if (s != FL_OK)
        return cli_fail(s == FL_ERR_NO_MEMORY ? EXIT_DATA : EXIT_USAGE,
                        "%s: cannot create the filter: %s", CMD, fl_strerror(s));
    layered_adds adds = {l, 0, 0};
    cli_progress_start(CMD);
    rc = cli_batch_each(input, add_batch, &adds);
    cli_progress_stop();
    size_t saturated = adds.saturated;
    if (rc == EXIT_OK)
        rc = cli_save_object(l, &lbf_saver, output);
    if (rc == EXIT_OK && adds.lines == 0)
        cli_warn_no_keys(input, 1, "filter");
    if (rc == EXIT_OK && saturated)
        fprintf(stderr, "filterlab: %s: %zu adds of keys already counted %u were not counted\n",
                CMD, saturated, cfg.layers);
    fl_lbf_free(l);
    return rc;
}

/* ---- layered-count ------------------------------------------------------------------------ */

static void help_layered_count(void)
{
    cli_outf(
        "Usage: filterlab layered-count FILTER [--input FILE] [--min C]\n"
        "\n"
        "Print the count of every input line in a layered Bloom filter, as\n"
        "COUNT<TAB>LINE, in input order (counted in batches, one layer's kernel at a\n"
        "time).\n"
        "\n"
        "Options:\n");
    cli_help_options();
}

/* Prints COUNT<TAB>LINE for every line of a batch counted at least min (layered-count). */
typedef struct layered_counts {
    const fl_lbf *l;
    uint64_t min;
} layered_counts;

static int count_batch(cli_batch *b, void *ctx)
{
    const layered_counts *c = ctx;
    lbf_hash_batch(c->l, b);
    fl_lbf_count_hashes(c->l, b->hash, b->count, b->hit);
    for (size_t i = 0; i < b->count; i++) {
        if (b->hit[i] < c->min)
            continue;
        cli_outf("%u\t", (unsigned)b->hit[i]);
        cli_out_line(cli_batch_key(b, i), b->len[i]);
    }
    return EXIT_OK;
}

int cmd_layered_count(int argc, char **argv, const cli_globals *g)
{
    static const char *const CMD = "layered-count";
    const char *input = NULL;
    uint64_t min = 0;
    const cli_opt opts[] = {
        CLI_OPT_INPUT(&input, CLI_HELP_KEYS_FROM),
        {"min", 0, CLI_ARG_COUNT, &min, NULL, NULL,
         "--min C", "print only lines whose count is at least C"},
    };
    int rc = cli_parse_one_operand(CMD, argc, argv, opts, CLI_NOPTS(opts), help_layered_count,
                                   "FILTER");
    if (rc >= 0)
        return rc;
    fl_lbf *l = NULL;
    errno = 0;
    fl_status s = fl_lbf_load_file(argv[optind], g->max_bytes, &l);
    if (s != FL_OK)
        return load_status(argv[optind], s, errno, g->max_bytes);
    layered_counts counts = {l, min};
    rc = cli_batch_each(input, count_batch, &counts);
    fl_lbf_free(l);
    return rc;
}

/* ---- info --------------------------------------------------------------------------------- */

int cli_info_layered(const char *path, uint32_t kind, size_t max_bytes, int json)
{
    (void)kind;
    cli_json j;
    char size[32], geo[128];
    fl_lbf *l = NULL;
    errno = 0;
    fl_status s = fl_lbf_load_file(path, max_bytes, &l);
    if (s != FL_OK)
        return load_status(path, s, errno, max_bytes);
    fl_lbf_info in;
    fl_lbf_get_info(l, &in);
    if (json) {
        cli_json_begin(&j);
        cli_json_str(&j, "file", path);
        cli_json_str(&j, "kind", "layered_bloom");
        cli_json_u64(&j, "layers", in.layers);
        cli_json_str(&j, "variant", fl_variant_name(in.variant));
        cli_json_bool(&j, "can_delete", in.can_delete);
        cli_json_geometry(&j, "geometry", &in.geometry);
        cli_json_u64(&j, "capacity", in.capacity);
        cli_json_num(&j, "fpr", in.fpr);
        cli_json_str(&j, "hash", cli_hash_name(in.hash));
        cli_json_u64(&j, "seed", in.seed);
        cli_json_u64(&j, "bytes", in.bytes);
        cli_json_u64(&j, "adds", in.adds);
        cli_json_u64(&j, "deletes", in.deletes);
        cli_json_array(&j, "layer_keys");
        for (uint32_t i = 0; i < in.layers; i++)
            cli_json_u64(&j, NULL, fl_lbf_layer_keys(l, i));
        cli_json_end(&j);
        fl_lbf_free(l);
        return EXIT_OK;
    }
    cli_human_bytes(in.bytes, size, sizeof size);
    cli_describe_geometry(&in.geometry, geo, sizeof geo);
    cli_outf("kind:           layered Bloom filter (Zhiwang et al. 2010)\n");
    cli_outf("layers:         %u (counts up to %u)\n", in.layers, in.layers);
    cli_outf("variant:        %s%s\n", fl_variant_name(in.variant),
             in.can_delete ? " (deletes allowed)" : "");
    cli_outf("each layer:     %s, sized for %llu keys at FPR %g\n", geo,
             (unsigned long long)in.capacity, in.fpr);
    cli_outf("hash:           %s, seed %llu (remixed per layer)\n", cli_hash_name(in.hash),
             (unsigned long long)in.seed);
    cli_outf("payload:        %s\n", size);
    cli_outf("adds:           %llu counted, %llu deletes\n", (unsigned long long)in.adds,
             (unsigned long long)in.deletes);
    for (uint32_t i = 0; i < in.layers; i++)
        cli_outf("layer %-2u        %llu keys\n", i, (unsigned long long)fl_lbf_layer_keys(l, i));
    fl_lbf_free(l);
    return EXIT_OK;
}
