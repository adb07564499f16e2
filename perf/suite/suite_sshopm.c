/* SS-HOPM cases: batches of random unit-norm symmetric tensors (m, n) = (4, 3) and
 * (6, 3), f32, 128 starts each, the fixed convex shift alpha = m - 1 for exactly 50
 * iterations (the DW-MRI workload). Tensors: 2^20 on GPUs and 2^15 on CPUs (full),
 * 2^10 (quick).
 *
 * Counts: items = tensor-start iterations; flops = items x the per-iteration count of
 * micro_sshopm_flops_fixed; bytes = the tensors, read once; ceiling and model: the flops at
 * the FP32 FMA rate.
 * Checks: the timed run itself, on its first 512 (tensor, start) runs: exactly 50
 * iterations each, |x| = 1 and lambda = A x^m of the returned x, recomputed in double,
 * within 1e-4; then the same batch run untimed with the adaptive shift to convergence:
 * every converged run among the first 512 has residual |A x^(m-1) - lambda x| <= 1e-3
 * in double, and at least 90% of all runs converge. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "perf/suite/suite.h"
#include "portable/tp_error.h"

enum { STARTS = 128, ITERATIONS = 50, CHECKED = 512 };

typedef struct sshopm_case {
  tp_space *space;
  tp_sshopm_problem problem;
  tp_sshopm_options options;
  float *tensors, *starts; /* in the space */
  tp_sshopm_out_f32 out;
  double *host_tensors; /* every tensor in double, for the checks */
} sshopm_case;

static tp_status solve_op(void *ctx) {
  sshopm_case *c = (sshopm_case *)ctx;
  return tp_sshopm_f32(c->space, &c->problem, c->tensors, c->starts, &c->options, &c->out);
}

static tp_status upload_f32(tp_space *s, const double *src, int64_t n, float **dst) {
  float *f = (float *)malloc(sizeof(float) * (size_t)n);
  if (!f)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no room for %lld floats on the host", (long long)n);
  for (int64_t i = 0; i < n; ++i)
    f[i] = (float)src[i];
  tp_status st = tp_alloc(s, sizeof(float) * (size_t)n, (void **)dst);
  if (st == TP_SUCCESS)
    st = tp_copy_to_device(s, *dst, f, sizeof(float) * (size_t)n);
  if (st == TP_SUCCESS)
    st = tp_space_fence(s);
  free(f);
  return st;
}

/* T random tensors of unit Frobenius norm (multiplicities counted), as doubles. */
static tp_status random_tensors(int m, int n, int64_t T, int64_t unique, double *out) {
  int64_t *mult = (int64_t *)malloc(sizeof(int64_t) * (size_t)unique);
  if (!mult)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no room for the multiplicities");
  tp_status st = tp_sym_index_table(m, n, NULL, mult);
  uint64_t state = 0x9e3779b97f4a7c15ull;
  for (int64_t t = 0; st == TP_SUCCESS && t < T; ++t) {
    double *a = out + t * unique, norm2 = 0;
    for (int64_t j = 0; j < unique; ++j) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      a[j] = (double)(state >> 11) * 0x1.0p-52 - 1.0;
      norm2 += (double)mult[j] * a[j] * a[j];
    }
    for (int64_t j = 0; j < unique; ++j)
      a[j] /= sqrt(norm2);
  }
  free(mult);
  return st;
}

static tp_status make_case(sshopm_case *c, int m, int n, int64_t T) {
  int64_t unique;
  TP_TRY(tp_sym_unique_count(m, n, &unique));
  c->problem.order = m, c->problem.dim = n, c->problem.num_tensors = T;
  c->problem.num_starts = STARTS;
  double *tensors = (double *)malloc(sizeof(double) * (size_t)(T * unique));
  double starts[STARTS * TP_SSHOPM_MAX_DIM];
  if (!tensors)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no room for %lld tensors", (long long)T);
  tp_status st = random_tensors(m, n, T, unique, tensors);
  if (st == TP_SUCCESS)
    st = tp_sshopm_random_starts_f64(7, n, STARTS, starts);
  if (st == TP_SUCCESS)
    st = upload_f32(c->space, tensors, T * unique, &c->tensors);
  if (st == TP_SUCCESS)
    st = upload_f32(c->space, starts, (int64_t)STARTS * n, &c->starts);
  c->host_tensors = tensors;
  const size_t runs = (size_t)(T * STARTS);
  void *lambda = NULL, *x = NULL, *flag = NULL, *its = NULL;
  if (st == TP_SUCCESS)
    st = tp_alloc(c->space, sizeof(float) * runs, &lambda);
  if (st == TP_SUCCESS)
    st = tp_alloc(c->space, sizeof(float) * runs * (size_t)n, &x);
  if (st == TP_SUCCESS)
    st = tp_alloc(c->space, runs, &flag);
  if (st == TP_SUCCESS)
    st = tp_alloc(c->space, sizeof(int32_t) * runs, &its);
  c->out.lambda = (float *)lambda, c->out.x = (float *)x;
  c->out.flag = (int8_t *)flag, c->out.iterations = (int32_t *)its;
  return st;
}

static void free_case(sshopm_case *c) {
  tp_free(c->space, c->tensors), tp_free(c->space, c->starts);
  tp_free(c->space, c->out.lambda), tp_free(c->space, c->out.x);
  tp_free(c->space, c->out.flag), tp_free(c->space, c->out.iterations);
  free(c->host_tensors);
}

/* Worst residual of the converged runs among the first CHECKED, and the converged share
 * of all runs. */
static tp_status check_converged(sshopm_case *c, double *worst, double *share) {
  const int m = c->problem.order, n = c->problem.dim;
  const int64_t runs = c->problem.num_tensors * STARTS, checked = runs < CHECKED ? runs : CHECKED;
  int64_t unique;
  TP_TRY(tp_sym_unique_count(m, n, &unique));
  int8_t *flag = (int8_t *)malloc((size_t)runs);
  float lambda[CHECKED], x[CHECKED * TP_SSHOPM_MAX_DIM];
  if (!flag)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no room for the flags");
  tp_status st = tp_copy_to_host(c->space, flag, c->out.flag, (size_t)runs);
  if (st == TP_SUCCESS)
    st = tp_copy_to_host(c->space, lambda, c->out.lambda, sizeof(float) * (size_t)checked);
  if (st == TP_SUCCESS)
    st = tp_copy_to_host(c->space, x, c->out.x, sizeof(float) * (size_t)(checked * n));
  int64_t converged = 0;
  *worst = 0;
  for (int64_t i = 0; st == TP_SUCCESS && i < runs; ++i) {
    if (flag[i] != TP_SSHOPM_CONVERGED)
      continue;
    ++converged;
    if (i >= checked)
      continue;
    double xv[TP_SSHOPM_MAX_DIM], y[TP_SSHOPM_MAX_DIM], r2 = 0;
    for (int d = 0; d < n; ++d)
      xv[d] = x[i * n + d];
    st = tp_sym_axm1_f64(m, n, c->host_tensors + (i / STARTS) * unique, xv, y);
    for (int d = 0; d < n; ++d)
      r2 += (y[d] - lambda[i] * xv[d]) * (y[d] - lambda[i] * xv[d]);
    *worst = fmax(*worst, sqrt(r2));
  }
  *share = (double)converged / (double)runs;
  free(flag);
  return st;
}

/* The fixed-shift run just timed: on the first CHECKED runs, the iteration count, the
 * norm of x and lambda = A x^m of that x (in double); *worst gets the largest error. */
static tp_status check_fixed(sshopm_case *c, double *worst) {
  const int m = c->problem.order, n = c->problem.dim;
  const int64_t runs = c->problem.num_tensors * STARTS, checked = runs < CHECKED ? runs : CHECKED;
  int64_t unique;
  TP_TRY(tp_sym_unique_count(m, n, &unique));
  float lambda[CHECKED], x[CHECKED * TP_SSHOPM_MAX_DIM];
  int32_t its[CHECKED];
  TP_TRY(tp_copy_to_host(c->space, lambda, c->out.lambda, sizeof(float) * (size_t)checked));
  TP_TRY(tp_copy_to_host(c->space, x, c->out.x, sizeof(float) * (size_t)(checked * n)));
  TP_TRY(tp_copy_to_host(c->space, its, c->out.iterations, sizeof(int32_t) * (size_t)checked));
  *worst = 0;
  for (int64_t i = 0; i < checked; ++i) {
    double xv[TP_SSHOPM_MAX_DIM], norm2 = 0, axm = 0;
    for (int d = 0; d < n; ++d)
      xv[d] = x[i * n + d], norm2 += xv[d] * xv[d];
    TP_TRY(tp_sym_axm_f64(m, n, c->host_tensors + (i / STARTS) * unique, xv, &axm));
    double err = fmax(fabs(sqrt(norm2) - 1), fabs(axm - lambda[i]));
    *worst = its[i] == ITERATIONS && isfinite(err) ? fmax(*worst, err) : INFINITY;
  }
  return TP_SUCCESS;
}

static tp_status bench_shape(tps_run *run, int m, int n, int64_t T) {
  sshopm_case c;
  memset(&c, 0, sizeof c);
  c.space = run->space;
  char what[64];
  snprintf(what, sizeof what, "SS-HOPM (%d,%d)", m, n);
  tps_announce(run, what);
  tp_status st = make_case(&c, m, n, T);
  double ms = 0, worst = 0, share = 0, fixed_error = INFINITY;
  tp_sshopm_options_init(&c.options);
  c.options.shift = TP_SHIFT_FIXED, c.options.alpha = m - 1;
  c.options.tol = 0, c.options.max_iterations = ITERATIONS;
  if (st == TP_SUCCESS)
    st = micro_time(run->space, NULL, solve_op, &c, run->warmup, run->reps, &ms);
  if (st == TP_SUCCESS)
    st = check_fixed(&c, &fixed_error);
  tp_sshopm_options_init(&c.options);
  c.options.tol = 1e-6, c.options.xtol = 1e-4;
  if (st == TP_SUCCESS)
    st = solve_op(&c);
  if (st == TP_SUCCESS)
    st = check_converged(&c, &worst, &share);
  free_case(&c);
  TP_TRY(st);
  tps_result *r = tps_add(run, "sshopm", tp_sshopm_has_unrolled(m, n) ? "unrolled" : "generic",
                          "(%d,%d) f32, %lld tensors x %d starts, %d its", m, n, (long long)T,
                          STARTS, ITERATIONS);
  if (!r)
    return TP_ERROR(TP_ERROR_CAPACITY, "the suite's result table is full");
  r->ms = ms;
  r->items = (double)T * STARTS * ITERATIONS;
  snprintf(r->items_unit, sizeof r->items_unit, "tensor-start its");
  r->flops = r->items * micro_sshopm_flops_fixed(m, n, 0); /* the timed runs: no xtol */
  int64_t unique = 0;
  tp_sym_unique_count(m, n, &unique);
  r->bytes = 4.0 * (double)T * (double)unique; /* each tensor read once: compute bound */
  r->ceiling = TPS_CEILING_FMA_F32;
  r->model_ms = tps_roofline_ms(run, r->flops, 0, TPS_CEILING_FMA_F32);
  snprintf(r->model, sizeof r->model, "FMA peak");
  r->verified = fixed_error <= 1e-4 && worst <= 1e-3 && share >= 0.9;
  snprintf(r->check, sizeof r->check, "lambda %.0e; resid. %.0e, %.0f%% conv.", fixed_error, worst,
           100 * share);
  return TP_SUCCESS;
}

tp_status tps_sshopm(tps_run *run) {
  int64_t T = !run->full ? 1 << 10 : run->info.is_gpu ? 1 << 20 : 1 << 15;
  TP_TRY(bench_shape(run, 4, 3, T));
  return bench_shape(run, 6, 3, T);
}
