/*
 * Sizes checked before anything is allocated or written.
 *
 * A typo in a size (--n 1e10 for 1e6) must not become a 12 GB allocation, a long wait and a
 * file the same CLI then refuses to load. Every command that creates a structure from a
 * size computes its bytes first and refuses them above two limits:
 *   - the global --max-bytes, the very cap loads use (src/cli/main.c; default 4G,
 *     0 = none), so whatever the CLI writes it can read back with the same option;
 *   - the machine's physical memory: a filter is touched at random all over, so one that
 *     does not fit in RAM pages without end; --max-bytes does not lift this one.
 */
#include <unistd.h>

#include "cli.h"

uint64_t cli_phys_mem(void)
{
    long pages = sysconf(_SC_PHYS_PAGES);
    long page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0)
        return 0; /* unknown: only --max-bytes applies */
    if ((uint64_t)pages > UINT64_MAX / (uint64_t)page)
        return UINT64_MAX;
    return (uint64_t)pages * (uint64_t)page;
}

uint64_t cli_create_limit(const cli_globals *g)
{
    uint64_t limit = g->max_bytes;
    uint64_t phys = cli_phys_mem();
    if (phys && (limit == 0 || phys < limit))
        limit = phys;
    return limit;
}

/* The smallest --max-bytes value in whole M or G that allows `bytes`. */
static void allowing_size(uint64_t bytes, char *buf, size_t cap)
{
    const uint64_t mib = (uint64_t)1 << 20, gib = (uint64_t)1 << 30;
    if (bytes < gib)
        snprintf(buf, cap, "%lluM", (unsigned long long)((bytes + mib - 1) / mib));
    else
        snprintf(buf, cap, "%lluG", (unsigned long long)((bytes + gib - 1) / gib));
}

int cli_check_create(const char *cmd, const char *what, uint64_t bytes, const cli_globals *g)
{
    char need[32], lim[32];
    cli_human_bytes(bytes, need, sizeof need);
    uint64_t phys = cli_phys_mem();
    if (phys && bytes > phys) {
        cli_human_bytes(phys, lim, sizeof lim);
        return cli_fail(EXIT_USAGE,
                        "%s: refusing to create %s of %s (%llu bytes): more than this "
                        "machine's physical memory (%s); nothing written: check the size "
                        "options",
                        cmd, what, need, (unsigned long long)bytes, lim);
    }
    if (g->max_bytes && bytes > g->max_bytes) {
        char allow[32];
        cli_human_bytes(g->max_bytes, lim, sizeof lim);
        allowing_size(bytes, allow, sizeof allow);
        return cli_fail(EXIT_USAGE,
                        "%s: refusing to create %s of %s (%llu bytes): more than --max-bytes "
                        "(%s); nothing written: check the size options, or allow it with "
                        "'filterlab --max-bytes %s %s ...' (0: no limit but physical memory)",
                        cmd, what, need, (unsigned long long)bytes, lim, allow, cmd);
    }
    return EXIT_OK;
}

/* The payload fl_create will allocate for cfg: the sizing call it makes itself. A config
 * that cannot be sized is left for fl_create to report. */
int cli_check_filter_config(const char *cmd, const fl_config *cfg, const cli_globals *g)
{
    fl_params p;
    fl_status s = cfg->geometry.units ? fl_params_for_geometry(&cfg->geometry, 1, &p)
                                      : fl_params_for(cfg->variant, cfg->n, cfg->fpr, &p);
    if (s != FL_OK)
        return EXIT_OK;
    char what[64];
    snprintf(what, sizeof what, "a %s filter", fl_variant_name(cfg->variant));
    return cli_check_create(cmd, what, p.bytes, g);
}

/* A chain's first sub-filter is sized for its capacity at error_rate * (1 - tightening)
 * (Almeida et al. 2007; fl_sbf_target_fpr in src/sbf/sbf.c); its growth is capped by
 * fl_sbf_config.max_bytes, which callers set to cli_create_limit(). */
int cli_check_sbf_config(const char *cmd, const fl_sbf_config *sc, const cli_globals *g)
{
    double r = sc->tightening ? sc->tightening : FL_SBF_TIGHTENING_DEFAULT;
    double p0 = (sc->flags & FL_SBF_NONSCALING) ? sc->error_rate : sc->error_rate * (1.0 - r);
    fl_variant v = sc->variant ? sc->variant : FL_BLOCK512;
    fl_params p;
    if (fl_params_for(v, sc->capacity, p0, &p) != FL_OK)
        return EXIT_OK;
    char what[64];
    snprintf(what, sizeof what, "a scalable %s filter", fl_variant_name(v));
    return cli_check_create(cmd, what, p.bytes, g);
}
