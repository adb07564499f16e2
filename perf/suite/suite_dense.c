/* Dense cases: mode-k MTTKRP of a tensor shaped like the GenTen paper's tensor A
 * (401 x 201 x 12 x 501, f64, R = 32; 101 x 51 x 12 x 125 in the quick sizes), with the
 * variant `auto` picks and with GEMM, averaged over the modes; and one CP-ALS iteration.
 *
 * MTTKRP counts: flops 2 N R (one multiply-add per element and column, as GEMM and
 * BLOCKED perform them), bytes N s (one read of the tensor, the memory floor). Model: the
 * roofline, max(bytes / copy, flops / FP64 GEMM). Check: auto and GEMM agree on every
 * row of every mode (relative to the largest entry, <= 1e-10).
 * CP-ALS counts: bytes = tensor reads per iteration (the library reports them) x N s;
 * model: those reads at copy speed. Check: the fit is finite and in [0, 1]. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "perf/suite/suite.h"
#include "portable/tp_error.h"

typedef struct dense_case {
  tps_run *run;
  tp_dense X;
  tp_kruskal U;
  void *G_auto, *G_gemm;
  int64_t rank, count;
  tp_mttkrp_options opts;
  int mode;
  void *G;
} dense_case;

static tp_status mttkrp_op(void *ctx) {
  dense_case *c = (dense_case *)ctx;
  return tp_mttkrp(c->run->space, &c->X, &c->U, c->mode, c->G, &c->opts);
}

static tp_status make_inputs(dense_case *c, const int64_t *dims, int order) {
  tp_space *s = c->run->space;
  tp_dense host;
  tp_kruskal host_U;
  TP_TRY(tp_dense_alloc(NULL, TP_DTYPE_F64, order, dims, TP_LAYOUT_LEFT, &host));
  tp_status st = tp_dense_random_uniform(&host, 2026);
  if (st == TP_SUCCESS)
    st = tp_dense_alloc(s, TP_DTYPE_F64, order, dims, TP_LAYOUT_LEFT, &c->X);
  if (st == TP_SUCCESS)
    st = tp_dense_copy_to_device(s, &c->X, &host);
  tp_dense_free(NULL, &host);
  TP_TRY(st);
  TP_TRY(tp_kruskal_alloc(NULL, TP_DTYPE_F64, order, dims, c->rank, &host_U));
  st = tp_kruskal_random(&host_U, 2027);
  if (st == TP_SUCCESS)
    st = tp_kruskal_alloc(s, TP_DTYPE_F64, order, dims, c->rank, &c->U);
  if (st == TP_SUCCESS)
    st = tp_kruskal_copy_to_device(s, &c->U, &host_U);
  tp_kruskal_free(NULL, &host_U);
  TP_TRY(st);
  int64_t most = 0;
  for (int m = 0; m < order; ++m)
    most = dims[m] > most ? dims[m] : most;
  size_t g_bytes = sizeof(double) * (size_t)(most * c->rank);
  TP_TRY(tp_alloc(s, g_bytes, &c->G_auto));
  return tp_alloc(s, g_bytes, &c->G_gemm);
}

static void free_inputs(dense_case *c) {
  tp_space *s = c->run->space;
  tp_dense_free(s, &c->X);
  tp_kruskal_free(s, &c->U);
  tp_free(s, c->G_auto), tp_free(s, c->G_gemm);
}

/* Times one variant on every mode into G; *mean_ms averages the modes. */
static tp_status time_variant(dense_case *c, tp_mttkrp_variant v, void *G, double *mean_ms) {
  c->opts = tp_mttkrp_options_default();
  c->opts.variant = v;
  c->G = G;
  double sum = 0;
  for (c->mode = 0; c->mode < c->X.order; ++c->mode) {
    double ms = 0;
    TP_TRY(micro_time(c->run->space, NULL, mttkrp_op, c, c->run->warmup, c->run->reps, &ms));
    sum += ms;
  }
  *mean_ms = sum / c->X.order;
  return TP_SUCCESS;
}

static void fill_mttkrp(dense_case *c, tps_result *r, double ms) {
  r->ms = ms;
  r->flops = 2.0 * (double)c->count * (double)c->rank;
  r->bytes = 8.0 * (double)c->count;
  double t_copy = tps_roofline_ms(c->run, 0, r->bytes, TPS_CEILING_NONE);
  double t_gemm = tps_roofline_ms(c->run, r->flops, 0, TPS_CEILING_GEMM_F64);
  r->ceiling = t_copy >= t_gemm ? TPS_CEILING_COPY : TPS_CEILING_GEMM_F64;
  r->model_ms = t_copy > t_gemm ? t_copy : t_gemm;
  snprintf(r->model, sizeof r->model, "roofline");
}

/* The two variants, and the check that they agree on every mode. The agreement check
 * re-runs each mode once untimed, so both outputs hold the same mode. */
static tp_status bench_mttkrp(dense_case *c, const char *shape) {
  tps_announce(c->run, "dense MTTKRP");
  double ms_auto = 0, ms_gemm = 0, worst = 0;
  char chosen[24]; /* the variant auto runs, when it is the same on every mode */
  snprintf(chosen, sizeof chosen, "%s",
           tp_mttkrp_variant_name(tp_mttkrp_choose(c->run->space, &c->X, 0, c->rank, NULL)));
  for (int m = 1; m < c->X.order; ++m)
    if (tp_mttkrp_choose(c->run->space, &c->X, m, c->rank, NULL) !=
        tp_mttkrp_choose(c->run->space, &c->X, 0, c->rank, NULL))
      snprintf(chosen, sizeof chosen, "auto (mixed)");
  TP_TRY(time_variant(c, TP_MTTKRP_AUTO, c->G_auto, &ms_auto));
  TP_TRY(time_variant(c, TP_MTTKRP_GEMM, c->G_gemm, &ms_gemm));
  for (int m = 0; m < c->X.order; ++m) {
    double rel = 0;
    TP_TRY(tp_mttkrp(c->run->space, &c->X, &c->U, m, c->G_auto, NULL));
    tp_mttkrp_options g = tp_mttkrp_options_default();
    g.variant = TP_MTTKRP_GEMM;
    TP_TRY(tp_mttkrp(c->run->space, &c->X, &c->U, m, c->G_gemm, &g));
    TP_TRY(tps_max_rel_diff(c->run->space, c->G_auto, c->G_gemm, (size_t)(c->X.dims[m] * c->rank),
                            TP_DTYPE_F64, &rel));
    worst = fmax(worst, rel);
  }
  const double ms[2] = {ms_auto, ms_gemm};
  const char *kernel[2] = {chosen, "gemm"};
  for (int k = 0; k < 2; ++k) {
    tps_result *r = tps_add(c->run, "dense-mttkrp", kernel[k], "%s f64 R=%lld, mode avg", shape,
                            (long long)c->rank);
    if (!r)
      return TP_ERROR(TP_ERROR_CAPACITY, "the suite's result table is full");
    fill_mttkrp(c, r, ms[k]);
    r->verified = worst <= 1e-10;
    snprintf(r->check, sizeof r->check, "auto vs gemm %.1e", worst);
  }
  return TP_SUCCESS;
}

typedef struct iteration_times {
  double seconds[16];
  int count;
} iteration_times;

static void keep_iteration(const tp_cp_als_progress *p, void *user) {
  iteration_times *t = (iteration_times *)user;
  if (t->count < 16)
    t->seconds[t->count++] = p->seconds;
}

/* One CP-ALS iteration: the median over iterations 2.. of a short run (tol 0). */
static tp_status bench_cp_als(dense_case *c, const char *shape) {
  tps_announce(c->run, "dense CP-ALS");
  tp_kruskal model;
  TP_TRY(tp_kruskal_alloc(c->run->space, TP_DTYPE_F64, c->X.order, c->X.dims, c->rank, &model));
  iteration_times t;
  memset(&t, 0, sizeof t);
  tp_cp_als_options o = tp_cp_als_options_default();
  o.rank = c->rank, o.tol = 0, o.max_iters = c->run->reps + 1;
  o.line_search = 0; /* the ALS iteration itself, as recorded before the line search */
  o.progress = keep_iteration, o.progress_user = &t;
  tp_cp_als_result res;
  tp_status st = tp_cp_als(c->run->space, &c->X, &o, &model, &res);
  tp_kruskal_free(c->run->space, &model);
  TP_TRY(st);
  if (t.count < 2)
    return TP_ERROR(TP_ERROR_INVALID_ARGUMENT, "CP-ALS stopped after %d iteration(s)", t.count);
  tps_result *r =
      tps_add(c->run, "cp-als", "iteration", "%s f64 R=%lld", shape, (long long)c->rank);
  if (!r)
    return TP_ERROR(TP_ERROR_CAPACITY, "the suite's result table is full");
  r->ms = 1e3 * micro_median(t.seconds + 1, t.count - 1);
  r->bytes = 8.0 * (double)c->count * res.passes_per_iteration;
  r->ceiling = TPS_CEILING_COPY;
  r->model_ms = tps_roofline_ms(c->run, 0, r->bytes, TPS_CEILING_NONE);
  snprintf(r->model, sizeof r->model, "%d tensor reads", res.passes_per_iteration);
  r->verified = isfinite(res.fit) && res.fit >= 0 && res.fit <= 1;
  snprintf(r->check, sizeof r->check, "fit %.6f", res.fit);
  return TP_SUCCESS;
}

tp_status tps_dense(tps_run *run) {
  static const int64_t full_dims[4] = {401, 201, 12, 501}, quick_dims[4] = {101, 51, 12, 125};
  /* the full tensor takes 3.9 GB; keep it to an eighth of the memory */
  int full = run->full && run->info.memory_bytes >= (size_t)32e9;
  const int64_t *dims = full ? full_dims : quick_dims;
  dense_case c;
  memset(&c, 0, sizeof c);
  c.run = run, c.rank = 32;
  c.count = dims[0] * dims[1] * dims[2] * dims[3];
  char shape[64];
  snprintf(shape, sizeof shape, "%s %lldx%lldx%lldx%lld", full ? "A" : "A/4", (long long)dims[0],
           (long long)dims[1], (long long)dims[2], (long long)dims[3]);
  tp_status st = make_inputs(&c, dims, 4);
  if (st == TP_SUCCESS)
    st = bench_mttkrp(&c, shape);
  if (st == TP_SUCCESS)
    st = bench_cp_als(&c, shape);
  free_inputs(&c);
  return st;
}
