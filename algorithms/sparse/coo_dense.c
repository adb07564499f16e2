/* Sparse to dense and back, on the host: the dense form of a COO tensor (zeros where it
 * has no nonzero), and the nonzeros of a dense tensor as COO in sorted order. */
#include <math.h>
#include <string.h>

#include "algorithms/dense/tp_dense_internal.h"
#include "portable/tp_error.h"
#include "algorithms/sparse/tp_sparse_internal.h"

/* Element strides of a dense tensor's layout. */
static void layout_strides(const tp_dense *t, int64_t *stride) {
  int64_t s = 1;
  for (int p = 0; p < t->order; ++p) {
    int k = tpi_dense_mode_at(t, p);
    stride[k] = s;
    s *= t->dims[k];
  }
}

/* The dims' product, or the error of one that does not fit int64. */
static tp_status dense_count(const tp_coo *t, int64_t *count) {
  *count = 1;
  for (int m = 0; m < t->order; ++m) {
    if (*count > INT64_MAX / t->dims[m]) {
      char dims[TP_DENSE_DIMS_TEXT];
      tpi_dense_format_dims(t->order, t->dims, dims, sizeof dims);
      return TP_ERROR(TP_ERROR_OVERFLOW,
                      "the dense form of a %s tensor would hold more than "
                      "2^63 elements",
                      dims);
    }
    *count *= t->dims[m];
  }
  return TP_SUCCESS;
}

tp_status tp_coo_to_dense(const tp_coo *host, tp_dense *dense) {
  TP_CHECK_ARG(dense, "dense is NULL");
  memset(dense, 0, sizeof *dense);
  TP_TRY(tp_coo_validate(host));
  TP_CHECK_ARG(host->order >= 2 && host->order <= TP_DENSE_MAX_ORDER,
               "the tensor has %d "
               "mode%s; a dense tensor has 2 to %d",
               host->order, host->order == 1 ? "" : "s", TP_DENSE_MAX_ORDER);
  int64_t count;
  TP_TRY(dense_count(host, &count));
  TP_TRY(tp_dense_alloc(NULL, host->dtype, host->order, host->dims, TP_LAYOUT_LEFT, dense));
  memset(dense->data, 0, (size_t)count * tp_dtype_size(host->dtype));
  int64_t stride[TP_DENSE_MAX_ORDER];
  layout_strides(dense, stride);
  for (int64_t k = 0; k < host->nnz; ++k) {
    int64_t off = 0;
    for (int m = 0; m < host->order; ++m)
      off += host->indices[m][k] * stride[m];
    double sum = tpi_dense_load(dense->data, dense->dtype, off) + tpi_coo_value(host, k);
    tpi_dense_store(dense->data, dense->dtype, off, sum); /* duplicates add up */
  }
  return TP_SUCCESS;
}

static int kept(double v, double drop_below) { return v != 0 && !(fabs(v) < drop_below); }

/* Moves idx to the next multi-index in lexicographic order (the last mode fastest),
 * keeping off, its offset in memory, in step. */
static void next_index(const tp_dense *t, const int64_t *stride, int64_t *idx, int64_t *off) {
  for (int k = t->order - 1; k >= 0; --k) {
    *off += stride[k];
    if (++idx[k] < t->dims[k])
      return;
    *off -= t->dims[k] * stride[k];
    idx[k] = 0;
  }
}

tp_status tp_coo_from_dense(const tp_dense *host, double drop_below, tp_coo *coo,
                            int64_t *dropped) {
  TP_CHECK_ARG(coo, "coo is NULL");
  memset(coo, 0, sizeof *coo);
  TP_TRY(tp_dense_check(host));
  TP_CHECK_ARG(host->data, "the tensor's data is NULL");
  TP_CHECK_ARG(drop_below >= 0 && isfinite(drop_below),
               "drop_below %g is not a finite number "
               ">= 0",
               drop_below);
  int64_t count = tp_dense_count(host), nnz = 0, small = 0;
  for (int64_t i = 0; i < count; ++i) {
    double v = tpi_dense_load(host->data, host->dtype, i);
    nnz += kept(v, drop_below);
    small += v != 0 && !kept(v, drop_below);
  }
  TP_TRY(tp_coo_alloc(NULL, host->dtype, host->order, host->dims, nnz, coo));
  int64_t stride[TP_DENSE_MAX_ORDER], idx[TP_DENSE_MAX_ORDER] = {0}, off = 0, k = 0;
  layout_strides(host, stride);
  for (int64_t i = 0; i < count; ++i, next_index(host, stride, idx, &off)) {
    double v = tpi_dense_load(host->data, host->dtype, off);
    if (!kept(v, drop_below))
      continue;
    for (int m = 0; m < host->order; ++m)
      coo->indices[m][k] = idx[m];
    tpi_coo_set_value(coo, k++, v);
  }
  if (dropped)
    *dropped = small;
  return TP_SUCCESS;
}
