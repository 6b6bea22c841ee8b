/*
 * filterlab dedup: streaming, approximate `awk '!seen[$0]++'` in bounded memory: a scalable
 * Bloom chain by default (its FPR stays under --fpr past --n), one fixed filter with --no-grow.
 */
#include <getopt.h>
#include <stdio.h>
#include <unistd.h>
#include <string.h>

#include "cli.h"

static const char *const CMD = "dedup";

static void help(void)
{
    cli_outf(
        "Usage: filterlab dedup --n N --fpr P [--type TYPE] [--no-grow] [OPTIONS]\n"
        "\n"
        "Print each input line the first time it is seen, like awk '!seen[$0]++', in\n"
        "bounded memory. A line the filter reports as maybe seen is dropped: a duplicate\n"
        "is never printed, but up to P of the new lines are dropped too (false\n"
        "positives).\n"
        "\n"
        "By default the filter grows with the input: a scalable Bloom filter (Almeida et\n"
        "al. 2007, RedisBloom's defaults: growth 2, tightening 0.5) whose first\n"
        "sub-filter holds N lines and which adds larger ones as more arrive, so the share\n"
        "of new lines dropped stays at most P however many distinct lines there are;\n"
        "memory grows about linearly with them.\n"
        "\n"
        "Options:\n"
        "  --n N         expected number of distinct lines (1e6 style is accepted)\n"
        "  --fpr P       false positive rate to stay under, 0 < P < 1\n"
        );
    char types[128], fixed[128];
    cli_variant_list(CLI_VARIANTS_ALL, ", ", types, sizeof types);
    /* The variants that may refuse a key cannot be chained (fl_sbf_create refuses them). */
    cli_variant_list(CLI_VARIANTS_MAY_FILL, ", ", fixed, sizeof fixed);
    cli_help_option(16, "--type TYPE", "filter variant: %s (default block512); %s cannot be "
                    "chained, so it runs fixed-size (as --no-grow) and a full one stops the run "
                    "with exit status 2", types, fixed);
    cli_outf(
        "  --seed S      hash seed (default 0)\n"
        "  --input FILE  read lines from FILE ('-' or absent: standard input)\n"
        "  --no-grow     one filter of fixed size for N lines at P: memory is fixed, but\n"
        "                past N the false positive rate, and so the share of new lines\n"
        "                dropped, climbs towards 1\n"
        "  --strict      more than N distinct lines is an error (exit status 2)\n"
        "  -v, --verbose print the filter's geometry and predicted FPR on standard error\n"
        "  -h, --help    show this help\n"
        "\n"
        "With --no-grow, past N distinct lines dedup says so once on standard error, with\n"
        "the FPR it then predicts, and a closing line says how far past N the run went (a\n"
        "cuckoo filter instead stops with exit status 2 once it is full). Lines are\n"
        "compared without their '\\n' or '\\r\\n' ending and printed with '\\n'.\n");
}

/* -v: the filter dedup runs on, before the first line. */
static void describe(const fl_params *p, const fl_config *cfg)
{
    char geo[128], human[32];
    cli_describe_geometry(&p->geometry, geo, sizeof geo);
    cli_human_bytes(p->bytes, human, sizeof human);
    fprintf(stderr,
            "filterlab: dedup: %s filter, %s (%s), seed %llu; sized for %llu distinct lines "
            "at FPR %g (predicted %.3g)\n",
            fl_variant_name(p->geometry.variant), geo, human, (unsigned long long)cfg->seed,
            (unsigned long long)cfg->n, cfg->fpr, p->predicted_fpr);
}

/* What dedup runs on: a scalable Bloom chain (the default) or one fixed-size filter
 * (--no-grow, and cuckoo, which cannot be chained). Exactly one is set. */
typedef struct dedup_filter {
    fl_sbf *chain;
    fl_filter *fixed;
} dedup_filter;

/* Adds a line the filter does not report yet. Returns 1 if it was new, 0 if the filter
 * already reports it, -1 after printing why the run stops (`distinct` and `lineno` are for
 * that message). */
static int add_if_new(const dedup_filter *d, const char *key, size_t len, uint64_t distinct,
                      uint64_t lineno)
{
    if (d->chain) {
        int added = 0;
        fl_status st = fl_sbf_add_hash(d->chain, fl_sbf_hash_bytes(d->chain, key, len), &added);
        if (st != FL_OK) {
            cli_fail(EXIT_DATA, "dedup: the filter cannot grow at line %llu: %s%s",
                     (unsigned long long)lineno, fl_strerror(st),
                     st == FL_ERR_TOO_LARGE ? " (--max-bytes, or physical memory if lower)"
                                            : "");
            return -1;
        }
        return added;
    }
    uint64_t h = fl_hash_bytes(d->fixed, key, len);
    if (fl_contains_hash(d->fixed, h))
        return 0;
    fl_status s = fl_insert_hash(d->fixed, h);
    if (s == FL_ERR_FULL)
        cli_fail(EXIT_DATA,
                 "dedup: the cuckoo filter is full after %llu distinct lines (line "
                 "%llu); use a larger --n or --type block512",
                 (unsigned long long)distinct, (unsigned long long)lineno);
    else if (s != FL_OK)
        cli_fail(EXIT_DATA, "dedup: insert failed at line %llu: %s",
                 (unsigned long long)lineno, fl_strerror(s));
    return s == FL_OK ? 1 : -1;
}

/* The run itself, whatever the filter: prints each line of `input` the first time the filter
 * sees it. One line at a time: each insert must be visible to the very next lookup, and lines
 * are printed as they come, so `tail -f log | filterlab dedup` works. `climbing` is the
 * geometry of a fixed filter whose FPR climbs past --n (NULL otherwise): passing --n is then
 * said, once. The counts of lines read and printed are left in *lines and *distinct. */
static int dedup_lines(const dedup_filter *d, const fl_config *cfg, const fl_geometry *climbing,
                       const char *input, int strict, uint64_t *lines, uint64_t *distinct)
{
    cli_lines in;
    *lines = *distinct = 0;
    /* Progress would interleave with the lines printed on a terminal: only when they go
     * to a file or a pipe. */
    if (!isatty(STDOUT_FILENO))
        cli_progress_start(CMD);
    int rc = cli_lines_open(&in, input);
    if (rc != EXIT_OK) {
        cli_progress_stop();
        return rc;
    }
    const char *key = NULL;
    size_t len = 0;
    int got;
    while ((got = cli_lines_next(&in, &key, &len)) > 0) {
        int added = add_if_new(d, key, len, *distinct, in.lineno);
        if (added < 0) {
            rc = EXIT_DATA;
            break;
        }
        if (!added)
            continue;
        if (++*distinct == cfg->n + 1) {
            if (strict) {
                rc = cli_fail(EXIT_DATA,
                              "dedup: more than --n %llu distinct lines (line %llu); stopped "
                              "(--strict): rerun with a larger --n",
                              (unsigned long long)cfg->n, (unsigned long long)in.lineno);
                break;
            }
            /* Capacity passed (the seed's "Pitfall 1: Exceeding Design Capacity"): from
             * here on new lines are dropped ever more often, so say it, once. */
            cli_progress_clear();
            if (climbing)
                fprintf(stderr,
                        "filterlab: dedup: warning: more than --n %llu distinct lines at line "
                        "%llu: the predicted FPR (share of new lines wrongly dropped) is now "
                        "%.3g and rises with every new line; use a larger --n, drop --no-grow, "
                        "or --strict to stop here\n",
                        (unsigned long long)cfg->n, (unsigned long long)in.lineno,
                        fl_predict_fpr(climbing, *distinct));
        }
        cli_out_line(key, len);
        if (cli_out_failed())
            break;
    }
    if (rc == EXIT_OK && got < 0)
        rc = EXIT_DATA; /* read error, already reported */
    *lines = in.lineno;
    cli_lines_close(&in);
    cli_progress_stop();
    return rc;
}

/* The default: a scalable Bloom chain whose first sub-filter is sized for --n lines. Lines
 * past --n make it grow instead of raising its FPR, so nothing is said about them. */
static int run_growing(const fl_config *cfg, const char *input, int strict, int verbose,
                       const cli_globals *g)
{
    fl_sbf_config sc = {.capacity = cfg->n, .error_rate = cfg->fpr, .variant = cfg->variant,
                        .seed = cfg->seed, .max_bytes = cli_create_limit(g)};
    fl_sbf *s = NULL;
    int rc = cli_create_sbf(CMD, &sc, g, &s);
    if (rc != EXIT_OK)
        return rc;
    fl_sbf_info si;
    fl_sbf_filter_info fi;
    if (verbose && fl_sbf_get_info(s, &si) == FL_OK && fl_sbf_filter_info_at(s, 0, &fi) == FL_OK) {
        char geo[128], human[32];
        cli_describe_geometry(&fi.geometry, geo, sizeof geo);
        cli_human_bytes(fi.bytes, human, sizeof human);
        fprintf(stderr,
                "filterlab: dedup: scalable %s filter (growth %g, tightening %g), seed %llu; "
                "first sub-filter %s (%s) for %llu distinct lines at FPR %.3g; chain FPR "
                "at most %g\n",
                fl_variant_name(si.variant), si.growth, si.tightening,
                (unsigned long long)si.seed, geo, human, (unsigned long long)fi.capacity,
                fi.target_fpr, si.error_rate);
    }
    dedup_filter d = {.chain = s};
    uint64_t lines, distinct;
    rc = dedup_lines(&d, cfg, NULL, input, strict, &lines, &distinct);
    if (rc == EXIT_OK && verbose && fl_sbf_get_info(s, &si) == FL_OK) {
        char human[32];
        cli_human_bytes(si.bytes, human, sizeof human);
        fprintf(stderr,
                "filterlab: dedup: %llu lines, %llu printed as new (--n %llu); %u "
                "sub-filter%s, %s; predicted FPR at the end %.3g (target %g)\n",
                (unsigned long long)lines, (unsigned long long)distinct,
                (unsigned long long)cfg->n, (unsigned)si.filters, si.filters == 1 ? "" : "s",
                human, si.predicted_fpr, cfg->fpr);
    }
    fl_sbf_free(s);
    return rc;
}

int cmd_dedup(int argc, char **argv, const cli_globals *g)
{
    fl_config cfg = {.variant = FL_BLOCK512};
    cli_n_fpr size = {0};
    int strict = 0, verbose = 0, no_grow = 0;
    const char *input = NULL;
    const cli_opt opts[] = {
        CLI_OPTS_N_FPR(&size, NULL, NULL),
        {"type", 0, CLI_ARG_VARIANT, &cfg.variant, NULL, NULL, NULL, NULL},
        {"seed", 0, CLI_ARG_SEED, &cfg.seed, NULL, NULL, NULL, NULL},
        CLI_OPT_INPUT(&input, NULL),
        {"strict", 0, CLI_ARG_NONE, &strict, NULL, NULL, NULL, NULL},
        {"no-grow", 0, CLI_ARG_NONE, &no_grow, NULL, NULL, NULL, NULL},
        {"verbose", 'v', CLI_ARG_NONE, &verbose, NULL, NULL, NULL, NULL},
    };
    int rc = cli_parse_n_fpr(CMD, argc, argv, opts, CLI_NOPTS(opts), help, &size);
    if (rc >= 0)
        return rc;
    const int grow = !no_grow;
    cfg.n = size.n;
    cfg.fpr = size.fpr;
    fl_variant_info vi;
    if (fl_variant_describe(cfg.variant, &vi) != FL_OK)
        return cli_fail(EXIT_USAGE, "dedup: unknown variant");
    /* A table of slots (cuckoo) cannot be chained (fl_sbf_create refuses it): it runs
     * fixed-size, as it always did. */
    if (grow && !(vi.caps & FL_CAP_MAY_FILL))
        return run_growing(&cfg, input, strict, verbose, g);

    fl_filter *f = NULL;
    rc = cli_create_filter(CMD, &cfg, g, &f);
    if (rc != EXIT_OK)
        return rc;
    /* The geometry fl_create chose, from the same sizing call (fl_get_info would count the
     * bits of the whole fresh payload, touching every page of it). */
    fl_params info;
    if (fl_params_for(cfg.variant, cfg.n, cfg.fpr, &info) != FL_OK) {
        fl_free(f);
        return cli_fail(EXIT_DATA, "dedup: cannot describe the filter");
    }
    if (verbose)
        describe(&info, &cfg);
    /* A table of slots (cuckoo) barely degrades past n (sizing leaves it at its sizing
     * load) and stops with FL_ERR_FULL when it cannot take more: only --strict concerns
     * it. */
    int may_fill = (vi.caps & FL_CAP_MAY_FILL) != 0;
    dedup_filter d = {.fixed = f};
    uint64_t lines, distinct;
    rc = dedup_lines(&d, &cfg, may_fill ? NULL : &info.geometry, input, strict, &lines,
                     &distinct);
    if (rc == EXIT_OK && (verbose || (distinct > cfg.n && !may_fill)))
        fprintf(stderr,
                "filterlab: dedup: %llu lines, %llu printed as new (--n %llu); predicted FPR "
                "at the end %.3g (target %g)\n",
                (unsigned long long)lines, (unsigned long long)distinct,
                (unsigned long long)cfg.n, fl_predict_fpr(&info.geometry, distinct), cfg.fpr);
    fl_free(f);
    return rc;
}
