#include <string.h>

#include "space_arrays.h"

tp_dense py_dense_of(const py_array *a) {
  tp_dense X;
  memset(&X, 0, sizeof X);
  X.dtype = a->dtype;
  X.order = a->ndim;
  memcpy(X.dims, a->shape, sizeof(int64_t) * (size_t)a->ndim);
  X.layout = a->fortran ? TP_LAYOUT_LEFT : TP_LAYOUT_RIGHT;
  X.data = a->data;
  return X;
}

tp_status py_dense_to_space(tp_space *space, const py_array *a, tp_dense *X, int *copied) {
  tp_dense given = py_dense_of(a);
  *copied = 0;
  tp_space_info info;
  tp_status st = tp_space_get_info(space, &info);
  if (st != TP_SUCCESS)
    return st;
  if (!info.is_gpu || a->on_device) {
    *X = given;
    return TP_SUCCESS;
  }
  st = tp_dense_alloc(space, given.dtype, given.order, given.dims, given.layout, X);
  if (st != TP_SUCCESS)
    return st;
  st = tp_dense_copy_to_device(space, X, &given);
  if (st != TP_SUCCESS) {
    tp_dense_free(space, X);
    return st;
  }
  *copied = 1;
  return TP_SUCCESS;
}

void py_dense_release(tp_space *space, tp_dense *X, int copied) {
  if (copied)
    tp_dense_free(space, X);
}

tp_kruskal py_kruskal_of(const py_array *weights, const py_array *factors, int order) {
  tp_kruskal k;
  memset(&k, 0, sizeof k);
  k.dtype = factors[0].dtype;
  k.order = order;
  k.rank = factors[0].shape[1];
  k.lambda = weights ? weights->data : NULL;
  for (int m = 0; m < order; ++m) {
    k.dims[m] = factors[m].shape[0];
    k.factors[m] = factors[m].data;
  }
  return k;
}

tp_status py_kruskal_to_space(tp_space *space, const tp_kruskal *given, int on_device, int upload,
                              tp_kruskal *k, int *copied) {
  *copied = 0;
  tp_space_info info;
  tp_status st = tp_space_get_info(space, &info);
  if (st != TP_SUCCESS)
    return st;
  if (!info.is_gpu || on_device) {
    *k = *given;
    return TP_SUCCESS;
  }
  st = tp_kruskal_alloc(space, given->dtype, given->order, given->dims, given->rank, k);
  if (st == TP_SUCCESS && upload)
    st = tp_kruskal_copy_to_device(space, k, given);
  if (st != TP_SUCCESS) {
    tp_kruskal_free(space, k);
    return st;
  }
  *copied = 1;
  return TP_SUCCESS;
}

tp_status py_kruskal_finish(tp_space *space, tp_kruskal *k, int copied, const tp_kruskal *given,
                            int failed) {
  if (!copied)
    return TP_SUCCESS;
  tp_status st = TP_SUCCESS;
  if (!failed) {
    tp_kruskal host = *given;
    st = tp_kruskal_copy_to_host(space, &host, k);
  }
  tp_kruskal_free(space, k);
  return st;
}

static size_t array_bytes(const py_array *a) {
  return (size_t)py_array_count(a) * tp_dtype_size(a->dtype);
}

tp_status py_array_in_space(tp_space *space, const py_array *a, int upload, void **at, int *moved) {
  tp_space_info info;
  tp_status st = tp_space_get_info(space, &info);
  *at = a->data, *moved = 0;
  if (st != TP_SUCCESS || !info.is_gpu || a->on_device)
    return st;
  void *temp = NULL;
  const size_t bytes = array_bytes(a);
  st = tp_alloc(space, bytes ? bytes : 1, &temp);
  if (st != TP_SUCCESS)
    return st;
  if (upload && bytes)
    st = tp_copy_to_device(space, temp, a->data, bytes);
  if (st != TP_SUCCESS) {
    tp_free(space, temp);
    return st;
  }
  *at = temp, *moved = 1;
  return TP_SUCCESS;
}

tp_status py_array_leave_space(tp_space *space, const py_array *a, void *at, int moved,
                               int copy_back) {
  if (!moved)
    return TP_SUCCESS;
  tp_status st = copy_back ? tp_copy_to_host(space, a->data, at, array_bytes(a)) : TP_SUCCESS;
  tp_free(space, at);
  return st;
}

tp_status py_run_unlocked(tp_space *space, py_space_work work, void *context) {
  tp_status st;
  Py_BEGIN_ALLOW_THREADS py_space_lock();
  st = work(space, context);
  py_space_unlock();
  Py_END_ALLOW_THREADS return st;
}

typedef struct tensor_call {
  const py_array *dense;
  const tp_coo *coo;
  py_tensor_work work;
  void *context;
} tensor_call;

static tp_status run_on_tensor(tp_space *space, void *context) {
  const tensor_call *c = context;
  tp_status st;
  if (c->coo) {
    tp_flycoo *fly = NULL;
    py_last_input = c->coo->values;
    st = tp_flycoo_create(space, c->coo, NULL, &fly);
    if (st == TP_SUCCESS)
      st = c->work(space, fly, 1, c->context);
    tp_flycoo_destroy(&fly);
    return st;
  }
  tp_dense X;
  int copied;
  st = py_dense_to_space(space, c->dense, &X, &copied);
  if (st != TP_SUCCESS)
    return st;
  py_last_input = X.data;
  st = c->work(space, &X, 0, c->context);
  py_dense_release(space, &X, copied);
  return st;
}

tp_status py_run_on_tensor(tp_space *space, const py_array *dense, const tp_coo *coo,
                           py_tensor_work work, void *context) {
  tensor_call c = {dense, coo, work, context};
  return py_run_unlocked(space, run_on_tensor, &c);
}
