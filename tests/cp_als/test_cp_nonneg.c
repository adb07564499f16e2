/* Nonnegative CP-ALS (tp_cp_als_options.nonneg): the HALS row update against a
 * double-precision reference on awkward sizes (V on the host and in the space, a column
 * with V_rr = 0 left alone, f32 rounding after each entry as the kernel stores it);
 * whole runs on dense and sparse tensors with negative entries keep every factor >= 0 and
 * a fit that never falls; a planted nonnegative tensor is recovered. */
#include <math.h>
#include <string.h>

#include "algorithms/cp_als/tp_cp_internal.h"
#include "tests/common/tpt.h"

TestSuite(cp_nonneg, .init = tpt_setup, .fini = tpt_teardown);

static double stored(double v, int single) { return single ? (double)(float)v : v; }

/* The update as the kernel defines it, in double, rounding each entry as it is stored:
 * up to `sweeps` sweeps of a row, until one moves it by at most TPI_CP_HALS_SETTLED times
 * the first's move. */
static void hals_reference(const double *G, double *U, int64_t I, int64_t R, const double *V,
                           int single, int64_t sweeps) {
  for (int64_t i = 0; i < I; ++i) {
    double first = 0;
    for (int64_t sweep = 0; sweep < sweeps; ++sweep) {
      double moved = 0;
      for (int64_t r = 0; r < R; ++r) {
        const double vrr = V[r * R + r];
        if (!(vrr > 0))
          continue;
        /* (u V)_r in the kernel's order (its stop depends on the last bits) */
        double p[4] = {0, 0, 0, 0};
        for (int64_t q = 0; q < R; ++q)
          p[q < R - R % 4 ? q % 4 : 0] += U[i * R + q] * V[q * R + r];
        const double residual = G[i * R + r] - ((p[0] + p[1]) + (p[2] + p[3]));
        const double next = U[i * R + r] + residual / vrr;
        const double kept = stored(next > 0 ? next : 0.0, single);
        moved += (kept - U[i * R + r]) * (kept - U[i * R + r]);
        U[i * R + r] = kept;
      }
      if (sweep == 0)
        first = moved;
      else if (moved <= TPI_CP_HALS_SETTLED * TPI_CP_HALS_SETTLED * first)
        break;
    }
  }
}

static void *to_space(const double *a, int64_t n, int single) {
  if (!single)
    return tpt_to_space(a, sizeof(double) * (size_t)n);
  float *f = tpt_host_alloc(sizeof(float) * (size_t)(n ? n : 1));
  for (int64_t i = 0; i < n; ++i)
    f[i] = (float)a[i];
  void *d = tpt_to_space(f, sizeof(float) * (size_t)n);
  free(f);
  return d;
}

static void from_space(const void *d, int64_t n, int single, double *a) {
  if (!single) {
    tpt_to_host(a, d, sizeof(double) * (size_t)n);
    return;
  }
  float *f = tpt_host_alloc(sizeof(float) * (size_t)(n ? n : 1));
  tpt_to_host(f, d, sizeof(float) * (size_t)n);
  for (int64_t i = 0; i < n; ++i)
    a[i] = f[i];
  free(f);
}

static void check_hals(tpt_rng *rng, int64_t I, int64_t R, int single, int v_in_space,
                       int64_t sweeps) {
  const int64_t n = I * R;
  double *G = tpt_host_alloc(sizeof(double) * (size_t)(n + 1));
  double *U = tpt_host_alloc(sizeof(double) * (size_t)(n + 1));
  double *want = tpt_host_alloc(sizeof(double) * (size_t)(n + 1));
  double *got = tpt_host_alloc(sizeof(double) * (size_t)(n + 1));
  double *B = tpt_host_alloc(sizeof(double) * (size_t)(R * (R + 2)));
  double *V = tpt_host_alloc(sizeof(double) * (size_t)(R * R));
  for (int64_t i = 0; i < n; ++i) {
    G[i] = stored(tpt_uniform(rng, -1, 2), single);
    U[i] = stored(tpt_uniform(rng, 0, 1), single);
  }
  for (int64_t i = 0; i < R * (R + 2); ++i)
    B[i] = tpt_uniform(rng, -1, 1);
  for (int64_t a = 0; a < R; ++a) /* V = B B^T, column R / 2 zeroed when R > 2 */
    for (int64_t b = 0; b < R; ++b) {
      double s = 0;
      for (int64_t c = 0; c < R + 2; ++c)
        s += B[a * (R + 2) + c] * B[b * (R + 2) + c];
      V[a * R + b] = R > 2 && (a == R / 2 || b == R / 2) ? 0.0 : s;
    }
  memcpy(want, U, sizeof(double) * (size_t)n);
  hals_reference(G, want, I, R, V, single, sweeps);
  void *dG = to_space(G, n, single), *dU = to_space(U, n, single);
  void *dV = v_in_space ? tpt_to_space(V, sizeof(double) * (size_t)(R * R)) : NULL;
  TPT_OK(tpi_cp_columns_hals(tpt_space, single ? TP_DTYPE_F32 : TP_DTYPE_F64, dG, dU, I, R,
                             v_in_space ? NULL : V, (const double *)dV, sweeps));
  from_space(dU, n, single, got);
  double worst = 0, scale = 1;
  for (int64_t i = 0; i < n; ++i) {
    cr_assert(got[i] >= 0, "I %lld R %lld: U[%lld] = %g < 0", (long long)I, (long long)R,
              (long long)i, got[i]);
    worst = fmax(worst, fabs(got[i] - want[i]));
    scale = fmax(scale, fabs(want[i]));
  }
  cr_expect_leq(worst, (single ? 1e-5 : 1e-13) * scale,
                "%s I %lld R %lld V %s, %lld sweeps: largest difference %g", single ? "f32" : "f64",
                (long long)I, (long long)R, v_in_space ? "in the space" : "on the host",
                (long long)sweeps, worst);
  tpt_free(dG), tpt_free(dU), tpt_free(dV);
  free(G), free(U), free(want), free(got), free(B), free(V);
}

Test(cp_nonneg, hals_rows_match_reference) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t rows[] = {1, 37, 1031}, ranks[] = {1, 5, 33};
  for (int single = 0; single <= 1; ++single)
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b)
        for (int64_t sweeps = 1; sweeps <= TPI_CP_HALS_SWEEPS; sweeps += 4)
          check_hals(&rng, rows[a], ranks[b], single, (a + b + (int)sweeps) % 2, sweeps);
  const double one = 1;
  void *g = to_space(&one, 1, 0), *u = to_space(&one, 1, 0);
  TPT_FAILS_WITH(tpi_cp_columns_hals(tpt_space, TP_DTYPE_F64, g, u, 1, 1, &one, NULL, 0),
                 TP_ERROR_INVALID_ARGUMENT);
  tpt_free(g), tpt_free(u);
}

/* ---- whole runs ------------------------------------------------------------------------ */

typedef struct fits {
  int count;
  double fit[400];
} fits;

static void record(const tp_cp_als_progress *p, void *user) {
  fits *f = (fits *)user;
  if (f->count < 400)
    f->fit[f->count++] = p->fit;
}

static void check_model(const char *what, const tp_kruskal *dev, tp_dtype dtype, const fits *f,
                        double fit) {
  tp_kruskal host;
  TPT_OK(tp_kruskal_alloc(NULL, dtype, dev->order, dev->dims, dev->rank, &host));
  TPT_OK(tp_kruskal_copy_to_host(tpt_space, &host, dev));
  for (int k = 0; k < host.order; ++k)
    for (int64_t i = 0; i < host.dims[k] * host.rank; ++i) {
      const double v =
          dtype == TP_DTYPE_F32 ? ((float *)host.factors[k])[i] : ((double *)host.factors[k])[i];
      cr_assert(v >= 0, "%s: factor %d entry %lld is %g", what, k, (long long)i, v);
    }
  /* HALS and the kept extrapolations never lower the fit; its formula, ||X||^2 + ||M||^2 -
   * 2 <X, M>, loses eps / (1 - fit) of it to rounding, so f64 runs are held to that
   * (f32's rounding is too coarse near a fit of 1 for the check to say anything). */
  for (int i = 1; dtype == TP_DTYPE_F64 && i < f->count; ++i)
    cr_expect_geq(f->fit[i], f->fit[i - 1] - 1e-14 / fmax(1 - f->fit[i - 1], 1e-16),
                  "%s: the fit fell from %.12g to %.12g at iteration %d", what, f->fit[i - 1],
                  f->fit[i], i + 1);
  cr_expect(fit > 0 && fit <= 1, "%s: fit %g", what, fit);
  tp_kruskal_free(NULL, &host);
}

/* A dense tensor: uniform values of both signs fitted with rank 3 (mixed), or a planted
 * nonnegative rank-2 one fitted with rank 2. */
static void run_dense(tp_dtype dtype, int mixed, tp_cp_init_method start, double *fit) {
  const int64_t dims[3] = {11, 9, 7};
  tp_dense host, dev;
  TPT_OK(tp_dense_alloc(NULL, TP_DTYPE_F64, 3, dims, TP_LAYOUT_LEFT, &host));
  tpt_rng rng = tpt_rng_fresh();
  double *x = (double *)host.data;
  for (int64_t i = 0; i < tp_dense_count(&host); ++i)
    x[i] = tpt_uniform(&rng, -1, 1);
  if (!mixed) { /* the sum of two products of positive factors: rank 2 */
    /* Each component is large on alternate rows of every mode and small on the others: two
     * components of positive entries only are nearly parallel, and HALS, like every
     * alternating method, crawls through such swamps, so a fixed number of iterations
     * would recover them only for most draws. */
    double a[2][11], b[2][9], c[2][7];
    for (int r = 0; r < 2; ++r) {
      for (int64_t i = 0; i < 11; ++i)
        a[r][i] = i % 2 == r ? tpt_uniform(&rng, 0.5, 1) : tpt_uniform(&rng, 0, 0.2);
      for (int64_t j = 0; j < 9; ++j)
        b[r][j] = j % 2 == r ? tpt_uniform(&rng, 0.5, 1) : tpt_uniform(&rng, 0, 0.2);
      for (int64_t k = 0; k < 7; ++k)
        c[r][k] = k % 2 == r ? tpt_uniform(&rng, 0.5, 1) : tpt_uniform(&rng, 0, 0.2);
    }
    for (int64_t i = 0; i < 11; ++i)
      for (int64_t j = 0; j < 9; ++j)
        for (int64_t k = 0; k < 7; ++k)
          x[i + 11 * (j + 9 * k)] = a[0][i] * b[0][j] * c[0][k] + a[1][i] * b[1][j] * c[1][k];
  }
  tp_dense h2 = host;
  if (dtype == TP_DTYPE_F32) {
    TPT_OK(tp_dense_alloc(NULL, dtype, 3, dims, TP_LAYOUT_LEFT, &h2));
    for (int64_t i = 0; i < tp_dense_count(&host); ++i)
      ((float *)h2.data)[i] = (float)x[i];
  }
  TPT_OK(tp_dense_alloc(tpt_space, dtype, 3, dims, TP_LAYOUT_LEFT, &dev));
  TPT_OK(tp_dense_copy_to_device(tpt_space, &dev, &h2));
  tp_cp_als_options o = tp_cp_als_options_default();
  fits f = {0, {0}};
  o.rank = mixed ? 3 : 2, o.nonneg = 1, o.max_iters = mixed ? 60 : 300, o.tol = 0, o.seed = 4;
  o.init_method = start, o.progress = record, o.progress_user = &f;
  tp_kruskal m;
  TPT_OK(tp_kruskal_alloc(tpt_space, dtype, 3, dims, o.rank, &m));
  tp_cp_als_result res;
  TPT_OK(tp_cp_als(tpt_space, &dev, &o, &m, &res));
  check_model(mixed ? "mixed signs" : "planted", &m, dtype, &f, res.fit);
  *fit = res.fit;
  tp_kruskal_free(tpt_space, &m);
  tp_dense_free(tpt_space, &dev);
  if (dtype == TP_DTYPE_F32)
    tp_dense_free(NULL, &h2);
  tp_dense_free(NULL, &host);
}

Test(cp_nonneg, dense_runs_keep_every_factor_nonnegative, .timeout = 120) {
  for (int single = 0; single <= 1; ++single) {
    const tp_dtype dtype = single ? TP_DTYPE_F32 : TP_DTYPE_F64;
    double fit;
    run_dense(dtype, 1, TP_CP_INIT_RANDOM, &fit);
    run_dense(dtype, 1, TP_CP_INIT_NVECS, &fit); /* eigenvectors of both signs */
    run_dense(dtype, 0, TP_CP_INIT_RANDOM, &fit);
    cr_expect_geq(fit, single ? 0.999 : 0.9999, "%s planted rank-2 nonnegative tensor: fit %.8f",
                  tp_dtype_name(dtype), fit);
  }
}

Test(cp_nonneg, sparse_runs_keep_every_factor_nonnegative) {
  const int64_t dims[3] = {13, 8, 9};
  tpt_rng rng = tpt_rng_fresh();
  tp_coo x;
  TPT_OK(tp_coo_alloc(NULL, TP_DTYPE_F64, 3, dims, 300, &x));
  for (int64_t j = 0; j < x.nnz; ++j) {
    for (int k = 0; k < 3; ++k)
      x.indices[k][j] = tpt_int(&rng, 0, dims[k] - 1);
    ((double *)x.values)[j] = tpt_uniform(&rng, -1, 2);
  }
  tp_cp_als_options o = tp_cp_als_options_default();
  fits f = {0, {0}};
  o.rank = 4, o.nonneg = 1, o.max_iters = 40, o.tol = 0;
  o.progress = record, o.progress_user = &f;
  tp_kruskal m;
  tp_flycoo *fly = NULL;
  TPT_OK(tp_flycoo_create(tpt_space, &x, NULL, &fly));
  TPT_OK(tp_kruskal_alloc(tpt_space, TP_DTYPE_F64, 3, dims, 4, &m));
  tp_cp_als_result res;
  TPT_OK(tp_cp_als_sparse(tpt_space, fly, &o, &m, &res));
  check_model("sparse", &m, TP_DTYPE_F64, &f, res.fit);
  tp_kruskal_free(tpt_space, &m);
  tp_flycoo_destroy(&fly);
  tp_coo_free(NULL, &x);
}
