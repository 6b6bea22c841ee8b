/*
 * The extension's shared machinery (see common.h): errors, locks, argument helpers and
 * the info dataclasses. Keys and batch outputs: keys.c.
 */
#include "common.h"

#include <errno.h>
#include <string.h>

PyObject *flpy_FormatError;
PyObject *flpy_FullError;
PyObject *flpy_BuildError;

/* ---- exceptions ----------------------------------------------------------------------- */

static PyObject *exception_for(fl_status s)
{
    switch (s) {
    case FL_ERR_NO_MEMORY:
        return PyExc_MemoryError;
    case FL_ERR_IO:
        return PyExc_OSError;
    case FL_ERR_BAD_MAGIC:
    case FL_ERR_BAD_VERSION:
    case FL_ERR_TRUNCATED:
    case FL_ERR_TRAILING_DATA:
    case FL_ERR_CHECKSUM:
    case FL_ERR_CORRUPT:
    case FL_ERR_BAD_PARQUET:
    case FL_ERR_WRONG_KIND:
    case FL_ERR_HLL_FORMAT:
        return flpy_FormatError;
    case FL_ERR_FULL:
        return flpy_FullError;
    case FL_ERR_BUILD_FAILED:
        return flpy_BuildError;
    case FL_ERR_DUPLICATE_KEY:
        return PyExc_ValueError; /* the caller's key set: one key with two values */
    case FL_ERR_NOT_FOUND:
        return PyExc_KeyError;
    case FL_ERR_BUFFER_TOO_SMALL:
        return PyExc_SystemError; /* the binding sized a buffer wrong: our bug */
    default:
        /* INVALID_ARG, BAD_N, BAD_FPR, BAD_K, BAD_GEOMETRY, TOO_LARGE, UNSUPPORTED,
         * INCOMPATIBLE, UNKNOWN_KERNEL, KERNEL_UNAVAILABLE, BAD_PRECISION, BAD_ACCURACY,
         * BAD_GROWTH, BAD_TIGHTENING: the caller's parameters. */
        return PyExc_ValueError;
    }
}

PyObject *flpy_raise(fl_status s, const char *what, const char *path)
{
    int saved_errno = errno;
    PyObject *type = exception_for(s);
    PyObject *exc;
    if (type == PyExc_OSError) {
        const char *why = saved_errno ? strerror(saved_errno) : "";
        exc = PyObject_CallFunction(type, "is(s)", saved_errno,
                                    what ? what : "filterlab", path ? path : "");
        if (exc != NULL) {
            PyObject *msg = PyUnicode_FromFormat("%s: %s%s%s", what ? what : "filterlab",
                                                 fl_strerror(s), *why ? ": " : "", why);
            if (msg == NULL || PyObject_SetAttrString(exc, "strerror", msg) < 0) {
                Py_XDECREF(msg);
                Py_DECREF(exc);
                return NULL;
            }
            Py_DECREF(msg);
            if (path != NULL) {
                PyObject *p = PyUnicode_DecodeFSDefault(path);
                if (p == NULL || PyObject_SetAttrString(exc, "filename", p) < 0) {
                    Py_XDECREF(p);
                    Py_DECREF(exc);
                    return NULL;
                }
                Py_DECREF(p);
            } else if (PyObject_SetAttrString(exc, "filename", Py_None) < 0) {
                Py_DECREF(exc);
                return NULL;
            }
        }
    } else if (type == PyExc_MemoryError) {
        /* MemoryError carries the message too, so a user sees which call ran out. */
        exc = PyObject_CallFunction(type, "s", fl_strerror(s));
    } else {
        PyObject *msg = PyUnicode_FromFormat("%s: %s", what ? what : "filterlab",
                                             fl_strerror(s));
        if (msg == NULL)
            return NULL;
        exc = PyObject_CallOneArg(type, msg);
        Py_DECREF(msg);
    }
    if (exc == NULL)
        return NULL;
    PyObject *status = PyLong_FromLong((long)s);
    if (status == NULL || PyObject_SetAttrString(exc, "status", status) < 0) {
        Py_XDECREF(status);
        Py_DECREF(exc);
        return NULL;
    }
    Py_DECREF(status);
    PyErr_SetObject(type, exc);
    Py_DECREF(exc);
    return NULL;
}

/* ---- locks ---------------------------------------------------------------------------- */

int flpy_lock_init(flpy_lock *l)
{
    if (pthread_rwlock_init(&l->rw, NULL) != 0) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

void flpy_lock_destroy(flpy_lock *l) { pthread_rwlock_destroy(&l->rw); }

void flpy_read_lock_gil(flpy_lock *l)
{
    if (pthread_rwlock_tryrdlock(&l->rw) == 0)
        return;
    Py_BEGIN_ALLOW_THREADS
    pthread_rwlock_rdlock(&l->rw);
    Py_END_ALLOW_THREADS
}

void flpy_write_lock_gil(flpy_lock *l)
{
    if (pthread_rwlock_trywrlock(&l->rw) == 0)
        return;
    Py_BEGIN_ALLOW_THREADS
    pthread_rwlock_wrlock(&l->rw);
    Py_END_ALLOW_THREADS
}

void flpy_read_lock(flpy_lock *l) { pthread_rwlock_rdlock(&l->rw); }
void flpy_write_lock(flpy_lock *l) { pthread_rwlock_wrlock(&l->rw); }
void flpy_unlock(flpy_lock *l) { pthread_rwlock_unlock(&l->rw); }

/* ---- arguments and info ------------------------------------------------------------- */

PyObject *flpy_make_info(const char *cls, PyObject *kwargs)
{
    if (kwargs == NULL)
        return NULL;
    PyObject *mod = PyImport_ImportModule("filterlab._info");
    if (mod == NULL) {
        Py_DECREF(kwargs);
        return NULL;
    }
    PyObject *type = PyObject_GetAttrString(mod, cls);
    Py_DECREF(mod);
    if (type == NULL) {
        Py_DECREF(kwargs);
        return NULL;
    }
    PyObject *args = PyTuple_New(0);
    PyObject *r = args ? PyObject_Call(type, args, kwargs) : NULL;
    Py_XDECREF(args);
    Py_DECREF(type);
    Py_DECREF(kwargs);
    return r;
}

/* Sets key in dict d to the new reference v (steals v); -1 on error. */
static int flpy_set(PyObject *d, const char *key, PyObject *v)
{
    if (v == NULL)
        return -1;
    int r = PyDict_SetItemString(d, key, v);
    Py_DECREF(v);
    return r;
}

PyObject *flpy_with_geometry(PyObject *d, const fl_geometry *g)
{
    if (d == NULL)
        return NULL;
    char geom[160];
    fl_geometry_describe(g, geom, sizeof geom);
    if (flpy_set(d, "variant", PyUnicode_FromString(fl_variant_name(g->variant))) < 0 ||
        flpy_set(d, "units", PyLong_FromUnsignedLongLong(g->units)) < 0 ||
        flpy_set(d, "k", PyLong_FromUnsignedLong(g->k)) < 0 ||
        flpy_set(d, "geometry", PyUnicode_FromString(geom)) < 0)
        Py_CLEAR(d);
    return d;
}

int flpy_kernel_name(PyObject *obj, const char **name)
{
    if (obj == NULL || obj == Py_None) {
        *name = NULL;
        return 0;
    }
    if (!PyUnicode_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "kernel must be a str or None, not %.100s",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    *name = PyUnicode_AsUTF8(obj);
    return *name ? 0 : -1;
}

int flpy_parse_hash(PyObject *obj, fl_hash_id *out)
{
    *out = 0;
    if (obj == NULL || obj == Py_None)
        return 0;
    const char *s = PyUnicode_Check(obj) ? PyUnicode_AsUTF8(obj) : NULL;
    if (s != NULL && strcmp(s, "xxh3") == 0)
        *out = FL_HASH_XXH3;
    else if (s != NULL && strcmp(s, "xxh64") == 0)
        *out = FL_HASH_XXH64;
    else {
        PyErr_Clear();
        PyErr_SetString(PyExc_ValueError, "hash must be 'xxh3', 'xxh64' or None");
        return -1;
    }
    return 0;
}
