/*
 * filterlab build: a filter from lines of text, saved in the filterlab file format.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

static const char *const CMD = "build";

static void help(void)
{
    cli_outf(
        "Usage: filterlab build --type TYPE SIZING [OPTIONS] -o FILTER\n"
        "\n"
        "Insert every line of the input as a key and save the filter to FILTER.\n"
        "\n"
        "Sizing (one of):\n"
        "  --n N --fpr P       the smallest filter holding N keys at false positive\n"
        "                      rate P\n"
        "  --bits M [--k K]    about M bits (rounded up to whole units); without --k, K\n"
        "                      is picked for --n keys if given, else 7 (split256: 8,\n"
        "                      cuckoo: 16)\n"
        "  --units U --k K     exact geometry: U words/blocks/buckets, K bits per key\n"
        "                      (cuckoo: K = fingerprint bits, 8, 11, 12, 13 or 16)\n"
        "\n"
        "Options:\n");
    cli_help_variants_option(22, "--type TYPE", CLI_VARIANTS_ALL, " or ", "%s (required)");
    cli_outf(
        "  --seed S            hash seed (decimal or 0x hex; default 0)\n"
        "  --hash H            xxh3 or xxh64 (default: xxh64 for split256, Parquet's\n"
        "                      hash; xxh3 otherwise)\n"
        "  --input FILE        read keys from FILE ('-' or absent: standard input)\n"
        "  -o, --output FILTER\n"
        "                      write the filter here ('-': standard output)\n"
        );
    cli_help_variants_option(22, "--grow", CLI_VARIANTS_MAY_FILL, ", ",
                             "save a scalable Bloom filter (Almeida et al. 2007) instead: its "
                             "first sub-filter holds --n keys, and it grows past them with its "
                             "FPR staying under --fpr (needs --n --fpr; not %s); a key already "
                             "reported is not added again");
    cli_outf(
        "  --growth G          capacity factor between sub-filters, >= 1 (default 2,\n"
        "                      RedisBloom's EXPANSION); implies --grow\n"
        "  --unique            skip keys the filter already reports (keeps duplicate\n"
        "                      lines from filling cuckoo buckets; the key count then\n"
        "                      counts distinct-looking keys)\n"
        "  -v, --verbose       print a summary on standard error\n"
        "  -h, --help          show this help\n"
        "\n"
        "Keys: one per line. The '\\n' or '\\r\\n' ending is not part of the key, the last\n"
        "line may lack it, and an empty line is the empty key.\n"
        "A cuckoo filter that fills up is an error (exit 2): no output file is written.\n");
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Bits in one addressing unit, to turn --bits into a unit count. A k the variant refuses
 * still gets a unit size (its default k's), so that fl_create reports the bad k. */
static uint64_t unit_bits(fl_variant v, uint32_t k)
{
    fl_variant_info vi;
    if (fl_variant_describe(v, &vi) != FL_OK)
        return 64;
    size_t ub = fl_variant_unit_bytes(v, k);
    return 8 * (uint64_t)(ub ? ub : fl_variant_unit_bytes(v, vi.k_default));
}

/* The k with the lowest predicted FPR for n keys in about `bits` bits. */
static int best_k(fl_variant v, uint64_t bits, uint64_t n, uint32_t *out)
{
    double best = 2;
    int found = 0;
    fl_variant_info vi;
    if (fl_variant_describe(v, &vi) != FL_OK)
        return -1;
    for (uint32_t k = vi.k_min; k <= vi.k_max; k++) {
        if (!(vi.k_set >> k & 1)) continue;
        uint64_t ub = unit_bits(v, k);
        fl_geometry g = {v, bits / ub + (bits % ub != 0), k};
        fl_params p;
        if (fl_params_for_geometry(&g, n, &p) != FL_OK)
            continue; /* k outside this variant's range */
        if (p.predicted_fpr < best) {
            best = p.predicted_fpr;
            *out = k;
            found = 1;
        }
    }
    return found ? 0 : -1;
}

/* FL_ERR_FULL on a key the filter already reports: the input repeats it, and a key's copies
 * can only go to its two buckets (Fan et al. 2014) and the stash. A genuinely full filter
 * is above ~90% load (FL_CUCKOO_LOAD sizing targets 94%); below that, repeats are the
 * cause even if the lookup is a false positive. */
static int repeated_key(const fl_filter *f, uint64_t hash)
{
    fl_info info;
    return fl_contains_hash(f, hash) && fl_get_info(f, &info) == FL_OK && info.fill < 0.9;
}

/* A filter holding more keys than it was sized for (the seed's "Pitfall 1: Exceeding Design
 * Capacity") answers "maybe" ever more often: say so, with the FPR the model now predicts.
 * Without --n there is no design count; a saturated filter (predicted FPR >= 0.5) is still
 * worth a word. */
static void warn_capacity(const fl_filter *f, uint64_t n, uint64_t keys)
{
    fl_info info;
    if (fl_get_info(f, &info) != FL_OK)
        return;
    double fpr = fl_predict_fpr(&info.geometry, keys);
    if (n && keys > n)
        fprintf(stderr,
                "filterlab: build: warning: %llu keys inserted, more than --n %llu: predicted "
                "FPR %.3g at %llu keys (size with a larger --n)\n",
                (unsigned long long)keys, (unsigned long long)n, fpr, (unsigned long long)keys);
    else if (!n && fpr >= 0.5)
        fprintf(stderr,
                "filterlab: build: warning: %llu keys inserted: predicted FPR %.3g; the filter "
                "is too small for them\n", (unsigned long long)keys, fpr);
}

/* --grow: the keys into a scalable Bloom chain (fl_sbf_add_hashes skips keys it already
 * reports, as BF.ADD does), saved as one file. */
static int build_growing(const fl_sbf_config *sc, const char *input, const char *output,
                         int verbose, const cli_globals *g)
{
    fl_sbf *s = NULL;
    int rc = cli_create_sbf(CMD, sc, g, &s);
    if (rc != EXIT_OK)
        return rc;
    double t0 = now_seconds();
    cli_lines in;
    cli_progress_start(CMD);
    rc = cli_lines_open(&in, input);
    if (rc != EXIT_OK) {
        cli_progress_stop();
        fl_sbf_free(s);
        return rc;
    }
    cli_batch *b = cli_batch_new();
    uint64_t lines = 0, added = 0;
    long got = 0;
    while (b && (got = cli_batch_fill(b, &in)) > 0) {
        /* Every sub-filter hashes with the chain's hash and seed: the first one's will do. */
        cli_batch_hash_chain(b, s);
        size_t done = 0;
        fl_status st = fl_sbf_add_hashes(s, b->hash, b->count, NULL, &done);
        added += done;
        if (st == FL_ERR_TOO_LARGE && sc->max_bytes) {
            char lim[32];
            cli_human_bytes(sc->max_bytes, lim, sizeof lim);
            rc = cli_fail(EXIT_DATA,
                          "build: the filter cannot grow after %llu keys: it would pass %s "
                          "(--max-bytes, or physical memory if lower); nothing written",
                          (unsigned long long)added, lim);
            break;
        }
        if (st != FL_OK) {
            rc = cli_fail(EXIT_DATA, "build: the filter cannot grow after %llu keys: %s",
                          (unsigned long long)added, fl_strerror(st));
            break;
        }
        lines += b->count;
    }
    rc = cli_batch_end(b, got, rc, &in);
    cli_progress_stop();
    if (rc == EXIT_OK)
        rc = cli_save_sbf(s, output);
    if (rc == EXIT_OK && lines == 0)
        cli_warn_no_keys(input, 1, "filter");
    fl_sbf_info si;
    if (rc == EXIT_OK && verbose && fl_sbf_get_info(s, &si) == FL_OK) {
        char human[32];
        cli_human_bytes(si.bytes, human, sizeof human);
        fprintf(stderr,
                "filterlab: build: %llu lines, %llu keys added to a scalable %s filter (%u "
                "sub-filter%s, %s, %s seed %llu); predicted FPR %.3g (target %g); wrote '%s' "
                "in %.3f s\n",
                (unsigned long long)lines, (unsigned long long)added, fl_variant_name(si.variant),
                (unsigned)si.filters, si.filters == 1 ? "" : "s", human, cli_hash_name(si.hash),
                (unsigned long long)si.seed, si.predicted_fpr, si.error_rate, output,
                now_seconds() - t0);
    }
    fl_sbf_free(s);
    return rc;
}

/* --hash H: xxh3 or xxh64. */
static int parse_hash(const char *cmd, const char *opt, const char *value, void *dest)
{
    (void)opt;
    if (strcmp(value, "xxh3") == 0)
        *(fl_hash_id *)dest = FL_HASH_XXH3;
    else if (strcmp(value, "xxh64") == 0)
        *(fl_hash_id *)dest = FL_HASH_XXH64;
    else
        return cli_usage_error(cmd, "unknown hash '%s' (expected xxh3 or xxh64)", value), -1;
    return 0;
}

/* --growth G: a capacity factor >= 1 (it also turns --grow on: the row's `seen`). */
static int parse_growth(const char *cmd, const char *opt, const char *value, void *dest)
{
    (void)opt;
    char *end = NULL;
    double growth = strtod(value, &end);
    if (end == value || *end || !(growth >= 1) || growth > 1e6)
        return cli_usage_error(cmd, "--growth must be a number >= 1 (e.g. 2)"), -1;
    *(double *)dest = growth;
    return 0;
}

int cmd_build(int argc, char **argv, const cli_globals *g)
{
    fl_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.hash = 0; /* the library's default for the variant */
    cli_n_fpr size = {0};
    uint64_t bits = 0, units = 0, k = 0;
    int have_type = 0, have_bits = 0, have_k = 0, have_units = 0;
    int verbose = 0, unique = 0, grow = 0;
    double growth = 0;
    const char *input = NULL, *output = NULL;
    const cli_opt opts[] = {
        {"type", 0, CLI_ARG_VARIANT, &cfg.variant, &have_type, NULL, NULL, NULL},
        CLI_OPTS_N_FPR(&size, NULL, NULL),
        {"bits", 0, CLI_ARG_COUNT, &bits, &have_bits, NULL, NULL, NULL},
        {"k", 0, CLI_ARG_COUNT, &k, &have_k, NULL, NULL, NULL},
        {"units", 0, CLI_ARG_COUNT, &units, &have_units, NULL, NULL, NULL},
        {"seed", 0, CLI_ARG_SEED, &cfg.seed, NULL, NULL, NULL, NULL},
        {"hash", 0, CLI_ARG_CUSTOM, &cfg.hash, NULL, parse_hash, NULL, NULL},
        CLI_OPT_INPUT(&input, NULL),
        {"output", 'o', CLI_ARG_STRING, &output, NULL, NULL, NULL, NULL},
        {"unique", 0, CLI_ARG_NONE, &unique, NULL, NULL, NULL, NULL},
        {"grow", 0, CLI_ARG_NONE, &grow, NULL, NULL, NULL, NULL},
        {"growth", 0, CLI_ARG_CUSTOM, &growth, &grow, parse_growth, NULL, NULL},
        {"verbose", 'v', CLI_ARG_NONE, &verbose, NULL, NULL, NULL, NULL},
    };
    int rc = cli_parse_options(CMD, argc, argv, opts, CLI_NOPTS(opts), help);
    if (rc >= 0)
        return rc;
    const uint64_t n = size.n;
    const int have_n = size.have_n, have_fpr = size.have_fpr;
    cfg.fpr = size.fpr;
    if (cli_no_operand(CMD, argc, argv) != EXIT_OK)
        return EXIT_USAGE;
    if (!have_type)
        return cli_usage_error(CMD, "--type is required");
    if (!output)
        return cli_usage_error(CMD, "-o FILTER is required");
    if (strcmp(output, "-") == 0 && isatty(STDOUT_FILENO))
        return cli_usage_error(CMD, "refusing to write a binary filter to a terminal");

    /* Exactly one sizing mode; --n may accompany --bits to pick k. */
    int modes = have_fpr + have_bits + have_units;
    if (modes == 0)
        return cli_usage_error(CMD, "give a size: --n N --fpr P, --bits M or --units U --k K");
    if (modes > 1)
        return cli_usage_error(CMD, "--fpr, --bits and --units are alternatives; give one");
    if (have_n && n == 0)
        return cli_usage_error(CMD, "--n must be at least 1");
    if (have_k && (k == 0 || k > UINT32_MAX))
        return cli_usage_error(CMD, "--k %llu is out of range", (unsigned long long)k);
    fl_variant_info vi;
    if (have_k && !fl_variant_unit_bytes(cfg.variant, (uint32_t)k) &&
        fl_variant_describe(cfg.variant, &vi) == FL_OK) {
        /* Name the valid values: a cuckoo width is one of a few, not a range. */
        char valid[64];
        fl_variant_k_text(cfg.variant, valid, sizeof valid);
        return cli_usage_error(CMD, "--k %llu is not valid for %s: %s must be %s",
                               (unsigned long long)k, fl_variant_name(cfg.variant), vi.k_name,
                               valid);
    }
    if (have_fpr) {
        if (!have_n)
            return cli_usage_error(CMD, "--fpr needs --n");
        if (have_k)
            return cli_usage_error(CMD, "--k goes with --bits or --units, not --fpr");
        cfg.n = n;
    } else if (have_bits) {
        if (bits == 0)
            return cli_usage_error(CMD, "--bits must be at least 1");
        uint32_t kk = (uint32_t)k;
        if (!have_k) {
            if (have_n) {
                if (best_k(cfg.variant, bits, n, &kk) < 0)
                    return cli_fail(EXIT_USAGE, "build: no valid k for %s with --bits %llu",
                                    fl_variant_name(cfg.variant), (unsigned long long)bits);
            } else {
                fl_variant_info vi;
                if (fl_variant_describe(cfg.variant, &vi) == FL_OK)
                    kk = vi.k_default;
            }
        }
        uint64_t ub = unit_bits(cfg.variant, kk);
        cfg.geometry.variant = cfg.variant;
        cfg.geometry.units = bits / ub + (bits % ub != 0);
        cfg.geometry.k = kk;
    } else {
        if (!have_k)
            return cli_usage_error(CMD, "--units needs --k");
        if (have_n)
            return cli_usage_error(CMD, "--n has no use with --units (it sizes or picks k)");
        if (units == 0)
            return cli_usage_error(CMD, "--units must be at least 1");
        cfg.geometry.variant = cfg.variant;
        cfg.geometry.units = units;
        cfg.geometry.k = (uint32_t)k;
    }

    if (grow) {
        if (!have_fpr)
            return cli_usage_error(CMD, "--grow is sized by --n N --fpr P");
        fl_sbf_config sc = {.capacity = n, .error_rate = cfg.fpr, .growth = growth,
                            .variant = cfg.variant, .hash = cfg.hash, .seed = cfg.seed,
                            /* what build writes, info must load under the same limit */
                            .max_bytes = cli_create_limit(g)};
        return build_growing(&sc, input, output, verbose, g);
    }

    fl_filter *f = NULL;
    rc = cli_create_filter(CMD, &cfg, g, &f);
    if (rc != EXIT_OK)
        return rc;
    fl_status s = FL_OK;

    double t0 = now_seconds();
    cli_lines in;
    cli_batch *b = NULL;
    cli_progress_start(CMD);
    rc = cli_lines_open(&in, input);
    if (rc != EXIT_OK) {
        cli_progress_stop();
        fl_free(f);
        return rc;
    }
    b = cli_batch_new();
    uint64_t lines = 0, inserted = 0;
    long got = 0;
    while (b && (got = cli_batch_fill(b, &in)) > 0) {
        cli_batch_hash(b, f);
        size_t done = 0;
        if (unique) {
            for (; done < b->count; done++) {
                if (fl_contains_hash(f, b->hash[done]))
                    continue;
                s = fl_insert_hash(f, b->hash[done]);
                if (s != FL_OK)
                    break;
                inserted++;
            }
        } else {
            s = fl_insert_hashes(f, b->hash, b->count, &done);
            inserted += s == FL_OK ? b->count : done;
        }
        if (s != FL_OK) {
            if (s == FL_ERR_FULL && !unique && repeated_key(f, b->hash[done]))
                rc = cli_fail(EXIT_DATA,
                              "build: line %llu repeats a key the cuckoo filter already holds "
                              "as often as it can (two 4-slot buckets and the stash: at most "
                              "16 copies); no file written: use --unique or deduplicate the "
                              "input", (unsigned long long)(lines + done + 1));
            else if (s == FL_ERR_FULL)
                rc = cli_fail(EXIT_DATA,
                              "build: the cuckoo filter is full after %llu keys (line %llu did "
                              "not fit); no file written: size it for more keys",
                              (unsigned long long)inserted, (unsigned long long)(lines + done + 1));
            else
                rc = cli_fail(EXIT_DATA, "build: insert failed at line %llu: %s",
                              (unsigned long long)(lines + done + 1), fl_strerror(s));
            break;
        }
        lines += b->count;
    }
    rc = cli_batch_end(b, got, rc, &in);
    cli_progress_stop();

    if (rc == EXIT_OK)
        rc = cli_save_filter(f, output);
    if (rc == EXIT_OK)
        warn_capacity(f, have_n ? n : 0, inserted);
    if (rc == EXIT_OK && lines == 0)
        cli_warn_no_keys(input, 1, "filter");
    if (rc == EXIT_OK && verbose) {
        fl_info info;
        if (fl_get_info(f, &info) == FL_OK) {
            char geo[128], human[32];
            cli_describe_geometry(&info.geometry, geo, sizeof geo);
            cli_human_bytes(info.bytes, human, sizeof human);
            fprintf(stderr,
                    "filterlab: build: %llu lines, %llu keys inserted into %s (%s, %s, %s seed "
                    "%llu); %.2f bits/key, predicted FPR %.3g; wrote '%s' in %.3f s\n",
                    (unsigned long long)lines, (unsigned long long)inserted,
                    fl_variant_name(info.geometry.variant), geo, human, cli_hash_name(info.hash),
                    (unsigned long long)info.seed,
                    inserted ? (double)info.bytes * 8 / (double)inserted : 0.0,
                    info.predicted_fpr, output, now_seconds() - t0);
        }
    }
    fl_free(f);
    return rc;
}
