/* MTTKRP on a plain COO tensor: the global-atomics baseline (kernels in spm_width_template.h) and
 * the double-precision host reference. */
#include <stdlib.h>
#include <string.h>

#include "tenport/memory.h"
#include "portable/tp_error.h"
#include "algorithms/sparse_mttkrp/tp_flycoo_internal.h"

static tp_status tpc_check(const tp_coo *X, const tp_kruskal *U, int mode, const void *G) {
  TP_CHECK_ARG(X && U && G, "X, U and G must not be NULL");
  TP_TRY(tp_coo_check(X));
  TP_TRY(tp_kruskal_check(U));
  TP_CHECK_ARG(X->dtype == TP_DTYPE_F32 || X->dtype == TP_DTYPE_F64,
               "the tensor is %s: MTTKRP takes float32 or float64", tp_dtype_name(X->dtype));
  TP_CHECK_ARG(U->dtype == X->dtype, "the factors are %s but the tensor is %s",
               tp_dtype_name(U->dtype), tp_dtype_name(X->dtype));
  TP_CHECK_ARG(U->order == X->order, "the factors have order %d but the tensor has %d", U->order,
               X->order);
  TP_CHECK_ARG(mode >= 0 && mode < X->order, "mode %d is outside 0..%d", mode, X->order - 1);
  for (int m = 0; m < X->order; ++m) {
    TP_CHECK_ARG(U->dims[m] == X->dims[m],
                 "factor %d has %lld rows but the tensor's mode %d has %lld", m,
                 (long long)U->dims[m], m, (long long)X->dims[m]);
    TP_CHECK_ARG(m == mode || U->factors[m], "factor %d must not be NULL", m);
  }
  return TP_SUCCESS;
}

tp_status tp_coo_mttkrp_atomic(tp_space *space, const tp_coo *X, const tp_kruskal *U, int mode,
                               void *G) {
  TP_CHECK_ARG(space, "space must not be NULL");
  TP_TRY(tpc_check(X, U, mode, G));
  const size_t eb = tp_dtype_size(X->dtype);
  TP_TRY(tp_memset(space, G, 0, eb * (size_t)(X->dims[mode] * U->rank)));
  if (X->nnz == 0)
    return TP_SUCCESS;
  const flycoo_ops *ops = X->dtype == TP_DTYPE_F32 ? flycoo_ops_f32() : flycoo_ops_f64();
  return ops->atomic(space, X, U, mode, G);
}

static double tpc_value(const tp_coo *X, int64_t x) {
  return X->dtype == TP_DTYPE_F32 ? (double)((const float *)X->values)[x]
                                  : ((const double *)X->values)[x];
}

static double tpc_factor(const tp_kruskal *U, int m, int64_t i, int64_t r) {
  const int64_t at = i * U->rank + r;
  return U->dtype == TP_DTYPE_F32 ? (double)((const float *)U->factors[m])[at]
                                  : ((const double *)U->factors[m])[at];
}

tp_status tp_coo_mttkrp_reference(const tp_coo *host, const tp_kruskal *host_U, int mode,
                                  double *G) {
  TP_TRY(tpc_check(host, host_U, mode, G));
  TP_TRY(tp_coo_validate(host));
  const int64_t R = host_U->rank;
  memset(G, 0, sizeof(double) * (size_t)(host->dims[mode] * R));
  for (int64_t x = 0; x < host->nnz; ++x) {
    double *g = G + host->indices[mode][x] * R;
    for (int64_t r = 0; r < R; ++r) {
      double v = tpc_value(host, x);
      for (int m = 0; m < host->order; ++m)
        if (m != mode)
          v *= tpc_factor(host_U, m, host->indices[m][x], r);
      g[r] += v;
    }
  }
  return TP_SUCCESS;
}
