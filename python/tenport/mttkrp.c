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

/* One MTTKRP with U and G as the space sees them (py_tensor_work). */
typedef struct mttkrp_call {
  py_array factors[TP_DENSE_MAX_ORDER], ones, out;
  int order, mode;
} mttkrp_call;

static tp_status tensor_mttkrp(tp_space *space, void *tensor, int sparse, const tp_kruskal *U,
                               int mode, void *G) {
  return sparse ? tp_flycoo_mttkrp(space, tensor, U, mode, G, 0)
                : tp_mttkrp(space, tensor, U, mode, G, NULL);
}

static tp_status run_mttkrp(tp_space *space, void *tensor, int sparse, void *context) {
  mttkrp_call *c = context;
  tp_kruskal given = py_kruskal_of(&c->ones, c->factors, c->order), U;
  int u_copied;
  tp_status st = py_kruskal_to_space(space, &given, c->factors[0].on_device, 1, &U, &u_copied);
  if (st != TP_SUCCESS)
    return st;
  void *G;
  int g_moved;
  st = py_array_in_space(space, &c->out, 0, &G, &g_moved);
  if (st == TP_SUCCESS) {
    st = tensor_mttkrp(space, tensor, sparse, &U, c->mode, G);
    tp_status back = py_array_leave_space(space, &c->out, G, g_moved, st == TP_SUCCESS);
    st = st != TP_SUCCESS ? st : back;
  }
  py_kruskal_finish(space, &U, u_copied, &given, 1);
  return st;
}

/* mttkrp_dense(X, factors, ones, mode, out) */
static PyObject *py_mttkrp_dense(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *x_obj, *factors_obj, *ones_obj, *out_obj;
  py_array x;
  mttkrp_call c;
  if (!PyArg_ParseTuple(args, "OOOiO", &x_obj, &factors_obj, &ones_obj, &c.mode, &out_obj) ||
      !py_array_parse(x_obj, &x) ||
      !parse_mttkrp(factors_obj, ones_obj, c.mode, out_obj, x.ndim, c.factors, &c.ones, &c.out))
    return NULL;
  c.order = x.ndim;
  tp_space *space = py_space();
  return space ? py_none_or_raise(py_run_on_tensor(space, &x, NULL, run_mttkrp, &c)) : NULL;
}

/* mttkrp_sparse(coords, values, shape, factors, ones, mode, out) */
static PyObject *py_mttkrp_sparse(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *coords_obj, *values_obj, *dims_obj, *factors_obj, *ones_obj, *out_obj;
  mttkrp_call c;
  tp_coo coo;
  if (!PyArg_ParseTuple(args, "OOOOOiO", &coords_obj, &values_obj, &dims_obj, &factors_obj,
                        &ones_obj, &c.mode, &out_obj) ||
      !py_coo_parse(coords_obj, values_obj, dims_obj, &coo) ||
      !parse_mttkrp(factors_obj, ones_obj, c.mode, out_obj, coo.order, c.factors, &c.ones, &c.out))
    return NULL;
  c.order = coo.order;
  tp_space *space = py_space();
  return space ? py_none_or_raise(py_run_on_tensor(space, NULL, &coo, run_mttkrp, &c)) : NULL;
}

PyMethodDef py_mttkrp_methods[] = {
    {"mttkrp_dense", py_mttkrp_dense, METH_VARARGS, "Dense mode-k MTTKRP (tp_mttkrp)."},
    {"mttkrp_sparse", py_mttkrp_sparse, METH_VARARGS, "Sparse MTTKRP (tp_flycoo_mttkrp)."},
    {NULL, NULL, 0, NULL}};
