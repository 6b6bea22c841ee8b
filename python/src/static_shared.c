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
    PyObject *d = PyDict_New();
    if (d == NULL || flpy_set(d, "arity", PyLong_FromUnsignedLong(in->arity)) < 0 ||
        flpy_set(d, "cell_bits", PyLong_FromUnsignedLong(in->cell_bits)) < 0 ||
        flpy_set(d, "value_bits", PyLong_FromUnsignedLong(in->value_bits)) < 0 ||
        flpy_set(d, "segment_length", PyLong_FromUnsignedLong(in->segment_length)) < 0 ||
        flpy_set(d, "segment_count", PyLong_FromUnsignedLong(in->segment_count)) < 0 ||
        flpy_set(d, "cells", PyLong_FromUnsignedLong(in->cells)) < 0 ||
        flpy_set(d, "keys", PyLong_FromUnsignedLongLong(in->keys)) < 0 ||
        flpy_set(d, "duplicates", PyLong_FromUnsignedLongLong(in->duplicates)) < 0 ||
        flpy_set(d, "seed", PyLong_FromUnsignedLongLong(in->seed)) < 0 ||
        flpy_set(d, "tries", PyLong_FromUnsignedLong(in->tries)) < 0 ||
        flpy_set(d, "bytes", PyLong_FromSize_t(in->bytes)) < 0 ||
        flpy_set(d, "build_bytes", PyLong_FromSize_t(in->build_bytes)) < 0 ||
        flpy_set(d, "build_seconds", PyFloat_FromDouble(in->build_seconds)) < 0 ||
        flpy_set(d, "bits_per_key", PyFloat_FromDouble(in->bits_per_key)) < 0 ||
        flpy_set(d, "fpr", PyFloat_FromDouble(in->fpr)) < 0 ||
        flpy_set(d, "kernel", PyUnicode_FromString(kernel)) < 0) {
        Py_XDECREF(d);
        return NULL;
    }
    return flpy_make_info("StaticInfo", d);
}
