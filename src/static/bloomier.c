/*
 * Bloomier filters (include/filterlab_static.h): building one from keys and values, gets
 * (one key inline, batches through the fuse kernels), info and kernel binding. The shape and
 * the construction are src/static/fuse.c's, shared with the binary fuse filters.
 */
#include <string.h>

#include "static/fuse_internal.h"

static fl_bloomier_shape bloomier_shape(const fl_fuse_view *v) {
    return (fl_bloomier_shape)((v->arity == 4 ? 2 : 0) + (v->cell_bits == 32 ? 1 : 0));
}

fl_status fl_bloomier_build_u64(const fl_bloomier_config *cfg, const uint64_t *keys,
                                const uint16_t *values, size_t n, fl_bloomier **out) {
    if (out) *out = NULL;
    if (!cfg || !out || (n && (!keys || !values))) return FL_ERR_INVALID_ARG;
    uint32_t arity = cfg->arity ? cfg->arity : 3;
    uint32_t vbits = cfg->value_bits;
    uint32_t cbits = cfg->cell_bits ? cfg->cell_bits : (vbits <= 8 ? 16 : 32);
    if ((arity != 3 && arity != 4) || vbits < 1 || vbits > 16 || (cbits != 16 && cbits != 32) ||
        vbits > cbits)
        return FL_ERR_INVALID_ARG;
    if (n > FL_FUSE_KEYS_MAX) return FL_ERR_TOO_LARGE;
    for (size_t i = 0; i < n; i++)
        if (values[i] >> vbits) return FL_ERR_INVALID_ARG;
    fl_static *s = NULL;
    fl_status st = fl_static_build(arity, cbits, vbits, cfg->seed, cfg->max_tries, cfg->max_bytes,
                                   keys, values, n, &s);
    *out = (fl_bloomier *)s;
    return st;
}

void fl_bloomier_free(fl_bloomier *b) {
    fl_static_free(b ? &b->s : NULL);
}

fl_fuse_view fl_bloomier_view_of(const fl_bloomier *b) {
    fl_fuse_view v;
    memset(&v, 0, sizeof v);
    return b ? b->s.view : v;
}

int fl_bloomier_get_u64(const fl_bloomier *b, uint64_t key, uint16_t *value) {
    uint16_t dummy;
    if (!value) value = &dummy;
    if (!b) {
        *value = 0;
        return 0;
    }
    return fl_bloomier_lookup(&b->s.view, key, value);
}

size_t fl_bloomier_get_u64s(const fl_bloomier *b, const uint64_t *keys, size_t n,
                            uint16_t *values, uint8_t *found) {
    if (!n || !values || !found) return 0;
    if (!b || !keys || !b->s.view.cells) {
        memset(values, 0, n * 2);
        memset(found, 0, n);
        return 0;
    }
    const fl_kernel_table *t = fl_kernels_bound(&b->s.bound, b->s.bytes);
    return t->fuse.get[bloomier_shape(&b->s.view)](&b->s.view, keys, n, values, found);
}

fl_status fl_bloomier_info(const fl_bloomier *b, fl_static_info *out) {
    if (!b || !out) return FL_ERR_INVALID_ARG;
    fl_static_info_of(&b->s, out);
    return FL_OK;
}

fl_status fl_bloomier_bind_kernel(fl_bloomier *b, const char *name) {
    if (!b) return FL_ERR_INVALID_ARG;
    return fl_kernel_bind(&b->s.bound, name);
}

const char *fl_bloomier_kernel(const fl_bloomier *b) {
    if (!b) return NULL;
    return fl_kernel_table_name(fl_kernels_bound(&b->s.bound, b->s.bytes));
}
