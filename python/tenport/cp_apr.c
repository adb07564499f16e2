/* tenport._tenport.cp_apr_sparse: tp_cp_apr_sparse with the model written into the
 * caller's arrays (weights, factors), the KKT violation of every iteration kept (and
 * printed when verbose), Ctrl-C honoured between iterations. */
#include <stdio.h>
#include <string.h>

#include "space_arrays.h"

typedef struct apr_call {
  tp_cp_apr_options opts;
  py_array weights, factors[TP_DENSE_MAX_ORDER], init_factors[TP_DENSE_MAX_ORDER];
  int order;
  tp_kruskal init;
  tp_coo coo;
  py_history history;
  tp_cp_apr_result result;
} apr_call;

/* The KKT violation after every iteration; stops the run on Ctrl-C. */
static void record_kkt(const tp_cp_apr_progress *p, void *user) {
  py_history *h = user;
  FILE *line = py_history_line(h);
  if (line)
    fprintf(line, "iteration %4d  kkt %.4e  inner %3d  %.3f s\n", p->iteration, p->kkt, p->inner,
            p->seconds);
  py_history_step(h, p->kkt);
}

/* (rank, (max_iters, max_inner, tol, kappa, kappa_tol, inadmissible_phi, seed, verbose),
 * weights, factors, init factors or None). */
static int parse_apr_call(PyObject *args, int order, apr_call *c) {
  long long rank;
  unsigned long long seed;
  int verbose;
  PyObject *weights, *factors, *init;
  memset(c, 0, sizeof *c);
  c->opts = tp_cp_apr_options_default();
  tp_cp_apr_options *o = &c->opts;
  if (!PyArg_ParseTuple(args, "L(iiddddKp)OOO", &rank, &o->max_iters, &o->max_inner, &o->tol,
                        &o->kappa, &o->kappa_tol, &o->inadmissible_phi, &seed, &verbose, &weights,
                        &factors, &init))
    return 0;
  c->order = order;
  o->rank = rank, o->seed = (uint64_t)seed;
  c->history.verbose = verbose;
  o->progress = record_kkt, o->progress_user = &c->history;
  if (!py_array_parse(weights, &c->weights) ||
      !py_factor_list_parse(factors, c->factors, order, "factors"))
    return 0;
  if (init != Py_None) {
    if (!py_factor_list_parse(init, c->init_factors, order, "init"))
      return 0;
    c->init = py_kruskal_of(NULL, c->init_factors, order);
    o->init = &c->init;
  }
  return 1;
}

static PyObject *result_dict(void *call) {
  const apr_call *c = call;
  const tp_cp_apr_result *r = &c->result;
  PyObject *kkts = py_history_list(&c->history);
  if (!kkts)
    return NULL;
  return Py_BuildValue("{s:d,s:d,s:N,s:i,s:L,s:O,s:d,s:d}", "loglik", r->loglik, "kkt", r->kkt,
                       "kkts", kkts, "iterations", r->iterations, "inner", (long long)r->inner,
                       "converged", r->converged ? Py_True : Py_False, "seconds", r->seconds,
                       "setup_seconds", r->setup_seconds);
}

static tp_status decompose(tp_space *space, void *context) {
  apr_call *c = context;
  py_last_input = c->coo.values;
  tp_kruskal given = py_kruskal_of(&c->weights, c->factors, c->order);
  tp_kruskal model;
  int copied;
  tp_status st = py_kruskal_to_space(space, &given, c->factors[0].on_device, 0, &model, &copied);
  if (st != TP_SUCCESS)
    return st;
  st = tp_cp_apr_sparse(space, &c->coo, &c->opts, &model, &c->result);
  tp_status done = py_kruskal_finish(space, &model, copied, &given, st != TP_SUCCESS);
  return st != TP_SUCCESS ? st : done;
}

/* cp_apr_sparse(coords, values, shape, rank, options, weights, factors, init) -> info. */
static PyObject *py_cp_apr_sparse(PyObject *self, PyObject *args) {
  (void)self;
  apr_call c;
  tp_coo coo;
  PyObject *rest = py_sparse_call(args, 8, "cp_apr_sparse", &coo);
  const int ok = rest && parse_apr_call(rest, coo.order, &c);
  Py_XDECREF(rest);
  tp_space *space = ok ? py_space() : NULL;
  if (!space)
    return NULL;
  c.coo = coo;
  return py_history_finish(&c.history, py_run_unlocked(space, decompose, &c), result_dict, &c);
}

PyMethodDef py_cp_apr_methods[] = {
    {"cp_apr_sparse", py_cp_apr_sparse, METH_VARARGS,
     "CP-APR of a sparse count tensor in host memory (tp_cp_apr_sparse)."},
    {NULL, NULL, 0, NULL}};
