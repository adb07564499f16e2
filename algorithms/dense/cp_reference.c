/* ||X - M||_F with M = sum_r lambda_r U_0[:, r] o ... o U_{d-1}[:, r] formed element by
 * element in double precision, fiber by fiber along X's fast mode: for tests on small
 * tensors. */
#include <math.h>
#include <stdlib.h>

#include "tenport/cp_als.h"
#include "algorithms/dense/tp_dense_internal.h"
#include "portable/tp_error.h"

static tp_status check_inputs(const tp_dense *x, const tp_kruskal *m, const double *out) {
  TP_TRY(tp_dense_check(x));
  TP_CHECK_ARG(x->data, "the tensor's data is NULL");
  TP_TRY(tp_kruskal_check(m));
  TP_CHECK_ARG(m->order == x->order, "the model has order %d, the tensor %d", m->order, x->order);
  for (int k = 0; k < x->order; ++k)
    TP_CHECK_ARG(m->dims[k] == x->dims[k], "dims[%d]: %lld in the model, %lld in the tensor", k,
                 (long long)m->dims[k], (long long)x->dims[k]);
  TP_CHECK_ARG(m->lambda, "the model's lambda is NULL");
  for (int k = 0; k < x->order; ++k)
    TP_CHECK_ARG(m->factors[k], "the model's factors[%d] is NULL", k);
  TP_CHECK_ARG(out, "residual_norm is NULL");
  return TP_SUCCESS;
}

tp_status tp_cp_residual_reference(const tp_dense *host_X, const tp_kruskal *host_model,
                                   double *residual_norm) {
  TP_TRY(check_inputs(host_X, host_model, residual_norm));
  const tp_dense *x = host_X;
  double *p = (double *)malloc(sizeof(double) * (size_t)host_model->rank);
  if (!p)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "cannot allocate %lld doubles",
                    (long long)host_model->rank);
  int f = tpi_dense_fast_mode(x);
  int64_t len = x->dims[f], fibers = tp_dense_count(x) / len;
  int64_t idx[TP_DENSE_MAX_ORDER] = {0};
  double sum = 0.0;
  for (int64_t j = 0; j < fibers; ++j, tpi_dense_next_fiber(x, idx)) {
    tpi_kruskal_partial(host_model, idx, f, -1, 1, p);
    for (int64_t i = 0; i < len; ++i) {
      double d = tpi_dense_load(x->data, x->dtype, j * len + i) -
                 tpi_kruskal_fiber_value(host_model, f, p, i);
      sum += d * d;
    }
  }
  free(p);
  *residual_norm = sqrt(sum);
  return TP_SUCCESS;
}
