/*
 * The keys a call takes and the array a batch call returns (see keys.h): batches read
 * through the buffer protocol or copied from a sequence, uint32 increments, single keys,
 * their 64-bit hashes, and the output array a batch writes into.
 */
#include "keys.h"

#include <string.h>

/* ---- keys ----------------------------------------------------------------------------- */

/* The buffer format of an unsigned 64-bit item, native little-endian ('@', '=', '<'). */
static int is_u64_format(const char *fmt, Py_ssize_t itemsize)
{
    if (fmt == NULL || itemsize != 8)
        return 0;
    if (*fmt == '@' || *fmt == '=' || *fmt == '<')
        fmt++;
    return (fmt[0] == 'Q' || fmt[0] == 'L') && fmt[1] == '\0';
}

static int is_u32_format(const char *fmt, Py_ssize_t itemsize)
{
    if (fmt == NULL || itemsize != 4)
        return 0;
    if (*fmt == '@' || *fmt == '=' || *fmt == '<')
        fmt++;
    return (fmt[0] == 'I' || (fmt[0] == 'L' && sizeof(unsigned long) == 4)) && fmt[1] == '\0';
}

/* Reads a 1-D buffer; strided ones are copied into *owned. 1: done, 0: not a buffer. */
static int get_vector(PyObject *obj, Py_buffer *view, void **owned, const char *name,
                      int (*format_ok)(const char *, Py_ssize_t), const char *want)
{
    if (!PyObject_CheckBuffer(obj))
        return 0;
    if (PyObject_GetBuffer(obj, view, PyBUF_RECORDS_RO) < 0)
        return -1;
    if (view->ndim != 1) {
        PyErr_Format(PyExc_TypeError, "%s must be one-dimensional (got %d dimensions)", name,
                     view->ndim);
        PyBuffer_Release(view);
        return -1;
    }
    if (!format_ok(view->format, view->itemsize)) {
        PyErr_Format(PyExc_TypeError,
                     "%s must be %s (buffer format '%s', item size %zd): convert with "
                     "numpy.asarray(x, dtype=numpy.%s)",
                     name, want, view->format ? view->format : "B", view->itemsize, want);
        PyBuffer_Release(view);
        return -1;
    }
    *owned = NULL;
    if (!PyBuffer_IsContiguous(view, 'C')) {
        /* The one documented copy: strided input (a slice with a step, a column). */
        *owned = PyMem_RawMalloc(view->len ? (size_t)view->len : 1);
        if (*owned == NULL) {
            PyBuffer_Release(view);
            PyErr_NoMemory();
            return -1;
        }
        if (PyBuffer_ToContiguous(*owned, view, view->len, 'C') < 0) {
            PyMem_RawFree(*owned);
            *owned = NULL;
            PyBuffer_Release(view);
            return -1;
        }
    }
    return 1;
}

static int is_text_or_bytes(PyObject *o) { return PyBytes_Check(o) || PyUnicode_Check(o); }
static int is_integer(PyObject *o);

int flpy_keys_get(PyObject *obj, int as_hashes, flpy_keys *k)
{
    memset(k, 0, sizeof *k);
    k->kind = FLPY_U64;
    if (obj == NULL || obj == Py_None) {
        PyErr_SetString(PyExc_TypeError, "keys must be an array or a sequence, not None");
        return -1;
    }
    if (is_text_or_bytes(obj) || PyByteArray_Check(obj)) {
        PyErr_SetString(PyExc_TypeError,
                        "keys must be a uint64 array or a sequence of keys, not a single "
                        "bytes/str (wrap it in a list, or use the single-key call)");
        return -1;
    }
    void *owned = NULL;
    int r = get_vector(obj, &k->view, &owned, as_hashes ? "hashes" : "keys", is_u64_format,
                       "uint64");
    if (r < 0)
        return -1;
    if (r == 1) {
        k->have_view = 1;
        k->owned = owned;
        k->u64 = owned ? owned : k->view.buf;
        k->n = k->view.len / 8;
        return 0;
    }
    /* A sequence (or any iterable): a tuple keeps every item alive while the GIL is off. */
    PyObject *t = PySequence_Tuple(obj);
    if (t == NULL) {
        if (PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError,
                         "keys must be a uint64 array or a sequence of bytes, str or int "
                         "keys, not %.100s", Py_TYPE(obj)->tp_name);
        }
        return -1;
    }
    k->items = t;
    k->n = PyTuple_GET_SIZE(t);
    if (k->n == 0) {
        k->u64 = NULL;
        return 0;
    }
    PyObject *first = PyTuple_GET_ITEM(t, 0);
    if (is_integer(first)) {
        k->owned = PyMem_RawMalloc((size_t)k->n * sizeof(uint64_t));
        if (k->owned == NULL) {
            PyErr_NoMemory();
            goto fail;
        }
        for (Py_ssize_t i = 0; i < k->n; i++) {
            PyObject *it = PyTuple_GET_ITEM(t, i);
            if (!is_integer(it)) {
                PyErr_Format(PyExc_TypeError,
                             "keys[%zd] is %.100s; a sequence of int keys takes ints only", i,
                             Py_TYPE(it)->tp_name);
                goto fail;
            }
            if (flpy_u64_arg(it, &k->owned[i], as_hashes ? "hash" : "key") < 0)
                goto fail;
        }
        k->u64 = k->owned;
        return 0;
    }
    if (as_hashes) {
        PyErr_SetString(PyExc_TypeError, "hashes must be a uint64 array or a sequence of ints");
        goto fail;
    }
    k->kind = FLPY_STRINGS;
    k->ptrs = PyMem_RawMalloc((size_t)k->n * sizeof *k->ptrs);
    k->lens = PyMem_RawMalloc((size_t)k->n * sizeof *k->lens);
    if (k->ptrs == NULL || k->lens == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t i = 0; i < k->n; i++) {
        PyObject *it = PyTuple_GET_ITEM(t, i);
        if (PyBytes_Check(it)) {
            k->ptrs[i] = PyBytes_AS_STRING(it);
            k->lens[i] = (size_t)PyBytes_GET_SIZE(it);
        } else if (PyUnicode_Check(it)) {
            Py_ssize_t len;
            const char *s = PyUnicode_AsUTF8AndSize(it, &len);
            if (s == NULL)
                goto fail;
            k->ptrs[i] = s;
            k->lens[i] = (size_t)len;
        } else {
            PyErr_Format(PyExc_TypeError,
                         "keys[%zd] is %.100s; a sequence of keys holds bytes and str only "
                         "(or ints only)", i, Py_TYPE(it)->tp_name);
            goto fail;
        }
    }
    return 0;
fail:
    flpy_keys_release(k);
    return -1;
}

void flpy_keys_release(flpy_keys *k)
{
    if (k->have_view)
        PyBuffer_Release(&k->view);
    k->have_view = 0;
    PyMem_RawFree(k->owned);
    PyMem_RawFree(k->ptrs);
    PyMem_RawFree(k->lens);
    k->owned = NULL;
    k->ptrs = NULL;
    k->lens = NULL;
    Py_CLEAR(k->items);
}

int flpy_u32s_get(PyObject *obj, Py_ssize_t n, flpy_u32s *u)
{
    memset(u, 0, sizeof *u);
    void *owned = NULL;
    int r = get_vector(obj, &u->view, &owned, "increments", is_u32_format, "uint32");
    if (r < 0)
        return -1;
    if (r == 1) {
        u->have_view = 1;
        u->owned = owned;
        u->v = owned ? owned : u->view.buf;
        if (u->view.len / 4 != n) {
            PyErr_Format(PyExc_ValueError, "increments has %zd items for %zd keys",
                         u->view.len / 4, n);
            flpy_u32s_release(u);
            return -1;
        }
        return 0;
    }
    PyObject *t = PySequence_Tuple(obj);
    if (t == NULL)
        return -1;
    if (PyTuple_GET_SIZE(t) != n) {
        PyErr_Format(PyExc_ValueError, "increments has %zd items for %zd keys",
                     PyTuple_GET_SIZE(t), n);
        Py_DECREF(t);
        return -1;
    }
    u->owned = PyMem_RawMalloc((size_t)(n ? n : 1) * sizeof(uint32_t));
    if (u->owned == NULL) {
        Py_DECREF(t);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned long v = PyLong_AsUnsignedLong(PyTuple_GET_ITEM(t, i));
        if ((v == (unsigned long)-1 && PyErr_Occurred()) || v > UINT32_MAX) {
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "increments[%zd] must be an int in [0, 2**32)", i);
            Py_DECREF(t);
            flpy_u32s_release(u);
            return -1;
        }
        u->owned[i] = (uint32_t)v;
    }
    Py_DECREF(t);
    u->v = u->owned;
    return 0;
}

void flpy_u32s_release(flpy_u32s *u)
{
    if (u->have_view)
        PyBuffer_Release(&u->view);
    u->have_view = 0;
    PyMem_RawFree(u->owned);
    u->owned = NULL;
}

/* An int, or an integer-like object with __index__ (numpy.uint64(5), numpy.int32(2)) but
 * not a float: the same key whatever type holds it. */
static int is_integer(PyObject *o) { return PyLong_Check(o) || (PyIndex_Check(o) && !PyFloat_Check(o)); }

int flpy_u64_arg(PyObject *obj, uint64_t *out, const char *what)
{
    if (!is_integer(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int, not %.100s", what,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    PyObject *index = PyNumber_Index(obj);
    if (index == NULL)
        return -1;
    unsigned long long v = PyLong_AsUnsignedLongLong(index);
    Py_DECREF(index);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s must be an int in [0, 2**64)", what);
        return -1;
    }
    *out = (uint64_t)v;
    return 0;
}

int flpy_key_get(PyObject *obj, flpy_key *k)
{
    k->have_view = 0;
    k->is_int = 0;
    if (is_integer(obj)) {
        k->is_int = 1;
        return flpy_u64_arg(obj, &k->u64, "key");
    }
    if (PyBytes_Check(obj)) {
        k->data = PyBytes_AS_STRING(obj);
        k->len = (size_t)PyBytes_GET_SIZE(obj);
        return 0;
    }
    if (PyUnicode_Check(obj)) {
        Py_ssize_t len;
        k->data = PyUnicode_AsUTF8AndSize(obj, &len);
        if (k->data == NULL)
            return -1;
        k->len = (size_t)len;
        return 0;
    }
    /* Mutable byte strings too; not any buffer: a NumPy float scalar exports one, and
     * hashing its 8 bytes as a key would be a silent surprise. */
    if (PyByteArray_Check(obj) || PyMemoryView_Check(obj)) {
        if (PyObject_GetBuffer(obj, &k->view, PyBUF_SIMPLE) < 0)
            return -1;
        k->have_view = 1;
        k->data = k->view.buf;
        k->len = (size_t)k->view.len;
        return 0;
    }
    PyErr_Format(PyExc_TypeError, "a key is an int, bytes, bytearray or str, not %.100s",
                 Py_TYPE(obj)->tp_name);
    return -1;
}

void flpy_key_release(flpy_key *k)
{
    if (k->have_view)
        PyBuffer_Release(&k->view);
    k->have_view = 0;
}

PyObject *flpy_new_array(Py_ssize_t n, int npy)
{
    npy_intp dims[1] = {(npy_intp)n};
    return PyArray_SimpleNew(1, dims, npy);
}

uint64_t flpy_hash_u64_with_seed(const void *seed, uint64_t key)
{
    return fl_hash_u64(key, *(const uint64_t *)seed);
}

const uint64_t *flpy_hashes(const flpy_keys *k, int as_hashes, flpy_hash_bytes_fn hash_bytes,
                            const void *bytes_ctx, flpy_hash_int_fn hash_int,
                            const void *int_ctx, uint64_t *tmp)
{
    if (!flpy_keys_need_tmp(k, as_hashes))
        return k->u64;
    if (k->kind == FLPY_STRINGS) {
        for (Py_ssize_t i = 0; i < k->n; i++)
            tmp[i] = hash_bytes(bytes_ctx, k->ptrs[i], k->lens[i]);
    } else {
        for (Py_ssize_t i = 0; i < k->n; i++)
            tmp[i] = hash_int(int_ctx, k->u64[i]);
    }
    return tmp;
}

uint64_t *flpy_alloc_u64(Py_ssize_t n)
{
    uint64_t *p = PyMem_RawMalloc((size_t)(n > 0 ? n : 1) * sizeof(uint64_t));
    if (p == NULL)
        PyErr_NoMemory();
    return p;
}

int flpy_out_get(PyObject *out_obj, Py_ssize_t n, int npy, flpy_out *o)
{
    memset(o, 0, sizeof *o);
    if (out_obj == NULL || out_obj == Py_None) {
        o->result = flpy_new_array(n, npy);
        if (o->result == NULL)
            return -1;
        o->data = PyArray_DATA((PyArrayObject *)o->result);
        return 0;
    }
    Py_ssize_t itemsize = npy == NPY_UINT32 ? 4 : npy == NPY_UINT16 ? 2 : 1;
    if (PyObject_GetBuffer(out_obj, &o->view, PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    o->have_view = 1;
    const char *fmt = o->view.format ? o->view.format : "B";
    if (*fmt == '@' || *fmt == '=' || *fmt == '<')
        fmt++;
    int fmt_ok = itemsize == 1   ? (strcmp(fmt, "?") == 0 || strcmp(fmt, "B") == 0)
                 : itemsize == 2 ? (strcmp(fmt, "H") == 0)
                                 : (strcmp(fmt, "I") == 0);
    if (o->view.ndim != 1 || o->view.itemsize != itemsize || !fmt_ok) {
        PyErr_Format(PyExc_TypeError, "out must be a one-dimensional %s array",
                     itemsize == 1 ? "bool or uint8" : itemsize == 2 ? "uint16" : "uint32");
        flpy_out_release(o);
        return -1;
    }
    if (o->view.len / itemsize != n) {
        PyErr_Format(PyExc_ValueError, "out has %zd items for %zd keys", o->view.len / itemsize, n);
        flpy_out_release(o);
        return -1;
    }
    o->data = o->view.buf;
    o->result = Py_NewRef(out_obj);
    return 0;
}

void flpy_out_release(flpy_out *o)
{
    if (o->have_view)
        PyBuffer_Release(&o->view);
    o->have_view = 0;
}

int flpy_batch_get(PyObject *keys_obj, int as_hashes, PyObject *out_obj, int npy, int hash_ints,
                   flpy_batch *b)
{
    b->tmp = NULL;
    if (flpy_keys_get(keys_obj, as_hashes, &b->keys) < 0)
        return -1;
    if (flpy_out_get(out_obj, b->keys.n, npy, &b->out) < 0) {
        flpy_keys_release(&b->keys);
        return -1;
    }
    int need_tmp = hash_ints ? flpy_keys_need_tmp(&b->keys, as_hashes)
                             : b->keys.kind == FLPY_STRINGS;
    if (need_tmp && (b->tmp = flpy_alloc_u64(b->keys.n)) == NULL) {
        Py_DECREF(b->out.result);
        flpy_out_release(&b->out);
        flpy_keys_release(&b->keys);
        return -1;
    }
    return 0;
}

PyObject *flpy_batch_finish(flpy_batch *b, fl_status s, const char *what)
{
    PyMem_RawFree(b->tmp);
    b->tmp = NULL;
    flpy_out_release(&b->out);
    flpy_keys_release(&b->keys);
    if (s != FL_OK) {
        Py_DECREF(b->out.result);
        return flpy_raise(s, what, NULL);
    }
    return b->out.result;
}
