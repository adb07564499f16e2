/* CP-APR by multiplicative updates (include/tenport/cp_apr.h): the loop on the host, Phi
 * and the entrywise steps in the space (cp_apr_template.h). Over ranks
 * (tp_cp_apr_sparse_dist), every rank holds the whole model and its share of the
 * nonzeros: each Phi is summed over the ranks, so every rank takes the same steps, and a
 * failure on any rank is agreed on before the next sum, so that none waits for a rank
 * that left. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tenport/memory.h"
#include "tenport/primitives.h"
#include "tenport/distributed.h"
#include "algorithms/cp_als/tp_cp_internal.h"
#include "algorithms/cp_als/tp_dist_internal.h"
#include "algorithms/cp_apr/tp_cp_apr_internal.h"
#include "algorithms/sparse/tp_sparse_internal.h"
#include "portable/tp_clock.h"
#include "portable/tp_error.h"

tp_cp_apr_options tp_cp_apr_options_default(void) {
  tp_cp_apr_options o;
  memset(&o, 0, sizeof o);
  o.max_iters = 1000, o.max_inner = 10, o.tol = 1e-4;
  o.kappa = 1e-2, o.kappa_tol = 1e-10, o.eps = 1e-10, o.seed = 1, o.inadmissible_phi = 1.0;
  return o;
}

typedef struct apr_run {
  tp_space *space;
  tp_comm *comm; /* NULL: one process */
  const tp_cp_apr_options *o;
  tpi_apr_tensor t;
  tp_kruskal *M; /* the model in the space: its factors are the iteration's */
  void *Phi[TP_COO_MAX_ORDER];
  void *Pi; /* nnz x R: the mode's product of the other factors (tpi_apr_pi) */
  double *kkt, *v, *lambda_space; /* space: max_dim x R, nnz, R + 1 (a reduction's result
                                     after lambda) */
  double *pieces;                 /* space: Phi's segment sums (tpi_apr_pieces_count) */
  double *lambda, *scale;         /* host: R each */
  int d;
  int64_t R, max_dim;
} apr_run;

/* ---- checks ----------------------------------------------------------------------------------- */

static tp_status apr_check_options(const tp_cp_apr_options *o) {
  TP_CHECK_ARG(o->rank >= 1 && o->rank <= INT32_MAX, "rank = %lld must be >= 1",
               (long long)o->rank);
  TP_CHECK_ARG(o->max_iters >= 1 && o->max_inner >= 1,
               "max_iters = %d and max_inner = %d must be >= 1", o->max_iters, o->max_inner);
  TP_CHECK_ARG(isfinite(o->tol) && o->tol >= 0, "tol = %g must be finite and >= 0", o->tol);
  TP_CHECK_ARG(isfinite(o->kappa) && o->kappa >= 0 && isfinite(o->kappa_tol) && o->kappa_tol >= 0,
               "kappa = %g and kappa_tol = %g must be finite and >= 0", o->kappa, o->kappa_tol);
  TP_CHECK_ARG(isfinite(o->eps) && o->eps > 0, "eps = %g must be finite and > 0", o->eps);
  TP_CHECK_ARG(isfinite(o->inadmissible_phi), "inadmissible_phi = %g must be finite",
               o->inadmissible_phi);
  return TP_SUCCESS;
}

/* Counts: every value finite and >= 0; the first other is named by its indices. */
static tp_status apr_check_values(const tp_coo *X) {
  for (int64_t j = 0; j < X->nnz; ++j) {
    const double v = tpi_coo_value(X, j);
    if (isfinite(v) && v >= 0)
      continue;
    char where[TP_COO_COORD_TEXT];
    tpi_coo_format_entry(X, j, NULL, where, sizeof where);
    return TP_ERROR(TP_ERROR_INVALID_ARGUMENT,
                    "%s = %g (nonzero %lld): CP-APR fits counts, which are finite and >= 0", where,
                    v, (long long)j);
  }
  return TP_SUCCESS;
}

static tp_status apr_check_model(const tp_coo *X, const tp_kruskal *M, int64_t R,
                                 const char *what) {
  TP_TRY(tp_kruskal_check(M));
  TP_CHECK_ARG(M->dtype == X->dtype && M->order == X->order && M->rank == R,
               "%s is %s, order %d, rank %lld; X needs %s, order %d, rank %lld", what,
               tp_dtype_name(M->dtype), M->order, (long long)M->rank, tp_dtype_name(X->dtype),
               X->order, (long long)R);
  for (int k = 0; k < X->order; ++k)
    TP_CHECK_ARG(M->dims[k] == X->dims[k], "%s's factor %d has %lld rows, X's mode %lld", what, k,
                 (long long)M->dims[k], (long long)X->dims[k]);
  return TP_SUCCESS;
}

/* ---- the start: factors (given or uniform from the seed), columns summing to 1 ------------- */

/* Factor k of the start in host rows (I_k x R doubles: the random factor, replaced by
 * opts->init's when given), its columns scaled to sum 1 and the sums into lambda. */
static tp_status apr_start_factor(apr_run *r, int k, double *rows) {
  const tp_kruskal *init = r->o->init;
  const int64_t I = r->M->dims[k], R = r->R;
  for (int64_t e = 0; e < I * R; ++e) {
    double v = rows[e];
    if (init)
      v = init->dtype == TP_DTYPE_F32 ? (double)((const float *)init->factors[k])[e]
                                      : ((const double *)init->factors[k])[e];
    TP_CHECK_ARG(isfinite(v) && v >= 0,
                 "opts->init's factor %d entry %lld is %g: CP-APR starts "
                 "from nonnegative factors",
                 k, (long long)e, v);
    rows[e] = v;
  }
  for (int64_t c = 0; c < R; ++c) {
    double s = 0;
    for (int64_t i = 0; i < I; ++i)
      s += rows[i * R + c];
    for (int64_t i = 0; s > 0 && i < I; ++i)
      rows[i * R + c] /= s;
    r->lambda[c] *= s > 0 ? s : 1.0;
  }
  return TP_SUCCESS;
}

static tp_status apr_start(apr_run *r) {
  for (int64_t c = 0; c < r->R; ++c)
    r->lambda[c] = 1.0;
  tp_kruskal host;
  TP_TRY(tp_kruskal_alloc(NULL, TP_DTYPE_F64, r->d, r->M->dims, r->R, &host));
  tp_status st = tp_kruskal_random(&host, r->o->seed);
  for (int k = 0; k < r->d && st == TP_SUCCESS; ++k)
    st = apr_start_factor(r, k, (double *)host.factors[k]);
  for (int k = 0; k < r->d && st == TP_SUCCESS; ++k) {
    const int64_t n = r->M->dims[k] * r->R;
    if (r->M->dtype == TP_DTYPE_F32) /* the host copy holds floats from here */
      for (int64_t e = 0; e < n; ++e)
        ((float *)host.factors[k])[e] = (float)((double *)host.factors[k])[e];
    st = tp_copy_to_device(r->space, r->M->factors[k], host.factors[k],
                           tp_dtype_size(r->M->dtype) * (size_t)n);
  }
  tp_kruskal_free(NULL, &host);
  return st;
}

/* ---- one mode ---------------------------------------------------------------------------------- */

/* lambda into factor n (B = A_n diag(lambda)); lambda becomes 1. */
static tp_status apr_redistribute(apr_run *r, int n) {
  TP_TRY(tpi_cp_columns_scale(r->space, r->M->dtype, r->M->factors[n], r->M->dims[n], r->R,
                              r->lambda));
  for (int64_t c = 0; c < r->R; ++c)
    r->lambda[c] = 1.0;
  return TP_SUCCESS;
}

/* Factor n's columns to sum 1, the sums into lambda (a zero column is left as it is). */
static tp_status apr_normalise(apr_run *r, int n) {
  TP_TRY(tpi_cp_columns_reduce(r->space, r->M->dtype, TP_CP_COLUMN_SUM, r->M->factors[n], NULL,
                               r->M->dims[n], r->R, r->lambda));
  for (int64_t c = 0; c < r->R; ++c)
    r->scale[c] = r->lambda[c] > 0 ? 1.0 / r->lambda[c] : 1.0;
  return tpi_cp_columns_scale(r->space, r->M->dtype, r->M->factors[n], r->M->dims[n], r->R,
                              r->scale);
}

/* Over ranks: st on every rank the worst of the ranks'. One process: st. */
static tp_status apr_agree(const apr_run *r, tp_status st) {
  return r->comm ? tp_comm_agree(r->comm, st) : st;
}

/* A reduction's result (written in the space, after lambda) to the host. */
static tp_status apr_reduced(apr_run *r, tp_status st, double *out) {
  return st == TP_SUCCESS ? tp_copy_to_host(r->space, out, r->lambda_space + r->R, sizeof(double))
                          : st;
}

/* Mode n's Phi from this rank's nonzeros, summed over the ranks. */
static tp_status apr_phi(apr_run *r, int n, tp_status st) {
  tpi_apr_phi q = {&r->t, r->M, r->M->factors[n], r->Pi, r->Phi[n], r->v, r->pieces, n, r->o->eps};
  if (st == TP_SUCCESS)
    st = tpi_apr_phi_run(r->space, &q);
  TP_TRY(apr_agree(r, st));
  return r->comm
             ? tp_comm_allreduce(r->comm, r->Phi[n], r->M->dims[n] * r->R, r->M->dtype, TP_COMM_SUM)
             : TP_SUCCESS;
}

/* The inner iterations of mode n, st the mode's status so far; *kkt the last violation,
 * *updated whether B changed. */
static tp_status apr_inner(apr_run *r, int n, tp_status st, double *kkt, int *inner, int *updated) {
  const int64_t count = r->M->dims[n] * r->R;
  *updated = 0;
  for (int i = 0; i < r->o->max_inner; ++i) {
    ++*inner;
    TP_TRY(apr_phi(r, n, st));
    st = tpi_apr_kkt(r->space, r->M->dtype, r->M->factors[n], r->Phi[n], count, r->kkt);
    if (st == TP_SUCCESS)
      st = apr_reduced(r, tp_reduce_max_f64(r->space, r->kkt, count, r->lambda_space + r->R), kkt);
    TP_TRY(apr_agree(r, st));
    if (*kkt < r->o->tol)
      break;
    *updated = 1;
    st = tpi_apr_multiply(r->space, r->M->dtype, r->M->factors[n], r->Phi[n], count);
  }
  return st;
}

static tp_status apr_mode(apr_run *r, int n, int iteration, double *kkt, int *inner, int *updated) {
  tp_status st = TP_SUCCESS;
  if (iteration > 1) /* inadmissible zeros: entries near 0 that Phi would raise */
    st = tpi_apr_scooch(r->space, r->M->dtype, r->M->factors[n], r->Phi[n], r->M->dims[n] * r->R,
                        r->o);
  if (st == TP_SUCCESS)
    st = apr_redistribute(r, n);
  if (st == TP_SUCCESS) /* the other factors hold still through the inner iterations */
    st = tpi_apr_pi(r->space, &r->t, r->M, n, r->Pi);
  st = apr_inner(r, n, st, kkt, inner, updated);
  if (st == TP_SUCCESS)
    st = apr_normalise(r, n);
  return apr_agree(r, st);
}

/* ---- the run ----------------------------------------------------------------------------------- */

static tp_status apr_iterate(apr_run *r, double t0, tp_cp_apr_result *res) {
  for (int it = 1; it <= r->o->max_iters; ++it) {
    int inner = 0, any_update = 0;
    double worst = 0;
    for (int n = 0; n < r->d; ++n) {
      double kkt = 0;
      int updated = 0;
      TP_TRY(apr_mode(r, n, it, &kkt, &inner, &updated));
      worst = kkt > worst ? kkt : worst, any_update |= updated;
    }
    res->iterations = it, res->inner += inner, res->kkt = worst;
    if (r->o->progress) {
      tp_cp_apr_progress p = {it, inner, worst, tp_wall_seconds() - t0};
      r->o->progress(&p, r->o->progress_user);
    }
    if (!any_update) {
      res->converged = 1;
      break;
    }
  }
  return TP_SUCCESS;
}

/* sum x log m - sum m: the factors' columns sum to 1, so sum m = sum lambda. */
static tp_status apr_loglik(apr_run *r, double *loglik) {
  tp_status st =
      tp_copy_to_device(r->space, r->lambda_space, r->lambda, sizeof(double) * (size_t)r->R);
  if (st == TP_SUCCESS)
    st = tpi_apr_log_terms(r->space, &r->t, r->M, r->lambda_space, r->v);
  double sum = 0;
  if (st == TP_SUCCESS && r->t.X[0].nnz > 0)
    st = apr_reduced(r, tp_reduce_sum_f64(r->space, r->v, r->t.X[0].nnz, r->lambda_space + r->R),
                     &sum);
  TP_TRY(apr_agree(r, st));
  if (r->comm)
    TP_TRY(tp_comm_allreduce_host(r->comm, &sum, 1, TP_DTYPE_F64, TP_COMM_SUM));
  for (int64_t c = 0; c < r->R; ++c)
    sum -= r->lambda[c];
  *loglik = sum;
  return TP_SUCCESS;
}

static tp_status apr_alloc(apr_run *r) {
  const size_t eb = tp_dtype_size(r->M->dtype);
  for (int n = 0; n < r->d; ++n) {
    TP_TRY(tp_alloc(r->space, eb * (size_t)(r->M->dims[n] * r->R), &r->Phi[n]));
    TP_TRY(tp_memset(r->space, r->Phi[n], 0, eb * (size_t)(r->M->dims[n] * r->R)));
  }
  TP_TRY(tp_alloc(r->space, sizeof(double) * (size_t)(r->max_dim * r->R), (void **)&r->kkt));
  TP_TRY(tp_alloc(r->space, sizeof(double) * (size_t)(r->t.X[0].nnz + 1), (void **)&r->v));
  const int64_t pi_count = (r->t.X[0].nnz > 0 ? r->t.X[0].nnz : 1) * r->R;
  const tp_status pi_status = tp_alloc(r->space, eb * (size_t)pi_count, &r->Pi);
  if (pi_status == TP_ERROR_OUT_OF_MEMORY)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY,
                    "no memory for CP-APR's products of the factors' rows at the nonzeros "
                    "(%lld nonzeros x rank %lld, %.3g GB)",
                    (long long)r->t.X[0].nnz, (long long)r->R,
                    1e-9 * (double)eb * (double)pi_count);
  TP_TRY(pi_status);
  TP_TRY(tp_alloc(r->space, sizeof(double) * (size_t)(r->R + 1), (void **)&r->lambda_space));
  TP_TRY(tp_alloc(r->space, sizeof(double) * (size_t)tpi_apr_pieces_count(r->t.X[0].nnz, r->R),
                  (void **)&r->pieces));
  r->lambda = (double *)malloc(sizeof(double) * (size_t)r->R);
  r->scale = (double *)malloc(sizeof(double) * (size_t)r->R);
  return r->lambda && r->scale
             ? TP_SUCCESS
             : TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for %lld weights", (long long)r->R);
}

static void apr_free(apr_run *r) {
  for (int n = 0; n < TP_COO_MAX_ORDER; ++n)
    tp_free(r->space, r->Phi[n]);
  tp_free(r->space, r->kkt), tp_free(r->space, r->v), tp_free(r->space, r->lambda_space);
  tp_free(r->space, r->Pi), tp_free(r->space, r->pieces);
  free(r->lambda), free(r->scale);
  tpi_apr_tensor_free(r->space, &r->t);
}

/* lambda (host doubles) into the model's lambda in the space. */
static tp_status apr_store_lambda(apr_run *r) {
  if (r->M->dtype == TP_DTYPE_F64)
    return tp_copy_to_device(r->space, r->M->lambda, r->lambda, sizeof(double) * (size_t)r->R);
  float *f = (float *)malloc(sizeof(float) * (size_t)r->R);
  if (!f)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for %lld weights", (long long)r->R);
  for (int64_t c = 0; c < r->R; ++c)
    f[c] = (float)r->lambda[c];
  tp_status st = tp_copy_to_device(r->space, r->M->lambda, f, sizeof(float) * (size_t)r->R);
  free(f);
  return st;
}

static tp_status apr_check(const tp_coo *X, const tp_cp_apr_options *o, const tp_kruskal *model) {
  TP_TRY(apr_check_options(o));
  TP_TRY(tp_coo_validate(X));
  TP_CHECK_ARG(X->order >= 2, "X has %d modes: CP-APR takes 2 or more", X->order);
  TP_CHECK_ARG(X->nnz <= INT32_MAX, "X has %lld nonzeros: CP-APR takes at most 2^31 - 1",
               (long long)X->nnz);
  TP_TRY(apr_check_values(X));
  TP_TRY(apr_check_model(X, model, o->rank, "model"));
  return o->init ? apr_check_model(X, o->init, o->rank, "opts->init") : TP_SUCCESS;
}

/* The run on X (one process's tensor, or this rank's share) with comm (NULL: one
 * process); the checks are done. */
static tp_status apr_run_all(tp_comm *comm, tp_space *space, const tp_coo *X,
                             const tp_cp_apr_options *opts, tp_kruskal *model,
                             tp_cp_apr_result *result) {
  const double t0 = tp_wall_seconds();
  apr_run r;
  memset(&r, 0, sizeof r);
  r.space = space, r.comm = comm, r.o = opts, r.M = model, r.d = X->order, r.R = opts->rank;
  for (int k = 0; k < r.d; ++k)
    r.max_dim = X->dims[k] > r.max_dim ? X->dims[k] : r.max_dim;
  tp_cp_apr_result res;
  memset(&res, 0, sizeof res);
  tp_status st = tpi_apr_tensor_create(space, X, &r.t);
  if (st == TP_SUCCESS)
    st = apr_alloc(&r);
  if (st == TP_SUCCESS)
    st = apr_start(&r);
  st = apr_agree(&r, st);
  res.setup_seconds = tp_wall_seconds() - t0;
  if (st == TP_SUCCESS)
    st = apr_iterate(&r, t0, &res);
  if (st == TP_SUCCESS)
    st = apr_loglik(&r, &res.loglik);
  if (st == TP_SUCCESS)
    st = apr_store_lambda(&r);
  apr_free(&r);
  res.seconds = tp_wall_seconds() - t0;
  if (st == TP_SUCCESS && result)
    *result = res;
  return st;
}

tp_status tp_cp_apr_sparse(tp_space *space, const tp_coo *X, const tp_cp_apr_options *opts,
                           tp_kruskal *model, tp_cp_apr_result *result) {
  TP_CHECK_ARG(space && X && opts && model, "space, X, opts and model must not be NULL");
  TP_TRY(apr_check(X, opts, model));
  return apr_run_all(NULL, space, X, opts, model, result);
}

tp_status tp_cp_apr_sparse_dist(tp_comm *comm, tp_space *space, const tp_coo *share,
                                const tp_cp_apr_options *opts, tp_kruskal *model,
                                tp_cp_apr_result *result) {
  TP_CHECK_ARG(comm && space && share && opts && model,
               "comm, space, share, opts and model must not be NULL");
  TP_TRY(tp_comm_agree(comm, tp_comm_check_space(comm, space)));
  TP_TRY(tp_comm_agree(comm, apr_check(share, opts, model)));
  TP_TRY(tpi_coo_shares_agree(comm, share));
  return apr_run_all(comm, space, share, opts, model, result);
}
