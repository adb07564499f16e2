/* Generalized CP: the options, the start, the run against an objective source (the
 * solver: gcp_lbfgsb.c; the dense source: gcp_dense.c) and the final model. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tenport/memory.h"
#include "portable/tp_clock.h"
#include "portable/tp_error.h"
#include "portable/tp_space_common.h"
#include "algorithms/gcp/tp_gcp_internal.h"

tp_gcp_options tp_gcp_options_default(void) {
  tp_gcp_options o;
  memset(&o, 0, sizeof o);
  o.rank = 1;
  o.loss = TP_GCP_GAUSSIAN;
  o.solver = TP_GCP_SOLVER_LBFGSB;
  o.lower = NAN;
  o.seed = 1;
  o.max_iters = 1000;
  o.max_evals = 15000;
  o.factr = 1e7;
  o.pgtol = 1e-5;
  o.memory = 10;
  o.epochs = 1000;
  o.epoch_iters = 1000;
  o.rate = 1e-3;
  o.decay = 0.1;
  o.max_fails = 1;
  o.f_est_tol = -INFINITY;
  o.beta1 = 0.9;
  o.beta2 = 0.999;
  o.eps = 1e-8;
  o.normalize = 1;
  return o;
}

void tp_gcp_print_progress(const tp_gcp_progress *p, void *user) {
  FILE *f = user ? (FILE *)user : stdout;
  if (p->step > 0) /* an Adam epoch */
    fprintf(f, "epoch %4d  loss estimate %.10e  step %.1e  %.3f s%s\n", p->iteration, p->loss,
            p->step, p->seconds, p->failed ? "  failed: undone" : "");
  else
    fprintf(f, "iter %4d  loss %.10e  |pg| %.3e  %.3f s\n", p->iteration, p->loss, p->gradient_norm,
            p->seconds);
  fflush(f);
}

/* ---- checks ------------------------------------------------------------------------ */

static tp_status gcp_check_options(const tp_gcp_options *o, const tpi_gcp_source *src) {
  TP_CHECK_ARG(o->rank >= 1 && o->rank <= INT32_MAX, "rank = %lld: GCP needs 1 <= rank < 2^31",
               (long long)o->rank);
  TP_TRY(tpi_gcp_check_param(o->loss, o->loss_param));
  TP_CHECK_ARG(o->solver == TP_GCP_SOLVER_LBFGSB || o->solver == TP_GCP_SOLVER_ADAM,
               "solver %d is not a GCP solver", (int)o->solver);
  TP_CHECK_ARG(o->solver != TP_GCP_SOLVER_LBFGSB || src->fg,
               "this tensor has no full gradient here: use the Adam solver");
  const double natural = tp_gcp_loss_lower_bound(o->loss);
  TP_CHECK_ARG(isnan(o->lower) || (o->lower < INFINITY && o->lower >= natural),
               "lower bound %g: the %s loss needs factors >= %g", o->lower,
               tp_gcp_loss_name(o->loss), natural);
  TP_CHECK_ARG(o->max_iters >= 1, "max_iters = %d must be >= 1", o->max_iters);
  TP_CHECK_ARG(o->max_evals >= 1, "max_evals = %d must be >= 1", o->max_evals);
  TP_CHECK_ARG(isfinite(o->factr) && o->factr >= 0, "factr = %g must be finite and >= 0", o->factr);
  TP_CHECK_ARG(isfinite(o->pgtol) && o->pgtol >= 0, "pgtol = %g must be finite and >= 0", o->pgtol);
  TP_CHECK_ARG(o->memory >= 1 && o->memory <= 1000, "memory = %d: 1 to 1000 correction pairs",
               o->memory);
  TP_CHECK_ARG(isfinite(o->max_seconds) && o->max_seconds >= 0,
               "max_seconds = %g must be finite and >= 0", o->max_seconds);
  return TP_SUCCESS;
}

static tp_status gcp_check_model(const tpi_gcp_source *src, int64_t rank, const tp_kruskal *M,
                                 const char *what) {
  TP_CHECK_ARG(M, "%s must not be NULL", what);
  TP_CHECK_ARG(M->dtype == src->dtype && M->order == src->order && M->rank == rank,
               "%s is %s, order %d, rank %lld: X is %s, order %d, and the rank %lld", what,
               tp_dtype_name(M->dtype), M->order, (long long)M->rank, tp_dtype_name(src->dtype),
               src->order, (long long)rank);
  for (int k = 0; k < src->order; ++k) {
    TP_CHECK_ARG(M->dims[k] == src->dims[k], "%s's dim %d is %lld, X's %lld", what, k,
                 (long long)M->dims[k], (long long)src->dims[k]);
    TP_CHECK_ARG(M->factors[k], "%s->factors[%d] is NULL", what, k);
  }
  return TP_SUCCESS;
}

/* ---- host vectors and the space ------------------------------------------------------ */

static double gcp_host_value(tp_dtype dtype, const void *p, int64_t i) {
  return dtype == TP_DTYPE_F32 ? (double)((const float *)p)[i] : ((const double *)p)[i];
}

/* Factor k's entries converted between a host double vector and a space buffer, through
 * one staging copy of the factor. */
static tp_status gcp_factor_move(tp_space *space, double *x, const tp_kruskal *K, int k,
                                 int to_space) {
  const int64_t count = K->dims[k] * K->rank;
  const size_t eb = tp_dtype_size(K->dtype);
  if (K->dtype == TP_DTYPE_F64)
    return to_space ? tp_copy_to_device(space, K->factors[k], x, eb * (size_t)count)
                    : tp_copy_to_host(space, x, K->factors[k], eb * (size_t)count);
  float *stage = (float *)malloc(eb * (size_t)(count > 0 ? count : 1));
  if (!stage)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory to stage %lld factor entries",
                    (long long)count);
  tp_status st = TP_SUCCESS;
  if (to_space) {
    for (int64_t i = 0; i < count; ++i)
      stage[i] = (float)x[i];
    st = tp_copy_to_device(space, K->factors[k], stage, eb * (size_t)count);
  } else {
    st = tp_copy_to_host(space, stage, K->factors[k], eb * (size_t)count);
    for (int64_t i = 0; st == TP_SUCCESS && i < count; ++i)
      x[i] = stage[i];
  }
  free(stage);
  return st;
}

tp_status tpi_gcp_vector_to_space(tp_space *space, const double *x, tp_kruskal *M) {
  for (int k = 0; k < M->order; x += M->dims[k] * M->rank, ++k)
    TP_TRY(gcp_factor_move(space, (double *)x, M, k, 1));
  return TP_SUCCESS;
}

tp_status tpi_gcp_space_to_vector(tp_space *space, const tp_kruskal *G, double *g) {
  for (int k = 0; k < G->order; g += G->dims[k] * G->rank, ++k)
    TP_TRY(gcp_factor_move(space, g, G, k, 0));
  return TP_SUCCESS;
}

/* ---- the start ------------------------------------------------------------------------- */

/* ||M||^2 of the factors in x (lambda = 1): sum over r, s of the Grams' product, each
 * Gram in one pass over its factor's rows. */
static double gcp_model_norm2(const double *x, int order, const int64_t *dims, int64_t R) {
  double *prod = (double *)malloc(sizeof(double) * 2 * (size_t)(R * R));
  if (!prod)
    return NAN;
  double *gram = prod + R * R;
  for (int64_t q = 0; q < R * R; ++q)
    prod[q] = 1.0;
  for (int k = 0; k < order; x += dims[k] * R, ++k) {
    memset(gram, 0, sizeof(double) * (size_t)(R * R));
    for (int64_t i = 0; i < dims[k]; ++i)
      for (int64_t r = 0; r < R; ++r)
        for (int64_t s = 0; s < R; ++s)
          gram[r * R + s] += x[i * R + r] * x[i * R + s];
    for (int64_t q = 0; q < R * R; ++q)
      prod[q] *= gram[q];
  }
  double sum = 0;
  for (int64_t q = 0; q < R * R; ++q)
    sum += prod[q];
  free(prod);
  return sum;
}

/* Each component's columns scaled to the same 2-norm, the geometric mean of theirs (the
 * model is unchanged): the Tensor Toolbox's normalize("all"), which its gcp_opt applies
 * to every start. A zero column leaves its component as it is. */
static tp_status gcp_balance(double *x, int order, const int64_t *dims, int64_t R) {
  double *norms = (double *)calloc((size_t)(R * order), sizeof(double));
  if (!norms)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for %lld norms", (long long)(R * order));
  double *at = x;
  for (int k = 0; k < order; at += dims[k] * R, ++k)
    for (int64_t i = 0; i < dims[k]; ++i)
      for (int64_t r = 0; r < R; ++r)
        norms[k * R + r] += at[i * R + r] * at[i * R + r];
  for (int64_t r = 0; r < R; ++r) {
    double logsum = 0;
    int zero = 0;
    for (int k = 0; k < order; ++k) {
      norms[k * R + r] = sqrt(norms[k * R + r]);
      zero |= !(norms[k * R + r] > 0);
      logsum += zero ? 0 : log(norms[k * R + r]);
    }
    const double mean = exp(logsum / order);
    for (int k = 0; k < order; ++k) /* the factor for column r of factor k */
      norms[k * R + r] = zero ? 1.0 : mean / norms[k * R + r];
  }
  at = x;
  for (int k = 0; k < order; at += dims[k] * R, ++k)
    for (int64_t i = 0; i < dims[k]; ++i)
      for (int64_t r = 0; r < R; ++r)
        at[i * R + r] *= norms[k * R + r];
  free(norms);
  return TP_SUCCESS;
}

/* The given start's factors times |lambda|^(1/d) (the first by lambda's sign), checked
 * finite and within the bound. */
static tp_status gcp_spread_start(const tp_kruskal *init, const double *spread, double lower,
                                  double *x) {
  const int64_t R = init->rank;
  double *at = x;
  for (int k = 0; k < init->order; at += init->dims[k] * R, ++k) {
    TP_CHECK_ARG(init->factors[k], "opts->init->factors[%d] is NULL", k);
    for (int64_t i = 0; i < init->dims[k] * R; ++i) {
      const int64_t r = i % R;
      const int flip = k == 0 && init->lambda && gcp_host_value(init->dtype, init->lambda, r) < 0;
      at[i] = gcp_host_value(init->dtype, init->factors[k], i) * spread[r] * (flip ? -1.0 : 1.0);
      TP_CHECK_ARG(isfinite(at[i]), "opts->init: factor %d entry %lld (with lambda) is %g", k,
                   (long long)i, at[i]);
      TP_CHECK_ARG(!(at[i] < lower),
                   "opts->init: factor %d entry %lld is %g, below the lower "
                   "bound %g",
                   k, (long long)i, at[i], lower);
    }
  }
  return TP_SUCCESS;
}

/* The given start with lambda spread evenly over the factors, not zero. */
static tp_status gcp_given_start(const tp_kruskal *init, double lower, double *x) {
  const int64_t R = init->rank;
  double *spread = (double *)malloc(sizeof(double) * (size_t)R);
  if (!spread)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for %lld weights", (long long)R);
  for (int64_t r = 0; r < R; ++r) {
    const double lam = init->lambda ? gcp_host_value(init->dtype, init->lambda, r) : 1.0;
    spread[r] = pow(fabs(lam), 1.0 / init->order);
  }
  tp_status st = gcp_spread_start(init, spread, lower, x);
  free(spread);
  TP_TRY(st);
  TP_CHECK_ARG(gcp_model_norm2(x, init->order, init->dims, R) > 0,
               "opts->init is the zero model: GCP needs a nonzero start");
  return gcp_balance(x, init->order, init->dims, R);
}

/* Uniform [0, 1) factors from the seed, each scaled by (||X|| / ||M||)^(1/d) so that the
 * start's norm is the observed data's (as the Tensor Toolbox starts GCP). */
static tp_status gcp_random_start(const tpi_gcp_source *src, int64_t R, uint64_t seed, double *x) {
  tp_kruskal host;
  TP_TRY(tp_kruskal_alloc(NULL, TP_DTYPE_F64, src->order, src->dims, R, &host));
  tp_status st = tp_kruskal_random(&host, seed);
  double *at = x;
  for (int k = 0; st == TP_SUCCESS && k < src->order; at += src->dims[k] * R, ++k)
    memcpy(at, host.factors[k], sizeof(double) * (size_t)(src->dims[k] * R));
  tp_kruskal_free(NULL, &host);
  TP_TRY(st);
  const double m2 = gcp_model_norm2(x, src->order, src->dims, R);
  if (!(src->data_norm2 > 0) || !(m2 > 0) || !isfinite(src->data_norm2))
    return gcp_balance(x, src->order, src->dims, R);
  const double s = pow(sqrt(src->data_norm2) / sqrt(m2), 1.0 / src->order);
  at = x;
  for (int k = 0; k < src->order; at += src->dims[k] * R, ++k)
    for (int64_t i = 0; i < src->dims[k] * R; ++i)
      at[i] *= s;
  return gcp_balance(x, src->order, src->dims, R);
}

/* ---- the final model --------------------------------------------------------------------- */

typedef struct gcp_component {
  double weight;
  int64_t r;
} gcp_component;

static int gcp_heavier_first(const void *a, const void *b) {
  const gcp_component *p = (const gcp_component *)a, *q = (const gcp_component *)b;
  if (p->weight != q->weight)
    return p->weight < q->weight ? 1 : -1;
  return p->r < q->r ? -1 : (p->r > q->r);
}

/* x as a host model: lambda = 1, or (normalize) unit columns with their norms' product in
 * lambda, heaviest component first. A zero column keeps its zeros and weight 0. */
static tp_status gcp_final_model(const double *x, int normalize, tp_kruskal *host) {
  const int d = host->order;
  const int64_t R = host->rank;
  gcp_component *c = (gcp_component *)malloc(sizeof *c * (size_t)R);
  double *norms = (double *)malloc(sizeof(double) * (size_t)(R * d));
  if (!c || !norms) {
    free(c), free(norms);
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for %lld components", (long long)R);
  }
  const double *at = x;
  for (int k = 0; k < d; at += host->dims[k] * R, ++k) { /* rows in order: one pass */
    double *nk = norms + k * R;
    memset(nk, 0, sizeof(double) * (size_t)R);
    for (int64_t i = 0; i < host->dims[k]; ++i)
      for (int64_t r = 0; r < R; ++r)
        nk[r] += at[i * R + r] * at[i * R + r];
    for (int64_t r = 0; r < R; ++r)
      nk[r] = normalize ? sqrt(nk[r]) : 1.0;
  }
  for (int64_t r = 0; r < R; ++r) {
    c[r].weight = 1.0, c[r].r = r;
    for (int k = 0; k < d; ++k)
      c[r].weight *= norms[k * R + r];
  }
  if (normalize)
    qsort(c, (size_t)R, sizeof *c, gcp_heavier_first);
  const int f32 = host->dtype == TP_DTYPE_F32;
  at = x;
  for (int k = 0; k < d; at += host->dims[k] * R, ++k)
    for (int64_t i = 0; i < host->dims[k]; ++i)
      for (int64_t q = 0; q < R; ++q) {
        const int64_t r = c[q].r;
        const double n = norms[k * R + r] > 0 ? norms[k * R + r] : 1.0;
        const double v = at[i * R + r] / n;
        if (f32)
          ((float *)host->factors[k])[i * R + q] = (float)v;
        else
          ((double *)host->factors[k])[i * R + q] = v;
      }
  for (int64_t q = 0; q < R; ++q) {
    if (f32)
      ((float *)host->lambda)[q] = (float)c[q].weight;
    else
      ((double *)host->lambda)[q] = c[q].weight;
  }
  free(c), free(norms);
  return TP_SUCCESS;
}

/* ---- the run ------------------------------------------------------------------------------ */

static int64_t gcp_vector_length(const tpi_gcp_source *src, int64_t R) {
  int64_t n = 0;
  for (int k = 0; k < src->order; ++k)
    n += src->dims[k] * R;
  return n;
}

/* A source over ranks: a failure on any rank is every rank's, before the collectives of
 * the solver could wait for a rank that left. One process: st. */
static tp_status gcp_agree(const tpi_gcp_source *src, tp_status st) {
  return src->comm ? tp_comm_agree(src->comm, st) : st;
}

/* The solver from x, then the model; M and G are the solver's factors in the space. */
static tp_status gcp_solve(tp_space *space, const tpi_gcp_source *src, const tp_gcp_options *o,
                           double *x, tp_kruskal *model, tp_gcp_result *res) {
  tp_kruskal M, G;
  memset(&M, 0, sizeof M), memset(&G, 0, sizeof G);
  tp_status st = tp_kruskal_alloc(space, src->dtype, src->order, src->dims, o->rank, &M);
  if (st == TP_SUCCESS)
    st = tp_kruskal_alloc(space, src->dtype, src->order, src->dims, o->rank, &G);
  st = gcp_agree(src, st);
  if (st == TP_SUCCESS)
    st = o->solver == TP_GCP_SOLVER_ADAM ? tpi_gcp_adam_solve(space, src, o, x, &M, res)
                                         : tpi_gcp_lbfgsb(space, src, o, x, &M, &G, res);
  if (st == TP_SUCCESS && res->loss_is_estimate && src->f) { /* the exact objective */
    st = tpi_gcp_vector_to_space(space, x, &M);
    if (st == TP_SUCCESS)
      st = src->f(src->ctx, space, &M, &res->loss);
    res->loss_is_estimate = 0;
  }
  tp_kruskal_free(space, &G);
  tp_kruskal_free(space, &M);
  TP_TRY(st);
  tp_kruskal host;
  TP_TRY(tp_kruskal_alloc(NULL, src->dtype, src->order, src->dims, o->rank, &host));
  st = gcp_final_model(x, o->normalize, &host);
  if (st == TP_SUCCESS)
    st = tp_kruskal_copy_to_device(space, model, &host);
  tp_kruskal_free(NULL, &host);
  return st;
}

tp_status tpi_gcp_run(tp_space *space, const tpi_gcp_source *src, const tp_gcp_options *opts,
                      tp_kruskal *model, tp_gcp_result *result) {
  const double t0 = tp_wall_seconds();
  tp_gcp_options o = *opts;
  tp_status st = gcp_check_options(&o, src);
  if (st == TP_SUCCESS)
    st = gcp_check_model(src, o.rank, model, "model");
  if (st == TP_SUCCESS && o.init)
    st = gcp_check_model(src, o.rank, o.init, "opts->init");
  if (isnan(o.lower))
    o.lower = tp_gcp_loss_lower_bound(o.loss);
  tp_gcp_result res;
  memset(&res, 0, sizeof res);
  const int64_t n = st == TP_SUCCESS ? gcp_vector_length(src, o.rank) : 0;
  double *x = st == TP_SUCCESS ? (double *)malloc(sizeof(double) * (size_t)(n ? n : 1)) : NULL;
  if (st == TP_SUCCESS && !x)
    st = TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for %lld factor entries", (long long)n);
  if (st == TP_SUCCESS)
    st = o.init ? gcp_given_start(o.init, o.lower, x) : gcp_random_start(src, o.rank, o.seed, x);
  st = gcp_agree(src, st);
  if (st == TP_SUCCESS)
    st = gcp_solve(space, src, &o, x, model, &res);
  free(x);
  res.seconds = tp_wall_seconds() - t0;
  res.data_norm2 = src->data_norm2;
  if (st == TP_SUCCESS && result)
    *result = res;
  return st;
}

/* ---- the public entry points --------------------------------------------------------------- */

tp_status tp_gcp(tp_space *space, const tp_dense *X, const tp_dense *mask,
                 const tp_gcp_options *opts, tp_kruskal *model, tp_gcp_result *result) {
  TP_CHECK_ARG(space && X && opts && model, "space, X, opts and model must not be NULL");
  TP_TRY(tpi_gcp_check_param(opts->loss, opts->loss_param));
  /* a pass's work: every element times the rank (small problems run inline) */
  const int64_t work = tp_space_set_work(space, tp_dense_count(X) * opts->rank);
  tpi_gcp_source src;
  tp_status st = tpi_gcp_dense_source(space, X, mask, opts->loss, opts->loss_param,
                                      opts->solver == TP_GCP_SOLVER_LBFGSB, &src);
  if (st == TP_SUCCESS) {
    st = tpi_gcp_run(space, &src, opts, model, result);
    src.release(src.ctx);
  }
  tp_space_set_work(space, work);
  return st;
}

/* The dense form of X in the space, and the mask of its missing coordinates. */
static tp_status gcp_sparse_to_space(tp_space *space, const tp_coo *X, const tp_coo *missing,
                                     tp_dense *dX, tp_dense *dW) {
  tp_dense host;
  TP_TRY(tp_coo_to_dense(X, &host));
  tp_status st = tp_dense_alloc(space, X->dtype, X->order, X->dims, TP_LAYOUT_LEFT, dX);
  if (st == TP_SUCCESS)
    st = tp_dense_copy_to_device(space, dX, &host);
  if (st == TP_SUCCESS && missing) {
    const int64_t count = tp_dense_count(&host);
    for (int64_t e = 0; e < count; ++e) /* the host copy becomes the mask */
      host.dtype == TP_DTYPE_F32 ? (void)(((float *)host.data)[e] = 1.0f)
                                 : (void)(((double *)host.data)[e] = 1.0);
    for (int64_t q = 0; q < missing->nnz; ++q) {
      int64_t at = 0, stride = 1;
      for (int k = 0; k < X->order; stride *= X->dims[k], ++k)
        at += missing->indices[k][q] * stride;
      host.dtype == TP_DTYPE_F32 ? (void)(((float *)host.data)[at] = 0.0f)
                                 : (void)(((double *)host.data)[at] = 0.0);
    }
    st = tp_dense_alloc(space, X->dtype, X->order, X->dims, TP_LAYOUT_LEFT, dW);
    if (st == TP_SUCCESS)
      st = tp_dense_copy_to_device(space, dW, &host);
  }
  tp_dense_free(NULL, &host);
  return st;
}

/* Adam on the nonzeros in the space: the dense form is never made. */
static tp_status gcp_sparse_adam(tp_space *space, const tp_coo *X, const tp_coo *missing,
                                 const tp_gcp_options *opts, tp_kruskal *model,
                                 tp_gcp_result *result) {
  TP_CHECK_ARG(!missing, "missing entries of a sparse tensor are not supported by GCP-Adam");
  TP_TRY(tpi_gcp_check_param(opts->loss, opts->loss_param));
  tpi_gcp_source src;
  TP_TRY(tpi_gcp_sparse_source(space, X, opts->loss, &src));
  tp_status st = tpi_gcp_run(space, &src, opts, model, result);
  src.release(src.ctx);
  return st;
}

static tp_status gcp_check_missing(const tp_coo *X, const tp_coo *missing) {
  if (!missing)
    return TP_SUCCESS;
  TP_TRY(tp_coo_validate(missing));
  TP_CHECK_ARG(missing->order == X->order, "the missing entries have %d modes, X %d",
               missing->order, X->order);
  for (int k = 0; k < X->order; ++k)
    TP_CHECK_ARG(missing->dims[k] == X->dims[k], "the missing entries' dim %d is %lld, X's %lld", k,
                 (long long)missing->dims[k], (long long)X->dims[k]);
  return TP_SUCCESS;
}

tp_status tp_gcp_sparse(tp_space *space, const tp_coo *X, const tp_coo *missing,
                        const tp_gcp_options *opts, tp_kruskal *model, tp_gcp_result *result) {
  TP_CHECK_ARG(space && X && opts && model, "space, X, opts and model must not be NULL");
  TP_TRY(tp_coo_validate(X));
  TP_CHECK_ARG(X->order >= 2 && X->order <= TP_DENSE_MAX_ORDER, "X has %d modes: GCP takes 2 to %d",
               X->order, TP_DENSE_MAX_ORDER);
  TP_TRY(gcp_check_missing(X, missing));
  if (opts->solver == TP_GCP_SOLVER_ADAM)
    return gcp_sparse_adam(space, X, missing, opts, model, result);
  tp_dense dX, dW;
  memset(&dX, 0, sizeof dX), memset(&dW, 0, sizeof dW);
  tp_status st = gcp_sparse_to_space(space, X, missing, &dX, &dW);
  if (st == TP_SUCCESS)
    st = tp_gcp(space, &dX, missing ? &dW : NULL, opts, model, result);
  tp_dense_free(space, &dW);
  tp_dense_free(space, &dX);
  return st;
}
