/* tenport._tenport.gcp_dense and gcp_sparse: tp_gcp and tp_gcp_sparse with the model
 * written into arrays the Python layer allocated, and the loss after every iteration. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "space_arrays.h"

/* The loss after every iteration, the verbose line and Ctrl-C (progress.c). */
static void record_loss(const tp_gcp_progress *p, void *user) {
  py_history *h = user;
  FILE *line = py_history_line(h);
  if (line)
    tp_gcp_print_progress(p, line);
  py_history_step(h, p->loss);
}

/* What both variants take: the options, the model's arrays, a start, the tensor. */
typedef struct gcp_call {
  tp_gcp_options opts;
  py_array weights, factors[TP_DENSE_MAX_ORDER];
  py_array init_weights, init_factors[TP_DENSE_MAX_ORDER];
  int order;
  tp_kruskal init;
  py_history history;
  tp_gcp_result result;
  py_array mask;             /* dense X: its mask, when has_mask */
  int has_mask, has_missing; /* sparse X: its missing entries, when has_missing */
  tp_coo coo, missing;
} gcp_call;

/* What the loss parameter is, for the messages. */
static const char *param_meaning(tp_gcp_loss loss) {
  switch (loss) {
  case TP_GCP_NEGATIVE_BINOMIAL: return "the number of trials r > 0";
  case TP_GCP_HUBER: return "the threshold d > 0";
  default: return "b, not 0 or 1";
  }
}

/* The loss of its name and its parameter (NaN: not given), checked by the library, as
 * ValueError. */
static int parse_loss(const char *name, double param, tp_gcp_options *o) {
  if (tp_gcp_loss_from_name(name, &o->loss) != TP_SUCCESS) {
    char names[256] = "";
    for (int k = 0; k < TP_GCP_LOSS_COUNT; ++k)
      snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", k ? ", " : "",
               tp_gcp_loss_name((tp_gcp_loss)k));
    PyErr_Format(PyExc_ValueError, "tenport: unknown loss '%s'; the losses are %s", name, names);
    return 0;
  }
  const int needs = tp_gcp_loss_has_param(o->loss);
  if (needs && isnan(param)) {
    PyErr_Format(PyExc_ValueError, "tenport: the %s loss needs loss_param (%s)", name,
                 param_meaning(o->loss));
    return 0;
  }
  if (!needs && !isnan(param)) {
    PyErr_Format(PyExc_ValueError, "tenport: the %s loss takes no loss_param", name);
    return 0;
  }
  if (needs && tp_gcp_loss_eval(o->loss, param, 0.0, 1.0, NULL, NULL) != TP_SUCCESS) {
    char given[32];
    snprintf(given, sizeof given, "%g", param);
    PyErr_Format(PyExc_ValueError, "tenport: loss_param=%s for the %s loss; it must be %s", given,
                 name, param_meaning(o->loss));
    return 0;
  }
  o->loss_param = needs ? param : 0.0;
  return 1;
}

/* The solver and GCP-Adam's options: (solver, epochs, epoch_iters, rate, decay,
 * max_fails, samples, zero_samples, function_samples, function_zero_samples), counts 0
 * for the defaults. */
static int parse_adam(PyObject *adam, tp_gcp_options *o) {
  const char *solver;
  long long counts[4];
  if (!PyArg_ParseTuple(adam, "siiddiLLLL", &solver, &o->epochs, &o->epoch_iters, &o->rate,
                        &o->decay, &o->max_fails, &counts[0], &counts[1], &counts[2], &counts[3]))
    return 0;
  if (strcmp(solver, "lbfgsb") && strcmp(solver, "adam")) {
    PyErr_Format(PyExc_ValueError, "tenport: solver '%s'; the solvers are lbfgsb and adam", solver);
    return 0;
  }
  o->solver = strcmp(solver, "adam") ? TP_GCP_SOLVER_LBFGSB : TP_GCP_SOLVER_ADAM;
  o->gradient_samples = counts[0], o->gradient_zeros = counts[1];
  o->function_samples = counts[2], o->function_zeros = counts[3];
  return 1;
}

/* Parses (rank, (loss, loss_param, lower, seed, max_iters, max_evals, factr, pgtol,
 * memory, max_seconds, normalize, verbose), adam (parse_adam), weights, factors, init
 * weights or None, init factors or None); NaN stands for a loss_param or lower bound not
 * given. */
static int parse_gcp_call(PyObject *args, int order, gcp_call *c) {
  long long rank;
  unsigned long long seed;
  const char *loss;
  double param, lower, factr, pgtol, max_seconds;
  int max_iters, max_evals, memory, normalize, verbose;
  PyObject *adam, *weights, *factors, *init_weights, *init;
  if (!PyArg_ParseTuple(args, "L(sddKiiddidpp)OOOOO", &rank, &loss, &param, &lower, &seed,
                        &max_iters, &max_evals, &factr, &pgtol, &memory, &max_seconds, &normalize,
                        &verbose, &adam, &weights, &factors, &init_weights, &init))
    return 0;
  memset(c, 0, sizeof *c);
  c->order = order;
  c->opts = tp_gcp_options_default();
  if (!parse_loss(loss, param, &c->opts) || !parse_adam(adam, &c->opts))
    return 0;
  c->opts.rank = rank, c->opts.lower = lower, c->opts.seed = (uint64_t)seed;
  c->opts.max_iters = max_iters, c->opts.max_evals = max_evals;
  c->opts.factr = factr, c->opts.pgtol = pgtol, c->opts.memory = memory;
  c->opts.max_seconds = max_seconds, c->opts.normalize = normalize;
  c->history.verbose = verbose;
  c->opts.progress = record_loss;
  c->opts.progress_user = &c->history;
  c->opts.cancel = &c->history.cancel;
  if (!py_array_parse(weights, &c->weights) ||
      !py_factor_list_parse(factors, c->factors, order, "factors"))
    return 0;
  if (init != Py_None) {
    if (!py_factor_list_parse(init, c->init_factors, order, "init"))
      return 0;
    if (init_weights != Py_None && !py_array_parse(init_weights, &c->init_weights))
      return 0;
    c->init =
        py_kruskal_of(init_weights != Py_None ? &c->init_weights : NULL, c->init_factors, order);
    c->opts.init = &c->init;
  }
  return 1;
}

static PyObject *result_dict(void *call) {
  const gcp_call *c = call;
  const tp_gcp_result *r = &c->result;
  PyObject *losses = py_history_list(&c->history);
  if (!losses)
    return NULL;
  return Py_BuildValue(
      "{s:d,s:d,s:N,s:i,s:i,s:O,s:s,s:d,s:d,s:d,s:O,s:O,s:i,s:s,s:d}", "loss", r->loss,
      "initial_loss", r->initial_loss, "losses", losses, "iterations", r->iterations, "evaluations",
      r->evaluations, "converged", r->converged ? Py_True : Py_False, "stop_reason", r->stop_reason,
      "seconds", r->seconds, "eval_seconds", r->eval_seconds, "gradient_norm", r->gradient_norm,
      "stopped_by_time", r->stopped_by_time ? Py_True : Py_False, "loss_is_estimate",
      r->loss_is_estimate ? Py_True : Py_False, "failed_epochs", r->failed_epochs, "solver",
      c->opts.solver == TP_GCP_SOLVER_ADAM ? "adam" : "lbfgsb", "data_norm2", r->data_norm2);
}

/* The model in the space around the run (context: the call; tensor: X in the space, or
 * NULL for the call's COO tensor). */
static tp_status decompose(tp_space *space, void *tensor, int sparse, void *context) {
  gcp_call *c = context;
  (void)sparse;
  tp_kruskal given = py_kruskal_of(&c->weights, c->factors, c->order);
  tp_kruskal model;
  tp_dense W;
  int copied, mask_copied = 0;
  tp_status st = py_kruskal_to_space(space, &given, c->factors[0].on_device, 0, &model, &copied);
  if (st != TP_SUCCESS)
    return st;
  if (c->has_mask)
    st = py_dense_to_space(space, &c->mask, &W, &mask_copied);
  if (st == TP_SUCCESS)
    st = tensor ? tp_gcp(space, tensor, c->has_mask ? &W : NULL, &c->opts, &model, &c->result)
                : tp_gcp_sparse(space, &c->coo, c->has_missing ? &c->missing : NULL, &c->opts,
                                &model, &c->result);
  if (c->has_mask)
    py_dense_release(space, &W, mask_copied);
  tp_status done = py_kruskal_finish(space, &model, copied, &given, st != TP_SUCCESS);
  return st != TP_SUCCESS ? st : done;
}

static tp_status decompose_coo(tp_space *space, void *context) {
  gcp_call *c = context;
  py_last_input = c->coo.values;
  return decompose(space, NULL, 1, c);
}

/* gcp_dense(X, mask or None, rank, options, adam, weights, factors, init weights, init) ->
 * info dict; the model is written into weights and factors. */
static PyObject *py_gcp_dense(PyObject *self, PyObject *args) {
  (void)self;
  if (PyTuple_GET_SIZE(args) != 9) {
    PyErr_SetString(PyExc_TypeError, "gcp_dense takes 9 arguments");
    return NULL;
  }
  py_array x;
  gcp_call c;
  PyObject *rest = PyTuple_GetSlice(args, 2, 9), *mask = PyTuple_GET_ITEM(args, 1);
  int ok = rest && py_array_parse(PyTuple_GET_ITEM(args, 0), &x) &&
           parse_gcp_call(rest, x.ndim, &c) && (mask == Py_None || py_array_parse(mask, &c.mask));
  Py_XDECREF(rest);
  c.has_mask = ok && mask != Py_None;
  tp_space *space = ok ? py_space() : NULL;
  if (!space)
    return NULL;
  return py_history_finish(&c.history, py_run_on_tensor(space, &x, NULL, decompose, &c),
                           result_dict, &c);
}

/* gcp_sparse(coords, values, shape, missing coords or None, rank, ... as gcp_dense) ->
 * info dict. missing's values are a vector of zeros (the library reads no value). */
static PyObject *py_gcp_sparse(PyObject *self, PyObject *args) {
  (void)self;
  if (PyTuple_GET_SIZE(args) != 11) {
    PyErr_SetString(PyExc_TypeError, "gcp_sparse takes 11 arguments");
    return NULL;
  }
  gcp_call c;
  tp_coo coo;
  PyObject *rest = PyTuple_GetSlice(args, 4, 11), *dims = PyTuple_GET_ITEM(args, 2);
  PyObject *missing = PyTuple_GET_ITEM(args, 3);
  int ok = rest && py_coo_parse(PyTuple_GET_ITEM(args, 0), PyTuple_GET_ITEM(args, 1), dims, &coo) &&
           parse_gcp_call(rest, coo.order, &c);
  Py_XDECREF(rest);
  if (ok && missing != Py_None) {
    PyObject *coords, *values;
    ok = PyArg_ParseTuple(missing, "OO", &coords, &values) &&
         py_coo_parse(coords, values, dims, &c.missing);
    c.has_missing = ok;
  }
  tp_space *space = ok ? py_space() : NULL;
  if (!space)
    return NULL;
  c.coo = coo;
  return py_history_finish(&c.history, py_run_unlocked(space, decompose_coo, &c), result_dict, &c);
}

PyMethodDef py_gcp_methods[] = {
    {"gcp_dense", py_gcp_dense, METH_VARARGS, "Generalized CP of a dense tensor (tp_gcp)."},
    {"gcp_sparse", py_gcp_sparse, METH_VARARGS,
     "Generalized CP of a sparse tensor in host memory (tp_gcp_sparse)."},
    {NULL, NULL, 0, NULL}};
