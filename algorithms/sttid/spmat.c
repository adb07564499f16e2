/* Sparse matrices in COO form, made from sparse tensors by C-order reshapes. Linear
 * indices are 64-bit; shapes are checked before any index is formed, so nothing wraps. */
#include <stdlib.h>
#include <string.h>

#include "tenport/sttid.h"
#include "portable/tp_error.h"
#include "portable/tp_host_omp.h"
#include "algorithms/sparse/tp_sparse_internal.h"

tp_status tp_checked_product(const int64_t *dims, int n, const char *what, int64_t *product) {
  int64_t p = 1;
  for (int m = 0; m < n; ++m) {
    TP_CHECK_ARG(dims[m] >= 1, "%s: dims[%d] = %lld, must be at least 1", what, m,
                 (long long)dims[m]);
    if (p > INT64_MAX / dims[m])
      return TP_ERROR(TP_ERROR_INVALID_ARGUMENT,
                      "%s: the dims multiply to more than 2^63 - 1 (at mode %d of %d), so "
                      "its linear indices do not fit 64 bits",
                      what, m, n);
    p *= dims[m];
  }
  *product = p;
  return TP_SUCCESS;
}

tp_status tp_spmat_alloc(int64_t rows, int64_t cols, int64_t nnz, tp_spmat *out) {
  TP_CHECK_ARG(out, "the output matrix is NULL");
  memset(out, 0, sizeof *out);
  TP_CHECK_ARG(rows >= 1 && cols >= 1 && nnz >= 0,
               "sparse matrix: shape %lld x %lld with %lld entries is invalid", (long long)rows,
               (long long)cols, (long long)nnz);
  size_t n = (size_t)(nnz > 0 ? nnz : 1);
  out->row = (int64_t *)malloc(n * sizeof(int64_t));
  out->col = (int64_t *)malloc(n * sizeof(int64_t));
  out->values = (double *)malloc(n * sizeof(double));
  if (!out->row || !out->col || !out->values) {
    tp_spmat_free(out);
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "sparse matrix: no host memory for %lld entries",
                    (long long)nnz);
  }
  out->rows = rows, out->cols = cols, out->nnz = nnz;
  return TP_SUCCESS;
}

void tp_spmat_free(tp_spmat *m) {
  if (!m)
    return;
  free(m->row), free(m->col), free(m->values);
  memset(m, 0, sizeof *m);
}

/* C-order linear index of modes [first, last) of nonzero e. */
static int64_t linear_index(const tp_coo *t, int first, int last, int64_t e) {
  int64_t lin = 0;
  for (int m = first; m < last; ++m)
    lin = lin * t->dims[m] + t->indices[m][e];
  return lin;
}

tp_status tp_spmat_from_coo(const tp_coo *host, int row_modes, tp_spmat *out) {
  TP_CHECK_ARG(out, "the output matrix is NULL");
  memset(out, 0, sizeof *out);
  TP_TRY(tpi_coo_check_arrays(host));
  TP_CHECK_ARG(row_modes >= 1 && row_modes < host->order,
               "reshape: row_modes %d is outside [1, %d) for an order-%d tensor", row_modes,
               host->order, host->order);
  int64_t total, rows, cols;
  TP_TRY(tp_checked_product(host->dims, host->order, "reshape of the tensor", &total));
  TP_TRY(tp_checked_product(host->dims, row_modes, "reshape (rows)", &rows));
  TP_TRY(tp_checked_product(host->dims + row_modes, host->order - row_modes, "reshape (columns)",
                            &cols));
  TP_TRY(tpi_coo_check_indices(host));
  TP_TRY(tp_spmat_alloc(rows, cols, host->nnz, out));
  const int64_t nnz = host->nnz;
  TP_HOST_OMP(omp parallel for schedule(static) if (nnz > 65536))
  for (int64_t e = 0; e < nnz; ++e) {
    out->row[e] = linear_index(host, 0, row_modes, e);
    out->col[e] = linear_index(host, row_modes, host->order, e);
    out->values[e] = tpi_coo_value(host, e);
  }
  return TP_SUCCESS;
}
