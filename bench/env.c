/*
 * The sweep's working state: the key and answer buffers every timed operation shares, and
 * handing completed results to the listener.
 */
#include <stdlib.h>

#include "sweep.h"

int fb_env_buffers(fb_env *e, size_t pool_keys) {
    size_t batch = e->o->batch > FB_CHUNK ? e->o->batch : FB_CHUNK;
    if (fb_keys_alloc(&e->pool, e->o->keys, pool_keys) ||
        fb_keys_alloc(&e->chunk, e->o->keys, FB_CHUNK))
        return -1;
    e->out = malloc(batch);
    e->scratch = malloc(batch * sizeof *e->scratch);
    return e->out && e->scratch ? 0 : -1;
}

void fb_env_free(fb_env *e) {
    fb_keys_free(&e->pool);
    fb_keys_free(&e->chunk);
    free(e->out);
    free(e->scratch);
    e->out = NULL;
    e->scratch = NULL;
}

void fb_report_done(fb_env *e) {
    for (size_t i = 0; i < e->rs->n; i++) {
        fb_result *r = e->rs->v[i];
        if (!r->reported && r->reps_done == r->reps) {
            if (e->l && e->l->result)
                e->l->result(e->l->arg, r);
            r->reported = 1;
            fb_progress_done(1);
        }
    }
}

void fb_report_section(fb_env *e) {
    if (e->l && e->l->section)
        e->l->section(e->l->arg);
}
