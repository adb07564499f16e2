/* tenport._tenport.fiber_peaks and sshopm: the symmetric-tensor methods on host arrays
 * (the library copies them into the space). */
#include <stdlib.h>
#include <string.h>

#include "py_tenport.h"

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
  py_array sh, dir, amp, counts;
  if (!py_array_parse(sh_obj, &sh) || !py_array_parse(dir_obj, &dir) ||
      !py_array_parse(amp_obj, &amp) || !py_array_parse(count_obj, &counts))
    return NULL;
  tp_space *space = py_space();
  if (!space)
    return NULL;
  tp_status st;
  Py_BEGIN_ALLOW_THREADS
  py_space_lock();
  py_last_input = sh.data;
  st = tp_fiber_peaks(space, lmax, sh.shape[0], sh.data, &opts, dir.data, amp.data, counts.data);
  py_space_unlock();
  Py_END_ALLOW_THREADS
  if (st != TP_SUCCESS)
    return py_raise(st);
  Py_RETURN_NONE;
}

/* A host array of `bytes` in the space: the array itself on CPU spaces, a copy on GPUs
 * (*moved). */
static tp_status to_space(tp_space *space, void *host, size_t bytes, int upload, void **at,
                          int *moved) {
  tp_space_info info;
  tp_status st = tp_space_get_info(space, &info);
  *at = host, *moved = 0;
  if (st != TP_SUCCESS || !info.is_gpu)
    return st;
  st = tp_alloc(space, bytes ? bytes : 1, at);
  if (st == TP_SUCCESS && upload && bytes)
    st = tp_copy_to_device(space, *at, host, bytes);
  if (st != TP_SUCCESS) {
    tp_free(space, *at);
    *at = host;
    return st;
  }
  *moved = 1;
  return TP_SUCCESS;
}

/* The batch with its arrays in the space; results copied back to the host arrays. */
typedef struct sshopm_arrays {
  py_array tensors, starts, lambda, x, flag, iterations;
} sshopm_arrays;

static tp_status run_sshopm(tp_space *space, const tp_sshopm_problem *p,
                            const tp_sshopm_options *o, sshopm_arrays *a) {
  py_array *host[6] = {&a->tensors, &a->starts, &a->lambda, &a->x, &a->flag, &a->iterations};
  void *at[6] = {0};
  int moved[6] = {0};
  tp_status st = TP_SUCCESS;
  for (int i = 0; i < 6 && st == TP_SUCCESS; ++i) {
    size_t bytes = (size_t)py_array_count(host[i]) *
                   (i == 4 ? 1 : i == 5 ? 4 : tp_dtype_size(host[i]->dtype));
    st = to_space(space, host[i]->data, bytes, i < 2, &at[i], &moved[i]);
  }
  if (st == TP_SUCCESS) {
    if (a->tensors.dtype == TP_DTYPE_F32) {
      tp_sshopm_out_f32 out = {at[2], at[3], at[4], at[5]};
      st = tp_sshopm_f32(space, p, at[0], at[1], o, &out);
    } else {
      tp_sshopm_out_f64 out = {at[2], at[3], at[4], at[5]};
      st = tp_sshopm_f64(space, p, at[0], at[1], o, &out);
    }
  }
  for (int i = 2; i < 6 && st == TP_SUCCESS; ++i) {
    size_t bytes = (size_t)py_array_count(host[i]) *
                   (i == 4 ? 1 : i == 5 ? 4 : tp_dtype_size(host[i]->dtype));
    if (moved[i])
      st = tp_copy_to_host(space, host[i]->data, at[i], bytes);
  }
  for (int i = 0; i < 6; ++i)
    if (moved[i])
      tp_free(space, at[i]);
  return st;
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
  tp_status st;
  Py_BEGIN_ALLOW_THREADS
  py_space_lock();
  py_last_input = a.tensors.data;
  st = run_sshopm(space, &p, &o, &a);
  py_space_unlock();
  Py_END_ALLOW_THREADS
  if (st != TP_SUCCESS)
    return py_raise(st);
  Py_RETURN_NONE;
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
    tp_status st = tp_sshopm_eigenpairs_f64(order, dim, t.data, v, l.data, x.data, f.data, &mo,
                                            &out);
    list = st == TP_SUCCESS ? PyList_New(out.count) : py_raise(st);
    static const char *kinds[] = {"maximum", "minimum", "saddle", "degenerate"};
    for (int i = 0; list && i < out.count; ++i) {
      PyObject *vec = PyTuple_New(dim);
      for (int k = 0; vec && k < dim; ++k)
        PyTuple_SET_ITEM(vec, k, PyFloat_FromDouble(out.x[(size_t)i * dim + k]));
      PyObject *item = vec ? Py_BuildValue("(dNsi)", out.lambda[i], vec, kinds[out.kind[i]],
                                           out.starts[i])
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
