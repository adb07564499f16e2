/* Batched SS-HOPM: known answers, residuals of converged pairs, agreement between the
 * unrolled and generic kernels and with a plain double-precision reference. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "algorithms/sshopm/tp_sshopm_internal.h"
#include "algorithms/sshopm/tp_symeig.h"
#include "tests/common/tpt.h"
#include "tests/common/tpt_sshopm.h"

TestSuite(sshopm, .init = tpt_setup, .fini = tpt_teardown);

/* Kofidis & Regalia (2002), Example 1: m = 4, n = 3, unique values in lexicographic
 * order, with its known local maxima and minima. */
static const double kr_maxima[3] = {0.8893, 0.8169, 0.3633};
static const double kr_minima[3] = {-1.0954, -0.5629, -0.0451};

static double *random_starts(int dim, int starts, uint64_t seed) {
  double *x0 = tpt_host_alloc((size_t)starts * dim * sizeof(double));
  TPT_OK(tp_sshopm_random_starts_f64(seed, dim, starts, x0));
  return x0;
}

/* Random tensors scaled to unit Frobenius norm (sum of multinomial * value^2), so that
 * eigenvalues and residual bounds are on the same scale for every shape. */
static double *random_tensors(tpt_rng *rng, int order, int dim, int64_t tensors) {
  int64_t unique;
  TPT_OK(tp_sym_unique_count(order, dim, &unique));
  double *a = tpt_host_alloc((size_t)(tensors * unique) * sizeof(double));
  int64_t *mult = tpt_host_alloc((size_t)unique * sizeof(int64_t));
  TPT_OK(tp_sym_index_table(order, dim, NULL, mult));
  for (int64_t t = 0; t < tensors; ++t) {
    double norm2 = 0, *at = a + t * unique;
    for (int64_t j = 0; j < unique; ++j) {
      at[j] = tpt_uniform(rng, -1, 1);
      norm2 += (double)mult[j] * at[j] * at[j];
    }
    for (int64_t j = 0; j < unique; ++j)
      at[j] /= sqrt(norm2);
  }
  free(mult);
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

/* Plain double-precision SS-HOPM from one start, the reference for every backend. */
static void reference_run(int order, int dim, const double *a, const double *x0,
                          const tp_sshopm_options *o, double *lambda, double *x, int *flag,
                          int *iterations) {
  double y[TP_SSHOPM_MAX_DIM], h[TP_SSHOPM_MAX_DIM * TP_SSHOPM_MAX_DIM];
  const int adaptive = o->shift == TP_SHIFT_ADAPTIVE;
  const int concave = adaptive ? o->concave : o->alpha < 0;
  double alpha = adaptive ? 0 : o->alpha, norm = 0;
  for (int i = 0; i < dim; ++i)
    norm += x0[i] * x0[i];
  for (int i = 0; i < dim; ++i)
    x[i] = x0[i] / sqrt(norm);
  *flag = TP_SSHOPM_MAX_ITERATIONS;
  for (int it = 0;; ++it) {
    TPT_OK(tp_sym_axm1_f64(order, dim, a, x, y));
    double next = 0;
    for (int i = 0; i < dim; ++i)
      next += x[i] * y[i];
    if (adaptive) { /* Kolda & Mayo 2014 from the eigenvalues of A x^(m-2) */
      TPT_OK(tp_sym_axm2_f64(order, dim, a, x, h));
      double lo = INFINITY, hi = -INFINITY, w[TP_SSHOPM_MAX_DIM * TP_SSHOPM_MAX_DIM];
      memcpy(w, h, sizeof(double) * dim * dim);
      tp_symeig_jacobi_f64(dim, w, NULL);
      for (int i = 0; i < dim; ++i)
        lo = fmin(lo, w[i * dim + i]), hi = fmax(hi, w[i * dim + i]);
      alpha = concave ? -fmax(0, o->tau / order + (order - 1) * hi)
                      : fmax(0, o->tau / order - (order - 1) * lo);
    }
    if (it > 0 && fabs(next - *lambda) < o->tol)
      *flag = TP_SSHOPM_CONVERGED;
    *lambda = next, *iterations = it;
    if (*flag == TP_SSHOPM_CONVERGED || it == o->max_iterations)
      return;
    norm = 0;
    for (int i = 0; i < dim; ++i) {
      x[i] = (concave ? -1 : 1) * (y[i] + alpha * x[i]);
      norm += x[i] * x[i];
    }
    for (int i = 0; i < dim; ++i)
      x[i] /= sqrt(norm);
  }
}

/* Shapes tried on random tensors: unrolled ones, odd orders, and generic-only ones. */
static const int random_shapes[][2] = {{3, 2}, {4, 2}, {3, 3}, {4, 3}, {5, 3}, {6, 3}, {8, 3},
                                       {3, 4}, {4, 4}, {2, 5}, {5, 2}, {6, 4}, {7, 3}, {3, 6}};

static void random_tensor_residuals(int single, tp_sshopm_shift shift) {
  tpt_rng rng = tpt_rng_fresh();
  for (size_t s = 0; s < sizeof random_shapes / sizeof random_shapes[0]; ++s) {
    int order = random_shapes[s][0], dim = random_shapes[s][1];
    const int64_t tensors = 5;
    const int starts = 40;
    int64_t unique;
    TPT_OK(tp_sym_unique_count(order, dim, &unique));
    double *a = random_tensors(&rng, order, dim, tensors);
    double *x0 = random_starts(dim, starts, tpt_next_u64(&rng));
    tp_sshopm_options o;
    tp_sshopm_options_init(&o);
    o.shift = shift, o.alpha = shift == TP_SHIFT_FIXED ? 1.0 : 0.0;
    o.tol = single ? 1e-6 : 1e-14, o.xtol = single ? 3e-6 : 1e-12;
    o.max_iterations = 20000;
    runs r = solve(order, dim, tensors, a, starts, x0, &o, single);
    int64_t converged = 0;
    double worst = 0;
    for (int64_t i = 0; i < r.count; ++i) {
      cr_assert(r.flag[i] >= 0 && r.flag[i] <= 2, "run %lld: flag %d", (long long)i, r.flag[i]);
      if (r.flag[i] != TP_SSHOPM_CONVERGED)
        continue;
      ++converged;
      double res = residual(order, dim, a + (i / starts) * unique, r.lambda[i], r.x + i * dim);
      worst = fmax(worst, res);
    }
    cr_log_info("%s m=%d n=%d: %lld of %lld converged, worst residual %.3g", single ? "f32" : "f64",
                order, dim, (long long)converged, (long long)r.count, worst);
    cr_assert(converged >= r.count * 9 / 10, "m=%d n=%d: %lld of %lld runs converged", order, dim,
              (long long)converged, (long long)r.count);
    cr_assert(worst <= (single ? 1e-5 : 1e-10), "m=%d n=%d: residual %.3g", order, dim, worst);
    runs_free(&r);
    free(a), free(x0);
  }
}

Test(sshopm, converged_pairs_have_small_residuals_f64) {
  random_tensor_residuals(0, TP_SHIFT_ADAPTIVE);
  random_tensor_residuals(0, TP_SHIFT_FIXED);
}

Test(sshopm, converged_pairs_have_small_residuals_f32) {
  random_tensor_residuals(1, TP_SHIFT_ADAPTIVE);
  random_tensor_residuals(1, TP_SHIFT_FIXED);
}

/* Same starts through the unrolled kernels, the generic kernels and the plain reference:
 * same flags and iteration counts, and lambda and x agreeing to rounding. */
Test(sshopm, unrolled_generic_and_reference_agree) {
  tpt_rng rng = tpt_rng_fresh();
  const int shapes[][2] = {{4, 3}, {3, 3}, {6, 3}, {8, 3}, {4, 4}, {3, 2}};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
    for (int adaptive = 0; adaptive <= 1; ++adaptive) {
      int order = shapes[s][0], dim = shapes[s][1];
      const int64_t tensors = 3;
      const int starts = 24;
      int64_t unique;
      TPT_OK(tp_sym_unique_count(order, dim, &unique));
      double *a = random_tensors(&rng, order, dim, tensors);
      double *x0 = random_starts(dim, starts, tpt_next_u64(&rng));
      tp_sshopm_options o;
      tp_sshopm_options_init(&o);
      o.shift = adaptive ? TP_SHIFT_ADAPTIVE : TP_SHIFT_FIXED, o.alpha = 1.0;
      o.tol = 0, o.max_iterations = 30; /* a fixed count: trajectories stay comparable */
      o.kernel = TP_SSHOPM_KERNEL_UNROLLED;
      runs u = solve(order, dim, tensors, a, starts, x0, &o, 0);
      o.kernel = TP_SSHOPM_KERNEL_GENERIC;
      runs g = solve(order, dim, tensors, a, starts, x0, &o, 0);
      for (int64_t i = 0; i < u.count; ++i) {
        double lambda, x[TP_SSHOPM_MAX_DIM];
        int flag, its;
        reference_run(order, dim, a + (i / starts) * unique, x0 + (i % starts) * dim, &o, &lambda,
                      x, &flag, &its);
        const runs *both[2] = {&u, &g};
        for (int k = 0; k < 2; ++k) {
          const runs *r = both[k];
          cr_assert_eq(r->flag[i], flag, "m=%d n=%d %s run %lld: flag %d vs %d", order, dim,
                       k ? "generic" : "unrolled", (long long)i, r->flag[i], flag);
          cr_assert_eq(r->iterations[i], its, "run %lld: iterations %d vs %d", (long long)i,
                       r->iterations[i], its);
          cr_assert(fabs(r->lambda[i] - lambda) <= 1e-12,
                    "m=%d n=%d %s run %lld: lambda "
                    "%.17g vs %.17g",
                    order, dim, k ? "generic" : "unrolled", (long long)i, r->lambda[i], lambda);
          for (int d = 0; d < dim; ++d)
            cr_assert(fabs(r->x[i * dim + d] - x[d]) <= 1e-10, "run %lld: x[%d] %.17g vs %.17g",
                      (long long)i, d, r->x[i * dim + d], x[d]);
        }
      }
      runs_free(&u), runs_free(&g);
      free(a), free(x0);
    }
}

Test(sshopm, bad_inputs_are_reported) {
  tp_sshopm_options o;
  tp_sshopm_options_init(&o);
  tp_sshopm_problem p = {4, 3, 2, 8};
  double a[30], x0[24];
  memcpy(a, kofidis_regalia, sizeof kofidis_regalia);
  memcpy(a + 15, kofidis_regalia, sizeof kofidis_regalia);
  TPT_OK(tp_sshopm_random_starts_f64(1, 3, 8, x0));
  double *da = tpt_to_space(a, sizeof a), *dx0 = tpt_to_space(x0, sizeof x0);
  double *dl = tpt_alloc_poisoned(16 * sizeof(double)),
         *dx = tpt_alloc_poisoned(48 * sizeof(double));
  int8_t *df = tpt_alloc_poisoned(16);
  tp_sshopm_out_f64 out = {dl, dx, df, NULL};
  TPT_OK(tp_sshopm_f64(tpt_space, &p, da, dx0, &o, &out));

  a[17] = NAN; /* a non-finite value in the second tensor flags its runs only */
  double *bad = tpt_to_space(a, sizeof a);
  int8_t flags[16];
  TPT_OK(tp_sshopm_f64(tpt_space, &p, bad, dx0, &o, &out));
  tpt_to_host(flags, df, sizeof flags);
  for (int v = 0; v < 16; ++v)
    cr_assert_eq(flags[v] == TP_SSHOPM_NONFINITE, v >= 8, "run %d: flag %d", v, flags[v]);
  x0[5] = INFINITY; /* a non-finite start is the caller's error */
  double *bad_x0 = tpt_to_space(x0, sizeof x0);
  TPT_FAILS_WITH(tp_sshopm_f64(tpt_space, &p, da, bad_x0, &o, &out), TP_ERROR_NUMERICAL);

  tp_sshopm_problem q = p;
  q.order = 19; /* 19! is not exact in double */
  TPT_FAILS_WITH(tp_sshopm_f64(tpt_space, &q, da, dx0, &o, &out), TP_ERROR_OVERFLOW);
  q = p, q.dim = TP_SSHOPM_MAX_DIM + 1;
  TPT_FAILS_WITH(tp_sshopm_f64(tpt_space, &q, da, dx0, &o, &out), TP_ERROR_NOT_SUPPORTED);
  q = p, q.order = 1;
  TPT_FAILS_WITH(tp_sshopm_f64(tpt_space, &q, da, dx0, &o, &out), TP_ERROR_INVALID_ARGUMENT);
  q = p, q.num_starts = -1;
  TPT_FAILS_WITH(tp_sshopm_f64(tpt_space, &q, da, dx0, &o, &out), TP_ERROR_INVALID_ARGUMENT);
  q = p, q.order = 7, q.dim = 2; /* no unrolled kernel for (7, 2) */
  tp_sshopm_options u = o;
  u.kernel = TP_SSHOPM_KERNEL_UNROLLED;
  TPT_FAILS_WITH(tp_sshopm_f64(tpt_space, &q, da, dx0, &u, &out), TP_ERROR_NOT_SUPPORTED);
  u = o, u.tol = -1;
  TPT_FAILS_WITH(tp_sshopm_f64(tpt_space, &p, da, dx0, &u, &out), TP_ERROR_INVALID_ARGUMENT);
  u = o, u.alpha = NAN, u.shift = TP_SHIFT_FIXED;
  TPT_FAILS_WITH(tp_sshopm_f64(tpt_space, &p, da, dx0, &u, &out), TP_ERROR_NUMERICAL);
  out.lambda = NULL;
  TPT_FAILS_WITH(tp_sshopm_f64(tpt_space, &p, da, dx0, &o, &out), TP_ERROR_INVALID_ARGUMENT);
  tpt_free(da), tpt_free(dx0), tpt_free(dl), tpt_free(dx), tpt_free(df), tpt_free(bad),
      tpt_free(bad_x0);
}

Test(sshopm, a_zero_tensor_gives_zero_iterates) {
  double a[15] = {0}, x0[6];
  TPT_OK(tp_sshopm_random_starts_f64(3, 3, 2, x0));
  x0[3] = x0[4] = x0[5] = 0; /* and a zero start */
  tp_sshopm_options o;
  tp_sshopm_options_init(&o);
  o.shift = TP_SHIFT_FIXED, o.alpha = 0;
  runs r = solve(4, 3, 1, a, 2, x0, &o, 0);
  cr_assert_eq(r.flag[0], TP_SSHOPM_ZERO_ITERATE);
  cr_assert_eq(r.flag[1], TP_SSHOPM_ZERO_ITERATE);
  runs_free(&r);
}
