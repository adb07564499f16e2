/* Batched SS-HOPM: known answers, residuals of converged pairs, agreement between the
 * unrolled and generic kernels and with a plain double-precision reference. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tp_sshopm_internal.h"
#include "tpt.h"

TestSuite(sshopm, .init = tpt_setup, .fini = tpt_teardown);

/* Kofidis & Regalia (2002), Example 1: m = 4, n = 3, unique values in lexicographic
 * order, with its known local maxima and minima. */
static const double kofidis_regalia[15] = {0.2883,  -0.0031, 0.1973,  -0.2485, -0.2939,
                                           0.3847,  0.2972,  0.1862,  0.0919,  -0.3619,
                                           0.1241,  -0.3420, 0.2127,  0.2727,  -0.3054};
static const double kr_maxima[3] = {0.8893, 0.8169, 0.3633};
static const double kr_minima[3] = {-1.0954, -0.5629, -0.0451};

/* Results of one batch, on the host. */
typedef struct runs {
  int64_t count;
  int dim;
  double *lambda, *x;
  int8_t *flag;
  int32_t *iterations;
} runs;

static void runs_free(runs *r) {
  free(r->lambda), free(r->x), free(r->flag), free(r->iterations);
  memset(r, 0, sizeof *r);
}

/* Runs the batch in the given precision and returns everything as double. */
static runs solve(int order, int dim, int64_t tensors, const double *a, int starts,
                  const double *x0, const tp_sshopm_options *o, int single) {
  int64_t unique;
  TPT_OK(tp_sym_unique_count(order, dim, &unique));
  tp_sshopm_problem p = {order, dim, tensors, starts};
  runs r;
  r.count = tensors * starts, r.dim = dim;
  size_t nr = (size_t)r.count, es = single ? sizeof(float) : sizeof(double);
  r.lambda = tpt_host_alloc(nr * sizeof(double));
  r.x = tpt_host_alloc(nr * (size_t)dim * sizeof(double));
  r.flag = tpt_host_alloc(nr);
  r.iterations = tpt_host_alloc(nr * sizeof(int32_t));
  void *da, *dx0, *dl = tpt_alloc_poisoned(nr * es), *dx = tpt_alloc_poisoned(nr * dim * es);
  int8_t *df = tpt_alloc_poisoned(nr);
  int32_t *di = tpt_alloc_poisoned(nr * sizeof(int32_t));
  if (single) {
    size_t na = (size_t)(tensors * unique), nx = (size_t)starts * dim;
    float *fa = tpt_host_alloc(na * sizeof(float)), *fx = tpt_host_alloc(nx * sizeof(float));
    for (size_t i = 0; i < na; ++i)
      fa[i] = (float)a[i];
    for (size_t i = 0; i < nx; ++i)
      fx[i] = (float)x0[i];
    da = tpt_to_space(fa, na * sizeof(float)), dx0 = tpt_to_space(fx, nx * sizeof(float));
    tp_sshopm_out_f32 out = {dl, dx, df, di};
    TPT_OK(tp_sshopm_f32(tpt_space, &p, da, dx0, o, &out));
    float *hl = tpt_host_alloc(nr * sizeof(float)), *hx = tpt_host_alloc(nr * dim * sizeof(float));
    tpt_to_host(hl, dl, nr * sizeof(float));
    tpt_to_host(hx, dx, nr * dim * sizeof(float));
    for (size_t i = 0; i < nr; ++i)
      r.lambda[i] = hl[i];
    for (size_t i = 0; i < nr * dim; ++i)
      r.x[i] = hx[i];
    free(fa), free(fx), free(hl), free(hx);
  } else {
    da = tpt_to_space(a, (size_t)(tensors * unique) * sizeof(double));
    dx0 = tpt_to_space(x0, (size_t)starts * dim * sizeof(double));
    tp_sshopm_out_f64 out = {dl, dx, df, di};
    TPT_OK(tp_sshopm_f64(tpt_space, &p, da, dx0, o, &out));
    tpt_to_host(r.lambda, dl, nr * sizeof(double));
    tpt_to_host(r.x, dx, nr * dim * sizeof(double));
  }
  tpt_to_host(r.flag, df, nr);
  tpt_to_host(r.iterations, di, nr * sizeof(int32_t));
  tpt_free(da), tpt_free(dx0), tpt_free(dl), tpt_free(dx), tpt_free(df), tpt_free(di);
  return r;
}

static double *random_starts(int dim, int starts, uint64_t seed) {
  double *x0 = tpt_host_alloc((size_t)starts * dim * sizeof(double));
  TPT_OK(tp_sshopm_random_starts_f64(seed, dim, starts, x0));
  return x0;
}

static double *random_tensors(tpt_rng *rng, int order, int dim, int64_t tensors) {
  int64_t unique;
  TPT_OK(tp_sym_unique_count(order, dim, &unique));
  double *a = tpt_host_alloc((size_t)(tensors * unique) * sizeof(double));
  for (int64_t i = 0; i < tensors * unique; ++i)
    a[i] = tpt_uniform(rng, -1, 1);
  return a;
}

/* ||A x^(m-1) - lambda x|| in double. */
static double residual(int order, int dim, const double *a, double lambda, const double *x) {
  double y[TP_SSHOPM_MAX_DIM], r2 = 0;
  TPT_OK(tp_sym_axm1_f64(order, dim, a, x, y));
  for (int i = 0; i < dim; ++i)
    r2 += (y[i] - lambda * x[i]) * (y[i] - lambda * x[i]);
  return sqrt(r2);
}

/* Every converged lambda is within tol of one of expected[] and each expected value
 * is reached; returns the number of converged runs. */
static int64_t check_lambda_set(const runs *r, const double *expected, int count, double tol,
                                const char *what) {
  int hit[8] = {0};
  int64_t converged = 0;
  for (int64_t i = 0; i < r->count; ++i) {
    if (r->flag[i] != TP_SSHOPM_CONVERGED)
      continue;
    ++converged;
    int match = -1;
    for (int k = 0; k < count; ++k)
      if (fabs(r->lambda[i] - expected[k]) <= tol)
        match = k;
    cr_assert(match >= 0, "%s: run %lld converged to lambda %.6f, not a known value", what,
              (long long)i, r->lambda[i]);
    hit[match] = 1;
  }
  for (int k = 0; k < count; ++k)
    cr_assert(hit[k], "%s: no run reached lambda %.4f", what, expected[k]);
  return converged;
}

static void kofidis_regalia_case(tp_sshopm_shift shift, double alpha, int concave,
                                 tp_sshopm_kernel kernel, int single) {
  tp_sshopm_options o;
  tp_sshopm_options_init(&o);
  o.shift = shift, o.alpha = alpha, o.concave = concave, o.kernel = kernel;
  o.tol = single ? 1e-7 : 1e-14;
  o.max_iterations = 5000;
  const int starts = 256;
  double *x0 = random_starts(3, starts, 20261122);
  runs r = solve(4, 3, 1, kofidis_regalia, starts, x0, &o, single);
  const int seek_minima = shift == TP_SHIFT_FIXED ? alpha < 0 : concave;
  char what[96];
  snprintf(what, sizeof what, "%s shift %g%s, kernel %d, %s",
           shift == TP_SHIFT_FIXED ? "fixed" : "adaptive", alpha, concave ? " concave" : "",
           (int)kernel, single ? "f32" : "f64");
  int64_t converged = check_lambda_set(&r, seek_minima ? kr_minima : kr_maxima, 3, 1e-4, what);
  cr_assert(converged >= starts * 9 / 10, "%s: only %lld of %d runs converged", what,
            (long long)converged, starts);
  for (int64_t i = 0; i < r.count; ++i)
    if (r.flag[i] == TP_SSHOPM_CONVERGED)
      cr_assert(residual(4, 3, kofidis_regalia, r.lambda[i], r.x + i * 3) <= (single ? 1e-3 : 1e-6),
                "%s: run %lld residual %.3g", what, (long long)i,
                residual(4, 3, kofidis_regalia, r.lambda[i], r.x + i * 3));
  runs_free(&r);
  free(x0);
}

Test(sshopm, kofidis_regalia_fixed_shifts_find_maxima_and_minima) {
  for (int single = 0; single <= 1; ++single)
    for (int k = TP_SSHOPM_KERNEL_GENERIC; k <= TP_SSHOPM_KERNEL_UNROLLED; ++k) {
      kofidis_regalia_case(TP_SHIFT_FIXED, 2.0, 0, (tp_sshopm_kernel)k, single);
      kofidis_regalia_case(TP_SHIFT_FIXED, -2.0, 0, (tp_sshopm_kernel)k, single);
    }
}

Test(sshopm, kofidis_regalia_adaptive_shift_reaches_the_same_sets) {
  for (int single = 0; single <= 1; ++single)
    for (int k = TP_SSHOPM_KERNEL_GENERIC; k <= TP_SSHOPM_KERNEL_UNROLLED; ++k) {
      kofidis_regalia_case(TP_SHIFT_ADAPTIVE, 0.0, 0, (tp_sshopm_kernel)k, single);
      kofidis_regalia_case(TP_SHIFT_ADAPTIVE, 0.0, 1, (tp_sshopm_kernel)k, single);
    }
}

Test(sshopm, kofidis_regalia_without_shift_does_not_converge) {
  tp_sshopm_options o;
  tp_sshopm_options_init(&o);
  o.shift = TP_SHIFT_FIXED, o.alpha = 0.0, o.tol = 1e-14, o.max_iterations = 1000;
  const int starts = 256;
  double *x0 = random_starts(3, starts, 7);
  runs r = solve(4, 3, 1, kofidis_regalia, starts, x0, &o, 0);
  int64_t stuck = 0;
  for (int64_t i = 0; i < r.count; ++i)
    stuck += r.flag[i] == TP_SSHOPM_MAX_ITERATIONS;
  cr_log_info("alpha = 0: %lld of %d runs hit the iteration limit", (long long)stuck, starts);
  cr_assert(stuck > 0, "alpha = 0 converged from every start");
  runs_free(&r);
  free(x0);
}
