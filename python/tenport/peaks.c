/* tenport._tenport.fiber_peaks and sshopm: the symmetric-tensor methods on host arrays
 * (the library copies them into the space). */
#include <stdlib.h>
#include <string.h>

#include "space_arrays.h"

typedef struct peaks_call {
  const tp_peaks_options *opts;
  int lmax;
  py_array sh, dir, amp, counts;
} peaks_call;

static tp_status run_peaks(tp_space *space, void *context) {
  const peaks_call *c = context;
  py_last_input = c->sh.data;
  return tp_fiber_peaks(space, c->lmax, c->sh.shape[0], c->sh.data, c->opts, c->dir.data,
                        c->amp.data, c->counts.data);
}

/* fiber_peaks(sh, lmax, max_peaks, min_amplitude, starts, seed, single, directions,
 * amplitudes, counts): sh is voxels x C (f64); the outputs voxels x k x 3 and voxels x k
 * (f64), and voxels (int32). */
static PyObject *py_fiber_peaks(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *sh_obj, *dir_obj, *amp_obj, *count_obj;
  int lmax, single;
  tp_peaks_options opts;
  tp_peaks_options_init(&opts);
  unsigned long long seed;
  if (!PyArg_ParseTuple(args, "OiidiKpOOO", &sh_obj, &lmax, &opts.max_peaks, &opts.min_amplitude,
                        &opts.num_starts, &seed, &single, &dir_obj, &amp_obj, &count_obj))
    return NULL;
  opts.seed = seed, opts.single_precision = single;
  peaks_call c;
  c.opts = &opts, c.lmax = lmax;
  if (!py_array_parse(sh_obj, &c.sh) || !py_array_parse(dir_obj, &c.dir) ||
      !py_array_parse(amp_obj, &c.amp) || !py_array_parse(count_obj, &c.counts))
    return NULL;
  tp_space *space = py_space();
  if (!space)
    return NULL;
  tp_status st = py_run_unlocked(space, run_peaks, &c);
  return py_none_or_raise(st);
}

/* The batch with its arrays in the space; results copied back to the host arrays. */
typedef struct sshopm_arrays {
  py_array tensors, starts, lambda, x, flag, iterations;
} sshopm_arrays;

static tp_status run_sshopm(tp_space *space, const tp_sshopm_problem *p, const tp_sshopm_options *o,
                            sshopm_arrays *a) {
  py_array *host[6] = {&a->tensors, &a->starts, &a->lambda, &a->x, &a->flag, &a->iterations};
  void *at[6] = {0};
  int moved[6] = {0};
  tp_status st = TP_SUCCESS;
  for (int i = 0; i < 6 && st == TP_SUCCESS; ++i)
    st = py_array_in_space(space, host[i], i < 2, &at[i], &moved[i]);
  if (st == TP_SUCCESS) {
    if (a->tensors.dtype == TP_DTYPE_F32) {
      tp_sshopm_out_f32 out = {at[2], at[3], at[4], at[5]};
      st = tp_sshopm_f32(space, p, at[0], at[1], o, &out);
    } else {
      tp_sshopm_out_f64 out = {at[2], at[3], at[4], at[5]};
      st = tp_sshopm_f64(space, p, at[0], at[1], o, &out);
    }
  }
  for (int i = 0; i < 6; ++i) { /* results (2..5) back to the host when all went well */
    tp_status back =
        py_array_leave_space(space, host[i], at[i], moved[i], i >= 2 && st == TP_SUCCESS);
    st = st != TP_SUCCESS ? st : back;
  }
  return st;
}

typedef struct sshopm_call {
  const tp_sshopm_problem *problem;
  const tp_sshopm_options *options;
  sshopm_arrays *arrays;
} sshopm_call;

static tp_status run_sshopm_call(tp_space *space, void *context) {
  const sshopm_call *c = context;
  py_last_input = c->arrays->tensors.data;
  return run_sshopm(space, c->problem, c->options, c->arrays);
}

/* sshopm(tensors, starts, order, dim, adaptive, alpha, concave, tol, max_iter, lambda, x,
 * flag, iterations): tensors T x U, starts V x n (the tensors' element type); lambda
 * T x V, x T x V x n, flag T x V (int8), iterations T x V (int32). */
static PyObject *py_sshopm(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *t_obj, *s_obj, *l_obj, *x_obj, *f_obj, *i_obj;
  int order, dim, adaptive, concave, max_iter;
  double alpha, tol;
  if (!PyArg_ParseTuple(args, "OOiipdpdiOOOO", &t_obj, &s_obj, &order, &dim, &adaptive, &alpha,
                        &concave, &tol, &max_iter, &l_obj, &x_obj, &f_obj, &i_obj))
    return NULL;
  sshopm_arrays a;
  if (!py_array_parse(t_obj, &a.tensors) || !py_array_parse(s_obj, &a.starts) ||
      !py_array_parse(l_obj, &a.lambda) || !py_array_parse(x_obj, &a.x) ||
      !py_array_parse(f_obj, &a.flag) || !py_array_parse(i_obj, &a.iterations))
    return NULL;
  tp_sshopm_problem p = {order, dim, a.tensors.shape[0], (int)a.starts.shape[0]};
  tp_sshopm_options o;
  tp_sshopm_options_init(&o);
  o.shift = adaptive ? TP_SHIFT_ADAPTIVE : TP_SHIFT_FIXED;
  o.alpha = alpha, o.concave = concave, o.tol = tol, o.max_iterations = max_iter;
  tp_space *space = py_space();
  if (!space)
    return NULL;
  sshopm_call c = {&p, &o, &a};
  tp_status st = py_run_unlocked(space, run_sshopm_call, &c);
  return py_none_or_raise(st);
}

/* eigenpairs(order, dim, tensor U (f64), lambda V (f64), x V x n (f64), flag V (i1))
 * -> list of (lambda, x tuple, kind, starts), largest lambda first. */
static PyObject *py_eigenpairs(PyObject *self, PyObject *args) {
  (void)self;
  int order, dim;
  PyObject *t_obj, *l_obj, *x_obj, *f_obj;
  py_array t, l, x, f;
  if (!PyArg_ParseTuple(args, "iiOOOO", &order, &dim, &t_obj, &l_obj, &x_obj, &f_obj) ||
      !py_array_parse(t_obj, &t) || !py_array_parse(l_obj, &l) || !py_array_parse(x_obj, &x) ||
      !py_array_parse(f_obj, &f))
    return NULL;
  int v = (int)l.shape[0];
  tp_eigenpairs out;
  out.lambda = malloc(sizeof(double) * (size_t)(v + 1));
  out.x = malloc(sizeof(double) * (size_t)(v + 1) * (size_t)dim);
  out.kind = malloc(sizeof(tp_eig_kind) * (size_t)(v + 1));
  out.starts = malloc(sizeof(int) * (size_t)(v + 1));
  PyObject *list = NULL;
  if (out.lambda && out.x && out.kind && out.starts) {
    tp_eig_merge_options mo;
    tp_eig_merge_options_init(&mo);
    tp_status st =
        tp_sshopm_eigenpairs_f64(order, dim, t.data, v, l.data, x.data, f.data, &mo, &out);
    list = st == TP_SUCCESS ? PyList_New(out.count) : py_raise(st);
    static const char *kinds[] = {"maximum", "minimum", "saddle", "degenerate"};
    for (int i = 0; list && i < out.count; ++i) {
      PyObject *vec = PyTuple_New(dim);
      for (int k = 0; vec && k < dim; ++k)
        PyTuple_SET_ITEM(vec, k, PyFloat_FromDouble(out.x[(size_t)i * dim + k]));
      PyObject *item =
          vec ? Py_BuildValue("(dNsi)", out.lambda[i], vec, kinds[out.kind[i]], out.starts[i])
              : NULL;
      if (!item) {
        Py_CLEAR(list);
        break;
      }
      PyList_SET_ITEM(list, i, item);
    }
  } else {
    PyErr_NoMemory();
  }
  free(out.lambda), free(out.x), free(out.kind), free(out.starts);
  return list;
}

PyMethodDef py_peaks_methods[] = {
    {"fiber_peaks", py_fiber_peaks, METH_VARARGS, "Fiber peaks of SH series (tp_fiber_peaks)."},
    {"sshopm", py_sshopm, METH_VARARGS, "Batched SS-HOPM (tp_sshopm_f32/f64)."},
    {"eigenpairs", py_eigenpairs, METH_VARARGS,
     "Distinct eigenpairs of one tensor's runs (tp_sshopm_eigenpairs_f64)."},
    {NULL, NULL, 0, NULL}};
