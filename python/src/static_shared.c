/*
 * The static classes' shared code (static_shared.h): key conversion, build arguments, info.
 */
#include "static_shared.h"

#include <xxhash.h>

uint64_t flpy_static_bytes_key(const void *data, size_t len)
{
    return XXH3_64bits(data, len);
}

int flpy_static_key(PyObject *obj, uint64_t *out)
{
    flpy_key k;
    if (flpy_key_get(obj, &k) < 0)
        return -1;
    *out = k.is_int ? k.u64 : flpy_static_bytes_key(k.data, k.len);
    flpy_key_release(&k);
    return 0;
}

PyObject *flpy_static_key_method(PyObject *Py_UNUSED(self), PyObject *key)
{
    uint64_t k;
    if (flpy_static_key(key, &k) < 0)
        return NULL;
    return PyLong_FromUnsignedLongLong(k);
}

int flpy_static_read_info(flpy_object *self, flpy_static_info_fn info, fl_static_info *out)
{
    flpy_read_lock_gil(&self->lock);
    fl_status s = info(self->handle, out);
    flpy_unlock(&self->lock);
    if (s != FL_OK) {
        flpy_raise(s, "info", NULL);
        return -1;
    }
    return 0;
}

Py_ssize_t flpy_static_len(flpy_object *self, flpy_static_info_fn info)
{
    fl_static_info in;
    if (flpy_static_read_info(self, info, &in) < 0)
        return -1;
    return in.keys > PY_SSIZE_T_MAX ? PY_SSIZE_T_MAX : (Py_ssize_t)in.keys;
}

const uint64_t *flpy_static_keys(const flpy_keys *k, uint64_t *tmp)
{
    if (k->kind == FLPY_U64)
        return k->u64;
    for (Py_ssize_t i = 0; i < k->n; i++)
        tmp[i] = flpy_static_bytes_key(k->ptrs[i], k->lens[i]);
    return tmp;
}

int flpy_static_input_get(PyObject *obj, flpy_static_input *in)
{
    in->tmp = NULL;
    if (flpy_keys_get(obj, 0, &in->keys) < 0)
        return -1;
    if (in->keys.kind == FLPY_STRINGS && (in->tmp = flpy_alloc_u64(in->keys.n)) == NULL) {
        flpy_keys_release(&in->keys);
        return -1;
    }
    return 0;
}

void flpy_static_input_release(flpy_static_input *in)
{
    PyMem_RawFree(in->tmp);
    in->tmp = NULL;
    flpy_keys_release(&in->keys);
}

int flpy_static_u32_arg(PyObject *obj, uint32_t *out, const char *what)
{
    if (obj == NULL || obj == Py_None)
        return 0;
    uint64_t v;
    if (flpy_u64_arg(obj, &v, what) < 0)
        return -1;
    if (v > UINT32_MAX) {
        PyErr_Format(PyExc_ValueError, "%s is too large", what);
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

int flpy_static_args_parse(PyObject *arity, PyObject *seed, PyObject *max_tries,
                           PyObject *max_bytes, flpy_static_args *out)
{
    out->arity = 3;
    out->seed = 0;
    out->max_tries = 0;
    if (flpy_static_u32_arg(arity, &out->arity, "arity") < 0 ||
        (seed != NULL && seed != Py_None && flpy_u64_arg(seed, &out->seed, "seed") < 0) ||
        flpy_static_u32_arg(max_tries, &out->max_tries, "max_tries") < 0 ||
        flpy_parse_max_bytes(max_bytes, &out->max_bytes) < 0)
        return -1;
    /* The library reads 0 as "the default" (3); an explicit 0 is a mistake here. */
    if (out->arity != 3 && out->arity != 4) {
        PyErr_Format(PyExc_ValueError, "arity must be 3 or 4, not %u", out->arity);
        return -1;
    }
    return 0;
}

PyObject *flpy_static_info(const fl_static_info *in, const char *kernel)
{
    PyObject *d = Py_BuildValue("{s:k,s:k,s:k,s:k,s:k,s:k,s:K,s:K,s:K,s:k,s:K,s:K,s:d,s:d,s:d,s:s}",
                                "arity", (unsigned long)in->arity,
                                "cell_bits", (unsigned long)in->cell_bits,
                                "value_bits", (unsigned long)in->value_bits,
                                "segment_length", (unsigned long)in->segment_length,
                                "segment_count", (unsigned long)in->segment_count,
                                "cells", (unsigned long)in->cells,
                                "keys", (unsigned long long)in->keys,
                                "duplicates", (unsigned long long)in->duplicates,
                                "seed", (unsigned long long)in->seed,
                                "tries", (unsigned long)in->tries,
                                "bytes", (unsigned long long)in->bytes,
                                "build_bytes", (unsigned long long)in->build_bytes,
                                "build_seconds", (double)in->build_seconds,
                                "bits_per_key", (double)in->bits_per_key,
                                "fpr", (double)in->fpr,
                                "kernel", kernel);
    return flpy_make_info("StaticInfo", d);
}
