/* SS-HOPM and its post-processing do not depend on the tensor's units: c A has the
 * eigenpairs (c lambda, x) of A, so at every scale c the same pairs come back, lambda
 * scaled by c; for c = 2^k bit for bit. A tensor with a non-finite value gets NaN
 * results and a flag, and the rest of its batch is computed as without it. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "algorithms/sshopm/tp_sshopm_internal.h"
#include "tests/common/tpt.h"
#include "tests/common/tpt_sshopm.h"

TestSuite(sshopm_scale, .init = tpt_setup, .fini = tpt_teardown);

enum { KR_U = 15, STARTS = 128 };

static tp_eigenpairs pairs_alloc(int starts, int dim) {
  tp_eigenpairs p;
  p.count = -1;
  p.lambda = tpt_host_alloc(sizeof(double) * (size_t)starts);
  p.x = tpt_host_alloc(sizeof(double) * (size_t)starts * (size_t)dim);
  p.kind = tpt_host_alloc(sizeof(tp_eig_kind) * (size_t)starts);
  p.starts = tpt_host_alloc(sizeof(int) * (size_t)starts);
  return p;
}

static void pairs_free(tp_eigenpairs *p) {
  free(p->lambda), free(p->x), free(p->kind), free(p->starts);
}

/* The distinct eigenpairs of tensor t of a batch. */
static tp_eigenpairs pairs_of(int order, int dim, const double *tensor, const runs *r, int64_t t,
                              int starts) {
  tp_eigenpairs p = pairs_alloc(starts, dim);
  size_t first = (size_t)t * (size_t)starts;
  TPT_OK(tp_sshopm_eigenpairs_f64(order, dim, tensor, starts, r->lambda + first,
                                  r->x + first * (size_t)dim, r->flag + first, NULL, &p));
  return p;
}

/* The options of `tenport sshopm` by default: adaptive shift, tol 1e-6 in f32 and
 * 1e-10 in f64. */
static tp_sshopm_options cli_options(int single, int concave, tp_sshopm_kernel kernel) {
  tp_sshopm_options o;
  tp_sshopm_options_init(&o);
  o.concave = concave, o.kernel = kernel;
  o.tol = single ? 1e-6 : 1e-10;
  return o;
}

/* For comparing vectors across scales: f32 rounds c A differently from A, and a run
 * stopped by |delta lambda| alone ends up to 2.5e-4 off along its way (measured), so
 * f32 runs go on until x settles to float precision. */
static tp_sshopm_options sweep_options(int single, int concave, tp_sshopm_kernel kernel) {
  tp_sshopm_options o = cli_options(single, concave, kernel);
  o.xtol = single ? 2e-7 : 0;
  return o;
}

static void scale_tensor(const double *a, int64_t n, double c, double *out) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = c * a[i];
}

/* The Kofidis-Regalia pairs of c A. */
static tp_eigenpairs kr_pairs(double c, const double *x0, const tp_sshopm_options *o, int single) {
  double a[KR_U];
  scale_tensor(kofidis_regalia, KR_U, c, a);
  runs r = solve(4, 3, 1, a, STARTS, x0, o, single);
  tp_eigenpairs p = pairs_of(4, 3, a, &r, 0, STARTS);
  runs_free(&r);
  return p;
}

/* p (of c A) holds the pairs of base (of A): lambda scaled by c, x and kind equal. */
static void check_scaled_pairs(const tp_eigenpairs *base, const tp_eigenpairs *p, double c,
                               double lambda_tol, double x_tol, const char *what) {
  cr_assert_eq(p->count, base->count, "%s, c = %g: %d distinct eigenpairs, %d at c = 1", what, c,
               p->count, base->count);
  for (int k = 0; k < p->count; ++k) {
    cr_assert(fabs(p->lambda[k] / c - base->lambda[k]) <= lambda_tol,
              "%s, c = %g, pair %d: "
              "lambda / c = %.17g, %.17g at c = 1",
              what, c, k, p->lambda[k] / c, base->lambda[k]);
    cr_assert_eq(p->kind[k], base->kind[k], "%s, c = %g, pair %d: kind %d vs %d", what, c, k,
                 p->kind[k], base->kind[k]);
    for (int i = 0; i < 3; ++i)
      cr_assert(fabs(p->x[3 * k + i] - base->x[3 * k + i]) <= x_tol,
                "%s, c = %g, pair %d: "
                "x[%d] = %.17g, %.17g at c = 1",
                what, c, k, i, p->x[3 * k + i], base->x[3 * k + i]);
  }
}

/* ---- scale ------------------------------------------------------------------- */

/* The cases: scaled by 1e-3 in f32 (9 "distinct eigenpairs", one with lambda =
 * 0.000675 that is no eigenvalue) and by 1e-8 in f64 (109). */
Test(sshopm_scale, small_kofidis_regalia_keeps_its_three_maxima) {
  double *x0 = tpt_host_alloc(sizeof(double) * STARTS * 3);
  TPT_OK(tp_sshopm_random_starts_f64(1, 3, STARTS, x0));
  const double expect[3] = {0.8893, 0.8169, 0.3633};
  for (int single = 0; single <= 1; ++single) {
    double c = single ? 1e-3 : 1e-8;
    tp_sshopm_options o = cli_options(single, 0, TP_SSHOPM_KERNEL_AUTO);
    tp_eigenpairs p = kr_pairs(c, x0, &o, single);
    cr_assert_eq(p.count, 3, "%s, c = %g: %d distinct eigenpairs (the first lambda %g)",
                 single ? "f32" : "f64", c, p.count, p.lambda[0]);
    for (int k = 0; k < 3; ++k) {
      cr_assert(fabs(p.lambda[k] / c - expect[k]) <= 1e-4, "pair %d: lambda / c = %.6f", k,
                p.lambda[k] / c);
      cr_assert_eq(p.kind[k], TP_EIG_LOCAL_MAX, "pair %d: kind %d", k, p.kind[k]);
    }
    pairs_free(&p);
  }
  free(x0);
}

/* c = 10^k for k = -30..150 in f64 and -15..15 in f32, maxima and minima, both kernels:
 * the same pairs as at c = 1. */
Test(sshopm_scale, kofidis_regalia_pairs_follow_powers_of_ten) {
  double *x0 = tpt_host_alloc(sizeof(double) * STARTS * 3);
  TPT_OK(tp_sshopm_random_starts_f64(20261122, 3, STARTS, x0));
  for (int single = 0; single <= 1; ++single)
    for (int concave = 0; concave <= 1; ++concave)
      for (int k = TP_SSHOPM_KERNEL_GENERIC; k <= TP_SSHOPM_KERNEL_UNROLLED; ++k) {
        tp_sshopm_options o = sweep_options(single, concave, (tp_sshopm_kernel)k);
        char what[64];
        snprintf(what, sizeof what, "%s, %s, kernel %d", single ? "f32" : "f64",
                 concave ? "minima" : "maxima", k);
        tp_eigenpairs base = kr_pairs(1.0, x0, &o, single);
        cr_assert_eq(base.count, 3, "%s: %d pairs at c = 1", what, base.count);
        const int lo = single ? -15 : -30, hi = single ? 15 : 150;
        for (int e = lo; e <= hi; ++e) {
          double c = pow(10.0, e);
          tp_eigenpairs p = kr_pairs(c, x0, &o, single);
          check_scaled_pairs(&base, &p, c, single ? 1e-6 : 1e-9, 1e-6, what);
          pairs_free(&p);
        }
        pairs_free(&base);
      }
  free(x0);
}

/* c = 2^k scales exactly: the solver's lambda is c times, bit for bit, and x, flag and
 * iteration count are the same. */
Test(sshopm_scale, powers_of_two_scale_exactly) {
  double *x0 = tpt_host_alloc(sizeof(double) * STARTS * 3);
  TPT_OK(tp_sshopm_random_starts_f64(5, 3, STARTS, x0));
  const int exps[2][8] = {{-1000, -600, -200, -30, 7, 200, 600, 1000},
                          {-100, -60, -20, -3, 5, 20, 60, 100}};
  for (int single = 0; single <= 1; ++single)
    for (int k = TP_SSHOPM_KERNEL_GENERIC; k <= TP_SSHOPM_KERNEL_UNROLLED; ++k) {
      tp_sshopm_options o = cli_options(single, 0, (tp_sshopm_kernel)k);
      runs base = solve(4, 3, 1, kofidis_regalia, STARTS, x0, &o, single);
      for (int j = 0; j < 8; ++j) {
        int e = exps[single][j];
        double a[KR_U];
        scale_tensor(kofidis_regalia, KR_U, ldexp(1.0, e), a);
        runs r = solve(4, 3, 1, a, STARTS, x0, &o, single);
        for (int v = 0; v < STARTS; ++v) {
          cr_assert(r.flag[v] == base.flag[v] && r.iterations[v] == base.iterations[v],
                    "%s, 2^%d, run %d: flag %d after %d iterations, %d after %d at 1",
                    single ? "f32" : "f64", e, v, r.flag[v], r.iterations[v], base.flag[v],
                    base.iterations[v]);
          cr_assert(r.lambda[v] == ldexp(base.lambda[v], e), "2^%d, run %d: lambda %.17g", e, v,
                    r.lambda[v]);
          cr_assert(memcmp(r.x + 3 * v, base.x + 3 * v, 3 * sizeof(double)) == 0,
                    "2^%d, run %d: x differs", e, v);
        }
        runs_free(&r);
      }
      runs_free(&base);
    }
  free(x0);
}

/* Values near the top of the range: c = 1e200 ... 1e307 in f64 and 1e30 ... 1e37 in f32
 * still give the pairs of A. */
Test(sshopm_scale, huge_values_give_no_nan) {
  double *x0 = tpt_host_alloc(sizeof(double) * STARTS * 3);
  TPT_OK(tp_sshopm_random_starts_f64(9, 3, STARTS, x0));
  const double big[2][4] = {{1e200, 1e280, 1e300, 1e307}, {1e30, 1e34, 1e36, 1e37}};
  for (int single = 0; single <= 1; ++single) {
    tp_sshopm_options o = sweep_options(single, 0, TP_SSHOPM_KERNEL_AUTO);
    tp_eigenpairs base = kr_pairs(1.0, x0, &o, single);
    for (int j = 0; j < 4; ++j) {
      tp_eigenpairs p = kr_pairs(big[single][j], x0, &o, single);
      check_scaled_pairs(&base, &p, big[single][j], single ? 1e-6 : 1e-9, 1e-6,
                         single ? "f32" : "f64");
      pairs_free(&p);
    }
    pairs_free(&base);
  }
  free(x0);
}

/* Subnormal values (c = 1e-310 in f64, 1e-42 in f32) are small, not missing: no run is
 * flagged non-finite and none reports NaN. */
Test(sshopm_scale, subnormal_values_give_no_nan) {
  double *x0 = tpt_host_alloc(sizeof(double) * STARTS * 3);
  TPT_OK(tp_sshopm_random_starts_f64(13, 3, STARTS, x0));
  for (int single = 0; single <= 1; ++single) {
    double a[KR_U];
    scale_tensor(kofidis_regalia, KR_U, single ? 1e-42 : 1e-310, a);
    tp_sshopm_options o = cli_options(single, 0, TP_SSHOPM_KERNEL_AUTO);
    runs r = solve(4, 3, 1, a, STARTS, x0, &o, single);
    for (int v = 0; v < STARTS; ++v)
      cr_assert(r.flag[v] != TP_SSHOPM_NONFINITE && !isnan(r.lambda[v]),
                "%s, run %d: flag %d, lambda %g", single ? "f32" : "f64", v, r.flag[v],
                r.lambda[v]);
    tp_eigenpairs p = pairs_of(4, 3, a, &r, 0, STARTS);
    pairs_free(&p);
    runs_free(&r);
  }
  free(x0);
}

/* A x^4 = a (x1 + x2 + x3)^4 with a = max / 4: the maximum 9 a is beyond the type. Those
 * runs are flagged, with lambda = +inf and a unit x; none reports NaN. */
Test(sshopm_scale, lambda_beyond_the_range_is_flagged) {
  double *x0 = tpt_host_alloc(sizeof(double) * STARTS * 3);
  TPT_OK(tp_sshopm_random_starts_f64(3, 3, STARTS, x0));
  for (int single = 0; single <= 1; ++single) {
    double a[KR_U];
    for (int j = 0; j < KR_U; ++j)
      a[j] = (single ? FLT_MAX : DBL_MAX) / 4;
    tp_sshopm_options o = cli_options(single, 0, TP_SSHOPM_KERNEL_AUTO);
    runs r = solve(4, 3, 1, a, STARTS, x0, &o, single);
    int flagged = 0;
    for (int v = 0; v < STARTS; ++v) {
      const double *x = r.x + 3 * v;
      cr_assert(!isnan(r.lambda[v]), "%s, run %d: lambda is NaN (flag %d)", single ? "f32" : "f64",
                v, r.flag[v]);
      if (r.flag[v] == TP_SSHOPM_CONVERGED)
        cr_assert(isfinite(r.lambda[v]), "run %d converged with lambda %g", v, r.lambda[v]);
      if (r.flag[v] != TP_SSHOPM_LAMBDA_OVERFLOW)
        continue;
      ++flagged;
      cr_assert(r.lambda[v] == INFINITY, "run %d: lambda %g", v, r.lambda[v]);
      cr_assert(fabs(x[0] * x[0] + x[1] * x[1] + x[2] * x[2] - 1) < 1e-5, "run %d: |x|", v);
    }
    cr_assert(flagged > 0, "%s: no run was flagged", single ? "f32" : "f64");
    tp_eigenpairs p = pairs_of(4, 3, a, &r, 0, STARTS);
    for (int k = 0; k < p.count; ++k)
      cr_assert(isfinite(p.lambda[k]), "pair %d: lambda %g", k, p.lambda[k]);
    pairs_free(&p);
    runs_free(&r);
  }
  free(x0);
}

/* A generic shape whose tensor (50,388 values) is larger than a GPU team's scratch, so
 * GPUs read it in place and scale it on the fly: 2^k still scales exactly. */
Test(sshopm_scale, large_generic_tensor_scales_exactly) {
  enum { M = 12, N = 8, V = 4 };
  int64_t unique;
  TPT_OK(tp_sym_unique_count(M, N, &unique));
  tpt_rng rng = tpt_rng_fresh();
  double *a = tpt_host_alloc(sizeof(double) * (size_t)unique);
  double *b = tpt_host_alloc(sizeof(double) * (size_t)unique), x0[V * N];
  for (int64_t j = 0; j < unique; ++j)
    a[j] = tpt_uniform(&rng, -1, 1);
  TPT_OK(tp_sshopm_random_starts_f64(tpt_next_u64(&rng), N, V, x0));
  tp_sshopm_options o;
  tp_sshopm_options_init(&o);
  o.shift = TP_SHIFT_FIXED, o.alpha = 0, o.tol = 0, o.max_iterations = 20;
  runs base = solve(M, N, 1, a, V, x0, &o, 0);
  const int exps[3] = {-900, 300, 1000};
  for (int e = 0; e < 3; ++e) {
    scale_tensor(a, unique, ldexp(1.0, exps[e]), b);
    runs r = solve(M, N, 1, b, V, x0, &o, 0);
    for (int v = 0; v < V; ++v) {
      cr_assert(r.flag[v] == base.flag[v], "2^%d, run %d: flag %d vs %d", exps[e], v, r.flag[v],
                base.flag[v]);
      cr_assert(r.lambda[v] == ldexp(base.lambda[v], exps[e]), "2^%d, run %d: lambda %.17g",
                exps[e], v, r.lambda[v]);
      cr_assert(memcmp(r.x + N * v, base.x + N * v, N * sizeof(double)) == 0,
                "2^%d, run %d: x differs", exps[e], v);
    }
    runs_free(&r);
  }
  runs_free(&base);
  free(a), free(b);
}

/* ---- non-finite and zero tensors in a batch ----------------------------------- */

enum { GOOD = 3, BAD = 3, ALL = GOOD + BAD };

/* Good tensors g0, g1, g2 and, in between, one with a NaN, one with an infinity and
 * one of zeros: rows g0 NaN g1 inf 0 g2. */
static void mixed_batch(double *good, double *all) {
  for (int j = 0; j < KR_U; ++j) {
    good[j] = kofidis_regalia[j];
    good[KR_U + j] = -2.5 * kofidis_regalia[(j + 4) % KR_U];
    good[2 * KR_U + j] = 1e-3 * kofidis_regalia[KR_U - 1 - j];
  }
  const int at[GOOD] = {0, 2, 5};
  for (int t = 0; t < GOOD; ++t)
    memcpy(all + at[t] * KR_U, good + t * KR_U, sizeof(double) * KR_U);
  memcpy(all + 1 * KR_U, good, sizeof(double) * KR_U);
  all[1 * KR_U + 6] = NAN;
  memcpy(all + 3 * KR_U, good + KR_U, sizeof(double) * KR_U);
  all[3 * KR_U + 14] = -INFINITY;
  memset(all + 4 * KR_U, 0, sizeof(double) * KR_U);
}

static void check_same_run(const runs *a, int64_t i, const runs *b, int64_t j) {
  cr_assert(a->flag[i] == b->flag[j] && a->iterations[i] == b->iterations[j],
            "run %lld: flag %d after %d iterations, alone %d after %d", (long long)i, a->flag[i],
            a->iterations[i], b->flag[j], b->iterations[j]);
  cr_assert(memcmp(&a->lambda[i], &b->lambda[j], sizeof(double)) == 0,
            "run %lld: lambda %.17g, alone %.17g", (long long)i, a->lambda[i], b->lambda[j]);
  cr_assert(memcmp(a->x + 3 * i, b->x + 3 * j, 3 * sizeof(double)) == 0,
            "run %lld: x differs from the batch without bad tensors", (long long)i);
}

static void check_nonfinite_run(const runs *r, int64_t i) {
  cr_assert_eq(r->flag[i], TP_SSHOPM_NONFINITE, "run %lld: flag %d", (long long)i, r->flag[i]);
  cr_assert_eq(r->iterations[i], 0, "run %lld: %d iterations", (long long)i, r->iterations[i]);
  cr_assert(isnan(r->lambda[i]), "run %lld: lambda %g", (long long)i, r->lambda[i]);
  for (int d = 0; d < 3; ++d)
    cr_assert(isnan(r->x[3 * i + d]), "run %lld: x[%d] = %g", (long long)i, d, r->x[3 * i + d]);
}

Test(sshopm_scale, nonfinite_tensors_get_nan_and_the_batch_goes_on) {
  enum { V = 24 };
  double good[GOOD * KR_U], all[ALL * KR_U], x0[V * 3];
  mixed_batch(good, all);
  TPT_OK(tp_sshopm_random_starts_f64(11, 3, V, x0));
  const int at[GOOD] = {0, 2, 5};
  for (int single = 0; single <= 1; ++single)
    for (int k = TP_SSHOPM_KERNEL_GENERIC; k <= TP_SSHOPM_KERNEL_UNROLLED; ++k) {
      tp_sshopm_options o = cli_options(single, 0, (tp_sshopm_kernel)k);
      runs ref = solve(4, 3, GOOD, good, V, x0, &o, single);
      runs r = solve(4, 3, ALL, all, V, x0, &o, single);
      for (int t = 0; t < GOOD; ++t)
        for (int v = 0; v < V; ++v)
          check_same_run(&r, (int64_t)at[t] * V + v, &ref, (int64_t)t * V + v);
      for (int v = 0; v < V; ++v) {
        check_nonfinite_run(&r, 1 * V + v);
        check_nonfinite_run(&r, 3 * V + v);
        cr_assert(r.flag[4 * V + v] == TP_SSHOPM_CONVERGED && r.lambda[4 * V + v] == 0,
                  "zero tensor, run %d: flag %d, lambda %g", v, r.flag[4 * V + v],
                  r.lambda[4 * V + v]);
      }
      for (int t = 1; t <= 4; ++t) { /* and none for the tensors that are not good */
        if (t == 2)
          continue;
        tp_eigenpairs p = pairs_of(4, 3, all + t * KR_U, &r, t, V);
        cr_assert_eq(p.count, 0, "tensor %d: %d eigenpairs", t, p.count);
        pairs_free(&p);
      }
      runs_free(&ref), runs_free(&r);
    }
}
