/*
 * What flaccuracy's sections (accuracy_*.c) share: status checks, progress lines, a section
 * and its buffers, query hashes. Below the sections: it calls none of them
 * (accuracy_main.c runs them).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "accuracy.h"
#include "fb_rng.h"

int acc_check(fl_status st, const char *what) {
    if (st == FL_OK) return 0;
    fprintf(stderr, "flaccuracy: %s: %s\n", what, fl_strerror(st));
    return 1;
}

void acc_progress(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("flaccuracy: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

json_t *acc_section(json_t *doc, const char *name, size_t batch, uint64_t **buf, uint8_t **out) {
    json_t *sec = json_object();
    json_object_set_new(doc, name, sec);
    *buf = malloc(batch * sizeof **buf);
    *out = malloc(batch);
    if (!*buf || !*out) {
        free(*buf);
        free(*out);
        return NULL;
    }
    return sec;
}

void acc_query_hashes(uint64_t *out, size_t n, uint64_t stream) {
    fb_rng r = {stream * 0x51ed270b27a1f3d1ull + 12345};
    for (size_t i = 0; i < n; i++) out[i] = fb_rng_next(&r);
}
