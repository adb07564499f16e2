/* tenport._tenport.sttid and the TensorTrain type: tp_sttid's tensor train kept in
 * its C form, evaluated, measured and saved by the library. */
#include <stdlib.h>
#include <string.h>

#include "space_arrays.h"

/* A copy of coo with duplicate coordinates summed (the library's STTID takes merged
 * tensors; SparseTensor lets duplicates add up). Free with tp_coo_free(NULL, out). */
static tp_status merged_copy(const tp_coo *coo, tp_coo *out) {
  tp_status st = tp_coo_alloc(NULL, coo->dtype, coo->order, coo->dims, coo->nnz, out);
  if (st != TP_SUCCESS)
    return st;
  for (int m = 0; m < coo->order; ++m)
    memcpy(out->indices[m], coo->indices[m], sizeof(int64_t) * (size_t)coo->nnz);
  memcpy(out->values, coo->values, tp_dtype_size(coo->dtype) * (size_t)coo->nnz);
  int64_t merged;
  st = tp_coo_sum_duplicates(out, &merged);
  if (st != TP_SUCCESS)
    tp_coo_free(NULL, out);
  return st;
}

typedef struct py_tt {
  PyObject_HEAD tp_tci tci;
} py_tt;

static void tt_dealloc(PyObject *self) {
  tp_tci_free(&((py_tt *)self)->tci);
  Py_TYPE(self)->tp_free(self);
}

static PyObject *tt_ranks(PyObject *self, void *unused) {
  (void)unused;
  const tp_tci *t = &((py_tt *)self)->tci;
  PyObject *r = PyTuple_New(t->order + 1);
  for (int k = 0; r && k <= t->order; ++k)
    PyTuple_SET_ITEM(r, k, PyLong_FromLongLong(t->ranks[k]));
  return r;
}

static PyObject *tt_shape(PyObject *self, void *unused) {
  (void)unused;
  const tp_tci *t = &((py_tt *)self)->tci;
  PyObject *r = PyTuple_New(t->order);
  for (int k = 0; r && k < t->order; ++k)
    PyTuple_SET_ITEM(r, k, PyLong_FromLongLong(t->dims[k]));
  return r;
}

/* core(k) -> (coords 3 x nnz as bytes of int64, values bytes of f64, shape) */
static PyObject *tt_core(PyObject *self, PyObject *args) {
  int k;
  const tp_tci *t = &((py_tt *)self)->tci;
  if (!PyArg_ParseTuple(args, "i", &k))
    return NULL;
  if (k < 0 || k >= t->order) {
    PyErr_Format(PyExc_IndexError, "tenport: core %d of a tensor train of %d cores", k, t->order);
    return NULL;
  }
  const tp_coo *c = &t->cores[k];
  PyObject *coords =
      PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(sizeof(int64_t) * 3 * (size_t)c->nnz));
  if (!coords)
    return NULL;
  for (int m = 0; m < 3; ++m)
    memcpy(PyBytes_AS_STRING(coords) + sizeof(int64_t) * (size_t)m * (size_t)c->nnz, c->indices[m],
           sizeof(int64_t) * (size_t)c->nnz);
  return Py_BuildValue("(Ny#(LLL))", coords, (const char *)c->values,
                       (Py_ssize_t)(sizeof(double) * (size_t)c->nnz), (long long)c->dims[0],
                       (long long)c->dims[1], (long long)c->dims[2]);
}

/* evaluate(indices: count x order int64 descriptor, out: count f64 descriptor) */
static PyObject *tt_evaluate(PyObject *self, PyObject *args) {
  const tp_tci *t = &((py_tt *)self)->tci;
  PyObject *i_obj, *o_obj;
  py_array idx, out;
  if (!PyArg_ParseTuple(args, "OO", &i_obj, &o_obj) || !py_array_parse(i_obj, &idx) ||
      !py_array_parse(o_obj, &out))
    return NULL;
  tp_status st = TP_SUCCESS;
  Py_BEGIN_ALLOW_THREADS for (int64_t e = 0; e < idx.shape[0] && st == TP_SUCCESS; ++e) st =
      tp_tci_evaluate(t, (const int64_t *)idx.data + e * t->order, (double *)out.data + e);
  Py_END_ALLOW_THREADS return py_none_or_raise(st);
}

/* error(coords, values, shape) -> dict of tp_tci_error_info */
static PyObject *tt_error(PyObject *self, PyObject *args) {
  const tp_tci *t = &((py_tt *)self)->tci;
  PyObject *c_obj, *v_obj, *d_obj;
  tp_coo coo;
  if (!PyArg_ParseTuple(args, "OOO", &c_obj, &v_obj, &d_obj) ||
      !py_coo_parse(c_obj, v_obj, d_obj, &coo))
    return NULL;
  tp_tci_error_info info;
  tp_status st;
  Py_BEGIN_ALLOW_THREADS tp_coo merged;
  st = merged_copy(&coo, &merged);
  if (st == TP_SUCCESS) {
    st = tp_tci_error(t, &merged, &info);
    tp_coo_free(NULL, &merged);
  }
  Py_END_ALLOW_THREADS if (st != TP_SUCCESS) return py_raise(st);
  return Py_BuildValue("{s:d,s:d,s:O}", "relative_error", info.relative_error, "floor", info.floor,
                       "at_floor", info.at_floor ? Py_True : Py_False);
}

static PyObject *tt_save(PyObject *self, PyObject *args) {
  const tp_tci *t = &((py_tt *)self)->tci;
  PyObject *path_obj;
  if (!PyArg_ParseTuple(args, "O&", PyUnicode_FSConverter, &path_obj))
    return NULL;
  tp_status st;
  const char *prefix = PyBytes_AS_STRING(path_obj);
  Py_BEGIN_ALLOW_THREADS st = tp_tci_write(prefix, t);
  Py_END_ALLOW_THREADS Py_DECREF(path_obj);
  return py_none_or_raise(st);
}

static PyMethodDef tt_methods[] = {
    {"core", tt_core, METH_VARARGS, "Core k as (coords, values, shape)."},
    {"evaluate", tt_evaluate, METH_VARARGS, "Values at multi-indices (tp_tci_evaluate)."},
    {"error", tt_error, METH_VARARGS, "Relative error against a sparse tensor (tp_tci_error)."},
    {"save", tt_save, METH_VARARGS, "Writes the tensor train (tp_tci_write)."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef tt_getset[] = {{"ranks", tt_ranks, NULL, "Bond ranks, 1 at both ends.", NULL},
                                  {"shape", tt_shape, NULL, "The tensor's shape.", NULL},
                                  {NULL, NULL, NULL, NULL, NULL}};

PyTypeObject py_tt_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tenport._tenport.TCI",
    .tp_basicsize = sizeof(py_tt),
    .tp_dealloc = tt_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A tensor train in TCI form, from tenport.sttid.",
    .tp_methods = tt_methods,
    .tp_getset = tt_getset,
};

typedef struct sttid_call {
  const tp_coo *coo;
  const tp_sttid_options *opt;
  tp_tci *out;
} sttid_call;

static tp_status run_sttid(tp_space *space, void *context) {
  const sttid_call *c = context;
  tp_coo merged;
  tp_status st = merged_copy(c->coo, &merged);
  if (st != TP_SUCCESS)
    return st;
  st = tp_sttid(space, &merged, c->opt, c->out, NULL);
  tp_coo_free(NULL, &merged);
  return st;
}

/* sttid(coords, values, shape, eps, relative, rmax) -> TCI */
static PyObject *py_sttid(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *c_obj, *v_obj, *d_obj;
  tp_sttid_options opt;
  memset(&opt, 0, sizeof opt);
  long long rmax;
  if (!PyArg_ParseTuple(args, "OOOdpL", &c_obj, &v_obj, &d_obj, &opt.eps, &opt.eps_relative, &rmax))
    return NULL;
  opt.rmax = rmax;
  tp_coo coo;
  if (!py_coo_parse(c_obj, v_obj, d_obj, &coo))
    return NULL;
  tp_space *space = py_space();
  if (!space)
    return NULL;
  py_tt *tt = PyObject_New(py_tt, &py_tt_type);
  if (!tt)
    return NULL;
  memset(&tt->tci, 0, sizeof tt->tci);
  sttid_call c = {&coo, &opt, &tt->tci};
  tp_status st = py_run_unlocked(space, run_sttid, &c);
  if (st != TP_SUCCESS) {
    Py_DECREF(tt);
    return py_raise(st);
  }
  return (PyObject *)tt;
}

PyMethodDef py_sttid_methods[] = {
    {"sttid", py_sttid, METH_VARARGS, "The sparse tensor-train ID (tp_sttid)."},
    {NULL, NULL, 0, NULL}};
