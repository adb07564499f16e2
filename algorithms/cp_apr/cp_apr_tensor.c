/* A sparse tensor laid out for CP-APR's Phi (built in the space by
 * cp_apr_layout_kernels.c): freeing it, and the precision dispatchers of the kernels. */
#include "tenport/memory.h"
#include "algorithms/cp_apr/tp_cp_apr_internal.h"
#include "portable/tp_error.h"

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
