/* CP-ALS of a distributed sparse tensor: the iteration of cp_als.c on each rank's block
 * (its FLYCOO MTTKRP) with the layout that says which factor rows the rank owns; the
 * final factors are gathered to every rank's host model. */
#include <stdlib.h>
#include <string.h>

#include "tenport/cp_als.h"
#include "tenport/memory.h"
#include "algorithms/cp_als/tp_cp_internal.h"
#include "algorithms/cp_als/tp_dist_internal.h"
#include "portable/tp_error.h"
#include "algorithms/sparse/tp_sparse_internal.h"

static tp_status dist_mttkrp(void *ctx, tp_space *space, const tp_kruskal *M, int n, void *G) {
  tp_dist_coo *X = (tp_dist_coo *)ctx;
  return tp_flycoo_mttkrp(space, X->fly, M, n, G, 1);
}

/* The mode the records are ordered for now (the same on every rank), not remapped. */
static tp_status dist_mttkrp_trial(void *ctx, tp_space *space, const tp_kruskal *M, int *mode,
                                   void *G) {
  tp_dist_coo *X = (tp_dist_coo *)ctx;
  *mode = tp_flycoo_mode(X->fly);
  return tp_flycoo_mttkrp(space, X->fly, M, *mode, G, 0);
}

static int dist_passes(void *ctx) { return ((tp_dist_coo *)ctx)->order; }

static tp_status check_model(const tp_dist_coo *X, const tp_cp_als_options *opts,
                             const tp_kruskal *model) {
  TP_CHECK_ARG(opts && model, "opts and model must not be NULL");
  TP_TRY(tp_kruskal_check(model));
  TP_CHECK_ARG(model->dtype == X->dtype && model->order == X->order && model->rank == opts->rank,
               "the model must be %s, of order %d and rank %lld", tp_dtype_name(X->dtype), X->order,
               (long long)opts->rank);
  for (int k = 0; k < X->order; ++k)
    TP_CHECK_ARG(model->dims[k] == X->dims[k], "model dims[%d] = %lld, the tensor's %lld", k,
                 (long long)model->dims[k], (long long)X->dims[k]);
  TP_CHECK_ARG(model->lambda, "model->lambda is NULL");
  for (int k = 0; k < X->order; ++k)
    TP_CHECK_ARG(model->factors[k], "model->factors[%d] is NULL", k);
  return TP_SUCCESS;
}

/* ---- the run ------------------------------------------------------------------------------ */

static tpi_cp_tensor dist_tensor(tp_dist_coo *X) {
  tpi_cp_tensor t;
  memset(&t, 0, sizeof t);
  t.dtype = X->dtype, t.order = X->order, t.dims = X->block.dims;
  t.count = X->nnz, t.norm2 = X->norm2_scaled, t.norm2_scale = X->norm2_scale;
  t.mttkrp = dist_mttkrp, t.passes = dist_passes, t.ctx = X;
  t.mttkrp_trial = dist_mttkrp_trial;
  t.layout = &X->layout;
  return t;
}

tp_status tp_cp_als_sparse_dist(tp_space *space, tp_dist_coo *X, const tp_cp_als_options *opts,
                                tp_kruskal *model, tp_cp_als_result *result) {
  TP_CHECK_ARG(space && X, "space and X must not be NULL");
  TP_TRY(tp_comm_agree(X->comm, check_model(X, opts, model)));
  tp_kruskal local;
  memset(&local, 0, sizeof local);
  TP_TRY(tp_comm_agree(
      X->comm, tp_kruskal_alloc(space, X->dtype, X->order, X->block.dims, opts->rank, &local)));
  tpi_cp_tensor t = dist_tensor(X);
  tp_cp_als_result res;
  memset(&res, 0, sizeof res);
  tp_status st = tpi_cp_row_plans_create(space, X, opts->rank);
  if (st == TP_SUCCESS)
    st = tpi_cp_als_run(space, &t, opts, &local, &res);
  tpi_cp_row_plans_free(space, &X->layout);
  if (st == TP_SUCCESS)
    st = tpi_cp_layout_gather(space, &X->layout, &local, model);
  tp_kruskal_free(space, &local);
  if (st == TP_SUCCESS && result)
    *result = res;
  return st;
}
