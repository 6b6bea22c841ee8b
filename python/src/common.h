/*
 * What every class of the filterlab extension shares: error mapping, the per-object lock,
 * argument helpers and the info dataclasses. The keys a call takes and the arrays batch
 * calls return: keys.h.
 *
 * Adding a class (a structure): write python/src/<structure>.c with its flpy_ops table and
 * type object (object.h: the base and the methods every class shares) and its
 * FLPY_DEFINE_ADD(<structure>, Class) line, and list it in FLPY_CLASSES below. Nothing else
 * in the extension changes.
 */
#ifndef FLPY_COMMON_H
#define FLPY_COMMON_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pthread.h>
#include <stdint.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL flpy_ARRAY_API
#ifndef FLPY_MODULE_C
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#include "filterlab.h"

/* ---- exceptions ----------------------------------------------------------------------- */
extern PyObject *flpy_FormatError; /* filterlab.FormatError(ValueError): a bad file/string */
extern PyObject *flpy_FullError;   /* filterlab.FullError(RuntimeError): no room */
/* filterlab.BuildError(RuntimeError): a static structure's construction failed for every
 * seed tried (FL_ERR_BUILD_FAILED). */
extern PyObject *flpy_BuildError;

/* Raises the exception for status s (never FL_OK) with `what: fl_strerror(s)` and the
 * library's status name in the exception's `status` attribute; returns NULL.
 * FL_ERR_IO becomes OSError(errno, message, path) when path is given. */
PyObject *flpy_raise(fl_status s, const char *what, const char *path);

/* ---- the object lock -------------------------------------------------------------------
 * Batch calls run without the GIL, so two Python threads could otherwise run an add and a
 * lookup on one structure at once, which the library allows for lookups only (a chain that
 * grows or an HLL that turns dense reallocates under the reader). Every object holds a
 * readers-writer lock: lookups take it shared, changes exclusive. It is taken after the GIL
 * is released, or by try-lock while holding it for single keys (the cheap path), so a
 * thread waiting for it never holds the GIL that the holder needs. */
typedef struct flpy_lock {
    pthread_rwlock_t rw;
} flpy_lock;

int flpy_lock_init(flpy_lock *l);  /* -1 with MemoryError set */
void flpy_lock_destroy(flpy_lock *l);
/* Called with the GIL held; blocks with the GIL released only when contended. */
void flpy_read_lock_gil(flpy_lock *l);
void flpy_write_lock_gil(flpy_lock *l);
/* Called without the GIL. */
void flpy_read_lock(flpy_lock *l);
void flpy_write_lock(flpy_lock *l);
void flpy_unlock(flpy_lock *l);

/* ---- arguments and info ----------------------------------------------------------------- */

/* Calls filterlab._info.<cls>(**kwargs) (the dataclasses live in Python). Steals kwargs, a
 * dict (Py_BuildValue("{s:...}", ...)) or NULL with an exception set. */
PyObject *flpy_make_info(const char *cls, PyObject *kwargs);

/* d (a new dict, or NULL with an exception set) with "variant", "units", "k" and
 * "geometry" (fl_geometry_describe's text) from g added: the geometry fields of the info
 * dataclasses. NULL, d released, on failure. */
PyObject *flpy_with_geometry(PyObject *d, const fl_geometry *g);

/* hash= argument: None (the variant default), "xxh3" or "xxh64". */
int flpy_parse_hash(PyObject *obj, fl_hash_id *out);

/* Kernel name argument: None or str ("auto" unbinds). Returns 0 and *name (NULL for None). */
int flpy_kernel_name(PyObject *obj, const char **name);

/* ---- the classes ----------------------------------------------------------------------
 * One line per class, in the order module.c adds them: X(name) for the
 * `int flpy_add_<name>(PyObject *m)` of python/src/<structure>.c (FLPY_DEFINE_ADD, object.h),
 * which readies the class's type and adds it to the module. */
#define FLPY_CLASSES(X) \
    X(filter)           \
    X(sbf)              \
    X(cms)              \
    X(hll)              \
    X(fuse)             \
    X(bloomier)         \
    X(layered)          \
    X(compressed)       \
    X(gcf)
#define FLPY_DECLARE_ADD(name) int flpy_add_##name(PyObject *m);
FLPY_CLASSES(FLPY_DECLARE_ADD)
#undef FLPY_DECLARE_ADD

/* filterlab.Filter for classes that take or return one (filter.c): its type, and a new
 * Filter owning f (freed on failure). */
PyTypeObject *flpy_filter_type(void);
PyObject *flpy_filter_wrap(fl_filter *f);
/* Filter(...)'s arguments as an fl_config (filter_config.c); -1 with an exception set. */
int flpy_filter_config(PyObject *args, PyObject *kw, fl_config *cfg);

#endif
