/* Reference MTTKRP in double precision on host data: the definition, walked fiber by
 * fiber along the tensor's fast mode f so the product of the other modes' rows is formed
 * once per fiber. With f != mode a fiber contributes to one row of G:
 *   G[i_mode, r] += P[r] * sum_i x_i U_f[i, r];
 * with f == mode each element contributes to its own row: G[i, r] += x_i P[r]. */
#include <stdlib.h>
#include <string.h>

#include "tenport/dense.h"
#include "algorithms/dense/tp_dense_internal.h"
#include "portable/tp_error.h"

static tp_status check_inputs(const tp_dense *x, const tp_kruskal *u, int mode, const double *g) {
  TP_TRY(tp_dense_check(x));
  TP_CHECK_ARG(x->data, "the tensor's data is NULL");
  TP_TRY(tp_kruskal_check(u));
  TP_CHECK_ARG(u->order == x->order, "the factors have order %d, the tensor %d", u->order,
               x->order);
  for (int k = 0; k < x->order; ++k)
    TP_CHECK_ARG(u->dims[k] == x->dims[k], "dims[%d]: %lld in the factors, %lld in the tensor", k,
                 (long long)u->dims[k], (long long)x->dims[k]);
  TP_CHECK_ARG(mode >= 0 && mode < x->order, "mode %d is outside [0, %d)", mode, x->order);
  for (int k = 0; k < x->order; ++k)
    TP_CHECK_ARG(k == mode || u->factors[k], "factors[%d] is NULL", k);
  TP_CHECK_ARG(g, "G is NULL");
  return TP_SUCCESS;
}

/* Adds fiber j (first element's multi-index idx) to G. */
static void add_fiber(const tp_dense *x, const tp_kruskal *u, int mode, int f, int64_t j,
                      const int64_t *idx, const double *p, double *g) {
  int64_t len = x->dims[f], rank = u->rank;
  if (f == mode) {
    for (int64_t i = 0; i < len; ++i) {
      double v = tpi_dense_load(x->data, x->dtype, j * len + i);
      for (int64_t r = 0; r < rank; ++r)
        g[i * rank + r] += v * p[r];
    }
    return;
  }
  double *row = g + idx[mode] * rank;
  for (int64_t r = 0; r < rank; ++r) {
    double s = 0.0;
    for (int64_t i = 0; i < len; ++i)
      s += tpi_dense_load(x->data, x->dtype, j * len + i) *
           tpi_dense_load(u->factors[f], u->dtype, i * rank + r);
    row[r] += p[r] * s;
  }
}

tp_status tp_mttkrp_reference(const tp_dense *host, const tp_kruskal *host_factors, int mode,
                              double *G) {
  TP_TRY(check_inputs(host, host_factors, mode, G));
  const tp_kruskal *u = host_factors;
  double *p = (double *)malloc(sizeof(double) * (size_t)u->rank);
  if (!p)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "cannot allocate %lld doubles", (long long)u->rank);
  memset(G, 0, sizeof(double) * (size_t)(host->dims[mode] * u->rank));
  int f = tpi_dense_fast_mode(host);
  int64_t fibers = tp_dense_count(host) / host->dims[f];
  int64_t idx[TP_DENSE_MAX_ORDER] = {0};
  for (int64_t j = 0; j < fibers; ++j, tpi_dense_next_fiber(host, idx)) {
    tpi_kruskal_partial(u, idx, f, mode, 0, p);
    add_fiber(host, u, mode, f, j, idx, p, G);
  }
  free(p);
  return TP_SUCCESS;
}
