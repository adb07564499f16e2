/* Sparse cases: a generated 3-mode tensor with power-law indices (floor(u^4 I) per mode),
 * f32, R = 32: 1e6 x 1e6 x 1e6 with 20 M nonzeros (full, where the memory holds it) or
 * 2e4 x 2e4 x 2e4 with 2e5 (quick). FLYCOO's MTTKRP with its default record layout and
 * the COO baseline with global atomics, both averaged over the modes; one sparse CP-ALS
 * iteration.
 *
 * Counts: flops nnz R d per mode (the FLYCOO paper's: d - 1 multiplies and one add per
 * nonzero and column); bytes (micro_sparse_mode_bytes) records read (and written when
 * remapping), nnz (d-1) R gathered factor values and G written; model: those bytes at
 * copy speed (the kernels are memory bound). The baseline
 * is given the same bytes (it reads less per record but gathers the same rows), so its
 * % of ceiling compares like with like. Check: FLYCOO and the baseline agree on every
 * row of every mode within 1e-3 of the largest entry (f32 sums of up to ~1e5 terms
 * in different orders); CP-ALS: the fit is in [0, 1]. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "perf/suite/suite.h"
#include "portable/tp_error.h"

typedef struct sparse_case {
  tps_run *run;
  tp_coo host, dev;
  tp_flycoo *fly;
  tp_flycoo_stats stats;
  tp_kruskal U;
  void *G, *G_base;
  int mode;
} sparse_case;

static tp_status reorder_op(void *ctx) {
  sparse_case *c = (sparse_case *)ctx;
  return tp_flycoo_reorder(c->run->space, c->fly, c->mode);
}

static tp_status flycoo_op(void *ctx) {
  sparse_case *c = (sparse_case *)ctx;
  return tp_flycoo_mttkrp(c->run->space, c->fly, &c->U, c->mode, c->G, 1);
}

static tp_status atomic_op(void *ctx) {
  sparse_case *c = (sparse_case *)ctx;
  return tp_coo_mttkrp_atomic(c->run->space, &c->dev, &c->U, c->mode, c->G_base);
}

static tp_status make_tensor(sparse_case *c, int64_t dim, int64_t nnz) {
  tp_coo_random_options o;
  memset(&o, 0, sizeof o);
  o.dtype = TP_DTYPE_F32, o.order = 3, o.nnz = nnz, o.seed = 2026;
  o.values = TP_COO_VALUES_UNIFORM;
  for (int m = 0; m < 3; ++m)
    o.dims[m] = dim, o.skew[m] = 4;
  int64_t merged = 0;
  TP_TRY(tp_coo_random(&o, &c->host, &merged));
  TP_TRY(tp_coo_copy_to_device(c->run->space, &c->dev, &c->host));
  tp_flycoo_options fo = tp_flycoo_options_default();
  TP_TRY(tp_flycoo_create(c->run->space, &c->host, &fo, &c->fly));
  return tp_flycoo_get_stats(c->fly, &c->stats);
}

static tp_status make_factors(sparse_case *c, int64_t rank) {
  tp_space *s = c->run->space;
  tp_kruskal host;
  TP_TRY(tp_kruskal_alloc(NULL, TP_DTYPE_F32, 3, c->host.dims, rank, &host));
  tp_status st = tp_kruskal_random(&host, 2027);
  if (st == TP_SUCCESS)
    st = tp_kruskal_alloc(s, TP_DTYPE_F32, 3, c->host.dims, rank, &c->U);
  if (st == TP_SUCCESS)
    st = tp_kruskal_copy_to_device(s, &c->U, &host);
  tp_kruskal_free(NULL, &host);
  size_t bytes = sizeof(float) * (size_t)(c->host.dims[0] * rank); /* cubical: one size */
  if (st == TP_SUCCESS)
    st = tp_alloc(s, bytes, &c->G);
  if (st == TP_SUCCESS)
    st = tp_alloc(s, bytes, &c->G_base);
  return st;
}

static void free_case(sparse_case *c) {
  tp_space *s = c->run->space;
  tp_flycoo_destroy(&c->fly);
  tp_coo_free(s, &c->dev);
  tp_coo_free(NULL, &c->host);
  tp_kruskal_free(s, &c->U);
  tp_free(s, c->G), tp_free(s, c->G_base);
}

typedef struct mode_sums {
  double flycoo_ms, atomic_ms, bytes, worst;
} mode_sums;

static tp_status measure_modes(sparse_case *c, mode_sums *s) {
  tps_run *run = c->run;
  memset(s, 0, sizeof *s);
  for (c->mode = 0; c->mode < 3; ++c->mode) {
    double fly = 0, atomic = 0, rel = 0;
    TP_TRY(micro_time(run->space, reorder_op, flycoo_op, c, run->warmup, run->reps, &fly));
    TP_TRY(micro_time(run->space, NULL, atomic_op, c, run->warmup, run->reps, &atomic));
    TP_TRY(tps_max_rel_diff(run->space, c->G, c->G_base,
                            (size_t)(c->host.dims[c->mode] * c->U.rank), TP_DTYPE_F32, &rel));
    s->flycoo_ms += fly / 3, s->atomic_ms += atomic / 3, s->worst = fmax(s->worst, rel);
    s->bytes +=
        micro_sparse_mode_bytes(&c->stats, c->U.rank, sizeof(float), c->host.dims[c->mode]) / 3;
  }
  return TP_SUCCESS;
}

static tp_status add_mttkrp(sparse_case *c, const char *shape, const mode_sums *s) {
  const char *kernel[2] = {c->stats.remaps ? "flycoo-remap" : "flycoo", "coo-atomics"};
  const double ms[2] = {s->flycoo_ms, s->atomic_ms};
  for (int k = 0; k < 2; ++k) {
    tps_result *r = tps_add(c->run, "sparse-mttkrp", kernel[k], "%s f32 R=%lld, mode avg", shape,
                            (long long)c->U.rank);
    if (!r)
      return TP_ERROR(TP_ERROR_CAPACITY, "the suite's result table is full");
    r->ms = ms[k], r->bytes = s->bytes, r->ceiling = TPS_CEILING_COPY;
    r->flops = (double)c->stats.nnz * (double)c->U.rank * 3; /* nnz R d, the paper's count */
    r->model_ms = tps_roofline_ms(c->run, 0, s->bytes, TPS_CEILING_NONE);
    snprintf(r->model, sizeof r->model, "bytes at copy speed");
    r->verified = s->worst <= 1e-3; /* f32 sums of ~1e5 terms in other orders */
    snprintf(r->check, sizeof r->check, "flycoo vs atomics %.1e", s->worst);
  }
  return TP_SUCCESS;
}

static void keep_seconds(const tp_cp_als_progress *p, void *user) {
  double *t = (double *)user;
  if (p->iteration <= 16)
    t[p->iteration - 1] = p->seconds;
}

static tp_status add_cp_als(sparse_case *c, const char *shape, double mode_bytes) {
  tps_announce(c->run, "sparse CP-ALS");
  tp_kruskal model;
  TP_TRY(tp_kruskal_alloc(c->run->space, TP_DTYPE_F32, 3, c->host.dims, c->U.rank, &model));
  double seconds[16] = {0};
  tp_cp_als_options o = tp_cp_als_options_default();
  o.rank = c->U.rank, o.tol = 0, o.max_iters = c->run->reps + 1;
  o.line_search = 0; /* the ALS iteration itself, as recorded before the line search */
  o.progress = keep_seconds, o.progress_user = seconds;
  tp_cp_als_result res;
  tp_status st = tp_cp_als_sparse(c->run->space, c->fly, &o, &model, &res);
  tp_kruskal_free(c->run->space, &model);
  TP_TRY(st);
  int n = res.iterations < 16 ? res.iterations : 16;
  if (n < 2)
    return TP_ERROR(TP_ERROR_INVALID_ARGUMENT, "sparse CP-ALS stopped after %d iteration(s)", n);
  tps_result *r =
      tps_add(c->run, "sparse-cp-als", "iteration", "%s f32 R=%lld", shape, (long long)c->U.rank);
  if (!r)
    return TP_ERROR(TP_ERROR_CAPACITY, "the suite's result table is full");
  r->ms = 1e3 * micro_median(seconds + 1, n - 1);
  r->bytes = 3 * mode_bytes, r->ceiling = TPS_CEILING_COPY;
  r->flops = 3.0 * (double)c->stats.nnz * (double)c->U.rank * 3; /* the three MTTKRPs */
  r->model_ms = tps_roofline_ms(c->run, 0, r->bytes, TPS_CEILING_NONE);
  snprintf(r->model, sizeof r->model, "3 MTTKRP passes");
  r->verified = isfinite(res.fit) && res.fit >= 0 && res.fit <= 1;
  snprintf(r->check, sizeof r->check, "fit %.6f", res.fit);
  return TP_SUCCESS;
}

tp_status tps_sparse(tps_run *run) {
  /* 20 M nonzeros take about 2 GB in the space with the baseline's copy */
  int full = run->full && run->info.memory_bytes >= (size_t)16e9;
  const int64_t dim = full ? 1000000 : 20000, nnz = full ? 20000000 : 200000;
  sparse_case c;
  memset(&c, 0, sizeof c);
  c.run = run;
  char shape[64];
  snprintf(shape, sizeof shape, "power-law %lld^3, %.3g nnz", (long long)dim, (double)nnz);
  tps_announce(run, "sparse tensor and FLYCOO");
  mode_sums sums;
  tp_status st = make_tensor(&c, dim, nnz);
  if (st == TP_SUCCESS)
    st = make_factors(&c, 32);
  if (st == TP_SUCCESS)
    tps_announce(run, "sparse MTTKRP");
  if (st == TP_SUCCESS)
    st = measure_modes(&c, &sums);
  if (st == TP_SUCCESS)
    st = add_mttkrp(&c, shape, &sums);
  if (st == TP_SUCCESS)
    st = add_cp_als(&c, shape, sums.bytes);
  free_case(&c);
  return st;
}
