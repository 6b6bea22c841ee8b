/*
 * Binary fuse filters (include/filterlab_static.h): building one from a key set, lookups
 * (one key inline, batches through the fuse kernels), info and kernel binding. The shape and
 * the construction are src/static/fuse.c's, shared with the Bloomier filters.
 */
#include <string.h>

#include "static/fuse_internal.h"

static fl_fuse_shape fuse_shape(const fl_fuse_view *v) {
    return (fl_fuse_shape)((v->arity == 4 ? 2 : 0) + (v->cell_bits == 16 ? 1 : 0));
}

fl_status fl_fuse_build_u64(const fl_fuse_config *cfg, const uint64_t *keys, size_t n,
                            fl_fuse **out) {
    if (out) *out = NULL;
    if (!cfg || !out || (!keys && n)) return FL_ERR_INVALID_ARG;
    uint32_t arity = cfg->arity ? cfg->arity : 3;
    uint32_t bits = cfg->fingerprint_bits ? cfg->fingerprint_bits : 8;
    if ((arity != 3 && arity != 4) || (bits != 8 && bits != 16)) return FL_ERR_INVALID_ARG;
    if (n > FL_FUSE_KEYS_MAX) return FL_ERR_TOO_LARGE;
    fl_static *s = NULL;
    fl_status st = fl_static_build(arity, bits, 0, cfg->seed, cfg->max_tries, cfg->max_bytes,
                                   keys, NULL, n, &s);
    *out = (fl_fuse *)s;
    return st;
}

void fl_fuse_free(fl_fuse *f) {
    fl_static_free(f ? &f->s : NULL);
}

fl_fuse_view fl_fuse_view_of(const fl_fuse *f) {
    fl_fuse_view v;
    memset(&v, 0, sizeof v);
    return f ? f->s.view : v;
}

int fl_fuse_lookup_view(const fl_fuse_view *v, uint64_t key) {
    if (!v || !v->cells) return 0;
    return (fl_fuse_probe(v, key) >> v->value_bits) == 0;
}

int fl_fuse_contains_u64(const fl_fuse *f, uint64_t key) {
    return f ? fl_fuse_lookup(&f->s.view, key) : 0;
}

size_t fl_fuse_contains_u64s(const fl_fuse *f, const uint64_t *keys, size_t n, uint8_t *out) {
    if (!f || !n || !keys || !out) {
        if (out && n) memset(out, 0, n);
        return 0;
    }
    if (!f->s.view.cells) {
        memset(out, 0, n);
        return 0;
    }
    const fl_kernel_table *t = fl_kernels_bound(&f->s.bound, f->s.bytes);
    return t->fuse.contains[fuse_shape(&f->s.view)](&f->s.view, keys, n, out);
}

fl_status fl_fuse_info(const fl_fuse *f, fl_static_info *out) {
    if (!f || !out) return FL_ERR_INVALID_ARG;
    fl_static_info_of(&f->s, out);
    return FL_OK;
}

fl_status fl_fuse_bind_kernel(fl_fuse *f, const char *name) {
    if (!f) return FL_ERR_INVALID_ARG;
    return fl_kernel_bind(&f->s.bound, name);
}

const char *fl_fuse_kernel(const fl_fuse *f) {
    if (!f) return NULL;
    return fl_kernel_table_name(fl_kernels_bound(&f->s.bound, f->s.bytes));
}
