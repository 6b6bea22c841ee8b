/*
 * filterlab.CountMin: a Count-Min sketch (Cormode and Muthukrishnan 2005) with optional
 * conservative update and heavy-hitter candidates (include/filterlab_cms.h).
 */
#include "common.h"

#include <string.h>

typedef struct {
    PyObject_HEAD
    fl_cms *c;
    flpy_lock lock;
    PyObject *bound;
} CmsObject;

static PyTypeObject Cms_Type;

static PyObject *wrap(PyTypeObject *type, fl_cms *c)
{
    CmsObject *self = (CmsObject *)type->tp_alloc(type, 0);
    if (self == NULL) {
        fl_cms_free(c);
        return NULL;
    }
    if (flpy_lock_init(&self->lock) < 0) {
        fl_cms_free(c);
        Py_TYPE(self)->tp_free((PyObject *)self);
        return NULL;
    }
    self->c = c;
    self->bound = Py_NewRef(Py_None);
    return (PyObject *)self;
}

static void Cms_dealloc(CmsObject *self)
{
    if (self->c != NULL) {
        fl_cms_free(self->c);
        flpy_lock_destroy(&self->lock);
    }
    Py_XDECREF(self->bound);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int u32_arg(PyObject *obj, uint32_t *out, const char *what)
{
    uint64_t v;
    if (flpy_u64_arg(obj, &v, what) < 0)
        return -1;
    if (v > UINT32_MAX) {
        PyErr_Format(PyExc_ValueError, "%s must be an int in [0, 2**32)", what);
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

static PyObject *Cms_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"width", "depth", "epsilon", "delta", "seed", "conservative",
                             "topk", NULL};
    PyObject *w_obj = Py_None, *d_obj = Py_None, *eps_obj = Py_None, *delta_obj = Py_None;
    PyObject *seed_obj = NULL, *topk_obj = NULL;
    int conservative = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|OO$OOOpO:CountMin", kwlist, &w_obj, &d_obj,
                                     &eps_obj, &delta_obj, &seed_obj, &conservative, &topk_obj))
        return NULL;
    fl_cms_config cfg;
    memset(&cfg, 0, sizeof cfg);
    int shape = w_obj != Py_None || d_obj != Py_None;
    int accuracy = eps_obj != Py_None || delta_obj != Py_None;
    if (shape == accuracy) {
        PyErr_SetString(PyExc_ValueError,
                        "CountMin needs width and depth, or epsilon and delta (not both)");
        return NULL;
    }
    if (shape) {
        if (w_obj == Py_None || d_obj == Py_None) {
            PyErr_SetString(PyExc_ValueError, "give both width and depth");
            return NULL;
        }
        if (u32_arg(w_obj, &cfg.width, "width") < 0 || u32_arg(d_obj, &cfg.depth, "depth") < 0)
            return NULL;
        if (cfg.width == 0 || cfg.depth == 0) {
            PyErr_SetString(PyExc_ValueError, "width and depth must be at least 1");
            return NULL;
        }
    } else {
        if (eps_obj == Py_None || delta_obj == Py_None) {
            PyErr_SetString(PyExc_ValueError, "give both epsilon and delta");
            return NULL;
        }
        cfg.epsilon = PyFloat_AsDouble(eps_obj);
        if (cfg.epsilon == -1.0 && PyErr_Occurred())
            return NULL;
        cfg.delta = PyFloat_AsDouble(delta_obj);
        if (cfg.delta == -1.0 && PyErr_Occurred())
            return NULL;
    }
    if ((seed_obj != NULL && flpy_u64_arg(seed_obj, &cfg.seed, "seed") < 0) ||
        (topk_obj != NULL && u32_arg(topk_obj, &cfg.topk, "topk") < 0))
        return NULL;
    cfg.conservative = conservative;
    fl_cms *c = NULL;
    fl_status st;
    Py_BEGIN_ALLOW_THREADS
    st = fl_cms_create(&cfg, &c);
    Py_END_ALLOW_THREADS
    if (st != FL_OK)
        return flpy_raise(st, "CountMin", NULL);
    return wrap(type, c);
}

/* ---- single keys ---------------------------------------------------------------------- */

static PyObject *Cms_add(CmsObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"key", "inc", NULL};
    PyObject *key, *inc_obj = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:add", kwlist, &key, &inc_obj))
        return NULL;
    uint32_t inc = 1;
    if (inc_obj != NULL && u32_arg(inc_obj, &inc, "inc") < 0)
        return NULL;
    flpy_key k;
    if (flpy_key_get(key, &k) < 0)
        return NULL;
    flpy_write_lock_gil(&self->lock);
    fl_status st = k.is_int ? fl_cms_add_u64(self->c, k.u64, inc)
                            : fl_cms_add_bytes(self->c, k.data, k.len, inc);
    flpy_unlock(&self->lock);
    flpy_key_release(&k);
    if (st != FL_OK)
        return flpy_raise(st, "add", NULL);
    Py_RETURN_NONE;
}

static PyObject *Cms_add_hash(CmsObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"h", "inc", NULL};
    PyObject *h_obj, *inc_obj = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:add_hash", kwlist, &h_obj, &inc_obj))
        return NULL;
    uint64_t h;
    uint32_t inc = 1;
    if (flpy_u64_arg(h_obj, &h, "hash") < 0 || (inc_obj != NULL && u32_arg(inc_obj, &inc, "inc") < 0))
        return NULL;
    flpy_write_lock_gil(&self->lock);
    fl_status st = fl_cms_add_hash(self->c, h, inc);
    flpy_unlock(&self->lock);
    if (st != FL_OK)
        return flpy_raise(st, "add_hash", NULL);
    Py_RETURN_NONE;
}

static PyObject *Cms_query(CmsObject *self, PyObject *key)
{
    flpy_key k;
    if (flpy_key_get(key, &k) < 0)
        return NULL;
    flpy_read_lock_gil(&self->lock);
    uint32_t r = k.is_int ? fl_cms_query_u64(self->c, k.u64)
                          : fl_cms_query_bytes(self->c, k.data, k.len);
    flpy_unlock(&self->lock);
    flpy_key_release(&k);
    return PyLong_FromUnsignedLong(r);
}

static PyObject *Cms_query_hash(CmsObject *self, PyObject *arg)
{
    uint64_t h;
    if (flpy_u64_arg(arg, &h, "hash") < 0)
        return NULL;
    flpy_read_lock_gil(&self->lock);
    uint32_t r = fl_cms_query_hash(self->c, h);
    flpy_unlock(&self->lock);
    return PyLong_FromUnsignedLong(r);
}

static PyObject *Cms_hash(CmsObject *self, PyObject *key)
{
    flpy_key k;
    if (flpy_key_get(key, &k) < 0)
        return NULL;
    uint64_t h = k.is_int ? fl_cms_hash_u64(self->c, k.u64)
                          : fl_cms_hash_bytes(self->c, k.data, k.len);
    flpy_key_release(&k);
    return PyLong_FromUnsignedLongLong(h);
}

/* ---- batches -------------------------------------------------------------------------- */

static PyObject *Cms_add_many(CmsObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"keys", "increments", "hashes", NULL};
    PyObject *obj, *inc_obj = Py_None;
    int as_hashes = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O$p:add_many", kwlist, &obj, &inc_obj,
                                     &as_hashes))
        return NULL;
    flpy_keys k;
    if (flpy_keys_get(obj, as_hashes, &k) < 0)
        return NULL;
    flpy_u32s incs = {0};
    if (inc_obj != Py_None && flpy_u32s_get(inc_obj, k.n, &incs) < 0) {
        flpy_keys_release(&k);
        return NULL;
    }
    fl_status st;
    Py_BEGIN_ALLOW_THREADS
    flpy_write_lock(&self->lock);
    if (k.kind == FLPY_STRINGS)
        st = fl_cms_add_strings(self->c, (const void *const *)k.ptrs, k.lens, (size_t)k.n, incs.v);
    else if (as_hashes)
        st = fl_cms_add_hashes(self->c, k.u64, (size_t)k.n, incs.v);
    else
        st = fl_cms_add_u64s(self->c, k.u64, (size_t)k.n, incs.v);
    flpy_unlock(&self->lock);
    Py_END_ALLOW_THREADS
    flpy_u32s_release(&incs);
    flpy_keys_release(&k);
    if (st != FL_OK)
        return flpy_raise(st, "add_many", NULL);
    Py_RETURN_NONE;
}

static uint64_t cms_hash_bytes(const void *ctx, const void *key, size_t len)
{
    return fl_cms_hash_bytes(ctx, key, len);
}

static uint64_t cms_hash_int(const void *ctx, uint64_t key) { return fl_cms_hash_u64(ctx, key); }

static PyObject *Cms_query_many(CmsObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"keys", "hashes", "out", NULL};
    PyObject *obj, *out_obj = Py_None;
    int as_hashes = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$pO:query_many", kwlist, &obj, &as_hashes,
                                     &out_obj))
        return NULL;
    flpy_keys k;
    if (flpy_keys_get(obj, as_hashes, &k) < 0)
        return NULL;
    flpy_out out;
    if (flpy_out_get(out_obj, k.n, NPY_UINT32, &out) < 0) {
        flpy_keys_release(&k);
        return NULL;
    }
    uint64_t *tmp = NULL;
    if (k.kind == FLPY_STRINGS && (tmp = flpy_alloc_u64(k.n)) == NULL) {
        Py_DECREF(out.result);
        flpy_out_release(&out);
        flpy_keys_release(&k);
        return NULL;
    }
    uint32_t *res = out.data;
    fl_status st;
    Py_BEGIN_ALLOW_THREADS
    flpy_read_lock(&self->lock);
    if (k.kind == FLPY_STRINGS) {
        flpy_hashes(&k, 0, cms_hash_bytes, self->c, cms_hash_int, self->c, tmp);
        st = fl_cms_query_hashes(self->c, tmp, (size_t)k.n, res);
    } else if (as_hashes) {
        st = fl_cms_query_hashes(self->c, k.u64, (size_t)k.n, res);
    } else {
        st = fl_cms_query_u64s(self->c, k.u64, (size_t)k.n, res);
    }
    flpy_unlock(&self->lock);
    Py_END_ALLOW_THREADS
    PyMem_RawFree(tmp);
    flpy_out_release(&out);
    flpy_keys_release(&k);
    if (st != FL_OK) {
        Py_DECREF(out.result);
        return flpy_raise(st, "query_many", NULL);
    }
    return out.result;
}

/* ---- merge, copy, clear --------------------------------------------------------------- */

static CmsObject *as_cms(PyObject *o)
{
    return PyObject_TypeCheck(o, &Cms_Type) ? (CmsObject *)o : NULL;
}

static fl_status merge_into(CmsObject *dst, CmsObject *src)
{
    fl_status st;
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
    st = fl_cms_merge(dst->c, src->c);
    flpy_unlock(&dst->lock);
    if (dst != src)
        flpy_unlock(&src->lock);
    Py_END_ALLOW_THREADS
    return st;
}

static PyObject *Cms_merge(CmsObject *self, PyObject *other)
{
    CmsObject *o = as_cms(other);
    if (o == NULL) {
        PyErr_Format(PyExc_TypeError, "merge takes a CountMin, not %.100s",
                     Py_TYPE(other)->tp_name);
        return NULL;
    }
    fl_status st = merge_into(self, o);
    if (st != FL_OK)
        return flpy_raise(st, "merge", NULL);
    Py_RETURN_NONE;
}

static PyObject *Cms_to_bytes(CmsObject *self, PyObject *Py_UNUSED(ignored))
{
    flpy_read_lock_gil(&self->lock);
    size_t size = fl_cms_serialized_size(self->c);
    PyObject *b = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)size);
    fl_status st = FL_OK;
    size_t written = 0;
    if (b != NULL) {
        char *p = PyBytes_AS_STRING(b);
        Py_BEGIN_ALLOW_THREADS
        st = fl_cms_save_mem(self->c, p, size, &written);
        Py_END_ALLOW_THREADS
    }
    flpy_unlock(&self->lock);
    if (b == NULL)
        return NULL;
    if (st != FL_OK) {
        Py_DECREF(b);
        return flpy_raise(st, "to_bytes", NULL);
    }
    if (written != size && _PyBytes_Resize(&b, (Py_ssize_t)written) < 0)
        return NULL;
    return b;
}

static PyObject *from_buffer(PyTypeObject *type, const void *buf, size_t len, size_t max_bytes,
                             const char *what)
{
    fl_cms *c = NULL;
    fl_status st;
    Py_BEGIN_ALLOW_THREADS
    st = fl_cms_load_mem(buf, len, max_bytes, &c);
    Py_END_ALLOW_THREADS
    if (st != FL_OK)
        return flpy_raise(st, what, NULL);
    return wrap(type, c);
}

static PyObject *Cms_copy(CmsObject *self, PyObject *Py_UNUSED(ignored))
{
    PyObject *b = Cms_to_bytes(self, NULL);
    if (b == NULL)
        return NULL;
    PyObject *r = from_buffer(Py_TYPE(self), PyBytes_AS_STRING(b), (size_t)PyBytes_GET_SIZE(b),
                              0, "copy");
    Py_DECREF(b);
    if (r != NULL && self->bound != Py_None) {
        fl_cms_bind_kernel(((CmsObject *)r)->c, PyUnicode_AsUTF8(self->bound));
        Py_SETREF(((CmsObject *)r)->bound, Py_NewRef(self->bound));
    }
    return r;
}

static PyObject *Cms_or(PyObject *a, PyObject *b)
{
    CmsObject *ca = as_cms(a), *cb = as_cms(b);
    if (ca == NULL || cb == NULL)
        Py_RETURN_NOTIMPLEMENTED;
    PyObject *r = Cms_copy(ca, NULL);
    if (r == NULL)
        return NULL;
    fl_status st = merge_into((CmsObject *)r, cb);
    if (st != FL_OK) {
        Py_DECREF(r);
        return flpy_raise(st, "|", NULL);
    }
    return r;
}

static PyObject *Cms_ior(PyObject *a, PyObject *b)
{
    CmsObject *ca = as_cms(a), *cb = as_cms(b);
    if (ca == NULL || cb == NULL)
        Py_RETURN_NOTIMPLEMENTED;
    fl_status st = merge_into(ca, cb);
    if (st != FL_OK)
        return flpy_raise(st, "|=", NULL);
    return Py_NewRef(a);
}

static PyObject *Cms_clear(CmsObject *self, PyObject *Py_UNUSED(ignored))
{
    flpy_write_lock_gil(&self->lock);
    fl_status st = fl_cms_clear(self->c);
    flpy_unlock(&self->lock);
    if (st != FL_OK)
        return flpy_raise(st, "clear", NULL);
    Py_RETURN_NONE;
}

/* ---- top-k ---------------------------------------------------------------------------- */

/* A list of (key bytes, estimate) from fl_cms_top (phi < 0) or fl_cms_heavy_hitters. */
static PyObject *candidates(CmsObject *self, double phi, Py_ssize_t limit, const char *what)
{
    flpy_read_lock_gil(&self->lock);
    fl_cms_info in;
    fl_cms_info_get(self->c, &in);
    size_t cap = in.candidates;
    if (limit >= 0 && (size_t)limit < cap)
        cap = (size_t)limit;
    fl_cms_item *items = PyMem_RawMalloc((cap ? cap : 1) * sizeof *items);
    if (items == NULL) {
        flpy_unlock(&self->lock);
        return PyErr_NoMemory();
    }
    size_t count = 0;
    fl_status st = phi < 0 ? fl_cms_top(self->c, items, cap, &count)
                           : fl_cms_heavy_hitters(self->c, phi, items, cap, &count);
    PyObject *list = st == FL_OK ? PyList_New((Py_ssize_t)count) : NULL;
    for (size_t i = 0; list != NULL && i < count; i++) {
        PyObject *t = Py_BuildValue("(y#K)", (const char *)items[i].key, (Py_ssize_t)items[i].len,
                                    (unsigned long long)items[i].estimate);
        if (t == NULL)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, (Py_ssize_t)i, t);
    }
    flpy_unlock(&self->lock);
    PyMem_RawFree(items);
    if (st != FL_OK)
        return flpy_raise(st, what, NULL);
    return list;
}

static PyObject *Cms_top(CmsObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"n", NULL};
    PyObject *n_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:top", kwlist, &n_obj))
        return NULL;
    Py_ssize_t limit = -1;
    if (n_obj != Py_None) {
        limit = PyLong_AsSsize_t(n_obj);
        if (limit == -1 && PyErr_Occurred())
            return NULL;
        if (limit < 0) {
            PyErr_SetString(PyExc_ValueError, "n must be >= 0");
            return NULL;
        }
    }
    return candidates(self, -1.0, limit, "top");
}

static PyObject *Cms_heavy_hitters(CmsObject *self, PyObject *arg)
{
    double phi = PyFloat_AsDouble(arg);
    if (phi == -1.0 && PyErr_Occurred())
        return NULL;
    if (!(phi > 0 && phi < 1))
        return flpy_raise(FL_ERR_BAD_ACCURACY, "heavy_hitters (phi must be in (0, 1))", NULL);
    return candidates(self, phi, -1, "heavy_hitters");
}

/* ---- files, info, kernels ------------------------------------------------------------- */

static int parse_max_bytes(PyObject *obj, size_t *out)
{
    uint64_t v = 0;
    if (obj != NULL && obj != Py_None && flpy_u64_arg(obj, &v, "max_bytes") < 0)
        return -1;
    *out = v > SIZE_MAX ? SIZE_MAX : (size_t)v;
    return 0;
}

static PyObject *Cms_from_bytes(PyObject *cls, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"data", "max_bytes", NULL};
    Py_buffer view;
    PyObject *max_obj = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "y*|O:from_bytes", kwlist, &view, &max_obj))
        return NULL;
    size_t max_bytes;
    PyObject *r = NULL;
    if (parse_max_bytes(max_obj, &max_bytes) == 0)
        r = from_buffer((PyTypeObject *)cls, view.buf, (size_t)view.len, max_bytes, "from_bytes");
    PyBuffer_Release(&view);
    return r;
}

static PyObject *Cms_save(CmsObject *self, PyObject *path_obj)
{
    PyObject *path = NULL;
    if (!PyUnicode_FSConverter(path_obj, &path))
        return NULL;
    const char *p = PyBytes_AS_STRING(path);
    fl_status st;
    Py_BEGIN_ALLOW_THREADS
    flpy_read_lock(&self->lock);
    st = fl_cms_save_file(self->c, p);
    flpy_unlock(&self->lock);
    Py_END_ALLOW_THREADS
    PyObject *r = st == FL_OK ? Py_NewRef(Py_None) : flpy_raise(st, "save", p);
    Py_DECREF(path);
    return r;
}

static PyObject *Cms_load(PyObject *cls, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"path", "max_bytes", NULL};
    PyObject *path = NULL, *max_obj = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|O:load", kwlist, PyUnicode_FSConverter,
                                     &path, &max_obj))
        return NULL;
    size_t max_bytes;
    if (parse_max_bytes(max_obj, &max_bytes) < 0) {
        Py_DECREF(path);
        return NULL;
    }
    const char *p = PyBytes_AS_STRING(path);
    fl_cms *c = NULL;
    fl_status st;
    Py_BEGIN_ALLOW_THREADS
    st = fl_cms_load_file(p, max_bytes, &c);
    Py_END_ALLOW_THREADS
    PyObject *r = st == FL_OK ? wrap((PyTypeObject *)cls, c) : flpy_raise(st, "load", p);
    Py_DECREF(path);
    return r;
}

static PyObject *Cms_reduce(CmsObject *self, PyObject *Py_UNUSED(ignored))
{
    PyObject *b = Cms_to_bytes(self, NULL);
    if (b == NULL)
        return NULL;
    PyObject *ctor = PyObject_GetAttrString((PyObject *)Py_TYPE(self), "from_bytes");
    if (ctor == NULL) {
        Py_DECREF(b);
        return NULL;
    }
    return Py_BuildValue("(N(N))", ctor, b);
}

static PyObject *Cms_info(CmsObject *self, PyObject *Py_UNUSED(ignored))
{
    fl_cms_info in;
    flpy_read_lock_gil(&self->lock);
    fl_status st = fl_cms_info_get(self->c, &in);
    flpy_unlock(&self->lock);
    if (st != FL_OK)
        return flpy_raise(st, "info", NULL);
    PyObject *d = PyDict_New();
    if (d == NULL || flpy_set(d, "width", PyLong_FromUnsignedLong(in.width)) < 0 ||
        flpy_set(d, "depth", PyLong_FromUnsignedLong(in.depth)) < 0 ||
        flpy_set(d, "seed", PyLong_FromUnsignedLongLong(in.seed)) < 0 ||
        flpy_set(d, "conservative", PyBool_FromLong(in.conservative)) < 0 ||
        flpy_set(d, "bytes", PyLong_FromSize_t(in.bytes)) < 0 ||
        flpy_set(d, "total", PyLong_FromUnsignedLongLong(in.total)) < 0 ||
        flpy_set(d, "total_saturated", PyBool_FromLong(in.total_saturated)) < 0 ||
        flpy_set(d, "saturated", PyLong_FromUnsignedLongLong(in.saturated)) < 0 ||
        flpy_set(d, "epsilon", PyFloat_FromDouble(in.epsilon)) < 0 ||
        flpy_set(d, "delta", PyFloat_FromDouble(in.delta)) < 0 ||
        flpy_set(d, "topk", PyLong_FromUnsignedLong(in.topk)) < 0 ||
        flpy_set(d, "candidates", PyLong_FromUnsignedLong(in.candidates)) < 0 ||
        flpy_set(d, "kernel", PyUnicode_FromString(fl_cms_kernel(self->c))) < 0) {
        Py_XDECREF(d);
        return NULL;
    }
    return flpy_make_info("CountMinInfo", d);
}

static PyObject *Cms_bind_kernel(CmsObject *self, PyObject *arg)
{
    const char *name;
    if (flpy_kernel_name(arg, &name) < 0)
        return NULL;
    flpy_write_lock_gil(&self->lock);
    fl_status st = fl_cms_bind_kernel(self->c, name);
    flpy_unlock(&self->lock);
    if (st != FL_OK)
        return flpy_raise(st, "bind_kernel", NULL);
    int unbind = name == NULL || strcmp(name, "auto") == 0;
    Py_SETREF(self->bound, Py_NewRef(unbind ? Py_None : arg));
    Py_RETURN_NONE;
}

static PyObject *Cms_get_kernel(CmsObject *self, void *Py_UNUSED(c))
{
    return PyUnicode_FromString(fl_cms_kernel(self->c));
}

static PyObject *Cms_get_bound(CmsObject *self, void *Py_UNUSED(c))
{
    return Py_NewRef(self->bound);
}

static PyObject *Cms_get_total(CmsObject *self, void *Py_UNUSED(c))
{
    flpy_read_lock_gil(&self->lock);
    uint64_t t = fl_cms_total(self->c);
    flpy_unlock(&self->lock);
    return PyLong_FromUnsignedLongLong(t);
}

static PyObject *Cms_getitem(CmsObject *self, PyObject *key) { return Cms_query(self, key); }

static PyObject *Cms_repr(CmsObject *self)
{
    fl_cms_info in;
    flpy_read_lock_gil(&self->lock);
    fl_cms_info_get(self->c, &in);
    flpy_unlock(&self->lock);
    return PyUnicode_FromFormat("<filterlab.CountMin %u x %u%s, total %llu>", in.width,
                                in.depth, in.conservative ? " conservative" : "",
                                (unsigned long long)in.total);
}

static PyMethodDef Cms_methods[] = {
    {"add", (PyCFunction)(void (*)(void))Cms_add, METH_VARARGS | METH_KEYWORDS,
     "add(key, inc=1)\n--\n\nCounts key (int, bytes or str) inc more times (saturating)."},
    {"add_hash", (PyCFunction)(void (*)(void))Cms_add_hash, METH_VARARGS | METH_KEYWORDS,
     "add_hash(h, inc=1)\n--\n\nadd() for a precomputed hash (never becomes a top-k candidate)."},
    {"add_many", (PyCFunction)(void (*)(void))Cms_add_many, METH_VARARGS | METH_KEYWORDS,
     "add_many(keys, increments=None, *, hashes=False)\n--\n\nCounts a batch in order "
     "(increments: a uint32 array or sequence, one per key; None: 1 each). GIL released."},
    {"query", (PyCFunction)Cms_query, METH_O,
     "query(key) -> int\n--\n\nThe estimate: never below the true count."},
    {"query_hash", (PyCFunction)Cms_query_hash, METH_O,
     "query_hash(h) -> int\n--\n\nquery() for a precomputed hash."},
    {"query_many", (PyCFunction)(void (*)(void))Cms_query_many, METH_VARARGS | METH_KEYWORDS,
     "query_many(keys, *, hashes=False, out=None)\n--\n\nEstimates as a NumPy uint32 array (or "
     "out, a uint32 array filled in place); GIL released."},
    {"hash", (PyCFunction)Cms_hash, METH_O, "hash(key)\n--\n\nThe sketch's 64-bit hash of key."},
    {"merge", (PyCFunction)Cms_merge, METH_O,
     "merge(other)\n--\n\nAdds other's counters (same width, depth, seed; ValueError "
     "otherwise). other's candidates are not carried over."},
    {"copy", (PyCFunction)Cms_copy, METH_NOARGS, "copy()\n--\n\nAn independent copy."},
    {"clear", (PyCFunction)Cms_clear, METH_NOARGS, "clear()\n--\n\nZeroes every counter."},
    {"top", (PyCFunction)(void (*)(void))Cms_top, METH_VARARGS | METH_KEYWORDS,
     "top(n=None)\n--\n\nThe candidates as (key bytes, estimate), largest first (needs topk > 0 "
     "at creation; int keys come back as their 8 little-endian bytes)."},
    {"heavy_hitters", (PyCFunction)Cms_heavy_hitters, METH_O,
     "heavy_hitters(phi)\n--\n\nThe candidates whose estimate exceeds phi * total."},
    {"to_bytes", (PyCFunction)Cms_to_bytes, METH_NOARGS,
     "to_bytes()\n--\n\nThe sketch in the filterlab file format."},
    {"from_bytes", (PyCFunction)(void (*)(void))Cms_from_bytes,
     METH_VARARGS | METH_KEYWORDS | METH_CLASS,
     "from_bytes(data, max_bytes=0)\n--\n\nA sketch from filterlab-format bytes."},
    {"save", (PyCFunction)Cms_save, METH_O, "save(path)\n--\n\nWrites the sketch atomically."},
    {"load", (PyCFunction)(void (*)(void))Cms_load, METH_VARARGS | METH_KEYWORDS | METH_CLASS,
     "load(path, max_bytes=0)\n--\n\nReads a sketch file (as `filterlab freq` writes)."},
    {"info", (PyCFunction)Cms_info, METH_NOARGS, "info()\n--\n\nA CountMinInfo dataclass."},
    {"bind_kernel", (PyCFunction)Cms_bind_kernel, METH_O,
     "bind_kernel(name)\n--\n\nRuns this sketch on kernel name; None or 'auto' unbinds."},
    {"__reduce__", (PyCFunction)Cms_reduce, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Cms_getset[] = {
    {"kernel", (getter)Cms_get_kernel, NULL, "The kernel this sketch's calls use.", NULL},
    {"bound_kernel", (getter)Cms_get_bound, NULL, "The kernel bound, or None.", NULL},
    {"total", (getter)Cms_get_total, NULL, "N, the sum of all increments.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMappingMethods Cms_as_mapping = {
    .mp_subscript = (binaryfunc)Cms_getitem,
};

static PyNumberMethods Cms_as_number = {
    .nb_or = Cms_or,
    .nb_inplace_or = Cms_ior,
};

static PyTypeObject Cms_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "filterlab.CountMin",
    .tp_basicsize = sizeof(CmsObject),
    .tp_dealloc = (destructor)Cms_dealloc,
    .tp_repr = (reprfunc)Cms_repr,
    .tp_as_number = &Cms_as_number,
    .tp_as_mapping = &Cms_as_mapping,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "CountMin(width=None, depth=None, *, epsilon=None, delta=None, seed=0, "
              "conservative=False, topk=0)\n--\n\n"
              "A Count-Min sketch (Cormode and Muthukrishnan 2005): width x depth 32-bit "
              "counters, or sized from epsilon and delta (w = ceil(e/epsilon), d = "
              "ceil(ln(1/delta))). sketch[key] is the estimate; `a | b` a merged copy.",
    .tp_methods = Cms_methods,
    .tp_getset = Cms_getset,
    .tp_new = Cms_new,
};

int flpy_add_cms(PyObject *m)
{
    if (PyType_Ready(&Cms_Type) < 0)
        return -1;
    return PyModule_AddObjectRef(m, "CountMin", (PyObject *)&Cms_Type);
}
