/*
 * filterlab.HyperLogLog: distinct counting in Redis's layout (include/filterlab_hll.h):
 * the same adds give the same Redis string, and count() equals PFCOUNT at p = 14.
 */
#include "object.h"

#include <string.h>

/* handle: the fl_hll. */
typedef flpy_object HllObject;

static PyTypeObject Hll_Type;
static PyObject *Hll_to_redis(HllObject *self, PyObject *Py_UNUSED(ignored));

/* ---- the library calls the shared methods use (object.h) ------------------------------ */

static void hll_free(void *h) { fl_hll_free(h); }
static fl_status hll_clone(const void *h, void **out) { return fl_hll_clone(h, (fl_hll **)out); }
static fl_status hll_merge(void *dst, const void *src) { return fl_hll_merge(dst, src); }
static fl_status hll_clear(void *h) { return fl_hll_clear(h); }
static fl_status hll_bind_kernel(void *h, const char *name) { return fl_hll_bind_kernel(h, name); }

/* No filterlab file format for HyperLogLog: its bytes are the Redis string. */
static const flpy_ops hll_ops = {
    .class_name = "HyperLogLog",
    .type = &Hll_Type,
    .free = hll_free,
    .clone = hll_clone,
    .merge = hll_merge,
    .clear = hll_clear,
    .bind_kernel = hll_bind_kernel,
    .pickle_state = Hll_to_redis,
    .pickle_ctor = "from_redis",
};

FLPY_DEFINE_MERGE_OPERATORS(Hll, hll_ops)

static PyObject *Hll_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"p", NULL};
    PyObject *p_obj = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:HyperLogLog", kwlist, &p_obj))
        return NULL;
    uint64_t p = FL_HLL_REDIS_P;
    if (p_obj != NULL && flpy_u64_arg(p_obj, &p, "p") < 0)
        return NULL;
    if (p > UINT32_MAX)
        return flpy_raise(FL_ERR_BAD_PRECISION, "HyperLogLog", NULL);
    fl_hll *h = NULL;
    fl_status st = fl_hll_create((uint32_t)p, &h);
    if (st != FL_OK)
        return flpy_raise(st, "HyperLogLog", NULL);
    return flpy_wrap(type, &hll_ops, h);
}

static PyObject *Hll_add(HllObject *self, PyObject *key)
{
    flpy_key k;
    if (flpy_key_get(key, &k) < 0)
        return NULL;
    int changed = 0;
    flpy_write_lock_gil(&self->lock);
    fl_status st = k.is_int ? fl_hll_add_u64s(self->handle, &k.u64, 1, &changed)
                            : fl_hll_add_bytes(self->handle, k.data, k.len, &changed);
    flpy_unlock(&self->lock);
    flpy_key_release(&k);
    if (st != FL_OK)
        return flpy_raise(st, "add", NULL);
    return PyBool_FromLong(changed);
}

static PyObject *Hll_add_hash(HllObject *self, PyObject *arg)
{
    uint64_t h;
    if (flpy_u64_arg(arg, &h, "hash") < 0)
        return NULL;
    int changed = 0;
    flpy_write_lock_gil(&self->lock);
    fl_status st = fl_hll_add_hashes(self->handle, &h, 1, &changed);
    flpy_unlock(&self->lock);
    if (st != FL_OK)
        return flpy_raise(st, "add_hash", NULL);
    return PyBool_FromLong(changed);
}

static PyObject *Hll_add_many(HllObject *self, PyObject *args, PyObject *kw)
{
    flpy_keys k;
    int as_hashes;
    if (flpy_keys_from_args(args, kw, "O|$p:add_many", &k, &as_hashes) < 0)
        return NULL;
    int changed = 0;
    fl_status st;
    Py_BEGIN_ALLOW_THREADS
    flpy_write_lock(&self->lock);
    if (k.kind == FLPY_STRINGS)
        st = fl_hll_add_strings(self->handle, (const void *const *)k.ptrs, k.lens, (size_t)k.n,
                                &changed);
    else if (as_hashes)
        st = fl_hll_add_hashes(self->handle, k.u64, (size_t)k.n, &changed);
    else
        st = fl_hll_add_u64s(self->handle, k.u64, (size_t)k.n, &changed);
    flpy_unlock(&self->lock);
    Py_END_ALLOW_THREADS
    flpy_keys_release(&k);
    if (st != FL_OK)
        return flpy_raise(st, "add_many", NULL);
    return PyBool_FromLong(changed);
}

static PyObject *Hll_count(HllObject *self, PyObject *Py_UNUSED(ignored))
{
    uint64_t n = 0;
    /* fl_hll_count caches its result in the sketch (PFCOUNT does too): a write. */
    flpy_write_lock_gil(&self->lock);
    fl_status st = fl_hll_count(self->handle, &n);
    flpy_unlock(&self->lock);
    if (st != FL_OK)
        return flpy_raise(st, "count", NULL);
    return PyLong_FromUnsignedLongLong(n);
}

static PyObject *Hll_estimate(HllObject *self, PyObject *Py_UNUSED(ignored))
{
    uint64_t n = 0;
    flpy_read_lock_gil(&self->lock);
    fl_status st = fl_hll_estimate(self->handle, &n);
    flpy_unlock(&self->lock);
    if (st != FL_OK)
        return flpy_raise(st, "estimate", NULL);
    return PyLong_FromUnsignedLongLong(n);
}

static PyObject *Hll_to_dense(HllObject *self, PyObject *Py_UNUSED(ignored))
{
    flpy_write_lock_gil(&self->lock);
    fl_status st = fl_hll_to_dense(self->handle);
    flpy_unlock(&self->lock);
    if (st != FL_OK)
        return flpy_raise(st, "to_dense", NULL);
    Py_RETURN_NONE;
}

static PyObject *Hll_set_sparse_max(HllObject *self, PyObject *arg)
{
    uint64_t v;
    if (flpy_u64_arg(arg, &v, "sparse_max_bytes") < 0)
        return NULL;
    flpy_write_lock_gil(&self->lock);
    fl_status st = fl_hll_set_sparse_max(self->handle, v > SIZE_MAX ? SIZE_MAX : (size_t)v);
    flpy_unlock(&self->lock);
    if (st != FL_OK)
        return flpy_raise(st, "set_sparse_max", NULL);
    Py_RETURN_NONE;
}

static PyObject *Hll_to_redis(HllObject *self, PyObject *Py_UNUSED(ignored))
{
    flpy_read_lock_gil(&self->lock);
    size_t size = 0;
    fl_status st = fl_hll_export_redis_size(self->handle, &size);
    PyObject *b = NULL;
    size_t written = 0;
    if (st == FL_OK) {
        b = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)size);
        if (b != NULL)
            st = fl_hll_export_redis(self->handle, PyBytes_AS_STRING(b), size, &written);
    }
    flpy_unlock(&self->lock);
    if (st != FL_OK) {
        Py_XDECREF(b);
        return flpy_raise(st, "to_redis (Redis strings exist for p = 14 only)", NULL);
    }
    if (b != NULL && written != size && _PyBytes_Resize(&b, (Py_ssize_t)written) < 0)
        return NULL;
    return b;
}

static PyObject *Hll_from_redis(PyObject *cls, PyObject *arg)
{
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    fl_hll *h = NULL;
    fl_status st = fl_hll_import_redis(view.buf, (size_t)view.len, &h);
    PyBuffer_Release(&view);
    if (st != FL_OK)
        return flpy_raise(st, "from_redis", NULL);
    return flpy_wrap((PyTypeObject *)cls, &hll_ops, h);
}

static PyObject *Hll_info(HllObject *self, PyObject *Py_UNUSED(ignored))
{
    fl_hll_info in;
    flpy_read_lock_gil(&self->lock);
    fl_status st = fl_hll_info_get(self->handle, &in);
    flpy_unlock(&self->lock);
    if (st != FL_OK)
        return flpy_raise(st, "info", NULL);
    PyObject *d = Py_BuildValue("{s:k,s:k,s:s,s:k,s:k,s:K,s:K,s:d,s:N,s:K,s:K,s:s}",
                                "precision", (unsigned long)in.precision,
                                "registers", (unsigned long)in.registers,
                                "encoding", in.encoding == FL_HLL_SPARSE ? "sparse" : "dense",
                                "registers_set", (unsigned long)in.registers_set,
                                "max_register", (unsigned long)in.max_register,
                                "redis_bytes", (unsigned long long)in.redis_bytes,
                                "memory_bytes", (unsigned long long)in.memory_bytes,
                                "std_error", (double)in.std_error,
                                "cache_valid", PyBool_FromLong(in.cache_valid),
                                "cached_count", (unsigned long long)in.cached_count,
                                "sparse_max_bytes", (unsigned long long)in.sparse_max_bytes,
                                "kernel", fl_hll_kernel(self->handle));
    return flpy_make_info("HyperLogLogInfo", d);
}

static PyObject *Hll_get_kernel(HllObject *self, void *Py_UNUSED(c))
{
    return PyUnicode_FromString(fl_hll_kernel(self->handle));
}

static PyObject *Hll_get_precision(HllObject *self, void *Py_UNUSED(c))
{
    fl_hll_info in;
    flpy_read_lock_gil(&self->lock);
    fl_hll_info_get(self->handle, &in);
    flpy_unlock(&self->lock);
    return PyLong_FromUnsignedLong(in.precision);
}

static PyObject *Hll_repr(HllObject *self)
{
    fl_hll_info in;
    uint64_t n = 0;
    flpy_read_lock_gil(&self->lock);
    fl_hll_info_get(self->handle, &in);
    fl_hll_estimate(self->handle, &n);
    flpy_unlock(&self->lock);
    return PyUnicode_FromFormat("<filterlab.HyperLogLog p=%u %s, ~%llu distinct>", in.precision,
                                in.encoding == FL_HLL_SPARSE ? "sparse" : "dense",
                                (unsigned long long)n);
}

static PyMethodDef Hll_methods[] = {
    {"add", (PyCFunction)Hll_add, METH_O,
     "add(key) -> bool\n--\n\nAdds a key (bytes/str; an int is its 8 little-endian bytes, as "
     "Redis would get them); True if a register grew (PFADD's reply)."},
    {"add_hash", (PyCFunction)Hll_add_hash, METH_O,
     "add_hash(h) -> bool\n--\n\nAdds a MurmurHash64A value computed already (seed 0xadc83b19 "
     "for Redis's answers)."},
    {"add_many", (PyCFunction)(void (*)(void))Hll_add_many, METH_VARARGS | METH_KEYWORDS,
     "add_many(keys, *, hashes=False) -> bool\n--\n\nAdds a batch; True if any register grew. "
     "GIL released."},
    {"count", (PyCFunction)Hll_count, METH_NOARGS,
     "count() -> int\n--\n\nThe distinct-count estimate (PFCOUNT; cached in the sketch)."},
    {"estimate", (PyCFunction)Hll_estimate, METH_NOARGS,
     "estimate() -> int\n--\n\nThe estimate from the registers, ignoring the cache."},
    FLPY_MERGE_METHOD(
      "merge(other)\n--\n\nRegister-wise max with a sketch of equal precision (PFMERGE)."),
    FLPY_COPY_METHOD("copy()\n--\n\nAn independent copy."),
    FLPY_CLEAR_METHOD("clear()\n--\n\nEmpties the sketch."),
    {"to_dense", (PyCFunction)Hll_to_dense, METH_NOARGS,
     "to_dense()\n--\n\nConverts a sparse sketch to the dense encoding now."},
    {"set_sparse_max", (PyCFunction)Hll_set_sparse_max, METH_O,
     "set_sparse_max(nbytes)\n--\n\nRedis's hll-sparse-max-bytes for this sketch."},
    {"to_redis", (PyCFunction)Hll_to_redis, METH_NOARGS,
     "to_redis() -> bytes\n--\n\nThe Redis string (what GET returns for a PFADD key), p = 14."},
    {"from_redis", (PyCFunction)Hll_from_redis, METH_O | METH_CLASS,
     "from_redis(data)\n--\n\nA sketch from a Redis HyperLogLog string, validated "
     "(FormatError if bad)."},
    {"info", (PyCFunction)Hll_info, METH_NOARGS, "info()\n--\n\nA HyperLogLogInfo dataclass."},
    FLPY_BIND_KERNEL_METHOD(
      "bind_kernel(name)\n--\n\nRuns this sketch on kernel name; None or 'auto' unbinds."),
    FLPY_REDUCE_METHOD_AND_END,
};

static PyGetSetDef Hll_getset[] = {
    {"kernel", (getter)Hll_get_kernel, NULL, "The kernel this sketch's calls use.", NULL},
    FLPY_BOUND_KERNEL_GETTER("The kernel bound, or None."),
    {"precision", (getter)Hll_get_precision, NULL, "p: the sketch has 2**p registers.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject Hll_Type = {
    FLPY_TYPE_FIELDS(Hll, HllObject, "HyperLogLog"),
    .tp_as_number = &Hll_as_number,
    .tp_doc = "HyperLogLog(p=14)\n--\n\n"
              "A HyperLogLog sketch of 2**p registers in Redis's layout: p = 14 gives "
              "exactly Redis's strings and PFCOUNT; 4 <= p <= 16 otherwise (dense only).",
    .tp_getset = Hll_getset,
};

FLPY_DEFINE_ADD(hll, Hll)
