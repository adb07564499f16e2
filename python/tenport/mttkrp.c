/* tenport._tenport.mttkrp_dense and mttkrp_sparse: one mode's MTTKRP into an array the
 * Python layer allocated. */
#include <string.h>

#include "space_arrays.h"

/* Parses (factors list, ones of the rank, mode, out) for a tensor of `order` modes. */
static int parse_mttkrp(PyObject *factors_obj, PyObject *ones_obj, int mode, PyObject *out_obj,
                        int order, py_array *factors, py_array *ones, py_array *out) {
  if (!PyList_Check(factors_obj) || PyList_GET_SIZE(factors_obj) != order) {
    PyErr_Format(PyExc_ValueError, "tenport: mttkrp needs %d factor arrays", order);
    return 0;
  }
  for (int m = 0; m < order; ++m)
    if (!py_array_parse(PyList_GET_ITEM(factors_obj, m), &factors[m]))
      return 0;
  if (mode < 0 || mode >= order) {
    PyErr_Format(PyExc_ValueError, "tenport: mode %d of a %d-mode tensor", mode, order);
    return 0;
  }
  return py_array_parse(ones_obj, ones) && py_array_parse(out_obj, out);
}

/* The MTTKRP with U and G as the space sees them; `run` does the tensor's own part. */
typedef tp_status (*mttkrp_runner)(tp_space *, void *tensor, const tp_kruskal *U, int mode,
                                   void *G);

static tp_status run_with_space_arrays(tp_space *space, mttkrp_runner run, void *tensor,
                                       const py_array *factors, const py_array *ones,
                                       const py_array *out, int order, int mode) {
  tp_kruskal given = py_kruskal_of(ones, factors, order), U;
  int u_copied;
  tp_status st = py_kruskal_to_space(space, &given, factors[0].on_device, 1, &U, &u_copied);
  if (st != TP_SUCCESS)
    return st;
  tp_space_info info;
  st = tp_space_get_info(space, &info);
  void *G = out->data;
  size_t bytes = tp_dtype_size(out->dtype) * (size_t)py_array_count(out);
  int g_copied = st == TP_SUCCESS && info.is_gpu && !out->on_device;
  if (g_copied)
    st = tp_alloc(space, bytes, &G);
  if (st == TP_SUCCESS)
    st = run(space, tensor, &U, mode, G);
  if (st == TP_SUCCESS && g_copied)
    st = tp_copy_to_host(space, out->data, G, bytes);
  if (g_copied && G)
    tp_free(space, G);
  py_kruskal_finish(space, &U, u_copied, &given, 1);
  return st;
}

static tp_status run_dense(tp_space *space, void *X, const tp_kruskal *U, int mode, void *G) {
  return tp_mttkrp(space, (const tp_dense *)X, U, mode, G, NULL);
}

static tp_status run_sparse(tp_space *space, void *fly, const tp_kruskal *U, int mode, void *G) {
  return tp_flycoo_mttkrp(space, (tp_flycoo *)fly, U, mode, G, 0);
}

/* mttkrp_dense(X, factors, ones, mode, out) */
static PyObject *py_mttkrp_dense(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *x_obj, *factors_obj, *ones_obj, *out_obj;
  int mode;
  py_array x, factors[TP_DENSE_MAX_ORDER], ones, out;
  if (!PyArg_ParseTuple(args, "OOOiO", &x_obj, &factors_obj, &ones_obj, &mode, &out_obj) ||
      !py_array_parse(x_obj, &x) ||
      !parse_mttkrp(factors_obj, ones_obj, mode, out_obj, x.ndim, factors, &ones, &out))
    return NULL;
  tp_space *space = py_space();
  if (!space)
    return NULL;
  tp_status st;
  Py_BEGIN_ALLOW_THREADS
  py_space_lock();
  tp_dense X;
  int copied;
  st = py_dense_to_space(space, &x, &X, &copied);
  if (st == TP_SUCCESS) {
    py_last_input = X.data;
    st = run_with_space_arrays(space, run_dense, &X, factors, &ones, &out, x.ndim, mode);
    py_dense_release(space, &X, copied);
  }
  py_space_unlock();
  Py_END_ALLOW_THREADS
  if (st != TP_SUCCESS)
    return py_raise(st);
  Py_RETURN_NONE;
}

/* mttkrp_sparse(coords, values, shape, factors, ones, mode, out) */
static PyObject *py_mttkrp_sparse(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *coords_obj, *values_obj, *dims_obj, *factors_obj, *ones_obj, *out_obj;
  int mode;
  py_array factors[TP_DENSE_MAX_ORDER], ones, out;
  tp_coo coo;
  if (!PyArg_ParseTuple(args, "OOOOOiO", &coords_obj, &values_obj, &dims_obj, &factors_obj,
                        &ones_obj, &mode, &out_obj) ||
      !py_coo_parse(coords_obj, values_obj, dims_obj, &coo) ||
      !parse_mttkrp(factors_obj, ones_obj, mode, out_obj, coo.order, factors, &ones, &out))
    return NULL;
  const int order = coo.order;
  tp_space *space = py_space();
  if (!space)
    return NULL;
  tp_status st;
  Py_BEGIN_ALLOW_THREADS
  py_space_lock();
  tp_flycoo *fly = NULL;
  py_last_input = coo.values;
  st = tp_flycoo_create(space, &coo, NULL, &fly);
  if (st == TP_SUCCESS)
    st = run_with_space_arrays(space, run_sparse, fly, factors, &ones, &out, order, mode);
  tp_flycoo_destroy(&fly);
  py_space_unlock();
  Py_END_ALLOW_THREADS
  if (st != TP_SUCCESS)
    return py_raise(st);
  Py_RETURN_NONE;
}

PyMethodDef py_mttkrp_methods[] = {
    {"mttkrp_dense", py_mttkrp_dense, METH_VARARGS, "Dense mode-k MTTKRP (tp_mttkrp)."},
    {"mttkrp_sparse", py_mttkrp_sparse, METH_VARARGS, "Sparse MTTKRP (tp_flycoo_mttkrp)."},
    {NULL, NULL, 0, NULL}};
