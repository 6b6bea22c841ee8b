/*
 * Formatting for messages and descriptions: human byte sizes, geometries, hash names.
 */
#include <stdio.h>

#include "cli.h"

void cli_human_bytes(uint64_t bytes, char *buf, size_t cap)
{
    static const char *const names[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (bytes < 1024) {
        snprintf(buf, cap, "%llu B", (unsigned long long)bytes);
        return;
    }
    double v = (double)bytes;
    size_t u = 0;
    while (v >= 1024 && u + 1 < sizeof names / sizeof names[0]) {
        v /= 1024;
        u++;
    }
    /* Three significant digits, without printing "1024 KiB" after rounding. */
    if (v < 9.995)
        snprintf(buf, cap, "%.2f %s", v, names[u]);
    else if (v < 99.95)
        snprintf(buf, cap, "%.1f %s", v, names[u]);
    else
        snprintf(buf, cap, "%.0f %s", v, names[u]);
}

void cli_describe_geometry(const fl_geometry *g, char *buf, size_t cap)
{
    fl_geometry_describe(g, buf, cap);
}

const char *cli_hash_name(fl_hash_id h)
{
    switch (h) {
    case FL_HASH_XXH3: return "xxh3";
    case FL_HASH_XXH64: return "xxh64";
    default: return "unknown";
    }
}
