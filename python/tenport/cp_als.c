/* tenport._tenport.cp_als_dense and cp_als_sparse: tp_cp_als and tp_cp_als_sparse with
 * the model written into arrays the Python layer allocated, and the fit history. */
#include <string.h>

#include "space_arrays.h"

/* The fit after every iteration, the verbose line and Ctrl-C (progress.c). */
static void record_fit(const tp_cp_als_progress *p, void *user) {
  py_history *h = user;
  FILE *line = py_history_line(h);
  if (line)
    tp_cp_als_print_progress(p, line);
  py_history_step(h, p->fit);
}

/* What both variants take: the options, the model's arrays and an initial guess. */
typedef struct cp_call {
  tp_cp_als_options opts;
  py_array weights, factors[TP_DENSE_MAX_ORDER];
  py_array init_factors[TP_DENSE_MAX_ORDER];
  int order, has_init;
  tp_kruskal init;
  py_history history;
  tp_cp_als_result result;
} cp_call;

/* Parses (rank, tol, max_iters, seed, mttkrp variant, normalize, verbose, weights,
 * factors, init factors or None, (l2_reg, fixed modes mask, nvecs, max_seconds,
 * restarts, linesearch, nonneg)). */
static int parse_cp_call(PyObject *args, int order, cp_call *c) {
  long long rank;
  unsigned long long seed;
  double tol, reg, max_seconds;
  int max_iters, normalize, verbose, nvecs, restarts, linesearch, nonneg;
  unsigned int fixed;
  const char *variant;
  PyObject *weights, *factors, *init;
  if (!PyArg_ParseTuple(args, "LdiKsppOOO(dIpdipp)", &rank, &tol, &max_iters, &seed, &variant,
                        &normalize, &verbose, &weights, &factors, &init, &reg, &fixed, &nvecs,
                        &max_seconds, &restarts, &linesearch, &nonneg))
    return 0;
  memset(c, 0, sizeof *c);
  c->order = order;
  c->opts = tp_cp_als_options_default();
  c->opts.rank = rank, c->opts.tol = tol, c->opts.max_iters = max_iters;
  c->opts.seed = (uint64_t)seed, c->opts.normalize = normalize;
  c->opts.reg = reg, c->opts.fixed_modes = fixed, c->opts.max_seconds = max_seconds;
  c->opts.init_method = nvecs ? TP_CP_INIT_NVECS : TP_CP_INIT_RANDOM;
  c->opts.restarts = restarts, c->opts.line_search = linesearch, c->opts.nonneg = nonneg;
  if (tp_mttkrp_variant_parse(variant, &c->opts.mttkrp.variant) != TP_SUCCESS) {
    PyErr_Format(PyExc_ValueError,
                 "tenport: mttkrp=%s is not one of auto, elem, slice, tile, "
                 "gemm, blocked",
                 variant);
    return 0;
  }
  c->history.verbose = verbose;
  c->opts.progress = record_fit;
  c->opts.progress_user = &c->history;
  c->opts.cancel = &c->history.cancel;
  if (!py_array_parse(weights, &c->weights) ||
      !py_factor_list_parse(factors, c->factors, order, "factors"))
    return 0;
  if (init != Py_None) {
    if (!py_factor_list_parse(init, c->init_factors, order, "init"))
      return 0;
    c->init = py_kruskal_of(NULL, c->init_factors, order);
    c->opts.init = &c->init;
    c->has_init = 1;
  }
  return 1;
}

static PyObject *result_dict(void *call) {
  const cp_call *c = call;
  const tp_cp_als_result *r = &c->result;
  PyObject *fits = py_history_list(&c->history);
  if (!fits)
    return NULL;
  return Py_BuildValue("{s:d,s:i,s:O,s:d,s:i,s:N,s:O,s:i,s:i,s:i}", "fit", r->fit, "iterations",
                       r->iterations, "converged", r->converged ? Py_True : Py_False, "seconds",
                       r->seconds, "fallback_solves", r->fallback_solves, "fits", fits,
                       "stopped_by_time", r->stopped_by_time ? Py_True : Py_False, "extrapolations",
                       r->extrapolations, "starts", r->starts, "best_start", r->best_start);
}

/* One decomposition with the model in the space (py_tensor_work; context: the call). */
static tp_status decompose(tp_space *space, void *tensor, int sparse, void *context) {
  cp_call *c = context;
  tp_kruskal given = py_kruskal_of(&c->weights, c->factors, c->order);
  tp_kruskal model;
  int copied;
  tp_status st = py_kruskal_to_space(space, &given, c->factors[0].on_device, 0, &model, &copied);
  if (st != TP_SUCCESS)
    return st;
  st = sparse ? tp_cp_als_sparse(space, tensor, &c->opts, &model, &c->result)
              : tp_cp_als(space, tensor, &c->opts, &model, &c->result);
  tp_status done = py_kruskal_finish(space, &model, copied, &given, st != TP_SUCCESS);
  return st != TP_SUCCESS ? st : done;
}

static PyObject *finish_call(tp_status st, cp_call *c) {
  return py_history_finish(&c->history, st, result_dict, c);
}

/* cp_als_dense(X, rank, tol, max_iters, seed, mttkrp, normalize, verbose, weights,
 * factors, init, extras) -> info dict; the model is written into weights and factors. */
static PyObject *py_cp_als_dense(PyObject *self, PyObject *args) {
  (void)self;
  if (PyTuple_GET_SIZE(args) != 12) {
    PyErr_SetString(PyExc_TypeError, "cp_als_dense takes 12 arguments");
    return NULL;
  }
  py_array x;
  cp_call c;
  PyObject *rest = PyTuple_GetSlice(args, 1, 12);
  int ok = rest && py_array_parse(PyTuple_GET_ITEM(args, 0), &x) && parse_cp_call(rest, x.ndim, &c);
  Py_XDECREF(rest);
  tp_space *space = ok ? py_space() : NULL;
  if (!space)
    return NULL;
  return finish_call(py_run_on_tensor(space, &x, NULL, decompose, &c), &c);
}

/* cp_als_sparse(coords, values, shape, rank, ... as cp_als_dense) -> info dict. */
static PyObject *py_cp_als_sparse(PyObject *self, PyObject *args) {
  (void)self;
  tp_coo coo;
  cp_call c;
  PyObject *rest = py_sparse_call(args, 14, "cp_als_sparse", &coo);
  const int ok = rest && parse_cp_call(rest, coo.order, &c);
  Py_XDECREF(rest);
  tp_space *space = ok ? py_space() : NULL;
  if (!space)
    return NULL;
  return finish_call(py_run_on_tensor(space, NULL, &coo, decompose, &c), &c);
}

PyMethodDef py_cp_als_methods[] = {
    {"cp_als_dense", py_cp_als_dense, METH_VARARGS, "CP-ALS of a dense tensor (tp_cp_als)."},
    {"cp_als_sparse", py_cp_als_sparse, METH_VARARGS,
     "CP-ALS of a sparse tensor in FLYCOO form (tp_cp_als_sparse)."},
    {NULL, NULL, 0, NULL}};
