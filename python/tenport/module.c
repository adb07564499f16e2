/* The tenport._tenport module: its error type, the process's space, array descriptors
 * and the method tables of the other files. */
#include <string.h>

#include "py_tenport.h"
#include "pythread.h"

PyObject *py_error = NULL;
void *py_last_input = NULL;

static tp_space *space = NULL;
static PyThread_type_lock space_mutex = NULL;

PyObject *py_raise(tp_status status) {
  const char *msg = tp_last_error();
  PyErr_Format(py_error, "%s (%s)", msg && *msg ? msg : "tenport failed", tp_status_name(status));
  return NULL;
}

PyObject *py_none_or_raise(tp_status status) {
  if (status != TP_SUCCESS)
    return py_raise(status);
  Py_RETURN_NONE;
}

tp_space *py_space(void) {
  if (space)
    return space;
  tp_space_options opts = tp_space_options_default();
  /* with the GIL held: two threads must not both create one */
  tp_status st = tp_space_create(&space, &opts);
  if (st != TP_SUCCESS) {
    space = NULL;
    py_raise(st);
    return NULL;
  }
  return space;
}

int py_space_is_gpu(void) {
  tp_space_info info;
  return space && tp_space_get_info(space, &info) == TP_SUCCESS && info.is_gpu;
}

void py_space_lock(void) { PyThread_acquire_lock(space_mutex, WAIT_LOCK); }
void py_space_unlock(void) { PyThread_release_lock(space_mutex); }

void py_space_release(void) {
  if (space)
    tp_space_destroy(&space);
}

static int dtype_from_name(const char *name, tp_dtype *dtype) {
  static const struct {
    const char *name;
    tp_dtype dtype;
  } known[] = {{"f4", TP_DTYPE_F32},
               {"f8", TP_DTYPE_F64},
               {"i8", TP_DTYPE_I64},
               {"i4", TP_DTYPE_I32},
               {"i1", TP_DTYPE_I8}};
  for (size_t i = 0; i < sizeof known / sizeof known[0]; ++i)
    if (strcmp(name, known[i].name) == 0) {
      *dtype = known[i].dtype;
      return 1;
    }
  PyErr_Format(PyExc_TypeError, "tenport: element type %s is not f4, f8, i8, i4 or i1", name);
  return 0;
}

int py_array_parse(PyObject *obj, py_array *a) {
  PyObject *address, *shape;
  const char *dtype;
  memset(a, 0, sizeof *a);
  if (!PyArg_ParseTuple(obj, "OO!spp", &address, &PyTuple_Type, &shape, &dtype, &a->fortran,
                        &a->on_device))
    return 0;
  a->data = PyLong_AsVoidPtr(address);
  if (PyErr_Occurred() || !dtype_from_name(dtype, &a->dtype))
    return 0;
  Py_ssize_t ndim = PyTuple_GET_SIZE(shape);
  if (ndim > TP_DENSE_MAX_ORDER) {
    PyErr_Format(PyExc_ValueError, "tenport: %zd dimensions, at most %d", ndim, TP_DENSE_MAX_ORDER);
    return 0;
  }
  a->ndim = (int)ndim;
  for (Py_ssize_t k = 0; k < ndim; ++k) {
    a->shape[k] = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, k));
    if (PyErr_Occurred())
      return 0;
  }
  return 1;
}

int64_t py_array_count(const py_array *a) {
  int64_t n = 1;
  for (int k = 0; k < a->ndim; ++k)
    n *= a->shape[k];
  return n;
}

int py_factor_list_parse(PyObject *list, py_array *out, int order, const char *what) {
  if (!PyList_Check(list) || PyList_GET_SIZE(list) != order) {
    PyErr_Format(PyExc_ValueError, "tenport: %s must be a list of %d factor arrays", what, order);
    return 0;
  }
  for (int m = 0; m < order; ++m)
    if (!py_array_parse(PyList_GET_ITEM(list, m), &out[m]))
      return 0;
  return 1;
}

int py_coo_parse(PyObject *coords_obj, PyObject *values_obj, PyObject *dims_obj, tp_coo *coo) {
  py_array coords, values;
  if (!py_array_parse(coords_obj, &coords) || !py_array_parse(values_obj, &values))
    return 0;
  if (!PyTuple_Check(dims_obj) || coords.ndim != 2 ||
      PyTuple_GET_SIZE(dims_obj) != coords.shape[0]) {
    PyErr_SetString(PyExc_ValueError, "tenport: the shape must have one size per mode");
    return 0;
  }
  memset(coo, 0, sizeof *coo);
  coo->dtype = values.dtype;
  coo->order = (int)coords.shape[0];
  coo->nnz = coords.shape[1];
  coo->values = values.data;
  for (int m = 0; m < coo->order; ++m) {
    coo->dims[m] = PyLong_AsLongLong(PyTuple_GET_ITEM(dims_obj, m));
    coo->indices[m] = (int64_t *)coords.data + (int64_t)m * coo->nnz;
  }
  return !PyErr_Occurred();
}

PyObject *py_sparse_call(PyObject *args, Py_ssize_t count, const char *name, tp_coo *coo) {
  if (PyTuple_GET_SIZE(args) != count) {
    PyErr_Format(PyExc_TypeError, "%s takes %zd arguments", name, count);
    return NULL;
  }
  if (!py_coo_parse(PyTuple_GET_ITEM(args, 0), PyTuple_GET_ITEM(args, 1), PyTuple_GET_ITEM(args, 2),
                    coo))
    return NULL;
  return PyTuple_GetSlice(args, 3, count);
}

static PyObject *py_backend(PyObject *self, PyObject *unused) {
  (void)self, (void)unused;
  return PyUnicode_FromString(tp_backend_name());
}

static PyObject *py_version(PyObject *self, PyObject *unused) {
  (void)self, (void)unused;
  return PyUnicode_FromString(tp_version());
}

static PyObject *py_is_gpu(PyObject *self, PyObject *unused) {
  (void)self, (void)unused;
  if (!py_space())
    return NULL;
  return PyBool_FromLong(py_space_is_gpu());
}

static PyObject *py_last_input_address(PyObject *self, PyObject *unused) {
  (void)self, (void)unused;
  return PyLong_FromVoidPtr(py_last_input);
}

static PyMethodDef module_methods[] = {
    {"backend", py_backend, METH_NOARGS, "The backend this build runs on."},
    {"version", py_version, METH_NOARGS, "The loaded library's version."},
    {"is_gpu", py_is_gpu, METH_NOARGS, "Whether the space runs on a GPU."},
    {"last_input_address", py_last_input_address, METH_NOARGS,
     "Address of the data the library last read as a method's main input."},
    {NULL, NULL, 0, NULL}};

static PyMethodDef all_methods[64];

static void merge_methods(void) {
  PyMethodDef *tables[] = {module_methods,    py_cp_als_methods, py_gcp_methods,
                           py_cp_apr_methods, py_mttkrp_methods, py_io_methods,
                           py_peaks_methods,  py_sttid_methods};
  size_t n = 0;
  for (size_t t = 0; t < sizeof tables / sizeof tables[0]; ++t)
    for (PyMethodDef *m = tables[t]; m->ml_name; ++m)
      all_methods[n++] = *m;
  memset(&all_methods[n], 0, sizeof all_methods[n]);
}

static void module_free(void *unused) {
  (void)unused;
  py_space_release();
}

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT,
                                        "_tenport",
                                        "tenport's C library, for the tenport package.",
                                        -1,
                                        all_methods,
                                        NULL,
                                        NULL,
                                        NULL,
                                        module_free};

PyMODINIT_FUNC PyInit__tenport(void) {
  merge_methods();
  if (PyType_Ready(&py_block_type) < 0 || PyType_Ready(&py_tt_type) < 0)
    return NULL;
  space_mutex = PyThread_allocate_lock();
  if (!space_mutex)
    return PyErr_NoMemory();
  PyObject *m = PyModule_Create(&module_def);
  if (!m)
    return NULL;
  py_error = PyErr_NewExceptionWithDoc("tenport.Error",
                                       "An error the tenport library reported; the message is "
                                       "the library's.",
                                       PyExc_RuntimeError, NULL);
  if (!py_error || PyModule_AddObjectRef(m, "Error", py_error) < 0 ||
      PyModule_AddObjectRef(m, "Block", (PyObject *)&py_block_type) < 0) {
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
