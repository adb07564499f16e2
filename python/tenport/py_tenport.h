/* The tenport Python extension's shared pieces: array descriptors handed over by the
 * Python layer, the process's space, and errors. The extension is thin: every method
 * is the C library's; this code only moves descriptors and results across. */
#ifndef PY_TENPORT_H
#define PY_TENPORT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdio.h>

#include "tenport/tenport.h"

/* An array as the Python layer describes it (tenport/_arrays.py): the address of its
 * first element, its shape, its element type, whether it is in Fortran order (first index
 * fastest) and whether it lives on the GPU. The Python layer holds a reference to the
 * array for the whole call. */
typedef struct py_array {
  void *data;
  int ndim;
  int64_t shape[TP_DENSE_MAX_ORDER];
  tp_dtype dtype;
  int fortran;
  int on_device;
} py_array;

/* Parses (address, shape, dtype name, fortran, on_device); dtype names: f4 f8 i8. Sets a
 * Python exception and returns 0 on failure. */
int py_array_parse(PyObject *obj, py_array *a);
int64_t py_array_count(const py_array *a);
/* A list of `order` array descriptors (factor matrices); `what` names it in the error. */
int py_factor_list_parse(PyObject *list, py_array *out, int order, const char *what);
/* A host COO tensor over coords (order x nnz int64, C order), values (nnz) and a shape
 * tuple. */
int py_coo_parse(PyObject *coords, PyObject *values, PyObject *dims, tp_coo *coo);
/* A call of `count` arguments (name's) that starts with coords, values and shape: the
 * tensor into *coo, and a new tuple of the other arguments (NULL with an exception set). */
PyObject *py_sparse_call(PyObject *args, Py_ssize_t count, const char *name, tp_coo *coo);

/* The space every call runs in (created at first use); NULL with a Python exception set
 * when it cannot be created. Calls hold py_space_lock() around their library work, with
 * the GIL released: a space runs one call at a time. */
tp_space *py_space(void);
int py_space_is_gpu(void);
void py_space_lock(void);
void py_space_unlock(void);
void py_space_release(void);

/* Raises tenport.Error with the library's last error message; returns NULL. */
PyObject *py_raise(tp_status status);
/* None on success, else py_raise(status). */
PyObject *py_none_or_raise(tp_status status);
extern PyObject *py_error;

/* The address of the data the library last read as a method's main input (a tensor's
 * values): tests compare it with the array's own to show that nothing was copied. */
extern void *py_last_input;

/* What an iterative method's progress callback (called without the GIL) keeps: a value
 * per iteration, the run's cancel flag, set when Python has a signal to handle (Ctrl-C),
 * so that KeyboardInterrupt is raised after the iteration, not after the whole run, and,
 * when verbose, the iteration's line, printed to Python's sys.stdout (where
 * contextlib.redirect_stdout sees it), not C's stdout. Zero it before the run. */
typedef struct py_history {
  double *values;
  int count, capacity, verbose;
  volatile int cancel;
  FILE *stream;
  char *text;
  size_t text_len;
} py_history;

/* The stream the library's print function writes this iteration's line to, or NULL when
 * not verbose (or out of memory): call it, then py_history_step, in the callback. */
FILE *py_history_line(py_history *h);
/* After an iteration: handles pending signals, prints the line, keeps value. An
 * exception (KeyboardInterrupt, or one that writing to sys.stdout raised) sets cancel
 * and stays set for the caller. */
void py_history_step(py_history *h, double value);
/* The kept values as a list (NULL with an exception set when it cannot be built). */
PyObject *py_history_list(const py_history *h);
/* After the run (with the GIL): NULL with the exception the run stopped for, or with
 * tenport.Error when st is a failure, else result(call); frees what h holds. */
PyObject *py_history_finish(py_history *h, tp_status st, PyObject *(*result)(void *), void *call);

/* A block of host memory the library allocated, as a Python buffer (numpy.frombuffer
 * uses it without a copy); `release` frees it with `context` when the last view goes. */
PyObject *py_block_new(void *data, Py_ssize_t bytes, void (*release)(void *), void *context);
extern PyTypeObject py_block_type;

/* Method tables of the other files, merged into the module's. */
extern PyMethodDef py_cp_als_methods[];
extern PyMethodDef py_gcp_methods[];
extern PyMethodDef py_cp_apr_methods[];
extern PyMethodDef py_mttkrp_methods[];
extern PyMethodDef py_io_methods[];
extern PyMethodDef py_peaks_methods[];
extern PyMethodDef py_sttid_methods[];
extern PyTypeObject py_tt_type;

#endif
