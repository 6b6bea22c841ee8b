/*
 * filterlab.CountMin: a Count-Min sketch (Cormode and Muthukrishnan 2005) with optional
 * conservative update and heavy-hitter candidates (include/filterlab_cms.h).
 */
#include "object.h"

#include <string.h>

/* handle: the fl_cms. */
typedef flpy_object CmsObject;

static PyTypeObject Cms_Type;

/* ---- the library calls the shared methods use (object.h) ------------------------------ */

FLPY_DEFINE_FORMAT_CALLS(cms, fl_cms, fl_cms)

static fl_status cms_merge(void *dst, const void *src) { return fl_cms_merge(dst, src); }
static fl_status cms_clear(void *c) { return fl_cms_clear(c); }
static fl_status cms_bind_kernel(void *c, const char *name) { return fl_cms_bind_kernel(c, name); }

static const flpy_ops cms_ops = {
    .class_name = "CountMin",
    .type = &Cms_Type,
    FLPY_FORMAT_OPS(cms),
    .merge = cms_merge,
    .clear = cms_clear,
    .bind_kernel = cms_bind_kernel,
};

FLPY_DEFINE_BYTES_AND_FILE_CLASSMETHODS(Cms, cms_ops)

FLPY_DEFINE_MERGE_OPERATORS(Cms, cms_ops)

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
    return flpy_wrap(type, &cms_ops, c);
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
    fl_status st = k.is_int ? fl_cms_add_u64(self->handle, k.u64, inc)
                            : fl_cms_add_bytes(self->handle, k.data, k.len, inc);
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
    fl_status st = fl_cms_add_hash(self->handle, h, inc);
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
    uint32_t r = k.is_int ? fl_cms_query_u64(self->handle, k.u64)
                          : fl_cms_query_bytes(self->handle, k.data, k.len);
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
    uint32_t r = fl_cms_query_hash(self->handle, h);
    flpy_unlock(&self->lock);
    return PyLong_FromUnsignedLong(r);
}

static PyObject *Cms_hash(CmsObject *self, PyObject *key)
{
    flpy_key k;
    if (flpy_key_get(key, &k) < 0)
        return NULL;
    uint64_t h = k.is_int ? fl_cms_hash_u64(self->handle, k.u64)
                          : fl_cms_hash_bytes(self->handle, k.data, k.len);
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
        st = fl_cms_add_strings(self->handle, (const void *const *)k.ptrs, k.lens, (size_t)k.n, incs.v);
    else if (as_hashes)
        st = fl_cms_add_hashes(self->handle, k.u64, (size_t)k.n, incs.v);
    else
        st = fl_cms_add_u64s(self->handle, k.u64, (size_t)k.n, incs.v);
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
    flpy_batch b;
    int as_hashes;
    if (flpy_batch_from_args(args, kw, "O|$pO:query_many", NPY_UINT32, 0, &b, &as_hashes) < 0)
        return NULL;
    const flpy_keys *k = &b.keys;
    uint32_t *res = b.out.data;
    fl_status st;
    Py_BEGIN_ALLOW_THREADS
    flpy_read_lock(&self->lock);
    if (k->kind == FLPY_STRINGS) {
        flpy_hashes(k, 0, cms_hash_bytes, self->handle, cms_hash_int, self->handle, b.tmp);
        st = fl_cms_query_hashes(self->handle, b.tmp, (size_t)k->n, res);
    } else if (as_hashes) {
        st = fl_cms_query_hashes(self->handle, k->u64, (size_t)k->n, res);
    } else {
        st = fl_cms_query_u64s(self->handle, k->u64, (size_t)k->n, res);
    }
    flpy_unlock(&self->lock);
    Py_END_ALLOW_THREADS
    return flpy_batch_finish(&b, st, "query_many");
}

/* ---- top-k ---------------------------------------------------------------------------- */

/* A list of (key bytes, estimate) from fl_cms_top (phi < 0) or fl_cms_heavy_hitters. */
static PyObject *candidates(CmsObject *self, double phi, Py_ssize_t limit, const char *what)
{
    flpy_read_lock_gil(&self->lock);
    fl_cms_info in;
    fl_cms_info_get(self->handle, &in);
    size_t cap = in.candidates;
    if (limit >= 0 && (size_t)limit < cap)
        cap = (size_t)limit;
    fl_cms_item *items = PyMem_RawMalloc((cap ? cap : 1) * sizeof *items);
    if (items == NULL) {
        flpy_unlock(&self->lock);
        return PyErr_NoMemory();
    }
    size_t count = 0;
    fl_status st = phi < 0 ? fl_cms_top(self->handle, items, cap, &count)
                           : fl_cms_heavy_hitters(self->handle, phi, items, cap, &count);
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

/* ---- info and kernels ----------------------------------------------------------------- */

static PyObject *Cms_info(CmsObject *self, PyObject *Py_UNUSED(ignored))
{
    fl_cms_info in;
    flpy_read_lock_gil(&self->lock);
    fl_status st = fl_cms_info_get(self->handle, &in);
    flpy_unlock(&self->lock);
    if (st != FL_OK)
        return flpy_raise(st, "info", NULL);
    PyObject *d = Py_BuildValue("{s:k,s:k,s:K,s:N,s:K,s:K,s:N,s:K,s:d,s:d,s:k,s:k,s:s}",
                                "width", (unsigned long)in.width,
                                "depth", (unsigned long)in.depth,
                                "seed", (unsigned long long)in.seed,
                                "conservative", PyBool_FromLong(in.conservative),
                                "bytes", (unsigned long long)in.bytes,
                                "total", (unsigned long long)in.total,
                                "total_saturated", PyBool_FromLong(in.total_saturated),
                                "saturated", (unsigned long long)in.saturated,
                                "epsilon", (double)in.epsilon,
                                "delta", (double)in.delta,
                                "topk", (unsigned long)in.topk,
                                "candidates", (unsigned long)in.candidates,
                                "kernel", fl_cms_kernel(self->handle));
    return flpy_make_info("CountMinInfo", d);
}

static PyObject *Cms_get_kernel(CmsObject *self, void *Py_UNUSED(c))
{
    return PyUnicode_FromString(fl_cms_kernel(self->handle));
}

static PyObject *Cms_get_total(CmsObject *self, void *Py_UNUSED(c))
{
    flpy_read_lock_gil(&self->lock);
    uint64_t t = fl_cms_total(self->handle);
    flpy_unlock(&self->lock);
    return PyLong_FromUnsignedLongLong(t);
}

static PyObject *Cms_getitem(CmsObject *self, PyObject *key) { return Cms_query(self, key); }

static PyObject *Cms_repr(CmsObject *self)
{
    fl_cms_info in;
    flpy_read_lock_gil(&self->lock);
    fl_cms_info_get(self->handle, &in);
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
    FLPY_MERGE_METHOD(
      "merge(other)\n--\n\nAdds other's counters (same width, depth, seed; ValueError "
      "otherwise). other's candidates are not carried over."),
    FLPY_COPY_METHOD("copy()\n--\n\nAn independent copy."),
    FLPY_CLEAR_METHOD("clear()\n--\n\nZeroes every counter."),
    {"top", (PyCFunction)(void (*)(void))Cms_top, METH_VARARGS | METH_KEYWORDS,
     "top(n=None)\n--\n\nThe candidates as (key bytes, estimate), largest first (needs topk > 0 "
     "at creation; int keys come back as their 8 little-endian bytes)."},
    {"heavy_hitters", (PyCFunction)Cms_heavy_hitters, METH_O,
     "heavy_hitters(phi)\n--\n\nThe candidates whose estimate exceeds phi * total."},
    FLPY_FILE_METHODS(Cms,
      "to_bytes()\n--\n\nThe sketch in the filterlab file format.",
      "from_bytes(data, max_bytes=0)\n--\n\nA sketch from filterlab-format bytes.",
      "save(path)\n--\n\nWrites the sketch atomically.",
      "load(path, max_bytes=0)\n--\n\nReads a sketch file (as `filterlab freq` writes)."),
    {"info", (PyCFunction)Cms_info, METH_NOARGS, "info()\n--\n\nA CountMinInfo dataclass."},
    FLPY_BIND_KERNEL_METHOD(
      "bind_kernel(name)\n--\n\nRuns this sketch on kernel name; None or 'auto' unbinds."),
    FLPY_REDUCE_METHOD_AND_END,
};

static PyGetSetDef Cms_getset[] = {
    {"kernel", (getter)Cms_get_kernel, NULL, "The kernel this sketch's calls use.", NULL},
    FLPY_BOUND_KERNEL_GETTER("The kernel bound, or None."),
    {"total", (getter)Cms_get_total, NULL, "N, the sum of all increments.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMappingMethods Cms_as_mapping = {
    .mp_subscript = (binaryfunc)Cms_getitem,
};

static PyTypeObject Cms_Type = {
    FLPY_TYPE_FIELDS(Cms, CmsObject, "CountMin"),
    .tp_as_number = &Cms_as_number,
    .tp_as_mapping = &Cms_as_mapping,
    .tp_doc = "CountMin(width=None, depth=None, *, epsilon=None, delta=None, seed=0, "
              "conservative=False, topk=0)\n--\n\n"
              "A Count-Min sketch (Cormode and Muthukrishnan 2005): width x depth 32-bit "
              "counters, or sized from epsilon and delta (w = ceil(e/epsilon), d = "
              "ceil(ln(1/delta))). sketch[key] is the estimate; `a | b` a merged copy.",
    .tp_getset = Cms_getset,
};

FLPY_DEFINE_ADD(cms, Cms)
