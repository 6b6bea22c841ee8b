/*
 * filterlab compress, decompress, compressed-query, and what `filterlab info` prints for a
 * compressed Bloom filter
 * (include/filterlab_compressed.h; Mitzenmacher, "Compressed Bloom Filters", 2002).
 *
 * compress has two forms. Given a filter file it compresses that filter as it is, which
 * pays only when the filter is far from half full (a filter sized the usual way, p near
 * 1/2, has nothing to gain). Given keys, --n and a budget it builds the filter Mitzenmacher
 * plans for compression first (fl_cbf_plan_for_bits / fl_cbf_plan_for_fpr: a larger,
 * sparser bit array with fewer hashes, whose compressed size is what the budget bounds),
 * inserts the keys, then compresses it.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The uncompressed size a plan may reach when --max-bits-per-key is not given: this many
 * times the budget (Z, or the plain filter's bits for --fpr). scripts/repro's table 13
 * found the best plan at z = 8 bits per key well inside it (m = 96.9 bits per key). */
#define PLAN_M_FACTOR 16

static int load_cbf(const char *path, size_t max_bytes, fl_cbf **z)
{
    errno = 0;
    fl_status s = fl_cbf_load_file(path, max_bytes, z);
    if (s == FL_OK)
        return EXIT_OK;
    return cli_load_kind_error(path, s, errno, FL_FILE_COMPRESSED_BLOOM, max_bytes);
}

CLI_SAVER(cbf_saver, fl_cbf, "the compressed filter");

/* ---- compress ----------------------------------------------------------------------------- */

static void help_compress(void)
{
    char types[128], coders[64];
    cli_variant_list(CLI_VARIANTS_BIT_ARRAYS, " or ", types, sizeof types);
    cli_coder_list(" or ", coders, sizeof coders);
    cli_outf("Usage: filterlab compress FILTER -o OUT [--coder NAME] [--chunk BYTES]\n"
             "  or:  filterlab compress --n N (--bits-per-key Z | --fpr P) [OPTIONS] -o OUT\n"
             "\n");
    cli_help_wrap(0, 0,
                  "Write a compressed Bloom filter (Mitzenmacher 2002): the bit array in chunks "
                  "coded one by one, so that a lookup decodes only its key's chunk (blocked "
                  "variants). Prints the sizes.");
    cli_outf("\n");
    cli_help_wrap(0, 0,
                  "The first form compresses an existing filter file as it is. That pays only for "
                  "a filter far from half full: a filter sized for its FPR the usual way (about "
                  "half its bits set) does not shrink, and its file grows by the chunk index.");
    cli_outf("\n");
    cli_help_wrap(0, 0,
                  "The second form builds the filter meant to be compressed, from keys: it plans "
                  "a larger, sparser bit array with fewer hashes (Mitzenmacher's trade: a reader "
                  "holds more bits uncompressed, the file is smaller or the FPR lower), inserts "
                  "every input line, then compresses it. With --bits-per-key it gets the least "
                  "FPR whose compressed size is about Z bits per key; with --fpr, the least "
                  "compressed size at FPR P. Use it when the file is sent or stored and read "
                  "rarely; keep a plain filter where lookups are hot.");
    cli_outf("\nOptions:\n");
    const size_t col = 25;
    cli_help_option(col, "-o, --output OUT", "write the compressed filter here ('-': standard "
                    "output; required)");
    cli_help_option(col, "--coder NAME", "%s (default %s: Golomb-Rice codes of the gaps between "
                    "set bits, measured smaller on Bloom payloads)", coders,
                    fl_coder_name(FL_CODER_DEFAULT));
    cli_help_option(col, "--chunk BYTES", "payload bytes per chunk, a multiple of 64 (default %u)",
                    FL_CBF_CHUNK_DEFAULT);
    cli_help_option(col, "--n N", "keys the planned filter is for (second form)");
    cli_help_option(col, "--bits-per-key Z", "compressed size budget, bits per key (second form)");
    cli_help_option(col, "--fpr P", "target false positive rate, 0 < P < 1 (second form)");
    cli_help_option(col, "--max-bits-per-key M", "largest uncompressed size a plan may take, in "
                    "bits per key (default %d times Z, or %d times the plain filter's bits at P)",
                    PLAN_M_FACTOR, PLAN_M_FACTOR);
    cli_help_option(col, "--type TYPE", "%s (default block512; the blocked ones can be queried "
                    "without decompressing)", types);
    cli_help_option(col, "--seed S", "hash seed (decimal or 0x hex; default 0)");
    cli_help_option(col, "--input FILE", "keys from FILE ('-' or absent: standard input)");
    cli_help_option(col, "-h, --help", "show this help");
}

/* The second form's request. */
typedef struct plan_request {
    uint64_t n;
    double bits_per_key, fpr, max_bits_per_key; /* 0: not given */
    fl_variant variant;
    uint64_t seed;
    const char *input;
} plan_request;

/* Inserts every line of a batch (the planned build). */
static int insert_batch(cli_batch *b, void *ctx)
{
    fl_filter *f = ctx;
    cli_batch_hash(b, f);
    fl_status s = fl_insert_hashes(f, b->hash, b->count, NULL);
    return s == FL_OK ? EXIT_OK : cli_fail(EXIT_DATA, "compress: insert failed: %s",
                                           fl_strerror(s));
}

/* Plans, builds and fills the filter of the second form. */
static int build_planned(const plan_request *r, fl_filter **out, const cli_globals *g)
{
    static const char *const CMD = "compress";
    double budget = r->bits_per_key;
    if (r->fpr > 0) { /* the plain filter's size at P is the scale of the bound */
        fl_params plain;
        fl_status s = fl_params_for(r->variant, r->n, r->fpr, &plain);
        if (s != FL_OK)
            return cli_fail(EXIT_USAGE, "%s: no %s filter reaches FPR %g for %llu keys: %s", CMD,
                            fl_variant_name(r->variant), r->fpr, (unsigned long long)r->n,
                            fl_strerror(s));
        budget = plain.bits_per_key;
    }
    double m_per_key = r->max_bits_per_key > 0 ? r->max_bits_per_key : PLAN_M_FACTOR * budget;
    double m_max = m_per_key * (double)r->n, z = r->bits_per_key * (double)r->n;
    if (m_max >= 18446744073709551616.0 || z >= 18446744073709551616.0)
        return cli_usage_error(CMD, "--n times the bits per key exceeds 2^64 bits");
    fl_cbf_plan plan;
    fl_status s = r->fpr > 0
                      ? fl_cbf_plan_for_fpr(r->variant, r->n, r->fpr, (uint64_t)m_max, &plan)
                      : fl_cbf_plan_for_bits(r->variant, r->n, (uint64_t)z, (uint64_t)m_max, &plan);
    if (s != FL_OK)
        return cli_fail(EXIT_USAGE, "%s: no %s plan for %llu keys within %g bits per key "
                        "uncompressed: %s", CMD, fl_variant_name(r->variant),
                        (unsigned long long)r->n, m_per_key, fl_strerror(s));
    char geo[128];
    cli_describe_geometry(&plan.geometry, geo, sizeof geo);
    cli_outf("plan: %s %s, %.2f bits per key uncompressed, %.1f%% of bits 0, predicted FPR "
             "%.3g and m H(p) = %.2f bits per key at %llu keys\n",
             fl_variant_name(r->variant), geo, (double)plan.bits / (double)r->n,
             100 * plan.zero_fraction, plan.fpr, plan.entropy_bits / (double)r->n,
             (unsigned long long)r->n);
    fl_config cfg = {.variant = r->variant, .geometry = plan.geometry, .seed = r->seed};
    int rc = cli_create_filter(CMD, &cfg, g, out);
    if (rc != EXIT_OK)
        return rc;
    uint64_t lines_before = cli_lines_total();
    cli_progress_start(CMD);
    rc = cli_batch_each(r->input, insert_batch, *out);
    cli_progress_stop();
    if (rc == EXIT_OK && cli_lines_total() == lines_before)
        cli_warn_no_keys(r->input, 1, "filter");
    fl_info in;
    if (rc == EXIT_OK && fl_get_info(*out, &in) == FL_OK && in.keys > r->n)
        fprintf(stderr, "filterlab: %s: %llu keys read, more than --n %llu: the FPR is above "
                "the plan's\n", CMD, (unsigned long long)in.keys, (unsigned long long)r->n);
    if (rc != EXIT_OK) {
        fl_free(*out);
        *out = NULL;
    }
    return rc;
}

/* --coder NAME: one of fl_coder_name's. */
static int parse_coder(const char *cmd, const char *opt, const char *value, void *dest)
{
    (void)opt;
    if (fl_coder_parse(value, dest) != FL_OK) {
        char q[CLI_QUOTE_BUF], list[64];
        cli_quote(value, q, sizeof q);
        cli_coder_list(", ", list, sizeof list);
        return cli_usage_error(cmd, "unknown coder %s (%s)", q, list), -1;
    }
    return 0;
}

/* --bits-per-key B and --max-bits-per-key B: a positive number of bits. */
static int parse_bits(const char *cmd, const char *opt, const char *value, void *dest)
{
    char *end;
    double v = strtod(value, &end);
    if (*value == '\0' || *end != '\0' || !(v > 0) || v > 1e6)
        return cli_usage_error(cmd, "%s: '%s' is not a positive number of bits", opt, value), -1;
    *(double *)dest = v;
    return 0;
}

int cmd_compress(int argc, char **argv, const cli_globals *g)
{
    static const char *const CMD = "compress";
    fl_coder coder = FL_CODER_DEFAULT;
    uint64_t chunk = FL_CBF_CHUNK_DEFAULT;
    plan_request r = {.variant = FL_BLOCK512};
    const char *output = NULL;
    int planned = 0; /* an option of the second form was given */
    const cli_opt opts[] = {
        {"coder", 0, CLI_ARG_CUSTOM, &coder, NULL, parse_coder, NULL, NULL},
        {"chunk", 0, CLI_ARG_COUNT, &chunk, NULL, NULL, NULL, NULL},
        {"n", 0, CLI_ARG_COUNT, &r.n, &planned, NULL, NULL, NULL},
        {"bits-per-key", 0, CLI_ARG_CUSTOM, &r.bits_per_key, &planned, parse_bits, NULL, NULL},
        {"fpr", 0, CLI_ARG_FPR, &r.fpr, &planned, NULL, NULL, NULL},
        {"max-bits-per-key", 0, CLI_ARG_CUSTOM, &r.max_bits_per_key, &planned, parse_bits, NULL, NULL},
        {"type", 0, CLI_ARG_VARIANT, &r.variant, &planned, NULL, NULL, NULL},
        {"seed", 0, CLI_ARG_SEED, &r.seed, &planned, NULL, NULL, NULL},
        {"input", 0, CLI_ARG_STRING, &r.input, &planned, NULL, NULL, NULL},
        {"output", 'o', CLI_ARG_STRING, &output, NULL, NULL, NULL, NULL},
    };
    int rc = cli_parse_options(CMD, argc, argv, opts, CLI_NOPTS(opts), help_compress);
    if (rc >= 0)
        return rc;
    if (planned && optind < argc)
        return cli_usage_error(CMD, "a FILTER to compress ('%s') and the options that build a "
                               "planned filter (--n, --input, ...) are alternatives", argv[optind]);
    if (!planned && optind == argc)
        return cli_usage_error(CMD, "give a FILTER to compress, or --n with --bits-per-key or "
                               "--fpr to build a planned one");
    rc = cli_output_operands(CMD, argc, argv, planned ? NULL : "FILTER");
    if (rc != EXIT_OK)
        return rc;
    if (!output)
        return cli_usage_error(CMD, "-o OUT is required");
    if (chunk == 0 || chunk % 64 || chunk > FL_CBF_CHUNK_MAX)
        return cli_usage_error(CMD, "--chunk must be a multiple of 64 up to %u", FL_CBF_CHUNK_MAX);
    if (planned) {
        if (r.n == 0)
            return cli_usage_error(CMD, "building a planned filter needs --n (at least 1)");
        if ((r.bits_per_key > 0) == (r.fpr > 0))
            return cli_usage_error(CMD, "give one of --bits-per-key and --fpr with --n");
        if (!cli_variant_in(CLI_VARIANTS_BIT_ARRAYS, r.variant)) {
            char list[128];
            cli_variant_list(CLI_VARIANTS_BIT_ARRAYS, ", ", list, sizeof list);
            return cli_usage_error(CMD, "--type %s: only Bloom bit arrays compress (%s)",
                                   fl_variant_name(r.variant), list);
        }
    }
    const char *source = planned ? "the planned filter" : argv[optind];
    fl_filter *f = NULL;
    rc = planned ? build_planned(&r, &f, g) : cli_load_filter(argv[optind], g->max_bytes, &f);
    if (rc != EXIT_OK)
        return rc;
    fl_cbf *z = NULL;
    fl_status s = fl_cbf_compress(f, coder, (uint32_t)chunk, &z);
    fl_free(f);
    if (s != FL_OK) {
        char list[128];
        cli_variant_list(CLI_VARIANTS_BIT_ARRAYS, ", ", list, sizeof list);
        return cli_fail(s == FL_ERR_UNSUPPORTED ? EXIT_USAGE : EXIT_DATA, "%s: '%s': %s%s%s%s",
                        CMD, source, fl_strerror(s),
                        s == FL_ERR_UNSUPPORTED ? " (only Bloom bit arrays compress: " : "",
                        s == FL_ERR_UNSUPPORTED ? list : "", s == FL_ERR_UNSUPPORTED ? ")" : "");
    }
    rc = cli_save_object(z, &cbf_saver, output);
    if (rc == EXIT_OK) {
        fl_cbf_info in;
        fl_cbf_get_info(z, &in);
        double keys = in.keys ? (double)in.keys : 1;
        /* The sizes go to stderr when the file itself is on standard output. */
        FILE *to = strcmp(output, "-") == 0 ? stderr : stdout;
        char line[256];
        snprintf(line, sizeof line,
                 "%zu payload bytes -> %zu code bytes + %zu index bytes in %llu chunks "
                 "(%.3f bits per key; entropy bound %.3f)\n",
                 in.payload_bytes, in.compressed_bytes, in.index_bytes,
                 (unsigned long long)in.chunks, 8.0 * (double)in.compressed_bytes / keys,
                 in.entropy_bits / keys);
        if (to == stdout)
            cli_outf("%s", line);
        else
            fputs(line, stderr);
    }
    fl_cbf_free(z);
    return rc;
}

/* ---- decompress --------------------------------------------------------------------------- */

static void help_decompress(void)
{
    cli_outf("Usage: filterlab decompress FILTER -o OUT\n"
             "\n"
             "Write the filter a compressed Bloom filter file holds, every chunk decoded and\n"
             "checked, as an ordinary filter file (which 'filterlab query' reads and more keys\n"
             "can be added to with 'filterlab build').\n"
             "\n"
             "Options:\n");
    cli_help_options();
}

int cmd_decompress(int argc, char **argv, const cli_globals *g)
{
    static const char *const CMD = "decompress";
    const char *output;
    int rc = cli_output_only(CMD, argc, argv, help_decompress,
                             "write the filter here ('-': standard output; required)", &output);
    if (rc >= 0)
        return rc;
    rc = cli_output_operands(CMD, argc, argv, "FILTER");
    if (rc != EXIT_OK)
        return rc;
    if (!output)
        return cli_usage_error(CMD, "-o OUT is required");
    fl_cbf *z = NULL;
    if ((rc = load_cbf(argv[optind], g->max_bytes, &z)) != EXIT_OK)
        return rc;
    fl_filter *f = NULL;
    fl_status s = fl_cbf_decompress(z, &f);
    fl_cbf_free(z);
    if (s != FL_OK)
        return cli_fail(EXIT_DATA, "cannot decompress '%s': %s", argv[optind], fl_strerror(s));
    rc = cli_save_filter(f, output);
    fl_free(f);
    return rc;
}

/* ---- compressed-query --------------------------------------------------------------------- */

static void help_compressed_query(void)
{
    cli_outf("Usage: filterlab compressed-query FILTER [--input FILE] [--count]\n"
             "\n"
             "Look every input line up in a compressed Bloom filter file without decompressing\n"
             "it whole: each batch decodes only the chunks its keys fall in (blocked\n"
             "variants). Prints the lines that may be present, in input order.\n"
             "\n"
             "Options:\n");
    cli_help_options();
}

/* Looks a batch up, printing the lines that may be present unless only counting
 * (compressed-query). */
typedef struct compressed_lookups {
    const fl_cbf *z;
    const char *path;
    int count_only;
    uint64_t positives;
} compressed_lookups;

static int lookup_batch(cli_batch *b, void *ctx)
{
    compressed_lookups *q = ctx;
    for (size_t i = 0; i < b->count; i++)
        b->hash[i] = fl_cbf_hash_bytes(q->z, cli_batch_key(b, i), b->len[i]);
    size_t pos = 0;
    fl_status s = fl_cbf_contains_hashes(q->z, b->hash, b->count, b->hit, &pos, NULL);
    if (s != FL_OK)
        return cli_fail(s == FL_ERR_UNSUPPORTED ? EXIT_USAGE : EXIT_DATA, "%s: '%s': %s%s",
                        "compressed-query", q->path, fl_strerror(s),
                        s == FL_ERR_UNSUPPORTED
                            ? " (a classic filter spreads keys over every chunk: decompress it)"
                            : "");
    q->positives += pos;
    for (size_t i = 0; i < b->count && !q->count_only; i++)
        if (b->hit[i])
            cli_out_line(cli_batch_key(b, i), b->len[i]);
    return EXIT_OK;
}

int cmd_compressed_query(int argc, char **argv, const cli_globals *g)
{
    static const char *const CMD = "compressed-query";
    const char *input = NULL;
    int count_only = 0;
    const cli_opt opts[] = {
        CLI_OPT_INPUT(&input, CLI_HELP_KEYS_FROM),
        {"count", 0, CLI_ARG_NONE, &count_only, NULL, NULL,
         "--count", "print only the number of lines that may be present"},
    };
    int rc = cli_parse_one_operand(CMD, argc, argv, opts, CLI_NOPTS(opts), help_compressed_query,
                                   "FILTER");
    if (rc >= 0)
        return rc;
    fl_cbf *z = NULL;
    if ((rc = load_cbf(argv[optind], g->max_bytes, &z)) != EXIT_OK)
        return rc;
    compressed_lookups q = {z, argv[optind], count_only, 0};
    rc = cli_batch_each(input, lookup_batch, &q);
    if (rc == EXIT_OK && count_only)
        cli_outf("%llu\n", (unsigned long long)q.positives);
    fl_cbf_free(z);
    return rc;
}

/* ---- info --------------------------------------------------------------------------------- */

int cli_info_compressed(const char *path, uint32_t kind, size_t max_bytes, int json)
{
    (void)kind;
    cli_json j;
    char size[32], geo[128];
    fl_cbf *z = NULL;
    int rc = load_cbf(path, max_bytes, &z);
    if (rc != EXIT_OK)
        return rc;
    fl_cbf_info in;
    fl_cbf_get_info(z, &in);
    cli_describe_geometry(&in.geometry, geo, sizeof geo);
    cli_human_bytes(in.payload_bytes, size, sizeof size);
    double keys = in.keys ? (double)in.keys : 1;
    double m = 8.0 * (double)in.payload_bytes;
    if (json) {
        cli_json_begin(&j);
        cli_json_str(&j, "file", path);
        cli_json_str(&j, "kind", "compressed_bloom");
        cli_json_str(&j, "variant", fl_variant_name(in.geometry.variant));
        cli_json_geometry(&j, "geometry", &in.geometry);
        cli_json_str(&j, "hash", cli_hash_name(in.hash));
        cli_json_u64(&j, "seed", in.seed);
        cli_json_u64(&j, "keys", in.keys);
        cli_json_u64(&j, "bytes", in.payload_bytes);
        cli_json_u64(&j, "payload_bytes", in.payload_bytes);
        cli_json_u64(&j, "ones", in.ones);
        cli_json_num(&j, "fill", m > 0 ? (double)in.ones / m : 0);
        cli_json_str(&j, "coder", fl_coder_name(in.coder));
        cli_json_u64(&j, "chunk_bytes", in.chunk_bytes);
        cli_json_u64(&j, "chunks", in.chunks);
        cli_json_u64(&j, "compressed_bytes", in.compressed_bytes);
        cli_json_u64(&j, "index_bytes", in.index_bytes);
        if (in.keys) {
            cli_json_num(&j, "bits_per_key",
                         8.0 * (double)(in.compressed_bytes + in.index_bytes) / keys);
            cli_json_num(&j, "entropy_bits_per_key", in.entropy_bits / keys);
        } else {
            cli_json_null(&j, "bits_per_key");
            cli_json_null(&j, "entropy_bits_per_key");
        }
        cli_json_end(&j);
        fl_cbf_free(z);
        return EXIT_OK;
    }
    cli_outf("kind:           compressed Bloom filter (Mitzenmacher 2002)\n");
    cli_outf("variant:        %s\n", fl_variant_name(in.geometry.variant));
    cli_outf("geometry:       %s\n", geo);
    cli_outf("keys:           %llu\n", (unsigned long long)in.keys);
    cli_outf("payload:        %s uncompressed, %.2f%% of bits set\n", size,
             100.0 * (double)in.ones / m);
    cli_outf("coder:          %s, %u-byte chunks, %llu chunks\n", fl_coder_name(in.coder),
             in.chunk_bytes, (unsigned long long)in.chunks);
    cli_outf("compressed:     %zu code bytes + %zu index bytes = %.3f bits per key\n",
             in.compressed_bytes, in.index_bytes,
             8.0 * (double)(in.compressed_bytes + in.index_bytes) / keys);
    cli_outf("entropy bound:  %.3f bits per key (m H(p), p the fraction of 0 bits)\n",
             in.entropy_bits / keys);
    fl_cbf_free(z);
    return EXIT_OK;
}
