/* CP-ALS for dense tensors: the R x R solve against a plain reference (and its
 * rank-revealing fallback), the column kernels, recovery of planted low-rank tensors
 * with every MTTKRP variant and layout, the reported fit against an explicit residual,
 * determinism, partial reuse, bad inputs and the progress callback. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "algorithms/cp_als/tp_cp_internal.h"
#include "algorithms/cp_als/tp_dist_internal.h"
#include "tests/common/tpt.h"

TestSuite(cp_als, .init = tpt_setup, .fini = tpt_teardown);

/* ---- helpers ------------------------------------------------------------------------ */

static double *random_matrix(tpt_rng *rng, int64_t rows, int64_t cols) {
  double *a = tpt_host_alloc(sizeof(double) * (size_t)(rows * cols > 0 ? rows * cols : 1));
  for (int64_t i = 0; i < rows * cols; ++i)
    a[i] = tpt_uniform(rng, -1, 1);
  return a;
}

/* B B^T for B rows x k, plus shift on the diagonal. */
static double *gram_of(const double *B, int64_t rows, int64_t k, double shift) {
  double *V = tpt_host_alloc(sizeof(double) * (size_t)(rows * rows));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < rows; ++j) {
      double s = i == j ? shift : 0.0;
      for (int64_t c = 0; c < k; ++c)
        s += B[i * k + c] * B[j * k + c];
      V[i * rows + j] = s;
    }
  return V;
}

/* C = A V for A I x R, V R x R. */
static double *times(const double *A, const double *V, int64_t I, int64_t R) {
  double *C = tpt_host_alloc(sizeof(double) * (size_t)(I * R > 0 ? I * R : 1));
  for (int64_t i = 0; i < I; ++i)
    for (int64_t j = 0; j < R; ++j) {
      double s = 0.0;
      for (int64_t c = 0; c < R; ++c)
        s += A[i * R + c] * V[c * R + j];
      C[i * R + j] = s;
    }
  return C;
}

static double max_abs(const double *a, int64_t n) {
  double m = 0.0;
  for (int64_t i = 0; i < n; ++i)
    m = fabs(a[i]) > m ? fabs(a[i]) : m;
  return m;
}

static double max_abs_diff(const double *a, const double *b, int64_t n) {
  double m = 0.0;
  for (int64_t i = 0; i < n; ++i)
    m = fabs(a[i] - b[i]) > m ? fabs(a[i] - b[i]) : m;
  return m;
}

/* ---- the R x R solve ---------------------------------------------------------------- */

Test(cp_als, spd_solve_matches_reference) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t ranks[] = {1, 2, 7, 31, 32, 33, 70};
  const int64_t rows[] = {0, 1, 13, 9, 64, 17, 23};
  for (int t = 0; t < 7; ++t) {
    int64_t R = ranks[t], I = rows[t];
    double *B = random_matrix(&rng, R, R + 3);
    double *V = gram_of(B, R, R + 3, 0.1);
    double *G = random_matrix(&rng, I, R);
    double *U = tpt_host_alloc(sizeof(double) * (size_t)(I * R + 1));
    double *ref = tpt_host_alloc(sizeof(double) * (size_t)(I * R + 1));
    memcpy(U, G, sizeof(double) * (size_t)(I * R));
    int fallback = -1;
    int64_t rank = -1;
    TPT_OK(tpi_cp_spd_solve(V, R, U, I, &fallback, &rank));
    tpt_solve_rows(V, R, G, I, ref);
    cr_expect_eq(fallback, 0, "R = %lld: Cholesky should succeed on an SPD matrix", (long long)R);
    cr_expect_eq(rank, R);
    double scale = max_abs(ref, I * R);
    cr_expect_leq(max_abs_diff(U, ref, I * R), 1e-10 * (scale > 1 ? scale : 1),
                  "R = %lld, I = %lld: solution differs from the reference", (long long)R,
                  (long long)I);
    free(B), free(V), free(G), free(U), free(ref);
  }
}

/* V of rank k < R and G = U0 V (consistent, as in CP-ALS): the fallback runs, finds the
 * rank, leaves R - k unknowns of every row at 0 and solves the normal equations. */
Test(cp_als, spd_solve_rank_deficient_uses_fallback) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t ranks[] = {5, 40, 67};
  const int64_t inner[] = {2, 17, 40};
  for (int t = 0; t < 3; ++t) {
    int64_t R = ranks[t], k = inner[t], I = 11;
    double *B = random_matrix(&rng, R, k);
    double *V = gram_of(B, R, k, 0.0);
    double *U0 = random_matrix(&rng, I, R);
    double *G = times(U0, V, I, R);
    double *U = tpt_host_alloc(sizeof(double) * (size_t)(I * R));
    memcpy(U, G, sizeof(double) * (size_t)(I * R));
    int fallback = 0;
    int64_t rank = -1;
    TPT_OK(tpi_cp_spd_solve(V, R, U, I, &fallback, &rank));
    cr_expect_eq(fallback, 1, "R = %lld, rank %lld: the fallback should be flagged", (long long)R,
                 (long long)k);
    cr_expect_eq(rank, k, "numerical rank %lld, expected %lld", (long long)rank, (long long)k);
    double *UV = times(U, V, I, R);
    double rel = max_abs_diff(UV, G, I * R) / max_abs(G, I * R);
    cr_expect_lt(rel, 1e-9, "R = %lld: normal-equation residual %g", (long long)R, rel);
    for (int64_t i = 0; i < I; ++i) {
      int64_t zeros = 0;
      for (int64_t r = 0; r < R; ++r)
        zeros += U[i * R + r] == 0.0;
      cr_expect_eq(zeros, R - k, "row %lld of the basic solution has %lld zeros", (long long)i,
                   (long long)zeros);
    }
    free(B), free(V), free(U0), free(G), free(U), free(UV);
  }
}

Test(cp_als, spd_solve_zero_matrix_gives_zero) {
  const int64_t R = 4, I = 3;
  double V[16] = {0}, U[12];
  for (int i = 0; i < 12; ++i)
    U[i] = i + 1;
  int fallback = 0;
  int64_t rank = -1;
  TPT_OK(tpi_cp_spd_solve(V, R, U, I, &fallback, &rank));
  cr_expect_eq(fallback, 1);
  cr_expect_eq(rank, 0);
  cr_expect_eq(max_abs(U, I * R), 0.0);
}

Test(cp_als, spd_solve_rejects_bad_input) {
  double V[4] = {1, 0, 0, NAN}, U[2] = {1, 1};
  TPT_FAILS_WITH(tpi_cp_spd_solve(V, 2, U, 1, NULL, NULL), TP_ERROR_NUMERICAL);
  cr_expect(strstr(tp_last_error(), "non-finite"), "message: %s", tp_last_error());
  TPT_FAILS_WITH(tpi_cp_spd_solve(V, 0, U, 1, NULL, NULL), TP_ERROR_INVALID_ARGUMENT);
}

/* One in-space solve of G (I x R doubles) against V in f32 or f64, compared with the
 * host solve; `expect_fallback` is what the factorisation should report. */
static void check_solve_in_space(const double *G, const double *V, int64_t I, int64_t R, int single,
                                 int expect_fallback, double rel_tol) {
  const size_t n = (size_t)(I * R), es = single ? sizeof(float) : sizeof(double);
  double *want = tpt_host_alloc(sizeof(double) * n);
  double *buf = tpt_host_alloc(sizeof(double) * (n > (size_t)(R * R) ? n : (size_t)(R * R)));
  void *hg = tpt_host_alloc(es * n), *hu = tpt_host_alloc(es * n);
  for (size_t i = 0; i < n; ++i) {
    /* both paths see the same rounded G */
    double g = single ? (double)(float)G[i] : G[i];
    want[i] = g;
    if (single)
      ((float *)hg)[i] = (float)g;
    else
      ((double *)hg)[i] = g;
  }
  TPT_OK(tpi_cp_spd_solve(V, R, want, I, NULL, NULL));
  void *dg = tpt_to_space(hg, es * n), *du = tpt_alloc_poisoned(es * n);
  int fallback = -1;
  TPT_OK(tpi_cp_solve_in_space(tpt_space, single ? TP_DTYPE_F32 : TP_DTYPE_F64, dg, du, I, R, V,
                               buf, &fallback));
  tpt_to_host(hu, du, es * n);
  cr_expect_eq(fallback, expect_fallback);
  const double tol = rel_tol * max_abs(want, (int64_t)n);
  int64_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    double u = single ? (double)((float *)hu)[i] : ((double *)hu)[i];
    bad += !(fabs(u - want[i]) <= tol);
    if (bad == 1 && !(fabs(u - want[i]) <= tol))
      cr_expect_leq(fabs(u - want[i]), tol, "%s, %lld rows: entry %zu: %g vs %g",
                    single ? "f32" : "f64", (long long)I, i, u, want[i]);
  }
  cr_expect_eq(bad, 0, "%s, %lld rows: %lld entries off", single ? "f32" : "f64", (long long)I,
               (long long)bad);
  tpt_free(dg), tpt_free(du), free(hg), free(hu), free(want), free(buf);
}

/* The in-space wrapper, f32 and f64: small factors go through the host solve, tall ones
 * (TP_CP_SOLVE_PRODUCT_MIN_ROWS rows and more, an odd count) through U = G V^-1 in the
 * space; both must give the host solve's answer. */
Test(cp_als, solve_in_space_matches_host_solve) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t R = 9, rows[] = {21, TP_CP_SOLVE_PRODUCT_MIN_ROWS + 37};
  double *B = random_matrix(&rng, R, R);
  double *V = gram_of(B, R, R, 0.5);
  for (int k = 0; k < 2; ++k) {
    double *G = random_matrix(&rng, rows[k], R);
    for (int single = 0; single <= 1; ++single)
      check_solve_in_space(G, V, rows[k], R, single, 0, single ? 1e-4 : 1e-12);
    free(G);
  }
  free(B), free(V);
}

/* A rank-deficient V on both paths: the fallback's generalized inverse is one linear map,
 * so the product path must reproduce the host's basic solution. */
Test(cp_als, solve_in_space_rank_deficient) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t R = 12, k = 5, rows[] = {17, TP_CP_SOLVE_PRODUCT_MIN_ROWS + 5};
  double *B = random_matrix(&rng, R, k);
  double *V = gram_of(B, R, k, 0.0);
  for (int t = 0; t < 2; ++t) {
    double *U0 = random_matrix(&rng, rows[t], R);
    double *G = times(U0, V, rows[t], R);
    for (int single = 0; single <= 1; ++single)
      check_solve_in_space(G, V, rows[t], R, single, 1, single ? 1e-4 : 1e-10);
    free(U0), free(G);
  }
  free(B), free(V);
}

/* A rank past TP_CP_DEVICE_SOLVE_MIN_RANK through the in-space wrapper (the host solve,
 * which CP-ALS falls back to on GPUs): the host solve's answer. */
Test(cp_als, solve_in_space_of_a_large_rank_matches_host_solve) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t R = TP_CP_DEVICE_SOLVE_MIN_RANK + 3, I = 23;
  double *B = random_matrix(&rng, R, R + 4);
  double *V = gram_of(B, R, R + 4, 0.2);
  double *G = random_matrix(&rng, I, R);
  for (int single = 0; single <= 1; ++single)
    check_solve_in_space(G, V, I, R, single, 0, single ? 1e-4 : 1e-10);
  free(B), free(V), free(G);
}

/* The blocked solve in the space (every backend runs its kernels): ranks around the
 * panel width and past several panels, rows in one chunk and in several, f32 and f64,
 * G and U apart or the same array; the host solve is the reference. */
static void check_device_solve(tpt_rng *rng, int64_t R, int64_t I, int64_t chunk, int single,
                               int in_place) {
  double *B = random_matrix(rng, R, R + 2);
  double *V = gram_of(B, R, R + 2, 0.05);
  double *G = random_matrix(rng, I, R);
  const size_t n = (size_t)(I * R), es = single ? sizeof(float) : sizeof(double);
  double *want = tpt_host_alloc(sizeof(double) * (n ? n : 1));
  void *hg = tpt_host_alloc(es * (n ? n : 1)), *hu = tpt_host_alloc(es * (n ? n : 1));
  for (size_t i = 0; i < n; ++i) {
    want[i] = single ? (double)(float)G[i] : G[i];
    if (single)
      ((float *)hg)[i] = (float)want[i];
    else
      ((double *)hg)[i] = want[i];
  }
  TPT_OK(tpi_cp_spd_solve(V, R, want, I, NULL, NULL));
  void *dg = tpt_to_space(hg, es * (n ? n : 1));
  void *du = in_place ? dg : tpt_alloc_poisoned(es * (n ? n : 1));
  double *dV = tpt_to_space(V, sizeof(double) * (size_t)(R * R));
  int solved = -1;
  TPT_OK(tpi_cp_spd_solve_device(tpt_space, single ? TP_DTYPE_F32 : TP_DTYPE_F64, dg, du, I, R, dV,
                                 chunk, &solved));
  cr_expect_eq(solved, 1, "R = %lld: an SPD matrix should factor", (long long)R);
  tpt_to_host(hu, du, es * n);
  const double tol = (single ? 1e-4 : 1e-10) * (max_abs(want, (int64_t)n) + 1e-300);
  int64_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    double u = single ? (double)((float *)hu)[i] : ((double *)hu)[i];
    if (!(fabs(u - want[i]) <= tol) && bad++ == 0)
      cr_expect_leq(fabs(u - want[i]), tol,
                    "R = %lld, I = %lld, chunk %lld, %s%s: entry %zu: "
                    "%g vs %g",
                    (long long)R, (long long)I, (long long)chunk, single ? "f32" : "f64",
                    in_place ? ", in place" : "", i, u, want[i]);
  }
  cr_expect_eq(bad, 0, "R = %lld, I = %lld: %lld entries off", (long long)R, (long long)I,
               (long long)bad);
  tpt_free(dg), tpt_free(dV);
  if (!in_place)
    tpt_free(du);
  free(B), free(V), free(G), free(want), free(hg), free(hu);
}

Test(cp_als, device_solve_matches_host_solve) {
  tpt_rng rng = tpt_rng_fresh();
  const struct {
    int64_t R, I, chunk;
    int single, in_place;
  } cases[] = {{1, 5, 0, 0, 0},    {63, 17, 0, 0, 0}, {64, 1, 0, 1, 0},    {65, 40, 7, 0, 1},
               {129, 33, 0, 1, 1}, {130, 0, 0, 0, 0}, {200, 61, 16, 0, 0}, {200, 61, 16, 1, 0}};
  for (size_t t = 0; t < sizeof cases / sizeof cases[0]; ++t)
    check_device_solve(&rng, cases[t].R, cases[t].I, cases[t].chunk, cases[t].single,
                       cases[t].in_place);
}

/* A V that is not positive definite leaves U untouched and says so; the in-space wrapper
 * then gives the host's basic solution. */
Test(cp_als, device_solve_reports_a_singular_matrix) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t R = 70, k = 30, I = 9;
  double *B = random_matrix(&rng, R, k);
  double *V = gram_of(B, R, k, 0.0);
  double *G = random_matrix(&rng, I, R);
  void *dg = tpt_to_space(G, sizeof(double) * (size_t)(I * R));
  void *du = tpt_alloc_poisoned(sizeof(double) * (size_t)(I * R));
  double *before = tpt_host_alloc(sizeof(double) * (size_t)(I * R));
  double *after = tpt_host_alloc(sizeof(double) * (size_t)(I * R));
  tpt_to_host(before, du, sizeof(double) * (size_t)(I * R));
  double *dV = tpt_to_space(V, sizeof(double) * (size_t)(R * R));
  int solved = -1;
  TPT_OK(tpi_cp_spd_solve_device(tpt_space, TP_DTYPE_F64, dg, du, I, R, dV, 0, &solved));
  cr_expect_eq(solved, 0, "a rank-%lld V of order %lld must not be reported solved", (long long)k,
               (long long)R);
  tpt_to_host(after, du, sizeof(double) * (size_t)(I * R));
  cr_expect(memcmp(before, after, sizeof(double) * (size_t)(I * R)) == 0,
            "U was written although the solve was refused");
  V[3 * R + 3] = NAN;
  tpt_free(dV);
  dV = tpt_to_space(V, sizeof(double) * (size_t)(R * R));
  TPT_OK(tpi_cp_spd_solve_device(tpt_space, TP_DTYPE_F64, dg, du, I, R, dV, 0, &solved));
  cr_expect_eq(solved, 0, "a NaN on the diagonal must not be reported solved");
  tpt_free(dg), tpt_free(du), tpt_free(dV), free(B), free(V), free(G), free(before), free(after);
}

/* ---- column kernels ------------------------------------------------------------------ */

/* A random I x R matrix (doubles, and the copy in the space in the wanted precision). */
static void *matrix_to_space(const double *a, int64_t n, int single) {
  if (!single)
    return tpt_to_space(a, sizeof(double) * (size_t)(n > 0 ? n : 1));
  float *f = tpt_host_alloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
  for (int64_t i = 0; i < n; ++i)
    f[i] = (float)a[i];
  void *d = tpt_to_space(f, sizeof(float) * (size_t)(n > 0 ? n : 1));
  free(f);
  return d;
}

static void matrix_from_space(const void *d, int64_t n, int single, double *a) {
  if (!single) {
    tpt_to_host(a, d, sizeof(double) * (size_t)n);
    return;
  }
  float *f = tpt_host_alloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
  tpt_to_host(f, d, sizeof(float) * (size_t)n);
  for (int64_t i = 0; i < n; ++i)
    a[i] = f[i];
  free(f);
}

/* The values as stored in the precision under test. */
static double stored(double v, int single) { return single ? (double)(float)v : v; }

static void check_reductions(tpt_rng *rng, int64_t I, int64_t R, int single) {
  tp_dtype dt = single ? TP_DTYPE_F32 : TP_DTYPE_F64;
  double *A = random_matrix(rng, I, R), *B = random_matrix(rng, I, R);
  void *dA = matrix_to_space(A, I * R, single), *dB = matrix_to_space(B, I * R, single);
  double *got = tpt_host_alloc(sizeof(double) * (size_t)R);
  for (int op = 0; op < 3; ++op) {
    for (int64_t r = 0; r < R; ++r)
      got[r] = NAN;
    TPT_OK(tpi_cp_columns_reduce(tpt_space, dt, (tpi_cp_column_op)op, dA, dB, I, R, got));
    for (int64_t r = 0; r < R; ++r) {
      double want = 0.0;
      for (int64_t i = 0; i < I; ++i) {
        double a = stored(A[i * R + r], single), b = stored(B[i * R + r], single);
        if (op == TP_CP_COLUMN_NORM2)
          want += a * a;
        else if (op == TP_CP_COLUMN_MAXABS)
          want = fabs(a) > want ? fabs(a) : want;
        else
          want += a * b;
      }
      if (op == TP_CP_COLUMN_NORM2)
        want = sqrt(want);
      cr_expect_leq(fabs(got[r] - want), 1e-12 * (1 + (double)I),
                    "I = %lld, R = %lld, op %d, column %lld: %.17g vs %.17g", (long long)I,
                    (long long)R, op, (long long)r, got[r], want);
    }
  }
  tpt_free(dA), tpt_free(dB), free(A), free(B), free(got);
}

Test(cp_als, column_reductions_match_reference) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t rows[] = {0, 1, 63, 64, 65, 301, 5003};
  const int64_t cols[] = {1, 3, 33};
  for (int single = 0; single <= 1; ++single)
    for (int a = 0; a < 7; ++a)
      for (int b = 0; b < 3; ++b)
        check_reductions(&rng, rows[a], cols[b], single);
}

static void check_scale_gather(tpt_rng *rng, int64_t I, int64_t R, int single) {
  tp_dtype dt = single ? TP_DTYPE_F32 : TP_DTYPE_F64;
  double *A = random_matrix(rng, I, R), *scale = random_matrix(rng, 1, R);
  double *got = tpt_host_alloc(sizeof(double) * (size_t)(I * R + 1));
  int64_t *perm = tpt_host_alloc(sizeof(int64_t) * (size_t)R);
  for (int64_t r = 0; r < R; ++r)
    perm[r] = (r * 7 + 3) % R; /* a permutation when gcd(7, R) = 1 */
  void *dA = matrix_to_space(A, I * R, single);
  void *dOut = tpt_alloc_poisoned((single ? 4 : 8) * (size_t)(I * R + 1));
  TPT_OK(tpi_cp_columns_gather(tpt_space, dt, dA, dOut, I, R, perm, scale));
  matrix_from_space(dOut, I * R, single, got);
  for (int64_t i = 0; i < I; ++i)
    for (int64_t r = 0; r < R; ++r) {
      double want = stored(stored(A[i * R + perm[r]], single) * scale[perm[r]], single);
      cr_expect_eq(got[i * R + r], want, "gather (%lld, %lld)", (long long)i, (long long)r);
    }
  TPT_OK(tpi_cp_columns_scale(tpt_space, dt, dA, I, R, scale));
  matrix_from_space(dA, I * R, single, got);
  for (int64_t i = 0; i < I * R; ++i) {
    double want = stored(stored(A[i], single) * scale[i % R], single);
    cr_expect_eq(got[i], want, "scale element %lld", (long long)i);
  }
  tpt_free(dA), tpt_free(dOut), free(A), free(scale), free(got), free(perm);
}

Test(cp_als, column_scale_and_gather) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t rows[] = {1, 64, 97, 1031};
  const int64_t cols[] = {1, 5, 32};
  for (int single = 0; single <= 1; ++single)
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 3; ++b)
        check_scale_gather(&rng, rows[a], cols[b], single);
}

Test(cp_als, array_stats_count_nonfinite) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t sizes[] = {1, 97, 4099, 65537};
  for (int single = 0; single <= 1; ++single)
    for (int s = 0; s < 4; ++s) {
      int64_t n = sizes[s];
      double *x = random_matrix(&rng, 1, n);
      int64_t bad = 0;
      double want = 0.0;
      for (int64_t i = 0; i < n; ++i) {
        if (i % 37 == 5)
          x[i] = (i % 2) ? NAN : -INFINITY, ++bad;
        else
          want += stored(x[i], single) * stored(x[i], single);
      }
      void *d = matrix_to_space(x, n, single);
      tpi_cp_array_stats st;
      TPT_OK(tpi_cp_array_stats_of(tpt_space, single ? TP_DTYPE_F32 : TP_DTYPE_F64, d, n, &st));
      cr_expect_eq(st.nonfinite, bad, "n = %lld: %lld non-finite counted, %lld planted",
                   (long long)n, (long long)st.nonfinite, (long long)bad);
      cr_expect_leq(fabs(st.sumsq - want), 1e-12 * want);
      tpt_free(d), free(x);
    }
}

/* ---- CP-ALS on planted tensors --------------------------------------------------------- */

typedef struct problem {
  tp_dense host, dev;
  double norm_x;
} problem;

static void make_problem(problem *p, tp_dtype dtype, int order, const int64_t *dims,
                         tp_layout layout, int64_t rank, double noise, uint64_t seed) {
  memset(p, 0, sizeof *p);
  TPT_OK(tp_dense_alloc(NULL, dtype, order, dims, layout, &p->host));
  TPT_OK(tp_dense_random_planted(&p->host, rank, noise, seed, NULL));
  TPT_OK(tp_dense_alloc(tpt_space, dtype, order, dims, layout, &p->dev));
  TPT_OK(tp_dense_copy_to_device(tpt_space, &p->dev, &p->host));
  int64_t n = tp_dense_count(&p->host);
  double s = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    double v =
        dtype == TP_DTYPE_F32 ? (double)((float *)p->host.data)[i] : ((double *)p->host.data)[i];
    s += v * v;
  }
  p->norm_x = sqrt(s);
}

static void free_problem(problem *p) {
  tp_dense_free(tpt_space, &p->dev);
  tp_dense_free(NULL, &p->host);
}

/* Runs CP-ALS into a fresh model and returns it on the host (allocated); the model in
 * the space is freed. */
static tp_status run_cp(const problem *p, const tp_cp_als_options *o, tp_kruskal *host_model,
                        tp_cp_als_result *res) {
  tp_kruskal m;
  TPT_OK(tp_kruskal_alloc(tpt_space, p->host.dtype, p->host.order, p->host.dims, o->rank, &m));
  tp_status st = tp_cp_als(tpt_space, &p->dev, o, &m, res);
  if (st == TP_SUCCESS && host_model) {
    TPT_OK(tp_kruskal_alloc(NULL, m.dtype, m.order, m.dims, m.rank, host_model));
    TPT_OK(tp_kruskal_copy_to_host(tpt_space, host_model, &m));
  }
  tp_kruskal_free(tpt_space, &m);
  return st;
}

static double load(const tp_kruskal *k, const void *data, int64_t i) {
  return k->dtype == TP_DTYPE_F32 ? (double)((const float *)data)[i] : ((const double *)data)[i];
}

/* Unit columns, lambda >= 0 and sorted, largest first. */
static void check_normalised(const tp_kruskal *k, double tol) {
  for (int64_t r = 0; r < k->rank; ++r) {
    cr_expect_geq(load(k, k->lambda, r), 0.0, "lambda[%lld] < 0", (long long)r);
    if (r > 0)
      cr_expect_geq(load(k, k->lambda, r - 1), load(k, k->lambda, r), "lambda not sorted");
    for (int m = 0; m < k->order; ++m) {
      double s = 0.0;
      for (int64_t i = 0; i < k->dims[m]; ++i)
        s += load(k, k->factors[m], i * k->rank + r) * load(k, k->factors[m], i * k->rank + r);
      cr_expect_leq(fabs(sqrt(s) - 1.0), tol, "mode %d column %lld has norm %g", m, (long long)r,
                    sqrt(s));
    }
  }
}

static const char *variant_names[] = {"auto", "elem", "slice", "tile", "gemm", "blocked"};

static void check_recovery(tp_dtype dtype, int order, const int64_t *dims, int64_t rank,
                           tp_layout layout, tp_mttkrp_variant variant, double min_fit) {
  problem p;
  make_problem(&p, dtype, order, dims, layout, rank, 0.0, 77);
  tp_cp_als_options o = tp_cp_als_options_default();
  o.rank = rank;
  o.seed = 3;
  /* In f32 a swamp (fit 0.9989, rising by about 1e-7 an iteration) can look converged to
   * any tolerance f32 fits resolve, and GPU sums in varying order decide whether a run
   * stops there: f32 runs take every iteration, 1000 of them (300 on the HIP CPU
   * runtime, whose fibers make them slow; every case passes 0.999 by the 40th on the
   * CPU backends). */
  o.tol = dtype == TP_DTYPE_F32 ? 0.0 : 1e-10;
  o.max_iters = dtype == TP_DTYPE_F32 ? (int)tpt_size(1000, 300) : 3000;
  o.mttkrp.variant = variant;
  tp_kruskal k;
  tp_cp_als_result res;
  TPT_OK(run_cp(&p, &o, &k, &res));
  cr_expect_geq(res.fit, min_fit, "%s order %d rank %lld %s %s: fit %.8f after %d iterations",
                tp_dtype_name(dtype), order, (long long)rank, variant_names[variant],
                layout == TP_LAYOUT_LEFT ? "left" : "right", res.fit, res.iterations);
  double resid;
  TPT_OK(tp_cp_residual_reference(&p.host, &k, &resid));
  cr_expect_geq(1 - resid / p.norm_x, min_fit, "explicit fit %.8f", 1 - resid / p.norm_x);
  check_normalised(&k, dtype == TP_DTYPE_F32 ? 1e-5 : 1e-12);
  tp_kruskal_free(NULL, &k);
  free_problem(&p);
}

Test(cp_als, recovers_planted_tensors_f64, .timeout = 300) {
  const int64_t d3[3] = {13, 11, 7}, d4[4] = {7, 5, 6, 3}, d2[2] = {9, 7};
  const tp_mttkrp_variant variants[] = {TP_MTTKRP_AUTO, TP_MTTKRP_BLOCKED, TP_MTTKRP_GEMM,
                                        TP_MTTKRP_ELEM};
  for (int layout = 0; layout <= 1; ++layout)
    for (int v = 0; v < 4; ++v) {
      if (tpt_fibers_skip(layout + v)) /* each variant in one layout */
        continue;
      check_recovery(TP_DTYPE_F64, 3, d3, 3, (tp_layout)layout, variants[v], 0.9999);
      check_recovery(TP_DTYPE_F64, 4, d4, 2, (tp_layout)layout, variants[v], 0.9999);
    }
  check_recovery(TP_DTYPE_F64, 2, d2, 2, TP_LAYOUT_LEFT, TP_MTTKRP_AUTO, 0.9999);
}

Test(cp_als, recovers_planted_tensors_f32, .timeout = 300) {
  const int64_t d3[3] = {13, 11, 7}, d4[4] = {7, 5, 6, 3};
  const tp_mttkrp_variant variants[] = {TP_MTTKRP_AUTO, TP_MTTKRP_BLOCKED, TP_MTTKRP_GEMM,
                                        TP_MTTKRP_ELEM};
  for (int layout = 0; layout <= 1; ++layout)
    for (int v = 0; v < 4; ++v) {
      if (tpt_fibers_skip(layout + v)) /* each variant in one layout */
        continue;
      check_recovery(TP_DTYPE_F32, 3, d3, 3, (tp_layout)layout, variants[v], 0.999);
      check_recovery(TP_DTYPE_F32, 4, d4, 2, (tp_layout)layout, variants[v], 0.999);
    }
}

/* CP-ALS on p with o: the fit it reports, and 1 - ||X - M|| / ||X|| with M formed
 * explicitly. */
static void fits_of_a_run(problem *p, const tp_cp_als_options *o, double *reported,
                          double *explicit_fit) {
  tp_kruskal k;
  tp_cp_als_result res;
  TPT_OK(run_cp(p, o, &k, &res));
  double resid;
  TPT_OK(tp_cp_residual_reference(&p->host, &k, &resid));
  *reported = res.fit;
  *explicit_fit = 1 - resid / p->norm_x;
  tp_kruskal_free(NULL, &k);
}

/* The fit CP-ALS reports equals 1 - ||X - M|| / ||X|| with M formed explicitly, with
 * and without the final normalisation, converged or not. */
Test(cp_als, reported_fit_matches_explicit_residual) {
  const int64_t dims[3] = {12, 9, 10};
  problem p;
  make_problem(&p, TP_DTYPE_F64, 3, dims, TP_LAYOUT_LEFT, 4, 0.1, 5);
  const int iters[] = {1, 2, 7, 200};
  for (int normalize = 0; normalize <= 1; ++normalize)
    for (int t = 0; t < 4; ++t) {
      tp_cp_als_options o = tp_cp_als_options_default();
      o.rank = 5;
      o.max_iters = iters[t];
      o.normalize = normalize;
      double fit, explicit_fit;
      fits_of_a_run(&p, &o, &fit, &explicit_fit);
      cr_expect_leq(fabs(fit - explicit_fit), 1e-10,
                    "max_iters %d, normalize %d: reported %.15f, explicit %.15f", iters[t],
                    normalize, fit, explicit_fit);
      cr_expect_lt(fit, 1.0);
    }
  free_problem(&p);
}

/* A rank past TP_CP_DEVICE_SOLVE_MIN_RANK, f64 and f32: on GPUs the Grams, V and the
 * solves stay in the space; the reported fit must still be the explicit one, and every
 * iteration must raise it. */
Test(cp_als, a_large_rank_reports_the_explicit_fit) {
  const int64_t dims[3] = {300, 271, 9}, R = TP_CP_DEVICE_SOLVE_MIN_RANK + 5;
  for (int single = 0; single <= 1; ++single) {
    problem p;
    make_problem(&p, single ? TP_DTYPE_F32 : TP_DTYPE_F64, 3, dims, TP_LAYOUT_LEFT, 4, 0.1, 9);
    double fits[4];
    for (int iters = 1; iters <= 3; iters += 2) {
      tp_cp_als_options o = tp_cp_als_options_default();
      o.rank = R;
      o.max_iters = iters;
      o.tol = 0;
      double fit, explicit_fit;
      fits_of_a_run(&p, &o, &fit, &explicit_fit);
      cr_expect_leq(fabs(fit - explicit_fit), single ? 2e-4 : 1e-9,
                    "%s, %d iterations: reported %.12f, explicit %.12f", single ? "f32" : "f64",
                    iters, fit, explicit_fit);
      fits[iters] = fit;
    }
    cr_expect_gt(fits[3], fits[1], "%s: the fit fell from %.10f to %.10f", single ? "f32" : "f64",
                 fits[1], fits[3]);
    free_problem(&p);
  }
}

static int same_model(const tp_kruskal *a, const tp_kruskal *b) {
  size_t es = a->dtype == TP_DTYPE_F32 ? 4 : 8;
  if (memcmp(a->lambda, b->lambda, es * (size_t)a->rank))
    return 0;
  for (int k = 0; k < a->order; ++k)
    if (memcmp(a->factors[k], b->factors[k], es * (size_t)(a->dims[k] * a->rank)))
      return 0;
  return 1;
}

/* Largest difference between two f64 models of the same shape. */
static double model_diff(const tp_kruskal *a, const tp_kruskal *b) {
  double m = max_abs_diff(a->lambda, b->lambda, a->rank);
  for (int k = 0; k < a->order; ++k) {
    double d = max_abs_diff(a->factors[k], b->factors[k], a->dims[k] * a->rank);
    m = d > m ? d : m;
  }
  return m;
}

/* Bitwise on the CPU backends; GPUs may order atomic updates differently run to run,
 * so there the two runs need only agree closely. */
Test(cp_als, deterministic_for_a_seed) {
  tp_space_info info;
  TPT_OK(tp_space_get_info(tpt_space, &info));
  const int64_t dims[3] = {13, 11, 7};
  problem p;
  make_problem(&p, TP_DTYPE_F64, 3, dims, TP_LAYOUT_LEFT, 3, 0.05, 9);
  const tp_mttkrp_variant variants[] = {TP_MTTKRP_AUTO, TP_MTTKRP_BLOCKED, TP_MTTKRP_GEMM};
  for (int v = 0; v < 3; ++v) {
    tp_cp_als_options o = tp_cp_als_options_default();
    o.rank = 3;
    o.max_iters = 20;
    o.seed = 5;
    o.mttkrp.variant = variants[v];
    tp_kruskal a, b, c;
    tp_cp_als_result ra, rb, rc;
    TPT_OK(run_cp(&p, &o, &a, &ra));
    TPT_OK(run_cp(&p, &o, &b, &rb));
    o.seed = 6;
    TPT_OK(run_cp(&p, &o, &c, &rc));
    if (info.is_gpu) {
      cr_expect_leq(model_diff(&a, &b), 1e-10, "%s: two runs with seed 5 differ by %g",
                    variant_names[variants[v]], model_diff(&a, &b));
    } else {
      cr_expect(same_model(&a, &b), "%s: two runs with seed 5 differ", variant_names[variants[v]]);
      cr_expect_eq(ra.fit, rb.fit);
    }
    cr_expect_eq(ra.iterations, rb.iterations);
    cr_expect(!same_model(&a, &c), "seeds 5 and 6 gave the same model");
    tp_kruskal_free(NULL, &a), tp_kruskal_free(NULL, &b), tp_kruskal_free(NULL, &c);
  }
  free_problem(&p);
}

Test(cp_als, reuse_of_partials_agrees) {
  const int64_t d3[3] = {13, 11, 7}, d4[4] = {7, 5, 6, 3};
  for (int order = 3; order <= 4; ++order)
    for (int v = 0; v < 2; ++v) {
      problem p;
      make_problem(&p, TP_DTYPE_F64, order, order == 3 ? d3 : d4, TP_LAYOUT_RIGHT, 3, 0.1, 4);
      tp_cp_als_options o = tp_cp_als_options_default();
      o.rank = 3;
      o.tol = 0;
      o.max_iters = 10;
      o.mttkrp.variant = v ? TP_MTTKRP_GEMM : TP_MTTKRP_BLOCKED;
      tp_kruskal a, b;
      tp_cp_als_result ra, rb;
      TPT_OK(run_cp(&p, &o, &a, &ra));
      o.reuse_partials = 0;
      TPT_OK(run_cp(&p, &o, &b, &rb));
      cr_expect_eq(rb.passes_per_iteration, order);
      cr_expect_leq(ra.passes_per_iteration, order);
      cr_expect_leq(fabs(ra.fit - rb.fit), 1e-10, "fits %.15f and %.15f", ra.fit, rb.fit);
      cr_expect_leq(max_abs_diff(a.lambda, b.lambda, 3), 1e-10 * max_abs(b.lambda, 3));
      for (int k = 0; k < order; ++k)
        cr_expect_leq(max_abs_diff(a.factors[k], b.factors[k], a.dims[k] * 3), 1e-10,
                      "order %d, factor %d differs with and without reuse", order, k);
      tp_kruskal_free(NULL, &a), tp_kruskal_free(NULL, &b);
      free_problem(&p);
    }
}

/* Starting from the planted factors, the first iteration already fits. */
Test(cp_als, initial_guess_is_used) {
  const int64_t dims[3] = {10, 8, 6};
  problem p;
  make_problem(&p, TP_DTYPE_F64, 3, dims, TP_LAYOUT_LEFT, 2, 0.0, 21);
  tp_kruskal truth;
  tp_dense scratch;
  TPT_OK(tp_dense_alloc(NULL, TP_DTYPE_F64, 3, dims, TP_LAYOUT_LEFT, &scratch));
  TPT_OK(tp_dense_random_planted(&scratch, 2, 0.0, 21, &truth));
  tp_cp_als_options o = tp_cp_als_options_default();
  o.rank = 2;
  o.max_iters = 1;
  o.init = &truth;
  tp_cp_als_result res;
  TPT_OK(run_cp(&p, &o, NULL, &res));
  cr_expect_geq(res.fit, 1 - 1e-7, "fit %.12f from the true factors", res.fit);
  tp_kruskal_free(NULL, &truth);
  tp_dense_free(NULL, &scratch);
  free_problem(&p);
}

/* Two equal components in the initial guess make every system singular: the fallback
 * solves them, one copy dies (lambda 0, last after sorting) and the other two
 * components still fit the rank-2 tensor. */
Test(cp_als, duplicate_components_use_fallback) {
  const int64_t dims[3] = {9, 8, 7};
  problem p;
  make_problem(&p, TP_DTYPE_F64, 3, dims, TP_LAYOUT_LEFT, 2, 0.0, 31);
  tp_kruskal init;
  TPT_OK(tp_kruskal_alloc(NULL, TP_DTYPE_F64, 3, dims, 3, &init));
  TPT_OK(tp_kruskal_random(&init, 8));
  for (int k = 0; k < 3; ++k)
    for (int64_t i = 0; i < dims[k]; ++i)
      ((double *)init.factors[k])[i * 3 + 2] = ((double *)init.factors[k])[i * 3 + 1];
  tp_cp_als_options o = tp_cp_als_options_default();
  o.rank = 3;
  o.init = &init;
  o.tol = 1e-10;
  o.max_iters = 2000;
  tp_kruskal k;
  tp_cp_als_result res;
  TPT_OK(run_cp(&p, &o, &k, &res));
  cr_expect_gt(res.fallback_solves, 0, "singular systems should take the fallback");
  cr_expect_geq(res.fit, 0.9999, "fit %.8f after %d iterations", res.fit, res.iterations);
  const double *lambda = (const double *)k.lambda;
  cr_expect_eq(lambda[2], 0.0, "the duplicate should be dropped: lambda = %g %g %g", lambda[0],
               lambda[1], lambda[2]);
  cr_expect(isfinite(lambda[0]) && lambda[0] >= lambda[1] && lambda[1] > 0);
  double resid;
  TPT_OK(tp_cp_residual_reference(&p.host, &k, &resid));
  /* the reported fit comes from ||X||^2 + ||M||^2 - 2 <X, M>, which loses about
   * eps / (1 - fit) of it to rounding near a fit of 1 (this noise-free fit is ~1 - 1e-8) */
  const double explicit_fit = 1 - resid / p.norm_x;
  cr_expect_leq(fabs(res.fit - explicit_fit), fmax(1e-8, 10 * DBL_EPSILON / (1 - explicit_fit)),
                "fit %.12f reported, %.12f formed explicitly (%d iterations)", res.fit,
                explicit_fit, res.iterations);
  tp_kruskal_free(NULL, &k);
  tp_kruskal_free(NULL, &init);
  free_problem(&p);
}

/* ---- bad input --------------------------------------------------------------------------- */

static void expect_error(tp_status got, tp_status want, const char *needle) {
  cr_expect_eq(got, want, "got %s, expected %s (%s)", tp_status_name(got), tp_status_name(want),
               tp_last_error());
  cr_expect(strstr(tp_last_error(), needle), "message '%s' should mention '%s'", tp_last_error(),
            needle);
}

Test(cp_als, rejects_bad_input) {
  const int64_t dims[3] = {5, 4, 3}, other[3] = {5, 6, 3};
  problem p;
  make_problem(&p, TP_DTYPE_F64, 3, dims, TP_LAYOUT_LEFT, 2, 0.0, 1);
  tp_cp_als_options o = tp_cp_als_options_default();
  tp_kruskal m;
  TPT_OK(tp_kruskal_alloc(tpt_space, TP_DTYPE_F64, 3, dims, 2, &m));
  o.rank = 0;
  expect_error(tp_cp_als(tpt_space, &p.dev, &o, &m, NULL), TP_ERROR_INVALID_ARGUMENT, "rank");
  o.rank = 2;
  tp_kruskal_free(tpt_space, &m);
  TPT_OK(tp_kruskal_alloc(tpt_space, TP_DTYPE_F64, 3, other, 2, &m));
  expect_error(tp_cp_als(tpt_space, &p.dev, &o, &m, NULL), TP_ERROR_INVALID_ARGUMENT, "dims[1]");
  tp_kruskal_free(tpt_space, &m);
  TPT_OK(tp_kruskal_alloc(tpt_space, TP_DTYPE_F64, 3, dims, 3, &m));
  expect_error(tp_cp_als(tpt_space, &p.dev, &o, &m, NULL), TP_ERROR_INVALID_ARGUMENT, "rank");
  tp_kruskal_free(tpt_space, &m);
  TPT_OK(tp_kruskal_alloc(tpt_space, TP_DTYPE_F32, 3, dims, 2, &m));
  expect_error(tp_cp_als(tpt_space, &p.dev, &o, &m, NULL), TP_ERROR_INVALID_ARGUMENT, "float32");
  tp_kruskal_free(tpt_space, &m);
  double *x = (double *)p.host.data;
  x[17] = NAN;
  TPT_OK(tp_dense_copy_to_device(tpt_space, &p.dev, &p.host));
  expect_error(run_cp(&p, &o, NULL, NULL), TP_ERROR_NUMERICAL, "non-finite");
  memset(x, 0, sizeof(double) * 60);
  TPT_OK(tp_dense_copy_to_device(tpt_space, &p.dev, &p.host));
  expect_error(run_cp(&p, &o, NULL, NULL), TP_ERROR_NUMERICAL, "zero tensor");
  free_problem(&p);
  TPT_OK(tp_space_trim(tpt_space));
  cr_expect_eq(tp_space_bytes_in_use(tpt_space), 0, "an error path leaked space memory");
}

Test(cp_als, rejects_nonfinite_initial_guess) {
  const int64_t dims[3] = {5, 4, 3};
  problem p;
  make_problem(&p, TP_DTYPE_F64, 3, dims, TP_LAYOUT_LEFT, 2, 0.0, 1);
  tp_kruskal init;
  TPT_OK(tp_kruskal_alloc(NULL, TP_DTYPE_F64, 3, dims, 2, &init));
  TPT_OK(tp_kruskal_random(&init, 8));
  ((double *)init.factors[1])[3] = INFINITY;
  tp_cp_als_options o = tp_cp_als_options_default();
  o.rank = 2;
  o.init = &init;
  expect_error(run_cp(&p, &o, NULL, NULL), TP_ERROR_NUMERICAL, "init");
  tp_kruskal_free(NULL, &init);
  free_problem(&p);
}

/* ---- progress ------------------------------------------------------------------------------ */

typedef struct progress_log {
  int calls, last_iteration, increasing;
  double last_fit, last_delta, previous_fit;
  double iterating; /* the iterations' seconds, summed */
} progress_log;

static void record_progress(const tp_cp_als_progress *pr, void *user) {
  progress_log *log = (progress_log *)user;
  if (pr->iteration != log->last_iteration + 1 || !(pr->seconds >= 0))
    log->increasing = 0;
  if (fabs(pr->delta_fit - (pr->fit - log->previous_fit)) > 1e-15)
    log->increasing = 0;
  log->calls++;
  log->last_iteration = pr->iteration;
  log->previous_fit = pr->fit;
  log->last_fit = pr->fit;
  log->last_delta = pr->delta_fit;
  log->iterating += pr->seconds;
}

Test(cp_als, progress_called_once_per_iteration) {
  const int64_t dims[3] = {13, 11, 7};
  problem p;
  make_problem(&p, TP_DTYPE_F64, 3, dims, TP_LAYOUT_LEFT, 3, 0.05, 12);
  for (int max_iters = 1; max_iters <= 30; max_iters += 29) {
    progress_log log = {0, 0, 1, 0, 0, 0, 0};
    tp_cp_als_options o = tp_cp_als_options_default();
    o.rank = 3;
    o.max_iters = max_iters;
    o.progress = record_progress;
    o.progress_user = &log;
    tp_cp_als_result res;
    TPT_OK(run_cp(&p, &o, NULL, &res));
    cr_expect_eq(log.calls, res.iterations, "%d calls for %d iterations", log.calls,
                 res.iterations);
    cr_expect(log.increasing, "iteration numbers 1, 2, ... with delta = fit - previous fit");
    cr_expect_eq(log.last_fit, res.fit);
    cr_expect(res.iterations <= max_iters);
    cr_expect(res.setup_seconds > 0 && res.setup_seconds + log.iterating <= res.seconds,
              "setup %g s and iterations %g s within the run's %g s", res.setup_seconds,
              log.iterating, res.seconds);
    if (res.converged)
      cr_expect_lt(fabs(log.last_delta), o.tol);
  }
  free_problem(&p);
}

Test(cp_als, print_progress_format) {
  FILE *f = tmpfile();
  cr_assert(f);
  tp_cp_als_progress pr = {3, 0.5, 0.25, 0.125, 0, 0, 0};
  tp_cp_als_print_progress(&pr, f);
  pr.fallback_solves = 2;
  tp_cp_als_print_progress(&pr, f);
  rewind(f);
  char line[256];
  cr_assert(fgets(line, sizeof line, f));
  cr_expect_str_eq(line, "iter    3  fit 0.5000000000  delta +2.500e-01  0.125 s\n");
  cr_assert(fgets(line, sizeof line, f));
  cr_expect(strstr(line, "2 rank-revealing solves"), "line: %s", line);
  fclose(f);
}

/* The relabelling of a distributed tensor's split modes: a bijection whose inverse undoes
 * it, the identity where it must be, and a run of consecutive (heavy) indices spread
 * evenly over equal row ranges (slabs). */
Test(cp_als, relabelling_is_a_bijection_that_spreads_runs) {
  const int64_t sizes[] = {3, 10, 37, 1000, 65536, 1000003};
  for (size_t c = 0; c < sizeof sizes / sizeof sizes[0]; ++c) {
    const int64_t n = sizes[c];
    tpi_cp_relabel r;
    tpi_cp_relabel_make(n, 1, &r);
    cr_assert(r.step > 1, "n = %lld: not relabelled", (long long)n);
    unsigned char *seen = calloc((size_t)n, 1);
    int64_t in_quarter[4] = {0, 0, 0, 0}, run = n / 10;
    for (int64_t i = 0; i < n; ++i) {
      int64_t row = tpi_cp_relabel_row(&r, i);
      cr_assert(row >= 0 && row < n && !seen[row],
                "n = %lld: index %lld -> row %lld twice "
                "or out of range",
                (long long)n, (long long)i, (long long)row);
      seen[row] = 1;
      cr_assert_eq(tpi_cp_relabel_index(&r, row), i,
                   "n = %lld: row %lld does not go back to "
                   "%lld",
                   (long long)n, (long long)row, (long long)i);
      if (i < run)
        ++in_quarter[row * 4 / n];
    }
    for (int q = 0; q < 4 && n >= 1000; ++q)
      cr_assert(llabs(in_quarter[q] * 4 - run) <= run / 10,
                "n = %lld: the first %lld indices "
                "put %lld rows in quarter %d",
                (long long)n, (long long)run, (long long)in_quarter[q], q);
    free(seen);
  }
  const int64_t identity[] = {1, 2, 1000};
  for (size_t c = 0; c < 3; ++c) {
    tpi_cp_relabel r;
    tpi_cp_relabel_make(identity[c], c == 2 ? 0 : 1, &r); /* too small, or not wanted */
    cr_assert(r.step == 1 && tpi_cp_relabel_row(&r, identity[c] - 1) == identity[c] - 1);
  }
  tpi_cp_relabel big;
  tpi_cp_relabel_make(((int64_t)1 << 32) + 1, 1, &big); /* products would overflow */
  cr_assert_eq(big.step, 1);
}
