/* COO tensors in a space: allocation and copies between the host and the space. */
#include <stdio.h>
#include <string.h>

#include "tenport/memory.h"
#include "tenport/sparse.h"
#include "portable/tp_error.h"
#include "portable/tp_host_alloc.h"
#include "portable/tp_host_memory.h"
#include "portable/tp_space_common.h"
#include "algorithms/sparse/tp_sparse_internal.h"

static tp_status space_array(tp_space *space, int64_t nnz, size_t size, void **p) {
  *p = NULL;
  if ((uint64_t)nnz > SIZE_MAX / size)
    return TP_ERROR(TP_ERROR_OVERFLOW, "COO tensor: %lld nonzeros of %zu bytes overflow size_t",
                    (long long)nnz, size);
  return tp_alloc(space, (size_t)nnz * size, p);
}

/* The memory check of all arrays together, naming the tensor: "COO tensor 50x40x30 with
 * 100 nonzeros (float64)". An overflowing size is left to space_array. */
static tp_status space_memory_check(tp_space *space, const tp_coo *t) {
  uint64_t per_nonzero = (uint64_t)t->order * sizeof(int64_t) + tp_dtype_size(t->dtype);
  if ((uint64_t)t->nnz > SIZE_MAX / per_nonzero ||
      (uint64_t)t->nnz * per_nonzero < TP_HOST_MEMORY_CHECK_FROM)
    return TP_SUCCESS;
  char what[TP_COO_MAX_ORDER * 21 + 96];
  size_t n = (size_t)snprintf(what, sizeof what, "COO tensor ");
  for (int m = 0; m < t->order && n < sizeof what; ++m)
    n += (size_t)snprintf(what + n, sizeof what - n, "%s%lld", m ? "x" : "", (long long)t->dims[m]);
  if (n < sizeof what)
    snprintf(what + n, sizeof what - n, " with %lld nonzeros (%s)", (long long)t->nnz,
             tp_dtype_name(t->dtype));
  return tp_space_memory_check(space, (size_t)((uint64_t)t->nnz * per_nonzero), what);
}

tp_status tp_coo_alloc(tp_space *space, tp_dtype dtype, int order, const int64_t *dims, int64_t nnz,
                       tp_coo *t) {
  if (!space)
    return tpi_coo_host_alloc(dtype, order, dims, nnz, t);
  tp_status st = tpi_coo_describe(dtype, order, dims, nnz, t);
  if (st == TP_SUCCESS)
    st = space_memory_check(space, t);
  for (int m = 0; m < order && st == TP_SUCCESS; ++m)
    st = space_array(space, nnz, sizeof(int64_t), (void **)&t->indices[m]);
  if (st == TP_SUCCESS)
    st = space_array(space, nnz, tp_dtype_size(dtype), &t->values);
  if (st != TP_SUCCESS) {
    (void)tp_coo_free(space, t);
    memset(t, 0, sizeof *t);
  }
  return st;
}

/* Whether the array p could be freed with space (NULL: the host). */
static tp_status check_free(tp_space *space, const void *p, const char *what) {
  return space ? tp_space_check_free(space, p, what) : tp_host_free_check(p, what);
}

/* Every array could be freed: nothing is freed unless all can be. */
static tp_status check_free_all(tp_space *space, const tp_coo *t, int order) {
  for (int m = 0; m < order; ++m)
    TP_TRY(check_free(space, t->indices[m], "an index array of the COO tensor"));
  return check_free(space, t->values, "the COO tensor's values");
}

static tp_status free_space_arrays(tp_space *space, tp_coo *t, int order) {
  tp_status st = TP_SUCCESS;
  for (int m = 0; m < order; ++m) {
    tp_status s = tp_free(space, t->indices[m]);
    st = st == TP_SUCCESS ? s : st;
  }
  tp_status s = tp_free(space, t->values);
  return st == TP_SUCCESS ? s : st;
}

tp_status tp_coo_free(tp_space *space, tp_coo *t) {
  if (!t)
    return TP_SUCCESS;
  int order = t->order < 0 ? 0 : t->order > TP_COO_MAX_ORDER ? TP_COO_MAX_ORDER : t->order;
  TP_TRY(check_free_all(space, t, order));
  tp_status st = TP_SUCCESS;
  if (space)
    st = free_space_arrays(space, t, order);
  else
    tpi_coo_host_free(t);
  memset(t, 0, sizeof *t);
  return st;
}

/* ---- copies -------------------------------------------------------------------------- */

typedef enum direction { TO_SPACE, TO_HOST } direction;

static tp_status copy_array(tp_space *space, direction dir, void *dst, const void *src,
                            size_t bytes) {
  if (bytes == 0)
    return TP_SUCCESS;
  if (!space) {
    memcpy(dst, src, bytes);
    return TP_SUCCESS;
  }
  return dir == TO_SPACE ? tp_copy_to_device(space, dst, src, bytes)
                         : tp_copy_to_host(space, dst, src, bytes);
}

/* Allocates *dst like src (in the space for TO_SPACE, on the host for TO_HOST) and copies
 * every array; on failure *dst is zeroed and owns nothing. */
static tp_status copy_tensor(tp_space *space, direction dir, tp_coo *dst, const tp_coo *src) {
  TP_CHECK_ARG(dst && dst != src, "dst is NULL or the source itself");
  memset(dst, 0, sizeof *dst);
  TP_TRY(tpi_coo_check_arrays(src));
  tp_space *dst_space = dir == TO_SPACE ? space : NULL;
  TP_TRY(tp_coo_alloc(dst_space, src->dtype, src->order, src->dims, src->nnz, dst));
  size_t index_bytes = (size_t)src->nnz * sizeof(int64_t);
  tp_status st = TP_SUCCESS;
  for (int m = 0; m < src->order && st == TP_SUCCESS; ++m)
    st = copy_array(space, dir, dst->indices[m], src->indices[m], index_bytes);
  if (st == TP_SUCCESS)
    st = copy_array(space, dir, dst->values, src->values,
                    (size_t)src->nnz * tp_dtype_size(src->dtype));
  if (st != TP_SUCCESS) {
    (void)tp_coo_free(dst_space, dst);
    memset(dst, 0, sizeof *dst);
  }
  return st;
}

tp_status tp_coo_copy_to_device(tp_space *space, tp_coo *dst, const tp_coo *host) {
  return copy_tensor(space, TO_SPACE, dst, host);
}

tp_status tp_coo_copy_to_host(tp_space *space, tp_coo *host, const tp_coo *src) {
  return copy_tensor(space, TO_HOST, host, src);
}
