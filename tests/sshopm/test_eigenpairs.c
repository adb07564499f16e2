/* Post-processing of SS-HOPM runs: merging, sign conventions, stability classes and
 * ranking, on runs from a host reference SS-HOPM and on analytic eigenpairs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/tpt.h"

TestSuite(eigenpairs, .init = tpt_setup, .fini = tpt_teardown);

/* Kofidis & Regalia's m = 4, n = 3 tensor, unique values in lexicographic order. */
static const double kr_tensor[15] = {0.2883, -0.0031, 0.1973, -0.2485, -0.2939,
                                     0.3847, 0.2972,  0.1862, 0.0919,  -0.3619,
                                     0.1241, -0.3420, 0.2127, 0.2727,  -0.3054};

/* ---- helpers ---------------------------------------------------------------- */

static double dot(int n, const double *a, const double *b) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += a[i] * b[i];
  return s;
}

static void random_unit(tpt_rng *rng, int n, double *x) {
  double nrm;
  do {
    for (int i = 0; i < n; ++i)
      x[i] = tpt_uniform(rng, -1, 1);
    nrm = sqrt(dot(n, x, x));
  } while (nrm < 1e-3);
  for (int i = 0; i < n; ++i)
    x[i] /= nrm;
}

/* Host reference SS-HOPM with a fixed shift: x <- +-(A x^(m-1) + alpha x), normalised,
 * the sign + for alpha >= 0 (maxima) and - for alpha < 0 (minima). Besides
 * |delta lambda| < 1e-14 it waits for |delta x| < 1e-12, since lambda settles long
 * before x does (its error is quadratic in x's), and the tests check residuals. */
static int8_t ref_sshopm(int m, int n, const double *a, double alpha, const double *x0, double *x,
                         double *lambda) {
  double y[16], prev;
  memcpy(x, x0, sizeof(double) * (size_t)n);
  TPT_OK(tp_sym_axm_f64(m, n, a, x, &prev));
  for (int it = 0; it < 10000; ++it) {
    TPT_OK(tp_sym_axm1_f64(m, n, a, x, y));
    for (int i = 0; i < n; ++i)
      y[i] = (alpha >= 0 ? 1 : -1) * (y[i] + alpha * x[i]);
    double nrm = sqrt(dot(n, y, y)), step = 0;
    if (nrm == 0)
      return TP_SSHOPM_ZERO_ITERATE;
    for (int i = 0; i < n; ++i) {
      step += (y[i] / nrm - x[i]) * (y[i] / nrm - x[i]);
      x[i] = y[i] / nrm;
    }
    TPT_OK(tp_sym_axm_f64(m, n, a, x, lambda));
    if (fabs(*lambda - prev) < 1e-14 && sqrt(step) < 1e-12)
      return TP_SSHOPM_CONVERGED;
    prev = *lambda;
  }
  return TP_SSHOPM_MAX_ITERATIONS;
}

/* V runs from random starts; returns the number that converged. */
static int ref_runs(tpt_rng *rng, int m, int n, const double *a, double alpha, int v_count,
                    double *lambda, double *x, int8_t *flag) {
  double x0[16];
  int converged = 0;
  for (int v = 0; v < v_count; ++v) {
    random_unit(rng, n, x0);
    flag[v] = ref_sshopm(m, n, a, alpha, x0, x + v * n, &lambda[v]);
    converged += flag[v] == TP_SSHOPM_CONVERGED;
  }
  return converged;
}

static tp_eigenpairs pairs_alloc(int v_count, int n) {
  tp_eigenpairs p;
  size_t v = (size_t)(v_count > 0 ? v_count : 1);
  p.count = -1;
  p.lambda = tpt_host_alloc(sizeof(double) * v);
  p.x = tpt_host_alloc(sizeof(double) * v * (size_t)n);
  p.kind = tpt_host_alloc(sizeof(tp_eig_kind) * v);
  p.starts = tpt_host_alloc(sizeof(int) * v);
  return p;
}

static void pairs_free(tp_eigenpairs *p) {
  free(p->lambda), free(p->x), free(p->kind), free(p->starts);
}

static double residual(int m, int n, const double *a, double lambda, const double *x) {
  double y[16], r = 0;
  TPT_OK(tp_sym_axm1_f64(m, n, a, x, y));
  for (int i = 0; i < n; ++i)
    r += (y[i] - lambda * x[i]) * (y[i] - lambda * x[i]);
  return sqrt(r);
}

/* Every reported pair is a unit eigenvector with a tiny residual, ranked by lambda,
 * and the starts add up to the converged runs. */
static void check_pairs(int m, int n, const double *a, const tp_eigenpairs *p, int converged) {
  int total = 0;
  for (int k = 0; k < p->count; ++k) {
    const double *x = p->x + k * n;
    cr_assert(fabs(sqrt(dot(n, x, x)) - 1) <= 1e-14, "pair %d: |x| = %.17g", k, sqrt(dot(n, x, x)));
    double r = residual(m, n, a, p->lambda[k], x);
    cr_assert(r <= 1e-10, "pair %d (lambda %.10f): residual %.3g", k, p->lambda[k], r);
    if (k > 0)
      cr_assert(p->lambda[k - 1] >= p->lambda[k], "pairs %d, %d out of order", k - 1, k);
    cr_assert(p->starts[k] >= 1, "pair %d: starts %d", k, p->starts[k]);
    total += p->starts[k];
  }
  cr_assert_eq(total, converged, "starts add up to %d, %d runs converged", total, converged);
}

/* Finds the KR pairs for one shift and checks them against the known eigenvalues. */
static void check_kofidis_regalia(double alpha, const double *expect, tp_eig_kind kind) {
  enum { V = 200, N = 3 };
  tpt_rng rng = tpt_rng_fresh();
  double lambda[V], x[V * N];
  int8_t flag[V];
  int converged = ref_runs(&rng, 4, N, kr_tensor, alpha, V, lambda, x, flag);
  cr_assert(converged >= V * 9 / 10, "only %d of %d reference runs converged", converged, V);
  tp_eigenpairs p = pairs_alloc(V, N);
  TPT_OK(tp_sshopm_eigenpairs_f64(4, N, kr_tensor, V, lambda, x, flag, NULL, &p));
  cr_assert_eq(p.count, 3, "%d pairs (first lambda %.6f), expected 3", p.count, p.lambda[0]);
  for (int k = 0; k < 3; ++k) {
    cr_assert(fabs(p.lambda[k] - expect[k]) <= 1e-4, "pair %d: lambda %.6f, expected %.4f", k,
              p.lambda[k], expect[k]);
    cr_assert_eq(p.kind[k], kind, "pair %d (lambda %.4f): kind %d, expected %d", k, p.lambda[k],
                 p.kind[k], kind);
  }
  check_pairs(4, N, kr_tensor, &p, converged);

  /* The same runs in reverse order give bit-identical output. */
  double rl[V], rx[V * N];
  int8_t rf[V];
  for (int v = 0; v < V; ++v) {
    rl[v] = lambda[V - 1 - v], rf[v] = flag[V - 1 - v];
    memcpy(rx + v * N, x + (V - 1 - v) * N, sizeof(double) * N);
  }
  tp_eigenpairs q = pairs_alloc(V, N);
  TPT_OK(tp_sshopm_eigenpairs_f64(4, N, kr_tensor, V, rl, rx, rf, NULL, &q));
  cr_assert_eq(q.count, p.count);
  cr_assert(memcmp(p.lambda, q.lambda, sizeof(double) * 3) == 0, "lambda depends on order");
  cr_assert(memcmp(p.x, q.x, sizeof(double) * 3 * N) == 0, "x depends on run order");
  cr_assert(memcmp(p.starts, q.starts, sizeof(int) * 3) == 0, "starts depend on order");
  pairs_free(&p), pairs_free(&q);
}

/* ---- known answers -------------------------------------------------------------- */

/* Kolda & Mayo (2011), Example 3.6: with alpha = 2 SS-HOPM finds the three local
 * maxima, with alpha = -2 the three local minima. */
Test(eigenpairs, kofidis_regalia_local_maxima) {
  const double expect[3] = {0.8893, 0.8169, 0.3633};
  check_kofidis_regalia(2.0, expect, TP_EIG_LOCAL_MAX);
}

Test(eigenpairs, kofidis_regalia_local_minima) {
  const double expect[3] = {-0.0451, -0.5629, -1.0954};
  check_kofidis_regalia(-2.0, expect, TP_EIG_LOCAL_MIN);
}

/* ---- merging and signs ---------------------------------------------------------- */

/* One converged KR run (alpha = 2) from a fresh random start. */
static void one_kr_run(double *lambda, double *x) {
  tpt_rng rng = tpt_rng_fresh();
  double x0[3];
  int8_t f;
  do {
    random_unit(&rng, 3, x0);
    f = ref_sshopm(4, 3, kr_tensor, 2.0, x0, x, lambda);
  } while (f != TP_SSHOPM_CONVERGED);
}

Test(eigenpairs, duplicate_runs_and_negated_x_merge_for_even_order) {
  double lambda[2], x[6], l1, x1[3];
  int8_t flag[2] = {TP_SSHOPM_CONVERGED, TP_SSHOPM_CONVERGED};
  one_kr_run(&l1, x1);
  tp_eigenpairs same = pairs_alloc(2, 3), neg = pairs_alloc(2, 3);
  for (int c = 0; c < 2; ++c) {
    lambda[0] = lambda[1] = l1;
    for (int i = 0; i < 3; ++i)
      x[i] = x1[i], x[3 + i] = c ? -x1[i] : x1[i];
    tp_eigenpairs *p = c ? &neg : &same;
    TPT_OK(tp_sshopm_eigenpairs_f64(4, 3, kr_tensor, 2, lambda, x, flag, NULL, p));
    cr_assert_eq(p->count, 1, "case %d: %d pairs", c, p->count);
    cr_assert_eq(p->starts[0], 2, "case %d: starts %d", c, p->starts[0]);
    cr_assert(fabs(p->lambda[0] - l1) <= 1e-14, "case %d: lambda %.17g vs %.17g", c, p->lambda[0],
              l1);
    cr_assert(fabs(fabs(dot(3, p->x, x1)) - 1) <= 1e-14, "case %d: x moved", c);
    /* Canonical sign: the largest |entry| is positive. */
    int big = 0;
    for (int i = 1; i < 3; ++i)
      if (fabs(p->x[i]) > fabs(p->x[big]))
        big = i;
    cr_assert(p->x[big] > 0, "case %d: x[%d] = %g is negative", c, big, p->x[big]);
  }
  cr_assert(memcmp(same.x, neg.x, sizeof(double) * 3) == 0, "x and -x reported differently");
  pairs_free(&same), pairs_free(&neg);
}

Test(eigenpairs, odd_order_merges_negated_pairs_with_nonnegative_lambda) {
  enum { M = 3, N = 3, U = 10 };
  tpt_rng rng = tpt_rng_fresh();
  double a[U], frob = 0;
  int64_t mult[U];
  TPT_OK(tp_sym_index_table(M, N, NULL, mult));
  for (int j = 0; j < U; ++j) {
    a[j] = tpt_uniform(&rng, -1, 1);
    frob += (double)mult[j] * a[j] * a[j];
  }
  /* alpha > (m-1) |A|_F >= (m-1) max rho(A x^(m-2)) makes the iteration convex. */
  double alpha = (M - 1) * sqrt(frob), x0[N], l1, x1[N];
  int8_t f;
  do {
    random_unit(&rng, N, x0);
    f = ref_sshopm(M, N, a, alpha, x0, x1, &l1);
  } while (f != TP_SSHOPM_CONVERGED);
  /* The run is a local maximum (l, x); feed it as (-l, -x) first and (l, x). */
  double lambda[2] = {-l1, l1}, x[2 * N];
  int8_t flag[2] = {TP_SSHOPM_CONVERGED, TP_SSHOPM_CONVERGED};
  for (int i = 0; i < N; ++i)
    x[i] = -x1[i], x[N + i] = x1[i];
  tp_eigenpairs p = pairs_alloc(2, N);
  TPT_OK(tp_sshopm_eigenpairs_f64(M, N, a, 2, lambda, x, flag, NULL, &p));
  cr_assert_eq(p.count, 1, "%d pairs", p.count);
  cr_assert_eq(p.starts[0], 2);
  cr_assert(p.lambda[0] >= 0 && fabs(p.lambda[0] - fabs(l1)) <= 1e-13, "lambda %.17g vs %.17g",
            p.lambda[0], l1);
  double s = l1 >= 0 ? 1 : -1;
  for (int i = 0; i < N; ++i)
    cr_assert(fabs(p.x[i] - s * x1[i]) <= 1e-15, "x[%d] = %.17g vs %.17g", i, p.x[i], s * x1[i]);
  check_pairs(M, N, a, &p, 2);
  /* Negating x negates (m-1) A x^(m-2) - lambda I for odd m: a maximum with l < 0 is
   * reported as the minimum (-l, -x). */
  tp_eig_kind want = l1 >= 0 ? TP_EIG_LOCAL_MAX : TP_EIG_LOCAL_MIN;
  cr_assert_eq(p.kind[0], want, "lambda %.6f: kind %d, expected %d", l1, p.kind[0], want);
  /* The negated pair alone is reported the same way. */
  tp_eigenpairs q = pairs_alloc(1, N);
  TPT_OK(tp_sshopm_eigenpairs_f64(M, N, a, 1, lambda, x, flag, NULL, &q));
  cr_assert(q.count == 1 && q.lambda[0] == p.lambda[0] && memcmp(q.x, p.x, sizeof(double) * N) == 0,
            "(-l, -x) reported differently");
  pairs_free(&p), pairs_free(&q);
}

/* ---- stability classes ---------------------------------------------------------- */

/* A x^4 = sum_i c_i x_i^4 with c_i > 0, so A x^3 = (c_i x_i^3)_i and
 * (m-1) A x^2 = 3 diag(c_i x_i^2). Eigenvectors: for a support S, x_i^2 = lambda / c_i
 * on S (0 elsewhere), lambda = 1 / sum_{i in S} 1/c_i. There the Hessian
 * H = 3 diag(c_i x_i^2) - lambda I is diag(2 lambda on S, -lambda off S).
 *   S = {k}: x = e_k, lambda = c_k; the tangent space is span{e_j, j != k}, where
 *     H = -c_k I: negative definite, a local maximum.
 *   S = {i, j}: the tangent direction in span{e_i, e_j} gives 2 lambda > 0, the
 *     remaining e_l gives -lambda < 0: a saddle.
 *   S = {0, 1, 2}: H = 2 lambda I on the tangent space: a local minimum. */
Test(eigenpairs, diagonal_tensor_maximum_saddle_minimum) {
  enum { M = 4, N = 3, U = 15 };
  const double c[N] = {1.0, 2.0, 4.0};
  double a[U] = {0};
  for (int i = 0; i < N; ++i) {
    int idx[M] = {i, i, i, i};
    a[tp_sym_class_position(M, N, idx)] = c[i];
  }
  double ls = c[0] * c[1] / (c[0] + c[1]);                  /* S = {0, 1}: 2/3 */
  double lm = 1.0 / (1.0 / c[0] + 1.0 / c[1] + 1.0 / c[2]); /* S = {0, 1, 2}: 4/7 */
  double lambda[3] = {c[2], ls, lm};
  double x[3 * N] = {0,
                     0,
                     -1, /* -e_2: same pair as e_2 */
                     sqrt(ls / c[0]),
                     -sqrt(ls / c[1]),
                     0,
                     -sqrt(lm / c[0]),
                     sqrt(lm / c[1]),
                     sqrt(lm / c[2])};
  int8_t flag[3] = {TP_SSHOPM_CONVERGED, TP_SSHOPM_CONVERGED, TP_SSHOPM_CONVERGED};
  tp_eigenpairs p = pairs_alloc(3, N);
  TPT_OK(tp_sshopm_eigenpairs_f64(M, N, a, 3, lambda, x, flag, NULL, &p));
  cr_assert_eq(p.count, 3);
  const double want_l[3] = {c[2], ls, lm};
  const tp_eig_kind want_k[3] = {TP_EIG_LOCAL_MAX, TP_EIG_SADDLE, TP_EIG_LOCAL_MIN};
  for (int k = 0; k < 3; ++k) {
    cr_assert(fabs(p.lambda[k] - want_l[k]) <= 1e-15, "pair %d: lambda %.17g vs %.17g", k,
              p.lambda[k], want_l[k]);
    cr_assert_eq(p.kind[k], want_k[k], "pair %d: kind %d, expected %d", k, p.kind[k], want_k[k]);
  }
  cr_assert(p.x[2] == 1.0, "e_2 reported as %g %g %g", p.x[0], p.x[1], p.x[2]);
  check_pairs(M, N, a, &p, 3);
  pairs_free(&p);
}

/* A x^4 = |x|^4: every unit x is an eigenvector with lambda = 1, and
 * (m-1) A x^2 - I = 2 x x^T vanishes on the tangent space: degenerate. The form
 * sum_i x_i^4 + 2 sum_{i<j} x_i^2 x_j^2 stores 1 for classes iiii and 2/6 for iijj. */
Test(eigenpairs, sphere_form_is_degenerate) {
  enum { M = 4, N = 3, U = 15 };
  int32_t idx[U * M];
  double a[U];
  TPT_OK(tp_sym_index_table(M, N, idx, NULL));
  for (int j = 0; j < U; ++j) {
    const int32_t *r = idx + j * M;
    a[j] = (r[0] == r[3]) ? 1.0 : (r[0] == r[1] && r[2] == r[3]) ? 1.0 / 3.0 : 0.0;
  }
  tpt_rng rng = tpt_rng_fresh();
  double lambda[1] = {1.0}, x[N];
  int8_t flag[1] = {TP_SSHOPM_CONVERGED};
  random_unit(&rng, N, x);
  tp_eigenpairs p = pairs_alloc(1, N);
  TPT_OK(tp_sshopm_eigenpairs_f64(M, N, a, 1, lambda, x, flag, NULL, &p));
  cr_assert_eq(p.count, 1);
  cr_assert(fabs(p.lambda[0] - 1) <= 1e-14, "lambda %.17g", p.lambda[0]);
  cr_assert_eq(p.kind[0], TP_EIG_DEGENERATE, "kind %d", p.kind[0]);
  check_pairs(M, N, a, &p, 1);
  pairs_free(&p);
}

/* n = 1: A x^m = a x^m with a = -0.75; x = +-1 is the only direction and is reported
 * as a maximum. Even m: lambda = a, and the sign of x is free (x = 1). Odd m:
 * lambda >= 0, so lambda = 0.75 at x = -1. */
Test(eigenpairs, dimension_one_is_a_maximum) {
  for (int m = 1; m <= 6; ++m) {
    double a = -0.75, lambda[2] = {0.75, -0.75}, x[2] = {1.0, -1.0};
    int8_t flag[2] = {TP_SSHOPM_CONVERGED, TP_SSHOPM_CONVERGED};
    tp_eigenpairs p = pairs_alloc(2, 1);
    TPT_OK(tp_sshopm_eigenpairs_f64(m, 1, &a, 2, lambda, x, flag, NULL, &p));
    cr_assert_eq(p.count, 1, "m = %d", m);
    cr_assert_eq(p.starts[0], 2, "m = %d", m);
    cr_assert(p.lambda[0] == (m % 2 ? 0.75 : -0.75) && p.x[0] == (m % 2 ? -1.0 : 1.0),
              "m = %d: %g, %g", m, p.lambda[0], p.x[0]);
    cr_assert_eq(p.kind[0], TP_EIG_LOCAL_MAX, "m = %d", m);
    pairs_free(&p);
  }
}

/* ---- flags and empty inputs ----------------------------------------------------- */

Test(eigenpairs, unconverged_runs_are_ignored) {
  enum { V = 60, N = 3 };
  tpt_rng rng = tpt_rng_fresh();
  double lambda[V], x[V * N];
  int8_t flag[V];
  int converged = ref_runs(&rng, 4, N, kr_tensor, 2.0, V, lambda, x, flag);
  tp_eigenpairs p = pairs_alloc(V, N), q = pairs_alloc(V, N);
  TPT_OK(tp_sshopm_eigenpairs_f64(4, N, kr_tensor, V, lambda, x, flag, NULL, &p));
  check_pairs(4, N, kr_tensor, &p, converged);
  /* Spoil every third run and mark it unconverged: the rest decide the answer. */
  int kept = 0;
  for (int v = 0; v < V; ++v) {
    if (v % 3 == 0) {
      flag[v] = (int8_t)(TP_SSHOPM_ZERO_ITERATE + (v / 3) % 4); /* every other flag */
      lambda[v] = NAN;
      for (int i = 0; i < N; ++i)
        x[v * N + i] = (v % 2) ? NAN : 5.0;
    }
    kept += flag[v] == TP_SSHOPM_CONVERGED;
  }
  TPT_OK(tp_sshopm_eigenpairs_f64(4, N, kr_tensor, V, lambda, x, flag, NULL, &q));
  check_pairs(4, N, kr_tensor, &q, kept);
  for (int k = 0; k < q.count; ++k)
    cr_assert_eq(q.kind[k], TP_EIG_LOCAL_MAX);

  /* No converged run: no pairs. */
  for (int v = 0; v < V; ++v)
    flag[v] = TP_SSHOPM_MAX_ITERATIONS;
  TPT_OK(tp_sshopm_eigenpairs_f64(4, N, kr_tensor, V, lambda, x, flag, NULL, &q));
  cr_assert_eq(q.count, 0);
  /* No runs at all (the run arrays are not read). */
  q.count = -1;
  TPT_OK(tp_sshopm_eigenpairs_f64(4, N, kr_tensor, 0, NULL, NULL, NULL, NULL, &q));
  cr_assert_eq(q.count, 0);
  pairs_free(&p), pairs_free(&q);
}

Test(eigenpairs, options_defaults_and_tolerances) {
  tp_eig_merge_options o;
  tp_eig_merge_options_init(&o);
  cr_assert(o.dot_tol == 1e-4 && o.lambda_tol == 1e-4 && o.hessian_tol == 1e-6);
  /* Two nearby directions of the sphere form (every x is an eigenvector): merged by
   * the default dot_tol, kept apart by a tighter one. */
  double a[15];
  int32_t idx[15 * 4];
  TPT_OK(tp_sym_index_table(4, 3, idx, NULL));
  for (int j = 0; j < 15; ++j) {
    const int32_t *r = idx + j * 4;
    a[j] = (r[0] == r[3]) ? 1.0 : (r[0] == r[1] && r[2] == r[3]) ? 1.0 / 3.0 : 0.0;
  }
  double t = 1e-3, lambda[2] = {1, 1}, x[6] = {1, 0, 0, cos(t), sin(t), 0};
  int8_t flag[2] = {TP_SSHOPM_CONVERGED, TP_SSHOPM_CONVERGED};
  tp_eigenpairs p = pairs_alloc(2, 3);
  TPT_OK(tp_sshopm_eigenpairs_f64(4, 3, a, 2, lambda, x, flag, &o, &p));
  cr_assert_eq(p.count, 1);
  o.dot_tol = 1e-8;
  TPT_OK(tp_sshopm_eigenpairs_f64(4, 3, a, 2, lambda, x, flag, &o, &p));
  cr_assert_eq(p.count, 2);
  /* Equal lambdas and kinds: x in lexicographic order, e_1 before e_0. */
  double e[6] = {1, 0, 0, 0, 1, 0};
  TPT_OK(tp_sshopm_eigenpairs_f64(4, 3, a, 2, lambda, e, flag, &o, &p));
  cr_assert_eq(p.count, 2);
  cr_assert(p.lambda[0] == 1 && p.lambda[1] == 1 && p.x[1] == 1 && p.x[3] == 1,
            "ties: %g (%g %g %g), %g (%g %g %g)", p.lambda[0], p.x[0], p.x[1], p.x[2], p.lambda[1],
            p.x[3], p.x[4], p.x[5]);
  cr_assert(p.kind[0] == TP_EIG_DEGENERATE && p.kind[1] == TP_EIG_DEGENERATE);
  o.dot_tol = -1;
  TPT_FAILS_WITH(tp_sshopm_eigenpairs_f64(4, 3, a, 2, lambda, x, flag, &o, &p),
                 TP_ERROR_INVALID_ARGUMENT);
  pairs_free(&p);
}

/* ---- bad inputs ----------------------------------------------------------------- */

Test(eigenpairs, bad_inputs_are_rejected) {
  double a[15], lambda[2], x[6];
  int8_t flag[2] = {TP_SSHOPM_CONVERGED, TP_SSHOPM_CONVERGED};
  memcpy(a, kr_tensor, sizeof a);
  one_kr_run(&lambda[0], x);
  lambda[1] = lambda[0];
  memcpy(x + 3, x, sizeof(double) * 3);
  tp_eigenpairs p = pairs_alloc(2, 3);
  TPT_OK(tp_sshopm_eigenpairs_f64(4, 3, a, 2, lambda, x, flag, NULL, &p));

  /* A non-finite tensor has no eigenpairs (not an error). */
  a[7] = NAN;
  TPT_OK(tp_sshopm_eigenpairs_f64(4, 3, a, 2, lambda, x, flag, NULL, &p));
  cr_assert_eq(p.count, 0);
  a[7] = -INFINITY;
  TPT_OK(tp_sshopm_eigenpairs_f64(4, 3, a, 2, lambda, x, flag, NULL, &p));
  cr_assert_eq(p.count, 0);
  a[7] = kr_tensor[7];
  lambda[1] = NAN;
  TPT_FAILS_WITH(tp_sshopm_eigenpairs_f64(4, 3, a, 2, lambda, x, flag, NULL, &p),
                 TP_ERROR_NUMERICAL);
  cr_assert(strstr(tp_last_error(), "run 1") != NULL, "message: %s", tp_last_error());
  lambda[1] = lambda[0];
  x[4] = INFINITY;
  TPT_FAILS_WITH(tp_sshopm_eigenpairs_f64(4, 3, a, 2, lambda, x, flag, NULL, &p),
                 TP_ERROR_NUMERICAL);
  for (int i = 0; i < 3; ++i)
    x[3 + i] = 1.01 * x[i];
  TPT_FAILS_WITH(tp_sshopm_eigenpairs_f64(4, 3, a, 2, lambda, x, flag, NULL, &p),
                 TP_ERROR_NUMERICAL);
  memcpy(x + 3, x, sizeof(double) * 3);
  flag[1] = TP_SSHOPM_LAMBDA_OVERFLOW + 1;
  TPT_FAILS_WITH(tp_sshopm_eigenpairs_f64(4, 3, a, 2, lambda, x, flag, NULL, &p),
                 TP_ERROR_INVALID_ARGUMENT);
  flag[1] = -1;
  TPT_FAILS_WITH(tp_sshopm_eigenpairs_f64(4, 3, a, 2, lambda, x, flag, NULL, &p),
                 TP_ERROR_INVALID_ARGUMENT);
  flag[1] = TP_SSHOPM_CONVERGED;

  TPT_FAILS_WITH(tp_sshopm_eigenpairs_f64(4, 3, NULL, 2, lambda, x, flag, NULL, &p),
                 TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sshopm_eigenpairs_f64(4, 3, a, 2, NULL, x, flag, NULL, &p),
                 TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sshopm_eigenpairs_f64(4, 3, a, 2, lambda, NULL, flag, NULL, &p),
                 TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sshopm_eigenpairs_f64(4, 3, a, 2, lambda, x, NULL, NULL, &p),
                 TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sshopm_eigenpairs_f64(4, 3, a, 2, lambda, x, flag, NULL, NULL),
                 TP_ERROR_INVALID_ARGUMENT);
  tp_eigenpairs broken = p;
  broken.kind = NULL;
  TPT_FAILS_WITH(tp_sshopm_eigenpairs_f64(4, 3, a, 2, lambda, x, flag, NULL, &broken),
                 TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sshopm_eigenpairs_f64(0, 3, a, 2, lambda, x, flag, NULL, &p),
                 TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sshopm_eigenpairs_f64(4, 0, a, 2, lambda, x, flag, NULL, &p),
                 TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sshopm_eigenpairs_f64(4, 3, a, -1, lambda, x, flag, NULL, &p),
                 TP_ERROR_INVALID_ARGUMENT);
  /* Still fine after all that. */
  TPT_OK(tp_sshopm_eigenpairs_f64(4, 3, a, 2, lambda, x, flag, NULL, &p));
  cr_assert(p.count == 1 && p.starts[0] == 2);
  pairs_free(&p);
}

/* A batch of random tensors (order 3 and 4, dimension 3 and 4) against one call per
 * tensor: the same pairs in the same order, packed by tensor. */
Test(eigenpairs, a_batch_gives_each_tensors_pairs) {
  tpt_rng rng = tpt_rng_fresh();
  const int shapes[2][2] = {{4, 3}, {3, 4}};
  for (int s = 0; s < 2; ++s) {
    const int m = shapes[s][0], n = shapes[s][1], V = 24;
    const int64_t T = tpt_int(&rng, 5, 13);
    int64_t U;
    TPT_OK(tp_sym_unique_count(m, n, &U));
    double *a = tpt_host_alloc(sizeof(double) * (size_t)(T * U));
    double *lambda = tpt_host_alloc(sizeof(double) * (size_t)(T * V));
    double *x = tpt_host_alloc(sizeof(double) * (size_t)(T * V * n));
    int8_t *flag = tpt_host_alloc((size_t)(T * V));
    for (int64_t t = 0; t < T; ++t) {
      for (int64_t u = 0; u < U; ++u)
        a[t * U + u] = tpt_uniform(&rng, -1, 1);
      ref_runs(&rng, m, n, a + t * U, t % 2 ? -2.0 : 2.0, V, lambda + t * V, x + t * V * n,
               flag + t * V);
    }
    tp_eigenpairs_batch b;
    TPT_OK(tp_sshopm_eigenpairs_batch_f64(m, n, T, a, V, lambda, x, flag, NULL, &b));
    cr_assert_eq(b.tensors, T);
    tp_eigenpairs one = pairs_alloc(V, n);
    for (int64_t t = 0; t < T; ++t) {
      TPT_OK(tp_sshopm_eigenpairs_f64(m, n, a + t * U, V, lambda + t * V, x + t * V * n,
                                      flag + t * V, NULL, &one));
      const int64_t f = b.first[t];
      cr_assert_eq(b.first[t + 1] - f, one.count, "tensor %lld: %lld pairs, %d alone", (long long)t,
                   (long long)(b.first[t + 1] - f), one.count);
      for (int k = 0; k < one.count; ++k) {
        cr_expect_eq(b.lambda[f + k], one.lambda[k]);
        cr_expect_eq(b.kind[f + k], one.kind[k]);
        cr_expect_eq(b.starts[f + k], one.starts[k]);
        cr_expect(!memcmp(b.x + (f + k) * n, one.x + k * n, sizeof(double) * (size_t)n));
      }
    }
    tp_eigenpairs_batch_free(&b);
    cr_expect(!b.first && !b.lambda && b.tensors == 0);
    pairs_free(&one);
    free(a), free(lambda), free(x), free(flag);
  }
}

/* Two tensors with a bad run: the error names the one of the smaller index, however the
 * threads ran, and the batch is left empty. */
Test(eigenpairs, a_batch_reports_its_first_failing_tensor) {
  const int m = 4, n = 3, V = 2;
  const int64_t T = 40;
  double *a = tpt_host_alloc(sizeof(double) * (size_t)(T * 15));
  double *lambda = tpt_host_alloc(sizeof(double) * (size_t)(T * V));
  double *x = tpt_host_alloc(sizeof(double) * (size_t)(T * V * n));
  int8_t *flag = tpt_host_alloc((size_t)(T * V));
  for (int64_t t = 0; t < T; ++t) {
    memcpy(a + t * 15, kr_tensor, sizeof kr_tensor);
    for (int v = 0; v < V; ++v) {
      double *xv = x + (t * V + v) * n;
      xv[0] = 1, xv[1] = 0, xv[2] = 0;
      lambda[t * V + v] = 0.3, flag[t * V + v] = TP_SSHOPM_CONVERGED;
    }
  }
  x[(31 * V + 1) * n] = 2.0; /* |x| = 2: a converged run that is no unit vector */
  x[(17 * V + 0) * n] = NAN;
  tp_eigenpairs_batch b;
  TPT_FAILS_WITH(tp_sshopm_eigenpairs_batch_f64(m, n, T, a, V, lambda, x, flag, NULL, &b),
                 TP_ERROR_NUMERICAL);
  cr_expect(strstr(tp_last_error(), "tensor 17:"), "%s", tp_last_error());
  cr_expect(!b.first && !b.lambda && !b.x && b.tensors == 0);
  free(a), free(lambda), free(x), free(flag);
}
