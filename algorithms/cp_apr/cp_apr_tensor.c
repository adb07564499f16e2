/* A sparse tensor laid out for CP-APR's Phi: per mode, a copy of its nonzeros in the
 * space in their stable order by that mode's index (a counting sort on the host) with the
 * rows' offsets, so that Pi and Phi read each mode's nonzeros in sequence and sum each
 * row's in a fixed order; and the precision dispatchers of the kernels. */
#include <stdlib.h>
#include <string.h>

#include "tenport/memory.h"
#include "algorithms/cp_apr/tp_cp_apr_internal.h"
#include "portable/tp_error.h"

/* rowptr (dims + 1) and perm (nnz) of mode n, on the host. */
static void apr_order(const tp_coo *X, int n, int64_t *rowptr, int64_t *perm) {
  const int64_t rows = X->dims[n];
  memset(rowptr, 0, sizeof(int64_t) * (size_t)(rows + 1));
  for (int64_t j = 0; j < X->nnz; ++j)
    ++rowptr[X->indices[n][j] + 1];
  for (int64_t i = 0; i < rows; ++i)
    rowptr[i + 1] += rowptr[i];
  for (int64_t j = 0; j < X->nnz; ++j) /* rowptr[i] walks row i's slots, then is restored */
    perm[rowptr[X->indices[n][j]]++] = j;
  for (int64_t i = rows; i > 0; --i)
    rowptr[i] = rowptr[i - 1];
  rowptr[0] = 0;
}

/* sorted[p] = X's nonzero perm[p] (host to host). */
static void apr_gather(const tp_coo *X, const int64_t *perm, tp_coo *sorted) {
  const size_t eb = tp_dtype_size(X->dtype);
  for (int64_t p = 0; p < X->nnz; ++p) {
    for (int k = 0; k < X->order; ++k)
      sorted->indices[k][p] = X->indices[k][perm[p]];
    memcpy((char *)sorted->values + eb * (size_t)p, (const char *)X->values + eb * (size_t)perm[p],
           eb);
  }
}

/* Mode n's sorted copy and offsets, made on the host and copied to the space. */
static tp_status apr_mode(tp_space *space, const tp_coo *host, int n, tpi_apr_tensor *t) {
  const size_t rows = (size_t)host->dims[n] + 1, nnz = (size_t)(host->nnz ? host->nnz : 1);
  int64_t *rowptr = (int64_t *)malloc(sizeof(int64_t) * rows);
  int64_t *perm = (int64_t *)malloc(sizeof(int64_t) * nnz);
  tp_coo sorted;
  memset(&sorted, 0, sizeof sorted);
  tp_status st = rowptr && perm ? TP_SUCCESS
                                : TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory to order mode %d", n);
  if (st == TP_SUCCESS)
    st = tp_coo_alloc(NULL, host->dtype, host->order, host->dims, host->nnz, &sorted);
  if (st == TP_SUCCESS) {
    apr_order(host, n, rowptr, perm);
    apr_gather(host, perm, &sorted);
    st = tp_coo_copy_to_device(space, &t->X[n], &sorted);
  }
  if (st == TP_SUCCESS)
    st = tp_alloc(space, sizeof(int64_t) * rows, (void **)&t->rowptr[n]);
  if (st == TP_SUCCESS)
    st = tp_copy_to_device(space, t->rowptr[n], rowptr, sizeof(int64_t) * rows);
  if (sorted.order > 0)
    tp_coo_free(NULL, &sorted);
  free(rowptr), free(perm);
  return st;
}

tp_status tpi_apr_tensor_create(tp_space *space, const tp_coo *host, tpi_apr_tensor *t) {
  memset(t, 0, sizeof *t);
  tp_status st = TP_SUCCESS;
  for (int n = 0; st == TP_SUCCESS && n < host->order; ++n)
    st = apr_mode(space, host, n, t);
  if (st != TP_SUCCESS)
    tpi_apr_tensor_free(space, t);
  return st;
}

void tpi_apr_tensor_free(tp_space *space, tpi_apr_tensor *t) {
  for (int n = 0; n < TP_COO_MAX_ORDER; ++n) {
    tp_free(space, t->rowptr[n]);
    t->rowptr[n] = NULL;
    if (t->X[n].order > 0)
      tp_coo_free(space, &t->X[n]);
  }
}

tp_status tpi_apr_pi(tp_space *space, const tpi_apr_tensor *t, const tp_kruskal *M, int n,
                     void *Pi) {
  return TPI_APR_BY_DTYPE(t->X[0].dtype, tpi_apr_pi, space, t, M, n, Pi);
}

tp_status tpi_apr_phi_run(tp_space *space, const tpi_apr_phi *q) {
  return TPI_APR_BY_DTYPE(q->t->X[0].dtype, tpi_apr_phi, space, q);
}

tp_status tpi_apr_kkt(tp_space *space, tp_dtype dtype, const void *B, const void *Phi,
                      int64_t count, double *kkt) {
  return TPI_APR_BY_DTYPE(dtype, tpi_apr_kkt, space, B, Phi, count, kkt);
}

tp_status tpi_apr_multiply(tp_space *space, tp_dtype dtype, void *B, const void *Phi,
                           int64_t count) {
  return TPI_APR_BY_DTYPE(dtype, tpi_apr_multiply, space, B, Phi, count);
}

tp_status tpi_apr_scooch(tp_space *space, tp_dtype dtype, void *A, const void *Phi, int64_t count,
                         const tp_cp_apr_options *o) {
  return TPI_APR_BY_DTYPE(dtype, tpi_apr_scooch, space, A, Phi, count, o);
}

tp_status tpi_apr_log_terms(tp_space *space, const tpi_apr_tensor *t, const tp_kruskal *M,
                            const double *lambda, double *terms) {
  return TPI_APR_BY_DTYPE(t->X[0].dtype, tpi_apr_log_terms, space, t, M, lambda, terms);
}
