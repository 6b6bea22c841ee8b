/*
 * filterlab.Bloomier: the Bloomier filter (include/filterlab_static.h; Chazelle, Kilian,
 * Rubinfeld and Tal 2004) on the binary fuse construction: a static map from keys to
 * values of value_bits <= 16 bits. A stored key gets its value back exactly; another key is
 * reported absent except with probability 2^-(cell_bits - value_bits), when it gets an
 * arbitrary value. Keys become 64-bit keys as static_shared.h says.
 */
#include "static_shared.h"

#include <string.h>

/* handle: the fl_bloomier. */
typedef flpy_object BloomierObject;

FLPY_DEFINE_STATIC_CLASS(Bloomier, bloomier, fl_bloomier, "Bloomier")

/* ---- values ----------------------------------------------------------------------------
 * The values of a build: n integers below 2^value_bits. A C-contiguous native uint16 array
 * is read in place; any other integer array or sequence is converted once (through a 64-bit
 * integer array, so that a value too large for 16 bits is reported rather than wrapped). */
typedef struct values {
    const uint16_t *v;
    uint16_t *owned;
    PyArrayObject *array; /* holds the memory v points into */
} values;

static void values_release(values *out)
{
    PyMem_RawFree(out->owned);
    Py_XDECREF(out->array);
    memset(out, 0, sizeof *out);
}

static int values_get(PyObject *obj, Py_ssize_t n, uint32_t value_bits, values *out)
{
    memset(out, 0, sizeof *out);
    PyArrayObject *a = (PyArrayObject *)PyArray_FROM_O(obj);
    if (a == NULL)
        return -1;
    out->array = a;
    if (PyArray_NDIM(a) != 1 ||
        (PyArray_SIZE(a) > 0 && !PyArray_ISINTEGER(a) && !PyArray_ISBOOL(a))) {
        PyErr_SetString(PyExc_TypeError,
                        "values must be a one-dimensional array or sequence of integers");
        goto fail;
    }
    if (PyArray_DIM(a, 0) != n) {
        PyErr_Format(PyExc_ValueError, "%zd values for %zd keys", (Py_ssize_t)PyArray_DIM(a, 0),
                     n);
        goto fail;
    }
    const uint64_t limit = 1ull << value_bits;
    if (PyArray_TYPE(a) == NPY_UINT16 && PyArray_ISCARRAY_RO(a)) {
        const uint16_t *v = PyArray_DATA(a);
        for (Py_ssize_t i = 0; i < n; i++)
            if (v[i] >= limit) {
                PyErr_Format(PyExc_ValueError, "values[%zd] = %u is not below 2**%u", i,
                             (unsigned)v[i], value_bits);
                goto fail;
            }
        out->v = v;
        return 0;
    }
    int is_signed = PyArray_ISSIGNED(a);
    PyArrayObject *wide = (PyArrayObject *)PyArray_FromAny(
        (PyObject *)a, PyArray_DescrFromType(is_signed ? NPY_INT64 : NPY_UINT64), 1, 1,
        NPY_ARRAY_CARRAY_RO | NPY_ARRAY_FORCECAST, NULL);
    if (wide == NULL)
        goto fail;
    Py_SETREF(out->array, wide);
    if ((out->owned = PyMem_RawMalloc((size_t)(n > 0 ? n : 1) * sizeof(uint16_t))) == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        uint64_t v;
        if (is_signed) {
            int64_t s = ((const int64_t *)PyArray_DATA(wide))[i];
            v = (uint64_t)s;
            if (s < 0) {
                PyErr_Format(PyExc_ValueError, "values[%zd] = %lld is negative", i,
                             (long long)s);
                goto fail;
            }
        } else {
            v = ((const uint64_t *)PyArray_DATA(wide))[i];
        }
        if (v >= limit) {
            PyErr_Format(PyExc_ValueError, "values[%zd] = %llu is not below 2**%u", i,
                         (unsigned long long)v, value_bits);
            goto fail;
        }
        out->owned[i] = (uint16_t)v;
    }
    out->v = out->owned;
    return 0;
fail:
    values_release(out);
    return -1;
}

static PyObject *Bloomier_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"keys", "values", "value_bits", "arity", "cell_bits", "seed",
                             "max_tries", "max_bytes", NULL};
    PyObject *keys_obj, *values_obj, *vbits_obj = NULL, *arity = NULL, *cbits_obj = NULL;
    PyObject *seed = NULL, *tries = NULL, *max_obj = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|$OOOOOO:Bloomier", kwlist, &keys_obj,
                                     &values_obj, &vbits_obj, &arity, &cbits_obj, &seed,
                                     &tries, &max_obj))
        return NULL;
    if (vbits_obj == NULL) {
        PyErr_SetString(PyExc_TypeError, "Bloomier() needs value_bits= (1..16)");
        return NULL;
    }
    flpy_static_args a;
    uint32_t vbits = 0, cbits = 0;
    if (flpy_static_args_parse(arity, seed, tries, max_obj, &a) < 0 ||
        flpy_static_u32_arg(vbits_obj, &vbits, "value_bits") < 0 ||
        flpy_static_u32_arg(cbits_obj, &cbits, "cell_bits") < 0)
        return NULL;
    if (vbits < 1 || vbits > 16) {
        PyErr_Format(PyExc_ValueError, "value_bits must be between 1 and 16, not %u", vbits);
        return NULL;
    }
    if (cbits_obj != NULL && cbits_obj != Py_None &&
        ((cbits != 16 && cbits != 32) || cbits < vbits)) {
        PyErr_Format(PyExc_ValueError, "cell_bits must be 16 or 32 and at least value_bits, "
                     "not %u", cbits);
        return NULL;
    }
    flpy_static_input in;
    if (flpy_static_input_get(keys_obj, &in) < 0)
        return NULL;
    values vals;
    if (values_get(values_obj, in.keys.n, vbits, &vals) < 0) {
        flpy_static_input_release(&in);
        return NULL;
    }
    fl_bloomier_config cfg = {.arity = a.arity, .value_bits = vbits, .cell_bits = cbits,
                              .seed = a.seed, .max_tries = a.max_tries,
                              .max_bytes = a.max_bytes};
    fl_bloomier *b = NULL;
    fl_status s;
    Py_BEGIN_ALLOW_THREADS
    const uint64_t *keys = flpy_static_keys(&in.keys, in.tmp);
    s = fl_bloomier_build_u64(&cfg, keys, vals.v, (size_t)in.keys.n, &b);
    Py_END_ALLOW_THREADS
    values_release(&vals);
    flpy_static_input_release(&in);
    if (s != FL_OK)
        return flpy_raise(s, "Bloomier", NULL);
    return flpy_wrap(type, &bloomier_ops, b);
}

/* ---- single keys ---------------------------------------------------------------------- */

/* 1 and *value if found, 0 if not, -1 with an exception set (a key of another type). */
static int get_key(BloomierObject *self, PyObject *key, uint16_t *value)
{
    uint64_t k;
    if (flpy_static_key(key, &k) < 0)
        return -1;
    flpy_read_lock_gil(&self->lock);
    int r = fl_bloomier_get_u64(self->handle, k, value);
    flpy_unlock(&self->lock);
    return r;
}

static PyObject *Bloomier_get(BloomierObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"key", "default", NULL};
    PyObject *key, *dflt = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:get", kwlist, &key, &dflt))
        return NULL;
    uint16_t v;
    int r = get_key(self, key, &v);
    if (r < 0)
        return NULL;
    return r ? PyLong_FromUnsignedLong(v) : Py_NewRef(dflt);
}

static PyObject *Bloomier_getitem(BloomierObject *self, PyObject *key)
{
    uint16_t v;
    int r = get_key(self, key, &v);
    if (r < 0)
        return NULL;
    if (r == 0) {
        PyErr_SetObject(PyExc_KeyError, key);
        return NULL;
    }
    return PyLong_FromUnsignedLong(v);
}

static int Bloomier_sq_contains(BloomierObject *self, PyObject *key)
{
    uint16_t v;
    return get_key(self, key, &v);
}

static PyObject *Bloomier_contains(BloomierObject *self, PyObject *key)
{
    int r = Bloomier_sq_contains(self, key);
    return r < 0 ? NULL : PyBool_FromLong(r);
}

/* ---- batches -------------------------------------------------------------------------- */

/* Looks a batch up with the GIL released: found marks into b's output, values into `values`
 * (n items). */
static void get_batch(BloomierObject *self, flpy_batch *b, uint16_t *values)
{
    Py_BEGIN_ALLOW_THREADS
    const uint64_t *keys = flpy_static_keys(&b->keys, b->tmp);
    flpy_read_lock(&self->lock);
    fl_bloomier_get_u64s(self->handle, keys, (size_t)b->keys.n, values, b->out.data);
    flpy_unlock(&self->lock);
    Py_END_ALLOW_THREADS
}

static PyObject *Bloomier_get_many(BloomierObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"keys", "out", "found_out", NULL};
    PyObject *obj, *out_obj = Py_None, *found_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$OO:get_many", kwlist, &obj, &out_obj,
                                     &found_obj))
        return NULL;
    flpy_batch b;
    if (flpy_batch_get(obj, 0, found_obj, NPY_BOOL, 0, &b) < 0)
        return NULL;
    flpy_out vals;
    if (flpy_out_get(out_obj, b.keys.n, NPY_UINT16, &vals) < 0) {
        Py_DECREF(flpy_batch_finish(&b, FL_OK, "get_many"));
        return NULL;
    }
    get_batch(self, &b, vals.data);
    flpy_out_release(&vals);
    PyObject *found = flpy_batch_finish(&b, FL_OK, "get_many");
    return Py_BuildValue("(NN)", vals.result, found);
}

static PyObject *Bloomier_contains_many(BloomierObject *self, PyObject *args, PyObject *kw)
{
    flpy_batch b;
    if (flpy_batch_from_args(args, kw, "O|$O:contains_many", NPY_BOOL, 0, &b, NULL) < 0)
        return NULL;
    uint16_t *values = PyMem_RawMalloc((size_t)(b.keys.n > 0 ? b.keys.n : 1) * sizeof *values);
    if (values == NULL) {
        Py_DECREF(flpy_batch_finish(&b, FL_OK, "contains_many"));
        return PyErr_NoMemory();
    }
    get_batch(self, &b, values);
    PyMem_RawFree(values);
    return flpy_batch_finish(&b, FL_OK, "contains_many");
}

static PyObject *Bloomier_get_value_bits(BloomierObject *self, void *Py_UNUSED(c))
{
    fl_static_info in;
    if (flpy_static_read_info(self, bloomier_info, &in) < 0)
        return NULL;
    return PyLong_FromUnsignedLong(in.value_bits);
}

static PyObject *Bloomier_repr(BloomierObject *self)
{
    fl_static_info in;
    if (flpy_static_read_info(self, bloomier_info, &in) < 0)
        return NULL;
    return PyUnicode_FromFormat("<filterlab.Bloomier %u-wise, %u-bit values in %u-bit cells, "
                                "%llu keys, %zu bytes>",
                                in.arity, in.value_bits, in.cell_bits,
                                (unsigned long long)in.keys, in.bytes);
}

static PyMethodDef Bloomier_methods[] = {
    {"get", (PyCFunction)(void (*)(void))Bloomier_get, METH_VARARGS | METH_KEYWORDS,
     "get(key, default=None) -> int | default\n--\n\nThe value stored for key, or default if "
     "the filter reports it absent (a non-key is reported absent except with probability "
     "2**-(cell_bits - value_bits), when it gets an arbitrary value). b[key] raises KeyError "
     "instead; `key in b` is the found flag."},
    {"contains", (PyCFunction)Bloomier_contains, METH_O,
     "contains(key) -> bool\n--\n\nTrue if key is reported present (every stored key is)."},
    {"get_many", (PyCFunction)(void (*)(void))Bloomier_get_many, METH_VARARGS | METH_KEYWORDS,
     "get_many(keys, *, out=None, found_out=None) -> (numpy.ndarray[uint16], "
     "numpy.ndarray[bool])\n--\n\nLooks up a batch (a uint64 array read in place, or a "
     "sequence of bytes/str/ints) with the GIL released: the values and the found mask; a "
     "key not found has value 0, so read values[found] (0 is also a valid stored value). "
     "out= (uint16) and found_out= (bool/uint8) are arrays written in place."},
    {"contains_many", (PyCFunction)(void (*)(void))Bloomier_contains_many,
     METH_VARARGS | METH_KEYWORDS,
     "contains_many(keys, *, out=None) -> numpy.ndarray[bool]\n--\n\nThe found mask of "
     "get_many alone."},
    {"key", (PyCFunction)flpy_static_key_method, METH_O,
     "key(key) -> int\n--\n\nThe 64-bit key the map stores for key: an int as it is, "
     "bytes/str XXH3-64 (seed 0) of the bytes (UTF-8), as `filterlab build-static` hashes "
     "lines."},
    {"info", (PyCFunction)Bloomier_info, METH_NOARGS,
     "info() -> StaticInfo\n--\n\nGeometry, keys, value and cell bits, bytes, bits per key, "
     "the chance a non-key is found (fpr), and the build's tries, seconds and peak memory "
     "(0 after a load)."},
    FLPY_COPY_METHOD("copy()\n--\n\nAn independent copy."),
    FLPY_FILE_METHODS(Bloomier,
      "to_bytes() -> bytes\n--\n\nThe filterlab file (kind Bloomier), as save() writes it.",
      "from_bytes(data, max_bytes=0)\n--\n\nA map from to_bytes() output, validated "
      "(FormatError if bad); max_bytes caps the cell array allocated.",
      "save(path)\n--\n\nWrites the file (readable by `filterlab query` and `info`).",
      "load(path, max_bytes=0)\n--\n\nReads a file (e.g. from `filterlab build-static --type "
      "bloomier`)."),
    FLPY_BIND_KERNEL_METHOD(
      "bind_kernel(name)\n--\n\nRuns this map's lookups on kernel name; None or 'auto' "
      "unbinds."),
    FLPY_REDUCE_METHOD_AND_END,
};

static PyGetSetDef Bloomier_getset[] = {
    {"kernel", (getter)Bloomier_get_kernel, NULL, "The kernel this map's lookups use.", NULL},
    FLPY_BOUND_KERNEL_GETTER("The kernel bound, or None."),
    {"value_bits", (getter)Bloomier_get_value_bits, NULL, "Values are below 2**value_bits.",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PySequenceMethods Bloomier_as_sequence = {
    .sq_length = (lenfunc)Bloomier_len,
    .sq_contains = (objobjproc)Bloomier_sq_contains,
};

static PyMappingMethods Bloomier_as_mapping = {
    .mp_length = (lenfunc)Bloomier_len,
    .mp_subscript = (binaryfunc)Bloomier_getitem,
};

static PyTypeObject Bloomier_Type = {
    FLPY_TYPE_FIELDS(Bloomier, BloomierObject, "Bloomier"),
    .tp_as_sequence = &Bloomier_as_sequence,
    .tp_as_mapping = &Bloomier_as_mapping,
    .tp_doc = "Bloomier(keys, values, *, value_bits, arity=3, cell_bits=None, seed=0, "
              "max_tries=100, max_bytes=None)\n--\n\n"
              "A static map keys[i] -> values[i] (Chazelle et al. 2004, on the binary fuse "
              "construction): keys as FuseFilter takes them, values an integer array or "
              "sequence below 2**value_bits (1..16; a C-contiguous uint16 array is read in "
              "place). Cells of cell_bits (16 or 32; default 16 if value_bits <= 8, else 32): "
              "a stored key gets its value exactly; another key is reported absent except "
              "with probability 2**-(cell_bits - value_bits). A key given twice must carry "
              "the same value (ValueError otherwise). Construction runs with the GIL released; "
              "BuildError if max_tries seeds all fail.",
    .tp_getset = Bloomier_getset,
};

FLPY_DEFINE_ADD(bloomier, Bloomier)
