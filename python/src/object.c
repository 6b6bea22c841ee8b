/*
 * The methods every class shares, driven by the class's flpy_ops table (see object.h).
 */
#include "object.h"

#include <string.h>

PyObject *flpy_wrap(PyTypeObject *type, const flpy_ops *ops, void *handle)
{
    flpy_object *self = (flpy_object *)type->tp_alloc(type, 0);
    if (self == NULL) {
        ops->free(handle);
        return NULL;
    }
    if (flpy_lock_init(&self->lock) < 0) {
        ops->free(handle);
        Py_TYPE(self)->tp_free((PyObject *)self);
        return NULL;
    }
    self->handle = handle;
    self->ops = ops;
    self->bound = Py_NewRef(Py_None);
    if (ops->init != NULL)
        ops->init(self);
    return (PyObject *)self;
}

void flpy_dealloc(flpy_object *self)
{
    if (self->handle != NULL) {
        self->ops->free(self->handle);
        flpy_lock_destroy(&self->lock);
    }
    Py_XDECREF(self->bound);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

int flpy_parse_max_bytes(PyObject *obj, size_t *out)
{
    uint64_t v = 0;
    if (obj != NULL && obj != Py_None && flpy_u64_arg(obj, &v, "max_bytes") < 0)
        return -1;
    *out = v > SIZE_MAX ? SIZE_MAX : (size_t)v;
    return 0;
}

PyObject *flpy_seeded_batch(flpy_seeded_object *self, PyObject *args, PyObject *kw,
                            const char *format, int write, flpy_hash_bytes_fn hash_bytes,
                            flpy_hashes_call call, const char *what,
                            const char *what_unsupported)
{
    flpy_batch b;
    int as_hashes;
    if (flpy_batch_from_args(args, kw, format, NPY_BOOL, 1, &b, &as_hashes) < 0)
        return NULL;
    fl_status st;
    Py_BEGIN_ALLOW_THREADS
    const uint64_t *h = flpy_hashes(&b.keys, as_hashes, hash_bytes, self->base.handle,
                                    flpy_hash_u64_with_seed, &self->seed, b.tmp);
    if (write)
        flpy_write_lock(&self->base.lock);
    else
        flpy_read_lock(&self->base.lock);
    st = call(self->base.handle, h, (size_t)b.keys.n, b.out.data);
    flpy_unlock(&self->base.lock);
    Py_END_ALLOW_THREADS
    return flpy_batch_finish(&b, st,
                             st == FL_ERR_UNSUPPORTED && what_unsupported ? what_unsupported
                                                                          : what);
}

/* ---- bytes and files ------------------------------------------------------------------ */

PyObject *flpy_to_bytes(flpy_object *self, PyObject *Py_UNUSED(ignored))
{
    const flpy_ops *ops = self->ops;
    flpy_read_lock_gil(&self->lock);
    size_t size = ops->serialized_size(self->handle);
    PyObject *b = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)size);
    fl_status s = FL_OK;
    size_t written = 0;
    if (b != NULL) {
        char *p = PyBytes_AS_STRING(b);
        Py_BEGIN_ALLOW_THREADS
        s = ops->save_mem(self->handle, p, size, &written);
        Py_END_ALLOW_THREADS
    }
    flpy_unlock(&self->lock);
    if (b == NULL)
        return NULL;
    if (s != FL_OK) {
        Py_DECREF(b);
        return flpy_raise(s, "to_bytes", NULL);
    }
    if (written != size && _PyBytes_Resize(&b, (Py_ssize_t)written) < 0)
        return NULL;
    return b;
}

PyObject *flpy_from_buffer_with(const flpy_ops *ops, PyObject *cls, PyObject *args,
                                PyObject *kw, const char *format, const char *what,
                                flpy_load_mem_fn load)
{
    static char *kwlist[] = {"data", "max_bytes", NULL};
    Py_buffer view;
    PyObject *max_obj = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, format, kwlist, &view, &max_obj))
        return NULL;
    size_t max_bytes;
    if (flpy_parse_max_bytes(max_obj, &max_bytes) < 0) {
        PyBuffer_Release(&view);
        return NULL;
    }
    void *handle = NULL;
    fl_status s;
    Py_BEGIN_ALLOW_THREADS
    s = load(view.buf, (size_t)view.len, max_bytes, &handle);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    if (s != FL_OK)
        return flpy_raise(s, what, NULL);
    return flpy_wrap((PyTypeObject *)cls, ops, handle);
}

PyObject *flpy_from_bytes(const flpy_ops *ops, PyObject *cls, PyObject *args, PyObject *kw)
{
    return flpy_from_buffer_with(ops, cls, args, kw, "y*|O:from_bytes", "from_bytes",
                                 ops->load_mem);
}

PyObject *flpy_save(flpy_object *self, PyObject *path_obj)
{
    PyObject *path = NULL;
    if (!PyUnicode_FSConverter(path_obj, &path))
        return NULL;
    const char *p = PyBytes_AS_STRING(path);
    fl_status s;
    Py_BEGIN_ALLOW_THREADS
    flpy_read_lock(&self->lock);
    s = self->ops->save_file(self->handle, p);
    flpy_unlock(&self->lock);
    Py_END_ALLOW_THREADS
    PyObject *r = s == FL_OK ? Py_NewRef(Py_None) : flpy_raise(s, "save", p);
    Py_DECREF(path);
    return r;
}

PyObject *flpy_load(const flpy_ops *ops, PyObject *cls, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"path", "max_bytes", NULL};
    PyObject *path = NULL, *max_obj = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|O:load", kwlist, PyUnicode_FSConverter,
                                     &path, &max_obj))
        return NULL;
    size_t max_bytes;
    if (flpy_parse_max_bytes(max_obj, &max_bytes) < 0) {
        Py_DECREF(path);
        return NULL;
    }
    const char *p = PyBytes_AS_STRING(path);
    void *handle = NULL;
    fl_status s;
    Py_BEGIN_ALLOW_THREADS
    s = ops->load_file(p, max_bytes, &handle);
    Py_END_ALLOW_THREADS
    PyObject *r = s == FL_OK ? flpy_wrap((PyTypeObject *)cls, ops, handle)
                             : flpy_raise(s, "load", p);
    Py_DECREF(path);
    return r;
}

PyObject *flpy_reduce(flpy_object *self, PyObject *Py_UNUSED(ignored))
{
    PyObject *state = self->ops->pickle_state(self, NULL);
    if (state == NULL)
        return NULL;
    PyObject *ctor = PyObject_GetAttrString((PyObject *)Py_TYPE(self), self->ops->pickle_ctor);
    if (ctor == NULL) {
        Py_DECREF(state);
        return NULL;
    }
    return Py_BuildValue("(N(N))", ctor, state);
}

/* ---- copy, merge, clear --------------------------------------------------------------- */

/* The copy's handle, under the original's read lock. */
static fl_status copy_handle(flpy_object *self, void **out)
{
    const flpy_ops *ops = self->ops;
    if (ops->clone != NULL)
        return ops->clone(self->handle, out);
    size_t size = ops->serialized_size(self->handle);
    void *buf = PyMem_RawMalloc(size ? size : 1);
    fl_status s = FL_ERR_NO_MEMORY;
    if (buf != NULL) {
        size_t written = 0;
        Py_BEGIN_ALLOW_THREADS
        s = ops->save_mem(self->handle, buf, size, &written);
        if (s == FL_OK)
            s = ops->load_mem(buf, written, 0, out);
        Py_END_ALLOW_THREADS
    }
    PyMem_RawFree(buf);
    return s;
}

PyObject *flpy_copy(flpy_object *self, PyObject *Py_UNUSED(ignored))
{
    const flpy_ops *ops = self->ops;
    void *handle = NULL;
    flpy_read_lock_gil(&self->lock);
    fl_status s = copy_handle(self, &handle);
    flpy_unlock(&self->lock);
    if (s != FL_OK)
        return flpy_raise(s, "copy", NULL);
    PyObject *r = flpy_wrap(Py_TYPE(self), ops, handle);
    if (r == NULL)
        return NULL;
    flpy_object *copy = (flpy_object *)r;
    /* A clone carries the binding itself; a copy through the file format is bound here. */
    if (ops->clone != NULL || self->bound != Py_None) {
        if (ops->clone == NULL)
            ops->bind_kernel(copy->handle, PyUnicode_AsUTF8(self->bound));
        Py_SETREF(copy->bound, Py_NewRef(self->bound));
    }
    return r;
}

static flpy_object *as_same_class(const flpy_ops *ops, PyObject *o)
{
    return PyObject_TypeCheck(o, ops->type) ? (flpy_object *)o : NULL;
}

/* dst merges src under both locks, taken in address order (two threads merging a into b
 * and b into a must not deadlock); an object merged with itself takes its lock once. */
static fl_status merge_into(flpy_object *dst, flpy_object *src)
{
    fl_status s;
    Py_BEGIN_ALLOW_THREADS
    if (dst == src) {
        flpy_write_lock(&dst->lock);
    } else if (dst < src) {
        flpy_write_lock(&dst->lock);
        flpy_read_lock(&src->lock);
    } else {
        flpy_read_lock(&src->lock);
        flpy_write_lock(&dst->lock);
    }
    s = dst->ops->merge(dst->handle, src->handle);
    flpy_unlock(&dst->lock);
    if (dst != src)
        flpy_unlock(&src->lock);
    Py_END_ALLOW_THREADS
    return s;
}

PyObject *flpy_merge(flpy_object *self, PyObject *other)
{
    flpy_object *o = as_same_class(self->ops, other);
    if (o == NULL) {
        PyErr_Format(PyExc_TypeError, "merge takes a %s, not %.100s", self->ops->class_name,
                     Py_TYPE(other)->tp_name);
        return NULL;
    }
    fl_status s = merge_into(self, o);
    if (s != FL_OK)
        return flpy_raise(s, "merge", NULL);
    Py_RETURN_NONE;
}

PyObject *flpy_or(const flpy_ops *ops, PyObject *a, PyObject *b)
{
    flpy_object *oa = as_same_class(ops, a), *ob = as_same_class(ops, b);
    if (oa == NULL || ob == NULL)
        Py_RETURN_NOTIMPLEMENTED;
    PyObject *r = flpy_copy(oa, NULL);
    if (r == NULL)
        return NULL;
    fl_status s = merge_into((flpy_object *)r, ob);
    if (s != FL_OK) {
        Py_DECREF(r);
        return flpy_raise(s, "|", NULL);
    }
    return r;
}

PyObject *flpy_ior(const flpy_ops *ops, PyObject *a, PyObject *b)
{
    flpy_object *oa = as_same_class(ops, a), *ob = as_same_class(ops, b);
    if (oa == NULL || ob == NULL)
        Py_RETURN_NOTIMPLEMENTED;
    fl_status s = merge_into(oa, ob);
    if (s != FL_OK)
        return flpy_raise(s, "|=", NULL);
    return Py_NewRef(a);
}

PyObject *flpy_clear(flpy_object *self, PyObject *Py_UNUSED(ignored))
{
    flpy_write_lock_gil(&self->lock);
    fl_status s = self->ops->clear(self->handle);
    flpy_unlock(&self->lock);
    if (s != FL_OK)
        return flpy_raise(s, "clear", NULL);
    Py_RETURN_NONE;
}

/* ---- kernels -------------------------------------------------------------------------- */

PyObject *flpy_bind_kernel(flpy_object *self, PyObject *arg)
{
    const char *name;
    if (flpy_kernel_name(arg, &name) < 0)
        return NULL;
    flpy_write_lock_gil(&self->lock);
    fl_status s = self->ops->bind_kernel(self->handle, name);
    flpy_unlock(&self->lock);
    if (s != FL_OK)
        return flpy_raise(s, "bind_kernel", NULL);
    int unbind = name == NULL || strcmp(name, "auto") == 0;
    Py_SETREF(self->bound, Py_NewRef(unbind ? Py_None : arg));
    Py_RETURN_NONE;
}

PyObject *flpy_get_bound(flpy_object *self, void *Py_UNUSED(closure))
{
    return Py_NewRef(self->bound);
}

int flpy_add_type(PyObject *m, PyTypeObject *type)
{
    if (PyType_Ready(type) < 0)
        return -1;
    const char *dot = strrchr(type->tp_name, '.');
    return PyModule_AddObjectRef(m, dot ? dot + 1 : type->tp_name, (PyObject *)type);
}
