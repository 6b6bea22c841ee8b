/*
 * filterlab freq / top: Count-Min sketches of lines (include/filterlab_cms.h).
 *
 * `freq` counts lines into a sketch (new, or --from a saved one), saves it with -o, and
 * prints estimates for the lines of --query files; `top` prints the top-k list or the heavy
 * hitters of a saved sketch or of a stream it counts itself. Sketch files are filterlab
 * files of kind Count-Min; a filter file or a Redis HyperLogLog string given instead is
 * named as such.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Loads a sketch; a file of another kind is named with its commands (kinds.c). */
static int load_cms(const char *path, size_t max_bytes, fl_cms **out) {
    fl_status s = fl_cms_load_file(path, max_bytes, out);
    int err = errno;
    if (s == FL_OK) return EXIT_OK;
    return cli_load_kind_error(path, s, err, FL_FILE_COUNT_MIN, max_bytes);
}

static int save_cms(const fl_cms *c, const char *path) {
    size_t need = fl_cms_serialized_size(c), w = 0;
    unsigned char *buf = need ? malloc(need) : NULL;
    if (!buf) return cli_fail(EXIT_DATA, "out of memory");
    fl_status s = fl_cms_save_mem(c, buf, need, &w);
    int rc = s == FL_OK ? cli_write_file(path, buf, w) : cli_fail(EXIT_DATA, "save: %s", fl_strerror(s));
    free(buf);
    return rc;
}

/* A line counted once (cli_add_operand_lines' callback). */
static fl_status add_line(void *c, const char *key, size_t len) {
    return fl_cms_add_bytes(c, key, len, 1);
}

/* "ESTIMATE<TAB>KEY" per line of path. */
static int query_lines(const fl_cms *c, const char *path) {
    cli_lines r;
    int rc = cli_lines_open(&r, path);
    if (rc != EXIT_OK) return rc;
    const char *key;
    size_t len;
    int got;
    while (!cli_out_failed() && (got = cli_lines_next(&r, &key, &len)) == 1) {
        cli_outf("%u\t", fl_cms_query_bytes(c, key, len));
        cli_out_line(key, len);
    }
    cli_lines_close(&r);
    return got < 0 ? EXIT_DATA : EXIT_OK;
}

static void print_info(const fl_cms *c, int json) {
    fl_cms_info in;
    fl_cms_info_get(c, &in);
    if (json) {
        cli_json j;
        cli_json_begin(&j);
        cli_json_str(&j, "kind", "count_min");
        cli_json_str(&j, "update", in.conservative ? "conservative" : "plain");
        cli_json_u64(&j, "depth", in.depth);
        cli_json_u64(&j, "width", in.width);
        cli_json_u64(&j, "bytes", in.bytes);
        cli_json_num(&j, "epsilon", in.epsilon);
        cli_json_num(&j, "delta", in.delta);
        cli_json_u64(&j, "seed", in.seed);
        cli_json_u64(&j, "total", in.total);
        cli_json_bool(&j, "total_saturated", in.total_saturated);
        cli_json_u64(&j, "saturated_counters", in.saturated);
        cli_json_u64(&j, "topk", in.topk);
        cli_json_u64(&j, "candidates", in.candidates);
        cli_json_end(&j);
        return;
    }
    char hb[32];
    cli_human_bytes(in.bytes, hb, sizeof hb);
    cli_outf("kind: Count-Min sketch (%s update)\n"
             "shape: %u rows x %u counters of 32 bits (%s)\n"
             "bounds: epsilon %.6g (e / width), delta %.6g (e^-depth)\n"
             "total: %llu%s\n"
             "saturated counters: %llu\n",
             in.conservative ? "conservative" : "plain", in.depth, in.width, hb, in.epsilon,
             in.delta, (unsigned long long)in.total, in.total_saturated ? " (saturated)" : "",
             (unsigned long long)in.saturated);
    if (in.topk)
        cli_outf("candidates: %u of %u\n", in.candidates, in.topk);
    else
        cli_outf("candidates: not tracked\n");
}

/* Options both commands take to make a new sketch. */
typedef struct sizing {
    double epsilon, delta;
    uint64_t width, depth, seed;
    int have_eps, have_delta, have_w, have_d, conservative;
} sizing;

/* A count in [1, max]: "--depth 0: must be between 1 and 32". */
static int count_between(const char *cmd, const char *opt, const char *value, void *dest,
                         uint64_t max) {
    uint64_t *v = dest;
    if (cli_parse_count(cmd, opt, value, v) < 0) return -1;
    if (*v == 0 || *v > max)
        return cli_usage_error(cmd, "%s %s: must be between 1 and %llu", opt, value,
                               (unsigned long long)max), -1;
    return 0;
}
static int parse_width(const char *cmd, const char *opt, const char *value, void *dest) {
    return count_between(cmd, opt, value, dest, UINT32_MAX);
}
static int parse_depth(const char *cmd, const char *opt, const char *value, void *dest) {
    return count_between(cmd, opt, value, dest, FL_CMS_DEPTH_MAX);
}
/* --top K (freq) and -k K (top): candidates tracked, or lines printed. */
static int parse_topk(const char *cmd, const char *opt, const char *value, void *dest) {
    return count_between(cmd, opt, value, dest, FL_CMS_TOPK_MAX);
}

/* The rows of the sizing options in both commands' tables (z: their sizing). */
#define SIZING_ROWS(z)                                                                       \
    {"epsilon", 0, CLI_ARG_FPR, &(z).epsilon, &(z).have_eps, NULL, NULL, NULL},                          \
        {"delta", 0, CLI_ARG_FPR, &(z).delta, &(z).have_delta, NULL, NULL, NULL},                        \
        {"width", 0, CLI_ARG_CUSTOM, &(z).width, &(z).have_w, parse_width, NULL, NULL},                  \
        {"depth", 0, CLI_ARG_CUSTOM, &(z).depth, &(z).have_d, parse_depth, NULL, NULL},                  \
        {"seed", 0, CLI_ARG_SEED, &(z).seed, NULL, NULL, NULL, NULL},                                    \
        {"conservative", 0, CLI_ARG_NONE, &(z).conservative, NULL, NULL, NULL, NULL}

static int create_cms(const char *cmd, const sizing *z, uint32_t topk, fl_cms **out,
                      const cli_globals *g) {
    if ((z->have_w || z->have_d) && (z->have_eps || z->have_delta))
        return cli_usage_error(cmd, "give --epsilon/--delta or --width/--depth, not both");
    if (z->have_w != z->have_d) return cli_usage_error(cmd, "give both --width and --depth");
    fl_cms_config cfg = {.epsilon = z->have_eps ? z->epsilon : 0.001,
                         .delta = z->have_delta ? z->delta : 0.01,
                         .width = (uint32_t)z->width, .depth = (uint32_t)z->depth,
                         .seed = z->seed, .conservative = z->conservative, .topk = topk};
    /* The counters (width * depth * 4 bytes) are what a size typo inflates; a shape that
     * cannot be computed, or past FL_CMS_BYTES_MAX, is left for fl_cms_create to report. */
    uint32_t w = cfg.width, d = cfg.depth;
    if (((w && d) || fl_cms_dims(cfg.epsilon, cfg.delta, &w, &d) == FL_OK) &&
        (uint64_t)w * d * 4 <= FL_CMS_BYTES_MAX) {
        int rc = cli_check_create(cmd, "a Count-Min sketch", (uint64_t)w * d * 4, g);
        if (rc != EXIT_OK) return rc;
    }
    fl_status s = fl_cms_create(&cfg, out);
    if (s == FL_ERR_NO_MEMORY) return cli_fail(EXIT_DATA, "%s: out of memory", cmd);
    if (s != FL_OK) return cli_usage_error(cmd, "cannot create the sketch: %s", fl_strerror(s));
    return EXIT_OK;
}

static int sizing_given(const sizing *z) {
    return z->have_eps || z->have_delta || z->have_w || z->have_d || z->conservative || z->seed;
}

#define SIZING_HELP                                                                          \
    "  --epsilon E --delta D\n"                                                            \
    "                 error bound: estimates exceed the true count by more than\n"          \
    "                 E * N with probability at most D; width ceil(e / E), depth\n"          \
    "                 ceil(ln(1 / D)) (defaults 0.001 and 0.01: 5 x 2719, 53 KiB)\n"          \
    "  --width W --depth D  the shape itself (depth 1..32)\n"                                \
    "  --conservative conservative update (Estan and Varghese): smaller overestimates\n"    \
    "  --seed S       hash seed (default 0)\n"

static void freq_help(void) {
    cli_outf("Usage: filterlab freq [SIZING] [--top K] [--from SKETCH] [OPTIONS] [FILE...]\n"
             "\n"
             "Count lines in a Count-Min sketch (Cormode and Muthukrishnan 2005): estimates\n"
             "are never below the true counts.\n"
             "\n"
             "Options:\n" SIZING_HELP
             "  --top K        keep the K most frequent lines as candidates for\n"
             "                 'filterlab top'\n"
             "  --from SKETCH  start from a saved sketch (sizing options are then refused);\n"
             "                 with no FILE, read no input\n"
             "  -o, --output OUT  save the sketch ('-': standard output)\n"
             "  --query FILE   print 'ESTIMATE<TAB>LINE' for each line of FILE ('-': stdin)\n"
             "  --info         describe the sketch (the default when neither -o nor --query)\n"
             "  --json         the description as one JSON object: kind (\"count_min\"),\n"
             "                 update (plain, conservative), depth, width, bytes, epsilon,\n"
             "                 delta, seed, total, total_saturated, saturated_counters, topk\n"
             "                 (0: no candidates tracked), candidates\n"
             "  -h, --help     show this help\n"
             "\n"
             "FILE '-' or no FILE (and no --from): standard input.\n");
}

int cmd_freq(int argc, char **argv, const cli_globals *g) {
    static const char *const CMD = "freq";
    sizing z = {0};
    uint64_t topk = 0;
    const char *from = NULL, *output = NULL, *query = NULL;
    int info = 0, json = 0;
    const cli_opt opts[] = {
        SIZING_ROWS(z),
        {"top", 0, CLI_ARG_CUSTOM, &topk, NULL, parse_topk, NULL, NULL},
        {"from", 0, CLI_ARG_STRING, &from, NULL, NULL, NULL, NULL},
        {"query", 0, CLI_ARG_STRING, &query, NULL, NULL, NULL, NULL},
        {"info", 0, CLI_ARG_NONE, &info, NULL, NULL, NULL, NULL},
        {"json", 0, CLI_ARG_NONE, &json, &info, NULL, NULL, NULL},
        {"output", 'o', CLI_ARG_STRING, &output, NULL, NULL, NULL, NULL},
    };
    int rc = cli_parse_options(CMD, argc, argv, opts, CLI_NOPTS(opts), freq_help);
    if (rc >= 0) return rc;
    if (from && (sizing_given(&z) || topk))
        return cli_usage_error(CMD, "--from keeps the saved sketch's shape: no sizing or --top");
    if (json && query)
        return cli_usage_error(CMD, "--json describes the sketch: not with --query");
    if (output && strcmp(output, "-") == 0 && (query || info))
        return cli_usage_error(CMD, "-o - writes the sketch to standard output: no --query or --info");
    int stdin_counted = optind == argc ? !from : 0;
    for (int i = optind; i < argc; i++) stdin_counted |= strcmp(argv[i], "-") == 0;
    if (query && strcmp(query, "-") == 0 && stdin_counted)
        return cli_usage_error(CMD, "--query - and the lines to count cannot both be standard input");
    fl_cms *cms = NULL;
    rc = from ? load_cms(from, g->max_bytes, &cms) : create_cms(CMD, &z, (uint32_t)topk, &cms, g);
    if (rc != EXIT_OK) return rc;
    cli_progress_start(CMD);
    rc = cli_add_operand_lines(argc, argv, optind, !from, add_line, cms);
    cli_progress_stop();
    if (rc == EXIT_OK && !from && cli_lines_total() == 0)
        cli_warn_no_keys(optind < argc ? argv[optind] : NULL, argc - optind, "sketch");
    if (rc == EXIT_OK && output) rc = save_cms(cms, output);
    if (rc == EXIT_OK && query) rc = query_lines(cms, query);
    if (rc == EXIT_OK && (info || (!output && !query))) print_info(cms, json);
    fl_cms_free(cms);
    return rc == EXIT_OK ? cli_out_finish(0) : rc;
}

static void top_help(void) {
    cli_outf("Usage: filterlab top [-k K] [--phi PHI] [SIZING] (--from SKETCH | [FILE...])\n"
             "\n"
             "The most frequent lines, 'ESTIMATE<TAB>LINE' in decreasing order: of a sketch\n"
             "saved by 'filterlab freq --top', or of the lines of FILE... counted here.\n"
             "\n"
             "Options:\n"
             "  -k K           print at most K lines (default 10)\n"
             "  --phi PHI      only heavy hitters: lines whose estimate exceeds PHI * N\n"
             "                 (N = lines counted), 0 < PHI < 1\n"
             "  --from SKETCH  a saved sketch (it must track candidates)\n" SIZING_HELP
             "  -h, --help     show this help\n"
             "\n"
             "Counting here tracks max(K, ceil(1 / (PHI - epsilon))) candidates, enough for\n"
             "every line above PHI * N to be kept whenever the sketch's estimates are within\n"
             "epsilon * N (see include/filterlab_cms.h).\n");
}

int cmd_top(int argc, char **argv, const cli_globals *g) {
    static const char *const CMD = "top";
    sizing z = {0};
    uint64_t k = 10;
    double phi = 0;
    int have_phi = 0;
    const char *from = NULL;
    const cli_opt opts[] = {
        SIZING_ROWS(z),
        {"phi", 0, CLI_ARG_FPR, &phi, &have_phi, NULL, NULL, NULL},
        {"from", 0, CLI_ARG_STRING, &from, NULL, NULL, NULL, NULL},
        {NULL, 'k', CLI_ARG_CUSTOM, &k, NULL, parse_topk, NULL, NULL},
    };
    int rc = cli_parse_options(CMD, argc, argv, opts, CLI_NOPTS(opts), top_help);
    if (rc >= 0) return rc;
    if (from && (sizing_given(&z) || optind < argc))
        return cli_usage_error(CMD, "--from reads a saved sketch: no sizing options or FILE");
    fl_cms *cms = NULL;
    if (from) {
        rc = load_cms(from, g->max_bytes, &cms);
        if (rc == EXIT_OK) {
            fl_cms_info in;
            fl_cms_info_get(cms, &in);
            if (!in.topk) {
                fl_cms_free(cms);
                return cli_fail(EXIT_DATA, "%s: the sketch tracks no candidates (build it with "
                                "'filterlab freq --top K')", from);
            }
        }
    } else {
        uint32_t cap = (uint32_t)k;
        if (have_phi) {
            double eps = z.have_w ? M_E / (double)z.width : z.have_eps ? z.epsilon : 0.001;
            if (!(phi > eps))
                return cli_usage_error(CMD, "--phi %g must exceed the sketch's epsilon %g", phi, eps);
            double need = ceil(1.0 / (phi - eps));
            if (need > FL_CMS_TOPK_MAX)
                return cli_usage_error(CMD, "--phi %g: 1 / (phi - epsilon) candidates is more "
                                       "than %u", phi, FL_CMS_TOPK_MAX);
            if (need > cap) cap = (uint32_t)need;
        }
        rc = create_cms(CMD, &z, cap, &cms, g);
        cli_progress_start(CMD);
        if (rc == EXIT_OK) rc = cli_add_operand_lines(argc, argv, optind, 1, add_line, cms);
        cli_progress_stop();
        if (rc == EXIT_OK && cli_lines_total() == 0)
            cli_warn_no_keys(optind < argc ? argv[optind] : NULL, argc - optind, "sketch");
    }
    if (rc != EXIT_OK) {
        fl_cms_free(cms);
        return rc;
    }
    fl_cms_item *items = malloc((size_t)k * sizeof *items);
    size_t n = 0;
    fl_status s = !items ? FL_ERR_NO_MEMORY
                  : have_phi ? fl_cms_heavy_hitters(cms, phi, items, (size_t)k, &n)
                             : fl_cms_top(cms, items, (size_t)k, &n);
    if (s != FL_OK) rc = cli_fail(EXIT_DATA, "%s: %s", CMD, fl_strerror(s));
    for (size_t i = 0; i < n && rc == EXIT_OK && !cli_out_failed(); i++) {
        cli_outf("%llu\t", (unsigned long long)items[i].estimate);
        cli_out_line(items[i].key, items[i].len);
    }
    free(items);
    fl_cms_free(cms);
    return rc == EXIT_OK ? cli_out_finish(0) : rc;
}
