/* tenport._tenport.file_format, read_npy, read_dense_text and read_coo: the library's
 * format sniffing and readers, their arrays lent to Python without a copy (Block). */
#include <stdlib.h>
#include <string.h>

#include "py_tenport.h"

static const char *dtype_code(tp_dtype dtype) {
  switch (dtype) {
  case TP_DTYPE_F32: return "f4";
  case TP_DTYPE_F64: return "f8";
  case TP_DTYPE_I8: return "i1";
  case TP_DTYPE_U8: return "u1";
  case TP_DTYPE_I32: return "i4";
  case TP_DTYPE_I64: return "i8";
  case TP_DTYPE_U32: return "u4";
  default: return "u8";
  }
}

static PyObject *shape_tuple(const int64_t *dims, int n) {
  PyObject *t = PyTuple_New(n);
  for (int k = 0; t && k < n; ++k)
    PyTuple_SET_ITEM(t, k, PyLong_FromLongLong(dims[k]));
  return t;
}

static void release_npy(void *array) {
  tp_npy_free(array);
  free(array);
}

/* read_npy(path) -> (block, dtype code, shape, fortran) */
static PyObject *py_read_npy(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *path_obj;
  if (!PyArg_ParseTuple(args, "O&", PyUnicode_FSConverter, &path_obj))
    return NULL;
  tp_npy_array *a = calloc(1, sizeof *a);
  if (!a) {
    Py_DECREF(path_obj);
    return PyErr_NoMemory();
  }
  tp_status st;
  const char *path = PyBytes_AS_STRING(path_obj);
  Py_BEGIN_ALLOW_THREADS st = tp_npy_read(path, a);
  Py_END_ALLOW_THREADS Py_DECREF(path_obj);
  if (st != TP_SUCCESS) {
    free(a);
    return py_raise(st);
  }
  PyObject *block = py_block_new(a->data, (Py_ssize_t)(tp_dtype_size(a->dtype) * (size_t)a->count),
                                 release_npy, a);
  if (!block)
    return NULL;
  return Py_BuildValue("(NsNO)", block, dtype_code(a->dtype), shape_tuple(a->shape, a->ndim),
                       a->fortran_order ? Py_True : Py_False);
}

/* file_format(path) -> "npy", "tensor", "text", "tpb", ... (tp_file_format_name of what
 * the content is, gzip data seen decompressed) */
static PyObject *py_file_format(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *path_obj;
  if (!PyArg_ParseTuple(args, "O&", PyUnicode_FSConverter, &path_obj))
    return NULL;
  tp_status st;
  tp_input *in = NULL;
  tp_file_format format = TP_FILE_UNKNOWN;
  const char *path = PyBytes_AS_STRING(path_obj);
  Py_BEGIN_ALLOW_THREADS st = tp_input_open(&in, path);
  if (st == TP_SUCCESS)
    st = tp_input_format(in, &format);
  tp_input_close(&in);
  Py_END_ALLOW_THREADS Py_DECREF(path_obj);
  if (st != TP_SUCCESS)
    return py_raise(st);
  return PyUnicode_FromString(tp_file_format_name(format));
}

static void release_dense(void *dense) {
  tp_dense_free(NULL, dense);
  free(dense);
}

/* read_dense_text(path) -> (block, dtype code, shape, fortran): float64, first index
 * fastest (tp_dense_read_text) */
static PyObject *py_read_dense_text(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *path_obj;
  if (!PyArg_ParseTuple(args, "O&", PyUnicode_FSConverter, &path_obj))
    return NULL;
  tp_dense *t = calloc(1, sizeof *t);
  if (!t) {
    Py_DECREF(path_obj);
    return PyErr_NoMemory();
  }
  tp_status st;
  const char *path = PyBytes_AS_STRING(path_obj);
  Py_BEGIN_ALLOW_THREADS st = tp_dense_read_text(path, TP_DTYPE_F64, t);
  Py_END_ALLOW_THREADS Py_DECREF(path_obj);
  if (st != TP_SUCCESS) {
    free(t);
    return py_raise(st);
  }
  int64_t count = tp_dense_count(t);
  PyObject *block =
      py_block_new(t->data, (Py_ssize_t)(sizeof(double) * (size_t)count), release_dense, t);
  if (!block)
    return NULL;
  return Py_BuildValue("(NsNO)", block, dtype_code(t->dtype), shape_tuple(t->dims, t->order),
                       t->layout == TP_LAYOUT_LEFT ? Py_True : Py_False);
}

/* The coordinates of a read tensor in one block (order x nnz), the values in another;
 * the values block keeps the library's tensor, whose index arrays are freed at once. */
static void release_coo(void *coo) {
  tp_coo_free(NULL, coo);
  free(coo);
}

/* read_coo(path) -> (coords block, values block, dtype code, shape, nnz) */
static PyObject *py_read_coo(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *path_obj;
  if (!PyArg_ParseTuple(args, "O&", PyUnicode_FSConverter, &path_obj))
    return NULL;
  tp_coo *coo = calloc(1, sizeof *coo);
  if (!coo) {
    Py_DECREF(path_obj);
    return PyErr_NoMemory();
  }
  tp_status st;
  int64_t *coords = NULL;
  const char *path = PyBytes_AS_STRING(path_obj);
  tp_coo_read_info info;
  memset(&info, 0, sizeof info);
  Py_BEGIN_ALLOW_THREADS st = tp_coo_read(path, TP_DTYPE_F64, coo, &info);
  if (st == TP_SUCCESS) {
    coords = malloc(sizeof(int64_t) * (size_t)(coo->nnz > 0 ? coo->nnz : 1) * (size_t)coo->order);
    for (int m = 0; coords && m < coo->order; ++m)
      memcpy(coords + (int64_t)m * coo->nnz, coo->indices[m], sizeof(int64_t) * (size_t)coo->nnz);
  }
  Py_END_ALLOW_THREADS Py_DECREF(path_obj);
  if (st != TP_SUCCESS) {
    free(coo);
    return py_raise(st);
  }
  if (!coords) {
    release_coo(coo);
    return PyErr_NoMemory();
  }
  PyObject *coords_block = py_block_new(
      coords, (Py_ssize_t)(sizeof(int64_t) * (size_t)coo->nnz * (size_t)coo->order), free, coords);
  PyObject *values_block =
      coords_block ? py_block_new(coo->values, (Py_ssize_t)(sizeof(double) * (size_t)coo->nnz),
                                  release_coo, coo)
                   : NULL;
  if (!values_block) {
    Py_XDECREF(coords_block);
    return NULL;
  }
  return Py_BuildValue("(NNsNLz)", coords_block, values_block, "f8",
                       shape_tuple(coo->dims, coo->order), (long long)coo->nnz, info.header_kind);
}

PyMethodDef py_io_methods[] = {
    {"file_format", py_file_format, METH_VARARGS,
     "The format a file's content shows (tp_input_format)."},
    {"read_npy", py_read_npy, METH_VARARGS, "Reads a .npy file (tp_npy_read)."},
    {"read_dense_text", py_read_dense_text, METH_VARARGS,
     "Reads dense 'tensor' text (tp_dense_read_text)."},
    {"read_coo", py_read_coo, METH_VARARGS, "Reads a .tns or .tpb sparse tensor (tp_coo_read)."},
    {NULL, NULL, 0, NULL}};
