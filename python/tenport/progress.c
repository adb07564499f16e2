/* What an iterative method's progress callback does for Python: the value of every
 * iteration, the line it prints to sys.stdout, and Ctrl-C. */
#include <stdio.h>
#include <stdlib.h>

#include "py_tenport.h"

FILE *py_history_line(py_history *h) {
  if (!h->verbose)
    return NULL;
  h->text = NULL, h->text_len = 0;
  h->stream = open_memstream(&h->text, &h->text_len);
  return h->stream;
}

/* text to sys.stdout (nothing where there is none); -1 with the exception set when
 * write or flush raised. */
static int write_stdout(const char *text) {
  PyObject *out = PySys_GetObject("stdout"); /* borrowed */
  if (!out || out == Py_None)
    return 0;
  PyObject *r = PyObject_CallMethod(out, "write", "s", text);
  if (r) {
    Py_DECREF(r);
    r = PyObject_CallMethod(out, "flush", NULL);
  }
  Py_XDECREF(r);
  return r ? 0 : -1;
}

static void keep_value(py_history *h, double value) {
  if (h->count == h->capacity) {
    int capacity = h->capacity ? 2 * h->capacity : 64;
    double *grown = realloc(h->values, sizeof(double) * (size_t)capacity);
    if (!grown)
      return; /* the history stays short; the method is unaffected */
    h->values = grown, h->capacity = capacity;
  }
  h->values[h->count++] = value;
}

void py_history_step(py_history *h, double value) {
  if (h->stream) /* the line is complete once the stream is closed */
    fclose(h->stream), h->stream = NULL;
  PyGILState_STATE gil = PyGILState_Ensure();
  /* An exception stays set for the caller: the handled signal's (KeyboardInterrupt) or
   * the one sys.stdout raised. */
  if (PyErr_CheckSignals() < 0 || (h->text && write_stdout(h->text) < 0))
    h->cancel = 1;
  PyGILState_Release(gil);
  free(h->text), h->text = NULL;
  keep_value(h, value);
}

PyObject *py_history_list(const py_history *h) {
  PyObject *list = PyList_New(h->count);
  for (int i = 0; list && i < h->count; ++i) {
    PyObject *v = PyFloat_FromDouble(h->values[i]);
    if (!v) {
      Py_CLEAR(list);
      break;
    }
    PyList_SET_ITEM(list, i, v);
  }
  return list;
}

PyObject *py_history_finish(py_history *h, tp_status st, PyObject *(*result)(void *), void *call) {
  PyObject *out = PyErr_Occurred()   ? NULL /* raised during the run (py_history_step) */
                  : st != TP_SUCCESS ? py_raise(st)
                                     : result(call);
  if (h->stream)
    fclose(h->stream);
  free(h->text);
  free(h->values);
  return out;
}
