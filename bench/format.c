/* Human byte sizes for the console, warnings and --list: the harness's one formatter. */
#include <math.h>
#include <stdio.h>

#include "flbench.h"

/* Exact multiples print as integers of the largest binary unit that divides them
 * ("16KiB", "1MiB"); anything else at 1 KiB or more prints with two decimals ("1.50GiB"). */
const char *fb_fmt_bytes(uint64_t b, char *buf, size_t cap) {
    static const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int i = 0;
    double v = (double)b;
    while (v >= 1024 && i < 4 && fmod(v, 1024) == 0) {
        v /= 1024;
        i++;
    }
    if (i == 0 && b >= 1024) {
        v = (double)b;
        while (v >= 1024 && i < 4) {
            v /= 1024;
            i++;
        }
        snprintf(buf, cap, "%.2f%s", v, u[i]);
    } else {
        snprintf(buf, cap, "%.0f%s", v, u[i]);
    }
    return buf;
}
