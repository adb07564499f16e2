/* Dense and Kruskal tensor descriptors: validation, allocation in a space or on the host,
 * and copies between the two. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tenport/dense.h"
#include "tenport/memory.h"
#include "algorithms/dense/tp_dense_internal.h"
#include "portable/tp_block_index.h"
#include "portable/tp_error.h"
#include "portable/tp_host_alloc.h"
#include "portable/tp_host_memory.h"
#include "portable/tp_space_common.h"

static int dtype_ok(tp_dtype d) { return d == TP_DTYPE_F32 || d == TP_DTYPE_F64; }

/* prod(dims[0..order)), or -1 on a dimension < 1 or int64 overflow. */
static int64_t product(int order, const int64_t *dims) {
  int64_t n = 1;
  for (int k = 0; k < order; ++k) {
    if (dims[k] < 1 || n > INT64_MAX / dims[k])
      return -1;
    n *= dims[k];
  }
  return n;
}

int64_t tp_dense_count(const tp_dense *t) {
  if (!t || t->order < 2 || t->order > TP_DENSE_MAX_ORDER || !dtype_ok(t->dtype) ||
      (t->layout != TP_LAYOUT_LEFT && t->layout != TP_LAYOUT_RIGHT))
    return -1;
  return product(t->order, t->dims);
}

/* The checks shared by both descriptors; what names the descriptor in messages. */
static tp_status check_shape(const char *what, tp_dtype dtype, int order, const int64_t *dims) {
  TP_CHECK_ARG(dtype_ok(dtype), "%s: dtype %s (%d) is not float32 or float64", what,
               tp_dtype_name(dtype), (int)dtype);
  TP_CHECK_ARG(order >= 2 && order <= TP_DENSE_MAX_ORDER, "%s: order %d is outside [2, %d]", what,
               order, TP_DENSE_MAX_ORDER);
  for (int k = 0; k < order; ++k)
    TP_CHECK_ARG(dims[k] >= 1, "%s: dims[%d] = %lld, must be at least 1", what, k,
                 (long long)dims[k]);
  return TP_SUCCESS;
}

/* count elements of dtype must fit in size_t and int64 bytes. */
static tp_status check_bytes(const char *what, int64_t count, tp_dtype dtype) {
  int64_t size = (int64_t)tp_dtype_size(dtype);
  if (count < 0 || count > INT64_MAX / size || (uint64_t)count > SIZE_MAX / (uint64_t)size)
    return TP_ERROR(TP_ERROR_OVERFLOW,
                    "%s: the element count (the product of dims) or its size in bytes "
                    "overflows",
                    what);
  return TP_SUCCESS;
}

/* A descriptor that tp_*_free cleared (or nobody filled): order 0 and no data. */
static tp_status check_allocated(const char *what, int order, int has_data, int min_order) {
  if (order == 0 && !has_data)
    return TP_ERROR(TP_ERROR_INVALID_ARGUMENT,
                    "%s: order 0 is outside [%d, %d] and there is no "
                    "data: the tensor has been freed or was never allocated",
                    what, min_order, TP_DENSE_MAX_ORDER);
  return TP_SUCCESS;
}

/* Data freed while this descriptor (a copy made before the free) still points at it. */
static tp_status check_not_freed(const char *what, const char *field, int index, const void *data) {
  if (!tp_block_index_was_freed(data))
    return TP_SUCCESS;
  char name[32];
  snprintf(name, sizeof name, index < 0 ? "%s" : "%s[%d]", field, index);
  return TP_ERROR(TP_ERROR_INVALID_ARGUMENT,
                  "%s: %s (%p) was freed; the descriptor is a copy "
                  "made before the free, or was freed itself",
                  what, name, data);
}

tp_status tp_dense_check(const tp_dense *t) {
  TP_CHECK_ARG(t, "the tensor descriptor is NULL");
  TP_TRY(check_allocated("dense tensor", t->order, t->data != NULL, 2));
  TP_TRY(check_shape("dense tensor", t->dtype, t->order, t->dims));
  TP_CHECK_ARG(t->layout == TP_LAYOUT_LEFT || t->layout == TP_LAYOUT_RIGHT,
               "dense tensor: layout %d is not TP_LAYOUT_LEFT or TP_LAYOUT_RIGHT", (int)t->layout);
  TP_TRY(check_bytes("dense tensor", product(t->order, t->dims), t->dtype));
  return check_not_freed("dense tensor", "data", -1, t->data);
}

static int kruskal_has_data(const tp_kruskal *k) {
  int any = k->lambda != NULL;
  for (int m = 0; m < TP_DENSE_MAX_ORDER; ++m)
    any |= k->factors[m] != NULL;
  return any;
}

static tp_status kruskal_not_freed(const tp_kruskal *k) {
  TP_TRY(check_not_freed("Kruskal tensor", "lambda", -1, k->lambda));
  for (int m = 0; m < k->order; ++m)
    TP_TRY(check_not_freed("Kruskal tensor", "factors", m, k->factors[m]));
  return TP_SUCCESS;
}

tp_status tp_kruskal_check(const tp_kruskal *k) {
  TP_CHECK_ARG(k, "the Kruskal descriptor is NULL");
  TP_TRY(check_allocated("Kruskal tensor", k->order, kruskal_has_data(k), 2));
  TP_TRY(check_shape("Kruskal tensor", k->dtype, k->order, k->dims));
  TP_CHECK_ARG(k->rank >= 1, "Kruskal tensor: rank %lld, must be at least 1", (long long)k->rank);
  for (int m = 0; m < k->order; ++m) {
    int64_t shape[2] = {k->dims[m], k->rank};
    TP_TRY(check_bytes("Kruskal tensor factor", product(2, shape), k->dtype));
  }
  return kruskal_not_freed(k);
}

/* ---- allocation -------------------------------------------------------------------- */

void tpi_dense_format_dims(int order, const int64_t *dims, char *buf, size_t cap) {
  size_t n = 0;
  buf[0] = '\0';
  for (int k = 0; k < order && n < cap; ++k)
    n += (size_t)snprintf(buf + n, cap - n, "%s%lld", k ? "x" : "", (long long)dims[k]);
}

/* "dense tensor 1000x1000x1000 (float64)": what the memory checks name. */
static void dense_what(const tp_dense *t, char *buf, size_t cap) {
  char dims[TP_DENSE_MAX_ORDER * 21];
  tpi_dense_format_dims(t->order, t->dims, dims, sizeof dims);
  snprintf(buf, cap, "dense tensor %s (%s)", dims, tp_dtype_name(t->dtype));
}

static void kruskal_what(const tp_kruskal *k, char *buf, size_t cap) {
  char dims[TP_DENSE_MAX_ORDER * 21];
  tpi_dense_format_dims(k->order, k->dims, dims, sizeof dims);
  snprintf(buf, cap, "Kruskal tensor %s, rank %lld (%s)", dims, (long long)k->rank,
           tp_dtype_name(k->dtype));
}

/* The memory check of a whole tensor, before its arrays are allocated (only requests
 * from TP_HOST_MEMORY_CHECK_FROM on are checked, on the host and on GPUs alike). */
static tp_status check_memory(tp_space *space, size_t bytes, const char *what) {
  return space ? tp_space_memory_check(space, bytes, what) : tp_host_memory_check(bytes, what);
}

static tp_status alloc_bytes(tp_space *space, size_t bytes, void **p) {
  *p = NULL;
  return space ? tp_alloc(space, bytes, p) : tp_host_alloc(bytes, NULL, p);
}

/* Whether free_bytes(space, p) would succeed. */
static tp_status check_free(tp_space *space, const void *p, const char *what) {
  return space ? tp_space_check_free(space, p, what) : tp_host_free_check(p, what);
}

static tp_status free_bytes(tp_space *space, void *p, const char *what) {
  return space ? tp_free(space, p) : tp_host_free(p, what);
}

static size_t dense_bytes(const tp_dense *t) {
  return (size_t)product(t->order, t->dims) * tp_dtype_size(t->dtype);
}

static size_t factor_bytes(const tp_kruskal *k, int m) {
  return (size_t)(k->dims[m] * k->rank) * tp_dtype_size(k->dtype);
}

/* lambda and every factor, in bytes; SIZE_MAX when the sum overflows. */
static size_t kruskal_bytes(const tp_kruskal *k) {
  size_t total = (size_t)k->rank * tp_dtype_size(k->dtype);
  for (int m = 0; m < k->order; ++m)
    total = total > SIZE_MAX - factor_bytes(k, m) ? SIZE_MAX : total + factor_bytes(k, m);
  return total;
}

tp_status tp_dense_alloc(tp_space *space, tp_dtype dtype, int order, const int64_t *dims,
                         tp_layout layout, tp_dense *t) {
  TP_CHECK_ARG(t, "t is NULL");
  memset(t, 0, sizeof *t);
  TP_CHECK_ARG(dims, "dims is NULL");
  TP_CHECK_ARG(order >= 2 && order <= TP_DENSE_MAX_ORDER,
               "dense tensor: order %d is outside "
               "[2, %d]",
               order, TP_DENSE_MAX_ORDER);
  t->dtype = dtype;
  t->order = order;
  memcpy(t->dims, dims, sizeof(int64_t) * (size_t)order);
  t->layout = layout;
  char what[TP_DENSE_MAX_ORDER * 21 + 64];
  tp_status st = tp_dense_check(t);
  if (st == TP_SUCCESS && dense_bytes(t) >= TP_HOST_MEMORY_CHECK_FROM) {
    dense_what(t, what, sizeof what);
    st = check_memory(space, dense_bytes(t), what);
  }
  if (st == TP_SUCCESS)
    st = alloc_bytes(space, dense_bytes(t), &t->data);
  if (st != TP_SUCCESS)
    memset(t, 0, sizeof *t);
  return st;
}

tp_status tp_dense_free(tp_space *space, tp_dense *t) {
  if (!t)
    return TP_SUCCESS;
  TP_TRY(free_bytes(space, t->data, "the dense tensor's data"));
  memset(t, 0, sizeof *t);
  return TP_SUCCESS;
}

tp_status tp_kruskal_alloc(tp_space *space, tp_dtype dtype, int order, const int64_t *dims,
                           int64_t rank, tp_kruskal *k) {
  TP_CHECK_ARG(k, "k is NULL");
  memset(k, 0, sizeof *k);
  TP_CHECK_ARG(dims, "dims is NULL");
  TP_CHECK_ARG(order >= 2 && order <= TP_DENSE_MAX_ORDER,
               "Kruskal tensor: order %d is outside "
               "[2, %d]",
               order, TP_DENSE_MAX_ORDER);
  k->dtype = dtype;
  k->order = order;
  memcpy(k->dims, dims, sizeof(int64_t) * (size_t)order);
  k->rank = rank;
  char what[TP_DENSE_MAX_ORDER * 21 + 64];
  tp_status st = tp_kruskal_check(k);
  if (st == TP_SUCCESS && kruskal_bytes(k) >= TP_HOST_MEMORY_CHECK_FROM) {
    kruskal_what(k, what, sizeof what);
    st = check_memory(space, kruskal_bytes(k), what);
  }
  if (st == TP_SUCCESS)
    st = alloc_bytes(space, (size_t)rank * tp_dtype_size(dtype), &k->lambda);
  for (int m = 0; m < order && st == TP_SUCCESS; ++m)
    st = alloc_bytes(space, factor_bytes(k, m), &k->factors[m]);
  if (st != TP_SUCCESS) {
    (void)tp_kruskal_free(space, k);
    memset(k, 0, sizeof *k);
  }
  return st;
}

/* Every array of k could be freed with space: nothing is freed unless all can be. */
static tp_status kruskal_check_free(tp_space *space, const tp_kruskal *k, int order) {
  TP_TRY(check_free(space, k->lambda, "the Kruskal tensor's lambda"));
  for (int m = 0; m < order; ++m)
    TP_TRY(check_free(space, k->factors[m], "a factor of the Kruskal tensor"));
  return TP_SUCCESS;
}

tp_status tp_kruskal_free(tp_space *space, tp_kruskal *k) {
  if (!k)
    return TP_SUCCESS;
  int order = k->order < 0 ? 0 : k->order > TP_DENSE_MAX_ORDER ? TP_DENSE_MAX_ORDER : k->order;
  TP_TRY(kruskal_check_free(space, k, order));
  tp_status st = free_bytes(space, k->lambda, "the Kruskal tensor's lambda");
  for (int m = 0; m < order; ++m) {
    tp_status s = free_bytes(space, k->factors[m], "a factor of the Kruskal tensor");
    st = st == TP_SUCCESS ? s : st;
  }
  memset(k, 0, sizeof *k);
  return st;
}

/* ---- copies ------------------------------------------------------------------------ */

/* dst and src agree in dtype, order and dims (and layout for dense tensors). */
static tp_status same_shape(const char *what, tp_dtype d1, tp_dtype d2, int o1, int o2,
                            const int64_t *dims1, const int64_t *dims2) {
  TP_CHECK_ARG(d1 == d2, "%s: dtypes differ (%s vs %s)", what, tp_dtype_name(d1),
               tp_dtype_name(d2));
  TP_CHECK_ARG(o1 == o2, "%s: orders differ (%d vs %d)", what, o1, o2);
  for (int k = 0; k < o1; ++k)
    TP_CHECK_ARG(dims1[k] == dims2[k], "%s: dims[%d] differ (%lld vs %lld)", what, k,
                 (long long)dims1[k], (long long)dims2[k]);
  return TP_SUCCESS;
}

/* A host <-> space copy; a NULL space means both sides are on the host. */
static tp_status copy_bytes(tp_space *space, int to_device, void *dst, const void *src,
                            size_t bytes) {
  TP_CHECK_ARG(dst && src, "a data pointer is NULL");
  if (!space) {
    memcpy(dst, src, bytes);
    return TP_SUCCESS;
  }
  return to_device ? tp_copy_to_device(space, dst, src, bytes)
                   : tp_copy_to_host(space, dst, src, bytes);
}

tp_status tp_dense_copy_to_device(tp_space *space, tp_dense *dst, const tp_dense *host) {
  TP_TRY(tp_dense_check(dst));
  TP_TRY(tp_dense_check(host));
  TP_TRY(same_shape("dense copy", dst->dtype, host->dtype, dst->order, host->order, dst->dims,
                    host->dims));
  TP_CHECK_ARG(dst->layout == host->layout, "dense copy: layouts differ");
  return copy_bytes(space, 1, dst->data, host->data, dense_bytes(host));
}

static tp_status kruskal_copy(tp_space *space, int to_device, tp_kruskal *dst,
                              const tp_kruskal *src) {
  TP_TRY(tp_kruskal_check(dst));
  TP_TRY(tp_kruskal_check(src));
  TP_TRY(same_shape("Kruskal copy", dst->dtype, src->dtype, dst->order, src->order, dst->dims,
                    src->dims));
  TP_CHECK_ARG(dst->rank == src->rank, "Kruskal copy: ranks differ (%lld vs %lld)",
               (long long)dst->rank, (long long)src->rank);
  TP_TRY(copy_bytes(space, to_device, dst->lambda, src->lambda,
                    (size_t)src->rank * tp_dtype_size(src->dtype)));
  for (int m = 0; m < src->order; ++m)
    TP_TRY(copy_bytes(space, to_device, dst->factors[m], src->factors[m], factor_bytes(src, m)));
  return TP_SUCCESS;
}

tp_status tp_kruskal_copy_to_device(tp_space *space, tp_kruskal *dst, const tp_kruskal *host) {
  return kruskal_copy(space, 1, dst, host);
}

tp_status tp_kruskal_copy_to_host(tp_space *space, tp_kruskal *host, const tp_kruskal *src) {
  return kruskal_copy(space, 0, host, src);
}
