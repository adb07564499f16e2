/* GCP-Adam: epochs of Adam steps along sampled gradients, the objective estimated on a
 * fixed sample after each epoch; an epoch that raises the estimate is undone (factors and
 * moments) and the step shrinks by decay (Kolda & Hong 2020, as pyttb and GenTen run
 * it). The host keeps the loop; samples, gradients and steps run in the space
 * (gcp_sample_template.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tenport/memory.h"
#include "tenport/primitives.h"
#include "portable/tp_clock.h"
#include "portable/tp_error.h"
#include "portable/tp_space_common.h"
#include "portable/tp_sort_internal.h"
#include "algorithms/gcp/tp_gcp_internal.h"

#define GCP_STREAM_FUNCTION 0x46455354u /* the fixed sample's key */
#define GCP_STREAM_STEPS 0x47524144u    /* step t's key: this stream mixed with t */

/* A sample's arrays in the space, for `capacity` samples. */
typedef struct gcp_sample_buffers {
  tpi_gcp_sample_view v;
  int64_t capacity, count;
  void *block;
} gcp_sample_buffers;

static tp_status gcp_sample_alloc(tp_space *space, int order, int64_t capacity,
                                  gcp_sample_buffers *b) {
  memset(b, 0, sizeof *b);
  b->capacity = capacity;
  const size_t n = (size_t)capacity;
  TP_TRY(tp_alloc(space, n * (3 * sizeof(double) + (size_t)order * sizeof(uint32_t)), &b->block));
  double *d = (double *)b->block;
  b->v.x = d, b->v.w = d + n, b->v.y = d + 2 * n;
  uint32_t *u = (uint32_t *)(d + 3 * n);
  for (int k = 0; k < order; ++k)
    b->v.idx[k] = u + (size_t)k * n;
  return TP_SUCCESS;
}

/* Everything a run holds in the space. */
typedef struct gcp_adam_run {
  tp_space *space;
  const tpi_gcp_source *src;
  const tp_gcp_options *o;
  tp_kruskal *M;
  tp_kruskal G, m, v, keep, keep_m, keep_v; /* gradient, moments, the last good epoch */
  gcp_sample_buffers fsample, gsample;
  uint32_t *keys, *order;
  double *partial;
  int64_t t; /* steps taken */
  uint64_t seed;
} gcp_adam_run;

static tp_status gcp_kruskal_like(tp_space *space, const tp_kruskal *M, tp_kruskal *out) {
  return tp_kruskal_alloc(space, M->dtype, M->order, M->dims, M->rank, out);
}

static tp_status gcp_kruskal_zero(tp_space *space, tp_kruskal *K) {
  for (int k = 0; k < K->order; ++k)
    TP_TRY(tp_memset(space, K->factors[k], 0,
                     tp_dtype_size(K->dtype) * (size_t)(K->dims[k] * K->rank)));
  return TP_SUCCESS;
}

static tp_status gcp_kruskal_copy(tp_space *space, tp_kruskal *dst, const tp_kruskal *src) {
  for (int k = 0; k < src->order; ++k)
    TP_TRY(tp_copy_on_device(space, dst->factors[k], src->factors[k],
                             tp_dtype_size(src->dtype) * (size_t)(src->dims[k] * src->rank)));
  return TP_SUCCESS;
}

static tp_status gcp_adam_alloc(gcp_adam_run *r) {
  tp_kruskal *all[6] = {&r->G, &r->m, &r->v, &r->keep, &r->keep_m, &r->keep_v};
  for (int j = 0; j < 6; ++j)
    TP_TRY(gcp_kruskal_like(r->space, r->M, all[j]));
  TP_TRY(gcp_kruskal_zero(r->space, &r->m));
  TP_TRY(gcp_kruskal_zero(r->space, &r->v));
  int64_t capacity[2];
  TP_TRY(r->src->plan(r->src->ctx, r->o, capacity));
  TP_TRY(gcp_sample_alloc(r->space, r->M->order, capacity[0], &r->fsample));
  TP_TRY(gcp_sample_alloc(r->space, r->M->order, capacity[1], &r->gsample));
  TP_TRY(tp_alloc(r->space, 2 * sizeof(uint32_t) * (size_t)capacity[1], (void **)&r->keys));
  r->order = r->keys + capacity[1];
  const int64_t most = capacity[0] > capacity[1] ? capacity[0] : capacity[1];
  return tp_alloc(r->space, sizeof(double) * (size_t)tpi_gcp_chunks(most), (void **)&r->partial);
}

static void gcp_adam_free(gcp_adam_run *r) {
  tp_kruskal *all[6] = {&r->G, &r->m, &r->v, &r->keep, &r->keep_m, &r->keep_v};
  for (int j = 0; j < 6; ++j)
    tp_kruskal_free(r->space, all[j]);
  tp_free(r->space, r->fsample.block), tp_free(r->space, r->gsample.block);
  tp_free(r->space, r->keys), tp_free(r->space, r->partial);
}

static uint64_t gcp_key(uint64_t seed, uint64_t stream, uint64_t n) {
  return tpi_gcp_stream_mix(seed) ^ tpi_gcp_stream_mix(stream) ^ tpi_gcp_stream_mix(n + 1);
}

/* Over ranks: a failure on any rank is every rank's, so that none waits in a collective
 * for one that left (every rank reaches each call). One process: st. */
static tp_status gcp_agree(const gcp_adam_run *r, tp_status st) {
  return r->src->comm ? tp_comm_agree(r->src->comm, st) : st;
}

/* The sum of w f over a drawn sample at the current factors (over ranks: every rank's
 * part of the sample). */
static tp_status gcp_sample_objective(gcp_adam_run *r, gcp_sample_buffers *b, double *f) {
  tpi_gcp_sample_eval q = {b->v, b->count, r->M, r->o->loss, r->o->loss_param, 0, 0};
  *f = 0;
  tp_status st = b->count > 0 ? tpi_gcp_sample_fg(r->space, &q, r->partial) : TP_SUCCESS;
  if (st == TP_SUCCESS && b->count > 0)
    st = tpi_gcp_sum_partials(r->space, r->partial, tpi_gcp_chunks(b->count), f);
  TP_TRY(gcp_agree(r, st));
  return r->src->comm ? tp_comm_allreduce_host(r->src->comm, f, 1, TP_DTYPE_F64, TP_COMM_SUM)
                      : TP_SUCCESS;
}

/* The sampled gradient: the MTTKRP of the sample's y per mode, every one at the same
 * factors. */
static tp_status gcp_sampled_gradient(gcp_adam_run *r, const tpi_gcp_sample_eval *q) {
  const gcp_sample_buffers *b = &r->gsample;
  for (int n = 0; n < r->M->order; ++n) {
    TP_TRY(tpi_gcp_sample_sort_keys(r->space, b->v.idx[n], b->count, r->keys, r->order));
    TP_TRY(tp_sort_pairs_u32_u32(r->space, r->keys, r->order, b->count, 0,
                                 tp_sort_index_bits(r->M->dims[n])));
    TP_TRY(tpi_gcp_sample_mttkrp(r->space, q, n, r->keys, r->order, r->G.factors[n]));
  }
  return TP_SUCCESS;
}

/* Over ranks: the gradient is the sum of every rank's part of the sample's. */
static tp_status gcp_gradient_sum(gcp_adam_run *r, tp_status st) {
  TP_TRY(gcp_agree(r, st));
  for (int n = 0; r->src->comm && n < r->M->order; ++n)
    TP_TRY(tp_comm_allreduce(r->src->comm, r->G.factors[n], r->M->dims[n] * r->M->rank, r->M->dtype,
                             TP_COMM_SUM));
  return TP_SUCCESS;
}

/* One step: a gradient sample, its MTTKRP per mode, Adam's update of every factor. */
static tp_status gcp_adam_step(gcp_adam_run *r, double step) {
  r->t++;
  gcp_sample_buffers *b = &r->gsample;
  /* y at the samples; the step needs no objective, so no sum comes back to the host */
  tpi_gcp_sample_eval q = {b->v, 0, r->M, r->o->loss, r->o->loss_param, 1, 0};
  tp_status st = r->src->draw(r->src->ctx, r->space, 1,
                              gcp_key(r->seed, GCP_STREAM_STEPS, (uint64_t)r->t), b->v, &b->count);
  q.count = b->count;
  if (st == TP_SUCCESS && b->count > 0)
    st = tpi_gcp_sample_fg(r->space, &q, NULL);
  if (st == TP_SUCCESS)
    st = gcp_sampled_gradient(r, &q);
  TP_TRY(gcp_gradient_sum(r, st));
  tpi_gcp_adam_step a = {step, r->o->beta1, r->o->beta2, r->o->eps, r->o->lower, r->t};
  for (int n = 0; st == TP_SUCCESS && n < r->M->order; ++n)
    st = tpi_gcp_adam(r->space, r->M->dtype, &a, r->M->factors[n], r->m.factors[n], r->v.factors[n],
                      r->G.factors[n], r->M->dims[n] * r->M->rank);
  return gcp_agree(r, st);
}

static tp_status gcp_adam_keep(gcp_adam_run *r) {
  TP_TRY(gcp_kruskal_copy(r->space, &r->keep, r->M));
  TP_TRY(gcp_kruskal_copy(r->space, &r->keep_m, &r->m));
  return gcp_kruskal_copy(r->space, &r->keep_v, &r->v);
}

static tp_status gcp_adam_undo(gcp_adam_run *r) {
  TP_TRY(gcp_kruskal_copy(r->space, r->M, &r->keep));
  TP_TRY(gcp_kruskal_copy(r->space, &r->m, &r->keep_m));
  return gcp_kruskal_copy(r->space, &r->v, &r->keep_v);
}

static void gcp_adam_stop(tp_gcp_result *res, const char *why) {
  strncpy(res->stop_reason, why, sizeof res->stop_reason - 1);
  res->stop_reason[sizeof res->stop_reason - 1] = '\0';
}

/* The epochs; *f_best is the estimate of the last accepted epoch. */
static tp_status gcp_adam_epochs(gcp_adam_run *r, double t0, double *f_best, tp_gcp_result *res) {
  const tp_gcp_options *o = r->o;
  int fails = 0;
  gcp_adam_stop(res, "epochs");
  for (int epoch = 1; epoch <= o->epochs; ++epoch) {
    const double step = o->rate * pow(o->decay, fails);
    for (int i = 0; i < o->epoch_iters; ++i)
      TP_TRY(gcp_adam_step(r, step));
    res->evaluations += o->epoch_iters;
    double f;
    TP_TRY(gcp_sample_objective(r, &r->fsample, &f));
    const int failed = !(f <= *f_best); /* NaN fails too */
    res->iterations = epoch;
    if (failed) {
      ++fails, ++res->failed_epochs;
      TP_TRY(gcp_agree(r, gcp_adam_undo(r)));
    } else {
      *f_best = f;
      TP_TRY(gcp_agree(r, gcp_adam_keep(r)));
    }
    if (o->progress) {
      tp_gcp_progress p = {
          epoch, res->evaluations, failed ? *f_best : f, 0.0, tp_wall_seconds() - t0, step, failed};
      o->progress(&p, o->progress_user);
    }
    if (o->cancel && *o->cancel)
      return TP_ERROR(TP_ERROR_CANCELLED, "GCP cancelled after %d epochs", epoch);
    if (fails > o->max_fails) {
      gcp_adam_stop(res, "max_fails");
      res->converged = 1;
      break;
    }
    if (*f_best < o->f_est_tol) {
      gcp_adam_stop(res, "f_est_tol");
      res->converged = 1;
      break;
    }
    if (o->max_seconds > 0 && tp_wall_seconds() - t0 > o->max_seconds) {
      res->stopped_by_time = 1;
      gcp_adam_stop(res, "max_seconds");
      break;
    }
  }
  return TP_SUCCESS;
}

static tp_status gcp_adam_check(const tp_gcp_options *o, const tpi_gcp_source *src) {
  TP_CHECK_ARG(src->plan && src->draw, "this tensor cannot be sampled");
  TP_CHECK_ARG(o->epochs >= 1 && o->epoch_iters >= 1,
               "epochs = %d and epoch_iters = %d must "
               "be >= 1",
               o->epochs, o->epoch_iters);
  TP_CHECK_ARG(isfinite(o->rate) && o->rate > 0, "rate = %g must be finite and > 0", o->rate);
  TP_CHECK_ARG(isfinite(o->decay) && o->decay > 0 && o->decay <= 1, "decay = %g: 0 < decay <= 1",
               o->decay);
  TP_CHECK_ARG(o->max_fails >= 0, "max_fails = %d must be >= 0", o->max_fails);
  TP_CHECK_ARG(o->beta1 >= 0 && o->beta1 < 1 && o->beta2 >= 0 && o->beta2 < 1,
               "Adam's beta1 = %g and beta2 = %g must lie in [0, 1)", o->beta1, o->beta2);
  TP_CHECK_ARG(isfinite(o->eps) && o->eps > 0, "Adam's eps = %g must be finite and > 0", o->eps);
  TP_CHECK_ARG(!isnan(o->f_est_tol), "f_est_tol is NaN");
  return TP_SUCCESS;
}

tp_status tpi_gcp_adam_solve(tp_space *space, const tpi_gcp_source *src, const tp_gcp_options *o,
                             double *x, tp_kruskal *M, tp_gcp_result *res) {
  TP_TRY(gcp_adam_check(o, src));
  const double t0 = tp_wall_seconds();
  gcp_adam_run r;
  memset(&r, 0, sizeof r);
  r.space = space, r.src = src, r.o = o, r.M = M, r.seed = o->seed;
  tp_status st = gcp_adam_alloc(&r);
  double f = NAN;
  if (st == TP_SUCCESS)
    st = tpi_gcp_vector_to_space(space, x, M);
  if (st == TP_SUCCESS) /* the fixed sample of the estimates */
    st = src->draw(src->ctx, space, 0, gcp_key(r.seed, GCP_STREAM_FUNCTION, 0), r.fsample.v,
                   &r.fsample.count);
  st = gcp_agree(&r, st);
  if (st == TP_SUCCESS)
    st = gcp_sample_objective(&r, &r.fsample, &f);
  if (st == TP_SUCCESS) {
    res->initial_loss = f;
    st = gcp_agree(&r, gcp_adam_keep(&r));
  }
  if (st == TP_SUCCESS)
    st = gcp_adam_epochs(&r, t0, &f, res);
  if (st == TP_SUCCESS)
    st = tpi_gcp_space_to_vector(space, M, x); /* the last accepted epoch's */
  res->loss = f, res->loss_is_estimate = 1;
  gcp_adam_free(&r);
  return st;
}
