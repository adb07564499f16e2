/* COO tensors in a space: allocation and copies between the host and the space. */
#include <string.h>

#include "tenport/memory.h"
#include "tenport/sparse.h"
#include "tp_error.h"
#include "tp_sparse_internal.h"

static tp_status space_array(tp_space *space, int64_t nnz, size_t size, void **p) {
  *p = NULL;
  if ((uint64_t)nnz > SIZE_MAX / size)
    return TP_ERROR(TP_ERROR_OVERFLOW, "COO tensor: %lld nonzeros of %zu bytes overflow size_t",
                    (long long)nnz, size);
  return tp_alloc(space, (size_t)nnz * size, p);
}

tp_status tp_coo_alloc(tp_space *space, tp_dtype dtype, int order, const int64_t *dims,
                       int64_t nnz, tp_coo *t) {
  if (!space)
    return tp_coo_host_alloc(dtype, order, dims, nnz, t);
  tp_status st = tp_coo_describe(dtype, order, dims, nnz, t);
  for (int m = 0; m < order && st == TP_SUCCESS; ++m)
    st = space_array(space, nnz, sizeof(int64_t), (void **)&t->indices[m]);
  if (st == TP_SUCCESS)
    st = space_array(space, nnz, tp_dtype_size(dtype), &t->values);
  if (st != TP_SUCCESS) {
    tp_coo_free(space, t);
    memset(t, 0, sizeof *t);
  }
  return st;
}

void tp_coo_free(tp_space *space, tp_coo *t) {
  if (!space) {
    tp_coo_host_free(t);
    return;
  }
  if (!t)
    return;
  for (int m = 0; m < TP_COO_MAX_ORDER; ++m) {
    if (m < t->order)
      tp_free(space, t->indices[m]);
    t->indices[m] = NULL;
  }
  tp_free(space, t->values);
  t->values = NULL;
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
  TP_TRY(tp_coo_check_arrays(src));
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
    tp_coo_free(dst_space, dst);
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
