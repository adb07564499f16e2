/* CP-ALS of a distributed sparse tensor: the iteration of cp_als.c on each rank's block
 * (its FLYCOO MTTKRP) with the layout that says which factor rows the rank owns; the
 * final factors are gathered to every rank's host model. */
#include <stdlib.h>
#include <string.h>

#include "tenport/cp_als.h"
#include "tenport/memory.h"
#include "tp_cp_internal.h"
#include "tp_dist_internal.h"
#include "tp_error.h"
#include "tp_sparse_internal.h"

static tp_status dist_mttkrp(void *ctx, tp_space *space, const tp_kruskal *M, int n, void *G) {
  tp_dist_coo *X = (tp_dist_coo *)ctx;
  return tp_flycoo_mttkrp(space, X->fly, M, n, G, 1);
}

static int dist_passes(void *ctx) { return ((tp_dist_coo *)ctx)->order; }

static tp_status check_model(const tp_dist_coo *X, const tp_cp_als_options *opts,
                             const tp_kruskal *model) {
  TP_CHECK_ARG(opts && model, "opts and model must not be NULL");
  TP_TRY(tp_kruskal_check(model));
  TP_CHECK_ARG(model->dtype == X->dtype && model->order == X->order && model->rank == opts->rank,
               "the model must be %s, of order %d and rank %lld", tp_dtype_name(X->dtype),
               X->order, (long long)opts->rank);
  for (int k = 0; k < X->order; ++k)
    TP_CHECK_ARG(model->dims[k] == X->dims[k], "model dims[%d] = %lld, the tensor's %lld", k,
                 (long long)model->dims[k], (long long)X->dims[k]);
  TP_CHECK_ARG(model->lambda, "model->lambda is NULL");
  for (int k = 0; k < X->order; ++k)
    TP_CHECK_ARG(model->factors[k], "model->factors[%d] is NULL", k);
  return TP_SUCCESS;
}

/* ---- the whole factors on every rank --------------------------------------------------- */

/* Every rank's owned rows of factor k (their global first rows and counts gathered first)
 * into the host model's factor k. */
static tp_status gather_factor(tp_space *space, const tp_dist_coo *X, const tp_kruskal *local,
                               int k, tp_kruskal *model, void *buf) {
  const tp_cp_layout *l = &X->layout;
  const int P = tp_comm_size(X->comm);
  const int64_t R = model->rank;
  const size_t elem = tp_dtype_size(model->dtype);
  int64_t *first = (int64_t *)malloc(sizeof(int64_t) * 3 * (size_t)P), *ones = first + P;
  int64_t *counts = first + 2 * P;
  if (!first)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for %d counts", P);
  int64_t mine[2] = {l->slab_begin[k] + l->own_offset[k], l->own_rows[k] * R};
  for (int r = 0; r < P; ++r)
    ones[r] = 1;
  tp_status st = tp_comm_allgatherv_host(X->comm, &mine[0], first, ones, TP_DTYPE_I64);
  if (st == TP_SUCCESS)
    st = tp_comm_allgatherv_host(X->comm, &mine[1], counts, ones, TP_DTYPE_I64);
  if (st == TP_SUCCESS && mine[1] > 0)
    st = tp_copy_to_host(space, buf, (const char *)local->factors[k] +
                         elem * (size_t)(l->own_offset[k] * R), elem * (size_t)mine[1]);
  char *all = (char *)buf + elem * (size_t)(l->own_rows[k] * R);
  if (st == TP_SUCCESS)
    st = tp_comm_allgatherv_host(X->comm, buf, all, counts, model->dtype);
  for (int r = 0, at = 0; st == TP_SUCCESS && r < P; at += (int)counts[r++])
    memcpy((char *)model->factors[k] + elem * (size_t)(first[r] * R),
           all + elem * (size_t)at, elem * (size_t)counts[r]);
  free(first);
  return st;
}

static tp_status gather_model(tp_space *space, const tp_dist_coo *X, const tp_kruskal *local,
                              tp_kruskal *model) {
  const size_t elem = tp_dtype_size(model->dtype);
  int64_t most = 0;
  for (int k = 0; k < X->order; ++k)
    most = X->dims[k] > most ? X->dims[k] : most;
  void *buf = malloc(elem * (size_t)(2 * most * model->rank)); /* own rows, then all */
  if (!buf)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no host memory to gather the factors");
  tp_status st = tp_copy_to_host(space, model->lambda, local->lambda,
                                 elem * (size_t)model->rank);
  for (int k = 0; k < X->order && st == TP_SUCCESS; ++k)
    st = gather_factor(space, X, local, k, model, buf);
  free(buf);
  return st;
}

/* ---- the run ------------------------------------------------------------------------------ */

static tp_cp_tensor dist_tensor(tp_dist_coo *X) {
  tp_cp_tensor t;
  memset(&t, 0, sizeof t);
  t.dtype = X->dtype, t.order = X->order, t.dims = X->block.dims;
  t.count = X->nnz, t.norm2 = X->norm2;
  t.mttkrp = dist_mttkrp, t.passes = dist_passes, t.ctx = X;
  t.layout = &X->layout;
  return t;
}

tp_status tp_cp_als_sparse_dist(tp_space *space, tp_dist_coo *X, const tp_cp_als_options *opts,
                                tp_kruskal *model, tp_cp_als_result *result) {
  TP_CHECK_ARG(space && X, "space and X must not be NULL");
  TP_TRY(tp_comm_agree(X->comm, check_model(X, opts, model)));
  tp_kruskal local;
  memset(&local, 0, sizeof local);
  TP_TRY(tp_comm_agree(X->comm, tp_kruskal_alloc(space, X->dtype, X->order, X->block.dims,
                                                 opts->rank, &local)));
  tp_cp_tensor t = dist_tensor(X);
  tp_cp_als_result res;
  memset(&res, 0, sizeof res);
  tp_status st = tp_cp_als_run(space, &t, opts, &local, &res);
  if (st == TP_SUCCESS)
    st = gather_model(space, X, &local, model);
  tp_kruskal_free(space, &local);
  if (st == TP_SUCCESS && result)
    *result = res;
  return st;
}
